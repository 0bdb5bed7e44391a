/* The MoM job: plan (the work unit read, cut into cells and refused up
 * front when its matrix cannot fit), the checkpoint (the phase, the
 * backend's state arrays raw) and its validated restore, and --check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../checkpoint.h"
#include "../cost.h"
#include "../runtime/runtime.h"
#include "job.h"

#define MOM_CKPT_VERSION 1

/* ---- plan ---- */

/* The work generator's model (workunits/mom/orrery-wugen-mom): a matrix
 * entry (a Hankel function) costs about 300 flops, measured, and the
 * process, OpenBLAS and the checkpoints about 1e10. */
#define MOM_FILL_FLOPS 300
#define MOM_START_FLOPS 1e10
#define MOM_LIBRARY_BYTES 8e6   /* OpenBLAS's buffers, measured beside the process's */
/* sigma / lambda > 0 and its dB with %.17g: each at most 23 bytes, but
 * not both (s in exponent form makes |dB| >= 40, at most 19 bytes; a dB
 * in exponent form needs s near 1, 18): 43 the pair with a blank */
#define MOM_VALUE_BYTES 43

static double width_g(double v)
{
    char b[64];
    return snprintf(b, sizeof b, "%.17g", v);
}

static double solver_flops(const mom_workunit *wu, int n);

/* The cost in cost.h's shape. Host memory: the reference's state twice
 * (its copy in a checkpoint's payload, or the payload read back while
 * it is restored) and the currents. The results: the head (at most 16
 * kB: 32 params and the warning) and an echo line an incidence and echo
 * angle, the angles as they print. */
static void unit_cost(const mom_workunit *wu, int n, orr_unit_cost *c)
{
    const double nrhs = wu->n_incidence, necho = wu->n_echo;
    double state = sizeof(mom_ckpt_head), angles = 0;
    for (int s = 0; s < MOM_N_STATES; s++)
        state += mom_state_size(n, wu->n_incidence, mom_factors_single(wu), (mom_state)s);
    for (int i = 0; i < wu->n_incidence; i++)
        angles += necho * width_g(wu->incidence[i]);
    for (int a = 0; a < wu->n_echo; a++)
        angles += nrhs * width_g(wu->echo[a]);
    memset(c, 0, sizeof *c);
    c->host_bytes = ORR_PROCESS_BYTES + MOM_LIBRARY_BYTES + 2 * mom_reference_bytes(wu, n) +
                    (double)n * nrhs * 16;
    c->device_bytes = mom_reference_bytes(wu, n);
    c->results_bytes = 16384 + angles + nrhs * necho * (5 + 3 + MOM_VALUE_BYTES);
    if (wu->current_every)
        c->npy_bytes = 128 + (double)((n + wu->current_every - 1) / wu->current_every) *
                                 (2 + 2 * nrhs) * 8;
    c->checkpoint_bytes = orr_checkpoint_file_bytes(state);
    c->flops = solver_flops(wu, n) + MOM_FILL_FLOPS * (double)n * n + MOM_START_FLOPS;
    snprintf(c->sizes, sizeof c->sizes, "%d unknowns, %d incidence x %d echo angles", n,
             wu->n_incidence, wu->n_echo);
}

/* Real flops of the solver's pipeline (docs/mom.md section 4). */
static double solver_flops(const mom_workunit *wu, int n)
{
    const double lu = 8.0 / 3 * n * (double)n * n, rhs = 8.0 * n * (double)n * wu->n_incidence;
    return wu->solver == MOM_FAITHFUL ? lu + 8.0 / 3 * n * (double)n * n + rhs : lu + rhs;
}

/* The unknowns wu makes: its cells, times q for LCN (the cells cut first,
 * so a system too large is refused before LCN's corrections are made). */
static orr_status count_unknowns(const mom_workunit *wu, int *n, orr_error *err)
{
    mom_geometry g;
    orr_status st = mom_geometry_init(wu, &g, err);
    if (st == ORR_OK)
        *n = g.n * (wu->method == MOM_METHOD_LCN ? wu->order : 1);
    mom_geometry_free(&g);
    return st;
}

static orr_status load_work_unit(const mom_cli *opt, mom_workunit *wu, mom_problem *p,
                                 orr_unit_cost *cost, orr_error *err)
{
    char path[4096];
    int n = 0;
    orr_runtime_resolve(opt->job.wu_file, path, sizeof path);
    orr_status st = mom_workunit_load(path, wu, err);
    if (st == ORR_OK && wu->solver == MOM_FAITHFUL && wu->precision == MOM_SINGLE)
        st = orr_fail(err, ORR_ERR_UNSUPPORTED, "%s: the faithful solver runs in double only", path);
    if (st == ORR_OK)
        st = count_unknowns(wu, &n, err);
    if (st != ORR_OK)
        return st;
    unit_cost(wu, n, cost);
    st = orr_cost_limits(cost, path, err);
    if (st == ORR_OK)
        st = orr_cost_host_fits(cost, path, err);
    return st == ORR_OK ? mom_problem_init(wu, p, err) : st;
}

/* The circle's interior resonances: a zero of some J_n within
 * RESONANCE_GAP of ka (relative), found by a sign change of J_n (glibc's,
 * host only) and bisection; writes the warning, or leaves it empty. */
#define RESONANCE_GAP 0.02

static double bisect_zero(int n, double lo, double hi)
{
    for (int i = 0; i < 60; i++) {
        const double mid = 0.5 * (lo + hi);
        if ((jn(n, lo) < 0) == (jn(n, mid) < 0))
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void resonance_warning(const mom_workunit *wu, double k, char *out, size_t size)
{
    out[0] = 0;
    if (wu->shape != MOM_CIRCLE)
        return;
    const double ka = k * wu->radius, lo = ka * (1 - RESONANCE_GAP), hi = ka * (1 + RESONANCE_GAP);
    double best = INFINITY, zero = 0;
    int order = 0;
    for (int n = 0; n <= (int)ka + 10; n++)
        for (double x = lo; x < hi; x += 1e-3 * ka)
            if ((jn(n, x) < 0) != (jn(n, x + 1e-3 * ka) < 0)) {
                const double z = bisect_zero(n, x, x + 1e-3 * ka);
                if (fabs(z - ka) < best)
                    best = fabs(z - ka), zero = z, order = n;
            }
    if (best < INFINITY)
        snprintf(out, size,
                 "ka %.6g is %.2f%% from %.6g, a zero of J_%d: an interior resonance, where the EFIE's "
                 "solution is not unique",
                 ka, 100 * best / ka, zero, order);
}

void mom_current_path(const mom_cli *opt, char *path, size_t size)
{
    orr_runtime_resolve(opt->job.npy ? opt->job.npy : "mom_current.npy", path, size);
}

/* The results and the currents, if the work unit asks for them: checked
 * before any work, not after it. */
static orr_status check_outputs(const mom_cli *opt, const mom_workunit *wu, orr_error *err)
{
    char npy[4096];
    const char *more[1] = {npy};
    if (wu->current_every)
        mom_current_path(opt, npy, sizeof npy);
    return orr_job_check_outputs(&opt->job, more, wu->current_every ? 1 : 0, err);
}

orr_status mom_job_plan(const void *opts, orr_backend *be, void **out, orr_error *err)
{
    mom_job *job = calloc(1, sizeof *job);
    if (!job)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    job->opt = opts;
    job->be = be;
    orr_status st = load_work_unit(job->opt, &job->wu, &job->p, &job->cost, err);
    if (st == ORR_OK)
        st = check_outputs(job->opt, &job->wu, err);
    if (st == ORR_OK)
        st = mom_ops_of(be, &job->ops, err);
    if (st == ORR_OK &&
        !(job->current = malloc((size_t)job->p.n * job->wu.n_incidence * 2 * sizeof(double))))
        st = orr_fail(err, ORR_ERR_NOMEM, "out of memory for the currents");
    if (st == ORR_OK)
        st = job->ops.ops->open(job->ops.state, &job->wu, &job->p, &job->ctx, err);
    if (st != ORR_OK) {
        mom_job_free(job);
        return st;
    }
    job->identity = orr_workunit_identity(job->wu.content_hash, be);
    job->chunk = 16;
    resonance_warning(&job->wu, job->p.g.k, job->warning, sizeof job->warning);
    if (job->warning[0])
        orr_log("mom: warning: %s", job->warning);
    orr_log("mom: %d unknowns, %d right-hand sides, %s solver, %s, k %.6g", job->p.n,
            job->wu.n_incidence, mom_solver_names[job->wu.solver],
            mom_precision_names[job->wu.precision], job->p.g.k);
    *out = job;
    return ORR_OK;
}

void mom_job_free(void *p)
{
    mom_job *job = p;
    if (!job)
        return;
    if (job->ctx)
        job->ops.ops->close(job->ctx);
    free(job->current);
    free(job->payload);
    mom_problem_free(&job->p);
    mom_workunit_free(&job->wu);
    free(job);
}

/* ---- checkpoint ---- */

void mom_job_checkpoint(const void *p, orr_checkpoint_spec *spec)
{
    const mom_job *job = p;
    orr_job_checkpoint_spec(&job->opt->job, MOM_CHECKPOINT_FILE, MOM_KIND_NAME, job->identity, spec);
}

static mom_ckpt_head head_of(const mom_job *job, int reported)
{
    mom_ckpt_head h = {MOM_CKPT_VERSION, job->p.n, job->wu.n_incidence, (int32_t)job->phase,
                       job->next, reported, {0}, {0}};
    memcpy(h.seconds, job->seconds, sizeof h.seconds);
    for (int s = 0; !reported && s < MOM_N_STATES; s++)
        h.bytes[s] = job->ops.ops->state_bytes(job->ctx, (mom_state)s);
    return h;
}

orr_status mom_job_pack(mom_job *job, orr_error *err)
{
    const mom_ckpt_head h = head_of(job, 0);
    size_t size = sizeof h;
    free(job->payload);   /* first: the old and the new payload would hold the state twice */
    job->payload = NULL;
    job->payload_size = 0;
    for (int s = 0; s < MOM_N_STATES; s++)
        size += h.bytes[s];
    unsigned char *buf = malloc(size), *at = buf + sizeof h;
    if (!buf)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the checkpoint (%zu bytes)", size);
    memcpy(buf, &h, sizeof h);
    orr_status st = ORR_OK;
    for (int s = 0; st == ORR_OK && s < MOM_N_STATES; at += h.bytes[s], s++)
        st = job->ops.ops->read(job->ctx, (mom_state)s, at, err);
    if (st != ORR_OK) {
        free(buf);
        return st;
    }
    free(job->payload);
    job->payload = buf;
    job->payload_size = size;
    return ORR_OK;
}

/* After the report a restart has nothing left to do: the head alone. */
orr_status mom_job_pack_reported(mom_job *job, orr_error *err)
{
    mom_ckpt_head *h = malloc(sizeof *h);
    if (!h)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    *h = head_of(job, 1);
    free(job->payload);
    job->payload = (unsigned char *)h;
    job->payload_size = sizeof *h;
    return ORR_OK;
}

const void *mom_job_payload(const void *p, size_t *size)
{
    const mom_job *job = p;
    *size = job->payload_size;
    return job->payload;
}

static orr_status bad_ckpt(const char *path, const char *what, orr_error *err)
{
    return orr_fail(err, ORR_ERR_CHECKPOINT, "%s: %s", path, what);
}

static orr_status check_head(const mom_job *job, const mom_ckpt_head *h, size_t size,
                             const char *path, orr_error *err)
{
    if (h->version != MOM_CKPT_VERSION || h->n != job->p.n || h->nrhs != job->wu.n_incidence)
        return bad_ckpt(path, "another layout or work unit", err);
    if (h->reported != 0 && h->reported != 1)
        return bad_ckpt(path, "the report flag is out of range", err);
    if (h->reported)
        return size == sizeof *h ? ORR_OK : bad_ckpt(path, "its size does not match its head", err);
    const int block = job->ops.ops->block(job->ctx);
    if (h->phase < MOM_PHASE_FILL || h->phase > MOM_PHASE_SOLVE || h->next < 0 || h->next > h->n ||
        (h->phase == MOM_PHASE_FACTOR && h->next % block && h->next != h->n))
        return bad_ckpt(path, "its phase or position is out of range", err);
    size_t need = sizeof *h;
    for (int s = 0; s < MOM_N_STATES; s++) {
        if (h->bytes[s] != job->ops.ops->state_bytes(job->ctx, (mom_state)s))
            return bad_ckpt(path, "a state array's size does not match this work unit", err);
        need += h->bytes[s];
    }
    return need == size ? ORR_OK : bad_ckpt(path, "its size does not match its head", err);
}

orr_status mom_job_restore(void *p, const void *payload, size_t size, const char *path,
                           int *reported, orr_error *err)
{
    mom_job *job = p;
    mom_ckpt_head h;
    if (size < sizeof h)
        return bad_ckpt(path, "too short", err);
    memcpy(&h, payload, sizeof h);
    orr_status st = check_head(job, &h, size, path, err);
    if (st != ORR_OK || (*reported = h.reported))
        return st;
    const unsigned char *at = (const unsigned char *)payload + sizeof h;
    for (int s = 0; st == ORR_OK && s < MOM_N_STATES; at += h.bytes[s], s++)
        st = job->ops.ops->write(job->ctx, (mom_state)s, at, err);
    if (st != ORR_OK)
        return st;   /* the run starts from zero: every phase rewrites what it reads */
    job->phase = (mom_phase)h.phase;
    job->next = h.next;
    memcpy(job->seconds, h.seconds, sizeof job->seconds);
    static const char *const phases[] = {"fill", "factorisation", "solve"};
    orr_log("resuming from checkpoint: %s, column %d of %d", phases[job->phase], job->next, job->p.n);
    return ORR_OK;
}

/* ---- --check ---- */

orr_status mom_check_tool(const mom_cli *opt, orr_error *err)
{
    mom_workunit wu;
    mom_problem p;
    memset(&wu, 0, sizeof wu);
    memset(&p, 0, sizeof p);
    orr_unit_cost cost;
    orr_status st = load_work_unit(opt, &wu, &p, &cost, err);
    if (st == ORR_OK) {
        printf("unknowns %d\n", p.n);
        printf("cells %d\n", p.g.n);
        printf("solver %s\n", mom_solver_names[wu.solver]);
        printf("precision %s\n", mom_precision_names[wu.precision]);
        printf("right_hand_sides %d\n", wu.n_incidence);
        printf("echo_angles %d\n", wu.n_echo);
        printf("perimeter_wavelengths %.6g\n", p.g.perimeter / wu.wavelength);
        printf("bytes %.0f\n", cost.host_bytes);
        printf("fill_entries %.0f\n", (double)p.n * p.n);
        printf("flops %.6e\n", solver_flops(&wu, p.n));
        for (int i = 0; i < wu.n_params; i++)
            printf("parameter %s %s\n", wu.param_name[i], wu.param_text[i]);
        orr_cost_print(stdout, &cost);
    }
    mom_problem_free(&p);
    mom_workunit_free(&wu);
    return st;
}
