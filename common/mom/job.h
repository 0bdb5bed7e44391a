/* One MoM work unit being run: what kind.c's steps and job.c's plan,
 * checkpoint and report share. The run has three phases, each stepped a
 * bounded piece at a time: the fill (columns of Z), the factorisation (a
 * block column a step) and the solve with the outputs; a checkpoint is
 * written after the fill, after the factorisation and between block
 * columns when BOINC asks. */
#ifndef ORRERY_MOM_JOB_H
#define ORRERY_MOM_JOB_H

#include "../cost.h"
#include "../kind.h"
#include "ops.h"

typedef struct {
    orr_job_cli job;   /* -w -o --npy -i -c --check (kind.h) */
} mom_cli;

typedef enum { MOM_PHASE_FILL, MOM_PHASE_FACTOR, MOM_PHASE_SOLVE } mom_phase;

/* The checkpoint payload's head; the state arrays (ops.h, in mom_state
 * order, raw: complex values do not compress) follow it. */
typedef struct {
    uint32_t version;
    int32_t n, nrhs, phase;
    int32_t next;            /* fill: the next column; factor: the next block column's first */
    int32_t reported;
    double seconds[3];       /* fill, factor, solve so far, all runs */
    uint64_t bytes[MOM_N_STATES];
} mom_ckpt_head;

typedef struct {
    const mom_cli *opt;
    orr_backend *be;
    mom_workunit wu;
    mom_problem p;
    mom_bound_ops ops;
    mom_ctx *ctx;
    uint64_t identity;
    mom_phase phase;
    int next;
    int chunk;               /* fill columns a step, grown to about a step's time */
    double seconds[3];
    double *current;         /* [nrhs][n] complex pairs, after the solve */
    mom_solve_info info;
    char warning[256];       /* near an interior resonance (docs/mom.md section 1), or empty */
    int reported;
    unsigned char *payload;
    size_t payload_size;
    orr_unit_cost cost;      /* what plan checked the limits on (--check prints it) */
} mom_job;

orr_status mom_job_plan(const void *opts, orr_backend *be, void **job, orr_error *err);
void mom_job_free(void *job);
orr_status mom_job_report(void *job, orr_error *err);
/* Where the currents go (a work unit that asks for them): --npy FILE,
 * resolved through BOINC. */
void mom_current_path(const mom_cli *opt, char *path, size_t size);
void mom_job_checkpoint(const void *job, orr_checkpoint_spec *spec);
orr_status mom_job_pack(mom_job *job, orr_error *err);
orr_status mom_job_pack_reported(mom_job *job, orr_error *err);
const void *mom_job_payload(const void *job, size_t *size);
orr_status mom_job_restore(void *job, const void *payload, size_t size, const char *path,
                           int *reported, orr_error *err);
orr_status mom_check_tool(const mom_cli *opt, orr_error *err);

#define MOM_CHECKPOINT_FILE "mom_checkpoint"
#define MOM_WU_FILE "mom_wu.txt"
#define MOM_RESULTS_FILE "mom_results.txt"

#endif
