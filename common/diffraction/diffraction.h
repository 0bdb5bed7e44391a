/* The diffraction kind (docs/diffraction.md): the scalar scatterometry
 * forward model. Data flow one way: the work-unit file -> dif_workunit
 * (parse.c, no computing) -> dif_setup (setup.c: orders, slices, the padded
 * grid, every point's wave numbers, sizes and costs; per point tables) and
 * the contrast spectra (contrast.c) -> the batched solve (solver.c, by a
 * method of method.h) over a backend's ops (ops.h) -> the results table
 * (report.c). */
#ifndef ORRERY_DIFFRACTION_H
#define ORRERY_DIFFRACTION_H

#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../cpu_isa.h"
#include "../orrery.h"

#define DIF_KIND_NAME "diffraction"
#define DIF_MAX_PARAMS 32
#define DIF_NAME_LEN 33        /* names of materials and parameters, NUL included */
#define DIF_MAX_ORDERS 255     /* MX, MY */
#define DIF_MAX_POINTS 100000
#define DIF_MAX_SLICES 100000
/* Physical ranges, refused at parse time (docs/diffraction.md section 2):
 * wavelengths from 1 pm (hard X-rays) to 1 m (radio), which keeps k0^2
 * eps far inside the double range (1e-300 nm made k0^2 infinite and the
 * solve nan); |eps| at most 1e6, beyond the densest real materials (metals
 * in the far infrared, |eps| ~ 1e5), where 1e200 overflowed the solve. */
#define DIF_MIN_WAVELENGTH 1e-3
#define DIF_MAX_WAVELENGTH 1e9
#define DIF_MAX_EPS 1e6

/* ---- the work unit, as written (parse.c) ---- */

typedef struct {
    char name[DIF_NAME_LEN];
    int line;                  /* where it was first defined, for messages */
    int n_rows;                /* 0: constant eps */
    double complex eps;        /* constant */
    double *lambda, *n, *k;    /* table rows, lambda increasing */
} dif_material;

typedef enum { DIF_RECT, DIF_ELLIPSE, DIF_TRAPEZOID } dif_shape_kind;

typedef struct {
    dif_shape_kind kind;
    int line;
    int material;
    double x, y;           /* centre */
    double wx, wy;         /* rect: width, height; ellipse: rx, ry; trapezoid: bottom, height */
    int full_y;            /* rect/trapezoid without y/height: a line along y (wy = period y) */
    double swa;            /* trapezoid: side-wall angle, degrees */
} dif_shape;

typedef struct {
    int line;
    double thickness;
    int background;
    int slices;
    int first_shape, n_shapes;
} dif_layer;

typedef enum { DIF_BICGSTAB, DIF_GMRES } dif_method;

typedef struct {
    dif_method method;
    double tolerance;
    int max_iterations;
    int restart;           /* GMRES(m): m */
} dif_solver_options;

typedef struct {
    char path[4096];
    uint64_t content_hash;
    int n_params;
    char param_name[DIF_MAX_PARAMS][DIF_NAME_LEN];
    char param_text[DIF_MAX_PARAMS][64];   /* as written: echoed exactly */
    double period_x, period_y;  /* period_y 0: a line grating */
    int mx, my;
    int superstrate, substrate;
    int n_materials;
    dif_material *materials;
    int n_layers;               /* top to bottom, as written */
    dif_layer *layers;
    int n_shapes;
    dif_shape *shapes;
    int n_wavelengths, n_theta, n_phi;
    double *wavelengths, *theta, *phi;
    /* where the spectrum was given, for the messages about a point that
     * come after parsing (a Rayleigh anomaly); phi_line 0: the default */
    int wavelengths_line, theta_line, phi_line;
    const char *wavelengths_key;   /* "wavelengths" or "wavelength_range" */
    dif_solver_options solver;
} dif_workunit;

/* Reads and checks path (plain or compressed): every error names the file,
 * the line and the key, ORR_ERR_INPUT (exit 65; common/io/wutext.h). */
orr_status dif_workunit_load(const char *path, dif_workunit *wu, orr_error *err);
/* The same from text in memory (fuzzing, tests); path only names it. */
orr_status dif_workunit_parse(const char *path, const char *text, size_t len, dif_workunit *wu,
                              orr_error *err);
void dif_workunit_free(dif_workunit *wu);

/* A material's permittivity at lambda (nm); ORR_ERR_INPUT outside its table. */
orr_status dif_material_eps(const dif_workunit *wu, int material, double lambda,
                            double complex *eps, orr_error *err);

/* ---- the discretisation (setup.c) ---- */

typedef struct {
    int kx, ky;            /* orders a direction: 2MX + 1, 2MY + 1 (1 in 1D) */
    int n_modes;           /* kx * ky; mode q = b * kx + a is order (a - MX, b - MY) */
    int nz;                /* slices, all layers */
    int n_layers;          /* bottom to top (the file's order reversed) */
    int *layer_of_slice;   /* [nz], bottom (z smallest) first */
    int *layer_first;      /* [n_layers]: its first slice */
    double *slice_h;       /* [n_layers]: slice thickness of each layer */
    double *z;             /* [nz]: slice midpoints */
    double height;         /* of the stack */
    int fft_x, fft_y;      /* the padded grid (powers of two >= 2K - 1; fft_y 1 in 1D) */
    size_t unknowns;       /* nz * n_modes, complex, per point */
    int n_points;
    double matvec_flops;   /* one product, estimated (docs section 5) */
    double point_bytes;    /* per point in a batch: the solver's vectors, spectra, tables */
} dif_setup;

orr_status dif_setup_init(const dif_workunit *wu, dif_setup *s, orr_error *err);
void dif_setup_free(dif_setup *s);

/* The wavelength and angles of point p (lambda outermost, then theta, phi). */
void dif_point_angles(const dif_workunit *wu, int p, double *lambda, double *theta, double *phi);

/* ---- one point's tables (setup.c) ---- */

/* What the operator of one point needs (zop.h): per mode q, kz in the
 * superstrate and the substrate, and the order's tables: mt[q] holds
 * DIF_MODE_TABLE entries (E_0, E_0 s_0, rho, c), lay[q] DIF_LAYER_TABLE
 * entries per layer, bottom up. Complex values as double complex, whose
 * layout is zop.h's dif_c. */
typedef struct {
    double lambda, theta, phi;
    double k0;
    double complex eps1, eps2;
    double complex *kz1, *kz2;   /* [n_modes] */
    double complex *mt;          /* [n_modes][DIF_MODE_TABLE] */
    double complex *lay;         /* [n_modes][n_layers][DIF_LAYER_TABLE] */
    int mode00;
} dif_point;

orr_status dif_point_init(const dif_workunit *wu, const dif_setup *s, int p, dif_point *pt,
                          orr_error *err);
void dif_point_free(dif_point *pt);
/* One point's Rayleigh check alone (plan runs it on every point first).
 * pt (NULL: not wanted) receives the point's waves without its tables, for
 * what the caller bounds from them (its results line); free it with
 * dif_point_free, also after a failure. */
orr_status dif_point_check(const dif_workunit *wu, const dif_setup *s, int p, dif_point *pt,
                           orr_error *err);

/* ---- the shapes' coefficients and the contrast spectra (contrast.c) ---- */

/* The shapes' Fourier coefficients (p, q), |p| < kx, |q| < ky, of every
 * slice, made once a work unit: they do not depend on the wavelength, and
 * made per wavelength (J1 and complex exponentials) they cost a 2D work
 * unit as much as its solves and were serial. */
typedef struct {
    int np, nq;              /* 2 kx - 1, 2 ky - 1 */
    size_t *first;           /* [nz]: the slice's first shape's coefficients in chi */
    double complex *chi;     /* per slice, per shape of its layer: np * nq (q-major) */
    double bytes;
} dif_contrast;
orr_status dif_contrast_init(const dif_workunit *wu, const dif_setup *s, dif_contrast *c,
                             orr_error *err);
void dif_contrast_free(dif_contrast *c);

/* The contrast spectrum of every slice at lambda: for slice i the forward
 * FFT of the padded Fourier coefficients of eps - eps1 (fft_y x fft_x
 * complex, row-major), which the padded-FFT convolution multiplies by;
 * the FFT on the CPU path isa (the backend's cpu_isa). out: nz * fft_x *
 * fft_y complex. */
orr_status dif_contrast_spectra(const dif_workunit *wu, const dif_setup *s, const dif_contrast *c,
                                double lambda, orr_cpu_isa isa, double complex *out,
                                orr_error *err);
/* The exact Fourier coefficient (p, q) of slice i's contrast at lambda (the
 * coefficient of e^{2 pi i (p x / LX + q y / LY)}). */
double complex dif_contrast_coefficient(const dif_workunit *wu, const dif_setup *s, int slice,
                                        const double complex *eps, double complex eps1, int p,
                                        int q);

/* ---- results of one point ---- */

/* A point's status; its word in the table is dif_point_status_words[]
 * (report.c, docs/diffraction.md section 4). UNBALANCED: converged, but
 * its efficiencies break energy conservation (report.h). */
typedef enum {
    DIF_POINT_PENDING = 0,
    DIF_POINT_OK = 1,
    DIF_POINT_NOT_CONVERGED = 2,
    DIF_POINT_UNBALANCED = 3,
    DIF_POINT_STATUSES
} dif_point_status;

typedef struct {
    int32_t status;        /* dif_point_status */
    int32_t iterations;
    double residual;
    double r00[2];
    double r_total, t_total;
} dif_point_result;

#endif
