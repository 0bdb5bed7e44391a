/* The spectral kernels' CUDA launches, as the shared GPU policy calls them
 * (common/spectral/device.h): which sizes the kernels take, the twiddles
 * they read (double2 always: the single-precision kernels' long
 * recurrences are seeded from it; float2 too in single precision), the
 * convolution's shapes in the kernel's permuted order and the tridiagonal
 * systems' diagonals, in buffers kept between runs. */
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "../device_cuda.h"
#include "spectral/device.h"
#include "spectral_1d.h"
#include "spectral_2d.h"

#define MAX_1D 4096

typedef struct {
    size_t smem_limit;      /* the device's opt-in shared memory per block */
    orr_dbuf shapes;        /* CONV2D: the permuted shapes */
    orr_dbuf diagonals;     /* TRIDIAG: dl, d, du */
    orr_dbuf status;        /* TRIDIAG: an int a system, 0 or -1 (a breakdown) */
} cuda_spec;

static int is_pow2(long n) { return n > 0 && (n & (n - 1)) == 0; }

static orr_status unsupported(orr_error *err, const spec_desc *d, const char *why)
{
    return orr_fail(err, ORR_ERR_UNSUPPORTED, "CUDA %s: %d x %d: %s", spec_kind_name(d->kind),
                    d->n, d->n2, why);
}

static orr_status check_smem(const cuda_spec *c, const spec_desc *d, orr_error *err)
{
    const size_t need = orr_cuda_spec2d_smem(d->kind, d->precision == SPEC_F32, d->n, d->n2);
    if (need > c->smem_limit)
        return orr_fail(err, ORR_ERR_UNSUPPORTED,
                        "CUDA %s %d x %d (%s): needs %zu bytes of shared memory per block, the "
                        "device has %zu",
                        spec_kind_name(d->kind), d->n, d->n2,
                        d->precision == SPEC_F32 ? "f32" : "f64", need, c->smem_limit);
    return ORR_OK;
}

static orr_status check(orr_device *dev, void *kern, const spec_desc *d, orr_error *err)
{
    (void)dev;
    switch (d->kind) {
    case SPEC_FFT2:
        if (!is_pow2(d->n) || !is_pow2(d->n2) || d->n < 2 || d->n2 < 2 ||
            d->n > ORR_CUDA_2D_TW_N || d->n2 > ORR_CUDA_2D_TW_N)
            return unsupported(err, d, "each side a power of two from 2 to 4096");
        return check_smem(kern, d, err);
    case SPEC_CONV2D:
        if (!is_pow2(d->n) || d->n < 4 || d->n > ORR_CUDA_2D_TW_N || d->n2 < 1 ||
            d->n2 % 2 == 0 || 2 * d->n2 - 1 > d->n)
            return unsupported(err, d, "mfft a power of two from 4 to 4096, M odd, 2M - 1 <= mfft");
        return check_smem(kern, d, err);
    case SPEC_TRIDIAG:
        if (d->n < 1 || d->n > ORR_CUDA_TRIDIAG_MAX_N)
            return unsupported(err, d, "1 to 2048 rows");
        return check_smem(kern, d, err);
    default:
        if (d->n < 4 || d->n > MAX_1D || !is_pow2(d->n))
            return unsupported(err, d, "N a power of two from 4 to 4096");
        return ORR_OK;
    }
}

/* The twiddles of (n, den) as double2, and as float2 in single precision. */
static orr_status twiddles(orr_device *dev, const spec_device_io *io, const spec_desc *d, int n,
                           long den, orr_dmem tw[2], orr_error *err)
{
    tw[1] = NULL;
    orr_status s = spec_device_table_get(dev, io->tables, SPEC_F64, n, den, &tw[0], err);
    if (s == ORR_OK && d->precision == SPEC_F32)
        s = spec_device_table_get(dev, io->tables, SPEC_F32, n, den, &tw[1], err);
    return s;
}

static int real_kind(spec_kind k)
{
    switch (k) {
    case SPEC_R2C: return ORR_CUDA_R2C;
    case SPEC_C2R: return ORR_CUDA_C2R;
    case SPEC_DCT2: return ORR_CUDA_DCT2;
    case SPEC_DCT3: return ORR_CUDA_DCT3;
    default: return ORR_CUDA_DHT;
    }
}

static orr_status enqueue_1d(orr_device *dev, const spec_desc *d, const spec_device_io *io,
                             orr_error *err)
{
    const int single = d->precision == SPEC_F32;
    orr_dmem tw[2], qt[2] = {NULL, NULL};
    orr_status s = twiddles(dev, io, d, d->n, d->n, tw, err);
    if (s == ORR_OK && (d->kind == SPEC_DCT2 || d->kind == SPEC_DCT3))
        s = twiddles(dev, io, d, d->n, 4L * d->n, qt, err);
    if (s != ORR_OK)
        return s;
    int e = d->kind == SPEC_C2C
                ? orr_cuda_fft_c2c(single, d->n, d->batch, d->inverse, io->in, io->out, tw[0], tw[1])
                : orr_cuda_fft_real(real_kind(d->kind), single, d->n, d->batch, io->in, io->out,
                                    tw[0], tw[1], qt[0], qt[1]);
    return e ? orr_cuda_fail(err, e, "launching the FFT") : ORR_OK;
}

static int log2_of(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

static int bit_reverse(int k, int bits)
{
    int r = 0;
    for (int b = 0; b < bits; b++)
        r |= ((k >> b) & 1) << (bits - 1 - b);
    return r;
}

/* shapes_perm[q][p] = S[rev q][rev p] for each of count mfft x mfft arrays */
static void permute_shapes(int single, int nf, int count, const void *shapes, void *perm)
{
    const int bits = log2_of(nf);
    for (int t = 0; t < count; t++)
        for (int q = 0; q < nf; q++)
            for (int p = 0; p < nf; p++) {
                const size_t to = ((size_t)t * nf + q) * nf + p;
                const size_t from =
                    ((size_t)t * nf + bit_reverse(q, bits)) * nf + bit_reverse(p, bits);
                if (single)
                    ((float *)perm)[to] = ((const float *)shapes)[from];
                else
                    ((double *)perm)[to] = ((const double *)shapes)[from];
            }
}

static orr_status enqueue_conv2d(orr_device *dev, cuda_spec *c, const spec_desc *d,
                                 const spec_buffers *b, const spec_device_io *io, orr_error *err)
{
    const int single = d->precision == SPEC_F32, nf = d->n;
    if (b->n_shapes < 1 || d->batch % b->n_shapes != 0)
        return orr_fail(err, ORR_ERR_USAGE,
                        "spectral conv2d: %d shape functions for %d slices (1, or a divisor: one "
                        "per group of consecutive slices)",
                        b->n_shapes, d->batch);
    const size_t bytes = (size_t)nf * nf * b->n_shapes * (single ? sizeof(float) : sizeof(double));
    void *perm = malloc(bytes);
    orr_dmem tw[2];
    orr_status s = perm ? orr_dbuf_reserve(dev, &c->shapes, bytes, err)
                        : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (s == ORR_OK) {
        permute_shapes(single, nf, b->n_shapes, b->shapes, perm);
        s = dev->api->upload(dev, c->shapes.mem, 0, perm, bytes, err);
    }
    free(perm);
    if (s == ORR_OK)
        s = spec_device_table_get(dev, io->tables, d->precision, ORR_CUDA_2D_TW_N,
                                  ORR_CUDA_2D_TW_N, &tw[0], err);
    if (s != ORR_OK)
        return s;
    int e = orr_cuda_conv2d(single, nf, d->n2, d->batch, d->batch / b->n_shapes, io->in,
                            c->shapes.mem, io->out, tw[0]);
    return e ? orr_cuda_fail(err, e, "launching the convolution") : ORR_OK;
}

static orr_status enqueue_tridiag(orr_device *dev, cuda_spec *c, const spec_desc *d,
                                  const spec_buffers *b, const spec_device_io *io, orr_error *err)
{
    const size_t bytes = io->in_bytes, status_bytes = (size_t)d->batch * sizeof(int);
    orr_status s = orr_dbuf_reserve(dev, &c->diagonals, 3 * bytes, err);
    if (s == ORR_OK)
        s = orr_dbuf_reserve(dev, &c->status, status_bytes, err);
    char *diag = c->diagonals.mem;
    if (s == ORR_OK)
        s = dev->api->upload(dev, diag, 0, b->dl, bytes, err);
    if (s == ORR_OK)
        s = dev->api->upload(dev, diag, bytes, b->d, bytes, err);
    if (s == ORR_OK)
        s = dev->api->upload(dev, diag, 2 * bytes, b->du, bytes, err);
    if (s == ORR_OK)   /* the kernel writes only the systems that break down */
        s = dev->api->fill(dev, c->status.mem, 0, status_bytes, err);
    if (s != ORR_OK)
        return s;
    int e = orr_cuda_tridiag(d->precision == SPEC_F32, d->n, d->batch, diag, diag + bytes,
                             diag + 2 * bytes, io->in, io->out, c->status.mem);
    return e ? orr_cuda_fail(err, e, "launching the tridiagonal solver") : ORR_OK;
}

static orr_status tridiag_status(orr_device *dev, void *kern, const spec_desc *d, int *status,
                                 orr_error *err)
{
    const cuda_spec *c = kern;
    return dev->api->download(dev, status, c->status.mem, 0, (size_t)d->batch * sizeof(int), err);
}

static orr_status enqueue(orr_device *dev, void *kern, const spec_desc *d, const spec_buffers *b,
                          const spec_device_io *io, orr_error *err)
{
    orr_dmem tw;
    orr_status s;
    switch (d->kind) {
    case SPEC_FFT2:
        s = spec_device_table_get(dev, io->tables, d->precision, ORR_CUDA_2D_TW_N,
                                  ORR_CUDA_2D_TW_N, &tw, err);
        if (s == ORR_OK) {
            int e = orr_cuda_fft2(d->precision == SPEC_F32, d->n, d->n2, d->batch, d->inverse,
                                  io->in, io->out, tw);
            s = e ? orr_cuda_fail(err, e, "launching the 2D FFT") : ORR_OK;
        }
        return s;
    case SPEC_CONV2D: return enqueue_conv2d(dev, kern, d, b, io, err);
    case SPEC_TRIDIAG: return enqueue_tridiag(dev, kern, d, b, io, err);
    default: return enqueue_1d(dev, d, io, err);
    }
}

static void release(orr_device *dev, void *kern)
{
    cuda_spec *c = kern;
    orr_dbuf_free(dev, &c->shapes);
    orr_dbuf_free(dev, &c->diagonals);
    orr_dbuf_free(dev, &c->status);
    free(c);
}

static const spec_device_kernels cuda_spec_kernels = {check, enqueue, release, tridiag_status};

orr_status spec_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    orr_device *dev = be->ctx;
    cuda_spec *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    int optin = 0;
    cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                           orr_cuda_device_number(dev));
    if (e != cudaSuccess) {
        free(c);
        return orr_cuda_fail(err, e, "reading the shared memory limit");
    }
    c->smem_limit = optin > 0 ? (size_t)optin : 48 * 1024;
    return spec_device_attach(dev, &cuda_spec_kernels, c, slot, err);
}
