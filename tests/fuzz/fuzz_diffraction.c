/* Fuzz target: the diffraction work unit (docs/diffraction.md section 2)
 * as the app reads it: dif_workunit_parse (common/diffraction/parse.c;
 * the input is the text, not copied, so a read past its end is caught),
 * then what plan does with a work unit that parses: dif_setup_init
 * (setup.c) and every point's Rayleigh check, dif_point_check. What the
 * parser accepts must satisfy what it promises (indices in range, shape
 * centres within a period, the spectrum's limits, every material defined
 * at every wavelength, a lossless superstrate, no two shapes of a layer
 * overlapping), and the setup must agree with the work unit. */
#include <complex.h>
#include <math.h>

#include "fuzz_util.h"

#include "diffraction/diffraction.h"

/* One point's tables are allocated only for work units whose point the
 * app would hold in at most this much (its own limit is 8 GiB, job.c):
 * larger ones are set up and sized, not checked point by point. */
#define FUZZ_MAX_POINT_BYTES (64.0 * 1024 * 1024)
/* Points times orders checked at most (every point below this, else the
 * first, the last and an even sample): the app checks every point, but a
 * 64 kB input can ask for 1e5 points of 261121 orders each. */
#define FUZZ_MAX_ORDER_CHECKS (1 << 22)
#define FUZZ_SAMPLE_POINTS 64

static void broken(const char *what)
{
    fprintf(stderr, "fuzz_diffraction: accepted a work unit with %s\n", what);
    abort();
}

static void check_workunit(const dif_workunit *wu)
{
    if (!(wu->period_x > 0 && isfinite(wu->period_x)) || !(wu->period_y >= 0) ||
        !isfinite(wu->period_y))
        broken("a bad period");
    if (wu->mx < 0 || wu->mx > DIF_MAX_ORDERS || wu->my < 0 || wu->my > DIF_MAX_ORDERS ||
        (wu->period_y == 0 && wu->my != 0))
        broken("bad orders");
    if (wu->n_materials < 1 || wu->superstrate < 0 || wu->superstrate >= wu->n_materials ||
        wu->substrate < 0 || wu->substrate >= wu->n_materials)
        broken("an unknown superstrate or substrate");
    for (int m = 0; m < wu->n_materials; m++) {
        const dif_material *mat = &wu->materials[m];
        if (mat->n_rows < 0)
            broken("a table of fewer than no rows");
        for (int r = 0; r < mat->n_rows; r++)
            if (!(mat->lambda[r] > 0) || (r > 0 && !(mat->lambda[r] > mat->lambda[r - 1])) ||
                !(mat->n[r] > 0) || !(mat->k[r] >= 0) || !isfinite(mat->n[r] + mat->k[r]))
                broken("a bad material table");
    }
    if (wu->n_layers < 1)
        broken("no layer");
    long slices = 0;
    int shapes = 0;
    for (int l = 0; l < wu->n_layers; l++) {
        const dif_layer *ly = &wu->layers[l];
        if (!(ly->thickness > 0) || !isfinite(ly->thickness) || ly->slices < 1 ||
            ly->background < 0 || ly->background >= wu->n_materials)
            broken("a bad layer");
        if (ly->first_shape != shapes || ly->n_shapes < 0)
            broken("a layer's shapes out of order");
        shapes += ly->n_shapes;
        slices += ly->slices;
    }
    if (shapes != wu->n_shapes || slices > DIF_MAX_SLICES)
        broken("shapes or slices that do not add up");
    for (int i = 0; i < wu->n_shapes; i++) {
        const dif_shape *sh = &wu->shapes[i];
        if (sh->material < 0 || sh->material >= wu->n_materials || !isfinite(sh->x) ||
            !isfinite(sh->y) || !(sh->wx > 0) || !isfinite(sh->wx) || !(sh->wy >= 0) ||
            !isfinite(sh->wy) || sh->wx > wu->period_x || !(fabs(sh->x) <= wu->period_x) ||
            (wu->period_y > 0 && !sh->full_y && !(fabs(sh->y) <= wu->period_y)) ||
            (sh->kind == DIF_TRAPEZOID && !(sh->swa > 0 && sh->swa < 180)))
            broken("a bad shape");
    }
    if (wu->n_wavelengths < 1 || wu->n_theta < 1 || wu->n_phi < 1 ||
        (double)wu->n_wavelengths * wu->n_theta * wu->n_phi > DIF_MAX_POINTS)
        broken("a spectrum outside the limits");
    for (int i = 0; i < wu->n_wavelengths; i++) {
        if (!(wu->wavelengths[i] > 0) || !isfinite(wu->wavelengths[i]))
            broken("a bad wavelength");
        for (int m = 0; m < wu->n_materials; m++) {
            orr_error err;
            orr_error_clear(&err);
            double complex eps;
            if (dif_material_eps(wu, m, wu->wavelengths[i], &eps, &err) != ORR_OK)
                broken("a material undefined at one of its wavelengths");
            if (m == wu->superstrate && !(cimag(eps) == 0 && creal(eps) > 0))
                broken("a lossy superstrate");
        }
    }
    for (int i = 0; i < wu->n_theta; i++)
        if (!(wu->theta[i] >= 0 && wu->theta[i] < 90))
            broken("a bad theta");
    for (int i = 0; i < wu->n_phi; i++)
        if (!(fabs(wu->phi[i]) <= 360))
            broken("a bad phi");
    if (!(wu->solver.tolerance >= 1e-15 && wu->solver.tolerance < 1) ||
        wu->solver.max_iterations < 1 || wu->solver.restart < 1)
        broken("bad solver options");
}

/* A shape's half extents in a layer of thickness t (its bounding box, as
 * docs/diffraction.md section 2 has it). */
static void extent(const dif_workunit *wu, const dif_shape *sh, double t, double *hx, double *hy)
{
    *hx = sh->kind == DIF_ELLIPSE ? sh->wx : sh->wx / 2;
    *hy = sh->kind == DIF_ELLIPSE ? sh->wy : sh->full_y ? wu->period_y / 2 : sh->wy / 2;
    if (sh->kind == DIF_TRAPEZOID) {
        const double top = sh->wx - 2 * t / tan(sh->swa * M_PI / 180);
        *hx = fmax(top, sh->wx) / 2;
    }
}

/* The distance of two centres on a circle of length period. Each centre
 * is reduced into (-period, period) first (fmod is exact), never shifted
 * by a period: a huge period swallows a small negative centre added to it. */
static double circle_distance(double a, double b, double period)
{
    const double d = fmod(fabs(fmod(a, period) - fmod(b, period)), period);
    return fmin(d, period - d);
}

/* Shapes in a layer must not overlap (bounding boxes, within the period);
 * a margin keeps boxes that touch, to rounding, out of it. */
static void check_overlaps(const dif_workunit *wu)
{
    const int two_d = wu->period_y > 0;
    for (int l = 0; l < wu->n_layers; l++) {
        const dif_layer *ly = &wu->layers[l];
        for (int i = ly->first_shape; i < ly->first_shape + ly->n_shapes; i++)
            for (int j = ly->first_shape; j < i; j++) {
                double ax, ay, bx, by;
                extent(wu, &wu->shapes[i], ly->thickness, &ax, &ay);
                extent(wu, &wu->shapes[j], ly->thickness, &bx, &by);
                const double dx = circle_distance(wu->shapes[i].x, wu->shapes[j].x, wu->period_x);
                const double dy = two_d ? circle_distance(wu->shapes[i].y, wu->shapes[j].y,
                                                          wu->period_y) : 0;
                if (dx < (ax + bx) * (1 - 1e-9) && (!two_d || dy < (ay + by) * (1 - 1e-9)))
                    broken("overlapping shapes in a layer");
            }
    }
}

static void check_setup(const dif_workunit *wu, const dif_setup *s)
{
    if (s->kx != 2 * wu->mx + 1 || s->ky != 2 * wu->my + 1 || s->n_modes != s->kx * s->ky ||
        s->n_layers != wu->n_layers ||
        s->n_points != wu->n_wavelengths * wu->n_theta * wu->n_phi || s->fft_x < 2 * s->kx - 1 ||
        s->fft_y < (wu->period_y > 0 ? 2 * s->ky - 1 : 1) ||
        s->unknowns != (size_t)s->nz * (size_t)s->n_modes)
        broken("a setup that does not match it");
    for (int l = 0; l < s->n_layers; l++)
        if (s->layer_first[l] > s->layer_first[l + 1] || !(s->slice_h[l] >= 0))
            broken("a setup whose layers do not add up");
    if (s->layer_first[0] != 0 || s->layer_first[s->n_layers] != s->nz)
        broken("a setup whose slices do not add up");
    for (int i = 0; i < s->nz; i++)
        if (s->layer_of_slice[i] < 0 || s->layer_of_slice[i] >= s->n_layers)
            broken("a slice outside the layers");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    orr_error err;
    orr_error_clear(&err);
    dif_workunit wu;
    if (dif_workunit_parse("fuzz.txt", (const char *)data, size, &wu, &err) != ORR_OK) {
        /* a refused work unit is freed and zeroed: dif_workunit_free is safe */
        if (wu.materials || wu.layers || wu.shapes || wu.wavelengths || wu.theta || wu.phi)
            broken("memory left after it was refused");
        dif_workunit_free(&wu);
        return 0;
    }
    check_workunit(&wu);
    check_overlaps(&wu);
    dif_setup s;
    if (dif_setup_init(&wu, &s, &err) == ORR_OK) {
        check_setup(&wu, &s);
        if (s.point_bytes <= FUZZ_MAX_POINT_BYTES) {
            const int all = (double)s.n_points * s.n_modes <= FUZZ_MAX_ORDER_CHECKS;
            const int step = all || s.n_points <= FUZZ_SAMPLE_POINTS ? 1 : s.n_points / FUZZ_SAMPLE_POINTS;
            for (int p = 0; p < s.n_points; p += step)
                (void)dif_point_check(&wu, &s, p, NULL, &err);
            if (step > 1)
                (void)dif_point_check(&wu, &s, s.n_points - 1, NULL, &err);
        }
        dif_setup_free(&s);
    }
    dif_workunit_free(&wu);
    return 0;
}
