/* Fuzz target: the FDTD work unit (docs/fdtd.md section 2) as the app
 * reads it: fdtd_workunit_parse (common/fdtd/parse.c; the input is the
 * text, not copied, so a read past its end is caught), then what plan does
 * with a work unit that parses: fdtd_setup_init (setup.c). What the parser
 * accepts must keep its promises (the grid and cell ranges, the Courant
 * number, the steps, the source cell live for its component under the
 * boundary, probes in 0..n+1, the CPML's fit, materials and regions,
 * release_after and energy every within the steps, the table there iff
 * waveform=table), and the setup must agree with the work unit (dt, the
 * live ranges, the coefficient tables and maps, the CPML profiles, the
 * source, the probes, the array sizes). A small grid is then stepped a few
 * steps by the reference ops (reference.c, the plain row kernels), its
 * norms taken and its arrays read back, as a run and its checkpoint do. */
#include <ctype.h>
#include <math.h>

#include "fuzz_util.h"

#include "fdtd/fdtd.h"
#include "fdtd/ops.h"
#include "fdtd/update.h"

/* setup_init allocates per cell only when there are regions (a byte of
 * material and three uint16 coefficient indices a cell, plus the
 * coefficient tables), and one double a source step (min(release_after,
 * steps)): a work unit whose setup would take more than this is only
 * parsed. The app's own limit is the host's memory (job.c). */
#define FUZZ_MAX_SETUP_BYTES (64.0 * 1024 * 1024)
/* setup paints every cell once per region: at most this many cell x region
 * tests (a 64 kB input can hold 1000 regions over a 200^3 grid). */
#define FUZZ_MAX_PAINT (1 << 26)
/* Grids of at most this many padded cells are stepped (FUZZ_STEPS steps at
 * most) by the reference ops. */
#define FUZZ_MAX_STEP_CELLS (1 << 14)
#define FUZZ_STEPS 3

static void broken(const char *what)
{
    fprintf(stderr, "fuzz_fdtd: accepted a work unit with %s\n", what);
    abort();
}

static void broken_setup(const char *what)
{
    fprintf(stderr, "fuzz_fdtd: setup of an accepted work unit: %s\n", what);
    abort();
}

/* fdtd.h / docs/fdtd.md "Live cells": thesis 1..n on every axis; pec and
 * cpml 1..n+1 along the component's staggered axes, 1..n along the others. */
static int live_hi(const fdtd_workunit *wu, int f, int a)
{
    const int staggered = f < FDTD_HX ? f == a : f - FDTD_HX != a;
    return wu->n[a] + (wu->boundary != FDTD_THESIS && staggered);
}

static int valid_name(const char *s)
{
    const size_t n = strnlen(s, FDTD_NAME_LEN);
    if (n == 0 || n >= FDTD_NAME_LEN || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

static void check_workunit(const fdtd_workunit *wu)
{
    if (wu->n_params < 0 || wu->n_params > FDTD_MAX_PARAMS)
        broken("a bad parameter count");
    for (int i = 0; i < wu->n_params; i++) {
        if (!valid_name(wu->param_name[i]) || !memchr(wu->param_text[i], '\0', 64) ||
            !wu->param_text[i][0])
            broken("a bad parameter");
        for (int j = 0; j < i; j++)
            if (strcmp(wu->param_name[i], wu->param_name[j]) == 0)
                broken("a parameter given twice");
    }
    for (int a = 0; a < 3; a++) {
        if (wu->n[a] < 1 || wu->n[a] > FDTD_MAX_N)
            broken("a grid outside 1..8192");
        if (!(wu->d[a] > 0) || !isfinite(wu->d[a]))
            broken("a cell size not finite and > 0");
    }
    if (!(wu->courant > 0 && wu->courant <= 1))
        broken("a Courant number outside (0, 1]");
    if (wu->steps < 1 || wu->steps > FDTD_MAX_STEPS)
        broken("steps outside 1..1e9");
    if ((int)wu->boundary < FDTD_THESIS || wu->boundary > FDTD_CPML)
        broken("an unknown boundary");
    if (wu->boundary == FDTD_CPML) {
        const fdtd_cpml *c = &wu->cpml;
        if (c->thickness < 1)
            broken("a CPML thinner than a cell");
        for (int a = 0; a < 3; a++)
            if (2L * c->thickness + 1 > wu->n[a])
                broken("a CPML that does not fit (2t+1 > n)");
        if (!(c->order >= 0 && c->order <= 20) || !(c->reflection > 0 && c->reflection < 1) ||
            !(c->alpha >= 0) || !isfinite(c->alpha))
            broken("bad CPML keys");
    }

    const fdtd_source *src = &wu->source;
    if ((int)src->field < FDTD_EX || src->field > FDTD_EZ)
        broken("a source on a component other than ex, ey, ez");
    for (int a = 0; a < 3; a++)
        if (src->at[a] < 1 || src->at[a] > live_hi(wu, src->field, a))
            broken("a source cell that is not live for its component");
    if ((int)src->waveform < FDTD_GAUSS || src->waveform > FDTD_TABLE)
        broken("an unknown waveform");
    if (!isfinite(src->amplitude))
        broken("an amplitude that is not finite");
    if (src->waveform != FDTD_TABLE &&
        (!(src->width > 0) || !isfinite(src->width) || !isfinite(src->delay)))
        broken("a pulse without a finite width > 0 and a finite delay");
    if (src->release_after < 0 || src->release_after > wu->steps)
        broken("release_after outside 0..steps");
    if (src->waveform == FDTD_TABLE) {
        if (src->n_table < 1 || src->n_table > FDTD_MAX_TABLE || !src->table)
            broken("waveform=table without a table");
        for (long i = 0; i < src->n_table; i++)
            if (!isfinite(src->table[i]))
                broken("a table value that is not finite");
    } else if (src->n_table != 0 || src->table) {
        broken("a table without waveform=table");
    }

    if (wu->n_probes < 0 || wu->n_probes > FDTD_MAX_PROBES || (wu->n_probes > 0) != !!wu->probes)
        broken("a bad probe count");
    for (int p = 0; p < wu->n_probes; p++) {
        const fdtd_probe *pr = &wu->probes[p];
        if ((int)pr->field < 0 || pr->field >= FDTD_N_FIELDS)
            broken("a probe of an unknown field");
        for (int a = 0; a < 3; a++)
            if (pr->at[a] < 0 || pr->at[a] > wu->n[a] + 1)
                broken("a probe outside 0..n+1");
    }
    if (wu->energy_every < 0 || wu->energy_every > wu->steps)
        broken("energy every outside 0..steps");
    if ((int)wu->arithmetic < FDTD_FAITHFUL || wu->arithmetic > FDTD_FAST ||
        (int)wu->precision < FDTD_DOUBLE || wu->precision > FDTD_SINGLE)
        broken("an unknown arithmetic or precision");

    if (wu->n_materials < 0 || wu->n_materials > FDTD_MAX_MATERIALS ||
        (wu->n_materials > 0) != !!wu->materials)
        broken("a bad material count");
    for (int m = 0; m < wu->n_materials; m++) {
        const fdtd_material *mat = &wu->materials[m];
        if (!valid_name(mat->name) || strcmp(mat->name, "vacuum") == 0)
            broken("a bad material name");
        for (int j = 0; j < m; j++)
            if (strcmp(mat->name, wu->materials[j].name) == 0)
                broken("a material defined twice");
        if (!(mat->eps_r > 0) || !isfinite(mat->eps_r) || !(mat->sigma >= 0) ||
            !isfinite(mat->sigma))
            broken("a material without finite eps_r > 0 and sigma >= 0");
    }
    if (wu->n_regions < 0 || wu->n_regions > FDTD_MAX_REGIONS ||
        (wu->n_regions > 0) != !!wu->regions)
        broken("a bad region count");
    for (int r = 0; r < wu->n_regions; r++) {
        const fdtd_region *rg = &wu->regions[r];
        if (rg->material < -1 || rg->material >= wu->n_materials)
            broken("a region of an unknown material");
        if (rg->material >= 0 && wu->materials[rg->material].line >= rg->line)
            broken("a region naming a material defined below it");
        if (rg->kind == FDTD_BOX) {
            for (int a = 0; a < 3; a++)
                if (!isfinite(rg->lo[a]) || !isfinite(rg->hi[a]) || !(rg->lo[a] <= rg->hi[a]))
                    broken("a box whose corners are not finite and ordered");
        } else if (rg->kind == FDTD_SPHERE) {
            for (int a = 0; a < 3; a++)
                if (!isfinite(rg->centre[a]))
                    broken("a sphere whose centre is not finite");
            if (!(rg->radius > 0) || !isfinite(rg->radius))
                broken("a sphere without a finite radius > 0");
        } else {
            broken("a region of an unknown kind");
        }
    }
    if (wu->snapshot && ((int)wu->snapshot_field < 0 || wu->snapshot_field >= FDTD_N_FIELDS ||
                         wu->snapshot_every < 1 || wu->snapshot_every > FDTD_MAX_N))
        broken("a bad snapshot");
}

static long flat(const fdtd_setup *s, const int at[3])
{
    return at[0] + s->sx * (at[1] + s->sy * (long)at[2]);
}

static void check_setup(const fdtd_workunit *wu, const fdtd_setup *s)
{
    for (int a = 0; a < 3; a++)
        if (s->n[a] != wu->n[a] || s->d[a] != wu->d[a])
            broken_setup("the grid is not the work unit's");
    if (s->sx != s->n[0] + 2 || s->sy != s->n[1] + 2 || s->sz != s->n[2] + 2 ||
        s->cells != (size_t)s->sx * (size_t)s->sy * (size_t)s->sz)
        broken_setup("padded sizes that do not add up");
    if (!(s->dt > 0) || !isfinite(s->dt))
        broken_setup("dt is not finite and > 0");
    if (s->real_bytes != (wu->precision == FDTD_SINGLE ? 4 : 8))
        broken_setup("the precision's size is wrong");
    for (int f = 0; f < FDTD_N_FIELDS; f++)
        for (int a = 0; a < 3; a++)
            if (s->lo[f][a] != 1 || s->hi[f][a] != live_hi(wu, f, a))
                broken_setup("a live range that is not the boundary's");

    if (s->n_coef < 1 || !s->ca || !s->cb || !s->eps)
        broken_setup("no coefficient table");
    if (s->ca[0] != 1)
        broken_setup("ca[0] (vacuum) is not 1");
    if (wu->n_regions == 0) {
        if (s->n_coef != 1 || s->coef_map[0] || s->coef_map[1] || s->coef_map[2])
            broken_setup("coefficient maps for a vacuum grid");
    } else {
        if (s->n_coef > 65535)
            broken_setup("more coefficients than a map index holds");
        for (int f = 0; f < 3; f++) {
            if (!s->coef_map[f])
                broken_setup("a missing coefficient map");
            for (size_t c = 0; c < s->cells; c++)
                if (s->coef_map[f][c] >= s->n_coef)
                    broken_setup("a map index beyond the coefficient table");
        }
    }

    const int cpml = wu->boundary == FDTD_CPML;
    if (s->pml != (cpml ? wu->cpml.thickness : 0))
        broken_setup("the CPML's thickness is not the work unit's");
    for (int a = 0; a < 3; a++)
        if (!s->be[a] != !cpml || !s->ce[a] != !cpml || !s->bh[a] != !cpml || !s->ch[a] != !cpml)
            broken_setup("CPML profiles without the CPML or the other way round");
    if (s->n_arrays != FDTD_N_FIELDS + (cpml ? FDTD_N_PSI : 0) || s->n_arrays > FDTD_MAX_ARRAYS)
        broken_setup("the wrong number of state arrays");
    for (int a = 0; a < FDTD_N_FIELDS; a++)
        if (s->array_len[a] != s->cells)
            broken_setup("a field array that is not the padded grid");
    for (int q = 0; cpml && q < FDTD_N_PSI; q++) {
        /* psi arrays: the layer's 2t planes across their axis (q / 4) */
        const int axis = q / 4;
        const long across = axis == 0 ? s->sx : axis == 1 ? s->sy : s->sz;
        if (s->array_len[FDTD_N_FIELDS + q] != s->cells / (size_t)across * 2 * (size_t)s->pml ||
            s->array_len[FDTD_N_FIELDS + q] > s->cells)
            broken_setup("a psi array of the wrong size");
    }

    const long m = wu->source.release_after < wu->steps ? wu->source.release_after : wu->steps;
    if (s->n_source != m || !s->source)
        broken_setup("the source's steps are not min(release_after, steps)");
    if (s->source_at < 0 || (size_t)s->source_at >= s->cells ||
        s->source_at != flat(s, wu->source.at))
        broken_setup("the source cell is outside the grid");
    if (s->n_probes < 1 || s->n_probes != (wu->n_probes ? wu->n_probes : 1) || !s->probes ||
        !s->probe_at)
        broken_setup("a bad probe count");
    for (int p = 0; p < s->n_probes; p++) {
        for (int a = 0; a < 3; a++)
            if (s->probes[p].at[a] < 0 || s->probes[p].at[a] > s->n[a] + 1)
                broken_setup("a probe outside 0..n+1");
        if (s->probe_at[p] < 0 || (size_t)s->probe_at[p] >= s->cells ||
            s->probe_at[p] != flat(s, s->probes[p].at))
            broken_setup("a probe's flat index outside the grid");
    }
    if (!(s->state_bytes > 0) || !(s->map_bytes >= 0) || !(s->flops_per_step > 0))
        broken_setup("sizes that are not positive");
}

/* What setup_init would allocate and how long it would paint (above). */
static int setup_fits(const fdtd_workunit *wu)
{
    const double cells = (double)(wu->n[0] + 2) * (wu->n[1] + 2) * (wu->n[2] + 2);
    const long m = wu->source.release_after < wu->steps ? wu->source.release_after : wu->steps;
    double bytes = ((double)m + 1) * sizeof(double);
    if (wu->n_regions)
        bytes += cells * (1 + 3 * sizeof(uint16_t)) + 65535.0 * 3 * sizeof(double) +
                 (1 << 17) * (sizeof(uint32_t) + sizeof(uint16_t));
    return bytes <= FUZZ_MAX_SETUP_BYTES && cells * wu->n_regions <= FUZZ_MAX_PAINT;
}

/* A few steps of the reference ops, the norms, every array read back. */
static void step_some(const fdtd_workunit *wu, const fdtd_setup *s)
{
    orr_error err;
    orr_error_clear(&err);
    fdtd_bound_ops ops;
    fdtd_ctx *ctx = NULL;
    if (fdtd_ops_of(NULL, &ops, &err) != ORR_OK ||
        ops.ops->open(ops.state, wu, s, &ctx, &err) != ORR_OK)
        broken_setup("the reference ops do not open");
    const int count = wu->steps < FUZZ_STEPS ? (int)wu->steps : FUZZ_STEPS;
    double *probes = malloc((size_t)count * s->n_probes * sizeof *probes);
    double *energy = malloc((FUZZ_STEPS + 1) * sizeof *energy);
    void *raw = malloc(s->cells * (size_t)s->real_bytes);
    if (!probes || !energy || !raw)
        abort();
    double l2[FDTD_N_FIELDS], max[FDTD_N_FIELDS];
    if (ops.ops->steps(ctx, 1, count, probes, energy, &err) != ORR_OK ||
        ops.ops->norms(ctx, l2, max, &err) != ORR_OK)
        broken_setup("the reference ops fail to step");
    for (int a = 0; a < s->n_arrays; a++)
        if (ops.ops->read(ctx, a, raw, &err) != ORR_OK)
            broken_setup("a state array cannot be read");
    ops.ops->close(ctx);
    free(probes);
    free(energy);
    free(raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    orr_error err;
    orr_error_clear(&err);
    fdtd_workunit wu;
    const orr_status st = fdtd_workunit_parse("fuzz.txt", (const char *)data, size, &wu, &err);
    if (st != ORR_OK) {
        /* a refused work unit is freed and zeroed: fdtd_workunit_free is safe */
        if (wu.source.table || wu.probes || wu.materials || wu.regions)
            broken("memory left after it was refused");
        if (st != ORR_ERR_INPUT || err.status != st || !err.message[0])
            broken("a refusal that is not an input error with a message");
        fdtd_workunit_free(&wu);
        return 0;
    }
    check_workunit(&wu);
    if (setup_fits(&wu)) {
        fdtd_setup s;
        if (fdtd_setup_init(&wu, &s, &err) == ORR_OK) {
            check_setup(&wu, &s);
            if (s.cells <= FUZZ_MAX_STEP_CELLS)
                step_some(&wu, &s);
            fdtd_setup_free(&s);
        } else if (err.status != ORR_ERR_INPUT) {
            /* the default probe off the grid, or over 65535 edge materials */
            fprintf(stderr, "fuzz_fdtd: %s\n", err.message);
            broken_setup("refused, and not for the work unit");
        }
    }
    fdtd_workunit_free(&wu);
    return 0;
}
