/* Runtime: BOINC through the shim when built with it, else standalone. */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "threads.h"
#if HAVE_BOINC
#include "boinc_shim.h"
#endif
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

static orr_init_data init_data = {1, "", -1, -1, 0.0, 300.0, ""};
#if HAVE_BOINC
static int using_boinc;
#endif
static double last_checkpoint;
static int own_checkpoint_clock;   /* standalone with --checkpoint-period */

/* Progress: what was last reported, and the terminal line's state. */
static double progress_fraction;
static int progress_line_wanted = 1;
static int progress_line_on;       /* decided at init: standalone, terminal */
static double progress_start, progress_drawn;

#define PROGRESS_REDRAW_S 0.5

double orr_runtime_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Debian's libboinc is built with -ffast-math, whose load-time constructor
 * turns on flush-to-zero and denormals-are-zero for the whole process.
 * Restore IEEE arithmetic so results do not depend on how BOINC was built
 * (threads started later inherit the setting). */
static void restore_ieee_subnormals(void)
{
#if defined(__SSE__) || defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() & ~(_MM_FLUSH_ZERO_ON | 0x0040u /* DAZ */));
#endif
}

orr_status orr_runtime_init(int gpu_app, orr_error *err)
{
    restore_ieee_subnormals();
    last_checkpoint = orr_runtime_seconds();
    progress_start = last_checkpoint;
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
    progress_line_on = progress_line_wanted && init_data.standalone && isatty(STDERR_FILENO);
    orr_pool_pause_while(orr_runtime_suspended);   /* worker threads honour suspend */
    return ORR_OK;
}

int orr_runtime_is_standalone(void) { return init_data.standalone; }
const orr_init_data *orr_runtime_init_data(void) { return &init_data; }

void orr_runtime_resolve(const char *logical, char *physical, size_t size)
{
#if HAVE_BOINC
    /* BOINC opens the file to look for a soft link: a FIFO there would
     * block it forever. A name that is not a regular file is passed on as
     * it is, for the reader to refuse. */
    struct stat st;
    if (using_boinc && !(stat(logical, &st) == 0 && !S_ISREG(st.st_mode))) {
        orr_boinc_resolve(logical, physical, size);
        return;
    }
#endif
    snprintf(physical, size, "%s", logical);
}

void orr_runtime_show_progress(int on) { progress_line_wanted = on; }

static void format_duration(char *out, size_t size, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, size, "%ld:%02ld", t / 60, t % 60);
}

static void draw_progress_line(double now)
{
    char line[128], elapsed[32], left[32] = "?";
    double spent = now - progress_start;
    /* Too early an estimate jumps about; wait for a little evidence. */
    if (progress_fraction > 0.002 && spent > 2)
        format_duration(left, sizeof left, spent * (1 - progress_fraction) / progress_fraction);
    format_duration(elapsed, sizeof elapsed, spent);
    snprintf(line, sizeof line, "%5.1f%%  elapsed %s  left %s", 100 * progress_fraction, elapsed,
             left);
    orr_log_status_line(line);
    progress_drawn = now;
}

void orr_runtime_progress(double fraction)
{
    if (!(fraction >= progress_fraction))   /* also drops NaN */
        return;
    progress_fraction = fraction > 1 ? 1 : fraction;
#if HAVE_BOINC
    if (using_boinc)
        orr_boinc_fraction_done(progress_fraction);
#endif
    if (progress_line_on) {
        double now = orr_runtime_seconds();
        if (now - progress_drawn >= PROGRESS_REDRAW_S)
            draw_progress_line(now);
    }
}

void orr_runtime_progress_end(void)
{
    if (progress_line_on)
        orr_log_status_line(NULL);
}

void orr_runtime_set_checkpoint_period(double seconds)
{
    if (!init_data.standalone || !(seconds >= 0))
        return;
    init_data.checkpoint_period = seconds;
    own_checkpoint_clock = 1;
}

int orr_runtime_time_to_checkpoint(void)
{
#if HAVE_BOINC
    if (using_boinc && !own_checkpoint_clock)
        return orr_boinc_time_to_checkpoint();
#endif
    return orr_runtime_seconds() - last_checkpoint >= init_data.checkpoint_period;
}

void orr_runtime_checkpoint_done(void)
{
    last_checkpoint = orr_runtime_seconds();
#if HAVE_BOINC
    if (using_boinc && !own_checkpoint_clock)
        orr_boinc_checkpoint_completed();
#endif
}

void orr_runtime_begin_critical(void)
{
#if HAVE_BOINC
    if (using_boinc)
        orr_boinc_begin_critical();
#endif
}

void orr_runtime_end_critical(void)
{
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

int orr_runtime_suspended(void)
{
#if HAVE_BOINC
    if (using_boinc && !init_data.standalone)
        return orr_boinc_suspended();
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
