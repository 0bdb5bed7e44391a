/* What a backend may accelerate of the spectral kernels: one op that runs
 * a description on host buffers on the device. A backend that attaches
 * none gets the CPU kernels (spec_plan_create / spec_run). */
#ifndef ORRERY_SPECTRAL_OPS_H
#define ORRERY_SPECTRAL_OPS_H

#include "../backend.h"
#include "spectral.h"

#define SPEC_KIND_NAME "spectral"

typedef struct {
    /* Runs desc (valid by spec_plan_create's rules) on host buffers, same
     * conventions and layouts as the CPU plan: upload, compute, download.
     * A size or layout the device does not take is ORR_ERR_UNSUPPORTED,
     * naming it. */
    orr_status (*run)(void *state, const spec_desc *desc, const spec_buffers *b, orr_error *err);
} spec_ops;

/* A backend's spectral ops and their state; ops.run NULL: the CPU kernels. */
typedef struct {
    spec_ops ops;
    void *state;
} spec_bound_ops;
orr_status spec_ops_of(orr_backend *be, spec_bound_ops *out, orr_error *err);

#endif
