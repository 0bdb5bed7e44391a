/* CUDA diffraction kernels: the pieces of one operator application for all
 * active points of a batch (common/diffraction/device.h). The z operator's
 * arithmetic is the shared header's (diffraction/zop.h), one thread per
 * (point, order); the dots sum each point's vector in a fixed order (a
 * block per point and pair, a fixed tree), so results never depend on
 * timing. */
#include <cuda_runtime.h>

#include "diffraction/zop.h"
#include "kernels.h"

#define THREADS 256
#define DOT_THREADS 256

__device__ static long mode_of_grid(const dif_dims dm, long g)
{
    return dif_mode_of_grid(g, dm.kx, dm.mx, dm.my, dm.fft_x, dm.fft_y);
}

__device__ static long grid_of_mode(const dif_dims dm, int q)
{
    return dif_grid_of_mode(q, dm.kx, dm.mx, dm.my, dm.fft_x, dm.fft_y);
}

__device__ static dif_c *vec_at(const dif_dims dm, void *vec, int v, int b)
{
    return (dif_c *)vec + ((long)v * dm.capacity + b) * dm.unknowns;
}

__global__ void pad_kernel(const dif_dims dm, const void *vec, dif_c *grid, const int *active,
                           int n_active, int in)
{
    const long per = (long)dm.nz * dm.grid, total = per * n_active;
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;
         t += (long)gridDim.x * blockDim.x) {
        const int a = (int)(t / per);
        const long rest = t % per, g = rest % dm.grid;
        const int slice = (int)(rest / dm.grid);
        const long q = mode_of_grid(dm, g);
        const dif_c zero = {0.0, 0.0};
        grid[t] = q < 0 ? zero : vec_at(dm, (void *)vec, in, active[a])[(long)slice * dm.n_modes + q];
    }
}

__global__ void multiply_kernel(const dif_dims dm, dif_c *grid, const dif_c *spectra,
                                const int *spectrum_of, const int *active, int n_active)
{
    const long per = (long)dm.nz * dm.grid, total = per * n_active;
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;
         t += (long)gridDim.x * blockDim.x) {
        const int a = (int)(t / per);
        grid[t] = dif_cmul(grid[t], spectra[(long)spectrum_of[active[a]] * per + t % per]);
    }
}

__global__ void zop_kernel(const dif_dims dm, void *vec, const dif_c *grid, const dif_c *mt,
                           const dif_c *lay, const int *layer_first, const int *active,
                           int n_active, int in, int out)
{
    const long total = (long)dm.n_modes * n_active;
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;
         t += (long)gridDim.x * blockDim.x) {
        const int a = (int)(t / dm.n_modes), q = (int)(t % dm.n_modes), b = active[a];
        const long lay_per = (long)dm.n_layers * DIF_LAYER_TABLE;
        dif_zop_order(dm.n_layers, layer_first, lay + ((long)b * dm.n_modes + q) * lay_per,
                      mt + ((long)b * dm.n_modes + q) * DIF_MODE_TABLE,
                      vec_at(dm, vec, in, b) + q,
                      grid + (long)a * dm.nz * dm.grid + grid_of_mode(dm, q), dm.grid,
                      vec_at(dm, vec, out, b) + q, dm.n_modes);
    }
}

__global__ void crop_kernel(const dif_dims dm, void *vec, const dif_c *grid, const int *active,
                            int n_active, int out)
{
    const long total = dm.unknowns * n_active;
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;
         t += (long)gridDim.x * blockDim.x) {
        const int a = (int)(t / dm.unknowns);
        const long k = t % dm.unknowns;
        const int slice = (int)(k / dm.n_modes), q = (int)(k % dm.n_modes);
        vec_at(dm, vec, out, active[a])[k] =
            grid[((long)a * dm.nz + slice) * dm.grid + grid_of_mode(dm, q)];
    }
}

/* Block (a, pair): conj(x) . y over the unknowns, each thread a strided
 * share, then a fixed tree. */
__global__ void dots_kernel(const dif_dims dm, void *vec, const int *active, const dif_vidx vidx,
                            int n_pairs, dif_c *dots)
{
    __shared__ double re[DOT_THREADS], im[DOT_THREADS];
    const int a = blockIdx.x / n_pairs, k = blockIdx.x % n_pairs, b = active[a];
    const dif_c *x = vec_at(dm, vec, vidx.v[2 * k], b), *y = vec_at(dm, vec, vidx.v[2 * k + 1], b);
    double sr = 0, si = 0;
    for (long i = threadIdx.x; i < dm.unknowns; i += DOT_THREADS) {
        const dif_c u = x[i], v = y[i];
        sr += u.re * v.re + u.im * v.im;
        si += u.re * v.im - u.im * v.re;
    }
    re[threadIdx.x] = sr;
    im[threadIdx.x] = si;
    __syncthreads();
    for (int s = DOT_THREADS / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            re[threadIdx.x] += re[threadIdx.x + s];
            im[threadIdx.x] += im[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const dif_c d = {re[0], im[0]};
        dots[(long)a * n_pairs + k] = d;
    }
}

__global__ void lincomb_kernel(const dif_dims dm, void *vec, const int *active, const dif_vidx vidx,
                               const dif_c *coef, int n_active, int out, int n_terms)
{
    const long total = dm.unknowns * n_active;
    for (long t = blockIdx.x * (long)blockDim.x + threadIdx.x; t < total;
         t += (long)gridDim.x * blockDim.x) {
        const int a = (int)(t / dm.unknowns), b = active[a];
        const long i = t % dm.unknowns;
        dif_c sum = {0.0, 0.0};
        for (int k = 0; k < n_terms; k++)
            sum = dif_cfma(coef[a * n_terms + k], vec_at(dm, vec, vidx.v[k], b)[i], sum);
        vec_at(dm, vec, out, b)[i] = sum;
    }
}

static unsigned blocks_for(long work)
{
    const long b = (work + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535L * 8 ? 65535L * 8 : b);
}

extern "C" int orr_cuda_dif_pad(const dif_dims *dm, const dif_device_bufs *b, int n_active, int in)
{
    pad_kernel<<<blocks_for((long)n_active * dm->nz * dm->grid), THREADS>>>(
        *dm, b->vec, (dif_c *)b->grid, (const int *)b->active, n_active, in);
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_dif_multiply(const dif_dims *dm, const dif_device_bufs *b, int n_active)
{
    multiply_kernel<<<blocks_for((long)n_active * dm->nz * dm->grid), THREADS>>>(
        *dm, (dif_c *)b->grid, (const dif_c *)b->spectra, (const int *)b->spectrum_of,
        (const int *)b->active, n_active);
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_dif_zop(const dif_dims *dm, const dif_device_bufs *b, int n_active, int in,
                                int out)
{
    zop_kernel<<<blocks_for((long)n_active * dm->n_modes), THREADS>>>(
        *dm, b->vec, (const dif_c *)b->grid, (const dif_c *)b->mt, (const dif_c *)b->lay,
        (const int *)b->layer_first, (const int *)b->active, n_active, in, out);
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_dif_crop(const dif_dims *dm, const dif_device_bufs *b, int n_active, int out)
{
    crop_kernel<<<blocks_for((long)n_active * dm->unknowns), THREADS>>>(
        *dm, b->vec, (const dif_c *)b->grid, (const int *)b->active, n_active, out);
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_dif_dots(const dif_dims *dm, const dif_device_bufs *b, int n_active,
                                 int n_pairs, dif_vidx vidx)
{
    dots_kernel<<<n_active * n_pairs, DOT_THREADS>>>(*dm, b->vec, (const int *)b->active, vidx,
                                                     n_pairs, (dif_c *)b->dots);
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_dif_lincomb(const dif_dims *dm, const dif_device_bufs *b, int n_active,
                                    int out, int n_terms, dif_vidx vidx)
{
    lincomb_kernel<<<blocks_for((long)n_active * dm->unknowns), THREADS>>>(
        *dm, b->vec, (const int *)b->active, vidx, (const dif_c *)b->coef, n_active, out, n_terms);
    return (int)cudaGetLastError();
}
