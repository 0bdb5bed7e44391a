/* The lane kernels, written once for both precisions: lanes.c includes this
 * file twice with R (the real type) and SUFFIX (f64, f32) defined, and VB,
 * the vector size in bytes of the ISA it is compiled for.
 *
 * Complex FFT: Stockham autosort, radix-8 passes, then one radix-4 or
 * radix-2 pass for what is left of log2 N; the real kinds on an N/2-point
 * complex FFT (spec section 1), as the scalar kernels were; every scalar
 * replaced by a vector of L transforms (NL as a preprocessor number, RI the
 * integer type of R's size, IOTA = 0 .. NL - 1, all from lanes.c). Only the
 * forward FFT is written: an inverse is conj(FFT(conj x)), and negation is
 * exact, so it is the mirror image of the forward computation. */
#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(name, SUFFIX)
#define L ((int)(VB / sizeof(R)))
#define V FN(vec)
#define VC FN(vcpx)

typedef R V __attribute__((vector_size(VB)));
typedef struct {
    V re, im;
} VC;

#define BC(x) ((V){0} + (R)(x))

/* One forward FFT of n points on every lane, x -> returned buffer (x or
 * y), the other used as scratch; both have room for n + 8 (the padding
 * below). tw is the table for n * step points. */
static VC *FN(vfft)(VC *x, VC *y, int n, const R *tw, int step)
{
    VC *src = x, *dst = y;
    int s = 1, len = n;
    /* Every radix-8 pass reads 8 streams n/8 apart: a power of two of 4 KB
     * and more, all in one L1 set. So between passes the buffers hold
     * element j at j + j / (n/8) (one vector pair of padding per eighth),
     * and the streams fall in different sets. The caller's buffers (first
     * input, last output) are unpadded; both have room for n + 8. */
    int sh = 0;
    while (n >= 8 && (1 << sh) < n / 8)
        sh++;
#define PADDED(j, pad) ((j) + (((j) >> sh) & (pad)))
    int in_pad = 0;
    /* radix-8 passes while they fit (fewer passes over the lanes' scratch);
     * r = e^{-2 pi j / 8} = (c, -c) from the table */
    const V c8 = BC(n >= 8 ? tw[2 * (size_t)(n / 8) * step] : 0);
    while (len >= 8) {
        const int m = len / 8, tstep = step * (n / len);
        const int out_pad = m > 1 ? -1 : 0;
        for (int p = 0; p < m; p++) {
            V wr[8], wi[8];
            _Pragma("GCC unroll 8") for (int k = 1; k < 8; k++) {
                wr[k] = BC(tw[2 * (size_t)k * p * tstep]);
                wi[k] = BC(tw[2 * (size_t)k * p * tstep + 1]);
            }
            /* runs of s elements never cross an eighth (s <= n/8 divides it) */
            const VC *ip[8];
            VC *op[8];
            _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++) {
                ip[k] = src + PADDED(s * p + s * m * k, in_pad);
                op[k] = dst + PADDED(s * (8 * p + k), out_pad);
            }
            for (int q = 0; q < s; q++) {
                VC xv[8];
                _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
                    xv[k] = ip[k][q];
                /* a_k = x_k + x_{k+4}; b_k = (x_k - x_{k+4}) e^{-2 pi j k / 8} */
                V ar[4], ai[4], br[4], bi[4];
                _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {
                    ar[k] = xv[k].re + xv[k + 4].re;
                    ai[k] = xv[k].im + xv[k + 4].im;
                    br[k] = xv[k].re - xv[k + 4].re;
                    bi[k] = xv[k].im - xv[k + 4].im;
                }
                {
                    const V r1 = (br[1] + bi[1]) * c8, i1 = (bi[1] - br[1]) * c8;   /* (1 - j) c */
                    const V r2 = bi[2], i2 = -br[2];                                   /* -j */
                    const V r3 = (bi[3] - br[3]) * c8, i3 = -(br[3] + bi[3]) * c8;   /* (-1 - j) c */
                    br[1] = r1;
                    bi[1] = i1;
                    br[2] = r2;
                    bi[2] = i2;
                    br[3] = r3;
                    bi[3] = i3;
                }
                VC out[8];
                /* 4-point DFTs: even outputs from a, odd from b */
#define DFT4(yr, yi, h)                                                                        \
    do {                                                                                       \
        const V Ar = yr[0] + yr[2], Ai = yi[0] + yi[2];                                        \
        const V Br = yr[0] - yr[2], Bi = yi[0] - yi[2];                                        \
        const V Cr = yr[1] + yr[3], Ci = yi[1] + yi[3];                                        \
        const V Dr = yi[1] - yi[3], Di = yr[3] - yr[1]; /* -j (y1 - y3) */                     \
        out[h].re = Ar + Cr;                                                                   \
        out[h].im = Ai + Ci;                                                                   \
        out[h + 2].re = Br + Dr;                                                               \
        out[h + 2].im = Bi + Di;                                                               \
        out[h + 4].re = Ar - Cr;                                                               \
        out[h + 4].im = Ai - Ci;                                                               \
        out[h + 6].re = Br - Dr;                                                               \
        out[h + 6].im = Bi - Di;                                                               \
    } while (0)
                DFT4(ar, ai, 0);
                DFT4(br, bi, 1);
#undef DFT4
                op[0][q] = out[0];
                if (p == 0) {
                    _Pragma("GCC unroll 8") for (int k = 1; k < 8; k++)
                        op[k][q] = out[k];
                } else {
                    _Pragma("GCC unroll 8") for (int k = 1; k < 8; k++) {
                        op[k][q].re = out[k].re * wr[k] - out[k].im * wi[k];
                        op[k][q].im = out[k].re * wi[k] + out[k].im * wr[k];
                    }
                }
            }
        }
        len = m;
        s *= 8;
        in_pad = out_pad;
        VC *t = src;
        src = dst;
        dst = t;
    }
    while (len >= 4) {
        const int m = len / 4, tstep = step * (n / len);
        for (int p = 0; p < m; p++) {
            const R *w1 = tw + 2 * (size_t)p * tstep, *w2 = tw + 4 * (size_t)p * tstep,
                    *w3 = tw + 6 * (size_t)p * tstep;
            const V w1r = BC(w1[0]), w1i = BC(w1[1]), w2r = BC(w2[0]), w2i = BC(w2[1]),
                    w3r = BC(w3[0]), w3i = BC(w3[1]);
            const int ja = s * p, jb = s * (p + m), jc = s * (p + 2 * m), jd = s * (p + 3 * m);
            VC *o = dst + s * 4 * p;
            for (int q = 0; q < s; q++) {
                const VC a = src[PADDED(ja + q, in_pad)], b = src[PADDED(jb + q, in_pad)],
                         c = src[PADDED(jc + q, in_pad)], d = src[PADDED(jd + q, in_pad)];
                const V apc_r = a.re + c.re, apc_i = a.im + c.im;
                const V amc_r = a.re - c.re, amc_i = a.im - c.im;
                const V bpd_r = b.re + d.re, bpd_i = b.im + d.im;
                /* -j (b - d) */
                const V jbmd_r = b.im - d.im, jbmd_i = d.re - b.re;
                o[q].re = apc_r + bpd_r;
                o[q].im = apc_i + bpd_i;
                const V t1r = amc_r + jbmd_r, t1i = amc_i + jbmd_i;
                const V t2r = apc_r - bpd_r, t2i = apc_i - bpd_i;
                const V t3r = amc_r - jbmd_r, t3i = amc_i - jbmd_i;
                if (p == 0) {
                    /* twiddles 1: t * 1 - u * 0 is t exactly, so skipping them changes no bit */
                    o[q + s].re = t1r;
                    o[q + s].im = t1i;
                    o[q + 2 * s].re = t2r;
                    o[q + 2 * s].im = t2i;
                    o[q + 3 * s].re = t3r;
                    o[q + 3 * s].im = t3i;
                } else {
                    o[q + s].re = t1r * w1r - t1i * w1i;
                    o[q + s].im = t1r * w1i + t1i * w1r;
                    o[q + 2 * s].re = t2r * w2r - t2i * w2i;
                    o[q + 2 * s].im = t2r * w2i + t2i * w2r;
                    o[q + 3 * s].re = t3r * w3r - t3i * w3i;
                    o[q + 3 * s].im = t3r * w3i + t3i * w3r;
                }
            }
        }
        len = m;
        s *= 4;
        in_pad = 0;
        VC *t = src;
        src = dst;
        dst = t;
    }
    if (len == 2) {
        for (int q = 0; q < s; q++) {
            const VC a = src[PADDED(q, in_pad)], b = src[PADDED(q + s, in_pad)];
            dst[q].re = a.re + b.re;
            dst[q].im = a.im + b.im;
            dst[q + s].re = a.re - b.re;
            dst[q + s].im = a.im - b.im;
        }
        src = dst;
    }
#undef PADDED
    return src;
}

/* An NL x NL transpose in registers (m[r][c] -> m[c][r]): log2 NL stages,
 * each swapping the off-diagonal blocks of size bb between row pairs. The
 * masks are constants folded at compile time. */
typedef RI FN(ivec) __attribute__((vector_size(VB)));
#define STAGE(bb)                                                                              \
    if (NL > (bb)) {                                                                           \
        const FN(ivec) iota = IOTA, cond = (iota & (bb)) != 0;                                 \
        const FN(ivec) lo = iota + (cond & (NL - (bb))), hi = iota + (bb) + (cond & (NL - (bb))); \
        _Pragma("GCC unroll 16") for (int r = 0; r < NL; r++)                                  \
            if (!(r & (bb))) {                                                                 \
                const V u = m[r], w = m[r + (bb)];                                             \
                m[r] = __builtin_shuffle(u, w, lo);                                            \
                m[r + (bb)] = __builtin_shuffle(u, w, hi);                                     \
            }                                                                                  \
    }
static inline __attribute__((always_inline)) void FN(transpose)(V *m)
{
    STAGE(8)
    STAGE(4)
    STAGE(2)
    STAGE(1)
}
#undef STAGE

/* Transforms l < count of a side into lanes (complex: element i's re at
 * s[i * es], im at s[i * es + coff], times imsign); lanes >= count zero.
 * Contiguous full groups go through register transposes of NL x NL blocks
 * (the lane layout of n complex is that of 2n reals). */
static void FN(gather_c)(const R *in, ptrdiff_t es, ptrdiff_t coff, ptrdiff_t dist, int count,
                         int n, R imsign, VC *x)
{
    R *xr = (R *)x;
    int i0 = 0;
    if (es == 2 && coff == 1 && count == L) {
        V *xv = (V *)x;
        const int blocked = (2 * n) / NL * NL;
        for (int blk = 0; blk < blocked; blk += NL) {
            V m[NL];
            _Pragma("GCC unroll 16") for (int l = 0; l < NL; l++)
                memcpy(&m[l], in + l * dist + blk, sizeof m[l]);
            FN(transpose)(m);
            _Pragma("GCC unroll 16") for (int k = 0; k < NL; k += 2) {
                xv[blk + k] = m[k];
                xv[blk + k + 1] = imsign * m[k + 1];
            }
        }
        i0 = blocked / 2;
    } else if (dist == 2 && coff == 1 && count == L) {
        /* adjacent complex transforms (the columns of an image): each
         * element's L values are contiguous, (re, im) pairs to split */
        const FN(ivec) iota = IOTA, even = iota + iota, odd = even + 1;
        V *xv = (V *)x;
        for (int i = 0; i < n; i++) {
            V u, w;
            memcpy(&u, in + i * es, sizeof u);
            memcpy(&w, in + i * es + NL, sizeof w);
            xv[2 * i] = __builtin_shuffle(u, w, even);
            xv[2 * i + 1] = imsign * __builtin_shuffle(u, w, odd);
        }
        i0 = n;
    }
    for (int l = 0; l < count; l++) {
        const R *s = in + l * dist;
        for (int i = i0; i < n; i++) {
            xr[2 * i * L + l] = s[i * es];
            xr[(2 * i + 1) * L + l] = imsign * s[i * es + coff];
        }
    }
    for (int l = count; l < L; l++)
        for (int i = 0; i < n; i++)
            xr[2 * i * L + l] = xr[(2 * i + 1) * L + l] = 0;
}

static void FN(scatter_c)(const VC *x, ptrdiff_t es, ptrdiff_t dist, int count, int n, R scale,
                          R imscale, R *out)
{
    const R *xr = (const R *)x;
    int i0 = 0;
    if (es == 2 && count == L) {
        const V *xv = (const V *)x;
        const int blocked = (2 * n) / NL * NL;
        for (int blk = 0; blk < blocked; blk += NL) {
            V m[NL];
            _Pragma("GCC unroll 16") for (int k = 0; k < NL; k += 2) {
                m[k] = xv[blk + k] * scale;
                m[k + 1] = xv[blk + k + 1] * imscale;
            }
            FN(transpose)(m);
            _Pragma("GCC unroll 16") for (int l = 0; l < NL; l++)
                memcpy(out + l * dist + blk, &m[l], sizeof m[l]);
        }
        i0 = blocked / 2;
    } else if (dist == 2 && count == L) {
        /* adjacent complex transforms: re and im vectors interleaved back */
        const FN(ivec) iota = IOTA, half = iota >> 1, pick = (iota & 1) * NL;
        const FN(ivec) lo = half + pick, hi = half + NL / 2 + pick;
        const V *xv = (const V *)x;
        for (int i = 0; i < n; i++) {
            const V re = xv[2 * i] * scale, im = xv[2 * i + 1] * imscale;
            const V u = __builtin_shuffle(re, im, lo), w = __builtin_shuffle(re, im, hi);
            memcpy(out + i * es, &u, sizeof u);
            memcpy(out + i * es + NL, &w, sizeof w);
        }
        i0 = n;
    }
    for (int l = 0; l < count; l++) {
        R *d = out + l * dist;
        for (int i = i0; i < n; i++) {
            d[i * es] = xr[2 * i * L + l] * scale;
            d[i * es + 1] = xr[(2 * i + 1) * L + l] * imscale;
        }
    }
}

static void FN(gather_r)(const R *in, ptrdiff_t es, ptrdiff_t dist, int count, int n, V *x)
{
    R *xr = (R *)x;
    int i0 = 0;
    if (es == 1 && count == L) {
        const int blocked = n / NL * NL;
        for (int blk = 0; blk < blocked; blk += NL) {
            V m[NL];
            _Pragma("GCC unroll 16") for (int l = 0; l < NL; l++)
                memcpy(&m[l], in + l * dist + blk, sizeof m[l]);
            FN(transpose)(m);
            _Pragma("GCC unroll 16") for (int k = 0; k < NL; k++)
                x[blk + k] = m[k];
        }
        i0 = blocked;
    }
    for (int l = 0; l < count; l++) {
        const R *s = in + l * dist;
        for (int i = i0; i < n; i++)
            xr[i * L + l] = s[i * es];
    }
    for (int l = count; l < L; l++)
        for (int i = 0; i < n; i++)
            xr[i * L + l] = 0;
}

static void FN(scatter_r)(const V *x, ptrdiff_t es, ptrdiff_t dist, int count, int n, R *out)
{
    const R *xr = (const R *)x;
    int i0 = 0;
    if (es == 1 && count == L) {
        const int blocked = n / NL * NL;
        for (int blk = 0; blk < blocked; blk += NL) {
            V m[NL];
            _Pragma("GCC unroll 16") for (int k = 0; k < NL; k++)
                m[k] = x[blk + k];
            FN(transpose)(m);
            _Pragma("GCC unroll 16") for (int l = 0; l < NL; l++)
                memcpy(out + l * dist + blk, &m[l], sizeof m[l]);
        }
        i0 = blocked;
    }
    for (int l = 0; l < count; l++) {
        R *d = out + l * dist;
        for (int i = i0; i < n; i++)
            d[i * es] = xr[i * L + l];
    }
}

/* Real FFT of n points (lanes of reals v) -> out (n/2 + 1 complex), by an
 * n/2-point complex FFT; tw is the table for n points. */
static void FN(vr2c)(const V *v, VC *out, VC *z, VC *scratch, int n, const R *tw)
{
    const int h = n / 2;
    for (int i = 0; i < h; i++) {
        z[i].re = v[2 * i];
        z[i].im = v[2 * i + 1];
    }
    const VC *f = FN(vfft)(z, scratch, h, tw, 2);
    const V half = BC(0.5), mhalf = BC(-0.5);
    for (int k = 0; k < h; k++) {
        const VC a = f[k], b = f[k == 0 ? 0 : h - k];   /* Z_k, Z_{h-k} */
        const V er = half * (a.re + b.re), ei = half * (a.im - b.im);    /* E_k */
        const V or_ = half * (a.im + b.im), oi = mhalf * (a.re - b.re);  /* O_k */
        const V wr = BC(tw[2 * (size_t)k]), wi = BC(tw[2 * (size_t)k + 1]);
        out[k].re = er + (or_ * wr - oi * wi);
        out[k].im = ei + (or_ * wi + oi * wr);
    }
    /* k = h: W^h = -1 exactly */
    const VC a = f[0];
    const V er = half * (a.re + a.re), ei = half * (a.im - a.im);
    const V or_ = half * (a.im + a.im), oi = mhalf * (a.re - a.re);
    out[h].re = er - or_;
    out[h].im = ei - oi;
}

/* The inverse without 1/n: y (n/2 + 1 complex) -> conj of the n/2-point
 * result, returned (x_{2i} its re, -x_{2i+1} its im, times h for the
 * unscaled pair). */
static const VC *FN(vc2r)(const VC *y, VC *z, VC *scratch, int n, const R *tw)
{
    const int h = n / 2;
    const V half = BC(0.5);
    for (int k = 0; k < h; k++) {
        const VC a = y[k], b = y[h - k];
        const V er = half * (a.re + b.re), ei = half * (a.im - b.im);
        const V dr = half * (a.re - b.re), di = half * (a.im + b.im);
        const V wr = BC(tw[2 * (size_t)k]), wi = BC(-tw[2 * (size_t)k + 1]);   /* W^{-k} */
        const V or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
        /* Z_k = E_k + j O_k, conjugated for the forward FFT */
        z[k].re = er - oi;
        z[k].im = -(ei + or_);
    }
    return FN(vfft)(z, scratch, h, tw, 2);
}

/* One group of count transforms of the job's kind from in to out. */
static void FN(lanes_run)(const spec_lanes_job *j, const R *in, R *out, int count, R *work)
{
    const int n = j->n, h = n / 2;
    const R *tw = j->tw, *qt = j->qt;
    /* the FFT's buffers have room for its padding (vfft) */
    VC *a = (VC *)work, *z = a + n + 10, *scr = z + n + 8, *sp = scr + n + 8, *o = sp + h + 2;
    V *v = (V *)(o + n);
    const ptrdiff_t is = j->in_stride, os = j->out_stride;
    switch (j->kind) {
    case SPEC_C2C: {
        const R sg = j->inverse ? (R)-1 : (R)1;
        FN(gather_c)(in, 2 * is, 1, 2 * j->in_dist, count, n, sg, a);
        const VC *f = FN(vfft)(a, z, n, tw, 1);
        const R scale = (R)j->scale;
        FN(scatter_c)(f, 2 * os, 2 * j->out_dist, count, n, scale, sg * scale, out);
        break;
    }
    case SPEC_R2C:
    case SPEC_DHT: {
        FN(gather_r)(in, is, j->in_dist, count, n, (V *)a);
        FN(vr2c)((V *)a, sp, z, scr, n, tw);
        if (j->kind == SPEC_R2C) {
            FN(scatter_c)(sp, 2 * os, 2 * j->out_dist, count, h + 1, 1, 1, out);
            break;
        }
        V *ho = (V *)o;
        for (int k = 0; k <= h; k++)
            ho[k] = sp[k].re - sp[k].im;
        for (int k = h + 1; k < n; k++)
            ho[k] = sp[n - k].re + sp[n - k].im;
        FN(scatter_r)(ho, os, j->out_dist, count, n, out);
        break;
    }
    case SPEC_C2R: {
        FN(gather_c)(in, 2 * is, 1, 2 * j->in_dist, count, h + 1, 1, a);
        const VC *f = FN(vc2r)(a, z, scr, n, tw);
        const V sc = BC((R)1 / (R)h), msc = BC(-(R)1 / (R)h);
        V *ro = (V *)o;
        for (int i = 0; i < h; i++) {
            ro[2 * i] = f[i].re * sc;
            ro[2 * i + 1] = f[i].im * msc;
        }
        FN(scatter_r)(ro, os, j->out_dist, count, n, out);
        break;
    }
    case SPEC_DCT2: {
        V *x = (V *)a;
        FN(gather_r)(in, is, j->in_dist, count, n, x);
        for (int k = 0; k < h; k++) {
            v[k] = x[2 * k];
            v[n - 1 - k] = x[2 * k + 1];
        }
        FN(vr2c)(v, sp, z, scr, n, tw);
        V *ro = (V *)o;
        for (int k = 0; k < n; k++) {
            const int s = k <= h ? k : n - k;
            const V zr = sp[s].re, zi = k <= h ? sp[s].im : -sp[s].im;
            ro[k] = zr * BC(qt[2 * (size_t)k]) - zi * BC(qt[2 * (size_t)k + 1]);
        }
        FN(scatter_r)(ro, os, j->out_dist, count, n, out);
        break;
    }
    case SPEC_DCT3: {
        V *y = (V *)a;
        FN(gather_r)(in, is, j->in_dist, count, n, y);
        for (int k = 0; k <= h; k++) {
            const V ya = y[k], yb = k == 0 ? BC(0) : y[n - k];
            const V cr = BC(qt[2 * (size_t)k]), ci = BC(-qt[2 * (size_t)k + 1]);
            sp[k].re = ya * cr + yb * ci;
            sp[k].im = ya * ci - yb * cr;
        }
        const VC *f = FN(vc2r)(sp, z, scr, n, tw);
        /* v_i = (conj f)_i / h, out = v * n/2: the two scales are one factor 1 */
        V *ro = (V *)o;
        for (int i = 0; i < h; i++) {
            v[2 * i] = f[i].re;
            v[2 * i + 1] = -f[i].im;
        }
        for (int k = 0; k < h; k++) {
            ro[2 * k] = v[k];
            ro[2 * k + 1] = v[n - 1 - k];
        }
        FN(scatter_r)(ro, os, j->out_dist, count, n, out);
        break;
    }
    case SPEC_CONV2D: {
        const R *S = j->shape;
        FN(gather_c)(in, 2 * is, 1, 2 * j->in_dist, count, n, 1, a);
        VC *f = FN(vfft)(a, z, n, tw, 1);
        for (int i = 0; i < n; i++) {
            V s = BC(0);
            if (count == L)
                memcpy(&s, S + i * j->shape_stride, sizeof s);
            else
                for (int l = 0; l < count; l++)
                    s[l] = S[i * j->shape_stride + l];
            /* times S, conjugated for the inverse FFT done as a forward one */
            f[i].re = f[i].re * s;
            f[i].im = -(f[i].im * s);
        }
        const VC *g = FN(vfft)(f, f == a ? z : a, n, tw, 1);
        FN(scatter_c)(g, 2 * os, 2 * j->out_dist, count, n, 1, -1, out);
        break;
    }
    default:
        break;
    }
}

#undef BC
#undef V
#undef VC
#undef L
#undef FN
#undef CAT
#undef CAT2
