/* GMRES(m), a row of the solver's method table (method.h): the work
 * unit's option `solver method=gmres restart=m`. The batch's running points go through
 * Arnoldi cycles in step, so every op serves them all at once: a cycle
 * starts with r = b - A x (the true residual: a point within the tolerance
 * has converged, one at the iteration limit stops), takes up to m steps
 * (modified Gram-Schmidt, Givens rotations on the host; a point whose
 * estimated residual reaches the tolerance, or whose Krylov space is
 * exhausted, waits for the cycle's end), and ends with x += V y. Between
 * cycles x is a point's whole state, which is what a checkpoint saves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "method.h"

struct gmres_state {
    int m;
    int in_cycle;          /* a cycle is under way (0: between cycles) */
    int step;              /* its Arnoldi steps so far */
    /* per batch position */
    int *taken;            /* steps this point has taken in the cycle */
    int *waiting;          /* reached the tolerance (or breakdown): no more steps */
    double complex *h;     /* [capacity][m + 1][m], column-major per point: h[i + j (m + 1)] */
    double complex *cs, *sn, *g;   /* [capacity][m], [m], [m + 1] */
    int *list;             /* scratch: the points of an op */
};

static orr_status open_state(dif_solver *sv, orr_error *err)
{
    const size_t cap = (size_t)sv->capacity, m = (size_t)sv->wu->solver.restart;
    struct gmres_state *g = calloc(1, sizeof *g);
    if (g) {
        g->m = (int)m;
        g->taken = calloc(cap, sizeof *g->taken);
        g->waiting = calloc(cap, sizeof *g->waiting);
        g->h = calloc(cap * (m + 1) * m, sizeof *g->h);
        g->cs = calloc(cap * m, sizeof *g->cs);
        g->sn = calloc(cap * m, sizeof *g->sn);
        g->g = calloc(cap * (m + 1), sizeof *g->g);
        g->list = calloc(cap, sizeof *g->list);
    }
    sv->method_state = g;
    if (!g || !g->taken || !g->waiting || !g->h || !g->cs || !g->sn || !g->g || !g->list)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for GMRES(%zu)", m);
    return ORR_OK;
}

static void close_state(dif_solver *sv)
{
    struct gmres_state *g = sv->method_state;
    if (!g)
        return;
    free(g->taken);
    free(g->waiting);
    free(g->h);
    free(g->cs);
    free(g->sn);
    free(g->g);
    free(g->list);
    free(g);
    sv->method_state = NULL;
}

/* A new or resumed batch: cycles start afresh (x is the whole state). */
static void begin(dif_solver *sv)
{
    struct gmres_state *g = sv->method_state;
    g->in_cycle = 0;
}

static orr_status start(dif_solver *sv, orr_error *err)
{
    (void)err;
    begin(sv);
    return ORR_OK;
}

static int between_cycles(const dif_solver *sv)
{
    const struct gmres_state *g = sv->method_state;
    return !g->in_cycle;
}

/* One coefficient a point into the solver's coef scratch, then the op. */
static orr_status scale_into(dif_solver *sv, const int *list, int n, int out, int in,
                             const double complex *factor, orr_error *err)
{
    for (int a = 0; a < n; a++)
        sv->coef[a] = factor[a];
    return sv->ops.ops->lincomb(sv->ctx, list, n, out, 1, (const int[]){in}, sv->coef, err);
}

/* The cycle's start for the running points active[0..n): the true
 * residual decides; the rest get v_0 = r / |r| and g = (|r|, 0, ...). */
static orr_status cycle_start(dif_solver *sv, int n, orr_error *err)
{
    struct gmres_state *g = sv->method_state;
    const dif_solver_options *opt = &sv->wu->solver;
    orr_status st = n ? dif_solver_true_residual(sv, n, err) : ORR_OK;
    int keep = 0;
    for (int a = 0; st == ORR_OK && a < n; a++) {
        const int b = sv->active[a];
        dif_solve_state *p = &sv->st[b];
        if (p->residual <= opt->tolerance)
            p->status = DIF_CONVERGED;
        else if (p->iterations >= opt->max_iterations)
            p->status = DIF_STOPPED;
        else {
            const double beta = p->residual * p->norm_b;
            memset(g->g + (size_t)b * (g->m + 1), 0, (size_t)(g->m + 1) * sizeof *g->g);
            g->g[(size_t)b * (g->m + 1)] = beta;
            g->taken[b] = 0;
            g->waiting[b] = 0;
            sv->dots[keep] = 1 / beta;
            g->list[keep++] = b;
        }
    }
    if (st == ORR_OK && keep)
        st = scale_into(sv, g->list, keep, DIF_VBASIS, DIF_VT, sv->dots, err);
    g->in_cycle = st == ORR_OK && keep > 0;
    g->step = 0;
    return st;
}

/* Column j of point b's Hessenberg: the earlier rotations, a new one that
 * zeroes h[j+1][j], and g rotated with it. The new residual estimate. */
static double givens(struct gmres_state *g, int b, int j)
{
    const int m1 = g->m + 1;
    double complex *h = g->h + (size_t)b * m1 * g->m + (size_t)j * m1;
    double complex *cs = g->cs + (size_t)b * g->m, *sn = g->sn + (size_t)b * g->m;
    double complex *gv = g->g + (size_t)b * m1;
    for (int i = 0; i < j; i++) {
        const double complex t = conj(cs[i]) * h[i] + conj(sn[i]) * h[i + 1];
        h[i + 1] = -sn[i] * h[i] + cs[i] * h[i + 1];
        h[i] = t;
    }
    const double r = hypot(cabs(h[j]), cabs(h[j + 1]));
    cs[j] = r > 0 ? h[j] / r : 1;
    sn[j] = r > 0 ? h[j + 1] / r : 0;
    h[j] = r;
    h[j + 1] = 0;
    gv[j + 1] = -sn[j] * gv[j];
    gv[j] = conj(cs[j]) * gv[j];
    return cabs(gv[j + 1]);
}

/* One Arnoldi step for the points still stepping: w = A v_j made
 * orthogonal to v_0..v_j (modified Gram-Schmidt), v_{j+1} = w / |w|. */
static orr_status arnoldi_step(dif_solver *sv, const int *list, int n, orr_error *err)
{
    struct gmres_state *g = sv->method_state;
    const dif_ops *o = sv->ops.ops;
    const int j = g->step, m1 = g->m + 1;
    orr_status st = o->matvec(sv->ctx, list, n, DIF_VBASIS + j, DIF_VT, err);
    for (int i = 0; st == ORR_OK && i <= j; i++) {
        st = o->dots(sv->ctx, list, n, 1, (const int[]){DIF_VBASIS + i, DIF_VT}, sv->dots, err);
        for (int a = 0; st == ORR_OK && a < n; a++) {
            g->h[(size_t)list[a] * m1 * g->m + (size_t)j * m1 + i] = sv->dots[a];
            sv->coef[2 * a] = 1;
            sv->coef[2 * a + 1] = -sv->dots[a];
        }
        if (st == ORR_OK)
            st = o->lincomb(sv->ctx, list, n, DIF_VT, 2, (const int[]){DIF_VT, DIF_VBASIS + i},
                            sv->coef, err);
    }
    if (st == ORR_OK)
        st = o->dots(sv->ctx, list, n, 1, (const int[]){DIF_VT, DIF_VT}, sv->dots, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        const int b = list[a];
        const double norm = sqrt(creal(sv->dots[a]));
        g->h[(size_t)b * m1 * g->m + (size_t)j * m1 + j + 1] = norm;
        sv->dots[a] = norm > 0 ? 1 / norm : 0;
        dif_solve_state *p = &sv->st[b];
        p->iterations++;
        g->taken[b] = j + 1;
        p->residual = givens(g, b, j) / p->norm_b;
        if (norm == 0 || p->residual <= sv->wu->solver.tolerance ||
            p->iterations >= sv->wu->solver.max_iterations)
            g->waiting[b] = 1;
    }
    if (st == ORR_OK && j + 1 < g->m)
        st = scale_into(sv, list, n, DIF_VBASIS + j + 1, DIF_VT, sv->dots, err);
    return st;
}

/* The cycle's end: y from the triangular system, x += V y. */
static orr_status cycle_end(dif_solver *sv, orr_error *err)
{
    struct gmres_state *g = sv->method_state;
    const int m1 = g->m + 1, n = dif_solver_running(sv);
    double complex *y = calloc((size_t)n * g->m, sizeof *y);
    if (!y)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int a = 0; a < n; a++) {
        const int b = sv->active[a], k = g->taken[b];
        const double complex *h = g->h + (size_t)b * m1 * g->m, *gv = g->g + (size_t)b * m1;
        for (int i = k - 1; i >= 0; i--) {
            double complex s = gv[i];
            for (int c = i + 1; c < k; c++)
                s -= h[i + (size_t)c * m1] * y[(size_t)a * g->m + c];
            y[(size_t)a * g->m + i] = h[i + (size_t)i * m1] != 0 ? s / h[i + (size_t)i * m1] : 0;
        }
    }
    /* x += y_i v_i, one op a step over the points that took it: the basis
     * vector of a step a point did not take holds nothing of it (NaN on a
     * device, where buffers start poisoned), so even a 0 times it is not
     * safe */
    orr_status st = ORR_OK;
    for (int i = 0; st == ORR_OK && i < g->step; i++) {
        int k = 0;
        for (int a = 0; a < n; a++) {
            const int b = sv->active[a];
            if (g->taken[b] <= i)
                continue;
            sv->coef[2 * k] = 1;
            sv->coef[2 * k + 1] = y[(size_t)a * g->m + i];
            g->list[k++] = b;
        }
        if (k)
            st = sv->ops.ops->lincomb(sv->ctx, g->list, k, DIF_VX, 2,
                                      (const int[]){DIF_VX, DIF_VBASIS + i}, sv->coef, err);
    }
    free(y);
    g->in_cycle = 0;
    return st;
}

/* One Arnoldi step of every running point (active[0..n)), in step: a
 * cycle starts first where none is under way, ends after its last step. */
static orr_status iterate(dif_solver *sv, int n, orr_error *err)
{
    struct gmres_state *g = sv->method_state;
    if (!g->in_cycle) {
        orr_status st = cycle_start(sv, n, err);
        if (st != ORR_OK || !g->in_cycle)
            return st;
        n = dif_solver_running(sv);
    }
    int k = 0;
    for (int a = 0; a < n; a++)
        if (!g->waiting[sv->active[a]])
            g->list[k++] = sv->active[a];
    orr_status st = k ? arnoldi_step(sv, g->list, k, err) : ORR_OK;
    if (st != ORR_OK)
        return st;
    if (k)
        g->step++;
    int stepping = 0;
    for (int a = 0; a < n; a++)
        stepping += !g->waiting[sv->active[a]];
    return g->step == g->m || stepping == 0 ? cycle_end(sv, err) : ORR_OK;
}

static dif_method_sizes sizes(const dif_solver_options *opt)
{
    const double m = opt->restart;
    /* x, b, t and the basis of m + 1; the Hessenberg matrix, the rotations
     * and g: (m + 1) m + 3 m + 1 < (m + 1) (m + 3) */
    return (dif_method_sizes){.vectors = DIF_VBASIS + opt->restart + 1, .saved = 1,
                              .host_complex = (m + 1) * (m + 3)};
}

const dif_solve_method dif_gmres = {
    .name = "GMRES",
    .sizes = sizes,
    .open = open_state,
    .close = close_state,
    .start = start,
    .resume = begin,
    .iterate = iterate,
    .per_point = 0,
    .saveable = between_cycles,
};
