/* OpenCL diffraction kernels: the pieces of one operator application for
 * all active points of a batch (common/diffraction/device.h), as the CUDA
 * kernels (app_cuda/diffraction/kernels.cu). The build embeds this file
 * after common/portable.h and common/diffraction/zop.h (their #include
 * lines dropped): the z operator's arithmetic is the shared one. The
 * sizes come as one struct of ints and longs (host.c's ocl_dif_dims, laid
 * out alike on every compiler). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct {
    int nz, n_modes, kx, ky, fft_x, fft_y, n_layers, mx, my, capacity, n_vectors, pad;
    long unknowns, grid;
} dims;

typedef struct {
    int v[8];
} vidx_t;

#define DOT_ITEMS 256

static long mode_of_grid(const dims dm, long g)
{
    return dif_mode_of_grid(g, dm.kx, dm.mx, dm.my, dm.fft_x, dm.fft_y);
}

static long grid_of_mode(const dims dm, int q)
{
    return dif_grid_of_mode(q, dm.kx, dm.mx, dm.my, dm.fft_x, dm.fft_y);
}

static long vec_at(const dims dm, int v, int b)
{
    return ((long)v * dm.capacity + b) * dm.unknowns;
}

__kernel void dif_pad(const dims dm, __global const dif_c *vec, __global dif_c *grid,
                      __global const int *active, int n_active, int in)
{
    const long per = (long)dm.nz * dm.grid, total = per * n_active;
    for (long t = get_global_id(0); t < total; t += get_global_size(0)) {
        const int a = (int)(t / per);
        const long rest = t % per, g = rest % dm.grid;
        const int slice = (int)(rest / dm.grid);
        const long q = mode_of_grid(dm, g);
        dif_c v = {0.0, 0.0};
        if (q >= 0)
            v = vec[vec_at(dm, in, active[a]) + (long)slice * dm.n_modes + q];
        grid[t] = v;
    }
}

__kernel void dif_multiply(const dims dm, __global dif_c *grid, __global const dif_c *spectra,
                           __global const int *spectrum_of, __global const int *active,
                           int n_active)
{
    const long per = (long)dm.nz * dm.grid, total = per * n_active;
    for (long t = get_global_id(0); t < total; t += get_global_size(0)) {
        const int a = (int)(t / per);
        grid[t] = dif_cmul(grid[t], spectra[(long)spectrum_of[active[a]] * per + t % per]);
    }
}

__kernel void dif_zop(const dims dm, __global dif_c *vec, __global const dif_c *grid,
                      __global const dif_c *mt, __global const dif_c *lay,
                      __global const int *layer_first, __global const int *active, int n_active,
                      int in, int out)
{
    const long total = (long)dm.n_modes * n_active;
    for (long t = get_global_id(0); t < total; t += get_global_size(0)) {
        const int a = (int)(t / dm.n_modes), q = (int)(t % dm.n_modes), b = active[a];
        const long lay_per = (long)dm.n_layers * DIF_LAYER_TABLE;
        dif_zop_order(dm.n_layers, layer_first, lay + ((long)b * dm.n_modes + q) * lay_per,
                      mt + ((long)b * dm.n_modes + q) * DIF_MODE_TABLE,
                      vec + vec_at(dm, in, b) + q,
                      grid + (long)a * dm.nz * dm.grid + grid_of_mode(dm, q), dm.grid,
                      vec + vec_at(dm, out, b) + q, dm.n_modes);
    }
}

__kernel void dif_crop(const dims dm, __global dif_c *vec, __global const dif_c *grid,
                       __global const int *active, int n_active, int out)
{
    const long total = dm.unknowns * n_active;
    for (long t = get_global_id(0); t < total; t += get_global_size(0)) {
        const int a = (int)(t / dm.unknowns);
        const long k = t % dm.unknowns;
        const int slice = (int)(k / dm.n_modes), q = (int)(k % dm.n_modes);
        vec[vec_at(dm, out, active[a]) + k] =
            grid[((long)a * dm.nz + slice) * dm.grid + grid_of_mode(dm, q)];
    }
}

/* Group (a, pair): conj(x) . y, each work-item a strided share, then a
 * fixed tree: the same bits on every run. */
__kernel __attribute__((reqd_work_group_size(DOT_ITEMS, 1, 1)))
void dif_dots(const dims dm, __global const dif_c *vec, __global const int *active,
              const vidx_t vidx, int n_pairs, __global dif_c *dots)
{
    __local double re[DOT_ITEMS], im[DOT_ITEMS];
    const int lid = get_local_id(0), grp = get_group_id(0);
    const int a = grp / n_pairs, k = grp % n_pairs, b = active[a];
    __global const dif_c *x = vec + vec_at(dm, vidx.v[2 * k], b);
    __global const dif_c *y = vec + vec_at(dm, vidx.v[2 * k + 1], b);
    double sr = 0, si = 0;
    for (long i = lid; i < dm.unknowns; i += DOT_ITEMS) {
        const dif_c u = x[i], v = y[i];
        sr += u.re * v.re + u.im * v.im;
        si += u.re * v.im - u.im * v.re;
    }
    re[lid] = sr;
    im[lid] = si;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = DOT_ITEMS / 2; s > 0; s /= 2) {
        if (lid < s) {
            re[lid] += re[lid + s];
            im[lid] += im[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const dif_c d = {re[0], im[0]};
        dots[(long)a * n_pairs + k] = d;
    }
}

__kernel void dif_lincomb(const dims dm, __global dif_c *vec, __global const int *active,
                          const vidx_t vidx, __global const dif_c *coef, int n_active, int out,
                          int n_terms)
{
    const long total = dm.unknowns * n_active;
    for (long t = get_global_id(0); t < total; t += get_global_size(0)) {
        const int a = (int)(t / dm.unknowns), b = active[a];
        const long i = t % dm.unknowns;
        dif_c sum = {0.0, 0.0};
        for (int k = 0; k < n_terms; k++)
            sum = dif_cfma(coef[a * n_terms + k], vec[vec_at(dm, vidx.v[k], b) + i], sum);
        vec[vec_at(dm, out, b) + i] = sum;
    }
}
