/* The separation kind end to end: read the inputs; integrate every bundle
 * member's areas through the backend (the long part, checkpointed); then
 * compute all likelihoods (short, not checkpointed), write the output files
 * and print the tags once, at the end.
 *
 * Everything a resumed run needs lives in one plain struct, sep_run_state,
 * saved whole: the member and area being integrated, the position in the
 * grid and the Kahan sums, the finished members' integrals, and whether the
 * tags were printed. The integral is summed in fixed chunks merged in
 * order (separation.h), so continuing from saved sums gives the very same
 * bits, and a resumed run prints exactly the bytes of an uninterrupted one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "../backend.h"
#include "../checkpoint.h"
#include "../io/io.h"
#include "../runtime/runtime.h"
#include "separation.h"

#define RESULTS_FILE "results.txt"
#define CHECKPOINT_FILE "separation_checkpoint"
#define CHECKPOINT_KIND "separation"
#define SEP_MAX_BATCH 4096

/* The checkpoint payload. It is only ever read back by the same app version
 * (the checkpoint header says so), so the struct is saved as it lies in
 * memory; it is zeroed before use so padding is deterministic too. */
typedef struct {
    int32_t member;    /* being integrated; == members once all are done */
    int32_t area;      /* being integrated, within member */
    int32_t printed;   /* the tags are in stderr and the output files exist */
    int32_t members;
    sep_area_sums sums[SEP_MAX_AREAS];   /* member's areas so far */
    sep_result done[SEP_MAX_BUNDLE];     /* integrals of members < member */
} sep_run_state;

typedef struct {
    const sep_run_options *opt;
    orr_backend *be;
    sep_params file;
    sep_model model;
    sep_stars stars;
    sep_setup setup;
    int members;
    double *bg_prob, *st_prob;
    FILE *membership;
    char membership_tmp[4200];
    char membership_path[4096];
    FILE *results;            /* -t copy of the tags */
    char results_tmp[4200];
    char results_path[4096];
    uint64_t identity;        /* work unit identity for the checkpoint */
    int batch;                /* chunks per backend call */
    int min_batch;
    sep_partial *partials;    /* [SEP_MAX_BATCH] */
    char checkpoint_path[4096];
} sep_job;

static void job_free(sep_job *job)
{
    sep_stars_free(&job->stars);
    sep_setup_free(&job->setup);
    free(job->bg_prob);
    free(job->partials);
    free(job->st_prob);
    if (job->membership) {
        fclose(job->membership);
        remove(job->membership_tmp);
    }
    if (job->results) {
        fclose(job->results);
        remove(job->results_tmp);
    }
}

/* Outputs are written to a temporary name and renamed at the end, so a run
 * that fails leaves no partial file behind. */
static orr_status open_output(const char *logical, char *path, size_t pathsz, char *tmp,
                              size_t tmpsz, FILE **f, orr_error *err)
{
    orr_runtime_resolve(logical, path, pathsz);
    snprintf(tmp, tmpsz, "%s.partial", path);
    *f = fopen(tmp, "w");
    if (!*f)
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot create output file", tmp);
    return ORR_OK;
}

static orr_status close_output(FILE **f, const char *tmp, const char *path, orr_error *err)
{
    int bad = ferror(*f) | fclose(*f);
    *f = NULL;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return orr_fail(err, ORR_ERR_WRITE, "%s: cannot write output file", path);
    }
    return ORR_OK;
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

    /* Check every member's parameters before any work starts. */
    for (int m = 0; m < job->members; m++) {
        sep_params member;
        sep_model_consts mc;
        s = prepare_member(job, m, &member, &mc, err);
        if (s != ORR_OK) {
            if (job->members > 1) {
                char inner[sizeof err->message];
                snprintf(inner, sizeof inner, "%s", err->message);
                orr_fail(err, s, "bundle member %d: %s", m, inner);
            }
            return s;
        }
        if (m == 0) {
            s = sep_setup_init(&member, &mc, &job->setup, err);
            if (s != ORR_OK)
                return s;
        }
    }

    orr_runtime_resolve(opt->stars_file, path, sizeof path);
    s = sep_stars_load(path, &job->stars, err);
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
static void report_progress(const sep_job *job, double cells_done, double stars_done)
{
    double cells = (double)job->setup.total_cells * job->members;
    double stars = (double)job->stars.n * job->members;
    orr_runtime_progress((cells_done + stars_done) / (cells + stars));
}

static void save_checkpoint(const sep_job *job, const sep_run_state *st)
{
    orr_error err;
    if (orr_checkpoint_write(job->checkpoint_path, CHECKPOINT_KIND, job->identity, st, sizeof *st,
                             &err) != ORR_OK)
        /* Keep computing: losing a checkpoint costs time, not results. */
        orr_log("warning: %s", err.message);
}

/* A checkpoint that passed its CRC and identity checks is this work unit's;
 * checking the positions anyway keeps a logic error from indexing out of
 * range. */
static int state_fits(const sep_job *job, const sep_run_state *st)
{
    if (st->members != job->members || st->member < 0 || st->member > job->members ||
        st->area < 0 || st->area >= job->setup.n_areas)
        return 0;
    const int next = st->sums[st->area].next_chunk;
    return next >= 0 && next <= sep_area_chunks(&job->setup.areas[st->area]);
}

/* Resume from the checkpoint if there is a usable one for this work unit;
 * anything else starts from zero with one line saying why. */
static void load_checkpoint(const sep_job *job, sep_run_state *st)
{
    void *payload;
    size_t size;
    orr_error err;
    memset(st, 0, sizeof *st);
    st->members = job->members;
    if (job->opt->ignore_checkpoint)
        return;
    orr_status s = orr_checkpoint_read(job->checkpoint_path, CHECKPOINT_KIND, job->identity,
                                       &payload, &size, &err);
    if (s == ORR_ERR_OPEN)
        return;
    if (s == ORR_OK) {
        const sep_run_state *saved = payload;
        if (size != sizeof *st || !state_fits(job, saved)) {
            s = orr_fail(&err, ORR_ERR_CHECKPOINT, "%s: payload does not fit this work unit",
                         job->checkpoint_path);
        } else {
            memcpy(st, saved, sizeof *st);
        }
        free(payload);
    }
    if (s != ORR_OK) {
        orr_log("checkpoint ignored, starting from zero: %s", err.message);
        return;
    }
    if (st->printed)
        orr_log("%s: this work unit finished and reported its results already; "
                "-i computes it again", job->checkpoint_path);
    else if (st->member == job->members)
        orr_log("resuming from checkpoint: integrals done, likelihood next");
    else
        orr_log("resuming from checkpoint: bundle member %d, area %d, chunk %d of %d", st->member,
                st->area, st->sums[st->area].next_chunk, sep_area_chunks(&job->setup.areas[st->area]));
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

/* Batches of chunks go to the backend; between batches the state is
 * consistent, so that is where progress, checkpoints and quits happen. The
 * batch size only adapts to the speed (about BATCH_SECONDS of work each),
 * it does not change the sums. */
#define BATCH_SECONDS 0.2

/* Integrate st->member's areas from the saved position on. */
static orr_status integrate_member(sep_job *job, sep_run_state *st, const sep_model_consts *mc,
                                   orr_error *err)
{
    const sep_setup *s = &job->setup;
    double cells_done = (double)s->total_cells * st->member;
    sep_partial *partials = job->partials;

    for (int a = 0; a < st->area; a++)
        cells_done += cells_in_area(&s->areas[a]);
    for (; st->area < s->n_areas; st->area++) {
        const sep_area_tables *t = &s->areas[st->area];
        sep_area_sums *sum = &st->sums[st->area];
        const int chunks = sep_area_chunks(t);
        for (int k = 0; k < sum->next_chunk; k++)
            cells_done += chunk_cells(t, k);
        while (sum->next_chunk < chunks) {
            int count = job->batch < chunks - sum->next_chunk ? job->batch : chunks - sum->next_chunk;
            double t0 = orr_runtime_seconds();
            orr_status rc = job->be->sep_integral_chunks(job->be, mc, s, st->area, sum->next_chunk,
                                                         count, partials, err);
            if (rc != ORR_OK)
                return rc;
            for (int k = 0; k < count; k++) {
                sep_partial_merge(&sum->sum, &partials[k], mc->n_streams);
                cells_done += chunk_cells(t, sum->next_chunk + k);
            }
            sum->next_chunk += count;
            double spent = orr_runtime_seconds() - t0;
            if (spent < BATCH_SECONDS / 2 && job->batch * 2 <= SEP_MAX_BATCH)
                job->batch *= 2;
            else if (spent > BATCH_SECONDS * 2 && job->batch / 2 >= job->min_batch)
                job->batch /= 2;

            if (orr_runtime_time_to_checkpoint()) {
                save_checkpoint(job, st);
                orr_runtime_checkpoint_done();
            }
            report_progress(job, cells_done, 0);
            if (orr_runtime_quit_requested())
                return ORR_QUIT;
        }
    }
    return ORR_OK;
}

static orr_status likelihood_member(sep_job *job, int member, const sep_model_consts *mc,
                                    sep_result *res, orr_error *err)
{
    const int chunk = 4096;
    const sep_stars *stars = &job->stars;
    const double all_cells = (double)job->setup.total_cells * job->members;
    for (int i = 0; i < stars->n; i += chunk) {
        int end = i + chunk < stars->n ? i + chunk : stars->n;
        orr_status s = job->be->sep_star_probs(job->be, mc, &job->setup, stars, i, end, job->bg_prob,
                                               job->st_prob, err);
        if (s != ORR_OK)
            return s;
        report_progress(job, all_cells, (double)member * stars->n + end);
        if (orr_runtime_quit_requested())
            return ORR_QUIT;
    }
    if (job->membership) {
        fprintf(job->membership, "# bundle member %d: l b r p_background", member);
        for (int j = 0; j < mc->n_streams; j++)
            fprintf(job->membership, " p_stream%d", j + 1);
        fputc('\n', job->membership);
    }
    return sep_likelihood_from_probs(mc, stars, job->bg_prob, job->st_prob, res, job->membership, err);
}

static void print_header(const sep_job *job, FILE *f)
{
    const sep_run_options *opt = job->opt;
    fprintf(f, "<search_application> %s %s %s double %s </search_application>\n", opt->app_name,
            PACKAGE_VERSION, opt->platform, job->be->name);
    if (job->model == SEP_MODEL_V146) {
        fprintf(f, "<number_WUs> %d </number_WUs>\n", job->members);
        fprintf(f, "<number_params_per_WU> %d </number_params_per_WU>\n",
                sep_search_params_per_wu(&job->file, job->model));
    }
}

static void print_tags(const sep_job *job, const sep_run_state *st, FILE *f)
{
    print_header(job, f);
    for (int m = 0; m < job->members; m++)
        sep_report_result(f, &st->done[m], m);
    fflush(f);
}

/* Phase 1: every member's integrals, resumable. */
static orr_status integrate_all(sep_job *job, sep_run_state *st, orr_error *err)
{
    for (; st->member < job->members; st->member++) {
        sep_params member;
        sep_model_consts mc;
        orr_status s = prepare_member(job, st->member, &member, &mc, err);
        if (s == ORR_OK)
            s = integrate_member(job, st, &mc, err);
        if (s == ORR_OK)
            s = sep_finish_integrals(&mc, &job->setup, st->sums, &st->done[st->member], err);
        if (s != ORR_OK)
            return s;
        st->area = 0;
        memset(st->sums, 0, sizeof st->sums);
    }
    return ORR_OK;
}

/* Phase 2: likelihoods (and the membership file) for every member, then
 * the output files. Short, so it is simply redone after a restart. */
static orr_status likelihood_all(sep_job *job, sep_run_state *st, orr_error *err)
{
    for (int m = 0; m < job->members; m++) {
        sep_params member;
        sep_model_consts mc;
        orr_status s = prepare_member(job, m, &member, &mc, err);
        if (s == ORR_OK)
            s = likelihood_member(job, m, &mc, &st->done[m], err);
        if (s != ORR_OK)
            return s;
    }
    orr_status s = ORR_OK;
    if (job->membership)
        s = close_output(&job->membership, job->membership_tmp, job->membership_path, err);
    if (s == ORR_OK && job->results) {
        print_tags(job, st, job->results);
        s = close_output(&job->results, job->results_tmp, job->results_path, err);
    }
    return s;
}

static orr_status open_outputs(sep_job *job, orr_error *err)
{
    const sep_run_options *opt = job->opt;
    orr_status s = ORR_OK;
    if (opt->membership_file)
        s = open_output(opt->membership_file, job->membership_path, sizeof job->membership_path,
                        job->membership_tmp, sizeof job->membership_tmp, &job->membership, err);
    if (s == ORR_OK && opt->write_results_file)
        s = open_output(RESULTS_FILE, job->results_path, sizeof job->results_path, job->results_tmp,
                        sizeof job->results_tmp, &job->results, err);
    return s;
}

orr_status sep_run(const sep_run_options *opt, orr_backend *be, orr_error *err)
{
    sep_job job;
    memset(&job, 0, sizeof job);
    job.opt = opt;
    job.be = be;
    job.min_batch = be->min_batch < 1 ? 1 : be->min_batch > SEP_MAX_BATCH ? SEP_MAX_BATCH : be->min_batch;
    job.batch = job.min_batch;
    orr_runtime_resolve(CHECKPOINT_FILE, job.checkpoint_path, sizeof job.checkpoint_path);

    sep_run_state *st = NULL;
    orr_status s = load_inputs(&job, err);
    if (s == ORR_OK && (!(st = malloc(sizeof *st)) ||
                        !(job.partials = malloc(SEP_MAX_BATCH * sizeof *job.partials))))
        s = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (s == ORR_OK) {
        orr_log("separation: model %s%s%s, %d stream%s, %d area%s, %lld cells, %d stars, "
                "%d bundle member%s",
                sep_model_name(job.model), opt->model.modfit ? " (modfit)" : "",
                opt->model.newbg ? " (newbg)" : "", job.file.n_streams,
                job.file.n_streams == 1 ? "" : "s", job.setup.n_areas,
                job.setup.n_areas == 1 ? "" : "s", job.setup.total_cells, job.stars.n, job.members,
                job.members == 1 ? "" : "s");
        load_checkpoint(&job, st);
    }
    /* A task restarted after it reported its results has nothing left to
     * do: printing them again would duplicate them in stderr. */
    if (s == ORR_OK && !st->printed) {
        double t0 = orr_runtime_seconds();
        s = open_outputs(&job, err);
        if (s == ORR_OK)
            s = integrate_all(&job, st, err);
        const double t_integrals = orr_runtime_seconds();
        if (s == ORR_OK)
            s = likelihood_all(&job, st, err);
        if (s == ORR_OK) {
            orr_runtime_progress(1.0);
            orr_runtime_progress_end();
            const double t_end = orr_runtime_seconds();
            orr_log("separation: finished in %.3f s (integrals %.3f s, likelihood %.3f s)",
                    t_end - t0, t_integrals - t0, t_end - t_integrals);
            /* The tags and the record that they were printed belong
             * together: a quit between them would print them twice. */
            orr_runtime_begin_critical();
            print_tags(&job, st, stderr);
            st->printed = 1;
            save_checkpoint(&job, st);
            orr_runtime_end_critical();
        }
    }
    if (s == ORR_OK && opt->cleanup_checkpoint)
        remove(job.checkpoint_path);
    if (s != ORR_OK)
        orr_runtime_progress_end();
    free(st);
    job_free(&job);
    return s;
}

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
        info->cells = job.setup.total_cells;
        sep_estimate_cost(&job.file, job.stars.n, job.members, &info->cost);
        /* What the CPU app holds at its peak: the stars (positions,
         * probabilities, the decompressed text while parsing), the grid
         * tables, the threads' node tables and the process itself
         * (measured: see workunits/README.md). */
        double tables = 0;
        for (int a = 0; a < job.setup.n_areas; a++)
            tables += (double)job.setup.areas[a].r_steps * job.file.convolve * 2 * sizeof(double);
        info->memory_bytes = 40e6 + job.stars.n * (3.0 * 8 + 8.0 * (1 + job.file.n_streams) + 64.0) +
                             3 * tables;
    }
    job_free(&job);
    return s;
}
