/* The MoM reference ops (ops.h) on the host: our fill (entries.h, over
 * the pool's threads) and LAPACK/BLAS through OpenBLAS (its own threads,
 * as many as BOINC grants) for the rest (docs/mom.md section 3):
 * - reference: right-looking blocked LU with partial pivoting, a block
 *   column a step (getrf on the panel, laswp, trsm, gemm: LAPACK's zgetrf
 *   cut where a checkpoint may fall), getrs for the solves;
 * - faithful: the source's pipeline: the same blocking without pivoting
 *   (an unpivoted panel of our own: its diagonal block, then one trsm),
 *   explicit inverses of L and U (trtri), two triangular products (trmm),
 *   growth factor and smallest pivot;
 * - mixed: the blocked LU in single precision, then iterative refinement
 *   with residuals against Z in double until the backward error stops
 *   falling.
 * `precision single` with the reference solver factors and solves in
 * single; the residual is always taken in double. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../threads.h"
#include "entries.h"
#include "lapack.h"
#include "ops.h"

#define BLOCK 128                 /* columns of a factorisation step (ORRERY_MOM_CPU_BLOCK: measuring) */
#define FILL_TASK_COLUMNS 16      /* columns a fill task */
#define MAX_REFINEMENTS 30

struct mom_ctx {
    const mom_workunit *wu;
    const mom_problem *p;
    int n, nrhs;
    int single;                   /* the factors in single precision */
    double complex *z;            /* [n * n] */
    float complex *zs;            /* [n * n] (single), else NULL */
    lapack_int *ipiv;             /* [n] */
    double complex *b;            /* [nrhs * n] */
    double *norms;                /* [2 n]: column max |z|, then column sum |z| */
    orr_pool *pool;
    const mom_lapack *L;
    int nb;                       /* columns of a factorisation step */
};

/* ---- the fill ---- */

typedef struct {
    mom_ctx *c;
    int first, count;
} fill_job;

/* Column j of Z into col; its max and sum of |z| into top and sum. */
static void make_column(const mom_ctx *c, int j, double complex *col, double *top, double *sum)
{
    mom_problem_column(c->p, j, (double *)col);
    *top = 0, *sum = 0;
    for (int i = 0; i < c->n; i++) {
        *top = fmax(*top, cabs(col[i]));
        *sum += cabs(col[i]);
    }
}

static void fill_column(mom_ctx *c, int j)
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

static void fill_rhs(mom_ctx *c)
{
    const mom_problem *p = c->p;
    for (int r = 0; r < c->nrhs; r++) {
        const double phi = c->wu->incidence[r] * M_PI / 180;
        for (int i = 0; i < c->n; i++) {
            double re, im;
            mom_incident(p->g.k, cos(phi), sin(phi), p->px[i], p->py[i], &re, &im);
            ((double *)c->b)[2 * ((size_t)r * c->n + i)] = re;   /* C11: a complex is two reals */
            ((double *)c->b)[2 * ((size_t)r * c->n + i) + 1] = im;
        }
    }
}

static orr_status ref_fill(mom_ctx *c, int first, int count, orr_error *err)
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

static lu_kit kit_of(const mom_lapack *L, int single)
{
    return single ? (lu_kit){8, c_one, c_minus_one, L->cgetrf, L->claswp, L->ctrsm, L->cgemm}
                  : (lu_kit){16, z_one, z_minus_one, L->zgetrf, L->zlaswp, L->ztrsm, L->zgemm};
}

static void *at(const lu_kit *kit, void *a, int n, int i, int j)
{
    return (char *)a + ((size_t)j * n + i) * kit->elem;
}

/* The unpivoted LU of the panel (rows j.., columns j..j+nb-1) of a double
 * matrix (the faithful solver's: no row exchanges). Without exchanges the
 * rows below the diagonal block need only its U: the nb x nb block is
 * factored column by column, then the rows below take L = A U^-1 in one
 * trsm (OpenBLAS's threads), where a column at a time over the full height
 * would run single-threaded at the memory's pace. */
static orr_status panel_unpivoted(mom_ctx *c, int j, int nb, orr_error *err)
{
    const int n = c->n, end = j + nb;
    double complex *a = c->z;
    for (int k = j; k < end; k++) {
        const double complex pivot = a[(size_t)k * n + k];
        if (pivot == 0)
            return orr_fail(err, ORR_ERR_NUMERIC,
                            "faithful LU: the pivot of column %d is exactly zero (no pivoting)", k);
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

static orr_status factor_block(mom_ctx *c, const lu_kit *kit, void *a, int j, int pivoting,
                               orr_error *err)
{
    const lapack_int n = c->n, nb = n - j < c->nb ? n - j : c->nb, rest = n - j - nb, m = n - j;
    lapack_int info = 0, one = 1, k1 = j + 1, k2 = j + nb;
    if (pivoting) {
        kit->getrf(&m, &nb, at(kit, a, n, j, j), &n, c->ipiv + j, &info);
        if (info < 0)
            return orr_fail(err, ORR_ERR_INTERNAL, "getrf: argument %d", -info);
        /* singular (info > 0) shows as a zero pivot: the solve's backward error reports it */
        for (int q = j; q < j + nb; q++)
            c->ipiv[q] += j;
        if (j > 0)
            kit->laswp(&j, a, &n, &k1, &k2, c->ipiv, &one);
        if (rest > 0)
            kit->laswp(&rest, at(kit, a, n, 0, j + nb), &n, &k1, &k2, c->ipiv, &one);
    } else {
        orr_status st = panel_unpivoted(c, j, nb, err);
        if (st != ORR_OK)
            return st;
    }
    if (rest > 0) {
        kit->trsm("L", "L", "N", "U", &nb, &rest, kit->one, at(kit, a, n, j, j), &n,
                  at(kit, a, n, j, j + nb), &n);
        kit->gemm("N", "N", &rest, &rest, &nb, kit->minus_one, at(kit, a, n, j + nb, j), &n,
                  at(kit, a, n, j, j + nb), &n, kit->one, at(kit, a, n, j + nb, j + nb), &n);
    }
    return ORR_OK;
}

static orr_status ref_factor(mom_ctx *c, int first, orr_error *err)
{
    const lu_kit kit = kit_of(c->L, c->single);
    if (c->single) {
        if (first == 0)
            for (size_t e = 0; e < (size_t)c->n * c->n; e++)
                c->zs[e] = (float complex)c->z[e];
        return factor_block(c, &kit, c->zs, first, 1, err);
    }
    return factor_block(c, &kit, c->z, first, c->wu->solver != MOM_FAITHFUL, err);
}

static int ref_block(const mom_ctx *c)
{
    return c->nb;
}

/* BLOCK, or ORRERY_MOM_CPU_BLOCK (16..2048) for measuring other sizes. */
static int block_size(void)
{
    const char *s = getenv("ORRERY_MOM_CPU_BLOCK");
    const int b = s ? atoi(s) : 0;
    return b >= 16 && b <= 2048 ? b : BLOCK;
}

/* ---- the solves ---- */

#define RESIDUAL_COLUMNS 64

typedef struct {
    const mom_ctx *c;
    double complex *scratch;   /* [n * RESIDUAL_COLUMNS] */
    int first;
} column_job;

static void column_task(void *p, int task)
{
    const column_job *cj = p;
    double top, sum;
    make_column(cj->c, cj->first + task, cj->scratch + (size_t)task * cj->c->n, &top, &sum);
}

/* r = b - Z x in double: Z itself where it was kept, else made again a
 * slab of columns at a time (the double solvers factor Z in place). */
static orr_status residual(const mom_ctx *c, const double complex *x, double complex *r,
                           orr_error *err)
{
    const lapack_int n = c->n, nrhs = c->nrhs;
    memcpy(r, c->b, (size_t)n * nrhs * sizeof *r);
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

static double norm1(const double complex *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += cabs(v[i]);
    return s;
}

/* The largest backward error over the right-hand sides, in units of n eps. */
static double backward_error(const mom_ctx *c, const double complex *x, const double complex *r)
{
    double z1 = 0, worst = 0;
    for (int j = 0; j < c->n; j++)
        z1 = fmax(z1, c->norms[c->n + j]);
    for (int q = 0; q < c->nrhs; q++) {
        const double num = norm1(r + (size_t)q * c->n, c->n);
        const double den = z1 * norm1(x + (size_t)q * c->n, c->n) * c->n * DBL_EPSILON;
        worst = fmax(worst, den > 0 ? num / den : INFINITY);
    }
    return worst;
}

/* x = Z^-1 b through the single factors, in double. */
static orr_status single_solve(mom_ctx *c, const double complex *b, double complex *x,
                               orr_error *err)
{
    const lapack_int n = c->n, nrhs = c->nrhs;
    lapack_int info = 0;
    float complex *xs = malloc((size_t)n * nrhs * sizeof *xs);
    if (!xs)
        return orr_fail(err, ORR_ERR_NOMEM, "no memory for the single-precision solves");
    for (size_t e = 0; e < (size_t)n * nrhs; e++)
        xs[e] = (float complex)b[e];
    c->L->cgetrs("N", &n, &nrhs, c->zs, &n, c->ipiv, xs, &n, &info);
    for (size_t e = 0; e < (size_t)n * nrhs; e++)
        x[e] = xs[e];
    free(xs);
    return info == 0 ? ORR_OK : orr_fail(err, ORR_ERR_INTERNAL, "cgetrs: argument %d", -info);
}

/* Mixed: refine x until the backward error stops falling (or is at
 * double's level: below 1 n eps). */
static orr_status refine(mom_ctx *c, double complex *x, double complex *r, mom_solve_info *info,
                         orr_error *err)
{
    const size_t len = (size_t)c->n * c->nrhs;
    double complex *d = malloc(len * sizeof *d);
    if (!d)
        return orr_fail(err, ORR_ERR_NOMEM, "no memory for the refinement");
    orr_status st = residual(c, x, r, err);
    info->backward = backward_error(c, x, r);
    while (st == ORR_OK && info->backward > 1 && info->refinements < MAX_REFINEMENTS) {
        if ((st = single_solve(c, r, d, err)) != ORR_OK)
            break;
        for (size_t e = 0; e < len; e++)
            d[e] += x[e];
        if ((st = residual(c, d, r, err)) != ORR_OK)
            break;
        const double next = backward_error(c, d, r);
        if (!(next < info->backward))
            break;
        memcpy(x, d, len * sizeof *x);
        info->backward = next;
        info->refinements++;
    }
    free(d);
    return st;
}

/* Faithful: growth and smallest pivot of U, then L^-1 and U^-1 in place
 * and x = U^-1 (L^-1 b). */
static orr_status faithful_solve(mom_ctx *c, double complex *x, mom_solve_info *info,
                                 orr_error *err)
{
    const lapack_int n = c->n, nrhs = c->nrhs;
    lapack_int e1 = 0, e2 = 0;
    double top = 0, z_max = 0;
    info->min_pivot = INFINITY;
    for (int j = 0; j < n; j++) {
        z_max = fmax(z_max, c->norms[j]);
        info->min_pivot = fmin(info->min_pivot, cabs(c->z[(size_t)j * n + j]));
        for (int i = 0; i <= j; i++)
            top = fmax(top, cabs(c->z[(size_t)j * n + i]));
    }
    info->growth = top / z_max;
    c->L->ztrtri("L", "U", &n, c->z, &n, &e1);
    c->L->ztrtri("U", "N", &n, c->z, &n, &e2);
    if (e1 || e2)
        return orr_fail(err, ORR_ERR_NUMERIC, "faithful: U is singular (pivot %d is zero)", e2);
    memcpy(x, c->b, (size_t)n * nrhs * sizeof *x);
    c->L->ztrmm("L", "L", "N", "U", &n, &nrhs, z_one, c->z, &n, x, &n);
    c->L->ztrmm("L", "U", "N", "N", &n, &nrhs, z_one, c->z, &n, x, &n);
    return ORR_OK;
}

static orr_status ref_solve(mom_ctx *c, double *xout, mom_solve_info *info, orr_error *err)
{
    const lapack_int n = c->n, nrhs = c->nrhs;
    double complex *x = (double complex *)xout;
    double complex *r = malloc((size_t)n * nrhs * sizeof *r);
    if (!r)
        return orr_fail(err, ORR_ERR_NOMEM, "no memory for the residuals");
    memset(info, 0, sizeof *info);
    info->growth = info->min_pivot = NAN;
    orr_status st = ORR_OK;
    if (c->single) {
        st = single_solve(c, c->b, x, err);
        if (st == ORR_OK && c->wu->solver == MOM_MIXED)
            st = refine(c, x, r, info, err);
    } else if (c->wu->solver == MOM_FAITHFUL) {
        st = faithful_solve(c, x, info, err);
    } else {
        lapack_int e = 0;
        memcpy(x, c->b, (size_t)n * nrhs * sizeof *x);
        c->L->zgetrs("N", &n, &nrhs, c->z, &n, c->ipiv, x, &n, &e);
        if (e)
            st = orr_fail(err, ORR_ERR_INTERNAL, "zgetrs: argument %d", -e);
    }
    if (st == ORR_OK && c->wu->solver != MOM_MIXED && (st = residual(c, x, r, err)) == ORR_OK)
        info->backward = backward_error(c, x, r);
    free(r);
    return st;
}

/* ---- state ---- */

size_t mom_state_size(int n, int nrhs, int single, mom_state s)
{
    const size_t nn = (size_t)n * n;
    switch (s) {
    case MOM_STATE_MATRIX: return nn * 16;
    case MOM_STATE_FACTORS: return single ? nn * 8 : 0;
    case MOM_STATE_PIVOTS: return (size_t)n * 4;
    case MOM_STATE_RHS: return (size_t)n * nrhs * 16;
    case MOM_STATE_NORMS: return 2 * (size_t)n * sizeof(double);
    default: return 0;
    }
}

static size_t ref_state_bytes(const mom_ctx *c, mom_state s)
{
    return mom_state_size(c->n, c->nrhs, c->single, s);
}

static void *state_ptr(mom_ctx *c, mom_state s)
{
    void *const p[MOM_N_STATES] = {c->z, c->zs, c->ipiv, c->b, c->norms};
    return p[s];
}

static orr_status ref_read(mom_ctx *c, mom_state s, void *host, orr_error *err)
{
    (void)err;
    if (ref_state_bytes(c, s))
        memcpy(host, state_ptr(c, s), ref_state_bytes(c, s));
    return ORR_OK;
}

static orr_status ref_write(mom_ctx *c, mom_state s, const void *host, orr_error *err)
{
    (void)err;
    if (ref_state_bytes(c, s))
        memcpy(state_ptr(c, s), host, ref_state_bytes(c, s));
    return ORR_OK;
}

/* ---- open, close ---- */

double mom_reference_bytes(const mom_workunit *wu, int n)
{
    const double nn = (double)n * n;
    return nn * 16 + (mom_factors_single(wu) ? nn * 8 : 0) + (double)n * wu->n_incidence * 16 * 3 +
           (double)n * RESIDUAL_COLUMNS * 16 + n * (4.0 + 16);
}

static void ref_close(mom_ctx *c)
{
    if (!c)
        return;
    free(c->z);
    free(c->zs);
    free(c->ipiv);
    free(c->b);
    free(c->norms);
    free(c);
}

static orr_status ref_open(void *state, const mom_workunit *wu, const mom_problem *p, mom_ctx **out,
                           orr_error *err)
{
    const mom_cpu_state *cpu = state;
    mom_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->wu = wu, c->p = p, c->n = p->n, c->nrhs = wu->n_incidence;
    c->single = mom_factors_single(wu);
    c->nb = block_size();
    c->pool = cpu ? cpu->pool : NULL;
    orr_status st = mom_lapack_load(&c->L, err);
    if (st != ORR_OK) {
        free(c);
        return st;
    }
    c->L->set_threads(cpu ? cpu->threads : 1);
    const size_t nn = (size_t)c->n * c->n;
    c->z = malloc(nn * sizeof *c->z);
    c->zs = c->single ? malloc(nn * sizeof *c->zs) : NULL;
    c->ipiv = calloc((size_t)c->n, sizeof *c->ipiv);
    c->b = malloc((size_t)c->n * c->nrhs * sizeof *c->b);
    c->norms = malloc(2 * (size_t)c->n * sizeof *c->norms);
    if (!c->z || (c->single && !c->zs) || !c->ipiv || !c->b || !c->norms) {
        ref_close(c);
        return orr_fail(err, ORR_ERR_NOMEM, "the %d x %d system needs %.3g bytes of host memory",
                        p->n, p->n, mom_reference_bytes(wu, p->n));
    }
    *out = c;
    return ORR_OK;
}

const mom_ops mom_reference_ops = {ref_open,  ref_close,       ref_fill, ref_factor, ref_block,
                                   ref_solve, ref_state_bytes, ref_read, ref_write};

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
