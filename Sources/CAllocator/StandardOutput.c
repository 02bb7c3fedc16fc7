#include "CAllocator.h"

#include <stdio.h>

int visage_flush_standard_output(void) { return fflush(stdout); }
