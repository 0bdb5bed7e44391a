/* Command line -> kind -> backend -> the runtime's loop (or a tool run by
 * hand). One parser for every kind: the first word names the kind (none:
 * the registry's first, separation, whose command line is upstream's), then
 * every word is offered to the kind's positional words, then looked up in
 * the kind's option table and the table of options every kind shares.
 * Whole-number arguments are range-checked here, so kinds never convert
 * text. The driver alone turns statuses into exit codes and BOINC
 * outcomes. */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cost.h"
#include "io/io.h"
#include "kind.h"
#include "runtime/runtime.h"
#include "threads.h"

enum {
    OPT_DEVICE, OPT_PLATFORM, OPT_GPU_FREQUENCY, OPT_NON_RESPONSIVE, OPT_NTHREADS, OPT_CPU_PATH,
    OPT_CHECKPOINT_PERIOD, OPT_NO_PROGRESS, OPT_HELP, OPT_VERSION,
    OPT_LIMITS
};

/* Options of every kind: the backend request, the runtime's settings and
 * the help. A kind's own option of the same name stands in for one. */
static const orr_option every_kind_options[] = {
    {"-d", "--device", NULL, "N", OPT_DEVICE, ORR_WHOLE(0, 1023),
     "GPU device number (GPU apps; BOINC's choice wins)"},
    {"-l", "--platform", NULL, "N", OPT_PLATFORM, ORR_WHOLE(0, 1023),
     "OpenCL platform number (OpenCL app)"},
    {"-q", "--gpu-target-frequency", NULL, "HZ", OPT_GPU_FREQUENCY, ORR_WHOLE(1, 1000),
     "GPU apps: kernel launches per second, so the desktop stays smooth (default 60)"},
    {"-r", "--non-responsive", NULL, NULL, OPT_NON_RESPONSIVE, ORR_TEXT,
     "GPU apps: launch whole batches (fastest; the display may stutter)"},
    {NULL, "--nthreads", "--threads", "N", OPT_NTHREADS, ORR_WHOLE(1, ORR_MAX_THREADS),
     "CPU app: threads (default: BOINC's ncpus, or every core when run by hand)"},
    {NULL, "--cpu-path", NULL, "NAME", OPT_CPU_PATH, ORR_TEXT,
     "CPU app: scalar, sse2, avx2 or avx512 (default: the best this CPU runs)"},
    {NULL, "--checkpoint-period", NULL, "SECONDS", OPT_CHECKPOINT_PERIOD, ORR_WHOLE(0, 86400),
     "run by hand: checkpoint every SECONDS (default 300; under BOINC the volunteer's setting; "
     "0: at every step that can, for tests)"},
    {NULL, "--no-progress", NULL, NULL, OPT_NO_PROGRESS, ORR_TEXT,
     "no progress line on the terminal (it is shown only when run by hand)"},
    {"-h", "--help", NULL, NULL, OPT_HELP, ORR_TEXT, "show this help"},
    {"-V", "--version", NULL, NULL, OPT_VERSION, ORR_TEXT, "show the version"},
    {NULL, "--limits", NULL, NULL, OPT_LIMITS, ORR_TEXT,
     "print the limits every work unit must stay within (KEY VALUE lines)"},
};

/* The parsed command line: the kind, its own options and everyone's. */
typedef struct {
    const orr_kind *kind;
    void *opts;                       /* kind->options_size bytes */
    orr_backend_request request;
    int checkpoint_period;            /* -1: not given */
    int no_progress, help, version, limits;
    const char *last_option;          /* the latest option word, for messages */
} command;

static void print_options(FILE *f, const orr_option *options, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const orr_option *o = &options[i];
        char names[64];
        snprintf(names, sizeof names, "%s%s%s%s%s", o->short_name ? o->short_name : "",
                 o->short_name ? ", " : "", o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-30s %s\n", names, o->help);
    }
}

/* Every exit code from the status table (status.h), plus a tool's "checks
 * failed" (the self-test), which is no error status. */
static void print_exit_codes(FILE *f)
{
    fprintf(f, "\nExit status:\n");
    for (int code = 0; code < 128; code++) {
        char line[256] = "";
        int transient = 0;
        if (code == 1)
            snprintf(line, sizeof line, "a tool's checks failed (selftest)");
        for (int s = 0; s < ORR_STATUS_COUNT; s++) {
            if (orr_status_exit_code((orr_status)s) != code)
                continue;
            size_t used = strlen(line);
            snprintf(line + used, sizeof line - used, "%s%s", used ? "; " : "",
                     orr_status_message((orr_status)s));
            transient |= code != 0 && orr_status_is_transient((orr_status)s);
        }
        if (line[0])
            fprintf(f, "  %3d  %s%s\n", code, line,
                    transient ? " (under BOINC: a temporary exit, retried later)" : "");
    }
}

static void print_usage(FILE *f, const char *program)
{
    for (size_t k = 0; k < orr_n_kinds; k++)
        fprintf(f, "%s %s %s%s%s %s\n", k ? "      " : "Usage:", program, k ? "" : "[",
                orr_kinds[k]->name, k ? "" : "]", orr_kinds[k]->synopsis);
    fprintf(f,
            "Orrery %s: BOINC science apps, one kind of work per subcommand. With no\n"
            "subcommand the app runs a %s work unit.\n\n"
            "Options of every kind:\n",
            PACKAGE_VERSION, orr_kinds[0]->name);
    print_options(f, every_kind_options, ORR_ARRAY_LEN(every_kind_options));
    for (size_t k = 0; k < orr_n_kinds; k++) {
        const orr_kind *kind = orr_kinds[k];
        fprintf(f, "\n%s: %s\n", kind->name, kind->summary);
        print_options(f, kind->options, kind->n_options);
        if (kind->notes)
            fprintf(f, "%s\n", kind->notes);
    }
    print_exit_codes(f);
}

static const orr_option *find_option(const orr_option *options, size_t n, const char *arg,
                                     const char **inline_value)
{
    *inline_value = NULL;
    for (size_t i = 0; i < n; i++) {
        const orr_option *o = &options[i];
        if (o->short_name && strcmp(arg, o->short_name) == 0)
            return o;
        const char *names[2] = {o->long_name, o->alias};
        for (int k = 0; k < 2; k++) {
            if (!names[k])
                continue;
            size_t len = strlen(names[k]);
            if (strncmp(arg, names[k], len) == 0) {
                if (arg[len] == '\0')
                    return o;
                if (arg[len] == '=' && o->arg) {
                    *inline_value = arg + len + 1;
                    return o;
                }
            }
        }
    }
    return NULL;
}

static void apply_every_kind_option(command *c, const orr_option *o, const orr_opt_value *v)
{
    switch (o->id) {
    case OPT_DEVICE: c->request.device = (int)v->number; break;
    case OPT_PLATFORM: c->request.platform = (int)v->number; break;
    case OPT_GPU_FREQUENCY: c->request.gpu_target_frequency = (double)v->number; break;
    case OPT_NON_RESPONSIVE: c->request.non_responsive = 1; break;
    case OPT_NTHREADS: c->request.nthreads = (int)v->number; break;
    case OPT_CPU_PATH: c->request.cpu_path = v->text; break;
    case OPT_CHECKPOINT_PERIOD: c->checkpoint_period = (int)v->number; break;
    case OPT_NO_PROGRESS: c->no_progress = 1; break;
    case OPT_HELP: c->help = 1; break;
    case OPT_VERSION: c->version = 1; break;
    case OPT_LIMITS: c->limits = 1; break;
    }
}

/* The option's argument: inline (--name=VALUE) or the next word, and for
 * whole numbers converted and range-checked. */
static orr_status option_value(const orr_option *o, const char *word, int argc, char **argv, int *i,
                               orr_opt_value *v, orr_error *err)
{
    if (!o->arg)
        return ORR_OK;
    if (!v->text) {
        if (*i + 1 >= argc)   /* the help line says what it takes (--op: every op) */
            return orr_fail(err, ORR_ERR_USAGE, "%s needs an argument, %s: %s", word, o->arg,
                            o->help);
        v->text = argv[++*i];
    }
    if (o->whole && (orr_parse_long(v->text, strlen(v->text), &v->number) != 0 ||
                     v->number < o->min || v->number > o->max))
        return orr_fail(err, ORR_ERR_USAGE, "%s: expected a whole number from %ld to %ld, found '%s'",
                        word, o->min, o->max, v->text);
    return ORR_OK;
}

/* A word that is no option of the tables and that the kind did not take:
 * a misspelt option, a stray word, or a number the kind refused (one out
 * of a double's range: said so, after the option it follows). */
static orr_status unknown_word(const command *c, const char *word, orr_error *err)
{
    char *end;
    errno = 0;
    const double v = strtod(word, &end);
    if (end != word && *end == '\0') {
        const char *after = c->last_option ? c->last_option : c->kind->name;
        if (errno == ERANGE && (v > 1 || v < -1))
            return orr_fail(err, ORR_ERR_USAGE,
                            "%s: value '%s' is out of range (a double's magnitude is at most "
                            "about 1.8e308)",
                            after, word);
        return orr_fail(err, ORR_ERR_USAGE, "%s: unexpected value '%s'", after, word);
    }
    if (word[0] == '-')
        return orr_fail(err, ORR_ERR_USAGE, "%s: unknown option '%s'", c->kind->name, word);
    return orr_fail(err, ORR_ERR_USAGE, "%s: unexpected argument '%s'", c->kind->name, word);
}

/* argv[*i], and its argument if it takes one. */
static orr_status parse_word(command *c, int argc, char **argv, int *i, orr_error *err)
{
    const orr_kind *kind = c->kind;
    const char *word = argv[*i];
    if (kind->positional) {
        int taken = 0;
        orr_status s = kind->positional(c->opts, word, &taken, err);
        if (s != ORR_OK || taken)
            return s;
    }
    orr_opt_value v = {NULL, 0};
    const orr_option *o = find_option(kind->options, kind->n_options, word, &v.text);
    const int every_kind = !o;
    if (every_kind)
        o = find_option(every_kind_options, ORR_ARRAY_LEN(every_kind_options), word, &v.text);
    if (!o)
        return unknown_word(c, word, err);
    c->last_option = word;
    orr_status s = option_value(o, word, argc, argv, i, &v, err);
    if (s != ORR_OK)
        return s;
    if (!every_kind)
        return kind->parse(c->opts, o, &v, err);
    apply_every_kind_option(c, o, &v);
    return ORR_OK;
}

/* The kind the first word names; a command line that starts with an
 * option is the default kind's. */
static orr_status pick_kind(int argc, char **argv, int *next, const orr_kind **kind, orr_error *err)
{
    *kind = orr_kinds[0];
    *next = 1;
    if (argc < 2 || argv[1][0] == '-')
        return ORR_OK;
    char known[256] = "";
    for (size_t k = 0; k < orr_n_kinds; k++) {
        if (strcmp(argv[1], orr_kinds[k]->name) == 0) {
            *kind = orr_kinds[k];
            *next = 2;
            return ORR_OK;
        }
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "", orr_kinds[k]->name);
    }
    return orr_fail(err, ORR_ERR_USAGE, "unknown subcommand '%s' (known: %s)", argv[1], known);
}

static orr_status parse_command(int argc, char **argv, command *c, orr_error *err)
{
    int i;
    memset(c, 0, sizeof *c);
    c->request.device = -1;
    c->request.platform = -1;
    c->checkpoint_period = -1;
    orr_status s = pick_kind(argc, argv, &i, &c->kind, err);
    if (s != ORR_OK)
        return s;
    c->opts = calloc(1, c->kind->options_size);
    if (!c->opts)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (c->kind->defaults)
        c->kind->defaults(c->opts);
    for (; s == ORR_OK && i < argc; i++)
        s = parse_word(c, argc, argv, &i, err);
    /* --help, --version and --limits need no complete command line */
    if (s == ORR_OK && c->kind->parsed && !c->help && !c->version && !c->limits)
        s = c->kind->parsed(c->opts, err);
    return s;
}

/* One line for the log and the right ending for the client. Every error
 * line of the apps reads "PROGRAM: error: ..." (here, run_tool, orr_main). */
static int finish_with(orr_status s, const orr_error *err, const char *program)
{
    if (s == ORR_OK)
        return orr_runtime_finish(0);
    const char *what = err->message[0] ? err->message : orr_status_message(s);
    if (s == ORR_QUIT) {
        /* Not boinc_finish: that would report success without results.
         * A plain exit makes the client restart the task later. */
        orr_log("quit requested by the client; the checkpoint holds the work done");
        fflush(stderr);
        return 0;
    }
    orr_log("%s: error: %s", program, what);
    if (orr_status_is_transient(s))
        return orr_runtime_temporary_exit(60, what, orr_status_exit_code(s));
    return orr_runtime_finish(orr_status_exit_code(s));
}

/* A work unit, under the BOINC runtime: the runtime's loop on the app's
 * backend. */
static int run_work_unit(const command *c, const orr_app_info *app)
{
    orr_error err;
    orr_error_clear(&err);
    orr_runtime_show_progress(!c->no_progress);
    orr_status s = orr_runtime_init(app->gpu_app, &err);
    orr_runtime_set_checkpoint_period(c->checkpoint_period);
    orr_backend backend;
    memset(&backend, 0, sizeof backend);
    if (s == ORR_OK)
        s = app->open_backend(&c->request, &backend, &err);
    if (s == ORR_OK) {
        s = orr_run_kind(c->kind, c->opts, &backend, &err);
        orr_backend_close(&backend);
    }
    return finish_with(s, &err, app->program);
}

/* A tool run by hand: no checkpoints and no BOINC outcome. In a GPU app a
 * tool that wants the device gets it, and a benchmark gets any app's
 * backend (ORR_RUN_TOOL_BACKEND); the tool decides what a missing one
 * means. The runtime is started only then: the device assignment and
 * priority come from it. */
static int run_tool(const command *c, orr_run_mode mode, const orr_app_info *app)
{
    orr_error err, no_device;
    orr_error_clear(&err);
    orr_error_clear(&no_device);
    orr_backend be;
    memset(&be, 0, sizeof be);
    int tried = 0, opened = 0, failed = 0;
    const int wants = (mode == ORR_RUN_TOOL_DEVICE && app->gpu_app) || mode == ORR_RUN_TOOL_BACKEND;
    if (wants && orr_runtime_init(app->gpu_app, &err) == ORR_OK) {
        tried = 1;
        const orr_status st = app->open_backend(&c->request, &be, &no_device);
        opened = st == ORR_OK;
        no_device.status = st;   /* the class a tool that needs the device ends with */
    }
    orr_status s = c->kind->tool(c->opts, opened ? &be : NULL, tried && !opened ? &no_device : NULL,
                                 &failed, &err);
    if (opened)
        orr_backend_close(&be);
    if (s != ORR_OK) {
        fprintf(stderr, "%s: error: %s\n", app->program, err.message);
        return orr_status_exit_code(s);
    }
    return failed ? 1 : 0;
}

int orr_main(int argc, char **argv, const orr_app_info *app)
{
    command c;
    orr_error err;
    orr_error_clear(&err);
    orr_status s = parse_command(argc, argv, &c, &err);
    int rc = 0;
    if (s != ORR_OK) {
        fprintf(stderr, "%s: error: %s\n", app->program, err.message);
        fprintf(stderr, "Try '%s --help'.\n", app->program);
        rc = orr_status_exit_code(s);
    } else if (c.help) {
        print_usage(stdout, app->program);
    } else if (c.version) {
        printf("%s (Orrery) %s\n", app->program, PACKAGE_VERSION);
    } else if (c.limits) {
        orr_limits_print(stdout);
        for (size_t k = 0; k < orr_n_kinds; k++)
            orr_limit_rows_print(stdout, orr_kinds[k]->limits, orr_kinds[k]->n_limits);
    } else {
        const orr_run_mode mode = c.kind->mode ? c.kind->mode(c.opts) : ORR_RUN_WORK_UNIT;
        rc = mode == ORR_RUN_WORK_UNIT ? run_work_unit(&c, app) : run_tool(&c, mode, app);
    }
    free(c.opts);
    return rc;
}
