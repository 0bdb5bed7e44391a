/* The CPU backend's diffraction ops: the reference's (common/diffraction/
 * reference.c) on the backend's threads, one lane a thread (ops.h: the
 * solver takes each lane a point at a time through whole iterations),
 * with its FFTs on the backend's path (the spectral kernels' SIMD lanes).
 * The work is those FFTs and the z sweeps; nothing here needs code of its
 * own. */
#include <stdlib.h>

#include "../cpu_backend.h"
#include "diffraction/ops.h"

orr_status dif_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    const orr_cpu_ctx *cpu = be->ctx;
    dif_reference_state *st = malloc(sizeof *st);
    if (!st)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    st->pool = cpu->pool;   /* the backend owns it */
    st->isa = be->cpu_isa;
    slot->ops = &dif_reference_ops;
    slot->state = st;
    slot->release = free;
    return ORR_OK;
}
