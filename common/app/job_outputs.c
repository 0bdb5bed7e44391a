/* The one check of a job's output files before any computing (kind.h's
 * orr_job_check_outputs): no output names the work unit or another
 * output, and each can be written. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io.h"
#include "kind.h"
#include "runtime/runtime.h"

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
