/* The FDTD results (docs/fdtd.md section 4): the text table the validator
 * reads (probe series, energies, norms, speed) and, where the work unit
 * asks for one, a decimated snapshot of one field as .npy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "../finite.h"
#include "../io/io.h"
#include "../runtime/runtime.h"
#include "job.h"

static const char *boundary_name(fdtd_boundary b)
{
    return b == FDTD_CPML ? "cpml" : b == FDTD_PEC ? "pec" : "thesis";
}

/* A hash of what the host's libm made (the source's exp, the CPML's log,
 * pow and exp): the only inputs of faithful arithmetic that another host
 * may round otherwise. Results whose tables agree are bit-identical from
 * every backend; the validator compares those digit for digit. */
static uint64_t host_tables_hash(const fdtd_setup *s)
{
    uint64_t h = orr_hash64(ORR_HASH64_INIT, s->source + 1, (size_t)s->n_values * sizeof *s->source);
    for (int a = 0; s->pml && a < 3; a++) {
        const size_t n = (size_t)(s->n[a] + 2) * sizeof(double);
        h = orr_hash64(h, s->be[a], n);
        h = orr_hash64(h, s->ce[a], n);
        h = orr_hash64(h, s->bh[a], n);
        h = orr_hash64(h, s->ch[a], n);
    }
    return h;
}

static void write_head(FILE *f, const fdtd_job *job)
{
    const fdtd_workunit *wu = &job->wu;
    const fdtd_setup *s = &job->s;
    fprintf(f, "# orrery fdtd results 1\n");
    /* the work unit's content hash: results from any backend carry the same */
    fprintf(f, "work_unit %016llx\n", (unsigned long long)wu->content_hash);
    fprintf(f, "application orrery %s %s\n", PACKAGE_VERSION, job->be ? job->be->name : "reference");
    for (int i = 0; i < wu->n_params; i++)
        fprintf(f, "param %s %s\n", wu->param_name[i], wu->param_text[i]);
    fprintf(f, "grid %d %d %d cell %.17g %.17g %.17g dt %.17g steps %ld boundary %s arithmetic %s "
               "precision %s\n", s->n[0], s->n[1], s->n[2], s->d[0], s->d[1], s->d[2], s->dt, wu->steps,
            boundary_name(wu->boundary), wu->arithmetic == FDTD_FAST ? "fast" : "faithful",
            wu->precision == FDTD_SINGLE ? "single" : "double");
    fprintf(f, "host_tables %016llx\n", (unsigned long long)host_tables_hash(s));
    for (int p = 0; p < s->n_probes; p++)
        fprintf(f, "probe %d %s %d %d %d\n", p, fdtd_field_name(s->probes[p].field), s->probes[p].at[0],
                s->probes[p].at[1], s->probes[p].at[2]);
}

/* Every number of the table is finite, or nothing is written (finite.h):
 * each probe's series, the energies, the norms. */
static orr_status check_results(const fdtd_job *job, const double l2[FDTD_N_FIELDS],
                                const double max[FDTD_N_FIELDS], orr_error *err)
{
    const fdtd_setup *s = &job->s;
    const char *file = job->wu.path;
    for (int p = 0; p < s->n_probes; p++) {
        const long n = orr_nonfinite_at(job->series + p, job->wu.steps, s->n_probes);
        if (n >= 0)
            return orr_nonfinite(err, file, job->series[n * s->n_probes + p],
                                 "probe %d (%s at %d,%d,%d) at step %ld", p,
                                 fdtd_field_name(s->probes[p].field), s->probes[p].at[0],
                                 s->probes[p].at[1], s->probes[p].at[2], n + 1);
    }
    const long e = orr_nonfinite_at(job->energy, job->n_energy, 1);
    if (e >= 0)
        return orr_nonfinite(err, file, job->energy[e], "the energy at step %ld",
                             fdtd_energy_step(&job->wu, e));
    for (int f = 0; f < FDTD_N_FIELDS; f++)
        if (!isfinite(l2[f]) || !isfinite(max[f]))
            return orr_nonfinite(err, file, isfinite(l2[f]) ? max[f] : l2[f], "the %s norm of %s",
                                 isfinite(l2[f]) ? "max" : "L2", fdtd_field_name(f));
    return ORR_OK;
}

static orr_status write_table(const fdtd_job *job, const double l2[FDTD_N_FIELDS],
                              const double max[FDTD_N_FIELDS], orr_error *err)
{
    char path[4096];
    orr_output out;
    memset(&out, 0, sizeof out);
    orr_runtime_resolve(job->opt->job.output, path, sizeof path);
    orr_status st = orr_output_open(&out, path, ".partial", err);
    if (st != ORR_OK)
        return st;
    const char *g = job->s.real_bytes == 4 ? "%.9g" : "%.17g";
    const int np = job->s.n_probes;
    write_head(out.f, job);
    for (long n = 0; n < job->wu.steps; n++) {
        fprintf(out.f, "series %ld", n + 1);
        for (int p = 0; p < np; p++) {
            fputc(' ', out.f);
            fprintf(out.f, g, job->series[n * np + p]);
        }
        fputc('\n', out.f);
    }
    for (long e = 0; e < job->n_energy; e++)
        fprintf(out.f, "energy %ld %.17g\n", fdtd_energy_step(&job->wu, e), job->energy[e]);
    for (int f = 0; f < FDTD_N_FIELDS; f++)
        fprintf(out.f, "norm %s %.17g %.17g\n", fdtd_field_name(f), l2[f], max[f]);
    const double cells = (double)job->s.n[0] * job->s.n[1] * job->s.n[2];
    fprintf(out.f, "cell_updates_per_second %.6g\n",
            job->seconds > 0 ? cells * job->steps_here / job->seconds : 0);
    fprintf(out.f, "seconds %.6g\nend\n", job->seconds);
    return orr_output_commit(&out, err);
}

/* Every D-th interior cell of one field, (z, y, x) in C order. */
static orr_status write_snapshot(const fdtd_job *job, orr_error *err)
{
    const fdtd_setup *s = &job->s;
    const int d = job->wu.snapshot_every, rb = s->real_bytes;
    const long shape[3] = {(s->n[2] + d - 1) / d, (s->n[1] + d - 1) / d, (s->n[0] + d - 1) / d};
    unsigned char *raw = malloc(s->cells * (size_t)rb), *out = malloc((size_t)shape[0] * shape[1] * shape[2] * rb);
    orr_status st = raw && out ? job->ops.ops->read(job->ctx, job->wu.snapshot_field, raw, err)
                               : orr_fail(err, ORR_ERR_NOMEM, "out of memory for the snapshot");
    size_t o = 0;
    for (long k = 1; st == ORR_OK && k <= s->n[2]; k += d)
        for (long j = 1; j <= s->n[1]; j += d)
            for (long i = 1; i <= s->n[0]; i += d, o++)
                memcpy(out + o * rb, raw + (i + s->sx * (j + s->sy * k)) * rb, (size_t)rb);
    char path[4096];
    fdtd_snapshot_path(job->opt, &job->wu, path, sizeof path);
    if (st == ORR_OK)
        st = orr_npy_write(path, rb == 4 ? ORR_NPY_F4 : ORR_NPY_F8, 3, shape, out, err);
    free(raw);
    free(out);
    return st;
}

orr_status fdtd_job_report(void *p, orr_error *err)
{
    fdtd_job *job = p;
    double l2[FDTD_N_FIELDS], max[FDTD_N_FIELDS];
    orr_status st = job->ops.ops->norms(job->ctx, l2, max, err);
    if (st == ORR_OK)
        st = check_results(job, l2, max, err);
    if (st == ORR_OK)
        st = write_table(job, l2, max, err);
    if (st == ORR_OK && job->wu.snapshot)
        st = write_snapshot(job, err);
    if (st == ORR_OK)
        st = fdtd_job_pack_reported(job, err);
    if (st != ORR_OK)
        return st;
    job->reported = 1;
    const double cells = (double)job->s.n[0] * job->s.n[1] * job->s.n[2];
    orr_log("fdtd: %ld steps in %.3f s, %.3g cell updates/s", job->steps_here, job->seconds,
            job->seconds > 0 ? cells * job->steps_here / job->seconds : 0);
    return ORR_OK;
}
