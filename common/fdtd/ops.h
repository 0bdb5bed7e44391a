/* What a backend may accelerate of the FDTD kind: the time steps. The
 * backend holds the state (the six fields and the CPML's psi arrays; on a
 * GPU in device memory) and the setup's tables in the fields' precision;
 * the kind (kind.c) only asks for steps, probes, energies and norms, and
 * moves the state in and out for checkpoints. A backend that attaches
 * nothing gets the reference (reference.c): the plain scalar loops every
 * backend is tested against, bit for bit in faithful mode. */
#ifndef ORRERY_FDTD_OPS_H
#define ORRERY_FDTD_OPS_H

#include "../backend.h"
#include "fdtd.h"

typedef struct fdtd_ctx fdtd_ctx;   /* a backend's state for one work unit */

typedef struct {
    /* The state for wu and s, every array zero; tables in place. Refuses
     * (ORR_ERR_NOMEM, naming the bytes) what the host or device cannot hold. */
    orr_status (*open)(void *state, const fdtd_workunit *wu, const fdtd_setup *s, fdtd_ctx **ctx,
                       orr_error *err);
    void (*close)(fdtd_ctx *ctx);
    /* Steps first .. first + count - 1 (numbered from 1), each: the E sweep,
     * the CPML's E terms, the source (the cell set to -fdtd_source_value(s, n) while
     * n <= release_after), the H sweep, the CPML's H terms. After step n:
     * probes[(n - first) * s->n_probes + p] = probe p's value (as double);
     * when fdtd_energy_at(wu, n), energy[e++] = W(n) (update.h's order),
     * e counting from 0 within the call. */
    orr_status (*steps)(fdtd_ctx *ctx, long first, int count, double *probes, double *energy,
                        orr_error *err);
    /* Per field: sqrt(sum v^2) over the whole array (update.h's order) and
     * max |v|. */
    orr_status (*norms)(fdtd_ctx *ctx, double l2[FDTD_N_FIELDS], double max[FDTD_N_FIELDS],
                        orr_error *err);
    /* State array a (0 .. s->n_arrays - 1: the fields in fdtd_field order,
     * then the psi arrays), s->array_len[a] values of the fields' precision,
     * both ways. */
    orr_status (*read)(fdtd_ctx *ctx, int a, void *host, orr_error *err);
    orr_status (*write)(fdtd_ctx *ctx, int a, const void *host, orr_error *err);
} fdtd_ops;

/* The reference; its state is unused (NULL). */
extern const fdtd_ops fdtd_reference_ops;

typedef struct {
    const fdtd_ops *ops;
    void *state;
} fdtd_bound_ops;
/* A backend's FDTD ops (the reference when it attaches none). */
orr_status fdtd_ops_of(orr_backend *be, fdtd_bound_ops *out, orr_error *err);

#endif
