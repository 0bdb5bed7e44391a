/* The spectral kind's descriptors (kind.h): the `spectral` transforms of
 * .npy files and the kernels' `selftest`, both tools run by hand, not
 * BOINC work units (tool.c does the work). In a GPU app both run on the
 * device's kernels (-d/--device, -l/--platform pick it); --cpu keeps to
 * the CPU kernels. The self-test checks the CPU kernels too. */
#include <stdio.h>

#include "../kind.h"
#include "spectral.h"

enum { OPT_OP, OPT_INVERSE, OPT_THREADS, OPT_CPU };

/* spectral's --nthreads is the CPU kernels' own: it stands in for the
 * every-kind option of that name (the CPU app opens no backend here). */
static const orr_option spectral_options[] = {
    {NULL, "--op", NULL, "OP", OPT_OP, ORR_TEXT,
     "c2c, r2c, c2r, dct2, dct3, dht, fft2, conv2d or tridiag"},
    {NULL, "--inverse", NULL, NULL, OPT_INVERSE, ORR_TEXT, "the inverse transform (c2c, fft2)"},
    {NULL, "--nthreads", "--threads", "N", OPT_THREADS, ORR_WHOLE(1, 1024),
     "the CPU kernels' threads (default: every core)"},
    {NULL, "--cpu", NULL, NULL, OPT_CPU, ORR_TEXT, "GPU apps: the CPU kernels, not the device's"},
};

static const orr_option selftest_options[] = {
    {NULL, "--cpu", NULL, NULL, OPT_CPU, ORR_TEXT, "GPU apps: the CPU kernels, not the device's"},
};

/* Both tools' options: selftest's table has only --cpu, so it shares the
 * struct, its parse and its mode. */
typedef struct {
    int cpu_only;
    spec_command_options cmd;
} spectral_cli;

static orr_status spectral_parse(void *p, const orr_option *o, const orr_opt_value *v,
                                 orr_error *err)
{
    spectral_cli *c = p;
    switch (o->id) {
    case OPT_OP: c->cmd.op = v->text; break;
    case OPT_INVERSE: c->cmd.inverse = 1; break;
    case OPT_THREADS: c->cmd.threads = (int)v->number; break;
    case OPT_CPU: c->cpu_only = 1; break;
    }
    return ORR_OK;
}

/* Every word that is not an option is a file ("-" too). */
static orr_status spectral_positional(void *p, const char *word, int *taken, orr_error *err)
{
    spectral_cli *c = p;
    *taken = word[0] != '-' || word[1] == '\0';
    if (!*taken)
        return ORR_OK;
    if (c->cmd.n_files == SPEC_MAX_FILES)
        return orr_fail(err, ORR_ERR_USAGE, "spectral: more than %d files", SPEC_MAX_FILES);
    c->cmd.files[c->cmd.n_files++] = word;
    return ORR_OK;
}

static orr_run_mode spectral_mode(const void *p)
{
    return ((const spectral_cli *)p)->cpu_only ? ORR_RUN_TOOL : ORR_RUN_TOOL_DEVICE;
}

static orr_status spectral_tool(void *p, orr_backend *device, const orr_error *no_device,
                                int *failed, orr_error *err)
{
    const spectral_cli *c = p;
    *failed = 0;
    if (no_device)
        return orr_fail(err, ORR_ERR_DEVICE, "%s (--cpu runs the CPU kernels)", no_device->message);
    return spec_command(&c->cmd, device, err);
}

/* Without a device the CPU kernels are still checked. */
static orr_status selftest_tool(void *p, orr_backend *device, const orr_error *no_device,
                                int *failed, orr_error *err)
{
    if (no_device)
        printf("no device for the device checks: %s\n", no_device->message);
    *failed = spec_selftest(stdout, device, err);
    return ORR_OK;
}

const orr_kind spec_descriptor = {
    .name = "spectral",
    .summary = "spectral kernels on .npy files (by hand; see README)",
    .synopsis = "--op OP [--inverse] [--nthreads N] [--cpu] IN.npy... OUT.npy",
    .options = spectral_options,
    .n_options = ORR_ARRAY_LEN(spectral_options),
    .options_size = sizeof(spectral_cli),
    .parse = spectral_parse,
    .positional = spectral_positional,
    .mode = spectral_mode,
    .tool = spectral_tool,
};

const orr_kind spec_selftest_descriptor = {
    .name = "selftest",
    .summary = "every spectral kernel against the long-double reference; exit 1 on a failure",
    .synopsis = "[--cpu]",
    .options = selftest_options,
    .n_options = ORR_ARRAY_LEN(selftest_options),
    .options_size = sizeof(spectral_cli),
    .parse = spectral_parse,
    .mode = spectral_mode,
    .tool = selftest_tool,
};
