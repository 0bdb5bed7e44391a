/* Real FFT (R2C, C2R), DCT-II/III and DHT on the GPU, power-of-two N from
 * 4 to 4096, each one kernel: the N/2-point complex FFT of spectral_fft.cuh
 * with the pre-processing fused into its first load (from global memory)
 * and the post-processing into its last store (through shared memory, so
 * the one global write is coalesced). Formulas and conventions as the CPU
 * kernels (common/spectral/fft_generic.h): C2R carries 1/N, DCT-III is
 * (N/2) times the DCT-II's inverse, DHT = Re - Im of the real FFT. */
#ifndef ORRERY_CUDA_SPECTRAL_REAL_CUH
#define ORRERY_CUDA_SPECTRAL_REAL_CUH

#include "spectral_fft.cuh"

/* The kinds (same numbers as kernels.h's ORR_CUDA_R2C ...). */
enum { RK_R2C = 1, RK_C2R = 2, RK_DCT2 = 3, RK_DCT3 = 4, RK_DHT = 5 };

/* Direction of the inner h-point complex FFT: the inverse kinds run it
 * with +1 (unscaled; the store scales). */
__host__ __device__ constexpr int real_kind_sign(int kind)
{
    return kind == RK_C2R || kind == RK_DCT3 ? 1 : -1;
}

/* z_i, i < h = N/2: the input of the inner complex FFT, computed from one
 * transform's input src (reals, or complex for C2R). tw: e^{-2 pi j k / N}
 * (k < N), qt: e^{-j pi k / (2N)} (k < N), as W (double2 or float2). */
template <int KIND, typename T, typename C, typename W>
__host__ __device__ __forceinline__ C real_load_z(const T *src, int i, int h, const W *tw, const W *qt)
{
    const int n = 2 * h;
    C z;
    if (KIND == RK_R2C || KIND == RK_DHT) {
        /* z_i = x_{2i} + j x_{2i+1} */
        z = reinterpret_cast<const C *>(src)[i];
    } else if (KIND == RK_DCT2) {
        /* v_k = x_{2k}, v_{N-1-k} = x_{2k+1} (k < N/2); z_i = v_{2i} + j v_{2i+1} */
        if (i < n / 4) {
            z.x = src[4 * i];
            z.y = src[4 * i + 2];
        } else {
            z.x = src[2 * n - 4 * i - 1];
            z.y = src[2 * n - 4 * i - 3];
        }
    } else {
        /* C2R (and DCT-III through its spectrum): Y_k, Y_{h-k} ->
         * E_k = (Y_k + conj Y_{h-k}) / 2, O_k = W^{-k} (Y_k - conj Y_{h-k}) / 2,
         * z_k = E_k + j O_k */
        C a, b;
        if (KIND == RK_C2R) {
            const C *y = reinterpret_cast<const C *>(src);
            a = y[i];
            b = y[h - i];
        } else {
            /* DCT-III: Y_k = e^{+j pi k/(2N)} (y_k - j y_{N-k}), y_N = 0, for k = i and h - i */
            const int k2 = h - i;
            const T a0 = src[i], b0 = i == 0 ? (T)0 : src[n - i];
            const T a1 = src[k2], b1 = src[n - k2];   /* k2 >= 1 */
            const T cr0 = (T)qt[i].x, ci0 = (T)-qt[i].y, cr1 = (T)qt[k2].x, ci1 = (T)-qt[k2].y;
            a.x = a0 * cr0 + b0 * ci0;
            a.y = a0 * ci0 - b0 * cr0;
            b.x = a1 * cr1 + b1 * ci1;
            b.y = a1 * ci1 - b1 * cr1;
        }
        const T er = (T)0.5 * (a.x + b.x), ei = (T)0.5 * (a.y - b.y);
        const T dr = (T)0.5 * (a.x - b.x), di = (T)0.5 * (a.y + b.y);
        const T wr = (T)tw[i].x, wi = (T)-tw[i].y;   /* W^{-k} */
        const T or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
        z.x = er - oi;
        z.y = ei + or_;
    }
    return z;
}

/* Y_k, 0 <= k <= h, of the real FFT from the inner FFT's Z (natural order,
 * in shared memory): Y_k = E_k + W^k O_k. */
/* Where z keeps point i: padded as fft_slot<PAD> (PAD 0: unpadded). */
template <int PAD> __host__ __device__ __forceinline__ int real_slot(int i)
{
    return PAD ? i + i / PAD : i;
}

template <typename T, typename C, typename W, int PAD = 0>
__host__ __device__ __forceinline__ C real_spectrum(const C *z, int k, int h, const W *tw)
{
    /* Z_{k mod h}, Z_{(h-k) mod h} */
    const C a = z[real_slot<PAD>(k < h ? k : k - h)], b = z[real_slot<PAD>(k == 0 ? 0 : h - k)];
    const T er = (T)0.5 * (a.x + b.x), ei = (T)0.5 * (a.y - b.y);
    const T or_ = (T)0.5 * (a.y + b.y), oi = (T)-0.5 * (a.x - b.x);
    C y;
    if (k == h) {   /* W^h = -1 exactly */
        y.x = er - or_;
        y.y = ei - oi;
    } else {
        const T wr = (T)tw[k].x, wi = (T)tw[k].y;
        y.x = er + (or_ * wr - oi * wi);
        y.y = ei + (or_ * wi + oi * wr);
    }
    return y;
}

/* The store: z (shared, h points, natural order, unscaled, slots as
 * real_slot<PAD>) -> one transform's output dst; threads tid, tid +
 * threads, ... of it. */
template <int KIND, typename T, typename C, typename W, int PAD = 0>
__host__ __device__ __forceinline__ void real_store(const C *z, T *dst, int h, const W *tw, const W *qt,
                                           int tid, int threads)
{
    const int n = 2 * h;
    if (KIND == RK_R2C) {
        C *y = reinterpret_cast<C *>(dst);
        for (int k = tid; k <= h; k += threads)
            y[k] = real_spectrum<T, C, W, PAD>(z, k, h, tw);
    } else if (KIND == RK_DHT) {
        /* h_k = Re Y_k - Im Y_k; k > h: Y_k = conj Y_{N-k} */
        for (int k = tid; k < n; k += threads) {
            const C y = real_spectrum<T, C, W, PAD>(z, k <= h ? k : n - k, h, tw);
            dst[k] = k <= h ? y.x - y.y : y.x + y.y;
        }
    } else if (KIND == RK_DCT2) {
        /* out_k = Re(e^{-j pi k/(2N)} Y_k); k > h: Y_k = conj Y_{N-k} */
        for (int k = tid; k < n; k += threads) {
            const C y = real_spectrum<T, C, W, PAD>(z, k <= h ? k : n - k, h, tw);
            const T yi = k <= h ? y.y : -y.y;
            dst[k] = y.x * (T)qt[k].x - yi * (T)qt[k].y;
        }
    } else if (KIND == RK_C2R) {
        /* x_{2i} + j x_{2i+1} = z_i / h */
        const T scale = (T)1 / (T)h;
        C *x = reinterpret_cast<C *>(dst);
        for (int i = tid; i < h; i += threads) {
            C v = z[real_slot<PAD>(i)];
            v.x *= scale;
            v.y *= scale;
            x[i] = v;
        }
    } else {
        /* DCT-III: v = z / h (reals v_{2i} + j v_{2i+1} = z_i), out_{2k} = v_k (N/2),
         * out_{2k+1} = v_{N-1-k} (N/2): the scales cancel exactly (powers of two) */
        const T *v = reinterpret_cast<const T *>(z);
        for (int j = tid; j < n; j += threads) {
            const int r = (j & 1) ? n - 1 - (j >> 1) : j >> 1;   /* real r: point r / 2 */
            dst[j] = v[2 * real_slot<PAD>(r >> 1) + (r & 1)];
        }
    }
}

/* Reals (or complex for C2R's input, R2C's output) one transform reads and writes. */
__host__ __device__ constexpr int real_in_reals(int kind, int n)
{
    return kind == RK_C2R ? n + 2 : n;
}
__host__ __device__ constexpr int real_out_reals(int kind, int n)
{
    return kind == RK_R2C ? n + 2 : n;
}

/* ---- the simple path (h < FFT_REAL_MIN_REGISTER_H): the h-point FFT in shared
 * memory (shared_fft_passes of spectral_fft.cuh). ---- */

/* blockDim.x threads a transform, blockDim.y transforms a block; shared:
 * blockDim.y * h complex. tw, qt for N points as double2. */
template <typename T, int KIND>
__global__ void fft_real_shared(const T *in, T *out, int n, int batch, const double2 *tw,
                                const double2 *qt)
{
    typedef typename cpx_of<T>::type C;
    extern __shared__ unsigned char smem_raw[];
    const int h = n / 2;
    C *sh = reinterpret_cast<C *>(smem_raw) + (size_t)threadIdx.y * h;
    const int t = blockIdx.x * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x, threads = blockDim.x;
    const bool live = t < batch;
    const T *src = in + (size_t)(live ? t : 0) * real_in_reals(KIND, n);
    T *dst = out + (size_t)(live ? t : 0) * real_out_reals(KIND, n);
    for (int i = tid; i < h; i += threads) {
        C z;
        z.x = z.y = (T)0;
        if (live)
            z = real_load_z<KIND, T, C, double2>(src, i, h, tw, qt);
        sh[i] = z;
    }
    __syncthreads();
    shared_fft_passes<T, C, double2>(sh, h, tw, 2, real_kind_sign(KIND), tid, threads);
    if (live)
        real_store<KIND, T, C, double2>(sh, dst, h, tw, qt, tid, threads);
}

/* ---- the register path (h >= FFT_REAL_MIN_REGISTER_H): radix-R passes as fft_c2c_r16 (R = 16)
 * or fft_c2c_r8 (R = 8, a variant) ---- */

/* h / R threads a transform; shared: blockDim.y * h complex. tw, qt for N
 * points in the kernel's precision (W = C). TW, WARP: the variants of
 * fft_c2c_r16 (twiddle16 for R = 16, pass_barrier; WARP only where a
 * transform's threads lie in one warp); MINB: blocks an SM. */
template <typename T, int KIND, int R, int LAST_R, int TW = 0, bool WARP = false,
          int MINB = FFT_MIN_BLOCKS>
__global__ void __launch_bounds__(256, MINB)
fft_real_radix(const T *in, T *out, int n, int batch, const typename cpx_of<T>::type *tw,
               const typename cpx_of<T>::type *qt)
{
    static_assert(R == 8 || R == 16, "radix 8 or 16");
    static_assert(LAST_R < R, "the last pass is smaller than R");
    typedef typename cpx_of<T>::type C;
    extern __shared__ unsigned char smem_raw[];
    const int h = n / 2;
    C *sh = reinterpret_cast<C *>(smem_raw) + (size_t)threadIdx.y * (h + h / R);
    const int t = blockIdx.x * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x, threads = h / R;
    const bool live = t < batch;
    const T *src = in + (size_t)(live ? t : 0) * real_in_reals(KIND, n);
    T *dst = out + (size_t)(live ? t : 0) * real_out_reals(KIND, n);
    const int sign = real_kind_sign(KIND);
    C v[R];
    int s = 1, len = h;
    for (bool first = true; len >= R && (len > R || LAST_R == 1); first = false) {
        const int m = len / R, tstep = n / len;   /* the table has n = 2h points */
        const int p = tid / s, q = tid % s;
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int i = q + s * (p + r * m);
            if (first) {
                C z;
                z.x = z.y = (T)0;
                if (live)
                    z = real_load_z<KIND, T, C, C>(src, i, h, tw, qt);
                v[r] = z;
            } else {
                v[r] = sh[fft_slot<R>(i)];
            }
        }
        if constexpr (R == 16) {
            dft16<C, T>(v, sign);
            twiddle16<C, T, TW>(v, tw, p * tstep, sign);
        } else {
            dft8_natural<C, T>(v, sign);
            twiddle8<C, T>(v, tw, p * tstep, sign);
        }
        if (!first)
            pass_barrier<WARP>();
#pragma unroll
        for (int r = 0; r < R; r++)
            sh[fft_slot<R>(q + s * (R * p + r))] = v[r];
        pass_barrier<WARP>();
        len = m;
        s *= R;
    }
    if constexpr (LAST_R != 1) {
        /* the last pass: len = LAST_R (2, 4 or 8), R / LAST_R butterflies a
         * thread, no twiddles */
#pragma unroll
        for (int g = 0; g < R / LAST_R; g++) {
            const int q = g * threads + tid;
#pragma unroll
            for (int r = 0; r < LAST_R; r++)
                v[g * LAST_R + r] = sh[fft_slot<R>(q + s * r)];
        }
        if constexpr (LAST_R == 4) {
#pragma unroll
            for (int g = 0; g < R / 4; g++)
                dft4<C, T>(v[4 * g], v[4 * g + 1], v[4 * g + 2], v[4 * g + 3], sign);
        } else if constexpr (LAST_R == 2) {
#pragma unroll
            for (int g = 0; g < R / 2; g++)
                dft2<C, T>(v[2 * g], v[2 * g + 1]);
        } else {
#pragma unroll
            for (int g = 0; g < R / 8; g++)
                dft8_natural<C, T>(v + 8 * g, sign);
        }
        pass_barrier<WARP>();
#pragma unroll
        for (int g = 0; g < R / LAST_R; g++) {
            const int q = g * threads + tid;
#pragma unroll
            for (int r = 0; r < LAST_R; r++)
                sh[fft_slot<R>(q + s * r)] = v[g * LAST_R + r];
        }
        pass_barrier<WARP>();
    }
    if (live)
        real_store<KIND, T, C, C, R>(sh, dst, h, tw, qt, tid, threads);
}

/* One register-path variant of a real kind: radix R, twiddles TW, MINB
 * blocks an SM; warp barriers where a transform's threads fit a warp;
 * blocks of about TPB threads. */
template <typename T, int KIND, int R, int TW, int MINB, bool WARP_SYNC, int TPB = 256>
static cudaError_t fft_real_launch_radix(const T *in, T *out, int n, int batch, const void *tw_t,
                                         const void *qt_t, cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    const int h = n / 2;
    int log2h = 0;
    while ((1 << log2h) < h)
        log2h++;
    const int last = 1 << (log2h % (R == 16 ? 4 : 3));
    const int per = h / R, ty = fft_transforms_per_block(per, TPB);
    const size_t smem = (size_t)ty * fft_padded_len(h, R) * sizeof(C);
    dim3 block(per, ty), grid((batch + ty - 1) / ty);
    const C *tw = (const C *)tw_t, *qt = (const C *)qt_t;
    constexpr int longest_last = R == 16 ? 8 : 4;
    return fft_with_barrier<WARP_SYNC>(per <= 32, [&](auto warp_tag) {
        constexpr bool W = decltype(warp_tag)::value;
        const auto launch = [&](auto kernel) {
            return fft_launch(kernel, grid, block, smem, stream, in, out, n, batch, tw, qt);
        };
        switch (last) {
        case 1: return launch(fft_real_radix<T, KIND, R, 1, TW, W, MINB>);
        case 2: return launch(fft_real_radix<T, KIND, R, 2, TW, W, MINB>);
        case 4: return launch(fft_real_radix<T, KIND, R, 4, TW, W, MINB>);
        default: return launch(fft_real_radix<T, KIND, R, longest_last, TW, W, MINB>);
        }
    });
}

/* Launch one real kind: the shared path for h < FFT_REAL_MIN_REGISTER_H, else the register
 * path of the variant: 0 the baseline radix-16 passes, 1 radix 16 with two
 * twiddle loads and warp barriers (fft_c2c_launch's variant 3), 2 radix 8
 * with 64 registers and warp barriers (its variant 5), 3 radix 16 at 4
 * blocks an SM in f32 (its 11), 4 and 5: 3 and 2 in blocks of one
 * transform (its 12 and 13); -1 the default for the size. (4 at 5 blocks
 * an SM in f32 spilled: 0.0-0.15x cuFFT slower.) Only files that define FFT_ALL_VARIANTS
 * compile them all (see FFT_C2C_VARIANTS). tw_d,
 * qt_d: the N-point tables as double2; tw_t, qt_t: the same in T's
 * precision (qt may be NULL for the kinds without it). */
#define FFT_REAL_VARIANTS 6
/* The defaults, fastest side by side on an H200 (bench/RESULTS.md,
 * 2026-11-23): radix 8 in 64 registers in 64-thread blocks (5) in double,
 * and in single for short transforms (N < FFT_REAL_SHORT_N); radix 16
 * with two twiddle loads at 4 blocks an SM, one transform a block (4), for
 * longer single-precision ones (0.0-0.13x cuFFT better than 2 and 1, the
 * previous defaults, except r2c and dct2 at N = 256 and 1024, 1-4% slower). */
#define FFT_REAL_SHORT_N 128
/* below: the shared path (one thread a transform at h = 8, radix 8, ran at
 * 0.3-0.7x the shared path's speed on the H200) */
#define FFT_REAL_MIN_REGISTER_H 32
template <typename T> constexpr int fft_real_default_variant(int n)
{
    return sizeof(T) == sizeof(double) || n < FFT_REAL_SHORT_N ? 5 : 4;
}
static inline const char *fft_real_variant_name(int variant)
{
    switch (variant) {
    case 0: return "fused r16";
    case 1: return "fused r16 2 tw, warp";
    case 2: return "fused r8, warp, 64 regs";
    case 3: return "fused r16 2 tw, warp, f32 4 / f64 2 blk";
    case 4: return "as 3, one transform a block";
    case 5: return "as 2, 64-thread blocks";
    default: return "?";
    }
}

/* Variant V of the register path (h >= FFT_REAL_MIN_REGISTER_H). */
template <typename T, int KIND, int V>
static cudaError_t fft_real_launch_variant(const T *in, T *out, int n, int batch, const void *tw_t,
                                           const void *qt_t, cudaStream_t stream)
{
    if constexpr (V == 1) {
        return fft_real_launch_radix<T, KIND, 16, 2, FFT_MIN_BLOCKS, true>(in, out, n, batch, tw_t,
                                                                           qt_t, stream);
    } else if constexpr (V == 2) {
        return fft_real_launch_radix<T, KIND, 8, 0, 4, true>(in, out, n, batch, tw_t, qt_t, stream);
    } else if constexpr (V == 3 || V == 4) {
        constexpr int minb = sizeof(T) == 4 ? 4 : 2;
        return fft_real_launch_radix<T, KIND, 16, 2, minb, true, V == 4 ? 64 : 256>(
            in, out, n, batch, tw_t, qt_t, stream);
    } else if constexpr (V == 5) {
        return fft_real_launch_radix<T, KIND, 8, 0, 4, true, 64>(in, out, n, batch, tw_t, qt_t,
                                                                 stream);
    } else {
        static_assert(V == 0, "real variants are 0 .. FFT_REAL_VARIANTS - 1");
        return fft_real_launch_radix<T, KIND, 16, 0, FFT_MIN_BLOCKS, false>(in, out, n, batch, tw_t,
                                                                            qt_t, stream);
    }
}

template <typename T, int KIND>
static cudaError_t fft_real_launch_kind(const T *in, T *out, int n, int batch, const double2 *tw_d,
                                        const double2 *qt_d, const void *tw_t, const void *qt_t,
                                        cudaStream_t stream, int variant)
{
    typedef typename cpx_of<T>::type C;
    const int h = n / 2;
    if (h < FFT_REAL_MIN_REGISTER_H) {
        const int per = h / 4 < 1 ? 1 : h / 4;
        const int ty = 256 / per;
        const size_t smem = (size_t)ty * h * sizeof(C);
        dim3 block(per, ty), grid((batch + ty - 1) / ty);
        fft_real_shared<T, KIND><<<grid, block, smem, stream>>>(in, out, n, batch, tw_d, qt_d);
        return cudaGetLastError();
    }
#ifdef FFT_ALL_VARIANTS
    if (variant < 0)
        variant = fft_real_default_variant<T>(n);
    switch (variant) {
    case 0: return fft_real_launch_variant<T, KIND, 0>(in, out, n, batch, tw_t, qt_t, stream);
    case 1: return fft_real_launch_variant<T, KIND, 1>(in, out, n, batch, tw_t, qt_t, stream);
    case 2: return fft_real_launch_variant<T, KIND, 2>(in, out, n, batch, tw_t, qt_t, stream);
    case 3: return fft_real_launch_variant<T, KIND, 3>(in, out, n, batch, tw_t, qt_t, stream);
    case 4: return fft_real_launch_variant<T, KIND, 4>(in, out, n, batch, tw_t, qt_t, stream);
    case 5: return fft_real_launch_variant<T, KIND, 5>(in, out, n, batch, tw_t, qt_t, stream);
    default: return cudaErrorInvalidValue;
    }
#else
    (void)variant;
    /* the precision's defaults only (keep in step with fft_real_default_variant) */
    if (sizeof(T) == sizeof(double) || n < FFT_REAL_SHORT_N)
        return fft_real_launch_variant<T, KIND, 5>(in, out, n, batch, tw_t, qt_t, stream);
    if constexpr (sizeof(T) == sizeof(float))
        return fft_real_launch_variant<T, KIND, 4>(in, out, n, batch, tw_t, qt_t, stream);
    return cudaErrorInvalidValue;   /* not reached */
#endif
}

/* Any real kind (RK_*); variant -1: the default. */
template <typename T>
static cudaError_t fft_real_launch(int kind, const void *in, void *out, int n, int batch,
                                   const double2 *tw_d, const double2 *qt_d, const void *tw_t,
                                   const void *qt_t, cudaStream_t stream, int variant = -1)
{
    const T *i = (const T *)in;
    T *o = (T *)out;
    switch (kind) {
    case RK_R2C: return fft_real_launch_kind<T, RK_R2C>(i, o, n, batch, tw_d, qt_d, tw_t, qt_t, stream, variant);
    case RK_C2R: return fft_real_launch_kind<T, RK_C2R>(i, o, n, batch, tw_d, qt_d, tw_t, qt_t, stream, variant);
    case RK_DCT2: return fft_real_launch_kind<T, RK_DCT2>(i, o, n, batch, tw_d, qt_d, tw_t, qt_t, stream, variant);
    case RK_DCT3: return fft_real_launch_kind<T, RK_DCT3>(i, o, n, batch, tw_d, qt_d, tw_t, qt_t, stream, variant);
    case RK_DHT: return fft_real_launch_kind<T, RK_DHT>(i, o, n, batch, tw_d, qt_d, tw_t, qt_t, stream, variant);
    default: return cudaErrorInvalidValue;
    }
}

#endif
