/* Real FFT (R2C, C2R), DCT-II/III and DHT on the GPU, power-of-two N from
 * 4 to 4096, each one kernel as fft_real_table says for the precision,
 * kind and N: one thread a transform (fft_real_small), or the N/2-point
 * complex FFT of spectral_fft.cuh with the pre-processing fused into its
 * first load (from global memory) and the post-processing into its last
 * store (fft_real_radix). Formulas and conventions as the CPU kernels
 * (common/spectral/simd/lanes_kernel.h): C2R carries 1/N and ignores the
 * imaginary parts of Y_0 and Y_{N/2}, DCT-III is (N/2) times the DCT-II's
 * inverse (the plain sums: the host applies the norm, and qt must stay
 * e^{-j pi k/(2N)}, whose entries are derived as products and complements
 * of others), DHT = Re - Im of the real FFT. */
#ifndef ORRERY_CUDA_SPECTRAL_REAL_CUH
#define ORRERY_CUDA_SPECTRAL_REAL_CUH

#include "spectral_fft.cuh"

/* The kinds (same numbers as spectral_1d.h's ORR_CUDA_R2C ...). */
enum { RK_R2C = 1, RK_C2R = 2, RK_DCT2 = 3, RK_DCT3 = 4, RK_DHT = 5 };

/* Direction of the inner h-point complex FFT: the inverse kinds run it
 * with +1 (unscaled; the store scales). */
__host__ __device__ constexpr int real_kind_sign(int kind)
{
    return kind == RK_C2R || kind == RK_DCT3 ? 1 : -1;
}

/* C2R and DCT-III: what z_i takes from the input at i (0 <= i <= h):
 * C2R's Y_i, with the imaginary parts of Y_0 and Y_h taken as 0 (numpy's
 * irfft ignores them, and the Hermitian extension has no room for them);
 * DCT-III's x_i and x_{N-i} (x_N = 0). z_i needs it at i and at h - i
 * (real_load_z_pair). */
template <int KIND, typename T, typename C>
__host__ __device__ __forceinline__ C real_pair_input(const T *src, int i, int h)
{
    if constexpr (KIND == RK_C2R) {
        C y = reinterpret_cast<const C *>(src)[i];
        if (i == 0 || i == h)
            y.y = (T)0;
        return y;
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

/* ---- the defaults: which kernel runs at each precision, kind and N ---- */

#define FFT_REAL_SMALL_THREADS 64   /* transforms (threads) a block of fft_real_small */
#define FFT_REAL_BLOCK_THREADS 64   /* threads a block of fft_real_radix, about (whole transforms) */

/* A set of kinds, for the table's rows */
#define RK_SET(kind) (1u << (kind))
#define RK_ALL (RK_SET(RK_R2C) | RK_SET(RK_C2R) | RK_SET(RK_DCT2) | RK_SET(RK_DCT3) | RK_SET(RK_DHT))
/* the kinds whose post-processing writes a point (and its mirror) a thread */
#define RK_SPECTRUM_OUT (RK_SET(RK_R2C) | RK_SET(RK_DCT2) | RK_SET(RK_DHT))

/* A row of fft_real_table: the kernel for the kinds in the set and the
 * powers of two N from n_from to n_to in one precision. Every one compiles
 * its size in (one kernel per kind and N, every pass unrolled). */
struct fft_real_config {
    bool single;       /* float (else double) */
    unsigned kinds;    /* RK_SET()s */
    int n_from, n_to;
    int path;          /* FFT_PATH_ONE_A_THREAD or FFT_PATH_REGISTERS */
    int radix;         /* register path: points a thread and pass, 8 or 16 */
    int min_blocks;    /* blocks an SM asked of the compiler (__launch_bounds__, capping the
                          registers; 0: none) */
    bool regs_any_n;   /* the post-processing from registers also where a transform spans
                          warps, the partners through shared memory (else only where they
                          meet by warp shuffles; C2R needs none, always from registers) */
    bool staged_out;   /* the output staged in the transform's shared buffer, out in 16-byte
                          vectors (real_copy_out), where a transform is one warp */
};

/* The defaults, each the fastest side by side on an H200 (the ninth
 * session's runs 2 and 5 in bench/archive/RESULTS-2026-11.md chose them
 * again once the pre- and post-processing went by pairs; today's numbers
 * and what lost: bench/spectral/RESULTS.md). The first matching row
 * counts. */
static constexpr fft_real_config fft_real_table[] = {
    /* single, kinds, N from, to, path, radix, min blocks, from registers at any N, staged out */
    /* h < 32 (at N = 16: 45-55% of copy against 23-43% for the shared-memory path) */
    {true, RK_ALL, 4, 32, FFT_PATH_ONE_A_THREAD, 0, 0, false, false},
    {true, RK_SET(RK_C2R), 64, 1024, FFT_PATH_REGISTERS, 8, 3, false, false},
    {true, RK_SET(RK_C2R), 2048, 4096, FFT_PATH_REGISTERS, 16, 3, false, false},
    /* capped at 128 registers (4 blocks of 128 an SM; in double it spills there) */
    {true, RK_SET(RK_R2C), 64, 64, FFT_PATH_ONE_A_THREAD, 0, 4, false, false},
    {true, RK_SET(RK_R2C), 128, 128, FFT_PATH_REGISTERS, 8, 4, false, true},
    /* DCT-II at 64: 24-25 us against 31 one thread a transform, 78-81% of copy */
    {true, RK_SET(RK_DCT2) | RK_SET(RK_DHT), 64, 256, FFT_PATH_REGISTERS, 8, 4, false, true},
    {true, RK_ALL, 64, 512, FFT_PATH_REGISTERS, 8, 4, false, false},
    {true, RK_SET(RK_R2C) | RK_SET(RK_DHT), 1024, 1024, FFT_PATH_REGISTERS, 8, 4, true, false},
    /* the DCTs at 1024 in one warp (DCT-II 27.8 us against 29.8) */
    {true, RK_ALL, 1024, 4096, FFT_PATH_REGISTERS, 16, 3, true, false},
    {false, RK_ALL, 4, 32, FFT_PATH_ONE_A_THREAD, 0, 0, false, false},
    /* 3 blocks an SM, 80 registers: at 64 the kinds with two outputs a point spilled */
    {false, RK_SET(RK_C2R), 64, 1024, FFT_PATH_REGISTERS, 8, 3, false, false},
    {false, RK_SET(RK_C2R), 2048, 4096, FFT_PATH_REGISTERS, 16, 2, false, false},
    /* at 64 40-42 us against 53-55 unstaged */
    {false, RK_SPECTRUM_OUT, 64, 256, FFT_PATH_REGISTERS, 8, 3, false, true},
    {false, RK_SPECTRUM_OUT, 1024, 1024, FFT_PATH_REGISTERS, 8, 4, true, false},
    /* DCT-II 45.9 us against 48.9 for radix 8 at 4096; DCT-III 47.3 against 48.8 */
    {false, RK_ALL, 2048, 4096, FFT_PATH_REGISTERS, 16, 2, true, false},
    {false, RK_ALL, 64, 1024, FFT_PATH_REGISTERS, 8, 3, false, false},
};

/* The row for kind (RK_*) and N in T's precision (path 0: none). */
template <typename T> constexpr fft_real_config fft_real_config_of(int kind, int n)
{
    for (const fft_real_config &c : fft_real_table)
        if (c.single == (sizeof(T) == sizeof(float)) && (c.kinds & RK_SET(kind)) && c.n_from <= n &&
            n <= c.n_to)
            return c;
    return fft_real_config{};
}

/* How a register-path row stores for kind at N, with 16-byte aligned ends
 * or not: the one place these follow from the row. */
struct fft_real_store {
    bool warp;       /* a transform's threads in one warp: warp barriers, partners by shuffles */
    bool regs;       /* the post-processing from registers (real_store_regs): C2R anywhere,
                        the others in one warp or where the row says; the DCTs only with
                        aligned ends (their 16-byte vectors) */
    bool via_shared; /* ... with the partners from the last pass's shared copy */
    bool staged_out; /* the output staged (R2C, DHT and DCT-II in one warp) */
};
constexpr fft_real_store fft_real_store_of(const fft_real_config &c, int kind, int n, bool aligned)
{
    const bool warp = n / 2 / c.radix <= 32, dct = kind == RK_DCT2 || kind == RK_DCT3;
    const bool regs = (aligned || !dct) && (kind == RK_C2R || warp || c.regs_any_n);
    return fft_real_store{warp, regs, regs && !warp && kind != RK_C2R,
                          c.staged_out && regs && warp && !(kind == RK_C2R || kind == RK_DCT3)};
}

/* What fft_real_radix compiles in: the row at kind KIND_ and N in T's
 * precision, and whether both ends are 16-byte aligned (the DCTs' 16-byte
 * vectors need it; their other kernel goes without). */
template <typename T_, int KIND_, int N, bool ALIGNED> struct fft_real_plan {
    typedef T_ T;
    typedef typename cpx_of<T_>::type C;
    static constexpr int kind = KIND_, n = N, h = N / 2;
    static constexpr fft_real_config cfg = fft_real_config_of<T_>(KIND_, N);
    static_assert(cfg.path == FFT_PATH_REGISTERS, "the register path's rows");
    static constexpr int radix = cfg.radix, log2_radix = radix == 16 ? 4 : 3;
    static constexpr int min_blocks = cfg.min_blocks;
    static constexpr int passes = ilog2_const(h) / log2_radix;
    /* the short last pass's points (1: none) */
    static constexpr int last_radix = 1 << (ilog2_const(h) % log2_radix);
    static constexpr fft_real_store store = fft_real_store_of(cfg, KIND_, N, ALIGNED);
    static constexpr bool warp = store.warp, regs = store.regs, via_shared = store.via_shared;
    static constexpr bool staged_out = store.staged_out;
    /* the pre-processing by pairs: C2R's and DCT-III's whatever the store
     * (real_load_pairs), DCT-II's where it loads 16-byte vectors
     * (real_load_dct2_quads) */
    static constexpr bool quads = regs && KIND_ == RK_DCT2;
    static constexpr bool pairs = KIND_ == RK_C2R || KIND_ == RK_DCT3 || quads;
    /* whether ends off the 16-byte grid take another kernel */
    static constexpr bool needs_alignment = regs != fft_real_store_of(cfg, KIND_, N, false).regs;
};

/* Writes what the row does for kind at N (and 16-byte aligned ends or not)
 * into buf: the bench's and the device check's name for it. */
static inline const char *fft_real_config_name(const fft_real_config &c, int kind, int n, bool aligned,
                                               char *buf, size_t size)
{
    if (c.path == FFT_PATH_ONE_A_THREAD) {
        snprintf(buf, size, c.min_blocks ? "one thread a transform, %d blk/SM" : "one thread a transform",
                 c.min_blocks);
        return buf;
    }
    const fft_real_store st = fft_real_store_of(c, kind, n, aligned);
    const char *store = !st.regs        ? "through shared"
                        : st.via_shared ? "from registers, partners in shared"
                                        : "from registers";
    snprintf(buf, size, "r%d, %d blk/SM, store %s%s", c.radix, c.min_blocks, store,
             st.staged_out ? ", output staged" : "");
    return buf;
}

/* ---- the register path's epilogue and prologue: where a transform's
 * threads lie in one warp, the partners the pre- and post-processing pair
 * (points k and h - k, or i and h - 1 - i) meet through warp shuffles, not
 * shared memory: no last trip through the shared buffer, no barrier, and
 * DCT-II's input and DCT-III's output move as 16-byte vectors. C2R needs
 * no partner, so it stores from registers at any size. ---- */

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

/* real_store_regs for R2C, DHT and DCT-II: Y_k and Y_{h-k} together
 * (real_spectrum_pair), k = tid + threads j for j < R / 2: every k < h / 2
 * once, so each pair is computed once, with one partner exchange, one
 * twiddle and (DCT-II) one table entry. Z_{h-k}: lane (threads - tid) mod
 * threads at R - 1 - j; lane 0's own at (R - j) mod R; from shared memory
 * slot c + c / R + partner, c = threads (R - j) (0 for k = 0). Lane 0 also
 * holds k = h / 2, its own partner: Y_{h/2} = conj Z_{h/2} (W^{h/2} = -j). */
template <int KIND, int R, int LAST_R, bool VIA_SHARED, typename T, typename C>
__device__ __forceinline__ void real_store_regs_spectrum(const C *v, T *dst, int h, const C *tw, const C *qt,
                                                         int tid, int threads, bool live, const C *sh)
{
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
        real_store_regs_spectrum<KIND, R, LAST_R, VIA_SHARED>(v, dst, h, tw, qt, tid, threads, live, sh);
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
            if (r == 0 && p == 0)   /* Y_0 and Y_h: their imaginary parts ignored */
                in_i.y = in_hmi.y = (T)0;
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


/* ---- short transforms (FFT_PATH_ONE_A_THREAD): one thread a transform,
 * all h points in its registers. The block copies its
 * transforms' inputs to shared memory and the outputs back in whole
 * contiguous runs of 16-byte vectors (coalesced: a thread alone would read
 * one transform's few bytes, spread over many sectors per warp
 * instruction; fft_small_copy); each thread's slice is an odd number of
 * complex words (so a warp's complex accesses at one offset meet no bank
 * twice) and holds its input, then its output: the spectrum stays in
 * registers between. ---- */


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


/* fft_real_small for kind and N, MINB blocks an SM (0: the compiler's choice). */
template <typename T, int KIND, int N, int MINB>
static cudaError_t fft_real_launch_small(const T *in, T *out, int batch, const void *tw_t, const void *qt_t,
                                         cudaStream_t stream)
{
    typedef typename cpx_of<T>::type C;
    const int threads = FFT_REAL_SMALL_THREADS;
    const size_t smem = (size_t)threads * real_small_stride(KIND, N) * sizeof(T);
    dim3 block(threads), grid((batch + threads - 1) / threads);
    return fft_launch(fft_real_small<T, KIND, N / 2, MINB>, grid, block, smem, stream, in, out, batch,
                      (const C *)tw_t, (const C *)qt_t);
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

/* ---- the register path (FFT_PATH_REGISTERS): radix-R passes as
 * fft_c2c_radix (R = 8 or 16), the pre-processing fused into the first
 * pass's loads and the post-processing into the last pass's stores ---- */

/* Pass `pass` of fft_real_radix (stride s = R^pass over len = h / s), in
 * place in v: the first pass's inputs by pre-processing (real_load_pairs,
 * real_load_dct2_quads or real_load_first), the others from the
 * transform's shared buffer; the DFT and twiddles; the outputs to the
 * buffer, or in the last pass (no short pass after it) straight out by
 * real_store_regs where P says so. True once the transform is stored. The
 * kernel's values by reference, as a lambda's capture. */
template <typename P> struct fft_real_pass {
    typedef typename P::T T;
    typedef typename P::C C;
    C *const &sh;            /* the transform's shared buffer */
    const T *const &src;     /* its input (transform 0's where not live) */
    T *const &dst;           /* its output (likewise) */
    const C *const &tw, *const &qt;
    const int &n, &h, &tid, &threads, &sign;
    const bool &live;        /* a transform of the batch, not past its end */
    C *const v;              /* the thread's R points */

    /* the store from registers where the partners meet by shuffles;
     * staged: into the transform's shared buffer, then out in whole
     * vectors (real_copy_out) */
    __device__ __forceinline__ void store_regs() const
    {
        constexpr int R = P::radix, LAST_R = P::last_radix;
        if constexpr (P::staged_out) {
            pass_barrier<P::warp>();   /* the last pass's reads of sh are done */
            T *stage = reinterpret_cast<T *>(sh);
            real_store_regs<P::kind, R, LAST_R, false>(v, stage, h, tw, qt, tid, threads, true);
            pass_barrier<P::warp>();
            if (live)
                real_copy_out(stage, dst, real_out_reals(P::kind, n), tid, threads);
        } else {
            real_store_regs<P::kind, R, LAST_R, false>(v, dst, h, tw, qt, tid, threads, live);
        }
    }

    /* pass 0's inputs: point i = tid + threads r (q = 0, s = 1, m =
     * threads), or for the pairs p + threads r (real_pass0_p) */
    __device__ __forceinline__ void load_first(int p) const
    {
        constexpr int KIND = P::kind, R = P::radix;
        if (P::quads) {
            real_load_dct2_quads<R>(src, v, p, real_pair_lane<KIND>(tid, threads), real_pair_width(threads),
                                    threads, live);
        } else if (P::pairs) {
            real_load_pairs<KIND, R>(src, v, h, tw, qt, p, real_pair_lane<KIND>(tid, threads),
                                     real_pair_width(threads), threads);
        } else {
            if constexpr (!P::pairs)
                real_load_first<KIND, R>(src, v, h, tid, threads, live);
        }
    }

    __device__ __forceinline__ bool operator()(int pass) const
    {
        constexpr int R = P::radix, LOG2R = P::log2_radix;
        const int s = 1 << (LOG2R * pass), len = h >> (LOG2R * pass);
        const int m = len / R, tstep = n / len;   /* the table has n = 2h points */
        const bool first = pass == 0;
        const int p = P::pairs && first ? real_pass0_p<P::kind>(tid, threads) : tid >> (LOG2R * pass);
        const int q = tid & (s - 1);
        if (first) {
            load_first(p);
        } else {
#pragma unroll
            for (int r = 0; r < R; r++)
                v[r] = sh[fft_slot<R>(q + s * (p + r * m))];
        }
        const bool last = P::last_radix == 1 && len == R;   /* its twiddles are all 1 */
        fft_radix_dft<R, C, T>(v, sign);
        if (!last)
            fft_radix_twiddles<R, C, T>(v, tw, p * tstep, sign);
        if (P::regs && !P::via_shared && last) {
            store_regs();
            return true;
        }
        if (!first)
            pass_barrier<P::warp>();
#pragma unroll
        for (int r = 0; r < R; r++)
            sh[fft_slot<R>(q + s * (R * p + r))] = v[r];
        pass_barrier<P::warp>();
        if (P::via_shared && last) {
            real_store_regs<P::kind, R, P::last_radix, true>(v, dst, h, tw, qt, tid, threads, live, sh);
            return true;
        }
        return false;
    }

    /* the short last pass (len = LAST_R points: 2, 4 or 8; R / LAST_R
     * butterflies a thread, no twiddles) after the full passes (stride s);
     * true where it stored (else real_store does, from sh) */
    __device__ __forceinline__ bool short_pass(int s) const
    {
        constexpr int R = P::radix, LAST_R = P::last_radix;
#pragma unroll
        for (int g = 0; g < R / LAST_R; g++) {
            const int q = g * threads + tid;
#pragma unroll
            for (int r = 0; r < LAST_R; r++)
                v[g * LAST_R + r] = sh[fft_slot<R>(q + s * r)];
        }
        fft_short_dfts<R, LAST_R, C, T>(v, sign);
        if (P::regs && !P::via_shared) {
            store_regs();
            return true;
        }
        pass_barrier<P::warp>();
#pragma unroll
        for (int g = 0; g < R / LAST_R; g++) {
            const int q = g * threads + tid;
#pragma unroll
            for (int r = 0; r < LAST_R; r++)
                sh[fft_slot<R>(q + s * r)] = v[g * LAST_R + r];
        }
        pass_barrier<P::warp>();
        if (P::via_shared) {
            real_store_regs<P::kind, R, LAST_R, true>(v, dst, h, tw, qt, tid, threads, live, sh);
            return true;
        }
        return false;
    }
};

/* The register kernel of plan P (fft_real_plan): h / R threads a
 * transform, blockDim.y transforms a block; shared: blockDim.y (h + h / R)
 * complex. tw, qt: the N-point tables in the kernel's precision. n_arg:
 * unused (P compiles the size in). */
template <typename P>
__global__ void __launch_bounds__(256, P::min_blocks)
fft_real_radix(const typename P::T *in, typename P::T *out, int n_arg, int batch, const typename P::C *tw,
               const typename P::C *qt)
{
    typedef typename P::T T;
    typedef typename P::C C;
    constexpr int R = P::radix, KIND = P::kind;
    extern __shared__ unsigned char smem_raw[];
    const int n = P::n, h = n / 2;
    C *const sh = reinterpret_cast<C *>(smem_raw) + (size_t)threadIdx.y * (h + h / R);
    const int t = blockIdx.x * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x, threads = h / R;
    const bool live = t < batch;
    const T *const src = in + (size_t)(live ? t : 0) * real_in_reals(KIND, n);
    T *const dst = out + (size_t)(live ? t : 0) * real_out_reals(KIND, n);
    const int sign = real_kind_sign(KIND);
    C v[R];
    const fft_real_pass<P> pass_body{sh, src, dst, tw, qt, n, h, tid, threads, sign, live, v};
    /* every pass runs (only the last can store): fft_run_passes' exit after
     * each pass made ptxas spill more here (56 bytes against 32 at h = 2048) */
    bool stored = false;
#pragma unroll
    for (int pass = 0; pass < P::passes; pass++)
        stored = pass_body(pass);
    if (P::regs && P::last_radix == 1 && stored)
        return;
    if constexpr (P::last_radix != 1)
        if (pass_body.short_pass(1 << (P::log2_radix * P::passes)))
            return;
    if (live)
        real_store<KIND, T, C, C, R>(sh, dst, h, tw, qt, tid, threads);
}

/* The register kernel of plan P at n points. */
template <typename P>
static cudaError_t fft_real_launch_plan(const typename P::T *in, typename P::T *out, int n, int batch,
                                        const void *tw, const void *qt, cudaStream_t stream)
{
    typedef typename P::C C;
    constexpr int R = P::radix;
    const int h = n / 2, per = h / R, ty = fft_transforms_per_block(per, FFT_REAL_BLOCK_THREADS);
    const size_t smem = (size_t)ty * fft_padded_len(h, R) * sizeof(C);
    dim3 block(per, ty), grid((batch + ty - 1) / ty);
    return fft_launch(fft_real_radix<P>, grid, block, smem, stream, in, out, n, batch, (const C *)tw,
                      (const C *)qt);
}

/* One real kind at N: the row's kernel, one thread a transform or the
 * register path (for the DCTs with ends off the 16-byte grid its kernel
 * without 16-byte vectors). */
template <typename T, int KIND, int N>
static cudaError_t fft_real_launch_size(const T *in, T *out, int n, int batch, const void *tw_t,
                                        const void *qt_t, cudaStream_t stream)
{
    constexpr fft_real_config c = fft_real_config_of<T>(KIND, N);
    static_assert(c.path != 0, "every kind and size has a row");
    if constexpr (c.path == FFT_PATH_ONE_A_THREAD) {
        return fft_real_launch_small<T, KIND, N, c.min_blocks>(in, out, batch, tw_t, qt_t, stream);
    } else {
        typedef fft_real_plan<T, KIND, N, true> aligned;
        if constexpr (aligned::needs_alignment)
            if (!fft_stage_aligned(in, out))
                return fft_real_launch_plan<fft_real_plan<T, KIND, N, false>>(in, out, n, batch, tw_t, qt_t,
                                                                              stream);
        return fft_real_launch_plan<aligned>(in, out, n, batch, tw_t, qt_t, stream);
    }
}

/* Any real kind (RK_*), n a power of two 4..4096: the kernel fft_real_table
 * gives. tw_t, qt_t: the N-point tables in T's precision (qt may be NULL
 * for the kinds without it). */
template <typename T>
static cudaError_t fft_real_launch(int kind, const void *in, void *out, int n, int batch, const void *tw_t,
                                   const void *qt_t, cudaStream_t stream)
{
    const T *i = (const T *)in;
    T *o = (T *)out;
    return fft_with_size<4, 4096>(n, [&](auto n_tag) {
        constexpr int N = decltype(n_tag)::value;
        switch (kind) {
        case RK_R2C: return fft_real_launch_size<T, RK_R2C, N>(i, o, n, batch, tw_t, qt_t, stream);
        case RK_C2R: return fft_real_launch_size<T, RK_C2R, N>(i, o, n, batch, tw_t, qt_t, stream);
        case RK_DCT2: return fft_real_launch_size<T, RK_DCT2, N>(i, o, n, batch, tw_t, qt_t, stream);
        case RK_DCT3: return fft_real_launch_size<T, RK_DCT3, N>(i, o, n, batch, tw_t, qt_t, stream);
        case RK_DHT: return fft_real_launch_size<T, RK_DHT, N>(i, o, n, batch, tw_t, qt_t, stream);
        default: return cudaErrorInvalidValue;
        }
    });
}

#endif
