/* The CUDA 2D spectral kernels (app_cuda/spectral/spectral_2d.cuh) against the
 * vendor libraries on the same device in the same run: batched 2D FFT
 * against cufftPlanMany, the fused EDM convolution against the same
 * pipeline built from cuFFT calls (pad, forward 2D FFT, multiply by S,
 * inverse, crop and scale), the batched tridiagonal solver against
 * cusparse<t>gtsv2StridedBatch. Data resident, one warm-up, median of 21
 * launches; bandwidth counts the minimum traffic (each input read once,
 * each output written once) against a device-to-device copy measured
 * here. Errors: relative L2 against the long-double references of
 * liborrery on a few transforms (sampled entries for the 2D FFT), in eps.
 * Outputs are poisoned (0xff bytes: NaN) before the checked run. Each
 * row: the kernels the app runs (their shape in the last column).
 * Usage: bench/spectral/cuda_spectral2d_bench [DEVICE] */
#include <cufft.h>
#include <cusparse.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../app_cuda/spectral/spectral_2d.cuh"
extern "C" {
#include "spectral/spectral.h"
}
#include "../../app_cuda/spectral/spectral_harness.cuh"

#define CHECK_FFT(call)                                                                    \
    do {                                                                                   \
        cufftResult r_ = (call);                                                           \
        if (r_ != CUFFT_SUCCESS) {                                                         \
            fprintf(stderr, "%s: cuFFT error %d\n", #call, (int)r_);                        \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define CHECK_SP(call)                                                                     \
    do {                                                                                   \
        cusparseStatus_t r_ = (call);                                                      \
        if (r_ != CUSPARSE_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "%s: cuSPARSE error %d\n", #call, (int)r_);                     \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define RUNS 21

static unsigned long long rng = 0x2545F4914F6CDD1DULL;
static double uniform(void)   /* [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

template <typename T> static T *fill_host(size_t count, double add)
{
    T *h = (T *)malloc(count * sizeof(T));
    if (!h) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        h[i] = (T)(uniform() + add);
    return h;
}

template <typename T> static void *to_device(const T *h, size_t count)
{
    void *d;
    CHECK(cudaMalloc(&d, count * sizeof(T)));
    CHECK(cudaMemcpy(d, h, count * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static T *to_host(const void *d, size_t count)
{
    T *h = (T *)malloc(count * sizeof(T));
    CHECK(cudaMemcpy(h, d, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

/* ratio of relative L2 error to the precision's eps */
template <typename T> static double in_eps(long double num, long double den)
{
    const double eps = sizeof(T) == 4 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
    return den > 0 ? (double)sqrtl(num / den) / eps : INFINITY;
}

/* ---- 2D FFT ---- */

/* Error of image t of got (n x n) against the long-double DFT of x at 16
 * sampled entries. */
template <typename T>
static void fft2_error(int n, const T *x, const T *got, int inverse, long double *num,
                       long double *den)
{
    const long double two_pi = 6.283185307179586476925286766559005768L;
    const int sign = inverse ? 1 : -1;
    long double *cs = (long double *)malloc(2 * (size_t)n * sizeof(long double));
    for (int k = 0; k < n; k++) {
        cs[2 * k] = cosl(two_pi * k / n);
        cs[2 * k + 1] = sinl(two_pi * k / n);
    }
    for (int s = 0; s < 16; s++) {
        const int k1 = (int)((uniform() + 1) / 2 * n) % n, k2 = (int)((uniform() + 1) / 2 * n) % n;
        long double re = 0, im = 0;
        for (int i1 = 0; i1 < n; i1++)
            for (int i2 = 0; i2 < n; i2++) {
                const long long ph = ((long long)i1 * k1 + (long long)i2 * k2) % n;
                const long double c = cs[2 * ph], si = sign * cs[2 * ph + 1];
                const T *v = x + 2 * ((size_t)i1 * n + i2);
                re += v[0] * c - v[1] * si;
                im += v[0] * si + v[1] * c;
            }
        if (inverse) {
            re /= (long double)n * n;
            im /= (long double)n * n;
        }
        const T *g = got + 2 * ((size_t)k1 * n + k2);
        *num += (g[0] - re) * (g[0] - re) + (g[1] - im) * (g[1] - im);
        *den += re * re + im * im;
    }
    free(cs);
}

template <typename T> static void bench_fft2(int n, double copy_gbs)
{
    typedef typename s2d_cpx<T>::type C;
    const size_t per = (size_t)n * n;
    const int batch = (int)((sizeof(T) == 8 ? (1 << 23) : (1 << 24)) / per);
    const size_t count = per * batch;
    T *hx = fill_host<T>(2 * count, 0);
    double *td = spec_root_table(FFT2D_TW_N, FFT2D_TW_N, -1);
    T *ht = (T *)malloc(2 * FFT2D_TW_N * sizeof(T));
    for (int k = 0; k < 2 * FFT2D_TW_N; k++)
        ht[k] = (T)td[k];
    free(td);
    C *in = (C *)to_device(hx, 2 * count), *tw = (C *)to_device(ht, 2 * FFT2D_TW_N), *out;
    CHECK(cudaMalloc(&out, count * sizeof(C)));
    CHECK(cudaMemset(out, 0xff, count * sizeof(C)));
    CHECK(fft2_launch<C>(in, out, n, n, batch, 0, tw, 0));
    CHECK(cudaDeviceSynchronize());
    T *hy = to_host<T>(out, 2 * count);
    long double num = 0, den = 0;
    fft2_error(n, hx, hy, 0, &num, &den);
    fft2_error(n, hx + 2 * (count - per), hy + 2 * (count - per), 0, &num, &den);
    const double err = in_eps<T>(num, den) / (2 * log2((double)n));
    const float ms_ours = median_ms(RUNS, [&] { fft2_launch<C>(in, out, n, n, batch, 0, tw, 0); });
    /* the path fft2_launch takes (as it decides, on this device) */
    int dev = 0, limit = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const char *path = fft2_shape_of(n, n, sizeof(C), (size_t)limit).small ? "one kernel"
                       : n >= FFT_C2C_MIN_REGISTER_N                        ? "1D rows + columns"
                                                                           : "row kernel + columns";

    cufftHandle plan;
    int dims[2] = {n, n};
    const cufftType type = sizeof(T) == 8 ? CUFFT_Z2Z : CUFFT_C2C;
    CHECK_FFT(cufftPlanMany(&plan, 2, dims, NULL, 1, 0, NULL, 1, 0, type, batch));
    auto exec = [&] {
        if (sizeof(T) == 8)
            CHECK_FFT(cufftExecZ2Z(plan, (cufftDoubleComplex *)in, (cufftDoubleComplex *)out,
                                   CUFFT_FORWARD));
        else
            CHECK_FFT(cufftExecC2C(plan, (cufftComplex *)in, (cufftComplex *)out, CUFFT_FORWARD));
    };
    CHECK(cudaMemset(out, 0xff, count * sizeof(C)));
    exec();
    CHECK(cudaDeviceSynchronize());
    T *hc = to_host<T>(out, 2 * count);
    num = den = 0;
    fft2_error(n, hx, hc, 0, &num, &den);
    const double err_cufft = in_eps<T>(num, den) / (2 * log2((double)n));
    const float ms_cufft = median_ms(RUNS, exec);
    const double bytes = 2.0 * count * sizeof(C);
    const double gbs = bytes / (ms_ours * 1e-3) / 1e9, gbs_c = bytes / (ms_cufft * 1e-3) / 1e9;
    printf("| fft2 %s | %dx%d | %d | %.3f | %.0f | %.0f%% | %.3f | %.0f | %.2f | %.2f | %.2f | %s |\n",
           sizeof(T) == 8 ? "f64" : "f32", n, n, batch, ms_ours, gbs, 100 * gbs / copy_gbs,
           ms_cufft, gbs_c, ms_cufft / ms_ours, err, err_cufft, path);
    CHECK_FFT(cufftDestroy(plan));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(tw));
    free(hx);
    free(hy);
    free(hc);
    free(ht);
}

/* ---- the convolution: the cuFFT pipeline's own kernels ---- */

template <typename C>
__global__ void pad_kernel(const C *x, C *img, int nf, int m, long total)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const int h = (m - 1) / 2, mask = nf - 1;
    const long t = i / ((long)nf * nf);
    const int r = (int)(i / nf % nf), c = (int)(i % nf);
    const int a = (r + h) & mask, b = (c + h) & mask;
    C v = {0, 0};
    if (a < m && b < m)
        v = x[(size_t)t * m * m + (size_t)a * m + b];
    img[i] = v;
}

template <typename C, typename T>
__global__ void multiply_kernel(C *img, const T *shapes, int nf, int per_shape, long total)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const long area = (long)nf * nf, t = i / area;
    const T f = shapes[(t / per_shape) * area + i % area];
    img[i].x *= f;
    img[i].y *= f;
}

template <typename C, typename T>
__global__ void crop_kernel(const C *img, C *y, int nf, int m, long total)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    const int h = (m - 1) / 2, mask = nf - 1;
    const long t = i / ((long)m * m);
    const int a = (int)(i / m % m), b = (int)(i % m);
    C v = img[(size_t)t * nf * nf + (size_t)((a - h) & mask) * nf + ((b - h) & mask)];
    const T scale = (T)1 / ((T)nf * (T)nf);
    v.x *= scale;
    v.y *= scale;
    y[i] = v;
}

static unsigned blocks_for(long total)
{
    return (unsigned)((total + 255) / 256);
}

static int bit_reverse(int k, int bits)
{
    int r = 0;
    for (int b = 0; b < bits; b++)
        r |= ((k >> b) & 1) << (bits - 1 - b);
    return r;
}

/* the long-double block-Toeplitz sum for one slice (doubles, 2 m^2) */
template <typename T> static double *conv_reference(int nf, int m, const T *x, const T *shape)
{
    const size_t per = 2 * (size_t)m * m;
    double *xd = (double *)malloc(per * sizeof(double)),
           *sd = (double *)malloc((size_t)nf * nf * sizeof(double)),
           *want = (double *)malloc(per * sizeof(double));
    for (size_t i = 0; i < per; i++)
        xd[i] = x[i];
    for (size_t i = 0; i < (size_t)nf * nf; i++)
        sd[i] = shape[i];
    spec_ref_conv2d(nf, m, sd, xd, want);
    free(xd);
    free(sd);
    return want;
}

template <typename T>
static void add_error(const T *got, const double *want, size_t count, long double *num,
                      long double *den)
{
    for (size_t i = 0; i < count; i++) {
        *num += ((long double)got[i] - want[i]) * ((long double)got[i] - want[i]);
        *den += (long double)want[i] * want[i];
    }
}

/* The same convolution by the cuFFT pipeline (pad, forward 2D FFT,
 * multiply by S in natural order, inverse, crop and scale) into y: its
 * median time (ms), and *err the error of the first and last slice
 * against want0 and want1 in eps log2(mfft^2). */
template <typename T>
static float pipeline_ms(int nf, int m, int batch, int per_shape, const typename s2d_cpx<T>::type *x,
                         const T *s_nat, typename s2d_cpx<T>::type *y, const double *want0,
                         const double *want1, double *err)
{
    typedef typename s2d_cpx<T>::type C;
    const size_t per = (size_t)m * m, area = (size_t)nf * nf;
    C *img;
    CHECK(cudaMalloc(&img, area * batch * sizeof(C)));
    cufftHandle plan;
    int dims[2] = {nf, nf};
    CHECK_FFT(cufftPlanMany(&plan, 2, dims, NULL, 1, 0, NULL, 1, 0,
                            sizeof(T) == 8 ? CUFFT_Z2Z : CUFFT_C2C, batch));
    const long tot_img = (long)area * batch, tot_y = (long)per * batch;
    auto pipeline = [&] {
        pad_kernel<C><<<blocks_for(tot_img), 256>>>(x, img, nf, m, tot_img);
        if (sizeof(T) == 8)
            CHECK_FFT(cufftExecZ2Z(plan, (cufftDoubleComplex *)img, (cufftDoubleComplex *)img,
                                   CUFFT_FORWARD));
        else
            CHECK_FFT(cufftExecC2C(plan, (cufftComplex *)img, (cufftComplex *)img, CUFFT_FORWARD));
        multiply_kernel<C, T><<<blocks_for(tot_img), 256>>>(img, s_nat, nf, per_shape, tot_img);
        if (sizeof(T) == 8)
            CHECK_FFT(cufftExecZ2Z(plan, (cufftDoubleComplex *)img, (cufftDoubleComplex *)img,
                                   CUFFT_INVERSE));
        else
            CHECK_FFT(cufftExecC2C(plan, (cufftComplex *)img, (cufftComplex *)img, CUFFT_INVERSE));
        crop_kernel<C, T><<<blocks_for(tot_y), 256>>>(img, y, nf, m, tot_y);
    };
    CHECK(cudaMemset(y, 0xff, per * batch * sizeof(C)));
    pipeline();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    T *hc = to_host<T>(y, 2 * per * batch);
    long double num = 0, den = 0;
    add_error(hc, want0, 2 * per, &num, &den);
    add_error(hc + 2 * per * (batch - 1), want1, 2 * per, &num, &den);
    *err = in_eps<T>(num, den) / (2 * log2((double)nf));
    const float ms = median_ms(RUNS, pipeline);
    CHECK_FFT(cufftDestroy(plan));
    CHECK(cudaFree(img));
    free(hc);
    return ms;
}

template <typename T>
static void bench_conv(int nf, int m, int batch, int n_shapes, double copy_gbs)
{
    typedef typename s2d_cpx<T>::type C;
    const size_t per = (size_t)m * m, area = (size_t)nf * nf;
    const int per_shape = batch / n_shapes;
    T *hx = fill_host<T>(2 * per * batch, 0), *hs = fill_host<T>(area * n_shapes, 1.5);
    T *hp = (T *)malloc(area * n_shapes * sizeof(T));
    const int bits = s2d_log2(nf);
    for (int t = 0; t < n_shapes; t++)
        for (int q = 0; q < nf; q++)
            for (int p = 0; p < nf; p++)
                hp[t * area + (size_t)q * nf + p] =
                    hs[t * area + (size_t)bit_reverse(q, bits) * nf + bit_reverse(p, bits)];
    double *td = spec_root_table(FFT2D_TW_N, FFT2D_TW_N, -1);
    T *ht = (T *)malloc(2 * FFT2D_TW_N * sizeof(T));
    for (int k = 0; k < 2 * FFT2D_TW_N; k++)
        ht[k] = (T)td[k];
    free(td);
    C *x = (C *)to_device(hx, 2 * per * batch), *tw = (C *)to_device(ht, 2 * FFT2D_TW_N), *y;
    T *s_perm = (T *)to_device(hp, area * n_shapes), *s_nat = (T *)to_device(hs, area * n_shapes);
    CHECK(cudaMalloc(&y, per * batch * sizeof(C)));
    CHECK(cudaMemset(y, 0xff, per * batch * sizeof(C)));
    CHECK(conv2d_launch<T>(x, s_perm, y, nf, m, batch, per_shape, tw, 0));
    CHECK(cudaDeviceSynchronize());
    T *hy = to_host<T>(y, 2 * per * batch);
    double *want0 = conv_reference(nf, m, hx, hs);
    double *want1 = conv_reference(nf, m, hx + 2 * per * (batch - 1), hs + area * (n_shapes - 1));
    long double num = 0, den = 0;
    add_error(hy, want0, 2 * per, &num, &den);
    add_error(hy + 2 * per * (batch - 1), want1, 2 * per, &num, &den);
    const double err = in_eps<T>(num, den) / (2 * log2((double)nf));
    const float ms_ours =
        median_ms(RUNS, [&] { conv2d_launch<T>(x, s_perm, y, nf, m, batch, per_shape, tw, 0); });
    int dev = 0, sms = 0;   /* the kernel conv2d_launch picks on this device */
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const conv2d_config c = conv2d_config_of<T>(nf, batch >= 4 * sms);
    double err_cufft = 0;
    const float ms_cufft =
        pipeline_ms<T>(nf, m, batch, per_shape, x, s_nat, y, want0, want1, &err_cufft);
    /* minimum traffic: slices in, results out, S once */
    const double bytes = 2.0 * per * batch * sizeof(C) + (double)area * n_shapes * sizeof(T);
    const double gbs = bytes / (ms_ours * 1e-3) / 1e9;
    printf("| conv2d %s | %d | %d | %d | %d | %.4f | %.0f | %.0f%% | %.4f | %.2f | %.2f | %.2f | %d%s |\n",
           sizeof(T) == 8 ? "f64" : "f32", nf, m, batch, n_shapes, ms_ours, gbs,
           100 * gbs / copy_gbs, ms_cufft, ms_cufft / ms_ours, err, err_cufft, c.threads,
           c.dense ? " dense" : "");
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(tw));
    CHECK(cudaFree(s_perm));
    CHECK(cudaFree(s_nat));
    free(hx);
    free(hs);
    free(hp);
    free(ht);
    free(hy);
    free(want0);
    free(want1);
}

/* ---- tridiagonal ---- */

/* long-double Thomas for one system (doubles, n) */
template <typename T>
static double *tridiag_reference(int n, const T *dl, const T *d, const T *du, const T *rhs)
{
    double *buf = (double *)malloc(5 * (size_t)n * sizeof(double));
    double *a = buf, *b = a + n, *c = b + n, *r = c + n;
    for (int i = 0; i < n; i++) {
        a[i] = dl[i];
        b[i] = d[i];
        c[i] = du[i];
        r[i] = rhs[i];
    }
    double *want = (double *)malloc((size_t)n * sizeof(double));
    spec_ref_tridiag(n, a, b, c, r, want);
    free(buf);
    return want;
}

static cusparseStatus_t gtsv_buffer(cusparseHandle_t h, int n, const float *dl, const float *d,
                                    const float *du, const float *x, int batch, size_t *bytes)
{
    return cusparseSgtsv2StridedBatch_bufferSizeExt(h, n, dl, d, du, x, batch, n, bytes);
}
static cusparseStatus_t gtsv_buffer(cusparseHandle_t h, int n, const double *dl, const double *d,
                                    const double *du, const double *x, int batch, size_t *bytes)
{
    return cusparseDgtsv2StridedBatch_bufferSizeExt(h, n, dl, d, du, x, batch, n, bytes);
}
static cusparseStatus_t gtsv(cusparseHandle_t h, int n, const float *dl, const float *d,
                             const float *du, float *x, int batch, void *buf)
{
    return cusparseSgtsv2StridedBatch(h, n, dl, d, du, x, batch, n, buf);
}
static cusparseStatus_t gtsv(cusparseHandle_t h, int n, const double *dl, const double *d,
                             const double *du, double *x, int batch, void *buf)
{
    return cusparseDgtsv2StridedBatch(h, n, dl, d, du, x, batch, n, buf);
}

template <typename T> static void bench_tridiag(cusparseHandle_t sp, int n, double copy_gbs)
{
    const int batch = (1 << 24) / n;
    const size_t count = (size_t)n * batch;
    T *hl = fill_host<T>(count, 0), *hd = fill_host<T>(count, 3), *hu = fill_host<T>(count, 0),
      *hr = fill_host<T>(count, 0);
    for (int s = 0; s < batch; s++) {   /* as cuSPARSE wants them */
        hl[(size_t)s * n] = 0;
        hu[(size_t)s * n + n - 1] = 0;
    }
    T *dl = (T *)to_device(hl, count), *dd = (T *)to_device(hd, count),
      *du = (T *)to_device(hu, count), *rhs = (T *)to_device(hr, count), *x;
    CHECK(cudaMalloc(&x, count * sizeof(T)));
    const size_t last = count - n;   /* the last system */
    double *want0 = tridiag_reference(n, hl, hd, hu, hr);
    double *want1 = tridiag_reference(n, hl + last, hd + last, hu + last, hr + last);
    CHECK(cudaMemset(x, 0xff, count * sizeof(T)));
    CHECK(tridiag_launch<T>(dl, dd, du, rhs, x, n, batch, 0));
    CHECK(cudaDeviceSynchronize());
    T *hx = to_host<T>(x, count);
    long double num0 = 0, den0 = 0;
    add_error(hx, want0, n, &num0, &den0);
    add_error(hx + last, want1, n, &num0, &den0);
    free(hx);
    const double err = in_eps<T>(num0, den0);
    const float ms_ours = median_ms(RUNS, [&] { tridiag_launch<T>(dl, dd, du, rhs, x, n, batch, 0); });
    const tridiag_shape shape = tridiag_shape_of(n, sizeof(T));

    size_t buf_bytes = 0;
    CHECK_SP(gtsv_buffer(sp, n, dl, dd, du, x, batch, &buf_bytes));
    void *buf;
    CHECK(cudaMalloc(&buf, buf_bytes > 0 ? buf_bytes : 1));
    CHECK(cudaMemcpy(x, rhs, count * sizeof(T), cudaMemcpyDeviceToDevice));
    CHECK_SP(gtsv(sp, n, dl, dd, du, x, batch, buf));
    CHECK(cudaDeviceSynchronize());
    T *hc = to_host<T>(x, count);
    long double num = 0, den = 0;
    add_error(hc, want0, n, &num, &den);
    add_error(hc + last, want1, n, &num, &den);
    const double err_sp = in_eps<T>(num, den);
    /* in place: each timed call solves again with the last solution as
     * right-hand side (same work) */
    const float ms_sp = median_ms(RUNS, [&] { CHECK_SP(gtsv(sp, n, dl, dd, du, x, batch, buf)); });
    const double bytes = 5.0 * count * sizeof(T);
    const double gbs = bytes / (ms_ours * 1e-3) / 1e9;
    printf("| tridiag %s | %d | %d | %.3f | %.2f | %.0f | %.0f%% | %.3f | %.2f | %.2f | %.2f | "
           "%d rows, %d threads |\n",
           sizeof(T) == 8 ? "f64" : "f32", n, batch, ms_ours, count / (ms_ours * 1e-3) / 1e9, gbs,
           100 * gbs / copy_gbs, ms_sp, ms_sp / ms_ours, err, err_sp, shape.rows_per_thread,
           shape.threads);
    CHECK(cudaFree(buf));
    CHECK(cudaFree(dl));
    CHECK(cudaFree(dd));
    CHECK(cudaFree(du));
    CHECK(cudaFree(rhs));
    CHECK(cudaFree(x));
    free(hl);
    free(hd);
    free(hu);
    free(hr);
    free(hc);
    free(want0);
    free(want1);
}

int main(int argc, char **argv)
{
    const int dev = argc > 1 ? atoi(argv[1]) : 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    /* the copy ceiling: 256 MB device to device */
    const size_t bytes = (size_t)256 << 20;
    void *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 0, bytes));
    const float ms = median_ms(RUNS, [&] { cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); });
    const double copy_gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    printf("## CUDA 2D spectral kernels on %s (%d SMs): copy %.0f GB/s\n\n", prop.name,
           prop.multiProcessorCount, copy_gbs);

    printf("2D FFT, forward, out of place, 2^23 (f64) / 2^24 (f32) points; error: relative L2 "
           "at 16 sampled entries of two images against a long-double DFT, in eps log2(N1 N2)\n\n");
    printf("| kernel | size | batch | ours ms | GB/s | of copy | cuFFT ms | cuFFT GB/s | "
           "ours/cuFFT | err | cuFFT err | path |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const int sizes[] = {32, 64, 128, 256, 1024};
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 5; i++) {
            if (p == 0)
                bench_fft2<double>(sizes[i], copy_gbs);
            else
                bench_fft2<float>(sizes[i], copy_gbs);
        }

    printf("\nEDM convolution, fused against pad + cuFFT 2D + multiply + cuFFT 2D inverse + "
           "crop/scale; GB/s: slices in, results out, S once; error: two slices against the "
           "block-Toeplitz sum, in eps log2(mfft^2)\n\n");
    printf("| kernel | mfft | M | slices | S | ours ms | GB/s | of copy | cuFFT pipeline ms | "
           "speed-up | err | pipeline err | threads a block |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const int conv[4][2] = {{16, 7}, {32, 15}, {64, 31}, {128, 63}};
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 4; i++) {
            const int nf = conv[i][0], m = conv[i][1];
            const size_t csize = p ? sizeof(float2) : sizeof(double2);
            const size_t need = conv2d_shape_of(nf, m, csize, 0).smem;
            if (need > prop.sharedMemPerBlockOptin) {
                printf("| conv2d %s | %d | %d | - | - | needs %zu bytes of shared memory |\n",
                       p ? "f32" : "f64", nf, m, need);
                continue;
            }
            const int runs[3][2] = {{387 * 7, 1}, {387 * 7, 7}, {51, 1}};
            for (int r = 0; r < 3; r++) {
                if (p == 0)
                    bench_conv<double>(nf, m, runs[r][0], runs[r][1], copy_gbs);
                else
                    bench_conv<float>(nf, m, runs[r][0], runs[r][1], copy_gbs);
            }
        }

    printf("\nBatched tridiagonal solve, 2^24 rows, against cusparse<t>gtsv2StridedBatch; GB/s: "
           "four arrays in, x out; error: first and last systems against long-double Thomas, "
           "in eps\n\n");
    printf("| kernel | n | systems | ours ms | Grows/s | GB/s | of copy | cuSPARSE ms | "
           "ours/cuSPARSE | err | cuSPARSE err | rows a thread, block |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    cusparseHandle_t sp;
    CHECK_SP(cusparseCreate(&sp));
    const int ns[] = {64, 256, 1024, 2048};
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 4; i++) {
            if (p == 0)
                bench_tridiag<double>(sp, ns[i], copy_gbs);
            else
                bench_tridiag<float>(sp, ns[i], copy_gbs);
        }
    CHECK_SP(cusparseDestroy(sp));
    return 0;
}
