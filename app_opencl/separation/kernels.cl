/* OpenCL separation kernels. The build embeds this file after
 * common/portable.h, common/separation/model.h and nodes.h (their #include
 * lines dropped), so the formulas are the shared ones; what lives here is
 * the parallel shape, the same as the CUDA kernels':
 *  - integral: one work-group per chunk; each work-item takes every
 *    CHUNK_THREADS-th cell of the chunk, keeps Kahan pairs across its
 *    cells, and the group merges the pairs in a fixed tree order, so a
 *    chunk's sums never depend on timing and checkpoints resume exactly;
 *  - stars: one work-item per star;
 *  - directions: one work-item per grid column.
 * Build options set NS (the stream count, 0-8: loops unroll and the sums
 * stay in registers) and CHUNK_THREADS (the work-group size). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define NS_ARRAY (NS > 0 ? NS : 1)

__kernel __attribute__((reqd_work_group_size(CHUNK_THREADS, 1, 1)))
void integral_chunks(__constant sep_model_consts *mc, int r_steps, int mu_steps, int convolve,
                     __global const double *r_point, __global const double *qw_r3_N,
                     __global const double *irv, __global const double *reff_xr_rp3,
                     __global const double *id, __global const sep_direction *dirs, int first,
                     __global sep_partial *out)
{
    const int tid = get_local_id(0), group = get_group_id(0);
    const int per_row = (mu_steps + SEP_CHUNK_MU - 1) / SEP_CHUNK_MU;
    const int chunk = first + group;
    const int nu = chunk / per_row;
    const int mu_begin = (chunk % per_row) * SEP_CHUNK_MU;
    const int mu_end = min(mu_begin + SEP_CHUNK_MU, mu_steps);
    const int cells = (mu_end - mu_begin) * r_steps;
    const double idv = id[nu];

    sep_partial mine;
    mine.bg.sum = mine.bg.corr = 0.0;
    for (int s = 0; s < NS; s++)
        mine.st[s].sum = mine.st[s].corr = 0.0;
    double st_cell[NS_ARRAY];
    for (int c = tid; c < cells; c += CHUNK_THREADS) {
        const int mu = mu_begin + c / r_steps, i = c % r_steps;
        const sep_direction d = dirs[(size_t)nu * mu_steps + mu];
        sep_stream_quad q[NS_ARRAY];
        for (int s = 0; s < NS; s++)
            sep_stream_quadratic(mc, s, &d, &q[s]);
        const double bgs = sep_node_sums_quad(mc, NS, &d, q, r_point + (size_t)i * convolve,
                                              qw_r3_N + (size_t)i * convolve, convolve, st_cell);
        sep_partial_add_cell(&mine, idv * irv[i], reff_xr_rp3[i], bgs, st_cell, NS);
    }

    __local orr_kahan sh[CHUNK_THREADS][1 + NS];
    sh[tid][0] = mine.bg;
    for (int s = 0; s < NS; s++)
        sh[tid][1 + s] = mine.st[s];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = CHUNK_THREADS / 2; step > 0; step /= 2) {
        if (tid < step)
            for (int k = 0; k <= NS; k++)
                sh[tid][k] = orr_kahan_merge(sh[tid][k], sh[tid + step][k]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) {
        __global sep_partial *p = &out[group];
        p->bg = sh[0][0];
        for (int s = 0; s < SEP_MAX_STREAMS; s++) {
            p->st[s].sum = p->st[s].corr = 0.0;
            if (s < NS)
                p->st[s] = sh[0][1 + s];
        }
    }
}

/* Node sums of n stars: bg[i] and st[i * NS + s], without K. */
__kernel void star_sums(__constant sep_model_consts *mc, int n, int convolve,
                        __global const sep_direction *dirs, __global const double *r_point,
                        __global const double *qw, __global double *bg, __global double *st)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    double st_star[NS_ARRAY];
    const sep_direction d = dirs[i];
    bg[i] = sep_node_sums_fast(mc, NS, &d, r_point + (size_t)i * convolve,
                               qw + (size_t)i * convolve, convolve, 1, st_star);
    for (int s = 0; s < NS; s++)
        st[(size_t)i * NS + s] = st_star[s];
}

/* dirs[nu * mu_steps + mu]: the formula of sep_column_direction. */
__kernel void column_directions(int wedge, double mu_min, double mu_step,
                                __global const double *nu, int nu_steps, int mu_steps,
                                __global sep_direction *dirs)
{
    const size_t k = get_global_id(0);
    if (k >= (size_t)nu_steps * mu_steps)
        return;
    const int n = (int)(k / mu_steps), m = (int)(k % mu_steps);
    sep_direction d;
    sep_gc_direction(wedge, mu_min + (m + 0.5) * mu_step, nu[n], &d);
    dirs[k] = d;
}

/* The struct layouts as this compiler sees them; the host compares. */
__kernel void layout(__constant sep_model_consts *mc, __global int *out)
{
    out[0] = (int)sizeof(sep_model_consts);
    out[1] = (int)sizeof(sep_partial);
    out[2] = (int)sizeof(sep_direction);
    out[3] = (int)((__constant const char *)&mc->sum_exp_weights - (__constant const char *)mc);
    out[4] = (int)((__constant const char *)&mc->stream_a[0][0] - (__constant const char *)mc);
}
