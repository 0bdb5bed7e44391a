/* One core's double-precision peak, measured: independent chains of fused
 * multiply-adds in the widest vectors this CPU runs (AVX-512, else AVX2+FMA,
 * else SSE2 multiply + add), 2 flops per lane per FMA. The separation bench
 * divides its model-GFLOP/s by this to report the fraction of peak. */
#include <stdio.h>
#include <time.h>

#define CHAINS 12

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Twelve named accumulators: the compiler keeps them in registers, and
 * twelve chains cover the FMA latency on every current core. */
#define PEAK_KERNEL(NAME, TARGET, WIDTH)                                                  \
    __attribute__((target(TARGET))) static double NAME(long iters)                        \
    {                                                                                     \
        typedef double v __attribute__((vector_size(WIDTH * 8)));                         \
        const v a = (v){0} + 0.999999999, b = (v){0} + 1e-9;                              \
        v c0 = a, c1 = a + 1, c2 = a + 2, c3 = a + 3, c4 = a + 4, c5 = a + 5;             \
        v c6 = a + 6, c7 = a + 7, c8 = a + 8, c9 = a + 9, c10 = a + 10, c11 = a + 11;     \
        for (long k = 0; k < iters; k++) {                                                \
            c0 = c0 * a + b; c1 = c1 * a + b; c2 = c2 * a + b; c3 = c3 * a + b;           \
            c4 = c4 * a + b; c5 = c5 * a + b; c6 = c6 * a + b; c7 = c7 * a + b;           \
            c8 = c8 * a + b; c9 = c9 * a + b; c10 = c10 * a + b; c11 = c11 * a + b;       \
        }                                                                                 \
        v t = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;               \
        double s = 0;                                                                     \
        for (int j = 0; j < WIDTH; j++)                                                   \
            s += t[j];                                                                    \
        return s;                                                                         \
    }

PEAK_KERNEL(peak_avx512, "avx512f,fma", 8)
PEAK_KERNEL(peak_avx2, "avx2,fma", 4)
PEAK_KERNEL(peak_sse2, "sse2", 2)

int main(void)
{
    const char *name = "sse2";
    double (*kernel)(long) = peak_sse2;
    int width = 2, flops_per_op = 2;
    if (__builtin_cpu_supports("avx512f")) {
        name = "avx512";
        kernel = peak_avx512;
        width = 8;
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        name = "avx2";
        kernel = peak_avx2;
        width = 4;
    }
    long iters = 1000000;
    double best = 0, sink = 0;
    for (int round = 0; round < 5; round++) {
        double t0 = seconds();
        sink += kernel(iters);
        double t = seconds() - t0;
        if (t < 0.2) {
            iters *= 2;
            round--;
            continue;
        }
        double gflops = (double)iters * CHAINS * width * flops_per_op / t / 1e9;
        best = gflops > best ? gflops : best;
    }
    printf("%.1f GFLOP/s per core (%s FMA, measured; sink %g)\n", best, name, sink > 0 ? 1.0 : 0.0);
    return 0;
}
