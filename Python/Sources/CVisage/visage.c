// Compiles the interface as C, so that the header is checked as C, not only as Swift imports it.
#include "visage.h"
