/* The lane kernels (lanes_kernel.h) for one ISA: this file is compiled once
 * per ISA with that ISA's flags and one of ORR_ISA_AVX512 / ORR_ISA_AVX2 /
 * ORR_ISA_SSE2 / ORR_ISA_GENERIC (portable GCC vectors of 16 bytes, for any
 * target) defined, and exports that ISA's spec_lanes_isa. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../spectral.h"
#include "lanes.h"

#if defined(ORR_ISA_AVX512)
#define VB 64
#define LANES_F64 8
#define LANES_F32 16
#define ISA avx512
#elif defined(ORR_ISA_AVX2)
#define VB 32
#define LANES_F64 4
#define LANES_F32 8
#define ISA avx2
#elif defined(ORR_ISA_SSE2)
#define VB 16
#define LANES_F64 2
#define LANES_F32 4
#define ISA sse2
#elif defined(ORR_ISA_GENERIC)
#define VB 16
#define LANES_F64 2
#define LANES_F32 4
#define ISA generic
#else
#error "define the ISA this kernel is compiled for"
#endif

/* NL: lanes as a number the preprocessor can use; IOTA: 0 .. NL - 1 */
#define IOTA_2 {0, 1}
#define IOTA_4 {0, 1, 2, 3}
#define IOTA_8 {0, 1, 2, 3, 4, 5, 6, 7}
#define IOTA_16 {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
#define IOTA_OF2(nl) IOTA_##nl
#define IOTA_OF(nl) IOTA_OF2(nl)

#define R double
#define RI int64_t
#define SUFFIX f64
#define NL LANES_F64
#define IOTA IOTA_OF(LANES_F64)
#include "lanes_kernel.h"
#undef R
#undef RI
#undef SUFFIX
#undef NL
#undef IOTA
#define R float
#define RI int32_t
#define SUFFIX f32
#define NL LANES_F32
#define IOTA IOTA_OF(LANES_F32)
#include "lanes_kernel.h"
#undef R
#undef RI
#undef SUFFIX
#undef NL
#undef IOTA

#define ISA_NAME2(isa) #isa
#define ISA_NAME(isa) ISA_NAME2(isa)
#define ISA_VAR2(isa) spec_lanes_##isa
#define ISA_VAR(isa) ISA_VAR2(isa)

const spec_lanes_isa ISA_VAR(ISA) = {ISA_NAME(ISA), VB / sizeof(double), VB / sizeof(float),
                                     lanes_run_f64, lanes_run_f32};
