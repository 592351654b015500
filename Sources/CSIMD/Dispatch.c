#include "CSIMD.h"
#include "Dispatch.h"

#if CSIMD_X86
#include <cpuid.h>
#endif

// -1: not asked yet. Relaxed atomics: every thread computes the same answer.
static int machine = -1;
static int limit = CSIMD_LEVEL_AVX2;

int csimd_machine_level(void) {
  int known = __atomic_load_n(&machine, __ATOMIC_RELAXED);
  if (known >= 0) return known;
  int level = CSIMD_LEVEL_SCALAR;
#if CSIMD_X86
  unsigned a, b, c, d;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    // ECX bit 9: SSSE3 (SSE2 is part of x86_64 itself).
    if ((c >> 9) & 1) level = CSIMD_LEVEL_SSSE3;
    // AVX2 needs the OS to save the YMM registers: OSXSAVE (bit 27), AVX
    // (bit 28), and XCR0 with the SSE and AVX states (bits 1 and 2).
    if (level == CSIMD_LEVEL_SSSE3 && ((c >> 27) & 1) && ((c >> 28) & 1)) {
      unsigned xcr0_low, xcr0_high;
      __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
      if ((xcr0_low & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && ((b >> 5) & 1)) {
        level = CSIMD_LEVEL_AVX2;
      }
    }
  }
#endif
  __atomic_store_n(&machine, level, __ATOMIC_RELAXED);
  return level;
}

void csimd_limit(int level) { __atomic_store_n(&limit, level, __ATOMIC_RELAXED); }

int csimd_level(void) {
  int machine_level = csimd_machine_level();
  int limit_level = __atomic_load_n(&limit, __ATOMIC_RELAXED);
  return machine_level < limit_level ? machine_level : limit_level;
}
