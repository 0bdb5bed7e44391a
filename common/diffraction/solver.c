/* The batched BiCGStab (solver.h). Scalars live on the host, one set a
 * point; vectors live with the backend. Each step below is one op over
 * the points still running. */
#include "solver.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/runtime.h"
#include "zop.h"

static double complex cget(const double v[2])
{
    return v[0] + I * v[1];
}

static void cset(double v[2], double complex z)
{
    v[0] = creal(z);
    v[1] = cimag(z);
}

orr_status dif_solver_open(dif_solver *sv, const dif_bound_ops *ops, const dif_workunit *wu,
                           const dif_setup *s, int *capacity, orr_error *err)
{
    memset(sv, 0, sizeof *sv);
    sv->ops = *ops;
    sv->wu = wu;
    sv->s = s;
    const int gmres = wu->solver.method == DIF_GMRES;
    const int n_vectors = gmres ? DIF_VBASIS + wu->solver.restart + 1 : DIF_VBASIS;
    sv->saved_vectors = gmres ? 1 : DIF_BICGSTAB_SAVED;
    orr_status st = ops->ops->open(ops->state, wu, s, capacity, n_vectors, &sv->ctx, err);
    if (st != ORR_OK)
        return st;
    sv->capacity = *capacity;
    const size_t cap = (size_t)sv->capacity;
    sv->st = calloc(cap, sizeof *sv->st);
    sv->active = malloc(cap * sizeof *sv->active);
    sv->coef = malloc(4 * cap * sizeof *sv->coef);
    sv->dots = malloc(4 * cap * sizeof *sv->dots);
    sv->host = malloc(s->unknowns * sizeof *sv->host);
    if (!sv->st || !sv->active || !sv->coef || !sv->dots || !sv->host) {
        dif_solver_close(sv);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    if (gmres && (st = dif_gmres_open(sv, err)) != ORR_OK)
        dif_solver_close(sv);
    return st;
}

void dif_solver_close(dif_solver *sv)
{
    if (sv->ctx)
        sv->ops.ops->close(sv->ctx);
    dif_gmres_close(sv);
    free(sv->st);
    free(sv->active);
    free(sv->coef);
    free(sv->dots);
    free(sv->host);
    memset(sv, 0, sizeof *sv);
}

int dif_solver_running(dif_solver *sv)
{
    int n = 0;
    for (int b = 0; b < sv->n; b++)
        if (sv->st[b].status == DIF_RUNNING)
            sv->active[n++] = b;
    return n;
}

/* u_b: the incident wave and its reflection from the substrate, in order 00. */
static void background(const dif_setup *s, const dif_point *pt, double complex *u, double *norm)
{
    const double complex kz = pt->kz1[pt->mode00], rho = pt->mt[pt->mode00 * DIF_MODE_TABLE + DIF_MT_RHO];
    double sum = 0;
    memset(u, 0, s->unknowns * sizeof *u);
    for (int i = 0; i < s->nz; i++) {
        const double complex v = cexp(-I * kz * s->z[i]) + rho * cexp(I * kz * s->z[i]);
        u[(size_t)i * s->n_modes + pt->mode00] = v;
        sum += creal(v) * creal(v) + cimag(v) * cimag(v);
    }
    *norm = sqrt(sum);
}

orr_status dif_solver_true_residual(dif_solver *sv, int n, orr_error *err)
{
    const dif_ops *o = sv->ops.ops;
    orr_status st = o->matvec(sv->ctx, sv->active, n, DIF_VX, DIF_VT, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        sv->coef[2 * a] = 1;
        sv->coef[2 * a + 1] = -1;
    }
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VT, 2, (const int[]){DIF_VB, DIF_VT}, sv->coef, err);
    if (st == ORR_OK)
        st = o->dots(sv->ctx, sv->active, n, 1, (const int[]){DIF_VT, DIF_VT}, sv->dots, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        dif_solve_state *p = &sv->st[sv->active[a]];
        p->residual = sqrt(creal(sv->dots[a])) / p->norm_b;
    }
    return st;
}

/* Positions active[0..n): r = b - A x (the true residual), r^ = r,
 * p = v = 0, scalars 1. */
static orr_status restart(dif_solver *sv, int n, orr_error *err)
{
    const dif_ops *o = sv->ops.ops;
    orr_status st = dif_solver_true_residual(sv, n, err);
    static const int t[1] = {DIF_VT};
    for (int a = 0; st == ORR_OK && a < n; a++)
        sv->coef[a] = 1;
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VR, 1, t, sv->coef, err);
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VRHAT, 1, t, sv->coef, err);
    for (int a = 0; st == ORR_OK && a < n; a++)
        sv->coef[a] = 0;
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VP, 1, t, sv->coef, err);
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VV, 1, t, sv->coef, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        dif_solve_state *p = &sv->st[sv->active[a]];
        cset(p->rho, 1);
        cset(p->alpha, 1);
        cset(p->omega, 1);
    }
    return st;
}

static orr_status load_batch(dif_solver *sv, const dif_batch *b, orr_error *err)
{
    if (b->n > sv->capacity)
        return orr_fail(err, ORR_ERR_INTERNAL, "batch of %d points in storage for %d", b->n,
                        sv->capacity);
    sv->n = b->n;
    return sv->ops.ops->load(sv->ctx, b, err);
}

orr_status dif_solver_start(dif_solver *sv, const dif_batch *b, orr_error *err)
{
    orr_status st = load_batch(sv, b, err);
    const dif_ops *o = sv->ops.ops;
    for (int p = 0; st == ORR_OK && p < b->n; p++) {
        memset(&sv->st[p], 0, sizeof sv->st[p]);
        sv->st[p].point = b->points[p];
        background(sv->s, &b->pt[p], sv->host, &sv->st[p].norm_b);
        st = o->write(sv->ctx, p, DIF_VB, sv->host, err);
        if (st == ORR_OK)
            st = o->write(sv->ctx, p, DIF_VX, sv->host, err);
    }
    if (st == ORR_OK && sv->gmres) {
        dif_gmres_begin(sv);
        return ORR_OK;
    }
    return st == ORR_OK ? restart(sv, dif_solver_running(sv), err) : st;
}

orr_status dif_solver_resume(dif_solver *sv, const dif_batch *b, const dif_solve_state *saved,
                             const double complex *vectors, orr_error *err)
{
    orr_status st = load_batch(sv, b, err);
    const dif_ops *o = sv->ops.ops;
    const size_t n = sv->s->unknowns;
    double norm;
    for (int p = 0; st == ORR_OK && p < b->n; p++) {
        sv->st[p] = saved[p];
        if (saved[p].status != DIF_RUNNING)
            continue;
        background(sv->s, &b->pt[p], sv->host, &norm);
        st = o->write(sv->ctx, p, DIF_VB, sv->host, err);
        for (int v = 0; st == ORR_OK && v < sv->saved_vectors; v++, vectors += n)
            st = o->write(sv->ctx, p, v, vectors, err);
    }
    if (sv->gmres)
        dif_gmres_begin(sv);
    return st;
}

orr_status dif_solver_save(dif_solver *sv, double complex *out, orr_error *err)
{
    const size_t n = sv->s->unknowns;
    orr_status st = ORR_OK;
    for (int p = 0; st == ORR_OK && p < sv->n; p++)
        for (int v = 0; st == ORR_OK && sv->st[p].status == DIF_RUNNING && v < sv->saved_vectors;
             v++, out += n)
            st = sv->ops.ops->read(sv->ctx, p, v, out, err);
    return st;
}

orr_status dif_solver_field(dif_solver *sv, int b, double complex *w, orr_error *err)
{
    const int one[1] = {b};
    orr_status st = sv->ops.ops->conv(sv->ctx, one, 1, DIF_VX, DIF_VT, err);
    return st == ORR_OK ? sv->ops.ops->read(sv->ctx, b, DIF_VT, w, err) : st;
}


/* a / b, or 0 with *broke set when b is 0 (a BiCGStab breakdown: the
 * point restarts after this iteration). */
static double complex ratio(double complex a, double complex b, int *broke)
{
    if (b == 0 || !isfinite(creal(b)) || !isfinite(cimag(b))) {
        *broke = 1;
        return 0;
    }
    return a / b;
}

/* The first half: p = r + beta (p - omega v), v = A p, alpha, s = r - alpha v. */
static orr_status half_p(dif_solver *sv, int n, double complex *rho_new, int *broke,
                         orr_error *err)
{
    const dif_ops *o = sv->ops.ops;
    orr_status st = o->dots(sv->ctx, sv->active, n, 1, (const int[]){DIF_VRHAT, DIF_VR}, sv->dots, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        const dif_solve_state *p = &sv->st[sv->active[a]];
        rho_new[a] = sv->dots[a];
        const double complex beta = ratio(rho_new[a], cget(p->rho), &broke[a]) *
                                    ratio(cget(p->alpha), cget(p->omega), &broke[a]);
        sv->coef[3 * a] = 1;
        sv->coef[3 * a + 1] = beta;
        sv->coef[3 * a + 2] = -beta * cget(p->omega);
    }
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VP, 3, (const int[]){DIF_VR, DIF_VP, DIF_VV},
                        sv->coef, err);
    if (st == ORR_OK)
        st = o->matvec(sv->ctx, sv->active, n, DIF_VP, DIF_VV, err);
    if (st == ORR_OK)
        st = o->dots(sv->ctx, sv->active, n, 1, (const int[]){DIF_VRHAT, DIF_VV}, sv->dots, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        const double complex alpha = ratio(rho_new[a], sv->dots[a], &broke[a]);
        cset(sv->st[sv->active[a]].alpha, alpha);
        sv->coef[2 * a] = 1;
        sv->coef[2 * a + 1] = -alpha;
    }
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VS, 2, (const int[]){DIF_VR, DIF_VV}, sv->coef, err);
    return st;
}

/* The second half: t = A s, omega, x += alpha p + omega s, r = s - omega t,
 * and the recursive residual. */
static orr_status half_s(dif_solver *sv, int n, int *broke, orr_error *err)
{
    const dif_ops *o = sv->ops.ops;
    orr_status st = o->matvec(sv->ctx, sv->active, n, DIF_VS, DIF_VT, err);
    if (st == ORR_OK)
        st = o->dots(sv->ctx, sv->active, n, 2, (const int[]){DIF_VT, DIF_VS, DIF_VT, DIF_VT},
                     sv->dots, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        dif_solve_state *p = &sv->st[sv->active[a]];
        const double complex omega = ratio(sv->dots[2 * a], sv->dots[2 * a + 1], &broke[a]);
        cset(p->omega, omega);
        sv->coef[3 * a] = 1;
        sv->coef[3 * a + 1] = cget(p->alpha);
        sv->coef[3 * a + 2] = omega;
    }
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VX, 3, (const int[]){DIF_VX, DIF_VP, DIF_VS},
                        sv->coef, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        sv->coef[2 * a] = 1;
        sv->coef[2 * a + 1] = -cget(sv->st[sv->active[a]].omega);
    }
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VR, 2, (const int[]){DIF_VS, DIF_VT}, sv->coef, err);
    if (st == ORR_OK)
        st = o->dots(sv->ctx, sv->active, n, 1, (const int[]){DIF_VR, DIF_VR}, sv->dots, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        dif_solve_state *p = &sv->st[sv->active[a]];
        p->residual = sqrt(creal(sv->dots[a])) / p->norm_b;
        p->iterations++;
    }
    return st;
}

/* Points whose recursive residual reached the tolerance, or that broke
 * down, or reached the iteration limit: the true residual decides. Those
 * within the tolerance converge, those at the limit stop, the rest
 * restart from x. */
static orr_status settle(dif_solver *sv, const int *broke, int n, orr_error *err)
{
    const dif_solver_options *opt = &sv->wu->solver;
    int *cand = malloc((size_t)n * sizeof *cand);
    if (!cand)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    int m = 0;
    for (int a = 0; a < n; a++) {
        const dif_solve_state *p = &sv->st[sv->active[a]];
        if (broke[a] || !(p->residual > opt->tolerance) || p->iterations >= opt->max_iterations)
            cand[m++] = sv->active[a];
    }
    memcpy(sv->active, cand, (size_t)m * sizeof *cand);
    free(cand);
    if (m == 0)
        return ORR_OK;
    orr_status st = restart(sv, m, err);   /* r = b - A x: the true residual */
    for (int a = 0; st == ORR_OK && a < m; a++) {
        dif_solve_state *p = &sv->st[sv->active[a]];
        if (p->residual <= opt->tolerance)
            p->status = DIF_CONVERGED;
        else if (p->iterations >= opt->max_iterations)
            p->status = DIF_STOPPED;
        else
            p->restarts++;
    }
    return st;
}

int dif_solver_saveable(const dif_solver *sv)
{
    return !sv->gmres || dif_gmres_between_cycles(sv);
}

/* A residual that is not a number ends the work unit at once: iterating
 * on would only reach the limit and report garbage. */
static orr_status check_finite(dif_solver *sv, orr_error *err)
{
    for (int b = 0; b < sv->n; b++)
        if (!isfinite(sv->st[b].residual))
            return orr_fail(err, ORR_ERR_NUMERIC,
                            "point %d: the solver's residual is not finite after %d iterations",
                            sv->st[b].point, sv->st[b].iterations);
    return ORR_OK;
}

/* One BiCGStab iteration of the positions in sv->active[0..n). */
static orr_status iterate_group(dif_solver *sv, int n, orr_error *err)
{
    double complex *rho_new = malloc((size_t)n * sizeof *rho_new);
    int *broke = calloc((size_t)n, sizeof *broke);
    orr_status st = rho_new && broke ? ORR_OK : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (st == ORR_OK)
        st = half_p(sv, n, rho_new, broke, err);
    if (st == ORR_OK)
        st = half_s(sv, n, broke, err);
    for (int a = 0; st == ORR_OK && a < n; a++)
        cset(sv->st[sv->active[a]].rho, rho_new[a]);
    if (st == ORR_OK)
        st = settle(sv, broke, n, err);
    free(rho_new);
    free(broke);
    return st;
}

/* The running points shared among a backend's lanes (ops.h): a lane
 * takes the next point not yet taken and iterates it until it converges
 * or the time is up, then takes another. So a point's vectors stay in
 * its core's cache from iteration to iteration, the lanes never wait for
 * each other inside a step, and a fast core takes more points (a
 * machine's cores need not run at one speed: on the benchmark's 16-core
 * host one-thread processes ran 1.6x apart). Each point's iterations are
 * the same bits however they fall into steps and lanes. */
typedef struct {
    dif_solver *sv;
    const int *running;
    int n;
    double until;   /* orr_runtime_seconds() */
    atomic_int next;
    orr_status *status;
    orr_error *errors;
} lane_share;

/* Lane i, through a view of the solver with the lane's ops and the
 * point's own part of the scratch (the points' states are the solver's,
 * each touched by one lane only). At least one iteration a call. */
static void iterate_lane(void *arg, dif_ctx *ctx, int i)
{
    lane_share *j = arg;
    dif_solver lane = *j->sv;
    lane.ctx = ctx;
    j->status[i] = ORR_OK;
    int more = 1;
    for (int k; more && (k = atomic_fetch_add(&j->next, 1)) < j->n;) {
        lane.active = j->sv->active + k;
        lane.coef = j->sv->coef + 4 * (size_t)k;
        lane.dots = j->sv->dots + 4 * (size_t)k;
        const int b = j->running[k];
        do {
            lane.active[0] = b;
            j->status[i] = iterate_group(&lane, 1, &j->errors[i]);
            more = j->status[i] == ORR_OK && orr_runtime_seconds() < j->until;
        } while (more && j->sv->st[b].status == DIF_RUNNING);
    }
}

static orr_status run_in_lanes(dif_solver *sv, int n, int n_lanes, double until, orr_error *err)
{
    lane_share j = {.sv = sv, .n = n, .until = until};
    atomic_init(&j.next, 0);
    int *running = malloc((size_t)n * sizeof *running);
    j.status = malloc((size_t)n_lanes * sizeof *j.status);
    j.errors = malloc((size_t)n_lanes * sizeof *j.errors);
    orr_status st = running && j.status && j.errors ? ORR_OK
                                                    : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (st == ORR_OK) {
        memcpy(running, sv->active, (size_t)n * sizeof *running);
        j.running = running;
        sv->ops.ops->run_lanes(sv->ctx, iterate_lane, &j);
        for (int i = 0; i < n_lanes && st == ORR_OK; i++)
            if ((st = j.status[i]) != ORR_OK)
                *err = j.errors[i];
    }
    free(running);
    free(j.status);
    free(j.errors);
    return st;
}

/* One iteration of every running point together (a GPU's way, and
 * GMRES's on every backend). */
static orr_status iterate_batch(dif_solver *sv, orr_error *err)
{
    if (sv->gmres)
        return dif_gmres_iterate(sv, err);
    const int n = dif_solver_running(sv);
    return n ? iterate_group(sv, n, err) : ORR_OK;
}

orr_status dif_solver_run(dif_solver *sv, double seconds, int *left, orr_error *err)
{
    const double until = orr_runtime_seconds() + seconds;
    const int n_lanes = sv->ops.ops->lanes && !sv->gmres ? sv->ops.ops->lanes(sv->ctx) : 0;
    orr_status st = ORR_OK;
    int n = dif_solver_running(sv);
    if (n && n_lanes > 0)
        st = run_in_lanes(sv, n, n_lanes, until, err);
    else
        do
            st = iterate_batch(sv, err);
        while (st == ORR_OK && dif_solver_running(sv) && orr_runtime_seconds() < until);
    *left = dif_solver_running(sv);
    return st == ORR_OK ? check_finite(sv, err) : st;
}
