/* The apps' spectral subcommands: `spectral` transforms .npy files with
 * the kernels, `selftest` runs every kernel on random inputs against the
 * long-double reference and says, per kernel, whether this host computes
 * them right (a project can send it as a check of a volunteer's machine). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "io/io.h"
#include "spectral.h"

static orr_status usage_error(orr_error *err, const char *what)
{
    return orr_fail(err, ORR_ERR_USAGE,
                    "%s\nusage: spectral --op c2c|r2c|c2r|dct2|dct3|dht|fft2 [--inverse] IN.npy OUT.npy\n"
                    "       spectral --op conv2d SLICES.npy SHAPE.npy OUT.npy\n"
                    "       spectral --op tridiag DL.npy D.npy DU.npy RHS.npy OUT.npy",
                    what);
}

static int is_complex(orr_npy_dtype t) { return t == ORR_NPY_C8 || t == ORR_NPY_C16; }
static spec_precision precision_of(orr_npy_dtype t)
{
    return t == ORR_NPY_F4 || t == ORR_NPY_C8 ? SPEC_F32 : SPEC_F64;
}
static orr_npy_dtype dtype_of(spec_precision p, int complex)
{
    return complex ? (p == SPEC_F32 ? ORR_NPY_C8 : ORR_NPY_C16) : (p == SPEC_F32 ? ORR_NPY_F4 : ORR_NPY_F8);
}

/* Checks an input's dtype family and dimensions, naming the file. */
static orr_status expect(const char *path, const orr_npy *a, int complex, int min_dim, int max_dim,
                         orr_error *err)
{
    if (is_complex(a->dtype) != complex)
        return orr_fail(err, ORR_ERR_INPUT, "%s: dtype %s: this operation takes a %s array", path,
                        orr_npy_dtype_name(a->dtype), complex ? "complex64 or complex128" : "float32 or float64");
    if (a->ndim < min_dim || a->ndim > max_dim)
        return orr_fail(err, ORR_ERR_INPUT, "%s: %d dimensions: expected %d to %d", path, a->ndim,
                        min_dim, max_dim);
    return ORR_OK;
}

static orr_status run_1d(spec_kind kind, int inverse, const char *in_path, const char *out_path,
                         orr_error *err)
{
    orr_npy a;
    orr_status s = orr_npy_read(in_path, &a, err);
    if (s != ORR_OK)
        return s;
    const int cin = kind == SPEC_C2C || kind == SPEC_C2R || kind == SPEC_FFT2;
    const int cout = kind == SPEC_C2C || kind == SPEC_R2C || kind == SPEC_FFT2;
    s = expect(in_path, &a, cin, kind == SPEC_FFT2 ? 2 : 1, kind == SPEC_FFT2 ? 3 : 2, err);
    spec_desc d = {kind, precision_of(a.dtype), 0, 0, 1, inverse, 1, 0, 0};
    long out_shape[4];
    int out_dim = a.ndim;
    memcpy(out_shape, a.shape, sizeof out_shape);
    if (s == ORR_OK) {
        if (kind == SPEC_FFT2) {
            d.n = (int)a.shape[a.ndim - 2];
            d.n2 = (int)a.shape[a.ndim - 1];
            d.batch = a.ndim == 3 ? (int)a.shape[0] : 1;
        } else {
            const long last = a.shape[a.ndim - 1];
            d.batch = a.ndim == 2 ? (int)a.shape[0] : 1;
            d.n = kind == SPEC_C2R ? (int)(2 * (last - 1)) : (int)last;
            if (kind == SPEC_R2C)
                out_shape[a.ndim - 1] = last / 2 + 1;
            if (kind == SPEC_C2R)
                out_shape[a.ndim - 1] = d.n;
        }
        if (d.batch < 1 || (a.count == 0))
            s = orr_fail(err, ORR_ERR_INPUT, "%s: an empty array", in_path);
    }
    spec_plan *plan = NULL;
    if (s == ORR_OK) {
        s = spec_plan_create(&d, &plan, err);
        if (s != ORR_OK) {
            char inner[sizeof err->message];
            snprintf(inner, sizeof inner, "%s", err->message);
            orr_fail(err, s, "%s: shape does not fit: %s", in_path, inner);
        }
    }
    void *out = NULL;
    if (s == ORR_OK && !(out = malloc(spec_out_reals(&d) * d.batch * (d.precision == SPEC_F32 ? 4 : 8))))
        s = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (s == ORR_OK)
        s = spec_execute(plan, a.data, out, err);
    if (s == ORR_OK)
        s = orr_npy_write(out_path, dtype_of(d.precision, cout), out_dim, out_shape, out, err);
    spec_plan_destroy(plan);
    free(out);
    orr_npy_free(&a);
    return s;
}

static orr_status run_conv2d(const char *x_path, const char *s_path, const char *out_path,
                             orr_error *err)
{
    orr_npy x, sh;
    orr_status s = orr_npy_read(x_path, &x, err);
    if (s != ORR_OK)
        return s;
    s = orr_npy_read(s_path, &sh, err);
    if (s != ORR_OK) {
        orr_npy_free(&x);
        return s;
    }
    s = expect(x_path, &x, 1, 2, 3, err);
    if (s == ORR_OK)
        s = expect(s_path, &sh, 0, 2, 3, err);
    if (s == ORR_OK && precision_of(x.dtype) != precision_of(sh.dtype))
        s = orr_fail(err, ORR_ERR_INPUT, "%s is %s but %s is %s: one precision for both", x_path,
                     orr_npy_dtype_name(x.dtype), s_path, orr_npy_dtype_name(sh.dtype));
    const int m = (int)x.shape[x.ndim - 1], nf = (int)sh.shape[sh.ndim - 1];
    const int batch = x.ndim == 3 ? (int)x.shape[0] : 1, n_shapes = sh.ndim == 3 ? (int)sh.shape[0] : 1;
    if (s == ORR_OK && x.shape[x.ndim - 2] != m)
        s = orr_fail(err, ORR_ERR_INPUT, "%s: slices must be M x M, found %ld x %d", x_path,
                     x.shape[x.ndim - 2], m);
    if (s == ORR_OK && sh.shape[sh.ndim - 2] != nf)
        s = orr_fail(err, ORR_ERR_INPUT, "%s: S must be mfft x mfft, found %ld x %d", s_path,
                     sh.shape[sh.ndim - 2], nf);
    spec_desc d = {SPEC_CONV2D, precision_of(x.dtype), nf, m, batch, 0, 1, 0, 0};
    spec_plan *plan = NULL;
    if (s == ORR_OK)
        s = spec_plan_create(&d, &plan, err);
    void *out = NULL;
    if (s == ORR_OK && !(out = malloc(x.count * orr_npy_item_size(x.dtype))))
        s = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (s == ORR_OK)
        s = spec_conv2d(plan, x.data, sh.data, n_shapes, out, err);
    if (s == ORR_OK)
        s = orr_npy_write(out_path, x.dtype, x.ndim, x.shape, out, err);
    spec_plan_destroy(plan);
    free(out);
    orr_npy_free(&x);
    orr_npy_free(&sh);
    return s;
}

static orr_status run_tridiag(char **paths, const char *out_path, orr_error *err)
{
    orr_npy a[4];
    int loaded = 0;
    orr_status s = ORR_OK;
    for (; loaded < 4 && s == ORR_OK; loaded++) {
        s = orr_npy_read(paths[loaded], &a[loaded], err);
        if (s != ORR_OK)
            break;
        s = expect(paths[loaded], &a[loaded], 0, 1, 2, err);
        if (s == ORR_OK && loaded > 0 &&
            (a[loaded].dtype != a[0].dtype || a[loaded].ndim != a[0].ndim ||
             memcmp(a[loaded].shape, a[0].shape, sizeof a[0].shape) != 0))
            s = orr_fail(err, ORR_ERR_INPUT, "%s: dtype and shape must equal %s's", paths[loaded],
                         paths[0]);
    }
    spec_plan *plan = NULL;
    spec_desc d = {SPEC_TRIDIAG, SPEC_F64, 0, 0, 1, 0, 1, 0, 0};
    if (s == ORR_OK) {
        d.precision = precision_of(a[0].dtype);
        d.n = (int)a[0].shape[a[0].ndim - 1];
        d.batch = a[0].ndim == 2 ? (int)a[0].shape[0] : 1;
        s = spec_plan_create(&d, &plan, err);
    }
    if (s == ORR_OK)
        s = spec_tridiag(plan, a[0].data, a[1].data, a[2].data, a[3].data, err);
    if (s == ORR_OK)
        s = orr_npy_write(out_path, a[3].dtype, a[3].ndim, a[3].shape, a[3].data, err);
    spec_plan_destroy(plan);
    for (int i = 0; i < loaded && i < 4; i++)
        orr_npy_free(&a[i]);
    return s;
}

orr_status spec_command(int argc, char **argv, orr_error *err)
{
    const char *op = NULL;
    int inverse = 0;
    char *files[8];
    int n_files = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--op") == 0 && i + 1 < argc)
            op = argv[++i];
        else if (strncmp(argv[i], "--op=", 5) == 0)
            op = argv[i] + 5;
        else if (strcmp(argv[i], "--inverse") == 0)
            inverse = 1;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return usage_error(err, "spectral: unknown option");
        else if (n_files < 8)
            files[n_files++] = argv[i];
    }
    if (!op)
        return usage_error(err, "spectral: --op is required");
    const int kind = spec_kind_from_name(op);
    if (kind < 0)
        return usage_error(err, "spectral: unknown --op");
    if (kind == SPEC_CONV2D)
        return n_files == 3 ? run_conv2d(files[0], files[1], files[2], err)
                            : usage_error(err, "spectral conv2d: three files");
    if (kind == SPEC_TRIDIAG)
        return n_files == 5 ? run_tridiag(files, files[4], err)
                            : usage_error(err, "spectral tridiag: five files");
    if (n_files != 2)
        return usage_error(err, "spectral: an input and an output file");
    if (inverse && kind != SPEC_C2C && kind != SPEC_FFT2)
        return usage_error(err, "spectral: --inverse is for c2c and fft2 (c2r and dct3 are the inverses)");
    return run_1d((spec_kind)kind, inverse, files[0], files[1], err);
}

/* ---- selftest ---- */

static unsigned long long st_rng;
static double st_uniform(void)
{
    st_rng = st_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(st_rng >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* One kernel, size and precision: relative L2 error / (eps log2 N). */
static double selftest_one(spec_kind kind, int n, spec_precision p, orr_error *err)
{
    spec_desc d = {kind, p, n, kind == SPEC_FFT2 ? n : kind == SPEC_CONV2D ? n / 2 - 1 : 0, 2, 0, 1, 0, 0};
    spec_plan *plan;
    if (spec_plan_create(&d, &plan, err) != ORR_OK)
        return INFINITY;
    const size_t in_r = kind == SPEC_TRIDIAG ? (size_t)n : spec_in_reals(&d);
    const size_t out_r = kind == SPEC_TRIDIAG ? (size_t)n : spec_out_reals(&d);
    const size_t es = p == SPEC_F32 ? sizeof(float) : sizeof(double);
    const size_t shape_r = (size_t)n * n;
    void *in = malloc(4 * in_r * d.batch * es + shape_r * es), *out = malloc(out_r * d.batch * es);
    double *x = malloc((in_r * 4 + shape_r) * sizeof *x), *want = malloc(out_r * sizeof *want),
           *got = malloc(out_r * sizeof *got);
    double worst = INFINITY;
    if (!in || !out || !x || !want || !got)
        goto done;
    const size_t total_in = 4 * in_r * d.batch + shape_r;
    for (size_t i = 0; i < total_in; i++) {
        double v = st_uniform();
        if (kind == SPEC_TRIDIAG && i >= in_r * d.batch && i < 2 * in_r * d.batch)
            v += 3;   /* the diagonal: dominant */
        if (kind == SPEC_CONV2D && i >= in_r * d.batch)
            v += 1.5;   /* S */
        if (p == SPEC_F32)
            ((float *)in)[i] = (float)v;
        else
            ((double *)in)[i] = v;
    }
    if (kind == SPEC_C2R)   /* a real signal's spectrum: DC and Nyquist bins are real */
        for (int t = 0; t < d.batch; t++)
            for (size_t i = 1; i < in_r; i += (size_t)n) {   /* indices 1 and n + 1 */
                if (p == SPEC_F32)
                    ((float *)in)[t * in_r + i] = 0;
                else
                    ((double *)in)[t * in_r + i] = 0;
            }
    for (size_t i = 0; i < out_r * d.batch && kind != SPEC_TRIDIAG; i++) {
        if (p == SPEC_F32)
            ((float *)out)[i] = NAN;
        else
            ((double *)out)[i] = NAN;
    }
#define AT(buf, i) (p == SPEC_F32 ? (double)((float *)(buf))[i] : ((double *)(buf))[i])
    const size_t nb = in_r * d.batch;
    orr_status s;
    if (kind == SPEC_CONV2D)
        s = spec_conv2d(plan, in, (char *)in + nb * es, 1, out, err);
    else if (kind == SPEC_TRIDIAG) {
        /* solved in place: the right-hand sides go to `out` and are solved
         * there, so the reference still sees them in `in` */
        char *b = in;
        memcpy(out, b + 3 * nb * es, nb * es);
        s = spec_tridiag(plan, b, b + nb * es, b + 2 * nb * es, out, err);
    } else
        s = spec_execute(plan, in, out, err);
    if (s != ORR_OK)
        goto done;
    worst = 0;
    for (int t = 0; t < d.batch; t++) {
        for (size_t i = 0; i < in_r; i++)
            x[i] = AT(in, t * in_r + i);
        switch (kind) {
        case SPEC_C2C: spec_ref_dft(n, 0, x, want); break;
        case SPEC_R2C: spec_ref_r2c(n, x, want); break;
        case SPEC_C2R: spec_ref_c2r(n, x, want); break;
        case SPEC_DCT2: spec_ref_dct2(n, x, want); break;
        case SPEC_DCT3: spec_ref_dct3(n, x, want); break;
        case SPEC_DHT: spec_ref_dht(n, x, want); break;
        case SPEC_FFT2: spec_ref_fft2(n, n, 0, x, want); break;
        case SPEC_CONV2D: {
            double *shape = x + in_r;
            for (size_t i = 0; i < shape_r; i++)
                shape[i] = AT(in, nb + i);
            spec_ref_conv2d(n, d.n2, shape, x, want);
            break;
        }
        case SPEC_TRIDIAG: {
            double *dd = x + in_r, *du = dd + in_r, *rhs = du + in_r;
            for (size_t i = 0; i < in_r; i++) {
                dd[i] = AT(in, nb + t * in_r + i);
                du[i] = AT(in, 2 * nb + t * in_r + i);
                rhs[i] = AT((char *)in, 3 * nb + t * in_r + i);
            }
            spec_ref_tridiag(n, x, dd, du, rhs, want);
            break;
        }
        default: break;
        }
        long double num = 0, den = 0;
        for (size_t i = 0; i < out_r; i++) {
            got[i] = AT(out, t * out_r + i);
            num += ((long double)got[i] - want[i]) * ((long double)got[i] - want[i]);
            den += (long double)want[i] * want[i];
        }
        const double logn = kind == SPEC_FFT2 || kind == SPEC_CONV2D ? 2 * log2(n) : kind == SPEC_TRIDIAG ? 1 : log2(n);
        double e = (double)sqrtl(num / (den > 0 ? den : 1)) / ((p == SPEC_F32 ? ldexp(1, -24) : ldexp(1, -53)) * logn);
        if (isnan(e))
            e = INFINITY;
        if (e > worst)
            worst = e;
    }
#undef AT
done:
    free(in);
    free(out);
    free(x);
    free(want);
    free(got);
    spec_plan_destroy(plan);
    return worst;
}

/* The device's FFT (be->spec_c2c) against the reference: forward and
 * inverse, both precisions; returns the failures. */
static int selftest_device(FILE *report, orr_backend *be, orr_error *err)
{
    static const int sizes[] = {16, 64, 256, 1024, 4096};
    const int batch = 3;
    int failures = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int single = 0; single < 2; single++)
            for (int inverse = 0; inverse < 2; inverse++) {
                const int n = sizes[si];
                const size_t reals = 2 * (size_t)n * batch, es = single ? sizeof(float) : sizeof(double);
                void *in = malloc(reals * es), *out = malloc(reals * es);
                double *x = malloc(2 * (size_t)n * sizeof *x), *want = malloc(2 * (size_t)n * sizeof *want);
                double worst = INFINITY;
                if (in && out && x && want) {
                    for (size_t i = 0; i < reals; i++) {
                        const double v = st_uniform();
                        if (single)
                            ((float *)in)[i] = (float)v;
                        else
                            ((double *)in)[i] = v;
                    }
                    orr_status s = be->spec_c2c(be, single, n, batch, inverse, in, out, err);
                    if (s == ORR_OK) {
                        worst = 0;
                        for (int t = 0; t < batch; t++) {
                            long double num = 0, den = 0;
                            for (size_t i = 0; i < 2 * (size_t)n; i++)
                                x[i] = single ? ((float *)in)[t * 2 * n + i] : ((double *)in)[t * 2 * n + i];
                            spec_ref_dft(n, inverse, x, want);
                            for (size_t i = 0; i < 2 * (size_t)n; i++) {
                                const double got = single ? ((float *)out)[t * 2 * n + i]
                                                          : ((double *)out)[t * 2 * n + i];
                                num += ((long double)got - want[i]) * ((long double)got - want[i]);
                                den += (long double)want[i] * want[i];
                            }
                            double e = (double)sqrtl(num / den) /
                                       ((single ? ldexp(1, -24) : ldexp(1, -53)) * log2(n));
                            if (isnan(e))
                                e = INFINITY;
                            if (e > worst)
                                worst = e;
                        }
                    } else {
                        fprintf(report, "FAIL c2c%s n=%d %s on %s: %s\n", inverse ? " inverse" : "", n,
                                single ? "f32" : "f64", be->name, err->message);
                    }
                }
                const int ok = worst <= 10;
                failures += !ok;
                if (worst < INFINITY || ok)
                    fprintf(report, "%s c2c%-8s n=%-5d %s  error %6.2f eps log2 N  (%s)\n", ok ? "PASS" : "FAIL",
                            inverse ? " inverse" : "", n, single ? "f32" : "f64", worst, be->name);
                free(in);
                free(out);
                free(x);
                free(want);
            }
    return failures;
}

int spec_selftest(FILE *report, struct orr_backend *be, orr_error *err)
{
    static const struct {
        spec_kind kind;
        int n;
    } cases[] = {
        {SPEC_C2C, 16},    {SPEC_C2C, 1024},   {SPEC_R2C, 1024}, {SPEC_C2R, 1024},
        {SPEC_DCT2, 512},  {SPEC_DCT3, 512},   {SPEC_DHT, 512},  {SPEC_FFT2, 32},
        {SPEC_CONV2D, 32}, {SPEC_TRIDIAG, 512},
    };
    st_rng = (unsigned long long)time(NULL);
    int failures = 0;
    fprintf(report, "spectral self-test on the CPU (limit: relative L2 error 10 eps log2 N, "
                    "tridiagonal 50 eps; seed %llu)\n",
            st_rng);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int p = 0; p < 2; p++) {
            const double e = selftest_one(cases[c].kind, cases[c].n, (spec_precision)p, err);
            const double limit = cases[c].kind == SPEC_TRIDIAG ? 50 : 10;
            const int ok = e <= limit;
            failures += !ok;
            fprintf(report, "%s %-8s n=%-5d %s  error %6.2f eps log2 N\n", ok ? "PASS" : "FAIL",
                    spec_kind_name(cases[c].kind), cases[c].n, p ? "f32" : "f64", e);
        }
    int checks = (int)(2 * sizeof cases / sizeof *cases);
    if (be && be->spec_c2c) {
        fprintf(report, "on the device: %s (%s)\n", be->name, be->variant ? be->variant : "");
        failures += selftest_device(report, be, err);
        checks += 20;
    } else {
        fprintf(report, "(this app has no device spectral kernels yet: CPU only)\n");
    }
    fprintf(report, "%s: %d of %d kernel checks failed\n", failures ? "FAILED" : "passed", failures,
            checks);
    return failures;
}
