/* cuBLAS and cuSOLVER, opened with dlopen on the first MoM run rather than
 * linked: their thread-local storage (about 150 KB with cublasLt) does not
 * fit the 32 KB stack of the timer thread boinc_init starts, so linking
 * them made boinc_init fail (pthread_create: EINVAL) for every kind the
 * CUDA app runs. A library opened later keeps its TLS off the threads'
 * stacks. The members are the libraries' own functions, typed by their
 * headers (cublas_v2.h names the v2 API's symbols *_v2). */
#ifndef ORRERY_APP_CUDA_MOM_LIBS_H
#define ORRERY_APP_CUDA_MOM_LIBS_H

#include <cublas_v2.h>
#include <cusolverDn.h>

#include "orrery.h"

#define MOM_CUDA_BLAS(X)                                                                          \
    X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasGetStatusString) X(cublasZgemm_v2)             \
    X(cublasCgemm_v2) X(cublasZtrsm_v2) X(cublasCtrsm_v2) X(cublasZtrmm_v2)
#define MOM_CUDA_SOLVER(X)                                                                        \
    X(cusolverDnCreate) X(cusolverDnDestroy) X(cusolverDnZgetrf_bufferSize)                      \
    X(cusolverDnCgetrf_bufferSize) X(cusolverDnZgetrf) X(cusolverDnCgetrf) X(cusolverDnZgetrs)   \
    X(cusolverDnCgetrs) X(cusolverDnXtrtri_bufferSize) X(cusolverDnXtrtri)

#define MOM_CUDA_MEMBER(name) __typeof__(&name) name;
typedef struct {
    MOM_CUDA_BLAS(MOM_CUDA_MEMBER)
    MOM_CUDA_SOLVER(MOM_CUDA_MEMBER)
} mom_cuda_libs;
#undef MOM_CUDA_MEMBER

/* The functions, loaded once (thread-safe), from the sonames the build
 * found (configure: CUBLAS_SONAME, CUSOLVER_SONAME), searched as dlopen
 * does (the app's run path: the toolkit's lib64). Missing:
 * ORR_ERR_UNSUPPORTED naming the library and dlopen's reason. */
orr_status mom_cuda_libs_load(const mom_cuda_libs **out, orr_error *err);

#endif
