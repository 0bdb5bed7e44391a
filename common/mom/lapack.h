/* The LAPACK and BLAS routines the CPU solvers call, from OpenBLAS (both,
 * threaded), loaded with dlopen on the first MoM run rather than linked:
 * OpenBLAS's thread-local storage (60 KB) does not fit the 32 KB stack of
 * the timer thread boinc_init starts, so linking it makes boinc_init fail
 * (pthread_create: EINVAL); a library opened later keeps its TLS off the
 * threads' stacks. Fortran's calling convention: every argument by
 * reference, complex values as pairs of reals (void here). */
#ifndef ORRERY_MOM_LAPACK_H
#define ORRERY_MOM_LAPACK_H

#include "../orrery.h"

typedef int lapack_int;

#define MOM_LAPACK_ROUTINES(p)                                                                       \
    void (*p##getrf)(const lapack_int *m, const lapack_int *n, void *a, const lapack_int *lda,       \
                     lapack_int *ipiv, lapack_int *info);                                            \
    void (*p##getrs)(const char *trans, const lapack_int *n, const lapack_int *nrhs, const void *a,  \
                     const lapack_int *lda, const lapack_int *ipiv, void *b, const lapack_int *ldb,  \
                     lapack_int *info);                                                              \
    void (*p##laswp)(const lapack_int *n, void *a, const lapack_int *lda, const lapack_int *k1,      \
                     const lapack_int *k2, const lapack_int *ipiv, const lapack_int *incx);          \
    void (*p##trsm)(const char *side, const char *uplo, const char *transa, const char *diag,        \
                    const lapack_int *m, const lapack_int *n, const void *alpha, const void *a,      \
                    const lapack_int *lda, void *b, const lapack_int *ldb);                          \
    void (*p##gemm)(const char *transa, const char *transb, const lapack_int *m,                     \
                    const lapack_int *n, const lapack_int *k, const void *alpha, const void *a,      \
                    const lapack_int *lda, const void *b, const lapack_int *ldb, const void *beta,   \
                    void *c, const lapack_int *ldc);                                                 \
    void (*p##trtri)(const char *uplo, const char *diag, const lapack_int *n, void *a,               \
                     const lapack_int *lda, lapack_int *info);                                       \
    void (*p##trmm)(const char *side, const char *uplo, const char *transa, const char *diag,        \
                    const lapack_int *m, const lapack_int *n, const void *alpha, const void *a,      \
                    const lapack_int *lda, void *b, const lapack_int *ldb);

typedef struct {
    MOM_LAPACK_ROUTINES(z)   /* double complex */
    MOM_LAPACK_ROUTINES(c)   /* single complex */
    void (*set_threads)(int n);   /* OpenBLAS's openblas_set_num_threads */
} mom_lapack;

/* The routines, loaded once (thread-safe); the library is
 * $ORRERY_OPENBLAS if set, else libopenblas.so.0 (Debian's libopenblas0).
 * Missing: ORR_ERR_UNSUPPORTED naming the library and dlopen's reason. */
orr_status mom_lapack_load(const mom_lapack **out, orr_error *err);

#endif
