// Linux's CPU-affinity calls are GNU extensions that Swift's Glibc module does not export,
// hence this file.
#if defined(__linux__)
#define _GNU_SOURCE
#include <sched.h>
#endif

#include "CThreads.h"

int visage_current_cpu(void) {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

int visage_move_off_cpu(int cpu) {
#if defined(__linux__)
  cpu_set_t allowed, elsewhere;
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 0;
  elsewhere = allowed;
  CPU_CLR(cpu, &elsewhere);
  if (CPU_COUNT(&elsewhere) == 0 || sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return 0;
  // The kernel migrates a thread as soon as its own CPU leaves its mask; restoring the mask
  // afterwards leaves it where it landed.
  sched_setaffinity(0, sizeof allowed, &allowed);
  return 1;
#else
  (void)cpu;
  return 0;
#endif
}
