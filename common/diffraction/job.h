/* One diffraction work unit being run: what kind.c's steps and job.c's
 * plan, checkpoint and report share. */
#ifndef ORRERY_DIFFRACTION_JOB_H
#define ORRERY_DIFFRACTION_JOB_H

#include "../cost.h"
#include "../io/io.h"
#include "../kind.h"
#include "report.h"
#include "solver.h"

typedef struct {
    orr_job_cli job;   /* -w -o --npy -i -c --check (kind.h) */
    int batch;   /* --batch: points a batch (0: chosen by memory and the backend) */
    int bench;   /* --bench K: time K operator products and a solve (bench.c) */
} dif_cli;

/* The checkpoint payload's head; the rest follows it in one buffer. */
typedef struct {
    uint32_t version;
    int32_t n_points, n_modes, printed;
    int32_t next_point;    /* the first point not finished by a finished batch */
    int32_t batch_n;       /* points of the batch in flight (0: none) */
    int32_t running;       /* of them, saved with vectors */
    int32_t pad;
    uint64_t unknowns;
} dif_ckpt_head;

typedef struct {
    const dif_cli *opt;
    orr_backend *be;
    dif_workunit wu;
    dif_setup s;
    dif_bound_ops ops;
    dif_solver sv;
    uint64_t identity;
    int capacity;
    /* the payload: head | results [n_points] | R, T [n_points][n_modes] |
     * solver states [capacity] | vectors [running][sv.saved_vectors][unknowns] */
    unsigned char *payload;
    size_t fixed_size, vector_room;
    dif_ckpt_head *head;
    dif_point_result *res;
    double *R, *T;
    dif_solve_state *saved;
    double complex *vectors;
    /* the batch in flight */
    int in_batch;
    dif_point *pt;            /* [capacity] */
    int *points, *spectrum_of;
    double complex *spectra;  /* [capacity][nz][grid] */
    double complex *w;        /* one vector */
    dif_contrast contrast;    /* the shapes' coefficients, made once */
    int started;
    double t0;
    orr_unit_cost cost;       /* what plan checked the limits on (--check prints it) */
} dif_job;

/* Tables and contrast spectra of points first..first+n-1 into the job's
 * batch arrays, and b describing them; release frees the tables. */
orr_status dif_job_batch_prepare(dif_job *job, int first, int n, dif_batch *b, orr_error *err);
void dif_job_batch_release(dif_job *job);

/* Room for the vectors of `running` points in the payload. */
orr_status dif_job_payload_reserve(dif_job *job, int running, orr_error *err);

orr_status dif_job_plan(const void *opts, orr_backend *be, void **job, orr_error *err);
void dif_job_free(void *job);
orr_status dif_job_report(void *job, orr_error *err);
void dif_job_checkpoint(const void *job, orr_checkpoint_spec *spec);
const void *dif_job_payload(const void *job, size_t *size);
orr_status dif_job_restore(void *job, const void *payload, size_t size, const char *path,
                           int *reported, orr_error *err);
/* --check: the work unit read and sized, its numbers on stdout. */
orr_status dif_check_tool(const dif_cli *opt, orr_error *err);
/* --bench K on be (bench.c): the first batch's operator and solve timed. */
orr_status dif_bench_tool(const dif_cli *opt, orr_backend *be, const orr_error *no_device,
                          orr_error *err);

#define DIF_CHECKPOINT_FILE "diffraction_checkpoint"
#define DIF_WU_FILE "diffraction_wu.txt"
#define DIF_RESULTS_FILE "diffraction_results.txt"
/* The memory of one point of a batch, at most (kind.c's limit row). */
#define DIF_LIMIT_POINT_BYTES 8589934592.0

#endif
