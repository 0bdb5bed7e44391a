/* The MoM reference's primitives (device.h) on the host: our fill
 * (entries.h, over the pool's threads) and LAPACK/BLAS through OpenBLAS
 * (its own threads, as many as BOINC grants) for the rest (docs/mom.md
 * section 3), under the solvers' recipe of device.c:
 * - the pivoted panel by getrf, its exchanges by laswp, then trsm and
 *   gemm (LAPACK's zgetrf cut where a checkpoint may fall); the solves by
 *   getrs;
 * - the faithful solver's unpivoted panel of our own (its diagonal block,
 *   then one trsm); its inverses by trtri, applied by trmm;
 * - the single factors (mixed, precision single) by the same routines in
 *   single complex on a float copy of Z; the residual always in double. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../threads.h"
#include "device.h"
#include "entries.h"
#include "lapack.h"

#define FILL_TASK_COLUMNS 16      /* columns a fill task */

struct mom_kern {
    const mom_workunit *wu;
    const mom_problem *p;
    int n, nrhs;
    int single;                   /* the factors in single precision */
    double complex *z;            /* [n * n] */
    float complex *zs;            /* [n * n] (single), else NULL */
    lapack_int *ipiv;             /* [n] */
    double complex *v[4];         /* [nrhs * n] by mom_vec: B (the state), X, R, D */
    double *norms;                /* [2 n]: column max |z|, then column sum |z| */
    orr_pool *pool;
    const mom_lapack *L;
};

/* ---- the fill ---- */

typedef struct {
    mom_kern *c;
    int first, count;
} fill_job;

/* Column j of Z into col; its max and sum of |z| into top and sum. */
static void make_column(const mom_kern *c, int j, double complex *col, double *top, double *sum)
{
    mom_problem_column(c->p, j, (double *)col);
    *top = 0, *sum = 0;
    for (int i = 0; i < c->n; i++) {
        *top = fmax(*top, cabs(col[i]));
        *sum += cabs(col[i]);
    }
}

static void fill_column(mom_kern *c, int j)
{
    make_column(c, j, c->z + (size_t)j * c->n, &c->norms[j], &c->norms[c->n + j]);
}

static void fill_task(void *p, int task)
{
    const fill_job *f = p;
    const int j0 = f->first + task * FILL_TASK_COLUMNS;
    const int j1 = j0 + FILL_TASK_COLUMNS < f->first + f->count ? j0 + FILL_TASK_COLUMNS
                                                                : f->first + f->count;
    for (int j = j0; j < j1; j++)
        fill_column(f->c, j);
}

static void fill_rhs(mom_kern *c)
{
    const mom_problem *p = c->p;
    for (int r = 0; r < c->nrhs; r++) {
        const double phi = c->wu->incidence[r] * M_PI / 180;
        for (int i = 0; i < c->n; i++) {
            double re, im;
            mom_incident(p->g.k, cos(phi), sin(phi), p->px[i], p->py[i], &re, &im);
            ((double *)c->v[MOM_B])[2 * ((size_t)r * c->n + i)] = re;   /* C11: a complex is two reals */
            ((double *)c->v[MOM_B])[2 * ((size_t)r * c->n + i) + 1] = im;
        }
    }
}

static orr_status ref_fill(mom_kern *c, int first, int count, orr_error *err)
{
    (void)err;
    fill_job f = {c, first, count};
    const int tasks = (count + FILL_TASK_COLUMNS - 1) / FILL_TASK_COLUMNS;
    if (c->pool)
        orr_pool_run(c->pool, tasks, fill_task, &f);
    else
        for (int t = 0; t < tasks; t++)
            fill_task(&f, t);
    if (first == 0)
        fill_rhs(c);
    return ORR_OK;
}

/* ---- the blocked factorisation ---- */

/* The blocked LU's routines in one precision. */
typedef struct {
    size_t elem;
    const void *one, *minus_one;
    void (*getrf)(const lapack_int *, const lapack_int *, void *, const lapack_int *, lapack_int *,
                  lapack_int *);
    void (*laswp)(const lapack_int *, void *, const lapack_int *, const lapack_int *,
                  const lapack_int *, const lapack_int *, const lapack_int *);
    void (*trsm)(const char *, const char *, const char *, const char *, const lapack_int *,
                 const lapack_int *, const void *, const void *, const lapack_int *, void *,
                 const lapack_int *);
    void (*gemm)(const char *, const char *, const lapack_int *, const lapack_int *,
                 const lapack_int *, const void *, const void *, const lapack_int *, const void *,
                 const lapack_int *, const void *, void *, const lapack_int *);
} lu_kit;

static const double z_one[2] = {1, 0}, z_minus_one[2] = {-1, 0};
static const float c_one[2] = {1, 0}, c_minus_one[2] = {-1, 0};

static lu_kit kit_of(const mom_kern *c)
{
    const mom_lapack *L = c->L;
    return c->single ? (lu_kit){8, c_one, c_minus_one, L->cgetrf, L->claswp, L->ctrsm, L->cgemm}
                     : (lu_kit){16, z_one, z_minus_one, L->zgetrf, L->zlaswp, L->ztrsm, L->zgemm};
}

/* Element (i, j) of the factors' matrix. */
static void *at(const mom_kern *c, const lu_kit *kit, int i, int j)
{
    void *a = c->single ? (void *)c->zs : (void *)c->z;
    return (char *)a + ((size_t)j * c->n + i) * kit->elem;
}

/* The unpivoted LU of the panel (rows j.., columns j..j+nb-1) of a double
 * matrix (the faithful solver's: no row exchanges). Without exchanges the
 * rows below the diagonal block need only its U: the nb x nb block is
 * factored column by column, then the rows below take L = A U^-1 in one
 * trsm (OpenBLAS's threads), where a column at a time over the full height
 * would run single-threaded at the memory's pace. */
static orr_status panel_unpivoted(mom_kern *c, int j, int nb, orr_error *err)
{
    const int n = c->n, end = j + nb;
    double complex *a = c->z;
    for (int k = j; k < end; k++) {
        const double complex pivot = a[(size_t)k * n + k];
        if (pivot == 0)
            return mom_zero_pivot(err, k);
        for (int i = k + 1; i < end; i++)
            a[(size_t)k * n + i] /= pivot;
        for (int q = k + 1; q < end; q++) {
            const double complex u = a[(size_t)q * n + k];
            for (int i = k + 1; i < end; i++)
                a[(size_t)q * n + i] -= a[(size_t)k * n + i] * u;
        }
    }
    const lapack_int below = n - end, w = nb, ld = n;
    const double complex one = 1;
    if (below > 0)
        c->L->ztrsm("R", "U", "N", "N", &below, &w, &one, a + (size_t)j * n + j, &ld,
                    a + (size_t)j * n + end, &ld);
    return ORR_OK;
}

static orr_status ref_panel(mom_kern *c, int j, int nb, int pivoting, orr_error *err)
{
    if (!pivoting)
        return panel_unpivoted(c, j, nb, err);
    const lu_kit kit = kit_of(c);
    const lapack_int n = c->n, m = n - j, w = nb;
    lapack_int info = 0;
    kit.getrf(&m, &w, at(c, &kit, j, j), &n, c->ipiv + j, &info);
    if (info < 0)
        return orr_fail(err, ORR_ERR_INTERNAL, "getrf: argument %d", -info);
    /* singular (info > 0) shows as a zero pivot: the solve's backward error reports it */
    for (int q = j; q < j + nb; q++)
        c->ipiv[q] += j;
    return ORR_OK;
}

static orr_status ref_swap(mom_kern *c, int j, int nb, orr_error *err)
{
    (void)err;
    const lu_kit kit = kit_of(c);
    const lapack_int n = c->n, rest = n - j - nb, one = 1, k1 = j + 1, k2 = j + nb;
    if (j > 0)
        kit.laswp(&j, at(c, &kit, 0, 0), &n, &k1, &k2, c->ipiv, &one);
    if (rest > 0)
        kit.laswp(&rest, at(c, &kit, 0, j + nb), &n, &k1, &k2, c->ipiv, &one);
    return ORR_OK;
}

static orr_status ref_trsm(mom_kern *c, int j, int nb, orr_error *err)
{
    (void)err;
    const lu_kit kit = kit_of(c);
    const lapack_int n = c->n, w = nb, rest = n - j - nb;
    kit.trsm("L", "L", "N", "U", &w, &rest, kit.one, at(c, &kit, j, j), &n, at(c, &kit, j, j + nb),
             &n);
    return ORR_OK;
}

static orr_status ref_gemm(mom_kern *c, int j, int nb, orr_error *err)
{
    (void)err;
    const lu_kit kit = kit_of(c);
    const lapack_int n = c->n, w = nb, rest = n - j - nb;
    kit.gemm("N", "N", &rest, &rest, &w, kit.minus_one, at(c, &kit, j + nb, j), &n,
             at(c, &kit, j, j + nb), &n, kit.one, at(c, &kit, j + nb, j + nb), &n);
    return ORR_OK;
}

static orr_status ref_to_single(mom_kern *c, orr_error *err)
{
    (void)err;
    for (size_t e = 0; e < (size_t)c->n * c->n; e++)
        c->zs[e] = (float complex)c->z[e];
    return ORR_OK;
}

/* Every routine has returned: nothing is queued. */
static orr_status ref_finish(mom_kern *c, double expected_s, int *zero_pivot, orr_error *err)
{
    (void)c, (void)expected_s, (void)err;
    if (zero_pivot)
        *zero_pivot = -1;   /* panel_unpivoted failed at once */
    return ORR_OK;
}

/* ---- the solves ---- */

#define RESIDUAL_COLUMNS 64

typedef struct {
    const mom_kern *c;
    double complex *scratch;   /* [n * RESIDUAL_COLUMNS] */
    int first;
} column_job;

static void column_task(void *p, int task)
{
    const column_job *cj = p;
    double top, sum;
    make_column(cj->c, cj->first + task, cj->scratch + (size_t)task * cj->c->n, &top, &sum);
}

/* R = B - Z x in double: Z itself where it was kept, else made again a
 * slab of columns at a time (the double solvers factor Z in place). */
static orr_status ref_residual(mom_kern *c, mom_vec xv, orr_error *err)
{
    const lapack_int n = c->n, nrhs = c->nrhs;
    const double complex *x = c->v[xv];
    double complex *r = c->v[MOM_R];
    memcpy(r, c->v[MOM_B], (size_t)n * nrhs * sizeof *r);
    if (c->single) {
        c->L->zgemm("N", "N", &n, &nrhs, &n, z_minus_one, c->z, &n, x, &n, z_one, r, &n);
        return ORR_OK;
    }
    double complex *scratch = malloc((size_t)n * RESIDUAL_COLUMNS * sizeof *scratch);
    if (!scratch)
        return orr_fail(err, ORR_ERR_NOMEM, "no memory for the residual's %d columns", RESIDUAL_COLUMNS);
    for (int j = 0; j < n; j += RESIDUAL_COLUMNS) {
        const lapack_int cols = n - j < RESIDUAL_COLUMNS ? n - j : RESIDUAL_COLUMNS;
        column_job cj = {c, scratch, j};
        if (c->pool)
            orr_pool_run(c->pool, cols, column_task, &cj);
        else
            for (int t = 0; t < cols; t++)
                column_task(&cj, t);
        c->L->zgemm("N", "N", &n, &nrhs, &cols, z_minus_one, scratch, &n, x + j, &n, z_one, r, &n);
    }
    free(scratch);
    return ORR_OK;
}

static orr_status ref_sums(mom_kern *c, mom_vec v, double *host, orr_error *err)
{
    (void)err;
    for (int q = 0; q < c->nrhs; q++) {
        const double complex *x = c->v[v] + (size_t)q * c->n;
        double s = 0;
        for (int i = 0; i < c->n; i++)
            s += cabs(x[i]);
        host[q] = s;
    }
    return ORR_OK;
}

/* dst = Z^-1 src: getrs on the double factors, else cgetrs on src rounded. */
static orr_status ref_solve(mom_kern *c, mom_vec src, mom_vec dst, orr_error *err)
{
    const lapack_int n = c->n, nrhs = c->nrhs;
    const size_t len = (size_t)n * nrhs;
    lapack_int info = 0;
    if (!c->single) {
        memcpy(c->v[dst], c->v[src], len * sizeof *c->v[dst]);
        c->L->zgetrs("N", &n, &nrhs, c->z, &n, c->ipiv, c->v[dst], &n, &info);
        return info == 0 ? ORR_OK : orr_fail(err, ORR_ERR_INTERNAL, "zgetrs: argument %d", -info);
    }
    float complex *xs = malloc(len * sizeof *xs);
    if (!xs)
        return orr_fail(err, ORR_ERR_NOMEM, "no memory for the single-precision solves");
    for (size_t e = 0; e < len; e++)
        xs[e] = (float complex)c->v[src][e];
    c->L->cgetrs("N", &n, &nrhs, c->zs, &n, c->ipiv, xs, &n, &info);
    for (size_t e = 0; e < len; e++)
        c->v[dst][e] = xs[e];
    free(xs);
    return info == 0 ? ORR_OK : orr_fail(err, ORR_ERR_INTERNAL, "cgetrs: argument %d", -info);
}

static orr_status ref_u_stats(mom_kern *c, double *host, orr_error *err)
{
    (void)err;
    const int n = c->n;
    for (int j = 0; j < n; j++) {
        double top = 0;
        for (int i = 0; i <= j; i++)
            top = fmax(top, cabs(c->z[(size_t)j * n + i]));
        host[j] = top;
        host[n + j] = cabs(c->z[(size_t)j * n + j]);
    }
    return ORR_OK;
}

/* dst = T^-1 src: T inverted in place (trtri), then applied (trmm). */
static orr_status ref_inverse(mom_kern *c, int lower, mom_vec src, mom_vec dst, orr_error *err)
{
    const lapack_int n = c->n, nrhs = c->nrhs;
    const char *uplo = lower ? "L" : "U", *diag = lower ? "U" : "N";
    lapack_int e = 0;
    c->L->ztrtri(uplo, diag, &n, c->z, &n, &e);
    if (e)
        return orr_fail(err, ORR_ERR_NUMERIC, "faithful: U is singular (pivot %d is zero)", e);
    memcpy(c->v[dst], c->v[src], (size_t)n * nrhs * sizeof *c->v[dst]);
    c->L->ztrmm("L", uplo, "N", diag, &n, &nrhs, z_one, c->z, &n, c->v[dst], &n);
    return ORR_OK;
}

static orr_status ref_add(mom_kern *c, mom_vec dst, mom_vec src, orr_error *err)
{
    (void)err;
    for (size_t e = 0; e < (size_t)c->n * c->nrhs; e++)
        c->v[dst][e] += c->v[src][e];
    return ORR_OK;
}

static orr_status ref_copy(mom_kern *c, mom_vec dst, mom_vec src, orr_error *err)
{
    (void)err;
    memcpy(c->v[dst], c->v[src], (size_t)c->n * c->nrhs * sizeof *c->v[dst]);
    return ORR_OK;
}

static orr_status ref_get(mom_kern *c, mom_vec v, double *host, orr_error *err)
{
    (void)err;
    memcpy(host, c->v[v], (size_t)c->n * c->nrhs * sizeof *c->v[v]);
    return ORR_OK;
}

/* ---- state ---- */

static void *state_ptr(mom_kern *c, mom_state s)
{
    void *const p[MOM_N_STATES] = {c->z, c->zs, c->ipiv, c->v[MOM_B], c->norms};
    return p[s];
}

static orr_status ref_read(mom_kern *c, mom_state s, void *host, orr_error *err)
{
    (void)err;
    memcpy(host, state_ptr(c, s), mom_state_size(c->n, c->nrhs, c->single, s));
    return ORR_OK;
}

static orr_status ref_write(mom_kern *c, mom_state s, const void *host, orr_error *err)
{
    (void)err;
    memcpy(state_ptr(c, s), host, mom_state_size(c->n, c->nrhs, c->single, s));
    return ORR_OK;
}

/* ---- open, close ---- */

double mom_reference_bytes(const mom_workunit *wu, int n)
{
    const double nn = (double)n * n;
    return nn * 16 + (mom_factors_single(wu) ? nn * 8 : 0) + (double)n * wu->n_incidence * 16 * 3 +
           (double)n * RESIDUAL_COLUMNS * 16 + n * (4.0 + 16);
}

static void ref_close(mom_kern *c)
{
    if (!c)
        return;
    free(c->z);
    free(c->zs);
    free(c->ipiv);
    for (int v = 0; v < 4; v++)
        free(c->v[v]);
    free(c->norms);
    free(c);
}

static orr_status ref_open(void *state, const mom_workunit *wu, const mom_problem *p,
                           mom_plan *plan, mom_kern **out, orr_error *err)
{
    const mom_cpu_state *cpu = state;
    mom_kern *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->wu = wu, c->p = p, c->n = p->n, c->nrhs = wu->n_incidence;
    c->single = plan->single;
    c->pool = cpu ? cpu->pool : NULL;
    orr_status st = mom_lapack_load(&c->L, err);
    if (st != ORR_OK) {
        free(c);
        return st;
    }
    c->L->set_threads(cpu ? cpu->threads : 1);
    const size_t nn = (size_t)c->n * c->n, vec = (size_t)c->n * c->nrhs;
    c->z = malloc(nn * sizeof *c->z);
    c->zs = c->single ? malloc(nn * sizeof *c->zs) : NULL;
    c->ipiv = calloc((size_t)c->n, sizeof *c->ipiv);
    int ok = c->z && (!c->single || c->zs) && c->ipiv;
    for (int v = 0; v < 4; v++)
        ok = ok && (v == MOM_D && !plan->rc->refine ? 1 : (c->v[v] = malloc(vec * sizeof **c->v)) != NULL);
    c->norms = malloc(2 * (size_t)c->n * sizeof *c->norms);
    if (!ok || !c->norms) {
        ref_close(c);
        return orr_fail(err, ORR_ERR_NOMEM, "the %d x %d system needs %.3g bytes of host memory",
                        p->n, p->n, mom_reference_bytes(wu, p->n));
    }
    *out = c;
    return ORR_OK;
}

/* Blocks of 128 columns (ORRERY_MOM_CPU_BLOCK: 16 .. 2048, for measuring). */
static const mom_kernels ref_kernels = {
    "CPU",       128,         16,           2048,     1,          "ORRERY_MOM_CPU_BLOCK",
    NULL,        NULL,        ref_open,    ref_close,    ref_fill, ref_to_single, ref_panel,
    ref_swap,    ref_trsm,    ref_gemm,     ref_finish, ref_solve, ref_u_stats,
    ref_inverse, ref_residual, ref_sums,    ref_add,  ref_copy,   ref_get,
    ref_read,    ref_write};

static orr_status open_reference(void *state, const mom_workunit *wu, const mom_problem *p,
                                 mom_ctx **out, orr_error *err)
{
    return mom_device_open(&ref_kernels, state, wu, p, out, err);
}

const mom_ops mom_reference_ops = MOM_DEVICE_OPS(open_reference);

orr_status mom_ops_of(orr_backend *be, mom_bound_ops *out, orr_error *err)
{
    out->ops = &mom_reference_ops;
    out->state = NULL;
    if (!be)
        return ORR_OK;
    const orr_kind_slot *slot;
    orr_status st = orr_backend_slot(be, MOM_KIND_NAME, &slot, err);
    if (st == ORR_OK && slot->ops) {
        out->ops = slot->ops;
        out->state = slot->state;
    }
    return st;
}
