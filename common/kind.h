/* The contract a kind of work fulfils: one descriptor per kind, listed in
 * the registry (app/kinds.c). The driver parses the command line with the
 * kind's option table, the runtime runs its work unit (runtime/run.c), and
 * neither names a kind. Adding a kind adds its descriptor and one line to
 * the registry; it edits no other kind's files.
 *
 * Two ways to run. A work unit (separation) goes through the runtime's one
 * loop: plan, restore the checkpoint, step until finished with checkpoints,
 * progress and quit requests in between, report once. A tool run by hand
 * (the spectral transforms and self-test, separation's --check) is one
 * call: it is not a BOINC task, so it has no checkpoint or progress to
 * report, and forcing it through plan/step would only add empty ops. A
 * kind says which of the two a command line asks for (mode); a kind that
 * is only a tool leaves the work-unit ops NULL. */
#ifndef ORRERY_KIND_H
#define ORRERY_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "cost.h"

/* ---- the command line ---- */

/* One option. The one parser (app/driver.c) matches the names (a long
 * name also as --name=VALUE), takes the argument and, for whole numbers,
 * checks the range before the kind sees it. */
typedef struct {
    const char *short_name;   /* "-a", or NULL */
    const char *long_name;    /* "--parameters" */
    const char *alias;        /* a second long name, or NULL */
    const char *arg;          /* argument placeholder ("FILE"); NULL: a flag */
    int id;                   /* the kind's own number for it */
    int whole;                /* the argument is a whole number in [min, max] */
    long min, max;
    const char *help;         /* one line for --help */
} orr_option;

/* Table helpers: ORR_TEXT for a flag or a text argument, ORR_WHOLE for a
 * whole-number argument the parser range-checks. */
#define ORR_TEXT 0, 0, 0
#define ORR_WHOLE(lo, hi) 1, (lo), (hi)

typedef struct {
    const char *text;   /* the argument as given; NULL for a flag */
    long number;        /* whole-number options: the argument, in range */
} orr_opt_value;

/* ---- the options every work-unit kind shares ---- */

/* The work unit and results files, a prefix or file for .npy outputs, the
 * checkpoint flags and --check: a kind's options struct holds this as its
 * member `job`, its table lists ORR_JOB_OPTIONS first, and its parse
 * hands every option to orr_job_option before its own. */
typedef struct {
    const char *wu_file, *output, *npy;
    int ignore_checkpoint, cleanup_checkpoint, check;
} orr_job_cli;

enum { ORR_OPT_WU = 1000, ORR_OPT_OUTPUT, ORR_OPT_NPY, ORR_OPT_IGNORE_CKPT, ORR_OPT_CLEANUP_CKPT,
       ORR_OPT_CHECK };

/* The table's rows: the defaults' names (string literals) and what --npy
 * takes and writes. */
#define ORR_JOB_OPTIONS(wu_default, results_default, npy_arg, npy_help)                             \
    {"-w", "--work-unit", NULL, "FILE", ORR_OPT_WU, ORR_TEXT,                                       \
     "the work unit (default " wu_default ")"},                                                    \
    {"-o", "--output", NULL, "FILE", ORR_OPT_OUTPUT, ORR_TEXT,                                      \
     "the results (default " results_default ")"},                                                 \
    {NULL, "--npy", NULL, npy_arg, ORR_OPT_NPY, ORR_TEXT, npy_help},                                \
    {"-i", "--ignore-checkpoint", NULL, NULL, ORR_OPT_IGNORE_CKPT, ORR_TEXT,                        \
     "start from zero, ignoring any checkpoint"},                                                  \
    {"-c", "--cleanup-checkpoint", NULL, NULL, ORR_OPT_CLEANUP_CKPT, ORR_TEXT,                      \
     "remove the checkpoint file on success"},                                                     \
    {NULL, "--check", NULL, NULL, ORR_OPT_CHECK, ORR_TEXT,                                          \
     "check the work unit and print its size and cost; compute nothing"}

/* Applies o to c when it is one of ORR_JOB_OPTIONS (returns 1), else
 * returns 0: the kind's own. */
int orr_job_option(orr_job_cli *c, const orr_option *o, const orr_opt_value *v);

/* Before anything is computed (every work-unit kind's plan calls it as
 * soon as it knows its outputs): the results file (-o, resolved through
 * BOINC) and the n_more further outputs the run will write (.npy paths as
 * the kind writes them) can be written (orr_output_check: nothing is
 * created or truncated, so a checkpoint's run and an earlier results file
 * are left as they are), and none of them is the work unit (-w) or
 * another of them, by name or by device and inode (a symlink, a hard
 * link): ORR_ERR_USAGE (exit 64). An unwritable one is ORR_ERR_WRITE
 * (exit 74) at once, not after the computing. */
#define ORR_JOB_MAX_OUTPUTS 8
orr_status orr_job_check_outputs(const orr_job_cli *c, const char *const *more, int n_more,
                                 orr_error *err);

/* ---- the work unit ---- */

/* What one step did. */
typedef struct {
    double done;      /* fraction of the whole work unit, 0..1 (progress) */
    int finished;     /* nothing left to step: report next */
    int saveable;     /* the state is worth a checkpoint now; 0 in phases that
                         are short and simply redone after a restart */
} orr_step;

/* Where and as what a kind's checkpoint is kept (checkpoint.h). */
typedef struct {
    const char *file;     /* logical name, resolved through BOINC */
    const char *tag;      /* the kind named in the file's header */
    uint64_t identity;    /* the work unit's hash: another's is refused */
    int ignore_saved;     /* start from zero whatever is there */
    int remove_at_end;    /* remove the file after a successful run */
} orr_checkpoint_spec;

typedef enum {
    ORR_RUN_WORK_UNIT,     /* the runtime's loop: checkpoints, progress, BOINC */
    ORR_RUN_TOOL,          /* by hand, on the CPU, no BOINC runtime */
    ORR_RUN_TOOL_DEVICE,   /* by hand, on a GPU app's device where it has one */
    ORR_RUN_TOOL_BACKEND   /* by hand, on the app's backend, whichever (a benchmark) */
} orr_run_mode;

typedef struct orr_kind orr_kind;

struct orr_kind {
    const char *name;        /* the subcommand */
    const char *summary;     /* one line for --help */
    const char *synopsis;    /* after the name in the usage line */
    const char *notes;       /* printed under its options in --help, or NULL */
    const orr_option *options;
    size_t n_options;
    /* The kind's own per-unit limits, beyond cost.h's shared ones: what its
     * plan refuses past (exit 65) and `orrery --limits` prints. */
    const orr_limit_row *limits;
    size_t n_limits;

    /* The kind's options struct: the driver allocates options_size zeroed
     * bytes, defaults fills them (NULL: zero is the default), then parse
     * applies each option given. */
    size_t options_size;
    void (*defaults)(void *opts);
    orr_status (*parse)(void *opts, const orr_option *o, const orr_opt_value *v, orr_error *err);
    /* Offered every word before it is looked up as an option: *taken = 1
     * when it is the kind's (file names, separation's values after -p,
     * negative numbers included). NULL: the kind takes no such words. */
    orr_status (*positional)(void *opts, const char *word, int *taken, orr_error *err);
    /* After the last word: checks across options. NULL: none. */
    orr_status (*parsed)(void *opts, orr_error *err);

    /* What this command line asks for. NULL: always a work unit. */
    orr_run_mode (*mode)(const void *opts);
    /* A tool run: device is the GPU app's backend for ORR_RUN_TOOL_DEVICE,
     * the app's backend (the CPU's too) for ORR_RUN_TOOL_BACKEND, else NULL; no_device says why a device was wanted and not opened
     * (NULL otherwise), its status the class (ORR_ERR_DEVICE: unavailable now;
     * ORR_ERR_DEVICE_UNFIT: never) a tool that needs the device ends with. *failed: the tool ran and found failures (exit 1). */
    orr_status (*tool)(void *opts, orr_backend *device, const orr_error *no_device, int *failed,
                       orr_error *err);

    /* A work unit. plan reads the inputs (errors name file, line and key),
     * sizes the work and makes the job in *job (nothing to free on
     * failure); step advances it by a bounded amount (a fraction of a
     * second); report writes the outputs and the results once and marks the
     * payload as reported, so a restart under a client prints nothing
     * again (run by hand, report_again repeats it). */
    orr_status (*plan)(const void *opts, orr_backend *be, void **job, orr_error *err);
    orr_status (*step)(void *job, orr_step *out, orr_error *err);
    orr_status (*report)(void *job, orr_error *err);
    /* Run by hand again after the report (the checkpoint says so): repeat
     * what the person saw the first time, from the restored payload,
     * without computing. NULL: the results are files already there. Never
     * called under a client (runtime/run.c says why). */
    orr_status (*report_again)(void *job, orr_error *err);
    void (*free)(void *job);

    /* The checkpoint: where, the bytes to save, and their restore. restore
     * validates what was read back (its message names the file, path) and
     * sets *reported when the saved run already reported its results. */
    void (*checkpoint)(const void *job, orr_checkpoint_spec *spec);
    const void *(*payload)(const void *job, size_t *size);
    orr_status (*restore)(void *job, const void *payload, size_t size, const char *path,
                          int *reported, orr_error *err);
};

/* The checkpoint's file, tag and identity, with the flags of c. */
void orr_job_checkpoint_spec(const orr_job_cli *c, const char *file, const char *tag,
                             uint64_t identity, orr_checkpoint_spec *spec);

/* The registry (app/kinds.c): every kind, the default (a command line that
 * names none) first. */
extern const orr_kind *const orr_kinds[];
extern const size_t orr_n_kinds;

#endif
