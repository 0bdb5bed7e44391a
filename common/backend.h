/* What a compute backend (CPU, CUDA, OpenCL) is to the rest of the code:
 * a name, a variant, its state, and one slot per kind it accelerates. It
 * names no kind: each kind declares its own ops struct (common/<kind>/
 * ops.h) and each backend lists, in its open function, the kinds it
 * accelerates and how to attach them. A kind asks for its slot; an empty
 * slot means the kind's portable reference serves (the BLIS context
 * pattern: start from the reference, override what is accelerated).
 * Backends compute; they never parse files, decide exit codes or call
 * BOINC. */
#ifndef ORRERY_BACKEND_H
#define ORRERY_BACKEND_H

#include <stdint.h>

#include "cpu_isa.h"
#include "orrery.h"

typedef struct orr_backend orr_backend;

/* One kind's accelerated ops in one backend. ops points at the kind's own
 * struct (NULL: the reference serves); state is what those ops keep
 * between calls (tables on a device), released with the backend. */
typedef struct {
    const char *kind;
    const void *ops;
    void *state;
    void (*release)(void *state);
} orr_kind_slot;

/* Fills slot->ops and slot->state for a kind on its first use, or leaves
 * ops NULL. A failure here (no device memory) fails the kind's run. */
typedef orr_status (*orr_kind_attach)(orr_backend *be, orr_kind_slot *slot, orr_error *err);

/* A backend's list entry: the kind it accelerates and how. */
typedef struct {
    const char *kind;
    orr_kind_attach attach;
} orr_kind_attacher;

#define ORR_BACKEND_MAX_KINDS 8

struct orr_backend {
    const char *name;         /* "CPU", "CUDA", "OpenCL": goes into the report */
    const char *variant;      /* kernel path ("avx2") or device; part of the
                                 checkpoint identity, not of the report */
    orr_cpu_isa cpu_isa;      /* the path of every CPU kernel the host runs for
                                 the kinds (the CPU app: --cpu-path or the best,
                                 chosen once at open; else ORR_CPU_BEST) */
    void *ctx;                /* backend state (device, thread pool ...) */
    void (*close)(orr_backend *be);   /* release ctx; NULL when nothing to do */
    const orr_kind_attacher *attachers;   /* the kinds this backend accelerates */
    int n_attachers;
    orr_kind_slot slots[ORR_BACKEND_MAX_KINDS];   /* attached so far */
    int n_slots;
};

/* The kind's slot, attached on first use. (*slot)->ops NULL: the kind's
 * reference serves. */
orr_status orr_backend_slot(orr_backend *be, const char *kind, const orr_kind_slot **slot,
                            orr_error *err);

/* Releases every attached kind's state, then the backend's own. */
void orr_backend_close(orr_backend *be);

/* What the command line asked of the backend. An app's open function
 * weighs it against what BOINC assigned (orr_runtime_init_data). */
typedef struct {
    int device;             /* GPU apps; -1: not given */
    int platform;           /* OpenCL platform; -1: not given */
    int nthreads;           /* CPU app; 0: BOINC's ncpus, else every core */
    const char *cpu_path;   /* CPU app: scalar, sse2, avx2, avx512; NULL: best */
    double gpu_target_frequency;  /* GPU apps: launches per second; 0: default */
    int non_responsive;     /* GPU apps: whole batches per launch */
} orr_backend_request;

/* Makes an app's backend ready: picks and opens its device. A missing or
 * busy device is ORR_ERR_DEVICE, which the driver turns into BOINC's
 * temporary exit; one that can never run the work (no double precision,
 * a driver too old) ORR_ERR_DEVICE_UNFIT, an error. */
typedef orr_status (*orr_backend_open)(const orr_backend_request *req, orr_backend *be,
                                       orr_error *err);

/* A checkpoint's identity for a work unit whose inputs hash to
 * content_hash, run on be (NULL: the reference): its name and variant go
 * in, because saved state carries the backend's rounding. */
uint64_t orr_workunit_identity(uint64_t content_hash, const orr_backend *be);

/* The plain scalar C reference: a backend that accelerates nothing. */
orr_status orr_open_reference_backend(const orr_backend_request *req, orr_backend *be,
                                      orr_error *err);

#endif
