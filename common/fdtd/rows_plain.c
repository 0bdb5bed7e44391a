/* The reference's row kernels: sweep.h's loops built plain (the Makefile
 * builds this file without vectorisation: the scalar reference the
 * vectorised CPU paths are measured against, bit for bit the same). No
 * FMA: fast mode's FDTD_FMA is a product and a sum here. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rows.h"
#include "view.h"

#define FDTD_FMA(a, b, c) ((a) * (b) + (c))

#define FDTD_REAL double
#define FDTD_VIEW fdtd_view_d
#define FDTD_SUF(name) plain_d_##name
#include "sweep.h"
#undef FDTD_REAL
#undef FDTD_VIEW
#undef FDTD_SUF

#define FDTD_REAL float
#define FDTD_VIEW fdtd_view_f
#define FDTD_SUF(name) plain_f_##name
#include "sweep.h"

const fdtd_row_kernels fdtd_plain_rows = {
    {plain_d_e_rows_any, plain_d_h_rows_any, plain_d_norm_rows_any},
    {plain_f_e_rows_any, plain_f_h_rows_any, plain_f_norm_rows_any},
};
