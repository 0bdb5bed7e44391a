/* The anchors of the MoM kind's GPU benchmark (bench/mom/RESULTS.md):
 * cuSOLVER's zgetrf and cgetrf (partial pivoting) and cuBLAS's zgemm /
 * cgemm (the rate an LU's trailing updates can reach) on the same device,
 * for each N; GFLOP/s at (8/3) n^3 real flops for the LU and 8 n^3 for the
 * product. The matrix: uniform random entries plus n on the diagonal (the
 * LU's time does not depend on the values). Best of three runs each.
 *
 *   bench/mom/cusolver_lu_bench N...   (default 2000 5000 10000) */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call, ok)                                                                   \
    do {                                                                                  \
        if ((call) != (ok)) {                                                             \
            fprintf(stderr, "cusolver_lu_bench: %s failed (line %d)\n", #call, __LINE__); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define CUDA(call) CHECK(call, cudaSuccess)
#define SOLVER(call) CHECK(call, CUSOLVER_STATUS_SUCCESS)
#define BLAS(call) CHECK(call, CUBLAS_STATUS_SUCCESS)

/* The test matrix in host memory, as pairs of reals of type T. */
template <typename T> static T *make_matrix(int n)
{
    T *a = (T *)malloc((size_t)n * n * 2 * sizeof(T));
    srand(12345);
    for (size_t e = 0; e < (size_t)n * n * 2; e++)
        a[e] = (T)rand() / RAND_MAX - (T)0.5;
    for (int i = 0; i < n; i++)
        a[2 * ((size_t)i * n + i)] += (T)n;
    return a;
}

static float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms;
    CUDA(cudaEventSynchronize(b));
    CUDA(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

/* Best of three zgetrf (or cgetrf) runs on a fresh copy, seconds. */
template <typename T, typename C>
static double time_getrf(cusolverDnHandle_t h, int n, bool dbl)
{
    T *host = make_matrix<T>(n);
    C *a, *work;
    int *ipiv, *info, lwork;
    const size_t bytes = (size_t)n * n * sizeof(C);
    CUDA(cudaMalloc(&a, bytes));
    CUDA(cudaMalloc(&ipiv, n * sizeof(int)));
    CUDA(cudaMalloc(&info, sizeof(int)));
    if (dbl)
        SOLVER(cusolverDnZgetrf_bufferSize(h, n, n, (cuDoubleComplex *)a, n, &lwork));
    else
        SOLVER(cusolverDnCgetrf_bufferSize(h, n, n, (cuComplex *)a, n, &lwork));
    CUDA(cudaMalloc(&work, (size_t)lwork * sizeof(C)));
    cudaEvent_t t0, t1;
    CUDA(cudaEventCreate(&t0));
    CUDA(cudaEventCreate(&t1));
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        CUDA(cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice));
        CUDA(cudaEventRecord(t0));
        if (dbl)
            SOLVER(cusolverDnZgetrf(h, n, n, (cuDoubleComplex *)a, n, (cuDoubleComplex *)work, ipiv, info));
        else
            SOLVER(cusolverDnCgetrf(h, n, n, (cuComplex *)a, n, (cuComplex *)work, ipiv, info));
        CUDA(cudaEventRecord(t1));
        const double s = elapsed_ms(t0, t1) / 1e3;
        best = s < best ? s : best;
    }
    int status;
    CUDA(cudaMemcpy(&status, info, sizeof status, cudaMemcpyDeviceToHost));
    if (status != 0)
        fprintf(stderr, "cusolver_lu_bench: getrf info %d\n", status);
    CUDA(cudaFree(a));
    CUDA(cudaFree(ipiv));
    CUDA(cudaFree(info));
    CUDA(cudaFree(work));
    free(host);
    return best;
}

/* Best of three n x n x n products, seconds. */
template <typename C> static double time_gemm(cublasHandle_t h, int n, bool dbl)
{
    C *a, *c;
    const size_t bytes = (size_t)n * n * sizeof(C);
    CUDA(cudaMalloc(&a, bytes));
    CUDA(cudaMalloc(&c, bytes));
    CUDA(cudaMemset(a, 0, bytes));
    cudaEvent_t t0, t1;
    CUDA(cudaEventCreate(&t0));
    CUDA(cudaEventCreate(&t1));
    double best = 1e30;
    const cuDoubleComplex zone = {1, 0}, zzero = {0, 0};
    const cuComplex cone = {1, 0}, czero = {0, 0};
    for (int r = 0; r < 3; r++) {
        CUDA(cudaEventRecord(t0));
        if (dbl)
            BLAS(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &zone, (cuDoubleComplex *)a, n,
                             (cuDoubleComplex *)a, n, &zzero, (cuDoubleComplex *)c, n));
        else
            BLAS(cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &cone, (cuComplex *)a, n,
                             (cuComplex *)a, n, &czero, (cuComplex *)c, n));
        CUDA(cudaEventRecord(t1));
        const double s = elapsed_ms(t0, t1) / 1e3;
        best = s < best ? s : best;
    }
    CUDA(cudaFree(a));
    CUDA(cudaFree(c));
    return best;
}

int main(int argc, char **argv)
{
    cudaDeviceProp prop;
    CUDA(cudaGetDeviceProperties(&prop, 0));
    cusolverDnHandle_t solver;
    cublasHandle_t blas;
    SOLVER(cusolverDnCreate(&solver));
    BLAS(cublasCreate(&blas));
    printf("device %s\n%6s %20s %20s %20s %20s\n", prop.name, "N", "zgetrf s (GF/s)",
           "cgetrf s (GF/s)", "zgemm s (GF/s)", "cgemm s (GF/s)");
    const int defaults[] = {2000, 5000, 10000};
    const int count = argc > 1 ? argc - 1 : 3;
    for (int i = 0; i < count; i++) {
        const int n = argc > 1 ? atoi(argv[1 + i]) : defaults[i];
        const double lu = 8.0 / 3 * n * (double)n * n, mm = 8.0 * n * (double)n * n;
        const double t[4] = {time_getrf<double, double2>(solver, n, true),
                             time_getrf<float, float2>(solver, n, false),
                             time_gemm<double2>(blas, n, true), time_gemm<float2>(blas, n, false)};
        printf("%6d", n);
        for (int k = 0; k < 4; k++)
            printf(" %9.4f (%8.1f)", t[k], (k < 2 ? lu : mm) / t[k] / 1e9);
        printf("\n");
    }
    cusolverDnDestroy(solver);
    cublasDestroy(blas);
    return 0;
}
