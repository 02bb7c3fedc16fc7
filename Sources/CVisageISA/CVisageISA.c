#include "CVisageISA.h"

int visage_isa_level(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  // __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV),
  // so a feature reads as absent where the kernel would not preserve it.
  __builtin_cpu_init();
  int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
             __builtin_cpu_supports("f16c") && __builtin_cpu_supports("movbe") &&
             __builtin_cpu_supports("lzcnt");
  int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
  return avx512 ? 2 : avx2 ? 1 : 0;
#else
  return 0;
#endif
}
