/* Fuzz target: the MoM work unit (docs/mom.md section 2) as the app reads
 * it: mom_workunit_parse (common/mom/parse.c on common/io/wutext.c; the
 * input is the text itself, so a read past its end is caught). A refused
 * unit must come back zeroed with an input error naming the file; an
 * accepted one must keep the parser's promises (a finite wavelength > 0; a
 * circle's radius, or a counter-clockwise polygon of 3..100000 finite
 * vertices without zero-length edges and with at least one cell an edge;
 * cells xor density in range; method and order; incidence and echo angles
 * finite and counted; solver, precision, not mixed in single; current's
 * decimation). A unit of at most FUZZ_MAX_UNKNOWNS unknowns is then cut
 * into cells (geometry.c; LCN's nodes and corrections, lcn.c) and solved
 * by the reference ops, as a run does, the echo widths taken. */
#include <math.h>

#include "fuzz_util.h"

#include "mom/ops.h"

#define FUZZ_MAX_UNKNOWNS 64

static void broken(const char *what)
{
    fprintf(stderr, "fuzz_mom: accepted a work unit with %s\n", what);
    abort();
}

static void check_polygon(const mom_workunit *wu)
{
    if (wu->n_vertices < 3 || wu->n_vertices > MOM_MAX_VERTICES || !wu->vertex)
        broken("a bad vertex count");
    double area = 0;
    for (int i = 0; i < wu->n_vertices; i++) {
        const double *p = wu->vertex + 2 * i, *q = wu->vertex + 2 * ((i + 1) % wu->n_vertices);
        if (!isfinite(p[0]) || !isfinite(p[1]))
            broken("a vertex that is not finite");
        if (p[0] == q[0] && p[1] == q[1])
            broken("a zero-length edge");
        area += p[0] * q[1] - q[0] * p[1];
    }
    if (!(area > 0) || !isfinite(area))
        broken("a polygon that is not counter-clockwise");
    if (wu->cells && wu->cells < wu->n_vertices)
        broken("fewer cells than edges");
}

static void check_angles(const double *deg, int n, int least)
{
    if (n < least || n > MOM_MAX_ANGLES || (n > 0) != !!deg)
        broken("a bad angle count");
    for (int i = 0; i < n; i++)
        if (!isfinite(deg[i]))
            broken("an angle that is not finite");
}

static void check_workunit(const mom_workunit *wu)
{
    if (!(wu->wavelength > 0) || !isfinite(wu->wavelength))
        broken("a wavelength not finite and > 0");
    if (wu->shape == MOM_CIRCLE) {
        if (!(wu->radius > 0) || !isfinite(wu->radius) || wu->n_vertices || wu->vertex)
            broken("a bad circle");
    } else if (wu->shape == MOM_POLYGON) {
        check_polygon(wu);
    } else {
        broken("an unknown shape");
    }
    if ((wu->cells != 0) == (wu->density != 0))
        broken("both or neither of cells and density");
    if (wu->cells && (wu->cells < 3 || wu->cells > MOM_MAX_CELLS))
        broken("cells out of range");
    if (wu->density && (!(wu->density > 0) || !isfinite(wu->density)))
        broken("a density not finite and > 0");
    if ((int)wu->method < MOM_METHOD_MOM || wu->method > MOM_METHOD_LCN || wu->order < 1 ||
        wu->order > MOM_MAX_ORDER)
        broken("a bad method or order");
    check_angles(wu->incidence, wu->n_incidence, 1);
    check_angles(wu->echo, wu->n_echo, 0);
    if ((int)wu->solver < MOM_REFERENCE || wu->solver > MOM_MIXED || (int)wu->precision < MOM_DOUBLE ||
        wu->precision > MOM_SINGLE || (wu->solver == MOM_MIXED && wu->precision == MOM_SINGLE))
        broken("a bad solver or precision");
    if (wu->current_every < 0 || wu->current_every > MOM_MAX_CELLS)
        broken("a bad current decimation");
    if (wu->n_params < 0 || wu->n_params > MOM_MAX_PARAMS)
        broken("a bad parameter count");
}

/* The unknowns without making them: cells (density over the perimeter)
 * times q; 0 when too many to try. */
static int unknowns(const mom_workunit *wu)
{
    double perimeter = 2 * M_PI * wu->radius;
    if (wu->shape == MOM_POLYGON) {
        perimeter = 0;
        for (int i = 0; i < wu->n_vertices; i++) {
            const double *p = wu->vertex + 2 * i, *q = wu->vertex + 2 * ((i + 1) % wu->n_vertices);
            perimeter += hypot(q[0] - p[0], q[1] - p[1]);
        }
    }
    const double cells = wu->cells ? wu->cells
                                   : wu->density * perimeter / wu->wavelength + wu->n_vertices + 1;
    const double n = cells * (wu->method == MOM_METHOD_LCN ? wu->order : 1);
    return n <= FUZZ_MAX_UNKNOWNS ? (int)n : 0;
}

/* Cut, fill, factor and solve as a run does; the refusals allowed are
 * input errors (too many or too few cells from the density) and a
 * singular or unstable system (faithful without pivoting). */
static void solve_small(const mom_workunit *wu)
{
    orr_error err;
    orr_error_clear(&err);
    mom_problem p;
    if (mom_problem_init(wu, &p, &err) != ORR_OK) {
        if (err.status != ORR_ERR_INPUT)
            broken("a problem refused, and not for the work unit");
        return;
    }
    mom_ctx *ctx = NULL;
    double *x = malloc((size_t)p.n * wu->n_incidence * 2 * sizeof *x);
    double *sigma = malloc(((size_t)wu->n_echo + 1) * sizeof *sigma);
    if (!x || !sigma || mom_reference_ops.open(NULL, wu, &p, &ctx, &err) != ORR_OK)
        abort();
    orr_status st = mom_reference_ops.fill(ctx, 0, p.n, &err);
    for (int j = 0; st == ORR_OK && j < p.n; j += mom_reference_ops.block(ctx))
        st = mom_reference_ops.factor(ctx, j, &err);
    mom_solve_info info;
    if (st == ORR_OK)
        st = mom_reference_ops.solve(ctx, x, &info, &err);
    if (st == ORR_OK)
        mom_echo_widths(&p, x, wu->n_echo, wu->echo, sigma);
    else if (err.status != ORR_ERR_NUMERIC)
        broken("a solve that fails for a reason other than the numbers");
    mom_reference_ops.close(ctx);
    mom_problem_free(&p);
    free(x);
    free(sigma);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    orr_error err;
    orr_error_clear(&err);
    mom_workunit wu;
    const orr_status st = mom_workunit_parse("fuzz.txt", (const char *)data, size, &wu, &err);
    if (st != ORR_OK) {
        static const mom_workunit zero;
        if (memcmp(&wu, &zero, sizeof wu) != 0)
            broken("memory left after it was refused");
        if (st != ORR_ERR_INPUT || err.status != st || strncmp(err.message, "fuzz.txt:", 9) != 0)
            broken("a refusal that is not an input error naming the file");
        return 0;
    }
    check_workunit(&wu);
    if (unknowns(&wu))
        solve_small(&wu);
    mom_workunit_free(&wu);
    return 0;
}
