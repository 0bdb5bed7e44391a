/* Batched complex FFT on the GPU, power-of-two N up to 4096: the first of
 * the spectral kernels (specs/spectral.md), not yet behind the backend's
 * ops table. One transform lives in shared memory; each thread computes
 * radix-4 butterflies (one radix-2 pass when log2 N is odd) in registers,
 * Stockham order, with a barrier between reading a pass's inputs and
 * writing its outputs so one buffer serves both. Small transforms share a
 * block (blockDim.y of them), so a block always has 256 threads or more.
 * Twiddles come from a table of e^{-2 pi j k / N} (long double on the host,
 * rounded once). Conventions as the CPU kernels: unnormalised forward,
 * inverse with 1/N. */
#ifndef ORRERY_CUDA_SPECTRAL_FFT_CUH
#define ORRERY_CUDA_SPECTRAL_FFT_CUH

#include <cuda_runtime.h>

template <typename T> struct cpx_of;
template <> struct cpx_of<double> { typedef double2 type; };
template <> struct cpx_of<float> { typedef float2 type; };

template <typename T>
__global__ void fft_c2c_shared(const typename cpx_of<T>::type *in, typename cpx_of<T>::type *out,
                               int n, int batch, const double2 *tw, int sign)
{
    typedef typename cpx_of<T>::type C;
    extern __shared__ unsigned char smem_raw[];
    C *sh = reinterpret_cast<C *>(smem_raw) + (size_t)threadIdx.y * n;
    const int t = blockIdx.x * blockDim.y + threadIdx.y;   /* transform */
    const int tid = threadIdx.x, threads = blockDim.x;
    if (t < batch)
        for (int i = tid; i < n; i += threads)
            sh[i] = in[(size_t)t * n + i];
    __syncthreads();
    int s = 1;
    for (int len = n; len >= 4; len /= 4) {
        const int m = len / 4, tstep = n / len;
        C v[4][4];
        int slots[4];
        int count = 0;
        for (int j = tid; j < n / 4; j += threads, count++) {
            const int p = j / s, q = j % s;
            const C a = sh[q + s * p], b = sh[q + s * (p + m)], c = sh[q + s * (p + 2 * m)],
                    d = sh[q + s * (p + 3 * m)];
            const T apc_r = a.x + c.x, apc_i = a.y + c.y, amc_r = a.x - c.x, amc_i = a.y - c.y;
            const T bpd_r = b.x + d.x, bpd_i = b.y + d.y;
            const T jr = -sign * (b.y - d.y), ji = sign * (b.x - d.x);
            const double2 w1 = tw[p * tstep], w2 = tw[2 * p * tstep], w3 = tw[3 * p * tstep];
            const T c1 = (T)(sign < 0 ? w1.y : -w1.y), c2 = (T)(sign < 0 ? w2.y : -w2.y),
                    c3 = (T)(sign < 0 ? w3.y : -w3.y);
            const T t1r = amc_r + jr, t1i = amc_i + ji, t2r = apc_r - bpd_r, t2i = apc_i - bpd_i,
                    t3r = amc_r - jr, t3i = amc_i - ji;
            v[count][0].x = apc_r + bpd_r;
            v[count][0].y = apc_i + bpd_i;
            v[count][1].x = t1r * (T)w1.x - t1i * c1;
            v[count][1].y = t1r * c1 + t1i * (T)w1.x;
            v[count][2].x = t2r * (T)w2.x - t2i * c2;
            v[count][2].y = t2r * c2 + t2i * (T)w2.x;
            v[count][3].x = t3r * (T)w3.x - t3i * c3;
            v[count][3].y = t3r * c3 + t3i * (T)w3.x;
            slots[count] = q + s * 4 * p;
        }
        __syncthreads();
        for (int k = 0; k < count; k++)
            for (int r = 0; r < 4; r++)
                sh[slots[k] + r * s] = v[k][r];
        __syncthreads();
        s *= 4;
        if (len / 4 < 4 && len / 4 == 2) {
            /* the last pass, radix 2: twiddles are 1 */
            C u[8][2];
            int at[8];
            int cnt = 0;
            for (int q = tid; q < s; q += threads, cnt++) {
                const C a = sh[q], b = sh[q + s];
                u[cnt][0].x = a.x + b.x;
                u[cnt][0].y = a.y + b.y;
                u[cnt][1].x = a.x - b.x;
                u[cnt][1].y = a.y - b.y;
                at[cnt] = q;
            }
            __syncthreads();
            for (int k = 0; k < cnt; k++) {
                sh[at[k]] = u[k][0];
                sh[at[k] + s] = u[k][1];
            }
            __syncthreads();
        }
    }
    if (t < batch) {
        const T scale = sign > 0 ? (T)1 / (T)n : (T)1;
        for (int i = tid; i < n; i += threads) {
            C x = sh[i];
            x.x *= scale;
            x.y *= scale;
            out[(size_t)t * n + i] = x;
        }
    }
}

/* Launch: threads per transform n/4 (at most 1024, at least 1), and enough
 * transforms per block for 256 threads. Returns the launch's cudaError_t. */
template <typename T>
static cudaError_t fft_c2c_launch(const void *in, void *out, int n, int batch, const double2 *tw,
                                  int inverse, cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    int per = n / 4 < 1 ? 1 : n / 4;
    if (per > 1024)
        per = 1024;
    int ty = 256 / per < 1 ? 1 : 256 / per;
    const size_t smem = (size_t)ty * n * sizeof(C);
    if (smem > 48 * 1024)
        cudaFuncSetAttribute(fft_c2c_shared<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    dim3 block(per, ty), grid((batch + ty - 1) / ty);
    fft_c2c_shared<T><<<grid, block, smem, stream>>>((const C *)in, (C *)out, n, batch, tw,
                                                     inverse ? 1 : -1);
    return cudaGetLastError();
}

#endif
