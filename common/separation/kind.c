/* The separation kind end to end: read the inputs, then for each bundle
 * member integrate every area through the backend, compute the likelihood
 * and print the tags. The loop state (member, area, position, Kahan sums)
 * lives in one struct so checkpoints can save and restore it whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"

#include "../backend.h"
#include "../runtime/runtime.h"
#include "separation.h"

#define RESULTS_FILE "results.txt"

typedef struct {
    int member;
    int area;
    sep_area_sums sums[SEP_MAX_AREAS];
} sep_run_state;

typedef struct {
    const sep_run_options *opt;
    orr_backend *be;
    sep_params file;
    sep_model model;
    sep_stars stars;
    sep_setup setup;
    int members;
    double work_per_member;   /* cells + stars */
    double *bg_prob, *st_prob;
    FILE *membership;
    char membership_tmp[4200];
    char membership_path[4096];
    FILE *results;            /* -t copy of the tags */
    char results_tmp[4200];
    char results_path[4096];
} sep_job;

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void job_free(sep_job *job)
{
    sep_stars_free(&job->stars);
    sep_setup_free(&job->setup);
    free(job->bg_prob);
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

    job->bg_prob = malloc((size_t)job->stars.n * sizeof(double));
    job->st_prob = malloc((size_t)job->stars.n * job->file.n_streams * sizeof(double));
    if (!job->bg_prob || !job->st_prob)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for %d stars", job->stars.n);
    job->work_per_member = (double)job->setup.total_cells + job->stars.n;
    return ORR_OK;
}

static void report_progress(const sep_job *job, int member, double done_in_member)
{
    double total = job->work_per_member * job->members;
    orr_runtime_progress((member * job->work_per_member + done_in_member) / total);
}

static orr_status integrate_member(sep_job *job, sep_run_state *st, const sep_model_consts *mc,
                                   orr_error *err)
{
    const sep_setup *s = &job->setup;
    double cells_before = 0;
    double last_report = 0;

    for (int a = 0; a < st->area; a++)
        cells_before += (double)s->areas[a].r_steps * s->areas[a].mu_steps * s->areas[a].nu_steps;
    for (; st->area < s->n_areas; st->area++) {
        const sep_area_tables *t = &s->areas[st->area];
        sep_area_sums *sum = &st->sums[st->area];
        const double cells_per_column = t->r_steps;
        for (; sum->nu_step < t->nu_steps; sum->nu_step++) {
            for (; sum->mu_step < t->mu_steps; sum->mu_step++) {
                orr_status rc = job->be->sep_integral_columns(job->be, mc, s, st->area, sum->nu_step,
                                                              sum->mu_step, sum->mu_step + 1,
                                                              &sum->bg, sum->st, err);
                if (rc != ORR_OK)
                    return rc;
                double now = seconds_now();
                if (now - last_report > 0.2) {
                    double done = cells_before +
                                  ((double)sum->nu_step * t->mu_steps + sum->mu_step + 1) * cells_per_column;
                    report_progress(job, st->member, done);
                    last_report = now;
                }
                if (orr_runtime_quit_requested())
                    return ORR_QUIT;
            }
            sum->mu_step = 0;
        }
        cells_before += (double)t->r_steps * t->mu_steps * t->nu_steps;
    }
    return ORR_OK;
}

static orr_status likelihood_member(sep_job *job, int member, const sep_model_consts *mc,
                                    sep_result *res, orr_error *err)
{
    const int chunk = 4096;
    const sep_stars *stars = &job->stars;
    for (int i = 0; i < stars->n; i += chunk) {
        int end = i + chunk < stars->n ? i + chunk : stars->n;
        orr_status s = job->be->sep_star_probs(job->be, mc, &job->setup, stars, i, end, job->bg_prob,
                                               job->st_prob, err);
        if (s != ORR_OK)
            return s;
        report_progress(job, member, (double)job->setup.total_cells + end);
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
    fflush(f);
}

orr_status sep_run(const sep_run_options *opt, orr_backend *be, orr_error *err)
{
    sep_job job;
    memset(&job, 0, sizeof job);
    job.opt = opt;
    job.be = be;

    orr_status s = load_inputs(&job, err);
    if (s == ORR_OK && opt->membership_file)
        s = open_output(opt->membership_file, job.membership_path, sizeof job.membership_path,
                        job.membership_tmp, sizeof job.membership_tmp, &job.membership, err);
    if (s == ORR_OK && opt->write_results_file)
        s = open_output(RESULTS_FILE, job.results_path, sizeof job.results_path, job.results_tmp,
                        sizeof job.results_tmp, &job.results, err);
    if (s != ORR_OK) {
        job_free(&job);
        return s;
    }

    orr_log("separation: model %s%s%s, %d stream%s, %d area%s, %lld cells, %d stars, %d bundle member%s",
            sep_model_name(job.model), opt->model.modfit ? " (modfit)" : "",
            opt->model.newbg ? " (newbg)" : "", job.file.n_streams, job.file.n_streams == 1 ? "" : "s",
            job.setup.n_areas, job.setup.n_areas == 1 ? "" : "s", job.setup.total_cells, job.stars.n,
            job.members, job.members == 1 ? "" : "s");
    print_header(&job, stderr);
    if (job.results)
        print_header(&job, job.results);

    sep_run_state st;
    memset(&st, 0, sizeof st);
    double t0 = seconds_now();
    for (; st.member < job.members; st.member++) {
        sep_params member;
        sep_model_consts mc;
        sep_result res;
        memset(&res, 0, sizeof res);
        s = prepare_member(&job, st.member, &member, &mc, err);
        if (s == ORR_OK)
            s = integrate_member(&job, &st, &mc, err);
        if (s == ORR_OK)
            s = sep_finish_integrals(&mc, &job.setup, st.sums, &res, err);
        if (s == ORR_OK)
            s = likelihood_member(&job, st.member, &mc, &res, err);
        if (s != ORR_OK)
            break;
        orr_runtime_begin_critical();
        sep_report_result(stderr, &res, st.member);
        if (job.results)
            sep_report_result(job.results, &res, st.member);
        orr_runtime_end_critical();
        st.area = 0;
        memset(st.sums, 0, sizeof st.sums);
    }
    if (s == ORR_OK) {
        orr_log("separation: finished in %.3f s", seconds_now() - t0);
        report_progress(&job, job.members, 0);
        if (job.membership)
            s = close_output(&job.membership, job.membership_tmp, job.membership_path, err);
        if (s == ORR_OK && job.results)
            s = close_output(&job.results, job.results_tmp, job.results_path, err);
    }
    job_free(&job);
    return s;
}
