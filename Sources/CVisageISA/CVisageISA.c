#include "CVisageISA.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>

// F16C, MOVBE and LZCNT read from CPUID itself: clang before 18 (Swift 6.0's and 6.1's)
// refuses them as __builtin_cpu_supports names.
static int visage_has_haswell_extras(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  int f16c = (c >> 29) & 1, movbe = (c >> 22) & 1;
  if (!__get_cpuid(0x80000001u, &a, &b, &c, &d)) return 0;
  int lzcnt = (c >> 5) & 1;
  return f16c && movbe && lzcnt;
}
#endif

int visage_isa_level(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  // __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV),
  // so a feature reads as absent where the kernel would not preserve it.
  __builtin_cpu_init();
  int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && visage_has_haswell_extras();
  int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
  return avx512 ? 2 : avx2 ? 1 : 0;
#else
  return 0;
#endif
}
