/* The apps' spectral subcommands: `spectral` transforms .npy files with
 * the kernels, `selftest` runs every kernel on random inputs against the
 * long-double reference and says, per kernel, whether this host computes
 * them right (a project can send it as a check of a volunteer's machine).
 * Their command lines are parsed by the driver's one parser with the
 * tables in kind.c. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"
#include "ops.h"
#include "spectral.h"

/* The files each op takes, for the usage messages. */
static const char *files_of(int kind)
{
    switch (kind) {
    case SPEC_CONV2D: return "SLICES.npy SHAPE.npy OUT.npy";
    case SPEC_TRIDIAG: return "DL.npy D.npy DU.npy RHS.npy OUT.npy";
    default: return "IN.npy OUT.npy";
    }
}

static int is_dct(int kind) { return kind == SPEC_DCT2 || kind == SPEC_DCT3; }

orr_status spec_command_check(const spec_command_options *o, orr_error *err)
{
    if (!o->op)
        return orr_fail(err, ORR_ERR_USAGE, "spectral: --op is required (one of %s)",
                        spec_kind_names());
    const int kind = spec_kind_from_name(o->op);
    if (kind < 0)
        return orr_fail(err, ORR_ERR_USAGE, "spectral: unknown --op '%s' (one of %s)", o->op,
                        spec_kind_names());
    if (o->norm && spec_norm_from_name(o->norm) < 0)
        return orr_fail(err, ORR_ERR_USAGE,
                        "spectral: unknown --norm '%s' (backward, ortho or forward)", o->norm);
    if (o->norm && !is_dct(kind))
        return orr_fail(err, ORR_ERR_USAGE, "spectral --op %s: --norm is for dct2 and dct3 only",
                        o->op);
    if (o->inverse && kind != SPEC_C2C && kind != SPEC_FFT2)
        return orr_fail(err, ORR_ERR_USAGE,
                        "spectral --op %s: --inverse is for c2c and fft2 only (c2r is r2c's "
                        "inverse, dct3 dct2's; conv2d and tridiag have none)",
                        o->op);
    const int want = kind == SPEC_CONV2D ? 3 : kind == SPEC_TRIDIAG ? 5 : 2;
    if (o->n_files != want)
        return orr_fail(err, ORR_ERR_USAGE, "spectral --op %s takes %d files (%s), found %d",
                        o->op, want, files_of(kind), o->n_files);
    return ORR_OK;
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

/* A failure that comes from the data: the message names the files (what)
 * first. Here the description was made from the files, so a description
 * the kernels call invalid (ORR_ERR_USAGE from the library) is invalid
 * data (exit 65), never a command-line error. */
static orr_status data_error(orr_status s, const char *what, orr_error *err)
{
    if (s != ORR_ERR_USAGE && s != ORR_ERR_INPUT && s != ORR_ERR_UNSUPPORTED)
        return s;
    if (s == ORR_ERR_USAGE)
        s = ORR_ERR_INPUT;
    if (what) {
        char inner[sizeof err->message];
        snprintf(inner, sizeof inner, "%s", err->message);
        orr_fail(err, s, "%s: %s", what, inner);
    }
    err->status = s;
    return s;
}

/* Runs desc on b: on the device's kernels (dev) where it has them, else with a
 * CPU plan. The CPU plan is made either way: it checks the description,
 * and its message names what does not fit. Data errors name what (the
 * files; NULL: the caller's message is enough). */
static orr_status run_desc(const spec_bound_ops *dev, const spec_desc *d, const spec_buffers *b,
                           const char *what, orr_error *err)
{
    spec_plan *plan = NULL;
    orr_status s = spec_plan_create(d, &plan, err);
    if (s == ORR_OK)
        s = dev ? dev->ops.run(dev->state, d, b, err) : spec_run(plan, b, err);
    spec_plan_destroy(plan);
    return s == ORR_OK ? s : data_error(s, what, err);
}

static orr_status run_1d(const spec_bound_ops *dev, spec_kind kind, int inverse, spec_norm norm,
                         int threads, const char *in_path, const char *out_path, orr_error *err)
{
    orr_npy a;
    orr_status s = orr_npy_read(in_path, &a, err);
    if (s != ORR_OK)
        return s;
    const int cin = kind == SPEC_C2C || kind == SPEC_C2R || kind == SPEC_FFT2;
    const int cout = kind == SPEC_C2C || kind == SPEC_R2C || kind == SPEC_FFT2;
    s = expect(in_path, &a, cin, kind == SPEC_FFT2 ? 2 : 1, kind == SPEC_FFT2 ? 3 : 2, err);
    spec_desc d = {kind, precision_of(a.dtype), 0, 0, 1, inverse, 1, 0, 0, threads, norm};
    long out_shape[4];
    int out_dim = a.ndim;
    memcpy(out_shape, a.shape, sizeof out_shape);
    /* Sizes are ints in the plan, and c2r doubles its bins: anything
     * larger is refused before it is converted. */
    for (int i = 0; s == ORR_OK && i < a.ndim; i++)
        if (a.shape[i] > INT_MAX / 2)
            s = orr_fail(err, ORR_ERR_INPUT, "%s: dimension %d is %ld: at most %d", in_path, i + 1,
                         a.shape[i], INT_MAX / 2);
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
        if (d.batch < 1 || a.count == 0)
            s = orr_fail(err, ORR_ERR_INPUT, "%s: an empty array", in_path);
        else if (kind == SPEC_C2R && a.shape[a.ndim - 1] < 3)
            s = orr_fail(err, ORR_ERR_INPUT,
                         "%s: %ld bins: c2r takes the N/2 + 1 bins of N >= 4 reals' spectrum",
                         in_path, a.shape[a.ndim - 1]);
    }
    void *out = NULL;
    if (s == ORR_OK && !(out = malloc(spec_out_reals(&d) * d.batch * (d.precision == SPEC_F32 ? 4 : 8))))
        s = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (s == ORR_OK) {
        const spec_buffers b = {.in = a.data, .out = out};
        s = run_desc(dev, &d, &b, in_path, err);
    }
    if (s == ORR_OK)
        s = orr_npy_write(out_path, dtype_of(d.precision, cout), out_dim, out_shape, out, err);
    free(out);
    orr_npy_free(&a);
    return s;
}

static orr_status run_conv2d(const spec_bound_ops *dev, int threads, const char *x_path, const char *s_path, const char *out_path,
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
    if (s == ORR_OK && (x.count == 0 || sh.count == 0))
        s = orr_fail(err, ORR_ERR_INPUT, "%s: an empty array", x.count == 0 ? x_path : s_path);
    if (s == ORR_OK && x.shape[x.ndim - 2] != m)
        s = orr_fail(err, ORR_ERR_INPUT, "%s: slices must be M x M, found %ld x %d", x_path,
                     x.shape[x.ndim - 2], m);
    if (s == ORR_OK && sh.shape[sh.ndim - 2] != nf)
        s = orr_fail(err, ORR_ERR_INPUT, "%s: S must be mfft x mfft, found %ld x %d", s_path,
                     sh.shape[sh.ndim - 2], nf);
    if (s == ORR_OK && batch % n_shapes != 0)
        s = orr_fail(err, ORR_ERR_INPUT,
                     "%s: %d shape functions for %d slices of %s (1, or a divisor: one per group "
                     "of consecutive slices)",
                     s_path, n_shapes, batch, x_path);
    spec_desc d = {SPEC_CONV2D, precision_of(x.dtype), nf, m, batch, 0, 1, 0, 0, threads, 0};
    void *out = NULL;
    if (s == ORR_OK && !(out = malloc(x.count * orr_npy_item_size(x.dtype))))
        s = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (s == ORR_OK) {
        char what[512];
        snprintf(what, sizeof what, "%s and %s", x_path, s_path);
        const spec_buffers b = {.in = x.data, .out = out, .shapes = sh.data, .n_shapes = n_shapes};
        s = run_desc(dev, &d, &b, what, err);
    }
    if (s == ORR_OK)
        s = orr_npy_write(out_path, x.dtype, x.ndim, x.shape, out, err);
    free(out);
    orr_npy_free(&x);
    orr_npy_free(&sh);
    return s;
}

static orr_status run_tridiag(const spec_bound_ops *dev, int threads, const char *const *paths, const char *out_path, orr_error *err)
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
    spec_desc d = {SPEC_TRIDIAG, SPEC_F64, 0, 0, 1, 0, 1, 0, 0, threads, 0};
    if (s == ORR_OK && a[0].count == 0)
        s = orr_fail(err, ORR_ERR_INPUT, "%s: an empty array", paths[0]);
    if (s == ORR_OK) {
        d.precision = precision_of(a[0].dtype);
        d.n = (int)a[0].shape[a[0].ndim - 1];
        d.batch = a[0].ndim == 2 ? (int)a[0].shape[0] : 1;
        char what[512];
        snprintf(what, sizeof what, "%s, %s, %s, %s", paths[0], paths[1], paths[2], paths[3]);
        const spec_buffers b = {.out = a[3].data, .dl = a[0].data, .d = a[1].data, .du = a[2].data};
        s = run_desc(dev, &d, &b, what, err);
    }
    if (s == ORR_OK)
        s = orr_npy_write(out_path, a[3].dtype, a[3].ndim, a[3].shape, a[3].data, err);
    for (int i = 0; i < loaded && i < 4; i++)
        orr_npy_free(&a[i]);
    return s;
}

orr_status spec_ops_of(orr_backend *be, spec_bound_ops *out, orr_error *err)
{
    const orr_kind_slot *slot;
    orr_status s = orr_backend_slot(be, SPEC_KIND_NAME, &slot, err);
    if (s != ORR_OK)
        return s;
    memset(out, 0, sizeof *out);
    if (slot->ops)
        out->ops = *(const spec_ops *)slot->ops;
    out->state = slot->state;
    return ORR_OK;
}

/* The backend's device kernels, or NULL where it has none (the CPU's). */
static const spec_bound_ops *device_of(orr_backend *be, spec_bound_ops *bound, orr_error *err,
                                       orr_status *s)
{
    *s = ORR_OK;
    if (!be)
        return NULL;
    *s = spec_ops_of(be, bound, err);
    return *s == ORR_OK && bound->ops.run ? bound : NULL;
}

orr_status spec_command(const spec_command_options *o, orr_backend *be, orr_error *err)
{
    orr_status s = spec_command_check(o, err);
    if (s != ORR_OK)
        return s;
    /* the CPU kernels' threads: every core by default, as for separation
     * run by hand (results do not depend on the count) */
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int threads = o->threads > 0 ? o->threads : cores > 0 ? (int)cores : 1;
    const char *const *files = o->files;
    spec_bound_ops bound;
    const spec_bound_ops *dev = device_of(be, &bound, err, &s);
    if (s != ORR_OK)
        return s;
    const int kind = spec_kind_from_name(o->op);
    const spec_norm norm = o->norm ? (spec_norm)spec_norm_from_name(o->norm) : SPEC_NORM_BACKWARD;
    if (kind == SPEC_CONV2D)
        return run_conv2d(dev, threads, files[0], files[1], files[2], err);
    if (kind == SPEC_TRIDIAG)
        return run_tridiag(dev, threads, files, files[4], err);
    return run_1d(dev, (spec_kind)kind, o->inverse, norm, threads, files[0], files[1], err);
}

/* ---- selftest ---- */

static unsigned long long st_rng;
static double st_uniform(void)
{
    st_rng = st_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(st_rng >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* One self-test case: a kernel at one size (n2: FFT2's columns, CONV2D's
 * M), direction and precision. */
typedef struct {
    spec_kind kind;
    int n, n2, inverse;
    spec_norm norm;   /* the DCTs' (0: backward) */
} selftest_case;

#define SELFTEST_UNSUPPORTED (-1.0)

/* One case's host buffers. in holds the batch's input (TRIDIAG: the three
 * diagonals and the right-hand sides, nb reals each; CONV2D: then the
 * shape); x and want hold one transform's input and reference output in
 * double. */
typedef struct {
    spec_desc d;
    size_t in_r, out_r;   /* reals per transform in and out */
    size_t nb, shape_r;   /* reals of one input array; of the CONV2D shape */
    size_t es;            /* bytes per real */
    void *in, *out;
    double *x, *want;
} selftest_buffers;

static double value_at(spec_precision p, const void *buf, size_t i)
{
    return p == SPEC_F32 ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
}

static void set_value(spec_precision p, void *buf, size_t i, double v)
{
    if (p == SPEC_F32)
        ((float *)buf)[i] = (float)v;
    else
        ((double *)buf)[i] = v;
}

static int selftest_alloc(const selftest_case *c, spec_precision p, selftest_buffers *b)
{
    const int n = c->n;
    const spec_desc d = {c->kind, p, n, c->n2, 3, c->inverse, 1, 0, 0, 1, c->norm};
    b->d = d;
    b->in_r = c->kind == SPEC_TRIDIAG ? (size_t)n : spec_in_reals(&d);
    b->out_r = c->kind == SPEC_TRIDIAG ? (size_t)n : spec_out_reals(&d);
    b->es = p == SPEC_F32 ? sizeof(float) : sizeof(double);
    b->shape_r = (size_t)n * n;
    b->nb = b->in_r * d.batch;
    b->in = malloc(4 * b->nb * b->es + b->shape_r * b->es);
    b->out = malloc(b->out_r * d.batch * b->es);
    b->x = malloc((b->in_r * 4 + b->shape_r) * sizeof *b->x);
    b->want = malloc(b->out_r * sizeof *b->want);
    return b->in && b->out && b->x && b->want;
}

/* Fresh random inputs (dominant diagonals, a positive shape; for C2R
 * bins 0 and N/2 with imaginary parts, which must be ignored) and a
 * poisoned output: every output must be written. */
static void selftest_fill(const selftest_case *c, selftest_buffers *b)
{
    const spec_precision p = b->d.precision;
    const size_t total_in = 4 * b->nb + b->shape_r;
    for (size_t i = 0; i < total_in; i++) {
        double v = st_uniform();
        if (c->kind == SPEC_TRIDIAG && i >= b->nb && i < 2 * b->nb)
            v += 3;   /* the diagonal: dominant */
        if (c->kind == SPEC_CONV2D && i >= b->nb)
            v += 1.5;   /* S */
        set_value(p, b->in, i, v);
    }
    for (size_t i = 0; i < b->out_r * b->d.batch; i++)
        set_value(p, b->out, i, NAN);
}

/* The case's run on dev (NULL: a CPU plan). TRIDIAG is solved in place:
 * the right-hand sides are copied to out and solved there, so the
 * reference still sees them in in. */
static orr_status selftest_run(const selftest_case *c, const spec_bound_ops *dev,
                               selftest_buffers *b, orr_error *err)
{
    char *bytes = b->in;
    const size_t nbytes = b->nb * b->es;
    spec_buffers sb = {.in = b->in, .out = b->out};
    if (c->kind == SPEC_CONV2D) {
        sb.shapes = bytes + nbytes;
        sb.n_shapes = 1;
    } else if (c->kind == SPEC_TRIDIAG) {
        memcpy(b->out, bytes + 3 * nbytes, nbytes);
        sb.dl = bytes;
        sb.d = bytes + nbytes;
        sb.du = bytes + 2 * nbytes;
    }
    return run_desc(dev, &b->d, &sb, NULL, err);
}

/* The long-double reference of transform t into b->want. */
static void selftest_reference(const selftest_case *c, selftest_buffers *b, int t)
{
    const spec_precision p = b->d.precision;
    const size_t in_r = b->in_r, nb = b->nb;
    const int n = c->n;
    double *x = b->x, *want = b->want;
    for (size_t i = 0; i < in_r; i++)
        x[i] = value_at(p, b->in, t * in_r + i);
    switch (c->kind) {
    case SPEC_C2C: spec_ref_dft(n, c->inverse, x, want); break;
    case SPEC_R2C: spec_ref_r2c(n, x, want); break;
    case SPEC_C2R: spec_ref_c2r(n, x, want); break;
    case SPEC_DCT2: spec_ref_dct2(n, c->norm, x, want); break;
    case SPEC_DCT3: spec_ref_dct3(n, c->norm, x, want); break;
    case SPEC_DHT: spec_ref_dht(n, x, want); break;
    case SPEC_FFT2: spec_ref_fft2(n, c->n2, c->inverse, x, want); break;
    case SPEC_CONV2D: {
        double *shape = x + in_r;
        for (size_t i = 0; i < b->shape_r; i++)
            shape[i] = value_at(p, b->in, nb + i);
        spec_ref_conv2d(n, b->d.n2, shape, x, want);
        break;
    }
    case SPEC_TRIDIAG: {
        double *dd = x + in_r, *du = dd + in_r, *rhs = du + in_r;
        for (size_t i = 0; i < in_r; i++) {
            dd[i] = value_at(p, b->in, nb + t * in_r + i);
            du[i] = value_at(p, b->in, 2 * nb + t * in_r + i);
            rhs[i] = value_at(p, b->in, 3 * nb + t * in_r + i);
        }
        spec_ref_tridiag(n, x, dd, du, rhs, want);
        break;
    }
    default: break;
    }
}

/* Transform t's relative L2 error in units of eps log2 N (NaN: infinite). */
static double selftest_error(const selftest_case *c, const selftest_buffers *b, int t)
{
    const spec_precision p = b->d.precision;
    long double num = 0, den = 0;
    for (size_t i = 0; i < b->out_r; i++) {
        const double got = value_at(p, b->out, t * b->out_r + i);
        num += ((long double)got - b->want[i]) * ((long double)got - b->want[i]);
        den += (long double)b->want[i] * b->want[i];
    }
    const int n = c->n;
    const double logn = c->kind == SPEC_FFT2 ? log2(n) + log2(c->n2)
                        : c->kind == SPEC_CONV2D ? 2 * log2(n)
                        : c->kind == SPEC_TRIDIAG ? 1 : log2(n);
    const double e = (double)sqrtl(num / (den > 0 ? den : 1)) /
                     ((p == SPEC_F32 ? ldexp(1, -24) : ldexp(1, -53)) * logn);
    return isnan(e) ? INFINITY : e;
}

/* Runs one case on the device's kernels (or the CPU when dev is NULL) on
 * fresh random inputs with the output poisoned, and measures the worst
 * transform's relative L2 error against the long-double reference, in
 * units of eps log2 N (docs/spectral.md's bound is 10). SELFTEST_UNSUPPORTED when
 * the device does not take the case (message in err). */
static double selftest_one(const selftest_case *c, spec_precision p, const spec_bound_ops *dev,
                           orr_error *err)
{
    selftest_buffers b;
    double worst = INFINITY;
    if (selftest_alloc(c, p, &b)) {
        selftest_fill(c, &b);
        const orr_status s = selftest_run(c, dev, &b, err);
        if (s == ORR_ERR_UNSUPPORTED && dev)
            worst = SELFTEST_UNSUPPORTED;
        else if (s == ORR_OK)
            worst = 0;
        for (int t = 0; s == ORR_OK && t < b.d.batch; t++) {
            selftest_reference(c, &b, t);
            const double e = selftest_error(c, &b, t);
            if (e > worst)
                worst = e;
        }
    }
    free(b.in);
    free(b.out);
    free(b.x);
    free(b.want);
    return worst;
}

/* A case's variant in the report: inverse, or the DCT's norm (backward,
 * the default, says nothing). */
static const char *variant_of(const selftest_case *c)
{
    if (c->inverse)
        return " inv";
    switch (c->norm) {
    case SPEC_NORM_ORTHO: return " ortho";
    case SPEC_NORM_FORWARD: return " forward";
    default: return "";
    }
}

/* Runs cases in both precisions on dev (NULL: the CPU), one line each;
 * adds to *checks and *skipped, returns the failures. */
static int selftest_cases(FILE *report, const selftest_case *cases, size_t count, const spec_bound_ops *dev,
                          int *checks, int *skipped, orr_error *err)
{
    int failures = 0;
    for (size_t i = 0; i < count; i++)
        for (int p = 0; p < 2; p++) {
            const selftest_case *c = &cases[i];
            char size[32];
            if (c->kind == SPEC_FFT2 || c->kind == SPEC_CONV2D)
                snprintf(size, sizeof size, "%dx%d", c->n, c->n2);
            else
                snprintf(size, sizeof size, "%d", c->n);
            orr_error_clear(err);
            const double e = selftest_one(c, (spec_precision)p, dev, err);
            const char *name = spec_kind_name(c->kind);
            if (e == SELFTEST_UNSUPPORTED) {
                ++*skipped;
                fprintf(report, "SKIP %-6s%-8s n=%-7s %s  not on this device: %s\n", name,
                        variant_of(c), size, p ? "f32" : "f64", err->message);
                continue;
            }
            const double limit = c->kind == SPEC_TRIDIAG ? 50 : 10;
            const int ok = e <= limit;
            failures += !ok;
            ++*checks;
            if (e == INFINITY && err->message[0])
                fprintf(report, "FAIL %-6s%-8s n=%-7s %s  %s\n", name, variant_of(c), size,
                        p ? "f32" : "f64", err->message);
            else
                fprintf(report, "%s %-6s%-8s n=%-7s %s  error %6.2f eps log2 N\n",
                        ok ? "PASS" : "FAIL", name, variant_of(c), size, p ? "f32" : "f64", e);
            fflush(report);   /* a line per case as it ends, also into a file */
        }
    return failures;
}

int spec_selftest(FILE *report, struct orr_backend *be, const orr_error *no_device,
                  orr_error *err)
{
    static const selftest_case cpu_cases[] = {
        {SPEC_C2C, 16, 0, 0, 0},     {SPEC_C2C, 1024, 0, 0, 0},
        {SPEC_C2C, 1024, 0, 1, 0},   {SPEC_R2C, 1024, 0, 0, 0},
        {SPEC_C2R, 1024, 0, 0, 0},   {SPEC_DCT2, 512, 0, 0, 0},
        {SPEC_DCT2, 512, 0, 0, SPEC_NORM_ORTHO},   {SPEC_DCT3, 512, 0, 0, 0},
        {SPEC_DCT3, 512, 0, 0, SPEC_NORM_ORTHO},   {SPEC_DHT, 512, 0, 0, 0},
        {SPEC_FFT2, 32, 32, 0, 0},   {SPEC_CONV2D, 32, 15, 0, 0},
        {SPEC_TRIDIAG, 512, 0, 0, 0},
    };
    /* the device's kernels at sizes that take each of its code paths */
    static const selftest_case device_cases[] = {
        {SPEC_C2C, 4, 0, 0, 0},       {SPEC_C2C, 16, 0, 0, 0},      {SPEC_C2C, 64, 0, 1, 0},
        {SPEC_C2C, 256, 0, 0, 0},     {SPEC_C2C, 1024, 0, 1, 0},    {SPEC_C2C, 2048, 0, 0, 0},
        {SPEC_C2C, 4096, 0, 0, 0},    {SPEC_C2C, 4096, 0, 1, 0},    {SPEC_R2C, 16, 0, 0, 0},
        {SPEC_R2C, 4096, 0, 0, 0},    {SPEC_C2R, 64, 0, 0, 0},      {SPEC_C2R, 4096, 0, 0, 0},
        {SPEC_DCT2, 32, 0, 0, 0},     {SPEC_DCT2, 2048, 0, 0, 0},   {SPEC_DCT3, 32, 0, 0, 0},
        {SPEC_DCT3, 2048, 0, 0, 0},   {SPEC_DHT, 128, 0, 0, 0},     {SPEC_DHT, 4096, 0, 0, 0},
        {SPEC_FFT2, 16, 16, 0, 0},    {SPEC_FFT2, 128, 64, 1, 0},   {SPEC_FFT2, 256, 512, 0, 0},
        {SPEC_CONV2D, 16, 7, 0, 0},   {SPEC_CONV2D, 32, 15, 0, 0},  {SPEC_CONV2D, 64, 31, 0, 0},
        {SPEC_CONV2D, 128, 63, 0, 0}, {SPEC_TRIDIAG, 4, 0, 0, 0},   {SPEC_TRIDIAG, 512, 0, 0, 0},
        {SPEC_TRIDIAG, 2048, 0, 0, 0},
        /* the norms' factors: ortho's on element 0 is applied by the host */
        {SPEC_DCT2, 64, 0, 0, SPEC_NORM_ORTHO},   {SPEC_DCT3, 64, 0, 0, SPEC_NORM_ORTHO},
        {SPEC_DCT2, 64, 0, 0, SPEC_NORM_FORWARD}, {SPEC_DCT3, 64, 0, 0, SPEC_NORM_FORWARD},
    };
    st_rng = (unsigned long long)time(NULL);
    int checks = 0, skipped = 0;
    fprintf(report, "spectral self-test on the CPU (limit: relative L2 error 10 eps log2 N, "
                    "tridiagonal 50 eps; seed %llu)\n",
            st_rng);
    int failures = selftest_cases(report, cpu_cases, ORR_ARRAY_LEN(cpu_cases), NULL, &checks,
                                  &skipped, err);
    spec_bound_ops bound;
    orr_status ds = ORR_OK;
    const spec_bound_ops *dev = device_of(be, &bound, err, &ds);
    /* a device that was wanted and could not be used fails the test: the
     * kernels that run there were not checked */
    const char *unchecked = no_device ? no_device->message : ds != ORR_OK ? err->message : NULL;
    if (unchecked) {
        fprintf(report, "device checks not run: %s\n", unchecked);
    } else if (dev) {
        fprintf(report, "on the device: %s (%s)\n", be->name, be->variant ? be->variant : "");
        failures += selftest_cases(report, device_cases, ORR_ARRAY_LEN(device_cases), dev, &checks,
                                   &skipped, err);
    } else {
        fprintf(report, "(no device kernels in this run: the CPU's only)\n");
    }
    if (unchecked)
        fprintf(report, "FAILED: the device checks could not run; %d of %d CPU kernel checks failed",
                failures, checks);
    else
        fprintf(report, "%s: %d of %d kernel checks failed", failures ? "FAILED" : "passed",
                failures, checks);
    if (skipped)
        fprintf(report, ", %d not on this device", skipped);
    fputc('\n', report);
    return failures + (unchecked != NULL);
}
