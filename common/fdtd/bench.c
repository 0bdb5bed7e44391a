/* `fdtd --bench K`: the time steps' speed on the app's backend
 * (bench/fdtd/bench.sh runs every app side by side). The work unit is
 * planned as a run would plan it, two steps warm the caches and the
 * device, then K steps are timed (the probes read back after each, as in
 * a run). Bytes per cell update: the 18 values the spec counts (each phase
 * reads six fields and writes three), so a figure can be set against the
 * machine's copy bandwidth. Prints `key value` lines; writes no file. */
#include <stdio.h>
#include <stdlib.h>

#include "../runtime/runtime.h"
#include "job.h"

orr_status fdtd_bench_tool(const fdtd_cli *opt, orr_backend *be, const orr_error *no_device,
                           orr_error *err)
{
    if (!be)
        return no_device ? orr_fail(err, no_device->status, "%s", no_device->message)
                         : orr_fail(err, ORR_ERR_INTERNAL, "--bench: no backend");
    void *p;
    orr_status st = fdtd_job_plan(opt, be, &p, err);
    if (st != ORR_OK)
        return st;
    fdtd_job *job = p;
    const int k = opt->bench, warm = 2;
    if (job->wu.steps < warm + k) {
        fdtd_job_free(job);
        return orr_fail(err, ORR_ERR_USAGE, "--bench %d: the work unit has %ld steps, at least %d needed",
                        k, job->wu.steps, warm + k);
    }
    const fdtd_ops *o = job->ops.ops;
    st = o->steps(job->ctx, 1, warm, job->series, job->energy, err);
    const double t0 = orr_runtime_seconds();
    if (st == ORR_OK)
        st = o->steps(job->ctx, 1 + warm, k, job->series + (size_t)warm * job->s.n_probes, job->energy, err);
    const double t = orr_runtime_seconds() - t0;
    if (st == ORR_OK) {
        const double cells = (double)job->s.n[0] * job->s.n[1] * job->s.n[2], rate = cells * k / t;
        printf("backend %s\n", be->name);
        printf("cells %.0f\n", cells);
        printf("precision %s\n", job->s.real_bytes == 4 ? "single" : "double");
        printf("steps %d\n", k);
        printf("seconds %.6e\n", t);
        printf("cell_updates_per_second %.6e\n", rate);
        printf("bytes_per_cell_update %d\n", 18 * job->s.real_bytes);
        printf("GBps %.3f\n", rate * 18 * job->s.real_bytes / 1e9);
    }
    fdtd_job_free(job);
    return st;
}
