// Byte kernels in C, with SSE vectors on x86_64: the per-byte work of
// camera frames (hundreds of KB of base64 inside JSON inside WebSocket
// text), which Swift's SIMD types cannot express (no byte shuffle) and
// which it otherwise does eight bytes at a time at best.
//
// Every function has a portable scalar path (other architectures, or an
// x86_64 without SSSE3) that gives the same answers; the tests compare
// every path against Foundation and against byte-by-byte rules.
#ifndef CSIMD_H
#define CSIMD_H

#include <stddef.h>
#include <stdint.h>

// The length of the leading run of `p` (`n` bytes) with no byte above 0x7F.
size_t csimd_ascii_prefix(const uint8_t *p, size_t n);

// The length of the leading run of `p` with no quote, no backslash and no
// byte below 0x20 (and, when `ascii_only`, none above 0x7F): the text a
// JSON string holds, and a writer copies, as it is.
size_t csimd_json_plain_prefix(const uint8_t *p, size_t n, int ascii_only);

// Decodes `n` characters of base64 (a multiple of 4, standard alphabet,
// no padding: the caller decodes a padded last group itself) into `out`,
// which has room for exactly n / 4 * 3 bytes. Returns 1, or 0 when some
// character is outside the alphabet (what `out` then holds is unspecified).
int csimd_base64_decode(const uint8_t *in, size_t n, uint8_t *out);

// How many of the `n` characters at `in` are in the base64 alphabet before
// the first that is not ('=' is not): `n` when all are.
size_t csimd_base64_alphabet_prefix(const uint8_t *in, size_t n);

// Writes the base64 of `n` bytes, padded with '=', into `out`, which has
// room for exactly (n + 2) / 3 * 4 characters.
void csimd_base64_encode(const uint8_t *in, size_t n, uint8_t *out);

// XORs `n` bytes at `p` with the four-byte `key` repeated, its first byte
// on p[0] (a masked WebSocket payload, RFC 6455 §5.3, from any offset: the
// caller rotates the key to it).
void csimd_xor_mask(uint8_t *p, size_t n, const uint8_t key[4]);

// The paths: scalar loops, SSSE3 (16 bytes a step; SSE2 for the text
// scans), AVX2 (32 bytes a step).
#define CSIMD_LEVEL_SCALAR 0
#define CSIMD_LEVEL_SSSE3 1
#define CSIMD_LEVEL_AVX2 2

// The best path this machine has.
int csimd_machine_level(void);

// Keeps the kernels at or below `level` (for the tests: every path is
// compared on the same inputs). The default is no limit.
void csimd_limit(int level);

#endif
