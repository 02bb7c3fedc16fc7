#include "CAllocator.h"

#include <stdlib.h>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>

int visage_retain_freed_memory(void) {
  // Blocks up to 64 MB from the heap. glibc before about 2.35 refuses a threshold above
  // 32 MiB, and a 12 MP photo's pixels are 34 MiB: there, no block is mapped at all.
  int kept = mallopt(M_MMAP_THRESHOLD, 64 << 20) || mallopt(M_MMAP_MAX, 0);
  // Freed memory stays in the heap up to 256 MB instead of going back at once.
  kept = mallopt(M_TRIM_THRESHOLD, 256 << 20) && kept;
#ifdef M_ARENA_MAX
  // One arena: the threads allocate little besides the images, and every arena would keep
  // its own retained memory.
  mallopt(M_ARENA_MAX, 1);
#endif
  return kept;
}
#else
int visage_retain_freed_memory(void) { return 0; }
#endif
