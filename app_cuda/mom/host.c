/* The MoM kind's CUDA ops (common/mom/ops.h): the system lives in device
 * memory, filled there (kernels.cu, entries.h's formulas) and factored
 * and solved with cuSOLVER and cuBLAS, with the reference's semantics
 * (common/mom/reference.c) step for step:
 * - reference: right-looking blocked LU with partial pivoting, a block
 *   column of BLOCK a step: cusolverDnZgetrf on the (n - j) x nb panel,
 *   the panel's row exchanges applied to the columns left and right of it
 *   (our swap kernel: LAPACK's laswp), ztrsm, zgemm; zgetrs for the solves;
 * - faithful: the same blocking without pivoting; the panel unpivoted:
 *   its diagonal block factored MICRO columns a step (our kernel on each
 *   MICRO x MICRO block, trsm and gemm on the rest), the rows below by one
 *   trsm with that block's U; the growth factor and smallest pivot from U,
 *   the explicit inverses of L and U by cusolverDnXtrtri (L's as a
 *   non-unit triangle, U's diagonal set aside for ones meanwhile), and
 *   x = U^-1 (L^-1 b) by two ztrmm;
 * - mixed, and precision single: the blocked LU in single complex
 *   (cgetrf, ctrsm, cgemm) on a float copy of Z made at the first block;
 *   cgetrs for the solves; mixed then refines exactly as reference.c's
 *   refine(), residuals in double against the kept double Z.
 * The residual of the double solvers (whose factors overwrite Z) is taken
 * against Z's columns made again on the device, SLAB columns at a time.
 * The state arrays have reference.c's sizes and layouts (complex as pairs,
 * pivots as 1-based ints), so a checkpoint has the CPU's format.
 *
 * Everything is queued on the default stream; each op ends with
 * cudaDeviceSynchronize, which sleeps (device_cuda.c sets
 * cudaDeviceScheduleBlockingSync), so the job's per-step timing is the
 * GPU's and an op's errors are its own. Every CUDA, cuBLAS and cuSOLVER
 * return code is checked: failures are ORR_ERR_DEVICE (BOINC's temporary
 * exit) where another try may work, else ORR_ERR_DEVICE_UNFIT (CUDA's by
 * orr_cuda_status, the libraries' by lib_status), device memory that
 * cannot hold the system ORR_ERR_NOMEM. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda_backend.h"
#include "../device_cuda.h"
#include "kernels.h"
#include "libs.h"
#include "mom/lcn.h"
#include "mom/ops.h"

#define BLOCK 256              /* columns of a factorisation step */
#define MICRO 32               /* columns of the unpivoted panel's inner blocks */
#define SLAB 512               /* columns of Z made again a time for a residual */
#define MAX_REFINEMENTS 30
#define DEVICE_MARGIN (256.0 * 1024 * 1024)   /* cuBLAS, cuSOLVER: handles and workspaces */

struct mom_ctx {
    const mom_workunit *wu;
    const mom_problem *p;
    int n, nrhs, nb;
    int single;                /* the factors in single precision */
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    mom_cuda_system sys;       /* device pointers into the cell data */
    double *px, *py, *w, *col_re, *col_im;
    int *col_start, *col_row;
    double *z;                 /* [n * n] pairs */
    float *zs;                 /* [n * n] pairs (single), else NULL */
    int *ipiv;                 /* [n] */
    double *b, *x, *r, *d;     /* [nrhs * n] pairs; d: mixed only */
    float *xs;                 /* [nrhs * n] pairs (single) */
    double *norms;             /* [2 n] */
    double *slab;              /* [n * SLAB] pairs (double solvers) */
    double *dir;               /* [2 nrhs] (cos, sin) of the incidences */
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

#define TRY(x)                                                                                    \
    do {                                                                                          \
        orr_status st_ = (x);                                                                     \
        if (st_ != ORR_OK)                                                                        \
            return st_;                                                                           \
    } while (0)

/* Z's element (i, j) in double or single pairs. */
static cuDoubleComplex *zat(const mom_ctx *c, int i, int j)
{
    return (cuDoubleComplex *)c->z + (size_t)j * c->n + i;
}

static cuComplex *sat(const mom_ctx *c, int i, int j)
{
    return (cuComplex *)c->zs + (size_t)j * c->n + i;
}

static const cuDoubleComplex z_one = {1, 0}, z_minus_one = {-1, 0};
static const cuComplex c_one = {1, 0}, c_minus_one = {-1, 0};

/* ---- the fill ---- */

static orr_status cuda_fill(mom_ctx *c, int first, int count, orr_error *err)
{
    TRY(cu(orr_cuda_mom_fill(&c->sys, first, count, (double *)zat(c, 0, first), (size_t)c->n,
                             c->norms),
           "launching the fill", err));
    if (first == 0)
        TRY(cu(orr_cuda_mom_rhs(&c->sys, c->nrhs, c->dir, c->b), "launching the right-hand sides",
               err));
    return wait_for("filling the matrix", err);
}

/* ---- the blocked factorisation ---- */

/* The unpivoted LU of the panel (rows j .., columns j .. j + nb - 1) of
 * the double Z. Without pivoting the rows below the diagonal block need
 * only its U: the nb x nb diagonal block is factored first, MICRO columns
 * a step (our kernel on the MICRO x MICRO block, then trsm and gemm on the
 * rest of the diagonal block), and the rows below take L = A U^-1 in one
 * trsm, where a column-at-a-time panel would run 2 nb launches over the
 * full height. */
static orr_status panel_unpivoted(mom_ctx *c, int j, int nb, orr_error *err)
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

static orr_status factor_block(mom_ctx *c, int j, int pivoting, orr_error *err)
{
    const int n = c->n, nb = n - j < c->nb ? n - j : c->nb, rest = n - j - nb, m = n - j;
    if (pivoting) {
        if (c->single)
            TRY(so(lib->cusolverDnCgetrf(c->solver, m, nb, sat(c, j, j), n, c->work, c->ipiv + j,
                                    c->info),
                   "cgetrf on the panel", err));
        else
            TRY(so(lib->cusolverDnZgetrf(c->solver, m, nb, zat(c, j, j), n, c->work, c->ipiv + j,
                                    c->info),
                   "zgetrf on the panel", err));
        TRY(cu(orr_cuda_mom_offset_pivots(c->ipiv, j, nb), "launching the pivots' offset", err));
        void *a = c->single ? (void *)c->zs : (void *)c->z;
        TRY(cu(orr_cuda_mom_swap_rows(a, c->single, (size_t)n, 0, j, c->ipiv, j, j + nb),
               "launching the row exchanges", err));
        TRY(cu(orr_cuda_mom_swap_rows(a, c->single, (size_t)n, j + nb, n, c->ipiv, j, j + nb),
               "launching the row exchanges", err));
    } else {
        TRY(panel_unpivoted(c, j, nb, err));
    }
    if (rest > 0) {
        if (c->single) {
            TRY(bl(lib->cublasCtrsm_v2(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                               CUBLAS_DIAG_UNIT, nb, rest, &c_one, sat(c, j, j), n,
                               sat(c, j, j + nb), n),
                   "ctrsm", err));
            TRY(bl(lib->cublasCgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, rest, rest, nb, &c_minus_one,
                               sat(c, j + nb, j), n, sat(c, j, j + nb), n, &c_one,
                               sat(c, j + nb, j + nb), n),
                   "cgemm", err));
        } else {
            TRY(bl(lib->cublasZtrsm_v2(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                               CUBLAS_DIAG_UNIT, nb, rest, &z_one, zat(c, j, j), n,
                               zat(c, j, j + nb), n),
                   "ztrsm", err));
            TRY(bl(lib->cublasZgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, rest, rest, nb, &z_minus_one,
                               zat(c, j + nb, j), n, zat(c, j, j + nb), n, &z_one,
                               zat(c, j + nb, j + nb), n),
                   "zgemm", err));
        }
    }
    TRY(wait_for("factoring a block column", err));
    int info[2];
    TRY(cu(cudaMemcpy(info, c->info, sizeof info, cudaMemcpyDeviceToHost), "reading the LU's status",
           err));
    if (pivoting && info[0] < 0)
        return orr_fail(err, ORR_ERR_INTERNAL, "getrf: argument %d", -info[0]);
    /* singular (info > 0) shows as a zero pivot: the solve's backward error reports it */
    if (!pivoting && info[1] != INT_MAX)
        return orr_fail(err, ORR_ERR_NUMERIC,
                        "faithful LU: the pivot of column %d is exactly zero (no pivoting)", info[1]);
    return ORR_OK;
}

static orr_status cuda_factor(mom_ctx *c, int first, orr_error *err)
{
    if (c->single) {
        if (first == 0)
            TRY(cu(orr_cuda_mom_to_single(c->z, c->zs, (size_t)c->n * c->n),
                   "launching the conversion to single", err));
        return factor_block(c, first, 1, err);
    }
    return factor_block(c, first, c->wu->solver != MOM_FAITHFUL, err);
}

static int cuda_block(const mom_ctx *c) { return c->nb; }

/* ---- the solves ---- */

/* r = b - Z x in double: Z itself where it was kept, else made again a
 * slab of columns at a time (the double solvers factor Z in place). */
static orr_status residual(mom_ctx *c, const double *x, double *r, orr_error *err)
{
    const int n = c->n, nrhs = c->nrhs;
    TRY(cu(cudaMemcpy(r, c->b, (size_t)n * nrhs * 16, cudaMemcpyDeviceToDevice),
           "copying the right-hand sides", err));
    if (c->single)
        return bl(lib->cublasZgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, nrhs, n, &z_minus_one,
                              (const cuDoubleComplex *)c->z, n, (const cuDoubleComplex *)x, n,
                              &z_one, (cuDoubleComplex *)r, n),
                  "zgemm for the residual", err);
    for (int j = 0; j < n; j += SLAB) {
        const int cols = n - j < SLAB ? n - j : SLAB;
        TRY(cu(orr_cuda_mom_fill(&c->sys, j, cols, c->slab, (size_t)n, NULL),
               "launching the residual's fill", err));
        TRY(bl(lib->cublasZgemm_v2(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, nrhs, cols, &z_minus_one,
                           (const cuDoubleComplex *)c->slab, n, (const cuDoubleComplex *)x + j, n,
                           &z_one, (cuDoubleComplex *)r, n),
               "zgemm for the residual", err));
    }
    return ORR_OK;
}

/* The largest backward error over the right-hand sides, in units of n
 * eps (reference.c's backward_error): the column sums on the device. */
static orr_status backward_error(mom_ctx *c, const double *x, const double *r, double *out,
                                 orr_error *err)
{
    const int n = c->n, nrhs = c->nrhs;
    double *h = malloc((n + 2 * (size_t)nrhs) * sizeof *h);
    if (!h)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the backward error");
    orr_status st = cu(orr_cuda_mom_column_sums(r, n, nrhs, c->tmp), "launching the sums", err);
    if (st == ORR_OK)
        st = cu(orr_cuda_mom_column_sums(x, n, nrhs, c->tmp + nrhs), "launching the sums", err);
    if (st == ORR_OK)
        st = cu(cudaMemcpy(h, c->tmp, 2 * (size_t)nrhs * sizeof *h, cudaMemcpyDeviceToHost),
                "reading the residuals' sums", err);
    if (st == ORR_OK)
        st = cu(cudaMemcpy(h + 2 * nrhs, c->norms + n, (size_t)n * sizeof *h,
                           cudaMemcpyDeviceToHost),
                "reading the column sums", err);
    if (st == ORR_OK) {
        double z1 = 0, worst = 0;
        for (int j = 0; j < n; j++)
            z1 = fmax(z1, h[2 * nrhs + j]);
        for (int q = 0; q < nrhs; q++) {
            const double num = h[q];
            const double den = z1 * h[nrhs + q] * n * DBL_EPSILON;
            worst = fmax(worst, den > 0 ? num / den : INFINITY);
        }
        *out = worst;
    }
    free(h);
    return st;
}

/* x = Z^-1 src through the single factors, in double (src may be r). */
static orr_status single_solve(mom_ctx *c, const double *src, double *x, orr_error *err)
{
    const size_t len = (size_t)c->n * c->nrhs;
    TRY(cu(orr_cuda_mom_to_single(src, c->xs, len), "launching the conversion to single", err));
    TRY(so(lib->cusolverDnCgetrs(c->solver, CUBLAS_OP_N, c->n, c->nrhs, (const cuComplex *)c->zs, c->n,
                            c->ipiv, (cuComplex *)c->xs, c->n, c->info + 2),
           "cgetrs", err));
    TRY(cu(orr_cuda_mom_to_double(c->xs, x, len), "launching the conversion to double", err));
    int info = 0;
    TRY(cu(cudaMemcpy(&info, c->info + 2, sizeof info, cudaMemcpyDeviceToHost),
           "reading cgetrs's status", err));
    return info == 0 ? ORR_OK : orr_fail(err, ORR_ERR_INTERNAL, "cgetrs: argument %d", -info);
}

/* Mixed: refine x until the backward error stops falling (or is at
 * double's level: below 1 n eps), as reference.c's refine(). */
static orr_status refine(mom_ctx *c, mom_solve_info *info, orr_error *err)
{
    const size_t len = (size_t)c->n * c->nrhs;
    TRY(residual(c, c->x, c->r, err));
    TRY(backward_error(c, c->x, c->r, &info->backward, err));
    while (info->backward > 1 && info->refinements < MAX_REFINEMENTS) {
        TRY(single_solve(c, c->r, c->d, err));
        TRY(cu(orr_cuda_mom_add(c->x, c->d, len), "launching the correction", err));
        TRY(residual(c, c->d, c->r, err));
        double next;
        TRY(backward_error(c, c->d, c->r, &next, err));
        if (!(next < info->backward))
            break;
        TRY(cu(cudaMemcpy(c->x, c->d, len * 16, cudaMemcpyDeviceToDevice),
               "copying the refined currents", err));
        info->backward = next;
        info->refinements++;
    }
    return ORR_OK;
}

/* Faithful: growth and smallest pivot of U, then L^-1 and U^-1 in place
 * and x = U^-1 (L^-1 b). */
static orr_status faithful_solve(mom_ctx *c, mom_solve_info *info, orr_error *err)
{
    const int n = c->n, nrhs = c->nrhs;
    double *h = malloc(3 * (size_t)n * sizeof *h);
    if (!h)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the growth factor");
    orr_status st = cu(orr_cuda_mom_u_norms(c->z, (size_t)n, n, c->tmp, c->tmp + n),
                       "launching the growth factor's maxima", err);
    if (st == ORR_OK)
        st = cu(cudaMemcpy(h, c->tmp, 2 * (size_t)n * sizeof *h, cudaMemcpyDeviceToHost),
                "reading the growth factor's maxima", err);
    if (st == ORR_OK)
        st = cu(cudaMemcpy(h + 2 * n, c->norms, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost),
                "reading the column maxima", err);
    if (st == ORR_OK) {
        double top = 0, z_max = 0;
        info->min_pivot = INFINITY;
        for (int j = 0; j < n; j++) {
            top = fmax(top, h[j]);
            info->min_pivot = fmin(info->min_pivot, h[n + j]);
            z_max = fmax(z_max, h[2 * n + j]);
        }
        info->growth = top / z_max;
    }
    free(h);
    TRY(st);
    /* L^-1: U's diagonal set aside (in tmp) for ones, and L inverted as a
     * non-unit triangle. cusolverDnXtrtri with CUBLAS_DIAG_UNIT inverts L
     * right but writes the diagonal, which holds U's (cuSOLVER 12.0.4 of
     * CUDA 13.0 on an H200: backward errors of 1e13 n eps before this). */
    int e[2] = {0, 0};
    const cublasFillMode_t uplo[2] = {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
    for (int t = 0; t < 2; t++) {
        if (t == 0)
            TRY(cu(orr_cuda_mom_diagonal(c->z, (size_t)n, n, c->tmp, 1),
                   "launching the diagonal's exchange", err));
        TRY(so(lib->cusolverDnXtrtri(c->solver, uplo[t], CUBLAS_DIAG_NON_UNIT, n, CUDA_C_64F, c->z, n,
                                c->trtri_work, c->trtri_bytes, c->trtri_host, c->trtri_host_bytes,
                                c->info + 2),
               t ? "trtri of U" : "trtri of L", err));
        if (t == 0)
            TRY(cu(orr_cuda_mom_diagonal(c->z, (size_t)n, n, c->tmp, 0),
                   "launching the diagonal's exchange", err));
        TRY(cu(cudaMemcpy(&e[t], c->info + 2, sizeof e[t], cudaMemcpyDeviceToHost),
               "reading trtri's status", err));
    }
    if (e[0] < 0 || e[1] < 0)
        return orr_fail(err, ORR_ERR_INTERNAL, "trtri: argument %d", -(e[0] < 0 ? e[0] : e[1]));
    if (e[0] || e[1])
        return orr_fail(err, ORR_ERR_NUMERIC, "faithful: U is singular (pivot %d is zero)", e[1]);
    TRY(cu(cudaMemcpy(c->x, c->b, (size_t)n * nrhs * 16, cudaMemcpyDeviceToDevice),
           "copying the right-hand sides", err));
    cuDoubleComplex *x = (cuDoubleComplex *)c->x;
    TRY(bl(lib->cublasZtrmm_v2(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                       CUBLAS_DIAG_UNIT, n, nrhs, &z_one, zat(c, 0, 0), n, x, n, x, n),
           "ztrmm by L^-1", err));
    TRY(bl(lib->cublasZtrmm_v2(c->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                       CUBLAS_DIAG_NON_UNIT, n, nrhs, &z_one, zat(c, 0, 0), n, x, n, x, n),
           "ztrmm by U^-1", err));
    return ORR_OK;
}

static orr_status cuda_solve(mom_ctx *c, double *xout, mom_solve_info *info, orr_error *err)
{
    const int n = c->n, nrhs = c->nrhs;
    memset(info, 0, sizeof *info);
    info->growth = info->min_pivot = NAN;
    if (c->single) {
        TRY(single_solve(c, c->b, c->x, err));
        if (c->wu->solver == MOM_MIXED)
            TRY(refine(c, info, err));
    } else if (c->wu->solver == MOM_FAITHFUL) {
        TRY(faithful_solve(c, info, err));
    } else {
        TRY(cu(cudaMemcpy(c->x, c->b, (size_t)n * nrhs * 16, cudaMemcpyDeviceToDevice),
               "copying the right-hand sides", err));
        TRY(so(lib->cusolverDnZgetrs(c->solver, CUBLAS_OP_N, n, nrhs, zat(c, 0, 0), n, c->ipiv,
                                (cuDoubleComplex *)c->x, n, c->info + 2),
               "zgetrs", err));
        int e = 0;
        TRY(cu(cudaMemcpy(&e, c->info + 2, sizeof e, cudaMemcpyDeviceToHost),
               "reading zgetrs's status", err));
        if (e)
            return orr_fail(err, ORR_ERR_INTERNAL, "zgetrs: argument %d", -e);
    }
    if (c->wu->solver != MOM_MIXED) {
        TRY(residual(c, c->x, c->r, err));
        TRY(backward_error(c, c->x, c->r, &info->backward, err));
    }
    TRY(cu(cudaMemcpy(xout, c->x, (size_t)n * nrhs * 16, cudaMemcpyDeviceToHost),
           "reading the currents", err));
    return wait_for("solving", err);
}

/* ---- state ---- */

static size_t cuda_state_bytes(const mom_ctx *c, mom_state s)
{
    return mom_state_size(c->n, c->nrhs, c->single, s);
}

static void *state_ptr(mom_ctx *c, mom_state s)
{
    void *const p[MOM_N_STATES] = {c->z, c->zs, c->ipiv, c->b, c->norms};
    return p[s];
}

static orr_status cuda_read(mom_ctx *c, mom_state s, void *host, orr_error *err)
{
    const size_t bytes = cuda_state_bytes(c, s);
    if (!bytes)
        return ORR_OK;
    TRY(wait_for("finishing before a checkpoint", err));
    return cu(cudaMemcpy(host, state_ptr(c, s), bytes, cudaMemcpyDeviceToHost),
              "copying the state from the device", err);
}

static orr_status cuda_write(mom_ctx *c, mom_state s, const void *host, orr_error *err)
{
    const size_t bytes = cuda_state_bytes(c, s);
    if (!bytes)
        return ORR_OK;
    TRY(cu(cudaMemcpy(state_ptr(c, s), host, bytes, cudaMemcpyHostToDevice),
           "copying the state to the device", err));
    return wait_for("restoring the state", err);
}

/* ---- open, close ---- */

/* Device bytes of the system for wu with n unknowns and nnz corrections
 * (workspaces and the libraries' handles in DEVICE_MARGIN). */
static double device_bytes(const mom_workunit *wu, int n, long nnz)
{
    const double nn = (double)n * n, vec = (double)n * wu->n_incidence;
    const int single = mom_factors_single(wu);
    return nn * 16 + (single ? nn * 8 + vec * 8 : (double)n * SLAB * 16) + vec * 16 * 3 +
           (wu->solver == MOM_MIXED ? vec * 16 : 0) + (double)n * (4 + 16 + 24 + 16) +
           (double)wu->n_incidence * 32 + (n + 1.0) * 4 + nnz * 20.0;
}

static void cuda_close(mom_ctx *c)
{
    if (!c)
        return;
    void *const mem[] = {c->px,   c->py,  c->w,     c->col_re, c->col_im, c->col_start,
                         c->col_row, c->z, c->zs,   c->ipiv,   c->b,      c->x,
                         c->r,    c->d,   c->xs,    c->norms,  c->slab,   c->dir,
                         c->tmp,  c->info, c->work, c->trtri_work};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        if (mem[i])
            cudaFree(mem[i]);
    free(c->trtri_host);
    if (c->solver)
        lib->cusolverDnDestroy(c->solver);
    if (c->blas)
        lib->cublasDestroy_v2(c->blas);
    free(c);
}

/* cudaMalloc; out of memory is the system not fitting (ORR_ERR_NOMEM). */
static orr_status dalloc(void **out, size_t bytes, const mom_ctx *c, orr_error *err)
{
    *out = NULL;
    const cudaError_t e = cudaMalloc(out, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        size_t free_bytes = 0, total = 0;
        cudaMemGetInfo(&free_bytes, &total);
        return orr_fail(err, ORR_ERR_NOMEM,
                        "the %d x %d system needs about %.3g bytes of device memory; %zu bytes "
                        "(of %zu) could not be allocated",
                        c->n, c->n, device_bytes(c->wu, c->n, 0) + DEVICE_MARGIN, bytes,
                        free_bytes);
    }
    return cu(e, "allocating device memory", err);
}

static orr_status upload(void **out, const void *host, size_t bytes, const mom_ctx *c,
                         orr_error *err)
{
    TRY(dalloc(out, bytes, c, err));
    return bytes ? cu(cudaMemcpy(*out, host, bytes, cudaMemcpyHostToDevice),
                      "copying the cells to the device", err)
                 : ORR_OK;
}

/* Allocations, uploads and workspaces; the caller closes c on failure. */
static orr_status setup(mom_ctx *c, orr_error *err)
{
    const mom_problem *p = c->p;
    const int n = c->n, nrhs = c->nrhs;
    const long nnz = p->lcn ? p->lcn->col_start[n] : 0;
    const size_t nn = (size_t)n * n, vec = (size_t)n * nrhs;

    TRY(bl(lib->cublasCreate_v2(&c->blas), "creating the handle", err));
    TRY(so(lib->cusolverDnCreate(&c->solver), "creating the handle", err));

    size_t free_bytes = 0, total = 0;
    TRY(cu(cudaMemGetInfo(&free_bytes, &total), "reading the free device memory", err));
    const double need = device_bytes(c->wu, n, nnz) + DEVICE_MARGIN;
    if (need > (double)free_bytes)
        return orr_fail(err, ORR_ERR_NOMEM,
                        "the %d x %d system needs %.0f bytes of device memory; the device has "
                        "%zu free (of %zu)",
                        n, n, need, free_bytes, total);

    /* the cells */
    const double k = p->lcn ? p->lcn->k : p->g.k;
    c->sys.n = n;
    c->sys.lcn = p->lcn != NULL;
    c->sys.k = k;
    c->sys.k_eta_4 = k * MOM_ETA / 4;
    TRY(upload((void **)&c->px, p->px, (size_t)n * sizeof(double), c, err));
    TRY(upload((void **)&c->py, p->py, (size_t)n * sizeof(double), c, err));
    TRY(upload((void **)&c->w, p->lcn ? p->lcn->wt : p->g.w, (size_t)n * sizeof(double), c, err));
    if (p->lcn) {
        const mom_lcn *l = p->lcn;
        TRY(upload((void **)&c->col_start, l->col_start, (n + 1) * sizeof(int), c, err));
        TRY(upload((void **)&c->col_row, l->col_row, nnz * sizeof(int), c, err));
        TRY(upload((void **)&c->col_re, l->col_re, nnz * sizeof(double), c, err));
        TRY(upload((void **)&c->col_im, l->col_im, nnz * sizeof(double), c, err));
    }
    c->sys.px = c->px, c->sys.py = c->py, c->sys.w = c->w;
    c->sys.col_start = c->col_start, c->sys.col_row = c->col_row;
    c->sys.col_re = c->col_re, c->sys.col_im = c->col_im;
    double *dir = malloc(2 * (size_t)nrhs * sizeof *dir);
    if (!dir)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int r = 0; r < nrhs; r++) {   /* as reference.c's fill_rhs */
        const double phi = c->wu->incidence[r] * M_PI / 180;
        dir[2 * r] = cos(phi), dir[2 * r + 1] = sin(phi);
    }
    orr_status st = upload((void **)&c->dir, dir, 2 * (size_t)nrhs * sizeof *dir, c, err);
    free(dir);
    TRY(st);

    /* the system */
    TRY(dalloc((void **)&c->z, nn * 16, c, err));
    TRY(cu(cudaMemset(c->z, 0, nn * 16), "clearing device memory", err));
    if (c->single) {
        TRY(dalloc((void **)&c->zs, nn * 8, c, err));
        TRY(cu(cudaMemset(c->zs, 0, nn * 8), "clearing device memory", err));
        TRY(dalloc((void **)&c->xs, vec * 8, c, err));
    } else {
        TRY(dalloc((void **)&c->slab, (size_t)n * SLAB * 16, c, err));
    }
    TRY(dalloc((void **)&c->ipiv, (size_t)n * sizeof(int), c, err));
    TRY(cu(cudaMemset(c->ipiv, 0, (size_t)n * sizeof(int)), "clearing device memory", err));
    TRY(dalloc((void **)&c->b, vec * 16, c, err));
    TRY(cu(cudaMemset(c->b, 0, vec * 16), "clearing device memory", err));
    TRY(dalloc((void **)&c->x, vec * 16, c, err));
    TRY(dalloc((void **)&c->r, vec * 16, c, err));
    if (c->wu->solver == MOM_MIXED)
        TRY(dalloc((void **)&c->d, vec * 16, c, err));
    TRY(dalloc((void **)&c->norms, 2 * (size_t)n * sizeof(double), c, err));
    TRY(cu(cudaMemset(c->norms, 0, 2 * (size_t)n * sizeof(double)), "clearing device memory", err));
    TRY(dalloc((void **)&c->tmp, (2 * (size_t)n + 2 * (size_t)nrhs) * sizeof(double), c, err));
    TRY(dalloc((void **)&c->info, 3 * sizeof(int), c, err));
    const int info0[3] = {0, INT_MAX, 0};
    TRY(cu(cudaMemcpy(c->info, info0, sizeof info0, cudaMemcpyHostToDevice),
           "clearing device memory", err));

    /* the workspaces: getrf's for the tallest panel, trtri's */
    const int nb = n < c->nb ? n : c->nb;
    int lwork = 0;
    size_t work_bytes = 0;
    if (c->single) {
        TRY(so(lib->cusolverDnCgetrf_bufferSize(c->solver, n, nb, (cuComplex *)c->zs, n, &lwork),
               "sizing cgetrf's workspace", err));
        work_bytes = (size_t)lwork * 8;
    } else if (c->wu->solver != MOM_FAITHFUL) {
        TRY(so(lib->cusolverDnZgetrf_bufferSize(c->solver, n, nb, (cuDoubleComplex *)c->z, n, &lwork),
               "sizing zgetrf's workspace", err));
        work_bytes = (size_t)lwork * 16;
    }
    TRY(dalloc(&c->work, work_bytes, c, err));
    if (c->wu->solver == MOM_FAITHFUL) {
        const cublasFillMode_t uplo[2] = {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
        for (int t = 0; t < 2; t++) {
            size_t dev = 0, host = 0;
            TRY(so(lib->cusolverDnXtrtri_bufferSize(c->solver, uplo[t], CUBLAS_DIAG_NON_UNIT, n,
                                               CUDA_C_64F, c->z, n,
                                               &dev, &host),
                   "sizing trtri's workspace", err));
            c->trtri_bytes = dev > c->trtri_bytes ? dev : c->trtri_bytes;
            c->trtri_host_bytes = host > c->trtri_host_bytes ? host : c->trtri_host_bytes;
        }
        TRY(dalloc(&c->trtri_work, c->trtri_bytes, c, err));
        if (c->trtri_host_bytes && !(c->trtri_host = malloc(c->trtri_host_bytes)))
            return orr_fail(err, ORR_ERR_NOMEM, "out of memory for trtri's host workspace");
    }
    return wait_for("preparing the device", err);
}

/* The block size: BLOCK, or ORRERY_MOM_CUDA_BLOCK (a multiple of 32 up to
 * 1024; for measuring: a checkpoint is valid only with the size it was
 * written with). */
static int block_size(void)
{
    const char *s = getenv("ORRERY_MOM_CUDA_BLOCK");
    const int b = s ? atoi(s) : 0;
    return b >= 32 && b <= 1024 && b % 32 == 0 ? b : BLOCK;
}

static orr_status cuda_open(void *state, const mom_workunit *wu, const mom_problem *p,
                            mom_ctx **out, orr_error *err)
{
    (void)state;
    TRY(mom_cuda_libs_load(&lib, err));
    mom_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->wu = wu, c->p = p, c->n = p->n, c->nrhs = wu->n_incidence;
    c->single = mom_factors_single(wu);
    c->nb = block_size();
    orr_status st = setup(c, err);
    if (st != ORR_OK) {
        cuda_close(c);
        return st;
    }
    *out = c;
    return ORR_OK;
}

static const mom_ops cuda_mom_ops = {cuda_open,  cuda_close,       cuda_fill, cuda_factor, cuda_block,
                                     cuda_solve, cuda_state_bytes, cuda_read, cuda_write};

orr_status mom_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    (void)be, (void)err;
    slot->ops = &cuda_mom_ops;
    slot->state = NULL;
    slot->release = NULL;
    return ORR_OK;
}
