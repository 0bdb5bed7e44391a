/* The spectral kind's descriptors (kind.h): the `spectral` transforms of
 * .npy files and the kernels' `selftest`, both tools run by hand, not
 * BOINC work units (tool.c does the work). In a GPU app both run on the
 * device's kernels (-d/--device, -l/--platform pick it); --cpu keeps to
 * the CPU kernels. The self-test checks the CPU kernels too. */
#include <stdio.h>

#include "../kind.h"
#include "spectral.h"

enum { OPT_OP, OPT_INVERSE, OPT_NORM, OPT_THREADS, OPT_CPU };

/* spectral's --nthreads is the CPU kernels' own: it stands in for the
 * every-kind option of that name (the CPU app opens no backend here). */
static const orr_option spectral_options[] = {
    {NULL, "--op", NULL, "OP", OPT_OP, ORR_TEXT,
     "c2c, r2c, c2r, dct2, dct3, dht, fft2, conv2d or tridiag"},
    {NULL, "--inverse", NULL, NULL, OPT_INVERSE, ORR_TEXT,
     "the inverse transform (c2c, fft2; with 1/N, as numpy's ifft)"},
    {NULL, "--norm", NULL, "NORM", OPT_NORM, ORR_TEXT,
     "dct2, dct3: backward (default), ortho or forward, as scipy.fft.dct's norm"},
    {NULL, "--nthreads", "--threads", "N", OPT_THREADS, ORR_WHOLE(1, 1024),
     "the CPU kernels' threads (default: every core)"},
    {NULL, "--cpu", NULL, NULL, OPT_CPU, ORR_TEXT, "GPU apps: the CPU kernels, not the device's"},
};

static const char spectral_notes[] =
    "Files are numpy .npy (float32/64, complex64/128; the dtype sets the precision):\n"
    "  c2c, fft2: complex in, complex out; r2c: real N -> complex N/2 + 1; c2r: complex\n"
    "  N/2 + 1 -> real N (imaginary parts of bins 0 and N/2 ignored, as numpy's irfft);\n"
    "  dct2, dct3, dht: real -> real; conv2d SLICES.npy SHAPE.npy OUT.npy;\n"
    "  tridiag DL.npy D.npy DU.npy RHS.npy OUT.npy (no pivoting: a zero pivot is exit 65).\n"
    "Sizes: powers of two (tridiag: any n); 1D N up to 2^20 on the CPU, 4096 on a GPU\n"
    "(docs/spectral.md section 4).\n"
    "dct2/dct3 are scaled as scipy.fft.dct (default norm backward; builds before --norm\n"
    "returned half of that).";

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
    case OPT_NORM: c->cmd.norm = v->text; break;
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

/* The op, norm, --inverse and files checked before any file is read: a
 * command-line error is exit 64 whatever the files hold. */
static orr_status spectral_parsed(void *p, orr_error *err)
{
    return spec_command_check(&((spectral_cli *)p)->cmd, err);
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
        return orr_fail(err, no_device->status, "%s (--cpu runs the CPU kernels)",
                        no_device->message);
    return spec_command(&c->cmd, device, err);
}

/* Without a device the CPU kernels are still checked, but a GPU app's
 * self-test that could not reach its device has not passed: it ends as
 * `spectral` does there (exit 75 for a device unavailable now, 78 for
 * one that cannot run the kernels). */
static orr_status selftest_tool(void *p, orr_backend *device, const orr_error *no_device,
                                int *failed, orr_error *err)
{
    *failed = spec_selftest(stdout, device, no_device, err);
    if (no_device)
        return orr_fail(err, no_device->status,
                        "%s: the device's kernels were not checked (selftest --cpu checks the CPU "
                        "kernels alone)",
                        no_device->message);
    return ORR_OK;
}

const orr_kind spec_descriptor = {
    .name = "spectral",
    .summary = "spectral kernels on .npy files (by hand; see README)",
    .synopsis = "--op OP [--inverse] [--norm NORM] [--nthreads N] [--cpu] IN.npy... OUT.npy",
    .notes = spectral_notes,
    .options = spectral_options,
    .n_options = ORR_ARRAY_LEN(spectral_options),
    .options_size = sizeof(spectral_cli),
    .parse = spectral_parse,
    .positional = spectral_positional,
    .parsed = spectral_parsed,
    .mode = spectral_mode,
    .tool = spectral_tool,
};

const orr_kind spec_selftest_descriptor = {
    .name = "selftest",
    .summary = "every spectral kernel against the long-double reference; exit 1 on a failure,\n"
               "  75 when a GPU app cannot reach its device, 78 when it can never run the kernels\n"
               "  (the CPU's are checked first)",
    .synopsis = "[--cpu]",
    .options = selftest_options,
    .n_options = ORR_ARRAY_LEN(selftest_options),
    .options_size = sizeof(spectral_cli),
    .parse = spectral_parse,
    .mode = spectral_mode,
    .tool = selftest_tool,
};
