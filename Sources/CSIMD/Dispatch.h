// Which path the kernels take: SSSE3 vectors when the CPU has them (and
// the tests have not forced the scalar path), the scalar loops otherwise.
#ifndef CSIMD_DISPATCH_H
#define CSIMD_DISPATCH_H

#if defined(__x86_64__)
#define CSIMD_X86 1
#include <emmintrin.h>
#include <tmmintrin.h>
#define CSIMD_SSSE3 __attribute__((target("ssse3")))
#else
#define CSIMD_X86 0
#endif

// 1 when the vector paths may run.
int csimd_use_vectors(void);

#endif
