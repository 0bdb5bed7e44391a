/* Batched complex FFT on the GPU, power-of-two N up to 4096 (specs/
 * spectral.md), behind the backend's spec_run and the bench. N < 16: one
 * transform in shared memory, radix-4 butterflies (one radix-2 pass when
 * log2 N is odd), a barrier between reading a pass's inputs and writing
 * its outputs. N >= 16: the register kernels, 8 (fft_c2c_r8) or 16
 * (fft_c2c_r16) points a thread, radix-8 or radix-16 Stockham passes
 * through padded shared buffers (a shorter last pass), the first reading
 * global memory and the last writing it; the variants the bench compares
 * (register caps, twiddle loads, warp barriers, staged global access) and
 * the defaults per precision and N are at fft_c2c_launch. Small transforms
 * share a block.
 * Twiddles come from a table of e^{-2 pi j k / N} (long double on the host,
 * rounded once). Conventions as the CPU kernels: unnormalised forward,
 * inverse with 1/N. */
#ifndef ORRERY_CUDA_SPECTRAL_FFT_CUH
#define ORRERY_CUDA_SPECTRAL_FFT_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

template <typename T> struct cpx_of;
template <> struct cpx_of<double> { typedef double2 type; };
template <> struct cpx_of<float> { typedef float2 type; };

/* An n-point FFT in shared memory, in place in sh: radix 4
 * (one radix 2 last when log2 n is odd), Stockham order as the CPU
 * kernel, the threads of a transform cooperating with barriers. tw_step:
 * the table's points per n points. At most 4 radix-4 butterflies a
 * thread (threads >= n / 16). For small N, where the register kernels
 * have too few points a thread. */
template <typename T, typename C, typename W>
__device__ void shared_fft_passes(C *sh, int n, const W *tw, int tw_step, int sign, int tid,
                                  int threads)
{
    int s = 1, len = n;
    for (; len >= 4; len /= 4) {
        const int m = len / 4, tstep = tw_step * (n / len);
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
    shared_fft_passes<T, C, double2>(sh, n, tw, 1, sign, tid, threads);
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

/* ---- radix-16 passes with the data in registers ----
 * Each thread holds 16 points of a transform: a pass reads them (from
 * global memory in the first pass, shared memory after), runs a 16-point
 * DFT in registers (or two 8-, four 4- or eight 2-point ones in the last
 * pass when N is not a power of 16), multiplies by the pass's twiddles and
 * writes them back (to global memory in the last pass). N = 4096 takes
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

#ifndef FFT_MIN_BLOCKS
#define FFT_MIN_BLOCKS 2   /* H200, f64: 1 -> 0.58-0.74x cuFFT, 2 -> 0.63-0.80x, 3 -> 0.48-0.60x */
#endif

/* twiddle16's TW = 3: TW = 2's products row by row, w^(hi + lo) = w^hi
 * w^lo, few twiddles live at once: in the kernels of one size (NN) all
 * fifteen at once spilled at 64 registers, row by row none (in the others
 * the reverse). */
template <typename C, typename T>
__device__ __forceinline__ void twiddle16_rows(C *v, const C *tw, int base, int sign)
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

template <typename C, typename T, int TW>
__device__ __forceinline__ void twiddle16_products(C *v, const C *tw, int base, int sign);

/* The twiddles of one radix-16 butterfly, v[r] *= w^r (r = 1..15) with
 * w^r = tw[r * base] (conjugated for the inverse). TW selects how they are
 * got: 0 fifteen table loads (the baseline); 1 six loads (w, w^2, w^3,
 * w^4, w^8, w^12) and one product each for the rest; 2 two loads (w, w^4),
 * the rest by at most three products (a few ulp more error, far fewer
 * loads); 3 the same products as 2 in another order. */
template <typename C, typename T, int TW>
__device__ __forceinline__ void twiddle16(C *v, const C *tw, int base, int sign)
{
    if (TW == 0) {
#pragma unroll
        for (int r = 1; r < 16; r++) {
            const C w = tw[base * r];
            v[r] = cmul<C, T>(v[r], w.x, sign < 0 ? w.y : -w.y);
        }
    } else if (TW == 3) {
        twiddle16_rows<C, T>(v, tw, base, sign);
    } else {
        twiddle16_products<C, T, TW>(v, tw, base, sign);
    }
}

/* twiddle16's TW = 1, 2: a few loads, the rest by products. */
template <typename C, typename T, int TW>
__device__ __forceinline__ void twiddle16_products(C *v, const C *tw, int base, int sign)
{
    C w[16];
#pragma unroll
    for (int r = 1; r < 16; r++)
        if (r == 1 || r == 4 || (TW == 1 && (r == 2 || r == 3 || r == 8 || r == 12))) {
            w[r] = tw[base * r];
            if (sign > 0)
                w[r].y = -w[r].y;
        }
    if (TW != 1) {
        w[2] = cmul<C, T>(w[1], w[1].x, w[1].y);
        w[3] = cmul<C, T>(w[2], w[1].x, w[1].y);
        w[8] = cmul<C, T>(w[4], w[4].x, w[4].y);
        w[12] = cmul<C, T>(w[8], w[4].x, w[4].y);
    }
#pragma unroll
    for (int hi = 4; hi < 16; hi += 4)
#pragma unroll
        for (int lo = 1; lo < 4; lo++)
            w[hi + lo] = cmul<C, T>(w[hi], w[lo].x, w[lo].y);
#pragma unroll
    for (int r = 1; r < 16; r++)
        v[r] = cmul<C, T>(v[r], w[r].x, w[r].y);
}

/* The twiddles of one radix-8 butterfly, v[r] *= w^r (r = 1..7) with w^r =
 * tw[r * base] (conjugated for the inverse): two loads (w, w^4), the rest
 * by products, as twiddle16's TW = 2. */
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

/* The barrier between a pass's reads and writes: the block's, or only the
 * warp's when a transform's threads lie in one warp (WARP, n <= 512). */
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

/* STAGE (a variant): a block's transforms lie side by side in global
 * memory (blockDim.y n complex from transform blockIdx.x blockDim.y), so
 * the block can copy them to and from its shared buffers in 16-byte
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

/* tw: the twiddle table in the kernel's precision (rounded once from long
 * double): float2 for float, double2 for double. TW, MINB, WARP: the
 * variants (twiddle16, blocks an SM for __launch_bounds__, pass_barrier);
 * the defaults are the baseline kernel. */
template <typename T, int LAST_R, int TW = 0, int MINB = FFT_MIN_BLOCKS, bool WARP = false,
          bool STAGE = false, int NN = 0, int SIGN = 0>
__global__ void __launch_bounds__(256, MINB)
fft_c2c_r16(const typename cpx_of<T>::type *in, typename cpx_of<T>::type *out, int n_arg, int batch,
            const typename cpx_of<T>::type *tw, int sign_arg, int tw_stride)
{
    /* SIGN (with NN): the direction known when compiling, 0: sign_arg's */
    const int sign = SIGN ? SIGN : sign_arg;
    typedef typename cpx_of<T>::type C;
    extern __shared__ unsigned char smem_raw[];
    /* NN (a variant): the size known when compiling (see fft_real_radix) */
    const int n = NN ? NN : n_arg;
    C *const block_sh = reinterpret_cast<C *>(smem_raw);
    C *sh = block_sh + (size_t)threadIdx.y * (n + n / 16);
    const int t = blockIdx.x * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x;   /* n / 16 threads a transform */
    const bool live = t < batch;
    const C *src = in + (size_t)(live ? t : 0) * n;
    C *dst = out + (size_t)(live ? t : 0) * n;
    const T scale = sign > 0 ? (T)1 / (T)n : (T)1;
    const int log2n = NN ? ilog2_const(NN) : __ffs(n) - 1;
    C v[16];
    if (STAGE) {
        fft_stage_load<16>(in, block_sh, n, log2n, batch);
        __syncthreads();
    }
    /* radix-16 pass k: stride s = 16^k over len = n / s; true once the
     * transform is written */
    const auto pass_body = [&](int pass) -> bool {
        const int s = 1 << (4 * pass), len = n >> (4 * pass);
        const bool first = !STAGE && pass == 0;
        const int m = len / 16, tstep = n / len * tw_stride;
        const int p = tid >> (4 * pass), q = tid & (s - 1);
#pragma unroll
        for (int r = 0; r < 16; r++)
            v[r] = first ? (live ? src[q + s * (p + r * m)] : C()) : sh[fft_slot<16>(q + s * (p + r * m))];
        dft16<C, T>(v, sign);
        const bool last = len == 16;
        if (!(NN && last))   /* the last pass's twiddles are all 1 (p = 0); skipping
                                the multiplications spilled where n is a variable */
            twiddle16<C, T, TW>(v, tw, p * tstep, sign);
        if (!first)
            pass_barrier<WARP>();
        if (last && STAGE) {
#pragma unroll
            for (int r = 0; r < 16; r++)
                sh[fft_slot<16>(q + s * (16 * p + r))] = v[r];
            __syncthreads();
            fft_stage_store<16>(block_sh, out, n, log2n, batch, scale);
            return true;
        }
        if (last) {
            if (live) {
#pragma unroll
                for (int r = 0; r < 16; r++) {
                    C x = v[r];
                    /* the forward's scale is 1 (the branch spilled where n is a variable) */
                    if (!NN || sign > 0) {
                        x.x *= scale;
                        x.y *= scale;
                    }
                    dst[q + s * (16 * p + r)] = x;
                }
            }
            return true;
        }
#pragma unroll
        for (int r = 0; r < 16; r++)
            sh[fft_slot<16>(q + s * (16 * p + r))] = v[r];
        pass_barrier<WARP>();
        return false;
    };
    const int passes = log2n / 4;
    if (fft_run_passes<NN, 4>(passes, pass_body))
        return;
    const int s = 1 << (4 * passes);
    /* the last pass: len = LAST_R (2, 4 or 8), 16 / LAST_R butterflies a thread,
     * no twiddles (p = 0) */
#pragma unroll
    for (int g = 0; g < 16 / LAST_R; g++) {
        const int q = g * (n / 16) + tid;   /* neighbouring threads, neighbouring q */
#pragma unroll
        for (int r = 0; r < LAST_R; r++)
            v[g * LAST_R + r] = sh[fft_slot<16>(q + s * r)];
    }
    if (LAST_R == 4) {
#pragma unroll
        for (int g = 0; g < 4; g++)
            dft4<C, T>(v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3], sign);
    } else if (LAST_R == 2) {
#pragma unroll
        for (int g = 0; g < 8; g++)
            dft2<C, T>(v[2 * g], v[2 * g + 1]);
    } else if (LAST_R == 8) {
#pragma unroll
        for (int g = 0; g < 2; g++)
            dft8_natural<C, T>(v + 8 * g, sign);
    }
    if (STAGE) {
        fft_stage_last<16, LAST_R, WARP>(v, sh, block_sh, out, n, log2n, batch, s, scale);
        return;
    }
    if (live) {
#pragma unroll
        for (int g = 0; g < 16 / LAST_R; g++) {
            const int q = g * (n / 16) + tid;
#pragma unroll
            for (int r = 0; r < LAST_R; r++) {
                C x = v[g * LAST_R + r];
                if (!NN || sign > 0) {
                    x.x *= scale;
                    x.y *= scale;
                }
                dst[q + s * r] = x;
            }
        }
    }
}

/* Let kernel take bytes of dynamic shared memory: the opt-in every launch
 * above the default 48 KB needs. */
static inline cudaError_t fft_allow_smem(const void *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

/* Launch: threads per transform n/4 (at most 1024, at least 1), and enough
 * transforms per block for 256 threads. Returns the launch's cudaError_t. */
template <typename T>
static cudaError_t fft_c2c_launch_r4(const void *in, void *out, int n, int batch, const double2 *tw,
                                     int inverse, cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    int per = n / 4 < 1 ? 1 : n / 4;
    if (per > 1024)
        per = 1024;
    int ty = 256 / per < 1 ? 1 : 256 / per;
    const size_t smem = (size_t)ty * n * sizeof(C);
    const cudaError_t e = fft_allow_smem((const void *)fft_c2c_shared<T>, smem);
    if (e != cudaSuccess)
        return e;
    dim3 block(per, ty), grid((batch + ty - 1) / ty);
    fft_c2c_shared<T><<<grid, block, smem, stream>>>((const C *)in, (C *)out, n, batch, tw,
                                                     inverse ? 1 : -1);
    return cudaGetLastError();
}

/* ---- radix-8 passes (a variant): 8 points a thread, half the registers
 * of fft_c2c_r16 so more threads fit an SM, one more trip through shared
 * memory for some N. Same Stockham passes: pass inputs q + s (p + r m),
 * outputs q + s (8 p + r) times w_len^(p r); a last 2- or 4-point pass
 * when log2 N is not a multiple of 3. n / 8 threads a transform, blocks of
 * max(256, n / 8) threads. ---- */
template <typename T, int LAST_R, int MINB, bool WARP, bool STAGE = false, int NN = 0, int SIGN = 0>
__global__ void __launch_bounds__(512, MINB)
fft_c2c_r8(const typename cpx_of<T>::type *in, typename cpx_of<T>::type *out, int n_arg, int batch,
           const typename cpx_of<T>::type *tw, int sign_arg, int tw_stride)
{
    const int sign = SIGN ? SIGN : sign_arg;   /* SIGN: as fft_c2c_r16 */
    typedef typename cpx_of<T>::type C;
    extern __shared__ unsigned char smem_raw[];
    const int n = NN ? NN : n_arg;   /* NN: as fft_c2c_r16 */
    C *const block_sh = reinterpret_cast<C *>(smem_raw);
    C *sh = block_sh + (size_t)threadIdx.y * (n + n / 8);
    const int t = blockIdx.x * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x, threads = n / 8;
    const bool live = t < batch;
    const C *src = in + (size_t)(live ? t : 0) * n;
    C *dst = out + (size_t)(live ? t : 0) * n;
    const T scale = sign > 0 ? (T)1 / (T)n : (T)1;
    const int log2n = NN ? ilog2_const(NN) : __ffs(n) - 1;
    C v[8];
    if (STAGE) {
        fft_stage_load<8>(in, block_sh, n, log2n, batch);
        __syncthreads();
    }
    const auto pass_body = [&](int pass) -> bool {   /* as fft_c2c_r16's */
        const int s = 1 << (3 * pass), len = n >> (3 * pass);
        const bool first = !STAGE && pass == 0;
        const int m = len / 8, tstep = n / len * tw_stride;
        const int p = tid >> (3 * pass), q = tid & (s - 1);
#pragma unroll
        for (int r = 0; r < 8; r++)
            v[r] = first ? (live ? src[q + s * (p + r * m)] : C()) : sh[fft_slot<8>(q + s * (p + r * m))];
        dft8_natural<C, T>(v, sign);
        if (!(NN && len == 8))   /* as fft_c2c_r16 */
            twiddle8<C, T>(v, tw, p * tstep, sign);
        if (!first)
            pass_barrier<WARP>();
        if (len == 8 && STAGE) {
#pragma unroll
            for (int r = 0; r < 8; r++)
                sh[fft_slot<8>(q + s * r)] = v[r];
            __syncthreads();
            fft_stage_store<8>(block_sh, out, n, log2n, batch, scale);
            return true;
        }
        if (len == 8) {   /* the last pass (LAST_R == 1): p = 0, s = n / 8 */
            if (live) {
#pragma unroll
                for (int r = 0; r < 8; r++) {
                    C x = v[r];
                    /* the forward's scale is 1 (the branch spilled where n is a variable) */
                    if (!NN || sign > 0) {
                        x.x *= scale;
                        x.y *= scale;
                    }
                    dst[q + s * r] = x;
                }
            }
            return true;
        }
#pragma unroll
        for (int r = 0; r < 8; r++)
            sh[fft_slot<8>(q + s * (8 * p + r))] = v[r];
        pass_barrier<WARP>();
        return false;
    };
    const int passes = log2n / 3;
    if (fft_run_passes<NN, 3>(passes, pass_body))
        return;
    const int s = 1 << (3 * passes);
    /* the last pass: len = LAST_R (2 or 4), 8 / LAST_R butterflies a thread */
#pragma unroll
    for (int g = 0; g < 8 / LAST_R; g++) {
        const int q = g * threads + tid;
#pragma unroll
        for (int r = 0; r < LAST_R; r++)
            v[g * LAST_R + r] = sh[fft_slot<8>(q + s * r)];
    }
    if (LAST_R == 4) {
        dft4<C, T>(v[0], v[1], v[2], v[3], sign);
        dft4<C, T>(v[4], v[5], v[6], v[7], sign);
    } else {
#pragma unroll
        for (int g = 0; g < 4; g++)
            dft2<C, T>(v[2 * g], v[2 * g + 1]);
    }
    if (STAGE) {
        fft_stage_last<8, LAST_R, WARP>(v, sh, block_sh, out, n, log2n, batch, s, scale);
        return;
    }
    if (live) {
#pragma unroll
        for (int g = 0; g < 8 / LAST_R; g++) {
            const int q = g * threads + tid;
#pragma unroll
            for (int r = 0; r < LAST_R; r++) {
                C x = v[g * LAST_R + r];
                if (!NN || sign > 0) {
                    x.x *= scale;
                    x.y *= scale;
                }
                dst[q + s * r] = x;
            }
        }
    }
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

/* go(std::true_type) where WARP_SYNC and warp (a transform's threads in
 * one warp: warp barriers), else go(std::false_type); the warp kernels
 * are compiled only for WARP_SYNC variants. */
template <bool WARP_SYNC, typename Go> static cudaError_t fft_with_barrier(bool warp, Go go)
{
    if constexpr (WARP_SYNC) {
        if (warp)
            return go(std::true_type{});
    }
    return go(std::false_type{});
}

/* Every size: fft_with_size's default. */
struct fft_all_sizes {
    static constexpr bool has(int) { return true; }
};

/* go(std::integral_constant<int, n>) for a power of two n from LO to HI
 * that Sizes::has(n): the size as a template argument (the FIXED variants
 * compile one kernel per size, and only the sizes the app runs them at);
 * an error for any other n. */
template <int LO, int HI, typename Sizes = fft_all_sizes, typename Go>
static cudaError_t fft_with_size(int n, Go go)
{
    if constexpr (LO > HI) {
        return cudaErrorInvalidValue;
    } else {
        if constexpr (Sizes::has(LO))
            if (n == LO)
                return go(std::integral_constant<int, LO>{});
        return fft_with_size<2 * LO, HI, Sizes>(n, go);
    }
}

/* What a launcher compiles, given Defaults (at(n): the default variant at
 * size n, for the powers of two n from lo to hi): every variant at every
 * size in a file that defines FFT_ALL_VARIANTS (the bench, the device
 * check), else only the defaults, the app asking for no other. has: the
 * variants (fft_with_variant's Compiled); sizes<V>::has: the sizes a
 * FIXED variant V compiles (fft_with_size's Sizes). */
#ifdef FFT_ALL_VARIANTS
static constexpr bool fft_compile_all = true;
#else
static constexpr bool fft_compile_all = false;
#endif
template <typename Defaults> struct fft_compiled {
    static constexpr bool at_size(int variant, int n) { return fft_compile_all || Defaults::at(n) == variant; }
    static constexpr bool has(int variant)
    {
        for (int n = Defaults::lo; n <= Defaults::hi; n *= 2)
            if (at_size(variant, n))
                return true;
        return false;
    }
    template <int V> struct sizes {
        static constexpr bool has(int n) { return at_size(V, n); }
    };
};

/* go(std::integral_constant<int, V>) for V == variant, 0 <= V < COUNT:
 * the variant as a template argument. Only the V that Compiled::has(V)
 * admits are compiled (every one in a file that defines FFT_ALL_VARIANTS,
 * the defaults elsewhere); an error for any other variant. */
template <int COUNT, typename Compiled, int V = 0, typename Go>
static cudaError_t fft_with_variant(int variant, Go go)
{
    if constexpr (V == COUNT) {
        return cudaErrorInvalidValue;
    } else {
        if constexpr (Compiled::has(V))
            if (variant == V)
                return go(std::integral_constant<int, V>{});
        return fft_with_variant<COUNT, Compiled, V + 1>(variant, go);
    }
}

/* One register-kernel variant of radix R (8: fft_c2c_r8, 16: fft_c2c_r16;
 * TW, twiddle16's, for R = 16 only), n >= 16: warp barriers where
 * WARP_SYNC and a transform's threads fit one warp, blocks of about TPB
 * threads; FIXED: one kernel per n, the size and the direction compiled
 * in (else the kernels for any n, which FIXED does not compile). */
template <typename T, typename Sizes, int R, int TW, int MINB, bool WARP_SYNC, bool STAGE = false,
          int TPB = 256, bool FIXED = false>
static cudaError_t fft_c2c_launch_radix(const void *in, void *out, int n, int batch, const void *tw_t,
                                        int inverse, cudaStream_t stream, int tw_stride = 1)
{
    static_assert(R == 8 || R == 16, "radix 8 or 16");
    typedef typename cpx_of<T>::type C;
    constexpr int LOG2R = R == 16 ? 4 : 3;
    if (STAGE && !fft_stage_aligned(in, out))
        return fft_c2c_launch_radix<T, Sizes, R, TW, MINB, WARP_SYNC, false, TPB, FIXED>(
            in, out, n, batch, tw_t, inverse, stream, tw_stride);
    const C *tw = (const C *)tw_t;
    int log2n = 0;
    while ((1 << log2n) < n)
        log2n++;
    const int last = 1 << (log2n % LOG2R);   /* the last pass's radix: 1 (a power of R) to R / 2 */
    const int per = n / R, ty = fft_transforms_per_block(per, TPB);
    const bool warp = WARP_SYNC && per <= 32;
    /* n = R: one pass from global memory to global memory, no shared buffer */
    const size_t smem = n == R && !STAGE ? 0 : (size_t)ty * fft_padded_len(n, R) * sizeof(C);
    dim3 block(per, ty), grid((batch + ty - 1) / ty);
    const int sign = inverse ? 1 : -1;
    const C *i = (const C *)in;
    C *o = (C *)out;
    /* the kernel of last-pass radix LR, warp barriers W, size NN and
     * direction SG (0, 0: the size and the direction from the arguments) */
    const auto launch = [&](auto lr, auto w, auto nn, auto sg) {
        constexpr int LR = decltype(lr)::value, NN = decltype(nn)::value, SG = decltype(sg)::value;
        constexpr bool W = decltype(w)::value;
        if constexpr (R == 16)
            return fft_launch(fft_c2c_r16<T, LR, TW, MINB, W, STAGE, NN, SG>, grid, block, smem, stream,
                              i, o, n, batch, tw, sign, tw_stride);
        else
            return fft_launch(fft_c2c_r8<T, LR, MINB, W, STAGE, NN, SG>, grid, block, smem, stream, i,
                              o, n, batch, tw, sign, tw_stride);
    };
    typedef std::integral_constant<int, 0> from_arguments;
    if constexpr (FIXED) {
        return fft_with_size<16, 4096, Sizes>(n, [&](auto n_tag) {
            constexpr int NN = decltype(n_tag)::value, LR = 1 << (ilog2_const(NN) % (R == 16 ? 4 : 3));
            const std::integral_constant<int, LR> lr;
            const std::bool_constant<WARP_SYNC && NN / R <= 32> w;
            return inverse ? launch(lr, w, n_tag, std::integral_constant<int, 1>{})
                           : launch(lr, w, n_tag, std::integral_constant<int, -1>{});
        });
    } else {
        return fft_with_barrier<WARP_SYNC>(warp, [&](auto w) {
            return fft_with_size<1, R / 2>(
                last, [&](auto lr) { return launch(lr, w, from_arguments{}, from_arguments{}); });
        });
    }
}

/* ---- short transforms, one thread a transform (a variant for n up to
 * FFT_C2C_SMALL_MAX_N), as fft_real_small: the block copies its transforms
 * in and out through shared memory in 16-byte vectors (fft_small_copy),
 * each thread runs its transform's n-point DFT in registers (dft_natural).
 * No twiddle table. ---- */
#define FFT_C2C_SMALL_THREADS 64
#define FFT_C2C_SMALL_MAX_N 32
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

template <typename T, typename Sizes = fft_all_sizes>
static cudaError_t fft_c2c_launch_small(const void *in, void *out, int n, int batch, int inverse,
                                        cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    const int threads = FFT_C2C_SMALL_THREADS;
    const size_t smem = (size_t)threads * fft_c2c_small_stride(n) * sizeof(T);
    dim3 block(threads), grid((batch + threads - 1) / threads);
    const C *i = (const C *)in;
    C *o = (C *)out;
    return fft_with_size<16, FFT_C2C_SMALL_MAX_N, Sizes>(n, [&](auto n_tag) {   /* (n >= 16 here) */
        constexpr int NN = decltype(n_tag)::value;
        return inverse ? fft_launch(fft_c2c_small<T, NN, 1>, grid, block, smem, stream, i, o, batch)
                       : fft_launch(fft_c2c_small<T, NN, -1>, grid, block, smem, stream, i, o, batch);
    });
}

/* The C2C variants the bench compares (FFT_C2C_VARIANTS of them). The
 * defaults, per precision and length, ran fastest side by side on an H200
 * (bench/RESULTS.md, 2026-11-23, sixth session), all with the size
 * compiled in (NN: one kernel per N, every pass unrolled, shared-memory
 * and global offsets constants off one base, the direction a constant,
 * no twiddles or scaling where they are 1; Nsight Compute, f32 N = 1024:
 * 13.3 M instructions -> 10.3 M, cuFFT 7.4 M): at N = 16 radix 8 with
 * staged global access (16, as 8: a 16-point transform's two threads
 * otherwise read half sectors) in double, one thread a transform
 * (FFT_C2C_SMALL_VARIANT) in single (seventh session: 24.8 us against
 * 16's 25.8; in double 45.4 against 42.2, 108 registers a thread); radix
 * 8 in 64-thread blocks (15, as 13)
 * below N = 128 in single precision and below N = 2048 in double; radix
 * 16 with two twiddle loads, one transform a block at 4 blocks an SM in
 * single and 2 in double (14, as 12) above, and from N = 2048 in single
 * at 3 blocks an SM (17: 80 registers; eighth session, N = 4096: 24.7 us
 * against 27.2, 1.13x cuFFT against 1.03x, 76% of copy; level at 2048,
 * behind below); at N = 32 in single the same kernel for any size (13:
 * 22.5 us, 86% of copy, against 15's 24.6; every radix-8 kernel for any
 * size ran 22.5-23.3, every size-compiled one 24.2-24.6). The history of
 * the others:
 * Nsight Compute showed the 3-block radix-16 build (4) register-bound at
 * 78 registers and 33% occupancy where cuFFT runs 56 registers at 49% in
 * 64-thread blocks of one transform; 4 blocks an SM (11) took f32 N =
 * 1024 from 0.79x to 0.82-0.86x cuFFT, one transform a block (12: a block
 * barrier waits for one transform's warps only) to 0.88-0.93x; 12 at 5
 * blocks an SM (51 registers) spilled and ran at 0.69-0.79x. For f64
 * variant 11 is variant 3 again. Variants 7-10 are 6, 5, 4 and 3 with
 * staged global memory access (STAGE); from N = 64 up the extra trip
 * through shared memory costs more than the wider loads gain (0.7-0.9x of
 * the unstaged). Only a file that defines FFT_ALL_VARIANTS (the bench, the
 * device check) compiles them all; elsewhere the launcher compiles and
 * runs the defaults whatever variant is asked, which keeps the app's build
 * time and size down. */
#define FFT_C2C_VARIANTS 18
/* Up to FFT_C2C_SMALL_MAX_N one more: fft_c2c_small, one thread a transform. */
#define FFT_C2C_SMALL_VARIANT FFT_C2C_VARIANTS
#define FFT_C2C_MIN_REGISTER_N 16   /* below: the radix-4 shared kernel */
#define FFT_C2C_STAGED_N 32   /* below: the staged default */
#define FFT_C2C_SHORT_N 128   /* below: the short default */
#define FFT_C2C_LONG_N 2048   /* from here: the long default */
template <typename T> constexpr int fft_c2c_default_variant(int n)
{
    if (n < FFT_C2C_STAGED_N)   /* N = 16: one thread a transform in single precision */
        return sizeof(T) == sizeof(float) ? FFT_C2C_SMALL_VARIANT : 16;
    if (sizeof(T) == sizeof(float) && n >= FFT_C2C_LONG_N)
        return 17;   /* 3 blocks an SM: 80 registers */
    if (sizeof(T) == sizeof(float) && n == FFT_C2C_STAGED_N)
        return 13;   /* N = 32: the size compiled in ran 9% slower (eighth session) */
    return n < (sizeof(T) == sizeof(double) ? FFT_C2C_LONG_N : FFT_C2C_SHORT_N) ? 15 : 14;
}
/* The variants and sizes the C2C launchers compile (fft_compiled). */
template <typename T> struct fft_c2c_defaults {
    static constexpr int lo = FFT_C2C_MIN_REGISTER_N, hi = 4096;
    static constexpr int at(int n) { return fft_c2c_default_variant<T>(n); }
};
template <typename T> using fft_c2c_compiled = fft_compiled<fft_c2c_defaults<T>>;
static inline const char *fft_c2c_variant_name(int variant)
{
    switch (variant) {
    case 0: return "r16 15 tw loads";
    case 1: return "r16 6 tw loads";
    case 2: return "r16 2 tw loads";
    case 3: return "r16 2 tw, warp sync";
    case 4: return "r16 2 tw, warp, f32 3 / f64 1 blk";
    case 5: return "r8, warp, 64 regs";
    case 6: return "r8, warp, 128 regs";
    case 7: return "r8, 128 regs, staged";
    case 8: return "r8, 64 regs, staged";
    case 9: return "r16 f32 3 / f64 1 blk, staged";
    case 10: return "r16 2 tw, warp, staged";
    case 11: return "r16 2 tw, warp, f32 4 / f64 2 blk";
    case 12: return "as 11, one transform a block";
    case 13: return "as 5, 64-thread blocks";
    case 14: return "as 12, size compiled in";
    case 15: return "as 13, size compiled in";
    case 16: return "as 8, size compiled in";
    case 17: return "as 14, f32 3 / f64 1 blk";
    default: return "?";
    }
}

/* Variant V of the register kernels (n >= FFT_C2C_MIN_REGISTER_N). */
template <typename T, int V>
static cudaError_t fft_c2c_launch_variant(const void *in, void *out, int n, int batch, const void *tw_t,
                                          int inverse, cudaStream_t stream, int tw_stride = 1)
{
    /* f32 has registers to spare at 2 blocks an SM, f64 runs short at 2 */
    constexpr int f32 = sizeof(T) == 4, minb3 = f32 ? 3 : 1, minb4 = f32 ? 4 : 2;
    constexpr int base = FFT_MIN_BLOCKS;
#define ORR_VARIANT(num, ...)                                                                     \
    if constexpr (V == num)                                                                       \
        return fft_c2c_launch_radix<T, typename fft_c2c_compiled<T>::template sizes<V>, __VA_ARGS__>(       \
            in, out, n, batch, tw_t, inverse, stream, tw_stride);
    /* V, then fft_c2c_launch_radix's template arguments after T and the
     * sizes: R, TW (radix 16 only), MINB, WARP_SYNC, STAGE, TPB, FIXED */
    ORR_VARIANT(1, 16, 1, base, false)
    ORR_VARIANT(2, 16, 2, base, false)
    ORR_VARIANT(3, 16, 2, base, true)
    ORR_VARIANT(4, 16, 2, minb3, true)
    ORR_VARIANT(5, 8, 0, 2, true)
    ORR_VARIANT(6, 8, 0, 1, true)
    ORR_VARIANT(7, 8, 0, 1, true, true)
    ORR_VARIANT(8, 8, 0, 2, true, true)
    ORR_VARIANT(9, 16, 2, minb3, true, true)
    ORR_VARIANT(10, 16, 2, base, true, true)
    ORR_VARIANT(11, 16, 2, minb4, true)
    ORR_VARIANT(12, 16, 2, minb4, true, false, 64)
    ORR_VARIANT(13, 8, 0, 2, true, false, 64)
    ORR_VARIANT(14, 16, 3, minb4, true, false, 64, true)
    ORR_VARIANT(15, 8, 0, 2, true, false, 64, true)
    ORR_VARIANT(16, 8, 0, 2, true, true, 256, true)
    ORR_VARIANT(17, 16, 3, minb3, true, false, 64, true)
    ORR_VARIANT(0, 16, 0, base, false)
#undef ORR_VARIANT
    static_assert(V >= 0 && V < FFT_C2C_VARIANTS, "C2C variants are 0 .. FFT_C2C_VARIANTS - 1");
    return cudaErrorInvalidValue;
}

/* The batched complex FFT: the radix-4 shared kernel for n < FFT_C2C_MIN_REGISTER_N,
 * else the register kernel of the variant (-1: the default) or, up to
 * FFT_C2C_SMALL_MAX_N, fft_c2c_small. At n = 16 the radix-8 variants (two
 * threads a transform) ran at 0.86x cuFFT in f64 against 0.58x for the
 * shared kernel; the radix-16 ones, one thread a transform reading its
 * own points from global memory, at 0.5x (fft_c2c_small, one thread a
 * transform with the block's copies in 16-byte vectors, at 0.90-1.05x).
 * tw_d: the table in double (the radix-4 kernel takes
 * it), tw_t: the same in the kernel's precision. */
template <typename T>
static cudaError_t fft_c2c_launch(const void *in, void *out, int n, int batch, const double2 *tw_d,
                                  const void *tw_t, int inverse, cudaStream_t stream, int variant = -1,
                                  int tw_stride = 1)
{
    if (n < FFT_C2C_MIN_REGISTER_N)
        return fft_c2c_launch_r4<T>(in, out, n, batch, tw_d, inverse, stream);
#ifndef FFT_ALL_VARIANTS
    variant = -1;   /* only the defaults are compiled (fft_c2c_compiled) */
#endif
    if (variant < 0)
        variant = fft_c2c_default_variant<T>(n);
    if (variant == FFT_C2C_SMALL_VARIANT) {
        if constexpr (fft_c2c_compiled<T>::has(FFT_C2C_SMALL_VARIANT))
            if (n <= FFT_C2C_SMALL_MAX_N)
                return fft_c2c_launch_small<T, typename fft_c2c_compiled<T>::template sizes<FFT_C2C_SMALL_VARIANT>>(
                    in, out, n, batch, inverse, stream);
        return cudaErrorInvalidValue;
    }
    return fft_with_variant<FFT_C2C_VARIANTS, fft_c2c_compiled<T>>(variant, [&](auto v_tag) {
        return fft_c2c_launch_variant<T, decltype(v_tag)::value>(in, out, n, batch, tw_t, inverse,
                                                                 stream, tw_stride);
    });
}

#endif
