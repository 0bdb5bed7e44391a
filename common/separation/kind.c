/* The separation kind's descriptor (kind.h): its command line (upstream's,
 * docs/separation.md section 9: single-dash -np, and -p followed by the
 * search values, negative numbers included; long options added for
 * people), the --check tool, and the work unit: read the inputs; integrate every bundle
 * member's areas through the backend (the long part, checkpointed); then
 * compute all likelihoods (short, not checkpointed), write the output files
 * and print the tags once, at the end (run by hand again in a finished
 * run's folder: again, from the checkpoint). The runtime's loop
 * (runtime/run.c) drives the steps.
 *
 * Everything a resumed run needs lives in one plain struct, sep_run_state,
 * saved whole: the member and area being integrated, the position in the
 * grid and the Kahan sums, the finished members' integrals, and whether the
 * tags were printed. The integral is summed in fixed chunks merged in
 * order (separation.h), so continuing from saved sums gives the very same
 * bits, and a resumed run prints exactly the bytes of an uninterrupted one. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "../io/io.h"
#include "../kind.h"
#include "../runtime/runtime.h"
#include "ops.h"
#include "separation.h"

#define APP_NAME "orrery_separation"   /* in the result header, as upstream's */
#define RESULTS_FILE "results.txt"
#define CHECKPOINT_FILE "separation_checkpoint"
#define CHECKPOINT_KIND "separation"
#define SEP_MAX_BATCH 4096
#define STAR_CHUNK 4096   /* stars per likelihood step */

/* The checkpoint payload is sep_run_state (separation.h). It is only ever
 * read back by the same app version (the checkpoint header says so), so
 * the struct is saved as it lies in memory; it is zeroed before use so
 * padding is deterministic too. A loaded one is checked field by field
 * (sep_run_state_check) before the run goes on from it. */

/* The kind's options struct: the run options (plan reads them), the
 * search values they point to, and the parser's place. */
typedef struct {
    sep_run_options run;
    double search[SEP_MAX_SEARCH_PARAMS];
    int after_p;   /* numbers are search values from here on */
    int check;     /* --check */
} sep_cli;

typedef struct {
    const sep_run_options *opt;
    orr_backend *be;          /* NULL: checked, not run (sep_check_work_unit) */
    sep_bound_ops ops;        /* the backend's, the reference filling gaps */
    sep_params file;
    sep_model model;
    sep_stars stars;
    sep_setup setup;
    int members;
    sep_work_size size;       /* what the limits were checked on (and --check prints) */
    double *bg_prob, *st_prob;
    orr_output membership;    /* -o FILE */
    orr_output results;       /* -t copy of the tags */
    uint64_t identity;        /* work unit identity for the checkpoint */
    int batch;                /* chunks per backend call */
    int min_batch;
    sep_partial *partials;    /* [SEP_MAX_BATCH] */
    sep_run_state *st;        /* the checkpoint payload */
    /* Where the steps are, beyond the payload: derived from it at the
     * first step, or (the likelihood phase) redone after a restart. */
    int started;              /* outputs open, clock running */
    int mc_member;            /* whose constants mc holds; -1: none */
    sep_model_consts mc;
    double cells_done;        /* integrated so far, for progress */
    int lk_member, lk_next;   /* likelihood: the member and its next star */
    double t0, t_integrals;   /* for the timing line */
} sep_job;

static void job_release(sep_job *job)
{
    sep_stars_free(&job->stars);
    sep_setup_free(&job->setup);
    free(job->bg_prob);
    free(job->partials);
    free(job->st_prob);
    free(job->st);
    orr_output_abort(&job->membership);
    orr_output_abort(&job->results);
}

static void job_free(void *job)
{
    job_release(job);
    free(job);
}

/* Outputs are written to a temporary name and renamed at the end
 * (orr_output), so a run that fails leaves no partial file behind. */
static orr_status open_output(const char *logical, orr_output *o, orr_error *err)
{
    char path[sizeof o->path];
    orr_runtime_resolve(logical, path, sizeof path);
    return orr_output_open(o, path, ".partial", err);
}

/* Before any work: an output that cannot be written fails now, not after
 * the whole computation. */
static orr_status check_outputs(const sep_run_options *opt, orr_error *err)
{
    char path[4096];
    orr_status s = ORR_OK;
    if (opt->membership_file) {
        orr_runtime_resolve(opt->membership_file, path, sizeof path);
        s = orr_output_check(path, err);
    }
    if (s == ORR_OK && opt->write_results_file) {
        orr_runtime_resolve(RESULTS_FILE, path, sizeof path);
        s = orr_output_check(path, err);
    }
    return s;
}

/* A bundle member's failure names the member (one work unit's needs no
 * prefix). */
static orr_status member_error(const sep_job *job, int m, orr_status s, orr_error *err)
{
    if (s == ORR_OK || job->members == 1)
        return s;
    char inner[sizeof err->message];
    snprintf(inner, sizeof inner, "%s", err->message);
    return orr_fail(err, s, "bundle member %d: %s", m, inner);
}

/* Bundle member m's parameters and model constants, from the file and the
 * search values. */
static orr_status prepare_member(const sep_job *job, int m, sep_params *member,
                                 sep_model_consts *mc, orr_error *err)
{
    const sep_run_options *opt = job->opt;
    orr_status s = sep_params_apply_search(&job->file, job->model, opt->search, opt->n_search, m,
                                           member, err);
    if (s == ORR_OK)
        s = sep_model_consts_init(member, &opt->model, job->model, mc, err);
    return s;
}

/* What makes this work unit this one: both input files (hashed as they
 * were read), the search values, the model options and the backend (whose
 * summation order the sums carry). */
static void work_unit_identity(sep_job *job)
{
    const sep_run_options *opt = job->opt;
    const uint64_t files[2] = {job->file.content_hash, job->stars.content_hash};
    uint64_t h = orr_hash64(ORR_HASH64_INIT, files, sizeof files);
    int32_t ints[5] = {opt->n_search, (int32_t)job->model, opt->model.modfit, opt->model.newbg,
                       job->members};
    h = orr_hash64(h, ints, sizeof ints);
    h = orr_hash64(h, opt->search, (size_t)opt->n_search * sizeof *opt->search);
    if (!job->be) {   /* checked, not run (sep_check_work_unit) */
        job->identity = h;
        return;
    }
    h = orr_hash64(h, job->be->name, strlen(job->be->name) + 1);
    if (job->be->variant)
        h = orr_hash64(h, job->be->variant, strlen(job->be->variant));
    job->identity = h;
}

static orr_status load_inputs(sep_job *job, orr_error *err)
{
    const sep_run_options *opt = job->opt;
    char path[4096];

    orr_runtime_resolve(opt->params_file, path, sizeof path);
    orr_status s = sep_params_load(path, &job->file, err);
    if (s != ORR_OK)
        return s;
    job->model = opt->model.model != SEP_MODEL_AUTO ? opt->model.model : job->file.file_model;

    if (opt->np >= 0 && opt->np != opt->n_search)
        return orr_fail(err, ORR_ERR_USAGE,
                        "number of parameters doesn't match: -np says %d but %d value%s follow -p",
                        opt->np, opt->n_search, opt->n_search == 1 ? "" : "s");
    s = sep_search_bundle_size(&job->file, job->model, opt->n_search, &job->members, err);
    if (s != ORR_OK)
        return s;

    /* The grid's limits before any table or star is allocated, then
     * again with the stars (the likelihood's share of the cost). */
    char params_path[4096];
    snprintf(params_path, sizeof params_path, "%s", path);
    s = sep_work_unit_size(&job->file, 0, job->members, &job->size, err);
    if (s == ORR_OK)
        s = sep_work_unit_limits(&job->size, &job->file, params_path, err);
    if (s != ORR_OK)
        return s;

    /* Check every member's parameters before any work starts. */
    for (int m = 0; m < job->members; m++) {
        sep_params member;
        sep_model_consts mc;
        s = member_error(job, m, prepare_member(job, m, &member, &mc, err), err);
        if (s != ORR_OK)
            return s;
        if (m == 0) {
            s = sep_setup_init(&member, &mc, &job->setup, err);
            if (s != ORR_OK)
                return s;
        }
    }

    orr_runtime_resolve(opt->stars_file, path, sizeof path);
    s = sep_stars_load(path, &job->stars, err);
    if (s == ORR_OK)
        s = sep_work_unit_size(&job->file, job->stars.n, job->members, &job->size, err);
    if (s == ORR_OK)
        s = sep_work_unit_limits(&job->size, &job->file, params_path, err);
    if (s == ORR_OK && opt->membership_file)   /* a line a star and member, %.17g values */
        job->size.unit.results_bytes += job->members * (64.0 + job->stars.n * 25.0 *
                                                                   (4 + job->file.n_streams));
    if (s == ORR_OK)
        s = orr_cost_limits(&job->size.unit, params_path, err);
    if (s == ORR_OK)
        s = orr_cost_host_fits(&job->size.unit, params_path, err);
    if (s != ORR_OK)
        return s;
    work_unit_identity(job);

    job->bg_prob = malloc((size_t)job->stars.n * sizeof(double));
    job->st_prob = malloc((size_t)job->stars.n * job->file.n_streams * sizeof(double));
    if (!job->bg_prob || !job->st_prob)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for %d stars", job->stars.n);
    return ORR_OK;
}

/* Progress counts every cell of every member, then every star of every
 * member (the likelihood phase): monotone across members and phases. */
static double fraction_done(const sep_job *job, double cells_done, double stars_done)
{
    double cells = (double)job->setup.total_cells * job->members;
    double stars = (double)job->stars.n * job->members;
    return (cells_done + stars_done) / (cells + stars);
}

static double cells_in_area(const sep_area_tables *t)
{
    return (double)t->r_steps * t->mu_steps * t->nu_steps;
}

static double chunk_cells(const sep_area_tables *t, int k)
{
    int nu_step, mu_begin, mu_end;
    sep_chunk_cells(t, k, &nu_step, &mu_begin, &mu_end);
    return (double)(mu_end - mu_begin) * t->r_steps;
}

static void print_header(const sep_job *job, FILE *f)
{
    fprintf(f, "<search_application> %s %s %s double %s </search_application>\n", APP_NAME,
            PACKAGE_VERSION, ORR_PLATFORM, job->be->name);
    if (job->model == SEP_MODEL_V146) {
        fprintf(f, "<number_WUs> %d </number_WUs>\n", job->members);
        fprintf(f, "<number_params_per_WU> %d </number_params_per_WU>\n",
                sep_search_params_per_wu(&job->file, job->model));
    }
}

static void print_tags(const sep_job *job, FILE *f)
{
    print_header(job, f);
    for (int m = 0; m < job->members; m++)
        sep_report_result(f, &job->st->done[m], m);
    fflush(f);
}

static orr_status open_outputs(sep_job *job, orr_error *err)
{
    const sep_run_options *opt = job->opt;
    orr_status s = ORR_OK;
    if (opt->membership_file)
        s = open_output(opt->membership_file, &job->membership, err);
    if (s == ORR_OK && opt->write_results_file)
        s = open_output(RESULTS_FILE, &job->results, err);
    return s;
}

/* Cells integrated in the state as restored (or zero), for progress. */
static double cells_done_in(const sep_job *job)
{
    const sep_run_state *st = job->st;
    const sep_setup *s = &job->setup;
    double cells = (double)s->total_cells * st->member;
    if (st->member == job->members)
        return cells;
    for (int a = 0; a < st->area; a++)
        cells += cells_in_area(&s->areas[a]);
    const sep_area_tables *t = &s->areas[st->area];
    for (int k = 0; k < st->sums[st->area].next_chunk; k++)
        cells += chunk_cells(t, k);
    return cells;
}

/* The model constants of member m in job->mc. */
static orr_status member_consts(sep_job *job, int m, orr_error *err)
{
    sep_params member;
    if (job->mc_member == m)
        return ORR_OK;
    orr_status s = prepare_member(job, m, &member, &job->mc, err);
    job->mc_member = s == ORR_OK ? m : -1;
    return s;
}

/* Past the finished areas to the next chunk to integrate; a member whose
 * areas are all done gets its integrals and the next member starts. A
 * step ends right after its batch, so a checkpoint holds the position
 * there (an area may be complete in it), as a resumed run expects. */
static orr_status advance_integrals(sep_job *job, orr_error *err)
{
    sep_run_state *st = job->st;
    const sep_setup *s = &job->setup;
    while (st->member < job->members) {
        orr_status rc = member_consts(job, st->member, err);
        if (rc != ORR_OK)
            return rc;
        while (st->area < s->n_areas &&
               st->sums[st->area].next_chunk >= sep_area_chunks(&s->areas[st->area]))
            st->area++;
        if (st->area < s->n_areas)
            return ORR_OK;
        rc = sep_finish_integrals(&job->mc, s, st->sums, &st->done[st->member], err);
        if (rc != ORR_OK)
            return member_error(job, st->member, rc, err);
        st->member++;
        st->area = 0;
        memset(st->sums, 0, sizeof st->sums);
    }
    return ORR_OK;
}

/* Batches of chunks go to the backend; between batches the state is
 * consistent, so that is where progress, checkpoints and quits happen. The
 * batch size only adapts to the speed (about BATCH_SECONDS of work each),
 * it does not change the sums. */
#define BATCH_SECONDS 0.2

static void adapt_batch(sep_job *job, double spent)
{
    if (spent < BATCH_SECONDS / 2 && job->batch * 2 <= SEP_MAX_BATCH)
        job->batch *= 2;
    else if (spent > BATCH_SECONDS * 2 && job->batch / 2 >= job->min_batch)
        job->batch /= 2;
}

/* Phase 1, resumable: one batch of the current member's current area. */
static orr_status integral_step(sep_job *job, orr_step *out, orr_error *err)
{
    sep_run_state *st = job->st;
    const sep_area_tables *t = &job->setup.areas[st->area];
    sep_area_sums *sum = &st->sums[st->area];
    const int64_t left = sep_area_chunks(t) - sum->next_chunk;
    const int count = job->batch < left ? job->batch : (int)left;
    const double t0 = orr_runtime_seconds();
    orr_status s = job->ops.ops.integral_chunks(job->ops.state, &job->mc, &job->setup, st->area,
                                                sum->next_chunk, count, job->partials, err);
    if (s != ORR_OK)
        return s;
    for (int k = 0; k < count; k++) {
        sep_partial_merge(&sum->sum, &job->partials[k], job->mc.n_streams);
        job->cells_done += chunk_cells(t, sum->next_chunk + k);
    }
    sum->next_chunk += count;
    adapt_batch(job, orr_runtime_seconds() - t0);
    out->done = fraction_done(job, job->cells_done, 0);
    out->saveable = 1;
    return ORR_OK;
}

/* Member m's likelihoods (and its part of the membership file) from the
 * probabilities of all its stars. */
static orr_status finish_likelihood(sep_job *job, int m, orr_error *err)
{
    const sep_model_consts *mc = &job->mc;
    if (job->membership.f) {
        fprintf(job->membership.f, "# bundle member %d: l b r p_background", m);
        for (int j = 0; j < mc->n_streams; j++)
            fprintf(job->membership.f, " p_stream%d", j + 1);
        fputc('\n', job->membership.f);
    }
    orr_status s = sep_likelihood_from_probs(mc, &job->stars, job->bg_prob, job->st_prob,
                                             &job->st->done[m], job->membership.f, err);
    return member_error(job, m, s, err);
}

/* Phase 2, short, so it is simply redone after a restart: one chunk of
 * stars of the current member; its likelihoods once all are done. */
static orr_status likelihood_step(sep_job *job, orr_step *out, orr_error *err)
{
    const int m = job->lk_member;
    const sep_stars *stars = &job->stars;
    if (m == 0 && job->lk_next == 0)
        job->t_integrals = orr_runtime_seconds();
    orr_status s = member_consts(job, m, err);
    if (s == ORR_OK && job->lk_next < stars->n) {
        const int end = job->lk_next + STAR_CHUNK < stars->n ? job->lk_next + STAR_CHUNK : stars->n;
        s = job->ops.ops.star_probs(job->ops.state, &job->mc, &job->setup, stars, job->lk_next, end,
                                    job->bg_prob, job->st_prob, err);
        job->lk_next = end;
    }
    if (s != ORR_OK)
        return s;
    out->done = fraction_done(job, (double)job->setup.total_cells * job->members,
                              (double)m * stars->n + job->lk_next);
    if (job->lk_next < stars->n)
        return ORR_OK;
    s = finish_likelihood(job, m, err);
    job->lk_member++;
    job->lk_next = 0;
    out->finished = job->lk_member == job->members;
    return s;
}

static orr_status sep_step(void *p, orr_step *out, orr_error *err)
{
    sep_job *job = p;
    orr_status s = ORR_OK;
    if (!job->started) {
        job->started = 1;
        job->t0 = orr_runtime_seconds();
        job->cells_done = cells_done_in(job);
        s = open_outputs(job, err);
    }
    if (s == ORR_OK)
        s = advance_integrals(job, err);
    if (s != ORR_OK)
        return s;
    return job->st->member < job->members ? integral_step(job, out, err)
                                          : likelihood_step(job, out, err);
}

/* The output files, then the tags; the runtime records in the checkpoint
 * that they were printed, in the same critical section. */
static orr_status sep_report(void *p, orr_error *err)
{
    sep_job *job = p;
    orr_status s = ORR_OK;
    if (job->membership.f)
        s = orr_output_commit(&job->membership, err);
    if (s == ORR_OK && job->results.f) {
        print_tags(job, job->results.f);
        s = orr_output_commit(&job->results, err);
    }
    if (s != ORR_OK)
        return s;
    const double t_end = orr_runtime_seconds();
    orr_log("separation: finished in %.3f s (integrals %.3f s, likelihood %.3f s)",
            t_end - job->t0, job->t_integrals - job->t0, t_end - job->t_integrals);
    print_tags(job, stderr);
    job->st->printed = 1;
    return ORR_OK;
}

/* Run by hand again in a finished run's folder: the tags again, from the
 * checkpoint's results (and results.txt with -t, written the same way).
 * The -o membership file is not: its per-star values are not kept. */
static orr_status sep_report_again(void *p, orr_error *err)
{
    sep_job *job = p;
    if (job->opt->write_results_file) {
        orr_status s = open_output(RESULTS_FILE, &job->results, err);
        if (s != ORR_OK)
            return s;
        print_tags(job, job->results.f);
        s = orr_output_commit(&job->results, err);
        if (s != ORR_OK)
            return s;
    }
    print_tags(job, stderr);
    return ORR_OK;
}

static void sep_checkpoint(const void *p, orr_checkpoint_spec *spec)
{
    const sep_job *job = p;
    spec->file = CHECKPOINT_FILE;
    spec->tag = CHECKPOINT_KIND;
    spec->identity = job->identity;
    spec->ignore_saved = job->opt->ignore_checkpoint;
    spec->remove_at_end = job->opt->cleanup_checkpoint;
}

static const void *sep_payload(const void *p, size_t *size)
{
    const sep_job *job = p;
    *size = sizeof *job->st;
    return job->st;
}

/* One line on where a resumed run goes on from. */
static void log_resume(const sep_job *job, const char *path)
{
    const sep_run_state *st = job->st;
    if (st->printed)
        orr_log("%s: this work unit finished and reported its results already "
                "(-i computes them again)", path);
    else if (st->member == job->members)
        orr_log("resuming from checkpoint: integrals done, likelihood next");
    else
        orr_log("resuming from checkpoint: bundle member %d, area %d, chunk %d of %lld", st->member,
                st->area, st->sums[st->area].next_chunk,
                (long long)sep_area_chunks(&job->setup.areas[st->area]));
}

static orr_status sep_restore(void *p, const void *payload, size_t size, const char *path,
                              int *reported, orr_error *err)
{
    sep_job *job = p;
    if (size != sizeof *job->st)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%s: payload of %zu bytes, this app saves %zu",
                        path, size, sizeof *job->st);
    /* The header says this app version wrote it for this work unit; its
     * fields are checked all the same, since anyone can recompute a CRC
     * and a position outside the grid would read outside the tables or
     * skip cells. */
    if (sep_run_state_check(payload, &job->setup, job->members, job->file.n_streams, err) != ORR_OK) {
        char inner[sizeof err->message];
        snprintf(inner, sizeof inner, "%s", err->message);
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%s: does not fit this work unit: %s", path,
                        inner);
    }
    memcpy(job->st, payload, sizeof *job->st);
    *reported = job->st->printed;
    log_resume(job, path);
    return ORR_OK;
}

static orr_status sep_plan(const void *opts, orr_backend *be, void **out, orr_error *err)
{
    sep_job *job = calloc(1, sizeof *job);
    if (!job)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    const sep_run_options *opt = &((const sep_cli *)opts)->run;
    job->opt = opt;
    job->be = be;
    job->mc_member = -1;
    orr_status s = check_outputs(opt, err);
    if (s == ORR_OK)
        s = sep_ops_of(be, &job->ops, err);
    if (s == ORR_OK) {
        const int mb = job->ops.ops.min_batch ? job->ops.ops.min_batch(job->ops.state) : 1;
        job->min_batch = mb < 1 ? 1 : mb > SEP_MAX_BATCH ? SEP_MAX_BATCH : mb;
        job->batch = job->min_batch;
        s = load_inputs(job, err);
    }
    /* calloc: the payload's padding is zero too */
    if (s == ORR_OK && (!(job->st = calloc(1, sizeof *job->st)) ||
                        !(job->partials = malloc(SEP_MAX_BATCH * sizeof *job->partials))))
        s = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (s != ORR_OK) {
        job_free(job);
        return s;
    }
    job->st->members = job->members;
    orr_log("separation: model %s%s%s, %d stream%s, %d area%s, %lld cells, %d stars, "
            "%d bundle member%s",
            sep_model_name(job->model), opt->model.modfit ? " (modfit)" : "",
            opt->model.newbg ? " (newbg)" : "", job->file.n_streams,
            job->file.n_streams == 1 ? "" : "s", job->setup.n_areas,
            job->setup.n_areas == 1 ? "" : "s", job->setup.total_cells, job->stars.n, job->members,
            job->members == 1 ? "" : "s");
    *out = job;
    return ORR_OK;
}

/* ---- the command line ---- */

enum {
    OPT_PARAMS, OPT_STARS, OPT_MEMBERSHIP, OPT_IGNORE_CKPT, OPT_CLEANUP_CKPT, OPT_RESULTS,
    OPT_MODFIT, OPT_NEWBG, OPT_MODEL, OPT_CHECK, OPT_NP, OPT_P
};

static const orr_option sep_options[] = {
    {"-a", "--parameters", "--astronomy-parameter-file", "FILE", OPT_PARAMS, ORR_TEXT,
     "astronomy parameter file (default astronomy_parameters.txt)"},
    {"-s", "--stars", "--star-points-file", "FILE", OPT_STARS, ORR_TEXT,
     "star catalogue, plain or gzip/zlib-compressed (default stars.txt)"},
    {"-o", "--separation-output", NULL, "FILE", OPT_MEMBERSHIP, ORR_TEXT,
     "write each star's background/stream membership probabilities to FILE"},
    {"-i", "--ignore-checkpoint", NULL, NULL, OPT_IGNORE_CKPT, ORR_TEXT,
     "start from zero, ignoring any checkpoint"},
    {"-c", "--cleanup-checkpoint", NULL, NULL, OPT_CLEANUP_CKPT, ORR_TEXT,
     "remove the checkpoint file on success"},
    {"-t", "--results-file", NULL, NULL, OPT_RESULTS, ORR_TEXT,
     "also write the result tags to results.txt"},
    {"-f", "--modfit", NULL, NULL, OPT_MODFIT, ORR_TEXT,
     "v146: asymmetric magnitude Gaussian (Newby 2011)"},
    {"-y", "--newbg", NULL, NULL, OPT_NEWBG, ORR_TEXT, "v146: broken power-law background"},
    {NULL, "--model", NULL, "NAME", OPT_MODEL, ORR_TEXT,
     "classic or v146 (default: detected from the file)"},
    {NULL, "--check", NULL, NULL, OPT_CHECK, ORR_TEXT,
     "check the work unit (files, search values) and print its size and cost; compute nothing"},
    {"-np", "--num-params", NULL, "N", OPT_NP, ORR_WHOLE(0, SEP_MAX_SEARCH_PARAMS),
     "number of search parameter values that follow -p"},
    {"-p", "--params", NULL, NULL, OPT_P, ORR_TEXT,
     "the search parameter values follow (to the end)"},
};

static void sep_defaults(void *p)
{
    sep_cli *c = p;
    c->run.params_file = "astronomy_parameters.txt";
    c->run.stars_file = "stars.txt";
    c->run.np = -1;
    c->run.search = c->search;
}

static orr_status sep_parse(void *p, const orr_option *o, const orr_opt_value *v, orr_error *err)
{
    sep_cli *c = p;
    sep_run_options *r = &c->run;
    switch (o->id) {
    case OPT_PARAMS: r->params_file = v->text; break;
    case OPT_STARS: r->stars_file = v->text; break;
    case OPT_MEMBERSHIP: r->membership_file = v->text; break;
    case OPT_IGNORE_CKPT: r->ignore_checkpoint = 1; break;
    case OPT_CLEANUP_CKPT: r->cleanup_checkpoint = 1; break;
    case OPT_RESULTS: r->write_results_file = 1; break;
    case OPT_MODFIT: r->model.modfit = 1; break;
    case OPT_NEWBG: r->model.newbg = 1; break;
    case OPT_MODEL:
        if (strcmp(v->text, "classic") == 0)
            r->model.model = SEP_MODEL_CLASSIC;
        else if (strcmp(v->text, "v146") == 0)
            r->model.model = SEP_MODEL_V146;
        else
            return orr_fail(err, ORR_ERR_USAGE, "--model: expected 'classic' or 'v146', found '%s'",
                            v->text);
        break;
    case OPT_CHECK: c->check = 1; break;
    case OPT_NP: r->np = (int)v->number; break;
    case OPT_P: c->after_p = 1; break;
    }
    return ORR_OK;
}

/* Numbers are search values after -p (negative ones look like options);
 * counted past the limit so that the message can say how many came. strtod
 * reads "inf" and "nan" as numbers: refused here, where the word and its
 * place are known, before any file is read. */
static orr_status sep_positional(void *p, const char *word, int *taken, orr_error *err)
{
    sep_cli *c = p;
    double v;
    *taken = 0;
    if (orr_parse_double(word, strlen(word), &v) != 0)
        return ORR_OK;
    if (!c->after_p)
        return orr_fail(err, ORR_ERR_USAGE, "search value '%s' before -p", word);
    if (!isfinite(v))
        return orr_fail(err, ORR_ERR_INPUT,
                        "-p: search value %d is '%s', not a finite number", c->run.n_search + 1,
                        word);
    if (c->run.n_search < SEP_MAX_SEARCH_PARAMS)
        c->search[c->run.n_search] = v;
    c->run.n_search++;
    *taken = 1;
    return ORR_OK;
}

static orr_status sep_parsed(void *p, orr_error *err)
{
    const sep_cli *c = p;
    if (c->run.n_search > SEP_MAX_SEARCH_PARAMS)
        return orr_fail(err, ORR_ERR_USAGE, "too many search values (%d; at most %d)",
                        c->run.n_search, SEP_MAX_SEARCH_PARAMS);
    return ORR_OK;
}

static orr_run_mode sep_mode(const void *p)
{
    return ((const sep_cli *)p)->check ? ORR_RUN_TOOL : ORR_RUN_WORK_UNIT;
}

/* --check: the work unit as the app reads it, as "key value" lines on
 * stdout for the work-unit generator (workunits/orrery-wugen). No BOINC
 * runtime: this runs on the project server. */
static orr_status sep_check_tool(void *p, orr_backend *device, const orr_error *no_device,
                                 int *failed, orr_error *err)
{
    const sep_cli *c = p;
    sep_work_unit_info info;
    orr_status s = sep_check_work_unit(&c->run, &info, err);
    if (s != ORR_OK)
        return s;
    printf("model %s\n", sep_model_name(info.model));
    printf("streams %d\n", info.n_streams);
    printf("bundle_members %d\n", info.members);
    printf("params_per_member %d\n", info.per_wu);
    printf("convolve %d\n", info.convolve);
    printf("areas %d\n", info.n_areas);
    printf("cells %lld\n", info.size.cells);
    printf("stars %d\n", info.n_stars);
    printf("integral_flops %.6e\n", info.size.cost.integral_flops);
    printf("likelihood_flops %.6e\n", info.size.cost.likelihood_flops);
    printf("model_flops %.6e\n", info.size.cost.model_flops);
    printf("table_bytes %.6e\n", info.size.table_bytes);
    printf("memory_bytes %.6e\n", info.size.memory_bytes);
    orr_cost_print(stdout, &info.size.unit);
    *failed = 0;
    return ORR_OK;
}

static const orr_limit_row sep_limits[] = {
    {"separation_cells", SEP_MAX_CELLS, "separation: grid cells, all areas"},
    {"separation_table_bytes", SEP_MAX_TABLE_BYTES, "separation: the grid's tables, bytes"},
    {"separation_model_flops", SEP_MAX_MODEL_FLOPS,
     "separation: (integral + likelihood) x bundle members"},
};

const orr_kind sep_descriptor = {
    .name = "separation",
    .summary = "a MilkyWay@Home separation work unit (tidal-stream likelihood); "
               "upstream's command line",
    .synopsis = "[OPTIONS] [-np N -p VALUE...]",
    .notes = "Results are printed to stderr as upstream's tags (<search_likelihood> ...);\n"
             "under BOINC stderr is the task's stderr.txt.",
    .options = sep_options,
    .n_options = ORR_ARRAY_LEN(sep_options),
    .limits = sep_limits,
    .n_limits = ORR_ARRAY_LEN(sep_limits),
    .options_size = sizeof(sep_cli),
    .defaults = sep_defaults,
    .parse = sep_parse,
    .positional = sep_positional,
    .parsed = sep_parsed,
    .mode = sep_mode,
    .tool = sep_check_tool,
    .plan = sep_plan,
    .step = sep_step,
    .report = sep_report,
    .report_again = sep_report_again,
    .free = job_free,
    .checkpoint = sep_checkpoint,
    .payload = sep_payload,
    .restore = sep_restore,
};

orr_status sep_check_work_unit(const sep_run_options *opt, sep_work_unit_info *info,
                               orr_error *err)
{
    sep_job job;
    memset(&job, 0, sizeof job);
    memset(info, 0, sizeof *info);
    job.opt = opt;
    orr_status s = load_inputs(&job, err);
    if (s == ORR_OK) {
        info->model = job.model;
        info->n_streams = job.file.n_streams;
        info->members = job.members;
        info->per_wu = sep_search_params_per_wu(&job.file, job.model);
        info->convolve = job.file.convolve;
        info->n_areas = job.setup.n_areas;
        info->n_stars = job.stars.n;
        info->size = job.size;   /* the numbers load_inputs checked the limits on */
    }
    job_release(&job);
    return s;
}
