/* The FDTD row kernels (common/fdtd/sweep.h) built for one x86 ISA
 * (ORR_ISA_SSE2, ORR_ISA_AVX2 or ORR_ISA_AVX512, one library each, chosen
 * at run time by the CPU backend). The compiler vectorises the rows along
 * i; -ffp-contract=off (Makefile.am) keeps faithful mode's operations the
 * spec's, so every path gives the reference's bits. Fast mode's fused
 * multiply-adds are fma()/fmaf() where the ISA has FMA (AVX2, AVX-512:
 * the GPUs' bits too), a product and a sum on SSE2. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fdtd/rows.h"
#include "fdtd/view.h"

#if defined(ORR_ISA_AVX512)
#define ISA_ROWS fdtd_rows_avx512
#define ISA_FMA 1
#elif defined(ORR_ISA_AVX2)
#define ISA_ROWS fdtd_rows_avx2
#define ISA_FMA 1
#else
#define ISA_ROWS fdtd_rows_sse2
#define ISA_FMA 0
#endif

#define FDTD_REAL double
#define FDTD_VIEW fdtd_view_d
#define FDTD_SUF(name) isa_d_##name
#if ISA_FMA
#define FDTD_FMA(a, b, c) fma((a), (b), (c))
#else
#define FDTD_FMA(a, b, c) ((a) * (b) + (c))
#endif
#include "fdtd/sweep.h"
#undef FDTD_REAL
#undef FDTD_VIEW
#undef FDTD_SUF
#undef FDTD_FMA

#define FDTD_REAL float
#define FDTD_VIEW fdtd_view_f
#define FDTD_SUF(name) isa_f_##name
#if ISA_FMA
#define FDTD_FMA(a, b, c) fmaf((a), (b), (c))
#else
#define FDTD_FMA(a, b, c) ((a) * (b) + (c))
#endif
#include "fdtd/sweep.h"

extern const fdtd_row_kernels ISA_ROWS;
const fdtd_row_kernels ISA_ROWS = {
    {isa_d_e_rows_any, isa_d_h_rows_any, isa_d_norm_rows_any},
    {isa_f_e_rows_any, isa_f_h_rows_any, isa_f_norm_rows_any},
};
