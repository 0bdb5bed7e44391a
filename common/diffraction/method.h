/* What the batched solver's methods (BiCGStab, GMRES(m)) are built from:
 * the solver's storage, a row of the method table (each method fills
 * one: bicgstab.c, gmres.c; method_table.c lists them, and the solver
 * and the sizes of setup.c and job.c read the work unit's), and the steps
 * both methods take (method.c). The methods sit beside each other under
 * the table and call only down, into this file and the backend's ops. */
#ifndef ORRERY_DIFFRACTION_METHOD_H
#define ORRERY_DIFFRACTION_METHOD_H

#include "ops.h"

/* Vector slots: x, b and t are every method's (the solution, u_b and a
 * work vector); BiCGStab adds r, r^, p, v, s; GMRES(m) its Krylov basis
 * from DIF_VBASIS on. A method's checkpoint saves its first `saved` slots
 * (x first), so these numbers are part of the checkpoint format. */
enum { DIF_VX, DIF_VR, DIF_VRHAT, DIF_VP, DIF_VV, DIF_VS, DIF_VT, DIF_VB, DIF_VBASIS };

typedef enum { DIF_RUNNING = 0, DIF_CONVERGED = 1, DIF_STOPPED = 2 } dif_solve_status;

/* One batch position's scalars (saved in the checkpoint as they lie). */
typedef struct {
    int32_t point;
    int32_t status;        /* dif_solve_status */
    int32_t iterations;
    int32_t restarts;
    double norm_b;
    double residual;       /* relative, the latest (true at the end) */
    double rho[2], alpha[2], omega[2];   /* complex, as (re, im): BiCGStab's */
} dif_solve_state;

typedef struct dif_solve_method dif_solve_method;

typedef struct {
    dif_bound_ops ops;
    dif_ctx *ctx;
    const dif_workunit *wu;
    const dif_setup *s;
    const dif_solve_method *method;   /* the work unit's (dif_solve_method_of) */
    void *method_state;          /* the method's own (its open), or NULL */
    int capacity;
    int n;                       /* positions in the current batch */
    dif_solve_state *st;         /* [capacity] */
    int *active;                 /* scratch [capacity] */
    double complex *coef, *dots; /* scratch [capacity * 4] */
    double complex *host;        /* one vector on the host */
    int saved_vectors;           /* per running point in a checkpoint (the method's sizes) */
} dif_solver;

/* What one batch position of a method takes: vector slots the backend
 * holds, of them those a checkpoint saves of a running point, and the
 * complex numbers of the method's own host state (at most). */
typedef struct {
    int vectors, saved;
    double host_complex;
} dif_method_sizes;

/* One row of the method table. A NULL entry: nothing to do. */
struct dif_solve_method {
    const char *name;
    dif_method_sizes (*sizes)(const dif_solver_options *opt);
    orr_status (*open)(dif_solver *sv, orr_error *err);   /* sv->method_state */
    void (*close)(dif_solver *sv);
    /* A new batch, x = b = u_b written for every position. */
    orr_status (*start)(dif_solver *sv, orr_error *err);
    /* The same batch put back from a checkpoint. */
    void (*resume)(dif_solver *sv);
    /* One iteration of the running positions sv->active[0..n). */
    orr_status (*iterate)(dif_solver *sv, int n, orr_error *err);
    /* Whether a point's iterations depend on it alone, so a backend's
     * lanes may take the points one at a time (ops.h); else every
     * iteration takes all running points in step. */
    int per_point;
    /* Whether the state is whole between iterations now (NULL: always). */
    int (*saveable)(const dif_solver *sv);
};

extern const dif_solve_method dif_bicgstab;   /* bicgstab.c */
extern const dif_solve_method dif_gmres;      /* gmres.c */

/* The row that the work unit's `solver method=` names (method_table.c). */
const dif_solve_method *dif_solve_method_of(const dif_solver_options *opt);

/* ---- steps every method takes (method.c) ---- */

/* The running positions into sv->active; their count. */
int dif_solver_running(dif_solver *sv);
/* Positions active[0..n): r = b - A x into t and |r| / |b| as their
 * residual. */
orr_status dif_solver_true_residual(dif_solver *sv, int n, orr_error *err);

#endif
