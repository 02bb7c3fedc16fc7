#include "CAllocator.h"

#include <stdlib.h>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>

int visage_retain_freed_memory(void) {
  // One arena: the threads allocate little besides the images, and every arena would keep
  // its own retained memory.
  return mallopt(M_MMAP_THRESHOLD, 64 << 20) && mallopt(M_TRIM_THRESHOLD, 256 << 20) && mallopt(M_ARENA_MAX, 1);
}
#else
int visage_retain_freed_memory(void) { return 0; }
#endif
