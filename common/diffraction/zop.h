/* The z operator of one Fourier order (docs/diffraction.md section 5),
 * written once for the C reference, the CPU threads and the GPU kernels
 * (ORR_HD: host and device functions under nvcc; ORR_GLOBAL: the
 * pointers' address space in OpenCL C). Complex numbers are
 * (re, im) pairs of doubles, the layout of the spectral kernels' data and
 * of C's double complex.
 *
 * For order q with c = i k0^2/(2 kz1), slices i (bottom up, midpoints
 * z_i) and w = the contrast times the field:
 *   y_i = x_i - c (F_i + B_i + d_i w_i + rho E_i S),
 *   F_i = sum_{j<i} e^{i kz (z_i - z_j)} s_j w_j (upward sweep),
 *   B_i = sum_{j>i} e^{i kz (z_j - z_i)} s_j w_j (downward sweep),
 *   S   = sum_j E_j s_j w_j, E_j = e^{i kz z_j} (the substrate's rank one),
 * with s_j = 2 sin(kz h_j/2)/kz and d_j the slice's own integral. Each
 * recursion step multiplies by e^{i kz dz} (modulus <= 1) and adds a
 * product g s that the tables hold precomputed (setup.c), so evanescent
 * orders never overflow; S comes from the downward sweep's last value,
 * S = E_0 (B_0 + s_0 w_0), so no step ever divides. */
#ifndef ORRERY_DIFFRACTION_ZOP_H
#define ORRERY_DIFFRACTION_ZOP_H

#include "../portable.h"

typedef struct {
    double re, im;
} dif_c;

static inline ORR_HD dif_c dif_cmul(dif_c a, dif_c b)
{
    dif_c r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return r;
}

/* a b + c */
static inline ORR_HD dif_c dif_cfma(dif_c a, dif_c b, dif_c c)
{
    dif_c r = {a.re * b.re - a.im * b.im + c.re, a.re * b.im + a.im * b.re + c.im};
    return r;
}

static inline ORR_HD dif_c dif_cadd(dif_c a, dif_c b)
{
    dif_c r = {a.re + b.re, a.im + b.im};
    return r;
}

static inline ORR_HD dif_c dif_csub(dif_c a, dif_c b)
{
    dif_c r = {a.re - b.re, a.im - b.im};
    return r;
}

/* ---- the padded grid of one slice (docs/diffraction.md section 5) ----
 * Order q = b kx + a, i.e. (m, n) = (a - mx, b - my), sits at column
 * m mod fft_x and row n mod fft_y: the convolution is circular on the grid. */

static inline ORR_HD long dif_grid_of_mode(int q, int kx, int mx, int my, int fft_x, int fft_y)
{
    const int m = q % kx - mx, n = q / kx - my;
    return (long)((n + fft_y) % fft_y) * fft_x + (m + fft_x) % fft_x;
}

/* The order at grid index g, or -1 where the grid holds padding. */
static inline ORR_HD long dif_mode_of_grid(long g, int kx, int mx, int my, int fft_x, int fft_y)
{
    const int gx = (int)(g % fft_x), gy = (int)(g / fft_x);
    const int m = gx < (fft_x + 1) / 2 ? gx : gx - fft_x;   /* a grid of 1 (a line grating's y): 0 */
    const int n = gy < (fft_y + 1) / 2 ? gy : gy - fft_y;
    if (m < -mx || m > mx || n < -my || n > my)
        return -1;
    return (long)(n + my) * kx + (m + mx);
}

/* Per order and layer (bottom up), DIF_LAYER_TABLE entries:
 *   P   e^{i kz h}                 step between slices of the layer
 *   PS  e^{i kz h} s               its added product
 *   D   the slice's own integral   2 (e^{i kz h/2} - 1)/(i kz)
 *   G   e^{i kz (h + h')/2}        step to the layer above (thickness h')
 *   GSU G s                        its added product going up
 *   GSD G s'                       going down from the layer above
 * (G, GSU, GSD of the top layer are unused.) */
enum { DIF_LT_P, DIF_LT_PS, DIF_LT_D, DIF_LT_G, DIF_LT_GSU, DIF_LT_GSD, DIF_LAYER_TABLE };
/* Per order: E_0 = e^{i kz z_0}, E_0 s_0, rho, c. */
enum { DIF_MT_E0, DIF_MT_E0S0, DIF_MT_RHO, DIF_MT_C, DIF_MODE_TABLE };

/* y = x - c (F + B + d w + rho E S) for one order: x and y hold its
 * values at slice i at i * stride, w at i * w_stride; lay is the order's [n_layers][6]
 * table, first[l] layer l's first slice (first[n_layers] = nz); y is
 * neither x nor w (it holds partial sums between the sweeps). Returns S (the transmitted amplitude needs it). */
static inline ORR_HD dif_c dif_zop_order(int n_layers, ORR_GLOBAL const int *first,
                                         ORR_GLOBAL const dif_c *lay, ORR_GLOBAL const dif_c *mt,
                                         ORR_GLOBAL const dif_c *x, ORR_GLOBAL const dif_c *w,
                                         long w_stride, ORR_GLOBAL dif_c *y, long stride)
{
    const dif_c zero = {0.0, 0.0};
    dif_c b = zero;
    /* downward: y_i = B_i + d w_i */
    for (int l = n_layers - 1; l >= 0; l--) {
        ORR_GLOBAL const dif_c *t = lay + l * DIF_LAYER_TABLE;
        for (int i = first[l + 1] - 1; i >= first[l]; i--) {
            const dif_c wi = w[i * w_stride];
            y[i * stride] = dif_cfma(t[DIF_LT_D], wi, b);
            if (i > first[l])
                b = dif_cfma(t[DIF_LT_P], b, dif_cmul(t[DIF_LT_PS], wi));
            else if (l > 0) {
                ORR_GLOBAL const dif_c *below = t - DIF_LAYER_TABLE;
                b = dif_cfma(below[DIF_LT_G], b, dif_cmul(below[DIF_LT_GSD], wi));
            }
        }
    }
    /* the substrate's sum, from B_0 */
    const dif_c s = dif_cfma(mt[DIF_MT_E0], b, dif_cmul(mt[DIF_MT_E0S0], w[0]));
    const dif_c rho_s = dif_cmul(mt[DIF_MT_RHO], s);
    const dif_c c = mt[DIF_MT_C];
    /* upward: add F_i and rho E_i S, then y = x - c (...) */
    dif_c f = zero, e = mt[DIF_MT_E0];
    for (int l = 0; l < n_layers; l++) {
        ORR_GLOBAL const dif_c *t = lay + l * DIF_LAYER_TABLE;
        for (int i = first[l]; i < first[l + 1]; i++) {
            const dif_c wi = w[i * w_stride];
            const dif_c sum = dif_cfma(rho_s, e, dif_cadd(y[i * stride], f));
            y[i * stride] = dif_csub(x[i * stride], dif_cmul(c, sum));
            if (i + 1 < first[l + 1]) {
                f = dif_cfma(t[DIF_LT_P], f, dif_cmul(t[DIF_LT_PS], wi));
                e = dif_cmul(t[DIF_LT_P], e);
            } else {
                f = dif_cfma(t[DIF_LT_G], f, dif_cmul(t[DIF_LT_GSU], wi));
                e = dif_cmul(t[DIF_LT_G], e);
            }
        }
    }
    return s;
}

#endif
