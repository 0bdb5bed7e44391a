/* The MoM solvers over a backend's primitives (device.h): the recipe of
 * each solver, the per-phase waits (sleeping through the time the last
 * such step took) and the numbers the solve reports, the same for every
 * backend. */
#include "device.h"

#include <stdio.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lcn.h"

#define MAX_REFINEMENTS 30

const mom_recipe mom_recipes[3] = {
    [MOM_REFERENCE] = {.pivoting = 1},
    [MOM_FAITHFUL] = {.pivoting = 0, .inverses = 1},
    [MOM_MIXED] = {.pivoting = 1, .single = 1, .refine = 1},
};

int mom_factors_single(const mom_workunit *wu)
{
    return mom_recipes[wu->solver].single || wu->precision == MOM_SINGLE;
}

enum { PART_PANEL, PART_SWAP, PART_TRSM, PART_GEMM, N_PARTS };

struct mom_ctx {
    const mom_kernels *k;
    mom_kern *kern;
    mom_plan plan;
    double *norms;           /* [2 n] host: Z's column max |z|, then sum |z| */
    double *stats;           /* [2 n] host: U's column maxima, then |u_jj| */
    double *sums;            /* [2 nrhs] host: |r|_1, then |x|_1 */
    double fill_rate, factor_s;   /* the last step's seconds (a column's, a block column's) */
    int profile;
    double part_s[N_PARTS], part_t0;
    orr_gpu_timing timing;   /* the fill's and the factorisation's waits */
};

orr_status mom_zero_pivot(orr_error *err, int column)
{
    return orr_fail(err, ORR_ERR_NUMERIC,
                    "faithful LU: the pivot of column %d is exactly zero (no pivoting)", column);
}

/* ---- open, close ---- */

/* k's block, or its env's (within k's range) for measuring. */
static int block_size(const mom_kernels *k)
{
    const char *s = getenv(k->block_env);
    const int b = s ? atoi(s) : 0;
    return b >= k->block_min && b <= k->block_max && b % k->block_step == 0 ? b : k->block;
}

void mom_device_close(mom_ctx *c)
{
    if (!c)
        return;
    if (c->k->seconds) {   /* a device's queue: what its waits cost */
        char what[64];
        snprintf(what, sizeof what, "%s mom fill and factorisation", c->k->api);
        orr_gpu_timing_report(&c->timing, what, "one block column a wait");
    }
    if (c->kern)
        c->k->close(c->kern);
    free(c->norms);
    free(c->stats);
    free(c->sums);
    free(c);
}

orr_status mom_device_open(const mom_kernels *k, void *state, const mom_workunit *wu,
                           const mom_problem *p, mom_ctx **out, orr_error *err)
{
    mom_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->k = k;
    c->plan = (mom_plan){p->n, wu->n_incidence, block_size(k), mom_factors_single(wu),
                         &mom_recipes[wu->solver]};
    const char *prof = k->profile_env ? getenv(k->profile_env) : NULL;
    c->profile = k->seconds && prof && *prof && strcmp(prof, "0") != 0;
    c->norms = malloc(2 * (size_t)p->n * sizeof *c->norms);
    c->stats = malloc(2 * (size_t)p->n * sizeof *c->stats);
    c->sums = malloc(2 * (size_t)wu->n_incidence * sizeof *c->sums);
    orr_status st = c->norms && c->stats && c->sums ? ORR_OK : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (st == ORR_OK)
        st = k->open(state, wu, p, &c->plan, &c->kern, err);
    if (st != ORR_OK) {
        mom_device_close(c);
        return st;
    }
    *out = c;
    return ORR_OK;
}

/* ---- the fill, the factorisation ---- */

static double now(const mom_ctx *c)
{
    return c->k->seconds ? c->k->seconds() : 0;
}

orr_status mom_device_fill(mom_ctx *c, int first, int count, orr_error *err)
{
    orr_gpu_span span;
    orr_gpu_timing_begin(&span);
    TRY(c->k->fill(c->kern, first, count, err));
    TRY(c->k->finish(c->kern, c->fill_rate * count, NULL, err));
    c->fill_rate = orr_gpu_timing_end(&c->timing, &span) / count;
    return ORR_OK;
}

/* With profiling, the queue drained and the time since the last mark
 * added to part (part < 0: only the mark). */
static orr_status mark(mom_ctx *c, int part, orr_error *err)
{
    if (!c->profile)
        return ORR_OK;
    TRY(c->k->finish(c->kern, 0, NULL, err));
    const double t = now(c);
    if (part >= 0)
        c->part_s[part] += t - c->part_t0;
    c->part_t0 = t;
    return ORR_OK;
}

/* The block column at j: the panel, its exchanges outside it, the block
 * row and the trailing update (LAPACK's zgetrf, cut where a checkpoint
 * may fall). */
static orr_status factor_block(mom_ctx *c, int j, orr_error *err)
{
    const mom_kernels *k = c->k;
    const int n = c->plan.n, nb = n - j < c->plan.nb ? n - j : c->plan.nb, rest = n - j - nb;
    const int pivoting = c->plan.rc->pivoting;
    TRY(mark(c, -1, err));
    TRY(k->panel(c->kern, j, nb, pivoting, err));
    TRY(mark(c, PART_PANEL, err));
    if (pivoting) {
        TRY(k->swap(c->kern, j, nb, err));
        TRY(mark(c, PART_SWAP, err));
    }
    if (rest > 0) {
        TRY(k->trsm(c->kern, j, nb, err));
        TRY(mark(c, PART_TRSM, err));
        TRY(k->gemm(c->kern, j, nb, err));
        TRY(mark(c, PART_GEMM, err));
    }
    if (c->profile && j + nb == n)
        orr_log("%s mom profile: panel %.3f s, row exchanges %.3f s, block row %.3f s, "
                "trailing GEMM %.3f s", k->api, c->part_s[PART_PANEL], c->part_s[PART_SWAP],
                c->part_s[PART_TRSM], c->part_s[PART_GEMM]);
    return ORR_OK;
}

orr_status mom_device_factor(mom_ctx *c, int first, orr_error *err)
{
    orr_gpu_span span;
    orr_gpu_timing_begin(&span);
    int zero = -1;
    if (c->plan.single && first == 0)
        TRY(c->k->to_single(c->kern, err));
    TRY(factor_block(c, first, err));
    TRY(c->k->finish(c->kern, c->profile ? 0 : c->factor_s, c->plan.rc->pivoting ? NULL : &zero,
                     err));
    c->factor_s = orr_gpu_timing_end(&c->timing, &span);
    return zero >= 0 ? mom_zero_pivot(err, zero) : ORR_OK;
}

int mom_device_block(const mom_ctx *c)
{
    return c->plan.nb;
}

/* ---- the solves ---- */

/* R = B - Z x, and the largest backward error over the right-hand sides
 * in units of n eps. */
static orr_status backward_error(mom_ctx *c, mom_vec x, double *out, orr_error *err)
{
    const int n = c->plan.n, nrhs = c->plan.nrhs;
    TRY(c->k->residual(c->kern, x, err));
    TRY(c->k->sums(c->kern, MOM_R, c->sums, err));
    TRY(c->k->sums(c->kern, x, c->sums + nrhs, err));
    double z1 = 0, worst = 0;
    for (int j = 0; j < n; j++)
        z1 = fmax(z1, c->norms[n + j]);
    for (int q = 0; q < nrhs; q++) {
        const double num = c->sums[q];
        const double den = z1 * c->sums[nrhs + q] * n * DBL_EPSILON;
        worst = fmax(worst, den > 0 ? num / den : INFINITY);
    }
    *out = worst;
    return ORR_OK;
}

/* Mixed: refine X until the backward error stops falling (or is at
 * double's level: below 1 n eps). */
static orr_status refine(mom_ctx *c, mom_solve_info *info, orr_error *err)
{
    const mom_kernels *k = c->k;
    TRY(backward_error(c, MOM_X, &info->backward, err));
    while (info->backward > 1 && info->refinements < MAX_REFINEMENTS) {
        TRY(k->solve(c->kern, MOM_R, MOM_D, err));
        TRY(k->add(c->kern, MOM_D, MOM_X, err));
        double next;
        TRY(backward_error(c, MOM_D, &next, err));
        if (!(next < info->backward))
            break;
        TRY(k->copy(c->kern, MOM_X, MOM_D, err));
        info->backward = next;
        info->refinements++;
    }
    return ORR_OK;
}

/* Faithful: growth and smallest pivot of U, then X = U^-1 (L^-1 B). */
static orr_status faithful_solve(mom_ctx *c, mom_solve_info *info, orr_error *err)
{
    const int n = c->plan.n;
    TRY(c->k->u_stats(c->kern, c->stats, err));
    double top = 0, z_max = 0;
    int zero_at = 0;
    info->min_pivot = INFINITY;
    for (int j = 0; j < n; j++) {
        z_max = fmax(z_max, c->norms[j]);
        top = fmax(top, c->stats[j]);
        info->min_pivot = fmin(info->min_pivot, c->stats[n + j]);
        if (c->stats[n + j] == 0 && !zero_at)
            zero_at = j + 1;
    }
    info->growth = top / z_max;
    if (zero_at)
        return orr_fail(err, ORR_ERR_NUMERIC, "faithful: U is singular (pivot %d is zero)", zero_at);
    TRY(c->k->inverse(c->kern, 1, MOM_B, MOM_R, err));
    return c->k->inverse(c->kern, 0, MOM_R, MOM_X, err);
}

orr_status mom_device_solve(mom_ctx *c, double *x, mom_solve_info *info, orr_error *err)
{
    const mom_recipe *rc = c->plan.rc;
    memset(info, 0, sizeof *info);
    info->growth = info->min_pivot = NAN;
    TRY(c->k->read(c->kern, MOM_STATE_NORMS, c->norms, err));
    if (rc->inverses)
        TRY(faithful_solve(c, info, err));
    else
        TRY(c->k->solve(c->kern, MOM_B, MOM_X, err));
    TRY(rc->refine ? refine(c, info, err) : backward_error(c, MOM_X, &info->backward, err));
    return c->k->get(c->kern, MOM_X, x, err);
}

/* ---- state ---- */

size_t mom_device_state_bytes(const mom_ctx *c, mom_state s)
{
    return mom_state_size(c->plan.n, c->plan.nrhs, c->plan.single, s);
}

orr_status mom_device_read(mom_ctx *c, mom_state s, void *host, orr_error *err)
{
    return mom_device_state_bytes(c, s) ? c->k->read(c->kern, s, host, err) : ORR_OK;
}

orr_status mom_device_write(mom_ctx *c, mom_state s, const void *host, orr_error *err)
{
    return mom_device_state_bytes(c, s) ? c->k->write(c->kern, s, host, err) : ORR_OK;
}

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

/* ---- a GPU backend's buffers ---- */

double mom_dmem_bytes(const mom_plan *plan, long nnz)
{
    const double n = plan->n, nn = n * n, vec = n * plan->nrhs;
    return nn * 16 + (plan->single ? nn * 8 + vec * 8 : 0) + vec * 16 * 3 +
           (plan->rc->refine ? vec * 16 : 0) + n * (4 + 16 + 24) + plan->nrhs * 16.0 +
           (n + 1) * 4 + nnz * 20.0;
}

orr_status mom_dmem_alloc(mom_dmem *m, orr_dmem *out, size_t bytes, orr_error *err)
{
    orr_device *d = m->d;
    *out = NULL;
    const orr_status st = d->api->alloc(d, bytes ? bytes : 16, out, err);
    if (st == ORR_OK)
        return ORR_OK;
    *out = NULL;
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err ? err->message : "");
    return orr_fail(err, st,
                    "mom: the %d x %d system needs about %.0f bytes of device memory; %s device "
                    "%s could not allocate %zu bytes: %s",
                    m->n, m->n, m->need, d->api->api, d->name, bytes, why);
}

void mom_dmem_free(mom_dmem *m, orr_dmem *mem)
{
    if (*mem)
        m->d->api->release(m->d, *mem);
    *mem = NULL;
}

void mom_dmem_close(mom_dmem *m)
{
    orr_dmem *const mem[] = {&m->z,  &m->zs,    &m->ipiv,      &m->v[0],    &m->v[1],
                             &m->v[2], &m->v[3], &m->xs,       &m->norms,   &m->dir,
                             &m->px, &m->py,    &m->w,         &m->col_start, &m->col_row,
                             &m->col_re, &m->col_im};
    if (!m->d)
        return;
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        mom_dmem_free(m, mem[i]);
}

static orr_status dmem_upload(mom_dmem *m, orr_dmem *out, const void *host, size_t bytes,
                              orr_error *err)
{
    TRY(mom_dmem_alloc(m, out, bytes, err));
    return bytes ? m->d->api->upload(m->d, *out, 0, host, bytes, err) : ORR_OK;
}

/* The cells and the incidences' directions (as reference.c's fill_rhs). */
static orr_status dmem_cells(mom_dmem *m, const mom_workunit *wu, const mom_problem *p,
                             orr_error *err)
{
    const size_t n = (size_t)m->n;
    TRY(dmem_upload(m, &m->px, p->px, n * sizeof(double), err));
    TRY(dmem_upload(m, &m->py, p->py, n * sizeof(double), err));
    TRY(dmem_upload(m, &m->w, p->lcn ? p->lcn->wt : p->g.w, n * sizeof(double), err));
    if (p->lcn) {
        const mom_lcn *l = p->lcn;
        const size_t nnz = (size_t)l->col_start[n];
        TRY(dmem_upload(m, &m->col_start, l->col_start, (n + 1) * sizeof(int), err));
        TRY(dmem_upload(m, &m->col_row, l->col_row, nnz * sizeof(int), err));
        TRY(dmem_upload(m, &m->col_re, l->col_re, nnz * sizeof(double), err));
        TRY(dmem_upload(m, &m->col_im, l->col_im, nnz * sizeof(double), err));
    }
    double *dir = malloc(2 * (size_t)m->nrhs * sizeof *dir);
    if (!dir)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int r = 0; r < m->nrhs; r++) {
        const double phi = wu->incidence[r] * M_PI / 180;
        dir[2 * r] = cos(phi), dir[2 * r + 1] = sin(phi);
    }
    const orr_status st = dmem_upload(m, &m->dir, dir, 2 * (size_t)m->nrhs * sizeof *dir, err);
    free(dir);   /* the upload has copied it */
    return st;
}

/* The state and the vectors, the state cleared. */
static orr_status dmem_system(mom_dmem *m, int refine, orr_error *err)
{
    orr_device *d = m->d;
    const size_t n = (size_t)m->n, nn = n * n, vec = n * m->nrhs;
    TRY(mom_dmem_alloc(m, &m->z, nn * 16, err));
    TRY(d->api->fill(d, m->z, 0, nn * 16, err));
    if (m->single) {
        TRY(mom_dmem_alloc(m, &m->zs, nn * 8, err));
        TRY(d->api->fill(d, m->zs, 0, nn * 8, err));
        TRY(mom_dmem_alloc(m, &m->xs, vec * 8, err));
    }
    TRY(mom_dmem_alloc(m, &m->ipiv, n * sizeof(int), err));
    TRY(d->api->fill(d, m->ipiv, 0, n * sizeof(int), err));
    for (int v = MOM_B; v <= (refine ? MOM_D : MOM_R); v++)
        TRY(mom_dmem_alloc(m, &m->v[v], vec * 16, err));
    TRY(d->api->fill(d, m->v[MOM_B], 0, vec * 16, err));
    TRY(mom_dmem_alloc(m, &m->norms, 2 * n * sizeof(double), err));
    return d->api->fill(d, m->norms, 0, 2 * n * sizeof(double), err);
}

orr_status mom_dmem_open(mom_dmem *m, orr_device *d, const mom_workunit *wu, const mom_problem *p,
                         const mom_plan *plan, double need, double largest, orr_error *err)
{
    *m = (mom_dmem){.d = d, .n = plan->n, .nrhs = plan->nrhs, .single = plan->single,
                    .need = need};
    char what[64];
    snprintf(what, sizeof what, "mom: the %d x %d system", m->n, m->n);
    TRY(orr_device_check_fits(d, need, largest, what, err));
    TRY(dmem_cells(m, wu, p, err));
    TRY(dmem_system(m, plan->rc->refine, err));
    /* a device that allocates lazily refuses here */
    const orr_status st = d->api->finish(d, 0, err);
    if (st == ORR_OK)
        return ORR_OK;
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err ? err->message : "");
    return orr_fail(err, st, "%s needs about %.0f bytes of device memory; %s device %s could not "
                    "hold it: %s", what, need, d->api->api, d->name, why);
}

static orr_dmem state_mem(const mom_dmem *m, mom_state s)
{
    const orr_dmem mem[MOM_N_STATES] = {m->z, m->zs, m->ipiv, m->v[MOM_B], m->norms};
    return mem[s];
}

orr_status mom_dmem_read(mom_dmem *m, mom_state s, void *host, orr_error *err)
{
    TRY(m->d->api->download(m->d, host, state_mem(m, s), 0,
                            mom_state_size(m->n, m->nrhs, m->single, s), err));
    return m->d->api->finish(m->d, 0, err);
}

orr_status mom_dmem_write(mom_dmem *m, mom_state s, const void *host, orr_error *err)
{
    TRY(m->d->api->upload(m->d, state_mem(m, s), 0, host,
                          mom_state_size(m->n, m->nrhs, m->single, s), err));
    return m->d->api->finish(m->d, 0, err);
}

/* ---- a GPU backend's slot ---- */

typedef struct {
    const mom_kernels *k;
    void *state;
    void (*release)(void *);
} mom_binding;

static orr_status bound_open(void *state, const mom_workunit *wu, const mom_problem *p,
                             mom_ctx **out, orr_error *err)
{
    const mom_binding *b = state;
    return mom_device_open(b->k, b->state, wu, p, out, err);
}

static const mom_ops bound_ops = MOM_DEVICE_OPS(bound_open);

static void release_binding(void *state)
{
    mom_binding *b = state;
    if (b->release)
        b->release(b->state);
    free(b);
}

orr_status mom_device_attach(const mom_kernels *k, void *state, void (*release)(void *),
                             orr_kind_slot *slot, orr_error *err)
{
    mom_binding *b = malloc(sizeof *b);
    if (!b)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    *b = (mom_binding){k, state, release};
    slot->ops = &bound_ops;
    slot->state = b;
    slot->release = release_binding;
    return ORR_OK;
}
