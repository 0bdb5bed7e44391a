/* The contrast eps - eps1 of every slice: its exact Fourier coefficients
 * (rectangles: sinc x sinc; ellipses: 2 J1(rho)/rho; trapezoids: the
 * rectangle of each slice's mid-height width), and their padded spectra,
 * which the convolution by FFTs multiplies by (docs/diffraction.md
 * section 5). The coefficient (p, q) multiplies e^{2 pi i (p x/LX + q y/LY)}. */
#include "diffraction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../spectral/spectral.h"

static double sinc(double t)
{
    return t == 0 ? 1.0 : sin(M_PI * t) / (M_PI * t);
}

/* 2 J1(r)/r, 1 at 0. */
static double jinc(double r)
{
    return r < 1e-8 ? 1.0 - r * r / 8 : 2 * j1(r) / r;
}

/* Width (x) of a shape in the slice at height t above its layer's bottom. */
static double shape_width(const dif_shape *sh, double t)
{
    if (sh->kind != DIF_TRAPEZOID)
        return sh->wx;
    return sh->wx - 2 * t / tan(sh->swa * M_PI / 180);
}

/* The indicator of one shape, coefficient (p, q). */
static double complex shape_coefficient(const dif_workunit *wu, const dif_shape *sh, double t,
                                        int p, int q)
{
    const double lx = wu->period_x, ly = wu->period_y;
    double complex phase = cexp(-2 * M_PI * I * p * sh->x / lx);
    if (ly > 0 && !sh->full_y)
        phase *= cexp(-2 * M_PI * I * q * sh->y / ly);
    if (sh->kind == DIF_ELLIPSE) {
        const double a = sh->wx, b = sh->wy;
        const double r = 2 * M_PI * hypot(p * a / lx, q * b / ly);
        return M_PI * a * b / (lx * ly) * jinc(r) * phase;
    }
    const double w = shape_width(sh, t);
    double f = w / lx * sinc(p * w / lx);
    if (ly > 0)
        f *= sh->full_y ? (q == 0) : sh->wy / ly * sinc(q * sh->wy / ly);
    return f * phase;
}

double complex dif_contrast_coefficient(const dif_workunit *wu, const dif_setup *s, int slice,
                                        const double complex *eps, double complex eps1, int p,
                                        int q)
{
    const int l = s->layer_of_slice[slice];
    const dif_layer *ly = &wu->layers[wu->n_layers - 1 - l];
    const double t = s->z[slice] - (s->z[s->layer_first[l]] - s->slice_h[l] / 2);
    const double complex bg = eps[ly->background];
    double complex c = (p == 0 && q == 0) ? bg - eps1 : 0;
    for (int i = ly->first_shape; i < ly->first_shape + ly->n_shapes; i++) {
        const dif_shape *sh = &wu->shapes[i];
        c += (eps[sh->material] - bg) * shape_coefficient(wu, sh, t, p, q);
    }
    return c;
}

static const dif_layer *layer_of(const dif_workunit *wu, const dif_setup *s, int slice)
{
    return &wu->layers[wu->n_layers - 1 - s->layer_of_slice[slice]];
}

orr_status dif_contrast_init(const dif_workunit *wu, const dif_setup *s, dif_contrast *c,
                             orr_error *err)
{
    memset(c, 0, sizeof *c);
    c->np = 2 * s->kx - 1;
    c->nq = 2 * s->ky - 1;
    const size_t per = (size_t)c->np * c->nq;
    size_t total = 0;
    if (!(c->first = malloc((size_t)s->nz * sizeof *c->first)))
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int i = 0; i < s->nz; i++) {
        c->first[i] = total;
        total += per * layer_of(wu, s, i)->n_shapes;
    }
    c->bytes = (double)total * sizeof *c->chi;
    if (total && !(c->chi = malloc(total * sizeof *c->chi))) {
        dif_contrast_free(c);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the shapes' coefficients (%.3g bytes)",
                        c->bytes);
    }
    for (int i = 0; i < s->nz; i++) {
        const dif_layer *ly = layer_of(wu, s, i);
        const int l = s->layer_of_slice[i];
        const double t = s->z[i] - (s->z[s->layer_first[l]] - s->slice_h[l] / 2);
        double complex *out = c->chi + c->first[i];
        for (int k = 0; k < ly->n_shapes; k++)
            for (int q = 0; q < c->nq; q++)
                for (int p = 0; p < c->np; p++)
                    *out++ = shape_coefficient(wu, &wu->shapes[ly->first_shape + k], t,
                                               p - (s->kx - 1), q - (s->ky - 1));
    }
    return ORR_OK;
}

void dif_contrast_free(dif_contrast *c)
{
    free(c->first);
    free(c->chi);
    memset(c, 0, sizeof *c);
}

/* The coefficients of every slice at the permittivities eps on the padded
 * grid (index p mod fft_x, q mod fft_y), zero elsewhere. */
static void place_coefficients(const dif_workunit *wu, const dif_setup *s, const dif_contrast *c,
                               const double complex *eps, double complex eps1, double complex *out)
{
    const size_t grid = (size_t)s->fft_x * s->fft_y, per = (size_t)c->np * c->nq;
    memset(out, 0, (size_t)s->nz * grid * sizeof *out);
    for (int i = 0; i < s->nz; i++) {
        const dif_layer *ly = layer_of(wu, s, i);
        const double complex bg = eps[ly->background];
        double complex *o = out + i * grid;
        o[0] = bg - eps1;
        for (int k = 0; k < ly->n_shapes; k++) {
            const double complex w = eps[wu->shapes[ly->first_shape + k].material] - bg;
            const double complex *chi = c->chi + c->first[i] + k * per;
            for (int q = 0; q < c->nq; q++)
                for (int p = 0; p < c->np; p++) {
                    const int pp = p - (s->kx - 1), qq = q - (s->ky - 1);
                    o[(size_t)((qq + s->fft_y) % s->fft_y) * s->fft_x + (pp + s->fft_x) % s->fft_x] +=
                        w * chi[(size_t)q * c->np + p];
                }
        }
    }
}

orr_status dif_contrast_spectra(const dif_workunit *wu, const dif_setup *s, const dif_contrast *c,
                                double lambda, orr_cpu_isa isa, double complex *out,
                                orr_error *err)
{
    double complex *eps = malloc((size_t)wu->n_materials * sizeof *eps);
    if (!eps)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    orr_status st = ORR_OK;
    for (int m = 0; st == ORR_OK && m < wu->n_materials; m++)
        st = dif_material_eps(wu, m, lambda, &eps[m], err);
    if (st == ORR_OK)
        place_coefficients(wu, s, c, eps, eps[wu->superstrate], out);
    free(eps);
    if (st != ORR_OK)
        return st;
    spec_desc d = {.kind = s->fft_y > 1 ? SPEC_FFT2 : SPEC_C2C, .precision = SPEC_F64,
                   .n = s->fft_y > 1 ? s->fft_y : s->fft_x, .n2 = s->fft_y > 1 ? s->fft_x : 0,
                   .batch = s->nz};
    spec_plan *plan;
    st = spec_plan_create_on(&d, isa, &plan, err);
    if (st == ORR_OK) {
        st = spec_execute(plan, out, out, err);
        spec_plan_destroy(plan);
    }
    return st;
}
