/* The CPU backend's diffraction ops: the reference's (common/diffraction/
 * reference.c) on the backend's threads, one lane a thread (ops.h: the
 * solver takes each lane a point at a time through whole iterations).
 * The work is FFTs on the spectral kernels' SIMD paths and the z sweeps;
 * nothing here needs code of its own. */
#include "../cpu_backend.h"
#include "diffraction/ops.h"

orr_status dif_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    const orr_cpu_ctx *cpu = be->ctx;
    (void)err;
    slot->ops = &dif_reference_ops;
    slot->state = cpu->pool;   /* the reference's state: the pool (the backend owns it) */
    slot->release = NULL;
    return ORR_OK;
}
