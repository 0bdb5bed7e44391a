/* Launch pacing and host-cost accounting for the GPU backends (device.h). */
#include "device/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"

static void orr_gpu_pacer_end(orr_gpu_pacer *p, const orr_gpu_span *span, int chunks);

double orr_process_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The number in <tag>...</tag> of the project preferences, or 0 if absent. */
static int pref_number(const char *xml, const char *tag, double *out)
{
    char open[64];
    snprintf(open, sizeof open, "<%s>", tag);
    const char *p = xml ? strstr(xml, open) : NULL;
    if (!p)
        return 0;
    char *end;
    double v = strtod(p + strlen(open), &end);
    if (end == p + strlen(open))
        return 0;
    *out = v;
    return 1;
}

void orr_gpu_pacer_init(orr_gpu_pacer *p, const orr_backend_request *req, int slots,
                        int max_chunks)
{
    memset(p, 0, sizeof *p);
    double frequency = ORR_GPU_DEFAULT_FREQUENCY, v;
    const char *prefs = orr_runtime_init_data()->project_preferences;
    if (pref_number(prefs, "gpu_target_frequency", &v) && v >= 1.0 && v <= 1000.0)
        frequency = v;
    if (pref_number(prefs, "gpu_non_responsive", &v))
        p->non_responsive = v != 0.0;
    if (req->gpu_target_frequency > 0.0)
        frequency = req->gpu_target_frequency;
    if (req->non_responsive)
        p->non_responsive = 1;
    p->target_s = 1.0 / frequency;
    p->slots = slots > 0 ? slots : 1;
    p->max_chunks = max_chunks > p->slots ? max_chunks : p->slots;
    p->chunks = p->slots;
}

void orr_gpu_pacer_resize(orr_gpu_pacer *p, const orr_backend_request *req, int slots,
                          int max_chunks)
{
    const orr_gpu_timing before = p->timing;
    orr_gpu_pacer_init(p, req, slots, max_chunks);
    p->timing = before;
}

orr_status orr_gpu_run_chunks(orr_gpu_pacer *p, int count, orr_gpu_launch_fn launch, void *ctx,
                              orr_error *err)
{
    orr_status st = ORR_OK;
    for (int done = 0; st == ORR_OK && done < count;) {
        const int n = orr_gpu_pacer_next(p, count - done);
        orr_gpu_span span;
        orr_gpu_timing_begin(&span);
        orr_runtime_begin_critical();   /* a launch and its read-back: one unit */
        st = launch(ctx, done, n, err);
        orr_runtime_end_critical();
        orr_gpu_pacer_end(p, &span, n);
        done += n;
        if (st == ORR_OK && done < count && orr_runtime_quit_requested())
            return ORR_QUIT;
    }
    return st;
}

int orr_gpu_pacer_next(const orr_gpu_pacer *p, int remaining)
{
    int n = p->non_responsive ? p->max_chunks : p->chunks;
    return remaining < n ? remaining : n;
}

void orr_gpu_timing_begin(orr_gpu_span *span)
{
    span->wall0 = orr_runtime_seconds();
    span->cpu0 = orr_process_cpu_seconds();
}

double orr_gpu_timing_end(orr_gpu_timing *t, const orr_gpu_span *span)
{
    const double spent = orr_runtime_seconds() - span->wall0;
    t->wall_s += spent;
    t->cpu_s += orr_process_cpu_seconds() - span->cpu0;
    /* the first carries the one-time costs (a kernel build, a module
     * load), not the GPU's: it is kept apart */
    if (t->launches == 0)
        t->first_s = spent;
    else if (spent > t->longest_s)
        t->longest_s = spent;
    t->launches++;
    return spent;
}

static void orr_gpu_pacer_end(orr_gpu_pacer *p, const orr_gpu_span *span, int chunks)
{
    const double spent = orr_gpu_timing_end(&p->timing, span);
    if (chunks > 0 && spent > 0.0)
        p->s_per_chunk = spent / chunks;
    /* Only a full-size launch says how long that size takes; the rate it
     * shows sets the next size, in whole waves rounded down (a launch
     * stays under the target rather than around it), clamped so one slow
     * or fast launch moves it at most by a factor of two. */
    if (p->non_responsive || chunks < p->chunks || spent <= 0.0)
        return;
    double want = p->target_s / spent * chunks;
    if (want > 2.0 * p->chunks)
        want = 2.0 * p->chunks;
    if (want < 0.5 * p->chunks)
        want = 0.5 * p->chunks;
    int waves = (int)(want / p->slots);
    if (waves < 1)
        waves = 1;
    int n = waves * p->slots;
    p->chunks = n < p->max_chunks ? n : p->max_chunks;
}

double orr_gpu_pacer_expected_s(const orr_gpu_pacer *p, int chunks)
{
    return p->s_per_chunk * chunks;
}

void orr_gpu_pacer_report(const orr_gpu_pacer *p, const char *what)
{
    char mode[48];
    if (p->non_responsive)
        snprintf(mode, sizeof mode, "non-responsive");
    else
        snprintf(mode, sizeof mode, "%.0f/s target", 1.0 / p->target_s);
    orr_gpu_timing_report(&p->timing, what, mode);
}

void orr_gpu_timing_report(const orr_gpu_timing *t, const char *what, const char *mode)
{
    if (t->launches == 0)
        return;
    orr_log("%s: %ld launches (%s), %.3f s on the device, longest launch %.2f ms "
            "(the first %.2f ms), host CPU %.3f s (%.1f%% of a core)",
            what, t->launches, mode, t->wall_s, 1e3 * t->longest_s, 1e3 * t->first_s, t->cpu_s,
            t->wall_s > 0 ? 100.0 * t->cpu_s / t->wall_s : 0.0);
}
