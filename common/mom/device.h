/* MoM's solvers written once for every backend (device.c): which solver
 * does what (mom_recipes, one row a solver), the block size, the blocked
 * right-looking LU a block column a step, the solves (through the
 * factors, through explicit inverses, iterative refinement), the backward
 * error, growth factor and smallest pivot, and the checkpoint's state. A
 * backend supplies only the primitives of mom_kernels on its own storage
 * (reference.c: LAPACK and BLAS on the host; app_cuda/mom/host.c: cuSOLVER
 * and cuBLAS; app_opencl/mom/host.c: our kernels and CLBlast), each in its
 * own order of floating operations: the recipe decides what is computed,
 * the primitive how. */
#ifndef ORRERY_MOM_DEVICE_H
#define ORRERY_MOM_DEVICE_H

#include "device/device.h"
#include "ops.h"

/* A solver's steps (docs/mom.md section 4). The checkpoint's MATRIX holds
 * Z, factored in place by the double solvers; FACTORS the single factors
 * (mom_factors_single), empty otherwise. */
typedef struct {
    int pivoting;   /* partial pivoting (getrf's choice) in the panels; else none */
    int single;     /* the factors in single precision whatever `precision` says */
    int inverses;   /* x = U^-1 (L^-1 b) by explicit inverses; the growth factor, smallest pivot */
    int refine;     /* iterative refinement in double after the single solve */
} mom_recipe;
extern const mom_recipe mom_recipes[3];   /* by mom_solver */

/* What a backend opens its storage for. */
typedef struct {
    int n, nrhs;
    int nb;                  /* columns of a factorisation step; open may lower it */
    int single;              /* the factors in single precision */
    const mom_recipe *rc;
} mom_plan;

/* The solves' vectors, [nrhs][n] complex pairs in the backend's memory:
 * B the right-hand sides (state), X the currents, R the residuals (and
 * L^-1 b between the inverses), D the refined currents (refine only). */
typedef enum { MOM_B, MOM_X, MOM_R, MOM_D } mom_vec;

typedef struct mom_kern mom_kern;   /* a backend's storage for one work unit */

/* The recipe's and the primitives' shorthand: return x's status if it failed. */
#define TRY(x)                                                                                    \
    do {                                                                                          \
        orr_status st_ = (x);                                                                     \
        if (st_ != ORR_OK)                                                                        \
            return st_;                                                                           \
    } while (0)

/* A backend's primitives. Those that only queue say so; `finish` waits.
 * Panel, swap, trsm, gemm and solve work in the factors' precision. */
typedef struct {
    const char *api;                /* "CPU", "CUDA", "OpenCL": in messages */
    /* the block: the default, and the range env may ask (for measuring; a
     * checkpoint is valid only with the size it was written with) */
    int block, block_min, block_max, block_step;
    const char *block_env;
    const char *profile_env;        /* set: the factorisation's parts timed apart; NULL: never */
    /* The clock finish's expectations are measured by (orr_runtime_seconds);
     * NULL: nothing is ever queued (the host's routines), no profile. */
    double (*seconds)(void);
    /* The storage for wu and p; refuses (ORR_ERR_NOMEM, naming the
     * bytes) what the host or device cannot hold. */
    orr_status (*open)(void *state, const mom_workunit *wu, const mom_problem *p, mom_plan *plan,
                       mom_kern **out, orr_error *err);
    void (*close)(mom_kern *k);
    /* Queued: Z's columns first .. first + count - 1 with their max and
     * sum |z| (NORMS); with first = 0, B. */
    orr_status (*fill)(mom_kern *k, int first, int count, orr_error *err);
    /* Queued: the single factors' matrix = Z rounded. */
    orr_status (*to_single)(mom_kern *k, orr_error *err);
    /* Queued: the LU of the panel (rows j.., columns j .. j + nb - 1);
     * pivoting: its pivots into PIVOTS, global and 1-based (LAPACK's). */
    orr_status (*panel)(mom_kern *k, int j, int nb, int pivoting, orr_error *err);
    /* Queued: the panel's row exchanges in the columns left and right of it (laswp). */
    orr_status (*swap)(mom_kern *k, int j, int nb, orr_error *err);
    /* Queued, with columns right of the panel: its block row = L11^-1 A12
     * (trsm), and the trailing matrix -= A21 A12 (gemm). */
    orr_status (*trsm)(mom_kern *k, int j, int nb, orr_error *err);
    orr_status (*gemm)(mom_kern *k, int j, int nb, orr_error *err);
    /* Waits for everything queued, sleeping through most of expected_s;
     * with zero_pivot, after unpivoted panels: the first column whose
     * pivot was exactly zero since open, or -1. */
    orr_status (*finish)(mom_kern *k, double expected_s, int *zero_pivot, orr_error *err);
    /* Queued: dst = Z^-1 src through the factors, in double. */
    orr_status (*solve)(mom_kern *k, mom_vec src, mom_vec dst, orr_error *err);
    /* U's column maxima max_{i<=j} |u_ij| into host[j], |u_jj| into host[n + j]. */
    orr_status (*u_stats)(mom_kern *k, double *host, orr_error *err);
    /* Queued: dst = T^-1 src, T the factors' L (lower) or U, by T's
     * inverse made explicitly first. */
    orr_status (*inverse)(mom_kern *k, int lower, mom_vec src, mom_vec dst, orr_error *err);
    /* Queued: R = B - Z x in double (Z made again where the factors overwrote it). */
    orr_status (*residual)(mom_kern *k, mom_vec x, orr_error *err);
    /* Each right-hand side's sum of |v_i| into host[nrhs]. */
    orr_status (*sums)(mom_kern *k, mom_vec v, double *host, orr_error *err);
    /* Queued: dst += src; dst = src. */
    orr_status (*add)(mom_kern *k, mom_vec dst, mom_vec src, orr_error *err);
    orr_status (*copy)(mom_kern *k, mom_vec dst, mom_vec src, orr_error *err);
    /* Vector v into host. */
    orr_status (*get)(mom_kern *k, mom_vec v, double *host, orr_error *err);
    /* State s (of non-zero size: mom_state_size) both ways. */
    orr_status (*read)(mom_kern *k, mom_state s, void *host, orr_error *err);
    orr_status (*write)(mom_kern *k, mom_state s, const void *host, orr_error *err);
} mom_kernels;

/* The buffers of a GPU backend's storage that do not depend on its
 * libraries, owned here through the device layer (common/device/device.h):
 * the state (Z, the single factors, the pivots, B, the norms), the other
 * vectors, the incidences' directions and the cells; a backend adds its
 * libraries' workspaces (mom_dmem_alloc). */
typedef struct {
    orr_device *d;
    int n, nrhs, single;
    orr_dmem z;               /* [n * n] double pairs */
    orr_dmem zs;              /* [n * n] single pairs (single factors), else NULL */
    orr_dmem ipiv;            /* [n] int, 1-based */
    orr_dmem v[4];            /* [nrhs * n] double pairs by mom_vec (D: refine only) */
    orr_dmem xs;              /* [nrhs * n] single pairs (single factors) */
    orr_dmem norms;           /* [2 n] doubles: column max |z|, then sum |z| */
    orr_dmem dir;             /* [2 nrhs] doubles: (cos, sin) of the incidences */
    orr_dmem px, py, w;       /* [n] doubles: the cells (w: LCN's weights where it corrects) */
    orr_dmem col_start, col_row, col_re, col_im;   /* LCN's corrections, else NULL */
    double need;              /* the device bytes the backend counted: in messages */
} mom_dmem;

/* Device bytes of mom_dmem's buffers for plan with nnz LCN corrections. */
double mom_dmem_bytes(const mom_plan *plan, long nnz);
/* m's buffers on d for wu and p: ORR_ERR_DEVICE_UNFIT when `need` bytes
 * (all the backend's, mom_dmem_bytes included), `largest` in one buffer,
 * can never fit d; the cells uploaded, the state cleared. The caller
 * mom_dmem_closes m on failure. */
orr_status mom_dmem_open(mom_dmem *m, orr_device *d, const mom_workunit *wu, const mom_problem *p,
                         const mom_plan *plan, double need, double largest, orr_error *err);
/* A buffer of bytes (at least 16) on m's device; refused within the
 * device's size (memory held elsewhere now): the API's class, naming the
 * system. */
orr_status mom_dmem_alloc(mom_dmem *m, orr_dmem *out, size_t bytes, orr_error *err);
/* Releases *mem (if any) and clears it. */
void mom_dmem_free(mom_dmem *m, orr_dmem *mem);
void mom_dmem_close(mom_dmem *m);
/* State s to and from the host, waiting for the queue. */
orr_status mom_dmem_read(mom_dmem *m, mom_state s, void *host, orr_error *err);
orr_status mom_dmem_write(mom_dmem *m, mom_state s, const void *host, orr_error *err);

/* The mom_ops of the solvers over kernels k: open's state is k's. */
orr_status mom_device_open(const mom_kernels *k, void *state, const mom_workunit *wu,
                           const mom_problem *p, mom_ctx **out, orr_error *err);
void mom_device_close(mom_ctx *c);
orr_status mom_device_fill(mom_ctx *c, int first, int count, orr_error *err);
orr_status mom_device_factor(mom_ctx *c, int first, orr_error *err);
int mom_device_block(const mom_ctx *c);
orr_status mom_device_solve(mom_ctx *c, double *x, mom_solve_info *info, orr_error *err);
size_t mom_device_state_bytes(const mom_ctx *c, mom_state s);
orr_status mom_device_read(mom_ctx *c, mom_state s, void *host, orr_error *err);
orr_status mom_device_write(mom_ctx *c, mom_state s, const void *host, orr_error *err);
#define MOM_DEVICE_OPS(open)                                                                     \
    {open, mom_device_close, mom_device_fill, mom_device_factor, mom_device_block,              \
     mom_device_solve, mom_device_state_bytes, mom_device_read, mom_device_write}

/* Fills slot with the solvers over a GPU backend's kernels k; state is
 * open's, release (may be NULL) the slot's release of it. */
orr_status mom_device_attach(const mom_kernels *k, void *state, void (*release)(void *),
                             orr_kind_slot *slot, orr_error *err);

/* The unpivoted LU's failure at column (0-based). */
orr_status mom_zero_pivot(orr_error *err, int column);

#endif
