/* Batched complex FFT on the GPU, power-of-two N from 4 to 4096
 * (docs/spectral.md), behind the backend's spec_run, the 2D FFT's row pass
 * and the bench. One kernel a precision and N, as fft_c2c_table says (the
 * defaults, fastest side by side on an H200): N < 16 one transform in
 * shared memory, radix-4 butterflies (one radix-2 pass
 * when log2 N is odd), a barrier between reading a pass's inputs and
 * writing its outputs (fft_c2c_shared); one thread a transform, its points
 * in registers (fft_c2c_small); else 8 or 16 points a thread, radix-8 or
 * radix-16 Stockham passes through padded shared buffers (a shorter last
 * pass), the first reading global memory and the last writing it
 * (fft_c2c_radix). Small transforms share a block.
 * Twiddles come from a table of e^{-2 pi j k / N} (long double on the host,
 * rounded once). Conventions as the CPU kernels: unnormalised forward,
 * inverse with 1/N.
 * The butterflies are written per dialect (also app_opencl/spectral/spectral.cl,
 * common/spectral/simd/lanes_kernel.h), not generated from one source: here
 * templates fix register arrays, passes and register caps per N and use warp
 * barriers and shuffles; if the three must converge, a generator is the route. */
#ifndef ORRERY_CUDA_SPECTRAL_FFT_CUH
#define ORRERY_CUDA_SPECTRAL_FFT_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include <type_traits>

template <typename T> struct cpx_of;
template <> struct cpx_of<double> { typedef double2 type; };
template <> struct cpx_of<float> { typedef float2 type; };

/* An n-point FFT in shared memory, in place in sh: radix 4
 * (one radix 2 last when log2 n is odd), Stockham order as the CPU
 * kernel, the threads of a transform cooperating with barriers. tw: the
 * n-point table. At most 4 radix-4 butterflies a thread (threads >= n /
 * 16). For N < 16, where the register kernels have too few points a
 * thread. */
template <typename T>
__device__ void shared_fft_passes(typename cpx_of<T>::type *sh, int n, const double2 *tw, int sign,
                                  int tid, int threads)
{
    typedef typename cpx_of<T>::type C;
    typedef double2 W;
    int s = 1, len = n;
    for (; len >= 4; len /= 4) {
        const int m = len / 4, tstep = n / len;
        C v[4][4];
        int slots[4];
        int count = 0;
        for (int j = tid; j < n / 4 && count < 4; j += threads, count++) {
            const int p = j / s, q = j % s;
            const C a = sh[q + s * p], b = sh[q + s * (p + m)], c = sh[q + s * (p + 2 * m)],
                    d = sh[q + s * (p + 3 * m)];
            const T apc_r = a.x + c.x, apc_i = a.y + c.y, amc_r = a.x - c.x, amc_i = a.y - c.y;
            const T bpd_r = b.x + d.x, bpd_i = b.y + d.y;
            const T jr = -sign * (b.y - d.y), ji = sign * (b.x - d.x);
            const W w1 = tw[p * tstep], w2 = tw[2 * p * tstep], w3 = tw[3 * p * tstep];
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
    }
    if (len == 2) {
        /* radix 2, twiddles 1: s = n / 2 butterflies */
        C u[8][2];
        int at[8];
        int count = 0;
        for (int q = tid; q < s && count < 8; q += threads, count++) {
            const C a = sh[q], b = sh[q + s];
            u[count][0].x = a.x + b.x;
            u[count][0].y = a.y + b.y;
            u[count][1].x = a.x - b.x;
            u[count][1].y = a.y - b.y;
            at[count] = q;
        }
        __syncthreads();
        for (int k = 0; k < count; k++) {
            sh[at[k]] = u[k][0];
            sh[at[k] + s] = u[k][1];
        }
        __syncthreads();
    }
}

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
    shared_fft_passes<T>(sh, n, tw, sign, tid, threads);
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

/* ---- radix-R passes with the data in registers (R = 8 or 16) ----
 * Each thread holds R points of a transform: a pass reads them (from
 * global memory in the first pass, shared memory after), runs an R-point
 * DFT in registers (or shorter ones in the last pass when log2 N is not a
 * multiple of log2 R), multiplies by the pass's twiddles and writes them
 * back (to global memory in the last pass). Radix 16 takes N = 4096 in
 * three passes and two trips through shared memory instead of six. */

template <typename C, typename T> __device__ __forceinline__ C cmul(C a, T br, T bi)
{
    C r;
    r.x = a.x * br - a.y * bi;
    r.y = a.x * bi + a.y * br;
    return r;
}

/* In-register DFTs of R = 2, 4, 8, 16 points (sign -1 forward), in place,
 * natural order in and out. */
template <typename C, typename T> __device__ __forceinline__ void dft2(C &a, C &b)
{
    const C t = a;
    a.x = t.x + b.x;
    a.y = t.y + b.y;
    b.x = t.x - b.x;
    b.y = t.y - b.y;
}

template <typename C, typename T>
__device__ __forceinline__ void dft4(C &x0, C &x1, C &x2, C &x3, int sign)
{
    const T apc_r = x0.x + x2.x, apc_i = x0.y + x2.y, amc_r = x0.x - x2.x, amc_i = x0.y - x2.y;
    const T bpd_r = x1.x + x3.x, bpd_i = x1.y + x3.y;
    const T jr = -sign * (x1.y - x3.y), ji = sign * (x1.x - x3.x);
    x0.x = apc_r + bpd_r;
    x0.y = apc_i + bpd_i;
    x2.x = apc_r - bpd_r;
    x2.y = apc_i - bpd_i;
    x1.x = amc_r + jr;
    x1.y = amc_i + ji;
    x3.x = amc_r - jr;
    x3.y = amc_i - ji;
}

/* 16 = 4 x 4: X[k1 + 4 k2] = sum_b w16^(b k1) w4^(b k2) (sum_a x[b + 4a] w4^(a k1)) */
template <typename C, typename T> __device__ __forceinline__ void dft16(C *x, int sign)
{
    const T c1 = (T)0.92387953251128675613, s1 = (T)0.38268343236508977173;   /* cos, sin pi/8 */
    const T h = (T)0.70710678118654752440;
#pragma unroll
    for (int b = 0; b < 4; b++)
        dft4<C, T>(x[b], x[b + 4], x[b + 8], x[b + 12], sign);
    /* twiddles w16^(b k1) on x[b + 4 k1], w16 = e^(sign 2 pi j / 16) */
    x[5] = cmul<C, T>(x[5], c1, sign * s1);    /* b=1,k1=1: 1/16 */
    x[9] = cmul<C, T>(x[9], h, sign * h);      /* b=1,k1=2: 2/16 */
    x[13] = cmul<C, T>(x[13], s1, sign * c1);  /* b=1,k1=3: 3/16 */
    x[6] = cmul<C, T>(x[6], h, sign * h);      /* b=2,k1=1: 2/16 */
    x[10] = cmul<C, T>(x[10], (T)0, (T)sign);  /* b=2,k1=2: 4/16 */
    x[14] = cmul<C, T>(x[14], -h, sign * h);   /* b=2,k1=3: 6/16 */
    x[7] = cmul<C, T>(x[7], s1, sign * c1);    /* b=3,k1=1: 3/16 */
    x[11] = cmul<C, T>(x[11], -h, sign * h);   /* b=3,k1=2: 6/16 */
    x[15] = cmul<C, T>(x[15], -c1, sign * -s1); /* b=3,k1=3: 9/16 */
#pragma unroll
    for (int k1 = 0; k1 < 4; k1++)
        dft4<C, T>(x[4 * k1], x[4 * k1 + 1], x[4 * k1 + 2], x[4 * k1 + 3], sign);
    /* now x[4 k1 + k2] = X[k1 + 4 k2]: transpose the 4 x 4 */
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int b = a + 1; b < 4; b++) {
            const C t = x[4 * a + b];
            x[4 * a + b] = x[4 * b + a];
            x[4 * b + a] = t;
        }
}

/* 8 = 2 x 4 in place, natural order in and out (sign -1 forward). */
template <typename C, typename T> __device__ __forceinline__ void dft8_natural(C *x, int sign)
{
    const T h = (T)0.70710678118654752440;
    dft4<C, T>(x[0], x[2], x[4], x[6], sign);
    dft4<C, T>(x[1], x[3], x[5], x[7], sign);
    x[3] = cmul<C, T>(x[3], h, sign * h);
    x[5] = cmul<C, T>(x[5], (T)0, (T)sign);
    x[7] = cmul<C, T>(x[7], -h, sign * h);
    dft2<C, T>(x[0], x[1]);
    dft2<C, T>(x[2], x[3]);
    dft2<C, T>(x[4], x[5]);
    dft2<C, T>(x[6], x[7]);
    /* x[2 k1 + k2] = X[k1 + 4 k2] -> natural order */
    const C y0 = x[0], y1 = x[1], y2 = x[2], y3 = x[3], y4 = x[4], y5 = x[5], y6 = x[6], y7 = x[7];
    x[0] = y0; x[4] = y1; x[1] = y2; x[5] = y3; x[2] = y4; x[6] = y5; x[3] = y6; x[7] = y7;
}

/* 32 = 2 x 16 (decimation in time), natural order in and out:
 * X[k] = E[k] + w32^k O[k], X[k + 16] = E[k] - w32^k O[k], E and O the
 * 16-point DFTs of the even and odd points. */
template <typename C, typename T> __device__ __forceinline__ void dft32(C *x, int sign)
{
    /* cos(pi m / 16), m = 0 .. 8 */
    constexpr double c[9] = {1.0,
                             0.98078528040323044912618223613424,
                             0.92387953251128675612818318939679,
                             0.83146961230254523707878837761791,
                             0.70710678118654752440084436210485,
                             0.55557023301960222474283081394853,
                             0.38268343236508977172845998403040,
                             0.19509032201612826784828486847702,
                             0.0};
    C e[16], o[16];
#pragma unroll
    for (int m = 0; m < 16; m++) {
        e[m] = x[2 * m];
        o[m] = x[2 * m + 1];
    }
    dft16<C, T>(e, sign);
    dft16<C, T>(o, sign);
#pragma unroll
    for (int k = 0; k < 16; k++) {
        /* w32^k = cos(2 pi k / 32) + sign j sin(2 pi k / 32) */
        const T wr = (T)(k <= 8 ? c[k] : -c[16 - k]), wi = (T)(sign * (k <= 8 ? c[8 - k] : c[k - 8]));
        const C t = k == 0 ? o[0] : cmul<C, T>(o[k], wr, wi);
        x[k].x = e[k].x + t.x;
        x[k].y = e[k].y + t.y;
        x[k + 16].x = e[k].x - t.x;
        x[k + 16].y = e[k].y - t.y;
    }
}

/* The H-point DFT in registers (H = 2, 4, 8, 16, 32), natural order. */
template <int H, typename C, typename T> __device__ __forceinline__ void dft_natural(C *v, int sign)
{
    if constexpr (H == 2)
        dft2<C, T>(v[0], v[1]);
    else if constexpr (H == 4)
        dft4<C, T>(v[0], v[1], v[2], v[3], sign);
    else if constexpr (H == 8)
        dft8_natural<C, T>(v, sign);
    else if constexpr (H == 16)
        dft16<C, T>(v, sign);
    else
        dft32<C, T>(v, sign);
}

/* The twiddles of one radix-16 butterfly, v[r] *= w^r (r = 1..15) with
 * w^r = tw[r * base] (conjugated for the inverse): two loads (w, w^4), the
 * rest by products, row by row, w^(hi + lo) = w^hi w^lo, so that few
 * twiddles live at once (with all fifteen products live, the kernels with
 * the size compiled in spilled at 64 registers); a few ulp more error than
 * fifteen table loads, far fewer loads. */
template <typename C, typename T>
__device__ __forceinline__ void twiddle16(C *v, const C *tw, int base, int sign)
{
    C w1 = tw[base], wh = tw[4 * base];
    if (sign > 0) {
        w1.y = -w1.y;
        wh.y = -wh.y;
    }
    const C w4 = wh, w2 = cmul<C, T>(w1, w1.x, w1.y), w3 = cmul<C, T>(w2, w1.x, w1.y);
    v[1] = cmul<C, T>(v[1], w1.x, w1.y);
    v[2] = cmul<C, T>(v[2], w2.x, w2.y);
    v[3] = cmul<C, T>(v[3], w3.x, w3.y);
#pragma unroll
    for (int hi = 4; hi < 16; hi += 4) {
        if (hi > 4)
            wh = cmul<C, T>(wh, w4.x, w4.y);
        const C a = cmul<C, T>(wh, w1.x, w1.y), b = cmul<C, T>(wh, w2.x, w2.y),
                c = cmul<C, T>(wh, w3.x, w3.y);
        v[hi] = cmul<C, T>(v[hi], wh.x, wh.y);
        v[hi + 1] = cmul<C, T>(v[hi + 1], a.x, a.y);
        v[hi + 2] = cmul<C, T>(v[hi + 2], b.x, b.y);
        v[hi + 3] = cmul<C, T>(v[hi + 3], c.x, c.y);
    }
}

/* The twiddles of one radix-8 butterfly, v[r] *= w^r (r = 1..7) with w^r =
 * tw[r * base] (conjugated for the inverse): two loads (w, w^4), the rest
 * by products. */
template <typename C, typename T>
__device__ __forceinline__ void twiddle8(C *v, const C *tw, int base, int sign)
{
    C w[8];
    w[1] = tw[base];
    w[4] = tw[4 * base];
    if (sign > 0) {
        w[1].y = -w[1].y;
        w[4].y = -w[4].y;
    }
    w[2] = cmul<C, T>(w[1], w[1].x, w[1].y);
    w[3] = cmul<C, T>(w[2], w[1].x, w[1].y);
#pragma unroll
    for (int lo = 1; lo < 4; lo++)
        w[4 + lo] = cmul<C, T>(w[4], w[lo].x, w[lo].y);
#pragma unroll
    for (int r = 1; r < 8; r++)
        v[r] = cmul<C, T>(v[r], w[r].x, w[r].y);
}

/* A register pass's R-point DFT in place, natural order (R = 8, 16), and
 * its twiddles v[r] *= w^r, w = tw[base]. */
template <int R, typename C, typename T> __device__ __forceinline__ void fft_radix_dft(C *v, int sign)
{
    if constexpr (R == 16)
        dft16<C, T>(v, sign);
    else
        dft8_natural<C, T>(v, sign);
}
template <int R, typename C, typename T>
__device__ __forceinline__ void fft_radix_twiddles(C *v, const C *tw, int base, int sign)
{
    if constexpr (R == 16)
        twiddle16<C, T>(v, tw, base, sign);
    else
        twiddle8<C, T>(v, tw, base, sign);
}

/* The short last pass's DFTs (LAST_R = 2, 4 or 8 points, R / LAST_R of
 * them a thread, v[g LAST_R ..]): when log2 N is not a multiple of log2 R. */
template <int R, int LAST_R, typename C, typename T>
__device__ __forceinline__ void fft_short_dfts(C *v, int sign)
{
    if constexpr (LAST_R == 4) {
#pragma unroll
        for (int g = 0; g < R / 4; g++)
            dft4<C, T>(v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3], sign);
    } else if constexpr (LAST_R == 2) {
#pragma unroll
        for (int g = 0; g < R / 2; g++)
            dft2<C, T>(v[2 * g], v[2 * g + 1]);
    } else if constexpr (LAST_R == 8) {
#pragma unroll
        for (int g = 0; g < R / 8; g++)
            dft8_natural<C, T>(v + 8 * g, sign);
    }
}

/* The barrier between a pass's reads and writes: the block's, or only the
 * warp's when a transform's threads lie in one warp (WARP: n / R <= 32). */
template <bool WARP> __device__ __forceinline__ void pass_barrier()
{
    if (WARP)
        __syncwarp();
    else
        __syncthreads();
}

/* log2 of a power of two, for template arguments */
__host__ __device__ constexpr int ilog2_const(int x)
{
    return x <= 1 ? 0 : 1 + ilog2_const(x / 2);
}

/* Shared-memory slot of element i of a transform in the radix-R kernels:
 * one slot of padding after every R. A pass writes each thread's R outputs
 * to consecutive elements, threads R apart; unpadded, a warp's stores of
 * one output then all hit the same bank (a 16- or 32-way conflict in the
 * passes with stride s < R). */
template <int R> __device__ __forceinline__ int fft_slot(int i) { return i + i / R; }
static inline size_t fft_padded_len(int n, int radix) { return (size_t)n + n / radix; }

/* body(pass) for the radix-2^LOG2R passes 0 .. passes - 1, unrolled
 * where the size NN is known when compiling (passes = log2 NN / LOG2R);
 * true as soon as body says the transform is written. */
template <int NN, int LOG2R, typename Body>
__device__ __forceinline__ bool fft_run_passes(int passes, Body body)
{
    if constexpr (NN != 0) {
#pragma unroll
        for (int pass = 0; pass < ilog2_const(NN) / LOG2R; pass++)
            if (body(pass))
                return true;
    } else {
        for (int pass = 0; pass < passes; pass++)
            if (body(pass))
                return true;
    }
    return false;
}

/* Staged global access (the staged rows of fft_c2c_table): a block's
 * transforms lie side by side in global memory (blockDim.y n complex from
 * transform blockIdx.x blockDim.y), so the block can copy them to and from its shared buffers in 16-byte
 * vectors, each warp instruction covering 512 contiguous bytes, instead of
 * each thread reading its butterflies' inputs where they lie: in float two
 * complex a load instead of one, and at small N whole sectors instead of
 * the halves two threads of a 16-point transform reach. One more trip
 * through shared memory each way. */
template <typename C> struct stage_vec;
template <> struct stage_vec<float2> { typedef float4 type; };
template <> struct stage_vec<double2> { typedef double2 type; };

/* in -> the block's buffers (transform y at y (n + n / R), slots
 * fft_slot<R>); the transforms of the block that exist only. */
template <int R, typename C>
__device__ __forceinline__ void fft_stage_load(const C *in, C *sh, int n, int log2n, int batch)
{
    typedef typename stage_vec<C>::type V;
    constexpr int K = sizeof(V) / sizeof(C);
    const int t0 = blockIdx.x * blockDim.y, here = min((int)blockDim.y, batch - t0);
    const int vectors = here * n / K, threads = blockDim.x * blockDim.y;
    const V *src = reinterpret_cast<const V *>(in + (size_t)t0 * n);
    for (int e = threadIdx.y * blockDim.x + threadIdx.x; e < vectors; e += threads) {
        const V v = src[e];
        const C *c = reinterpret_cast<const C *>(&v);
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int i = e * K + k;
            sh[(i >> log2n) * (n + n / R) + fft_slot<R>(i & (n - 1))] = c[k];
        }
    }
}

/* Whether both ends allow the 16-byte vectors (cudaMalloc's are; a caller's
 * offset into one may not be). */
__host__ __device__ inline bool fft_stage_aligned(const void *in, const void *out)
{
    return ((uintptr_t)in | (uintptr_t)out) % 16 == 0;
}

/* The short-transform kernels' copies (one thread a transform, its data
 * in a slice of shared memory): count reals between global memory
 * (contiguous; 16-byte aligned where vec) and the slices (STRIDE reals
 * apart, LEN of each used), all threads of the block: 16-byte vectors,
 * four a thread in flight, then the few reals left over. */
template <bool TO_SHARED, int LEN, int STRIDE, typename T>
__device__ __forceinline__ void fft_small_copy(T *global, T *slices, int count, bool vec)
{
    typedef typename stage_vec<typename cpx_of<T>::type>::type V;
    constexpr int K = sizeof(V) / sizeof(T), UNROLL = 4;
    const int vectors = vec ? count / K : 0;
    V *global_v = reinterpret_cast<V *>(global);
    for (int u0 = threadIdx.x; u0 < vectors; u0 += UNROLL * blockDim.x) {
        V v[UNROLL];
        /* the loads first, all four, then the stores */
#pragma unroll
        for (int j = 0; j < UNROLL; j++) {
            const int u = u0 + j * blockDim.x;
            T *c = reinterpret_cast<T *>(&v[j]);
            if (u >= vectors)
                break;
            if (TO_SHARED) {
                v[j] = global_v[u];
            } else {
#pragma unroll
                for (int k = 0; k < K; k++)
                    c[k] = slices[((u * K + k) / LEN) * STRIDE + (u * K + k) % LEN];
            }
        }
#pragma unroll
        for (int j = 0; j < UNROLL; j++) {
            const int u = u0 + j * blockDim.x;
            const T *c = reinterpret_cast<const T *>(&v[j]);
            if (u >= vectors)
                break;
            if (!TO_SHARED) {
                global_v[u] = v[j];
            } else {
#pragma unroll
                for (int k = 0; k < K; k++)
                    slices[((u * K + k) / LEN) * STRIDE + (u * K + k) % LEN] = c[k];
            }
        }
    }
    for (int e = vectors * K + threadIdx.x; e < count; e += blockDim.x) {
        if (TO_SHARED)
            slices[(e / LEN) * STRIDE + e % LEN] = global[e];
        else
            global[e] = slices[(e / LEN) * STRIDE + e % LEN];
    }
}

/* The block's buffers, times scale -> out, as fft_stage_load. */
template <int R, typename C, typename T>
__device__ __forceinline__ void fft_stage_store(const C *sh, C *out, int n, int log2n, int batch, T scale)
{
    typedef typename stage_vec<C>::type V;
    constexpr int K = sizeof(V) / sizeof(C);
    const int t0 = blockIdx.x * blockDim.y, here = min((int)blockDim.y, batch - t0);
    const int vectors = here * n / K, threads = blockDim.x * blockDim.y;
    V *dst = reinterpret_cast<V *>(out + (size_t)t0 * n);
    for (int e = threadIdx.y * blockDim.x + threadIdx.x; e < vectors; e += threads) {
        V v;
        C *c = reinterpret_cast<C *>(&v);
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int i = e * K + k;
            c[k] = sh[(i >> log2n) * (n + n / R) + fft_slot<R>(i & (n - 1))];
            c[k].x *= scale;
            c[k].y *= scale;
        }
        dst[e] = v;
    }
}

/* A staged kernel's short last pass (R / LAST_R butterflies of LAST_R
 * points a thread, butterfly g at g n / R + tid, outputs s apart): its
 * outputs to the transform's buffer sh, then the block's copy out. */
template <int R, int LAST_R, bool WARP, typename C, typename T>
__device__ __forceinline__ void fft_stage_last(const C *v, C *sh, const C *block_sh, C *out, int n,
                                               int log2n, int batch, int s, T scale)
{
    pass_barrier<WARP>();
#pragma unroll
    for (int g = 0; g < R / LAST_R; g++)
#pragma unroll
        for (int r = 0; r < LAST_R; r++)
            sh[fft_slot<R>(g * (n / R) + threadIdx.x + s * r)] = v[g * LAST_R + r];
    __syncthreads();
    fft_stage_store<R>(block_sh, out, n, log2n, batch, scale);
}

/* ---- the defaults: which kernel runs at each precision and N ---- */

/* The 1D kernels' paths (fft_c2c_table and fft_real_table). */
enum fft_path {
    FFT_PATH_SHARED = 1,   /* radix-4 passes in shared memory, a transform's threads
                              cooperating (fft_c2c_shared) */
    FFT_PATH_ONE_A_THREAD, /* a transform's points in one thread's registers, the block
                              copying in and out in 16-byte vectors (fft_c2c_small,
                              fft_real_small) */
    FFT_PATH_REGISTERS     /* radix-8 or -16 passes, that many points a thread
                              (fft_c2c_radix, fft_real_radix) */
};

#define FFT_C2C_SMALL_THREADS 64   /* transforms (threads) a block of fft_c2c_small */

/* A row of fft_c2c_table: the kernel for the powers of two N from n_from
 * to n_to in one precision. */
struct fft_c2c_config {
    bool single;       /* float (else double) */
    int n_from, n_to;
    int path;          /* fft_path */
    int radix;         /* points a thread and pass: 4 (FFT_PATH_SHARED), 8 or 16 (registers),
                          N (one a thread) */
    int min_blocks;    /* register path: blocks an SM asked of the compiler
                          (__launch_bounds__), which caps the registers */
    int block_threads; /* threads a block, about (whole transforms) */
    bool staged;       /* global memory through the shared buffers in 16-byte vectors, where
                          both ends are 16-byte aligned (else without) */
    bool any_n;        /* one kernel for any N, n and the direction as arguments; else one
                          per N and direction: every pass unrolled, shared-memory and global
                          offsets constants off one base, no twiddles or scaling where they
                          are 1 (Nsight Compute, f32 N = 1024: 13.3 M instructions -> 10.3 M) */
};

/* The defaults, each the fastest side by side on an H200 (the sixth to
 * ninth sessions of bench/archive/RESULTS-2026-11.md; today's numbers and
 * what lost: bench/spectral/RESULTS.md). */
static constexpr fft_c2c_config fft_c2c_table[] = {
    /* single, N from, to, path, radix, min blocks, block threads, staged, any N */
    {true, 4, 8, FFT_PATH_SHARED, 4, 0, 256, false, false},
    /* 24.8 us against 25.8 for radix 8 staged, double's row (seventh session) */
    {true, 16, 16, FFT_PATH_ONE_A_THREAD, 16, 0, FFT_C2C_SMALL_THREADS, false, false},
    /* 22.5 us, 86% of copy, against 24.6 with the size compiled in (eighth session) */
    {true, 32, 32, FFT_PATH_REGISTERS, 8, 2, 64, false, true},
    {true, 64, 64, FFT_PATH_REGISTERS, 8, 2, 64, false, false},
    /* one transform a block at 4 blocks an SM: 0.88-0.93x cuFFT at N = 1024 */
    {true, 128, 1024, FFT_PATH_REGISTERS, 16, 4, 64, false, false},
    /* 80 registers: 24.7 us against 27.2 at N = 4096, 1.13x cuFFT (eighth session) */
    {true, 2048, 4096, FFT_PATH_REGISTERS, 16, 3, 64, false, false},
    {false, 4, 8, FFT_PATH_SHARED, 4, 0, 256, false, false},
    /* staged: a 16-point transform's two threads would read half sectors; one
     * thread a transform: 45.4 us against 42.2 (108 registers) */
    {false, 16, 16, FFT_PATH_REGISTERS, 8, 2, 256, true, false},
    {false, 32, 1024, FFT_PATH_REGISTERS, 8, 2, 64, false, false},
    {false, 2048, 4096, FFT_PATH_REGISTERS, 16, 2, 64, false, false},
};

/* The row for N in T's precision (path 0: not a size the kernels take). */
template <typename T> constexpr fft_c2c_config fft_c2c_config_of(int n)
{
    for (const fft_c2c_config &c : fft_c2c_table)
        if (c.single == (sizeof(T) == sizeof(float)) && c.n_from <= n && n <= c.n_to)
            return c;
    return fft_c2c_config{};
}

/* Below it the shared-memory path (the 2D FFT's rows take the 1D kernels from here). */
#define FFT_C2C_MIN_REGISTER_N 16
static_assert(fft_c2c_config_of<float>(FFT_C2C_MIN_REGISTER_N / 2).path == FFT_PATH_SHARED &&
                  fft_c2c_config_of<double>(FFT_C2C_MIN_REGISTER_N / 2).path == FFT_PATH_SHARED &&
                  fft_c2c_config_of<float>(FFT_C2C_MIN_REGISTER_N).path != FFT_PATH_SHARED &&
                  fft_c2c_config_of<double>(FFT_C2C_MIN_REGISTER_N).path != FFT_PATH_SHARED,
              "the shared path ends at FFT_C2C_MIN_REGISTER_N");

/* Writes what the row does into buf (with 16-byte aligned ends or not):
 * the bench's and the device check's name for it. */
static inline const char *fft_c2c_config_name(const fft_c2c_config &c, bool aligned, char *buf,
                                              size_t size)
{
    if (c.path == FFT_PATH_SHARED)
        snprintf(buf, size, "r4 in shared memory");
    else if (c.path == FFT_PATH_ONE_A_THREAD)
        snprintf(buf, size, "one thread a transform");
    else
        snprintf(buf, size, "r%d, %d blk/SM, %d-thread blocks%s%s", c.radix, c.min_blocks,
                 c.block_threads, c.staged && aligned ? ", staged" : "", c.any_n ? ", any N" : "");
    return buf;
}

/* What fft_c2c_radix compiles in: the row at N of T's precision, the
 * direction SIGN (0: sign_arg's, for the rows for any N) and whether both
 * ends are 16-byte aligned (a staged row's other kernel: unstaged). */
template <typename T_, int N, int SIGN, bool ALIGNED> struct fft_c2c_plan {
    typedef T_ T;
    typedef typename cpx_of<T_>::type C;
    static constexpr fft_c2c_config cfg = fft_c2c_config_of<T_>(N);
    static_assert(cfg.path == FFT_PATH_REGISTERS, "the register path's rows");
    static_assert(!cfg.any_n || SIGN == 0, "a kernel for any N takes the direction as an argument");
    static constexpr int radix = cfg.radix, log2_radix = radix == 16 ? 4 : 3;
    static constexpr int min_blocks = cfg.min_blocks;
    static constexpr int max_threads = 4096 / radix;   /* __launch_bounds__: N = 4096's threads */
    static constexpr int nn = cfg.any_n ? 0 : N;       /* the size compiled in (0: n_arg's) */
    static constexpr int sign = SIGN;
    /* the short last pass's points (1: none) */
    static constexpr int last_radix = 1 << (ilog2_const(N) % log2_radix);
    /* a transform's threads in one warp: warp barriers between passes */
    static constexpr bool warp = N / radix <= 32;
    static constexpr bool staged = cfg.staged && ALIGNED;
};

/* Pass `pass` of fft_c2c_radix (stride s = R^pass over len = n / s), in
 * place in v: its inputs (global memory in the first pass unless staged),
 * the R-point DFT and twiddles, its outputs (the transform's shared
 * buffer, or global memory in the last pass). True once the transform is
 * written: after the last pass where log2 N is a multiple of log2 R. The
 * kernel's values by reference, as a lambda's capture. */
template <typename P> struct fft_c2c_pass {
    typedef typename P::T T;
    typedef typename P::C C;
    C *const &block_sh, *const &sh;   /* the block's shared buffers, the transform's */
    const C *const &src;              /* its input (transform 0's where not live) */
    C *const &dst, *const &out;       /* its output (likewise), the batch's */
    const C *const &tw;
    const int &n, &log2n, &batch, &tid, &sign, &tw_stride;
    const bool &live;                 /* a transform of the batch, not past its end */
    const T &scale;                   /* 1 / n for the inverse */
    C *const v;                       /* the thread's R points */

    __device__ __forceinline__ bool operator()(int pass) const
    {
        constexpr int R = P::radix, LOG2R = P::log2_radix;
        const int s = 1 << (LOG2R * pass), len = n >> (LOG2R * pass);
        const bool first = !P::staged && pass == 0;
        const int m = len / R, tstep = n / len * tw_stride;
        const int p = tid >> (LOG2R * pass), q = tid & (s - 1);
#pragma unroll
        for (int r = 0; r < R; r++)
            v[r] = first ? (live ? src[q + s * (p + r * m)] : C()) : sh[fft_slot<R>(q + s * (p + r * m))];
        fft_radix_dft<R, C, T>(v, sign);
        const bool last = len == R;
        if (!(P::nn && last))   /* the last pass's twiddles are all 1 (p = 0); skipping
                                   the multiplications spilled where n is a variable */
            fft_radix_twiddles<R, C, T>(v, tw, p * tstep, sign);
        if (!first)
            pass_barrier<P::warp>();
        /* the last pass's outputs: p = 0 there, which the radix-8 kernels
         * drop from the index and the radix-16 ones keep (as each was measured) */
        const auto out_at = [&](int r) { return q + s * (R == 16 ? R * p + r : r); };
        if (last && P::staged) {
#pragma unroll
            for (int r = 0; r < R; r++)
                sh[fft_slot<R>(out_at(r))] = v[r];
            __syncthreads();
            fft_stage_store<R>(block_sh, out, n, log2n, batch, scale);
            return true;
        }
        if (last) {
            if (live) {
#pragma unroll
                for (int r = 0; r < R; r++) {
                    C x = v[r];
                    /* the forward's scale is 1 (the branch spilled where n is a variable) */
                    if (!P::nn || sign > 0) {
                        x.x *= scale;
                        x.y *= scale;
                    }
                    dst[out_at(r)] = x;
                }
            }
            return true;
        }
#pragma unroll
        for (int r = 0; r < R; r++)
            sh[fft_slot<R>(q + s * (R * p + r))] = v[r];
        pass_barrier<P::warp>();
        return false;
    }
};

/* fft_c2c_radix's short last pass (len = LAST_R points: 2, 4 or 8; R /
 * LAST_R butterflies a thread, butterfly g at g n / R + tid; no twiddles,
 * p = 0) after the full passes (stride s), and its store. */
template <typename P>
__device__ __forceinline__ void fft_c2c_short_pass(const fft_c2c_pass<P> &k, typename P::C *v, int s)
{
    typedef typename P::T T;
    typedef typename P::C C;
    constexpr int R = P::radix, LAST_R = P::last_radix;
#pragma unroll
    for (int g = 0; g < R / LAST_R; g++) {
        const int q = g * (k.n / R) + k.tid;   /* neighbouring threads, neighbouring q */
#pragma unroll
        for (int r = 0; r < LAST_R; r++)
            v[g * LAST_R + r] = k.sh[fft_slot<R>(q + s * r)];
    }
    fft_short_dfts<R, LAST_R, C, T>(v, k.sign);
    if (P::staged) {
        fft_stage_last<R, LAST_R, P::warp>(v, k.sh, k.block_sh, k.out, k.n, k.log2n, k.batch, s, k.scale);
        return;
    }
    if (k.live) {
#pragma unroll
        for (int g = 0; g < R / LAST_R; g++) {
            const int q = g * (k.n / R) + k.tid;
#pragma unroll
            for (int r = 0; r < LAST_R; r++) {
                C x = v[g * LAST_R + r];
                if (!P::nn || k.sign > 0) {
                    x.x *= k.scale;
                    x.y *= k.scale;
                }
                k.dst[q + s * r] = x;
            }
        }
    }
}

/* The register kernel of plan P (fft_c2c_plan): R = P::radix points a
 * thread, n / R threads a transform, blockDim.y transforms a block;
 * Stockham passes, pass inputs q + s (p + r m), outputs q + s (R p + r)
 * times w_len^(p r). tw: the table in the kernel's precision (rounded once
 * from long double), read at a stride of tw_stride (the 2D FFT's longer
 * table). n_arg, sign_arg: unused where P compiles them in. */
template <typename P>
__global__ void __launch_bounds__(P::max_threads, P::min_blocks)
fft_c2c_radix(const typename P::C *in, typename P::C *out, int n_arg, int batch,
              const typename P::C *tw, int sign_arg, int tw_stride)
{
    typedef typename P::T T;
    typedef typename P::C C;
    constexpr int R = P::radix, NN = P::nn;
    const int sign = P::sign ? P::sign : sign_arg;
    extern __shared__ unsigned char smem_raw[];
    const int n = NN ? NN : n_arg;
    C *const block_sh = reinterpret_cast<C *>(smem_raw);
    C *const sh = block_sh + (size_t)threadIdx.y * (n + n / R);
    const int t = blockIdx.x * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x;
    const bool live = t < batch;
    const C *const src = in + (size_t)(live ? t : 0) * n;
    C *const dst = out + (size_t)(live ? t : 0) * n;
    const T scale = sign > 0 ? (T)1 / (T)n : (T)1;
    const int log2n = NN ? ilog2_const(NN) : __ffs(n) - 1;
    C v[R];
    if (P::staged) {
        fft_stage_load<R>(in, block_sh, n, log2n, batch);
        __syncthreads();
    }
    const fft_c2c_pass<P> pass_body{block_sh, sh, src, dst, out, tw, n, log2n, batch, tid, sign,
                                    tw_stride, live, scale, v};
    const int passes = log2n / P::log2_radix;
    if (fft_run_passes<NN, P::log2_radix>(passes, pass_body))
        return;
    fft_c2c_short_pass<P>(pass_body, v, 1 << (P::log2_radix * passes));
}

/* Let kernel take bytes of dynamic shared memory: the opt-in every launch
 * above the default 48 KB needs. */
static inline cudaError_t fft_allow_smem(const void *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* The shared path: threads per transform n/4 (at most 1024, at least 1),
 * and enough transforms per block for block_threads threads. Returns the
 * launch's cudaError_t. */
template <typename T>
static cudaError_t fft_c2c_launch_r4(const void *in, void *out, int n, int batch, const double2 *tw,
                                     int inverse, int block_threads, cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    int per = n / 4 < 1 ? 1 : n / 4;
    if (per > 1024)
        per = 1024;
    int ty = block_threads / per < 1 ? 1 : block_threads / per;
    const size_t smem = (size_t)ty * n * sizeof(C);
    const cudaError_t e = fft_allow_smem((const void *)fft_c2c_shared<T>, smem);
    if (e != cudaSuccess)
        return e;
    dim3 block(per, ty), grid((batch + ty - 1) / ty);
    fft_c2c_shared<T><<<grid, block, smem, stream>>>((const C *)in, (C *)out, n, batch, tw,
                                                     inverse ? 1 : -1);
    return cudaGetLastError();
}

/* The transforms a block of the register kernels holds: enough for TPB
 * threads (per: a transform's threads), at least one. */
static inline int fft_transforms_per_block(int per, int tpb) { return per >= tpb ? 1 : tpb / per; }

/* Launch kernel with smem bytes of dynamic shared memory (fft_allow_smem
 * first); the launch's error. */
template <typename K, typename... A>
static cudaError_t fft_launch(K kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                              A... args)
{
    const cudaError_t e = fft_allow_smem((const void *)kernel, smem);
    if (e != cudaSuccess)
        return e;
    kernel<<<grid, block, smem, stream>>>(args...);
    return cudaGetLastError();
}

/* go(std::integral_constant<int, n>) for a power of two n from LO to HI:
 * the size as a template argument, so that each size compiles its row's
 * kernel; an error for any other n. */
template <int LO, int HI, typename Go> static cudaError_t fft_with_size(int n, Go go)
{
    if constexpr (LO > HI) {
        return cudaErrorInvalidValue;
    } else {
        if (n == LO)
            return go(std::integral_constant<int, LO>{});
        return fft_with_size<2 * LO, HI>(n, go);
    }
}

/* ---- short transforms, one thread a transform (FFT_PATH_ONE_A_THREAD),
 * as fft_real_small: the block copies its transforms in and out through
 * shared memory in 16-byte vectors (fft_small_copy), each thread runs its
 * transform's N-point DFT in registers (dft_natural). No twiddle table.
 * ---- */
/* Reals of a thread's slice: its n complex and one more (an odd number of
 * complex words: a warp's accesses at one offset meet no bank twice). */
__host__ __device__ constexpr int fft_c2c_small_stride(int n) { return 2 * (n + 1); }

template <typename T, int N, int SIGN>
__global__ void __launch_bounds__(FFT_C2C_SMALL_THREADS)
fft_c2c_small(const typename cpx_of<T>::type *in, typename cpx_of<T>::type *out, int batch)
{
    typedef typename cpx_of<T>::type C;
    constexpr int S = fft_c2c_small_stride(N);
    extern __shared__ unsigned char smem_raw[];
    T *const stage = reinterpret_cast<T *>(smem_raw);
    const int t0 = blockIdx.x * blockDim.x, here = min((int)blockDim.x, batch - t0);
    const bool vec = fft_stage_aligned(in, out);
    fft_small_copy<true, 2 * N, S>(reinterpret_cast<T *>(const_cast<C *>(in)) + (size_t)t0 * 2 * N, stage,
                                   here * 2 * N, vec);
    __syncthreads();
    if ((int)threadIdx.x < here) {
        C *mine = reinterpret_cast<C *>(stage + threadIdx.x * S);
        C v[N];
#pragma unroll
        for (int i = 0; i < N; i++)
            v[i] = mine[i];
        dft_natural<N, C, T>(v, SIGN);
        const T scale = SIGN > 0 ? (T)1 / (T)N : (T)1;
#pragma unroll
        for (int i = 0; i < N; i++) {
            if (SIGN > 0) {
                v[i].x *= scale;
                v[i].y *= scale;
            }
            mine[i] = v[i];
        }
    }
    __syncthreads();
    fft_small_copy<false, 2 * N, S>(reinterpret_cast<T *>(out) + (size_t)t0 * 2 * N, stage, here * 2 * N,
                                    vec);
}

template <typename T, int N>
static cudaError_t fft_c2c_launch_small(const void *in, void *out, int batch, int inverse, int threads,
                                        cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    const size_t smem = (size_t)threads * fft_c2c_small_stride(N) * sizeof(T);
    dim3 block(threads), grid((batch + threads - 1) / threads);
    const C *i = (const C *)in;
    C *o = (C *)out;
    return inverse ? fft_launch(fft_c2c_small<T, N, 1>, grid, block, smem, stream, i, o, batch)
                   : fft_launch(fft_c2c_small<T, N, -1>, grid, block, smem, stream, i, o, batch);
}

/* The register kernel of plan P. */
template <typename P>
static cudaError_t fft_c2c_launch_plan(const void *in, void *out, int n, int batch, const void *tw,
                                       int inverse, cudaStream_t stream, int tw_stride)
{
    typedef typename P::C C;
    constexpr int R = P::radix;
    const int per = n / R, ty = fft_transforms_per_block(per, P::cfg.block_threads);
    /* n = R: one pass from global memory to global memory, no shared buffer */
    const size_t smem = n == R && !P::staged ? 0 : (size_t)ty * fft_padded_len(n, R) * sizeof(C);
    dim3 block(per, ty), grid((batch + ty - 1) / ty);
    return fft_launch(fft_c2c_radix<P>, grid, block, smem, stream, (const C *)in, (C *)out, n, batch,
                      (const C *)tw, inverse ? 1 : -1, tw_stride);
}

/* The register path at N: the row's kernel for the direction (one for
 * both where the row is for any N), unstaged where a staged row meets an
 * end off the 16-byte grid. */
template <typename T, int N>
static cudaError_t fft_c2c_launch_registers(const void *in, void *out, int n, int batch, const void *tw,
                                            int inverse, cudaStream_t stream, int tw_stride)
{
    const auto go = [&](auto aligned) {
        constexpr bool A = decltype(aligned)::value;
        if constexpr (fft_c2c_config_of<T>(N).any_n)
            return fft_c2c_launch_plan<fft_c2c_plan<T, N, 0, A>>(in, out, n, batch, tw, inverse, stream,
                                                                tw_stride);
        else if (inverse)
            return fft_c2c_launch_plan<fft_c2c_plan<T, N, 1, A>>(in, out, n, batch, tw, inverse, stream,
                                                                tw_stride);
        else
            return fft_c2c_launch_plan<fft_c2c_plan<T, N, -1, A>>(in, out, n, batch, tw, inverse, stream,
                                                                 tw_stride);
    };
    if constexpr (fft_c2c_config_of<T>(N).staged)
        if (!fft_stage_aligned(in, out))
            return go(std::false_type{});
    return go(std::true_type{});
}

/* The batched complex FFT of n points (a power of two, 4..4096): the
 * kernel fft_c2c_table gives for n in T's precision. tw_d: the table in
 * double (the shared path takes it), tw_t: the same in T's precision (the
 * register path; read at a stride of tw_stride). */
template <typename T>
static cudaError_t fft_c2c_launch(const void *in, void *out, int n, int batch, const double2 *tw_d,
                                  const void *tw_t, int inverse, cudaStream_t stream, int tw_stride = 1)
{
    return fft_with_size<4, 4096>(n, [&](auto n_tag) {
        constexpr int N = decltype(n_tag)::value;
        constexpr fft_c2c_config c = fft_c2c_config_of<T>(N);
        static_assert(c.path != 0, "every size has a row");
        if constexpr (c.path == FFT_PATH_SHARED)
            return fft_c2c_launch_r4<T>(in, out, n, batch, tw_d, inverse, c.block_threads, stream);
        else if constexpr (c.path == FFT_PATH_ONE_A_THREAD)
            return fft_c2c_launch_small<T, N>(in, out, batch, inverse, c.block_threads, stream);
        else
            return fft_c2c_launch_registers<T, N>(in, out, n, batch, tw_t, inverse, stream, tw_stride);
    });
}

#endif
