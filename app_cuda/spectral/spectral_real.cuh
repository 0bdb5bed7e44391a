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

/* C2R and DCT-III: what z_i takes from the input at i (0 <= i <= h):
 * C2R's Y_i; DCT-III's x_i and x_{N-i} (x_N = 0). z_i needs it at i and at
 * h - i (real_load_z_pair). */
template <int KIND, typename T, typename C>
__host__ __device__ __forceinline__ C real_pair_input(const T *src, int i, int h)
{
    if constexpr (KIND == RK_C2R) {
        return reinterpret_cast<const C *>(src)[i];
    } else {
        C a;
        a.x = src[i];
        a.y = i == 0 ? (T)0 : src[2 * h - i];
        return a;
    }
}

/* C2R (and DCT-III through its spectrum) z_i and z_{h-i} from in_i and
 * in_{h-i} of real_pair_input: Y_k, Y_{h-k} -> E_k = (Y_k + conj Y_{h-k}) /
 * 2, O_k = W^{-k} (Y_k - conj Y_{h-k}) / 2, z_k = E_k + j O_k; DCT-III's
 * Y_k = e^{+j pi k/(2N)} (y_k - j y_{N-k}) for k = i and h - i. The pair
 * shares its inputs and its E and O: E_{h-i} = conj E_i, O_{h-i} = conj O_i
 * (W^{-(h-i)} = -W^i), so z_{h-i} (into z_hmi) costs two additions. The
 * table entries come as values: tw_i = tw[i], and for DCT-III qt_i =
 * qt[i], qt_hmi = qt[h - i]. */
template <int KIND, typename T, typename C, typename W>
__host__ __device__ __forceinline__ C real_z_pair_tw(C in_i, C in_hmi, W tw_i, W qt_i, W qt_hmi, C &z_hmi)
{
    C a, b;
    if constexpr (KIND == RK_C2R) {
        a = in_i;
        b = in_hmi;
    } else {
        const T cr0 = (T)qt_i.x, ci0 = (T)-qt_i.y, cr1 = (T)qt_hmi.x, ci1 = (T)-qt_hmi.y;
        a.x = in_i.x * cr0 + in_i.y * ci0;
        a.y = in_i.x * ci0 - in_i.y * cr0;
        b.x = in_hmi.x * cr1 + in_hmi.y * ci1;
        b.y = in_hmi.x * ci1 - in_hmi.y * cr1;
    }
    const T er = (T)0.5 * (a.x + b.x), ei = (T)0.5 * (a.y - b.y);
    const T dr = (T)0.5 * (a.x - b.x), di = (T)0.5 * (a.y + b.y);
    const T wr = (T)tw_i.x, wi = (T)-tw_i.y;   /* W^{-k} */
    const T or_ = dr * wr - di * wi, oi = dr * wi + di * wr;
    C z;
    z.x = er - oi;
    z.y = ei + or_;
    z_hmi.x = er + oi;
    z_hmi.y = or_ - ei;
    return z;
}

/* qt_{h-k} from qt_k: e^{-j pi (h-k)/(2N)} = e^{-j pi/4} conj(qt_k) (h / (2N)
 * = 1/4), one table load less for the pairs (k, h - k). */
template <typename T, typename C>
__host__ __device__ __forceinline__ C real_qt_complement(C q)
{
    const T c = (T)0.70710678118654752440;
    C r;
    r.x = c * ((T)q.x - (T)q.y);
    r.y = -c * ((T)q.x + (T)q.y);
    return r;
}

/* C2R's and DCT-III's z_i and z_{h-i} (into z_hmi), 0 <= i <= h / 2, from
 * one transform's input src (tw, qt as real_load_z's; qt_{h-i} by
 * real_qt_complement, as the register path's real_load_pairs). */
template <int KIND, typename T, typename C, typename W>
__host__ __device__ __forceinline__ C real_load_z_pair(const T *src, int i, int h, const W *tw, const W *qt,
                                                       C &z_hmi)
{
    W q = W();   /* (C2R's qt may be NULL) */
    if constexpr (KIND != RK_C2R)
        q = qt[i];
    return real_z_pair_tw<KIND, T>(real_pair_input<KIND, T, C>(src, i, h),
                                   real_pair_input<KIND, T, C>(src, h - i, h), tw[i], q,
                                   real_qt_complement<T>(q), z_hmi);
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
        C unused;
        z = real_load_z_pair<KIND, T, C, W>(src, i, h, tw, qt, unused);
    }
    return z;
}

/* Where z keeps point i: padded as fft_slot<PAD> (PAD 0: unpadded). */
template <int PAD> __host__ __device__ __forceinline__ int real_slot(int i)
{
    return PAD ? i + i / PAD : i;
}

/* Y_k from a = Z_{k mod h}, b = Z_{(h-k) mod h} and w = W^k (for k = h,
 * W^h = -1 exactly: pass last). */
template <typename T, typename C, typename W>
__host__ __device__ __forceinline__ C real_spectrum_of(C a, C b, W w, bool last = false)
{
    const T er = (T)0.5 * (a.x + b.x), ei = (T)0.5 * (a.y - b.y);
    const T or_ = (T)0.5 * (a.y + b.y), oi = (T)-0.5 * (a.x - b.x);
    C y;
    if (last) {
        y.x = er - or_;
        y.y = ei - oi;
    } else {
        const T wr = (T)w.x, wi = (T)w.y;
        y.x = er + (or_ * wr - oi * wi);
        y.y = ei + (or_ * wi + oi * wr);
    }
    return y;
}

/* Y_k and Y_{h-k} (into y_hmk) from the same a = Z_k, b = Z_{h-k} (k < h)
 * and w = W^k: Y_k = E + W^k O and Y_{h-k} = conj(E - W^k O), since
 * E_{h-k} = conj E_k, O_{h-k} = conj O_k and W^{h-k} = -conj W^k. At k = 0
 * (a = b = Z_0, w = 1) the second is Y_h. */
template <typename T, typename C, typename W>
__host__ __device__ __forceinline__ C real_spectrum_pair(C a, C b, W w, C &y_hmk)
{
    const T er = (T)0.5 * (a.x + b.x), ei = (T)0.5 * (a.y - b.y);
    const T or_ = (T)0.5 * (a.y + b.y), oi = (T)-0.5 * (a.x - b.x);
    const T wr = (T)w.x, wi = (T)w.y;
    const T pr = or_ * wr - oi * wi, pi = or_ * wi + oi * wr;
    C y;
    y.x = er + pr;
    y.y = ei + pi;
    y_hmk.x = er - pr;
    y_hmk.y = pi - ei;
    return y;
}

/* Y_k, 0 <= k <= h, of the real FFT from the inner FFT's Z (natural
 * order, unscaled): Y_k = E_k + W^k O_k; the one-point form (the kernels
 * compute the pairs, real_spectrum_pair; spectral_real_check compares the
 * two). */
template <typename T, typename C, typename W, int PAD = 0>
__host__ __device__ __forceinline__ C real_spectrum(const C *z, int k, int h, const W *tw)
{
    const C a = z[real_slot<PAD>(k < h ? k : k - h)], b = z[real_slot<PAD>(k == 0 ? 0 : h - k)];
    return real_spectrum_of<T>(a, b, k == h ? tw[0] : tw[k], k == h);
}

/* R2C, DHT, DCT-II: out from Y_k, 0 <= k <= h: R2C's Y_k; DHT's h_k = Re Y_k
 * - Im Y_k and DCT-II's out_k = Re(e^{-j pi k/(2N)} Y_k), and for 0 < k < h
 * (mirror) also their point N - k, where Y_{N-k} = conj Y_k. at: where
 * output k goes (dst + 2k for R2C, dst + k for the others), at_mirror:
 * dst + N - k, q: DCT-II's qt[k]. The one place these output formulas
 * live (real_store and real_store_regs put through it). */
template <int KIND, typename T, typename C, typename W>
__host__ __device__ __forceinline__ void real_put_spectrum_at(T *at, T *at_mirror, bool mirror, C y, W q)
{
    if constexpr (KIND == RK_R2C) {
        *reinterpret_cast<C *>(at) = y;
    } else if constexpr (KIND == RK_DHT) {
        *at = y.x - y.y;
        if (mirror)
            *at_mirror = y.x + y.y;
    } else {
        static_assert(KIND == RK_DCT2, "the kinds with a spectrum out");
        /* one table entry for both: e^{-j pi (N-k)/(2N)} = -j conj(q_k) = (-Im q_k, -Re q_k) */
        const T qr = (T)q.x, qi = (T)q.y;
        *at = y.x * qr - y.y * qi;
        if (mirror)
            *at_mirror = -(y.x * qi + y.y * qr);
    }
}

/* Table entry tid + o (o warp-uniform, a constant in the unrolled loops)
 * as the product of the thread's entry at tid and the warp's at o: the few
 * uniform entries stay in L1, where the per-point loads of the
 * post-processing missed it and stalled (Nsight Compute, f32 N = 4096:
 * DCT-II's epilogue spent 1.5x DHT's stall samples, on its second table).
 * R2C, DHT and DCT-II from N = 1024: 3-14% faster (H200, eighth
 * session); one rounding more in the table entry. */
template <typename T, typename C>
__device__ __forceinline__ C real_table_at(C own, const C *table, int o)
{
    if (o == 0)
        return own;
    const C u = table[o];
    return cmul<C, T>(own, (T)u.x, (T)u.y);
}

/* The store: z (shared, h points, natural order, unscaled, slots as
 * real_slot<PAD>) -> one transform's output dst; threads tid, tid +
 * threads, ... of it. */
template <int KIND, typename T, typename C, typename W, int PAD = 0>
__host__ __device__ __forceinline__ void real_store(const C *z, T *dst, int h, const W *tw, const W *qt,
                                           int tid, int threads)
{
    const int n = 2 * h;
    if constexpr (KIND == RK_R2C || KIND == RK_DHT || KIND == RK_DCT2) {
        /* Y_k with Y_{h-k} (real_spectrum_pair; Y_h at k = 0), k <= h / 2 */
        constexpr int step = KIND == RK_R2C ? 2 : 1;   /* reals an output point */
        for (int k = tid; k <= h / 2; k += threads) {
            const C a = z[real_slot<PAD>(k)], b = z[real_slot<PAD>(k == 0 ? 0 : h - k)];
            W q = W(), q_hmk = W();
            if constexpr (KIND == RK_DCT2) {
                q = qt[k];
                q_hmk = real_qt_complement<T>(q);
            }
            C y_hmk;
            const C y = real_spectrum_pair<T>(a, b, tw[k], y_hmk);
            real_put_spectrum_at<KIND, T>(dst + step * k, dst + n - k, k != 0, y, q);
            if (2 * k != h)
                real_put_spectrum_at<KIND, T>(dst + step * (h - k), dst + h + k, k != 0, y_hmk, q_hmk);
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

/* ---- the register epilogue and prologue (a variant): where a
 * transform's threads lie in one warp, the partners the pre- and
 * post-processing pair (points k and h - k, or i and h - 1 - i) meet
 * through warp shuffles, not shared memory: no last trip through the
 * shared buffer, no barrier, and DCT-II's input and DCT-III's output move
 * as 16-byte vectors. C2R needs no partner, so it stores from registers at
 * any size. ---- */

/* After the last pass thread tid of `threads` holds Z at tid + threads J
 * in v[real_reg<R, LAST_R>(J)], J < R: the radix-R pass at len = R writes
 * point tid + threads r from v[r]; the short pass (LAST_R points, R /
 * LAST_R butterflies g a thread) v[g LAST_R + r] to g threads + tid + r
 * h / LAST_R. */
template <int R, int LAST_R> __device__ constexpr int real_reg(int j)
{
    return LAST_R == 1 ? j : (j % (R / LAST_R)) * LAST_R + j / (R / LAST_R);
}

template <typename C> __device__ __forceinline__ C shfl_c(C v, int lane, int width)
{
    C r;
    r.x = __shfl_sync(0xffffffffu, v.x, lane, width);
    r.y = __shfl_sync(0xffffffffu, v.y, lane, width);
    return r;
}

/* 4 consecutive reals at p (16-byte aligned) as one or two vectors. */
template <typename T> struct quad;
template <> struct quad<float> {
    static __device__ __forceinline__ void load(const float *p, float *q)
    {
        const float4 a = *reinterpret_cast<const float4 *>(p);
        q[0] = a.x, q[1] = a.y, q[2] = a.z, q[3] = a.w;
    }
    static __device__ __forceinline__ void store(float *p, float a, float b, float c, float d)
    {
        *reinterpret_cast<float4 *>(p) = make_float4(a, b, c, d);
    }
};
template <> struct quad<double> {
    static __device__ __forceinline__ void load(const double *p, double *q)
    {
        const double2 a = reinterpret_cast<const double2 *>(p)[0], b = reinterpret_cast<const double2 *>(p)[1];
        q[0] = a.x, q[1] = a.y, q[2] = b.x, q[3] = b.y;
    }
    static __device__ __forceinline__ void store(double *p, double a, double b, double c, double d)
    {
        reinterpret_cast<double2 *>(p)[0] = make_double2(a, b);
        reinterpret_cast<double2 *>(p)[1] = make_double2(c, d);
    }
};

/* Pass 0 of the register path takes points p + threads r (r < R) into
 * thread p's registers. The pre-processing pairs points: C2R's and
 * DCT-III's i with h - i, which falls to butterfly threads - p (at R - 1 -
 * r; p = 0 and threads / 2 are their own partners), DCT-II's i with h - 1
 * - i (its 16-byte input vectors hold both), at threads - 1 - p.
 * real_pass0_p gives thread tid its p: tid where a transform's threads
 * fit a warp; beyond, an order that puts each p and its partner in one
 * warp, at lanes l and 31 - l (for C2R and DCT-III p = 0 and threads / 2
 * at lanes 0 and 31 of warp 0, each its own partner), so that the pairs
 * meet by shuffles (pass 0 addresses its twiddles and its shared stores by
 * p, so no other pass sees the order). real_pair_lane: the partner's
 * lane, with width real_pair_width. */
template <int KIND> __device__ __forceinline__ int real_pass0_p(int tid, int threads)
{
    if (threads <= 32)
        return tid;
    const int w16 = 16 * (tid >> 5), l = tid & 31;
    if (l < 16)
        return w16 + l;
    if constexpr (KIND == RK_DCT2)
        return threads - 32 - w16 + l;
    return tid == 31 ? threads / 2 : threads - w16 - 31 + l;
}
template <int KIND> __device__ __forceinline__ int real_pair_lane(int tid, int threads)
{
    if constexpr (KIND == RK_DCT2)
        return threads <= 32 ? threads - 1 - tid : 31 - (tid & 31);
    if (threads <= 32)
        return (threads - tid) & (threads - 1);
    return tid == 0 || tid == 31 ? tid : 31 - (tid & 31);
}
__device__ __forceinline__ int real_pair_width(int threads)
{
    return threads < 32 ? threads : 32;
}

/* DCT-II's first-pass input: z_i for i = p + threads r into v[r]. Reals
 * 4i .. 4i + 3 (i < h / 2) are z_i's x, y = x_{4i}, x_{4i+2} and
 * z_{h-1-i}'s y, x = x_{4i+1}, x_{4i+3}; point h - 1 - i lies with the
 * partner (real_pair_lane) at R - 1 - r. */
template <int R, typename T, typename C>
__device__ __forceinline__ void real_load_dct2_quads(const T *src, C *v, int p, int lane, int width,
                                                     int threads, bool live)
{
    C mirror[R / 2];
#pragma unroll
    for (int r = 0; r < R / 2; r++) {
        T x[4] = {(T)0, (T)0, (T)0, (T)0};
        if (live)
            quad<T>::load(src + 4 * (p + threads * r), x);
        v[r].x = x[0];
        v[r].y = x[2];
        mirror[r].x = x[3];
        mirror[r].y = x[1];
    }
#pragma unroll
    for (int r = R / 2; r < R; r++)
        v[r] = shfl_c(mirror[R - 1 - r], lane, width);
}

/* The store from registers (layout as real_reg). Every thread of the warp
 * takes part (the shuffles); only live ones write. C2R: any threads;
 * the others: threads in one warp, or any number where VIA_SHARED: then
 * sh holds the whole transform (slots fft_slot<R>, threads a multiple of
 * R), whence each thread takes its points' partners instead (half the
 * shared loads of real_store, which reads both points of a pair). Each
 * stream (output, mirror output, partners, tables) has one base a thread
 * and offsets known when compiling: computing every address from k cost
 * more instructions than the arithmetic (Nsight Compute, DCT-II N = 4096). */
template <int KIND, int R, int LAST_R, bool VIA_SHARED, typename T, typename C>
__device__ __forceinline__ void real_store_regs(const C *v, T *dst, int h, const C *tw, const C *qt,
                                                int tid, int threads, bool live, const C *sh = nullptr)
{
    if constexpr (KIND == RK_C2R) {
        const T scale = (T)1 / (T)h;
        C *x = reinterpret_cast<C *>(dst) + tid;
#pragma unroll
        for (int j = 0; j < R; j++) {
            C z = v[real_reg<R, LAST_R>(j)];
            z.x *= scale;
            z.y *= scale;
            if (live)
                x[threads * j] = z;
        }
    } else if constexpr (KIND == RK_DCT3) {
        /* reals 4i .. 4i + 3, i < h / 2: z_i.x, z_{h-1-i}.y, z_i.y, z_{h-1-i}.x (see
         * real_store; partner as real_load_dct2_quads); point h - 1 - i
         * = threads (R - j) - (tid + 1) sits at slot c + c / R + partner, c =
         * threads (R - j) */
        T *out = dst + 4 * tid;
        const int partner = -(tid + 1) - (tid + R) / R;
#pragma unroll
        for (int j = 0; j < R / 2; j++) {
            const C a = v[real_reg<R, LAST_R>(j)];
            const int c = threads * (R - j);
            const C b = VIA_SHARED ? sh[c + c / R + partner]
                                   : shfl_c(v[real_reg<R, LAST_R>(R - 1 - j)], threads - 1 - tid, threads);
            if (live)
                quad<T>::store(out + 4 * threads * j, a.x, b.y, a.y, b.x);
        }
    } else {
        /* Y_k and Y_{h-k} together (real_spectrum_pair), k = tid + threads
         * j for j < R / 2: every k < h / 2 once, so each pair is computed
         * once, with one partner exchange, one twiddle and (DCT-II) one
         * table entry. Z_{h-k}: lane (threads - tid) mod threads at R - 1 -
         * j; lane 0's own at (R - j) mod R; from shared memory slot c + c
         * / R + partner, c = threads (R - j) (0 for k = 0). Lane 0 also
         * holds k = h / 2, its own partner: Y_{h/2} = conj Z_{h/2} (W^{h/2}
         * = -j). */
        if (VIA_SHARED && !live)
            return;   /* (no shuffles on that path) */
        const int lane = (threads - tid) & (threads - 1);
        const int partner = -tid - (tid + R - 1) / R;
        constexpr int step = KIND == RK_R2C ? 2 : 1;   /* reals an output point */
        /* outputs k, N - k, h - k and h + k = N - (h - k) */
        T *at = dst + step * tid, *at_mirror = dst + 2 * h - tid;
        T *at_hmk = dst + step * (h - tid), *at_hpk = dst + h + tid;
        const C tw_own = tw[tid];
        C qt_own = C();
        if constexpr (KIND == RK_DCT2)
            qt_own = qt[tid];
#pragma unroll
        for (int j = 0; j < R / 2; j++) {
            const C own = v[real_reg<R, LAST_R>(j)];
            C b;
            if constexpr (VIA_SHARED) {
                const int c = threads * (R - j);
                b = sh[j == 0 && tid == 0 ? 0 : c + c / R + partner];
            } else {
                b = shfl_c(v[real_reg<R, LAST_R>(R - 1 - j)], lane, threads);
                if (tid == 0)
                    b = v[real_reg<R, LAST_R>((R - j) % R)];
            }
            if (!live)
                continue;
            const int o = threads * j;
            C q = C(), q_hmk = C();
            if constexpr (KIND == RK_DCT2) {
                q = real_table_at<T>(qt_own, qt, o);
                q_hmk = real_qt_complement<T>(q);
            }
            C y_hmk;
            const C y = real_spectrum_pair<T>(own, b, real_table_at<T>(tw_own, tw, o), y_hmk);
            const bool mirror = j != 0 || tid != 0;   /* not for k = 0 and h - k = h */
            real_put_spectrum_at<KIND, T>(at + step * o, at_mirror - o, mirror, y, q);
            real_put_spectrum_at<KIND, T>(at_hmk - step * o, at_hpk + o, mirror, y_hmk, q_hmk);
        }
        if (tid == 0 && live) {
            C y = v[real_reg<R, LAST_R>(R / 2)];
            y.y = -y.y;
            C q = C();
            if constexpr (KIND == RK_DCT2)
                q = qt[h / 2];
            real_put_spectrum_at<KIND, T>(dst + step * (h / 2), dst + 3 * h / 2, true, y, q);
        }
    }
}

/* C2R's and DCT-III's pairs: z_i for i = p + threads r into v[r] for r < R
 * / 2, computed with z_{h-i} (real_z_pair_tw: one set of loads and one
 * twiddle for both), which goes by shuffle to its thread (real_pass0_p),
 * at R - 1 - r; half the loads and table entries of computing each point
 * alone. The thread with p = 0 keeps its own: z_{h - threads r} = z at
 * threads (R - r) into v[R - r], and computes z_{h/2} (its own partner)
 * alone. Every thread of the warp takes part (the shuffles): one that is
 * not live reads transform 0 (src) and stores nothing. */
template <int KIND, int R, typename T, typename C>
__device__ __forceinline__ void real_load_pairs(const T *src, C *v, int h, const C *tw, const C *qt,
                                                int p, int lane, int width, int threads)
{
    const int n = 2 * h;
    const C *tw_i = tw + p;
    /* C2R: Y_i, Y_{h-i}; DCT-III: x_i, x_{N-i}, x_{h-i}, x_{h+i} (x_N = 0 at i = 0) */
    const T *x_i = src + (KIND == RK_C2R ? 2 : 1) * p, *x_nmi = src + n - p;
    const T *x_hmi = src + (KIND == RK_C2R ? 2 : 1) * (h - p), *x_hpi = src + h + p;
    const C *qt_i = qt + p;
#pragma unroll
    for (int r = 0; r < R / 2; r++) {
        const int o = threads * r;
        C in_i, in_hmi, q = C();
        if constexpr (KIND == RK_C2R) {
            in_i = reinterpret_cast<const C *>(x_i)[o];
            in_hmi = reinterpret_cast<const C *>(x_hmi)[-o];
        } else {
            in_i.x = x_i[o];
            in_i.y = r == 0 && p == 0 ? (T)0 : x_nmi[-o];
            in_hmi.x = x_hmi[-o];
            in_hmi.y = x_hpi[o];
            q = qt_i[o];
        }
        C z_hmi;
        v[r] = real_z_pair_tw<KIND, T>(in_i, in_hmi, tw_i[o], q, real_qt_complement<T>(q), z_hmi);
        v[R - 1 - r] = shfl_c(z_hmi, lane, width);
        if (r >= 1 && p == 0)
            v[R - r] = z_hmi;
    }
    if (p == 0) {
        C in, q = C(), unused;
        if constexpr (KIND == RK_C2R) {
            in = reinterpret_cast<const C *>(src)[h / 2];
        } else {
            in.x = src[h / 2];
            in.y = src[n - h / 2];
            q = qt[h / 2];
        }
        v[R / 2] = real_z_pair_tw<KIND, T>(in, in, tw[h / 2], q, q, unused);
    }
}

/* The first pass's input where it needs no partner (pass 0 of
 * fft_real_radix, R points a thread; R2C, DHT, and DCT-II without its
 * 16-byte vectors; C2R and DCT-III load by pairs, real_load_pairs): z_i
 * for i = tid + threads r into v[r] (zeros where not live), by
 * real_load_z's formulas with one base a thread for each stream read and
 * offsets known when compiling (r is; and for DCT-II i < N / 4 just when
 * r < R / 2). */
template <int KIND, int R, typename T, typename C>
__device__ __forceinline__ void real_load_first(const T *src, C *v, int h, int tid, int threads, bool live)
{
    static_assert(KIND == RK_R2C || KIND == RK_DHT || KIND == RK_DCT2, "the kinds without pairs");
    if (!live) {
#pragma unroll
        for (int r = 0; r < R; r++)
            v[r].x = v[r].y = (T)0;
        return;
    }
    const int n = 2 * h;
    if constexpr (KIND == RK_R2C || KIND == RK_DHT) {
        const C *z = reinterpret_cast<const C *>(src) + tid;
#pragma unroll
        for (int r = 0; r < R; r++)
            v[r] = z[threads * r];
    } else {
        /* z_i = x_{4i} + j x_{4i+2} for i < N / 4, x_{2N-4i-1} + j x_{2N-4i-3} above */
        const T *lo = src + 4 * tid, *hi = src + 2 * n - 1 - 4 * tid;
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int o = 4 * threads * r;
            if (r < R / 2) {
                v[r].x = lo[o];
                v[r].y = lo[o + 2];
            } else {
                v[r].x = hi[-o];
                v[r].y = hi[-o - 2];
            }
        }
    }
}

/* ---- short transforms (h < FFT_REAL_MIN_REGISTER_H, and a variant at h =
 * FFT_REAL_SMALL_MAX_H): one thread a transform, all h points in its
 * registers. The block copies its
 * transforms' inputs to shared memory and the outputs back in whole
 * contiguous runs of 16-byte vectors (coalesced: a thread alone would read
 * one transform's few bytes, spread over many sectors per warp
 * instruction; fft_small_copy); each thread's slice is an odd number of
 * complex words (so a warp's complex accesses at one offset meet no bank
 * twice) and holds its input, then its output: the spectrum stays in
 * registers between. ---- */

#define FFT_REAL_SMALL_THREADS 64   /* transforms (threads) a block */

/* Reals each thread's slice of the staging buffer holds: the longer of
 * input and output, rounded up to an odd number of complex words. */
__host__ __device__ constexpr int real_small_stride(int kind, int n)
{
    return 2 * ((real_in_reals(kind, n) > real_out_reals(kind, n) ? real_in_reals(kind, n)
                                                                   : real_out_reals(kind, n)) / 4 * 2 + 1);
}

/* blockDim.x transforms a block; shared: blockDim.x real_small_stride
 * reals. tw, qt in T's precision. MINB: blocks an SM for
 * __launch_bounds__ (0: none asked, the compiler's choice). */
template <typename T, int KIND, int H, int MINB = 0>
__global__ void __launch_bounds__(128, MINB)
fft_real_small(const T *in, T *out, int batch, const typename cpx_of<T>::type *tw,
               const typename cpx_of<T>::type *qt)
{
    typedef typename cpx_of<T>::type C;
    constexpr int N = 2 * H, NI = real_in_reals(KIND, N), NO = real_out_reals(KIND, N);
    constexpr int S = real_small_stride(KIND, N);
    extern __shared__ unsigned char smem_raw[];
    T *const stage = reinterpret_cast<T *>(smem_raw);
    const int t0 = blockIdx.x * blockDim.x, here = min((int)blockDim.x, batch - t0);
    /* whole blocks start 16-byte aligned when the arrays do (NI, NO even) */
    const bool vec = fft_stage_aligned(in, out);
    fft_small_copy<true, NI, S>(const_cast<T *>(in) + (size_t)t0 * NI, stage, here * NI, vec);
    __syncthreads();
    if ((int)threadIdx.x < here) {
        T *mine = stage + threadIdx.x * S;
        C v[H];
        if constexpr (KIND == RK_C2R || KIND == RK_DCT3) {
            /* z_i with z_{H-i}, i <= H / 2 */
#pragma unroll
            for (int i = 0; i <= H / 2; i++) {
                C z_hmi;
                v[i] = real_load_z_pair<KIND, T, C, C>(mine, i, H, tw, qt, z_hmi);
                if (i != 0 && 2 * i != H)
                    v[H - i] = z_hmi;
            }
        } else {
#pragma unroll
            for (int i = 0; i < H; i++)
                v[i] = real_load_z<KIND, T, C, C>(mine, i, H, tw, qt);
        }
        dft_natural<H, C, T>(v, real_kind_sign(KIND));
        /* the post-processing from the registers, over the spent input */
        real_store<KIND, T, C, C>(v, mine, H, tw, qt, 0, 1);
    }
    __syncthreads();
    fft_small_copy<false, NO, S>(out + (size_t)t0 * NO, stage, here * NO, vec);
}

/* Launch fft_real_small for h = n / 2 < FFT_REAL_MIN_REGISTER_H, and for h
 * = FFT_REAL_SMALL_MAX_H where WITH_LONGEST (there the register path runs
 * too: a variant), that one at LONGEST_MINB blocks an SM. */
#define FFT_REAL_SMALL_MAX_H 32
template <typename T, int KIND, bool WITH_LONGEST = false, int LONGEST_MINB = 0>
static cudaError_t fft_real_launch_small(const T *in, T *out, int n, int batch, const void *tw_t,
                                         const void *qt_t, cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    const int threads = FFT_REAL_SMALL_THREADS;
    const size_t smem = (size_t)threads * real_small_stride(KIND, n) * sizeof(T);
    dim3 block(threads), grid((batch + threads - 1) / threads);
    const C *tw = (const C *)tw_t, *qt = (const C *)qt_t;
    const auto launch = [&](auto kernel) {
        return fft_launch(kernel, grid, block, smem, stream, in, out, batch, tw, qt);
    };
    switch (n) {
    case 4: return launch(fft_real_small<T, KIND, 2>);
    case 8: return launch(fft_real_small<T, KIND, 4>);
    case 16: return launch(fft_real_small<T, KIND, 8>);
    case 32: return launch(fft_real_small<T, KIND, 16>);
    case 2 * FFT_REAL_SMALL_MAX_H:
        if constexpr (WITH_LONGEST)
            return launch(fft_real_small<T, KIND, FFT_REAL_SMALL_MAX_H, LONGEST_MINB>);
        return cudaErrorInvalidValue;
    default: return cudaErrorInvalidValue;
    }
}

/* One transform's output (reals, staged in shared memory, 16-byte
 * aligned) to dst by threads tid, tid + threads, ... in the widest
 * vectors dst's alignment and the length allow: a thread's own scalar
 * stores of the post-processing (DHT and DCT-II: one real at k, one at N
 * - k) fill a quarter or half of each 32-byte sector a warp instruction
 * touches where a transform has few threads. */
template <typename T>
__device__ __forceinline__ void real_copy_out(const T *stage, T *dst, int reals, int tid, int threads)
{
    const size_t bytes = (size_t)reals * sizeof(T);
    const uintptr_t align = reinterpret_cast<uintptr_t>(dst) | bytes;
    const auto copy = [&](auto word) {
        typedef decltype(word) Word;
        const Word *from = reinterpret_cast<const Word *>(stage);
        Word *to = reinterpret_cast<Word *>(dst);
        for (int i = tid; i < (int)(bytes / sizeof(Word)); i += threads)
            to[i] = from[i];
    };
    if (align % 16 == 0)
        copy(uint4());
    else if (align % 8 == 0)
        copy(uint2());
    else
        copy(T());
}

/* ---- the register path (h >= FFT_REAL_MIN_REGISTER_H): radix-R passes as fft_c2c_r16 (R = 16)
 * or fft_c2c_r8 (R = 8, a variant) ---- */

/* h / R threads a transform; shared: blockDim.y * h complex. tw, qt for N
 * points in the kernel's precision (W = C). TW, WARP: the variants of
 * fft_c2c_r16 (twiddle16 for R = 16, pass_barrier; WARP only where a
 * transform's threads lie in one warp); MINB: blocks an SM. */
template <typename T, int KIND, int R, int LAST_R, int TW = 0, bool WARP = false,
          int MINB = FFT_MIN_BLOCKS, bool REG = false, int H = 0, bool STAGE = false>
__global__ void __launch_bounds__(256, MINB)
fft_real_radix(const T *in, T *out, int n_arg, int batch, const typename cpx_of<T>::type *tw,
               const typename cpx_of<T>::type *qt)
{
    static_assert(R == 8 || R == 16, "radix 8 or 16");
    static_assert(LAST_R < R, "the last pass is smaller than R");
    typedef typename cpx_of<T>::type C;
    constexpr int LOG2R = R == 16 ? 4 : 3;
    /* REG where a transform spans warps: the partners come from the last
     * pass's shared copy (real_store_regs) */
    constexpr bool VIA_SHARED = REG && !WARP && KIND != RK_C2R;
    /* the pre-processing by pairs: C2R's and DCT-III's whatever the store
     * (real_load_pairs), DCT-II's where it may load 16-byte vectors
     * (real_load_dct2_quads: REG comes with aligned ends) */
    constexpr bool QUADS = REG && KIND == RK_DCT2;
    constexpr bool PAIRS = KIND == RK_C2R || KIND == RK_DCT3 || QUADS;
    static_assert(!STAGE || (REG && WARP && (KIND == RK_R2C || KIND == RK_DHT || KIND == RK_DCT2)),
                  "STAGE: R2C, DHT and DCT-II where a transform is one warp");
    extern __shared__ unsigned char smem_raw[];
    /* H (a variant): the size known when compiling, so every pass unrolls
     * and its shared-memory and global offsets are constants off one base */
    const int n = H ? 2 * H : n_arg, h = n / 2;
    C *sh = reinterpret_cast<C *>(smem_raw) + (size_t)threadIdx.y * (h + h / R);
    const int t = blockIdx.x * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x, threads = h / R;
    const bool live = t < batch;
    const T *src = in + (size_t)(live ? t : 0) * real_in_reals(KIND, n);
    T *dst = out + (size_t)(live ? t : 0) * real_out_reals(KIND, n);
    const int sign = real_kind_sign(KIND);
    C v[R];
    /* the store from registers where the partners meet by shuffles;
     * STAGE: into the transform's shared buffer, then out in whole
     * vectors (real_copy_out) */
    const auto store_regs = [&]() {
        if constexpr (STAGE) {
            pass_barrier<WARP>();   /* the last pass's reads of sh are done */
            T *stage = reinterpret_cast<T *>(sh);
            real_store_regs<KIND, R, LAST_R, false>(v, stage, h, tw, qt, tid, threads, true);
            pass_barrier<WARP>();
            if (live)
                real_copy_out(stage, dst, real_out_reals(KIND, n), tid, threads);
        } else {
            real_store_regs<KIND, R, LAST_R, false>(v, dst, h, tw, qt, tid, threads, live);
        }
    };
    /* the radix-R passes: pass k has stride s = R^k over len = h / s */
    const int passes = (H ? ilog2_const(H) : __ffs(h) - 1) / LOG2R;
    /* true where the last pass stored from registers (REG) */
    const auto pass_body = [&](int pass) -> bool {
        const int s = 1 << (LOG2R * pass), len = h >> (LOG2R * pass);
        const int m = len / R, tstep = n / len;   /* the table has n = 2h points */
        const bool first = pass == 0;
        const int p = PAIRS && first ? real_pass0_p<KIND>(tid, threads) : tid >> (LOG2R * pass);
        const int q = tid & (s - 1);
        if (QUADS && first) {
            real_load_dct2_quads<R>(src, v, p, real_pair_lane<KIND>(tid, threads), real_pair_width(threads),
                                    threads, live);
        } else if (PAIRS && first) {
            real_load_pairs<KIND, R>(src, v, h, tw, qt, p, real_pair_lane<KIND>(tid, threads),
                                     real_pair_width(threads), threads);
        } else if (first) {   /* (point i = tid + threads r: q = 0, s = 1, m = threads) */
            if constexpr (!PAIRS)
                real_load_first<KIND, R>(src, v, h, tid, threads, live);
        } else {
#pragma unroll
            for (int r = 0; r < R; r++)
                v[r] = sh[fft_slot<R>(q + s * (p + r * m))];
        }
        const bool last = LAST_R == 1 && len == R;   /* its twiddles are all 1 */
        if constexpr (R == 16) {
            dft16<C, T>(v, sign);
            if (!(H && last))   /* as fft_c2c_r16 */
                twiddle16<C, T, TW>(v, tw, p * tstep, sign);
        } else {
            dft8_natural<C, T>(v, sign);
            if (!(H && last))
                twiddle8<C, T>(v, tw, p * tstep, sign);
        }
        if (REG && !VIA_SHARED && last) {
            store_regs();
            return true;
        }
        if (!first)
            pass_barrier<WARP>();
#pragma unroll
        for (int r = 0; r < R; r++)
            sh[fft_slot<R>(q + s * (R * p + r))] = v[r];
        pass_barrier<WARP>();
        if (VIA_SHARED && last) {
            real_store_regs<KIND, R, LAST_R, true>(v, dst, h, tw, qt, tid, threads, live, sh);
            return true;
        }
        return false;
    };
    /* every pass runs (only the last can store): fft_run_passes' exit after
     * each pass made ptxas spill more here (56 bytes against 32 at h = 2048) */
    bool stored = false;
    if constexpr (H != 0) {
#pragma unroll
        for (int pass = 0; pass < ilog2_const(H) / LOG2R; pass++)
            stored = pass_body(pass);
    } else {
        for (int pass = 0; pass < passes; pass++)
            stored = pass_body(pass);
    }
    if (REG && LAST_R == 1 && stored)
        return;
    const int s = 1 << (LOG2R * passes);
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
        if (REG && !VIA_SHARED) {
            store_regs();
            return;
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
        if (VIA_SHARED) {
            real_store_regs<KIND, R, LAST_R, true>(v, dst, h, tw, qt, tid, threads, live, sh);
            return;
        }
    }
    if (live)
        real_store<KIND, T, C, C, R>(sh, dst, h, tw, qt, tid, threads);
}

/* One register-path variant of a real kind: radix R, twiddles TW, MINB
 * blocks an SM; warp barriers where a transform's threads fit a warp;
 * blocks of about TPB threads. */
template <typename T, int KIND, int R, int TW, int MINB, bool WARP_SYNC, int TPB = 256,
          bool DIRECT = false, bool FIXED = false, bool ALL_REG = false, typename Sizes = fft_all_sizes,
          bool STAGE = false>
static cudaError_t fft_real_launch_radix(const T *in, T *out, int n, int batch, const void *tw_t,
                                         const void *qt_t, cudaStream_t stream)
{
    /* the DCTs' 16-byte vectors need aligned ends */
    if constexpr (DIRECT && (KIND == RK_DCT2 || KIND == RK_DCT3))
        if (!fft_stage_aligned(in, out))
            return fft_real_launch_radix<T, KIND, R, TW, MINB, WARP_SYNC, TPB, false, FIXED, ALL_REG, Sizes,
                                         STAGE>(in, out, n, batch, tw_t, qt_t, stream);
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
    if constexpr (FIXED) {
        /* one kernel per size: h from FFT_REAL_MIN_REGISTER_H (32) to 2048 */
        const auto fixed = [&](auto h_tag) {
            constexpr int HH = decltype(h_tag)::value;
            constexpr bool W = WARP_SYNC && HH / R <= 32;
            /* from registers: C2R anywhere, the others where a transform is
             * one warp (shuffles), or anywhere where ALL_REG (real_store_regs'
             * shared partners) */
            constexpr bool REG = DIRECT && (KIND == RK_C2R || W || ALL_REG);
            constexpr int LR = 1 << (ilog2_const(HH) % (R == 16 ? 4 : 3));
            /* the staged output where the kind stores by shuffles */
            constexpr bool ST = STAGE && REG && W && KIND != RK_C2R && KIND != RK_DCT3;
            return fft_launch(fft_real_radix<T, KIND, R, LR, TW, W, MINB, REG, HH, ST>, grid, block,
                              smem, stream, in, out, n, batch, tw, qt);
        };
        return fft_with_size<32, 2048, Sizes>(h, fixed);
    } else {   /* (the kernels for any n: not compiled where FIXED) */
        return fft_with_barrier<WARP_SYNC>(per <= 32, [&](auto warp_tag) {
            constexpr bool W = decltype(warp_tag)::value;
            /* from registers: C2R anywhere, the others where a transform is one warp */
            constexpr bool REG = DIRECT && (KIND == RK_C2R || W);
            const auto launch = [&](auto kernel) {
                return fft_launch(kernel, grid, block, smem, stream, in, out, n, batch, tw, qt);
            };
            switch (last) {
            case 1: return launch(fft_real_radix<T, KIND, R, 1, TW, W, MINB, REG>);
            case 2: return launch(fft_real_radix<T, KIND, R, 2, TW, W, MINB, REG>);
            case 4: return launch(fft_real_radix<T, KIND, R, 4, TW, W, MINB, REG>);
            default: return launch(fft_real_radix<T, KIND, R, longest_last, TW, W, MINB, REG>);
            }
        });
    }
}

/* Launch one real kind: the shared path for h < FFT_REAL_MIN_REGISTER_H, else the register
 * path of the variant: 0 the baseline radix-16 passes, 1 radix 16 with two
 * twiddle loads and warp barriers (fft_c2c_launch's variant 3), 2 radix 8
 * with 64 registers and warp barriers (its variant 5), 3 radix 16 at 4
 * blocks an SM in f32 (its 11), 4 and 5: 3 and 2 in blocks of one
 * transform (its 12 and 13), 6 and 7: 4 and 5 storing from registers
 * (real_store_regs), 8, 9, 10: 6, 7 and 2 with the size compiled in (one
 * kernel per N, as fft_c2c_launch's 14-16), 11 and 12: 8 (in f32) and 9
 * at 3 blocks an SM (80 registers a thread: at 64 the kinds with two
 * outputs a point spilled 20-96 bytes), 13 and 14: 8 and 9 storing from
 * registers where a transform spans warps too (the partners from shared
 * memory), 15: 13 at 3 blocks an SM in f32, 16 and 17: 9 and 12 with the
 * output staged in shared memory where a transform is one warp (R2C, DHT
 * and DCT-II: real_copy_out); -1 the default for the kind and size. (4
 * at 5 blocks an SM in f32 spilled: 0.0-0.15x cuFFT slower.)
 * Only files that define FFT_ALL_VARIANTS compile them all (see
 * FFT_C2C_VARIANTS). tw_d, qt_d: the N-point tables as double2; tw_t,
 * qt_t: the same in T's precision (qt may be NULL for the kinds without
 * it). */
#define FFT_REAL_VARIANTS 18
/* The defaults, fastest side by side on an H200 (bench/RESULTS.md; the
 * ninth session's runs 2 and 5 chose them again once the pre- and
 * post-processing went by pairs). Single precision: R2C at N = 64 one
 * thread a transform (fft_real_small) capped at 128 registers
 * (FFT_REAL_SMALL_CAPPED_VARIANT); R2C at 128 and DCT-II and DHT up to
 * 256 radix 8 with the output staged in shared memory (16: DCT-II at 64
 * 24-25 us against 31 for one thread a transform, 78-81% of copy against
 * 63%); else radix 8 (9) up to N = 512, where a transform is at most one
 * warp; at N = 1024 radix 8 from registers through shared partners (14)
 * for R2C and DHT, radix 16 in one warp (15) for the DCTs (DCT-II 27.8 us
 * against 29.8); from 2048 radix 16 at 3 blocks an SM (15). C2R at 3
 * blocks an SM (12) up to 1024, then 15. Double precision: radix 8 at 3
 * blocks an SM (12, 80 registers), with the output staged (17) for R2C,
 * DCT-II and DHT up to N = 256 (at 64 40-42 us against 53-55); from 1024
 * R2C, DCT-II and DHT through shared partners (14), and from 2048 radix
 * 16 (13: DCT-II 45.9 us against 14's 48.9 at 4096; DCT-III 47.3 against
 * 8's 48.8 at 2048), C2R radix 16 storing from registers (8). */
#define FFT_REAL_SHORT_N 128
/* below: the shared path (one thread a transform at h = 8, radix 8, ran at
 * 0.3-0.7x the shared path's speed on the H200) */
#define FFT_REAL_MIN_REGISTER_H 32
/* Below it the variants are two: the short-transform kernel
 * (fft_real_small, the default: 0) and the shared path (this one). */
#define FFT_REAL_SHARED_VARIANT 1
/* At h = FFT_REAL_SMALL_MAX_H the short-transform kernel is one more
 * variant after the register path's. */
#define FFT_REAL_SMALL_VARIANT FFT_REAL_VARIANTS
/* and the same capped at 128 registers a thread (4 blocks of 128 an SM;
 * in double it spills there: 0.69-0.94x cuFFT against 0.92-1.01x) */
#define FFT_REAL_SMALL_CAPPED_VARIANT (FFT_REAL_VARIANTS + 1)
#define FFT_REAL_SMALL_CAPPED_MINB 4
template <typename T> constexpr int fft_real_default_variant(int kind, int n)
{
    const bool dct = kind == RK_DCT2 || kind == RK_DCT3;
    /* the kinds whose post-processing stores a point (and its mirror) a thread */
    const bool spectrum_out = kind == RK_R2C || kind == RK_DCT2 || kind == RK_DHT;
    if (sizeof(T) == sizeof(float)) {
        if (kind == RK_C2R)
            return n >= 2048 ? 15 : 12;
        if (n < FFT_REAL_SHORT_N && kind == RK_R2C)
            return FFT_REAL_SMALL_CAPPED_VARIANT;
        if (spectrum_out && (n == FFT_REAL_SHORT_N || (n <= 256 && kind != RK_R2C)))
            return 16;
        return n >= 2048 || (n == 1024 && dct) ? 15 : n == 1024 ? 14 : 9;
    }
    if (n >= 2048)
        return kind == RK_C2R ? 8 : 13;
    if (spectrum_out && n <= 256)
        return 17;
    return n == 1024 && spectrum_out ? 14 : 12;
}
/* The variants (from h = FFT_REAL_MIN_REGISTER_H up: the register path's
 * and the short-transform kernel's at its longest) and the sizes a real
 * launcher compiles (fft_compiled), over h = N / 2. */
template <typename T, int KIND> struct fft_real_defaults {
    static constexpr int lo = FFT_REAL_MIN_REGISTER_H, hi = 2048;
    static constexpr int at(int h) { return fft_real_default_variant<T>(KIND, 2 * h); }
};
template <typename T, int KIND> using fft_real_compiled = fft_compiled<fft_real_defaults<T, KIND>>;
static inline const char *fft_real_variant_name(int variant)
{
    switch (variant) {
    case 0: return "fused r16";
    case 1: return "fused r16 2 tw, warp";
    case 2: return "fused r8, warp, 64 regs";
    case 3: return "fused r16 2 tw, warp, f32 4 / f64 2 blk";
    case 4: return "as 3, one transform a block";
    case 5: return "as 2, 64-thread blocks";
    case 6: return "as 4, store from registers";
    case 7: return "as 5, store from registers";
    case 8: return "as 6, size compiled in";
    case 9: return "as 7, size compiled in";
    case 10: return "as 2, size compiled in";
    case 11: return "as 8, f32 3 blk (80 regs)";
    case 12: return "as 9, 3 blk (80 regs)";
    case 13: return "as 8, from registers at any N";
    case 14: return "as 9, from registers at any N";
    case 15: return "as 13, f32 3 blk";
    case 16: return "as 9, output staged";
    case 17: return "as 12, output staged";
    default: return "?";
    }
}

/* Variant V of the register path (h >= FFT_REAL_MIN_REGISTER_H). */
template <typename T, int KIND, int V>
static cudaError_t fft_real_launch_variant(const T *in, T *out, int n, int batch, const void *tw_t,
                                           const void *qt_t, cudaStream_t stream)
{
    typedef typename fft_real_compiled<T, KIND>::template sizes<V> sizes;
    if constexpr (V == 1) {
        return fft_real_launch_radix<T, KIND, 16, 2, FFT_MIN_BLOCKS, true>(in, out, n, batch, tw_t,
                                                                           qt_t, stream);
    } else if constexpr (V == 2) {
        return fft_real_launch_radix<T, KIND, 8, 0, 4, true>(in, out, n, batch, tw_t, qt_t, stream);
    } else if constexpr (V == 3 || V == 4) {
        constexpr int minb = sizeof(T) == 4 ? 4 : 2;
        return fft_real_launch_radix<T, KIND, 16, 2, minb, true, V == 4 ? 64 : 256>(
            in, out, n, batch, tw_t, qt_t, stream);
    } else if constexpr (V == 5 || V == 7 || V == 9 || V == 12 || V == 14 || V == 16 || V == 17) {
        return fft_real_launch_radix<T, KIND, 8, 0, V == 12 || V == 17 ? 3 : 4, true, 64, V != 5, V >= 9,
                                     V == 14, sizes, V >= 16>(in, out, n, batch, tw_t, qt_t, stream);
    } else if constexpr (V == 10) {
        return fft_real_launch_radix<T, KIND, 8, 0, 4, true, 256, false, true, false, sizes>(
            in, out, n, batch, tw_t, qt_t, stream);
    } else if constexpr (V == 6 || V == 8 || V == 11 || V == 13 || V == 15) {
        constexpr int minb = sizeof(T) == 4 ? (V == 11 || V == 15 ? 3 : 4) : 2;
        return fft_real_launch_radix<T, KIND, 16, V == 6 ? 2 : 3, minb, true, 64, true, V != 6, V >= 13,
                                     sizes>(in, out, n, batch, tw_t, qt_t, stream);
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
    if (h < FFT_REAL_MIN_REGISTER_H && variant != FFT_REAL_SHARED_VARIANT)
        return fft_real_launch_small<T, KIND>(in, out, n, batch, tw_t, qt_t, stream);
    if (h < FFT_REAL_MIN_REGISTER_H) {
        const int per = h / 4 < 1 ? 1 : h / 4;
        const int ty = 256 / per;
        const size_t smem = (size_t)ty * h * sizeof(C);
        dim3 block(per, ty), grid((batch + ty - 1) / ty);
        fft_real_shared<T, KIND><<<grid, block, smem, stream>>>(in, out, n, batch, tw_d, qt_d);
        return cudaGetLastError();
    }
#ifndef FFT_ALL_VARIANTS
    variant = -1;   /* only the defaults are compiled (fft_real_compiled) */
#endif
    if (variant < 0)
        variant = fft_real_default_variant<T>(KIND, n);
    if (variant == FFT_REAL_SMALL_VARIANT || variant == FFT_REAL_SMALL_CAPPED_VARIANT) {
        constexpr bool with = fft_real_compiled<T, KIND>::has(FFT_REAL_SMALL_VARIANT),
                       with_capped = fft_real_compiled<T, KIND>::has(FFT_REAL_SMALL_CAPPED_VARIANT);
        if (h > FFT_REAL_SMALL_MAX_H)
            return cudaErrorInvalidValue;
        return variant == FFT_REAL_SMALL_VARIANT
                   ? fft_real_launch_small<T, KIND, with>(in, out, n, batch, tw_t, qt_t, stream)
                   : fft_real_launch_small<T, KIND, with_capped, FFT_REAL_SMALL_CAPPED_MINB>(
                         in, out, n, batch, tw_t, qt_t, stream);
    }
    return fft_with_variant<FFT_REAL_VARIANTS, fft_real_compiled<T, KIND>>(variant, [&](auto v_tag) {
        return fft_real_launch_variant<T, KIND, decltype(v_tag)::value>(in, out, n, batch, tw_t, qt_t,
                                                                        stream);
    });
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
