/* BiCGStab (van der Vorst 1992), one row of the solver's method table
 * (method.h): every point starts from u_b; when its recursive residual
 * reaches the tolerance the true residual b - A x is computed, and the
 * point converges only if that is within the tolerance too (else it
 * restarts from x). A point's scalars and five vectors (x, r, r^, p, v)
 * between iterations are its whole state: saved and restored, the
 * iterations continue with the very same bits. Scalars live on the host,
 * one set a point; each step below is one op over the points given. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "method.h"

#define SAVED 5   /* x, r, r^, p, v: the slots 0..4 */

static double complex cget(const double v[2])
{
    return v[0] + I * v[1];
}

static void cset(double v[2], double complex z)
{
    v[0] = creal(z);
    v[1] = cimag(z);
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

/* One BiCGStab iteration of the positions in sv->active[0..n). */
static orr_status iterate(dif_solver *sv, int n, orr_error *err)
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

static dif_method_sizes sizes(const dif_solver_options *opt)
{
    (void)opt;
    return (dif_method_sizes){.vectors = DIF_VBASIS, .saved = SAVED, .host_complex = 0};
}

static orr_status start(dif_solver *sv, orr_error *err)
{
    return restart(sv, dif_solver_running(sv), err);
}

const dif_solve_method dif_bicgstab = {
    .name = "BiCGStab",
    .sizes = sizes,
    .start = start,
    .iterate = iterate,
    .per_point = 1,
};
