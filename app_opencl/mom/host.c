/* The MoM kind's OpenCL primitives (common/mom/device.h), which run the
 * solvers of common/mom/device.c: the system lives in device memory,
 * filled there (kernels.cl: entries.h's formulas) and factored and solved
 * with our kernels and CLBlast's GEMM:
 * - the panel on the device, a launch a column (lu_column: the pivot,
 *   |re| + |im| and the first largest as izamax, from the candidates each
 *   work-group of the launch before left, the row exchange across the
 *   panel, the column scaled and the rank-1 update of the panel, and the
 *   next column's candidates; unpivoted: no search, no exchanges, an
 *   exactly zero pivot recorded), the exchanges left and right of it
 *   (lu_swap: laswp), the block row solved with the panel's unit lower
 *   triangle (trsm_lower_unit), the trailing update by CLBlast's Zgemm or
 *   Cgemm;
 * - the solves: the exchanges gathered into the right-hand sides, then
 *   forward and back substitution a block at a time (our triangular
 *   kernel on the diagonal block, GEMM below or above it); the explicit
 *   inverses: the identity solved block by block the same way into a
 *   scratch matrix, applied by Zgemm (their zeros are exact: the products
 *   are the reference's two trmm);
 * - the residual against Z's columns made again on the device, SLAB
 *   columns at a time, where the factors overwrote Z; the sums of |v| on
 *   the host, from the downloaded vectors, as reference.c's.
 *
 * Why not CLBlast's TRSM: CLBlast 1.5.3's Xtrsm copies its right-hand
 * side into a temporary from the buffer's start, offset included (with B
 * a block row of Z, the whole matrix, both ways, every block column),
 * and waits on the host (clWaitForEvents) twice every 16 rows. Its GEMM
 * copies any submatrix into padded temporaries; every GEMM here is cut
 * into pieces of at most GEMM_COLS columns and inner dimension, which
 * bounds those temporaries (device_bytes counts them).
 *
 * Waits go through the device layer's sleeping wait (ocl_wait_sleeping:
 * never a spinning clFinish). Every OpenCL and CLBlast return code is
 * checked: failures are classed by cl_status (BOINC's temporary exit, or
 * an error for what fails here every time). The buffers that do not
 * depend on CLBlast, their sizing, memory checks and uploads are
 * common/mom/device.c's (mom_dmem): a system beyond the device's memory
 * or largest buffer is ORR_ERR_DEVICE_UNFIT, naming the bytes, and an
 * allocation that fails within them (memory held elsewhere now)
 * ORR_ERR_DEVICE.
 *
 * For measuring: ORRERY_MOM_OPENCL_BLOCK (the block), ORRERY_MOM_OPENCL_LANES
 * (work-items a row in the panel), ORRERY_MOM_OPENCL_PROFILE (the
 * factorisation's parts timed apart, logged at its end). */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device_opencl.h"
#include "../opencl_backend.h"
#include <clblast_c.h>
#include "mom/device.h"
#include "mom/lcn.h"
#include "runtime/runtime.h"

extern const char orr_opencl_mom_source[];

#define MAX_WG 256            /* the other kernels' work-groups (MOM_WG) */
#define TC 8                  /* right-hand columns a triangular work-group (MOM_TC) */
#define LANES 1               /* work-items a row in the panel (MOM_LANES) */
#define SLAB 512              /* columns of Z made again a time for a residual */
#define GEMM_COLS 2048        /* the most columns and inner dimension of one GEMM call */
#define DEVICE_MARGIN (64.0 * 1024 * 1024)   /* CLBlast's programs, small buffers */

enum {
    /* both programs */
    K_SEARCH, K_COLUMN, K_SWAP, K_TRSM_L, K_TRSM_U,
    N_LU_KERNELS,
    /* the double program only */
    K_FILL = N_LU_KERNELS, K_CORRECT, K_STATS, K_RHS, K_TO_SINGLE, K_WIDEN, K_ADD, K_GATHER,
    K_GATHER_S, K_SET_DIAG,
    N_KERNELS
};
static const char *const kernel_names[N_KERNELS] = {
    "lu_search", "lu_column", "lu_swap",   "trsm_lower_unit", "trsm_upper",
    "mom_fill",  "mom_correct", "mom_col_stats", "mom_rhs", "mom_to_single", "mom_widen",
    "mom_add",   "mom_gather",  "mom_gather_single", "mom_set_diag"};

struct mom_kern {
    orr_device *d;
    const mom_workunit *wu;
    const mom_problem *p;
    int n, nrhs, nb, wg, lanes;
    int single;                /* the factors in single precision */
    int faithful;              /* unpivoted panels, explicit inverses */
    int perm_ready;            /* perm holds the factors' row exchanges */
    cl_program prog[2];        /* [0] double, [1] single */
    cl_kernel k[2][N_KERNELS];
    mom_dmem m;                /* the state, the vectors, the cells (common/mom/device.h) */
    /* the solves */
    cl_mem w;                  /* faithful: [n * n] double2, the inverses, then the residual's slab */
    cl_mem slab;               /* the residual's columns: [n * SLAB] (double reference), or w */
    cl_mem perm;               /* [n] int: row i of P b is row perm[i] of b */
    cl_mem stats;              /* faithful: [2 n] */
    /* the panel */
    cl_mem cand_v, cand_i, cand_row, info, warm;
    int cand_stride;           /* candidate slots a set (two sets) */
    /* host copies */
    double *hv;                /* [nrhs * n] double2 */
    int *hpiv, *hperm;
    int hinfo;
};

/* ---- errors ---- */

static const char *blast_name(CLBlastStatusCode s)
{
    static const struct {
        CLBlastStatusCode code;
        const char *name;
    } names[] = {
        {CLBlastNotImplemented, "CLBlastNotImplemented"},
        {CLBlastInvalidMatrixA, "CLBlastInvalidMatrixA"},
        {CLBlastInvalidMatrixB, "CLBlastInvalidMatrixB"},
        {CLBlastInvalidMatrixC, "CLBlastInvalidMatrixC"},
        {CLBlastInvalidDimension, "CLBlastInvalidDimension"},
        {CLBlastInvalidLeadDimA, "CLBlastInvalidLeadDimA"},
        {CLBlastInvalidLeadDimB, "CLBlastInvalidLeadDimB"},
        {CLBlastInvalidLeadDimC, "CLBlastInvalidLeadDimC"},
        {CLBlastInsufficientMemoryA, "CLBlastInsufficientMemoryA"},
        {CLBlastInsufficientMemoryB, "CLBlastInsufficientMemoryB"},
        {CLBlastInsufficientMemoryC, "CLBlastInsufficientMemoryC"},
        {CLBlastInsufficientMemoryTemp, "CLBlastInsufficientMemoryTemp"},
        {CLBlastInvalidLocalMemUsage, "CLBlastInvalidLocalMemUsage"},
        {CLBlastNoDoublePrecision, "CLBlastNoDoublePrecision"},
        {CLBlastDatabaseError, "CLBlastDatabaseError"},
        {CLBlastUnknownError, "CLBlastUnknownError"},
        {CLBlastUnexpectedError, "CLBlastUnexpectedError"},
    };
    for (size_t i = 0; i < ORR_ARRAY_LEN(names); i++)
        if (names[i].code == s)
            return names[i].name;
    return (int)s > -1000 ? cl_error_name((cl_int)s) : "CLBlast error";
}

/* CLBlast passes OpenCL's codes on (their class is cl_status's); its own
 * (below -1000: arguments, a device without double precision or enough
 * local memory, its tuning database) are the same on every try here. */
static orr_status blast(CLBlastStatusCode s, const char *what, orr_error *err)
{
    if (s == CLBlastSuccess)
        return ORR_OK;
    const orr_status class = (int)s > -1000 ? cl_status((cl_int)s) : ORR_ERR_DEVICE_UNFIT;
    return orr_fail(err, class, "CLBlast: %s: %s (%d)", what, blast_name(s), (int)s);
}

/* ---- launches ---- */

static cl_command_queue queue_of(const mom_kern *c)
{
    return ocl_of(c->d)->queue;
}

/* count (size, pointer) pairs: the kernel's arguments from the first. */
static orr_status set_args(cl_kernel k, orr_error *err, int count, ...)
{
    va_list ap;
    va_start(ap, count);
    for (int i = 0; i < count; i++) {
        const size_t size = va_arg(ap, size_t);
        const void *v = va_arg(ap, const void *);
        const cl_int e = clSetKernelArg(k, (cl_uint)i, size, v);
        if (e != CL_SUCCESS) {
            va_end(ap);
            return cl_fail(err, e, "setting the MoM kernels' arguments");
        }
    }
    va_end(ap);
    return ORR_OK;
}
#define ARG(v) sizeof(v), (const void *)&(v)

static orr_status set_arg(cl_kernel k, cl_uint i, size_t size, const void *v, orr_error *err)
{
    CL_TRY(clSetKernelArg(k, i, size, v), "setting the MoM kernels' arguments");
    return ORR_OK;
}

static size_t up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

static orr_status launch(mom_kern *c, cl_kernel k, cl_uint dims, const size_t *global,
                         const size_t *local, const char *what, orr_error *err)
{
    CL_TRY(clEnqueueNDRangeKernel(queue_of(c), k, dims, NULL, global, local, 0, NULL, NULL), what);
    return ORR_OK;
}

static orr_status launch1(mom_kern *c, cl_kernel k, size_t items, size_t local, const char *what,
                          orr_error *err)
{
    const size_t global = up(items ? items : 1, local);
    return launch(c, k, 1, &global, &local, what, err);
}

/* Waits for everything queued, sleeping through half of expected_s. */
static orr_status drain(mom_kern *c, double expected_s, orr_error *err)
{
    return c->d->api->finish(c->d, expected_s, err);
}

/* The device layer's copies and fills (in pieces, device_opencl.c);
 * downloads and fills are queued: the bytes are there after drain. */
static orr_status zero(mom_kern *c, cl_mem m, size_t bytes, orr_error *err)
{
    return c->d->api->fill(c->d, m, 0, bytes, err);
}

static orr_status download(mom_kern *c, cl_mem from, void *to, size_t bytes, orr_error *err)
{
    return c->d->api->download(c->d, to, from, 0, bytes, err);
}

static orr_status upload(mom_kern *c, cl_mem to, const void *from, size_t bytes, orr_error *err)
{
    return c->d->api->upload(c->d, to, 0, from, bytes, err);
}

static orr_status copy(mom_kern *c, cl_mem from, cl_mem to, size_t bytes, orr_error *err)
{
    for (size_t at = 0; at < bytes; at += ORR_OPENCL_PIECE)
        CL_TRY(clEnqueueCopyBuffer(queue_of(c), from, to, at, at, ocl_piece(at, bytes), 0, NULL,
                                   NULL),
               "copying on the device");
    return ORR_OK;
}

/* C = alpha A B + beta C (alpha, beta real), column-major, offsets in
 * elements, in double (prec 0) or single (1) complex; cut into calls of
 * at most GEMM_COLS columns of C and of inner dimension, which bounds
 * CLBlast's temporaries. */
static orr_status gemm(mom_kern *c, int prec, size_t m, size_t n, size_t k, double alpha, cl_mem a,
                       size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb, double beta,
                       cl_mem cm, size_t c_off, size_t ldc, orr_error *err)
{
    cl_command_queue q = queue_of(c);
    for (size_t j = 0; j < n; j += GEMM_COLS) {
        const size_t cols = n - j < GEMM_COLS ? n - j : GEMM_COLS;
        for (size_t l = 0; l < k; l += GEMM_COLS) {
            const size_t inner = k - l < GEMM_COLS ? k - l : GEMM_COLS;
            const double be = l == 0 ? beta : 1;
            CLBlastStatusCode s;
            if (prec) {
                cl_float2 al, bt;
                al.s[0] = (float)alpha, al.s[1] = 0, bt.s[0] = (float)be, bt.s[1] = 0;
                s = CLBlastCgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, m,
                                 cols, inner, al, a, a_off + l * lda, lda, b, b_off + j * ldb + l,
                                 ldb, bt, cm, c_off + j * ldc, ldc, &q, NULL);
            } else {
                cl_double2 al, bt;
                al.s[0] = alpha, al.s[1] = 0, bt.s[0] = be, bt.s[1] = 0;
                s = CLBlastZgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, m,
                                 cols, inner, al, a, a_off + l * lda, lda, b, b_off + j * ldb + l,
                                 ldb, bt, cm, c_off + j * ldc, ldc, &q, NULL);
            }
            TRY(blast(s, prec ? "Cgemm" : "Zgemm", err));
        }
    }
    return ORR_OK;
}

/* B = T^-1 B with T the m x m diagonal block at a_off of a (leading
 * dimension n): unit lower (lower != 0) or upper; B's ncols columns at
 * b_off of b (leading dimension n). */
static orr_status trsm_block(mom_kern *c, int prec, int lower, int m, int ncols, cl_mem a,
                             size_t a_off, cl_mem b, size_t b_off, orr_error *err)
{
    const cl_kernel k = c->k[prec][lower ? K_TRSM_L : K_TRSM_U];
    const cl_ulong ao = a_off, bo = b_off;
    TRY(set_args(k, err, 8, ARG(m), ARG(ncols), ARG(a), ARG(ao), ARG(c->n), ARG(b), ARG(bo),
                 ARG(c->n)));
    const size_t local = (size_t)c->nb, global = (size_t)((ncols + TC - 1) / TC) * local;
    return launch(c, k, 1, &global, &local, "launching a triangular solve", err);
}

/* ---- the fill ---- */

/* Z's columns first .. first+count-1 into out's columns from first - col0. */
static orr_status fill_columns(mom_kern *c, int first, int count, int col0, cl_mem out,
                               orr_error *err)
{
    const mom_problem *p = c->p;
    const double k = p->lcn ? p->lcn->k : p->g.k, k_eta_4 = k * MOM_ETA / 4;
    const cl_int lcn = p->lcn != NULL;
    cl_kernel f = c->k[0][K_FILL];
    TRY(set_args(f, err, 11, ARG(c->n), ARG(first), ARG(count), ARG(col0), ARG(k), ARG(k_eta_4),
                 ARG(lcn), ARG(c->m.px), ARG(c->m.py), ARG(c->m.w), ARG(out)));
    const size_t global[2] = {up((size_t)c->n, (size_t)c->wg), (size_t)count};
    const size_t local[2] = {(size_t)c->wg, 1};
    TRY(launch(c, f, 2, global, local, "launching the fill", err));
    if (!lcn)
        return ORR_OK;
    cl_kernel g = c->k[0][K_CORRECT];
    TRY(set_args(g, err, 9, ARG(c->n), ARG(first), ARG(count), ARG(col0), ARG(c->m.col_start),
                 ARG(c->m.col_row), ARG(c->m.col_re), ARG(c->m.col_im), ARG(out)));
    return launch1(c, g, (size_t)count, (size_t)c->wg, "launching LCN's corrections", err);
}

/* Per column of a: upper 0, max and sum |a_ij| into out[j], out[n + j];
 * upper 1, max |u_ij| (i <= j) and |u_jj|. */
static orr_status col_stats(mom_kern *c, cl_mem a, int first, int count, int upper, cl_mem out,
                            orr_error *err)
{
    cl_kernel k = c->k[0][K_STATS];
    TRY(set_args(k, err, 5, ARG(c->n), ARG(first), ARG(upper), ARG(a), ARG(out)));
    const size_t local = (size_t)c->wg, global = (size_t)count * local;
    return launch(c, k, 1, &global, &local, "launching the column norms", err);
}

static orr_status ocl_fill(mom_kern *c, int first, int count, orr_error *err)
{
    TRY(fill_columns(c, first, count, 0, c->m.z, err));
    TRY(col_stats(c, c->m.z, first, count, 0, c->m.norms, err));
    if (first > 0)
        return ORR_OK;
    cl_kernel k = c->k[0][K_RHS];
    const double kk = c->p->g.k;
    TRY(set_args(k, err, 7, ARG(c->n), ARG(c->nrhs), ARG(kk), ARG(c->m.dir), ARG(c->m.px),
                 ARG(c->m.py), ARG(c->m.v[MOM_B])));
    const size_t global[2] = {up((size_t)c->n, (size_t)c->wg), (size_t)c->nrhs};
    const size_t local[2] = {(size_t)c->wg, 1};
    return launch(c, k, 2, global, local, "launching the right-hand sides", err);
}

/* ---- the blocked factorisation ---- */

static cl_mem factors(const mom_kern *c, int prec)
{
    return prec ? c->m.zs : c->m.z;
}

static orr_status ocl_to_single(mom_kern *c, orr_error *err)
{
    cl_kernel k = c->k[0][K_TO_SINGLE];
    const cl_ulong count = (cl_ulong)c->n * c->n;
    TRY(set_args(k, err, 3, ARG(c->m.z), ARG(c->m.zs), ARG(count)));
    return launch1(c, k, (size_t)count, (size_t)c->wg, "launching the single copy", err);
}

/* The panel, rows j.., columns j .. j+nb-1, a launch a column (kernels.cl:
 * each launch takes its pivot from the candidates the one before left). */
static orr_status ocl_panel(mom_kern *c, int j, int nb, int pivoting, orr_error *err)
{
    const int n = c->n, wg = c->wg, rows_a_group = c->wg / c->lanes;
    cl_kernel *k = c->k[c->single];
    const cl_mem a = factors(c, c->single);
    cl_int groups = 0, parity = 0;
    if (pivoting) {
        groups = (cl_int)((n - j + rows_a_group - 1) / rows_a_group);
        TRY(set_args(k[K_SEARCH], err, 7, ARG(n), ARG(j), ARG(nb), ARG(a), ARG(c->cand_v),
                     ARG(c->cand_i), ARG(c->cand_row)));
        TRY(launch1(c, k[K_SEARCH], (size_t)groups * wg, (size_t)wg, "launching the pivot search",
                    err));
    }
    const cl_int piv = pivoting, k0 = 0;
    TRY(set_args(k[K_COLUMN], err, 15, ARG(n), ARG(j), ARG(nb), ARG(k0), ARG(groups), ARG(piv),
                 ARG(k0), ARG(parity), ARG(c->cand_stride), ARG(a), ARG(c->cand_v), ARG(c->cand_i),
                 ARG(c->cand_row), ARG(c->m.ipiv), ARG(c->info)));
    for (cl_int q = 0; q < nb; q++) {
        const int rows = n - (j + q) - 1;
        const cl_int search = pivoting && q + 1 < nb;
        TRY(set_arg(k[K_COLUMN], 3, sizeof q, &q, err));
        TRY(set_arg(k[K_COLUMN], 4, sizeof groups, &groups, err));
        TRY(set_arg(k[K_COLUMN], 6, sizeof search, &search, err));
        TRY(set_arg(k[K_COLUMN], 7, sizeof parity, &parity, err));
        const cl_int launched = rows > 0 ? (rows + rows_a_group - 1) / rows_a_group : 1;
        TRY(launch1(c, k[K_COLUMN], (size_t)launched * wg, (size_t)wg,
                    "launching a column of the panel", err));
        groups = launched;
        parity = 1 - parity;
    }
    return ORR_OK;
}

static orr_status ocl_swap(mom_kern *c, int j, int nb, orr_error *err)
{
    if (c->n - nb <= 0)
        return ORR_OK;
    cl_kernel k = c->k[c->single][K_SWAP];
    const cl_mem a = factors(c, c->single);
    TRY(set_args(k, err, 5, ARG(c->n), ARG(j), ARG(nb), ARG(a), ARG(c->m.ipiv)));
    return launch1(c, k, (size_t)(c->n - nb), (size_t)c->wg, "launching the row exchanges", err);
}

static orr_status ocl_trsm(mom_kern *c, int j, int nb, orr_error *err)
{
    const cl_mem a = factors(c, c->single);
    const size_t un = (size_t)c->n;
    return trsm_block(c, c->single, 1, nb, c->n - j - nb, a, j + j * un, a, j + (j + nb) * un, err);
}

static orr_status ocl_gemm(mom_kern *c, int j, int nb, orr_error *err)
{
    const cl_mem a = factors(c, c->single);
    const size_t un = (size_t)c->n, rest = un - j - nb;
    return gemm(c, c->single, rest, rest, nb, -1, a, (j + nb) + j * un, un, a, j + (j + nb) * un, un,
                1, a, (j + nb) + (j + nb) * un, un, err);
}

static orr_status ocl_finish(mom_kern *c, double expected_s, int *zero_pivot, orr_error *err)
{
    if (zero_pivot)
        TRY(download(c, c->info, &c->hinfo, sizeof c->hinfo, err));
    TRY(drain(c, expected_s, err));
    if (zero_pivot)
        *zero_pivot = c->hinfo >= 0 ? c->hinfo : -1;
    return ORR_OK;
}

/* ---- the solves ---- */

/* x = U^-1 L^-1 x in place, the factors of precision prec, x n x nrhs:
 * a diagonal block by our kernel, the rest by GEMM. */
static orr_status lu_solve(mom_kern *c, int prec, cl_mem x, orr_error *err)
{
    const int n = c->n, nb = c->nb;
    const cl_mem a = factors(c, prec);
    const size_t un = (size_t)n;
    for (int kb = 0; kb < n; kb += nb) {
        const int mb = n - kb < nb ? n - kb : nb;
        TRY(trsm_block(c, prec, 1, mb, c->nrhs, a, kb + kb * un, x, (size_t)kb, err));
        if (kb + mb < n)
            TRY(gemm(c, prec, n - kb - mb, c->nrhs, mb, -1, a, (kb + mb) + kb * un, un, x, kb, un, 1,
                     x, kb + mb, un, err));
    }
    for (int kb = (n - 1) / nb * nb; kb >= 0; kb -= nb) {
        const int mb = n - kb < nb ? n - kb : nb;
        TRY(trsm_block(c, prec, 0, mb, c->nrhs, a, kb + kb * un, x, (size_t)kb, err));
        if (kb > 0)
            TRY(gemm(c, prec, kb, c->nrhs, mb, -1, a, kb * un, un, x, kb, un, 1, x, 0, un, err));
    }
    return ORR_OK;
}

/* dst = P src (the factorisation's row exchanges), in double or, single,
 * into xs. */
static orr_status gather(mom_kern *c, cl_mem src, cl_mem dst, int single, orr_error *err)
{
    cl_kernel k = c->k[0][single ? K_GATHER_S : K_GATHER];
    TRY(set_args(k, err, 5, ARG(c->n), ARG(c->nrhs), ARG(c->perm), ARG(src), ARG(dst)));
    const size_t global[2] = {up((size_t)c->n, (size_t)c->wg), (size_t)c->nrhs};
    const size_t local[2] = {(size_t)c->wg, 1};
    return launch(c, k, 2, global, local, "launching the row exchanges of the right-hand sides",
                  err);
}

/* The row exchanges as a permutation, from the pivots (perm[i]: the row
 * of b that row i of P b is), made before the first solve. */
static orr_status load_permutation(mom_kern *c, orr_error *err)
{
    TRY(download(c, c->m.ipiv, c->hpiv, (size_t)c->n * sizeof *c->hpiv, err));
    TRY(drain(c, 0, err));
    for (int i = 0; i < c->n; i++)
        c->hperm[i] = i;
    for (int i = 0; i < c->n; i++) {
        const int p = c->hpiv[i] - 1;
        if (p < i || p >= c->n)
            return orr_fail(err, ORR_ERR_INTERNAL, "mom: pivot %d of row %d is out of range",
                            c->hpiv[i], i + 1);
        const int t = c->hperm[i];
        c->hperm[i] = c->hperm[p];
        c->hperm[p] = t;
    }
    c->perm_ready = 1;
    return upload(c, c->perm, c->hperm, (size_t)c->n * sizeof *c->hperm, err);
}

/* dst = Z^-1 src: through the double factors, or the single ones and widened. */
static orr_status ocl_solve(mom_kern *c, mom_vec src, mom_vec dst, orr_error *err)
{
    if (!c->perm_ready)
        TRY(load_permutation(c, err));
    if (!c->single) {
        TRY(gather(c, c->m.v[src], c->m.v[dst], 0, err));
        return lu_solve(c, 0, c->m.v[dst], err);
    }
    TRY(gather(c, c->m.v[src], c->m.xs, 1, err));
    TRY(lu_solve(c, 1, c->m.xs, err));
    cl_kernel k = c->k[0][K_WIDEN];
    const cl_ulong count = (cl_ulong)c->n * c->nrhs;
    TRY(set_args(k, err, 3, ARG(c->m.xs), ARG(c->m.v[dst]), ARG(count)));
    return launch1(c, k, (size_t)count, (size_t)c->wg, "launching the conversion to double", err);
}

/* R = B - Z x in double: Z itself where it was kept, else made again a
 * slab of columns at a time. */
static orr_status ocl_residual(mom_kern *c, mom_vec xv, orr_error *err)
{
    const size_t n = (size_t)c->n, nrhs = (size_t)c->nrhs;
    const cl_mem x = c->m.v[xv], r = c->m.v[MOM_R];
    TRY(copy(c, c->m.v[MOM_B], r, n * nrhs * 16, err));
    if (c->single)
        return gemm(c, 0, n, nrhs, n, -1, c->m.z, 0, n, x, 0, n, 1, r, 0, n, err);
    for (int j = 0; j < c->n; j += SLAB) {
        const int cols = c->n - j < SLAB ? c->n - j : SLAB;
        TRY(fill_columns(c, j, cols, j, c->slab, err));
        TRY(gemm(c, 0, n, nrhs, (size_t)cols, -1, c->slab, 0, n, x, (size_t)j, n, 1, r, 0, n, err));
    }
    return ORR_OK;
}

static orr_status ocl_sums(mom_kern *c, mom_vec v, double *host, orr_error *err)
{
    TRY(download(c, c->m.v[v], c->hv, (size_t)c->n * c->nrhs * 16, err));
    TRY(drain(c, 0, err));
    for (int q = 0; q < c->nrhs; q++) {
        const double *x = c->hv + 2 * (size_t)q * c->n;
        double s = 0;
        for (int i = 0; i < c->n; i++)
            s += hypot(x[2 * i], x[2 * i + 1]);
        host[q] = s;
    }
    return ORR_OK;
}

static orr_status ocl_u_stats(mom_kern *c, double *host, orr_error *err)
{
    TRY(col_stats(c, c->m.z, 0, c->n, 1, c->stats, err));
    TRY(download(c, c->stats, host, 2 * (size_t)c->n * sizeof *host, err));
    return drain(c, 0, err);
}

/* w = the identity. */
static orr_status identity(mom_kern *c, orr_error *err)
{
    TRY(zero(c, c->w, (size_t)c->n * c->n * 16, err));
    cl_kernel k = c->k[0][K_SET_DIAG];
    TRY(set_args(k, err, 2, ARG(c->n), ARG(c->w)));
    return launch1(c, k, (size_t)c->n, (size_t)c->wg, "launching the identity", err);
}

/* dst = T^-1 src, T^-1 made in w: the identity's block rows solved top
 * down (L) or bottom up, columns kb.. of each (U). */
static orr_status ocl_inverse(mom_kern *c, int lower, mom_vec src, mom_vec dst, orr_error *err)
{
    const int n = c->n, nb = c->nb;
    const size_t un = (size_t)n, nrhs = (size_t)c->nrhs;
    TRY(identity(c, err));
    for (int kb = 0; lower && kb < n; kb += nb) {
        const int mb = n - kb < nb ? n - kb : nb;
        TRY(trsm_block(c, 0, 1, mb, kb + mb, c->m.z, kb + kb * un, c->w, (size_t)kb, err));
        if (kb + mb < n)
            TRY(gemm(c, 0, n - kb - mb, kb + mb, mb, -1, c->m.z, (kb + mb) + kb * un, un, c->w, kb,
                     un, 1, c->w, kb + mb, un, err));
    }
    for (int kb = (n - 1) / nb * nb; !lower && kb >= 0; kb -= nb) {
        const int mb = n - kb < nb ? n - kb : nb;
        TRY(trsm_block(c, 0, 0, mb, n - kb, c->m.z, kb + kb * un, c->w, kb + kb * un, err));
        if (kb > 0)
            TRY(gemm(c, 0, kb, n - kb, mb, -1, c->m.z, kb * un, un, c->w, kb + kb * un, un, 1, c->w,
                     kb * un, un, err));
    }
    TRY(zero(c, c->m.v[dst], un * nrhs * 16, err));
    return gemm(c, 0, un, nrhs, un, 1, c->w, 0, un, c->m.v[src], 0, un, 0, c->m.v[dst], 0, un, err);
}

static orr_status ocl_add(mom_kern *c, mom_vec dst, mom_vec src, orr_error *err)
{
    cl_kernel k = c->k[0][K_ADD];
    const cl_ulong count = (cl_ulong)c->n * c->nrhs;
    TRY(set_args(k, err, 3, ARG(c->m.v[dst]), ARG(c->m.v[src]), ARG(count)));
    return launch1(c, k, (size_t)count, (size_t)c->wg, "launching the correction", err);
}

static orr_status ocl_copy(mom_kern *c, mom_vec dst, mom_vec src, orr_error *err)
{
    return copy(c, c->m.v[src], c->m.v[dst], (size_t)c->n * c->nrhs * 16, err);
}

static orr_status ocl_get(mom_kern *c, mom_vec v, double *host, orr_error *err)
{
    TRY(download(c, c->m.v[v], host, (size_t)c->n * c->nrhs * 16, err));
    return drain(c, 0, err);
}

/* ---- state ---- */

static orr_status ocl_read(mom_kern *c, mom_state s, void *host, orr_error *err)
{
    return mom_dmem_read(&c->m, s, host, err);
}

static orr_status ocl_write(mom_kern *c, mom_state s, const void *host, orr_error *err)
{
    return mom_dmem_write(&c->m, s, host, err);
}

/* ---- open, close ---- */

/* Device bytes of the system beyond mom_dmem's, and the largest single
 * buffer: ours, and CLBlast's GEMM temporaries (A, B and C copied padded,
 * each at most n x GEMM_COLS). */
static double device_bytes(const mom_kern *c, double *largest)
{
    const int n = c->n, nb = c->nb, single = c->single, faithful = c->faithful;
    const double nn = (double)n * n;
    const double pad = 128;   /* CLBlast pads to its tiles */
    const double temp =
        16 * ((n + pad) * (GEMM_COLS + pad) * 2 + (GEMM_COLS + pad) * (GEMM_COLS + pad));
    *largest = fmax(16 * nn, temp);
    return (faithful ? 16 * nn : 0) + (!single && !faithful ? 16.0 * n * SLAB : 0) +
           (double)n * (16 + 4) + 2.0 * (n / 4 + 2) * (12 + 16.0 * nb) + temp + DEVICE_MARGIN;
}

static void ocl_close(mom_kern *c)
{
    if (!c)
        return;
    cl_mem *const mem[] = {&c->w,      &c->perm, &c->stats, &c->cand_v,
                           &c->cand_i, &c->cand_row, &c->info, &c->warm};
    for (size_t i = 0; i < ORR_ARRAY_LEN(mem); i++)
        if (*mem[i])
            clReleaseMemObject(*mem[i]);
    mom_dmem_close(&c->m);
    if (c->slab && c->slab != c->w)
        clReleaseMemObject(c->slab);
    for (int p = 0; p < 2; p++) {
        for (int i = 0; i < N_KERNELS; i++)
            if (c->k[p][i])
                clReleaseKernel(c->k[p][i]);
        if (c->prog[p])
            clReleaseProgram(c->prog[p]);
    }
    free(c->hv);
    free(c->hpiv);
    free(c->hperm);
    free(c);
}

/* Work-items a row in the panel: LANES, or ORRERY_MOM_OPENCL_LANES (a
 * power of two below the work-group; for measuring). More lanes give a
 * GPU more work-groups and loads in flight in the panel; correct on PoCL
 * and on an H200 up to 1000 unknowns, but not yet timed on a GPU, and
 * PoCL runs the panel three times slower with 8. */
static int panel_lanes(int wg)
{
    const char *s = getenv("ORRERY_MOM_OPENCL_LANES");
    const int l = s ? atoi(s) : 0;
    return l >= 1 && l < wg && (l & (l - 1)) == 0 ? l : LANES;
}

static orr_status build(mom_kern *c, int prec, orr_error *err)
{
    const ocl_device *o = ocl_of(c->d);
    const char *extra = getenv("ORR_OPENCL_OPTIONS");
    char options[1024], what[64];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -DMOM_SINGLE=%d -DMOM_NB=%d -DMOM_WG=%d -DMOM_LANES=%d -DMOM_TC=%d %s %s",
             prec, c->nb, c->wg, c->lanes, TC, o->vendor_options, extra ? extra : "");
    snprintf(what, sizeof what, "the MoM kernels (%s)", prec ? "single" : "double");
    TRY(ocl_build_program(o->context, o->device, orr_opencl_mom_source, options, what, &c->prog[prec],
                          err));
    const int count = prec ? N_LU_KERNELS : N_KERNELS;
    for (int i = 0; i < count; i++) {
        cl_int e;
        size_t wg = 0;
        c->k[prec][i] = clCreateKernel(c->prog[prec], kernel_names[i], &e);
        CL_TRY(e, "creating the MoM kernels");
        CL_TRY(clGetKernelWorkGroupInfo(c->k[prec][i], o->device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof wg, &wg, NULL),
               "reading the MoM kernels' work-group size");
        const int need = i == K_TRSM_L || i == K_TRSM_U ? c->nb : c->wg;
        if (wg < (size_t)need)
            return orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                            "mom: OpenCL device %s runs kernel %s in work-groups of at most %zu "
                            "work-items (%d needed)", c->d->name, kernel_names[i], wg, need);
    }
    return ORR_OK;
}

static orr_status alloc(mom_kern *c, cl_mem *out, size_t bytes, orr_error *err)
{
    orr_dmem m = NULL;
    const orr_status st = mom_dmem_alloc(&c->m, &m, bytes, err);
    *out = m;
    return st;
}

/* What the device layer cannot see: CLBlast's 32-bit indices. */
static orr_status check_entries(const mom_kern *c, orr_error *err)
{
    if ((double)c->n * c->n <= INT_MAX)
        return ORR_OK;
    return orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                    "mom: %d unknowns: the OpenCL app's matrices hold at most 2^31 entries "
                    "(CLBlast indexes with 32-bit integers), 46340 unknowns", c->n);
}

/* A GEMM of each precision, so CLBlast compiles its kernels here rather
 * than in the first timed step. */
static orr_status warm_up(mom_kern *c, orr_error *err)
{
    TRY(gemm(c, 0, 1, 1, 1, 1, c->warm, 0, 1, c->warm, 1, 1, 1, c->warm, 2, 1, err));
    if (c->single)
        TRY(gemm(c, 1, 1, 1, 1, 1, c->warm, 0, 1, c->warm, 1, 1, 1, c->warm, 2, 1, err));
    return ORR_OK;
}

/* The work-groups: the largest power of two up to MAX_WG the device
 * runs, the block no larger than it runs. */
static orr_status work_groups(mom_kern *c, orr_error *err)
{
    size_t max_wg = 0;
    CL_TRY(clGetDeviceInfo(ocl_of(c->d)->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg,
                           &max_wg, NULL),
           "reading the device's work-group size");
    c->wg = 1;
    while (c->wg * 2 <= MAX_WG && (size_t)c->wg * 2 <= max_wg)
        c->wg *= 2;
    c->lanes = panel_lanes(c->wg);
    if ((size_t)c->nb > max_wg)
        c->nb = (int)(max_wg / 32 * 32);
    if (c->nb < 32 || c->wg < 32)
        return orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                        "mom: OpenCL device %s runs work-groups of at most %zu work-items (32 needed)",
                        c->d->name, max_wg);
    return ORR_OK;
}

/* Our buffers beyond mom_dmem's: the inverses' scratch, the residual's
 * slab, the permutation, the panel's candidates. */
static orr_status buffers(mom_kern *c, orr_error *err)
{
    const size_t un = (size_t)c->n, nn = un * un;
    if (c->faithful) {
        TRY(alloc(c, &c->w, nn * 16, err));
        TRY(alloc(c, &c->stats, 2 * un * sizeof(double), err));
        c->slab = c->w;
    } else if (!c->single) {
        TRY(alloc(c, &c->slab, un * SLAB * 16, err));
    }
    TRY(alloc(c, &c->perm, un * sizeof(cl_int), err));
    c->cand_stride = c->n / (c->wg / c->lanes) + 2;
    const size_t slots = 2 * (size_t)c->cand_stride;
    TRY(alloc(c, &c->cand_v, slots * sizeof(double), err));
    TRY(alloc(c, &c->cand_i, slots * sizeof(cl_int), err));
    TRY(alloc(c, &c->cand_row, slots * (size_t)c->nb * 16, err));
    TRY(alloc(c, &c->info, sizeof(cl_int), err));
    TRY(alloc(c, &c->warm, 3 * 16, err));
    /* touched now, so a device that allocates lazily refuses here */
    if (c->w)
        TRY(zero(c, c->w, nn * 16, err));
    if (c->slab && c->slab != c->w)
        TRY(zero(c, c->slab, un * SLAB * 16, err));
    TRY(zero(c, c->warm, 3 * 16, err));
    c->hinfo = -1;
    TRY(upload(c, c->info, &c->hinfo, sizeof c->hinfo, err));
    return drain(c, 0, err);
}

/* Everything open does; the caller closes c on failure. */
static orr_status setup(mom_kern *c, mom_plan *plan, orr_error *err)
{
    const mom_problem *p = c->p;
    const size_t un = (size_t)c->n, vec = un * c->nrhs;
    const long nnz = p->lcn ? p->lcn->col_start[c->n] : 0;
    const double t0 = orr_runtime_seconds();
    double largest;

    TRY(work_groups(c, err));
    plan->nb = c->nb;
    TRY(check_entries(c, err));
    const double need = mom_dmem_bytes(plan, nnz) + device_bytes(c, &largest);
    TRY(mom_dmem_open(&c->m, c->d, c->wu, p, plan, need, largest, err));
    TRY(build(c, 0, err));
    if (c->single)
        TRY(build(c, 1, err));
    TRY(buffers(c, err));
    TRY(warm_up(c, err));
    TRY(drain(c, 0, err));

    /* host copies */
    c->hv = malloc(vec * 16);
    c->hpiv = malloc(un * sizeof *c->hpiv);
    c->hperm = malloc(un * sizeof *c->hperm);
    if (!c->hv || !c->hpiv || !c->hperm)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    orr_log("OpenCL mom: %d unknowns, block %d, %s factors; kernels built and CLBlast ready in "
            "%.2f s", c->n, c->nb, c->single ? "single" : "double", orr_runtime_seconds() - t0);
    return ORR_OK;
}

static orr_status ocl_open(void *state, const mom_workunit *wu, const mom_problem *p,
                           mom_plan *plan, mom_kern **out, orr_error *err)
{
    mom_kern *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->d = state;
    c->wu = wu, c->p = p, c->n = p->n, c->nrhs = wu->n_incidence;
    c->single = plan->single;
    c->faithful = plan->rc->inverses;
    c->nb = plan->nb;
    orr_status st = setup(c, plan, err);
    if (st != ORR_OK) {
        ocl_close(c);
        return st;
    }
    *out = c;
    return ORR_OK;
}

/* Blocks of 64 columns: on an H200, N = 10000, the factorisation took
 * 0.40 s at 64, 0.51 at 128, 0.66 at 256. */
static const mom_kernels ocl_mom_kernels = {
    "OpenCL",     64,          32,           1024,       32,          "ORRERY_MOM_OPENCL_BLOCK",
    "ORRERY_MOM_OPENCL_PROFILE", orr_runtime_seconds, ocl_open,   ocl_close,   ocl_fill,
    ocl_to_single, ocl_panel,  ocl_swap,     ocl_trsm,   ocl_gemm,    ocl_finish,
    ocl_solve,    ocl_u_stats, ocl_inverse,  ocl_residual, ocl_sums,  ocl_add,
    ocl_copy,     ocl_get,     ocl_read,     ocl_write};

/* CLBlast keeps its programs (and so the context) until told. */
static void release_clblast(void *state)
{
    (void)state;
    CLBlastClearCache();
}

orr_status mom_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    return mom_device_attach(&ocl_mom_kernels, be->ctx, release_clblast, slot, err);
}
