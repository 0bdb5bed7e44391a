/* A diffraction work unit's life outside its steps (job.h): plan (read,
 * size, check every point, open the backend's storage), the batch's
 * tables, the checkpoint payload and its validated restore, and the report
 * (the results table, optionally .npy). */
#include "job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../checkpoint.h"
#include "../cost.h"
#include "../runtime/runtime.h"

#define PAYLOAD_VERSION 1
#define DIF_BATCH_BYTES (2.0 * 1024 * 1024 * 1024)   /* what a batch may take by default */
#define DIF_MAX_BATCH 256

void dif_job_batch_release(dif_job *job)
{
    for (int b = 0; b < job->capacity; b++)
        dif_point_free(&job->pt[b]);
    job->in_batch = 0;
}

/* Tables and contrast spectra for points first..first+n-1 (the spectra
 * once per wavelength: the points run wavelength-major). */
orr_status dif_job_batch_prepare(dif_job *job, int first, int n, dif_batch *b, orr_error *err)
{
    const size_t per = (size_t)job->s.nz * job->s.fft_x * job->s.fft_y;
    const int per_lambda = job->wu.n_theta * job->wu.n_phi;
    int last_lambda = -1, n_spectra = 0;
    orr_status st = ORR_OK;
    for (int i = 0; st == ORR_OK && i < n; i++) {
        const int p = first + i, lambda = p / per_lambda;
        job->points[i] = p;
        st = dif_point_init(&job->wu, &job->s, p, &job->pt[i], err);
        if (st == ORR_OK && lambda != last_lambda) {
            st = dif_contrast_spectra(&job->wu, &job->s, &job->contrast, job->wu.wavelengths[lambda],
                                      job->be ? job->be->cpu_isa : ORR_CPU_BEST,
                                      job->spectra + per * n_spectra, err);
            last_lambda = lambda;
            n_spectra++;
        }
        job->spectrum_of[i] = n_spectra - 1;
    }
    b->n = n;
    b->points = job->points;
    b->pt = job->pt;
    b->n_spectra = n_spectra;
    b->spectra = job->spectra;
    b->spectrum_of = job->spectrum_of;
    return st;
}

/* ---- the payload ---- */

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static orr_status payload_alloc(dif_job *job, orr_error *err)
{
    const size_t np = (size_t)job->s.n_points, nm = (size_t)job->s.n_modes;
    const size_t head = align8(sizeof(dif_ckpt_head));
    const size_t res = align8(np * sizeof(dif_point_result));
    const size_t rt = np * nm * sizeof(double);
    const size_t states = (size_t)job->capacity * sizeof(dif_solve_state);
    job->fixed_size = head + res + 2 * rt + states;
    job->payload = calloc(1, job->fixed_size);   /* zeroed: padding is deterministic */
    if (!job->payload)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the results (%zu bytes)",
                        job->fixed_size);
    job->head = (dif_ckpt_head *)job->payload;
    job->res = (dif_point_result *)(job->payload + head);
    job->R = (double *)(job->payload + head + res);
    job->T = (double *)(job->payload + head + res + rt);
    job->saved = (dif_solve_state *)(job->payload + head + res + 2 * rt);
    job->vectors = NULL;
    job->head->version = PAYLOAD_VERSION;
    job->head->n_points = job->s.n_points;
    job->head->n_modes = job->s.n_modes;
    job->head->unknowns = job->s.unknowns;
    return ORR_OK;
}

orr_status dif_job_payload_reserve(dif_job *job, int running, orr_error *err)
{
    const size_t need = (size_t)running * job->sv.saved_vectors * job->s.unknowns * sizeof(double complex);
    if (need <= job->vector_room)
        return ORR_OK;
    unsigned char *p = realloc(job->payload, job->fixed_size + need);
    if (!p)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for a checkpoint (%zu bytes)",
                        job->fixed_size + need);
    const ptrdiff_t moved = p - job->payload;
    job->payload = p;
    job->head = (dif_ckpt_head *)p;
    job->res = (dif_point_result *)((unsigned char *)job->res + moved);
    job->R = (double *)((unsigned char *)job->R + moved);
    job->T = (double *)((unsigned char *)job->T + moved);
    job->saved = (dif_solve_state *)((unsigned char *)job->saved + moved);
    job->vectors = (double complex *)(p + job->fixed_size);
    job->vector_room = need;
    return ORR_OK;
}

const void *dif_job_payload(const void *p, size_t *size)
{
    const dif_job *job = p;
    *size = job->fixed_size + (size_t)job->head->running * job->sv.saved_vectors * job->s.unknowns *
                                  sizeof(double complex);
    return job->payload;
}

void dif_job_checkpoint(const void *p, orr_checkpoint_spec *spec)
{
    const dif_job *job = p;
    orr_job_checkpoint_spec(&job->opt->job, DIF_CHECKPOINT_FILE, DIF_KIND_NAME, job->identity, spec);
}

/* ---- restore: every field checked against this work unit ---- */

static orr_status check_results(const dif_job *job, const dif_ckpt_head *h,
                                const dif_point_result *res, orr_error *err)
{
    for (int p = 0; p < h->n_points; p++) {
        const int done = res[p].status != DIF_POINT_PENDING;
        if (res[p].status < DIF_POINT_PENDING || res[p].status >= DIF_POINT_STATUSES)
            return orr_fail(err, ORR_ERR_CHECKPOINT, "point %d has status %d", p, res[p].status);
        if (p < h->next_point && !done)
            return orr_fail(err, ORR_ERR_CHECKPOINT, "point %d of a finished batch is not done", p);
        if (p >= h->next_point + h->batch_n && done)
            return orr_fail(err, ORR_ERR_CHECKPOINT, "point %d is done before its batch", p);
        if (done && (res[p].iterations < 0 || res[p].iterations > job->wu.solver.max_iterations ||
                     !isfinite(res[p].r00[0]) || !isfinite(res[p].r00[1])))
            return orr_fail(err, ORR_ERR_CHECKPOINT, "point %d's results are out of range", p);
    }
    return ORR_OK;
}

static orr_status check_states(const dif_job *job, const dif_ckpt_head *h,
                               const dif_solve_state *st, orr_error *err)
{
    int running = 0;
    for (int b = 0; b < h->batch_n; b++) {
        const dif_solve_state *s = &st[b];
        if (s->point != h->next_point + b || s->status < DIF_RUNNING || s->status > DIF_STOPPED ||
            s->iterations < 0 || s->iterations > job->wu.solver.max_iterations ||
            s->restarts < 0 || s->restarts > job->wu.solver.max_iterations ||
            !(s->norm_b > 0) || !isfinite(s->norm_b) || !isfinite(s->residual) ||
            !isfinite(s->rho[0] + s->rho[1] + s->alpha[0] + s->alpha[1] + s->omega[0] +
                      s->omega[1]))
            return orr_fail(err, ORR_ERR_CHECKPOINT, "solver state %d does not fit", b);
        running += s->status == DIF_RUNNING;
    }
    if (running != h->running)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%d running points, the head says %d", running,
                        h->running);
    return ORR_OK;
}

static orr_status check_payload(const dif_job *job, const unsigned char *payload, size_t size,
                                orr_error *err)
{
    dif_ckpt_head h;
    if (size < job->fixed_size)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%zu bytes, at least %zu expected", size,
                        job->fixed_size);
    memcpy(&h, payload, sizeof h);
    if (h.version != PAYLOAD_VERSION || h.n_points != job->s.n_points ||
        h.n_modes != job->s.n_modes || h.unknowns != job->s.unknowns || h.pad != 0 ||
        (h.printed != 0 && h.printed != 1))
        return orr_fail(err, ORR_ERR_CHECKPOINT, "its sizes are not this work unit's");
    if (h.next_point < 0 || h.next_point > h.n_points || h.batch_n < 0 ||
        h.batch_n > job->capacity || h.next_point + h.batch_n > h.n_points || h.running < 0 ||
        h.running > h.batch_n)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "batch %d + %d of %d points does not fit",
                        h.next_point, h.batch_n, h.n_points);
    const size_t vec = (size_t)h.running * job->sv.saved_vectors * job->s.unknowns * sizeof(double complex);
    if (size != job->fixed_size + vec)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%zu bytes, %zu expected", size,
                        job->fixed_size + vec);
    const unsigned char *res = payload + ((unsigned char *)job->res - job->payload);
    const unsigned char *st = payload + ((unsigned char *)job->saved - job->payload);
    orr_status s = check_results(job, &h, (const dif_point_result *)res, err);
    if (s == ORR_OK)
        s = check_states(job, &h, (const dif_solve_state *)st, err);
    const double *v = (const double *)(payload + job->fixed_size);
    for (size_t i = 0; s == ORR_OK && i < vec / sizeof(double); i++)
        if (!isfinite(v[i]))
            s = orr_fail(err, ORR_ERR_CHECKPOINT, "a saved vector is not finite");
    return s;
}

orr_status dif_job_restore(void *p, const void *payload, size_t size, const char *path,
                           int *reported, orr_error *err)
{
    dif_job *job = p;
    orr_status s = check_payload(job, payload, size, err);
    if (s != ORR_OK) {
        char inner[sizeof err->message];
        snprintf(inner, sizeof inner, "%s", err->message);
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%s: does not fit this work unit: %s", path, inner);
    }
    const dif_ckpt_head *h = payload;
    if ((s = dif_job_payload_reserve(job, h->running, err)) != ORR_OK)
        return s;
    memcpy(job->payload, payload, size);
    *reported = job->head->printed;
    if (job->head->batch_n > 0) {
        dif_batch b;
        s = dif_job_batch_prepare(job, job->head->next_point, job->head->batch_n, &b, err);
        if (s == ORR_OK)
            s = dif_solver_resume(&job->sv, &b, job->saved, job->vectors, err);
        job->in_batch = s == ORR_OK;
    }
    if (s == ORR_OK)
        orr_log("resuming from checkpoint: %d of %d points done, %d in flight", job->head->next_point,
                job->s.n_points, job->head->batch_n);
    return s;
}

/* ---- plan ---- */

/* The cost in cost.h's shape: the batch's points (setup.c's point_bytes:
 * vectors, spectra, tables), the threads' convolution scratch (at most
 * DIF_NOMINAL_LANES: the host's threads are not known on the server), the
 * results kept for the report (the payload: every point's numbers and R, T
 * of every order), the shapes' coefficients; the table's lines as
 * dif_point_line_bytes bounds them; .npy r00 (complex), R and T. */
#define DIF_NOMINAL_LANES 16
#define DIF_NOMINAL_ITERATIONS 100   /* the flop estimate's iterations a point (section 5) */
#define NPY_HEAD 128.0

static void unit_cost(const dif_cli *opt, const dif_workunit *wu, const dif_setup *s, int cap,
                      double lines, orr_unit_cost *c)
{
    const double np = s->n_points, nm = s->n_modes, u = (double)s->unknowns;
    const double grid = (double)s->fft_x * s->fft_y, lanes = fmin(cap, DIF_NOMINAL_LANES);
    const dif_method_sizes size = dif_solve_method_of(&wu->solver)->sizes(&wu->solver);
    double shapes = 0;
    for (int l = 0; l < wu->n_layers; l++)
        shapes += (double)wu->layers[l].slices * wu->layers[l].n_shapes;
    const double contrast = shapes * (2.0 * s->kx - 1) * (2.0 * s->ky - 1) * 16;
    const double fixed = np * (sizeof(dif_point_result) + 2 * nm * sizeof(double)) +
                         cap * sizeof(dif_solve_state) + sizeof(dif_ckpt_head);
    memset(c, 0, sizeof *c);
    /* a batch's spectra are one a wavelength (the points run wavelength-major) */
    const double per_lambda = (double)wu->n_theta * wu->n_phi;
    const double spectra = fmin(cap, ceil((cap - 1) / per_lambda) + 1) * s->nz * grid * 16;
    c->host_bytes = ORR_PROCESS_BYTES + cap * (s->point_bytes - s->nz * grid * 16) + spectra +
                    lanes * 16 * (grid + u) + fixed + contrast + 32 * u;
    c->device_bytes = cap * 16.0 * (size.vectors * u + s->nz * grid) + contrast;
    c->results_bytes = dif_header_bytes(wu) + lines + 16 + 3 * log10(np + 1);
    if (opt->job.npy)
        c->npy_bytes = 3 * NPY_HEAD + np * 16 + 2 * np * nm * 8;
    c->checkpoint_bytes = orr_checkpoint_file_bytes(fixed + cap * (double)size.saved * u * 16);
    c->flops = np * 2 * DIF_NOMINAL_ITERATIONS * s->matvec_flops;
    snprintf(c->sizes, sizeof c->sizes, "%d points of %d slices x %d orders, batches of %d%s", s->n_points,
             s->nz, s->n_modes, cap, wu->solver.method == DIF_GMRES ? ", GMRES" : "");
}

static int batch_capacity(const dif_cli *opt, const dif_setup *s);

/* Read, size and check the work unit: every point's orders (Rayleigh),
 * the memory one point needs, the cost against the limits and the host. */
static orr_status load_work_unit(const dif_cli *opt, dif_workunit *wu, dif_setup *s,
                                 orr_unit_cost *cost, orr_error *err)
{
    char path[4096];
    orr_runtime_resolve(opt->job.wu_file, path, sizeof path);
    orr_status st = dif_workunit_load(path, wu, err);
    if (st != ORR_OK)
        return st;
    if ((st = dif_setup_init(wu, s, err)) != ORR_OK)
        return st;
    if (s->point_bytes > DIF_LIMIT_POINT_BYTES)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: one point needs %.3g bytes (%d slices x %d orders, grid %d x %d%s); "
                        "at most %.3g (diffraction_point_bytes, orrery --limits)", path,
                        s->point_bytes, s->nz, s->n_modes, s->fft_x, s->fft_y,
                        wu->solver.method == DIF_GMRES ? ", GMRES's basis" : "",
                        DIF_LIMIT_POINT_BYTES);
    double lines = 0;
    for (int p = 0; st == ORR_OK && p < s->n_points; p++) {
        dif_point pt;
        st = dif_point_check(wu, s, p, &pt, err);
        if (st == ORR_OK)
            lines += dif_point_line_bytes(wu, s, p, &pt);
        dif_point_free(&pt);
    }
    if (st != ORR_OK)
        return st;
    unit_cost(opt, wu, s, batch_capacity(opt, s), lines, cost);
    st = orr_cost_limits(cost, path, err);
    return st == ORR_OK ? orr_cost_host_fits(cost, path, err) : st;
}

/* The results and, with --npy, its three arrays: checked before any work. */
static orr_status check_outputs(const dif_cli *opt, orr_error *err)
{
    static const char *const suffix[] = {"_r00.npy", "_R.npy", "_T.npy"};
    char npy[3][4096];
    const char *more[3];
    const int n = opt->job.npy ? 3 : 0;
    for (int i = 0; i < n; i++) {
        snprintf(npy[i], sizeof npy[i], "%s%s", opt->job.npy, suffix[i]);
        more[i] = npy[i];
    }
    return orr_job_check_outputs(&opt->job, more, n, err);
}

static int batch_capacity(const dif_cli *opt, const dif_setup *s)
{
    if (opt->batch > 0)
        return opt->batch < s->n_points ? opt->batch : s->n_points;
    double by_memory = floor(DIF_BATCH_BYTES / s->point_bytes);
    int cap = by_memory < 1 ? 1 : by_memory > DIF_MAX_BATCH ? DIF_MAX_BATCH : (int)by_memory;
    return cap < s->n_points ? cap : s->n_points;
}

static orr_status job_alloc(dif_job *job, orr_error *err)
{
    const size_t cap = (size_t)job->capacity;
    const size_t grid = (size_t)job->s.nz * job->s.fft_x * job->s.fft_y;
    job->pt = calloc(cap, sizeof *job->pt);
    job->points = malloc(cap * sizeof *job->points);
    job->spectrum_of = malloc(cap * sizeof *job->spectrum_of);
    job->spectra = malloc(cap * grid * sizeof *job->spectra);
    job->w = malloc(job->s.unknowns * sizeof *job->w);
    if (!job->pt || !job->points || !job->spectrum_of || !job->spectra || !job->w)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for a batch of %d points", job->capacity);
    return payload_alloc(job, err);
}

void dif_job_free(void *p)
{
    dif_job *job = p;
    if (!job)
        return;
    if (job->pt)
        dif_job_batch_release(job);
    dif_solver_close(&job->sv);
    free(job->pt);
    free(job->points);
    free(job->spectrum_of);
    free(job->spectra);
    free(job->w);
    free(job->payload);
    dif_contrast_free(&job->contrast);
    dif_setup_free(&job->s);
    dif_workunit_free(&job->wu);
    free(job);
}

/* On a line grating the scalar model is TE light only in the classical
 * mount (the plane of incidence across the lines, ky0 = 0); at phi != 0
 * s and p couple and the app solves the conical scalar problem, exact
 * for scalar waves only (docs/diffraction.md section 1). Said in the log,
 * so a table of such points is not read as TE. */
static void note_conical(const dif_workunit *wu)
{
    if (wu->period_y > 0 || wu->n_shapes == 0)   /* 2D, or a film: TE at any phi */
        return;
    int oblique = 0, conical = 0;
    for (int i = 0; i < wu->n_theta; i++)
        oblique |= wu->theta[i] > 0;
    for (int i = 0; i < wu->n_phi; i++)
        conical |= fabs(sin(wu->phi[i] * M_PI / 180)) > 1e-9;
    if (oblique && conical)
        orr_log("diffraction: phi != 0 on a line grating is conical incidence: these points "
                "are the conical scalar model, not TE light (docs/diffraction.md section 1)");
}

orr_status dif_job_plan(const void *opts, orr_backend *be, void **out, orr_error *err)
{
    dif_job *job = calloc(1, sizeof *job);
    if (!job)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    job->opt = opts;
    job->be = be;
    orr_status s = check_outputs(job->opt, err);
    if (s == ORR_OK)
        s = load_work_unit(job->opt, &job->wu, &job->s, &job->cost, err);
    if (s == ORR_OK)
        s = dif_ops_of(be, &job->ops, err);
    if (s == ORR_OK) {
        job->capacity = batch_capacity(job->opt, &job->s);
        s = dif_solver_open(&job->sv, &job->ops, &job->wu, &job->s, &job->capacity, err);
    }
    if (s == ORR_OK)
        s = job_alloc(job, err);
    if (s == ORR_OK)
        s = dif_contrast_init(&job->wu, &job->s, &job->contrast, err);
    if (s != ORR_OK) {
        dif_job_free(job);
        return s;
    }
    job->identity = orr_workunit_identity(job->wu.content_hash, be);
    orr_log("diffraction: %d points, orders %d x %d, %d slices in %d layer%s, %zu unknowns a "
            "point, batches of %d", job->s.n_points, job->s.kx, job->s.ky, job->s.nz,
            job->s.n_layers, job->s.n_layers == 1 ? "" : "s", job->s.unknowns, job->capacity);
    note_conical(&job->wu);
    *out = job;
    return ORR_OK;
}

/* ---- report ---- */

static orr_status write_npy(const dif_job *job, orr_error *err)
{
    char path[4096];
    const long np = job->s.n_points;
    double *r00 = malloc((size_t)np * 2 * sizeof *r00);
    if (!r00)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (long p = 0; p < np; p++) {
        r00[2 * p] = job->res[p].r00[0];
        r00[2 * p + 1] = job->res[p].r00[1];
    }
    snprintf(path, sizeof path, "%s_r00.npy", job->opt->job.npy);
    orr_status s = orr_npy_write(path, ORR_NPY_C16, 1, &np, r00, err);
    free(r00);
    const long shape_yx[3] = {np, job->s.ky, job->s.kx};   /* mode q = b * kx + a: y outer */
    if (s == ORR_OK) {
        snprintf(path, sizeof path, "%s_R.npy", job->opt->job.npy);
        s = orr_npy_write(path, ORR_NPY_F8, 3, shape_yx, job->R, err);
    }
    if (s == ORR_OK) {
        snprintf(path, sizeof path, "%s_T.npy", job->opt->job.npy);
        s = orr_npy_write(path, ORR_NPY_F8, 3, shape_yx, job->T, err);
    }
    return s;
}

static orr_status write_table(const dif_job *job, orr_error *err)
{
    char path[4096];
    orr_output out;
    memset(&out, 0, sizeof out);
    orr_runtime_resolve(job->opt->job.output, path, sizeof path);
    orr_status s = orr_output_open(&out, path, ".partial", err);
    if (s != ORR_OK)
        return s;
    /* the work unit's content hash, not the checkpoint identity: results of
     * one work unit from any backend or kernel path carry the same */
    dif_write_header(out.f, &job->wu, &job->s, job->be ? job->be->name : "reference",
                     job->wu.content_hash);
    for (int p = 0; p < job->s.n_points; p++)
        dif_write_point(out.f, &job->wu, &job->s, p, &job->res[p],
                        job->R + (size_t)p * job->s.n_modes, job->T + (size_t)p * job->s.n_modes);
    fprintf(out.f, "# end points %d\n", job->s.n_points);
    return orr_output_commit(&out, err);
}

orr_status dif_job_report(void *p, orr_error *err)
{
    dif_job *job = p;
    orr_status s = write_table(job, err);
    if (s == ORR_OK && job->opt->job.npy)
        s = write_npy(job, err);
    if (s != ORR_OK)
        return s;
    int stopped = 0, unbalanced = 0;
    long long iterations = 0;   /* up to 1e5 points of 1e6 each */
    double worst = 0;
    for (int i = 0; i < job->s.n_points; i++) {
        stopped += job->res[i].status == DIF_POINT_NOT_CONVERGED;
        unbalanced += job->res[i].status == DIF_POINT_UNBALANCED;
        iterations += job->res[i].iterations;
        worst = fmax(worst, job->res[i].residual);
    }
    orr_log("diffraction: %d points in %.3f s, %lld iterations, worst residual %.3g%s%s",
            job->s.n_points, orr_runtime_seconds() - job->t0, iterations, worst,
            stopped ? ", NOT CONVERGED: " : "", stopped ? "see the status column" : "");
    if (unbalanced)
        orr_log("diffraction: %d point%s UNBALANCED: efficiencies off energy conservation by more "
                "than %g (slices or orders too coarse; docs/diffraction.md section 4)", unbalanced,
                unbalanced == 1 ? "" : "s", DIF_ENERGY_TOLERANCE);
    job->head->printed = 1;
    return ORR_OK;
}

/* ---- --check ---- */

orr_status dif_check_tool(const dif_cli *opt, orr_error *err)
{
    dif_workunit wu;
    dif_setup s;
    orr_unit_cost cost;
    memset(&s, 0, sizeof s);
    orr_status st = load_work_unit(opt, &wu, &s, &cost, err);
    if (st == ORR_OK) {
        printf("points %d\n", s.n_points);
        printf("orders_x %d\norders_y %d\nmodes %d\n", s.kx, s.ky, s.n_modes);
        printf("slices %d\nlayers %d\n", s.nz, s.n_layers);
        printf("grid %d %d\n", s.fft_x, s.fft_y);
        printf("unknowns %zu\n", s.unknowns);
        for (int i = 0; i < wu.n_params; i++)
            printf("parameter %s %s\n", wu.param_name[i], wu.param_text[i]);
        printf("matvec_flops %.6e\n", s.matvec_flops);
        printf("memory_bytes %.6e\n", cost.host_bytes);
        orr_cost_print(stdout, &cost);
    }
    dif_setup_free(&s);
    dif_workunit_free(&wu);   /* safe after a failed load: it is zeroed then */
    return st;
}
