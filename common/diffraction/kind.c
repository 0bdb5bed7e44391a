/* The diffraction kind's descriptor (kind.h): its command line, the
 * --check tool, and the work unit: the spectrum's points go to the
 * backend in batches (all solved together; a point leaves the batch when
 * it converges), each finished point's outputs are kept, and the results
 * table is written once at the end.
 *
 * The checkpoint payload is one buffer: a head, every point's results
 * (finished ones filled in), and, when a batch is in flight, its points'
 * solver scalars and saved vectors (solver.h), so a resumed run continues
 * the very iterations it stopped in and writes the same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../finite.h"
#include "../io/io.h"
#include "../kind.h"
#include "../runtime/runtime.h"
#include "job.h"

#define STEP_SECONDS 0.2

/* ---- the batch in flight ---- */

static orr_status batch_start(dif_job *job, orr_error *err)
{
    const int first = job->head->next_point;
    const int left = job->s.n_points - first;
    const int n = left < job->capacity ? left : job->capacity;
    dif_batch b;
    orr_status st = dif_job_batch_prepare(job, first, n, &b, err);
    if (st == ORR_OK)
        st = dif_solver_start(&job->sv, &b, err);
    job->in_batch = st == ORR_OK;
    job->head->batch_n = n;
    return st;
}

/* Outputs of every batch position that stopped since the last look. */
static orr_status batch_record(dif_job *job, orr_error *err)
{
    const int modes = job->s.n_modes;
    for (int b = 0; b < job->sv.n; b++) {
        const dif_solve_state *st = &job->sv.st[b];
        dif_point_result *res = &job->res[st->point];
        if (st->status == DIF_RUNNING || res->status != DIF_POINT_PENDING)
            continue;
        orr_status s = dif_solver_field(&job->sv, b, job->w, err);
        if (s != ORR_OK)
            return s;
        double *R = job->R + (size_t)st->point * modes, *T = job->T + (size_t)st->point * modes;
        dif_point_outputs(&job->s, &job->pt[b], job->w, res, R, T);
        res->iterations = st->iterations;
        res->residual = st->residual;
        s = dif_point_check_finite(&job->wu, &job->s, &job->pt[b], st->point, res, R, T, err);
        if (s != ORR_OK)
            return s;
        res->status = st->status != DIF_CONVERGED ? DIF_POINT_NOT_CONVERGED
                                                  : dif_point_balance(&job->wu, &job->pt[b], res);
    }
    return ORR_OK;
}

/* Progress: finished points, and each running one by how far its
 * residual has come down towards the tolerance (log scale). */
static double fraction_done(const dif_job *job)
{
    double done = job->head->next_point;
    const double tol = log(job->wu.solver.tolerance);
    for (int b = 0; job->in_batch && b < job->sv.n; b++) {
        const dif_solve_state *st = &job->sv.st[b];
        double f = st->status != DIF_RUNNING ? 1 : log(fmax(st->residual, 1e-300)) / tol;
        done += f < 0 ? 0 : f > 1 ? 1 : f;
    }
    return done / job->s.n_points;
}

/* The saved vectors of the batch into the payload, when the runtime says
 * it is time (a GPU's vectors are downloaded only then). */
static orr_status save_batch(dif_job *job, int *saveable, orr_error *err)
{
    *saveable = 0;
    if (!dif_solver_saveable(&job->sv) || !orr_runtime_time_to_checkpoint())
        return ORR_OK;
    int running = 0;
    for (int b = 0; b < job->sv.n; b++)
        running += job->sv.st[b].status == DIF_RUNNING;
    orr_status st = dif_job_payload_reserve(job, running, err);
    if (st == ORR_OK)
        st = dif_solver_save(&job->sv, job->vectors, err);
    if (st != ORR_OK)
        return st;
    memcpy(job->saved, job->sv.st, (size_t)job->sv.n * sizeof *job->saved);
    job->head->running = running;
    *saveable = 1;
    return ORR_OK;
}

static orr_status dif_step(void *p, orr_step *out, orr_error *err)
{
    dif_job *job = p;
    orr_status st = ORR_OK;
    if (!job->started) {
        job->started = 1;
        job->t0 = orr_runtime_seconds();
    }
    if (!job->in_batch) {
        if (job->head->next_point >= job->s.n_points) {
            out->finished = 1;
            out->done = 1;
            return ORR_OK;
        }
        st = batch_start(job, err);
    }
    int left = 1;
    if (st == ORR_OK)
        st = dif_solver_run(&job->sv, STEP_SECONDS, &left, err);
    if (st == ORR_OK)
        st = batch_record(job, err);
    if (st == ORR_QUIT)
        return st;
    if (st != ORR_OK)   /* the backends' errors know no file */
        return orr_error_in_file(err, job->wu.path);
    out->done = fraction_done(job);
    if (!left) {
        job->head->next_point += job->sv.n;
        job->head->batch_n = 0;
        job->head->running = 0;
        dif_job_batch_release(job);
        out->saveable = 1;
        return ORR_OK;
    }
    return save_batch(job, &out->saveable, err);
}


/* ---- the command line ---- */

enum { OPT_BATCH, OPT_BENCH };

static const orr_option dif_options[] = {
    ORR_JOB_OPTIONS(DIF_WU_FILE, DIF_RESULTS_FILE, "PREFIX",
                    "also PREFIX_r00.npy, PREFIX_R.npy and PREFIX_T.npy"),
    {NULL, "--batch", NULL, "N", OPT_BATCH, ORR_WHOLE(1, 100000),
     "points solved together (default: as many as memory and the device allow)"},
    {NULL, "--bench", NULL, "K", OPT_BENCH, ORR_WHOLE(1, 100000),
     "benchmark: time K operator products on the first batch, then its solve; write nothing"},
};

static void dif_defaults(void *p)
{
    dif_cli *c = p;
    c->job.wu_file = DIF_WU_FILE;
    c->job.output = DIF_RESULTS_FILE;
}

static orr_status dif_parse(void *p, const orr_option *o, const orr_opt_value *v, orr_error *err)
{
    dif_cli *c = p;
    (void)err;
    if (orr_job_option(&c->job, o, v))
        return ORR_OK;
    if (o->id == OPT_BATCH)
        c->batch = (int)v->number;
    else if (o->id == OPT_BENCH)
        c->bench = (int)v->number;
    return ORR_OK;
}

static orr_run_mode dif_mode(const void *p)
{
    const dif_cli *c = p;
    return c->bench ? ORR_RUN_TOOL_BACKEND : c->job.check ? ORR_RUN_TOOL : ORR_RUN_WORK_UNIT;
}

static orr_status dif_tool(void *p, orr_backend *device, const orr_error *no_device, int *failed,
                           orr_error *err)
{
    const dif_cli *c = p;
    *failed = 0;
    return c->bench ? dif_bench_tool(c, device, no_device, err) : dif_check_tool(c, err);
}

static const orr_limit_row dif_limits[] = {
    {"diffraction_point_bytes", DIF_LIMIT_POINT_BYTES,
     "diffraction: the memory of one point of a batch, bytes"},
};

const orr_kind dif_descriptor = {
    .name = DIF_KIND_NAME,
    .summary = "a scatterometry work unit: a periodic target's diffraction spectrum "
               "(docs/diffraction.md)",
    .synopsis = "[-w FILE] [-o FILE] [--npy PREFIX] [OPTIONS]",
    .notes = "The results table (one line a spectrum point: r00, efficiencies, iterations,\n"
             "residual) goes to -o; its format is docs/diffraction.md section 4. The model is\n"
             "scalar: TE light on a line grating at phi = 0; at phi != 0 on a line grating\n"
             "(conical incidence) it is the conical scalar model, not TE (section 1).",
    .options = dif_options,
    .n_options = ORR_ARRAY_LEN(dif_options),
    .limits = dif_limits,
    .n_limits = ORR_ARRAY_LEN(dif_limits),
    .options_size = sizeof(dif_cli),
    .defaults = dif_defaults,
    .parse = dif_parse,
    .mode = dif_mode,
    .tool = dif_tool,
    .plan = dif_job_plan,
    .step = dif_step,
    .report = dif_job_report,
    .free = dif_job_free,
    .checkpoint = dif_job_checkpoint,
    .payload = dif_job_payload,
    .restore = dif_job_restore,
};
