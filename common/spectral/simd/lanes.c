/* The lane kernels (lanes_kernel.h) for one ISA: this file is compiled once
 * per ISA with that ISA's flags and one of ORR_ISA_AVX512 / ORR_ISA_AVX2 /
 * ORR_ISA_SSE2 / ORR_ISA_GENERIC (portable GCC vectors of 16 bytes, for any
 * target) defined, and exports that ISA's spec_lanes_isa. */
#include <stddef.h>
#include <string.h>

#include "../spectral.h"
#include "lanes.h"

#if defined(ORR_ISA_AVX512)
#define VB 64
#define ISA avx512
#elif defined(ORR_ISA_AVX2)
#define VB 32
#define ISA avx2
#elif defined(ORR_ISA_SSE2)
#define VB 16
#define ISA sse2
#elif defined(ORR_ISA_GENERIC)
#define VB 16
#define ISA generic
#else
#error "define the ISA this kernel is compiled for"
#endif

#define R double
#define SUFFIX f64
#include "lanes_kernel.h"
#undef R
#undef SUFFIX
#define R float
#define SUFFIX f32
#include "lanes_kernel.h"
#undef R
#undef SUFFIX

#define ISA_NAME2(isa) #isa
#define ISA_NAME(isa) ISA_NAME2(isa)
#define ISA_VAR2(isa) spec_lanes_##isa
#define ISA_VAR(isa) ISA_VAR2(isa)

const spec_lanes_isa ISA_VAR(ISA) = {ISA_NAME(ISA), VB / sizeof(double), VB / sizeof(float),
                                     lanes_run_f64, lanes_run_f32};
