/* The GPU's own ceilings, measured rather than taken from a datasheet:
 * FP64 fused multiply-add throughput (independent FMA chains in every
 * thread, every SM full) and device memory copy bandwidth (bytes read plus
 * written by a grid-stride copy kernel). Kernels elsewhere are quoted as
 * fractions of these.
 *
 * Usage: bench/cuda_peak [DEVICE]
 * Prints: "<GFLOP/s> GFLOP/s FP64 FMA peak (<device>)" then
 *         "<GB/s> GB/s copy bandwidth (read + write)". */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "cuda_peak: %s: %s\n", #call, cudaGetErrorString(e_));         \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

#define CHAINS 8
#define ITERATIONS 4096

/* CHAINS independent dependency chains hide the FMA latency. b and c come
 * from the caller so nothing folds at compile time; the result is stored
 * so nothing is dead. */
__global__ void fma_chains(double b, double c, double *sink)
{
    double x[CHAINS];
    for (int k = 0; k < CHAINS; k++)
        x[k] = threadIdx.x + k;
    for (int i = 0; i < ITERATIONS; i++)
#pragma unroll
        for (int k = 0; k < CHAINS; k++)
            x[k] = fma(x[k], b, c);
    double s = 0;
    for (int k = 0; k < CHAINS; k++)
        s += x[k];
    if (s == 12345.678)   /* never, but the compiler cannot know */
        sink[0] = s;
}

__global__ void copy(const double2 *in, double2 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

static float time_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
}

int main(int argc, char **argv)
{
    int dev = argc > 1 ? atoi(argv[1]) : 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    double *sink;
    CHECK(cudaMalloc(&sink, sizeof *sink));

    const int threads = 256, blocks = prop.multiProcessorCount * 8;
    fma_chains<<<blocks, threads>>>(1.0000001, 1e-9, sink);   /* warm-up */
    CHECK(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int rep = 0; rep < 5; rep++) {
        CHECK(cudaEventRecord(t0));
        fma_chains<<<blocks, threads>>>(1.0000001, 1e-9, sink);
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        float ms = time_ms(t0, t1);
        best = ms < best ? ms : best;
    }
    const double flops = 2.0 * CHAINS * ITERATIONS * (double)threads * blocks;
    printf("%.0f GFLOP/s FP64 FMA peak (%s, %d SMs)\n", flops / (best * 1e-3) / 1e9, prop.name,
           prop.multiProcessorCount);

    const size_t bytes = (size_t)2 << 30;   /* 2 GiB each way: far beyond the L2 */
    double2 *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemset(in, 0, bytes));
    const size_t n = bytes / sizeof(double2);
    copy<<<prop.multiProcessorCount * 16, 512>>>(in, out, n);
    CHECK(cudaDeviceSynchronize());
    best = 1e30f;
    for (int rep = 0; rep < 5; rep++) {
        CHECK(cudaEventRecord(t0));
        copy<<<prop.multiProcessorCount * 16, 512>>>(in, out, n);
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        float ms = time_ms(t0, t1);
        best = ms < best ? ms : best;
    }
    CHECK(cudaGetLastError());
    printf("%.0f GB/s copy bandwidth (read + write)\n", 2.0 * bytes / (best * 1e-3) / 1e9);
    return 0;
}
