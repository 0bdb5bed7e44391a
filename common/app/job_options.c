/* The options and checkpoint flags every work-unit kind shares (kind.h).
 * The check of their output files is job_outputs.c's: it resolves names
 * through the runtime, which a tool or test that only parses options
 * should not have to link. */

#include "kind.h"

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
