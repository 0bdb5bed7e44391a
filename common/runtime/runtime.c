/* Runtime: BOINC through the shim when built with it, else standalone. */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#if HAVE_BOINC
#include "boinc_shim.h"
#endif

static orr_init_data init_data = {1, "", -1, -1, 0.0, 300.0};
#if HAVE_BOINC
static int using_boinc;
#endif
static double last_checkpoint;
static int critical_depth;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

orr_status orr_runtime_init(int gpu_app, orr_error *err)
{
    last_checkpoint = now_seconds();
#if HAVE_BOINC
    /* The client creates the shared-memory file in the slot directory; its
     * absence means nobody is attached and we run standalone. */
    int standalone = access("boinc_mmap_file", F_OK) != 0;
    int rc = orr_boinc_init(gpu_app, standalone);
    if (rc != 0)
        return orr_fail(err, ORR_ERR_INTERNAL, "boinc_init failed with code %d", rc);
    using_boinc = 1;
    orr_boinc_get_init_data(&init_data);
    init_data.standalone = orr_boinc_is_standalone();
    if (init_data.checkpoint_period <= 0)
        init_data.checkpoint_period = 300.0;
#else
    (void)gpu_app;
    (void)err;
#endif
    return ORR_OK;
}

int orr_runtime_is_standalone(void) { return init_data.standalone; }
const orr_init_data *orr_runtime_init_data(void) { return &init_data; }

void orr_runtime_resolve(const char *logical, char *physical, size_t size)
{
#if HAVE_BOINC
    if (using_boinc) {
        orr_boinc_resolve(logical, physical, size);
        return;
    }
#endif
    snprintf(physical, size, "%s", logical);
}

void orr_runtime_progress(double fraction)
{
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
#if HAVE_BOINC
    if (using_boinc)
        orr_boinc_fraction_done(fraction);
#endif
}

int orr_runtime_time_to_checkpoint(void)
{
#if HAVE_BOINC
    if (using_boinc)
        return orr_boinc_time_to_checkpoint();
#endif
    return now_seconds() - last_checkpoint >= init_data.checkpoint_period;
}

void orr_runtime_checkpoint_done(void)
{
    last_checkpoint = now_seconds();
#if HAVE_BOINC
    if (using_boinc)
        orr_boinc_checkpoint_completed();
#endif
}

void orr_runtime_begin_critical(void)
{
    critical_depth++;
#if HAVE_BOINC
    if (using_boinc)
        orr_boinc_begin_critical();
#endif
}

void orr_runtime_end_critical(void)
{
    if (critical_depth > 0)
        critical_depth--;
#if HAVE_BOINC
    if (using_boinc)
        orr_boinc_end_critical();
#endif
}

int orr_runtime_quit_requested(void)
{
#if HAVE_BOINC
    if (using_boinc)
        return orr_boinc_quit_requested();
#endif
    return 0;
}

int orr_runtime_finish(int exit_code)
{
    fflush(stdout);
    fflush(stderr);
#if HAVE_BOINC
    /* Standalone, boinc_finish only sleeps 2 s and writes a marker file. */
    if (using_boinc && !init_data.standalone)
        orr_boinc_finish(exit_code);
#endif
    return exit_code;
}

int orr_runtime_temporary_exit(int delay_s, const char *reason, int exit_code)
{
    fflush(stdout);
    fflush(stderr);
#if HAVE_BOINC
    if (using_boinc && !init_data.standalone)
        orr_boinc_temporary_exit(delay_s, reason);
#endif
    (void)delay_s;
    (void)reason;
    return exit_code;
}
