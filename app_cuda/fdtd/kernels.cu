/* CUDA FDTD kernels: a time step's phases over the device's state
 * (common/fdtd/device.h). The per-cell arithmetic is update.h's macros,
 * the same tokens the C reference compiles; this file is built with
 * --fmad=false (Makefile.am), so faithful mode fuses none of its products
 * and sums, its quotients are IEEE division's (cell_size below), and it
 * gives the reference's bits; fast mode's FMAs are the ones update.h
 * writes (FDTD_FMA). Per cell the order is sweep.h's: the sweep of each field,
 * then the CPML terms in FDTD_PSI_TERMS order (axis x, y, z). A cell's
 * update reads only the other field (E reads H, H reads E) and its own
 * psi, so a thread a cell gives the same bits as sweep.h's rows.
 *
 * Sums (energy, norms) are a warp a row (j, k): lane l takes i = l, l +
 * 32, ... in turn, the lanes combine by the xor butterfly (update.h's
 * FDTD_BUTTERFLY is exactly __shfl_xor_sync over m = 16 .. 1), and the
 * host adds the rows (device.c). */
#include <cuda_runtime.h>
#include <stdint.h>

#include <cmath>
#include <limits>

#include "fdtd/update.h"
#include "kernels.h"

/* fast mode's fused multiply-adds, one rounding in either precision */
__device__ __forceinline__ float fdtd_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double fdtd_fma(double a, double b, double c) { return __fma_rn(a, b, c); }
#define FDTD_FMA(a, b, c) fdtd_fma((a), (b), (c))

/* Faithful mode's division by a cell size, correctly rounded like the '/'
 * it stands for: update.h's macros divide by their da argument, and the
 * kernels pass this object, so the macros stay verbatim. q0 = x RN(1/d),
 * then two corrections by the exact remainder (fma): the first makes the
 * quotient faithful, the second rounds it correctly (Markstein's theorem:
 * y within half an ulp of 1/d, q within an ulp of x/d, r = x - d q exact
 * => RN(q + r y) = RN(x/d)). Five operations where the hardware's
 * sequence also refines a reciprocal, and zero (every difference ahead of
 * a wave) is its own quotient where the hardware sequence takes its slow
 * path: faithful double went from 58% to 78-83% of the copy bandwidth on
 * the H200 (N = 384; +11% with the fields nonzero everywhere). Numerators
 * outside the exponent range in which every intermediate stays normal
 * (subnormals, huge values, inf, NaN) take the hardware division.
 * Checked against IEEE division on the CPU for every float numerator and
 * 4e8 doubles (near-midpoint quotients too), for 13 divisors. */
template <typename R> struct cell_size {
    R d, inv;        /* d and RN(1/d), in R */
    int elo, ehi;    /* the biased exponents of x that take the quick path */
};

template <typename R> struct cell_sizes {
    cell_size<R> s[3];
};

__device__ __forceinline__ int biased_exponent(double x)
{
    return (int)((__double_as_longlong(x) >> 52) & 0x7ff);
}
__device__ __forceinline__ int biased_exponent(float x) { return (__float_as_int(x) >> 23) & 0xff; }

template <typename R> __device__ __forceinline__ R operator/(R x, const cell_size<R> &s)
{
    const int e = biased_exponent(x);
    if (e < s.elo || e > s.ehi)
        return x == 0 ? x : x / s.d;   /* +-0 / d = +-0 (cell sizes are > 0) */
    const R q0 = x * s.inv;
    const R q1 = fdtd_fma(fdtd_fma(-s.d, q0, x), s.inv, q0);
    return fdtd_fma(fdtd_fma(-s.d, q1, x), s.inv, q1);
}

/* On the host: d rounded to R, its reciprocal rounded once in R, and the
 * quick path's range: x in [2^(emin + p + 4 + max(eb, 0)), 2^(emax - 3 +
 * min(eb, 0))) for d in [2^eb, 2^(eb + 1)); none unless d is normal. */
template <typename R> static cell_sizes<R> sizes_of(const fdtd_dims *P)
{
    const bool f = sizeof(R) == 4;
    const int emin = f ? -126 : -1022, emax = f ? 127 : 1023, p = f ? 24 : 53;
    cell_sizes<R> c;
    for (int a = 0; a < 3; a++) {
        cell_size<R> &s = c.s[a];
        s.d = (R)P->d[a];
        s.inv = (R)1 / s.d;
        int eb;
        frexp((double)s.d, &eb);
        eb -= 1;
        s.elo = emax + emin + p + 4 + (eb > 0 ? eb : 0);
        s.ehi = emax + emax - 4 + (eb < 0 ? eb : 0);
        if (!(s.d >= std::numeric_limits<R>::min() && s.d <= std::numeric_limits<R>::max()))
            s.elo = 1 << 30;
    }
    return c;
}

/* The sweeps' blocks: a warp along i (coalesced), BY rows, a cell a
 * thread. Measured on the H200 against 32 x 16, 32 x 32, 64 x 4, 128 x 2
 * and 4 or 16 planes a thread: 32 x 8 was best or within 7% everywhere. */
#define BX 32
#define BY 8
#define ROWS 8         /* sums: warps (rows) a block */
#define POINT_THREADS 128
/* Blocks an SM must hold: fast mode runs best with registers capped for
 * 5 (+9% at N = 384, H200), faithful with none (its quotients need them);
 * Turing (sm_75) holds 1024 threads an SM, so 4 there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define FAST_MIN_BLOCKS 4
#else
#define FAST_MIN_BLOCKS 5
#endif
#define MIN_BLOCKS(FAST) ((FAST) ? FAST_MIN_BLOCKS : 1)

/* The state in the fields' precision. */
template <typename R> struct view {
    R *f[FDTD_N_FIELDS];
    R *psi[FDTD_N_PSI];
    const uint16_t *map[3];
    const R *tab;
    const double *eps;
};

template <typename R> __device__ __forceinline__ view<R> view_of(const fdtd_device_bufs &b)
{
    view<R> v;
    for (int f = 0; f < FDTD_N_FIELDS; f++)
        v.f[f] = (R *)b.f[f];
    for (int q = 0; q < FDTD_N_PSI; q++)
        v.psi[q] = (R *)b.psi[q];
    for (int a = 0; a < 3; a++)
        v.map[a] = (const uint16_t *)b.map[a];
    v.tab = (const R *)b.tab;
    v.eps = (const double *)b.eps;
    return v;
}

__device__ __forceinline__ bool live(const fdtd_dims &P, int f, int i, int j, int k)
{
    return i >= P.lo[f][0] && i <= P.hi[f][0] && j >= P.lo[f][1] && j <= P.hi[f][1] &&
           k >= P.lo[f][2] && k <= P.hi[f][2];
}

__device__ __forceinline__ int64_t stride(const fdtd_dims &P, int a)
{
    return a == 0 ? 1 : a == 1 ? P.sx : P.sx * P.sy;
}

/* Field F's curl partners (update.h): A along axis a, B along axis b. */
__host__ __device__ constexpr int partner_a(int f)
{
    return f == FDTD_EX ? FDTD_HZ : f == FDTD_EY ? FDTD_HX : f == FDTD_EZ ? FDTD_HY
         : f == FDTD_HX ? FDTD_EZ : f == FDTD_HY ? FDTD_EX : FDTD_EY;
}
__host__ __device__ constexpr int partner_b(int f)
{
    return f == FDTD_EX ? FDTD_HY : f == FDTD_EY ? FDTD_HZ : f == FDTD_EZ ? FDTD_HX
         : f == FDTD_HX ? FDTD_EY : f == FDTD_HY ? FDTD_EZ : FDTD_EX;
}
__host__ __device__ constexpr int axis_a(int f) { return f % 3 == 0 ? 1 : f % 3 == 1 ? 2 : 0; }
__host__ __device__ constexpr int axis_b(int f) { return f % 3 == 0 ? 2 : f % 3 == 1 ? 0 : 1; }

/* One cell's values in a phase (PH 0: E, 1: H), loaded before any is
 * computed so that every load is in flight at once. The macros run on
 * these registers with c = PH and strides 1: v[q][PH] is field 3 PH + q at
 * the cell, a[q] and b[q] its partners at (c, c + s) for E and (c - s, c)
 * for H, the very operands sweep.h reads from the arrays, so the bits are
 * the same. The CPML terms differentiate the same partners along the same
 * axes (FDTD_PSI_TERMS), so they read a[] and b[] too. */
template <typename R> struct cell {
    bool live[3];
    R v[3][2], a[3][2], b[3][2];
};

template <typename R, int PH>
__device__ __forceinline__ void load_cell(const fdtd_dims &P, const view<R> &v, int i, int j, int k,
                                          int64_t c, cell<R> &x)
{
#pragma unroll
    for (int q = 0; q < 3; q++) {
        const int f = 3 * PH + q;
        x.live[q] = live(P, f, i, j, k);
        if (!x.live[q])
            continue;
        const int64_t sa = stride(P, axis_a(f)), sb = stride(P, axis_b(f));
        const R *A = v.f[partner_a(f)] + c, *B = v.f[partner_b(f)] + c;
        x.v[q][PH] = v.f[f][c];
        x.a[q][0] = PH ? A[-sa] : A[0];
        x.a[q][1] = PH ? A[0] : A[sa];
        x.b[q][0] = PH ? B[-sb] : B[0];
        x.b[q][1] = PH ? B[0] : B[sb];
    }
}

template <typename R, int PH>
__device__ __forceinline__ void store_cell(const view<R> &v, int64_t c, const cell<R> &x)
{
#pragma unroll
    for (int q = 0; q < 3; q++)
        if (x.live[q])
            v.f[3 * PH + q][c] = x.v[q][PH];
}

/* The sweep of the phase's three fields (update.h's macros). */
template <typename R, bool FAST, int PH>
__device__ __forceinline__ void sweep_cell(const fdtd_dims &P, const cell_sizes<R> &D,
                                           const view<R> &v, int64_t c, cell<R> &x)
{
#pragma unroll
    for (int q = 0; q < 3; q++) {
        const int f = 3 * PH + q, a = axis_a(f), b = axis_b(f);
        if (!x.live[q])
            continue;
        if (PH == 0) {
            const int m = P.has_map ? v.map[q][c] : 0;
            if (FAST)
                FDTD_E_FAST(x.v[q], x.a[q], x.b[q], 0, 1, 1, v.tab[m], v.tab[P.cbd[a] + m],
                            v.tab[P.cbd[b] + m]);
            else
                FDTD_E_FAITHFUL(x.v[q], x.a[q], x.b[q], 0, 1, 1, D.s[a], D.s[b], v.tab[m],
                                v.tab[P.n_coef + m]);
        } else if (FAST)
            FDTD_H_FAST(x.v[q], x.a[q], x.b[q], 1, 1, 1, (R)P.dhd[a], (R)P.dhd[b]);
        else
            FDTD_H_FAITHFUL(x.v[q], x.a[q], x.b[q], 1, 1, 1, D.s[a], D.s[b], (R)P.dh);
    }
}

/* One CPML term (update.h's FDTD_PSI_TERMS row) at cell c, if c is in the
 * term's layer: psi's recursion, then the field's correction (sweep.h's
 * psi_row, one cell). */
template <typename R, bool FAST, int TERM, int AXIS, int H, int F, int G, int SIGN>
__device__ __forceinline__ void psi_term(const fdtd_dims &P, const cell_sizes<R> &D, const view<R> &v,
                                         int i, int j, int k, int64_t c, cell<R> &x)
{
    constexpr int q = F - 3 * H;
    static_assert(G == (axis_a(F) == AXIS ? partner_a(F) : partner_b(F)),
                  "a CPML term differentiates a curl partner of its field along its axis");
    if (!x.live[q])
        return;
    const int p = AXIS == 0 ? i : AXIS == 1 ? j : k, t = P.t;
    const int plane = FDTD_PSI_PLANE(p, P.n[AXIS], t, H);
    if (plane < 0)
        return;
    const int64_t at = AXIS == 0   ? plane + 2 * (int64_t)t * (j + P.sy * k)
                       : AXIS == 1 ? P.sx * (plane + 2 * (int64_t)t * k) + i
                                   : P.sx * (j + P.sy * plane) + i;
    R psi = v.psi[TERM][at];
    const R *g = axis_a(F) == AXIS ? x.a[q] : x.b[q];
    const R *pb = v.tab + P.prof[H][AXIS], *pc = pb + P.n[AXIS] + 2, *pcd = pc + P.n[AXIS] + 2;
    if (FAST) {
        if (H)
            FDTD_PSI_BWD_FAST(psi, pb[p], pcd[p], g, 1, 1);
        else
            FDTD_PSI_FWD_FAST(psi, pb[p], pcd[p], g, 0, 1);
    } else {
        const cell_size<R> &da = D.s[AXIS];
        if (H)
            FDTD_PSI_BWD(psi, pb[p], pc[p], g, 1, 1, da);
        else
            FDTD_PSI_FWD(psi, pb[p], pc[p], g, 0, 1, da);
    }
    v.psi[TERM][at] = psi;
    const R coef = H ? (R)P.dh : v.tab[P.n_coef + (P.has_map ? v.map[q][c] : 0)];
    R &fv = x.v[q][H];
    if ((SIGN > 0) != (H != 0))
        fv = fv + coef * psi;
    else
        fv = fv - coef * psi;
}

/* A cell's phase: loads, the sweep, the CPML terms (axis x, y, z), stores. */
template <typename R, bool FAST, bool PML, int PH>
__device__ __forceinline__ void phase_cell(const fdtd_dims &P, const cell_sizes<R> &D,
                                           const view<R> &v, int i, int j, int k, int64_t c,
                                           cell<R> &x)
{
    load_cell<R, PH>(P, v, i, j, k, c, x);
    sweep_cell<R, FAST, PH>(P, D, v, c, x);
    if (PML) {
#define TERM(term, axis, h, f, g, sign) \
    if constexpr ((h) == PH)            \
        psi_term<R, FAST, term, axis, h, f, g, sign>(P, D, v, i, j, k, c, x);
        FDTD_PSI_TERMS(TERM)
#undef TERM
    }
    store_cell<R, PH>(v, c, x);
}

/* A thread a cell of the phase's launch box (ph: 0 E, 1 H). */
template <typename R, bool FAST, bool PML, int PH>
__global__ void __launch_bounds__(BX * BY, MIN_BLOCKS(FAST))
    phase_kernel(const __grid_constant__ fdtd_dims P, const __grid_constant__ fdtd_device_bufs b,
                 const __grid_constant__ cell_sizes<R> D)
{
    const int i = P.box[PH][0][0] + blockIdx.x * BX + threadIdx.x;
    const int j = P.box[PH][0][1] + blockIdx.y * BY + threadIdx.y;
    const int k = P.box[PH][0][2] + blockIdx.z;
    if (i > P.box[PH][1][0] || j > P.box[PH][1][1])
        return;
    cell<R> x;
    phase_cell<R, FAST, PML, PH>(P, D, view_of<R>(b), i, j, k, i + P.sx * (j + P.sy * k), x);
}

/* update.h's butterfly: lane l adds lane l xor m's value, m = 16 .. 1. */
__device__ __forceinline__ double butterfly(double v)
{
    for (int m = FDTD_LANES / 2; m > 0; m /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

/* The H phase of an energy step, a warp a row (j, k): each cell's H before
 * and after its update (sweep, CPML terms), then its energy terms. */
template <typename R, bool FAST, bool PML>
__global__ void __launch_bounds__(FDTD_LANES * ROWS)
    h_energy_kernel(const __grid_constant__ fdtd_dims P, const __grid_constant__ fdtd_device_bufs b,
                    const __grid_constant__ cell_sizes<R> D, int64_t rows_at)
{
    const int64_t row = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (row >= P.sy * P.sz)
        return;   /* the whole warp */
    const view<R> v = view_of<R>(b);
    const int j = (int)(row % P.sy), k = (int)(row / P.sy);
    double sum = 0;
    for (int i = threadIdx.x; i < P.sx; i += FDTD_LANES) {
        const int64_t c = P.sx * row + i;
        R h0[3], h1[3];
        for (int q = 0; q < 3; q++)
            h0[q] = v.f[FDTD_HX + q][c];
        cell<R> x;
        phase_cell<R, FAST, PML, 1>(P, D, v, i, j, k, c, x);
        for (int q = 0; q < 3; q++)
            h1[q] = x.live[q] ? x.v[q][1] : h0[q];
        double ep[3];
        for (int f = 0; f < 3; f++)
            ep[f] = v.eps[P.has_map ? v.map[f][c] : 0];
        sum += FDTD_CELL_ENERGY(v.f[FDTD_EX][c], v.f[FDTD_EY][c], v.f[FDTD_EZ][c], ep[0], ep[1],
                                ep[2], h0[0], h1[0], h0[1], h1[1], h0[2], h1[2], P.mu0);
    }
    sum = butterfly(sum);
    if (threadIdx.x == 0)
        ((double *)b.rows)[rows_at + row] = sum;
}

/* Sum of squares and largest magnitude of x, a warp a row (sweep.h's
 * norm_rows: a NaN wins the maximum). */
template <typename R>
__global__ void __launch_bounds__(FDTD_LANES * ROWS)
    norm_kernel(const __grid_constant__ fdtd_dims P, const R *x, double *rows, double *rows_max)
{
    const int64_t row = (int64_t)blockIdx.x * ROWS + threadIdx.y;
    if (row >= P.sy * P.sz)
        return;
    double sum = 0, m = 0;
    for (int i = threadIdx.x; i < P.sx; i += FDTD_LANES) {
        const double a = (double)x[P.sx * row + i];
        sum += a * a;
        m = fabs(a) > m || a != a ? fabs(a) : m;
    }
    sum = butterfly(sum);
    for (int s = FDTD_LANES / 2; s > 0; s /= 2) {
        const double o = __shfl_xor_sync(0xffffffffu, m, s);
        m = o > m || o != o ? o : m;
    }
    if (threadIdx.x == 0) {
        rows[row] = sum;
        rows_max[row] = m;
    }
}

/* The source cell (do_src, one thread), or the probes. */
template <typename R>
__global__ void points_kernel(const __grid_constant__ fdtd_dims P,
                              const __grid_constant__ fdtd_device_bufs b, int do_src, int src_field,
                              int64_t src_at, R value, int64_t out_at)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (do_src) {
        if (p == 0)
            ((R *)b.f[src_field])[src_at] = value;
        return;
    }
    if (p < P.n_probes) {
        const int64_t *at = (const int64_t *)b.probe_at;
        ((double *)b.probe_out)[out_at + p] = (double)((const R *)b.f[at[2 * p]])[at[2 * p + 1]];
    }
}

/* ---- launchers: the build for dm's precision, arithmetic and CPML ---- */

#define PICK(fn, P, ...)                                                                         \
    ((P)->single ? ((P)->fast ? ((P)->t ? fn<float, true, true>(__VA_ARGS__)                    \
                                        : fn<float, true, false>(__VA_ARGS__))                  \
                              : ((P)->t ? fn<float, false, true>(__VA_ARGS__)                   \
                                        : fn<float, false, false>(__VA_ARGS__)))                \
                 : ((P)->fast ? ((P)->t ? fn<double, true, true>(__VA_ARGS__)                   \
                                        : fn<double, true, false>(__VA_ARGS__))                 \
                              : ((P)->t ? fn<double, false, true>(__VA_ARGS__)                  \
                                        : fn<double, false, false>(__VA_ARGS__))))

template <typename R, bool FAST, bool PML, int PH>
static int launch_phase(const fdtd_dims *P, const fdtd_device_bufs *b)
{
    const int nx = P->box[PH][1][0] - P->box[PH][0][0] + 1;
    const int ny = P->box[PH][1][1] - P->box[PH][0][1] + 1;
    const int nz = P->box[PH][1][2] - P->box[PH][0][2] + 1;
    const dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY, nz), block(BX, BY);
    phase_kernel<R, FAST, PML, PH><<<grid, block>>>(*P, *b, sizes_of<R>(P));
    return (int)cudaGetLastError();
}

template <typename R, bool FAST, bool PML>
static int launch_e(const fdtd_dims *P, const fdtd_device_bufs *b)
{
    return launch_phase<R, FAST, PML, 0>(P, b);
}

static unsigned row_blocks(const fdtd_dims *P)
{
    return (unsigned)((P->sy * P->sz + ROWS - 1) / ROWS);
}

template <typename R, bool FAST, bool PML>
static int launch_h(const fdtd_dims *P, const fdtd_device_bufs *b, int64_t rows_at)
{
    if (rows_at < 0)
        return launch_phase<R, FAST, PML, 1>(P, b);
    h_energy_kernel<R, FAST, PML><<<row_blocks(P), dim3(FDTD_LANES, ROWS)>>>(*P, *b, sizes_of<R>(P),
                                                                               rows_at);
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_fdtd_e(const fdtd_dims *dm, const fdtd_device_bufs *b)
{
    return PICK(launch_e, dm, dm, b);
}

extern "C" int orr_cuda_fdtd_h(const fdtd_dims *dm, const fdtd_device_bufs *b, int64_t rows_at)
{
    return PICK(launch_h, dm, dm, b, rows_at);
}

extern "C" int orr_cuda_fdtd_points(const fdtd_dims *dm, const fdtd_device_bufs *b, int do_src,
                                    int src_field, int64_t src_at, double value, int64_t out_at)
{
    const int n = do_src ? 1 : dm->n_probes;
    const unsigned blocks = (unsigned)((n + POINT_THREADS - 1) / POINT_THREADS);
    /* the value rounded here, on the host, as the reference rounds -J(n) */
    if (dm->single)
        points_kernel<float><<<blocks, POINT_THREADS>>>(*dm, *b, do_src, src_field, src_at,
                                                        (float)value, out_at);
    else
        points_kernel<double><<<blocks, POINT_THREADS>>>(*dm, *b, do_src, src_field, src_at, value,
                                                         out_at);
    return (int)cudaGetLastError();
}

extern "C" int orr_cuda_fdtd_norm(const fdtd_dims *dm, const fdtd_device_bufs *b, int f)
{
    const dim3 block(FDTD_LANES, ROWS);
    if (dm->single)
        norm_kernel<float><<<row_blocks(dm), block>>>(*dm, (const float *)b->f[f], (double *)b->rows,
                                                      (double *)b->rows_max);
    else
        norm_kernel<double><<<row_blocks(dm), block>>>(*dm, (const double *)b->f[f],
                                                       (double *)b->rows, (double *)b->rows_max);
    return (int)cudaGetLastError();
}
