/* The batched iterative solver of (I - k0^2 G deps) u = u_b, written once
 * over a backend's ops (ops.h): every piece runs for all active points of
 * the batch together, and a point leaves the batch when it converges.
 * BiCGStab (van der Vorst 1992), started from u_b; when its recursive
 * residual reaches the tolerance the true residual b - A x is computed,
 * and the point converges only if that is within the tolerance too (else
 * BiCGStab restarts from x). Every point's scalars and five vectors (x, r,
 * r^, p, v) between iterations are its whole state: saved and restored,
 * the iterations continue with the very same bits. */
#ifndef ORRERY_DIFFRACTION_SOLVER_H
#define ORRERY_DIFFRACTION_SOLVER_H

#include "ops.h"

enum { DIF_VX, DIF_VR, DIF_VRHAT, DIF_VP, DIF_VV, DIF_VS, DIF_VT, DIF_VB, DIF_N_VECTORS };
#define DIF_SAVED_VECTORS 5   /* x, r, r^, p, v: the state between iterations */

typedef enum { DIF_RUNNING = 0, DIF_CONVERGED = 1, DIF_STOPPED = 2 } dif_solve_status;

/* One batch position's scalars (saved in the checkpoint as they lie). */
typedef struct {
    int32_t point;
    int32_t status;        /* dif_solve_status */
    int32_t iterations;
    int32_t restarts;
    double norm_b;
    double residual;       /* relative, the latest (true at the end) */
    double rho[2], alpha[2], omega[2];   /* complex, as (re, im) */
} dif_solve_state;

typedef struct {
    dif_bound_ops ops;
    dif_ctx *ctx;
    const dif_workunit *wu;
    const dif_setup *s;
    int capacity;
    int n;                       /* positions in the current batch */
    dif_solve_state *st;         /* [capacity] */
    int *active;                 /* scratch [capacity] */
    double complex *coef, *dots; /* scratch [capacity * 4] */
    double complex *host;        /* one vector on the host */
} dif_solver;

/* Storage for batches of up to *capacity points (the backend may lower it). */
orr_status dif_solver_open(dif_solver *sv, const dif_bound_ops *ops, const dif_workunit *wu,
                           const dif_setup *s, int *capacity, orr_error *err);
void dif_solver_close(dif_solver *sv);
/* A new batch: b's tables loaded, every point started from u_b. */
orr_status dif_solver_start(dif_solver *sv, const dif_batch *b, orr_error *err);
/* The same batch from saved state: the tables loaded, st and the saved
 * vectors (DIF_SAVED_VECTORS per running position, in position order) put back. */
orr_status dif_solver_resume(dif_solver *sv, const dif_batch *b, const dif_solve_state *st,
                             const double complex *vectors, orr_error *err);
/* One iteration of every running point; *running: how many still are. */
orr_status dif_solver_iterate(dif_solver *sv, int *running, orr_error *err);
/* The saved vectors of every running position, in position order, into
 * out (DIF_SAVED_VECTORS * unknowns each). */
orr_status dif_solver_save(dif_solver *sv, double complex *out, orr_error *err);
/* w = deps * x of position b, on the host (the orders' amplitudes need it). */
orr_status dif_solver_field(dif_solver *sv, int b, double complex *w, orr_error *err);

#endif
