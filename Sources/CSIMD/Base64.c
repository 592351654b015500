// Strict base64 (standard alphabet) with SSSE3 or AVX2: sixteen characters
// (32 with AVX2) are classified and translated with byte shuffles as
// lookup tables, then packed to twelve bytes (24) with two multiply-adds
// and a shuffle: the method of Wojciech Muła and Daniel Lemire, "Faster
// Base64 Encoding and Decoding Using AVX2 Instructions" (2018).
#include "CSIMD.h"
#include "Dispatch.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The value of each character of the alphabet, 0xFF for every other byte
// (bit 7 set: a group's values ORed together tell a bad one at once).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winitializer-overrides"
static const uint8_t values[256] = {
  [0 ... 255] = 0xFF,
  ['A'] = 0, ['B'] = 1, ['C'] = 2, ['D'] = 3, ['E'] = 4, ['F'] = 5, ['G'] = 6, ['H'] = 7,
  ['I'] = 8, ['J'] = 9, ['K'] = 10, ['L'] = 11, ['M'] = 12, ['N'] = 13, ['O'] = 14, ['P'] = 15,
  ['Q'] = 16, ['R'] = 17, ['S'] = 18, ['T'] = 19, ['U'] = 20, ['V'] = 21, ['W'] = 22, ['X'] = 23,
  ['Y'] = 24, ['Z'] = 25, ['a'] = 26, ['b'] = 27, ['c'] = 28, ['d'] = 29, ['e'] = 30, ['f'] = 31,
  ['g'] = 32, ['h'] = 33, ['i'] = 34, ['j'] = 35, ['k'] = 36, ['l'] = 37, ['m'] = 38, ['n'] = 39,
  ['o'] = 40, ['p'] = 41, ['q'] = 42, ['r'] = 43, ['s'] = 44, ['t'] = 45, ['u'] = 46, ['v'] = 47,
  ['w'] = 48, ['x'] = 49, ['y'] = 50, ['z'] = 51, ['0'] = 52, ['1'] = 53, ['2'] = 54, ['3'] = 55,
  ['4'] = 56, ['5'] = 57, ['6'] = 58, ['7'] = 59, ['8'] = 60, ['9'] = 61, ['+'] = 62, ['/'] = 63,
};
#pragma clang diagnostic pop

#if CSIMD_X86
// A character is outside the alphabet exactly when the entries for its
// low and high nibbles share a bit.
CSIMD_SSSE3 static inline __m128i outside_alphabet(__m128i v, __m128i *high_nibbles) {
  const __m128i lut_lo = _mm_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A,
                                       0x1B, 0x1B, 0x1B, 0x1A);
  const __m128i lut_hi = _mm_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10,
                                       0x10, 0x10, 0x10, 0x10);
  const __m128i mask_2f = _mm_set1_epi8(0x2F);
  // Only bits 0-3 index a shuffle and bit 7 zeroes the lane: masking with
  // 0x2F clears bit 7 (and leaves bit 5, which the shuffle ignores).
  __m128i hi = _mm_and_si128(_mm_srli_epi32(v, 4), mask_2f);
  __m128i lo = _mm_and_si128(v, mask_2f);
  *high_nibbles = hi;
  return _mm_and_si128(_mm_shuffle_epi8(lut_lo, lo), _mm_shuffle_epi8(lut_hi, hi));
}

// Sixteen characters to their six-bit values.
CSIMD_SSSE3 static inline __m128i translate(__m128i v, __m128i high_nibbles) {
  // Indexed by the high nibble, '/' (0x2F) moved from 2 to 1.
  const __m128i lut_roll = _mm_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x2F));
  return _mm_add_epi8(v, _mm_shuffle_epi8(lut_roll, _mm_add_epi8(slash, high_nibbles)));
}

// Sixteen six-bit values to twelve bytes in the low lanes.
CSIMD_SSSE3 static inline __m128i pack(__m128i sextets) {
  // ab ab ... : a << 6 | b in each 16-bit lane, then (ab << 12 | cd) in each 32-bit lane.
  __m128i pairs = _mm_maddubs_epi16(sextets, _mm_set1_epi32(0x01400140));
  __m128i groups = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00011000));
  return _mm_shuffle_epi8(groups, _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
}

// Whole blocks of 16 characters while the 16-byte store of each stays
// inside `out` (24 characters left: the store's last four bytes are the
// next block's first). Returns the characters done; `bad` collects lanes
// outside the alphabet.
CSIMD_SSSE3 static size_t decode_ssse3(const uint8_t *in, size_t n, uint8_t *out, int *bad) {
  size_t i = 0, o = 0;
  __m128i outside = _mm_setzero_si128();
  for (; n - i >= 24; i += 16, o += 12) {
    __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
    __m128i hi;
    outside = _mm_or_si128(outside, outside_alphabet(v, &hi));
    _mm_storeu_si128((__m128i *)(out + o), pack(translate(v, hi)));
  }
  *bad = _mm_movemask_epi8(_mm_cmpeq_epi8(outside, _mm_setzero_si128())) != 0xFFFF;
  return i;
}

// Whole blocks of 16 characters in the alphabet, up to the first block
// with one outside it.
CSIMD_SSSE3 static size_t alphabet_ssse3(const uint8_t *in, size_t n) {
  size_t i = 0;
  for (; n - i >= 16; i += 16) {
    __m128i hi;
    __m128i outside = outside_alphabet(_mm_loadu_si128((const __m128i *)(in + i)), &hi);
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(outside, _mm_setzero_si128())) != 0xFFFF) break;
  }
  return i;
}

// Twelve bytes (of a 16-byte load) to sixteen characters, while 16 bytes
// can be loaded.
CSIMD_SSSE3 static size_t encode_ssse3(const uint8_t *in, size_t n, uint8_t *out) {
  size_t i = 0, o = 0;
  for (; n - i >= 16; i += 12, o += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
    // Each group of three bytes s0 s1 s2 as the lanes s1 s0 s2 s1.
    v = _mm_shuffle_epi8(v, _mm_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1));
    // The four sextets of each group, one per byte.
    __m128i t0 = _mm_and_si128(v, _mm_set1_epi32(0x0FC0FC00));
    __m128i t1 = _mm_mulhi_epu16(t0, _mm_set1_epi32(0x04000040));
    __m128i t2 = _mm_and_si128(v, _mm_set1_epi32(0x003F03F0));
    __m128i t3 = _mm_mullo_epi16(t2, _mm_set1_epi32(0x01000010));
    __m128i sextets = _mm_or_si128(t1, t3);
    // Sextet to character: an offset per range, picked by a shuffle.
    __m128i range = _mm_subs_epu8(sextets, _mm_set1_epi8(51));
    __m128i upper = _mm_cmpgt_epi8(_mm_set1_epi8(26), sextets);
    range = _mm_or_si128(range, _mm_and_si128(upper, _mm_set1_epi8(13)));
    const __m128i offsets = _mm_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                                          '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
    _mm_storeu_si128((__m128i *)(out + o), _mm_add_epi8(sextets, _mm_shuffle_epi8(offsets, range)));
  }
  return i;
}

// The same on 32-byte vectors: the shuffles work within each 16-byte lane,
// so the tables are the 16-byte ones twice.
CSIMD_AVX2 static inline __m256i outside_alphabet_avx2(__m256i v, __m256i *high_nibbles) {
  const __m256i lut_lo = _mm256_broadcastsi128_si256(_mm_setr_epi8(
    0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A));
  const __m256i lut_hi = _mm256_broadcastsi128_si256(_mm_setr_epi8(
    0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10));
  const __m256i mask_2f = _mm256_set1_epi8(0x2F);
  __m256i hi = _mm256_and_si256(_mm256_srli_epi32(v, 4), mask_2f);
  __m256i lo = _mm256_and_si256(v, mask_2f);
  *high_nibbles = hi;
  return _mm256_and_si256(_mm256_shuffle_epi8(lut_lo, lo), _mm256_shuffle_epi8(lut_hi, hi));
}

CSIMD_AVX2 static inline __m256i translate_avx2(__m256i v, __m256i high_nibbles) {
  const __m256i lut_roll =
    _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0));
  __m256i slash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x2F));
  return _mm256_add_epi8(v, _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(slash, high_nibbles)));
}

// Thirty-two six-bit values to 24 bytes in the low lanes: twelve per
// 16-byte lane, then the two lanes' twelve moved together.
CSIMD_AVX2 static inline __m256i pack_avx2(__m256i sextets) {
  __m256i pairs = _mm256_maddubs_epi16(sextets, _mm256_set1_epi32(0x01400140));
  __m256i groups = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00011000));
  __m256i lanes = _mm256_shuffle_epi8(
    groups, _mm256_broadcastsi128_si256(_mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1)));
  return _mm256_permutevar8x32_epi32(lanes, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7));
}

// 32 characters a step while the 32-byte store stays inside `out` (44
// characters left: 33 bytes of output).
CSIMD_AVX2 static size_t decode_avx2(const uint8_t *in, size_t n, uint8_t *out, int *bad) {
  size_t i = 0, o = 0;
  __m256i outside = _mm256_setzero_si256();
  for (; n - i >= 44; i += 32, o += 24) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(in + i));
    __m256i hi;
    outside = _mm256_or_si256(outside, outside_alphabet_avx2(v, &hi));
    _mm256_storeu_si256((__m256i *)(out + o), pack_avx2(translate_avx2(v, hi)));
  }
  *bad = !_mm256_testz_si256(outside, outside);
  return i;
}

CSIMD_AVX2 static size_t alphabet_avx2(const uint8_t *in, size_t n) {
  size_t i = 0;
  for (; n - i >= 32; i += 32) {
    __m256i hi;
    __m256i outside = outside_alphabet_avx2(_mm256_loadu_si256((const __m256i *)(in + i)), &hi);
    if (!_mm256_testz_si256(outside, outside)) break;
  }
  return i;
}

// 24 bytes to 32 characters a step: each 16-byte lane loaded with its own
// twelve bytes (and four more, unused), while 28 bytes can be loaded.
CSIMD_AVX2 static size_t encode_avx2(const uint8_t *in, size_t n, uint8_t *out) {
  size_t i = 0, o = 0;
  const __m256i spread =
    _mm256_broadcastsi128_si256(_mm_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1));
  const __m256i offsets = _mm256_broadcastsi128_si256(_mm_setr_epi8(
    'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
    '+' - 62, '/' - 63, 'A', 0, 0));
  for (; n - i >= 28; i += 24, o += 32) {
    __m256i v = _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(in + i))),
      _mm_loadu_si128((const __m128i *)(in + i + 12)), 1);
    v = _mm256_shuffle_epi8(v, spread);
    __m256i t0 = _mm256_and_si256(v, _mm256_set1_epi32(0x0FC0FC00));
    __m256i t1 = _mm256_mulhi_epu16(t0, _mm256_set1_epi32(0x04000040));
    __m256i t2 = _mm256_and_si256(v, _mm256_set1_epi32(0x003F03F0));
    __m256i t3 = _mm256_mullo_epi16(t2, _mm256_set1_epi32(0x01000010));
    __m256i sextets = _mm256_or_si256(t1, t3);
    __m256i range = _mm256_subs_epu8(sextets, _mm256_set1_epi8(51));
    __m256i upper = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), sextets);
    range = _mm256_or_si256(range, _mm256_and_si256(upper, _mm256_set1_epi8(13)));
    _mm256_storeu_si256((__m256i *)(out + o), _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, range)));
  }
  return i;
}
#endif

int csimd_base64_decode(const uint8_t *in, size_t n, uint8_t *out) {
  size_t i = 0, o = 0;
  int bad = 0;
#if CSIMD_X86
  int level = csimd_level();
  if (level >= CSIMD_LEVEL_AVX2) i = decode_avx2(in, n, out, &bad);
  // Then SSSE3 for what is too short for a 32-byte step.
  if (level >= CSIMD_LEVEL_SSSE3) {
    int more = 0;
    i += decode_ssse3(in + i, n - i, out + i / 4 * 3, &more);
    bad |= more;
  }
  o = i / 4 * 3;
#endif
  for (; i + 4 <= n; i += 4, o += 3) {
    uint8_t a = values[in[i]], b = values[in[i + 1]], c = values[in[i + 2]], d = values[in[i + 3]];
    bad |= (a | b | c | d) >> 7;
    uint32_t group = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | d;
    out[o] = (uint8_t)(group >> 16);
    out[o + 1] = (uint8_t)(group >> 8);
    out[o + 2] = (uint8_t)group;
  }
  return !bad && i == n;
}

size_t csimd_base64_alphabet_prefix(const uint8_t *in, size_t n) {
  size_t i = 0;
#if CSIMD_X86
  int level = csimd_level();
  // Each step stops at the first block with a character outside the
  // alphabet; the next, narrower one goes on from there.
  if (level >= CSIMD_LEVEL_AVX2) i = alphabet_avx2(in, n);
  if (level >= CSIMD_LEVEL_SSSE3) i += alphabet_ssse3(in + i, n - i);
#endif
  while (i < n && !(values[in[i]] >> 7)) i++;
  return i;
}

void csimd_base64_encode(const uint8_t *in, size_t n, uint8_t *out) {
  size_t i = 0, o = 0;
#if CSIMD_X86
  int level = csimd_level();
  if (level >= CSIMD_LEVEL_AVX2) i = encode_avx2(in, n, out);
  if (level >= CSIMD_LEVEL_SSSE3) i += encode_ssse3(in + i, n - i, out + i / 3 * 4);
  o = i / 3 * 4;
#endif
  for (; i + 3 <= n; i += 3, o += 4) {
    uint32_t group = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
    out[o] = (uint8_t)alphabet[group >> 18];
    out[o + 1] = (uint8_t)alphabet[(group >> 12) & 63];
    out[o + 2] = (uint8_t)alphabet[(group >> 6) & 63];
    out[o + 3] = (uint8_t)alphabet[group & 63];
  }
  if (i < n) {
    uint32_t group = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
    out[o] = (uint8_t)alphabet[group >> 18];
    out[o + 1] = (uint8_t)alphabet[(group >> 12) & 63];
    out[o + 2] = i + 1 < n ? (uint8_t)alphabet[(group >> 6) & 63] : '=';
    out[o + 3] = '=';
  }
}
