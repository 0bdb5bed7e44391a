/* CUDA separation kernels. The formulas are the shared ones
 * (separation/nodes.h); what lives here is the parallel shape:
 *  - integral: one block per chunk; each thread takes every blockDim-th
 *    cell of the chunk, keeps Kahan pairs across its cells, and the block
 *    merges the threads' pairs in a fixed tree order (orr_kahan_merge). The
 *    order never depends on timing, so a chunk's sums are the same bits on
 *    every run and a checkpoint between chunks resumes exactly;
 *  - stars: one thread per star.
 * The stream count is a template parameter for 1-4 streams (the loops
 * unroll, the sums stay in registers); more streams take the generic one. */
#include <cuda_runtime.h>

#include "kernels.h"

/* The block shape, measured on an H200 (stripe 12, 3 streams, integral
 * GPU seconds; bench/separation/gpu_bench.sh). Threads per chunk: 64 -> 7.2 s, 128 ->
 * 4.0 s, 256 -> 2.8 s (first kernel). The kernel wants ~136 registers a
 * thread, which fits one 256-thread block per SM (1 block: 3.5 s); capping
 * it at 128 to fit two costs 4 bytes of spill (2 blocks: 1.87 s with the
 * node loop unrolled twice, 1.83 s four times; 3 blocks at 80 registers
 * spill 300 bytes: 2.2 s). */
#ifndef CHUNK_THREADS
#define CHUNK_THREADS 256
#endif
#ifndef CHUNK_MIN_BLOCKS
#define CHUNK_MIN_BLOCKS 2
#endif
#ifndef SEP_NODE_UNROLL
#define SEP_NODE_UNROLL 4
#endif
/* Streams' exponents from their quadratics in r (sep_stream_quadratic):
 * 1.92 -> 1.81 s against sep_node_sums_fast's direct distances. */
#ifndef CHUNK_QUAD
#define CHUNK_QUAD 1
#endif

#include "separation/nodes.h"

__constant__ sep_model_consts c_mc;

extern "C" int orr_cuda_set_model(const sep_model_consts *mc)
{
    return (int)cudaMemcpyToSymbol(c_mc, mc, sizeof *mc);
}

template <int NS>
__global__ void __launch_bounds__(CHUNK_THREADS, CHUNK_MIN_BLOCKS)
integral_chunks(orr_cuda_area a, int n_streams_rt, int first, sep_partial *out)
{
    const int ns = NS >= 0 ? NS : n_streams_rt;
    const int per_row = (a.mu_steps + SEP_CHUNK_MU - 1) / SEP_CHUNK_MU;
    const int chunk = first + blockIdx.x;
    const int nu = chunk / per_row;
    const int mu_begin = (chunk % per_row) * SEP_CHUNK_MU;
    const int mu_end = min(mu_begin + SEP_CHUNK_MU, a.mu_steps);
    const int cells = (mu_end - mu_begin) * a.r_steps;
    const double id = a.id[nu];

    sep_partial mine;
    mine.bg.sum = mine.bg.corr = 0.0;
    for (int s = 0; s < ns; s++)
        mine.st[s].sum = mine.st[s].corr = 0.0;
    double st_cell[NS > 0 ? NS : SEP_MAX_STREAMS];
    for (int c = threadIdx.x; c < cells; c += CHUNK_THREADS) {
        const int mu = mu_begin + c / a.r_steps, i = c % a.r_steps;
        const sep_direction d = a.dirs[(size_t)nu * a.mu_steps + mu];
#if CHUNK_QUAD
        sep_stream_quad q[NS > 0 ? NS : SEP_MAX_STREAMS];
        for (int s = 0; s < ns; s++)
            sep_stream_quadratic(&c_mc, s, &d, &q[s]);
        const double bgs = sep_node_sums_quad(&c_mc, ns, &d, q, a.r_point + (size_t)i * a.convolve,
                                              a.qw_r3_N + (size_t)i * a.convolve, a.convolve,
                                              st_cell);
#else
        const double bgs = sep_node_sums_fast(&c_mc, ns, &d, a.r_point + (size_t)i * a.convolve,
                                              a.qw_r3_N + (size_t)i * a.convolve, a.convolve, 1,
                                              st_cell);
#endif
        sep_partial_add_cell(&mine, id * a.irv[i], a.reff_xr_rp3[i], bgs, st_cell, ns);
    }

    __shared__ orr_kahan sh[CHUNK_THREADS][1 + (NS > 0 ? NS : SEP_MAX_STREAMS)];
    sh[threadIdx.x][0] = mine.bg;
    for (int s = 0; s < ns; s++)
        sh[threadIdx.x][1 + s] = mine.st[s];
    __syncthreads();
    for (int step = CHUNK_THREADS / 2; step > 0; step /= 2) {
        if (threadIdx.x < step)
            for (int k = 0; k <= ns; k++)
                sh[threadIdx.x][k] = orr_kahan_merge(sh[threadIdx.x][k], sh[threadIdx.x + step][k]);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sep_partial *p = &out[blockIdx.x];
        p->bg = sh[0][0];
        for (int s = 0; s < SEP_MAX_STREAMS; s++) {
            p->st[s].sum = p->st[s].corr = 0.0;
            if (s < ns)
                p->st[s] = sh[0][1 + s];
        }
    }
}

extern "C" int orr_cuda_integral_chunks(const orr_cuda_area *area, int n_streams, int first,
                                        int count, sep_partial *out)
{
    dim3 grid(count), block(CHUNK_THREADS);
    switch (n_streams) {
    case 0: integral_chunks<0><<<grid, block>>>(*area, 0, first, out); break;
    case 1: integral_chunks<1><<<grid, block>>>(*area, 1, first, out); break;
    case 2: integral_chunks<2><<<grid, block>>>(*area, 2, first, out); break;
    case 3: integral_chunks<3><<<grid, block>>>(*area, 3, first, out); break;
    case 4: integral_chunks<4><<<grid, block>>>(*area, 4, first, out); break;
    default: integral_chunks<-1><<<grid, block>>>(*area, n_streams, first, out); break;
    }
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_integral_blocks_per_sm(int n_streams)
{
    int blocks = 0;
    cudaError_t e;
    switch (n_streams) {
    case 0: e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, integral_chunks<0>, CHUNK_THREADS, 0); break;
    case 1: e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, integral_chunks<1>, CHUNK_THREADS, 0); break;
    case 2: e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, integral_chunks<2>, CHUNK_THREADS, 0); break;
    case 3: e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, integral_chunks<3>, CHUNK_THREADS, 0); break;
    case 4: e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, integral_chunks<4>, CHUNK_THREADS, 0); break;
    default: e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, integral_chunks<-1>, CHUNK_THREADS, 0); break;
    }
    return e == cudaSuccess && blocks > 0 ? blocks : 1;
}

/* Every column's line of sight: the host formula (sep_column_direction),
 * a million columns in microseconds instead of a fifth of a second. */
__global__ void column_directions(int wedge, double mu_min, double mu_step, const double *nu,
                                  int nu_steps, int mu_steps, sep_direction *dirs)
{
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= (size_t)nu_steps * mu_steps)
        return;
    const int n = (int)(k / mu_steps), m = (int)(k % mu_steps);
    sep_gc_direction(wedge, mu_min + (m + 0.5) * mu_step, nu[n], &dirs[k]);
}

extern "C" int orr_cuda_column_directions(int wedge, double mu_min, double mu_step,
                                          const double *nu, int nu_steps, int mu_steps,
                                          sep_direction *dirs)
{
    const int threads = 256;
    const size_t n = (size_t)nu_steps * mu_steps;
    column_directions<<<(unsigned)((n + threads - 1) / threads), threads>>>(
        wedge, mu_min, mu_step, nu, nu_steps, mu_steps, dirs);
    return (int)cudaGetLastError();
}

template <int NS>
__global__ void star_sums(int n, int convolve, int n_streams_rt, const sep_direction *dirs,
                          const double *r_point, const double *qw, double *bg, double *st)
{
    const int ns = NS >= 0 ? NS : n_streams_rt;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double st_star[NS > 0 ? NS : SEP_MAX_STREAMS];
    const sep_direction d = dirs[i];
    bg[i] = sep_node_sums_fast(&c_mc, ns, &d, r_point + (size_t)i * convolve, qw + (size_t)i * convolve,
                               convolve, 1, st_star);
    for (int s = 0; s < ns; s++)
        st[(size_t)i * ns + s] = st_star[s];
}

extern "C" int orr_cuda_star_sums(int n, int convolve, int n_streams, const sep_direction *dirs,
                                  const double *r_point, const double *qw_r3_N, double *bg,
                                  double *st)
{
    const int threads = 128;
    dim3 grid((n + threads - 1) / threads), block(threads);
    switch (n_streams) {
    case 0: star_sums<0><<<grid, block>>>(n, convolve, 0, dirs, r_point, qw_r3_N, bg, st); break;
    case 1: star_sums<1><<<grid, block>>>(n, convolve, 1, dirs, r_point, qw_r3_N, bg, st); break;
    case 2: star_sums<2><<<grid, block>>>(n, convolve, 2, dirs, r_point, qw_r3_N, bg, st); break;
    case 3: star_sums<3><<<grid, block>>>(n, convolve, 3, dirs, r_point, qw_r3_N, bg, st); break;
    case 4: star_sums<4><<<grid, block>>>(n, convolve, 4, dirs, r_point, qw_r3_N, bg, st); break;
    default: star_sums<-1><<<grid, block>>>(n, convolve, n_streams, dirs, r_point, qw_r3_N, bg, st); break;
    }
    return (int)cudaGetLastError();
}
