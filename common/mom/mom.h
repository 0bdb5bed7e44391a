/* The MoM kind (docs/mom.md): 2D TM scattering from a perfectly conducting
 * cylinder by the electric field integral equation, solved by a dense
 * complex LU. Data flow one way: the work-unit file -> mom_workunit
 * (parse.c, no computing) -> mom_geometry (geometry.c: the cells, their
 * collocation points and widths) -> mom_problem (problem.c, lcn.c) -> Z
 * and the right-hand sides, a solver (reference.c or a backend's) -> the
 * results (report.c, the echo widths by far_field.c): currents, echo
 * widths, residuals, per-phase times.
 *
 * Conventions (docs/mom.md section 1): time e^{jwt}; incident
 * E_z = exp(-jk(x cos phi + y sin phi)), phi the direction the wave
 * travels; H0^(2) = J0 - j Y0; eta = 376.730313668 ohm. Lengths in the
 * work unit's length unit (the wavelength's, 1 by default); angles in
 * degrees in files, radians inside. A circle of radius a is the inscribed
 * N-gon with vertices a(cos 2 pi i/N, sin 2 pi i/N), cell n from vertex n
 * to n+1; a polygon's vertices are counter-clockwise, each edge split into
 * equal cells, numbered from the first vertex. */
#ifndef ORRERY_MOM_H
#define ORRERY_MOM_H

#include <stddef.h>
#include <stdint.h>

#include "../orrery.h"

#define MOM_KIND_NAME "mom"
#define MOM_ETA 376.730313668
#define MOM_MAX_CELLS 200000      /* unknowns N (the memory check refuses most before) */
#define MOM_MAX_VERTICES 100000
#define MOM_MAX_ANGLES 100000     /* incidence angles, echo-width angles: each */
#define MOM_MAX_PERIMETER 20000.0 /* wavelengths: k R <= 2 pi 10000, within the Bessel tests' 1e5 */
#define MOM_MAX_ORDER 10          /* LCN quadrature points a cell */
/* Lengths (the wavelength, the radius, each vertex coordinate other than
 * 0) in 1e-100..1e100 length units: distances are square roots of sums of
 * squares, and squares of lengths out there leave the double range (a
 * circle of radius 0.7e155 at wavelength 1e155, or of radius 1e-200 at
 * wavelength 1, gives an infinite backward error; a wavelength of 1e160
 * infinite echo widths); within it even k R of the smallest cell stays a
 * normal number. */
#define MOM_MIN_LENGTH 1e-100
#define MOM_MAX_LENGTH 1e100
/* Angles, degrees, |angle| <= 1e6 (2778 turns): deg pi / 180 is exact to
 * about |deg| 1e-18 rad, 2e-12 rad here; 1e308 degrees overflows to inf
 * radians and every echo width to nan. */
#define MOM_MAX_ANGLE 1e6
#define MOM_MAX_PARAMS 32
#define MOM_NAME_LEN 33           /* NUL included */

typedef enum { MOM_CIRCLE, MOM_POLYGON } mom_shape;
typedef enum { MOM_METHOD_MOM, MOM_METHOD_LCN } mom_method;
typedef enum { MOM_REFERENCE, MOM_FAITHFUL, MOM_MIXED } mom_solver;
typedef enum { MOM_DOUBLE, MOM_SINGLE } mom_precision;
/* How the echo width integrates the current (far_field.c): with the rule
 * of Z's off-diagonal entries, or MoM's pulses exactly over flat cells. */
typedef enum { MOM_FAR_CONSISTENT, MOM_FAR_EXACT } mom_far_field;
/* The words of the work unit, the log, --check and the results, by enum. */
extern const char *const mom_solver_names[3];
extern const char *const mom_precision_names[2];
extern const char *const mom_far_field_names[2];

/* ---- the work unit, as written (parse.c) ---- */

typedef struct {
    char path[4096];
    uint64_t content_hash;
    int n_params;
    char param_name[MOM_MAX_PARAMS][MOM_NAME_LEN];
    char param_text[MOM_MAX_PARAMS][64];   /* as written: echoed exactly */
    double wavelength;       /* lambda, length units (> 0); k = 2 pi / lambda */
    mom_shape shape;
    double radius;           /* circle */
    int n_vertices;          /* polygon: >= 3, counter-clockwise */
    double *vertex;          /* [n_vertices][2] */
    int cells;               /* N given, or 0 */
    double density;          /* cells per wavelength given (N from the perimeter), or 0 */
    mom_method method;
    int order;               /* LCN: Gauss-Legendre points a cell, 1..MOM_MAX_ORDER */
    int n_incidence;         /* >= 1 */
    double *incidence;       /* degrees, as written */
    int n_echo;              /* >= 0 */
    double *echo;            /* degrees */
    mom_solver solver;
    mom_precision precision; /* reference, faithful: the arithmetic's; mixed: always single then double */
    int current_every;       /* write J at every D-th unknown (.npy); 0: none */
    mom_far_field far_field; /* the echo width's rule; exact: MoM only */
} mom_workunit;

/* Reads and checks path (plain or compressed): every error names the file,
 * the line and the key, ORR_ERR_INPUT (exit 65). */
orr_status mom_workunit_load(const char *path, mom_workunit *wu, orr_error *err);
/* The same from text in memory (fuzzing, tests); path only names it. */
orr_status mom_workunit_parse(const char *path, const char *text, size_t len, mom_workunit *wu,
                              orr_error *err);
void mom_workunit_free(mom_workunit *wu);

/* ---- the cells (geometry.c) ---- */

typedef struct {
    int n;               /* unknowns N */
    double k;            /* 2 pi / wavelength */
    double perimeter;    /* of the cells: the inscribed N-gon's for a circle */
    double *cx, *cy;     /* [n] cell midpoints: the collocation points */
    double *tx, *ty;     /* [n] unit tangents, counter-clockwise */
    double *w;           /* [n] widths */
} mom_geometry;

/* The work unit's boundary cut into cells. N: `cells`, or from `density`
 * (docs/mom.md section 1). */
orr_status mom_geometry_init(const mom_workunit *wu, mom_geometry *g, orr_error *err);
void mom_geometry_free(mom_geometry *g);

/* ---- the discretised problem (problem.c) ---- */

struct mom_lcn;

/* What the solvers see of either method: the unknowns, the points where
 * the field is matched (MoM's collocation points, LCN's nodes) and, for
 * LCN, its nodes and corrections. */
typedef struct {
    mom_geometry g;            /* the cells */
    struct mom_lcn *lcn;       /* NULL: MoM */
    int n;                     /* unknowns: cells, or cells * q */
    const double *px, *py;     /* [n] match points */
    const double *pw;          /* [n] their weights in Z's off-diagonal entries: widths, or LCN's */
    mom_far_field far_field;   /* the echo width's rule */
} mom_problem;

orr_status mom_problem_init(const mom_workunit *wu, mom_problem *p, orr_error *err);
void mom_problem_free(mom_problem *p);
/* Z's column j, (re, im) pairs into col[2n]. */
void mom_problem_column(const mom_problem *p, int j, double *col);
/* The echo width sigma(phi) = (k eta^2 / 4) |int J exp(jk r.u) dt|^2,
 * length units, at the n_angles angles deg (degrees), from one right-hand
 * side's currents (pairs), by p->far_field's rule (far_field.c). */
void mom_echo_widths(const mom_problem *p, const double *current, int n_angles, const double *deg,
                     double *sigma);

#endif
