/* The mom subcommand: its options, its step (a piece of the phase: fill
 * columns sized to about STEP_SECONDS, one block column of the
 * factorisation, or the solve) and its descriptor (common/kind.h). */
#include <stdlib.h>
#include <string.h>

#include "../finite.h"
#include "../runtime/runtime.h"
#include "job.h"

#define STEP_SECONDS 0.2
#define MOM_MAX_BACKWARD 30.0

static orr_status fill_step(mom_job *job, orr_error *err)
{
    const int count = job->p.n - job->next < job->chunk ? job->p.n - job->next : job->chunk;
    const double t0 = orr_runtime_seconds();
    orr_status st = job->ops.ops->fill(job->ctx, job->next, count, err);
    const double t = orr_runtime_seconds() - t0;
    job->seconds[MOM_PHASE_FILL] += t;
    job->next += count;
    if (t < STEP_SECONDS / 2 && job->chunk < (1 << 20))
        job->chunk *= 2;
    if (job->next == job->p.n)
        job->phase = MOM_PHASE_FACTOR, job->next = 0;
    return st;
}

static orr_status factor_step(mom_job *job, orr_error *err)
{
    const double t0 = orr_runtime_seconds();
    orr_status st = job->ops.ops->factor(job->ctx, job->next, err);
    job->seconds[MOM_PHASE_FACTOR] += orr_runtime_seconds() - t0;
    job->next += job->ops.ops->block(job->ctx);
    if (job->next >= job->p.n)
        job->phase = MOM_PHASE_SOLVE, job->next = job->p.n;
    return st;
}

static orr_status solve_step(mom_job *job, orr_error *err)
{
    const double t0 = orr_runtime_seconds();
    orr_status st = job->ops.ops->solve(job->ctx, job->current, &job->info, err);
    job->seconds[MOM_PHASE_SOLVE] += orr_runtime_seconds() - t0;
    /* LAPACK's test threshold; single precision reports what it reached */
    if (st == ORR_OK && job->wu.precision == MOM_DOUBLE && !(job->info.backward <= MOM_MAX_BACKWARD))
        st = orr_fail(err, ORR_ERR_NUMERIC,
                      "%s: solve backward_error: %.3g n eps exceeds %g (growth factor %.3g, "
                      "smallest pivot %.3g): the solution is not reported", job->wu.path,
                      job->info.backward, MOM_MAX_BACKWARD, job->info.growth, job->info.min_pivot);
    return st;
}

/* Progress: the fill counted as one factorisation block column's share of
 * the flops would be nothing; weigh the phases by their usual times
 * instead (fill 10%, factorisation 85%, solve 5%). */
static double progress(const mom_job *job)
{
    const double n = job->p.n, f = job->next / n;
    switch (job->phase) {
    case MOM_PHASE_FILL: return 0.10 * f;
    case MOM_PHASE_FACTOR: return 0.10 + 0.85 * (1 - (1 - f) * (1 - f) * (1 - f));
    default: return 0.95;
    }
}

static orr_status mom_step(void *p, orr_step *out, orr_error *err)
{
    mom_job *job = p;
    const mom_phase before = job->phase;
    orr_status st = before == MOM_PHASE_FILL     ? fill_step(job, err)
                    : before == MOM_PHASE_FACTOR ? factor_step(job, err)
                                                 : solve_step(job, err);
    if (st == ORR_QUIT)
        return st;
    if (st != ORR_OK)   /* the backends' errors know no file */
        return orr_error_in_file(err, job->wu.path);
    out->finished = before == MOM_PHASE_SOLVE;
    out->done = out->finished ? 1 : progress(job);
    out->saveable = 0;
    /* offered once the fill is done (at its end, after each block column,
     * after the factorisation) when BOINC's checkpoint period allows: the
     * pack copies the whole matrix */
    if (!out->finished && job->phase != MOM_PHASE_FILL && orr_runtime_time_to_checkpoint()) {
        if ((st = mom_job_pack(job, err)) != ORR_OK)
            return st;
        out->saveable = 1;
    }
    return ORR_OK;
}

/* ---- the command line ---- */

static const orr_option mom_options[] = {
    ORR_JOB_OPTIONS(MOM_WU_FILE, MOM_RESULTS_FILE, "FILE",
                    "the work unit's surface currents as .npy (default mom_current.npy)"),
};

static void mom_defaults(void *p)
{
    mom_cli *c = p;
    c->job.wu_file = MOM_WU_FILE;
    c->job.output = MOM_RESULTS_FILE;
}

static orr_status mom_parse(void *p, const orr_option *o, const orr_opt_value *v, orr_error *err)
{
    mom_cli *c = p;
    (void)err;
    orr_job_option(&c->job, o, v);
    return ORR_OK;
}

static orr_run_mode mom_mode(const void *p)
{
    const mom_cli *c = p;
    return c->job.check ? ORR_RUN_TOOL : ORR_RUN_WORK_UNIT;
}

static orr_status mom_tool(void *p, orr_backend *device, const orr_error *no_device, int *failed,
                           orr_error *err)
{
    (void)device, (void)no_device;
    *failed = 0;
    return mom_check_tool(p, err);
}

const orr_kind mom_descriptor = {
    .name = MOM_KIND_NAME,
    .summary = "a 2D method-of-moments work unit: EFIE scattering, dense complex LU (docs/mom.md)",
    .synopsis = "[-w FILE] [-o FILE] [OPTIONS]",
    .notes = "The results (echo widths, residuals, per-phase times) go to -o; their format is\n"
             "docs/mom.md section 4.",
    .options = mom_options,
    .n_options = ORR_ARRAY_LEN(mom_options),
    .options_size = sizeof(mom_cli),
    .defaults = mom_defaults,
    .parse = mom_parse,
    .mode = mom_mode,
    .tool = mom_tool,
    .plan = mom_job_plan,
    .step = mom_step,
    .report = mom_job_report,
    .free = mom_job_free,
    .checkpoint = mom_job_checkpoint,
    .payload = mom_job_payload,
    .restore = mom_job_restore,
};
