/* The batched solver (solver.h): what every method (method.h) shares
 * around it: the batch's storage with the backend, its start from
 * u_b, checkpoints, and the time-bounded runs (through a CPU backend's
 * lanes where the method's points iterate independently). */
#include "solver.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/runtime.h"
#include "zop.h"


orr_status dif_solver_open(dif_solver *sv, const dif_bound_ops *ops, const dif_workunit *wu,
                           const dif_setup *s, int *capacity, orr_error *err)
{
    memset(sv, 0, sizeof *sv);
    sv->ops = *ops;
    sv->wu = wu;
    sv->s = s;
    sv->method = dif_solve_method_of(&wu->solver);
    const dif_method_sizes size = sv->method->sizes(&wu->solver);
    sv->saved_vectors = size.saved;
    orr_status st = ops->ops->open(ops->state, wu, s, capacity, size.vectors, &sv->ctx, err);
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
    if (sv->method->open && (st = sv->method->open(sv, err)) != ORR_OK)
        dif_solver_close(sv);
    return st;
}

void dif_solver_close(dif_solver *sv)
{
    if (sv->ctx)
        sv->ops.ops->close(sv->ctx);
    if (sv->method && sv->method->close)
        sv->method->close(sv);
    free(sv->st);
    free(sv->active);
    free(sv->coef);
    free(sv->dots);
    free(sv->host);
    memset(sv, 0, sizeof *sv);
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
    return st == ORR_OK ? sv->method->start(sv, err) : st;
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
    if (sv->method->resume)
        sv->method->resume(sv);
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

int dif_solver_saveable(const dif_solver *sv)
{
    return !sv->method->saveable || sv->method->saveable(sv);
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
            j->status[i] = lane.method->iterate(&lane, 1, &j->errors[i]);
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

/* One iteration of every running point together (a GPU's way, and on
 * every backend that of a method whose points go in step). */
static orr_status iterate_batch(dif_solver *sv, orr_error *err)
{
    const int n = dif_solver_running(sv);
    return n ? sv->method->iterate(sv, n, err) : ORR_OK;
}

orr_status dif_solver_run(dif_solver *sv, double seconds, int *left, orr_error *err)
{
    const double until = orr_runtime_seconds() + seconds;
    const int n_lanes = sv->ops.ops->lanes && sv->method->per_point ? sv->ops.ops->lanes(sv->ctx) : 0;
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
