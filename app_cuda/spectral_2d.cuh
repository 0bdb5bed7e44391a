/* CUDA kernels for the 2D spectral kinds (specs/spectral.md): batched 2D
 * FFT, the fused EDM convolution and the batched tridiagonal solver, with
 * their launchers; included by spectral_2d.cu (the app) and by
 * bench/cuda_spectral2d_bench.cu.
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
#define TRIDIAG_ROWS_PER_THREAD 8   /* TRIDIAG_MAX_N / 256 threads */
#define TRIDIAG_LOG2_PARTS 6        /* PCR splits each system into up to 64 */

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

__host__ __device__ constexpr int s2d_rev_bits(int x, int bits)
{
    return bits == 0 ? 0 : ((x & 1) << (bits - 1)) | s2d_rev_bits(x >> 1, bits - 1);
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
template <int LR, int DIF, typename C>
__device__ void s2d_step(C *sh, const s2d_lines &l, int lgL, const C *tw, int sign, int tid,
                         int nth)
{
    const int R = 1 << LR, log2n = l.log2n, es = l.estride, lq = lgL - LR, q = 1 << lq;
    const int tw_shift = FFT2D_LOG2_TW_N - log2n + (log2n - lgL);   /* W_L^1 at 1 << tw_shift */
    const int total = l.count << (log2n - LR);
    for (int j = tid; j < total; j += nth) {
        int line, kk;
        s2d_split(l, j, log2n - LR, line, kk);
        const int k = kk & (q - 1), base = ((kk >> lq) << lgL) + k;
        const int at = s2d_line_start(l, line) + base * es;
        C v[R];
#pragma unroll
        for (int m = 0; m < R; m++)
            v[m] = sh[s2d_pad(at + m * q * es)];
        if (!DIF)
#pragma unroll
            for (int m = 1; m < R; m++)
                v[m] = s2d_mul(v[m], s2d_root(tw, (k * s2d_rev_bits(m, LR)) << tw_shift, sign));
        if (DIF)
            s2d_reg_dif<LR>(v, sign);
        else
            s2d_reg_dit<LR>(v, sign);
        if (DIF)
#pragma unroll
            for (int m = 1; m < R; m++)
                v[m] = s2d_mul(v[m], s2d_root(tw, (k * s2d_rev_bits(m, LR)) << tw_shift, sign));
#pragma unroll
        for (int m = 0; m < R; m++)
            sh[s2d_pad(at + m * q * es)] = v[m];
    }
    __syncthreads();
}

template <int DIF, typename C>
__device__ __forceinline__ void s2d_step_any(int lr, C *sh, const s2d_lines &l, int lgL,
                                             const C *tw, int sign, int tid, int nth)
{
    switch (lr) {
    case 1: s2d_step<1, DIF>(sh, l, lgL, tw, sign, tid, nth); break;
    case 2: s2d_step<2, DIF>(sh, l, lgL, tw, sign, tid, nth); break;
    case 3: s2d_step<3, DIF>(sh, l, lgL, tw, sign, tid, nth); break;
    default: s2d_step<4, DIF>(sh, l, lgL, tw, sign, tid, nth); break;
    }
}

/* As s2d_dif_lines / s2d_dit_lines with radix-16 steps (and one of
 * radix 2, 4 or 8 for the rest of log2 n): a quarter of the passes over
 * shared memory and of the barriers. */
template <typename C>
__device__ void s2d_dif_lines16(C *sh, const s2d_lines l, const C *tw, int sign, int tid, int nth)
{
    int lgL = l.log2n;
    const int rest = lgL & 3;
    if (rest) {
        s2d_step_any<1>(rest, sh, l, lgL, tw, sign, tid, nth);
        lgL -= rest;
    }
    for (; lgL >= 4; lgL -= 4)
        s2d_step<4, 1>(sh, l, lgL, tw, sign, tid, nth);
}

template <typename C>
__device__ void s2d_dit_lines16(C *sh, const s2d_lines l, const C *tw, int sign, int tid, int nth)
{
    const int rest = l.log2n & 3;
    for (int lgL = 4; lgL <= l.log2n - rest; lgL += 4)
        s2d_step<4, 0>(sh, l, lgL, tw, sign, tid, nth);
    if (rest)
        s2d_step_any<0>(rest, sh, l, l.log2n, tw, sign, tid, nth);
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
    s2d_dif_lines16(sh, rows, tw, sign, threadIdx.x, blockDim.x);
    s2d_lines cols = {images * n2, log2n1, 1, log2n2, size, n2, s2d_log2(images) + log2n2};
    s2d_dif_lines16(sh, cols, tw, sign, threadIdx.x, blockDim.x);
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
    s2d_dif_lines16(sh, rows, tw, sign, threadIdx.x, blockDim.x);
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
    s2d_dif_lines16(sh, cols, tw, sign, threadIdx.x, blockDim.x);
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

static inline cudaError_t s2d_allow_smem(const void *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* Batched n1 x n2 complex 2D FFT of C = float2/double2, packed images,
 * sides powers of two up to FFT2D_TW_N; in == out allowed. Inverse: with
 * 1/(n1 n2). tw: FFT2D_TW_N roots of the precision. */
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
        e = s2d_allow_smem((const void *)fft2_small_kernel<C>, s.smem_small);
        if (e != cudaSuccess)
            return e;
        const int blocks = (batch + s.images - 1) / s.images;
        fft2_small_kernel<C><<<blocks, FFT2D_THREADS, s.smem_small, stream>>>(
            in, out, log2n1, log2n2, batch, s.images, tw, sign, scale);
        return cudaGetLastError();
    }
    e = s2d_allow_smem((const void *)fft2_rows_kernel<C>, s.smem_rows);
    if (e == cudaSuccess)
        e = s2d_allow_smem((const void *)fft2_cols_kernel<C>, s.smem_cols);
    if (e != cudaSuccess)
        return e;
    const long rows = (long)batch * n1;
    const long row_blocks = (rows + s.rows_per_block - 1) / s.rows_per_block;
    fft2_rows_kernel<C><<<(unsigned)row_blocks, FFT2D_THREADS, s.smem_rows, stream>>>(
        in, out, log2n2, rows, s.rows_per_block, tw, sign, 1.0);
    e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    /* images on grid y: at most 65535 per launch */
    for (int first = 0; first < batch; first += 65535) {
        const int count = batch - first < 65535 ? batch - first : 65535;
        dim3 grid((unsigned)(n2 >> s.log2tile), (unsigned)count);
        fft2_cols_kernel<C><<<grid, FFT2D_THREADS, s.smem_cols, stream>>>(
            out + (size_t)first * n1 * n2, log2n1, log2n2, s.log2tile, tw, sign, scale);
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* ---- the EDM convolution ---- */

/* Per slice (threadIdx.y of a block): the M x mfft array A of the slice's
 * non-zero rows, and a column buffer of mfft x group.
 *   1. A <- the slice, columns padded (mode b - h at column (b - h) mod mfft)
 *   2. forward DIF on the M rows: A[a][p] = row spectrum at column rev(p)
 *   3. per group of columns: pad rows into the buffer (slice row a at
 *      (a - h) mod mfft), forward DIF, times S at (rev q, rev p) (S comes
 *      permuted: s_perm[q][p]), inverse DIT, keep the M rows back in A
 *   4. inverse DIT on the M rows: natural columns
 *   5. crop the M columns, scale by 1/mfft^2.
 * Only the M non-zero rows are ever transformed along rows, in both
 * directions; the slice is read once and the result written once. */
template <typename T>
__global__ void conv2d_kernel(const typename s2d_cpx<T>::type *slices, const T *shapes_perm,
                              typename s2d_cpx<T>::type *out, int log2nf, int m, int group,
                              int batch, int per_shape, const typename s2d_cpx<T>::type *tw)
{
    typedef typename s2d_cpx<T>::type C;
    extern __shared__ unsigned char s2d_smem[];
    const int nf = 1 << log2nf, h = (m - 1) / 2, mask = nf - 1;
    const int lg_group = s2d_log2(group);
    C *a_rows = reinterpret_cast<C *>(s2d_smem) +
                (size_t)threadIdx.y * (s2d_padded(m * nf) + s2d_padded(nf * group));
    C *buf = a_rows + s2d_padded(m * nf);
    const int tid = threadIdx.x, nth = blockDim.x;
    const int slice = blockIdx.x * blockDim.y + threadIdx.y;
    const int valid = slice < batch;
    const C *x = slices + (size_t)slice * m * m;
    const T *s = shapes_perm + (size_t)((valid ? slice : 0) / per_shape) * nf * nf;
    const C zero = {0, 0};

    for (int i = tid; i < m * nf; i += nth)
        a_rows[s2d_pad(i)] = zero;
    __syncthreads();
    if (valid)
        for (int i = tid; i < m * m; i += nth) {
            const int a = i / m, b = i - a * m;
            a_rows[s2d_pad(a * nf + ((b - h) & mask))] = x[i];
        }
    __syncthreads();
    const s2d_lines rows = {m, log2nf, nf, 30, 0, 1, -1};
    s2d_dif_lines16(a_rows, rows, tw, -1, tid, nth);
    const s2d_lines cols = {group, log2nf, 1, 30, 0, group, lg_group};
    for (int p0 = 0; p0 < nf; p0 += group) {
        for (int i = tid; i < nf * group; i += nth) {
            const int q = i >> lg_group, j = i & (group - 1), a = (q + h) & mask;
            buf[s2d_pad(i)] = a < m ? a_rows[s2d_pad(a * nf + p0 + j)] : zero;
        }
        __syncthreads();
        s2d_dif_lines16(buf, cols, tw, -1, tid, nth);
        for (int i = tid; i < nf * group; i += nth) {
            const int q = i >> lg_group, j = i & (group - 1);
            const T f = s[(q << log2nf) + p0 + j];
            buf[s2d_pad(i)].x *= f;
            buf[s2d_pad(i)].y *= f;
        }
        __syncthreads();
        s2d_dit_lines16(buf, cols, tw, 1, tid, nth);
        for (int i = tid; i < m * group; i += nth) {
            const int a = i >> lg_group, j = i & (group - 1);
            a_rows[s2d_pad(a * nf + p0 + j)] = buf[s2d_pad((((a - h) & mask) << lg_group) + j)];
        }
        __syncthreads();
    }
    s2d_dit_lines16(a_rows, rows, tw, 1, tid, nth);
    if (valid) {
        const T scale = (T)1 / ((T)nf * (T)nf);
        C *y = out + (size_t)slice * m * m;
        for (int i = tid; i < m * m; i += nth) {
            const int a = i / m, b = i - a * m;
            C v = a_rows[s2d_pad(a * nf + ((b - h) & mask))];
            v.x *= scale;
            v.y *= scale;
            y[i] = v;
        }
    }
}

/* How conv2d_launch runs an mfft x mfft convolution of M x M slices. */
struct conv2d_shape {
    int group;          /* columns per column step */
    int threads_x;      /* threads per slice */
    int slices;         /* slices per block */
    size_t smem;
};

static inline conv2d_shape conv2d_shape_for(int nf, int m, size_t csize, int group)
{
    conv2d_shape s;
    s.group = group < 1 ? 1 : group > nf ? nf : group;
    const int items = s.group * nf / 16;   /* radix-16 groups of a column step */
    const size_t per_slice = (size_t)(s2d_padded(m * nf) + s2d_padded(nf * s.group)) * csize;
    /* small slices share a block (256 threads), as long as they take
     * little shared memory together */
    int slices = 256 / (items < 32 ? 32 : items > 256 ? 256 : items);
    while (slices > 1 && slices * per_slice > CONV2D_SHARED_SLICES_BYTES)
        slices /= 2;
    s.slices = slices;
    s.threads_x = 256 / slices;
    s.smem = (size_t)s.slices * per_slice;
    return s;
}

/* The widest column group (more threads busy in the column steps) that
 * fits smem_limit bytes; 0: the least shared memory. */
static inline conv2d_shape conv2d_shape_of(int nf, int m, size_t csize, size_t smem_limit)
{
    for (int group = 4096 / nf; smem_limit > 0 && group > 1024 / nf; group /= 2) {
        const conv2d_shape s = conv2d_shape_for(nf, m, csize, group);
        if (s.smem <= smem_limit)
            return s;
    }
    return conv2d_shape_for(nf, m, csize, 1024 / nf);
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
    typedef typename s2d_cpx<T>::type C;
    int dev = 0, limit = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e != cudaSuccess)
        return e;
    const conv2d_shape s = conv2d_shape_of(nf, m, sizeof(C), (size_t)limit);
    e = s2d_allow_smem((const void *)conv2d_kernel<T>, s.smem);
    if (e != cudaSuccess)
        return e;
    const int blocks = (batch + s.slices - 1) / s.slices;
    dim3 block((unsigned)s.threads_x, (unsigned)s.slices);
    conv2d_kernel<T><<<blocks, block, s.smem, stream>>>(slices, shapes_perm, out, s2d_log2(nf), m,
                                                        s.group, batch, per_shape, tw);
    return cudaGetLastError();
}

/* ---- batched tridiagonal solve ---- */

/* blockDim.y systems per block, blockDim.x threads each (a power of two,
 * at most 256, each holding up to TRIDIAG_ROWS_PER_THREAD rows). The
 * block's systems are contiguous in every array: loaded and stored
 * coalesced. Every row is kept divided by its diagonal, so only the sub-
 * and super-diagonal and the right-hand side live in shared memory and a
 * step costs one division per row. Parallel cyclic reduction (strides 1,
 * 2, ... parts/2) splits every system into `parts` independent
 * interleaved ones (rows j, j + parts, ...); one thread per part finishes
 * it with Thomas. Diagonally dominant systems: no pivoting. x may be rhs. */
template <typename T>
__global__ void __launch_bounds__(256, 3)
tridiag_kernel(const T *dl, const T *dg, const T *du, const T *rhs, T *x, int n, int batch,
               int parts)
{
    extern __shared__ unsigned char s2d_smem[];
    const int per_block = blockDim.y, tpb = blockDim.x * blockDim.y;
    const int flat = threadIdx.y * blockDim.x + threadIdx.x;
    const long first = (long)blockIdx.x * per_block;
    const int have = (int)min((long)per_block, (long)batch - first);
    T *sa = reinterpret_cast<T *>(s2d_smem), *sc = sa + per_block * n, *sd = sc + per_block * n;
    const size_t off = (size_t)first * n;
    for (int i = flat; i < per_block * n; i += tpb) {
        const int row = i % n;
        if (i < have * n) {
            const T inv = (T)1 / dg[off + i];
            sa[i] = row == 0 ? (T)0 : dl[off + i] * inv;
            sc[i] = row == n - 1 ? (T)0 : du[off + i] * inv;
            sd[i] = rhs[off + i] * inv;
        } else {   /* an identity system, so the arithmetic stays finite */
            sa[i] = 0;
            sc[i] = 0;
            sd[i] = 0;
        }
    }
    __syncthreads();
    T *a = sa + threadIdx.y * n, *c = sc + threadIdx.y * n, *d = sd + threadIdx.y * n;
    const int tx = threadIdx.x, nt = blockDim.x;
    for (int s = 1; s < parts; s *= 2) {
        /* row i minus a_i times row i - s and c_i times row i + s (unit
         * diagonals), divided by what is left of its diagonal */
        T na[TRIDIAG_ROWS_PER_THREAD], nc[TRIDIAG_ROWS_PER_THREAD], nd[TRIDIAG_ROWS_PER_THREAD];
#pragma unroll
        for (int r = 0; r < TRIDIAG_ROWS_PER_THREAD; r++) {
            const int i = tx + r * nt;
            if (i < n) {
                const T ai = a[i], ci = c[i];
                T bi = 1, di = d[i], ra = 0, rc = 0;
                if (i - s >= 0) {
                    ra = -ai * a[i - s];
                    bi -= ai * c[i - s];
                    di -= ai * d[i - s];
                }
                if (i + s < n) {
                    rc = -ci * c[i + s];
                    bi -= ci * a[i + s];
                    di -= ci * d[i + s];
                }
                const T inv = (T)1 / bi;
                na[r] = ra * inv;
                nc[r] = rc * inv;
                nd[r] = di * inv;
            }
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < TRIDIAG_ROWS_PER_THREAD; r++) {
            const int i = tx + r * nt;
            if (i < n) {
                a[i] = na[r];
                c[i] = nc[r];
                d[i] = nd[r];
            }
        }
        __syncthreads();
    }
    if (tx < parts && tx < n) {
        /* Thomas on rows tx, tx + parts, ... (unit diagonal): c' into c,
         * d' into d, then back substitution into d */
        int i = tx, last = tx;
        T cp = c[i], dp = d[i];
        for (i = tx + parts; i < n; i += parts) {
            const T ai = a[i], inv = (T)1 / ((T)1 - ai * cp);
            cp = c[i] * inv;
            dp = (d[i] - ai * dp) * inv;
            c[i] = cp;
            d[i] = dp;
            last = i;
        }
        T xn = d[last];
        for (i = last - parts; i >= 0; i -= parts) {
            xn = d[i] - c[i] * xn;
            d[i] = xn;
        }
    }
    __syncthreads();
    for (int i = flat; i < have * n; i += tpb)
        x[off + i] = sd[i];
}

struct tridiag_shape {
    int threads_x, systems, parts;
    size_t smem;
};

static inline tridiag_shape tridiag_shape_of(int n, size_t tsize)
{
    tridiag_shape s;
    int t = 1;
    while (t < n && t < 256)
        t *= 2;
    /* at least a warp per system; rows beyond n idle */
    s.threads_x = t < 32 ? 32 : t;
    s.systems = 256 / s.threads_x;
    int parts = 1;
    while (parts < n && parts < (1 << TRIDIAG_LOG2_PARTS))
        parts *= 2;
    s.parts = parts;
    s.smem = (size_t)3 * s.systems * n * tsize;
    return s;
}

/* x = A^-1 rhs for batch systems of n rows (4 <= n <= TRIDIAG_MAX_N), the
 * layout of cuSPARSE gtsv2StridedBatch; x may be rhs. */
template <typename T>
static cudaError_t tridiag_launch(const T *dl, const T *d, const T *du, const T *rhs, T *x, int n,
                                  int batch, cudaStream_t stream)
{
    const tridiag_shape s = tridiag_shape_of(n, sizeof(T));
    cudaError_t e = s2d_allow_smem((const void *)tridiag_kernel<T>, s.smem);
    if (e != cudaSuccess)
        return e;
    const long blocks = ((long)batch + s.systems - 1) / s.systems;
    dim3 block((unsigned)s.threads_x, (unsigned)s.systems);
    tridiag_kernel<T><<<(unsigned)blocks, block, s.smem, stream>>>(dl, d, du, rhs, x, n, batch,
                                                                   s.parts);
    return cudaGetLastError();
}

#endif
