/* The options and checkpoint flags every work-unit kind shares (kind.h),
 * and the one check of their output files before any computing. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "kind.h"
#include "runtime/runtime.h"

int orr_job_option(orr_job_cli *c, const orr_option *o, const orr_opt_value *v)
{
    switch (o->id) {
    case ORR_OPT_WU: c->wu_file = v->text; return 1;
    case ORR_OPT_OUTPUT: c->output = v->text; return 1;
    case ORR_OPT_NPY: c->npy = v->text; return 1;
    case ORR_OPT_IGNORE_CKPT: c->ignore_checkpoint = 1; return 1;
    case ORR_OPT_CLEANUP_CKPT: c->cleanup_checkpoint = 1; return 1;
    case ORR_OPT_CHECK: c->check = 1; return 1;
    default: return 0;
    }
}

void orr_job_checkpoint_spec(const orr_job_cli *c, const char *file, const char *tag,
                             uint64_t identity, orr_checkpoint_spec *spec)
{
    spec->file = file;
    spec->tag = tag;
    spec->identity = identity;
    spec->ignore_saved = c->ignore_checkpoint;
    spec->remove_at_end = c->cleanup_checkpoint;
}

double orr_host_memory(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * size : 0;
}

/* Whether a and b name one file: the same name, or (both existing) the same
 * device and inode, which a symlink or a hard link also gives. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

orr_status orr_job_check_outputs(const orr_job_cli *c, const char *const *more, int n_more,
                                 orr_error *err)
{
    char wu[4096], out[ORR_JOB_MAX_OUTPUTS][4096];
    const char *given[ORR_JOB_MAX_OUTPUTS];
    const int n = n_more + 1;
    if (n_more < 0 || n > ORR_JOB_MAX_OUTPUTS)
        return orr_fail(err, ORR_ERR_INTERNAL, "%d output files: at most %d", n,
                        ORR_JOB_MAX_OUTPUTS);
    orr_runtime_resolve(c->wu_file, wu, sizeof wu);
    orr_runtime_resolve(c->output, out[0], sizeof out[0]);
    given[0] = c->output;
    for (int i = 1; i < n; i++) {
        snprintf(out[i], sizeof out[i], "%s", more[i - 1]);
        given[i] = more[i - 1];
    }
    /* The results replace their file by a rename at the end: the work unit
     * named again as an output would be gone after one run. */
    for (int i = 0; i < n; i++) {
        if (same_file(out[i], wu))
            return orr_fail(err, ORR_ERR_USAGE, "%s: an output names the work unit's file (-w %s): "
                            "it would be overwritten; give another %s", given[i], c->wu_file,
                            i == 0 ? "-o" : "--npy");
        for (int j = 0; j < i; j++)
            if (same_file(out[i], out[j]))
                return orr_fail(err, ORR_ERR_USAGE, "%s and %s: two outputs name one file",
                                given[j], given[i]);
    }
    for (int i = 0; i < n; i++) {
        orr_status s = orr_output_check(out[i], err);
        if (s != ORR_OK)
            return s;
    }
    return ORR_OK;
}
