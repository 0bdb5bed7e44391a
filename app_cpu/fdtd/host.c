/* The CPU backend's FDTD ops: the reference's (common/fdtd/reference.c)
 * with the row kernels of the backend's ISA (rows_isa.c, vectorised) and
 * its threads sharing the k-slabs. The bits are the reference's. */
#include <stdlib.h>

#include "../cpu_backend.h"
#include "config.h"
#include "fdtd/rows.h"

#if ORR_X86_64
extern const fdtd_row_kernels fdtd_rows_sse2, fdtd_rows_avx2, fdtd_rows_avx512;
#endif

static const fdtd_row_kernels *rows_for(orr_cpu_isa isa)
{
    switch (isa) {
#if ORR_X86_64
    case ORR_CPU_AVX512: return &fdtd_rows_avx512;
    case ORR_CPU_AVX2: return &fdtd_rows_avx2;
    case ORR_CPU_SSE2: return &fdtd_rows_sse2;
#endif
    default: return &fdtd_plain_rows;
    }
}

orr_status fdtd_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    const orr_cpu_ctx *cpu = be->ctx;
    fdtd_cpu_state *st = malloc(sizeof *st);
    if (!st)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    st->rows = rows_for(be->cpu_isa);
    st->pool = cpu->pool;
    slot->ops = &fdtd_reference_ops;
    slot->state = st;
    slot->release = free;
    return ORR_OK;
}
