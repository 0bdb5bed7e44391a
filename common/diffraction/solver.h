/* The batched iterative solver of (I - k0^2 G deps) u = u_b, written once
 * over a backend's ops (ops.h): every piece runs for all active points of
 * the batch together, and a point leaves the batch when it converges.
 * BiCGStab (van der Vorst 1992), started from u_b; when its recursive
 * residual reaches the tolerance the true residual b - A x is computed,
 * and the point converges only if that is within the tolerance too (else
 * BiCGStab restarts from x). Every point's scalars and five vectors (x, r,
 * r^, p, v) between iterations are its whole state: saved and restored,
 * the iterations continue with the very same bits. GMRES(m) (the work
 * unit's option, solver_gmres.c) runs the batch's points through cycles
 * in step and is saved between cycles, where x is its whole state. */
#ifndef ORRERY_DIFFRACTION_SOLVER_H
#define ORRERY_DIFFRACTION_SOLVER_H

#include "ops.h"

/* Vector slots. BiCGStab: x, r, r^, p, v, s, t, b. GMRES(m) (solver_gmres.c):
 * x, b, t as the work vector, and the Krylov basis from DIF_VBASIS on. */
enum { DIF_VX, DIF_VR, DIF_VRHAT, DIF_VP, DIF_VV, DIF_VS, DIF_VT, DIF_VB, DIF_VBASIS };
#define DIF_BICGSTAB_SAVED 5   /* x, r, r^, p, v: BiCGStab's state between iterations */

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
    int saved_vectors;           /* per running point in a checkpoint: 5 or 1 (x) */
    struct dif_gmres *gmres;     /* GMRES(m)'s state, or NULL */
} dif_solver;

/* Storage for batches of up to *capacity points (the backend may lower it). */
orr_status dif_solver_open(dif_solver *sv, const dif_bound_ops *ops, const dif_workunit *wu,
                           const dif_setup *s, int *capacity, orr_error *err);
void dif_solver_close(dif_solver *sv);
/* A new batch: b's tables loaded, every point started from u_b. */
orr_status dif_solver_start(dif_solver *sv, const dif_batch *b, orr_error *err);
/* The same batch from saved state: the tables loaded, st and the saved
 * vectors (saved_vectors per running position, in position order) put back. */
orr_status dif_solver_resume(dif_solver *sv, const dif_batch *b, const dif_solve_state *st,
                             const double complex *vectors, orr_error *err);
/* Iterations of the running points for about `seconds` (at least one;
 * 0: one iteration of every running point on a GPU or with GMRES, at
 * least one of some point on a CPU's lanes); *running: how many still
 * are. A point's iterations are the same bits however they fall into
 * calls. */
orr_status dif_solver_run(dif_solver *sv, double seconds, int *running, orr_error *err);
/* Whether the state is whole between the solver's steps now (GMRES: only
 * between cycles). */
int dif_solver_saveable(const dif_solver *sv);
/* The saved vectors of every running position, in position order, into
 * out (saved_vectors * unknowns each). */
orr_status dif_solver_save(dif_solver *sv, double complex *out, orr_error *err);

/* ---- GMRES(m) (solver_gmres.c), behind the functions above ---- */
orr_status dif_gmres_open(dif_solver *sv, orr_error *err);
void dif_gmres_close(dif_solver *sv);
void dif_gmres_begin(dif_solver *sv);   /* a new or resumed batch: cycles start afresh */
orr_status dif_gmres_iterate(dif_solver *sv, orr_error *err);
int dif_gmres_between_cycles(const dif_solver *sv);
/* The running positions into sv->active; their count (solver.c). */
int dif_solver_running(dif_solver *sv);
/* Positions active[0..n): r = b - A x into t and |r| / |b| as their
 * residual (solver.c: BiCGStab's restart computes the same). */
orr_status dif_solver_true_residual(dif_solver *sv, int n, orr_error *err);
/* w = deps * x of position b, on the host (the orders' amplitudes need it). */
orr_status dif_solver_field(dif_solver *sv, int b, double complex *w, orr_error *err);

#endif
