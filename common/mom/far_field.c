/* The echo width (docs/mom.md section 1, "The echo width"): one routine
 * for both methods and every backend (the backends hand back currents;
 * the report computes this on the host). The far-field integral
 * int J exp(jk r.u) dt is a sum over the unknowns of weight x current x
 * exp(jk p.u), p the unknown's match point: the rule the off-diagonal
 * entries of Z use (MoM: the cell's midpoint times its width; LCN: its
 * nodes and weights). `far_field exact` instead integrates each MoM pulse
 * exactly over its flat cell, a sinc factor on the weight; it measures
 * the polygon rather than the cylinder, and is less accurate below about
 * 80 cells a wavelength (the spec, section 2; the table in docs/mom.md). */
#include <math.h>

#include "mom.h"

#define PI 3.14159265358979323846

/* The exact integral of a unit pulse over a flat cell of width w and unit
 * tangent t, relative to w exp(jk c.u) at its midpoint c:
 * sinc(k w (t.u) / 2). */
static double flat_cell_factor(double k, double cos_phi, double sin_phi, double tx, double ty,
                               double w)
{
    const double x = 0.5 * k * w * (tx * cos_phi + ty * sin_phi);
    return fabs(x) < 1e-8 ? 1.0 - x * x / 6.0 : sin(x) / x;
}

/* sum_j weight_j J_j exp(jk p_j.u) at one angle, into (re, im). */
static void far_field_sum(const mom_problem *p, const double *current, double cos_phi,
                          double sin_phi, double *sum_re, double *sum_im)
{
    const mom_geometry *g = &p->g;
    const int exact = p->far_field == MOM_FAR_EXACT;
    double re = 0, im = 0;
    for (int j = 0; j < p->n; j++) {
        double weight = p->pw[j];
        if (exact)
            weight *= flat_cell_factor(g->k, cos_phi, sin_phi, g->tx[j], g->ty[j], g->w[j]);
        const double phase = g->k * (p->px[j] * cos_phi + p->py[j] * sin_phi);
        const double er = weight * cos(phase), ei = weight * sin(phase);
        re += current[2 * j] * er - current[2 * j + 1] * ei;
        im += current[2 * j] * ei + current[2 * j + 1] * er;
    }
    *sum_re = re;
    *sum_im = im;
}

void mom_echo_widths(const mom_problem *p, const double *current, int n_angles, const double *deg,
                     double *sigma)
{
    for (int a = 0; a < n_angles; a++) {
        const double phi = deg[a] * PI / 180;
        double re, im;
        far_field_sum(p, current, cos(phi), sin(phi), &re, &im);
        sigma[a] = p->g.k * MOM_ETA * MOM_ETA / 4 * (re * re + im * im);
    }
}
