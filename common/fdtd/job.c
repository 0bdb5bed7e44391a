/* The FDTD job: plan (the work unit read, sized and refused up front when
 * it cannot fit), the checkpoint (every state array compressed with zlib,
 * the series so far) and its validated restore, and --check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../checkpoint.h"
#include "../cost.h"
#include "../io/io.h"
#include "../runtime/runtime.h"
#include "job.h"

#define FDTD_CKPT_VERSION 1

/* ---- plan ---- */

/* Digits of 1..n together: the series lines' step numbers. */
static double digits_upto(long n)
{
    double d = 0;
    for (long lo = 1, w = 1; lo <= n; lo *= 10, w++)
        d += (double)w * ((n < lo * 10 - 1 ? n : lo * 10 - 1) - lo + 1);
    return d;
}

static double packed_bound(double n)   /* zlib's compressBound */
{
    return n + floor(n / 4096) + floor(n / 16384) + floor(n / 33554432) + 13;
}

/* The cost in cost.h's shape. Host memory: the state (on a GPU only while
 * a checkpoint is packed or restored), the maps and tables, the series
 * and energies, and a checkpoint's payload (the series and the state
 * packed, at worst no smaller) with one field raw beside it: packing
 * and restoring hold the same. The results: a series line a step (a
 * value %.17g, or %.9g in single precision, at most 24 or 15 bytes), the
 * energy and norm lines, the head. */
static void unit_cost(const fdtd_workunit *wu, const fdtd_setup *s, orr_unit_cost *c)
{
    const double steps = wu->steps, np = s->n_probes, n_energy = fdtd_energy_count(wu, wu->steps);
    const double series = steps * np * sizeof(double) + n_energy * sizeof(double);
    const double value = s->real_bytes == 4 ? 15 : 24;
    double packed = sizeof(fdtd_ckpt_head) + series;
    for (int a = 0; a < s->n_arrays; a++)
        packed += packed_bound((double)s->array_len[a] * s->real_bytes);
    memset(c, 0, sizeof *c);
    c->host_bytes = ORR_PROCESS_BYTES + s->state_bytes + s->map_bytes + series + packed +
                    (double)s->cells * s->real_bytes;
    c->device_bytes = s->state_bytes + s->map_bytes + steps * np * s->real_bytes;
    c->results_bytes = 4096 + wu->n_params * (7.0 + FDTD_NAME_LEN + 64) + np * 40 +
                       steps * (8 + np * (1 + value)) + digits_upto(wu->steps) +
                       n_energy * (9 + 10 + 25) + 6 * 60;
    if (wu->snapshot) {
        const int d = wu->snapshot_every;
        c->npy_bytes = 128 + (double)((s->n[0] + d - 1) / d) * ((s->n[1] + d - 1) / d) *
                                 ((s->n[2] + d - 1) / d) * s->real_bytes;
    }
    c->checkpoint_bytes = orr_checkpoint_file_bytes(packed);
    c->flops = s->flops_per_step * steps;
    snprintf(c->sizes, sizeof c->sizes, "%d x %d x %d cells, %ld steps x %d probe%s", s->n[0], s->n[1],
             s->n[2], wu->steps, s->n_probes, s->n_probes == 1 ? "" : "s");
}

static orr_status load_work_unit(const fdtd_cli *opt, fdtd_workunit *wu, fdtd_setup *s,
                                 orr_unit_cost *cost, orr_error *err)
{
    char path[4096];
    orr_runtime_resolve(opt->job.wu_file, path, sizeof path);
    orr_status st = fdtd_workunit_load(path, wu, err);
    if (st != ORR_OK)
        return st;
    /* painting is one call, neither checkpointed nor suspended: bounded
     * before it starts */
    const double paint = fdtd_paint_cells(wu);
    if (paint > FDTD_LIMIT_PAINT_CELLS)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: the %d regions' bounding boxes cover %.3g cells together, more than "
                        "the limit of %.3g a work unit (fdtd_paint_cells, orrery --limits): fewer "
                        "or smaller regions", path, wu->n_regions, paint,
                        FDTD_LIMIT_PAINT_CELLS);
    if ((st = fdtd_setup_init(wu, s, err)) != ORR_OK)
        return st;
    unit_cost(wu, s, cost);
    st = orr_cost_limits(cost, path, err);
    return st == ORR_OK ? orr_cost_host_fits(cost, path, err) : st;
}

void fdtd_snapshot_path(const fdtd_cli *opt, const fdtd_workunit *wu, char *path, size_t size)
{
    snprintf(path, size, "%s_%s.npy", opt->job.npy ? opt->job.npy : "fdtd_snapshot",
             fdtd_field_name(wu->snapshot_field));
}

/* The results and the snapshot, if the work unit asks for one: checked
 * before any work, not after it. */
static orr_status check_outputs(const fdtd_cli *opt, const fdtd_workunit *wu, orr_error *err)
{
    char npy[4096];
    const char *more[1] = {npy};
    if (wu->snapshot)
        fdtd_snapshot_path(opt, wu, npy, sizeof npy);
    return orr_job_check_outputs(&opt->job, more, wu->snapshot ? 1 : 0, err);
}

orr_status fdtd_job_plan(const void *opts, orr_backend *be, void **out, orr_error *err)
{
    fdtd_job *job = calloc(1, sizeof *job);
    if (!job)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    job->opt = opts;
    job->be = be;
    orr_status st = load_work_unit(job->opt, &job->wu, &job->s, &job->cost, err);
    if (st == ORR_OK)
        st = check_outputs(job->opt, &job->wu, err);
    if (st == ORR_OK)
        st = fdtd_ops_of(be, &job->ops, err);
    if (st == ORR_OK) {
        const long n_energy = fdtd_energy_count(&job->wu, job->wu.steps);
        job->series = malloc((size_t)job->wu.steps * job->s.n_probes * sizeof *job->series);
        job->energy = malloc(((size_t)n_energy + 1) * sizeof *job->energy);
        if (!job->series || !job->energy)
            st = orr_fail(err, ORR_ERR_NOMEM, "out of memory for the probe series (%.0f bytes)",
                          (double)job->wu.steps * job->s.n_probes * sizeof *job->series);
    }
    if (st == ORR_OK)
        st = job->ops.ops->open(job->ops.state, &job->wu, &job->s, &job->ctx, err);
    if (st != ORR_OK) {
        fdtd_job_free(job);
        return st;
    }
    job->identity = orr_workunit_identity(job->wu.content_hash, be);
    job->chunk = 1;
    orr_log("fdtd: %d x %d x %d cells, %ld steps, %s, %s, %s boundary, dt %.6g s", job->s.n[0],
            job->s.n[1], job->s.n[2], job->wu.steps,
            job->wu.arithmetic == FDTD_FAST ? "fast" : "faithful",
            job->wu.precision == FDTD_SINGLE ? "single" : "double",
            job->wu.boundary == FDTD_CPML ? "cpml" : job->wu.boundary == FDTD_PEC ? "pec" : "thesis",
            job->s.dt);
    *out = job;
    return ORR_OK;
}

void fdtd_job_free(void *p)
{
    fdtd_job *job = p;
    if (!job)
        return;
    if (job->ctx)
        job->ops.ops->close(job->ctx);
    free(job->series);
    free(job->energy);
    free(job->payload);
    fdtd_setup_free(&job->s);
    fdtd_workunit_free(&job->wu);
    free(job);
}

/* ---- checkpoint ---- */

void fdtd_job_checkpoint(const void *p, orr_checkpoint_spec *spec)
{
    const fdtd_job *job = p;
    orr_job_checkpoint_spec(&job->opt->job, FDTD_CHECKPOINT_FILE, FDTD_KIND_NAME, job->identity, spec);
}

static size_t fixed_bytes(const fdtd_job *job, long done, long n_energy)
{
    return sizeof(fdtd_ckpt_head) + ((size_t)done * job->s.n_probes + (size_t)n_energy) * sizeof(double);
}

orr_status fdtd_job_pack(fdtd_job *job, orr_error *err)
{
    const fdtd_setup *s = &job->s;
    size_t room = fixed_bytes(job, job->done, job->n_energy), raw_max = 0;
    free(job->payload);   /* first: the old and the new payload would hold the state twice */
    job->payload = NULL;
    job->payload_size = 0;
    for (int a = 0; a < s->n_arrays; a++) {
        room += compressBound(s->array_len[a] * (uLong)s->real_bytes);
        raw_max = s->array_len[a] * (size_t)s->real_bytes > raw_max ? s->array_len[a] * (size_t)s->real_bytes : raw_max;
    }
    unsigned char *buf = malloc(room), *raw = malloc(raw_max);
    if (!buf || !raw) {
        free(buf);
        free(raw);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the checkpoint (%zu bytes)", room);
    }
    fdtd_ckpt_head *h = (fdtd_ckpt_head *)buf;
    *h = (fdtd_ckpt_head){FDTD_CKPT_VERSION, s->real_bytes, s->n_probes, s->n_arrays, job->done,
                          job->n_energy, job->reported, 0, {0}};
    unsigned char *at = buf + sizeof *h;
    memcpy(at, job->series, (size_t)job->done * s->n_probes * sizeof(double));
    at += (size_t)job->done * s->n_probes * sizeof(double);
    memcpy(at, job->energy, (size_t)job->n_energy * sizeof(double));
    at += (size_t)job->n_energy * sizeof(double);
    orr_status st = ORR_OK;
    for (int a = 0; st == ORR_OK && a < s->n_arrays; a++) {
        const uLong n = s->array_len[a] * (uLong)s->real_bytes;
        uLongf packed = compressBound(n);
        st = job->ops.ops->read(job->ctx, a, raw, err);
        if (st == ORR_OK && compress2(at, &packed, raw, n, 1) != Z_OK)
            st = orr_fail(err, ORR_ERR_INTERNAL, "%s: the checkpoint: zlib could not compress "
                          "state array %d", job->wu.path, a);
        h->packed[a] = packed;
        at += packed;
    }
    free(raw);
    if (st != ORR_OK) {
        free(buf);
        return st;
    }
    free(job->payload);
    job->payload = buf;
    job->payload_size = (size_t)(at - buf);
    return ORR_OK;
}

/* After the report a restart has nothing left to do: the head alone says
 * so (no fields to pack, however large the grid). */
orr_status fdtd_job_pack_reported(fdtd_job *job, orr_error *err)
{
    fdtd_ckpt_head *h = calloc(1, sizeof *h);
    if (!h)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    *h = (fdtd_ckpt_head){FDTD_CKPT_VERSION, job->s.real_bytes, job->s.n_probes, job->s.n_arrays,
                          job->done, job->n_energy, 1, 0, {0}};
    free(job->payload);
    job->payload = (unsigned char *)h;
    job->payload_size = sizeof *h;
    return ORR_OK;
}

const void *fdtd_job_payload(const void *p, size_t *size)
{
    const fdtd_job *job = p;
    *size = job->payload_size;
    return job->payload;
}

static orr_status bad_ckpt(const char *path, const char *what, orr_error *err)
{
    return orr_fail(err, ORR_ERR_CHECKPOINT, "%s: %s", path, what);
}

/* The head against this work unit; the sizes against the bytes read. */
static orr_status check_head(const fdtd_job *job, const fdtd_ckpt_head *h, size_t size,
                             const char *path, orr_error *err)
{
    const fdtd_setup *s = &job->s;
    if (h->version != FDTD_CKPT_VERSION || h->real_bytes != s->real_bytes ||
        h->n_probes != s->n_probes || h->n_arrays != s->n_arrays)
        return bad_ckpt(path, "another layout or work unit", err);
    if (h->done < 0 || h->done > job->wu.steps || h->n_energy != fdtd_energy_count(&job->wu, (long)h->done) ||
        (h->reported != 0 && h->reported != 1) || (h->reported && h->done != job->wu.steps))
        return bad_ckpt(path, "steps, energies or the report flag out of range", err);
    if (h->reported)
        return size == sizeof *h ? ORR_OK : bad_ckpt(path, "its size does not match its head", err);
    size_t need = fixed_bytes(job, (long)h->done, (long)h->n_energy);
    for (int a = 0; a < s->n_arrays; a++) {
        if (h->packed[a] == 0 || h->packed[a] > size)
            return bad_ckpt(path, "a packed field's size is out of range", err);
        need += h->packed[a];
    }
    return need == size ? ORR_OK : bad_ckpt(path, "its size does not match its head", err);
}

orr_status fdtd_job_restore(void *p, const void *payload, size_t size, const char *path,
                            int *reported, orr_error *err)
{
    fdtd_job *job = p;
    const fdtd_setup *s = &job->s;
    fdtd_ckpt_head h;
    if (size < sizeof h)
        return bad_ckpt(path, "too short", err);
    memcpy(&h, payload, sizeof h);
    orr_status st = check_head(job, &h, size, path, err);
    if (st != ORR_OK || (*reported = h.reported))
        return st;
    const unsigned char *at = (const unsigned char *)payload + sizeof h;
    const size_t series = (size_t)h.done * s->n_probes * sizeof(double);
    unsigned char *raw = malloc(s->cells * (size_t)s->real_bytes);
    if (!raw)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    memcpy(job->series, at, series);
    at += series;
    memcpy(job->energy, at, (size_t)h.n_energy * sizeof(double));
    at += (size_t)h.n_energy * sizeof(double);
    for (int a = 0; st == ORR_OK && a < s->n_arrays; a++) {
        uLongf n = s->array_len[a] * (uLong)s->real_bytes;
        const uLong want = n;
        if (uncompress(raw, &n, at, (uLong)h.packed[a]) != Z_OK || n != want)
            st = bad_ckpt(path, "a field does not decompress to its size", err);
        else
            st = job->ops.ops->write(job->ctx, a, raw, err);
        at += h.packed[a];
    }
    if (st != ORR_OK) {
        /* the run starts from zero with this job (run.c): every array
         * back to zero as planned, the ones before the one at fault
         * having been written */
        orr_error ignored;
        memset(raw, 0, s->cells * (size_t)s->real_bytes);
        for (int a = 0; a < s->n_arrays; a++)
            (void)job->ops.ops->write(job->ctx, a, raw, &ignored);
    }
    free(raw);
    if (st != ORR_OK)
        return st;
    job->done = (long)h.done;
    job->n_energy = (long)h.n_energy;
    orr_log("resuming from checkpoint: %ld of %ld steps done", job->done, job->wu.steps);
    return ORR_OK;
}

/* ---- --check ---- */

orr_status fdtd_check_tool(const fdtd_cli *opt, orr_error *err)
{
    fdtd_workunit wu;
    fdtd_setup s;
    orr_unit_cost cost;
    memset(&wu, 0, sizeof wu);
    memset(&s, 0, sizeof s);
    orr_status st = load_work_unit(opt, &wu, &s, &cost, err);
    if (st == ORR_OK) {
        printf("cells %.0f\n", (double)s.n[0] * s.n[1] * s.n[2]);
        printf("padded_cells %zu\n", s.cells);
        printf("steps %ld\n", wu.steps);
        printf("dt %.17g\n", s.dt);
        printf("bytes %.0f\n", cost.host_bytes);
        printf("flops %.6e\n", cost.flops);
        printf("probes %d\n", s.n_probes);
        printf("arithmetic %s\n", wu.arithmetic == FDTD_FAST ? "fast" : "faithful");
        printf("precision %s\n", wu.precision == FDTD_SINGLE ? "single" : "double");
        printf("boundary %s\n", wu.boundary == FDTD_CPML ? "cpml" : wu.boundary == FDTD_PEC ? "pec" : "thesis");
        for (int i = 0; i < wu.n_params; i++)
            printf("parameter %s %s\n", wu.param_name[i], wu.param_text[i]);
        orr_cost_print(stdout, &cost);
    }
    fdtd_setup_free(&s);
    fdtd_workunit_free(&wu);
    return st;
}
