/* What one work unit costs, in one shape for every kind, and the limits
 * every work unit must stay within, in one table (a kind's own limits
 * are rows of its descriptor, kind.h). Each kind fills an
 * orr_unit_cost once in its plan from the parsed unit (the same function
 * serves --check); --check prints it with orr_cost_print, the same lines
 * for every kind, and the plan refuses a unit past a limit
 * (orr_cost_limits: the project should never have sent it, exit 65) or
 * past this host's memory (orr_cost_host_fits: exit 71). `orrery --limits`
 * prints this table and every kind's rows, which the work generators
 * (workunits/) read. */
#ifndef ORRERY_COST_H
#define ORRERY_COST_H

#include <stdio.h>

#include "checkpoint.h"
#include "orrery.h"

/* X(id, key, value, what): the limits every kind's units share (docs:
 * README.md, "Limits of a work unit"). The results limit is what
 * orrery-validate reads (workunits/fdtd/validate.c's MAX_FD_BYTES and
 * mom's MAX_MO_BYTES; a test checks they agree), the checkpoint's what
 * checkpoint.c reads back: a larger one could never resume. Memory-sized
 * checkpoints (the state) meet the host check first. */
#define ORR_LIMIT_TABLE(X)                                                                        \
    X(ORR_LIMIT_RESULTS, "results_bytes", 1073741824.0,                                           \
      "the results file, bytes: what orrery-validate reads")                                     \
    X(ORR_LIMIT_NPY, "npy_bytes", 4294967296.0, "the .npy files of a run together, bytes")       \
    X(ORR_LIMIT_CHECKPOINT, "checkpoint_bytes", ORR_CHECKPOINT_MAX_PAYLOAD,                       \
      "the checkpoint's payload, bytes: what checkpoint.c reads back")

typedef enum {
#define ORR_LIMIT_ENUM(id, key, value, what) id,
    ORR_LIMIT_TABLE(ORR_LIMIT_ENUM)
#undef ORR_LIMIT_ENUM
    ORR_LIMIT_COUNT
} orr_limit_id;

double orr_limit(orr_limit_id id);

/* A kind's own limit: a row of its descriptor (kind.h), which --limits
 * prints after the shared ones; the kind's code uses the same constant. */
typedef struct {
    const char *key;    /* "diffraction_point_bytes": the kind's name first */
    double value;
    const char *what;   /* what it bounds, for the docs and messages */
} orr_limit_row;

/* The shared limits as "KEY VALUE" lines, then rows' (orrery --limits). */
void orr_limits_print(FILE *f);
void orr_limit_rows_print(FILE *f, const orr_limit_row *rows, size_t n);

/* What a work unit holds and writes. Sizes in bytes; upper bounds that a
 * typical unit comes within 20% of (tests/e2e/check_sizes_test.sh measures
 * them). */
typedef struct {
    double host_bytes;         /* the CPU app's peak resident memory, restart from a
                                  checkpoint included */
    double device_bytes;       /* a GPU app's device memory (0: none said) */
    double results_bytes;      /* the results file */
    double npy_bytes;          /* the .npy files the run writes (0: none) */
    double checkpoint_bytes;   /* the largest checkpoint file */
    double flops;              /* the estimate BOINC is told (rsc_fpops_est) */
    char sizes[160];           /* what makes them, for messages ("1000 steps x 4 probes") */
} orr_unit_cost;

/* The cost as "KEY VALUE" lines: host_bytes, device_bytes, results_bytes,
 * npy_bytes, checkpoint_bytes, rsc_fpops_est. */
void orr_cost_print(FILE *f, const orr_unit_cost *c);

/* ORR_ERR_INPUT naming path, the quantity, the unit's sizes and the limit
 * when the results, the .npy files or the checkpoint pass theirs. */
orr_status orr_cost_limits(const orr_unit_cost *c, const char *path, orr_error *err);

/* The host's physical memory in bytes (0: unknown). */
double orr_host_memory(void);

/* ORR_ERR_NOMEM (exit 71) when host_bytes pass this host's memory. */
orr_status orr_cost_host_fits(const orr_unit_cost *c, const char *path, orr_error *err);

/* A fixed part of every process's resident memory (the binary, libc,
 * OpenBLAS's buffers, stdio), measured on the CPU app (workunits/README.md). */
#define ORR_PROCESS_BYTES 6e6

#endif
