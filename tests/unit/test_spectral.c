/* Spectral kernels on the CPU against the long-double reference (spec
 * section 2): relative L2 error within 10 eps log2 N in both precisions,
 * on fresh random inputs, outputs poisoned before each run; batches with
 * strides and in place; round trips, Parseval, impulses, the Nyquist bin of
 * the real FFT, batch permutation; C2R ignoring the imaginary parts of
 * bins 0 and N/2 (numpy's irfft); the DCT norms (scipy's) against the
 * direct sums and known values; the convolution against the
 * block-Toeplitz sum, tridiagonal solves against Thomas with residuals,
 * and breakdowns (zero or non-finite pivots) reported; FFTW as an
 * independent reference where it was found at configure time. */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "io/io.h"
#include "spectral/simd/lanes.h"
#include "spectral/spectral.h"
#if HAVE_FFTW3
#include <fftw3.h>
#endif

static unsigned long long rng_state;

static double uniform(void)   /* [-1, 1) */
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double eps_of(spec_precision p) { return p == SPEC_F32 ? ldexp(1, -24) : ldexp(1, -53); }

/* ||got - want|| / ||want|| over count reals */
static double rel_l2(const double *got, const double *want, size_t count)
{
    long double num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        num += ((long double)got[i] - want[i]) * ((long double)got[i] - want[i]);
        den += (long double)want[i] * want[i];
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

/* Buffers in the plan's precision, filled from / read into doubles. */
static void *alloc_reals(spec_precision p, size_t n)
{
    return malloc(n * (p == SPEC_F32 ? sizeof(float) : sizeof(double)));
}
static void store(spec_precision p, void *buf, size_t i, double v)
{
    if (p == SPEC_F32)
        ((float *)buf)[i] = (float)v;
    else
        ((double *)buf)[i] = v;
}
static double load(spec_precision p, const void *buf, size_t i)
{
    return p == SPEC_F32 ? ((const float *)buf)[i] : ((const double *)buf)[i];
}
static void poison(spec_precision p, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store(p, buf, i, NAN);
}

static void reference(spec_kind k, int n, int inverse, const double *in, double *out)
{
    switch (k) {
    case SPEC_C2C: spec_ref_dft(n, inverse, in, out); break;
    case SPEC_R2C: spec_ref_r2c(n, in, out); break;
    case SPEC_C2R: spec_ref_c2r(n, in, out); break;
    case SPEC_DCT2: spec_ref_dct2(n, SPEC_NORM_BACKWARD, in, out); break;
    case SPEC_DCT3: spec_ref_dct3(n, SPEC_NORM_BACKWARD, in, out); break;
    case SPEC_DHT: spec_ref_dht(n, in, out); break;
    default: break;
    }
}

/* One kind, size, precision, stride: a batch against the reference;
 * returns the worst relative error over eps log2 N. */
static double check_1d_batch(spec_kind kind, int n, spec_precision prec, int stride, int inverse,
                             int in_place, int batch, int threads)
{
    spec_desc d = {kind, prec, n, 0, batch, inverse, stride, 0, 0, threads, 0};
    spec_plan *plan;
    orr_error err;
    if (spec_plan_create(&d, &plan, &err) != ORR_OK) {
        printf("\n  plan %s n=%d: %s", spec_kind_name(kind), n, err.message);
        return INFINITY;
    }
    const size_t in_r = spec_in_reals(&d), out_r = spec_out_reals(&d);
    const int cin = kind == SPEC_C2C || kind == SPEC_C2R ? 2 : 1;
    const int cout = kind == SPEC_C2C || kind == SPEC_R2C ? 2 : 1;
    const size_t in_len = in_r * stride * d.batch, out_len = out_r * stride * d.batch;
    const size_t buf_len = in_len > out_len ? in_len : out_len;
    void *in = alloc_reals(prec, buf_len), *out = in_place ? in : alloc_reals(prec, buf_len);
    double *x = malloc(in_r * sizeof *x), *want = malloc(out_r * sizeof *want),
           *got = malloc(out_r * sizeof *got);
    poison(prec, in, buf_len);
    if (!in_place)
        poison(prec, out, buf_len);
    double *all_x = malloc(in_r * d.batch * sizeof *all_x);
    for (int t = 0; t < d.batch; t++)
        for (size_t i = 0; i < in_r / cin; i++)
            for (int c = 0; c < cin; c++) {
                /* C2R: bins 0 and N/2 not real either; the reference
                 * ignores their imaginary parts (numpy's irfft), so must
                 * the kernels */
                const double v = uniform();
                store(prec, in, (size_t)t * in_r * stride + cin * stride * i + c, v);
                /* the reference sees what the kernel sees (float-rounded) */
                all_x[t * in_r + cin * i + c] = load(prec, in, (size_t)t * in_r * stride + cin * stride * i + c);
            }
    spec_execute(plan, in, out, &err);
    double worst = 0;
    for (int t = 0; t < d.batch; t++) {
        memcpy(x, &all_x[t * in_r], in_r * sizeof *x);
        reference(kind, n, inverse, x, want);
        int poisoned = 0;
        for (size_t i = 0; i < out_r / cout; i++)
            for (int c = 0; c < cout; c++) {
                got[cout * i + c] = load(prec, out, (size_t)t * out_r * stride + cout * stride * i + c);
                poisoned |= isnan(got[cout * i + c]);
            }
        CU_ASSERT(!poisoned);
        double e = rel_l2(got, want, out_r) / (eps_of(prec) * log2(n));
        if (poisoned)
            e = INFINITY;
        if (e > worst)
            worst = e;
        if (kind == SPEC_R2C) {   /* the Nyquist bin on its own */
            const double ny = got[2 * (n / 2)], ny_want = want[2 * (n / 2)];
            CU_ASSERT(fabs(ny - ny_want) <= 10 * eps_of(prec) * log2(n) * sqrt(n) * 2);
            CU_ASSERT(fabs(got[2 * (n / 2) + 1]) <= 10 * eps_of(prec) * log2(n) * sqrt(n));
        }
    }
    free(x);
    free(want);
    free(got);
    free(all_x);
    free(in);
    if (!in_place)
        free(out);
    spec_plan_destroy(plan);
    return worst;
}

static double check_1d(spec_kind kind, int n, spec_precision prec, int stride, int inverse,
                       int in_place)
{
    return check_1d_batch(kind, n, prec, stride, inverse, in_place, 3, 0);
}

static void run_kind(spec_kind kind, int inverse)
{
    static const int sizes[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
    for (int p = 0; p < 2; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            const int n = sizes[s];
            /* 8192: the real kinds' longest one-at-a-time size (h = 4096) */
            if (n == 8192 && kind != SPEC_R2C && kind != SPEC_C2R)
                continue;
            /* strided and in place up to 512 (the one-at-a-time kernels' first sizes) */
            for (int variant = 0; variant < (n <= 512 ? 3 : 1); variant++) {
                const int stride = variant == 1 ? 2 : 1, in_place = variant == 2 &&
                    (kind == SPEC_C2C || kind == SPEC_DHT || kind == SPEC_DCT2 || kind == SPEC_DCT3);
                const double e = check_1d(kind, n, (spec_precision)p, stride, inverse, in_place);
                CU_ASSERT(e <= 10.0);
                if (!(e <= 10.0))
                    printf("\n  %s%s n=%d %s stride %d%s: error %.2f eps log2 N (limit 10)",
                           spec_kind_name(kind), inverse ? " inverse" : "", n, p ? "f32" : "f64",
                           stride, in_place ? " in place" : "", e);
            }
        }
}

static void test_c2c(void) { run_kind(SPEC_C2C, 0); }
static void test_c2c_inverse(void) { run_kind(SPEC_C2C, 1); }
static void test_r2c(void) { run_kind(SPEC_R2C, 0); }
static void test_c2r(void) { run_kind(SPEC_C2R, 0); }
static void test_dct2(void) { run_kind(SPEC_DCT2, 0); }
static void test_dct3(void) { run_kind(SPEC_DCT3, 0); }
static void test_dht(void) { run_kind(SPEC_DHT, 0); }

/* Real round trips: r2c then c2r; dht twice is N x; dct3(dct2(x)) = 2N x
 * (scipy's backward norm, the default). */
static void identities_real(int n, const double *x, double *y, double *z, double tol)
{
    orr_error err;
    spec_plan *dht, *r2c, *c2r, *d2, *d3;
    spec_desc h = {SPEC_DHT, SPEC_F64, n, 0, 1, 0, 1, 0, 0, 0, 0};
    CU_ASSERT_FATAL(spec_plan_create(&h, &dht, &err) == ORR_OK);
    h.kind = SPEC_R2C;
    CU_ASSERT_FATAL(spec_plan_create(&h, &r2c, &err) == ORR_OK);
    h.kind = SPEC_C2R;
    CU_ASSERT_FATAL(spec_plan_create(&h, &c2r, &err) == ORR_OK);
    h.kind = SPEC_DCT2;
    CU_ASSERT_FATAL(spec_plan_create(&h, &d2, &err) == ORR_OK);
    h.kind = SPEC_DCT3;
    CU_ASSERT_FATAL(spec_plan_create(&h, &d3, &err) == ORR_OK);
    spec_execute(r2c, x, y, &err);
    spec_execute(c2r, y, z, &err);
    CU_ASSERT(rel_l2(z, x, n) <= tol);
    spec_execute(dht, x, y, &err);
    spec_execute(dht, y, z, &err);
    for (int i = 0; i < n; i++)
        z[i] /= n;
    CU_ASSERT(rel_l2(z, x, n) <= tol);
    spec_execute(d2, x, y, &err);
    spec_execute(d3, y, z, &err);
    for (int i = 0; i < n; i++)
        z[i] /= 2.0 * n;
    CU_ASSERT(rel_l2(z, x, n) <= tol);
    spec_plan_destroy(dht);
    spec_plan_destroy(r2c);
    spec_plan_destroy(c2r);
    spec_plan_destroy(d2);
    spec_plan_destroy(d3);
}

/* An impulse at 0 gives all ones; a tone at bin 5 gives N at bin 5. */
static void identities_impulse_tone(int n, const spec_plan *fwd, double *x, double *y, double tol)
{
    orr_error err;
    memset(x, 0, 2 * n * sizeof *x);
    x[0] = 1;
    spec_execute(fwd, x, y, &err);
    int ones = 1;
    for (int i = 0; i < n; i++)
        ones &= y[2 * i] == 1 && y[2 * i + 1] == 0;
    CU_ASSERT(ones);
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (int i = 0; i < n; i++) {
        x[2 * i] = (double)cosl(two_pi * 5 * i / n);
        x[2 * i + 1] = (double)sinl(two_pi * 5 * i / n);
    }
    spec_execute(fwd, x, y, &err);
    double off = 0;
    for (int i = 0; i < n; i++)
        if (i != 5)
            off = fmax(off, hypot(y[2 * i], y[2 * i + 1]));
    CU_ASSERT(fabs(y[10] - n) <= tol * n && off <= tol * n);
}

/* Round trips, Parseval, an impulse and a single tone, batch permutation. */
static void test_identities(void)
{
    const int n = 1024;
    orr_error err;
    spec_plan *fwd, *inv;
    spec_desc d = {SPEC_C2C, SPEC_F64, n, 0, 4, 0, 1, 0, 0, 0, 0};
    CU_ASSERT_FATAL(spec_plan_create(&d, &fwd, &err) == ORR_OK);
    d.inverse = 1;
    CU_ASSERT_FATAL(spec_plan_create(&d, &inv, &err) == ORR_OK);
    double *x = malloc(8 * n * sizeof *x), *y = malloc(8 * n * sizeof *y), *z = malloc(8 * n * sizeof *z);
    for (int i = 0; i < 8 * n; i++)
        x[i] = uniform();
    const double tol = 10 * eps_of(SPEC_F64) * log2(n);
    /* c2c forward then inverse */
    spec_execute(fwd, x, y, &err);
    spec_execute(inv, y, z, &err);
    CU_ASSERT(rel_l2(z, x, 8 * n) <= tol);
    /* Parseval: sum |y|^2 = N sum |x|^2 */
    long double ex = 0, ey = 0;
    for (int i = 0; i < 2 * n; i++) {
        ex += (long double)x[i] * x[i];
        ey += (long double)y[i] * y[i];
    }
    CU_ASSERT(fabsl(ey / (n * ex) - 1) <= tol);
    /* batch independence: transform 2 and 0 swapped in the input swap in the output */
    memcpy(z, x + 4 * n, 2 * n * sizeof *z);
    memcpy(z + 2 * n, x + 2 * n, 2 * n * sizeof *z);
    memcpy(z + 4 * n, x, 2 * n * sizeof *z);
    memcpy(z + 6 * n, x + 6 * n, 2 * n * sizeof *z);
    double *w = malloc(8 * n * sizeof *w);
    spec_execute(fwd, z, w, &err);
    CU_ASSERT(memcmp(w, y + 4 * n, 2 * n * sizeof *w) == 0);
    CU_ASSERT(memcmp(w + 4 * n, y, 2 * n * sizeof *w) == 0);
    identities_real(n, x, y, z, tol);
    identities_impulse_tone(n, fwd, x, y, tol);
    free(x);
    free(y);
    free(z);
    free(w);
    spec_plan_destroy(fwd);
    spec_plan_destroy(inv);
}

static void test_fft2(void)
{
    /* 512: the cache-blocked FFT, on rows and on adjacent columns */
    static const int dims[][2] = {{16, 16}, {8, 32}, {64, 16}, {32, 32}, {512, 32}, {32, 512}};
    for (int p = 0; p < 2; p++)
        for (size_t s = 0; s < sizeof dims / sizeof *dims; s++)
            for (int inverse = 0; inverse < 2; inverse++) {
                const int n1 = dims[s][0], n2 = dims[s][1];
                spec_desc d = {SPEC_FFT2, (spec_precision)p, n1, n2, 2, inverse, 1, 0, 0, 0, 0};
                spec_plan *plan;
                orr_error err;
                CU_ASSERT_FATAL(spec_plan_create(&d, &plan, &err) == ORR_OK);
                const size_t len = 2 * (size_t)n1 * n2;
                void *in = alloc_reals(d.precision, 2 * len), *out = alloc_reals(d.precision, 2 * len);
                double *x = malloc(len * sizeof *x), *want = malloc(len * sizeof *want),
                       *got = malloc(len * sizeof *got);
                poison(d.precision, out, 2 * len);
                for (size_t i = 0; i < 2 * len; i++)
                    store(d.precision, in, i, uniform());
                spec_execute(plan, in, out, &err);
                for (int t = 0; t < 2; t++) {
                    for (size_t i = 0; i < len; i++) {
                        x[i] = load(d.precision, in, t * len + i);
                        got[i] = load(d.precision, out, t * len + i);
                    }
                    spec_ref_fft2(n1, n2, inverse, x, want);
                    const double e = rel_l2(got, want, len) / (eps_of(d.precision) * log2((double)n1 * n2));
                    CU_ASSERT(e <= 10);
                    if (!(e <= 10))
                        printf("\n  fft2 %dx%d %s: %.2f eps log2 N", n1, n2, p ? "f32" : "f64", e);
                }
                free(in);
                free(out);
                free(x);
                free(want);
                free(got);
                spec_plan_destroy(plan);
            }
}

/* The convolution against the block-Toeplitz sum; one S for all slices and
 * one S per group of slices. */
static void test_conv2d(void)
{
    static const int sizes[][2] = {{16, 7}, {32, 15}, {64, 31}};
    for (int p = 0; p < 2; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            const int nf = sizes[s][0], m = sizes[s][1], batch = 4;
            spec_desc d = {SPEC_CONV2D, (spec_precision)p, nf, m, batch, 0, 1, 0, 0, 0, 0};
            spec_plan *plan;
            orr_error err;
            CU_ASSERT_FATAL(spec_plan_create(&d, &plan, &err) == ORR_OK);
            for (int n_shapes = 1; n_shapes <= 2; n_shapes++) {
                const size_t sl = 2 * (size_t)m * m, sh = (size_t)nf * nf;
                void *x = alloc_reals(d.precision, sl * batch), *y = alloc_reals(d.precision, sl * batch),
                     *S = alloc_reals(d.precision, sh * n_shapes);
                double *xd = malloc(sl * sizeof *xd), *sd = malloc(sh * sizeof *sd),
                       *want = malloc(sl * sizeof *want), *got = malloc(sl * sizeof *got);
                for (size_t i = 0; i < sl * batch; i++)
                    store(d.precision, x, i, uniform());
                for (size_t i = 0; i < sh * n_shapes; i++)
                    store(d.precision, S, i, 1.5 + uniform());   /* a permittivity-like S */
                poison(d.precision, y, sl * batch);
                CU_ASSERT(spec_conv2d(plan, x, S, n_shapes, y, &err) == ORR_OK);
                for (int t = 0; t < batch; t++) {
                    for (size_t i = 0; i < sl; i++) {
                        xd[i] = load(d.precision, x, t * sl + i);
                        got[i] = load(d.precision, y, t * sl + i);
                    }
                    const int shape = t / (batch / n_shapes);
                    for (size_t i = 0; i < sh; i++)
                        sd[i] = load(d.precision, S, shape * sh + i);
                    spec_ref_conv2d(nf, m, sd, xd, want);
                    const double e = rel_l2(got, want, sl) / (eps_of(d.precision) * 2 * log2(nf * nf));
                    CU_ASSERT(e <= 10);
                    if (!(e <= 10))
                        printf("\n  conv2d mfft %d M %d %s: %.2f", nf, m, p ? "f32" : "f64", e);
                }
                free(x);
                free(y);
                free(S);
                free(xd);
                free(sd);
                free(want);
                free(got);
            }
            spec_plan_destroy(plan);
        }
}

/* Diagonally dominant systems against Thomas in long double, and the
 * residual of the computed solution. */
static void test_tridiag(void)
{
    static const int sizes[] = {4, 33, 512, 2048};
    for (int p = 0; p < 2; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            const int n = sizes[s], batch = 5;
            spec_desc desc = {SPEC_TRIDIAG, (spec_precision)p, n, 0, batch, 0, 1, 0, 0, 0, 0};
            spec_plan *plan;
            orr_error err;
            CU_ASSERT_FATAL(spec_plan_create(&desc, &plan, &err) == ORR_OK);
            const size_t len = (size_t)n * batch;
            void *dl = alloc_reals(desc.precision, len), *d = alloc_reals(desc.precision, len),
                 *du = alloc_reals(desc.precision, len), *rhs = alloc_reals(desc.precision, len);
            double *a = malloc(len * sizeof *a), *b = malloc(len * sizeof *b), *c = malloc(len * sizeof *c),
                   *r = malloc(len * sizeof *r), *want = malloc(n * sizeof *want);
            for (size_t i = 0; i < len; i++) {
                store(desc.precision, dl, i, uniform());
                store(desc.precision, du, i, uniform());
                store(desc.precision, d, i, 3 + uniform());
                store(desc.precision, rhs, i, uniform());
                a[i] = load(desc.precision, dl, i);
                b[i] = load(desc.precision, d, i);
                c[i] = load(desc.precision, du, i);
                r[i] = load(desc.precision, rhs, i);
            }
            CU_ASSERT(spec_tridiag(plan, dl, d, du, rhs, &err) == ORR_OK);
            for (int t = 0; t < batch; t++) {
                const size_t o = (size_t)t * n;
                spec_ref_tridiag(n, a + o, b + o, c + o, r + o, want);
                double got[2048], resid[2048];
                for (int i = 0; i < n; i++)
                    got[i] = load(desc.precision, rhs, o + i);
                for (int i = 0; i < n; i++)
                    resid[i] = (i > 0 ? a[o + i] * got[i - 1] : 0) + b[o + i] * got[i] +
                               (i + 1 < n ? c[o + i] * got[i + 1] : 0) - r[o + i];
                const double e = rel_l2(got, want, n) / eps_of(desc.precision);
                long double rn = 0, bn = 0;
                for (int i = 0; i < n; i++) {
                    rn += (long double)resid[i] * resid[i];
                    bn += (long double)r[o + i] * r[o + i];
                }
                const double res = (double)sqrtl(rn / bn) / eps_of(desc.precision);
                CU_ASSERT(e <= 50 && res <= 50);
                if (!(e <= 50 && res <= 50))
                    printf("\n  tridiag n=%d %s: error %.1f eps, residual %.1f eps", n, p ? "f32" : "f64",
                           e, res);
            }
            free(dl);
            free(d);
            free(du);
            free(rhs);
            free(a);
            free(b);
            free(c);
            free(r);
            free(want);
            spec_plan_destroy(plan);
        }
}

/* The layout helpers device backends use: a strided batch packed, run
 * packed and unpacked gives the strided plan's output to the bit, and
 * elements outside the layout are left alone. */
static void test_pack_layouts(void)
{
    static const spec_kind kinds[] = {SPEC_C2C, SPEC_R2C, SPEC_C2R, SPEC_DCT2, SPEC_DHT};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        const int n = 64, batch = 5, stride = 3;
        spec_desc strided = {kinds[k], SPEC_F64, n, 0, batch, 0, stride, 0, 0, 0, 0};
        strided.in_dist = (ptrdiff_t)stride * n + 7;
        strided.out_dist = (ptrdiff_t)stride * n + 11;
        spec_desc packed = strided;
        packed.stride = 1;
        packed.in_dist = packed.out_dist = 0;
        CU_ASSERT(!spec_is_packed(&strided));
        CU_ASSERT(spec_is_packed(&packed));
        const size_t in_total = 2 * (size_t)strided.in_dist * batch, out_total = 2 * (size_t)strided.out_dist * batch;
        double *in = malloc(in_total * sizeof *in), *want = malloc(out_total * sizeof *want),
               *got = malloc(out_total * sizeof *got),
               *pin = malloc(spec_in_reals(&packed) * batch * sizeof *pin),
               *pout = malloc(spec_out_reals(&packed) * batch * sizeof *pout);
        for (size_t i = 0; i < in_total; i++)
            in[i] = uniform();
        for (size_t i = 0; i < out_total; i++)
            want[i] = got[i] = 12345.0;
        spec_plan *ps = NULL, *pp = NULL;
        orr_error err;
        CU_ASSERT_FATAL(spec_plan_create(&strided, &ps, &err) == ORR_OK);
        CU_ASSERT_FATAL(spec_plan_create(&packed, &pp, &err) == ORR_OK);
        CU_ASSERT(spec_execute(ps, in, want, &err) == ORR_OK);
        spec_pack_input(&strided, in, pin);
        CU_ASSERT(spec_execute(pp, pin, pout, &err) == ORR_OK);
        spec_unpack_output(&strided, pout, got);
        CU_ASSERT(memcmp(got, want, out_total * sizeof *got) == 0);
        spec_plan_destroy(ps);
        spec_plan_destroy(pp);
        free(in);
        free(want);
        free(got);
        free(pin);
        free(pout);
    }
}

/* C2R ignores the imaginary parts of bins 0 and N/2 (numpy's irfft,
 * FFTW, scipy): a batch with them gives the same bits as with them 0, in
 * every ISA, contiguous and strided, on both kernels (lanes and one at a
 * time); NaN there too. The values against the reference: run_kind. */
static void test_c2r_real_ends(void)
{
    static const char *const isas[] = {"generic", "sse2", "avx2", "avx512"};
    static const int sizes[] = {4, 16, 64, 512, 2048};
    for (size_t i = 0; i < sizeof isas / sizeof *isas; i++) {
        if (!spec_lanes_force(isas[i]))
            continue;
        for (int p = 0; p < 2; p++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
                for (int stride = 1; stride <= 2; stride++) {
                    const int n = sizes[k], batch = 19;
                    spec_desc d = {SPEC_C2R, (spec_precision)p, n, 0, batch, 0, stride, 0, 0, 3, 0};
                    spec_plan *plan;
                    orr_error err;
                    CU_ASSERT_FATAL(spec_plan_create(&d, &plan, &err) == ORR_OK);
                    const size_t in_len = spec_in_reals(&d) * stride * batch;
                    const size_t out_len = spec_out_reals(&d) * stride * batch;
                    const size_t es = p ? sizeof(float) : sizeof(double);
                    void *with = alloc_reals(d.precision, in_len), *without = alloc_reals(d.precision, in_len);
                    void *a = alloc_reals(d.precision, out_len), *b = alloc_reals(d.precision, out_len);
                    for (size_t j = 0; j < in_len; j++)
                        store(d.precision, with, j, uniform());
                    store(d.precision, with, 1, NAN);   /* transform 0's bin 0 */
                    memcpy(without, with, in_len * es);
                    for (int t = 0; t < batch; t++) {
                        const size_t at = (size_t)t * spec_in_reals(&d) * stride;
                        store(d.precision, without, at + 1, 0);
                        store(d.precision, without, at + (size_t)n * stride + 1, 0);
                    }
                    poison(d.precision, a, out_len);
                    poison(d.precision, b, out_len);
                    CU_ASSERT(spec_execute(plan, with, a, &err) == ORR_OK);
                    CU_ASSERT(spec_execute(plan, without, b, &err) == ORR_OK);
                    const int same = memcmp(a, b, out_len * es) == 0;
                    CU_ASSERT(same);
                    if (!same)
                        printf("\n  %s: c2r n=%d %s stride %d: the ends' imaginary parts matter",
                               isas[i], n, p ? "f32" : "f64", stride);
                    free(with);
                    free(without);
                    free(a);
                    free(b);
                    spec_plan_destroy(plan);
                }
    }
    spec_lanes_force(NULL);
}

/* The DCT norms against the long-double direct sums (scipy.fft.dct's
 * definitions), both precisions, contiguous, strided and in place; known
 * values (ones and an impulse, as scipy gives them); and the norms' round
 * trips: ortho is orthonormal, forward undoes backward. */
static double dct_norm_error(spec_kind kind, spec_norm norm, int n, spec_precision prec,
                             int stride, int in_place)
{
    const int batch = 5;
    spec_desc d = {kind, prec, n, 0, batch, 0, stride, 0, 0, 2, norm};
    spec_plan *plan;
    orr_error err;
    if (spec_plan_create(&d, &plan, &err) != ORR_OK)
        return INFINITY;
    const size_t len = (size_t)n * stride * batch;
    void *in = alloc_reals(prec, len), *out = in_place ? in : alloc_reals(prec, len);
    double *x = malloc((size_t)n * batch * sizeof *x), *want = malloc((size_t)n * sizeof *want),
           *got = malloc((size_t)n * sizeof *got);
    for (int t = 0; t < batch; t++)
        for (int i = 0; i < n; i++) {
            store(prec, in, ((size_t)t * n + i) * stride, uniform());
            x[(size_t)t * n + i] = load(prec, in, ((size_t)t * n + i) * stride);
        }
    if (!in_place)
        poison(prec, out, len);
    double worst = spec_execute(plan, in, out, &err) == ORR_OK ? 0 : INFINITY;
    for (int t = 0; t < batch && worst < INFINITY; t++) {
        (kind == SPEC_DCT2 ? spec_ref_dct2 : spec_ref_dct3)(n, norm, x + (size_t)t * n, want);
        for (int i = 0; i < n; i++)
            got[i] = load(prec, out, ((size_t)t * n + i) * stride);
        const double e = rel_l2(got, want, n) / (eps_of(prec) * log2(n));
        worst = e > worst || isnan(e) ? e : worst;
    }
    free(x);
    free(want);
    free(got);
    free(in);
    if (!in_place)
        free(out);
    spec_plan_destroy(plan);
    return worst;
}

/* One DCT of a double vector with the given norm. */
static void dct_once(spec_kind kind, spec_norm norm, int n, const double *x, double *y)
{
    spec_desc d = {kind, SPEC_F64, n, 0, 1, 0, 1, 0, 0, 1, norm};
    spec_plan *plan;
    orr_error err;
    CU_ASSERT_FATAL(spec_plan_create(&d, &plan, &err) == ORR_OK);
    CU_ASSERT(spec_execute(plan, x, y, &err) == ORR_OK);
    spec_plan_destroy(plan);
}

static void test_dct_norms(void)
{
    static const spec_norm norms[] = {SPEC_NORM_BACKWARD, SPEC_NORM_ORTHO, SPEC_NORM_FORWARD};
    static const int sizes[] = {4, 8, 32, 256, 1024};
    for (int k = 0; k < 2; k++)
        for (size_t m = 0; m < 3; m++)
            for (int p = 0; p < 2; p++)
                for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                    for (int variant = 0; variant < 3; variant++) {
                        const spec_kind kind = k ? SPEC_DCT3 : SPEC_DCT2;
                        const double e = dct_norm_error(kind, norms[m], sizes[s], (spec_precision)p,
                                                        variant == 1 ? 3 : 1, variant == 2);
                        CU_ASSERT(e <= 10);
                        if (!(e <= 10))
                            printf("\n  %s norm %s n=%d %s variant %d: error %.2f eps log2 N",
                                   spec_kind_name(kind), spec_norm_name(norms[m]), sizes[s],
                                   p ? "f32" : "f64", variant, e);
                    }
    /* known values: DCT2 of ones is (2N, 0, ...) backward, (sqrt N, 0, ...)
     * ortho, (1, 0, ...) forward; DCT3 of (1, 0, ...) is 1, 1/sqrt N, 1/(2N)
     * everywhere */
    const int n = 16;
    double ones[16], e0[16] = {1}, y[16], z[16];
    for (int i = 0; i < n; i++)
        ones[i] = 1;
    const double dc2[3] = {2.0 * n, sqrt(n), 1}, flat3[3] = {1, 1 / sqrt(n), 1.0 / (2 * n)};
    for (size_t m = 0; m < 3; m++) {
        dct_once(SPEC_DCT2, norms[m], n, ones, y);
        CU_ASSERT(fabs(y[0] - dc2[m]) <= 1e-14 * dc2[m]);
        for (int i = 1; i < n; i++)
            CU_ASSERT(fabs(y[i]) <= 1e-14 * dc2[m]);
        dct_once(SPEC_DCT3, norms[m], n, e0, y);
        for (int i = 0; i < n; i++)
            CU_ASSERT(fabs(y[i] - flat3[m]) <= 1e-14 * flat3[m]);
    }
    /* round trips: ortho's DCT3 inverts its DCT2 and the reverse; the
     * forward DCT2 then the backward DCT3 is x (scipy's idct pair) */
    double x[16];
    for (int i = 0; i < n; i++)
        x[i] = uniform();
    dct_once(SPEC_DCT2, SPEC_NORM_ORTHO, n, x, y);
    dct_once(SPEC_DCT3, SPEC_NORM_ORTHO, n, y, z);
    CU_ASSERT(rel_l2(z, x, n) <= 1e-14);
    dct_once(SPEC_DCT3, SPEC_NORM_ORTHO, n, x, y);
    dct_once(SPEC_DCT2, SPEC_NORM_ORTHO, n, y, z);
    CU_ASSERT(rel_l2(z, x, n) <= 1e-14);
    dct_once(SPEC_DCT2, SPEC_NORM_FORWARD, n, x, y);
    dct_once(SPEC_DCT3, SPEC_NORM_BACKWARD, n, y, z);
    CU_ASSERT(rel_l2(z, x, n) <= 1e-14);
}

/* A zero or non-finite pivot: ORR_ERR_INPUT naming the first system (its
 * batch index) and row, and how many others broke down; the same whatever
 * the thread count. */
static void test_tridiag_breakdown(void)
{
    const int n = 6, batch = 7;
    for (int p = 0; p < 2; p++)
        for (int threads = 1; threads <= 3; threads += 2) {
            spec_desc desc = {SPEC_TRIDIAG, (spec_precision)p, n, 0, batch, 0, 1, 0, 0, threads, 0};
            spec_plan *plan;
            orr_error err;
            CU_ASSERT_FATAL(spec_plan_create(&desc, &plan, &err) == ORR_OK);
            const size_t len = (size_t)n * batch;
            void *dl = alloc_reals(desc.precision, len), *d = alloc_reals(desc.precision, len),
                 *du = alloc_reals(desc.precision, len), *rhs = alloc_reals(desc.precision, len);
            for (size_t i = 0; i < len; i++) {
                store(desc.precision, dl, i, uniform());
                store(desc.precision, du, i, uniform());
                store(desc.precision, d, i, 3 + uniform());
                store(desc.precision, rhs, i, uniform());
            }
            CU_ASSERT(spec_tridiag(plan, dl, d, du, rhs, &err) == ORR_OK);
            /* system 2: rows 0 and 1 are [1 1; 1 1]: the second pivot is 0 */
            store(desc.precision, d, 2 * n, 1);
            store(desc.precision, du, 2 * n, 1);
            store(desc.precision, dl, 2 * n + 1, 1);
            store(desc.precision, d, 2 * n + 1, 1);
            /* system 4: its first pivot 0; system 5: a NaN on the diagonal */
            store(desc.precision, d, 4 * n, 0);
            store(desc.precision, d, 5 * n + 3, NAN);
            CU_ASSERT(spec_tridiag(plan, dl, d, du, rhs, &err) == ORR_ERR_INPUT);
            CU_ASSERT(strstr(err.message, "batch index 2 (of 7)") != NULL);
            CU_ASSERT(strstr(err.message, "pivot at row 1") != NULL);
            CU_ASSERT(strstr(err.message, "2 other systems") != NULL);
            /* only system 5 left: its NaN pivot at row 3 */
            for (int r = 0; r < 2; r++)
                store(desc.precision, d, 2 * n + r, 3);
            store(desc.precision, d, 4 * n, 3);
            CU_ASSERT(spec_tridiag(plan, dl, d, du, rhs, &err) == ORR_ERR_INPUT);
            CU_ASSERT(strstr(err.message, "batch index 5") && strstr(err.message, "row 3") &&
                      !strstr(err.message, "other"));
            free(dl);
            free(d);
            free(du);
            free(rhs);
            spec_plan_destroy(plan);
        }
    /* the device kernels' status (-1: a breakdown at a row they do not
     * say) reads the same way */
    const int status[4] = {0, 0, -1, 0};
    orr_error err;
    CU_ASSERT(spec_tridiag_check(status, 4, &err) == ORR_ERR_INPUT);
    CU_ASSERT(strstr(err.message, "batch index 2") && !strstr(err.message, "row"));
}

static void test_bad_plans(void)
{
    orr_error err;
    spec_plan *p;
    spec_desc d = {SPEC_C2C, SPEC_F64, 12, 0, 1, 0, 1, 0, 0, 0, 0};
    CU_ASSERT(spec_plan_create(&d, &p, &err) == ORR_ERR_UNSUPPORTED);
    CU_ASSERT(strstr(err.message, "power of two") != NULL);
    d.n = 16;
    d.batch = 0;
    CU_ASSERT(spec_plan_create(&d, &p, &err) == ORR_ERR_USAGE);
    spec_desc c = {SPEC_CONV2D, SPEC_F64, 16, 9, 1, 0, 1, 0, 0, 0, 0};
    CU_ASSERT(spec_plan_create(&c, &p, &err) == ORR_ERR_USAGE);   /* 2M - 1 > mfft */
    c.n2 = 8;
    CU_ASSERT(spec_plan_create(&c, &p, &err) == ORR_ERR_USAGE);   /* M even */
    spec_desc t = {SPEC_DCT2, SPEC_F64, 16, 0, 1, 0, 1, 0, 0, 0, (spec_norm)7};
    CU_ASSERT(spec_plan_create(&t, &p, &err) == ORR_ERR_USAGE);   /* no such norm */
}

/* The `spectral` subcommand: .npy in and out (written and read back by our
 * own npy code, checked against the header bytes numpy writes), results
 * against the reference, and clear errors for wrong dtype or shape. */
static void test_npy_command(void)
{
    char dir[] = "/tmp/orrery-npy-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    char in[300], out[300], bad[300];
    snprintf(in, sizeof in, "%s/in.npy", dir);
    snprintf(out, sizeof out, "%s/out.npy", dir);
    snprintf(bad, sizeof bad, "%s/bad.npy", dir);
    const int batch = 3, n = 64;
    double *x = malloc(2 * batch * n * sizeof *x), *want = malloc(2 * n * sizeof *want);
    for (int i = 0; i < 2 * batch * n; i++)
        x[i] = uniform();
    orr_error err;
    long shape[2] = {batch, n};
    CU_ASSERT_FATAL(orr_npy_write(in, ORR_NPY_C16, 2, shape, x, &err) == ORR_OK);
    /* the header numpy writes for this array, padded to 64 bytes */
    FILE *f = fopen(in, "rb");
    char head[128] = "";
    CU_ASSERT_FATAL(f && fread(head, 1, 128, f) == 128);
    fclose(f);
    CU_ASSERT(memcmp(head, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
    CU_ASSERT(strncmp(head + 10, "{'descr': '<c16', 'fortran_order': False, 'shape': (3, 64), }", 61) == 0);
    CU_ASSERT(head[127] == '\n');
    const spec_command_options c2c = {.op = "c2c", .n_files = 2, .files = {in, out}};
    CU_ASSERT(spec_command(&c2c, NULL, &err) == ORR_OK);
    orr_npy y;
    CU_ASSERT_FATAL(orr_npy_read(out, &y, &err) == ORR_OK);
    CU_ASSERT(y.dtype == ORR_NPY_C16 && y.ndim == 2 && y.shape[0] == batch && y.shape[1] == n);
    for (int t = 0; t < batch; t++) {
        spec_ref_dft(n, 0, x + 2 * t * n, want);
        CU_ASSERT(rel_l2((double *)y.data + 2 * t * n, want, 2 * n) <= 10 * eps_of(SPEC_F64) * log2(n));
    }
    orr_npy_free(&y);
    /* r2c of a float32 (batch, n) array: complex64 (batch, n/2 + 1) */
    float *xf = malloc(batch * n * sizeof *xf);
    for (int i = 0; i < batch * n; i++)
        xf[i] = (float)uniform();
    CU_ASSERT_FATAL(orr_npy_write(in, ORR_NPY_F4, 2, shape, xf, &err) == ORR_OK);
    const spec_command_options r2c = {.op = "r2c", .n_files = 2, .files = {in, out}};
    CU_ASSERT(spec_command(&r2c, NULL, &err) == ORR_OK);
    CU_ASSERT_FATAL(orr_npy_read(out, &y, &err) == ORR_OK);
    CU_ASSERT(y.dtype == ORR_NPY_C8 && y.shape[1] == n / 2 + 1);
    orr_npy_free(&y);
    /* wrong dtype, wrong size, broken file: clear errors naming the file */
    CU_ASSERT(spec_command(&c2c, NULL, &err) == ORR_ERR_INPUT);   /* in is real now */
    CU_ASSERT(strstr(err.message, "in.npy") && strstr(err.message, "float32"));
    long odd[2] = {2, 12};
    CU_ASSERT_FATAL(orr_npy_write(in, ORR_NPY_C16, 2, odd, x, &err) == ORR_OK);
    CU_ASSERT(spec_command(&c2c, NULL, &err) == ORR_ERR_UNSUPPORTED);
    CU_ASSERT(strstr(err.message, "power of two") != NULL);
    static const char big_endian[] =
        "\x93NUMPY\x01\x00\x36\x00{'descr': '>f8', 'fortran_order': False, 'shape': (4,), }";
    f = fopen(bad, "wb");
    fwrite(big_endian, 1, sizeof big_endian - 1, f);
    fclose(f);
    CU_ASSERT(orr_npy_read(bad, &y, &err) == ORR_ERR_INPUT);
    CU_ASSERT(strstr(err.message, "'descr'") != NULL);
    const spec_command_options fft3 = {.op = "fft3", .n_files = 2, .files = {in, out}};
    CU_ASSERT(spec_command(&fft3, NULL, &err) == ORR_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "'fft3'") && strstr(err.message, "tridiag"));
    /* command-line errors before any file is read: --inverse, --norm */
    const spec_command_options inv = {.op = "tridiag", .inverse = 1, .n_files = 5,
                                      .files = {bad, bad, bad, bad, out}};
    CU_ASSERT(spec_command(&inv, NULL, &err) == ORR_ERR_USAGE);
    const spec_command_options norm = {.op = "dct2", .norm = "orto", .n_files = 2,
                                       .files = {in, out}};
    CU_ASSERT(spec_command(&norm, NULL, &err) == ORR_ERR_USAGE && strstr(err.message, "'orto'"));
    /* data errors of conv2d name the file and are exit 65: M even */
    long sl_shape[3] = {2, 4, 4}, s_shape[2] = {16, 16};
    CU_ASSERT_FATAL(orr_npy_write(in, ORR_NPY_C16, 3, sl_shape, x, &err) == ORR_OK);
    CU_ASSERT_FATAL(orr_npy_write(bad, ORR_NPY_F8, 2, s_shape, x, &err) == ORR_OK);
    const spec_command_options conv = {.op = "conv2d", .n_files = 3, .files = {in, bad, out}};
    CU_ASSERT(spec_command(&conv, NULL, &err) == ORR_ERR_INPUT);
    CU_ASSERT(strstr(err.message, "in.npy") && strstr(err.message, "odd"));
    remove(in);
    remove(out);
    remove(bad);
    rmdir(dir);
    free(x);
    free(xf);
    free(want);
}

/* Every lane-kernel ISA this CPU runs, forced in turn: each 1D kind in
 * both precisions against the reference, with batches that fill whole
 * groups of lanes (the register-transpose gathers) and leave the last group
 * partly empty, contiguous, strided and in place; and the 2D FFT and the
 * convolution. */
static void test_isa_paths(void)
{
    static const char *const isas[] = {"generic", "sse2", "avx2", "avx512"};
    static const struct {
        spec_kind kind;
        int inverse;
    } kinds[] = {{SPEC_C2C, 0}, {SPEC_C2C, 1}, {SPEC_R2C, 0}, {SPEC_C2R, 0},
                 {SPEC_DCT2, 0}, {SPEC_DCT3, 0}, {SPEC_DHT, 0}};
    static const struct {
        int n, batch;
    } sizes[] = {{4, 37}, {8, 37}, {16, 37}, {32, 37}, {64, 23}, {128, 22}, {256, 21}, {512, 19},
                 {1024, 17}};
    int ran = 0;
    for (size_t i = 0; i < sizeof isas / sizeof *isas; i++) {
        if (!spec_lanes_force(isas[i]))
            continue;
        ran++;
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            for (int p = 0; p < 2; p++)
                for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                    for (int variant = 0; variant < 3; variant++) {
                        const spec_kind kind = kinds[k].kind;
                        const int n = sizes[s].n, stride = variant == 1 ? 3 : 1;
                        const int in_place = variant == 2 && kind != SPEC_R2C && kind != SPEC_C2R;
                        if (variant > 0 && n > 256)
                            continue;
                        const double e = check_1d_batch(kind, n, (spec_precision)p, stride,
                                                        kinds[k].inverse, in_place,
                                                        sizes[s].batch, 1 + variant);
                        CU_ASSERT(e <= 10.0);
                        if (!(e <= 10.0))
                            printf("\n  %s: %s%s n=%d %s stride %d%s: error %.2f eps log2 N", isas[i],
                                   spec_kind_name(kind), kinds[k].inverse ? " inverse" : "", n,
                                   p ? "f32" : "f64", stride, in_place ? " in place" : "", e);
                    }
        /* the 2D FFT and the convolution gather rows and adjacent columns */
        test_fft2();
        test_conv2d();
    }
    spec_lanes_force(NULL);
    CU_ASSERT(ran >= 1);
    printf(" [%d ISA paths, best %s] ", ran, spec_lanes_current()->name);
}

/* One transform repeated over a batch that fills whole lane groups and
 * leaves the last partly empty: every copy's output has the same bits
 * (full groups may take other code paths than a partial one, e.g. the
 * register-only 16-point c2c), on every ISA. */
static void test_lane_independence(void)
{
    static const char *const isas[] = {"generic", "sse2", "avx2", "avx512"};
    static const int sizes[] = {16, 64, 256, 1024};   /* 1024: the cache-blocked FFT */
    for (size_t i = 0; i < sizeof isas / sizeof *isas; i++) {
        if (!spec_lanes_force(isas[i]))
            continue;
        for (int p = 0; p < 2; p++)
            for (int inverse = 0; inverse < 2; inverse++)
                for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                    const int n = sizes[k], batch = 37;
                    spec_desc d = {SPEC_C2C, (spec_precision)p, n, 0, batch, inverse, 1, 0, 0, 1, 0};
                    spec_plan *plan;
                    orr_error err;
                    CU_ASSERT_FATAL(spec_plan_create(&d, &plan, &err) == ORR_OK);
                    const size_t len = 2 * (size_t)n, es = p ? sizeof(float) : sizeof(double);
                    char *in = alloc_reals(d.precision, len * batch),
                         *out = alloc_reals(d.precision, len * batch);
                    for (size_t j = 0; j < len; j++)
                        store(d.precision, in, j, (double)rand() / RAND_MAX - 0.5);
                    for (int t = 1; t < batch; t++)
                        memcpy(in + t * len * es, in, len * es);
                    spec_buffers b = {.in = in, .out = out};
                    CU_ASSERT(spec_run(plan, &b, &err) == ORR_OK);
                    int same = 1;
                    for (int t = 1; t < batch; t++)
                        same &= memcmp(out + t * len * es, out, len * es) == 0;
                    CU_ASSERT(same);
                    if (!same)
                        printf("\n  %s: c2c%s n=%d %s: lanes differ", isas[i],
                               inverse ? " inverse" : "", n, p ? "f32" : "f64");
                    free(in);
                    free(out);
                    spec_plan_destroy(plan);
                }
    }
    spec_lanes_force(NULL);
}

/* One plan's output for threads = 1, 2, 3 (and 0): bit for bit the same. */
static void same_bits_over_threads(spec_desc d, size_t in_reals, size_t out_reals, int shapes)
{
    const size_t es = d.precision == SPEC_F32 ? sizeof(float) : sizeof(double);
    void *in = alloc_reals(d.precision, in_reals), *first = alloc_reals(d.precision, out_reals),
         *out = alloc_reals(d.precision, out_reals);
    void *s = alloc_reals(d.precision, (size_t)d.n * d.n * (shapes ? shapes : 1));
    void *dl = alloc_reals(d.precision, in_reals), *dd = alloc_reals(d.precision, in_reals);
    for (size_t i = 0; i < in_reals; i++) {
        store(d.precision, in, i, uniform());
        store(d.precision, dl, i, uniform());
        store(d.precision, dd, i, 4 + uniform());
    }
    for (size_t i = 0; i < (size_t)d.n * d.n * (shapes ? shapes : 1); i++)
        store(d.precision, s, i, uniform());
    static const int threads[] = {1, 2, 3, 0};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        d.threads = threads[t];
        spec_plan *plan;
        orr_error err;
        CU_ASSERT_FATAL(spec_plan_create(&d, &plan, &err) == ORR_OK);
        poison(d.precision, out, out_reals);
        spec_buffers b = {.in = in, .out = out, .shapes = s, .n_shapes = shapes,
                          .dl = dl, .d = dd, .du = dl};
        if (d.kind == SPEC_TRIDIAG)
            memcpy(out, in, out_reals * es);
        CU_ASSERT(spec_run(plan, &b, &err) == ORR_OK);
        if (t == 0)
            memcpy(first, out, out_reals * es);
        else if (memcmp(first, out, out_reals * es) != 0) {
            CU_FAIL("results differ between thread counts");
            printf("\n  %s: %d threads differ from 1", spec_kind_name(d.kind), threads[t]);
        }
        spec_plan_destroy(plan);
    }
    free(in);
    free(first);
    free(out);
    free(s);
    free(dl);
    free(dd);
}

static void test_threads(void)
{
    for (int p = 0; p < 2; p++) {
        const spec_precision pr = (spec_precision)p;
        static const spec_kind kinds[] = {SPEC_C2C, SPEC_R2C, SPEC_C2R, SPEC_DCT2, SPEC_DCT3, SPEC_DHT};
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            spec_desc d = {kinds[k], pr, 64, 0, 53, 0, 1, 0, 0, 0, 0};
            same_bits_over_threads(d, spec_in_reals(&d) * d.batch, spec_out_reals(&d) * d.batch, 0);
            /* 1024: the one-at-a-time kernels (tables per thread) for c2c, r2c, c2r */
            d.n = 1024;
            d.batch = 37;
            same_bits_over_threads(d, spec_in_reals(&d) * d.batch, spec_out_reals(&d) * d.batch, 0);
        }
        spec_desc f = {SPEC_FFT2, pr, 32, 16, 5, 1, 1, 0, 0, 0, 0};
        same_bits_over_threads(f, spec_in_reals(&f) * f.batch, spec_out_reals(&f) * f.batch, 0);
        spec_desc c = {SPEC_CONV2D, pr, 32, 15, 6, 0, 1, 0, 0, 0, 0};
        same_bits_over_threads(c, spec_in_reals(&c) * c.batch, spec_out_reals(&c) * c.batch, 3);
        spec_desc t = {SPEC_TRIDIAG, pr, 100, 0, 7, 0, 1, 0, 0, 0, 0};
        same_bits_over_threads(t, (size_t)t.n * t.batch, (size_t)t.n * t.batch, 0);
    }
}

#if HAVE_FFTW3
/* FFTW (double) as an independent reference for c2c and r2c at large N. */
static void test_against_fftw(void)
{
    static const int sizes[] = {64, 4096, 65536};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const int n = sizes[s];
        fftw_complex *fi = fftw_malloc(sizeof(fftw_complex) * n), *fo = fftw_malloc(sizeof(fftw_complex) * n);
        fftw_plan fp = fftw_plan_dft_1d(n, fi, fo, FFTW_FORWARD, FFTW_ESTIMATE);
        double *x = malloc(2 * n * sizeof *x), *y = malloc(2 * n * sizeof *y);
        for (int i = 0; i < n; i++) {
            x[2 * i] = fi[i][0] = uniform();
            x[2 * i + 1] = fi[i][1] = uniform();
        }
        fftw_execute(fp);
        spec_desc d = {SPEC_C2C, SPEC_F64, n, 0, 1, 0, 1, 0, 0, 0, 0};
        spec_plan *plan;
        orr_error err;
        CU_ASSERT_FATAL(spec_plan_create(&d, &plan, &err) == ORR_OK);
        spec_execute(plan, x, y, &err);
        const double e = rel_l2(y, (double *)fo, 2 * (size_t)n) / (eps_of(SPEC_F64) * log2(n));
        CU_ASSERT(e <= 10);
        if (!(e <= 10))
            printf("\n  c2c n=%d against FFTW: %.2f eps log2 N", n, e);
        spec_plan_destroy(plan);
        fftw_destroy_plan(fp);
        fftw_free(fi);
        fftw_free(fo);
        free(x);
        free(y);
    }
}
#endif

int main(void)
{
    rng_state = getenv("ORR_SEED") ? strtoull(getenv("ORR_SEED"), NULL, 10) : (unsigned long long)time(NULL);
    printf("spectral tests: seed %llu (ORR_SEED=%llu replays)\n", rng_state, rng_state);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("spectral kernels, CPU, against the long-double reference", NULL, NULL);
    CU_add_test(s, "complex FFT", test_c2c);
    CU_add_test(s, "complex FFT, inverse", test_c2c_inverse);
    CU_add_test(s, "real FFT (r2c)", test_r2c);
    CU_add_test(s, "inverse real FFT (c2r)", test_c2r);
    CU_add_test(s, "DCT-II", test_dct2);
    CU_add_test(s, "DCT-III", test_dct3);
    CU_add_test(s, "DHT", test_dht);
    CU_add_test(s, "round trips, Parseval, impulse, tone, batch order", test_identities);
    CU_add_test(s, "2D FFT", test_fft2);
    CU_add_test(s, "EDM convolution against the block-Toeplitz sum", test_conv2d);
    CU_add_test(s, "inverse real FFT ignores the imaginary parts of bins 0 and N/2", test_c2r_real_ends);
    CU_add_test(s, "DCT norms (backward, ortho, forward) against the direct sums", test_dct_norms);
    CU_add_test(s, "tridiagonal against Thomas, residuals", test_tridiag);
    CU_add_test(s, "tridiagonal breakdown: zero and non-finite pivots reported", test_tridiag_breakdown);
    CU_add_test(s, "strided batches packed for devices", test_pack_layouts);
    CU_add_test(s, "unsupported and invalid plans", test_bad_plans);
    CU_add_test(s, "spectral subcommand: .npy in and out, errors", test_npy_command);
    CU_add_test(s, "every lane-kernel ISA, full and partial groups", test_isa_paths);
    CU_add_test(s, "one transform gives the same bits in every lane and group", test_lane_independence);
    CU_add_test(s, "thread counts 1, 2, 3 give the same bits", test_threads);
#if HAVE_FFTW3
    CU_add_test(s, "complex FFT against FFTW", test_against_fftw);
#endif
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
