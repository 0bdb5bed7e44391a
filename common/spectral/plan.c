/* Spectral plans on the CPU: validation of the description, the twiddle
 * tables (long double, rounded once), per-transform scratch, and the batch
 * loop around the kernels of fft_generic.h (built for double and float).
 * Each transform of a batch is gathered into contiguous scratch, computed
 * and scattered, so strides and in-place runs cost one copy each way and
 * never change a result bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spectral.h"

#define R double
#define SUFFIX f64
#include "fft_generic.h"
#undef R
#undef SUFFIX
#define R float
#define SUFFIX f32
#include "fft_generic.h"
#undef R
#undef SUFFIX

#define MAX_LOG2_1D 20
#define MAX_2D 4096

struct spec_plan {
    spec_desc d;
    int stride;
    double *tw;       /* e^{-2 pi j k / N}, k < N (the kind's FFT length) */
    double *tw2;      /* 2D: the column length's table */
    double *qt;       /* DCT: e^{-j pi k / (2N)} */
    void *work;       /* scratch for one transform */
};

static const char *const kind_names[SPEC_KIND_COUNT] = {"c2c",  "r2c", "c2r",  "dct2",   "dct3",
                                                        "dht",  "fft2", "conv2d", "tridiag"};

const char *spec_kind_name(spec_kind k)
{
    return (unsigned)k < SPEC_KIND_COUNT ? kind_names[k] : "?";
}

int spec_kind_from_name(const char *name)
{
    for (int k = 0; k < SPEC_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}

static int is_pow2(long n) { return n > 0 && (n & (n - 1)) == 0; }

static int is_complex_in(spec_kind k)
{
    return k == SPEC_C2C || k == SPEC_C2R || k == SPEC_FFT2 || k == SPEC_CONV2D;
}

static int is_complex_out(spec_kind k)
{
    return k == SPEC_C2C || k == SPEC_R2C || k == SPEC_FFT2 || k == SPEC_CONV2D;
}

size_t spec_in_reals(const spec_desc *d)
{
    switch (d->kind) {
    case SPEC_C2R: return 2 * ((size_t)d->n / 2 + 1);
    case SPEC_FFT2: return 2 * (size_t)d->n * d->n2;
    case SPEC_CONV2D: return 2 * (size_t)d->n2 * d->n2;
    default: return (is_complex_in(d->kind) ? 2 : 1) * (size_t)d->n;
    }
}

size_t spec_out_reals(const spec_desc *d)
{
    switch (d->kind) {
    case SPEC_R2C: return 2 * ((size_t)d->n / 2 + 1);
    case SPEC_FFT2: return 2 * (size_t)d->n * d->n2;
    case SPEC_CONV2D: return 2 * (size_t)d->n2 * d->n2;
    default: return (is_complex_out(d->kind) ? 2 : 1) * (size_t)d->n;
    }
}

double *spec_root_table(long count, long den, int sign)
{
    double *t = malloc(2 * (size_t)count * sizeof *t);
    if (!t)
        return NULL;
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (long k = 0; k < count; k++) {
        const long double a = two_pi * (long double)k / (long double)den;
        t[2 * k] = (double)cosl(a);
        t[2 * k + 1] = (double)(sign * sinl(a));
    }
    return t;
}

static orr_status check_desc(const spec_desc *d, orr_error *err)
{
    const char *kind = spec_kind_name(d->kind);
    if ((unsigned)d->kind >= SPEC_KIND_COUNT)
        return orr_fail(err, ORR_ERR_USAGE, "spectral: unknown kind %d", (int)d->kind);
    if (d->precision != SPEC_F64 && d->precision != SPEC_F32)
        return orr_fail(err, ORR_ERR_USAGE, "spectral: unknown precision %d", (int)d->precision);
    if (d->batch < 1)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: batch %d (at least 1)", kind, d->batch);
    if (d->stride < 0)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: negative stride", kind);
    switch (d->kind) {
    case SPEC_FFT2:
        if (!is_pow2(d->n) || !is_pow2(d->n2) || d->n < 2 || d->n2 < 2 || d->n > MAX_2D ||
            d->n2 > MAX_2D)
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "spectral fft2: %d x %d: each side a power of two from 2 to %d", d->n,
                            d->n2, MAX_2D);
        break;
    case SPEC_CONV2D:
        if (!is_pow2(d->n) || d->n > MAX_2D)
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "spectral conv2d: mfft %d: a power of two up to %d", d->n, MAX_2D);
        if (d->n2 < 1 || d->n2 % 2 == 0 || 2 * d->n2 - 1 > d->n)
            return orr_fail(err, ORR_ERR_USAGE,
                            "spectral conv2d: M = %d: odd, with 2M - 1 <= mfft (%d)", d->n2, d->n);
        break;
    case SPEC_TRIDIAG:
        if (d->n < 1 || d->n > (1 << MAX_LOG2_1D))
            return orr_fail(err, ORR_ERR_UNSUPPORTED, "spectral tridiag: %d rows (1 to %d)", d->n,
                            1 << MAX_LOG2_1D);
        break;
    default: {
        const int min = d->kind == SPEC_C2C ? 2 : 4;
        if (!is_pow2(d->n) || d->n < min || d->n > (1 << MAX_LOG2_1D))
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "spectral %s: N = %d: a power of two from %d to %d (other sizes are "
                            "not supported yet)",
                            kind, d->n, min, 1 << MAX_LOG2_1D);
    }
    }
    return ORR_OK;
}

orr_status spec_plan_create(const spec_desc *desc, spec_plan **plan, orr_error *err)
{
    *plan = NULL;
    orr_status s = check_desc(desc, err);
    if (s != ORR_OK)
        return s;
    spec_plan *p = calloc(1, sizeof *p);
    if (!p)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    p->d = *desc;
    p->stride = desc->stride > 0 ? desc->stride : 1;
    if (p->d.in_dist == 0)
        p->d.in_dist = (ptrdiff_t)spec_in_reals(desc) * p->stride / (is_complex_in(desc->kind) ? 2 : 1);
    if (p->d.out_dist == 0)
        p->d.out_dist = (ptrdiff_t)spec_out_reals(desc) * p->stride / (is_complex_out(desc->kind) ? 2 : 1);
    const int n = desc->n;
    size_t work = 0;   /* in doubles */
    int ok = 1;
    switch (desc->kind) {
    case SPEC_C2C:
        ok = (p->tw = spec_root_table(n, n, -1)) != NULL;
        work = 4 * (size_t)n + 8;
        break;
    case SPEC_R2C:
    case SPEC_C2R:
    case SPEC_DHT:
        ok = (p->tw = spec_root_table(n, n, -1)) != NULL;
        work = 12 * (size_t)n + 16;   /* see the batch loop's layout */
        break;
    case SPEC_DCT2:
    case SPEC_DCT3:
        ok = (p->tw = spec_root_table(n, n, -1)) != NULL && (p->qt = spec_root_table(n, 4 * (long)n, -1)) != NULL;
        work = 12 * (size_t)n + 16;
        break;
    case SPEC_FFT2:
        ok = (p->tw = spec_root_table(desc->n2, desc->n2, -1)) != NULL &&
             (p->tw2 = spec_root_table(n, n, -1)) != NULL;
        work = 2 * (size_t)n * desc->n2 + 4 * (size_t)(n > desc->n2 ? n : desc->n2);
        break;
    case SPEC_CONV2D:
        ok = (p->tw = spec_root_table(n, n, -1)) != NULL;
        work = 2 * (size_t)n * n + 4 * (size_t)n;
        break;
    case SPEC_TRIDIAG:
        work = (size_t)n;
        break;
    default:
        break;
    }
    if (ok)
        ok = (p->work = malloc((work + 8) * sizeof(double))) != NULL;
    if (!ok) {
        spec_plan_destroy(p);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for a spectral plan");
    }
    *plan = p;
    return ORR_OK;
}

void spec_plan_destroy(spec_plan *p)
{
    if (!p)
        return;
    free(p->tw);
    free(p->tw2);
    free(p->qt);
    free(p->work);
    free(p);
}

const spec_desc *spec_plan_desc(const spec_plan *p) { return &p->d; }

/* The batch loop, per precision: gather -> kernel -> scatter. */
#define BATCH_LOOP(R, SUFFIX)                                                                  \
    static void batch_##SUFFIX(const spec_plan *p, const R *in, R *out)                        \
    {                                                                                          \
        const spec_desc *d = &p->d;                                                            \
        const int n = d->n, st = p->stride;                                                    \
        const int cin = is_complex_in(d->kind) ? 2 : 1, cout = is_complex_out(d->kind) ? 2 : 1; \
        const size_t nin = spec_in_reals(d) / cin, nout = spec_out_reals(d) / cout;            \
        R *w = p->work;                                                                        \
        for (int t = 0; t < d->batch; t++) {                                                   \
            const R *src = in + (ptrdiff_t)t * d->in_dist * cin;                               \
            R *dst = out + (ptrdiff_t)t * d->out_dist * cout;                                  \
            /* w: the gathered input a (2n + 4 reals), then b: FFT buffer cz and scratch  \
             * cs (n complex each), spectrum sp (n/2 + 1 complex), outputs (2n reals) */ \
            R *a = w, *b = w + 2 * (size_t)n + 4;                                              \
            for (size_t i = 0; i < nin; i++)                                                   \
                for (int c = 0; c < cin; c++)                                                  \
                    a[cin * i + c] = src[(size_t)cin * st * i + c];                            \
            R *res = a;                                                                        \
            cpx_##SUFFIX *cz = (cpx_##SUFFIX *)b, *cs = cz + n, *sp = cs + n;                  \
            switch (d->kind) {                                                                 \
            case SPEC_C2C: {                                                                   \
                fft_##SUFFIX((cpx_##SUFFIX *)a, cz, n, p->tw, 1, d->inverse ? 1 : -1);         \
                if (d->inverse)                                                                \
                    for (int i = 0; i < 2 * n; i++)                                            \
                        a[i] /= (R)n;                                                          \
                break;                                                                         \
            }                                                                                  \
            case SPEC_R2C: {                                                                   \
                R *o = (R *)(sp + n / 2 + 1);                                                  \
                r2c_##SUFFIX(a, (cpx_##SUFFIX *)o, cz, cs, n, p->tw);                           \
                res = o;                                                                       \
                break;                                                                         \
            }                                                                                  \
            case SPEC_C2R: {                                                                   \
                R *o = (R *)(sp + n / 2 + 1);                                                  \
                c2r_##SUFFIX((cpx_##SUFFIX *)a, o, cz, cs, n, p->tw);                           \
                res = o;                                                                       \
                break;                                                                         \
            }                                                                                  \
            case SPEC_DHT: {                                                                   \
                R *o = (R *)(sp + n / 2 + 1);                                                  \
                dht_##SUFFIX(a, o, sp, cz, cs, n, p->tw);                                      \
                res = o;                                                                       \
                break;                                                                         \
            }                                                                                  \
            case SPEC_DCT2:                                                                    \
            case SPEC_DCT3: {                                                                  \
                R *o = (R *)(sp + n / 2 + 1), *v = o + n;                                      \
                if (d->kind == SPEC_DCT2)                                                      \
                    dct2_##SUFFIX(a, o, v, sp, cz, cs, n, p->tw, p->qt);                       \
                else                                                                           \
                    dct3_##SUFFIX(a, o, v, sp, cz, cs, n, p->tw, p->qt);                       \
                res = o;                                                                       \
                break;                                                                         \
            }                                                                                  \
            default:                                                                           \
                break;                                                                         \
            }                                                                                  \
            for (size_t i = 0; i < nout; i++)                                                  \
                for (int c = 0; c < cout; c++)                                                 \
                    dst[(size_t)cout * st * i + c] = res[cout * i + c];                        \
        }                                                                                      \
    }
BATCH_LOOP(double, f64)
BATCH_LOOP(float, f32)

/* 2D: rows, then columns gathered one at a time. Data are packed
 * (stride 1) N1 x N2 row-major per transform. */
#define FFT2_LOOP(R, SUFFIX)                                                                   \
    static void fft2_batch_##SUFFIX(const spec_plan *p, const R *in, R *out)                   \
    {                                                                                          \
        const spec_desc *d = &p->d;                                                            \
        const int n1 = d->n, n2 = d->n2, sign = d->inverse ? 1 : -1;                           \
        const int longest = n1 > n2 ? n1 : n2;                                                 \
        cpx_##SUFFIX *img = p->work, *col = img + (size_t)n1 * n2, *scratch = col + longest;  \
        for (int t = 0; t < d->batch; t++) {                                                   \
            const R *src = in + (ptrdiff_t)t * d->in_dist * 2;                                 \
            R *dst = out + (ptrdiff_t)t * d->out_dist * 2;                                     \
            memcpy(img, src, (size_t)n1 * n2 * sizeof *img);                                   \
            for (int r = 0; r < n1; r++)                                                       \
                fft_##SUFFIX(img + (size_t)r * n2, scratch, n2, p->tw, 1, sign);               \
            for (int c = 0; c < n2; c++) {                                                     \
                for (int r = 0; r < n1; r++)                                                   \
                    col[r] = img[(size_t)r * n2 + c];                                          \
                fft_##SUFFIX(col, scratch, n1, p->tw2, 1, sign);                               \
                for (int r = 0; r < n1; r++)                                                   \
                    img[(size_t)r * n2 + c] = col[r];                                          \
            }                                                                                  \
            if (d->inverse) {                                                                  \
                const R scale = (R)1 / ((R)n1 * (R)n2);                                        \
                for (size_t i = 0; i < (size_t)n1 * n2; i++) {                                 \
                    img[i].re *= scale;                                                        \
                    img[i].im *= scale;                                                        \
                }                                                                              \
            }                                                                                  \
            memcpy(dst, img, (size_t)n1 * n2 * sizeof *img);                                   \
        }                                                                                      \
    }
FFT2_LOOP(double, f64)
FFT2_LOOP(float, f32)

orr_status spec_execute(const spec_plan *p, const void *in, void *out, orr_error *err)
{
    const spec_desc *d = &p->d;
    if (d->kind == SPEC_CONV2D || d->kind == SPEC_TRIDIAG)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: use spec_%s", spec_kind_name(d->kind),
                        spec_kind_name(d->kind));
    if (d->kind == SPEC_FFT2) {
        if (p->stride != 1)
            return orr_fail(err, ORR_ERR_UNSUPPORTED, "spectral fft2: strided data not supported");
        if (d->precision == SPEC_F64)
            fft2_batch_f64(p, in, out);
        else
            fft2_batch_f32(p, in, out);
        return ORR_OK;
    }
    if (d->precision == SPEC_F64)
        batch_f64(p, in, out);
    else
        batch_f32(p, in, out);
    return ORR_OK;
}

/* EDM convolution: pad the M x M modes into mfft x mfft (mode m at index
 * m mod mfft), FFT2, multiply by S, inverse FFT2 (unscaled), crop, scale. */
#define CONV_LOOP(R, SUFFIX)                                                                   \
    static void conv_##SUFFIX(const spec_plan *p, const R *slices, const R *shapes,            \
                              int n_shapes, R *out)                                            \
    {                                                                                          \
        const spec_desc *d = &p->d;                                                            \
        const int nf = d->n, m = d->n2, h = (m - 1) / 2;                                       \
        const int per_shape = d->batch / n_shapes;                                             \
        cpx_##SUFFIX *img = p->work, *col = img + (size_t)nf * nf, *scratch = col + nf;        \
        const R scale = (R)1 / ((R)nf * (R)nf);                                                \
        for (int t = 0; t < d->batch; t++) {                                                   \
            const R *x = slices + (size_t)t * 2 * m * m;                                       \
            const R *shape = shapes + (size_t)(t / per_shape) * nf * nf;                       \
            memset(img, 0, (size_t)nf * nf * sizeof *img);                                     \
            for (int a = 0; a < m; a++)                                                        \
                for (int b = 0; b < m; b++) {                                                  \
                    const int r = (a - h + nf) % nf, c = (b - h + nf) % nf;                    \
                    img[(size_t)r * nf + c].re = x[2 * ((size_t)a * m + b)];                   \
                    img[(size_t)r * nf + c].im = x[2 * ((size_t)a * m + b) + 1];               \
                }                                                                              \
            for (int pass = 0; pass < 2; pass++) {                                             \
                const int sign = pass == 0 ? -1 : 1;                                           \
                for (int r = 0; r < nf; r++)                                                   \
                    fft_##SUFFIX(img + (size_t)r * nf, scratch, nf, p->tw, 1, sign);           \
                for (int c = 0; c < nf; c++) {                                                 \
                    for (int r = 0; r < nf; r++)                                               \
                        col[r] = img[(size_t)r * nf + c];                                      \
                    fft_##SUFFIX(col, scratch, nf, p->tw, 1, sign);                            \
                    for (int r = 0; r < nf; r++)                                               \
                        img[(size_t)r * nf + c] = col[r];                                      \
                }                                                                              \
                if (pass == 0)                                                                 \
                    for (size_t i = 0; i < (size_t)nf * nf; i++) {                             \
                        img[i].re *= shape[i];                                                 \
                        img[i].im *= shape[i];                                                 \
                    }                                                                          \
            }                                                                                  \
            R *y = out + (size_t)t * 2 * m * m;                                                \
            for (int a = 0; a < m; a++)                                                        \
                for (int b = 0; b < m; b++) {                                                  \
                    const int r = (a - h + nf) % nf, c = (b - h + nf) % nf;                    \
                    y[2 * ((size_t)a * m + b)] = img[(size_t)r * nf + c].re * scale;           \
                    y[2 * ((size_t)a * m + b) + 1] = img[(size_t)r * nf + c].im * scale;       \
                }                                                                              \
        }                                                                                      \
    }
CONV_LOOP(double, f64)
CONV_LOOP(float, f32)

orr_status spec_conv2d(const spec_plan *p, const void *slices, const void *shapes, int n_shapes,
                       void *out, orr_error *err)
{
    const spec_desc *d = &p->d;
    if (d->kind != SPEC_CONV2D)
        return orr_fail(err, ORR_ERR_USAGE, "spec_conv2d: the plan is for %s", spec_kind_name(d->kind));
    if (n_shapes < 1 || d->batch % n_shapes != 0)
        return orr_fail(err, ORR_ERR_USAGE,
                        "spectral conv2d: %d shape functions for %d slices (1, or a divisor: one "
                        "per group of consecutive slices)",
                        n_shapes, d->batch);
    if (d->precision == SPEC_F64)
        conv_f64(p, slices, shapes, n_shapes, out);
    else
        conv_f32(p, slices, shapes, n_shapes, out);
    return ORR_OK;
}

orr_status spec_tridiag(const spec_plan *p, const void *dl, const void *d, const void *du,
                        void *rhs, orr_error *err)
{
    const spec_desc *ds = &p->d;
    if (ds->kind != SPEC_TRIDIAG)
        return orr_fail(err, ORR_ERR_USAGE, "spec_tridiag: the plan is for %s",
                        spec_kind_name(ds->kind));
    const int n = ds->n;
    for (int s = 0; s < ds->batch; s++) {
        const size_t o = (size_t)s * n;
        if (ds->precision == SPEC_F64)
            thomas_f64((const double *)dl + o, (const double *)d + o, (const double *)du + o,
                       (double *)rhs + o, p->work, n);
        else
            thomas_f32((const float *)dl + o, (const float *)d + o, (const float *)du + o,
                       (float *)rhs + o, p->work, n);
    }
    return ORR_OK;
}

orr_status spec_run(const spec_plan *p, const spec_buffers *b, orr_error *err)
{
    switch (p->d.kind) {
    case SPEC_CONV2D: return spec_conv2d(p, b->in, b->shapes, b->n_shapes, b->out, err);
    case SPEC_TRIDIAG: return spec_tridiag(p, b->dl, b->d, b->du, b->out, err);
    default: return spec_execute(p, b->in, b->out, err);
    }
}

/* Layout of one side of desc in reals: per element (1 or 2), elements per
 * transform, and the distances between elements and transforms. */
typedef struct {
    size_t width, count, stride, dist;
} side_layout;

static side_layout layout_of(const spec_desc *d, int output)
{
    const int cpx = output ? is_complex_out(d->kind) : is_complex_in(d->kind);
    side_layout l;
    l.width = cpx ? 2 : 1;
    l.count = (output ? spec_out_reals(d) : spec_in_reals(d)) / l.width;
    /* the convolution, the tridiagonal solver and 2D plans are packed */
    const int strided = d->kind != SPEC_CONV2D && d->kind != SPEC_TRIDIAG && d->kind != SPEC_FFT2;
    l.stride = strided && d->stride > 0 ? (size_t)d->stride : 1;
    const ptrdiff_t dist = strided ? (output ? d->out_dist : d->in_dist) : 0;
    l.dist = dist > 0 ? (size_t)dist : l.count * l.stride;
    return l;
}

int spec_is_packed(const spec_desc *d)
{
    const side_layout i = layout_of(d, 0), o = layout_of(d, 1);
    return i.stride == 1 && o.stride == 1 && i.dist == i.count && o.dist == o.count;
}

static void copy_layout(const spec_desc *d, int output, const void *from, void *to, int pack)
{
    const side_layout l = layout_of(d, output);
    const size_t es = d->precision == SPEC_F32 ? sizeof(float) : sizeof(double);
    const size_t item = l.width * es;
    const char *src = from;
    char *dst = to;
    for (int t = 0; t < d->batch; t++)
        for (size_t i = 0; i < l.count; i++) {
            const size_t packed = ((size_t)t * l.count + i) * item;
            const size_t laid = ((size_t)t * l.dist + i * l.stride) * item;
            memcpy(dst + (pack ? packed : laid), src + (pack ? laid : packed), item);
        }
}

void spec_pack_input(const spec_desc *d, const void *in, void *packed)
{
    copy_layout(d, 0, in, packed, 1);
}

void spec_unpack_output(const spec_desc *d, const void *packed, void *out)
{
    copy_layout(d, 1, packed, out, 0);
}
