/* Command line -> kind -> run through a backend under the runtime.
 *
 * The separation command line is upstream's (spec section 9) so existing
 * work units run unchanged: single-dash -np, and -p followed by the search
 * values (negative numbers included). Long options are added for people. */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "io/io.h"
#include "runtime/runtime.h"
#include "spectral/spectral.h"

enum opt_id {
    OPT_PARAMS, OPT_STARS, OPT_MEMBERSHIP, OPT_IGNORE_CKPT, OPT_CLEANUP_CKPT, OPT_RESULTS,
    OPT_MODFIT, OPT_NEWBG, OPT_MODEL, OPT_DEVICE, OPT_PLATFORM, OPT_NP, OPT_P, OPT_HELP,
    OPT_VERSION, OPT_NO_PROGRESS, OPT_NTHREADS, OPT_CPU_PATH, OPT_CHECKPOINT_PERIOD,
    OPT_GPU_FREQUENCY, OPT_NON_RESPONSIVE, OPT_CHECK
};

typedef struct {
    const char *short_name;   /* "-a", or NULL */
    const char *long_name;    /* "--parameters" */
    const char *alias;        /* a second long name, or NULL */
    const char *arg;          /* argument placeholder, NULL for flags */
    enum opt_id id;
    const char *help;
} opt_spec;

static const opt_spec options[] = {
    {"-a", "--parameters", "--astronomy-parameter-file", "FILE", OPT_PARAMS,
     "astronomy parameter file (default astronomy_parameters.txt)"},
    {"-s", "--stars", "--star-points-file", "FILE", OPT_STARS,
     "star catalogue, plain or gzip/zlib-compressed (default stars.txt)"},
    {"-o", "--separation-output", NULL, "FILE", OPT_MEMBERSHIP,
     "write each star's background/stream membership probabilities to FILE"},
    {"-i", "--ignore-checkpoint", NULL, NULL, OPT_IGNORE_CKPT, "start from zero, ignoring any checkpoint"},
    {"-c", "--cleanup-checkpoint", NULL, NULL, OPT_CLEANUP_CKPT, "remove the checkpoint file on success"},
    {NULL, "--no-progress", NULL, NULL, OPT_NO_PROGRESS,
     "no progress line on the terminal (it is shown only when run by hand)"},
    {NULL, "--checkpoint-period", NULL, "SECONDS", OPT_CHECKPOINT_PERIOD,
     "run by hand: checkpoint every SECONDS (default 300; under BOINC the volunteer's setting)"},
    {"-t", "--results-file", NULL, NULL, OPT_RESULTS, "also write the result tags to results.txt"},
    {"-f", "--modfit", NULL, NULL, OPT_MODFIT, "v146: asymmetric magnitude Gaussian (Newby 2011)"},
    {"-y", "--newbg", NULL, NULL, OPT_NEWBG, "v146: broken power-law background"},
    {NULL, "--model", NULL, "NAME", OPT_MODEL, "classic or v146 (default: detected from the file)"},
    {"-d", "--device", NULL, "N", OPT_DEVICE, "GPU device number (GPU apps; BOINC's choice wins)"},
    {"-l", "--platform", NULL, "N", OPT_PLATFORM, "OpenCL platform number (OpenCL app)"},
    {"-q", "--gpu-target-frequency", NULL, "HZ", OPT_GPU_FREQUENCY,
     "GPU apps: kernel launches per second, so the desktop stays smooth (default 60)"},
    {"-r", "--non-responsive", NULL, NULL, OPT_NON_RESPONSIVE,
     "GPU apps: launch whole batches (fastest; the display may stutter)"},
    {NULL, "--nthreads", "--threads", "N", OPT_NTHREADS,
     "CPU app: threads (default: BOINC's ncpus, or every core when run by hand)"},
    {NULL, "--cpu-path", NULL, "NAME", OPT_CPU_PATH,
     "CPU app: scalar, sse2, avx2 or avx512 (default: the best this CPU runs)"},
    {NULL, "--check", NULL, NULL, OPT_CHECK,
     "check the work unit (files, search values) and print its size and cost; compute nothing"},
    {"-np", "--num-params", NULL, "N", OPT_NP, "number of search parameter values that follow -p"},
    {"-p", "--params", NULL, NULL, OPT_P, "the search parameter values follow (to the end)"},
    {"-h", "--help", NULL, NULL, OPT_HELP, "show this help"},
    {"-V", "--version", NULL, NULL, OPT_VERSION, "show the version"},
};

static void print_usage(FILE *f, const char *program)
{
    fprintf(f,
            "Usage: %s [separation] [OPTIONS] [-np N -p VALUE...]\n"
            "       %s spectral --op OP [--inverse] [--nthreads N] [--cpu] IN.npy... OUT.npy   (see README)\n"
            "       %s selftest [--cpu]   (GPU apps: -d N, -l N pick the device)\n"
            "Orrery %s: MilkyWay@Home separation (tidal-stream likelihood) and other\n"
            "BOINC work-unit kinds. With no subcommand the app runs a separation work unit,\n"
            "command-line compatible with MilkyWay@Home's separation application.\n\n"
            "Options:\n",
            program, program, program, PACKAGE_VERSION);
    for (size_t i = 0; i < ORR_ARRAY_LEN(options); i++) {
        const opt_spec *o = &options[i];
        char names[64];
        snprintf(names, sizeof names, "%s%s%s%s%s", o->short_name ? o->short_name : "",
                 o->short_name ? ", " : "", o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-28s %s\n", names, o->help);
    }
    fprintf(f,
            "\nResults are printed to stderr as upstream's tags (<search_likelihood> ...);\n"
            "under BOINC stderr is the task's stderr.txt. Exit status: 0 on success,\n"
            "64 bad command line, 65 bad input data, 66 input missing, 70/71/74 internal,\n"
            "memory or write failures.\n");
}

static const opt_spec *find_option(const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    for (size_t i = 0; i < ORR_ARRAY_LEN(options); i++) {
        const opt_spec *o = &options[i];
        if (o->short_name && strcmp(arg, o->short_name) == 0)
            return o;
        const char *names[2] = {o->long_name, o->alias};
        for (int k = 0; k < 2; k++) {
            if (!names[k])
                continue;
            size_t n = strlen(names[k]);
            if (strncmp(arg, names[k], n) == 0) {
                if (arg[n] == '\0')
                    return o;
                if (arg[n] == '=' && o->arg) {
                    *inline_value = arg + n + 1;
                    return o;
                }
            }
        }
    }
    return NULL;
}

static int is_number(const char *s)
{
    double v;
    return orr_parse_double(s, strlen(s), &v) == 0;
}

static orr_status parse_int_arg(const char *opt, const char *value, int lo, int hi, int *out,
                                orr_error *err)
{
    long v;
    if (orr_parse_long(value, strlen(value), &v) != 0 || v < lo || v > hi)
        return orr_fail(err, ORR_ERR_USAGE, "%s: expected a whole number from %d to %d, found '%s'",
                        opt, lo, hi, value);
    *out = (int)v;
    return ORR_OK;
}

typedef struct {
    sep_run_options sep;
    double *search;
    int help, version;
    int check;
    int no_progress;
    int checkpoint_period;
    orr_backend_request request;
} cli;

static orr_status parse_cli(int argc, char **argv, cli *c, orr_error *err)
{
    int i = 1;
    int after_p = 0;

    memset(c, 0, sizeof *c);
    c->sep.params_file = "astronomy_parameters.txt";
    c->sep.stars_file = "stars.txt";
    c->sep.np = -1;
    c->request.device = -1;
    c->request.platform = -1;
    c->search = malloc((size_t)(argc + 1) * sizeof(double));
    if (!c->search)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->sep.search = c->search;

    if (i < argc && strcmp(argv[i], "separation") == 0)
        i++;
    else if (i < argc && argv[i][0] != '-')
        return orr_fail(err, ORR_ERR_USAGE,
                        "unknown subcommand '%s' (known: separation, spectral, selftest)", argv[i]);

    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (after_p && is_number(arg)) {
            orr_parse_double(arg, strlen(arg), &c->search[c->sep.n_search++]);
            continue;
        }
        const char *value;
        const opt_spec *o = find_option(arg, &value);
        if (!o) {
            if (is_number(arg))
                return orr_fail(err, ORR_ERR_USAGE, "search value '%s' before -p", arg);
            return orr_fail(err, ORR_ERR_USAGE, "unknown option '%s' (see --help)", arg);
        }
        if (o->arg && !value) {
            if (i + 1 >= argc)
                return orr_fail(err, ORR_ERR_USAGE, "%s needs an argument (%s)", arg, o->arg);
            value = argv[++i];
        }
        orr_status s = ORR_OK;
        switch (o->id) {
        case OPT_PARAMS: c->sep.params_file = value; break;
        case OPT_STARS: c->sep.stars_file = value; break;
        case OPT_MEMBERSHIP: c->sep.membership_file = value; break;
        case OPT_IGNORE_CKPT: c->sep.ignore_checkpoint = 1; break;
        case OPT_CLEANUP_CKPT: c->sep.cleanup_checkpoint = 1; break;
        case OPT_RESULTS: c->sep.write_results_file = 1; break;
        case OPT_MODFIT: c->sep.model.modfit = 1; break;
        case OPT_NEWBG: c->sep.model.newbg = 1; break;
        case OPT_MODEL:
            if (strcmp(value, "classic") == 0)
                c->sep.model.model = SEP_MODEL_CLASSIC;
            else if (strcmp(value, "v146") == 0)
                c->sep.model.model = SEP_MODEL_V146;
            else
                s = orr_fail(err, ORR_ERR_USAGE, "--model: expected 'classic' or 'v146', found '%s'", value);
            break;
        case OPT_DEVICE: s = parse_int_arg(arg, value, 0, 1023, &c->request.device, err); break;
        case OPT_PLATFORM: s = parse_int_arg(arg, value, 0, 1023, &c->request.platform, err); break;
        case OPT_NO_PROGRESS: c->no_progress = 1; break;
        case OPT_CHECKPOINT_PERIOD:
            s = parse_int_arg(arg, value, 1, 86400, &c->checkpoint_period, err);
            break;
        case OPT_NTHREADS: s = parse_int_arg(arg, value, 1, 1024, &c->request.nthreads, err); break;
        case OPT_CPU_PATH: c->request.cpu_path = value; break;
        case OPT_GPU_FREQUENCY: {
            int hz = 0;
            s = parse_int_arg(arg, value, 1, 1000, &hz, err);
            c->request.gpu_target_frequency = hz;
            break;
        }
        case OPT_NON_RESPONSIVE: c->request.non_responsive = 1; break;
        case OPT_CHECK: c->check = 1; break;
        case OPT_NP: s = parse_int_arg(arg, value, 0, SEP_MAX_SEARCH_PARAMS, &c->sep.np, err); break;
        case OPT_P: after_p = 1; break;
        case OPT_HELP: c->help = 1; break;
        case OPT_VERSION: c->version = 1; break;
        }
        if (s != ORR_OK)
            return s;
    }
    if (c->sep.n_search > SEP_MAX_SEARCH_PARAMS)
        return orr_fail(err, ORR_ERR_USAGE, "too many search values (%d; at most %d)", c->sep.n_search,
                        SEP_MAX_SEARCH_PARAMS);
    return ORR_OK;
}

/* One line for the log and the right ending for the client. */
static int finish_with(orr_status s, const orr_error *err)
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
    orr_log("error: %s", what);
    if (orr_status_is_transient(s))
        return orr_runtime_temporary_exit(60, what, orr_status_exit_code(s));
    return orr_runtime_finish(orr_status_exit_code(s));
}

/* --check: the work unit as the app reads it, as "key value" lines on
 * stdout for the work-unit generator (workunits/orrery-wugen). No BOINC
 * runtime: this runs on the project server. */
static orr_status check_work_unit(const sep_run_options *opt, orr_error *err)
{
    sep_work_unit_info info;
    orr_status s = sep_check_work_unit(opt, &info, err);
    if (s != ORR_OK)
        return s;
    printf("model %s\n", sep_model_name(info.model));
    printf("streams %d\n", info.n_streams);
    printf("bundle_members %d\n", info.members);
    printf("params_per_member %d\n", info.per_wu);
    printf("convolve %d\n", info.convolve);
    printf("areas %d\n", info.n_areas);
    printf("cells %lld\n", info.cells);
    printf("stars %d\n", info.n_stars);
    printf("integral_flops %.6e\n", info.cost.integral_flops);
    printf("likelihood_flops %.6e\n", info.cost.likelihood_flops);
    printf("model_flops %.6e\n", info.cost.model_flops);
    printf("rsc_fpops_est %.6e\n", info.cost.fpops_est);
    printf("memory_bytes %.6e\n", info.memory_bytes);
    return ORR_OK;
}

/* The spectral tools run by hand: transforms of .npy files and the
 * kernels' self-test. In a GPU app both run on the device's kernels
 * (-d/--device, -l/--platform pick it; --cpu keeps to the CPU kernels);
 * the self-test checks the CPU kernels too. */
static int spectral_subcommand(int argc, char **argv, const orr_app_info *app)
{
    orr_error err;
    orr_error_clear(&err);
    const int selftest = strcmp(argv[1], "selftest") == 0;
    orr_backend_request req = {-1, -1, 0, NULL, 0, 0};
    int cpu_only = 0;
    /* the device options are ours; the rest go to the subcommand */
    char **rest = calloc((size_t)argc, sizeof *rest);
    int n_rest = 0;
    if (!rest) {
        fprintf(stderr, "%s: error: out of memory\n", app->program);
        return orr_status_exit_code(ORR_ERR_NOMEM);
    }
    for (int i = 2; i < argc; i++) {
        const int has_value = i + 1 < argc;
        if (has_value && (strcmp(argv[i], "-d") == 0 || strcmp(argv[i], "--device") == 0))
            req.device = atoi(argv[++i]);
        else if (has_value && (strcmp(argv[i], "-l") == 0 || strcmp(argv[i], "--platform") == 0))
            req.platform = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cpu") == 0)
            cpu_only = 1;
        else
            rest[n_rest++] = argv[i];
    }
    orr_backend be;
    memset(&be, 0, sizeof be);
    int opened = 0;
    if (app->gpu_app && !cpu_only && orr_runtime_init(1, &err) == ORR_OK) {
        opened = app->open_backend(&req, &be, &err) == ORR_OK;
        if (!opened && selftest)
            printf("no device for the device checks: %s\n", err.message);
        if (!opened && !selftest) {
            fprintf(stderr, "%s: error: %s (--cpu runs the CPU kernels)\n", app->program,
                    err.message);
            free(rest);
            return orr_status_exit_code(ORR_ERR_DEVICE);
        }
    }
    int rc;
    if (selftest) {
        rc = spec_selftest(stdout, opened ? &be : NULL, &err) ? 1 : 0;
    } else {
        orr_status s = spec_command(n_rest, rest, opened ? &be : NULL, &err);
        if (s != ORR_OK)
            fprintf(stderr, "%s: error: %s\n", app->program, err.message);
        rc = orr_status_exit_code(s);
    }
    if (opened && be.close)
        be.close(&be);
    free(rest);
    return rc;
}

int orr_main(int argc, char **argv, const orr_app_info *app)
{
    cli c;
    orr_error err;
    orr_error_clear(&err);
    if (argc > 1 && (strcmp(argv[1], "spectral") == 0 || strcmp(argv[1], "selftest") == 0))
        return spectral_subcommand(argc, argv, app);

    orr_status s = parse_cli(argc, argv, &c, &err);
    if (s == ORR_OK && (c.help || c.version)) {
        if (c.help)
            print_usage(stdout, app->program);
        else
            printf("%s (Orrery) %s\n", app->program, PACKAGE_VERSION);
        free(c.search);
        return 0;
    }
    if (s != ORR_OK) {
        fprintf(stderr, "%s: %s\n", app->program, err.message);
        fprintf(stderr, "Try '%s --help'.\n", app->program);
        free(c.search);
        return orr_status_exit_code(s);
    }

    if (c.check) {
        s = check_work_unit(&c.sep, &err);
        free(c.search);
        if (s != ORR_OK)
            fprintf(stderr, "%s: error: %s\n", app->program, err.message);
        return orr_status_exit_code(s);
    }

    orr_runtime_show_progress(!c.no_progress);
    s = orr_runtime_init(app->gpu_app, &err);
    orr_runtime_set_checkpoint_period(c.checkpoint_period);
    orr_backend backend;
    memset(&backend, 0, sizeof backend);
    if (s == ORR_OK)
        s = app->open_backend(&c.request, &backend, &err);
    if (s == ORR_OK) {
        c.sep.app_name = "orrery_separation";
        c.sep.platform = ORR_PLATFORM;
        s = sep_run(&c.sep, &backend, &err);
        if (backend.close)
            backend.close(&backend);
    }
    free(c.search);
    return finish_with(s, &err);
}
