// WebSocket unmasking: a client's payload is XORed with a four-byte key
// (RFC 6455 §5.3); a camera frame is hundreds of KB of it.
#include <string.h>

#include "CSIMD.h"
#include "Dispatch.h"

#if CSIMD_X86
CSIMD_AVX2 static size_t xor_mask_avx2(uint8_t *p, size_t n, uint32_t key) {
  size_t i = 0;
  __m256i k = _mm256_set1_epi32((int)key);
  for (; i + 32 <= n; i += 32) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
    _mm256_storeu_si256((__m256i *)(p + i), _mm256_xor_si256(v, k));
  }
  return i;
}

static size_t xor_mask_sse2(uint8_t *p, size_t n, uint32_t key) {
  size_t i = 0;
  __m128i k = _mm_set1_epi32((int)key);
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
    _mm_storeu_si128((__m128i *)(p + i), _mm_xor_si128(v, k));
  }
  return i;
}
#endif

void csimd_xor_mask(uint8_t *p, size_t n, const uint8_t key[4]) {
  size_t i = 0;
#if CSIMD_X86
  // The key in memory order as one 32-bit lane: every step is a multiple
  // of four bytes, so the key stays in phase.
  uint32_t word;
  memcpy(&word, key, 4);
  int level = csimd_level();
  if (level >= CSIMD_LEVEL_AVX2) i = xor_mask_avx2(p, n, word);
  if (level >= CSIMD_LEVEL_SSSE3) i += xor_mask_sse2(p + i, n - i, word);
#endif
  for (; i < n; i++) p[i] ^= key[i & 3];
}
