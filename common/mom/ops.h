/* What a backend may accelerate of the MoM kind: the fill, the factorisation
 * and the solves. The backend holds the system (Z and the right-hand
 * sides, on a GPU in device memory); the kind (job.c) asks for the phases
 * a bounded piece at a time (a range of columns, a block column of the
 * factorisation) and moves the state in and out for checkpoints. A backend
 * that attaches nothing gets the reference (reference.c: LAPACK through
 * OpenBLAS, our fill). Every backend's ops are the solvers of device.c
 * over its primitives (device.h). Matrices are column-major, complex as
 * (re, im). */
#ifndef ORRERY_MOM_OPS_H
#define ORRERY_MOM_OPS_H

#include "../backend.h"
#include "mom.h"

typedef struct mom_ctx mom_ctx;   /* a backend's state for one work unit */

/* What a solve reports (docs/mom.md section 4). */
typedef struct {
    double backward;       /* max over right-hand sides of |b - Zx|_1 / (|Z|_1 |x|_1 n eps), eps of double */
    double growth;         /* faithful: max |U| / max |Z| */
    double min_pivot;      /* faithful: min |u_kk| */
    int refinements;       /* mixed: iterative-refinement steps */
} mom_solve_info;

/* The state a checkpoint holds, as the backend lays it out. */
/* MATRIX: Z in double (the factors in place for the double reference and
 * faithful solvers); FACTORS: the single-precision factors (mixed, or
 * precision single; 0 bytes otherwise); NORMS: each column's max |z| and
 * sum |z| (the growth factor and |Z|_1, kept from the fill). */
typedef enum {
    MOM_STATE_MATRIX,
    MOM_STATE_FACTORS,
    MOM_STATE_PIVOTS,
    MOM_STATE_RHS,
    MOM_STATE_NORMS,
    MOM_N_STATES
} mom_state;

typedef struct {
    /* The system's storage for wu and p; refuses (ORR_ERR_NOMEM, naming
     * the bytes) what the host or device cannot hold. */
    orr_status (*open)(void *state, const mom_workunit *wu, const mom_problem *p, mom_ctx **ctx,
                       orr_error *err);
    void (*close)(mom_ctx *ctx);
    /* Columns first .. first + count - 1 of Z and, with first = 0, the
     * right-hand sides. */
    orr_status (*fill)(mom_ctx *ctx, int first, int count, orr_error *err);
    /* The factorisation's block column starting at column first (a
     * multiple of block()), applied to the whole trailing matrix. */
    orr_status (*factor)(mom_ctx *ctx, int first, orr_error *err);
    int (*block)(const mom_ctx *ctx);
    /* After the last block: the currents x[rhs][n] (complex, as pairs). */
    orr_status (*solve)(mom_ctx *ctx, double *x, mom_solve_info *info, orr_error *err);
    /* State s's size in bytes, and its bytes both ways. */
    size_t (*state_bytes)(const mom_ctx *ctx, mom_state s);
    orr_status (*read)(mom_ctx *ctx, mom_state s, void *host, orr_error *err);
    orr_status (*write)(mom_ctx *ctx, mom_state s, const void *host, orr_error *err);
} mom_ops;

/* Whether wu's factors are single precision (mixed, or precision single):
 * every backend's rule (device.c, from its solver's row). */
int mom_factors_single(const mom_workunit *wu);

/* State s's bytes for n unknowns and nrhs right-hand sides: the one
 * layout every backend's checkpoint has (complex as pairs of reals, the
 * pivots as 1-based 32-bit ints; device.c). */
size_t mom_state_size(int n, int nrhs, int single, mom_state s);

/* The reference; its state is a mom_cpu_state (threads) or NULL (one). */
extern const mom_ops mom_reference_ops;

typedef struct {
    int threads;
    struct orr_pool *pool;
} mom_cpu_state;

typedef struct {
    const mom_ops *ops;
    void *state;
} mom_bound_ops;
/* A backend's MoM ops (the reference when it attaches none). */
orr_status mom_ops_of(orr_backend *be, mom_bound_ops *out, orr_error *err);

/* Host bytes the reference needs for wu with n unknowns (the plan's
 * refusal and the server template's memory bound). */
double mom_reference_bytes(const mom_workunit *wu, int n);

#endif
