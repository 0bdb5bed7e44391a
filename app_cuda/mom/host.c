/* The MoM kind's CUDA primitives (common/mom/device.h), which run the
 * solvers of common/mom/device.c: the system lives in device memory,
 * filled there (kernels.cu, entries.h's formulas) and factored and solved
 * with cuSOLVER and cuBLAS:
 * - the pivoted panel by cusolverDnZgetrf (Cgetrf for single factors) on
 *   the (n - j) x nb panel, its row exchanges left and right of it by our
 *   swap kernel (LAPACK's laswp), then ztrsm and zgemm; the solves by
 *   zgetrs (cgetrs on the right-hand sides rounded to single);
 * - the unpivoted panel: its diagonal block factored MICRO columns a step
 *   (our kernel on each MICRO x MICRO block, trsm and gemm on the rest),
 *   the rows below by one trsm with that block's U; the explicit inverses
 *   by cusolverDnXtrtri (L's as a non-unit triangle, U's diagonal set
 *   aside for ones meanwhile), applied by ztrmm;
 * - the residual of the double solvers (whose factors overwrite Z)
 *   against Z's columns made again on the device, SLAB columns at a time.
 *
 * Everything is queued on the default stream; finish is
 * cudaDeviceSynchronize, which sleeps (device_cuda.c sets
 * cudaDeviceScheduleBlockingSync). Every CUDA, cuBLAS and cuSOLVER return
 * code is checked: failures are ORR_ERR_DEVICE (BOINC's temporary exit)
 * where another try may work, else ORR_ERR_DEVICE_UNFIT (CUDA's by
 * orr_cuda_status, the libraries' by lib_status). The buffers that do
 * not depend on the libraries, their sizing, memory checks and uploads
 * are common/mom/device.c's (mom_dmem): a system beyond the device's
 * whole memory ORR_ERR_DEVICE_UNFIT, an allocation that fails within it
 * (memory held by another program now) ORR_ERR_DEVICE. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda_backend.h"
#include "../device_cuda.h"
#include "kernels.h"
#include "libs.h"
#include "mom/device.h"
#include "mom/lcn.h"
#include "runtime/runtime.h"

#define MICRO 32               /* columns of the unpivoted panel's inner blocks */
#define SLAB 512               /* columns of Z made again a time for a residual */
#define DEVICE_MARGIN (256.0 * 1024 * 1024)   /* cuBLAS, cuSOLVER: handles and workspaces */

struct mom_kern {
    const mom_workunit *wu;
    const mom_problem *p;
    int n, nrhs, nb;
    int single;                /* the factors in single precision */
    int inverses, refine;      /* the solver's (mom_recipe) */
    int getrf_pending;         /* getrf's status not read yet */
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    mom_cuda_system sys;       /* device pointers into the cell data */
    mom_dmem m;                /* the system, the vectors, the cells (common/mom/device.h) */
    double *z;                 /* m's, typed */
    float *zs, *xs;
    int *ipiv;
    double *v[4];
    double *norms, *dir;
    double *slab;              /* [n * SLAB] pairs (double solvers) */
    double *tmp;               /* [2 n + 2 nrhs] reductions */
    int *info;                 /* [3]: getrf's info, the first zero pivot, trtri's or getrs's info */
    void *work;                /* getrf's workspace */
    void *trtri_work;          /* faithful: trtri's device workspace */
    void *trtri_host;          /* and host workspace */
    size_t trtri_bytes, trtri_host_bytes;
};

/* cuBLAS and cuSOLVER (libs.h), set by the first open. */
static const mom_cuda_libs *lib;

/* ---- errors ---- */

static orr_status cu(cudaError_t e, const char *what, orr_error *err)
{
    return e == cudaSuccess ? ORR_OK : orr_cuda_fail(err, e, what);
}

/* cuBLAS and cuSOLVER: a handle that cannot be made (the device's
 * context or memory short now) and a failed allocation may be mended by
 * another try; an architecture mismatch, an unsupported operation, an
 * execution failure or an internal error happen again on this device. */
static orr_status lib_status(int not_initialized, int alloc_failed)
{
    return not_initialized || alloc_failed ? ORR_ERR_DEVICE : ORR_ERR_DEVICE_UNFIT;
}

static orr_status bl(cublasStatus_t s, const char *what, orr_error *err)
{
    return s == CUBLAS_STATUS_SUCCESS
               ? ORR_OK
               : orr_fail(err,
                          lib_status(s == CUBLAS_STATUS_NOT_INITIALIZED,
                                     s == CUBLAS_STATUS_ALLOC_FAILED),
                          "cuBLAS: %s: %s (status %d)", what, lib->cublasGetStatusString(s),
                          (int)s);
}

static const char *solver_status(cusolverStatus_t s)
{
    switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "not initialized";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "resource allocation failed";
    case CUSOLVER_STATUS_INVALID_VALUE: return "invalid value";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "architecture mismatch";
    case CUSOLVER_STATUS_MAPPING_ERROR: return "mapping error";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "internal error";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "matrix type not supported";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "not supported";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "invalid workspace";
    default: return "error";
    }
}

static orr_status so(cusolverStatus_t s, const char *what, orr_error *err)
{
    return s == CUSOLVER_STATUS_SUCCESS
               ? ORR_OK
               : orr_fail(err,
                          lib_status(s == CUSOLVER_STATUS_NOT_INITIALIZED,
                                     s == CUSOLVER_STATUS_ALLOC_FAILED),
                          "cuSOLVER: %s: %s (status %d)", what, solver_status(s), (int)s);
}

/* Waits (sleeping) for everything queued; a kernel's failure shows here. */
static orr_status wait_for(const char *what, orr_error *err)
{
    return cu(cudaDeviceSynchronize(), what, err);
}

/* Z's element (i, j) in double or single pairs. */
static cuDoubleComplex *zat(const mom_kern *c, int i, int j)
{
    return (cuDoubleComplex *)c->z + (size_t)j * c->n + i;
}

static cuComplex *sat(const mom_kern *c, int i, int j)
{
    return (cuComplex *)c->zs + (size_t)j * c->n + i;
}

static const cuDoubleComplex z_one = {1, 0}, z_minus_one = {-1, 0};
static const cuComplex c_one = {1, 0}, c_minus_one = {-1, 0};

/* ---- the fill ---- */

static orr_status cuda_fill(mom_kern *c, int first, int count, orr_error *err)
{
    TRY(cu(orr_cuda_mom_fill(&c->sys, first, count, (double *)zat(c, 0, first), (size_t)c->n,
                             c->norms),
           "launching the fill", err));
    if (first > 0)
        return ORR_OK;
    return cu(orr_cuda_mom_rhs(&c->sys, c->nrhs, c->dir, c->v[MOM_B]),
              "launching the right-hand sides", err);
}

/* ---- the blocked factorisation ---- */

/* The unpivoted LU of the panel (rows j .., columns j .. j + nb - 1) of
 * the double Z. Without pivoting the rows below the diagonal block need
 * only its U: the nb x nb diagonal block is factored first, MICRO columns
 * a step (our kernel on the MICRO x MICRO block, then trsm and gemm on the
 * rest of the diagonal block), and the rows below take L = A U^-1 in one
 * trsm, where a column-at-a-time panel would run 2 nb launches over the
 * full height. */
static orr_status panel_unpivoted(mom_kern *c, int j, int nb, orr_error *err)
{
    const int n = c->n, end = j + nb;
    for (int kb = j; kb < end; kb += MICRO) {
        const int w = end - kb < MICRO ? end - kb : MICRO, right = end - kb - w;
        TRY(cu(orr_cuda_mom_diagonal_lu((double *)zat(c, kb, kb), (size_t)n, w, kb, c->info + 1),
               "launching the diagonal block's LU", err));
        if (right == 0)
            break;
        TRY(bl(lib->cublasZtrsm_v2(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                   CUBLAS_DIAG_UNIT, w, right, &z_one, zat(c, kb, kb), n,
                                   zat(c, kb, kb + w), n),
               "ztrsm for the diagonal block's U", err));
        TRY(bl(lib->cublasZtrsm_v2(c->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                   CUBLAS_DIAG_NON_UNIT, right, w, &z_one, zat(c, kb, kb), n,
                                   zat(c, kb + w, kb), n),
               "ztrsm for the diagonal block's L", err));
        TRY(bl(lib->cublasZgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, right, right, w, &z_minus_one,
                                   zat(c, kb + w, kb), n, zat(c, kb, kb + w), n, &z_one,
                                   zat(c, kb + w, kb + w), n),
               "zgemm in the diagonal block", err));
    }
    if (n - end > 0)
        TRY(bl(lib->cublasZtrsm_v2(c->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                   CUBLAS_DIAG_NON_UNIT, n - end, nb, &z_one, zat(c, j, j), n,
                                   zat(c, end, j), n),
               "ztrsm for the panel's L", err));
    return ORR_OK;
}

/* getrf on the panel, its pivots made global; getrf's status is read at finish. */
static orr_status cuda_panel(mom_kern *c, int j, int nb, int pivoting, orr_error *err)
{
    const int n = c->n, m = n - j;
    if (!pivoting)
        return panel_unpivoted(c, j, nb, err);
    c->getrf_pending = 1;
    if (c->single)
        TRY(so(lib->cusolverDnCgetrf(c->solver, m, nb, sat(c, j, j), n, c->work, c->ipiv + j,
                                     c->info),
               "cgetrf on the panel", err));
    else
        TRY(so(lib->cusolverDnZgetrf(c->solver, m, nb, zat(c, j, j), n, c->work, c->ipiv + j,
                                     c->info),
               "zgetrf on the panel", err));
    return cu(orr_cuda_mom_offset_pivots(c->ipiv, j, nb), "launching the pivots' offset", err);
}

static orr_status cuda_swap(mom_kern *c, int j, int nb, orr_error *err)
{
    const int n = c->n;
    void *a = c->single ? (void *)c->zs : (void *)c->z;
    TRY(cu(orr_cuda_mom_swap_rows(a, c->single, (size_t)n, 0, j, c->ipiv, j, j + nb),
           "launching the row exchanges", err));
    return cu(orr_cuda_mom_swap_rows(a, c->single, (size_t)n, j + nb, n, c->ipiv, j, j + nb),
              "launching the row exchanges", err);
}

static orr_status cuda_trsm(mom_kern *c, int j, int nb, orr_error *err)
{
    const int n = c->n, rest = n - j - nb;
    if (c->single)
        return bl(lib->cublasCtrsm_v2(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                      CUBLAS_DIAG_UNIT, nb, rest, &c_one, sat(c, j, j), n,
                                      sat(c, j, j + nb), n),
                  "ctrsm", err);
    return bl(lib->cublasZtrsm_v2(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                  CUBLAS_DIAG_UNIT, nb, rest, &z_one, zat(c, j, j), n,
                                  zat(c, j, j + nb), n),
              "ztrsm", err);
}

static orr_status cuda_gemm(mom_kern *c, int j, int nb, orr_error *err)
{
    const int n = c->n, rest = n - j - nb;
    if (c->single)
        return bl(lib->cublasCgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, rest, rest, nb, &c_minus_one,
                                      sat(c, j + nb, j), n, sat(c, j, j + nb), n, &c_one,
                                      sat(c, j + nb, j + nb), n),
                  "cgemm", err);
    return bl(lib->cublasZgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, rest, rest, nb, &z_minus_one,
                                  zat(c, j + nb, j), n, zat(c, j, j + nb), n, &z_one,
                                  zat(c, j + nb, j + nb), n),
              "zgemm", err);
}

static orr_status cuda_to_single(mom_kern *c, orr_error *err)
{
    return cu(orr_cuda_mom_to_single(c->z, c->zs, (size_t)c->n * c->n),
              "launching the conversion to single", err);
}

/* The blocking-sync flag sleeps by itself: expected_s is not needed. */
static orr_status cuda_finish(mom_kern *c, double expected_s, int *zero_pivot, orr_error *err)
{
    (void)expected_s;
    TRY(wait_for("running the MoM kernels", err));
    if (!zero_pivot && !c->getrf_pending)
        return ORR_OK;
    int info[2];
    TRY(cu(cudaMemcpy(info, c->info, sizeof info, cudaMemcpyDeviceToHost), "reading the LU's status",
           err));
    if (c->getrf_pending && info[0] < 0)
        return orr_fail(err, ORR_ERR_INTERNAL, "getrf: argument %d", -info[0]);
    /* singular (info > 0) shows as a zero pivot: the solve's backward error reports it */
    c->getrf_pending = 0;
    if (zero_pivot)
        *zero_pivot = info[1] != INT_MAX ? info[1] : -1;
    return ORR_OK;
}

/* ---- the solves ---- */

static cuDoubleComplex *vec(const mom_kern *c, mom_vec v)
{
    return (cuDoubleComplex *)c->v[v];
}

static orr_status copy_vec(mom_kern *c, mom_vec dst, mom_vec src, orr_error *err)
{
    return cu(cudaMemcpy(c->v[dst], c->v[src], (size_t)c->n * c->nrhs * 16,
                         cudaMemcpyDeviceToDevice),
              "copying the right-hand sides", err);
}

/* The status getrs or trtri left in info[2]: an argument's (< 0) or a zero pivot's. */
static orr_status solver_info(mom_kern *c, const char *what, int *e, orr_error *err)
{
    TRY(cu(cudaMemcpy(e, c->info + 2, sizeof *e, cudaMemcpyDeviceToHost), "reading the solver's status",
           err));
    return *e < 0 ? orr_fail(err, ORR_ERR_INTERNAL, "%s: argument %d", what, -*e) : ORR_OK;
}

/* dst = Z^-1 src: zgetrs on the double factors, else cgetrs on src rounded. */
static orr_status cuda_solve(mom_kern *c, mom_vec src, mom_vec dst, orr_error *err)
{
    const size_t len = (size_t)c->n * c->nrhs;
    int e = 0;
    if (!c->single) {
        TRY(copy_vec(c, dst, src, err));
        TRY(so(lib->cusolverDnZgetrs(c->solver, CUBLAS_OP_N, c->n, c->nrhs, zat(c, 0, 0), c->n,
                                     c->ipiv, vec(c, dst), c->n, c->info + 2),
               "zgetrs", err));
        return solver_info(c, "zgetrs", &e, err);
    }
    TRY(cu(orr_cuda_mom_to_single(c->v[src], c->xs, len), "launching the conversion to single", err));
    TRY(so(lib->cusolverDnCgetrs(c->solver, CUBLAS_OP_N, c->n, c->nrhs, (const cuComplex *)c->zs,
                                 c->n, c->ipiv, (cuComplex *)c->xs, c->n, c->info + 2),
           "cgetrs", err));
    TRY(cu(orr_cuda_mom_to_double(c->xs, c->v[dst], len), "launching the conversion to double", err));
    return solver_info(c, "cgetrs", &e, err);
}

/* R = B - Z x in double: Z itself where it was kept, else made again a
 * slab of columns at a time (the double solvers factor Z in place). */
static orr_status cuda_residual(mom_kern *c, mom_vec xv, orr_error *err)
{
    const int n = c->n, nrhs = c->nrhs;
    const cuDoubleComplex *x = vec(c, xv);
    TRY(copy_vec(c, MOM_R, MOM_B, err));
    if (c->single)
        return bl(lib->cublasZgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, nrhs, n, &z_minus_one,
                                      (const cuDoubleComplex *)c->z, n, x, n, &z_one, vec(c, MOM_R),
                                      n),
                  "zgemm for the residual", err);
    for (int j = 0; j < n; j += SLAB) {
        const int cols = n - j < SLAB ? n - j : SLAB;
        TRY(cu(orr_cuda_mom_fill(&c->sys, j, cols, c->slab, (size_t)n, NULL),
               "launching the residual's fill", err));
        TRY(bl(lib->cublasZgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, nrhs, cols, &z_minus_one,
                                   (const cuDoubleComplex *)c->slab, n, x + j, n, &z_one,
                                   vec(c, MOM_R), n),
               "zgemm for the residual", err));
    }
    return ORR_OK;
}

/* The column sums on the device. */
static orr_status cuda_sums(mom_kern *c, mom_vec v, double *host, orr_error *err)
{
    TRY(cu(orr_cuda_mom_column_sums(c->v[v], c->n, c->nrhs, c->tmp), "launching the sums", err));
    return cu(cudaMemcpy(host, c->tmp, (size_t)c->nrhs * sizeof *host, cudaMemcpyDeviceToHost),
              "reading the sums", err);
}

static orr_status cuda_u_stats(mom_kern *c, double *host, orr_error *err)
{
    const size_t n = (size_t)c->n;
    TRY(cu(orr_cuda_mom_u_norms(c->z, n, c->n, c->tmp, c->tmp + n),
           "launching the growth factor's maxima", err));
    return cu(cudaMemcpy(host, c->tmp, 2 * n * sizeof *host, cudaMemcpyDeviceToHost),
              "reading the growth factor's maxima", err);
}

/* dst = T^-1 src: T inverted in place by cusolverDnXtrtri, then applied
 * by ztrmm. L^-1: U's diagonal set aside (in tmp) for ones, and L
 * inverted as a non-unit triangle. cusolverDnXtrtri with CUBLAS_DIAG_UNIT
 * inverts L right but writes the diagonal, which holds U's (cuSOLVER
 * 12.0.4 of CUDA 13.0 on an H200: backward errors of 1e13 n eps before
 * this). */
static orr_status cuda_inverse(mom_kern *c, int lower, mom_vec src, mom_vec dst, orr_error *err)
{
    const int n = c->n;
    const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    int e = 0;
    if (lower)
        TRY(cu(orr_cuda_mom_diagonal(c->z, (size_t)n, n, c->tmp, 1),
               "launching the diagonal's exchange", err));
    TRY(so(lib->cusolverDnXtrtri(c->solver, uplo, CUBLAS_DIAG_NON_UNIT, n, CUDA_C_64F, c->z, n,
                                 c->trtri_work, c->trtri_bytes, c->trtri_host, c->trtri_host_bytes,
                                 c->info + 2),
           lower ? "trtri of L" : "trtri of U", err));
    if (lower)
        TRY(cu(orr_cuda_mom_diagonal(c->z, (size_t)n, n, c->tmp, 0),
               "launching the diagonal's exchange", err));
    TRY(solver_info(c, "trtri", &e, err));
    if (e)
        return orr_fail(err, ORR_ERR_NUMERIC, "faithful: U is singular (pivot %d is zero)", e);
    TRY(copy_vec(c, dst, src, err));
    return bl(lib->cublasZtrmm_v2(c->blas, CUBLAS_SIDE_LEFT, uplo, CUBLAS_OP_N,
                                  lower ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, n, c->nrhs,
                                  &z_one, zat(c, 0, 0), n, vec(c, dst), n, vec(c, dst), n),
              lower ? "ztrmm by L^-1" : "ztrmm by U^-1", err);
}

static orr_status cuda_add(mom_kern *c, mom_vec dst, mom_vec src, orr_error *err)
{
    return cu(orr_cuda_mom_add(c->v[src], c->v[dst], (size_t)c->n * c->nrhs),
              "launching the correction", err);
}

static orr_status cuda_get(mom_kern *c, mom_vec v, double *host, orr_error *err)
{
    TRY(cu(cudaMemcpy(host, c->v[v], (size_t)c->n * c->nrhs * 16, cudaMemcpyDeviceToHost),
           "reading the currents", err));
    return wait_for("solving", err);
}

/* ---- state ---- */

static orr_status cuda_read(mom_kern *c, mom_state s, void *host, orr_error *err)
{
    return mom_dmem_read(&c->m, s, host, err);
}

static orr_status cuda_write(mom_kern *c, mom_state s, const void *host, orr_error *err)
{
    return mom_dmem_write(&c->m, s, host, err);
}

/* ---- open, close ---- */

/* Device bytes of the system beyond mom_dmem's: the residual's slab,
 * the reductions, the libraries' handles and workspaces (DEVICE_MARGIN). */
static double device_bytes(const mom_kern *c)
{
    return (c->single ? 0 : (double)c->n * SLAB * 16) + (double)c->n * 16 + (double)c->nrhs * 16 +
           DEVICE_MARGIN;
}

static void cuda_close(mom_kern *c)
{
    if (!c)
        return;
    void *const mem[] = {c->slab, c->tmp, c->info, c->work, c->trtri_work};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        if (mem[i])
            c->m.d->api->release(c->m.d, mem[i]);
    mom_dmem_close(&c->m);
    free(c->trtri_host);
    if (c->solver)
        lib->cusolverDnDestroy(c->solver);
    if (c->blas)
        lib->cublasDestroy_v2(c->blas);
    free(c);
}

/* The kernels' view of m's buffers. */
static void bind(mom_kern *c)
{
    const mom_dmem *m = &c->m;
    const mom_problem *p = c->p;
    const double k = p->lcn ? p->lcn->k : p->g.k;
    c->z = m->z, c->zs = m->zs, c->xs = m->xs, c->ipiv = m->ipiv;
    for (int v = 0; v < 4; v++)
        c->v[v] = m->v[v];
    c->norms = m->norms, c->dir = m->dir;
    c->sys.n = c->n;
    c->sys.lcn = p->lcn != NULL;
    c->sys.k = k;
    c->sys.k_eta_4 = k * MOM_ETA / 4;
    c->sys.px = m->px, c->sys.py = m->py, c->sys.w = m->w;
    c->sys.col_start = m->col_start, c->sys.col_row = m->col_row;
    c->sys.col_re = m->col_re, c->sys.col_im = m->col_im;
}

/* getrf's workspace for the tallest panel, trtri's. */
static orr_status workspaces(mom_kern *c, orr_error *err)
{
    const int n = c->n, nb = n < c->nb ? n : c->nb;
    int lwork = 0;
    size_t work_bytes = 0;
    if (c->single) {
        TRY(so(lib->cusolverDnCgetrf_bufferSize(c->solver, n, nb, (cuComplex *)c->zs, n, &lwork),
               "sizing cgetrf's workspace", err));
        work_bytes = (size_t)lwork * 8;
    } else if (!c->inverses) {
        TRY(so(lib->cusolverDnZgetrf_bufferSize(c->solver, n, nb, (cuDoubleComplex *)c->z, n, &lwork),
               "sizing zgetrf's workspace", err));
        work_bytes = (size_t)lwork * 16;
    }
    TRY(mom_dmem_alloc(&c->m, &c->work, work_bytes, err));
    if (!c->inverses)
        return ORR_OK;
    const cublasFillMode_t uplo[2] = {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
    for (int t = 0; t < 2; t++) {
        size_t dev = 0, host = 0;
        TRY(so(lib->cusolverDnXtrtri_bufferSize(c->solver, uplo[t], CUBLAS_DIAG_NON_UNIT, n,
                                                CUDA_C_64F, c->z, n, &dev, &host),
               "sizing trtri's workspace", err));
        c->trtri_bytes = dev > c->trtri_bytes ? dev : c->trtri_bytes;
        c->trtri_host_bytes = host > c->trtri_host_bytes ? host : c->trtri_host_bytes;
    }
    TRY(mom_dmem_alloc(&c->m, &c->trtri_work, c->trtri_bytes, err));
    if (c->trtri_host_bytes && !(c->trtri_host = malloc(c->trtri_host_bytes)))
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for trtri's host workspace");
    return ORR_OK;
}

/* The handles, the buffers, the workspaces; the caller closes c on failure. */
static orr_status setup(mom_kern *c, orr_device *d, const mom_plan *plan, orr_error *err)
{
    const long nnz = c->p->lcn ? c->p->lcn->col_start[c->n] : 0;
    const double need = mom_dmem_bytes(plan, nnz) + device_bytes(c);
    TRY(bl(lib->cublasCreate_v2(&c->blas), "creating the handle", err));
    TRY(so(lib->cusolverDnCreate(&c->solver), "creating the handle", err));
    TRY(mom_dmem_open(&c->m, d, c->wu, c->p, plan, need, 16.0 * c->n * c->n, err));
    bind(c);
    orr_dmem mem = NULL;
    if (!c->single) {
        TRY(mom_dmem_alloc(&c->m, &mem, (size_t)c->n * SLAB * 16, err));
        c->slab = mem;
    }
    TRY(mom_dmem_alloc(&c->m, &mem, (2 * (size_t)c->n + 2 * (size_t)c->nrhs) * sizeof(double),
                       err));
    c->tmp = mem;
    TRY(mom_dmem_alloc(&c->m, &mem, 3 * sizeof(int), err));
    c->info = mem;
    const int info0[3] = {0, INT_MAX, 0};
    TRY(d->api->upload(d, c->info, 0, info0, sizeof info0, err));
    TRY(workspaces(c, err));
    return wait_for("preparing the device", err);
}

static orr_status cuda_open(void *state, const mom_workunit *wu, const mom_problem *p,
                            mom_plan *plan, mom_kern **out, orr_error *err)
{
    TRY(mom_cuda_libs_load(&lib, err));
    mom_kern *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->wu = wu, c->p = p, c->n = p->n, c->nrhs = wu->n_incidence, c->nb = plan->nb;
    c->single = plan->single;
    c->inverses = plan->rc->inverses, c->refine = plan->rc->refine;
    orr_status st = setup(c, state, plan, err);
    if (st != ORR_OK) {
        cuda_close(c);
        return st;
    }
    *out = c;
    return ORR_OK;
}

/* Blocks of 256 columns (ORRERY_MOM_CUDA_BLOCK: multiples of 32 up to
 * 1024, for measuring). */
static const mom_kernels cuda_mom_kernels = {
    "CUDA",       256,          32,          1024,        32,          "ORRERY_MOM_CUDA_BLOCK",
    NULL,         orr_runtime_seconds, cuda_open, cuda_close, cuda_fill, cuda_to_single,
    cuda_panel,   cuda_swap,    cuda_trsm,   cuda_gemm,   cuda_finish, cuda_solve,
    cuda_u_stats, cuda_inverse, cuda_residual, cuda_sums, cuda_add,    copy_vec,
    cuda_get,     cuda_read,    cuda_write};

orr_status mom_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    return mom_device_attach(&cuda_mom_kernels, be->ctx, NULL, slot, err);
}
