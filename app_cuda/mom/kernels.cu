/* The MoM kind's CUDA kernels (kernels.h): the fill of Z's columns from
 * common/mom/entries.h (the same inline functions the C reference calls,
 * built with --fmad=false like the C code's -ffp-contract=off, so an entry
 * differs from the CPU's only where the device's sqrt, log, sin or cos
 * differ from glibc's: an ulp or two), LCN's corrections over them, the
 * column norms, the right-hand sides, and the small pieces of the blocked
 * LU that cuBLAS and cuSOLVER do not provide (row exchanges, the
 * unpivoted panel's column step, conversions, reductions). Everything
 * runs on the default stream; host.c orders and checks it. */
#include <cuda_runtime.h>
#include <cuComplex.h>
#include <stdint.h>

#include "mom/entries.h"
#include "kernels.h"

#define THREADS 256
#define MAX_GRID_Y 65535

/* ---- the fill ---- */

/* One thread an entry: rows along x (coalesced writes), columns along y. */
__global__ void fill_kernel(mom_cuda_system s, int first, int count, double2 *z, size_t ld)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= s.n)
        return;
    const double xi = s.px[i], yi = s.py[i];
    for (int c = blockIdx.y; c < count; c += gridDim.y) {
        const int j = first + c;
        double re, im;
        if (i != j)
            mom_z_far(s.k_eta_4, s.k, s.w[j], xi - s.px[j], yi - s.py[j], &re, &im);
        else if (!s.lcn)
            mom_z_self(s.k_eta_4, s.k, s.w[j], &re, &im);
        else
            re = im = 0;   /* always corrected: the own cell is near */
        z[(size_t)c * ld + i] = make_double2(re, im);
    }
}

/* LCN's corrections of a column overwrite its entries: a block a column. */
__global__ void correct_kernel(mom_cuda_system s, int first, int count, double2 *z, size_t ld)
{
    for (int c = blockIdx.x; c < count; c += gridDim.x) {
        const int j = first + c;
        for (int p = s.col_start[j] + threadIdx.x; p < s.col_start[j + 1]; p += blockDim.x)
            z[(size_t)c * ld + s.col_row[p]] = make_double2(s.col_re[p], s.col_im[p]);
    }
}

/* max |z| and sum |z| of each column: a block a column. */
__global__ void norms_kernel(int n, int first, int count, const double2 *z, size_t ld,
                             double *norms)
{
    __shared__ double top[THREADS], sum[THREADS];
    for (int c = blockIdx.x; c < count; c += gridDim.x) {
        double t = 0, s = 0;
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const double2 v = z[(size_t)c * ld + i];
            const double a = hypot(v.x, v.y);
            t = fmax(t, a);
            s += a;
        }
        top[threadIdx.x] = t, sum[threadIdx.x] = s;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h /= 2) {
            if (threadIdx.x < h) {
                top[threadIdx.x] = fmax(top[threadIdx.x], top[threadIdx.x + h]);
                sum[threadIdx.x] += sum[threadIdx.x + h];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0)
            norms[first + c] = top[0], norms[n + first + c] = sum[0];
        __syncthreads();
    }
}

static int grid_x(size_t items) { return (int)((items + THREADS - 1) / THREADS); }

extern "C" int orr_cuda_mom_fill(const mom_cuda_system *s, int first, int count, double *z,
                                 size_t ld, double *norms)
{
    if (count <= 0)
        return cudaSuccess;
    double2 *zz = (double2 *)z;
    const dim3 grid(grid_x(s->n), count < MAX_GRID_Y ? count : MAX_GRID_Y);
    fill_kernel<<<grid, THREADS>>>(*s, first, count, zz, ld);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && s->lcn) {
        correct_kernel<<<count < 65536 ? count : 65536, 64>>>(*s, first, count, zz, ld);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess && norms) {
        norms_kernel<<<count < 65536 ? count : 65536, THREADS>>>(s->n, first, count, zz, ld, norms);
        e = cudaGetLastError();
    }
    return e;
}

__global__ void rhs_kernel(mom_cuda_system s, int nrhs, const double *dir, double2 *b)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y;
    if (i >= s.n || r >= nrhs)
        return;
    double re, im;
    mom_incident(s.k, dir[2 * r], dir[2 * r + 1], s.px[i], s.py[i], &re, &im);
    b[(size_t)r * s.n + i] = make_double2(re, im);
}

extern "C" int orr_cuda_mom_rhs(const mom_cuda_system *s, int nrhs, const double *dir, double *b)
{
    for (int r0 = 0; r0 < nrhs; r0 += MAX_GRID_Y) {
        const int rows = nrhs - r0 < MAX_GRID_Y ? nrhs - r0 : MAX_GRID_Y;
        rhs_kernel<<<dim3(grid_x(s->n), rows), THREADS>>>(*s, rows, dir + 2 * r0,
                                                          (double2 *)b + (size_t)r0 * s->n);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* ---- conversions, sums ---- */

__global__ void to_single_kernel(const double2 *from, float2 *to, size_t count)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count;
         e += (size_t)gridDim.x * blockDim.x)
        to[e] = make_float2((float)from[e].x, (float)from[e].y);
}

__global__ void to_double_kernel(const float2 *from, double2 *to, size_t count)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count;
         e += (size_t)gridDim.x * blockDim.x)
        to[e] = make_double2(from[e].x, from[e].y);
}

__global__ void add_kernel(const double2 *x, double2 *y, size_t count)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count;
         e += (size_t)gridDim.x * blockDim.x)
        y[e] = make_double2(y[e].x + x[e].x, y[e].y + x[e].y);
}

static int grid_of(size_t count)
{
    const size_t g = (count + THREADS - 1) / THREADS;
    return g < 65536 ? (int)(g ? g : 1) : 65536;
}

extern "C" int orr_cuda_mom_to_single(const double *from, float *to, size_t count)
{
    to_single_kernel<<<grid_of(count), THREADS>>>((const double2 *)from, (float2 *)to, count);
    return cudaGetLastError();
}

extern "C" int orr_cuda_mom_to_double(const float *from, double *to, size_t count)
{
    to_double_kernel<<<grid_of(count), THREADS>>>((const float2 *)from, (double2 *)to, count);
    return cudaGetLastError();
}

extern "C" int orr_cuda_mom_add(const double *x, double *y, size_t count)
{
    add_kernel<<<grid_of(count), THREADS>>>((const double2 *)x, (double2 *)y, count);
    return cudaGetLastError();
}

/* sum |v| of each column: a block a column. */
__global__ void column_sums_kernel(const double2 *v, int n, int cols, double *out)
{
    __shared__ double sum[THREADS];
    for (int c = blockIdx.x; c < cols; c += gridDim.x) {
        double s = 0;
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            s += hypot(v[(size_t)c * n + i].x, v[(size_t)c * n + i].y);
        sum[threadIdx.x] = s;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h /= 2) {
            if (threadIdx.x < h)
                sum[threadIdx.x] += sum[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            out[c] = sum[0];
        __syncthreads();
    }
}

extern "C" int orr_cuda_mom_column_sums(const double *v, int n, int cols, double *out)
{
    if (cols <= 0)
        return cudaSuccess;
    column_sums_kernel<<<cols < 65536 ? cols : 65536, THREADS>>>((const double2 *)v, n, cols, out);
    return cudaGetLastError();
}

/* ---- the factorisation's pieces ---- */

__global__ void offset_pivots_kernel(int *ipiv, int first, int count)
{
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q < count)
        ipiv[first + q] += first;
}

extern "C" int orr_cuda_mom_offset_pivots(int *ipiv, int first, int count)
{
    if (count <= 0)
        return cudaSuccess;
    offset_pivots_kernel<<<grid_x(count), THREADS>>>(ipiv, first, count);
    return cudaGetLastError();
}

/* A thread a column, the exchanges in order (they do not commute); the
 * pivots of the block in shared memory. */
#define SWAP_MAX 1024
template <typename T>
__global__ void swap_kernel(T *a, size_t ld, int c0, int c1, const int *ipiv, int k1, int k2)
{
    __shared__ int piv[SWAP_MAX];
    for (int k = k1 + threadIdx.x; k < k2; k += blockDim.x)
        piv[k - k1] = ipiv[k] - 1;
    __syncthreads();
    const int c = c0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= c1)
        return;
    T *col = a + (size_t)c * ld;
    for (int k = k1; k < k2; k++) {
        const int p = piv[k - k1];
        if (p != k) {
            const T t = col[k];
            col[k] = col[p];
            col[p] = t;
        }
    }
}

extern "C" int orr_cuda_mom_swap_rows(void *a, int single, size_t ld, int c0, int c1,
                                      const int *ipiv, int k1, int k2)
{
    if (c1 <= c0 || k2 <= k1)
        return cudaSuccess;
    for (int s = k1; s < k2; s += SWAP_MAX) {
        const int e = k2 - s < SWAP_MAX ? k2 : s + SWAP_MAX;
        const int threads = 128, blocks = (c1 - c0 + threads - 1) / threads;
        if (single)
            swap_kernel<float2><<<blocks, threads>>>((float2 *)a, ld, c0, c1, ipiv, s, e);
        else
            swap_kernel<double2><<<blocks, threads>>>((double2 *)a, ld, c0, c1, ipiv, s, e);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* The unpivoted LU of the w x w block at a (w <= MICRO_LU) in shared
 * memory, a thread an entry: column k divided by its pivot, then the
 * rank-one update of the entries right of and below it, k = 0 .. w-1 (the
 * arithmetic of reference.c's panel_unpivoted on these entries). */
#define MICRO_LU 32
__global__ void diagonal_lu_kernel(double2 *a, size_t ld, int w, int first, int *zero_pivot)
{
    __shared__ double2 t[MICRO_LU][MICRO_LU + 1];
    const int i = threadIdx.x, q = threadIdx.y;
    const int live = i < w && q < w;
    if (live)
        t[q][i] = a[(size_t)q * ld + i];
    __syncthreads();
    for (int k = 0; k < w; k++) {
        if (q == k && i > k && live)
            t[k][i] = cuCdiv(t[k][i], t[k][k]);
        __syncthreads();
        if (live && i > k && q > k)
            t[q][i] = cuCsub(t[q][i], cuCmul(t[k][i], t[q][k]));
        __syncthreads();
    }
    if (live) {
        a[(size_t)q * ld + i] = t[q][i];
        if (i == q && t[q][q].x == 0 && t[q][q].y == 0)
            atomicMin(zero_pivot, first + q);
    }
}

extern "C" int orr_cuda_mom_diagonal_lu(double *a, size_t ld, int w, int first, int *zero_pivot)
{
    if (w < 1 || w > MICRO_LU)
        return cudaErrorInvalidValue;
    diagonal_lu_kernel<<<1, dim3(MICRO_LU, MICRO_LU)>>>((double2 *)a, ld, w, first, zero_pivot);
    return cudaGetLastError();
}

/* max |u_ij| over i <= j and |u_jj|: a block a column. */
__global__ void u_norms_kernel(const double2 *a, size_t ld, int n, double *top, double *diag)
{
    __shared__ double t[THREADS];
    for (int j = blockIdx.x; j < n; j += gridDim.x) {
        double m = 0;
        for (int i = threadIdx.x; i <= j; i += blockDim.x)
            m = fmax(m, hypot(a[(size_t)j * ld + i].x, a[(size_t)j * ld + i].y));
        t[threadIdx.x] = m;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h /= 2) {
            if (threadIdx.x < h)
                t[threadIdx.x] = fmax(t[threadIdx.x], t[threadIdx.x + h]);
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            top[j] = t[0];
            diag[j] = hypot(a[(size_t)j * ld + j].x, a[(size_t)j * ld + j].y);
        }
        __syncthreads();
    }
}

extern "C" int orr_cuda_mom_u_norms(const double *a, size_t ld, int n, double *top, double *diag)
{
    u_norms_kernel<<<n < 65536 ? n : 65536, THREADS>>>((const double2 *)a, ld, n, top, diag);
    return cudaGetLastError();
}

__global__ void diagonal_kernel(double2 *a, size_t ld, int n, double2 *buf, int unit)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    if (unit) {
        buf[j] = a[(size_t)j * ld + j];
        a[(size_t)j * ld + j] = make_double2(1, 0);
    } else {
        a[(size_t)j * ld + j] = buf[j];
    }
}

extern "C" int orr_cuda_mom_diagonal(double *a, size_t ld, int n, double *buf, int unit)
{
    diagonal_kernel<<<grid_x(n), THREADS>>>((double2 *)a, ld, n, (double2 *)buf, unit);
    return cudaGetLastError();
}
