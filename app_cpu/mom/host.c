/* The CPU backend's MoM ops: the reference's (common/mom/reference.c) with
 * the backend's threads: the pool fills Z's columns, OpenBLAS runs as many
 * threads in the factorisation and the solves. */
#include <stdlib.h>

#include "../cpu_backend.h"
#include "mom/ops.h"
#include "threads.h"

orr_status mom_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    const orr_cpu_ctx *cpu = be->ctx;
    mom_cpu_state *st = malloc(sizeof *st);
    if (!st)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    st->pool = cpu->pool;
    st->threads = orr_pool_threads(cpu->pool);
    slot->ops = &mom_reference_ops;
    slot->state = st;
    slot->release = free;
    return ORR_OK;
}
