/* The MoM results (docs/mom.md section 4): the text table the validator
 * reads (echo widths, the solve's quality, per-phase times) and, where
 * the work unit asks, the surface currents beside their points as .npy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "../finite.h"
#include "../io/io.h"
#include "../runtime/runtime.h"
#include "job.h"

static void write_head(FILE *f, const mom_job *job)
{
    const mom_workunit *wu = &job->wu;
    fprintf(f, "# orrery mom results 1\n");
    fprintf(f, "work_unit %016llx\n", (unsigned long long)wu->content_hash);
    fprintf(f, "application orrery %s %s\n", PACKAGE_VERSION, job->be ? job->be->name : "reference");
    for (int i = 0; i < wu->n_params; i++)
        fprintf(f, "param %s %s\n", wu->param_name[i], wu->param_text[i]);
    if (wu->shape == MOM_CIRCLE)
        fprintf(f, "geometry circle radius %.17g\n", wu->radius);
    else
        fprintf(f, "geometry polygon vertices %d\n", wu->n_vertices);
    fprintf(f, "wavelength %.17g k %.17g unknowns %d method %s solver %s precision %s "
            "far_field %s\n",
            wu->wavelength, job->p.g.k, job->p.n, wu->method == MOM_METHOD_LCN ? "lcn" : "mom",
            mom_solver_names[wu->solver], mom_precision_names[wu->precision],
            mom_far_field_names[wu->far_field]);
    fprintf(f, "solve backward_error %.6g growth_factor %.6g smallest_pivot %.6g refinements %d\n",
            job->info.backward, job->info.growth, job->info.min_pivot, job->info.refinements);
    if (job->warning[0])
        fprintf(f, "warning %s\n", job->warning);
    fprintf(f, "seconds fill %.6g factor %.6g solve %.6g\n", job->seconds[MOM_PHASE_FILL],
            job->seconds[MOM_PHASE_FACTOR], job->seconds[MOM_PHASE_SOLVE]);
    /* the .npy's shape, for the validator, which sees the outputs only */
    if (wu->current_every)
        fprintf(f, "current every %d rows %d incidences %d\n", wu->current_every,
                (job->p.n + wu->current_every - 1) / wu->current_every, wu->n_incidence);
}

/* The currents (the solve's output, which the echo widths and the .npy
 * come from) and the backward error are finite, or nothing is written. */
static orr_status check_solution(const mom_job *job, orr_error *err)
{
    const int n = job->p.n;
    if (!isfinite(job->info.backward))
        return orr_nonfinite(err, job->wu.path, job->info.backward, "the backward error");
    for (int r = 0; r < job->wu.n_incidence; r++) {
        const long i = orr_nonfinite_at(job->current + 2 * (size_t)r * n, 2L * n, 1);
        if (i >= 0)
            return orr_nonfinite(err, job->wu.path, job->current[2 * (size_t)r * n + i],
                                 "the current J at unknown %ld (%s part), incidence %.17g", i / 2,
                                 i % 2 ? "imaginary" : "real", job->wu.incidence[r]);
    }
    return ORR_OK;
}

/* echo INCIDENCE ANGLE SIGMA/LAMBDA DB, one line an incidence and angle,
 * every value with 17 digits: each reads back as the double written. A
 * width or its dB that is not finite stops the report (the caller drops
 * the partial file). */
static orr_status write_echoes(FILE *f, const mom_job *job, orr_error *err)
{
    const mom_workunit *wu = &job->wu;
    double *sigma = malloc(((size_t)wu->n_echo + 1) * sizeof *sigma);
    if (!sigma)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the echo widths");
    for (int r = 0; r < wu->n_incidence; r++) {
        mom_echo_widths(&job->p, job->current + 2 * (size_t)r * job->p.n, wu->n_echo, wu->echo, sigma);
        for (int a = 0; a < wu->n_echo; a++) {
            const double s = sigma[a] / wu->wavelength, db = 10 * log10(s);
            if (!isfinite(s) || !isfinite(db)) {
                free(sigma);
                return orr_nonfinite(err, wu->path, isfinite(s) ? db : s, "the echo width%s at "
                                     "incidence %.17g, angle %.17g", isfinite(s) ? " in dB" : "",
                                     wu->incidence[r], wu->echo[a]);
            }
            fprintf(f, "echo %.17g %.17g %.17g %.17g\n", wu->incidence[r], wu->echo[a], s, db);
        }
    }
    free(sigma);
    return ORR_OK;
}

static orr_status write_table(const mom_job *job, orr_error *err)
{
    char path[4096];
    orr_output out;
    memset(&out, 0, sizeof out);
    orr_runtime_resolve(job->opt->job.output, path, sizeof path);
    orr_status st = orr_output_open(&out, path, ".partial", err);
    if (st != ORR_OK)
        return st;
    write_head(out.f, job);
    st = write_echoes(out.f, job, err);
    if (st != ORR_OK) {
        orr_output_abort(&out);
        return st;
    }
    fprintf(out.f, "end\n");
    return orr_output_commit(&out, err);
}

/* Every D-th unknown as a row of float64: its match point x, y (MoM: the
 * cell's midpoint; LCN: the node), then Re J, Im J for each incidence in
 * order; [rows][2 + 2 incidences], docs/mom.md section 4. The point beside
 * the value lets a reader plot or compare J without cutting the cells
 * again. */
static orr_status write_current(const mom_job *job, orr_error *err)
{
    const int d = job->wu.current_every, n = job->p.n, nrhs = job->wu.n_incidence;
    const long shape[2] = {(n + d - 1) / d, 2 + 2L * nrhs};
    double *out = malloc((size_t)shape[0] * (size_t)shape[1] * sizeof *out);
    if (!out)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the currents");
    double *row = out;
    for (int i = 0; i < n; i += d, row += shape[1]) {
        row[0] = job->p.px[i];
        row[1] = job->p.py[i];
        for (int r = 0; r < nrhs; r++) {
            row[2 + 2 * r] = job->current[2 * ((size_t)r * n + i)];
            row[3 + 2 * r] = job->current[2 * ((size_t)r * n + i) + 1];
        }
    }
    char path[4096];
    mom_current_path(job->opt, path, sizeof path);
    orr_status st = orr_npy_write(path, ORR_NPY_F8, 2, shape, out, err);
    free(out);
    return st;
}

orr_status mom_job_report(void *p, orr_error *err)
{
    mom_job *job = p;
    orr_status st = check_solution(job, err);
    if (st == ORR_OK)
        st = write_table(job, err);
    if (st == ORR_OK && job->wu.current_every)
        st = write_current(job, err);
    if (st == ORR_OK)
        st = mom_job_pack_reported(job, err);
    if (st != ORR_OK)
        return st;
    job->reported = 1;
    orr_log("mom: %d unknowns: fill %.3f s, factor %.3f s, solve %.3f s, backward error %.3g n eps",
            job->p.n, job->seconds[MOM_PHASE_FILL], job->seconds[MOM_PHASE_FACTOR],
            job->seconds[MOM_PHASE_SOLVE], job->info.backward);
    return ORR_OK;
}
