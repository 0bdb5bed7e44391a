/* Host side of the CUDA app's 2D spectral kinds (FFT2, CONV2D, TRIDIAG):
 * checks what the kernels take, uploads host buffers, poisons the output,
 * runs the launchers of spectral_2d.cu, downloads. Keeps the twiddle
 * tables and one growing device buffer between calls. */
#include "spectral_2d.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *tw[2];          /* ORR_CUDA_2D_TW_N roots: [0] double2, [1] float2 */
    void *buf;            /* device scratch for inputs and outputs */
    size_t buf_bytes;
    size_t smem_limit;    /* the device's opt-in shared memory per block */
} spec2d_state;

static orr_status spec2d_cuda_fail(orr_error *err, cudaError_t e, const char *what)
{
    return orr_fail(err, ORR_ERR_DEVICE, "CUDA: %s: %s (%s)", what, cudaGetErrorString(e),
                    cudaGetErrorName(e));
}

void orr_cuda_spec2d_release(void **state)
{
    spec2d_state *s = *state;
    if (!s)
        return;
    cudaFree(s->tw[0]);
    cudaFree(s->tw[1]);
    cudaFree(s->buf);
    free(s);
    *state = NULL;
}

/* The tables (the core's long-double roots, rounded once; float from
 * them) and the device's shared memory limit, once. */
static orr_status state_open(void **state, orr_error *err)
{
    if (*state)
        return ORR_OK;
    spec2d_state *s = calloc(1, sizeof *s);
    double *td = spec_root_table(ORR_CUDA_2D_TW_N, ORR_CUDA_2D_TW_N, -1);
    float *ts = malloc(2 * (size_t)ORR_CUDA_2D_TW_N * sizeof *ts);
    if (!s || !td || !ts) {
        free(s);
        free(td);
        free(ts);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < 2 * ORR_CUDA_2D_TW_N; k++)
        ts[k] = (float)td[k];
    int dev = 0, optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess)
        e = cudaMalloc(&s->tw[0], 2 * (size_t)ORR_CUDA_2D_TW_N * sizeof *td);
    if (e == cudaSuccess)
        e = cudaMalloc(&s->tw[1], 2 * (size_t)ORR_CUDA_2D_TW_N * sizeof *ts);
    if (e == cudaSuccess)
        e = cudaMemcpy(s->tw[0], td, 2 * (size_t)ORR_CUDA_2D_TW_N * sizeof *td,
                       cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(s->tw[1], ts, 2 * (size_t)ORR_CUDA_2D_TW_N * sizeof *ts,
                       cudaMemcpyHostToDevice);
    free(td);
    free(ts);
    s->smem_limit = optin > 0 ? (size_t)optin : 48 * 1024;
    *state = s;
    if (e != cudaSuccess) {
        orr_cuda_spec2d_release(state);
        return spec2d_cuda_fail(err, e, "uploading the 2D FFT twiddles");
    }
    return ORR_OK;
}

static size_t align_up(size_t bytes)
{
    return (bytes + 255) & ~(size_t)255;
}

/* Carves regions of the given sizes out of the state's buffer, growing it. */
static orr_status carve(spec2d_state *s, const size_t *bytes, int count, char **at,
                        orr_error *err)
{
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += align_up(bytes[i]);
    if (total > s->buf_bytes) {
        cudaFree(s->buf);
        s->buf = NULL;
        s->buf_bytes = 0;
        cudaError_t e = cudaMalloc(&s->buf, total);
        if (e != cudaSuccess)
            return spec2d_cuda_fail(err, e, "allocating the spectral buffers");
        s->buf_bytes = total;
    }
    char *p = s->buf;
    for (int i = 0; i < count; i++) {
        at[i] = p;
        p += align_up(bytes[i]);
    }
    return ORR_OK;
}

static int is_pow2(long n) { return n > 0 && (n & (n - 1)) == 0; }

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

static orr_status check_smem(const spec2d_state *s, const spec_desc *d, orr_error *err)
{
    const size_t need = orr_cuda_spec2d_smem(d->kind, d->precision == SPEC_F32, d->n, d->n2);
    if (need > s->smem_limit)
        return orr_fail(err, ORR_ERR_UNSUPPORTED,
                        "CUDA %s %d x %d (%s): needs %zu bytes of shared memory per block, the "
                        "device has %zu",
                        spec_kind_name(d->kind), d->n, d->n2,
                        d->precision == SPEC_F32 ? "f32" : "f64", need, s->smem_limit);
    return ORR_OK;
}

/* The launch's error, else the run's. */
static cudaError_t finish(int launched)
{
    cudaError_t e = (cudaError_t)launched;
    return e != cudaSuccess ? e : cudaDeviceSynchronize();
}

static orr_status run_fft2(spec2d_state *s, const spec_desc *d, const spec_buffers *b,
                           orr_error *err)
{
    const int single = d->precision == SPEC_F32;
    const size_t bytes = spec_out_reals(d) * d->batch * (single ? sizeof(float) : sizeof(double));
    const size_t sizes[2] = {bytes, bytes};
    char *dev[2];
    orr_status st = carve(s, sizes, 2, dev, err);
    if (st != ORR_OK)
        return st;
    cudaError_t e = cudaMemcpy(dev[0], b->in, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemset(dev[1], 0xff, bytes);   /* poison: every output must be written */
    if (e == cudaSuccess)
        e = finish(orr_cuda_fft2(single, d->n, d->n2, d->batch, d->inverse, dev[0], dev[1],
                                 s->tw[single]));
    if (e == cudaSuccess)
        e = cudaMemcpy(b->out, dev[1], bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return spec2d_cuda_fail(err, e, "running the 2D FFT");
    return ORR_OK;
}

static orr_status run_conv2d(spec2d_state *s, const spec_desc *d, const spec_buffers *b,
                             orr_error *err)
{
    const int single = d->precision == SPEC_F32, nf = d->n, m = d->n2;
    const size_t es = single ? sizeof(float) : sizeof(double);
    if (b->n_shapes < 1 || d->batch % b->n_shapes != 0)
        return orr_fail(err, ORR_ERR_USAGE,
                        "spectral conv2d: %d shape functions for %d slices (1, or a divisor: one "
                        "per group of consecutive slices)",
                        b->n_shapes, d->batch);
    const size_t slice_bytes = 2 * (size_t)m * m * d->batch * es;
    const size_t shape_bytes = (size_t)nf * nf * b->n_shapes * es;
    const size_t sizes[3] = {slice_bytes, shape_bytes, slice_bytes};
    char *dev[3];
    orr_status st = carve(s, sizes, 3, dev, err);
    if (st != ORR_OK)
        return st;
    void *perm = malloc(shape_bytes);
    if (!perm)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    permute_shapes(single, nf, b->n_shapes, b->shapes, perm);
    cudaError_t e = cudaMemcpy(dev[0], b->in, slice_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(dev[1], perm, shape_bytes, cudaMemcpyHostToDevice);
    free(perm);
    if (e == cudaSuccess)
        e = cudaMemset(dev[2], 0xff, slice_bytes);   /* poison */
    if (e == cudaSuccess)
        e = finish(orr_cuda_conv2d(single, nf, m, d->batch, d->batch / b->n_shapes, dev[0], dev[1],
                                   dev[2], s->tw[single]));
    if (e == cudaSuccess)
        e = cudaMemcpy(b->out, dev[2], slice_bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return spec2d_cuda_fail(err, e, "running the convolution");
    return ORR_OK;
}

static orr_status run_tridiag(spec2d_state *s, const spec_desc *d, const spec_buffers *b,
                              orr_error *err)
{
    const int single = d->precision == SPEC_F32;
    const size_t bytes = (size_t)d->n * d->batch * (single ? sizeof(float) : sizeof(double));
    const size_t sizes[5] = {bytes, bytes, bytes, bytes, bytes};
    char *dev[5];   /* dl, d, du, rhs, x */
    orr_status st = carve(s, sizes, 5, dev, err);
    if (st != ORR_OK)
        return st;
    cudaError_t e = cudaMemcpy(dev[0], b->dl, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(dev[1], b->d, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(dev[2], b->du, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)   /* the right-hand sides are in the output buffer, as cuSPARSE's */
        e = cudaMemcpy(dev[3], b->out, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemset(dev[4], 0xff, bytes);   /* poison */
    if (e == cudaSuccess)
        e = finish(
            orr_cuda_tridiag(single, d->n, d->batch, dev[0], dev[1], dev[2], dev[3], dev[4]));
    if (e == cudaSuccess)
        e = cudaMemcpy(b->out, dev[4], bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return spec2d_cuda_fail(err, e, "running the tridiagonal solver");
    return ORR_OK;
}

orr_status orr_cuda_spec2d_run(void **state, const spec_desc *d, const spec_buffers *b,
                               orr_error *err)
{
    switch (d->kind) {
    case SPEC_FFT2:
        if (!is_pow2(d->n) || !is_pow2(d->n2) || d->n < 2 || d->n2 < 2 ||
            d->n > ORR_CUDA_2D_TW_N || d->n2 > ORR_CUDA_2D_TW_N)
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "CUDA fft2: %d x %d: each side a power of two from 2 to %d", d->n,
                            d->n2, ORR_CUDA_2D_TW_N);
        if (!spec_is_packed(d))
            return orr_fail(err, ORR_ERR_UNSUPPORTED, "CUDA fft2: packed images only");
        break;
    case SPEC_CONV2D:
        if (!is_pow2(d->n) || d->n < 4 || d->n > ORR_CUDA_2D_TW_N || d->n2 < 1 || d->n2 % 2 == 0 ||
            2 * d->n2 - 1 > d->n)
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "CUDA conv2d: mfft %d, M = %d: mfft a power of two from 4 to %d, M "
                            "odd with 2M - 1 <= mfft",
                            d->n, d->n2, ORR_CUDA_2D_TW_N);
        break;
    case SPEC_TRIDIAG:
        if (d->n < 1 || d->n > ORR_CUDA_TRIDIAG_MAX_N)
            return orr_fail(err, ORR_ERR_UNSUPPORTED, "CUDA tridiag: %d rows (1 to %d)", d->n,
                            ORR_CUDA_TRIDIAG_MAX_N);
        break;
    default:
        return orr_fail(err, ORR_ERR_UNSUPPORTED, "CUDA 2D kernels: no %s kernel",
                        spec_kind_name(d->kind));
    }
    if (d->batch < 1)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: batch %d (at least 1)",
                        spec_kind_name(d->kind), d->batch);
    orr_status st = state_open(state, err);
    if (st != ORR_OK)
        return st;
    spec2d_state *s = *state;
    st = check_smem(s, d, err);
    if (st != ORR_OK)
        return st;
    switch (d->kind) {
    case SPEC_FFT2: return run_fft2(s, d, b, err);
    case SPEC_CONV2D: return run_conv2d(s, d, b, err);
    default: return run_tridiag(s, d, b, err);
    }
}
