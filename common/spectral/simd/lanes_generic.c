/* The lane kernels in portable GCC vectors (16 bytes), built into the core
 * library for every target: the fallback where no x86 ISA build is linked
 * or the CPU runs none of them. */
#define ORR_ISA_GENERIC 1
#include "lanes.c"
