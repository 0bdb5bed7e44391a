/* CUDA kernels for the 2D spectral kinds (docs/spectral.md): batched 2D
 * FFT, the fused EDM convolution and the batched tridiagonal solver, with
 * their launchers; included by spectral_2d.cu (the app), the device check
 * (tests/gpu/spectral_device_check.cu) and bench/spectral/cuda_spectral2d_bench.cu.
 *
 * FFTs here run in place in shared memory, many lines at a time: radix-4
 * butterflies (one radix-2 stage when log2 N is odd), each butterfly
 * reading and writing its own four slots, so a stage needs no second
 * buffer and one barrier. Decimation in frequency takes natural order to
 * bit-reversed order; decimation in time takes bit-reversed order back to
 * natural order. The 2D FFT gathers the bit reversal into its store; the
 * convolution multiplies by S in bit-reversed order (S is permuted once on
 * the host) and goes back with decimation in time, so it never permutes.
 * Twiddles: one table of e^{-2 pi j k / FFT2D_TW_N} (long double on the
 * host, rounded once), read at a stride for shorter lengths. */
#ifndef ORRERY_CUDA_SPECTRAL_2D_CUH
#define ORRERY_CUDA_SPECTRAL_2D_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "spectral_fft.cuh"

#define FFT2D_LOG2_TW_N 12
#define FFT2D_TW_N (1 << FFT2D_LOG2_TW_N)   /* the longest side the kernels take */
#define FFT2D_THREADS 256
/* shared memory per block of the 2D FFT kernels (bytes): what every
 * device has (sm_75: 64 KB), and more where the device has it; images up
 * to the budget run rows and columns in one kernel */
#define FFT2D_SMALL_BYTES (64 * 1024)
#define FFT2D_BIG_BYTES (72 * 1024)
/* elements of shared memory the kernels aim at per block: 16 (a radix-16
 * step's share) for each of the 256 threads */
#define FFT2D_PASS_ELEMS 4096
/* several convolution slices share a block only below this (bytes) */
#define CONV2D_SHARED_SLICES_BYTES (64 * 1024)
#define TRIDIAG_MAX_N 2048
#define TRIDIAG_ROWS_PER_THREAD 8   /* the default chunk of the partition method */
#define TRIDIAG_THREADS 64          /* a block, unless one system needs more */

template <typename T> struct s2d_cpx;
template <> struct s2d_cpx<double> { typedef double2 type; };
template <> struct s2d_cpx<float> { typedef float2 type; };

template <typename C> __device__ __forceinline__ C s2d_add(C a, C b)
{
    C r;
    r.x = a.x + b.x;
    r.y = a.y + b.y;
    return r;
}

template <typename C> __device__ __forceinline__ C s2d_sub(C a, C b)
{
    C r;
    r.x = a.x - b.x;
    r.y = a.y - b.y;
    return r;
}

template <typename C> __device__ __forceinline__ C s2d_mul(C a, C b)
{
    C r;
    r.x = a.x * b.x - a.y * b.y;
    r.y = a.x * b.y + a.y * b.x;
    return r;
}

/* a times sign * j */
template <typename C> __device__ __forceinline__ C s2d_mul_sj(C a, int sign)
{
    C r;
    r.x = sign < 0 ? a.y : -a.y;
    r.y = sign < 0 ? -a.x : a.x;
    return r;
}

/* e^{sign 2 pi j e / FFT2D_TW_N} from the table of e^{-2 pi j k / FFT2D_TW_N} */
template <typename C> __device__ __forceinline__ C s2d_root(const C *tw, int e, int sign)
{
    C w = tw[e];
    if (sign > 0)
        w.y = -w.y;
    return w;
}

/* log2 of a power of two */
__host__ __device__ static inline int s2d_log2(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

/* k with its low log2n bits reversed */
__device__ __forceinline__ int s2d_rev(int k, int log2n)
{
    return log2n == 0 ? 0 : (int)(__brev((unsigned)k) >> (32 - log2n));
}

/* Shared memory index of element i of a buffer: one element of padding
 * after every 16, so threads reading every 16th element (the last step
 * of a row transform, columns) fall in different banks. */
__host__ __device__ __forceinline__ int s2d_pad(int i)
{
    return i + (i >> 4);
}

/* elements a padded buffer of n takes */
__host__ __device__ __forceinline__ int s2d_padded(int n)
{
    return n + (n >> 4) + 1;
}

/* Where line `line` of a set starts: lines come in groups of 2^lg_group
 * (lstride apart), groups gstride apart. */
struct s2d_lines {
    int count;      /* lines */
    int log2n;      /* their length */
    int lstride;    /* between lines of a group */
    int lg_group;   /* log2 of the lines per group (30: one group) */
    int gstride;    /* between groups */
    int estride;    /* between elements of a line */
    int lines_fast; /* >= 0: log2 count (a power of two), and neighbouring
                       threads take neighbouring lines (columns: no bank
                       conflicts); -1: neighbouring elements of a line */
};

/* Butterfly j of a stage with 2^lb butterflies per line: its line and its
 * index within the line. */
__device__ __forceinline__ void s2d_split(const s2d_lines &l, int j, int lb, int &line, int &kk)
{
    if (l.lines_fast >= 0) {
        line = j & ((1 << l.lines_fast) - 1);
        kk = j >> l.lines_fast;
    } else {
        line = j >> lb;
        kk = j & ((1 << lb) - 1);
    }
}

__device__ __forceinline__ int s2d_line_start(const s2d_lines &l, int line)
{
    return (line >> l.lg_group) * l.gstride + (line & ((1 << l.lg_group) - 1)) * l.lstride;
}

/* ---- higher radix: 2^r points of a line in registers per thread ---- */

/* cos(2 pi e / 16), rounded once */
__device__ __forceinline__ double s2d_cos16(int e)
{
    switch (e & 15) {
    case 0: return 1.0;
    case 1: case 15: return 0.92387953251128675612818318939678828682;
    case 2: case 14: return 0.70710678118654752440084436210484903928;
    case 3: case 13: return 0.38268343236508977172845998403039886676;
    case 4: case 12: return 0.0;
    case 5: case 11: return -0.38268343236508977172845998403039886676;
    case 6: case 10: return -0.70710678118654752440084436210484903928;
    case 7: case 9: return -0.92387953251128675612818318939678828682;
    default: return -1.0;
    }
}

/* v times e^{sign 2 pi j e / 16}; e is a constant once unrolled, so the
 * trivial rotations cost no multiplication */
template <typename C> __device__ __forceinline__ C s2d_rot16(C v, int e, int sign)
{
    typedef decltype(v.x) T;
    e &= 15;
    if (e == 0)
        return v;
    if (e == 4)
        return s2d_mul_sj(v, sign);
    if (e == 8) {
        v.x = -v.x;
        v.y = -v.y;
        return v;
    }
    if (e == 12)
        return s2d_mul_sj(v, -sign);
    C w;
    w.x = (T)s2d_cos16(e);
    w.y = (T)(sign * s2d_cos16(e + 12));   /* sin x = cos(x - pi/2) */
    return s2d_mul(v, w);
}

/* DFT of R = 2^LR points in registers: natural in, bit-reversed out (DIF). */
template <int LR, typename C> __device__ __forceinline__ void s2d_reg_dif(C *v, int sign)
{
    const int R = 1 << LR;
#pragma unroll
    for (int h = R / 2; h >= 1; h /= 2)
#pragma unroll
        for (int l = 0; l < R; l++)
            if ((l & h) == 0) {
                const C a = v[l], b = v[l + h];
                v[l] = s2d_add(a, b);
                v[l + h] = s2d_rot16(s2d_sub(a, b), (l & (h - 1)) * (8 / h), sign);   /* W_2h^j */
            }
}

/* The same DFT, bit-reversed in, natural out (DIT). */
template <int LR, typename C> __device__ __forceinline__ void s2d_reg_dit(C *v, int sign)
{
    const int R = 1 << LR;
#pragma unroll
    for (int h = 1; h < R; h *= 2)
#pragma unroll
        for (int l = 0; l < R; l++)
            if ((l & h) == 0) {
                const C a = v[l], b = s2d_rot16(v[l + h], (l & (h - 1)) * (8 / h), sign);
                v[l] = s2d_add(a, b);
                v[l + h] = s2d_sub(a, b);
            }
}

/* One radix-2^LR step over blocks of L = 2^lgL (q = L / R apart): as LR
 * radix-2 stages (DIF: half-lengths L/2 .. q; DIT: q .. L/2), in place.
 * DIF: group DFT, then output m' times W_L^{k rev(m')}; DIT: input m'
 * times W_L^{k rev(m')}, then the group DFT. */
/* m with its low LR bits reversed, as an expression the compiler folds
 * once m is a constant of an unrolled loop (so twiddle indices stay
 * register indices) */
template <int LR> __device__ __forceinline__ int s2d_rev_small(int m)
{
    int r = 0;
#pragma unroll
    for (int b = 0; b < LR; b++)
        r |= ((m >> b) & 1) << (LR - 1 - b);
    return r;
}

/* The powers w^j, j < R, of w = e^{sign 2 pi j e / FFT2D_TW_N} as w^j =
 * hi[j / 4] lo[j % 4]: lo the powers 0..3 of w, hi those of w^4 (R > 4),
 * from one or two table loads and a few products (a few ulp, against R - 1
 * table loads; six values live, not R). */
template <int R, typename C> struct s2d_twiddles {
    C lo[4], hi[4];
    __device__ __forceinline__ s2d_twiddles(const C *tw, int e, int sign)
    {
        lo[0].x = hi[0].x = 1;
        lo[0].y = hi[0].y = 0;
        if (R > 1)
            lo[1] = s2d_root(tw, e, sign);
        if (R > 2) {
            lo[2] = s2d_mul(lo[1], lo[1]);
            lo[3] = s2d_mul(lo[2], lo[1]);
        }
        if (R > 4) {
            hi[1] = s2d_root(tw, 4 * e & (FFT2D_TW_N - 1), sign);
            hi[2] = s2d_mul(hi[1], hi[1]);
            hi[3] = s2d_mul(hi[2], hi[1]);
        }
    }
    /* v w^j; j is a constant once the callers' loops are unrolled */
    __device__ __forceinline__ C times(C v, int j) const
    {
        if (j & 3)
            v = s2d_mul(v, lo[j & 3]);
        if (j >> 2)
            v = s2d_mul(v, hi[j >> 2]);
        return v;
    }
};

template <int LR, int DIF, typename C, typename Load, typename Store>
__device__ __forceinline__ void s2d_step_io(const s2d_lines &l, int lgL, const C *tw, int sign,
                                            int tid, int nth, Load load, Store store)
{
    const int R = 1 << LR, log2n = l.log2n, lq = lgL - LR, q = 1 << lq;
    const int tw_shift = FFT2D_LOG2_TW_N - lgL;   /* W_L^1 at 1 << tw_shift */
    const int total = l.count << (log2n - LR);
    for (int j = tid; j < total; j += nth) {
        int line, kk;
        s2d_split(l, j, log2n - LR, line, kk);
        const int k = kk & (q - 1), base = ((kk >> lq) << lgL) + k;
        C v[R];
#pragma unroll
        for (int m = 0; m < R; m++)
            v[m] = load(line, base + m * q);
        const s2d_twiddles<R, C> w(tw, k << tw_shift, sign);   /* W_L^k */
        if (!DIF)
#pragma unroll
            for (int m = 1; m < R; m++)
                v[m] = w.times(v[m], s2d_rev_small<LR>(m));
        if (DIF)
            s2d_reg_dif<LR>(v, sign);
        else
            s2d_reg_dit<LR>(v, sign);
        if (DIF)
#pragma unroll
            for (int m = 1; m < R; m++)
                v[m] = w.times(v[m], s2d_rev_small<LR>(m));
#pragma unroll
        for (int m = 0; m < R; m++)
            store(line, base + m * q, v[m]);
    }
    __syncthreads();
}

/* the step in place in sh */
template <int LR, int DIF, typename C>
__device__ void s2d_step(C *sh, const s2d_lines &l, int lgL, const C *tw, int sign, int tid,
                         int nth)
{
    s2d_step_io<LR, DIF>(
        l, lgL, tw, sign, tid, nth,
        [&](int line, int e) { return sh[s2d_pad(s2d_line_start(l, line) + e * l.estride)]; },
        [&](int line, int e, C v) { sh[s2d_pad(s2d_line_start(l, line) + e * l.estride)] = v; });
}

/* The last DIF step and the first DIT step of radix 2^LR (blocks of R
 * consecutive elements, no twiddles) in one visit, mid(line, e, v)
 * between them: for a pointwise product in the spectrum. */
template <int LR, typename C, typename Load, typename Mid, typename Store>
__device__ __forceinline__ void s2d_step_dif_mid_dit(const s2d_lines &l, int tid, int nth,
                                                     Load load, Mid mid, Store store)
{
    const int R = 1 << LR, total = l.count << (l.log2n - LR);
    for (int j = tid; j < total; j += nth) {
        int line, kk;
        s2d_split(l, j, l.log2n - LR, line, kk);
        const int base = kk << LR;
        C v[R];
#pragma unroll
        for (int m = 0; m < R; m++)
            v[m] = load(line, base + m);
        s2d_reg_dif<LR>(v, -1);
#pragma unroll
        for (int m = 0; m < R; m++)
            v[m] = mid(line, base + m, v[m]);
        s2d_reg_dit<LR>(v, 1);
#pragma unroll
        for (int m = 0; m < R; m++)
            store(line, base + m, v[m]);
    }
    __syncthreads();
}

/* s2d_step_io with the radix chosen at run time (lr <= LRMAX; only those
 * radices are compiled) */
template <int DIF, int LRMAX, typename C, typename Load, typename Store>
__device__ __forceinline__ void s2d_step_lr(int lr, const s2d_lines &l, int lgL, const C *tw,
                                            int sign, int tid, int nth, Load load, Store store)
{
    if (lr == LRMAX)
        return s2d_step_io<LRMAX, DIF>(l, lgL, tw, sign, tid, nth, load, store);
    if constexpr (LRMAX > 3)
        if (lr == 3)
            return s2d_step_io<3, DIF>(l, lgL, tw, sign, tid, nth, load, store);
    if constexpr (LRMAX > 2)
        if (lr == 2)
            return s2d_step_io<2, DIF>(l, lgL, tw, sign, tid, nth, load, store);
    s2d_step_io<1, DIF>(l, lgL, tw, sign, tid, nth, load, store);
}

template <int LRMAX, typename C, typename Load, typename Mid, typename Store>
__device__ __forceinline__ void s2d_step_dif_mid_dit_lr(int lr, const s2d_lines &l, int tid,
                                                        int nth, Load load, Mid mid, Store store)
{
    if (lr == LRMAX)
        return s2d_step_dif_mid_dit<LRMAX, C>(l, tid, nth, load, mid, store);
    if constexpr (LRMAX > 3)
        if (lr == 3)
            return s2d_step_dif_mid_dit<3, C>(l, tid, nth, load, mid, store);
    if constexpr (LRMAX > 2)
        if (lr == 2)
            return s2d_step_dif_mid_dit<2, C>(l, tid, nth, load, mid, store);
    s2d_step_dif_mid_dit<1, C>(l, tid, nth, load, mid, store);
}

/* The steps of a transform of length 2^log2n: radix 2^LRMAX, the rest of
 * log2n first. DIF runs them in order (step i: radix 2^lr(i) over blocks
 * of 2^lgl(i)); DIT in reverse. */
template <int LRMAX> struct s2d_steps {
    int log2n, rest, count;
    __device__ explicit s2d_steps(int log2n_)
        : log2n(log2n_), rest(log2n_ % LRMAX), count(log2n_ / LRMAX + (log2n_ % LRMAX != 0))
    {
    }
    __device__ int lr(int i) const { return rest && i == 0 ? rest : LRMAX; }
    __device__ int lgl(int i) const { return rest ? (i == 0 ? log2n : log2n - rest - (i - 1) * LRMAX) : log2n - i * LRMAX; }
};

/* a step of radix 2^lr, lr < LRMAX (only those radices are compiled) */
template <int DIF, int LRMAX, typename C>
__device__ __forceinline__ void s2d_step_rest(int lr, C *sh, const s2d_lines &l, int lgL,
                                              const C *tw, int sign, int tid, int nth)
{
    if constexpr (LRMAX > 3)
        if (lr == 3)
            return s2d_step<3, DIF>(sh, l, lgL, tw, sign, tid, nth);
    if constexpr (LRMAX > 2)
        if (lr == 2)
            return s2d_step<2, DIF>(sh, l, lgL, tw, sign, tid, nth);
    s2d_step<1, DIF>(sh, l, lgL, tw, sign, tid, nth);
}

/* Transforms of a set of lines in shared memory, DIF (natural in,
 * bit-reversed out) or DIT (back), in steps of radix 2^LRMAX (radix 16:
 * a quarter of the passes over shared memory and of the barriers of radix
 * 2) and one step of radix 2, 4 or 8 for the rest of log2 n. */
template <int LRMAX = 4, typename C>
__device__ void s2d_dif_lines(C *sh, const s2d_lines l, const C *tw, int sign, int tid, int nth)
{
    int lgL = l.log2n;
    const int rest = lgL % LRMAX;
    if (rest) {
        s2d_step_rest<1, LRMAX>(rest, sh, l, lgL, tw, sign, tid, nth);
        lgL -= rest;
    }
    for (; lgL >= LRMAX; lgL -= LRMAX)
        s2d_step<LRMAX, 1>(sh, l, lgL, tw, sign, tid, nth);
}

template <int LRMAX = 4, typename C>
__device__ void s2d_dit_lines(C *sh, const s2d_lines l, const C *tw, int sign, int tid, int nth)
{
    const int rest = l.log2n % LRMAX;
    for (int lgL = LRMAX; lgL <= l.log2n - rest; lgL += LRMAX)
        s2d_step<LRMAX, 0>(sh, l, lgL, tw, sign, tid, nth);
    if (rest)
        s2d_step_rest<0, LRMAX>(rest, sh, l, l.log2n, tw, sign, tid, nth);
}

template <typename C> __device__ __forceinline__ C s2d_scaled(C a, double scale)
{
    typedef decltype(a.x) T;
    a.x *= (T)scale;
    a.y *= (T)scale;
    return a;
}

/* ---- 2D FFT ---- */

/* Whole images in one block (images images per block): rows, then
 * columns, then the store gathers both bit reversals. */
template <typename C>
__global__ void __launch_bounds__(FFT2D_THREADS, 2)
fft2_small_kernel(const C *in, C *out, int log2n1, int log2n2, int batch, int images, const C *tw,
                  int sign, double scale)
{
    extern __shared__ unsigned char s2d_smem[];
    C *sh = reinterpret_cast<C *>(s2d_smem);
    const int n1 = 1 << log2n1, n2 = 1 << log2n2, size = n1 * n2;
    const int first = blockIdx.x * images;
    const int have = min(images, batch - first);
    const size_t off = (size_t)first * size;
    for (int i = threadIdx.x; i < images * size; i += blockDim.x)
        if (i < have * size)
            sh[s2d_pad(i)] = in[off + i];
    __syncthreads();
    s2d_lines rows = {images * n1, log2n2, n2, 30, 0, 1, -1};
    s2d_dif_lines(sh, rows, tw, sign, threadIdx.x, blockDim.x);
    s2d_lines cols = {images * n2, log2n1, 1, log2n2, size, n2, s2d_log2(images) + log2n2};
    s2d_dif_lines(sh, cols, tw, sign, threadIdx.x, blockDim.x);
    for (int i = threadIdx.x; i < have * size; i += blockDim.x) {
        const int img = i >> (log2n1 + log2n2), r = (i >> log2n2) & (n1 - 1), c = i & (n2 - 1);
        out[off + i] = s2d_scaled(
            sh[s2d_pad(img * size + (s2d_rev(r, log2n1) << log2n2) + s2d_rev(c, log2n2))], scale);
    }
}

/* Row pass: rows_per_block rows of n2 (of all images, rows in a row). */
template <typename C>
__global__ void __launch_bounds__(FFT2D_THREADS, 2)
fft2_rows_kernel(const C *in, C *out, int log2n2, long total_rows, int rows_per_block, const C *tw,
                 int sign, double scale)
{
    extern __shared__ unsigned char s2d_smem[];
    C *sh = reinterpret_cast<C *>(s2d_smem);
    const int n2 = 1 << log2n2;
    const long first = (long)blockIdx.x * rows_per_block;
    const int have = (int)min((long)rows_per_block, total_rows - first);
    const size_t off = (size_t)first * n2;
    for (int i = threadIdx.x; i < rows_per_block * n2; i += blockDim.x)
        if (i < have * n2)
            sh[s2d_pad(i)] = in[off + i];
    __syncthreads();
    s2d_lines rows = {rows_per_block, log2n2, n2, 30, 0, 1, -1};
    s2d_dif_lines(sh, rows, tw, sign, threadIdx.x, blockDim.x);
    for (int i = threadIdx.x; i < have * n2; i += blockDim.x) {
        const int r = i >> log2n2, c = i & (n2 - 1);
        out[off + i] = s2d_scaled(sh[s2d_pad((r << log2n2) + s2d_rev(c, log2n2))], scale);
    }
}

/* Column pass, in place: a tile of n1 rows x tile columns (tile a power
 * of two <= n2), read a row segment at a time so global access stays
 * coalesced. blockIdx.x: tile within the image, blockIdx.y: image. */
template <typename C>
__global__ void __launch_bounds__(FFT2D_THREADS, 2)
fft2_cols_kernel(C *data, int log2n1, int log2n2, int log2tile, const C *tw, int sign,
                 double scale)
{
    extern __shared__ unsigned char s2d_smem[];
    C *sh = reinterpret_cast<C *>(s2d_smem);
    const int n1 = 1 << log2n1, n2 = 1 << log2n2, tile = 1 << log2tile;
    C *img = data + (size_t)blockIdx.y * n1 * n2 + ((size_t)blockIdx.x << log2tile);
    for (int i = threadIdx.x; i < n1 * tile; i += blockDim.x)
        sh[s2d_pad(i)] = img[((size_t)(i >> log2tile) << log2n2) + (i & (tile - 1))];
    __syncthreads();
    s2d_lines cols = {tile, log2n1, 1, 30, 0, tile, log2tile};
    s2d_dif_lines(sh, cols, tw, sign, threadIdx.x, blockDim.x);
    for (int i = threadIdx.x; i < n1 * tile; i += blockDim.x) {
        const int r = i >> log2tile, j = i & (tile - 1);
        img[((size_t)r << log2n2) + j] =
            s2d_scaled(sh[s2d_pad((s2d_rev(r, log2n1) << log2tile) + j)], scale);
    }
}

/* How fft2_launch runs n1 x n2 images of C. */
struct fft2_shape {
    int small;          /* one kernel */
    int images;         /* small: images per block */
    int rows_per_block; /* two passes: rows per block of the row pass */
    int log2tile;       /* columns per block of the column pass */
    size_t smem_small, smem_rows, smem_cols;
};

/* Blocks take up to FFT2D_BIG_BYTES of shared memory where the device
 * allows (smem_limit, its opt-in limit), else FFT2D_SMALL_BYTES, which
 * every device the app runs on has (smem_limit 0: that). */
static inline fft2_shape fft2_shape_of(int n1, int n2, size_t csize, size_t smem_limit)
{
    fft2_shape s = {};
    const size_t size = (size_t)n1 * n2;
    const size_t budget = smem_limit >= FFT2D_BIG_BYTES ? FFT2D_BIG_BYTES : FFT2D_SMALL_BYTES;
    s.small = (size_t)s2d_padded((int)size) * csize <= budget;
    s.images = size >= FFT2D_PASS_ELEMS ? 1 : (int)(FFT2D_PASS_ELEMS / size);
    while (s.images > 1 && (size_t)s2d_padded((int)(s.images * size)) * csize > budget)
        s.images /= 2;
    s.smem_small = (size_t)s2d_padded((int)(s.images * size)) * csize;
    s.rows_per_block = n2 >= FFT2D_PASS_ELEMS ? 1 : FFT2D_PASS_ELEMS / n2;
    while (s.rows_per_block > 1 && (size_t)s2d_padded(s.rows_per_block * n2) * csize > budget)
        s.rows_per_block /= 2;
    s.smem_rows = (size_t)s2d_padded(s.rows_per_block * n2) * csize;
    /* a tile row of 128 bytes (16 float2, 8 double2), fewer if tall (32
     * bytes, a sector, still read whole), more if short */
    int tile = (int)(128 / csize);
    while (tile > 1 && (size_t)s2d_padded(tile * n1) * csize > budget)
        tile /= 2;
    while ((size_t)tile * n1 < FFT2D_PASS_ELEMS / 2 && tile < n2)
        tile *= 2;
    if (tile > n2)
        tile = n2;
    s.log2tile = s2d_log2(tile);
    s.smem_cols = (size_t)s2d_padded(tile * n1) * csize;
    return s;
}

/* Largest dynamic shared memory the launches of fft2_launch use, at the
 * least (on a device with FFT2D_SMALL_BYTES). */
static inline size_t fft2_smem_needed(int n1, int n2, size_t csize)
{
    const fft2_shape s = fft2_shape_of(n1, n2, csize, 0);
    if (s.small)
        return s.smem_small;
    return s.smem_rows > s.smem_cols ? s.smem_rows : s.smem_cols;
}

/* Batched n1 x n2 complex 2D FFT of C = float2/double2, packed images,
 * sides powers of two up to FFT2D_TW_N; in == out allowed. Inverse: with
 * 1/(n1 n2). tw: FFT2D_TW_N roots of the precision. Images that fit a
 * block: one kernel; larger ones: a row pass (the 1D kernels of
 * spectral_fft.cuh, or for rows shorter than FFT_C2C_MIN_REGISTER_N the
 * shared-memory row kernel) then a column pass. */
template <typename C>
static cudaError_t fft2_launch(const C *in, C *out, int n1, int n2, int batch, int inverse,
                               const C *tw, cudaStream_t stream)
{
    const int log2n1 = s2d_log2(n1), log2n2 = s2d_log2(n2), sign = inverse ? 1 : -1;
    const double scale = inverse ? 1.0 / ((double)n1 * n2) : 1.0;
    int dev = 0, limit = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e != cudaSuccess)
        return e;
    const fft2_shape s = fft2_shape_of(n1, n2, sizeof(C), (size_t)limit);
    if (s.small) {
        e = fft_allow_smem((const void *)fft2_small_kernel<C>, s.smem_small);
        if (e != cudaSuccess)
            return e;
        const int blocks = (batch + s.images - 1) / s.images;
        fft2_small_kernel<C><<<blocks, FFT2D_THREADS, s.smem_small, stream>>>(
            in, out, log2n1, log2n2, batch, s.images, tw, sign, scale);
        return cudaGetLastError();
    }
    e = fft_allow_smem((const void *)fft2_rows_kernel<C>, s.smem_rows);
    if (e == cudaSuccess)
        e = fft_allow_smem((const void *)fft2_cols_kernel<C>, s.smem_cols);
    if (e != cudaSuccess)
        return e;
    const long rows = (long)batch * n1;
    double col_scale = scale;
    if (n2 >= FFT_C2C_MIN_REGISTER_N) {
        /* the rows are a batch of 1D transforms: the 1D register kernels
         * (with the table read at a stride; the inverse scales by 1/n2) */
        typedef decltype(C{}.x) T;
        e = fft_c2c_launch<T>(in, out, n2, (int)rows, nullptr, tw, inverse, stream, FFT2D_TW_N / n2);
        if (inverse)
            col_scale = 1.0 / n1;
    } else {
        const long row_blocks = (rows + s.rows_per_block - 1) / s.rows_per_block;
        fft2_rows_kernel<C><<<(unsigned)row_blocks, FFT2D_THREADS, s.smem_rows, stream>>>(
            in, out, log2n2, rows, s.rows_per_block, tw, sign, 1.0);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess)
        return e;
    /* images on grid y: at most 65535 per launch */
    for (int first = 0; first < batch; first += 65535) {
        const int count = batch - first < 65535 ? batch - first : 65535;
        dim3 grid((unsigned)(n2 >> s.log2tile), (unsigned)count);
        fft2_cols_kernel<C><<<grid, FFT2D_THREADS, s.smem_cols, stream>>>(
            out + (size_t)first * n1 * n2, log2n1, log2n2, s.log2tile, tw, sign, col_scale);
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* ---- the EDM convolution ---- */

/* Per slice (threadIdx.y of a block): the M x mfft array A of the slice's
 * non-zero rows, and a column buffer of mfft x group.
 *   1. forward DIF on the M rows of A, the first step reading the slice
 *      from global memory with its columns padded (mode b - h at column
 *      (b - h) mod mfft): A[a][p] = row spectrum at column rev(p)
 *   2. per group of columns: forward DIF, the first step reading the
 *      column from A with its rows padded (slice row a at (a - h) mod
 *      mfft); the last DIF step, the product with S at (rev q, rev p) (S
 *      comes permuted: s_perm[q][p]) and the first inverse DIT step in one
 *      visit; the rest of the inverse DIT, the last step storing only the
 *      M kept rows back into A
 *   3. inverse DIT on the M rows, the last step storing the M kept
 *      columns, scaled by 1/mfft^2, to global memory.
 * Only the M non-zero rows are ever transformed along rows, in both
 * directions; the slice is read once and the result written once, and
 * no pass over shared memory only pads, multiplies or copies. Steps of
 * radix 2^CONV2D_LOG2_RADIX. */
#define CONV2D_LOG2_RADIX 4   /* radix-16 steps (radix 8 with 512 threads was slower) */
template <typename T, int MAX_THREADS, int LOG2NF = 0>
__global__ void __launch_bounds__(MAX_THREADS) conv2d_kernel(
    const typename s2d_cpx<T>::type *slices, const T *shapes_perm, typename s2d_cpx<T>::type *out,
    int log2nf_arg, int m, int group, int batch, int per_shape, const typename s2d_cpx<T>::type *tw)
{
    typedef typename s2d_cpx<T>::type C;
    constexpr int LRMAX = CONV2D_LOG2_RADIX;
    extern __shared__ unsigned char s2d_smem[];
    /* LOG2NF: the size known when compiling (the short dense launches), so
     * the steps unroll and their radices and offsets are constants */
    const int log2nf = LOG2NF ? LOG2NF : log2nf_arg;
    const int nf = 1 << log2nf, h = (m - 1) / 2, mask = nf - 1;
    const int lg_group = s2d_log2(group);
    C *a_rows = reinterpret_cast<C *>(s2d_smem) +
                (size_t)threadIdx.y * (s2d_padded(m * nf) + s2d_padded(nf * group));
    C *buf = a_rows + s2d_padded(m * nf);
    const int tid = threadIdx.x, nth = blockDim.x;
    const int slice = blockIdx.x * blockDim.y + threadIdx.y;
    const bool valid = slice < batch;
    const C *x = slices + (size_t)slice * m * m;
    C *y = out + (size_t)slice * m * m;
    const T *s = shapes_perm + (size_t)((valid ? slice : 0) / per_shape) * nf * nf;
    const T scale = (T)1 / ((T)nf * (T)nf);
    const C zero = {0, 0};
    const s2d_steps<LRMAX> steps(log2nf);
    const int last = steps.count - 1;

    /* element e of line `line`: rows of A, columns of the group in buf */
    auto a_elem = [&](int row, int e) -> C & { return a_rows[s2d_pad(row * nf + e)]; };
    auto from_a = [&](int row, int e) { return a_elem(row, e); };
    auto to_a = [&](int row, int e, C v) { a_elem(row, e) = v; };
    auto from_slice = [&](int row, int e) {
        const int b = (e + h) & mask;
        return valid && b < m ? x[row * m + b] : zero;
    };
    auto to_result = [&](int row, int e, C v) {
        const int b = (e + h) & mask;
        if (valid && b < m)
            y[row * m + b] = s2d_scaled(v, scale);
    };

    const s2d_lines rows = {m, log2nf, nf, 30, 0, 1, -1};
    s2d_step_lr<1, LRMAX>(steps.lr(0), rows, steps.lgl(0), tw, -1, tid, nth, from_slice, to_a);
    for (int i = 1; i < steps.count; i++)
        s2d_step_lr<1, LRMAX>(steps.lr(i), rows, steps.lgl(i), tw, -1, tid, nth, from_a, to_a);

    const s2d_lines cols = {group, log2nf, 1, 30, 0, group, lg_group};
    for (int p0 = 0; p0 < nf; p0 += group) {
        auto b_elem = [&](int col, int e) -> C & { return buf[s2d_pad((e << lg_group) + col)]; };
        auto from_buf = [&](int col, int e) { return b_elem(col, e); };
        auto to_buf = [&](int col, int e, C v) { b_elem(col, e) = v; };
        auto from_a_col = [&](int col, int e) {
            const int a = (e + h) & mask;
            return a < m ? a_elem(a, p0 + col) : zero;
        };
        auto to_a_col = [&](int col, int e, C v) {
            const int a = (e + h) & mask;
            if (a < m)
                a_elem(a, p0 + col) = v;
        };
        auto times_s = [&](int col, int e, C v) { return s2d_scaled(v, s[(e << log2nf) + p0 + col]); };
        if (last == 0) {
            s2d_step_dif_mid_dit_lr<LRMAX, C>(steps.lr(0), cols, tid, nth, from_a_col, times_s,
                                              to_a_col);
            continue;
        }
        s2d_step_lr<1, LRMAX>(steps.lr(0), cols, steps.lgl(0), tw, -1, tid, nth, from_a_col, to_buf);
        for (int i = 1; i < last; i++)
            s2d_step_lr<1, LRMAX>(steps.lr(i), cols, steps.lgl(i), tw, -1, tid, nth, from_buf, to_buf);
        s2d_step_dif_mid_dit_lr<LRMAX, C>(steps.lr(last), cols, tid, nth, from_buf, times_s, to_buf);
        for (int i = last - 1; i > 0; i--)
            s2d_step_lr<0, LRMAX>(steps.lr(i), cols, steps.lgl(i), tw, 1, tid, nth, from_buf, to_buf);
        s2d_step_lr<0, LRMAX>(steps.lr(0), cols, steps.lgl(0), tw, 1, tid, nth, from_buf, to_a_col);
    }

    for (int i = last; i > 0; i--)
        s2d_step_lr<0, LRMAX>(steps.lr(i), rows, steps.lgl(i), tw, 1, tid, nth, from_a, to_a);
    s2d_step_lr<0, LRMAX>(steps.lr(0), rows, steps.lgl(0), tw, 1, tid, nth, from_a, to_result);
}

/* How conv2d_launch runs an mfft x mfft convolution of M x M slices. */
struct conv2d_shape {
    int group;          /* columns per column step */
    int threads_x;      /* threads per slice */
    int slices;         /* slices per block */
    size_t smem;
};

/* How the convolution's kernel runs: threads a block, and whether its
 * blocks are dense (small slices: a thread per radix-16 group of a column
 * step, at least 16 a slice, blocks of up to CONV2D_DENSE_BYTES).
 * conv2d_config_of picks one per precision, size and batch. */
struct conv2d_config {
    int threads;
    bool dense;
};
#define CONV2D_DENSE_BYTES (112 * 1024)   /* two blocks an SM on sm_90 */

static inline conv2d_shape conv2d_shape_for(int nf, int m, size_t csize, int group, int threads,
                                            int dense = 0)
{
    conv2d_shape s;
    s.group = group < 1 ? 1 : group > nf ? nf : group;
    const int items = s.group * nf / 16;   /* radix-16 groups of a column step */
    const size_t per_slice = (size_t)(s2d_padded(m * nf) + s2d_padded(nf * s.group)) * csize;
    /* small slices share a block, as long as they take little shared
     * memory together */
    const int least = dense ? 16 : 32;
    int slices = threads / (items < least ? least : items > threads ? threads : items);
    while (slices > 1 && slices * per_slice > (dense ? CONV2D_DENSE_BYTES : CONV2D_SHARED_SLICES_BYTES))
        slices /= 2;
    s.slices = slices;
    s.threads_x = threads / slices;
    s.smem = (size_t)s.slices * per_slice;
    return s;
}

/* The widest column group (more threads busy in the column steps) that
 * fits smem_limit bytes; 0: the least shared memory. */
static inline conv2d_shape conv2d_shape_of(int nf, int m, size_t csize, size_t smem_limit,
                                           int threads = 256, int dense = 0)
{
    for (int group = 4096 / nf; smem_limit > 0 && group > 1024 / nf; group /= 2) {
        const conv2d_shape s = conv2d_shape_for(nf, m, csize, group, threads, dense);
        if (s.smem <= smem_limit)
            return s;
    }
    return conv2d_shape_for(nf, m, csize, 1024 / nf, threads);
}

/* Dense launches of 16 x 16 and 32 x 32 transforms run kernels with the
 * size compiled in. */
template <typename T, int MAX_THREADS, bool DENSE>
static cudaError_t conv2d_launch_v(const typename s2d_cpx<T>::type *slices, const T *shapes_perm,
                                   typename s2d_cpx<T>::type *out, int nf, int m, int batch,
                                   int per_shape, const typename s2d_cpx<T>::type *tw,
                                   int smem_limit, cudaStream_t stream)
{
    const conv2d_shape s = conv2d_shape_of(nf, m, sizeof(typename s2d_cpx<T>::type),
                                           (size_t)smem_limit, MAX_THREADS, DENSE);
    const int blocks = (batch + s.slices - 1) / s.slices;
    dim3 block((unsigned)s.threads_x, (unsigned)s.slices);
    const auto launch = [&](auto kernel) {
        cudaError_t e = fft_allow_smem((const void *)kernel, s.smem);
        if (e != cudaSuccess)
            return e;
        kernel<<<blocks, block, s.smem, stream>>>(slices, shapes_perm, out, s2d_log2(nf), m, s.group,
                                                  batch, per_shape, tw);
        return cudaGetLastError();
    };
    if constexpr (DENSE) {
        if (nf == 16)
            return launch(conv2d_kernel<T, MAX_THREADS, 4>);
        if (nf == 32)
            return launch(conv2d_kernel<T, MAX_THREADS, 5>);
    }
    return launch(conv2d_kernel<T, MAX_THREADS>);
}

/* The convolution's kernel for mfft nf in T's precision, many: whether
 * the batch has at least 4 slices an SM. Measured side by side on the
 * H200 (bench/spectral/RESULTS.md): 512 threads where a slice fills most
 * of an SM's shared memory in double precision, or where there are too few
 * slices to fill the SMs; dense 64-thread blocks of small slices (mfft <=
 * 32: 1.1-1.4x the 256-thread dense blocks with 2709 slices, as fast or
 * faster with 51; in single precision 128-thread dense blocks, level with
 * 64 in the fifth session and ahead in the seventh), dense 128-thread
 * blocks for many single-precision 64 x 64 slices, else 256 threads. */
template <typename T> constexpr conv2d_config conv2d_config_of(int nf, bool many)
{
    if (nf <= 32)
        return sizeof(T) == 4 ? conv2d_config{128, true} : conv2d_config{64, true};
    if (sizeof(T) == 8 || !many)
        return conv2d_config{512, false};
    return nf == 64 ? conv2d_config{128, true} : conv2d_config{256, false};
}

/* Whether conv2d_config_of ever picks (THREADS, DENSE) for T: only those
 * kernels compile. */
template <typename T, int THREADS, bool DENSE> constexpr bool conv2d_chosen()
{
    for (int nf = 4; nf <= FFT2D_TW_N; nf *= 2)
        for (int many = 0; many < 2; many++) {
            const conv2d_config c = conv2d_config_of<T>(nf, many);
            if (c.threads == THREADS && c.dense == DENSE)
                return true;
        }
    return false;
}

/* Fused convolution of batch M x M slices with n_shapes S arrays (one per
 * per_shape consecutive slices), S permuted to bit-reversed order:
 * shapes_perm[q][p] = S[rev q][rev p]. mfft a power of two, 4..FFT2D_TW_N. */
template <typename T>
static cudaError_t conv2d_launch(const typename s2d_cpx<T>::type *slices, const T *shapes_perm,
                                 typename s2d_cpx<T>::type *out, int nf, int m, int batch,
                                 int per_shape, const typename s2d_cpx<T>::type *tw,
                                 cudaStream_t stream)
{
    int dev = 0, limit = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return e;
    const conv2d_config c = conv2d_config_of<T>(nf, batch >= 4 * sms);
#define CONV2D_TRY(THREADS, DENSE)                                                                \
    if constexpr (conv2d_chosen<T, THREADS, DENSE>())                                             \
        if (c.threads == THREADS && c.dense == DENSE)                                             \
            return conv2d_launch_v<T, THREADS, DENSE>(slices, shapes_perm, out, nf, m, batch,     \
                                                      per_shape, tw, limit, stream);
    CONV2D_TRY(64, true)
    CONV2D_TRY(128, true)
    CONV2D_TRY(256, false)
    CONV2D_TRY(512, false)
#undef CONV2D_TRY
    return cudaErrorInvalidValue;
}

/* ---- batched tridiagonal solve ---- */

/* The partition method. Every thread owns M consecutive rows of a system,
 * TPS threads a system (a power of two; rows past n are identity rows, so
 * their x is 0 and they couple to nothing):
 *  1. the thread eliminates inside its chunk, a sweep down and a sweep up,
 *     until every row depends only on the chunk's first and last unknowns
 *     and the chunk's first and last rows couple only to the neighbouring
 *     chunks: two rows a thread of a reduced tridiagonal system of 2 TPS
 *     rows, all in registers;
 *  2. parallel cyclic reduction solves the reduced system (log2(2 TPS)
 *     steps, unit diagonals kept): by warp shuffles where a system's
 *     threads share a warp, else through shared memory;
 *  3. the thread substitutes the two unknowns back into its chunk.
 * Global memory is read and written once, coalesced: each warp stages its
 * 32 chunks through a padded shared-memory tile (a chunk M + 1 apart, so
 * neither side conflicts on banks). Diagonally dominant systems: no
 * pivoting; a zero or non-finite divisor anywhere in steps 1 and 2 (the
 * method's pivots) marks the system's status -1. dl of row 0 and du of
 * row n - 1 are ignored; x may be rhs. */
/* a row of a reduced system with its diagonal divided out:
 * a x_{i-s} + x_i + c x_{i+s} = d */
template <typename T> struct tridiag_row {
    T a, c, d;
};

/* Whether a divisor breaks the elimination down: zero, infinite or NaN. */
template <typename T> __device__ __forceinline__ bool tridiag_breaks(T den)
{
    return den == (T)0 || !isfinite(den);
}

/* one parallel-cyclic-reduction step of row r with its neighbours s rows
 * away (absent ones beyond the system's ends): r minus a times the left
 * row and c times the right one, divided by what is left of the diagonal
 * (a breakdown sets bad) */
template <typename T>
__device__ __forceinline__ tridiag_row<T> tridiag_pcr_row(tridiag_row<T> r, tridiag_row<T> left,
                                                          tridiag_row<T> right, bool has_left,
                                                          bool has_right, bool &bad)
{
    T diag = 1, na = 0, nc = 0, nd = r.d;
    if (has_left) {
        na = -r.a * left.a;
        diag -= r.a * left.c;
        nd -= r.a * left.d;
    }
    if (has_right) {
        nc = -r.c * right.c;
        diag -= r.c * right.a;
        nd -= r.c * right.d;
    }
    bad |= tridiag_breaks(diag);
    const T inv = (T)1 / diag;
    return {na * inv, nc * inv, nd * inv};
}

template <typename T>
__device__ __forceinline__ tridiag_row<T> tridiag_shfl_up(tridiag_row<T> r, int delta, int width)
{
    return {__shfl_up_sync(0xffffffffu, r.a, delta, width),
            __shfl_up_sync(0xffffffffu, r.c, delta, width),
            __shfl_up_sync(0xffffffffu, r.d, delta, width)};
}

template <typename T>
__device__ __forceinline__ tridiag_row<T> tridiag_shfl_down(tridiag_row<T> r, int delta, int width)
{
    return {__shfl_down_sync(0xffffffffu, r.a, delta, width),
            __shfl_down_sync(0xffffffffu, r.c, delta, width),
            __shfl_down_sync(0xffffffffu, r.d, delta, width)};
}

template <typename T, int M>
__device__ __forceinline__ void tridiag_stage_in(const T *__restrict__ src, T *tile, T (&v)[M],
                                                 long warp_first, int n, int tps_log2, long batch,
                                                 int which)
{
    const int lane = threadIdx.x & 31;
    /* every load of the warp issued before any is used */
    T g[M];
#pragma unroll
    for (int j = 0; j < M; j++) {
        const int q = j * 32 + lane, owner = q / M, k = q % M;
        const long thread = warp_first + owner, sys = thread >> tps_log2;
        const int row = (int)(thread & ((1 << tps_log2) - 1)) * M + k;
        const bool real_row = sys < batch && row < n;
        /* outside the matrix: a and c are 0, the diagonal 1, the rhs 0 */
        g[j] = which == 1 ? (T)1 : (T)0;
        if (real_row && !(which == 0 && row == 0) && !(which == 2 && row == n - 1))
            g[j] = src[sys * n + row];
    }
#pragma unroll
    for (int j = 0; j < M; j++) {
        const int q = j * 32 + lane;
        tile[(q / M) * (M + 1) + q % M] = g[j];
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < M; k++)
        v[k] = tile[lane * (M + 1) + k];
    __syncwarp();
}

/* 16 bytes of T */
template <typename T> struct tridiag_vec;
template <> struct tridiag_vec<float> { typedef float4 type; };
template <> struct tridiag_vec<double> { typedef double2 type; };

/* A thread's own chunk straight from global memory in 16-byte vectors (n
 * a multiple of a vector's elements, arrays 16-byte aligned): a vector is
 * wholly inside the system or wholly past its end. */
template <typename T, int M>
__device__ __forceinline__ void tridiag_load_direct(const T *__restrict__ src, T (&v)[M],
                                                    long sys, int t, int n, long batch, int which)
{
    typedef typename tridiag_vec<T>::type V;
    const int per = (int)(sizeof(V) / sizeof(T));
#pragma unroll
    for (int j = 0; j < M / per; j++) {
        const int row = t * M + j * per;
        V w;
        if (sys < batch && row < n) {
            w = *reinterpret_cast<const V *>(src + sys * n + row);
        } else {
            const T pad = which == 1 ? (T)1 : (T)0;
            reinterpret_cast<T *>(&w)[0] = pad;
            reinterpret_cast<T *>(&w)[1] = pad;
            if (per == 4) {
                reinterpret_cast<T *>(&w)[2] = pad;
                reinterpret_cast<T *>(&w)[3] = pad;
            }
        }
#pragma unroll
        for (int e = 0; e < per; e++)
            v[j * per + e] = reinterpret_cast<const T *>(&w)[e];
    }
#pragma unroll
    for (int k = 0; k < M; k++)
        if ((which == 0 && t * M + k == 0) || (which == 2 && t * M + k == n - 1))
            v[k] = 0;
}

/* Step 1 of the partition method in a thread's chunk (a, b, c, d: its
 * rows' sub-, main and super-diagonal and right-hand side): a sweep down,
 * row k becoming a[k] x_0 + x_k + c[k] x_{k+1} = d[k] (k >= 1; row 0
 * keeps its left neighbour), then up, rows M-3..1 becoming a[k] x_0 + x_k
 * + c[k] x_{M-1} = d[k], then row 0: a[0] x_{-1} + x_0 + c[0] x_{M-1} =
 * d[0]. A zero or non-finite divisor sets bad. */
template <typename T, int M>
__device__ __forceinline__ void tridiag_chunk_reduce(T (&a)[M], T (&b)[M], T (&c)[M], T (&d)[M],
                                                     bool &bad)
{
#pragma unroll
    for (int k = 0; k < 2; k++) {
        bad |= tridiag_breaks(b[k]);
        const T inv = (T)1 / b[k];
        a[k] *= inv;
        c[k] *= inv;
        d[k] *= inv;
    }
#pragma unroll
    for (int k = 2; k < M; k++) {
        const T den = b[k] - a[k] * c[k - 1];
        bad |= tridiag_breaks(den);
        const T inv = (T)1 / den;
        d[k] = (d[k] - a[k] * d[k - 1]) * inv;
        a[k] = -a[k] * a[k - 1] * inv;
        c[k] *= inv;
    }
#pragma unroll
    for (int k = M - 3; k >= 1; k--) {
        d[k] -= c[k] * d[k + 1];
        a[k] -= c[k] * a[k + 1];
        c[k] = -c[k] * c[k + 1];
    }
    {
        const T den = (T)1 - c[0] * a[1];
        bad |= tridiag_breaks(den);
        const T inv = (T)1 / den;
        d[0] = (d[0] - c[0] * d[1]) * inv;
        a[0] *= inv;
        c[0] = -c[0] * c[1] * inv;
    }
}

/* Step 2 where a system's tps threads share a warp: parallel cyclic
 * reduction of the reduced system's rows 2t and 2t + 1 (r) by shuffles,
 * no barrier; row e +- s is thread t +- s/2's same row (s >= 2), or for s
 * = 1 the thread's other row or the neighbouring thread's. */
template <typename T>
__device__ __forceinline__ void tridiag_pcr_warp(tridiag_row<T> (&r)[2], int t, int tps, int rows,
                                                 bool &bad)
{
    {
        const tridiag_row<T> left0 = tridiag_shfl_up(r[1], 1, tps);
        const tridiag_row<T> right1 = tridiag_shfl_down(r[0], 1, tps);
        const tridiag_row<T> n0 = tridiag_pcr_row(r[0], left0, r[1], t > 0, true, bad);
        r[1] = tridiag_pcr_row(r[1], r[0], right1, true, t + 1 < tps, bad);
        r[0] = n0;
    }
    for (int s = 2; s < rows; s *= 2) {
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const tridiag_row<T> left = tridiag_shfl_up(r[j], s / 2, tps);
            const tridiag_row<T> right = tridiag_shfl_down(r[j], s / 2, tps);
            r[j] = tridiag_pcr_row(r[j], left, right, 2 * t + j >= s, 2 * t + j + s < rows, bad);
        }
    }
}

/* Step 2 across warps: through shared memory (rs_first: two copies of
 * the block's 2 bd rows), row e of the block at (e & 1) * bd + e / 2 so
 * that a warp's accesses are consecutive; read one copy and write the
 * other, one barrier a step. */
template <typename T>
__device__ __forceinline__ void tridiag_pcr_shared(tridiag_row<T> (&r)[2], int t, int rows, int bd,
                                                   tridiag_row<T> *const rs_first, bool &bad)
{
    tridiag_row<T> *rs = rs_first;
    const int base = threadIdx.x - t;   /* the system's first thread in the block */
    rs[threadIdx.x] = r[0];
    rs[bd + threadIdx.x] = r[1];
    for (int s = 1; s < rows; s *= 2) {
        __syncthreads();
        tridiag_row<T> n[2];
#pragma unroll
        for (int j = 0; j < 2; j++) {
            const int e = 2 * t + j, lo = e - s, hi = e + s;
            const tridiag_row<T> zero = {0, 0, 0};
            const tridiag_row<T> left = lo >= 0 ? rs[(lo & 1) * bd + base + (lo >> 1)] : zero;
            const tridiag_row<T> right = hi < rows ? rs[(hi & 1) * bd + base + (hi >> 1)] : zero;
            n[j] = tridiag_pcr_row(r[j], left, right, lo >= 0, hi < rows, bad);
        }
        r[0] = n[0];
        r[1] = n[1];
        rs = rs == rs_first ? rs_first + 2 * bd : rs_first;
        rs[threadIdx.x] = r[0];
        rs[bd + threadIdx.x] = r[1];
    }
}

/* Step 3: the chunk's unknowns from its first and last, x_k = d[k] - a[k]
 * first - c[k] last, out to x: the thread's own rows in 16-byte vectors
 * (DIRECT), or through the warp's tile. */
template <typename T, int M, bool DIRECT>
__device__ __forceinline__ void tridiag_store(T *x, const T (&a)[M], const T (&c)[M], const T (&d)[M],
                                              T first, T last, T *tile, int lane, long warp_first,
                                              long my_sys, int my_t, int n, long batch, int tps_log2,
                                              int tps)
{
    if (DIRECT) {
        typedef typename tridiag_vec<T>::type V;
        const int per = (int)(sizeof(V) / sizeof(T));
        T xs[M];
        xs[0] = first;
        xs[M - 1] = last;
#pragma unroll
        for (int k = 1; k < M - 1; k++)
            xs[k] = d[k] - a[k] * first - c[k] * last;
#pragma unroll
        for (int j = 0; j < M / per; j++) {
            const int row = my_t * M + j * per;
            if (my_sys < batch && row < n)
                *reinterpret_cast<V *>(x + my_sys * n + row) = *reinterpret_cast<const V *>(&xs[j * per]);
        }
        return;
    }
    tile[lane * (M + 1)] = first;
    tile[lane * (M + 1) + M - 1] = last;
#pragma unroll
    for (int k = 1; k < M - 1; k++)
        tile[lane * (M + 1) + k] = d[k] - a[k] * first - c[k] * last;
    __syncwarp();
#pragma unroll
    for (int j = 0; j < M; j++) {
        const int q = j * 32 + lane, owner = q / M, k = q % M;
        const long thread = warp_first + owner, sys = thread >> tps_log2;
        const int row = (int)(thread & (tps - 1)) * M + k;
        if (sys < batch && row < n)
            x[sys * n + row] = tile[owner * (M + 1) + k];
    }
}

/* The solver: M rows a thread, 2^tps_log2 threads a system (DIRECT: each
 * thread's rows straight from global memory in 16-byte vectors); status
 * (NULL: none) -1 for a system whose elimination broke down. */
template <typename T, int M, bool DIRECT>
__global__ void __launch_bounds__(256)
tridiag_kernel(const T *dl, const T *dg, const T *du, const T *rhs, T *x, int n, long batch,
               int tps_log2, int *status)
{
    extern __shared__ unsigned char s2d_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, bd = blockDim.x;
    T *tile = reinterpret_cast<T *>(s2d_smem) + warp * 32 * (M + 1);
    const long warp_first = (long)blockIdx.x * bd + warp * 32;
    const long my_sys = (warp_first + lane) >> tps_log2;
    const int my_t = (int)((warp_first + lane) & ((1 << tps_log2) - 1));

    T a[M], b[M], c[M], d[M];
    if (DIRECT) {
        tridiag_load_direct<T, M>(dl, a, my_sys, my_t, n, batch, 0);
        tridiag_load_direct<T, M>(dg, b, my_sys, my_t, n, batch, 1);
        tridiag_load_direct<T, M>(du, c, my_sys, my_t, n, batch, 2);
        tridiag_load_direct<T, M>(rhs, d, my_sys, my_t, n, batch, 3);
    } else {
        tridiag_stage_in<T, M>(dl, tile, a, warp_first, n, tps_log2, batch, 0);
        tridiag_stage_in<T, M>(dg, tile, b, warp_first, n, tps_log2, batch, 1);
        tridiag_stage_in<T, M>(du, tile, c, warp_first, n, tps_log2, batch, 2);
        tridiag_stage_in<T, M>(rhs, tile, d, warp_first, n, tps_log2, batch, 3);
    }
    /* 1. each chunk to two rows of the reduced system */
    bool bad = false;
    tridiag_chunk_reduce<T, M>(a, b, c, d, bad);
    /* 2. the reduced system: rows 2t (the chunk's first) and 2t + 1 (its
     * last) of the system's 2 TPS */
    const int tps = 1 << tps_log2, t = threadIdx.x & (tps - 1), rows = 2 * tps;
    tridiag_row<T> r[2] = {{a[0], c[0], d[0]}, {a[M - 1], c[M - 1], d[M - 1]}};
    if (tps <= 32)
        tridiag_pcr_warp(r, t, tps, rows, bad);
    else
        tridiag_pcr_shared(r, t, rows, bd,
                           reinterpret_cast<tridiag_row<T> *>(reinterpret_cast<T *>(s2d_smem) +
                                                              (bd / 32) * 32 * (M + 1)),
                           bad);
    /* any of the system's threads: they all store the same value */
    if (bad && status && my_sys < batch)
        status[my_sys] = -1;
    /* 3. back into the chunk */
    const T first = r[0].d, last = r[1].d;
    tridiag_store<T, M, DIRECT>(x, a, c, d, first, last, tile, lane, warp_first, my_sys, my_t, n, batch,
                                tps_log2, tps);
}

struct tridiag_shape {
    int rows_per_thread, tps_log2, threads;
    size_t smem;
};

/* The solver's shape for n rows of tsize-byte reals: rows a thread (8, or
 * 16 for long single-precision systems: fewer threads in the PCR,
 * measured on the H200, bench/spectral/RESULTS.md; 4 rows a thread was
 * never faster), threads a block (TRIDIAG_THREADS, or one system's threads), and
 * the dynamic shared memory. */
static inline tridiag_shape tridiag_shape_of(int n, size_t tsize)
{
    tridiag_shape s;
    s.rows_per_thread = tsize == 4 && n >= 1024 ? 16 : TRIDIAG_ROWS_PER_THREAD;
    s.tps_log2 = 0;
    while ((s.rows_per_thread << s.tps_log2) < n)
        s.tps_log2++;
    s.threads = (1 << s.tps_log2) > TRIDIAG_THREADS ? 1 << s.tps_log2 : TRIDIAG_THREADS;
    s.smem = ((size_t)s.threads * (s.rows_per_thread + 1) + (size_t)12 * s.threads) * tsize;
    return s;
}

template <typename T, int M, bool DIRECT>
static cudaError_t tridiag_launch_m(const T *dl, const T *d, const T *du, const T *rhs, T *x,
                                    int n, long batch, const tridiag_shape &s, cudaStream_t stream,
                                    int *status)
{
    cudaError_t e = fft_allow_smem((const void *)tridiag_kernel<T, M, DIRECT>, s.smem);
    if (e != cudaSuccess)
        return e;
    const long threads = batch << s.tps_log2;
    const long blocks = (threads + s.threads - 1) / s.threads;
    tridiag_kernel<T, M, DIRECT><<<(unsigned)blocks, s.threads, s.smem, stream>>>(
        dl, d, du, rhs, x, n, batch, s.tps_log2, status);
    return cudaGetLastError();
}

/* whether every array is 16-byte aligned and n a whole number of vectors */
template <typename T>
static inline bool tridiag_direct_ok(const T *dl, const T *d, const T *du, const T *rhs, const T *x,
                                     int n)
{
    const size_t per = 16 / sizeof(T);
    const uintptr_t any = (uintptr_t)dl | (uintptr_t)d | (uintptr_t)du | (uintptr_t)rhs | (uintptr_t)x;
    return n % per == 0 && any % 16 == 0;
}

/* x = A^-1 rhs for batch systems of n rows (1 <= n <= TRIDIAG_MAX_N), the
 * layout of cuSPARSE gtsv2StridedBatch; x may be rhs. Each thread loads
 * its own rows in 16-byte vectors where every array is 16-byte aligned and
 * n a whole number of vectors, else through the warp's shared tile.
 * status (device, batch ints; NULL: not reported): -1 written for each
 * system that broke down, the others left as they were. */
template <typename T>
static cudaError_t tridiag_launch(const T *dl, const T *d, const T *du, const T *rhs, T *x, int n,
                                  int batch, cudaStream_t stream, int *status = nullptr)
{
    const tridiag_shape s = tridiag_shape_of(n, sizeof(T));
    const bool direct = tridiag_direct_ok(dl, d, du, rhs, x, n);
#define TRIDIAG_GO(M)                                                                             \
    return direct ? tridiag_launch_m<T, M, true>(dl, d, du, rhs, x, n, batch, s, stream, status) \
                  : tridiag_launch_m<T, M, false>(dl, d, du, rhs, x, n, batch, s, stream, status)
    if constexpr (sizeof(T) == 4)   /* (16 rows a thread: single precision only) */
        if (s.rows_per_thread == 16)
            TRIDIAG_GO(16);
    TRIDIAG_GO(8);
#undef TRIDIAG_GO
}

#endif
