/* The integrand at the convolution nodes of one line of sight: the model's
 * formulas (docs/separation.md section 4) in upstream's arithmetic order, written once
 * for the C reference, the SIMD kernels' lane-wise fallback, the CUDA
 * kernels (ORR_HD makes them host and device functions under nvcc) and the
 * OpenCL kernels (embedded in their source; ORR_CONSTANT and ORR_GLOBAL
 * name the address spaces there). */
#ifndef ORRERY_SEPARATION_NODES_H
#define ORRERY_SEPARATION_NODES_H

#ifndef __OPENCL_C_VERSION__
#include <math.h>
#endif

#include "model.h"

/* ---- the sky: stripe coordinates and lines of sight ---- */

#define SEP_STRIPE_SEPARATION 2.5   /* degrees between SDSS stripes */
#define SEP_SURVEY_CENTER_DEC 32.5
#define SEP_NODE_GC 95.0            /* ascending node of the stripes' great circles */

static inline ORR_HD double sep_wedge_eta_rad(int wedge)
{
    return wedge * sep_d2r(SEP_STRIPE_SEPARATION) - sep_d2r(57.5) - (wedge > 46 ? M_PI : 0.0);
}

/* Stripe coordinates (mu, nu, degrees) of wedge -> galactic l, b (degrees). */
static inline ORR_HD void sep_gc_to_lb(int wedge, double mu, double nu, double *l, double *b)
{
    const double sinnu = sin(sep_d2r(nu)), cosnu = cos(sep_d2r(nu));
    const double munode = sep_d2r(mu - SEP_NODE_GC);
    const double sinmu = sin(munode), cosmu = cos(munode);
    const double x12 = cosmu * cosnu;
    const double y2 = sinmu * cosnu;
    const double incl = sep_wedge_eta_rad(wedge) + sep_d2r(SEP_SURVEY_CENTER_DEC);
    const double sininc = sin(incl), cosinc = cos(incl);
    const double y1 = y2 * cosinc - sinnu * sininc;
    const double z1 = y2 * sininc + sinnu * cosinc;
    const double ra = atan2(y1, x12) + sep_d2r(SEP_NODE_GC);
    const double dec = asin(z1);
    const double cosdec = cos(dec);
    const double v0 = cos(ra) * cosdec, v1 = sin(ra) * cosdec, v2 = z1 /* sin(asin(z1)) */;
    /* equatorial -> galactic rotation */
    const double u0 = -0.054875539726 * v0 + -0.873437108010 * v1 + -0.483834985808 * v2;
    const double u1 = 0.494109453312 * v0 + -0.444829589425 * v1 + 0.746982251810 * v2;
    const double u2 = -0.867666135858 * v0 + -0.198076386122 * v1 + 0.455983795705 * v2;
    const double rxy = hypot(u0, u1);
    *l = sep_r2d(rxy < 1e-15 ? 0.0 : atan2(u1, u0));
    *b = sep_r2d(fabs(u2) < 1e-15 ? 0.0 : atan2(u2, rxy));
}

/* The inverse: galactic (l, b) -> stripe coordinates (mu, nu) of a wedge,
 * degrees, mu in [0, 360). For cutting a catalogue to a wedge (the work-unit
 * tools); the rotation's transpose is its inverse to 1e-12. */
static inline ORR_HD void sep_lb_to_gc(int wedge, double l, double b, double *mu, double *nu)
{
    const double lr = sep_d2r(l), br = sep_d2r(b);
    const double u0 = cos(br) * cos(lr), u1 = cos(br) * sin(lr), u2 = sin(br);
    const double v0 = -0.054875539726 * u0 + 0.494109453312 * u1 + -0.867666135858 * u2;
    const double v1 = -0.873437108010 * u0 + -0.444829589425 * u1 + -0.198076386122 * u2;
    const double v2 = -0.483834985808 * u0 + 0.746982251810 * u1 + 0.455983795705 * u2;
    const double ra = atan2(v1, v0) - sep_d2r(SEP_NODE_GC);
    const double cosdec = hypot(v0, v1);
    const double x = cosdec * cos(ra), y = cosdec * sin(ra), z = v2;
    const double incl = sep_wedge_eta_rad(wedge) + sep_d2r(SEP_SURVEY_CENTER_DEC);
    const double y2 = y * cos(incl) + z * sin(incl), z2 = -y * sin(incl) + z * cos(incl);
    double m = sep_r2d(atan2(y2, x)) + SEP_NODE_GC;
    while (m < 0.0)
        m += 360.0;
    while (m >= 360.0)
        m -= 360.0;
    *mu = m;
    *nu = sep_r2d(atan2(z2, hypot(x, y2)));   /* atan2: no asin's loss near the poles */
}

/* A line of sight from galactic (l, b) in degrees (a star). */
static inline ORR_HD void sep_direction_of_lb(double l, double b, sep_direction *d)
{
    const double lr = sep_d2r(l), br = sep_d2r(b);
    d->lsin = sin(lr);
    d->lcos = cos(lr);
    d->bsin = sin(br);
    d->bcos = cos(br);
}

/* The line of sight through stripe coordinates (mu, nu) of a wedge. */
static inline ORR_HD void sep_gc_direction(int wedge, double mu, double nu, sep_direction *d)
{
    double l, b;
    sep_gc_to_lb(wedge, mu, nu, &l, &b);
    sep_direction_of_lb(l, b, d);
}

/* ---- the integrand ---- */

static inline ORR_HD double sep_cube(double x) { return x * x * x; }

/* Background density term of one node at galactocentric (x, y, z), rg the
 * flattened radius, times the node weight qw. */
static inline ORR_HD double sep_bg_node(ORR_CONSTANT const sep_model_consts *mc, double x, double y, double z,
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
static inline ORR_HD double sep_stream_d2(ORR_CONSTANT const sep_model_consts *mc, int s, double x, double y,
                                          double z)
{
    ORR_CONSTANT const double *a = mc->stream_a[s], *cc = mc->stream_c[s];
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
static inline ORR_HD double sep_node_sums(ORR_CONSTANT const sep_model_consts *mc, const int n_streams,
                                          const sep_direction *d, ORR_GLOBAL const double *r_point,
                                          ORR_GLOBAL const double *qw_r3_N, int n, double *st)
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
static inline ORR_HD double sep_node_sums_fast(ORR_CONSTANT const sep_model_consts *mc, const int n_streams,
                                               const sep_direction *d, ORR_GLOBAL const double *r_point,
                                               ORR_GLOBAL const double *qw_r3_N, int n, int stride,
                                               double *st)
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

/* Along one line of sight the node position is r u - (R0, 0, 0), linear in
 * r, so a stream's squared distance from its axis is a quadratic in r:
 * with P the stream centre seen from the Sun, w = u x a and v = P x a,
 * d2(r) = |r w - v|^2 = |w|^2 (r - r0)^2 + d0, where r0 = w.v / |w|^2 is the
 * closest approach and d0 = |v - r0 w|^2 the squared distance there. Both
 * terms are sums of squares, so nothing cancels: a node's exponent is
 * f |w|^2 (r - r0)^2 + f d0 (f = -1/(2 sigma^2)) to a few ulps, as good as
 * sep_stream_d2's, in three operations instead of a dozen. (The expanded
 * form k2 r^2 + k1 r + k0 cancels near the axis; measured on the reference
 * cases it moved likelihoods by 7e-12.) */
#ifndef SEP_NODE_UNROLL
#define SEP_NODE_UNROLL 1
#endif

typedef struct {
    double k2;    /* f |w|^2 */
    double r0;    /* distance of closest approach along the line of sight */
    double d0;    /* f d0 */
} sep_stream_quad;

/* The type sep_stream_quadratic works in. The coefficients are computed
 * once per line of sight and shared by all its nodes, so their rounding
 * errors do not average out over the nodes as a node's own do: a host
 * caller may define it as long double before including this file (the
 * CPU SIMD kernels do; GPUs have no wider type). */
#ifndef SEP_QUAD_REAL
#define SEP_QUAD_REAL double
#endif

static inline ORR_HD void sep_stream_quadratic(ORR_CONSTANT const sep_model_consts *mc, int s,
                                               const sep_direction *d, sep_stream_quad *q)
{
    typedef SEP_QUAD_REAL real;
    const real ux = (real)d->bcos * d->lcos, uy = (real)d->bcos * d->lsin, uz = d->bsin;
    ORR_CONSTANT const double *a = mc->stream_a[s], *c = mc->stream_c[s];
    const real px = (real)c[0] + SEP_SUN_R0, py = c[1], pz = c[2];   /* centre seen from the Sun */
    const real wx = uy * a[2] - uz * a[1], wy = uz * a[0] - ux * a[2], wz = ux * a[1] - uy * a[0];
    const real vx = py * a[2] - pz * a[1], vy = pz * a[0] - px * a[2], vz = px * a[1] - py * a[0];
    const real ww = wx * wx + wy * wy + wz * wz;
    /* Looking along the axis (w = 0) the distance does not change with r. */
    const real r0 = ww > 1e-300 ? (wx * vx + wy * vy + wz * vz) / ww : 0.0;
    const real mx = vx - r0 * wx, my = vy - r0 * wy, mz = vz - r0 * wz;
    const real f = mc->stream_neg_inv_sigma_sq2[s];
    q->k2 = (double)(ww * f);
    q->r0 = (double)r0;
    q->d0 = (double)((mx * mx + my * my + mz * mz) * f);
}

/* A node's exponent for stream quadratic q at distance r. */
static inline ORR_HD double sep_stream_exponent(const sep_stream_quad *q, double r)
{
    const double t = r - q->r0;
    return q->k2 * t * t + q->d0;
}

/* sep_node_sums_fast with the streams' exponents from their quadratics
 * (q[s] from sep_stream_quadratic for this direction). */
static inline ORR_HD double sep_node_sums_quad(ORR_CONSTANT const sep_model_consts *mc, const int n_streams,
                                               const sep_direction *d, const sep_stream_quad *q,
                                               ORR_GLOBAL const double *r_point, ORR_GLOBAL const double *qw_r3_N,
                                               int n, double *st)
{
    const double lsin = d->lsin, lcos = d->lcos, bsin = d->bsin, bcos = d->bcos;
    double bg = 0.0;
    for (int s = 0; s < n_streams; s++)
        st[s] = 0.0;
    /* Unrolling further only costs registers, hence occupancy, on a GPU. */
    ORR_UNROLL(SEP_NODE_UNROLL)
    for (int c = 0; c < n; c++) {
        const double r = r_point[c], qw = qw_r3_N[c];
        const double z = r * bsin;
        const double zp = r * bcos;
        const double x = zp * lcos - SEP_SUN_R0;
        const double y = zp * lsin;
        const double rg = sqrt(x * x + y * y + z * z * mc->q_inv_sqr);
        bg += sep_bg_node(mc, x, y, z, rg, qw);
        for (int s = 0; s < n_streams; s++)
            st[s] += qw * exp(sep_stream_exponent(&q[s], r));
    }
    return bg;
}

#endif
