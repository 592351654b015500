#include "CSIMD.h"
#include "Dispatch.h"

#if CSIMD_X86
#include <cpuid.h>
#endif

// -1: not asked yet. Relaxed atomics: every thread computes the same answer.
static int vectors = -1;
static int forced_scalar = 0;

int csimd_has_vectors(void) {
  int known = __atomic_load_n(&vectors, __ATOMIC_RELAXED);
  if (known >= 0) return known;
  int has = 0;
#if CSIMD_X86
  unsigned a, b, c, d;
  // CPUID leaf 1, ECX bit 9: SSSE3 (SSE2 is part of x86_64 itself).
  if (__get_cpuid(1, &a, &b, &c, &d)) has = (c >> 9) & 1;
#endif
  __atomic_store_n(&vectors, has, __ATOMIC_RELAXED);
  return has;
}

void csimd_force_scalar(int force) { __atomic_store_n(&forced_scalar, force != 0, __ATOMIC_RELAXED); }

int csimd_use_vectors(void) {
  return !__atomic_load_n(&forced_scalar, __ATOMIC_RELAXED) && csimd_has_vectors();
}
