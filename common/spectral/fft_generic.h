/* The CPU kernels, written once for both precisions: plan.c includes this
 * file twice, with R (the real type) and SUFFIX (f64, f32) defined.
 *
 * Complex FFT: Stockham autosort, radix 4 with one radix-2 pass when
 * log2 N is odd; each pass reads one buffer and writes the other, so no
 * bit reversal is needed. Twiddles come from the plan's table of
 * e^{-2 pi j k / N}, computed once in long double and rounded, so every
 * twiddle is correctly rounded (no recurrences). The real kinds are built
 * on an N/2-point complex FFT (spec section 1). */
#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(name, SUFFIX)

typedef struct {
    R re, im;
} FN(cpx);

/* One complex FFT of n points (n = N_plan / step for the table), x -> x,
 * using y as scratch. sign -1 forward, +1 inverse (unscaled). */
static void FN(fft)(FN(cpx) *x, FN(cpx) *y, int n, const double *tw, int step, int sign)
{
    FN(cpx) *src = x, *dst = y;
    int s = 1;   /* transforms interleaved so far */
    int len = n; /* current sub-transform length */
    while (len >= 4) {
        const int m = len / 4, tstep = step * (n / len);
        for (int p = 0; p < m; p++) {
            const double *w1 = &tw[2 * (size_t)p * tstep], *w2 = &tw[2 * (size_t)(2 * p) * tstep],
                         *w3 = &tw[2 * (size_t)(3 * p) * tstep];
            const R w1r = (R)w1[0], w2r = (R)w2[0], w3r = (R)w3[0];
            /* the table holds e^{-2 pi j k/N}; the inverse conjugates it */
            const R c1 = sign < 0 ? (R)w1[1] : (R)-w1[1], c2 = sign < 0 ? (R)w2[1] : (R)-w2[1],
                    c3 = sign < 0 ? (R)w3[1] : (R)-w3[1];
            for (int q = 0; q < s; q++) {
                const FN(cpx) a = src[q + s * p], b = src[q + s * (p + m)],
                              c = src[q + s * (p + 2 * m)], d = src[q + s * (p + 3 * m)];
                const R apc_r = a.re + c.re, apc_i = a.im + c.im;
                const R amc_r = a.re - c.re, amc_i = a.im - c.im;
                const R bpd_r = b.re + d.re, bpd_i = b.im + d.im;
                /* sign * j * (b - d): forward -j, inverse +j */
                const R jbmd_r = -sign * (b.im - d.im), jbmd_i = sign * (b.re - d.re);
                FN(cpx) *o = &dst[q + s * 4 * p];
                o[0].re = apc_r + bpd_r;
                o[0].im = apc_i + bpd_i;
                const R t1r = amc_r + jbmd_r, t1i = amc_i + jbmd_i;
                o[s].re = t1r * w1r - t1i * c1;
                o[s].im = t1r * c1 + t1i * w1r;
                const R t2r = apc_r - bpd_r, t2i = apc_i - bpd_i;
                o[2 * s].re = t2r * w2r - t2i * c2;
                o[2 * s].im = t2r * c2 + t2i * w2r;
                const R t3r = amc_r - jbmd_r, t3i = amc_i - jbmd_i;
                o[3 * s].re = t3r * w3r - t3i * c3;
                o[3 * s].im = t3r * c3 + t3i * w3r;
            }
        }
        len = m;
        s *= 4;
        FN(cpx) *t = src;
        src = dst;
        dst = t;
    }
    if (len == 2) {
        /* the last pass: twiddles are all 1 */
        for (int q = 0; q < s; q++) {
            const FN(cpx) a = src[q], b = src[q + s];
            dst[q].re = a.re + b.re;
            dst[q].im = a.im + b.im;
            dst[q + s].re = a.re - b.re;
            dst[q + s].im = a.im - b.im;
        }
        FN(cpx) *t = src;
        src = dst;
        dst = t;
    }
    if (src != x)
        for (int i = 0; i < n; i++)
            x[i] = src[i];
}

/* Real FFT of n points by an n/2-point complex FFT: x (n reals) -> out
 * (n/2 + 1 complex). tw is the table for n points. */
static void FN(r2c)(const R *x, FN(cpx) *out, FN(cpx) *z, FN(cpx) *scratch, int n,
                    const double *tw)
{
    const int h = n / 2;
    for (int i = 0; i < h; i++) {
        z[i].re = x[2 * i];
        z[i].im = x[2 * i + 1];
    }
    FN(fft)(z, scratch, h, tw, 2, -1);
    for (int k = 0; k <= h; k++) {
        const FN(cpx) a = z[k % h], b = z[(h - k) % h];   /* Z_k, Z_{h-k} */
        const R er = (R)0.5 * (a.re + b.re), ei = (R)0.5 * (a.im - b.im);   /* E_k */
        const R or_ = (R)0.5 * (a.im + b.im), oi = (R)-0.5 * (a.re - b.re);  /* O_k */
        const R wr = (R)tw[2 * (size_t)(k % n)], wi = (R)tw[2 * (size_t)(k % n) + 1];
        /* Y_k = E_k + W^k O_k, W^k = e^{-2 pi j k / n} (k = h: -1) */
        const R wor = k == h ? -or_ : or_ * wr - oi * wi, woi = k == h ? -oi : or_ * wi + oi * wr;
        out[k].re = er + wor;
        out[k].im = ei + woi;
    }
}

/* The inverse (with 1/n): y (n/2 + 1 complex) -> x (n reals). */
static void FN(c2r)(const FN(cpx) *y, R *x, FN(cpx) *z, FN(cpx) *scratch, int n, const double *tw)
{
    const int h = n / 2;
    for (int k = 0; k < h; k++) {
        const FN(cpx) a = y[k], b = y[h - k];   /* Y_k, Y_{h-k} */
        /* E_k = (Y_k + conj Y_{h-k}) / 2, O_k = W^{-k} (Y_k - conj Y_{h-k}) / 2 */
        const R er = (R)0.5 * (a.re + b.re), ei = (R)0.5 * (a.im - b.im);
        const R dr = (R)0.5 * (a.re - b.re), di = (R)0.5 * (a.im + b.im);
        const R wr = (R)tw[2 * (size_t)k], wi = (R)-tw[2 * (size_t)k + 1];   /* W^{-k} */
        const R or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
        /* Z_k = E_k + j O_k */
        z[k].re = er - oi;
        z[k].im = ei + or_;
    }
    FN(fft)(z, scratch, h, tw, 2, +1);
    const R scale = (R)1 / (R)h;
    for (int i = 0; i < h; i++) {
        x[2 * i] = z[i].re * scale;
        x[2 * i + 1] = z[i].im * scale;
    }
}

/* DCT-II by one n-point real FFT of the even/odd reordering (spec section
 * 1); qt holds e^{-j pi k / (2n)}. */
static void FN(dct2)(const R *x, R *out, R *v, FN(cpx) *spec, FN(cpx) *z, FN(cpx) *scratch, int n,
                     const double *tw, const double *qt)
{
    for (int k = 0; k < n / 2; k++) {
        v[k] = x[2 * k];
        v[n - 1 - k] = x[2 * k + 1];
    }
    FN(r2c)(v, spec, z, scratch, n, tw);
    for (int k = 0; k < n; k++) {
        /* z_k for k > n/2 is conj(z_{n-k}) */
        const int src = k <= n / 2 ? k : n - k;
        const R zr = spec[src].re, zi = k <= n / 2 ? spec[src].im : -spec[src].im;
        out[k] = zr * (R)qt[2 * (size_t)k] - zi * (R)qt[2 * (size_t)k + 1];
    }
}

/* DCT-III = (n/2) DCT-II^{-1}: z_k = e^{+j pi k/(2n)} (y_k - j y_{n-k}),
 * v = IDFT(z) (real), then the even/odd order undone. */
static void FN(dct3)(const R *y, R *out, R *v, FN(cpx) *spec, FN(cpx) *z, FN(cpx) *scratch, int n,
                     const double *tw, const double *qt)
{
    for (int k = 0; k <= n / 2; k++) {
        const R a = y[k], b = k == 0 ? (R)0 : y[n - k];
        const R cr = (R)qt[2 * (size_t)k], ci = (R)-qt[2 * (size_t)k + 1];   /* e^{+j pi k/(2n)} */
        spec[k].re = a * cr + b * ci;
        spec[k].im = a * ci - b * cr;
    }
    FN(c2r)(spec, v, z, scratch, n, tw);
    const R half_n = (R)n / 2;
    for (int k = 0; k < n / 2; k++) {
        out[2 * k] = v[k] * half_n;
        out[2 * k + 1] = v[n - 1 - k] * half_n;
    }
}

/* DHT from the real FFT: h_k = Re Y_k - Im Y_k, Y_{n-k} = conj Y_k. */
static void FN(dht)(const R *x, R *out, FN(cpx) *spec, FN(cpx) *z, FN(cpx) *scratch, int n,
                    const double *tw)
{
    FN(r2c)(x, spec, z, scratch, n, tw);
    for (int k = 0; k <= n / 2; k++)
        out[k] = spec[k].re - spec[k].im;
    for (int k = n / 2 + 1; k < n; k++)
        out[k] = spec[n - k].re + spec[n - k].im;
}

/* Thomas algorithm, one system; c is scratch of n. */
static void FN(thomas)(const R *dl, const R *d, const R *du, R *x, R *c, int n)
{
    R den = d[0];
    c[0] = du[0] / den;
    x[0] = x[0] / den;
    for (int i = 1; i < n; i++) {
        den = d[i] - dl[i] * c[i - 1];
        c[i] = i + 1 < n ? du[i] / den : (R)0;
        x[i] = (x[i] - dl[i] * x[i - 1]) / den;
    }
    for (int i = n - 2; i >= 0; i--)
        x[i] -= c[i] * x[i + 1];
}

#undef FN
#undef CAT
#undef CAT2
