/* The one layer between science code and BOINC. It runs every kind's work
 * unit through one loop (orr_run_kind), and science code asks it for
 * progress reporting, checkpoint timing, critical sections, quit requests
 * and file names; under BOINC it forwards to the client library (through
 * boinc_shim.cpp), standalone or in a --without-boinc build it does the
 * sensible local thing. Science code never calls BOINC directly. */
#ifndef ORRERY_RUNTIME_H
#define ORRERY_RUNTIME_H

#include <stddef.h>

#include "../orrery.h"

typedef struct {
    int standalone;            /* no BOINC client attached */
    char gpu_type[64];         /* "NVIDIA", "ATI", "intel_gpu" or "" */
    int gpu_device_num;        /* -1: none assigned */
    int gpu_opencl_dev_index;  /* -1: none assigned */
    double ncpus;              /* 0: not given */
    double checkpoint_period;  /* seconds; BOINC's default 300 */
    const char *project_preferences;  /* the project's XML preferences, or "" */
} orr_init_data;

/* gpu_app: raise the thread priority as BOINC recommends for GPU apps. */
orr_status orr_runtime_init(int gpu_app, orr_error *err);
int orr_runtime_is_standalone(void);
const orr_init_data *orr_runtime_init_data(void);

/* Logical (open) name -> physical path; unchanged when standalone. */
void orr_runtime_resolve(const char *logical, char *physical, size_t size);

/* Fraction of the whole task done, 0..1. Kept monotone (a smaller value is
 * ignored) and forwarded to the client; standalone on a terminal it also
 * redraws a progress line on stderr (elapsed, percent, time left) unless
 * orr_runtime_show_progress(0) turned that off. */
void orr_runtime_progress(double fraction);
/* A monotonic clock in seconds, for timing work and pacing reports. */
double orr_runtime_seconds(void);
void orr_runtime_show_progress(int on);
/* Erase the terminal progress line before printing results. */
void orr_runtime_progress_end(void);

int orr_runtime_time_to_checkpoint(void);
/* Run by hand, checkpoint every `seconds` (the command line's choice; 0:
 * at every step that can, so tests get a checkpoint whatever the machine's
 * speed; negative: not given); under a client the volunteer's setting
 * stays in charge. */
void orr_runtime_set_checkpoint_period(double seconds);
void orr_runtime_checkpoint_done(void);
void orr_runtime_begin_critical(void);
void orr_runtime_end_critical(void);
/* The client asked us to quit or abort (seen only outside critical sections
 * when BOINC acts directly; checked between work chunks). */
int orr_runtime_quit_requested(void);
/* The client has the task suspended. BOINC pauses the main thread itself;
 * worker threads ask this between tasks and wait. Safe from any thread. */
int orr_runtime_suspended(void);

/* End the process: success (0) or a computation error (non-zero). Under
 * BOINC this is boinc_finish and does not return; standalone it returns the
 * exit code for main to return. */
int orr_runtime_finish(int exit_code);

/* A transient failure (no usable GPU, out of device memory): ask the client
 * to retry later. Standalone it returns exit_code for main to return. */
int orr_runtime_temporary_exit(int delay_s, const char *reason, int exit_code);

/* Runs a kind's work unit with opts on be through the one loop (run.c):
 * plan, restore the checkpoint, step with checkpoints, progress and quit
 * requests between steps, then report once. ORR_QUIT when the client asked
 * to quit; the checkpoint holds the work done. Call after
 * orr_runtime_init. */
struct orr_kind;
struct orr_backend;
orr_status orr_run_kind(const struct orr_kind *kind, const void *opts, struct orr_backend *be,
                        orr_error *err);

#endif
