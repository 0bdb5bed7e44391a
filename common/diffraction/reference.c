/* The reference ops (ops.h): the batch in host memory, one point after
 * another. The per-point pieces (the convolution by padded FFTs on the
 * spectral kernels' CPU plans, the z operator of zop.h) are the truth the
 * other backends are tested against, and the CPU backend runs them on its
 * threads. */
#include <stdlib.h>
#include <string.h>

#include "../spectral/spectral.h"
#include "../threads.h"
#include "ops.h"
#include "zop.h"

/* A slice at a time: its padded grid (64 KB for 31 x 31 orders) stays in
 * the core's cache through pad, FFT, product, inverse FFT and crop, where
 * whole-point passes streamed every slice's grid through memory five times
 * (the CPU app's threads then shared the memory bus, not the work). */
struct dif_conv_scratch {
    spec_plan *fwd, *inv;   /* one slice */
    double complex *grid;   /* one padded grid */
    double complex *w;      /* one vector: the convolution inside a product */
    size_t *at;             /* [n_modes]: each order's place in the grid */
};

orr_status dif_conv_scratch_create(const dif_setup *s, orr_cpu_isa isa, dif_conv_scratch **out,
                                   orr_error *err)
{
    dif_conv_scratch *c = calloc(1, sizeof *c);
    const size_t grid = (size_t)s->fft_x * s->fft_y;
    if (!c || !(c->grid = malloc(grid * sizeof *c->grid)) ||
        !(c->w = malloc(s->unknowns * sizeof *c->w)) ||
        !(c->at = malloc((size_t)s->n_modes * sizeof *c->at))) {
        dif_conv_scratch_destroy(c);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the convolution's grids (%zu bytes)",
                        grid * sizeof *c->grid);
    }
    for (int q = 0; q < s->n_modes; q++)
        c->at[q] = (size_t)dif_grid_of_mode(q, s->kx, (s->kx - 1) / 2, (s->ky - 1) / 2, s->fft_x,
                                            s->fft_y);
    spec_desc d = {.kind = s->fft_y > 1 ? SPEC_FFT2 : SPEC_C2C, .precision = SPEC_F64,
                   .n = s->fft_y > 1 ? s->fft_y : s->fft_x, .n2 = s->fft_y > 1 ? s->fft_x : 0,
                   .batch = 1};
    orr_status st = spec_plan_create_on(&d, isa, &c->fwd, err);
    d.inverse = 1;
    if (st == ORR_OK)
        st = spec_plan_create_on(&d, isa, &c->inv, err);
    if (st != ORR_OK) {
        dif_conv_scratch_destroy(c);
        return st;
    }
    *out = c;
    return ORR_OK;
}

void dif_conv_scratch_destroy(dif_conv_scratch *c)
{
    if (!c)
        return;
    if (c->fwd)
        spec_plan_destroy(c->fwd);
    if (c->inv)
        spec_plan_destroy(c->inv);
    free(c->grid);
    free(c->w);
    free(c->at);
    free(c);
}

/* grid *= spectrum, in real arithmetic: C's complex product checks every
 * result for NaN, which keeps the loop scalar (the values are the same). */
static void multiply(double *restrict grid, const double *restrict spectrum, size_t n)
{
    for (size_t k = 0; k < 2 * n; k += 2) {
        const double a = grid[k], b = grid[k + 1], c = spectrum[k], d = spectrum[k + 1];
        grid[k] = a * c - b * d;
        grid[k + 1] = a * d + b * c;
    }
}

orr_status dif_conv_point(const dif_setup *s, dif_conv_scratch *c, const double complex *spectra,
                          const double complex *x, double complex *w, orr_error *err)
{
    const size_t grid = (size_t)s->fft_x * s->fft_y;
    orr_status st = ORR_OK;
    for (int i = 0; st == ORR_OK && i < s->nz; i++) {
        const double complex *xi = x + (size_t)i * s->n_modes, *si = spectra + i * grid;
        double complex *wi = w + (size_t)i * s->n_modes;
        memset(c->grid, 0, grid * sizeof *c->grid);
        for (int q = 0; q < s->n_modes; q++)
            c->grid[c->at[q]] = xi[q];
        st = spec_execute(c->fwd, c->grid, c->grid, err);
        if (st == ORR_OK)
            multiply((double *)c->grid, (const double *)si, grid);
        if (st == ORR_OK)
            st = spec_execute(c->inv, c->grid, c->grid, err);
        for (int q = 0; st == ORR_OK && q < s->n_modes; q++)
            wi[q] = c->grid[c->at[q]];
    }
    return st;
}

void dif_zop_point(const dif_setup *s, const dif_point *pt, const double complex *x,
                   const double complex *w, double complex *y)
{
    const size_t lay = (size_t)s->n_layers * DIF_LAYER_TABLE;
    for (int q = 0; q < s->n_modes; q++)
        dif_zop_order(s->n_layers, s->layer_first, (const dif_c *)(pt->lay + q * lay),
                      (const dif_c *)(pt->mt + (size_t)q * DIF_MODE_TABLE),
                      (const dif_c *)x + q, (const dif_c *)w + q, s->n_modes, (dif_c *)y + q,
                      s->n_modes);
}

/* ---- the reference's storage and ops ---- */

/* With a state (the CPU backend's: its thread pool and its path for the
 * FFTs, dif_reference_state), the points of each op are spread over its
 * threads, each with its own scratch, and each thread has a lane (ops.h)
 * for the solver to take points through whole iterations; a point's
 * arithmetic is the same on any thread and in any lane, so results do
 * not depend on the thread count. Without a pool (the reference the tests
 * hold the CPU backend against) there are no lanes: every op takes the
 * whole batch, as on a GPU. */
struct dif_ctx {
    const dif_setup *s;
    orr_pool *pool;              /* NULL: one thread */
    int capacity, n_vectors, n_scratch;
    double complex *vec;         /* [n_vectors][capacity][unknowns] */
    dif_batch b;                 /* the loaded batch (pointers into the kind's) */
    dif_conv_scratch **scratch;  /* one a thread */
    dif_ctx *lane;               /* [n_scratch]: one thread's view each (ops.h) */
};

static double complex *vec_of(dif_ctx *c, int v, int b)
{
    return c->vec + ((size_t)v * c->capacity + b) * c->s->unknowns;
}

static void ref_close(dif_ctx *c)
{
    if (!c)
        return;
    for (int i = 0; c->scratch && i < c->n_scratch; i++)
        dif_conv_scratch_destroy(c->scratch[i]);
    free(c->scratch);
    free(c->vec);
    free(c->lane);
    free(c);
}

/* Lane i: this storage, no pool, thread i's scratch. */
static orr_status make_lanes(dif_ctx *c, orr_error *err)
{
    if (!(c->lane = calloc((size_t)c->n_scratch, sizeof *c->lane)))
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int i = 0; i < c->n_scratch; i++) {
        c->lane[i] = *c;
        c->lane[i].pool = NULL;
        c->lane[i].n_scratch = 1;
        c->lane[i].scratch = &c->scratch[i];
        c->lane[i].lane = NULL;
    }
    return ORR_OK;
}

static orr_status ref_open(void *state, const dif_workunit *wu, const dif_setup *s, int *capacity,
                           int n_vectors, dif_ctx **out, orr_error *err)
{
    (void)wu;
    const dif_reference_state *rs = state;
    dif_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->s = s;
    c->pool = rs ? rs->pool : NULL;
    c->capacity = *capacity;
    c->n_vectors = n_vectors;
    c->n_scratch = c->pool ? orr_pool_threads(c->pool) : 1;
    if (c->n_scratch > c->capacity)
        c->n_scratch = c->capacity;
    const size_t bytes = (size_t)n_vectors * c->capacity * s->unknowns * sizeof *c->vec;
    orr_status st = (c->vec = malloc(bytes)) && (c->scratch = calloc((size_t)c->n_scratch,
                                                                      sizeof *c->scratch))
        ? ORR_OK
        : orr_fail(err, ORR_ERR_NOMEM, "out of memory for the solver's vectors (%zu bytes)", bytes);
    for (int i = 0; st == ORR_OK && i < c->n_scratch; i++)
        st = dif_conv_scratch_create(s, rs ? rs->isa : ORR_CPU_BEST, &c->scratch[i], err);
    if (st == ORR_OK && rs)
        orr_log("diffraction: FFTs on the %s lane kernels", spec_plan_isa_name(c->scratch[0]->fwd));
    if (st == ORR_OK && c->pool)   /* without a pool: whole-batch ops, as a GPU runs them */
        st = make_lanes(c, err);
    if (st != ORR_OK) {
        ref_close(c);
        return st;
    }
    *out = c;
    return ORR_OK;
}

static orr_status ref_load(dif_ctx *c, const dif_batch *b, orr_error *err)
{
    (void)err;
    c->b = *b;
    for (int i = 0; c->lane && i < c->n_scratch; i++)
        c->lane[i].b = *b;
    return ORR_OK;
}

static const double complex *spectra_of(const dif_ctx *c, int b)
{
    const size_t per = (size_t)c->s->nz * c->s->fft_x * c->s->fft_y;
    return c->b.spectra + per * c->b.spectrum_of[b];
}

/* One op on every active point: fn(c, a, scratch) for a < n_active. */
typedef struct {
    dif_ctx *c;
    const int *active;
    int n_active, tasks;
    const void *args;
    orr_status (*fn)(dif_ctx *c, const void *args, int a, int b, dif_conv_scratch *scratch,
                     orr_error *err);
    orr_status *status;   /* [tasks] */
    orr_error *errors;    /* [tasks] */
} point_op;

static void point_task(void *arg, int t)
{
    point_op *op = arg;
    op->status[t] = ORR_OK;
    for (int a = t; a < op->n_active && op->status[t] == ORR_OK; a += op->tasks)
        op->status[t] = op->fn(op->c, op->args, a, op->active[a], op->c->scratch[t], &op->errors[t]);
}

static orr_status each_point(dif_ctx *c, const int *active, int n_active, const void *args,
                             orr_status (*fn)(dif_ctx *, const void *, int, int,
                                              dif_conv_scratch *, orr_error *),
                             orr_error *err)
{
    orr_status status[64];
    orr_error errors[64];
    int tasks = c->n_scratch < n_active ? c->n_scratch : n_active;
    if (tasks > 64)
        tasks = 64;
    point_op op = {c, active, n_active, tasks < 1 ? 1 : tasks, args, fn, status, errors};
    if (c->pool && op.tasks > 1)
        orr_pool_run(c->pool, op.tasks, point_task, &op);
    else
        point_task(&op, 0);
    for (int t = 0; t < op.tasks; t++)
        if (status[t] != ORR_OK) {
            *err = errors[t];
            return status[t];
        }
    return ORR_OK;
}

typedef struct {
    int in, out, n_pairs, n_terms;
    const int *v;
    const double complex *coef;
    double complex *dots;
} op_args;

static orr_status conv_one(dif_ctx *c, const void *args, int a, int b, dif_conv_scratch *scr,
                           orr_error *err)
{
    const op_args *o = args;
    (void)a;
    return dif_conv_point(c->s, scr, spectra_of(c, b), vec_of(c, o->in, b), vec_of(c, o->out, b),
                          err);
}

static orr_status matvec_one(dif_ctx *c, const void *args, int a, int b, dif_conv_scratch *scr,
                             orr_error *err)
{
    const op_args *o = args;
    (void)a;
    orr_status st = dif_conv_point(c->s, scr, spectra_of(c, b), vec_of(c, o->in, b), scr->w, err);
    if (st == ORR_OK)
        dif_zop_point(c->s, &c->b.pt[b], vec_of(c, o->in, b), scr->w, vec_of(c, o->out, b));
    return st;
}

/* <x, y>, conjugating x, in real arithmetic (the same values as C's
 * complex product, without its NaN checks). */
static double complex dot(const double *restrict x, const double *restrict y, size_t n)
{
    double re = 0, im = 0;
    for (size_t i = 0; i < 2 * n; i += 2) {
        re += x[i] * y[i] + x[i + 1] * y[i + 1];
        im += x[i] * y[i + 1] - x[i + 1] * y[i];
    }
    return re + I * im;
}

static orr_status dots_one(dif_ctx *c, const void *args, int a, int b, dif_conv_scratch *scr,
                           orr_error *err)
{
    const op_args *o = args;
    (void)scr;
    (void)err;
    for (int k = 0; k < o->n_pairs; k++)
        o->dots[(size_t)a * o->n_pairs + k] = dot((const double *)vec_of(c, o->v[2 * k], b),
                                                  (const double *)vec_of(c, o->v[2 * k + 1], b),
                                                  c->s->unknowns);
    return ORR_OK;
}

/* out = sum_t k[t] v[t] in real arithmetic, term by term as C's complex
 * sum would (the same values). out may be one of v: each element is read
 * before it is written. Inlined with n_terms a constant (combine_n), so
 * the term loop unrolls. */
static inline void combine(double *out, int n_terms, const double *const *v, const double *kr,
                           const double *ki, size_t n)
{
    for (size_t i = 0; i < 2 * n; i += 2) {
        double re = 0, im = 0;
        for (int t = 0; t < n_terms; t++) {
            re += kr[t] * v[t][i] - ki[t] * v[t][i + 1];
            im += kr[t] * v[t][i + 1] + ki[t] * v[t][i];
        }
        out[i] = re;
        out[i + 1] = im;
    }
}

static void combine_n(double *out, int n_terms, const double *const *v, const double complex *k,
                      size_t n)
{
    double kr[4], ki[4];
    for (int t = 0; t < n_terms; t++) {
        kr[t] = creal(k[t]);
        ki[t] = cimag(k[t]);
    }
    switch (n_terms) {
    case 1: combine(out, 1, v, kr, ki, n); break;
    case 2: combine(out, 2, v, kr, ki, n); break;
    case 3: combine(out, 3, v, kr, ki, n); break;
    default: combine(out, 4, v, kr, ki, n); break;
    }
}

static orr_status lincomb_one(dif_ctx *c, const void *args, int a, int b, dif_conv_scratch *scr,
                              orr_error *err)
{
    const op_args *o = args;
    const double *v[4];
    (void)scr;
    (void)err;
    for (int t = 0; t < o->n_terms; t++)
        v[t] = (const double *)vec_of(c, o->v[t], b);
    combine_n((double *)vec_of(c, o->out, b), o->n_terms, v, o->coef + (size_t)a * o->n_terms,
              c->s->unknowns);
    return ORR_OK;
}

static orr_status ref_conv(dif_ctx *c, const int *active, int n_active, int in, int out,
                           orr_error *err)
{
    const op_args o = {.in = in, .out = out};
    return each_point(c, active, n_active, &o, conv_one, err);
}

static orr_status ref_matvec(dif_ctx *c, const int *active, int n_active, int in, int out,
                             orr_error *err)
{
    const op_args o = {.in = in, .out = out};
    return each_point(c, active, n_active, &o, matvec_one, err);
}

static orr_status ref_dots(dif_ctx *c, const int *active, int n_active, int n_pairs, const int *v,
                           double complex *dots, orr_error *err)
{
    const op_args o = {.n_pairs = n_pairs, .v = v, .dots = dots};
    return each_point(c, active, n_active, &o, dots_one, err);
}

static orr_status ref_lincomb(dif_ctx *c, const int *active, int n_active, int out, int n_terms,
                              const int *v, const double complex *coef, orr_error *err)
{
    if (n_terms > 4)
        return orr_fail(err, ORR_ERR_INTERNAL, "lincomb of %d terms (at most 4)", n_terms);
    const op_args o = {.out = out, .n_terms = n_terms, .v = v, .coef = coef};
    return each_point(c, active, n_active, &o, lincomb_one, err);
}

static orr_status ref_read(dif_ctx *c, int b, int v, double complex *host, orr_error *err)
{
    (void)err;
    memcpy(host, vec_of(c, v, b), c->s->unknowns * sizeof *host);
    return ORR_OK;
}

static orr_status ref_write(dif_ctx *c, int b, int v, const double complex *host, orr_error *err)
{
    (void)err;
    memcpy(vec_of(c, v, b), host, c->s->unknowns * sizeof *host);
    return ORR_OK;
}

static int ref_lanes(const dif_ctx *c)
{
    return c->lane ? c->n_scratch : 0;
}

typedef struct {
    dif_ctx *c;
    void (*fn)(void *arg, dif_ctx *lane, int i);
    void *arg;
} lane_run;

static void lane_task(void *arg, int i)
{
    lane_run *r = arg;
    r->fn(r->arg, &r->c->lane[i], i);
}

static void ref_run_lanes(dif_ctx *c, void (*fn)(void *arg, dif_ctx *lane, int i), void *arg)
{
    lane_run r = {c, fn, arg};
    if (c->pool && c->n_scratch > 1)
        orr_pool_run(c->pool, c->n_scratch, lane_task, &r);
    else
        lane_task(&r, 0);
}

const dif_ops dif_reference_ops = {
    .open = ref_open,
    .close = ref_close,
    .load = ref_load,
    .matvec = ref_matvec,
    .conv = ref_conv,
    .dots = ref_dots,
    .lincomb = ref_lincomb,
    .read = ref_read,
    .write = ref_write,
    .lanes = ref_lanes,
    .run_lanes = ref_run_lanes,
};

orr_status dif_ops_of(orr_backend *be, dif_bound_ops *out, orr_error *err)
{
    out->ops = &dif_reference_ops;
    out->state = NULL;
    if (!be)
        return ORR_OK;
    const orr_kind_slot *slot;
    orr_status st = orr_backend_slot(be, DIF_KIND_NAME, &slot, err);
    if (st == ORR_OK && slot->ops) {
        out->ops = slot->ops;
        out->state = slot->state;
    }
    return st;
}
