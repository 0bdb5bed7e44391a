/* The integrand at the convolution nodes of one line of sight: the model's
 * formulas (spec section 4) in upstream's arithmetic order, written once
 * for the C reference, the SIMD kernels' lane-wise fallback and the CUDA
 * kernels (ORR_HD makes them host and device functions under nvcc). */
#ifndef ORRERY_SEPARATION_NODES_H
#define ORRERY_SEPARATION_NODES_H

#include <math.h>

#include "separation.h"

static inline ORR_HD double sep_cube(double x) { return x * x * x; }

/* Background density term of one node at galactocentric (x, y, z), rg the
 * flattened radius, times the node weight qw. */
static inline ORR_HD double sep_bg_node(const sep_model_consts *mc, double x, double y, double z,
                                        double rg, double qw)
{
    double h;
    if (mc->newbg) {
        double n_exp = rg < mc->r0 ? mc->alpha : mc->delta;
        return qw * pow(SEP_SUN_R0 / rg, n_exp);
    }
    if (mc->bg_fast)
        h = qw / (rg * sep_cube(rg + mc->r0));
    else
        h = qw / (pow(rg, mc->alpha) * pow(rg + mc->r0, mc->alpha_delta3));
    if (mc->disk_weight != 0.0 || mc->halo_weight != 1.0) {
        const double R = sqrt(x * x + y * y);
        const double disk = qw * exp(R * SEP_DISK_INV_LENGTH + fabs(z) * SEP_DISK_INV_HEIGHT);
        h = mc->halo_weight * h + mc->disk_weight * disk;
    }
    return h;
}

/* Squared distance of (x, y, z) from stream s's axis: the offset from the
 * stream centre less its component along the axis. */
static inline ORR_HD double sep_stream_d2(const sep_model_consts *mc, int s, double x, double y,
                                          double z)
{
    const double *a = mc->stream_a[s], *cc = mc->stream_c[s];
    double dx = x - cc[0], dy = y - cc[1], dz = z - cc[2];
    const double dot = a[0] * dx + a[1] * dy + a[2] * dz;
    dx -= dot * a[0];
    dy -= dot * a[1];
    dz -= dot * a[2];
    return dx * dx + dy * dy + dz * dz;
}

/* Sum over the convolution nodes for one direction: returns the background
 * sum and fills st[0..n_streams), both without the K factor. n_streams is
 * mc->n_streams; passing it as a constant lets a caller specialise. */
static inline ORR_HD double sep_node_sums(const sep_model_consts *mc, const int n_streams,
                                          const sep_direction *d, const double *r_point,
                                          const double *qw_r3_N, int n, double *st)
{
    const double lsin = d->lsin, lcos = d->lcos, bsin = d->bsin, bcos = d->bcos;
    double bg = 0.0;
    for (int s = 0; s < n_streams; s++)
        st[s] = 0.0;
    for (int c = 0; c < n; c++) {
        const double r = r_point[c], qw = qw_r3_N[c];
        const double z = r * bsin;
        const double zp = r * bcos;
        const double x = zp * lcos - SEP_SUN_R0;
        const double y = zp * lsin;
        const double rg = sqrt(x * x + y * y + z * z / (mc->q * mc->q));
        const double h = sep_bg_node(mc, x, y, z, rg, qw);
        bg += h;
        for (int s = 0; s < n_streams; s++)
            st[s] += qw * exp(-sep_stream_d2(mc, s, x, y, z) / mc->stream_sigma_sq2[s]);
    }
    return bg;
}

/* The same sum with the GPU's costly operations taken out: divisions by the
 * constants become multiplications by their reciprocals (1/q^2, -1/(2 s^2)),
 * as the SIMD kernels do. Equal to sep_node_sums up to rounding (an ulp or
 * so per term, unbiased), far inside the GPU tolerance. Node c is at
 * r_point[c * stride] (a node-major layout has stride r_steps; measured on
 * an H200 it was 14% slower than row-major, stride 1, so the kernels use
 * row-major for now). */
static inline ORR_HD double sep_node_sums_fast(const sep_model_consts *mc, const int n_streams,
                                               const sep_direction *d, const double *r_point,
                                               const double *qw_r3_N, int n, int stride, double *st)
{
    const double lsin = d->lsin, lcos = d->lcos, bsin = d->bsin, bcos = d->bcos;
    double bg = 0.0;
    for (int s = 0; s < n_streams; s++)
        st[s] = 0.0;
    for (int c = 0; c < n; c++) {
        const double r = r_point[(size_t)c * stride], qw = qw_r3_N[(size_t)c * stride];
        const double z = r * bsin;
        const double zp = r * bcos;
        const double x = zp * lcos - SEP_SUN_R0;
        const double y = zp * lsin;
        const double rg = sqrt(x * x + y * y + z * z * mc->q_inv_sqr);
        bg += sep_bg_node(mc, x, y, z, rg, qw);
        for (int s = 0; s < n_streams; s++)
            st[s] += qw * exp(sep_stream_d2(mc, s, x, y, z) * mc->stream_neg_inv_sigma_sq2[s]);
    }
    return bg;
}

#endif
