// Runs of plain bytes: ASCII (WebSocket text is validated as UTF-8 past
// them) and JSON string text (no quote, backslash or control byte).
#include "CSIMD.h"
#include "Dispatch.h"

#if CSIMD_X86
// SSE2 only (part of x86_64): 64 bytes a step while they are all plain,
// then the step's first offender found 16 at a time.
static size_t ascii_prefix_sse2(const uint8_t *p, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(p + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(p + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(p + i + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(p + i + 48));
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0) break;
  }
  for (; i + 16 <= n; i += 16) {
    int mask = _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(p + i)));
    if (mask != 0) return i + (size_t)__builtin_ctz((unsigned)mask);
  }
  return i;
}

// A byte's "needs attention" mask: quote, backslash, below 0x20 and (when
// `ascii_only`) above 0x7F. Signed compares: a byte above 0x7F is negative,
// so below 0x20 signed catches both; flipping the top bit first makes the
// compare unsigned.
static inline __m128i json_attention(__m128i v, int ascii_only) {
  __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
  __m128i low = ascii_only
    ? _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))
    : _mm_cmplt_epi8(_mm_xor_si128(v, _mm_set1_epi8((char)0x80)), _mm_set1_epi8((char)(0x20 ^ 0x80)));
  return _mm_or_si128(special, low);
}

static size_t json_plain_prefix_sse2(const uint8_t *p, size_t n, int ascii_only) {
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m128i a = json_attention(_mm_loadu_si128((const __m128i *)(p + i)), ascii_only);
    __m128i b = json_attention(_mm_loadu_si128((const __m128i *)(p + i + 16)), ascii_only);
    if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0) break;
  }
  for (; i + 16 <= n; i += 16) {
    int mask = _mm_movemask_epi8(json_attention(_mm_loadu_si128((const __m128i *)(p + i)), ascii_only));
    if (mask != 0) return i + (size_t)__builtin_ctz((unsigned)mask);
  }
  return i;
}
#endif

size_t csimd_ascii_prefix(const uint8_t *p, size_t n) {
  size_t i = 0;
#if CSIMD_X86
  if (csimd_use_vectors()) i = ascii_prefix_sse2(p, n);
#endif
  while (i < n && p[i] < 0x80) i++;
  return i;
}

size_t csimd_json_plain_prefix(const uint8_t *p, size_t n, int ascii_only) {
  size_t i = 0;
#if CSIMD_X86
  if (csimd_use_vectors()) i = json_plain_prefix_sse2(p, n, ascii_only);
#endif
  for (; i < n; i++) {
    uint8_t c = p[i];
    if (c == '"' || c == '\\' || c < 0x20 || (ascii_only && c >= 0x80)) break;
  }
  return i;
}
