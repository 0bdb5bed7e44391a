/* Separation integrand and star sums, vectorised over the convolution
 * nodes: each lane is one node (one distance along the line of sight), so a
 * cell's 120 nodes are 15 AVX-512 or 30 AVX2 vectors and the streams' sums
 * stay in registers. Written once against vec.h and compiled per ISA.
 *
 * Arithmetic differs from the scalar reference only in rounding: products
 * are fused, z^2/q^2 is z^2 * (1/q^2), a stream's exponent comes from its
 * quadratic in r (nodes.h's sep_stream_quadratic, the GPUs' form, its
 * coefficients in long double once a line of sight) and exp is our own
 * (below). Each changes a term by an ulp or so, unbiased, so the sums move
 * by far less than the 1e-12 budget; the test suite holds every path to
 * the reference values, and test_cpu each chunk to the scalar one within
 * 1e-13. */
#include <math.h>

#include "kernels.h"
#define SEP_QUAD_REAL long double
#include "separation/nodes.h"
#include "vec.h"

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define KERNELS CAT(sep_simd, ISA_SUFFIX)

/* Node vectors a step of the node sums (U below): two where registers
 * are few, so that more independent exps are in flight; AVX-512's one
 * vector a step already keeps its ports busy. */
#ifndef NODE_VECS
#define NODE_VECS (VW == 8 ? 1 : 2)
#endif
#define VEXP_MAX (SEP_MAX_STREAMS * NODE_VECS)

/* exp of m vectors x[0..m), in place. x = n ln2 + r with |r| <= ln2/2
 * (Cody-Waite, ln2 split so n*ln2_hi is exact), exp(r) = 1 + r (1 + r G(r))
 * with G a degree-10 polynomial fit to (exp(r) - 1 - r) / r^2 (error below
 * 2e-18, r^2 times that in exp), evaluated as its even and odd halves in
 * r^2: two chains of 5 and 4 multiply-adds instead of one of 13, the same
 * operation count and the same accuracy as the Taylor series to r^13 it
 * replaces. Then 2^n in two halves so results down to the subnormal range
 * come out right (AVX-512: vscalefpd, one rounding, the same bits). x is
 * clamped to [-1400, 709.78]: at -1400 both halves are 2^-1010 and their
 * product rounds to 0 (so do -inf and NaN); the result above 709.78 is
 * clamped (our arguments are never positive). About 1 ulp against glibc;
 * tested.
 * Each step is taken for every x[j] before the next, so the m dependent
 * chains are interleaved in the instruction stream and the core overlaps
 * them (one chain at a time left SSE2 and AVX2 waiting on latency: the
 * next chain lay beyond the scheduler). m is a compile-time constant where
 * it is called. Each lane's operations are those of one exp, so the bits
 * do not depend on m. */
VEC_INLINE void vexp_n(vd *x, const int m)
{
    const double shifter = 0x1.8p52;   /* adding it rounds to an integer */
    const double ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;
    if (m == 0)
        return;
    /* zeroed only so that the compiler sees every element set where m is
     * not a constant (folded away where it is) */
    vd t[VEXP_MAX] = {0}, n[VEXP_MAX] = {0}, r[VEXP_MAX] = {0}, r2[VEXP_MAX] = {0};
    vd ge[VEXP_MAX] = {0}, go[VEXP_MAX] = {0};
#define EACH _Pragma("GCC unroll 32") for (int j = 0; j < m; j++)
    EACH x[j] = vd_min(vd_max(x[j], vd_set1(-1400.0)), vd_set1(709.78));
    EACH t[j] = x[j] * 0x1.71547652b82fep0 + shifter;
    EACH n[j] = t[j] - shifter;
    EACH r[j] = x[j] - n[j] * ln2_hi;
    EACH r[j] = r[j] - n[j] * ln2_lo;
    EACH r2[j] = r[j] * r[j];
    /* G's coefficients, 1/2!, 1/3!, ... of the Taylor series nearly:
     * even powers ge, odd ones go */
    EACH ge[j] = vd_set1(0x1.1f730349868cep-29) * r2[j] + 0x1.27e4db646b17ep-22;
    EACH go[j] = vd_set1(0x1.af4de97ca4194p-26) * r2[j] + 0x1.71de0231960ebp-19;
    EACH ge[j] = ge[j] * r2[j] + 0x1.a01a01a6d889cp-16;
    EACH go[j] = go[j] * r2[j] + 0x1.a01a01abe7fe1p-13;
    EACH ge[j] = ge[j] * r2[j] + 0x1.6c16c16c162d4p-10;
    EACH go[j] = go[j] * r2[j] + 0x1.11111111100dcp-7;
    EACH ge[j] = ge[j] * r2[j] + 0x1.5555555555556p-5;
    EACH go[j] = go[j] * r2[j] + 0x1.5555555555557p-3;
    EACH ge[j] = ge[j] * r2[j] + 0.5;
    EACH ge[j] = go[j] * r[j] + ge[j];                /* G(r) */
    EACH x[j] = (ge[j] * r[j] + 1.0) * r[j] + 1.0;    /* exp(r) */
#if defined(ORR_ISA_AVX512)
    EACH x[j] = (vd)_mm512_scalef_pd((__m512d)x[j], (__m512d)n[j]);
#else
    const vu sb = (vu)vd_set1(shifter);
    /* Where every lane's result is normal (n >= -1021, p >= 0.7), 2^n is
     * added to p's exponent bits: exact, so the same bits as the two
     * halves below, in 2 operations instead of 9 (AVX2 small11 8% faster,
     * Zen 4). Subnormal and zero results take the two halves. */
    vi below = n[0] < -1021.0;
    for (int j = 1; j < m; j++)
        below |= n[j] < -1021.0;
    if (__builtin_expect(!VD_OP(movemask)((VD_NATIVE)below), 1)) {
        EACH x[j] = (vd)((vi)x[j] + ((vi)((vu)t[j] - sb) << 52));
        return;
    }
    /* The halves: t's bits, read as an unsigned integer, are the shifter's
     * (even) plus n, so shifting them right by one and taking away half the
     * shifter's gives floor(n / 2), as an arithmetic shift of n would: SSE2
     * and AVX2 have no 64-bit arithmetic shift. */
    EACH {
        const vu tb = (vu)t[j];
        vi ni = (vi)(tb - sb), n1 = (vi)((tb >> 1) - (sb >> 1)), n2 = ni - n1;
        vd s1 = (vd)((n1 + 1023) << 52), s2 = (vd)((n2 + 1023) << 52);
        x[j] = x[j] * s1 * s2;
    }
#endif
#undef EACH
}

/* exp of one vector */
VEC_INLINE vd vexp(vd x)
{
    vexp_n(&x, 1);
    return x;
}

/* How the background is computed: vectorised Hernquist (classic with
 * alpha = delta = 1, the common case), the same plus the v146 thick disk,
 * or lane by lane through the reference formulas (pow-based models). */
enum bg_kind { BG_HERNQUIST, BG_HERNQUIST_DISK, BG_LANES };

static enum bg_kind bg_kind_of(const sep_model_consts *mc)
{
    if (mc->newbg || !mc->bg_fast)
        return BG_LANES;
    if (mc->disk_weight != 0.0 || mc->halo_weight != 1.0)
        return BG_HERNQUIST_DISK;
    return BG_HERNQUIST;
}

/* One node vector's background term times its weights qw. */
VEC_INLINE vd background(const sep_model_consts *mc, const enum bg_kind bgk, const sep_direction *d,
                         const vd r, const vd qw)
{
    const vd z = r * d->bsin;
    const vd zp = r * d->bcos;
    const vd x = zp * d->lcos - SEP_SUN_R0;
    const vd y = zp * d->lsin;
    const vd rg = vd_sqrt(x * x + y * y + z * z * mc->q_inv_sqr);
    vd h;
    if (bgk == BG_LANES) {
        for (int i = 0; i < VW; i++)
            h[i] = sep_bg_node(mc, x[i], y[i], z[i], rg[i], qw[i]);
        return h;
    }
    const vd t = rg + mc->r0;
    h = qw / (rg * (t * t * t));
    if (bgk == BG_HERNQUIST_DISK) {
        const vd R = vd_sqrt(x * x + y * y);
        const vd disk = qw * vexp(R * SEP_DISK_INV_LENGTH + vd_abs(z) * SEP_DISK_INV_HEIGHT);
        h = mc->halo_weight * h + mc->disk_weight * disk;
    }
    return h;
}

/* U node vectors from r_point, qw_r3_N added to the background sum bg
 * and the streams' sums st, their streams' exps in one lockstep batch.
 * Each sum takes its nodes in order, as one vector a step would. */
VEC_INLINE void node_step(const sep_model_consts *mc, const enum bg_kind bgk, const int ns, const int U,
                          const sep_direction *d, const sep_stream_quad *q, const double *r_point,
                          const double *qw_r3_N, vd *bg, vd *st)
{
    vd qw[NODE_VECS], e[VEXP_MAX] = {0};
#pragma GCC unroll 4
    for (int u = 0; u < U; u++) {
        const vd r = vd_load(r_point + u * VW);
        qw[u] = vd_load(qw_r3_N + u * VW);
        *bg += background(mc, bgk, d, r, qw[u]);
#pragma GCC unroll 8
        for (int s = 0; s < ns; s++) {
            /* sep_stream_exponent (nodes.h), lane-wise */
            const vd t = r - q[s].r0;
            e[u * ns + s] = q[s].k2 * t * t + q[s].d0;
        }
    }
    vexp_n(e, U * ns);
    /* unrolled, so the accumulators stay in registers */
#pragma GCC unroll 4
    for (int u = 0; u < U; u++)
#pragma GCC unroll 8
        for (int s = 0; s < ns; s++)
            st[s] += qw[u] * e[u * ns + s];
}

/* Node sums of one direction. bgk and ns are compile-time constants in
 * each specialisation below, so the branches and the stream loop vanish. */
VEC_INLINE double sums_body(const sep_model_consts *mc, const enum bg_kind bgk, const int ns,
                            const sep_direction *d, const sep_stream_quad *q, const double *r_point,
                            const double *qw_r3_N, int cpad, double *st_out)
{
    vd bg = vd_set1(0.0);
    vd st[SEP_MAX_STREAMS];
    for (int s = 0; s < ns; s++)
        st[s] = vd_set1(0.0);
    /* U node vectors a step (the rest one at a time) */
    const int U = ns * NODE_VECS <= VEXP_MAX ? NODE_VECS : 1;
    int c = 0;
    for (; c + U * VW <= cpad; c += U * VW)
        node_step(mc, bgk, ns, U, d, q, r_point + c, qw_r3_N + c, &bg, st);
    for (; c < cpad; c += VW)
        node_step(mc, bgk, ns, 1, d, q, r_point + c, qw_r3_N + c, &bg, st);
    for (int s = 0; s < ns; s++)
        st_out[s] = vd_hsum(st[s]);
    return vd_hsum(bg);
}

#define SUMS_FOR(BGK)                                                                          \
    switch (mc->n_streams) {                                                                   \
    case 0: return sums_body(mc, BGK, 0, d, q, rp, qw, cpad, st);                              \
    case 1: return sums_body(mc, BGK, 1, d, q, rp, qw, cpad, st);                              \
    case 2: return sums_body(mc, BGK, 2, d, q, rp, qw, cpad, st);                              \
    case 3: return sums_body(mc, BGK, 3, d, q, rp, qw, cpad, st);                              \
    case 4: return sums_body(mc, BGK, 4, d, q, rp, qw, cpad, st);                              \
    default: return sums_body(mc, BGK, mc->n_streams, d, q, rp, qw, cpad, st);                 \
    }

/* Node sums of direction d, q its streams' quadratics. */
static double sums_quad(const sep_model_consts *mc, const sep_direction *d, const sep_stream_quad *q,
                        const double *rp, const double *qw, int cpad, double *st)
{
    switch (bg_kind_of(mc)) {
    case BG_HERNQUIST: SUMS_FOR(BG_HERNQUIST)
    case BG_HERNQUIST_DISK: SUMS_FOR(BG_HERNQUIST_DISK)
    default: SUMS_FOR(BG_LANES)
    }
}

static void stream_quads(const sep_model_consts *mc, const sep_direction *d, sep_stream_quad *q)
{
    for (int s = 0; s < mc->n_streams; s++)
        sep_stream_quadratic(mc, s, d, &q[s]);
}

static double node_sums(const sep_model_consts *mc, const sep_direction *d, const double *rp,
                        const double *qw, int cpad, double *st)
{
    sep_stream_quad q[SEP_MAX_STREAMS];
    stream_quads(mc, d, q);
    return sums_quad(mc, d, q, rp, qw, cpad, st);
}

/* One chunk: the reference's cell loop and Kahan updates, with the node
 * sums vectorised. */
static void integral_chunk(const sep_simd_tables *tb, int area, int nu_step, int mu_begin,
                           int mu_end, sep_partial *p)
{
    const sep_model_consts *mc = tb->mc;
    const sep_area_tables *t = &tb->setup->areas[area];
    const double id = t->id[nu_step];
    const int cpad = tb->cpad;
    double st_cell[SEP_MAX_STREAMS];

    memset(p, 0, sizeof *p);
    for (int k = mu_begin; k < mu_end; k++) {
        sep_direction d;
        sep_stream_quad q[SEP_MAX_STREAMS];
        sep_column_direction(mc, t, nu_step, k, &d);
        stream_quads(mc, &d, q);
        for (int i = 0; i < t->r_steps; i++) {
            double bgs = sums_quad(mc, &d, q, tb->r_point[area] + (size_t)i * cpad,
                                   tb->qw[area] + (size_t)i * cpad, cpad, st_cell);
            sep_partial_add_cell(p, id * t->irv[i], t->reff_xr_rp3[i], bgs, st_cell, mc->n_streams);
        }
    }
}

static void exp_array(const double *x, double *y, int n)
{
    for (int i = 0; i < n; i += VW) {
        double in[VW] = {0}, out[VW];
        int m = n - i < VW ? n - i : VW;
        memcpy(in, x + i, (size_t)m * sizeof *in);
        vd v = vexp(vd_load(in));
        memcpy(out, &v, sizeof out);
        memcpy(y + i, out, (size_t)m * sizeof *out);
    }
}

const sep_simd_kernels KERNELS = {
#define STR2(s) #s
#define STR(s) STR2(s)
    STR(ISA_SUFFIX), integral_chunk, node_sums, exp_array,
};
