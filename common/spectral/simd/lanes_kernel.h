/* The lane kernels, written once for both precisions: lanes.c includes this
 * file twice with R (the real type) and SUFFIX (f64, f32) defined, and VB,
 * the vector size in bytes of the ISA it is compiled for.
 *
 * Complex FFT: Stockham autosort, radix-16 and radix-8 passes (radix 4 or 2
 * only for N <= 4 and the last pass of N = 2^5, 2^9), from 512 points
 * after one radix-16 split into cache-sized blocks (vfft_blocked); a full
 * group of contiguous 16-point c2c never leaves the registers. 1D c2c of
 * 64 and 256..4096 points, and r2c/c2r of 512..8192, take another layout
 * (il_run, il_real): one transform at a time in interleaved complex
 * vectors, no lane transposes. The real kinds on an
 * N/2-point complex FFT (docs/spectral.md section 1), as the scalar kernels were; every scalar
 * replaced by a vector of L transforms (NL as a preprocessor number, RI the
 * integer type of R's size, IOTA = 0 .. NL - 1, all from lanes.c). Only the
 * forward FFT is written: an inverse is conj(FFT(conj x)), and negation is
 * exact, so it is the mirror image of the forward computation.
 * These butterflies are written for the CPU, not generated from one source
 * with the GPU ones (app_cuda/spectral/spectral_fft.cuh, app_opencl/spectral/
 * spectral.cl): each SIMD lane carries its own transform (GCC vector types of
 * the ISA's width); a generator is the route if the three must converge. */
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

/* a broadcast: x - 0 is x for every x (0 + x would turn -0 into +0, so
 * the compiler would keep a scalar add) */
#define BC(x) ((R)(x) - (V){0})

/* Lane shuffles with constant indices, for GCC and clang alike:
 * SHUF2(a, b, F, p) is the vector whose lane i is lane F(i, p) of the
 * concatenation a:b (a's lanes 0 .. NL - 1, then b's), SHUF1(a, F, p) lane
 * F(i, p) of a. F is a macro, so every index is an integer constant
 * expression, as __builtin_shufflevector (clang; GCC >= 12) wants; the
 * indices are reduced modulo 2 NL (NL), as GCC's __builtin_shuffle does,
 * so the masks of stages that never run (TRANSPOSE_STAGE below) stay in
 * range. Older GCCs get __builtin_shuffle on the same constant masks. */
#ifndef ORR_LANES_SHUF
#define ORR_LANES_SHUF 1
#define LANE_IDX_2(F, p, m) (F(0, p) & (m)), (F(1, p) & (m))
#define LANE_IDX_4(F, p, m) LANE_IDX_2(F, p, m), (F(2, p) & (m)), (F(3, p) & (m))
#define LANE_IDX_8(F, p, m)                                                                    \
    LANE_IDX_4(F, p, m), (F(4, p) & (m)), (F(5, p) & (m)), (F(6, p) & (m)), (F(7, p) & (m))
#define LANE_IDX_16(F, p, m)                                                                   \
    LANE_IDX_8(F, p, m), (F(8, p) & (m)), (F(9, p) & (m)), (F(10, p) & (m)), (F(11, p) & (m)), \
        (F(12, p) & (m)), (F(13, p) & (m)), (F(14, p) & (m)), (F(15, p) & (m))
#define LANE_IDX2(nl, F, p, m) LANE_IDX_##nl(F, p, m)
#define LANE_IDX(nl, F, p, m) LANE_IDX2(nl, F, p, m)
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define ORR_HAVE_SHUFFLEVECTOR 1
#endif
#endif
#ifdef ORR_HAVE_SHUFFLEVECTOR
#define SHUF2(a, b, F, p) __builtin_shufflevector((a), (b), LANE_IDX(NL, F, p, 2 * NL - 1))
#define SHUF1(a, F, p) __builtin_shufflevector((a), (a), LANE_IDX(NL, F, p, NL - 1))
#else
#define SHUF2(a, b, F, p) __builtin_shuffle((a), (b), (FN(ivec)){LANE_IDX(NL, F, p, 2 * NL - 1)})
#define SHUF1(a, F, p) __builtin_shuffle((a), (FN(ivec)){LANE_IDX(NL, F, p, NL - 1)})
#endif
/* the index maps (i: the lane, p: a parameter, unused by some) */
#define IX_TR_LO(i, w) ((i) + (((i) & (w)) ? NL - (w) : 0))      /* transpose stage */
#define IX_TR_HI(i, w) ((i) + (w) + (((i) & (w)) ? NL - (w) : 0))
#define IX_EVEN(i, p) (2 * (i))                                   /* de-interleave */
#define IX_ODD(i, p) (2 * (i) + 1)
#define IX_ZIP_LO(i, p) (((i) >> 1) + ((i) & 1) * NL)             /* interleave */
#define IX_ZIP_HI(i, p) (((i) >> 1) + NL / 2 + ((i) & 1) * NL)
#define IX_SWAP_RI(i, p) ((i) ^ 1)                                /* (re, im) pairs */
#define IX_REVERSE_C(i, p) ((NL - 2 - ((i) & -2)) | ((i) & 1))
#define IX_RE(i, p) ((i) & -2)
#define IX_IM(i, p) ((i) | 1)
/* radix-2 interleave of complex: lane i of the result is complex g = i / 2
 * + g0 of the output, from ya (even g) or yb (odd g) */
#define IX_IL_C(i, g0) (((((i) >> 1) + (g0)) & 1) * NL + 2 * ((((i) >> 1) + (g0)) >> 1) + ((i) & 1))
#endif

/* Between passes the buffers hold element j at j + j / (n/16) (one vector
 * pair of padding per sixteenth, pad = -1; pad = 0: unpadded): a radix-16
 * or radix-8 pass reads streams n/16 or n/8 apart, a power of two of 4 KB
 * and more, which would all fall in one L1 set. */
#define PADDED(j, pad) ((j) + (((j) >> sh) & (pad)))

/* The twiddle-free 16-point DFT of x (in place), as 4 x 4: DFT4 over the
 * stride-4 inputs, times W16^{n2 k1}, DFT4 over n2; w1, w3: W16^1, W16^3
 * from the table, c8 = cos(pi/4). */
static inline __attribute__((always_inline)) void FN(dft16)(VC *x, VC w1, VC w3, V c8)
{
    VC a[4][4];
    _Pragma("GCC unroll 4") for (int n2 = 0; n2 < 4; n2++) {
        const VC p = x[n2], q = x[n2 + 4], r = x[n2 + 8], t = x[n2 + 12];
        const V apc_r = p.re + r.re, apc_i = p.im + r.im, amc_r = p.re - r.re, amc_i = p.im - r.im;
        const V bpd_r = q.re + t.re, bpd_i = q.im + t.im;
        const V jbmd_r = q.im - t.im, jbmd_i = t.re - q.re;   /* -j (q - t) */
        a[n2][0].re = apc_r + bpd_r;
        a[n2][0].im = apc_i + bpd_i;
        a[n2][1].re = amc_r + jbmd_r;
        a[n2][1].im = amc_i + jbmd_i;
        a[n2][2].re = apc_r - bpd_r;
        a[n2][2].im = apc_i - bpd_i;
        a[n2][3].re = amc_r - jbmd_r;
        a[n2][3].im = amc_i - jbmd_i;
    }
    /* W16^{n2 k1}: exponents 1, 2, 3 / 2, 4, 6 / 3, 6, 9 */
#define CMUL(z, w)                                                                             \
    do {                                                                                       \
        const V zr = (z).re, zi = (z).im;                                                      \
        (z).re = zr * (w).re - zi * (w).im;                                                    \
        (z).im = zr * (w).im + zi * (w).re;                                                    \
    } while (0)
    CMUL(a[1][1], w1);
    CMUL(a[1][3], w3);
    CMUL(a[3][1], w3);
    {
        const VC w9 = {-w1.re, -w1.im};
        CMUL(a[3][3], w9);
    }
#undef CMUL
    {
        VC *z = &a[1][2];   /* W16^2 = (1 - j) c8 */
        const V r = (z->re + z->im) * c8, i = (z->im - z->re) * c8;
        z->re = r;
        z->im = i;
        z = &a[2][1];
        const V r2 = (z->re + z->im) * c8, i2 = (z->im - z->re) * c8;
        z->re = r2;
        z->im = i2;
        z = &a[2][3];       /* W16^6 = (-1 - j) c8 */
        const V r3 = (z->im - z->re) * c8, i3 = -(z->re + z->im) * c8;
        z->re = r3;
        z->im = i3;
        z = &a[3][2];
        const V r4 = (z->im - z->re) * c8, i4 = -(z->re + z->im) * c8;
        z->re = r4;
        z->im = i4;
        z = &a[2][2];       /* W16^4 = -j */
        const V r5 = z->im, i5 = -z->re;
        z->re = r5;
        z->im = i5;
    }
    _Pragma("GCC unroll 4") for (int k1 = 0; k1 < 4; k1++) {
        const VC p = a[0][k1], q = a[1][k1], r = a[2][k1], t = a[3][k1];
        const V apc_r = p.re + r.re, apc_i = p.im + r.im, amc_r = p.re - r.re, amc_i = p.im - r.im;
        const V bpd_r = q.re + t.re, bpd_i = q.im + t.im;
        const V jbmd_r = q.im - t.im, jbmd_i = t.re - q.re;
        x[k1].re = apc_r + bpd_r;
        x[k1].im = apc_i + bpd_i;
        x[k1 + 4].re = amc_r + jbmd_r;
        x[k1 + 4].im = amc_i + jbmd_i;
        x[k1 + 8].re = apc_r - bpd_r;
        x[k1 + 8].im = apc_i - bpd_i;
        x[k1 + 12].re = amc_r - jbmd_r;
        x[k1 + 12].im = amc_i - jbmd_i;
    }
}

/* One radix-16 Stockham pass: m groups of 16 streams s long, n/16 (s m)
 * apart; tstep: the table's step for this pass's twiddles. */
static void FN(pass16)(const VC *src, VC *dst, int s, int m, int sh, int in_pad, int out_pad,
                       const R *tw, int tstep, VC w1, VC w3, V c8)
{
    /* The 16 input streams s m = n/16 apart, one more where padded (runs of
     * s never cross a sixteenth: s <= n/16 divides it). The outputs s
     * apart; where padded and 16 s > n/16 (only m = 8: a 128-point rest
     * of the radix-16 order) the last 8 one further. A base and a stride
     * keep the 32 stream addresses out of memory. */
    const int in_step = s * m + (in_pad & 1), cross = out_pad && 16 * s > (1 << sh);
    for (int p = 0; p < m; p++) {
        const VC *ib = src + s * p;
        VC *ob = dst + PADDED(16 * s * p, out_pad);
        for (int q = 0; q < s; q++) {
            VC xv[16];
            _Pragma("GCC unroll 16") for (int k = 0; k < 16; k++)
                xv[k] = ib[k * in_step + q];
            FN(dft16)(xv, w1, w3, c8);
#define OUT(k) ob[(k) * s + (cross & ((k) >> 3)) + q]
            OUT(0) = xv[0];
            if (p == 0) {
                _Pragma("GCC unroll 16") for (int k = 1; k < 16; k++)
                    OUT(k) = xv[k];
            } else {
                _Pragma("GCC unroll 16") for (int k = 1; k < 16; k++) {
                    const V wr = BC(tw[2 * (size_t)k * p * tstep]), wi = BC(tw[2 * (size_t)k * p * tstep + 1]);
                    OUT(k).re = xv[k].re * wr - xv[k].im * wi;
                    OUT(k).im = xv[k].re * wi + xv[k].im * wr;
                }
            }
#undef OUT
        }
    }
}

/* One radix-8 Stockham pass, as pass16; c8 = cos(pi/4) */
static void FN(pass8)(const VC *src, VC *dst, int s, int m, int sh, int in_pad, int out_pad,
                      const R *tw, int tstep, V c8)
{
    for (int p = 0; p < m; p++) {
        V wr[8], wi[8];
        _Pragma("GCC unroll 8") for (int k = 1; k < 8; k++) {
            wr[k] = BC(tw[2 * (size_t)k * p * tstep]);
            wi[k] = BC(tw[2 * (size_t)k * p * tstep + 1]);
        }
        /* output runs of s never cross a sixteenth where padded (then s <=
         * n/16); input runs (s = n/8 in a last pass) may: padded per element */
        VC *op[8];
        _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
            op[k] = dst + PADDED(s * (8 * p + k), out_pad);
        for (int q = 0; q < s; q++) {
            VC xv[8];
            _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
                xv[k] = src[PADDED(s * p + s * m * k + q, in_pad)];
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
}

/* One radix-4 Stockham pass, as pass16 */
static void FN(pass4)(const VC *src, VC *dst, int s, int m, int sh, int in_pad, int out_pad,
                      const R *tw, int tstep)
{
    for (int p = 0; p < m; p++) {
        const R *w1 = tw + 2 * (size_t)p * tstep, *w2 = tw + 4 * (size_t)p * tstep,
                *w3 = tw + 6 * (size_t)p * tstep;
        const V w1r = BC(w1[0]), w1i = BC(w1[1]), w2r = BC(w2[0]), w2i = BC(w2[1]),
                w3r = BC(w3[0]), w3i = BC(w3[1]);
        const int ja = s * p, jb = s * (p + m), jc = s * (p + 2 * m), jd = s * (p + 3 * m);
        VC *o0 = dst + PADDED(s * 4 * p, out_pad), *o1 = dst + PADDED(s * (4 * p + 1), out_pad),
           *o2 = dst + PADDED(s * (4 * p + 2), out_pad), *o3 = dst + PADDED(s * (4 * p + 3), out_pad);
        for (int q = 0; q < s; q++) {
            const VC a = src[PADDED(ja + q, in_pad)], b = src[PADDED(jb + q, in_pad)],
                     c = src[PADDED(jc + q, in_pad)], d = src[PADDED(jd + q, in_pad)];
            const V apc_r = a.re + c.re, apc_i = a.im + c.im;
            const V amc_r = a.re - c.re, amc_i = a.im - c.im;
            const V bpd_r = b.re + d.re, bpd_i = b.im + d.im;
            /* -j (b - d) */
            const V jbmd_r = b.im - d.im, jbmd_i = d.re - b.re;
            o0[q].re = apc_r + bpd_r;
            o0[q].im = apc_i + bpd_i;
            const V t1r = amc_r + jbmd_r, t1i = amc_i + jbmd_i;
            const V t2r = apc_r - bpd_r, t2i = apc_i - bpd_i;
            const V t3r = amc_r - jbmd_r, t3i = amc_i - jbmd_i;
            if (p == 0) {
                /* twiddles 1: t * 1 - u * 0 is t exactly, so skipping them changes no bit */
                o1[q].re = t1r;
                o1[q].im = t1i;
                o2[q].re = t2r;
                o2[q].im = t2i;
                o3[q].re = t3r;
                o3[q].im = t3i;
            } else {
                o1[q].re = t1r * w1r - t1i * w1i;
                o1[q].im = t1r * w1i + t1i * w1r;
                o2[q].re = t2r * w2r - t2i * w2i;
                o2[q].im = t2r * w2i + t2i * w2r;
                o3[q].re = t3r * w3r - t3i * w3i;
                o3[q].im = t3r * w3i + t3i * w3r;
            }
        }
    }
}

/* One forward FFT of n points on every lane, x -> returned buffer (x or
 * y), the other used as scratch; both have room for n + 16 (the padding
 * above; the caller's buffers, first input and last output, are unpadded).
 * tw is the table for n * step points. Radix-16 passes where they leave a
 * radix-8 or 16 split of the rest (fewer passes over the lanes' scratch:
 * 16, 8 8, 16 16, 16 8 8, 16 16 16 for 2^4 .. 2^12), radix 4 or 2 last. */
static VC *FN(vfft)(VC *x, VC *y, int n, const R *tw, int step)
{
    VC *src = x, *dst = y;
    int sh = 0;
    while (n >= 16 && (1 << sh) < n / 16)
        sh++;
    const V c8 = BC(n >= 8 ? tw[2 * (size_t)(n / 8) * step] : 0);
    const VC w1 = {BC(n >= 16 ? tw[2 * (size_t)(n / 16) * step] : 0),
                   BC(n >= 16 ? tw[2 * (size_t)(n / 16) * step + 1] : 0)};
    const VC w3 = {BC(n >= 16 ? tw[6 * (size_t)(n / 16) * step] : 0),
                   BC(n >= 16 ? tw[6 * (size_t)(n / 16) * step + 1] : 0)};
    int s = 1, len = n, in_pad = 0;
    while (len > 1) {
        int bits = 0;
        while ((1 << bits) < len)
            bits++;
        const int radix = bits % 4 == 0 || bits >= 7 ? 16 : bits >= 3 ? 8 : bits == 2 ? 4 : 2;
        const int m = len / radix, tstep = step * (n / len);
        const int out_pad = m > 1 ? -1 : 0;
        if (radix == 16)
            FN(pass16)(src, dst, s, m, sh, in_pad, out_pad, tw, tstep, w1, w3, c8);
        else if (radix == 8)
            FN(pass8)(src, dst, s, m, sh, in_pad, out_pad, tw, tstep, c8);
        else if (radix == 4)
            FN(pass4)(src, dst, s, m, sh, in_pad, out_pad, tw, tstep);
        else
            for (int q = 0; q < s; q++) {
                /* n = 2 only: one pass, unpadded */
                const VC a = src[q], b = src[q + s];
                dst[q].re = a.re + b.re;
                dst[q].im = a.im + b.im;
                dst[q + s].re = a.re - b.re;
                dst[q + s].im = a.im - b.im;
            }
        len = m;
        s *= radix;
        in_pad = out_pad;
        VC *t = src;
        src = dst;
        dst = t;
    }
    return src;
}
#undef PADDED

/* Cache blocking for long transforms. vfft's passes each sweep the lanes'
 * whole buffer (n vector pairs: 32 KB and more from n = 256 on AVX-512),
 * which then streams from L2. Here one decimation-in-frequency radix-16
 * step splits the transform into 16 independent ones of n / 16 points,
 * each written to its own block, and vfft runs each block while it sits
 * in L1: y_k[q] = W_n^{qk} DFT16(x[q + m r])_k, X[k + 16 j] = FFT_m(y_k)_j.
 * Blocks lie FFT_BLOCK_STRIDE(m) apart: room for vfft's padding, and one
 * more pair so the 16 streams of the split fall in different L1 sets.
 * From 512 points: at 256 (blocks of 16) it measured a little slower than
 * vfft on a Zen 4 core, at 1024 and 4096 10-20% faster (bench/spectral/RESULTS.md). */
#define FFT_BLOCKED_MIN_N 512
#define FFT_BLOCK_STRIDE(m) ((m) + 17)

/* x: input padded per sixteenth (element i at i + i / m, m = n / 16, as
 * gather_c writes it for these n); x and y room for 16 blocks each.
 * Returns the result's base: element i at base[(i & 15) * bs + (i >> 4)]. */
static VC *FN(vfft_blocked)(VC *x, VC *y, int n, const R *tw, int step)
{
    const int m = n / 16, bs = FFT_BLOCK_STRIDE(m);
    const V c8 = BC(tw[2 * (size_t)(n / 8) * step]);
    const VC w1 = {BC(tw[2 * (size_t)(n / 16) * step]), BC(tw[2 * (size_t)(n / 16) * step + 1])};
    const VC w3 = {BC(tw[6 * (size_t)(n / 16) * step]), BC(tw[6 * (size_t)(n / 16) * step + 1])};
    for (int q = 0; q < m; q++) {
        VC xv[16];
        _Pragma("GCC unroll 16") for (int r = 0; r < 16; r++)
            xv[r] = x[q + r * (m + 1)];
        FN(dft16)(xv, w1, w3, c8);
        y[q] = xv[0];
        _Pragma("GCC unroll 16") for (int k = 1; k < 16; k++) {
            const size_t t = 2 * (size_t)q * k * step;
            const V wr = BC(tw[t]), wi = BC(tw[t + 1]);
            y[k * bs + q].re = xv[k].re * wr - xv[k].im * wi;
            y[k * bs + q].im = xv[k].re * wi + xv[k].im * wr;
        }
    }
    VC *res = y;
    for (int k = 0; k < 16; k++)   /* x is free now: the blocks' scratch */
        res = FN(vfft)(y + k * bs, x + k * bs, m, tw, 16 * step);
    return res - 15 * bs;   /* every block ends in the same buffer */
}

/* Where an FFT's result element i lies (vfft: i; vfft_blocked: as above). */
typedef struct {
    int block_stride;   /* 0: in order */
} FN(order);
static inline __attribute__((always_inline)) int FN(at)(FN(order) o, int i)
{
    return o.block_stride ? (i & 15) * o.block_stride + (i >> 4) : i;
}

/* The complex FFT every kind runs: vfft, or from FFT_BLOCKED_MIN_N on
 * vfft_blocked. Its input element i goes to x[FFT_IN(i, FN(fft_in_shift)(n))]
 * (padded per sixteenth for the blocked one); *ord says where the result's
 * elements are. */
static inline int FN(fft_in_shift)(int n)
{
    int shift = 0;   /* log2(n / 16) */
    while (n >= FFT_BLOCKED_MIN_N && (16 << shift) < n)
        shift++;
    return shift;
}
#define FFT_IN(i, shift) ((shift) ? (i) + ((i) >> (shift)) : (i))
static VC *FN(fft)(VC *x, VC *y, int n, const R *tw, int step, FN(order) *ord)
{
    ord->block_stride = n >= FFT_BLOCKED_MIN_N ? FFT_BLOCK_STRIDE(n / 16) : 0;
    return n >= FFT_BLOCKED_MIN_N ? FN(vfft_blocked)(x, y, n, tw, step) : FN(vfft)(x, y, n, tw, step);
}

/* An NL x NL transpose in registers (m[r][c] -> m[c][r]): log2 NL stages,
 * each swapping the off-diagonal blocks of size bb between row pairs. The
 * masks are constants folded at compile time. */
typedef RI FN(ivec) __attribute__((vector_size(VB)));
/* One stage over `rows` vectors: rows r and r + bb swap their off-diagonal
 * blocks of `width` lanes (bb for reals; 2 bb where the elements are
 * complex, ctranspose below). */
#define TRANSPOSE_STAGE(rows, bb, width)                                                       \
    if ((rows) > (bb)) {                                                                       \
        _Pragma("GCC unroll 16") for (int r = 0; r < (rows); r++)                              \
            if (!(r & (bb))) {                                                                 \
                const V u = m[r], w = m[r + (bb)];                                             \
                m[r] = SHUF2(u, w, IX_TR_LO, width);                                           \
                m[r + (bb)] = SHUF2(u, w, IX_TR_HI, width);                                    \
            }                                                                                  \
    }
static inline __attribute__((always_inline)) void FN(transpose)(V *m)
{
    TRANSPOSE_STAGE(NL, 8, 8)
    TRANSPOSE_STAGE(NL, 4, 4)
    TRANSPOSE_STAGE(NL, 2, 2)
    TRANSPOSE_STAGE(NL, 1, 1)
}

/* Transforms l < count of a side into lanes (complex: element i's re at
 * s[i * es], im at s[i * es + coff], times imsign); lanes >= count zero.
 * Contiguous full groups go through register transposes of NL x NL blocks
 * (the lane layout of n complex is that of 2n reals). */
static void FN(gather_c)(const R *in, ptrdiff_t es, ptrdiff_t coff, ptrdiff_t dist, int count,
                         int n, R imsign, VC *x, int pad_shift)
{
    /* pad_shift > 0: element i at i + (i >> pad_shift), as vfft_blocked
     * reads it (runs of NL / 2 elements never cross a padding slot) */
#define GATHER_AT(i) FFT_IN(i, pad_shift)
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
            const int at = 2 * GATHER_AT(blk / 2);
            _Pragma("GCC unroll 16") for (int k = 0; k < NL; k += 2) {
                xv[at + k] = m[k];
                xv[at + k + 1] = imsign * m[k + 1];
            }
        }
        i0 = blocked / 2;
    } else if (dist == 2 && coff == 1 && count == L) {
        /* adjacent complex transforms (the columns of an image): each
         * element's L values are contiguous, (re, im) pairs to split */
        V *xv = (V *)x;
        for (int i = 0; i < n; i++) {
            V u, w;
            memcpy(&u, in + i * es, sizeof u);
            memcpy(&w, in + i * es + NL, sizeof w);
            xv[2 * GATHER_AT(i)] = SHUF2(u, w, IX_EVEN, 0);
            xv[2 * GATHER_AT(i) + 1] = imsign * SHUF2(u, w, IX_ODD, 0);
        }
        i0 = n;
    }
    for (int l = 0; l < count; l++) {
        const R *s = in + l * dist;
        for (int i = i0; i < n; i++) {
            xr[2 * GATHER_AT(i) * L + l] = s[i * es];
            xr[(2 * GATHER_AT(i) + 1) * L + l] = imsign * s[i * es + coff];
        }
    }
    for (int l = count; l < L; l++)
        for (int i = 0; i < n; i++)
            xr[2 * GATHER_AT(i) * L + l] = xr[(2 * GATHER_AT(i) + 1) * L + l] = 0;
#undef GATHER_AT
}

static void FN(scatter_c)(const VC *x, FN(order) ord, ptrdiff_t es, ptrdiff_t dist, int count,
                          int n, R scale, R imscale, R *out)
{
    const R *xr = (const R *)x;
    int i0 = 0;
    if (es == 2 && count == L) {
        const int blocked = (2 * n) / NL * NL;
        for (int blk = 0; blk < blocked; blk += NL) {
            V m[NL];
            _Pragma("GCC unroll 16") for (int k = 0; k < NL; k += 2) {
                const VC e = x[FN(at)(ord, (blk + k) / 2)];
                m[k] = e.re * scale;
                m[k + 1] = e.im * imscale;
            }
            FN(transpose)(m);
            _Pragma("GCC unroll 16") for (int l = 0; l < NL; l++)
                memcpy(out + l * dist + blk, &m[l], sizeof m[l]);
        }
        i0 = blocked / 2;
    } else if (dist == 2 && count == L) {
        /* adjacent complex transforms: re and im vectors interleaved back */
        for (int i = 0; i < n; i++) {
            const VC e = x[FN(at)(ord, i)];
            const V re = e.re * scale, im = e.im * imscale;
            const V u = SHUF2(re, im, IX_ZIP_LO, 0), w = SHUF2(re, im, IX_ZIP_HI, 0);
            memcpy(out + i * es, &u, sizeof u);
            memcpy(out + i * es + NL, &w, sizeof w);
        }
        i0 = n;
    }
    for (int l = 0; l < count; l++) {
        R *d = out + l * dist;
        for (int i = i0; i < n; i++) {
            d[i * es] = xr[2 * FN(at)(ord, i) * L + l] * scale;
            d[i * es + 1] = xr[(2 * FN(at)(ord, i) + 1) * L + l] * imscale;
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
    const int h = n / 2, shift = FN(fft_in_shift)(h);
    for (int i = 0; i < h; i++) {
        z[FFT_IN(i, shift)].re = v[2 * i];
        z[FFT_IN(i, shift)].im = v[2 * i + 1];
    }
    FN(order) o;
    const VC *f = FN(fft)(z, scratch, h, tw, 2, &o);
    const V half = BC(0.5), mhalf = BC(-0.5);
    for (int k = 0; k < h; k++) {
        const VC a = f[FN(at)(o, k)], b = f[FN(at)(o, k == 0 ? 0 : h - k)];   /* Z_k, Z_{h-k} */
        const V er = half * (a.re + b.re), ei = half * (a.im - b.im);    /* E_k */
        const V or_ = half * (a.im + b.im), oi = mhalf * (a.re - b.re);  /* O_k */
        const V wr = BC(tw[2 * (size_t)k]), wi = BC(tw[2 * (size_t)k + 1]);
        out[k].re = er + (or_ * wr - oi * wi);
        out[k].im = ei + (or_ * wi + oi * wr);
    }
    /* k = h: W^h = -1 exactly */
    const VC a = f[FN(at)(o, 0)];
    const V er = half * (a.re + a.re), ei = half * (a.im - a.im);
    const V or_ = half * (a.im + a.im), oi = mhalf * (a.re - a.re);
    out[h].re = er - or_;
    out[h].im = ei - oi;
}

/* The inverse without 1/n: y (n/2 + 1 complex) -> conj of the n/2-point
 * result, returned, its element i at FN(at)(*o, i) (x_{2i} its re,
 * -x_{2i+1} its im, times h for the unscaled pair). */
static const VC *FN(vc2r)(const VC *y, VC *z, VC *scratch, int n, const R *tw, FN(order) *o)
{
    const int h = n / 2, shift = FN(fft_in_shift)(h);
    const V half = BC(0.5);
    for (int k = 0; k < h; k++) {
        const VC a = y[k], b = y[h - k];
        const V er = half * (a.re + b.re), ei = half * (a.im - b.im);
        const V dr = half * (a.re - b.re), di = half * (a.im + b.im);
        const V wr = BC(tw[2 * (size_t)k]), wi = BC(-tw[2 * (size_t)k + 1]);   /* W^{-k} */
        const V or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
        /* Z_k = E_k + j O_k, conjugated for the forward FFT */
        z[FFT_IN(k, shift)].re = er - oi;
        z[FFT_IN(k, shift)].im = -(ei + or_);
    }
    return FN(fft)(z, scratch, h, tw, 2, o);
}

/* A full group of contiguous 16-point transforms (the c2c path above for
 * n = 16, same operations: vfft's one radix-16 pass) without the scratch:
 * the 32 reals of each transform are NL x NL register transposes away from
 * the lanes' 16 complex vectors, which stay in registers. */
static void FN(c2c16)(const R *in, ptrdiff_t in_dist, R *out, ptrdiff_t out_dist, R sg, R scale,
                      const R *tw)
{
    VC x[16];
    V *xv = (V *)x;
    _Pragma("GCC unroll 16") for (int blk = 0; blk < 32; blk += NL) {
        V m[NL];
        _Pragma("GCC unroll 16") for (int l = 0; l < NL; l++)
            memcpy(&m[l], in + l * in_dist + blk, sizeof m[l]);
        FN(transpose)(m);
        _Pragma("GCC unroll 16") for (int k = 0; k < NL; k += 2) {
            xv[blk + k] = m[k];
            xv[blk + k + 1] = sg * m[k + 1];
        }
    }
    const V c8 = BC(tw[4]);
    const VC w1 = {BC(tw[2]), BC(tw[3])}, w3 = {BC(tw[6]), BC(tw[7])};
    FN(dft16)(x, w1, w3, c8);
    const R imscale = sg * scale;
    _Pragma("GCC unroll 16") for (int blk = 0; blk < 32; blk += NL) {
        V m[NL];
        _Pragma("GCC unroll 16") for (int k = 0; k < NL; k += 2) {
            m[k] = xv[blk + k] * scale;
            m[k + 1] = xv[blk + k + 1] * imscale;
        }
        FN(transpose)(m);
        _Pragma("GCC unroll 16") for (int l = 0; l < NL; l++)
            memcpy(out + l * out_dist + blk, &m[l], sizeof m[l]);
    }
}

/* ---- One transform at a time, complex interleaved (N = 64 .. 1024) ----
 * Lanes across the batch need a W x W register transpose on the way in and
 * out (30-45% of the time at N = 64). Here a vector holds CPV = NL / 2
 * consecutive complex of one transform, (re, im) interleaved, as in
 * memory: 64 = 8 x 8, the first radix-8 pass over p (lanes p ... p + CPV -
 * 1 of the inputs x[p + 8 r]), twiddles W_64^{pk} per lane, CPV x CPV
 * transposes of complex to rows t[8 p + k], the second pass over q
 * (contiguous t[q + 8 r] -> X[q + 8 k]). A prototype of this ran at
 * 1.1-1.2x FFTW per thread in double on AVX-512, the lane kernels at 0.66x
 * (bench/spectral/RESULTS.md). The inverse: conj(FFT(conj x)). */
#define CPV (NL / 2)
static inline __attribute__((always_inline)) V FN(swap_ri)(V z)
{
    return SHUF1(z, IX_SWAP_RI, 0);
}
/* +1 on re, -1 on im (ALT) and its negation: exact sign patterns */
static inline __attribute__((always_inline)) V FN(alt)(void)
{
    const FN(ivec) iota = IOTA;
    return BC(1) - BC(2) * __builtin_convertvector(iota & 1, V);
}
/* -j z = (im, -re): the im's sign bit flipped (exact, and no multiply) */
static inline __attribute__((always_inline)) V FN(minus_j)(V z)
{
    const FN(ivec) iota = IOTA, sign = (FN(ivec))(BC(-0.0)) & -(iota & 1);
    return (V)((FN(ivec))FN(swap_ri)(z) ^ sign);
}

/* A 4-point DFT of interleaved vectors in place, natural order */
static inline __attribute__((always_inline)) void FN(idft4)(V *a0, V *a1, V *a2, V *a3)
{
    const V A = *a0 + *a2, B = *a0 - *a2, C = *a1 + *a3, D = FN(minus_j)(*a1 - *a3);
    *a0 = A + C;
    *a1 = B + D;
    *a2 = A - C;
    *a3 = B - D;
}

/* An 8-point DFT of 8 interleaved vectors in place (natural order out):
 * sums and differences of the halves, the differences times W8^k, a
 * 4-point DFT of each (even and odd outputs); c8: cos(pi/4) broadcast,
 * c8alt: c8 * alt. */
static inline __attribute__((always_inline)) void FN(idft8)(V *a, V c8, V c8alt)
{
    V e[4], d[4];
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {
        e[k] = a[k] + a[k + 4];
        d[k] = a[k] - a[k + 4];
    }
    d[1] = d[1] * c8 + FN(swap_ri)(d[1]) * c8alt;                 /* (1 - j) c8 */
    d[2] = FN(minus_j)(d[2]);                                     /* -j */
    d[3] = FN(minus_j)(d[3] * c8 + FN(swap_ri)(d[3]) * c8alt);    /* (-1 - j) c8 */
    FN(idft4)(&e[0], &e[1], &e[2], &e[3]);
    FN(idft4)(&d[0], &d[1], &d[2], &d[3]);
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {
        a[2 * k] = e[k];
        a[2 * k + 1] = d[k];
    }
}

/* A CPV x CPV transpose of complex (m[r] lane c <-> m[c] lane r), as
 * transpose() with each complex one element. */
static inline __attribute__((always_inline)) void FN(ctranspose)(V *m)
{
    TRANSPOSE_STAGE(CPV, 4, 8)
    TRANSPOSE_STAGE(CPV, 2, 4)
    TRANSPOSE_STAGE(CPV, 1, 2)
}
#undef TRANSPOSE_STAGE

/* A radix-r pass's twiddles W_m^{pk} (p < m / r, k = 1 .. r - 1) for the
 * lanes of each group g of CPV p's: w[2 (r g + k)] the re of each lane's
 * twiddle on both of its reals, w[2 (r g + k) + 1] its im with the
 * product's signs (-, +). tw: a table of m * step points. */
static void FN(il_twiddles)(const R *tw, int step, int m, int r, V *w)
{
    for (int g = 0; g < m / r / CPV; g++)
        for (int k = 1; k < r; k++) {
            V wr, wi;
            for (int l = 0; l < CPV; l++) {
                const size_t e = (size_t)(((g * CPV + l) * k) & (m - 1)) * step;
                wr[2 * l] = wr[2 * l + 1] = tw[2 * e];
                wi[2 * l] = -tw[2 * e + 1];
                wi[2 * l + 1] = tw[2 * e + 1];
            }
            w[2 * (r * g + k)] = wr;
            w[2 * (r * g + k) + 1] = wi;
        }
}
#define IL_W64_VECTORS (16 * 8 / CPV)   /* il_twiddles(.., 64, 8, ..)'s size */

/* A 16-point DFT of interleaved vectors in place, natural order, as 4 x 4:
 * DFT4 over the stride-4 inputs, times W16^{n2 k1}, DFT4 over n2. k16:
 * W16^e (e = 1..9) as il_twiddles writes them, at k16[2 e], k16[2 e + 1]. */
static inline __attribute__((always_inline)) void FN(idft16)(V *a, const V *k16)
{
    _Pragma("GCC unroll 4") for (int n2 = 0; n2 < 4; n2++)
        FN(idft4)(&a[n2], &a[n2 + 4], &a[n2 + 8], &a[n2 + 12]);
    /* a[n2 + 4 k1] now holds b[n2][k1] */
    _Pragma("GCC unroll 4") for (int n2 = 1; n2 < 4; n2++)
        _Pragma("GCC unroll 4") for (int k1 = 1; k1 < 4; k1++) {
            const int e = n2 * k1;
            V *z = &a[n2 + 4 * k1];
            *z = *z * k16[2 * e] + FN(swap_ri)(*z) * k16[2 * e + 1];
        }
    V b[16];
    _Pragma("GCC unroll 4") for (int k1 = 0; k1 < 4; k1++) {
        V p = a[4 * k1], q = a[4 * k1 + 1], r = a[4 * k1 + 2], u = a[4 * k1 + 3];
        FN(idft4)(&p, &q, &r, &u);
        b[k1] = p;
        b[k1 + 4] = q;
        b[k1 + 8] = r;
        b[k1 + 12] = u;
    }
    _Pragma("GCC unroll 16") for (int k = 0; k < 16; k++)
        a[k] = b[k];
}

/* The 64-point FFT of one contiguous transform x -> y (may alias), every
 * output times scale; inverse: conj(FFT(conj x)). tw: a table of 64 step
 * points, w: il_twiddles(tw, step, 64, 8, w); t: 128 reals of scratch. */
static inline __attribute__((always_inline)) void FN(c2c64_interleaved)(const R *x, R *y, R *t,
                                                                         int inverse, R scale,
                                                                         const R *tw, int step,
                                                                         const V *w)
{
    const V alt = FN(alt)(), c8 = BC(tw[2 * 8 * (size_t)step]), c8alt = c8 * alt;
    const V in_sign = inverse ? alt : BC(1), out_sign = (inverse ? alt : BC(1)) * scale;
    _Pragma("GCC unroll 8") for (int p0 = 0; p0 < 8; p0 += CPV) {
        V a[8];
        _Pragma("GCC unroll 8") for (int r = 0; r < 8; r++) {
            memcpy(&a[r], x + 2 * (p0 + 8 * r), sizeof a[r]);
            a[r] *= in_sign;
        }
        FN(idft8)(a, c8, c8alt);
        const V *wg = w + 16 * (p0 / CPV);
        _Pragma("GCC unroll 8") for (int k = 1; k < 8; k++)
            a[k] = a[k] * wg[2 * k] + FN(swap_ri)(a[k]) * wg[2 * k + 1];
        /* lanes p0 .. p0 + CPV - 1 of a[kb .. kb + CPV - 1] -> rows t[8 p + kb] */
        _Pragma("GCC unroll 8") for (int kb = 0; kb < 8; kb += CPV) {
            V m[CPV];
            _Pragma("GCC unroll 8") for (int c = 0; c < CPV; c++)
                m[c] = a[kb + c];
            FN(ctranspose)(m);
            _Pragma("GCC unroll 8") for (int c = 0; c < CPV; c++)
                memcpy(t + 2 * (8 * (p0 + c) + kb), &m[c], sizeof m[c]);
        }
    }
    _Pragma("GCC unroll 8") for (int q0 = 0; q0 < 8; q0 += CPV) {
        V a[8];
        _Pragma("GCC unroll 8") for (int r = 0; r < 8; r++)
            memcpy(&a[r], t + 2 * (q0 + 8 * r), sizeof a[r]);
        FN(idft8)(a, c8, c8alt);
        _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++) {
            const V o = a[k] * out_sign;
            memcpy(y + 2 * (q0 + 8 * k), &o, sizeof o);
        }
    }
}
/* N = r1 x 64 (r1 = 4, 8, 16; CPV <= r1): one decimation-in-frequency
 * radix-r1 pass over p (lanes p0 .. p0 + CPV - 1 of x[p + 64 r]) times
 * W_N^{pk} into rows t[64 k + p] (contiguous: no transpose), the 64-point
 * kernel on each row into u, and X[k + r1 j] = u[64 k + j] written through
 * CPV x CPV transposes (x and y may alias). tw: a table of n step points;
 * w64, w1: il_twiddles(tw, step n / 64, 64, 8, ..) and (tw, step, n, r1,
 * ..); k16: W16^e for r1 = 16; tt: 128 reals. */
static inline __attribute__((always_inline)) void FN(c2c_long_interleaved)(
    const R *x, R *y, R *t, R *u, R *tt, int inverse, R scale, const R *tw, int step, int n,
    const V *w64, const V *w1, const V *k16)
{
    const int r1 = n / 64;
    const V alt = FN(alt)(), c8 = BC(tw[2 * (size_t)(n / 8) * step]), c8alt = c8 * alt;
    const V in_sign = inverse ? alt : BC(1), out_sign = (inverse ? alt : BC(1)) * scale;
    for (int g = 0; g < 64 / CPV; g++) {
        V a[16];
        _Pragma("GCC unroll 16") for (int r = 0; r < r1; r++) {
            memcpy(&a[r], x + 2 * (g * CPV + 64 * r), sizeof a[r]);
            a[r] *= in_sign;
        }
        if (r1 == 4)
            FN(idft4)(&a[0], &a[1], &a[2], &a[3]);
        else if (r1 == 8)
            FN(idft8)(a, c8, c8alt);
        else
            FN(idft16)(a, k16);
        const V *wg = w1 + 2 * r1 * g;
        _Pragma("GCC unroll 16") for (int k = 1; k < r1; k++)
            a[k] = a[k] * wg[2 * k] + FN(swap_ri)(a[k]) * wg[2 * k + 1];
        _Pragma("GCC unroll 16") for (int k = 0; k < r1; k++)
            memcpy(t + 2 * (64 * k + g * CPV), &a[k], sizeof a[k]);
    }
    for (int k = 0; k < r1; k++)
        FN(c2c64_interleaved)(t + 2 * 64 * k, u + 2 * 64 * k, tt, 0, 1, tw, n / 64 * step, w64);
    for (int j0 = 0; j0 < 64; j0 += CPV)
        _Pragma("GCC unroll 4") for (int kb = 0; kb < r1; kb += CPV) {
            V m[CPV];
            _Pragma("GCC unroll 8") for (int c = 0; c < CPV; c++)
                memcpy(&m[c], u + 2 * (64 * (kb + c) + j0), sizeof m[c]);
            FN(ctranspose)(m);
            _Pragma("GCC unroll 8") for (int c = 0; c < CPV; c++) {
                const V o = m[c] * out_sign;
                memcpy(y + 2 * (kb + r1 * (j0 + c)), &o, sizeof o);
            }
        }
}

/* The complex of z in reverse order (lane pairs): its CPV complex last to first */
static inline __attribute__((always_inline)) V FN(reverse_c)(V z)
{
    return SHUF1(z, IX_REVERSE_C, 0);
}
/* z times the CPV interleaved complex w (as in memory), or times conj w */
static inline __attribute__((always_inline)) V FN(cmul_il)(V z, V w, int conj_w)
{
    const V wr = SHUF1(w, IX_RE, 0), wi = SHUF1(w, IX_IM, 0);
    const V alt = FN(alt)();
    return z * wr + FN(swap_ri)(z) * (wi * (conj_w ? alt : BC(0) - alt));
}

/* Outputs 2 k0 .. 2 k0 + 2 CPV - 1 of a radix-2 interleave X[2 k + s] =
 * Y_s[k], from ya, yb = Y_0, Y_1 at k0 .. k0 + CPV - 1: lo, hi. */
static inline __attribute__((always_inline)) void FN(interleave_c)(V ya, V yb, V *lo, V *hi)
{
    *lo = SHUF2(ya, yb, IX_IL_C, 0);
    *hi = SHUF2(ya, yb, IX_IL_C, CPV);
}

/* The interleaved kernels' twiddles for n-point transforms on a table of n
 * step points, made once per thread and plan in z after a tag naming the
 * table they came from (work starts zeroed). Above IL_SPLIT_M points, n =
 * r0 x IL_SPLIT_M: the tables of the IL_SPLIT_M-point kernel and w0,
 * W_n^{ps} (s = 1 .. r0 - 1, p < m) as interleaved complex at (s - 1) m + p. */
#define IL_SPLIT_M 1024
typedef struct {
    const V *w64, *w1, *k16;
    const R *w0;
} FN(il_tables);
static FN(il_tables) FN(il_tables_in)(VC *z, const R *tw, int step, int n)
{
    const R **made_from = (const R **)z;
    const int m = n > IL_SPLIT_M ? IL_SPLIT_M : n, r0 = n / m, mstep = step * r0;
    V *w64 = (V *)(z + 1), *k16 = w64 + IL_W64_VECTORS, *w1 = k16 + 20;
    R *w0 = (R *)(w1 + 2 * m / CPV);
    if (*made_from != tw) {
        FN(il_twiddles)(tw, mstep * m / 64, 64, 8, w64);
        if (m > 64) {
            FN(il_twiddles)(tw, mstep, m, m / 64, w1);
            for (int e = 1; e < 10; e++) {
                const size_t i = (size_t)e * (m / 16) * mstep;
                k16[2 * e] = BC(tw[2 * i]);
                k16[2 * e + 1] = BC(tw[2 * i + 1]) * (BC(0) - FN(alt)());
            }
        }
        for (int s = 1; s < r0; s++)
            for (int p = 0; p < m; p++) {
                const size_t e = (size_t)p * s * step;
                w0[2 * ((s - 1) * m + p)] = tw[2 * e];
                w0[2 * ((s - 1) * m + p) + 1] = tw[2 * e + 1];
            }
        *made_from = tw;
    }
    return (FN(il_tables)){w64, w1, k16, w0};
}


/* One n-point transform x -> y (may alias) by the interleaved kernels, n
 * = 64 .. IL_SPLIT_M as il_handles; t, u: 2 n reals each, tt: 128. Each
 * size, and the plain forward transform (no sign or scale multiplies),
 * compiled apart (and inlined: a call per transform cost 8-15% at N = 64). */
static inline __attribute__((always_inline)) void FN(il_fft_unsplit)(
    const R *x, R *y, R *t, R *u, R *tt, int inverse, R scale, const R *tw, int step, int n,
    const FN(il_tables) *tb)
{
    const int plain = !inverse && scale == 1;
#define IL_CASE(N, KERNEL)                                                                       \
    case N:                                                                                      \
        if (plain)                                                                               \
            KERNEL(x, y, t, u, tt, 0, 1, tw, step, N, tb);                                       \
        else                                                                                     \
            KERNEL(x, y, t, u, tt, inverse, scale, tw, step, N, tb);                             \
        break;
#define IL_LONG(x, y, t, u, tt, inverse, scale, tw, step, N, tb)                                 \
    FN(c2c_long_interleaved)(x, y, t, u, tt, inverse, scale, tw, step, N, tb->w64, tb->w1, tb->k16)
    switch (n) {
    case 64:
        if (plain)
            FN(c2c64_interleaved)(x, y, t, 0, 1, tw, step, tb->w64);
        else
            FN(c2c64_interleaved)(x, y, t, inverse, scale, tw, step, tb->w64);
        break;
    IL_CASE(256, IL_LONG)
    IL_CASE(512, IL_LONG)
    IL_CASE(1024, IL_LONG)
    default:
        break;
    }
#undef IL_LONG
#undef IL_CASE
}

/* n = r0 x m (r0 = 2, 4; m = IL_SPLIT_M): a decimation-in-frequency
 * radix-r0 pass (y_s[p] = sum_r x[p + m r] W_r0^{rs} W_n^{ps}) into t, the
 * m-point transform of each y_s in place, and X[s + r0 k] = Y_s[k] put
 * together by radix-2 interleaves (r0 = 4: Y_0 with Y_2 and Y_1 with Y_3,
 * then those two). u: scratch for the m-point kernel. */
static inline __attribute__((always_inline)) void FN(c2c_split_interleaved)(
    const R *x, R *y, R *t, R *u, R *tt, int inverse, R scale, const R *tw, int step, int n,
    const FN(il_tables) *tb)
{
    const int m = IL_SPLIT_M, r0 = n / m;
    const V alt = FN(alt)();
    const V in_sign = inverse ? alt : BC(1), out_sign = (inverse ? alt : BC(1)) * scale;
    for (int p0 = 0; p0 < m; p0 += CPV) {
        V a[4];
        _Pragma("GCC unroll 4") for (int r = 0; r < r0; r++) {
            memcpy(&a[r], x + 2 * (p0 + m * r), sizeof a[r]);
            a[r] *= in_sign;
        }
        if (r0 == 2) {
            const V d = a[0] - a[1];
            a[0] += a[1];
            a[1] = d;
        } else {
            FN(idft4)(&a[0], &a[1], &a[2], &a[3]);
        }
        _Pragma("GCC unroll 4") for (int s = 0; s < r0; s++) {
            if (s > 0) {
                V w;
                memcpy(&w, tb->w0 + 2 * ((s - 1) * m + p0), sizeof w);
                a[s] = FN(cmul_il)(a[s], w, 0);
            }
            memcpy(t + 2 * (m * s + p0), &a[s], sizeof a[s]);
        }
    }
    FN(il_tables) sub = *tb;
    sub.w0 = NULL;
    for (int s = 0; s < r0; s++)
        FN(il_fft_unsplit)(t + 2 * m * s, t + 2 * m * s, u, u + 2 * m, tt, 0, 1, tw, step * r0, m,
                           &sub);
    for (int k0 = 0; k0 < m; k0 += CPV) {
        V o[4];
        if (r0 == 2) {
            V y0, y1;
            memcpy(&y0, t + 2 * k0, sizeof y0);
            memcpy(&y1, t + 2 * (m + k0), sizeof y1);
            FN(interleave_c)(y0, y1, &o[0], &o[1]);
        } else {
            V y[4], q02[2], q13[2];
            _Pragma("GCC unroll 4") for (int s = 0; s < 4; s++)
                memcpy(&y[s], t + 2 * (m * s + k0), sizeof y[s]);
            FN(interleave_c)(y[0], y[2], &q02[0], &q02[1]);
            FN(interleave_c)(y[1], y[3], &q13[0], &q13[1]);
            FN(interleave_c)(q02[0], q13[0], &o[0], &o[1]);
            FN(interleave_c)(q02[1], q13[1], &o[2], &o[3]);
        }
        _Pragma("GCC unroll 4") for (int v = 0; v < r0; v++) {
            const V ov = o[v] * out_sign;
            memcpy(y + 2 * (r0 * k0 + v * CPV), &ov, sizeof ov);
        }
    }
}


/* c2c_split_interleaved for each size, and for the plain forward
 * transform, compiled apart; not inlined into il_fft's callers (a call per
 * transform costs nothing at these sizes; inlined, the split kernels
 * slowed the small sizes' code in f32 by 10-20%). */
static __attribute__((noinline)) void FN(c2c_split)(const R *x, R *y, R *t, R *u, R *tt,
                                                    int inverse, R scale, const R *tw, int step,
                                                    int n, const FN(il_tables) *tb)
{
    const int plain = !inverse && scale == 1;
    if (n == 2048 && plain)
        FN(c2c_split_interleaved)(x, y, t, u, tt, 0, 1, tw, step, 2048, tb);
    else if (n == 2048)
        FN(c2c_split_interleaved)(x, y, t, u, tt, inverse, scale, tw, step, 2048, tb);
    else if (plain)
        FN(c2c_split_interleaved)(x, y, t, u, tt, 0, 1, tw, step, 4096, tb);
    else
        FN(c2c_split_interleaved)(x, y, t, u, tt, inverse, scale, tw, step, 4096, tb);
}

/* One n-point transform x -> y (may alias) by the interleaved kernels, n
 * as il_handles; t, u: 2 n reals each, tt: 128. */
static inline __attribute__((always_inline)) void FN(il_fft)(const R *x, R *y, R *t, R *u, R *tt,
                                                            int inverse, R scale, const R *tw,
                                                            int step, int n,
                                                            const FN(il_tables) *tb)
{
    if (n > IL_SPLIT_M) {
        const FN(il_tables) copy = *tb;   /* (tb's own address escapes no further) */
        FN(c2c_split)(x, y, t, u, tt, inverse, scale, tw, step, n, &copy);
    } else
        FN(il_fft_unsplit)(x, y, t, u, tt, inverse, scale, tw, step, n, tb);
}

/* Whether 1D c2c of n points runs one transform at a time (il_fft) with
 * this ISA and precision. */
static inline int FN(il_handles)(int n)
{
    return n == 64 || ((n == 256 || n == 512 || n == 1024) && CPV <= n / 64) ||
           ((n == 2048 || n == 4096) && CPV <= IL_SPLIT_M / 64);
}

/* count complex from src, elements sstride complex apart, to dst, dstride
 * apart (the interleaved kernels' strided transforms go through a
 * contiguous copy) */
static inline void FN(copy_c)(R *dst, ptrdiff_t dstride, const R *src, ptrdiff_t sstride, int count)
{
    for (int i = 0; i < count; i++) {
        dst[2 * i * dstride] = src[2 * i * sstride];
        dst[2 * i * dstride + 1] = src[2 * i * sstride + 1];
    }
}

/* The transforms of a group one at a time: strided ones through a
 * contiguous copy (so a strided plan gives a packed one's bits). */
static void FN(il_run)(const spec_lanes_job *j, const R *in, R *out, int count, VC *a, VC *z,
                       VC *scr)
{
    const int n = j->n;
    const ptrdiff_t is = j->in_stride, os = j->out_stride;
    R *buf = (R *)a, *t = buf + 2 * (size_t)n, *u = (R *)scr, *tt = u + 2 * (size_t)n;
    const FN(il_tables) tb = FN(il_tables_in)(z, j->tw, 1, n);
    for (int l = 0; l < count; l++) {
        const R *src = in + 2 * l * j->in_dist;
        R *dst = out + 2 * l * j->out_dist;
        if (is != 1) {
            FN(copy_c)(buf, 1, src, is, n);
            src = buf;
        }
        R *y = os == 1 ? dst : buf;
        FN(il_fft)(src, y, t, u, tt, j->inverse, (R)j->scale, j->tw, 1, n, &tb);
        if (os != 1)
            FN(copy_c)(dst, os, buf, 1, n);
    }
}

/* For bins k0 .. k0 + CPV - 1 of a spectrum y of h + 1 complex: the half
 * sum e and half difference d of y_k and conj y_{h-k} (y_{h-k} by a
 * reversed load), and w = W_n^k from the n-point table. */
static inline __attribute__((always_inline)) void FN(il_halves)(const R *y, int h, int k0,
                                                                const R *tw, V *e, V *d, V *w)
{
    V ya, yc;
    memcpy(&ya, y + 2 * k0, sizeof ya);
    memcpy(&yc, y + 2 * (h + 1 - CPV - k0), sizeof yc);
    memcpy(w, tw + 2 * k0, sizeof *w);
    yc = FN(reverse_c)(yc) * FN(alt)();   /* conj y_{h-k} */
    *e = BC(0.5) * (ya + yc);
    *d = BC(0.5) * (ya - yc);
}

/* Whether real transforms of n points run one at a time (below): from h =
 * 256 (at h = 64 the lane kernels ran as fast in double and 10-20% faster
 * in single on AVX-512, bench/spectral/RESULTS.md). */
static inline int FN(il_real_handles)(int n)
{
    return n / 2 > 64 && FN(il_handles)(n / 2);
}

/* Real transforms of n = 2 h points (n as il_real_handles) one at a time: the n
 * reals are the interleaved complex of the h-point transform of the
 * even and odd samples, Z, run by il_fft on the n-point table at step 2.
 * r2c: X_k = E_k + W_n^k O_k with E_k = (Z_k + conj Z_{h-k}) / 2, O_k =
 * -j (Z_k - conj Z_{h-k}) / 2, CPV k at a time (Z_{h-k} by a reversed
 * load; Z_h = Z_0 stored after Z). c2r: Z_k = E_k + j W_n^{-k} D_k from
 * the halves' sum and difference, and the inverse FFT (1/h) of that gives
 * the samples in order. Strided data through a contiguous copy. */
static void FN(il_real)(const spec_lanes_job *j, const R *in, R *out, int count, VC *a, VC *z,
                        VC *scr)
{
    const int n = j->n, h = n / 2;
    const R *tw = j->tw;
    const ptrdiff_t is = j->in_stride, os = j->out_stride;
    R *buf = (R *)a, *t = buf + n + 2, *zb = t + n, *u = (R *)scr, *tt = u + n;
    const FN(il_tables) tb = FN(il_tables_in)(z, tw, 2, h);
    for (int l = 0; l < count; l++) {
        if (j->kind == SPEC_R2C) {
            const R *src = in + l * j->in_dist;
            R *dst = out + 2 * l * j->out_dist;
            if (is != 1) {
                for (int i = 0; i < n; i++)
                    buf[i] = src[i * is];
                src = buf;
            }
            FN(il_fft)(src, zb, t, u, tt, 0, 1, tw, 2, h, &tb);
            zb[2 * h] = zb[0];
            zb[2 * h + 1] = zb[1];
            R *x = os == 1 ? dst : buf;
            for (int k0 = 0; k0 < h; k0 += CPV) {
                V e, d, w;
                FN(il_halves)(zb, h, k0, tw, &e, &d, &w);
                const V xk = e + FN(cmul_il)(FN(minus_j)(d), w, 0);   /* E + W^k O */
                memcpy(x + 2 * k0, &xk, sizeof xk);
            }
            x[2 * h] = zb[0] - zb[1];   /* E_h + W^h O_h = Z_0.re - Z_0.im */
            x[2 * h + 1] = 0;
            if (os != 1)
                FN(copy_c)(dst, os, buf, 1, h + 1);
        } else {
            const R *src = in + 2 * l * j->in_dist;
            R *dst = out + l * j->out_dist;
            if (is != 1) {
                FN(copy_c)(buf, 1, src, is, h + 1);
                src = buf;
            }
            for (int k0 = 0; k0 < h; k0 += CPV) {
                V e, d, w;
                FN(il_halves)(src, h, k0, tw, &e, &d, &w);
                const V zk = e - FN(minus_j)(FN(cmul_il)(d, w, 1));   /* E + j W^-k D */
                memcpy(zb + 2 * k0, &zk, sizeof zk);
            }
            R *x = os == 1 ? dst : buf;
            FN(il_fft)(zb, x, t, u, tt, 1, (R)1 / (R)h, tw, 2, h, &tb);
            if (os != 1)
                for (int i = 0; i < n; i++)
                    dst[i * os] = buf[i];
        }
    }
}
#undef IL_W64_VECTORS
#undef IL_SPLIT_M
#undef CPV

/* lanes_run's buffers, carved from the thread's work area (lanes.h's
 * SPEC_LANES_WORK_REALS); a and z have room for the FFT's padding (vfft). */
typedef struct {
    VC *a, *z, *scr, *sp, *o;
    V *v;
} FN(run_bufs);

static inline __attribute__((always_inline)) FN(run_bufs) FN(run_bufs_in)(R *work, int n)
{
    FN(run_bufs) b;
    b.a = (VC *)work;
    b.z = b.a + SPEC_LANES_FFT_ROOM(n);
    b.scr = b.z + SPEC_LANES_FFT_ROOM(n);
    b.sp = b.scr + n + 16;
    b.o = b.sp + n / 2 + 2;
    b.v = (V *)(b.o + n);
    return b;
}

/* c2c: one at a time where the interleaved kernels take n, a full group
 * of 16 points in registers, else across the lanes. */
static inline __attribute__((always_inline)) void FN(run_c2c)(const spec_lanes_job *j,
                                                             const R *in, R *out, int count,
                                                             const FN(run_bufs) *b)
{
    const int n = j->n;
    const ptrdiff_t is = j->in_stride, os = j->out_stride;
    const R sg = j->inverse ? (R)-1 : (R)1;
    if (j->one_at_a_time && FN(il_handles)(n)) {
        FN(il_run)(j, in, out, count, b->a, b->z, b->scr);
        return;
    }
    if (n == 16 && is == 1 && os == 1 && count == L) {
        FN(c2c16)(in, 2 * j->in_dist, out, 2 * j->out_dist, sg, (R)j->scale, j->tw);
        return;
    }
    const R scale = (R)j->scale;
    FN(order) ord;
    FN(gather_c)(in, 2 * is, 1, 2 * j->in_dist, count, n, sg, b->a, FN(fft_in_shift)(n));
    const VC *f = FN(fft)(b->a, b->z, n, j->tw, 1, &ord);
    FN(scatter_c)(f, ord, 2 * os, 2 * j->out_dist, count, n, scale, sg * scale, out);
}

/* The half spectrum X_0 .. X_h of the group's real inputs, into b->sp
 * (r2c and the DHT start alike). */
static inline __attribute__((always_inline)) void FN(real_spectrum)(const spec_lanes_job *j,
                                                                   const R *in, int count,
                                                                   const FN(run_bufs) *b)
{
    FN(gather_r)(in, j->in_stride, j->in_dist, count, j->n, (V *)b->a);
    FN(vr2c)((V *)b->a, b->sp, b->z, b->scr, j->n, j->tw);
}

static inline __attribute__((always_inline)) void FN(run_r2c)(const spec_lanes_job *j,
                                                             const R *in, R *out, int count,
                                                             const FN(run_bufs) *b)
{
    const FN(order) in_order = {0};
    if (j->one_at_a_time && FN(il_real_handles)(j->n)) {
        FN(il_real)(j, in, out, count, b->a, b->z, b->scr);
        return;
    }
    FN(real_spectrum)(j, in, count, b);
    FN(scatter_c)(b->sp, in_order, 2 * j->out_stride, 2 * j->out_dist, count, j->n / 2 + 1, 1, 1,
                  out);
}

/* DHT: H_k = Re X_k - Im X_k; above h, X_k = conj X_{n-k}. */
static inline __attribute__((always_inline)) void FN(run_dht)(const spec_lanes_job *j,
                                                             const R *in, R *out, int count,
                                                             const FN(run_bufs) *b)
{
    const int n = j->n, h = n / 2;
    const VC *sp = b->sp;
    FN(real_spectrum)(j, in, count, b);
    V *ho = (V *)b->o;
    for (int k = 0; k <= h; k++)
        ho[k] = sp[k].re - sp[k].im;
    for (int k = h + 1; k < n; k++)
        ho[k] = sp[n - k].re + sp[n - k].im;
    FN(scatter_r)(ho, j->out_stride, j->out_dist, count, n, out);
}

static inline __attribute__((always_inline)) void FN(run_c2r)(const spec_lanes_job *j,
                                                             const R *in, R *out, int count,
                                                             const FN(run_bufs) *b)
{
    const int n = j->n, h = n / 2;
    if (j->one_at_a_time && FN(il_real_handles)(n)) {
        FN(il_real)(j, in, out, count, b->a, b->z, b->scr);
        return;
    }
    FN(gather_c)(in, 2 * j->in_stride, 1, 2 * j->in_dist, count, h + 1, 1, b->a, 0);
    FN(order) ord;
    const VC *f = FN(vc2r)(b->a, b->z, b->scr, n, j->tw, &ord);
    const V sc = BC((R)1 / (R)h), msc = BC(-(R)1 / (R)h);
    V *ro = (V *)b->o;
    for (int i = 0; i < h; i++) {
        ro[2 * i] = f[FN(at)(ord, i)].re * sc;
        ro[2 * i + 1] = f[FN(at)(ord, i)].im * msc;
    }
    FN(scatter_r)(ro, j->out_stride, j->out_dist, count, n, out);
}

static inline __attribute__((always_inline)) void FN(run_dct2)(const spec_lanes_job *j,
                                                              const R *in, R *out, int count,
                                                              const FN(run_bufs) *b)
{
    const int n = j->n, h = n / 2;
    const R *qt = j->qt;
    const VC *sp = b->sp;
    V *x = (V *)b->a, *v = b->v;
    FN(gather_r)(in, j->in_stride, j->in_dist, count, n, x);
    for (int k = 0; k < h; k++) {
        v[k] = x[2 * k];
        v[n - 1 - k] = x[2 * k + 1];
    }
    FN(vr2c)(v, b->sp, b->z, b->scr, n, j->tw);
    V *ro = (V *)b->o;
    for (int k = 0; k < n; k++) {
        const int s = k <= h ? k : n - k;
        const V zr = sp[s].re, zi = k <= h ? sp[s].im : -sp[s].im;
        ro[k] = zr * BC(qt[2 * (size_t)k]) - zi * BC(qt[2 * (size_t)k + 1]);
    }
    FN(scatter_r)(ro, j->out_stride, j->out_dist, count, n, out);
}

static inline __attribute__((always_inline)) void FN(run_dct3)(const spec_lanes_job *j,
                                                              const R *in, R *out, int count,
                                                              const FN(run_bufs) *b)
{
    const int n = j->n, h = n / 2;
    const R *qt = j->qt;
    VC *sp = b->sp;
    V *y = (V *)b->a, *v = b->v;
    FN(gather_r)(in, j->in_stride, j->in_dist, count, n, y);
    for (int k = 0; k <= h; k++) {
        const V ya = y[k], yb = k == 0 ? BC(0) : y[n - k];
        const V cr = BC(qt[2 * (size_t)k]), ci = BC(-qt[2 * (size_t)k + 1]);
        sp[k].re = ya * cr + yb * ci;
        sp[k].im = ya * ci - yb * cr;
    }
    FN(order) ord;
    const VC *f = FN(vc2r)(sp, b->z, b->scr, n, j->tw, &ord);
    /* v_i = (conj f)_i / h, out = v * n/2: the two scales are one factor 1 */
    V *ro = (V *)b->o;
    for (int i = 0; i < h; i++) {
        v[2 * i] = f[FN(at)(ord, i)].re;
        v[2 * i + 1] = -f[FN(at)(ord, i)].im;
    }
    for (int k = 0; k < h; k++) {
        ro[2 * k] = v[k];
        ro[2 * k + 1] = v[n - 1 - k];
    }
    FN(scatter_r)(ro, j->out_stride, j->out_dist, count, n, out);
}

static inline __attribute__((always_inline)) void FN(run_conv2d)(const spec_lanes_job *j,
                                                                const R *in, R *out, int count,
                                                                const FN(run_bufs) *b)
{
    const int n = j->n;
    const R *S = j->shape;
    const FN(order) in_order = {0};
    VC *a = b->a, *z = b->z;
    FN(gather_c)(in, 2 * j->in_stride, 1, 2 * j->in_dist, count, n, 1, a, 0);
    VC *f = FN(vfft)(a, z, n, j->tw, 1);
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
    const VC *g = FN(vfft)(f, f == a ? z : a, n, j->tw, 1);
    FN(scatter_c)(g, in_order, 2 * j->out_stride, 2 * j->out_dist, count, n, 1, -1, out);
}

/* One group of count transforms of the job's kind from in to out. */
static void FN(lanes_run)(const spec_lanes_job *j, const R *in, R *out, int count, R *work)
{
    const FN(run_bufs) b = FN(run_bufs_in)(work, j->n);
    switch (j->kind) {
    case SPEC_C2C: FN(run_c2c)(j, in, out, count, &b); break;
    case SPEC_R2C: FN(run_r2c)(j, in, out, count, &b); break;
    case SPEC_DHT: FN(run_dht)(j, in, out, count, &b); break;
    case SPEC_C2R: FN(run_c2r)(j, in, out, count, &b); break;
    case SPEC_DCT2: FN(run_dct2)(j, in, out, count, &b); break;
    case SPEC_DCT3: FN(run_dct3)(j, in, out, count, &b); break;
    case SPEC_CONV2D: FN(run_conv2d)(j, in, out, count, &b); break;
    default: break;
    }
}

#undef BC
#undef V
#undef VC
#undef L
#undef FN
#undef CAT
#undef CAT2
