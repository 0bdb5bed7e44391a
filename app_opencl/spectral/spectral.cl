/* Spectral kernels of the OpenCL app (docs/spectral.md), one source for
 * both precisions: the host builds it with -DREAL=float -DREAL2=float2 or
 * -DREAL=double -DREAL2=double2 -DSPEC_FP64, on the first spectral call.
 * Same conventions as the CPU kernels (common/spectral/fft_generic.h).
 *
 * Every FFT is fft_local: T work-items run one transform held in local
 * memory, Stockham radix-16 passes in registers (then radix 4 and 2 for
 * what is left); each
 * work-item loads its butterflies into registers, the group meets at a
 * barrier, and the results go back in autosorted order. A work-group holds
 * G = local size / T transforms. The kinds differ in how they load and
 * store (pre/post-processing fused there).
 * These butterflies are written for OpenCL C, not generated from one source
 * with the CUDA and CPU ones (app_cuda/spectral/spectral_fft.cuh,
 * common/spectral/simd/lanes_kernel.h): it has no templates, and this program
 * must build on PoCL, AMD and Intel too; a generator is the route to converge. */
#ifdef SPEC_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* butterflies per work-item per radix-4 pass: the host picks T >= n / 16 */
#define MAXB 4

/* a * w; conj(w) when inv (the table holds e^{-2 pi j k / N}) */
inline REAL2 cmul_tw(REAL2 a, REAL2 w, int inv)
{
    const REAL wi = inv ? -w.y : w.y;
    return (REAL2)(a.x * w.x - a.y * wi, a.x * wi + a.y * w.x);
}

/* The 4-point DFT of (a, b, c, d) in place, W = e^{fs 2 pi j / 4} */
inline void dft4(REAL2 *a, REAL2 *b, REAL2 *c, REAL2 *d, REAL fs)
{
    const REAL2 apc = *a + *c, amc = *a - *c, bpd = *b + *d, bmd = *b - *d;
    const REAL2 jbmd = (REAL2)(-fs * bmd.y, fs * bmd.x);   /* fs j (b - d) */
    *a = apc + bpd;
    *b = amc + jbmd;
    *c = apc - bpd;
    *d = amc - jbmd;
}

/* v * e^{fs 2 pi j m / 16} for the m a 16-point DFT needs (1, 2, 3, 6, 9) */
inline REAL2 rot16(REAL2 v, int m, REAL fs)
{
    const REAL c1 = (REAL)0.92387953251128675613, s1 = (REAL)0.38268343236508977173;
    const REAL h = (REAL)0.70710678118654752440;
    REAL c, sn;
    switch (m) {
    case 1: c = c1; sn = s1; break;
    case 2: c = h; sn = h; break;
    case 3: c = s1; sn = c1; break;
    case 6: c = -h; sn = h; break;
    default: c = -c1; sn = -s1; break;   /* 9 */
    }
    sn *= fs;
    return (REAL2)(v.x * c - v.y * sn, v.x * sn + v.y * c);
}

/* The 16-point DFT of v in place, in natural order: four 4-point DFTs
 * down the columns (j = j1 + 4 j2), the twiddles W16^{j1 k1}, four across. */
inline void dft16(REAL2 *v, REAL fs)
{
    for (int j1 = 0; j1 < 4; j1++)
        dft4(&v[j1], &v[j1 + 4], &v[j1 + 8], &v[j1 + 12], fs);
    /* v[j1 + 4 k1] now holds Y[j1][k1] */
    v[5] = rot16(v[5], 1, fs);
    v[9] = rot16(v[9], 2, fs);
    v[13] = rot16(v[13], 3, fs);
    v[6] = rot16(v[6], 2, fs);
    v[10] = (REAL2)(-fs * v[10].y, fs * v[10].x);   /* W16^4 = fs j */
    v[14] = rot16(v[14], 6, fs);
    v[7] = rot16(v[7], 3, fs);
    v[11] = rot16(v[11], 6, fs);
    v[15] = rot16(v[15], 9, fs);
    for (int k1 = 0; k1 < 4; k1++)
        dft4(&v[4 * k1], &v[4 * k1 + 1], &v[4 * k1 + 2], &v[4 * k1 + 3], fs);
    /* v[4 k1 + k2] holds X[k1 + 4 k2]: transpose to natural order */
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            const REAL2 t = v[4 * i + j];
            v[4 * i + j] = v[4 * j + i];
            v[4 * j + i] = t;
        }
}

/* One complex FFT of n points in x (natural order in and out) by the T
 * work-items lid < T (T >= n / 16); unscaled. Stockham passes: radix 16
 * while 16 divides what is left, then radix 4, then radix 2. tw holds
 * e^{-2 pi j k / (n tstep0)}. Every work-item of the group calls it (it
 * has barriers), live or not (a work-item that is not live only meets
 * the barriers). Elements lie es apart (1: contiguous; the row pitch for
 * a column of a 2D image). */
void fft_local_s(local REAL2 *x, int n, int es, global const REAL2 *tw, int tstep0, int inv,
                 int lid, int T, int live)
{
    const REAL fs = inv ? (REAL)1 : (REAL)-1;
    int s = 1, ls = 0, len = n;   /* s = 2^ls transforms interleaved so far */
    barrier(CLK_LOCAL_MEM_FENCE);   /* the caller's stores into x */
    for (; len >= 16; len /= 16, s *= 16, ls += 4) {
        /* one butterfly per work-item */
        const int tstep = tstep0 * (n / len), q16 = n / 16, b = lid;
        REAL2 v[16];
        if (live && b < q16)
            for (int k = 0; k < 16; k++)
                v[k] = x[(b + k * q16) * es];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live && b < q16) {
            dft16(v, fs);
            const int q = b & (s - 1), p = b >> ls;
            local REAL2 *o = x + (q + 16 * s * p) * es;
            o[0] = v[0];
            for (int k = 1; k < 16; k++)
                o[k * s * es] = cmul_tw(v[k], tw[p * k * tstep], inv);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int q4 = n / 4;
    if (len >= 4) {   /* len is 4 or 8: one radix-4 pass */
        const int tstep = tstep0 * (n / len);
        REAL2 v[MAXB][4];
        for (int j = 0; j < MAXB; j++) {
            const int b = lid + j * T;
            if (live && b < q4)
                for (int k = 0; k < 4; k++)
                    v[j][k] = x[(b + k * q4) * es];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < MAXB; j++) {
            const int b = lid + j * T;
            if (live && b < q4) {
                const int q = b & (s - 1), p = b >> ls, se = s * es;
                dft4(&v[j][0], &v[j][1], &v[j][2], &v[j][3], fs);
                local REAL2 *o = x + (q + 4 * s * p) * es;
                o[0] = v[j][0];
                o[se] = cmul_tw(v[j][1], tw[p * tstep], inv);
                o[2 * se] = cmul_tw(v[j][2], tw[2 * p * tstep], inv);
                o[3 * se] = cmul_tw(v[j][3], tw[3 * p * tstep], inv);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        len /= 4;
    }
    if (len == 2) {
        /* the last pass: twiddles are all 1, each butterfly in place */
        const int h = n / 2;
        for (int b = lid; live && b < h; b += T) {
            const REAL2 a = x[b * es], c = x[(b + h) * es];
            x[b * es] = a + c;
            x[(b + h) * es] = a - c;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The contiguous, always live case. */
inline void fft_local(local REAL2 *x, int n, global const REAL2 *tw, int tstep0, int inv, int lid,
                      int T)
{
    fft_local_s(x, n, 1, tw, tstep0, inv, lid, T, 1);
}

/* log2 of a power of two */
inline int lg2(int x) { return 31 - clz(x); }

/* Where element i of transform t lies: transforms come in runs of
 * inner = 2^li (tstride apart), runs `outer` apart; elements estride
 * apart. */
inline long at(int t, int i, int li, int tstride, int estride, long outer)
{
    return (long)(t >> li) * outer + (long)(t & ((1 << li) - 1)) * tstride + (long)i * estride;
}

/* Batched complex FFT of n points with general layouts: count transforms,
 * G per group. post_tw multiplies output k of transform t by
 * tw[(t % in_inner) k] (the four-step's middle twiddles). Consecutive
 * work-items load consecutive addresses: along a transform where its
 * elements are contiguous, across transforms where they are not. */
kernel void fft_c2c(global const REAL2 *in, global REAL2 *out, global const REAL2 *tw, int n,
                    int tstep0, int count, int T, int in_inner, int in_tstride, int in_estride,
                    long in_outer, int out_inner, int out_tstride, int out_estride,
                    long out_outer, int inv, int post_tw, REAL scale, local REAL2 *lbuf)
{
    const int l = get_local_id(0), G = get_local_size(0) / T;
    const int g = l / T, lid = l & (T - 1), t0 = get_group_id(0) * G;
    const int ln = lg2(n), lG = lg2(G), lin = lg2(in_inner), lout = lg2(out_inner);
    for (int e = l; e < G * n; e += G * T) {
        const int gg = in_estride == 1 ? e >> ln : e & (G - 1);
        const int i = in_estride == 1 ? e & (n - 1) : e >> lG;
        if (t0 + gg < count)
            lbuf[gg * n + i] = in[at(t0 + gg, i, lin, in_tstride, in_estride, in_outer)];
    }
    fft_local(lbuf + g * n, n, tw, tstep0, inv, lid, T);
    for (int e = l; e < G * n; e += G * T) {
        const int gg = out_estride == 1 ? e >> ln : e & (G - 1);
        const int k = out_estride == 1 ? e & (n - 1) : e >> lG;
        const int t = t0 + gg;
        if (t < count) {
            REAL2 v = lbuf[gg * n + k];
            if (post_tw)
                v = cmul_tw(v, tw[(t & (in_inner - 1)) * k], inv);
            out[at(t, k, lout, out_tstride, out_estride, out_outer)] = v * scale;
        }
    }
}

/* ---- real kinds, on an h = n/2 point complex FFT ---- */

#define K_R2C 1
#define K_C2R 2
#define K_DCT2 3
#define K_DCT3 4
#define K_DHT 5

/* Y_k (k <= h) of the real FFT from z = FFT(x even + j x odd) */
inline REAL2 r2c_bin(local const REAL2 *z, int k, int h, global const REAL2 *tw)
{
    const REAL2 a = z[k & (h - 1)], b = z[(h - k) & (h - 1)];
    const REAL er = (REAL)0.5 * (a.x + b.x), ei = (REAL)0.5 * (a.y - b.y);
    const REAL or_ = (REAL)0.5 * (a.y + b.y), oi = (REAL)-0.5 * (a.x - b.x);
    if (k == h)
        return (REAL2)(er - or_, ei - oi);
    const REAL2 w = tw[k];
    return (REAL2)(er + (or_ * w.x - oi * w.y), ei + (or_ * w.y + oi * w.x));
}

/* DCT-III's pre-processing: the spectrum bin k (k <= h) of the real
 * signal whose C2R gives the DCT-III up to n/2 */
inline REAL2 dct3_bin(global const REAL *y, int k, int n, global const REAL2 *qt)
{
    const REAL a = y[k], b = k == 0 ? (REAL)0 : y[n - k];
    const REAL cr = qt[k].x, ci = -qt[k].y;   /* e^{+j pi k / (2n)} */
    return (REAL2)(a * cr + b * ci, a * ci - b * cr);
}

/* C2R's pre-processing: Z_k from Y_k and Y_{h-k} */
inline REAL2 c2r_pre(REAL2 a, REAL2 b, int k, global const REAL2 *tw)
{
    const REAL er = (REAL)0.5 * (a.x + b.x), ei = (REAL)0.5 * (a.y - b.y);
    const REAL dr = (REAL)0.5 * (a.x - b.x), di = (REAL)0.5 * (a.y + b.y);
    const REAL wr = tw[k].x, wi = -tw[k].y;   /* W^{-k} */
    const REAL or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
    return (REAL2)(er - oi, ei + or_);
}

/* One of R2C, C2R, DCT2, DCT3, DHT on count packed transforms of n
 * points (C2R reads, R2C writes n/2 + 1 complex). tw: e^{-2 pi j k / n},
 * qt: e^{-j pi k / (2n)} (DCT: the plain sums; the host applies the norm). */
kernel void fft_real(global const REAL *in, global REAL *out, global const REAL2 *tw,
                     global const REAL2 *qt, int kind, int n, int count, int T,
                     local REAL2 *lbuf)
{
    const int h = n / 2;
    const int l = get_local_id(0), G = get_local_size(0) / T;
    const int g = l / T, lid = l % T, t = get_group_id(0) * G + g;
    const int live = t < count;
    local REAL2 *z = lbuf + g * h;
    if (live) {
        if (kind == K_R2C || kind == K_DHT) {
            global const REAL *x = in + (long)t * n;
            for (int i = lid; i < h; i += T)
                z[i] = (REAL2)(x[2 * i], x[2 * i + 1]);
        } else if (kind == K_DCT2) {
            /* v = even samples ascending, odd samples descending */
            global const REAL *x = in + (long)t * n;
            for (int i = lid; i < h; i += T) {
                const int m0 = 2 * i, m1 = 2 * i + 1;
                z[i] = (REAL2)(m0 < h ? x[2 * m0] : x[2 * (n - 1 - m0) + 1],
                               m1 < h ? x[2 * m1] : x[2 * (n - 1 - m1) + 1]);
            }
        } else if (kind == K_C2R) {
            /* Y_0 and Y_h (at k = 0) with their imaginary parts ignored, as
             * numpy's irfft */
            global const REAL2 *y = (global const REAL2 *)in + (long)t * (h + 1);
            for (int k = lid; k < h; k += T) {
                REAL2 a = y[k], b = y[h - k];
                if (k == 0)
                    a.y = b.y = (REAL)0;
                z[k] = c2r_pre(a, b, k, tw);
            }
        } else {   /* K_DCT3 */
            global const REAL *y = in + (long)t * n;
            for (int k = lid; k < h; k += T)
                z[k] = c2r_pre(dct3_bin(y, k, n, qt), dct3_bin(y, h - k, n, qt), k, tw);
        }
    }
    fft_local(z, h, tw, 2, kind == K_C2R || kind == K_DCT3, lid, T);
    if (!live)
        return;
    if (kind == K_R2C) {
        global REAL2 *y = (global REAL2 *)out + (long)t * (h + 1);
        for (int k = lid; k <= h; k += T)
            y[k] = r2c_bin(z, k, h, tw);
    } else if (kind == K_DHT) {
        global REAL *y = out + (long)t * n;
        for (int k = lid; k < n; k += T) {
            const REAL2 b = r2c_bin(z, k <= h ? k : n - k, h, tw);
            y[k] = k <= h ? b.x - b.y : b.x + b.y;
        }
    } else if (kind == K_DCT2) {
        global REAL *y = out + (long)t * n;
        for (int k = lid; k < n; k += T) {
            const REAL2 b = r2c_bin(z, k <= h ? k : n - k, h, tw);
            const REAL zi = k <= h ? b.y : -b.y;
            y[k] = b.x * qt[k].x - zi * qt[k].y;
        }
    } else if (kind == K_C2R) {
        global REAL2 *x = (global REAL2 *)(out + (long)t * n);
        const REAL scale = (REAL)1 / (REAL)h;
        for (int i = lid; i < h; i += T)
            x[i] = z[i] * scale;
    } else {   /* K_DCT3: the C2R's 1/h and the DCT-III's n/2 cancel */
        global REAL *x = out + (long)t * n;
        local const REAL *v = (local const REAL *)z;
        for (int k = lid; k < h; k += T) {
            x[2 * k] = v[k];
            x[2 * k + 1] = v[n - 1 - k];
        }
    }
}

/* ---- the EDM convolution, in three passes over a work buffer that holds
 * only the M rows that are not zero (rows of slice s at (s M + a) nf) ---- */

/* Row FFTs of the padded slices: row a of slice s (t = s M + a), modes
 * placed at (b - (M-1)/2) mod nf, zeros elsewhere. */
kernel void conv_rows_fwd(global const REAL2 *x, global REAL2 *w, global const REAL2 *tw, int nf,
                          int m, int count, int T, local REAL2 *lbuf)
{
    const int l = get_local_id(0), G = get_local_size(0) / T;
    const int g = l / T, lid = l % T, t = get_group_id(0) * G + g;
    const int hm = (m - 1) / 2;
    local REAL2 *row = lbuf + g * nf;
    if (t < count)
        for (int c = lid; c < nf; c += T) {
            const int b = (c + hm) & (nf - 1);
            row[c] = b < m ? x[(long)t * m + b] : (REAL2)(0, 0);
        }
    fft_local(row, nf, tw, 1, 0, lid, T);
    if (t < count)
        for (int c = lid; c < nf; c += T)
            w[(long)t * nf + c] = row[c];
}

/* Column c of slice s (t = s nf + c): forward FFT, times S, inverse FFT,
 * and only the M rows the crop keeps written back. */
kernel void conv_cols(global REAL2 *w, global const REAL *shapes, global const REAL2 *tw, int nf,
                      int m, int count, int per_shape, int T, local REAL2 *lbuf)
{
    const int l = get_local_id(0), G = get_local_size(0) / T;
    const int g = l / T, lid = l % T, t0 = get_group_id(0) * G;
    const int hm = (m - 1) / 2;
    /* across columns first: consecutive work-items, consecutive columns */
    const int lG = lg2(G), lnf = lg2(nf);
    for (int e = l; e < G * nf; e += G * T) {
        const int gg = e & (G - 1), r = e >> lG, t = t0 + gg;
        const int a = (r + hm) & (nf - 1);
        if (t < count)
            lbuf[gg * nf + r] =
                a < m ? w[((long)(t >> lnf) * m + a) * nf + (t & (nf - 1))] : (REAL2)(0, 0);
    }
    local REAL2 *col = lbuf + g * nf;
    fft_local(col, nf, tw, 1, 0, lid, T);
    const int t = t0 + g;
    if (t < count) {
        global const REAL *s = shapes + (long)((t >> lnf) / per_shape) * nf * nf + (t & (nf - 1));
        for (int r = lid; r < nf; r += T)
            col[r] *= s[(long)r * nf];
    }
    fft_local(col, nf, tw, 1, 1, lid, T);
    for (int e = l; e < G * m; e += G * T) {
        const int gg = e & (G - 1), a = e >> lG, tt = t0 + gg;
        if (tt < count)
            w[((long)(tt >> lnf) * m + a) * nf + (tt & (nf - 1))] =
                lbuf[gg * nf + ((a - hm) & (nf - 1))];
    }
}

/* Inverse row FFTs, the crop to M x M and the 1/nf^2. */
kernel void conv_rows_inv(global const REAL2 *w, global REAL2 *y, global const REAL2 *tw, int nf,
                          int m, int count, int T, REAL scale, local REAL2 *lbuf)
{
    const int l = get_local_id(0), G = get_local_size(0) / T;
    const int g = l / T, lid = l % T, t = get_group_id(0) * G + g;
    const int hm = (m - 1) / 2;
    local REAL2 *row = lbuf + g * nf;
    if (t < count)
        for (int c = lid; c < nf; c += T)
            row[c] = w[(long)t * nf + c];
    fft_local(row, nf, tw, 1, 1, lid, T);
    if (t < count)
        for (int b = lid; b < m; b += T)
            y[(long)t * m + b] = row[(b - hm) & (nf - 1)] * scale;
}

/* ---- whole images in one group's local memory (pitch n2 + 1, so that
 * a column's elements fall in different banks): one pass over memory ---- */

/* FFTs of `rows` lines of n points, elements es apart, lines ls apart,
 * by teams of T work-items (all the group's items; every item loops the
 * same number of times, for the barriers). */
void lines_fft(local REAL2 *img, int rows, int n, int es, int lstride, global const REAL2 *tw,
               int inv, int T)
{
    const int l = get_local_id(0), teams = get_local_size(0) / T;
    const int team = l / T, lid = l & (T - 1);
    for (int r0 = 0; r0 < rows; r0 += teams) {
        const int r = r0 + team;
        fft_local_s(img + (r < rows ? r : 0) * lstride, n, es, tw, 1, inv, lid, T, r < rows);
    }
}

/* One n1 x n2 image per group: rows, then columns, in local memory. */
kernel void fft2_local(global const REAL2 *in, global REAL2 *out, global const REAL2 *tw1,
                       global const REAL2 *tw2, int n1, int n2, int T1, int T2, int inv,
                       REAL scale, local REAL2 *img)
{
    const int l = get_local_id(0), L = get_local_size(0), P = n2 + 1, ln2 = lg2(n2);
    const long base = (long)get_group_id(0) * n1 * n2;
    for (int e = l; e < n1 * n2; e += L)
        img[(e >> ln2) * P + (e & (n2 - 1))] = in[base + e];
    for (int stage = 0; stage < 2; stage++)   /* rows, then columns; one call site */
        lines_fft(img, stage ? n2 : n1, stage ? n1 : n2, stage ? P : 1, stage ? 1 : P,
                  stage ? tw1 : tw2, inv, stage ? T1 : T2);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = l; e < n1 * n2; e += L)
        out[base + e] = img[(e >> ln2) * P + (e & (n2 - 1))] * scale;
}

/* The whole convolution of one slice per group: pad on load, forward FFTs
 * of the M live rows only, all columns forward, times S, inverse, inverse
 * FFTs of the M rows the crop keeps, crop and 1/nf^2 on store. The four
 * stages share one call of fft_local_s (code size: PoCL unrolls the
 * work-items around each barrier). */
kernel void conv_local(global const REAL2 *x, global const REAL *shapes, global REAL2 *y,
                       global const REAL2 *tw, int nf, int m, int per_shape, int T, REAL scale,
                       local REAL2 *img)
{
    const int l = get_local_id(0), L = get_local_size(0), P = nf + 1, lnf = lg2(nf);
    const int hm = (m - 1) / 2, slice = get_group_id(0);
    const int teams = L / T, team = l / T, lid = l & (T - 1);
    global const REAL2 *xs = x + (long)slice * m * m;
    for (int e = l; e < nf * nf; e += L) {
        const int r = e >> lnf, c = e & (nf - 1);
        const int a = (r + hm) & (nf - 1), b = (c + hm) & (nf - 1);
        img[r * P + c] = a < m && b < m ? xs[a * m + b] : (REAL2)(0, 0);
    }
    for (int stage = 0; stage < 4; stage++) {
        /* rows forward, columns forward, columns inverse, rows inverse;
         * the live rows are r = (a - hm) mod nf, a < m */
        const int cols = stage == 1 || stage == 2, lines = cols ? nf : m;
        if (stage == 2) {
            barrier(CLK_LOCAL_MEM_FENCE);
            global const REAL *sh = shapes + (long)(slice / per_shape) * nf * nf;
            for (int e = l; e < nf * nf; e += L)
                img[(e >> lnf) * P + (e & (nf - 1))] *= sh[e];
        }
        for (int j0 = 0; j0 < lines; j0 += teams) {
            const int j = j0 + team, live = j < lines, jj = live ? j : 0;
            local REAL2 *line = cols ? img + jj : img + ((jj - hm) & (nf - 1)) * P;
            fft_local_s(line, nf, cols ? P : 1, tw, 1, stage >= 2, lid, T, live);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    global REAL2 *ys = y + (long)slice * m * m;
    for (int e = l; e < m * m; e += L) {
        const int a = e / m, b = e - a * m;
        ys[e] = img[((a - hm) & (nf - 1)) * P + ((b - hm) & (nf - 1))] * scale;
    }
}

/* ---- batched tridiagonal solves: Thomas's algorithm (dominant systems:
 * no pivoting), one work-item per system, W systems per group. Systems
 * lie n apart, so the group moves them through local memory in chunks of
 * C rows: loads and stores run along the rows (coalesced) while each
 * work-item walks its own system. The forward sweep leaves the eliminated
 * upper diagonal in du and the forward-substituted right-hand side in x;
 * the backward sweep, chunks last to first, finishes x. status: per
 * system, 0, or r + 1 for the first zero or non-finite pivot, at row r. ---- */
kernel void tridiag_thomas(global const REAL *dl, global const REAL *d, global REAL *du,
                           global const REAL *rhs, global REAL *x, int n, int count, int C,
                           local REAL *lm, global int *status)
{
    const int W = get_local_size(0), lid = get_local_id(0), s0 = get_group_id(0) * W;
    const int P = C + 1;   /* padded rows: work-items walk different banks */
    local REAL *ldl = lm, *ld = lm + W * P, *ldu = lm + 2 * W * P, *lx = lm + 3 * W * P;
    const int lC = lg2(C);
    local REAL *mdl = ldl + lid * P, *md = ld + lid * P, *mdu = ldu + lid * P, *mx = lx + lid * P;
    const int live = s0 + lid < count;
    REAL c = 0, xp = 0;
    int broke = 0;
    for (int i0 = 0; i0 < n; i0 += C) {
        const int rows = min(C, n - i0);
        for (int e = lid; e < W * C; e += W) {
            const int sys = e >> lC, r = e & (C - 1);
            if (r < rows && s0 + sys < count) {
                const long o = (long)(s0 + sys) * n + i0 + r;
                ldl[sys * P + r] = dl[o];
                ld[sys * P + r] = d[o];
                ldu[sys * P + r] = du[o];
                lx[sys * P + r] = rhs[o];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live)
            for (int r = 0; r < rows; r++) {
                const int i = i0 + r;
                const REAL den = i == 0 ? md[r] : md[r] - mdl[r] * c;
                if (!broke && (den == (REAL)0 || !isfinite(den)))
                    broke = i + 1;
                c = i + 1 < n ? mdu[r] / den : (REAL)0;
                xp = i == 0 ? mx[r] / den : (mx[r] - mdl[r] * xp) / den;
                mdu[r] = c;
                mx[r] = xp;
            }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = lid; e < W * C; e += W) {
            const int sys = e >> lC, r = e & (C - 1);
            if (r < rows && s0 + sys < count) {
                const long o = (long)(s0 + sys) * n + i0 + r;
                du[o] = ldu[sys * P + r];
                x[o] = lx[sys * P + r];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
    REAL next = 0;   /* x_{i+1} */
    for (int i0 = (n - 1) / C * C; i0 >= 0; i0 -= C) {
        const int rows = min(C, n - i0);
        for (int e = lid; e < W * C; e += W) {
            const int sys = e >> lC, r = e & (C - 1);
            if (r < rows && s0 + sys < count) {
                const long o = (long)(s0 + sys) * n + i0 + r;
                ldu[sys * P + r] = du[o];
                lx[sys * P + r] = x[o];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live)
            for (int r = rows - 1; r >= 0; r--) {
                next = i0 + r == n - 1 ? mx[r] : mx[r] - mdu[r] * next;
                mx[r] = next;
            }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = lid; e < W * C; e += W) {
            const int sys = e >> lC, r = e & (C - 1);
            if (r < rows && s0 + sys < count)
                x[(long)(s0 + sys) * n + i0 + r] = lx[sys * P + r];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (live)
        status[s0 + lid] = broke;
}
