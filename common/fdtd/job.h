/* One FDTD work unit being run: what kind.c's steps and job.c's plan,
 * checkpoint and report share. */
#ifndef ORRERY_FDTD_JOB_H
#define ORRERY_FDTD_JOB_H

#include "../cost.h"
#include "../kind.h"
#include "ops.h"

typedef struct {
    orr_job_cli job;   /* -w -o --npy -i -c --check (kind.h) */
    int bench;   /* --bench K: time K steps on the backend (bench.c) */
} fdtd_cli;

/* The checkpoint payload's head; the series, the energies and each state
 * array (zlib-compressed, its size in packed[]) follow it in one buffer. */
typedef struct {
    uint32_t version;
    int32_t real_bytes, n_probes, n_arrays;
    int64_t done;          /* steps done */
    int64_t n_energy;      /* energies recorded */
    int32_t reported;
    int32_t pad;
    uint64_t packed[FDTD_MAX_ARRAYS];
} fdtd_ckpt_head;

typedef struct {
    const fdtd_cli *opt;
    orr_backend *be;
    fdtd_workunit wu;
    fdtd_setup s;
    fdtd_bound_ops ops;
    fdtd_ctx *ctx;
    uint64_t identity;
    long done;             /* steps done */
    double *series;        /* [steps][n_probes] */
    double *energy;        /* [steps / energy_every] */
    long n_energy;
    int reported;
    double seconds;        /* stepping time of this run */
    long steps_here;       /* steps this run made */
    double t_step;         /* seconds of the last step call, for the next chunk */
    int chunk;             /* steps a call */
    unsigned char *payload;
    size_t payload_size;
    orr_unit_cost cost;    /* what plan checked the limits on (--check prints it) */
} fdtd_job;

orr_status fdtd_job_plan(const void *opts, orr_backend *be, void **job, orr_error *err);
void fdtd_job_free(void *job);
orr_status fdtd_job_report(void *job, orr_error *err);
/* Where the snapshot goes (a work unit that asks for one): --npy PREFIX's
 * PREFIX_FIELD.npy. */
void fdtd_snapshot_path(const fdtd_cli *opt, const fdtd_workunit *wu, char *path, size_t size);
void fdtd_job_checkpoint(const void *job, orr_checkpoint_spec *spec);
/* The state packed for a checkpoint (the arrays read from the backend and
 * compressed); kind.c calls it when the runtime says it is time. */
orr_status fdtd_job_pack(fdtd_job *job, orr_error *err);
/* The head alone, marked reported (report.c, after the results). */
orr_status fdtd_job_pack_reported(fdtd_job *job, orr_error *err);
const void *fdtd_job_payload(const void *job, size_t *size);
orr_status fdtd_job_restore(void *job, const void *payload, size_t size, const char *path,
                            int *reported, orr_error *err);
/* --check: the work unit read and sized, its numbers on stdout. */
orr_status fdtd_check_tool(const fdtd_cli *opt, orr_error *err);
/* --bench K on be (bench.c). */
orr_status fdtd_bench_tool(const fdtd_cli *opt, orr_backend *be, const orr_error *no_device,
                           orr_error *err);

#define FDTD_CHECKPOINT_FILE "fdtd_checkpoint"
#define FDTD_WU_FILE "fdtd_wu.txt"
#define FDTD_RESULTS_FILE "fdtd_results.txt"
/* The cells the regions' bounding boxes cover together, at most: painting
 * is not checkpointed (kind.c's limit row). */
#define FDTD_LIMIT_PAINT_CELLS 4e9

#endif
