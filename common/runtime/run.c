/* The one run loop every kind's work unit goes through, holding the BOINC
 * protocol in one place (as BOINC's samples/example_app does): plan,
 * restore the checkpoint, step until finished (checkpoint when the client
 * says it is time, report progress, honour quit requests), then report
 * once. It names no kind: everything kind-specific comes through the
 * descriptor (kind.h). The driver has started the runtime and opened the
 * backend before (opening needs the device BOINC assigned, which init
 * reads), and turns the status into an exit code afterwards. */
#include <stdio.h>
#include <stdlib.h>

#include "../checkpoint.h"
#include "../kind.h"
#include "runtime.h"

typedef struct {
    const orr_kind *kind;
    void *job;
    orr_checkpoint_spec spec;
    char path[4096];
} run_state;

static void save(const run_state *r)
{
    size_t size;
    const void *payload = r->kind->payload(r->job, &size);
    orr_error err;
    if (orr_checkpoint_write(r->path, r->spec.tag, r->spec.identity, payload, size, &err) != ORR_OK)
        /* Keep computing: losing a checkpoint costs time, not results. */
        orr_log("warning: %s", err.message);
}

/* Resume from the checkpoint if there is a usable one for this work unit;
 * anything else starts from zero with one line saying why. */
static void restore(const run_state *r, int *reported)
{
    void *payload;
    size_t size;
    orr_error err;
    *reported = 0;
    if (r->spec.ignore_saved)
        return;
    orr_status s = orr_checkpoint_read(r->path, r->spec.tag, r->spec.identity, &payload, &size, &err);
    if (s == ORR_ERR_OPEN)
        return;   /* none: the normal first start */
    if (s == ORR_OK) {
        s = r->kind->restore(r->job, payload, size, r->path, reported, &err);
        free(payload);
    }
    if (s != ORR_OK)
        orr_log("checkpoint ignored, starting from zero: %s", err.message);
}

/* Between steps the job is consistent: that is where checkpoints,
 * progress and quits happen. */
static orr_status step_until_finished(const run_state *r, orr_error *err)
{
    for (;;) {
        orr_step st = {0, 0, 0};
        orr_status s = r->kind->step(r->job, &st, err);
        if (s != ORR_OK)
            return s;
        if (st.saveable && orr_runtime_time_to_checkpoint()) {
            save(r);
            orr_runtime_checkpoint_done();
        }
        orr_runtime_progress(st.done);
        if (orr_runtime_quit_requested())
            return ORR_QUIT;
        if (st.finished)
            return ORR_OK;
    }
}

/* The results and the record that they were reported belong together: a
 * quit between them would report them twice after the restart. They are
 * printed before that record is saved, not after: a process killed
 * between the two (a crash, SIGKILL; a quit waits for the critical
 * section) prints the same bytes once more after its restart, where the
 * other order would leave a finished task with no results at all. */
static orr_status report_once(const run_state *r, orr_error *err)
{
    orr_runtime_progress(1.0);
    orr_runtime_progress_end();
    orr_runtime_begin_critical();
    orr_status s = r->kind->report(r->job, err);
    if (s == ORR_OK)
        save(r);
    orr_runtime_end_critical();
    return s;
}

/* A run restarted after it reported. Under a client it has nothing left
 * to do: the slot's stderr.txt (appended across restarts) and result files
 * hold the results, and a second copy would go back to the server with
 * them. Run by hand, whoever runs it again in the same folder wants to see
 * the results again: the kind repeats its report from the checkpoint. */
static orr_status report_again(const run_state *r, orr_error *err)
{
    if (!orr_runtime_is_standalone() || !r->kind->report_again)
        return ORR_OK;
    return r->kind->report_again(r->job, err);
}

static orr_status run_planned(run_state *r, orr_error *err)
{
    int reported;
    r->kind->checkpoint(r->job, &r->spec);
    orr_runtime_resolve(r->spec.file, r->path, sizeof r->path);
    restore(r, &reported);
    orr_status s = ORR_OK;
    if (reported) {
        s = report_again(r, err);
    } else {
        s = step_until_finished(r, err);
        if (s == ORR_OK)
            s = report_once(r, err);
        if (s != ORR_OK)
            orr_runtime_progress_end();
    }
    if (s == ORR_OK && r->spec.remove_at_end)
        remove(r->path);
    return s;
}

orr_status orr_run_kind(const orr_kind *kind, const void *opts, orr_backend *be, orr_error *err)
{
    run_state r = {.kind = kind};
    orr_status s = kind->plan(opts, be, &r.job, err);
    if (s != ORR_OK)
        return s;
    s = run_planned(&r, err);
    kind->free(r.job);
    return s;
}
