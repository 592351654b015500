// Which path the kernels take: AVX2 or SSSE3 vectors when the CPU (and
// the OS, for AVX2's registers) has them and the tests have not limited
// the level, the scalar loops otherwise.
#ifndef CSIMD_DISPATCH_H
#define CSIMD_DISPATCH_H

#if defined(__x86_64__)
#define CSIMD_X86 1
#include <immintrin.h>
#define CSIMD_SSSE3 __attribute__((target("ssse3")))
#define CSIMD_AVX2 __attribute__((target("avx2")))
#else
#define CSIMD_X86 0
#endif

// The level the kernels may use now: the machine's, within the limit.
int csimd_level(void);

#endif
