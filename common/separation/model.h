/* The separation model as the integrand sees it: limits, constants, the
 * per-member constants, a line of sight and a chunk's partial sums. Host
 * code gets it through separation.h; the CUDA kernels include it, and the
 * OpenCL app embeds it in its kernel source, so it holds plain values only
 * (the struct layouts must be the same on the host and every device; the
 * OpenCL backend checks that at start-up). */
#ifndef ORRERY_SEPARATION_MODEL_H
#define ORRERY_SEPARATION_MODEL_H

#include "../portable.h"

#define SEP_MAX_STREAMS 8
#define SEP_MAX_AREAS 16          /* the wedge and up to 15 cuts */
#define SEP_MAX_CONVOLVE 256
#define SEP_MAX_BUNDLE 64
#define SEP_MAX_SEARCH_PARAMS (SEP_MAX_BUNDLE * (2 + 6 * SEP_MAX_STREAMS))

/* Fixed physical constants (docs/separation.md section 1). */
#define SEP_SUN_R0 8.5
#define SEP_ABS_MAG 4.2
#define SEP_STDEV 0.6
#define SEP_V146_R0 12.0
/* v146 thick disk (Xu et al. 2015): exp(R / -3.5 kpc + |z| / -0.7 kpc),
 * with upstream's 9-digit constants: the exact quotients move the
 * likelihood by 1e-9, far outside the 1e-12 agreement required. */
#define SEP_DISK_INV_LENGTH (-0.285714286)
#define SEP_DISK_INV_HEIGHT (-1.428571429)
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* (deg * pi) / 180, not deg * (pi / 180): the two differ in the last bit,
 * and the published stream integrals follow the former. */
static inline ORR_HD double sep_d2r(double deg) { return deg * M_PI / 180.0; }
static inline ORR_HD double sep_r2d(double rad) { return rad * 180.0 / M_PI; }

typedef enum {
    SEP_MODEL_AUTO = 0,   /* from the file: background_weight_* lines mean v146 */
    SEP_MODEL_CLASSIC,
    SEP_MODEL_V146
} sep_model;

/* ---- derived constants: what the integrand needs, per bundle member ---- */

typedef struct {
    sep_model model;
    int modfit, newbg;
    int convolve;
    int wedge;
    double xr;                   /* 3 sigma_M (classic) or 1 (v146) */
    /* background */
    double q, q_inv_sqr, r0, alpha, delta, alpha_delta3;
    int bg_fast;                 /* alpha == delta == 1: Hernquist without pow */
    double halo_weight;          /* v146 w_b; 1 for classic */
    double disk_weight;          /* v146 1 - w_b; 0 for classic and --newbg */
    double exp_bg_weight;        /* e_b */
    /* streams */
    int n_streams;
    double stream_a[SEP_MAX_STREAMS][3];
    double stream_c[SEP_MAX_STREAMS][3];
    double stream_sigma_sq2[SEP_MAX_STREAMS];   /* 2 sigma^2 */
    double stream_neg_inv_sigma_sq2[SEP_MAX_STREAMS];   /* -1 / (2 sigma^2), for the
                                                           fast paths' multiply */
    int stream_negligible[SEP_MAX_STREAMS];   /* |sigma| <= 1e-4: integral set to 0 */
    double exp_stream_weight[SEP_MAX_STREAMS];
    double sum_exp_weights;      /* S = 0.001 (e_b + sum e_s) */
} sep_model_consts;

/* A line of sight: sines and cosines of galactic l and b. */
typedef struct {
    double lsin, lcos, bsin, bcos;
} sep_direction;

/* The integral is cut into chunks of SEP_CHUNK_MU mu columns of one nu row
 * (chunk k of an area: row k / chunks_per_row). Each chunk is summed from
 * zero over its cells in the order mu, r, and the chunks are merged in order
 * (orr_kahan_merge). The boundaries are fixed, so the sums do not depend on
 * how many threads computed them or how chunks were batched, and a
 * checkpoint between chunks resumes to the same bits. */
#define SEP_CHUNK_MU 16

typedef struct {
    orr_kahan bg;
    orr_kahan st[SEP_MAX_STREAMS];
} sep_partial;

/* One cell's contribution to a chunk's sums: the node sums (without K)
 * times the cell volume V and K, in the reference's order. */
static inline ORR_HD void sep_partial_add_cell(sep_partial *p, double V, double K, double bg_nodes,
                                        const double *st_nodes, int n_streams)
{
    orr_kahan_add(&p->bg, V * (bg_nodes * K));
    for (int j = 0; j < n_streams; j++)
        orr_kahan_add(&p->st[j], st_nodes[j] * (V * K));
}

#endif
