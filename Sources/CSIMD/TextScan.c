// Runs of plain bytes: ASCII (WebSocket text is validated as UTF-8 past
// them) and JSON string text (no quote, backslash or control byte).
#include "CSIMD.h"
#include "Dispatch.h"

#if CSIMD_X86
// SSE2 (part of x86_64) and AVX2: 64 bytes a step while they are all
// plain, then the step's first offender found one vector at a time.
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

CSIMD_AVX2 static size_t ascii_prefix_avx2(const uint8_t *p, size_t n) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
    if (_mm256_movemask_epi8(_mm256_or_si256(a, b)) != 0) break;
  }
  for (; i + 32 <= n; i += 32) {
    int mask = _mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(p + i)));
    if (mask != 0) return i + (size_t)__builtin_ctz((unsigned)mask);
  }
  return i;
}

// A byte's "needs attention" mask: quote, backslash, below 0x20 and (when
// `ascii_only`) above 0x7F. Signed compares: a byte above 0x7F is negative,
// so "below 0x20" signed catches both; flipping the top bit first makes
// the compare unsigned. `ascii_only` is a constant at each inlined use.
static inline __m128i json_attention(__m128i v, int ascii_only) {
  __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
  __m128i low = ascii_only
    ? _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))
    : _mm_cmplt_epi8(_mm_xor_si128(v, _mm_set1_epi8((char)0x80)), _mm_set1_epi8((char)(0x20 ^ 0x80)));
  return _mm_or_si128(special, low);
}

CSIMD_AVX2 static inline __m256i json_attention_avx2(__m256i v, int ascii_only) {
  __m256i special =
    _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
  __m256i low = ascii_only
    ? _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v)
    : _mm256_cmpgt_epi8(_mm256_set1_epi8((char)(0x20 ^ 0x80)), _mm256_xor_si256(v, _mm256_set1_epi8((char)0x80)));
  return _mm256_or_si256(special, low);
}

static inline size_t json_plain_prefix_sse2(const uint8_t *p, size_t n, int ascii_only) {
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

CSIMD_AVX2 static inline size_t json_plain_prefix_avx2(const uint8_t *p, size_t n, int ascii_only) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = json_attention_avx2(_mm256_loadu_si256((const __m256i *)(p + i)), ascii_only);
    __m256i b = json_attention_avx2(_mm256_loadu_si256((const __m256i *)(p + i + 32)), ascii_only);
    if (_mm256_movemask_epi8(_mm256_or_si256(a, b)) != 0) break;
  }
  for (; i + 32 <= n; i += 32) {
    int mask = _mm256_movemask_epi8(json_attention_avx2(_mm256_loadu_si256((const __m256i *)(p + i)), ascii_only));
    if (mask != 0) return i + (size_t)__builtin_ctz((unsigned)mask);
  }
  return i;
}

// One copy per value of `ascii_only`, so the choice is made once per call.
static size_t json_ascii_sse2(const uint8_t *p, size_t n) { return json_plain_prefix_sse2(p, n, 1); }
static size_t json_utf8_sse2(const uint8_t *p, size_t n) { return json_plain_prefix_sse2(p, n, 0); }
CSIMD_AVX2 static size_t json_ascii_avx2(const uint8_t *p, size_t n) { return json_plain_prefix_avx2(p, n, 1); }
CSIMD_AVX2 static size_t json_utf8_avx2(const uint8_t *p, size_t n) { return json_plain_prefix_avx2(p, n, 0); }
#endif

size_t csimd_ascii_prefix(const uint8_t *p, size_t n) {
  size_t i = 0;
#if CSIMD_X86
  int level = csimd_level();
  if (level >= CSIMD_LEVEL_AVX2) i = ascii_prefix_avx2(p, n);
  else if (level >= CSIMD_LEVEL_SSSE3) i = ascii_prefix_sse2(p, n);
#endif
  while (i < n && p[i] < 0x80) i++;
  return i;
}

size_t csimd_json_plain_prefix(const uint8_t *p, size_t n, int ascii_only) {
  size_t i = 0;
#if CSIMD_X86
  int level = csimd_level();
  if (level >= CSIMD_LEVEL_AVX2) i = ascii_only ? json_ascii_avx2(p, n) : json_utf8_avx2(p, n);
  else if (level >= CSIMD_LEVEL_SSSE3) i = ascii_only ? json_ascii_sse2(p, n) : json_utf8_sse2(p, n);
#endif
  for (; i < n; i++) {
    uint8_t c = p[i];
    if (c == '"' || c == '\\' || c < 0x20 || (ascii_only && c >= 0x80)) break;
  }
  return i;
}
