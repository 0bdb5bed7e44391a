/* The fdtd subcommand: its options, its step (a chunk of time steps sized
 * to take about STEP_SECONDS, the state packed when the runtime says it
 * is time to checkpoint) and its descriptor (common/kind.h). */
#include <stdlib.h>
#include <string.h>

#include "../runtime/runtime.h"
#include "job.h"

#define STEP_SECONDS 0.2

static orr_status fdtd_step(void *p, orr_step *out, orr_error *err)
{
    fdtd_job *job = p;
    const long left = job->wu.steps - job->done;
    const int count = left < job->chunk ? (int)left : job->chunk;
    if (count > 0) {
        const double t0 = orr_runtime_seconds();
        orr_status st = job->ops.ops->steps(job->ctx, job->done + 1, count,
                                            job->series + (size_t)job->done * job->s.n_probes,
                                            job->energy + job->n_energy, err);
        if (st != ORR_OK)
            return st;
        const double t = orr_runtime_seconds() - t0;
        job->seconds += t;
        job->steps_here += count;
        job->done += count;
        job->n_energy = fdtd_energy_count(&job->wu, job->done);
        /* the next chunk: about STEP_SECONDS, growing at most twofold */
        if (t < STEP_SECONDS / 2 && job->chunk < (1 << 20))
            job->chunk *= 2;
        else if (t > 2 * STEP_SECONDS && job->chunk > 1)
            job->chunk /= 2;
    }
    out->done = (double)job->done / job->wu.steps;
    out->finished = job->done >= job->wu.steps;
    out->saveable = 0;
    if (!out->finished && orr_runtime_time_to_checkpoint()) {
        orr_status st = fdtd_job_pack(job, err);
        if (st != ORR_OK)
            return st;
        out->saveable = 1;
    }
    return ORR_OK;
}

/* ---- the command line ---- */

enum { OPT_BENCH };

static const orr_option fdtd_options[] = {
    ORR_JOB_OPTIONS(FDTD_WU_FILE, FDTD_RESULTS_FILE, "PREFIX",
                    "the work unit's snapshot as PREFIX_FIELD.npy (default fdtd_snapshot)"),
    {NULL, "--bench", NULL, "K", OPT_BENCH, ORR_WHOLE(1, 1000000),
     "benchmark: time K steps of the work unit on the app's backend; write nothing"},
};

static void fdtd_defaults(void *p)
{
    fdtd_cli *c = p;
    c->job.wu_file = FDTD_WU_FILE;
    c->job.output = FDTD_RESULTS_FILE;
}

static orr_status fdtd_parse(void *p, const orr_option *o, const orr_opt_value *v, orr_error *err)
{
    fdtd_cli *c = p;
    (void)err;
    if (!orr_job_option(&c->job, o, v) && o->id == OPT_BENCH)
        c->bench = (int)v->number;
    return ORR_OK;
}

static orr_run_mode fdtd_mode(const void *p)
{
    const fdtd_cli *c = p;
    return c->bench ? ORR_RUN_TOOL_BACKEND : c->job.check ? ORR_RUN_TOOL : ORR_RUN_WORK_UNIT;
}

static orr_status fdtd_tool(void *p, orr_backend *device, const orr_error *no_device, int *failed,
                            orr_error *err)
{
    const fdtd_cli *c = p;
    *failed = 0;
    return c->bench ? fdtd_bench_tool(c, device, no_device, err) : fdtd_check_tool(c, err);
}

static const orr_limit_row fdtd_limits[] = {
    {"fdtd_paint_cells", FDTD_LIMIT_PAINT_CELLS,
     "fdtd: the cells the regions' bounding boxes cover together (painting, not checkpointed)"},
};

const orr_kind fdtd_descriptor = {
    .name = FDTD_KIND_NAME,
    .summary = "a 3D FDTD work unit: Yee time stepping with probes, energy and norms (docs/fdtd.md)",
    .synopsis = "[-w FILE] [-o FILE] [OPTIONS]",
    .notes = "The results (probe series, energies, norms, speed) go to -o; their format is\n"
             "docs/fdtd.md section 4.",
    .options = fdtd_options,
    .n_options = ORR_ARRAY_LEN(fdtd_options),
    .limits = fdtd_limits,
    .n_limits = ORR_ARRAY_LEN(fdtd_limits),
    .options_size = sizeof(fdtd_cli),
    .defaults = fdtd_defaults,
    .parse = fdtd_parse,
    .mode = fdtd_mode,
    .tool = fdtd_tool,
    .plan = fdtd_job_plan,
    .step = fdtd_step,
    .report = fdtd_job_report,
    .free = fdtd_job_free,
    .checkpoint = fdtd_job_checkpoint,
    .payload = fdtd_job_payload,
    .restore = fdtd_job_restore,
};
