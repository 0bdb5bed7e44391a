/* The diffraction kind against independent results: the Airy formula of a
 * homogeneous film (and its dz^2 convergence), energy conservation of
 * lossless gratings (the spec's numbers), symmetry, the convolution
 * against the block-Toeplitz sum, the z operator against the direct
 * O(Nz^2) sum (and its padded-FFT form), the exact Fourier coefficients
 * against quadrature, convergence in the orders, the threaded CPU backend
 * and batch sizes against the reference bit for bit, and bad work units. */
#include <CUnit/Basic.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_backend.h"
#include "diffraction/job.h"
#include "diffraction/zop.h"
#include "runtime/runtime.h"
#include "spectral/spectral.h"

extern const orr_kind dif_descriptor;

static char tmpdir[256];

/* ---- running a work unit through the kind, as the app does ---- */

#define MAX_POINTS 64
#define MAX_ORDERS 64

typedef struct {
    int n;
    int status_ok[MAX_POINTS], iterations[MAX_POINTS];
    double residual[MAX_POINTS];
    double complex r00[MAX_POINTS];
    double r_total[MAX_POINTS], t_total[MAX_POINTS];
    int n_orders[MAX_POINTS];
    int m[MAX_POINTS][MAX_ORDERS];
    double R[MAX_POINTS][MAX_ORDERS];
    char text[1 << 16];   /* the table, for bitwise comparisons */
} results;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

static void parse_point(const char *line, results *r)
{
    int p, it, n_ord, used;
    char status[32];
    double lam, th, ph, res, re, im, rt, tt, ab;
    if (sscanf(line, "point %d %lf %lf %lf %31s %d %lf %lf %lf %lf %lf %lf %d%n", &p, &lam, &th,
               &ph, status, &it, &res, &re, &im, &rt, &tt, &ab, &n_ord, &used) != 13 ||
        p >= MAX_POINTS || n_ord > MAX_ORDERS)
        return;
    r->status_ok[p] = strcmp(status, "ok") == 0;
    r->iterations[p] = it;
    r->residual[p] = res;
    r->r00[p] = re + I * im;
    r->r_total[p] = rt;
    r->t_total[p] = tt;
    r->n_orders[p] = n_ord;
    const char *s = line + used;
    for (int k = 0; k < n_ord; k++) {
        int m, n, u;
        double R, T;
        if (sscanf(s, "%d %d %lf %lf%n", &m, &n, &R, &T, &u) != 4)
            return;
        r->m[p][k] = m;
        r->R[p][k] = R;
        s += u;
    }
    r->n = p + 1 > r->n ? p + 1 : r->n;
}

/* Runs text on the CPU backend with `threads` (0: the reference backend)
 * and batches of `batch` points (0: the default); the table into r. */
static orr_status run_wu(const char *text, int threads, int batch, results *r, orr_error *err)
{
    char wu[300], out[300];
    snprintf(wu, sizeof wu, "%s/wu.txt", tmpdir);
    snprintf(out, sizeof out, "%s/out.txt", tmpdir);
    write_text(wu, text);
    dif_cli opt = {.job = {.wu_file = wu, .output = out, .ignore_checkpoint = 1, .cleanup_checkpoint = 1},
                   .batch = batch};
    orr_backend be;
    memset(&be, 0, sizeof be);
    orr_backend_request req = {.device = -1, .platform = -1, .nthreads = threads};
    orr_status s = threads ? orr_open_cpu_backend(&req, &be, err)
                           : orr_open_reference_backend(&req, &be, err);
    if (s != ORR_OK)
        return s;
    s = orr_run_kind(&dif_descriptor, &opt, &be, err);
    orr_backend_close(&be);
    memset(r, 0, sizeof *r);
    if (s != ORR_OK)
        return s;
    FILE *f = fopen(out, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t got = fread(r->text, 1, sizeof r->text - 1, f);
    r->text[got] = '\0';
    fclose(f);
    for (char *line = strtok(r->text, "\n"); line; line = strtok(NULL, "\n"))
        parse_point(line, r);
    /* strtok cut the text: read it again whole for comparisons */
    f = fopen(out, "r");
    got = fread(r->text, 1, sizeof r->text - 1, f);
    r->text[got] = '\0';
    fclose(f);
    return ORR_OK;
}

/* ---- the homogeneous film: Airy, dz^2, energy ---- */

static const char film_fmt[] =
    "orrery-diffraction 1\nperiod 500\norders %d\nsuperstrate air\nsubstrate sub\n"
    "material air eps 1 0\nmaterial film eps 2.25 0\nmaterial sub eps 14.44 0\n"
    "layer thickness=120 background=film slices=%d\nwavelengths 633\ntheta 30\n"
    "solver tolerance=1e-15\n";

static double complex airy_at_zero(void)
{
    const double k0 = 2 * M_PI / 633, kx = k0 * sin(M_PI / 6), h = 120;
    const double complex k1 = csqrt(k0 * k0 - kx * kx), kf = csqrt(k0 * k0 * 2.25 - kx * kx),
                         k2 = csqrt(k0 * k0 * 14.44 - kx * kx);
    const double complex r1f = (k1 - kf) / (k1 + kf), rf2 = (kf - k2) / (kf + k2);
    const double complex e = cexp(2 * I * kf * h);
    return (r1f + rf2 * e) / (1 + r1f * rf2 * e) * cexp(-2 * I * k1 * h);
}

static void test_film_airy(void)
{
    const double complex airy = airy_at_zero();
    double prev = 0;
    orr_error err;
    for (int nz = 16; nz <= 256; nz *= 2) {
        char wu[1024];
        results r;
        snprintf(wu, sizeof wu, film_fmt, 2, nz);   /* orders beyond 0 stay zero: one is enough */
        CU_ASSERT_EQUAL_FATAL(run_wu(wu, 1, 0, &r, &err), ORR_OK);
        const double e = cabs(r.r00[0] - airy);
        const double balance = fabs(r.r_total[0] + r.t_total[0] - 1);
        printf("\n    film Nz %3d: |r00 - Airy| %.4e%s, |R+T-1| %.1e", nz, e,
               prev ? "" : " (spec: 4.4e-4)", balance);
        if (prev)
            printf(", ratio %.4f", prev / e);
        CU_ASSERT(balance <= 1e-14);
        CU_ASSERT(r.status_ok[0]);
        if (nz == 16)
            CU_ASSERT(fabs(e - 4.43e-4) < 0.05e-4);
        if (nz == 256)
            CU_ASSERT(fabs(e - 1.73e-6) < 0.05e-6);
        if (prev)
            CU_ASSERT(fabs(prev / e - 4.0) <= 0.05);
        prev = e;
    }
}

/* ---- gratings ---- */

static const char grating_fmt[] =
    "orrery-diffraction 1\nperiod 800\norders %d\nsuperstrate air\nsubstrate glass\n"
    "material air eps 1 0\nmaterial glass eps 2.25 0\n"
    "layer thickness=200 background=air slices=%d\nshape rect material=glass x=%g width=300\n"
    "wavelengths 600\ntheta %g\nsolver tolerance=1e-14\n";

/* The spec's example: |sum R + sum T - 1| 5.9e-4, 1.5e-4, 3.7e-5 at
 * (Nz, Mx) = (8, 10), (16, 20), (32, 30): the lossless grating conserves
 * energy up to the discretisation, which falls as dz^2. */
static void test_grating_energy(void)
{
    const int nz[3] = {8, 16, 32}, mx[3] = {10, 20, 30};
    const double spec[3] = {5.9e-4, 1.5e-4, 3.7e-5};
    orr_error err;
    for (int i = 0; i < 3; i++) {
        char wu[1024];
        results r;
        snprintf(wu, sizeof wu, grating_fmt, mx[i], nz[i], 0.0, 10.0);
        CU_ASSERT_EQUAL_FATAL(run_wu(wu, 2, 0, &r, &err), ORR_OK);
        const double b = fabs(r.r_total[0] + r.t_total[0] - 1);
        printf("\n    grating (Nz %d, Mx %d): |sum R + sum T - 1| %.3e (spec %.1e)", nz[i], mx[i],
               b, spec[i]);
        CU_ASSERT(fabs(b - spec[i]) < 0.05 * spec[i]);
    }
}

/* Normal incidence on a line centred at x = 0 (and one shifted, which
 * only moves phases): R_m = R_-m. */
static void test_symmetry(void)
{
    orr_error err;
    for (int shifted = 0; shifted < 2; shifted++) {
        char wu[1024];
        results r;
        snprintf(wu, sizeof wu, grating_fmt, 12, 16, shifted ? 123.0 : 0.0, 0.0);
        CU_ASSERT_EQUAL_FATAL(run_wu(wu, 1, 0, &r, &err), ORR_OK);
        double worst = 0;
        for (int k = 0; k < r.n_orders[0]; k++)
            for (int j = 0; j < r.n_orders[0]; j++)
                if (r.m[0][j] == -r.m[0][k])
                    worst = fmax(worst, fabs(r.R[0][k] - r.R[0][j]));
        CU_ASSERT(r.n_orders[0] >= 3);
        CU_ASSERT(worst < 1e-13);
    }
}

/* Convergence in the orders: the change of R_0 between Mx and 2 Mx falls. */
static void test_orders_convergence(void)
{
    orr_error err;
    double r0[4];
    for (int i = 0; i < 4; i++) {
        char wu[1024];
        results r;
        snprintf(wu, sizeof wu, grating_fmt, 5 << i, 16, 0.0, 10.0);
        CU_ASSERT_EQUAL_FATAL(run_wu(wu, 2, 0, &r, &err), ORR_OK);
        r0[i] = cabs(r.r00[0]) * cabs(r.r00[0]);
    }
    const double d1 = fabs(r0[1] - r0[0]), d2 = fabs(r0[2] - r0[1]), d3 = fabs(r0[3] - r0[2]);
    printf("\n    R0 changes Mx 5->10->20->40: %.2e %.2e %.2e", d1, d2, d3);
    CU_ASSERT(d2 < d1 && d3 < d2);
    CU_ASSERT(d3 < 1e-3);
}

/* The threaded backend and any batch size give the reference's bits. */
static void test_backends_agree(void)
{
    static const char wu[] =
        "orrery-diffraction 1\nperiod 700 650\norders 4 3\nsuperstrate air\nsubstrate si\n"
        "material air eps 1 0\nmaterial res eps 2.4 0.1\nmaterial si nk 400 5.57 0.387\n"
        "material si nk 800 3.69 0.006\n"
        "layer thickness=150 background=air slices=6\n"
        "shape ellipse material=res x=10 y=-20 rx=150 ry=100\n"
        "layer thickness=40 background=res slices=3\n"
        "shape trapezoid material=air x=350 bottom=200 swa=80 y=0 height=300\n"
        "wavelength_range 450 750 3\ntheta 0 20 40\nphi 0 30\n";
    static results ref, got;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(run_wu(wu, 0, 1, &ref, &err), ORR_OK);
    CU_ASSERT_EQUAL(ref.n, 18);
    const int threads[3] = {1, 2, 3}, batch[3] = {0, 5, 18};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL_FATAL(run_wu(wu, threads[i], batch[i], &got, &err), ORR_OK);
        /* the backend's name differs in the header: compare from the first point */
        CU_ASSERT_STRING_EQUAL(strstr(got.text, "\npoint"), strstr(ref.text, "\npoint"));
    }
}

/* GMRES(m), the work unit's option: the same solution as BiCGStab's to
 * the tolerance, with short restarts too; the same bits on any thread
 * count and batch size (points in a batch run their cycles in step). */
static void test_gmres(void)
{
    static const char base[] =
        "orrery-diffraction 1\nperiod 700 650\norders 4 3\nsuperstrate air\nsubstrate si\n"
        "material air eps 1 0\nmaterial res eps 2.4 0.1\nmaterial si nk 400 5.57 0.387\n"
        "material si nk 800 3.69 0.006\nlayer thickness=150 background=air slices=6\n"
        "shape ellipse material=res x=10 y=-20 rx=150 ry=100\n"
        "wavelength_range 450 750 3\ntheta 0 40\n";
    static results bicg, gm, again;
    char wu[2048];
    orr_error err;
    snprintf(wu, sizeof wu, "%ssolver tolerance=1e-13\n", base);
    CU_ASSERT_EQUAL_FATAL(run_wu(wu, 2, 0, &bicg, &err), ORR_OK);
    const int restarts[2] = {30, 4};
    for (int i = 0; i < 2; i++) {
        snprintf(wu, sizeof wu, "%ssolver method=gmres restart=%d tolerance=1e-13\n", base,
                 restarts[i]);
        CU_ASSERT_EQUAL_FATAL(run_wu(wu, 2, 0, &gm, &err), ORR_OK);
        double worst = 0;
        for (int p = 0; p < bicg.n; p++) {
            worst = fmax(worst, cabs(gm.r00[p] - bicg.r00[p]) / cabs(bicg.r00[p]));
            CU_ASSERT(gm.status_ok[p] && gm.residual[p] <= 1e-13);
        }
        printf("\n    GMRES(%d) vs BiCGStab: r00 within %.1e relative", restarts[i], worst);
        CU_ASSERT(gm.n == bicg.n && worst < 1e-11);
        CU_ASSERT_EQUAL_FATAL(run_wu(wu, 1, 1, &again, &err), ORR_OK);
        CU_ASSERT_STRING_EQUAL(strstr(again.text, "\npoint"), strstr(gm.text, "\npoint"));
    }
}

/* ---- the operator's pieces against direct sums ---- */

typedef struct {
    dif_workunit wu;
    dif_setup s;
} problem;

static void problem_load(problem *p, const char *text)
{
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(dif_workunit_parse("test", text, strlen(text), &p->wu, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(dif_setup_init(&p->wu, &p->s, &err), ORR_OK);
}

static void problem_free(problem *p)
{
    dif_setup_free(&p->s);
    dif_workunit_free(&p->wu);
}

static double complex random_c(void)
{
    return (rand() / (double)RAND_MAX - 0.5) + I * (rand() / (double)RAND_MAX - 0.5);
}

static void check_conv(const char *text)
{
    problem pr;
    orr_error err;
    problem_load(&pr, text);
    const dif_setup *s = &pr.s;
    const double lambda = pr.wu.wavelengths[0];
    const size_t grid = (size_t)s->fft_x * s->fft_y * s->nz;
    double complex *spectra = malloc(grid * sizeof *spectra), eps[8];
    double complex *x = malloc(s->unknowns * sizeof *x), *w = malloc(s->unknowns * sizeof *w);
    dif_conv_scratch *scr;
    dif_contrast cache;
    CU_ASSERT_EQUAL_FATAL(dif_contrast_init(&pr.wu, s, &cache, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(dif_contrast_spectra(&pr.wu, s, &cache, lambda, ORR_CPU_BEST, spectra, &err),
                          ORR_OK);
    dif_contrast_free(&cache);
    CU_ASSERT_EQUAL_FATAL(dif_conv_scratch_create(s, ORR_CPU_BEST, &scr, &err), ORR_OK);
    for (size_t i = 0; i < s->unknowns; i++)
        x[i] = random_c();
    for (size_t i = 0; i < s->unknowns; i++)
        w[i] = NAN;   /* poisoned */
    CU_ASSERT_EQUAL(dif_conv_point(s, scr, spectra, x, w, &err), ORR_OK);
    for (int m = 0; m < pr.wu.n_materials; m++)
        dif_material_eps(&pr.wu, m, lambda, &eps[m], &err);
    double worst = 0, scale = 0;
    const int mx = pr.wu.mx, my = pr.wu.my;
    for (int i = 0; i < s->nz; i++)
        for (int q = 0; q < s->n_modes; q++) {
            long double complex sum = 0;
            const int a = q % s->kx - mx, b = q / s->kx - my;
            for (int q2 = 0; q2 < s->n_modes; q2++) {
                const int a2 = q2 % s->kx - mx, b2 = q2 / s->kx - my;
                sum += dif_contrast_coefficient(&pr.wu, s, i, eps, eps[pr.wu.superstrate], a - a2,
                                                b - b2) *
                       x[(size_t)i * s->n_modes + q2];
            }
            worst = fmax(worst, cabs((double complex)sum - w[(size_t)i * s->n_modes + q]));
            scale = fmax(scale, cabs((double complex)sum));
        }
    printf("\n    convolution vs block-Toeplitz sum: %.2e relative", worst / scale);
    CU_ASSERT(worst <= 1e-13 * scale);
    dif_conv_scratch_destroy(scr);
    free(spectra);
    free(x);
    free(w);
    problem_free(&pr);
}

static void test_conv_1d(void)
{
    check_conv("orrery-diffraction 1\nperiod 800\norders 9\nsuperstrate a\nsubstrate b\n"
               "material a eps 1 0\nmaterial b eps 4 1\n"
               "layer thickness=100 background=b slices=3\n"
               "shape trapezoid material=a x=100 bottom=300 swa=70\n"
               "layer thickness=10 background=a slices=1\nshape rect material=b x=-50 width=90\n"
               "wavelengths 500\ntheta 5\n");
}

static void test_conv_2d(void)
{
    check_conv("orrery-diffraction 1\nperiod 800 500\norders 4 5\nsuperstrate a\nsubstrate b\n"
               "material a eps 1 0\nmaterial b eps 4 1\nmaterial c eps 2 0\n"
               "layer thickness=100 background=b slices=2\n"
               "shape ellipse material=a x=100 y=30 rx=200 ry=120\n"
               "shape rect material=c x=-300 width=100 y=200 height=60\n"
               "wavelengths 500\ntheta 5\n");
}

/* The Fourier coefficient of a shape against a midpoint-rule quadrature
 * of its indicator (ellipse: the J1 formula is exact; the quadrature
 * converges slowly at the edge, hence the loose tolerance). */
static void test_coefficients_quadrature(void)
{
    problem pr;
    problem_load(&pr, "orrery-diffraction 1\nperiod 800 500\norders 3 3\nsuperstrate a\n"
                      "substrate a\nmaterial a eps 1 0\nmaterial b eps 2 0\n"
                      "layer thickness=10 background=a slices=1\n"
                      "shape ellipse material=b x=100 y=30 rx=200 ry=120\n"
                      "wavelengths 500\ntheta 0\n");
    double complex eps[2] = {1, 2};
    const int n = 2000;
    double worst = 0;
    for (int p = -3; p <= 3; p++)
        for (int q = -3; q <= 3; q++) {
            long double complex sum = 0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    const double x = (i + 0.5) * 800.0 / n - 400, y = (j + 0.5) * 500.0 / n - 250;
                    const double u = (x - 100) / 200, v = (y - 30) / 120;
                    if (u * u + v * v < 1)
                        sum += cexp(-2 * M_PI * I * (p * x / 800 + q * y / 500));
                }
            sum /= (double)n * n;
            const double complex c = dif_contrast_coefficient(&pr.wu, &pr.s, 0, eps, 1, p, q);
            worst = fmax(worst, cabs(c - (double complex)sum));
        }
    printf("\n    ellipse coefficients vs quadrature: %.1e", worst);
    CU_ASSERT(worst < 2e-4);
    problem_free(&pr);
}

/* The z operator of one point: y = x - c (G w) by the direct O(Nz^2) sum
 * of the slice integrals (docs/diffraction.md section 5). */
static void zop_direct(const dif_setup *s, const dif_point *pt, int q, const double complex *x,
                       const double complex *w, double complex *y)
{
    const double complex kz = pt->kz1[q];
    const double complex rho = pt->mt[q * DIF_MODE_TABLE + DIF_MT_RHO],
                         c = pt->mt[q * DIF_MODE_TABLE + DIF_MT_C];
    for (int i = 0; i < s->nz; i++) {
        long double complex sum = 0;
        for (int j = 0; j < s->nz; j++) {
            const double h = s->slice_h[s->layer_of_slice[j]];
            const double complex wj = w[(size_t)j * s->n_modes + q];
            const double complex sj = 2 * csin(kz * h / 2) / kz;
            if (i == j)
                sum += 2 * (cexp(I * kz * h / 2) - 1) / (I * kz) * wj;
            else
                sum += cexp(I * kz * fabs(s->z[i] - s->z[j])) * sj * wj;
            sum += rho * cexp(I * kz * (s->z[i] + s->z[j])) * sj * wj;
        }
        y[(size_t)i * s->n_modes + q] = x[(size_t)i * s->n_modes + q] - c * (double complex)sum;
    }
}

static void test_zop_direct(void)
{
    problem pr;
    orr_error err;
    /* three layers of different slice thickness; orders up to strongly evanescent */
    problem_load(&pr, "orrery-diffraction 1\nperiod 300\norders 12\nsuperstrate a\nsubstrate b\n"
                      "material a eps 1 0\nmaterial b eps 9 2\n"
                      "layer thickness=60 background=a slices=5\n"
                      "layer thickness=100 background=b slices=3\n"
                      "layer thickness=7 background=a slices=2\nwavelengths 532\ntheta 25\n");
    const dif_setup *s = &pr.s;
    dif_point pt;
    CU_ASSERT_EQUAL_FATAL(dif_point_init(&pr.wu, s, 0, &pt, &err), ORR_OK);
    double complex *x = malloc(s->unknowns * sizeof *x), *w = malloc(s->unknowns * sizeof *w);
    double complex *y = malloc(s->unknowns * sizeof *y), *ref = malloc(s->unknowns * sizeof *y);
    for (size_t i = 0; i < s->unknowns; i++) {
        x[i] = random_c();
        w[i] = random_c();
        y[i] = NAN;
    }
    dif_zop_point(s, &pt, x, w, y);
    double worst = 0;
    for (int q = 0; q < s->n_modes; q++) {
        zop_direct(s, &pt, q, x, w, ref);
        double scale = 0, e = 0;
        for (int i = 0; i < s->nz; i++) {
            const size_t k = (size_t)i * s->n_modes + q;
            scale = fmax(scale, cabs(ref[k] - x[k]));
            e = fmax(e, cabs(ref[k] - y[k]));
        }
        worst = fmax(worst, e / scale);
    }
    printf("\n    z sweeps vs direct sum: %.2e relative (orders to |Im kz| h = %.0f)", worst,
           cimag(pt.kz1[0]) * 100 / 3);
    CU_ASSERT(worst < 1e-12);
    free(x);
    free(w);
    free(y);
    free(ref);
    dif_point_free(&pt);
    problem_free(&pr);
}

/* The padded-FFT form of the z operator (what the industrial code does,
 * for uniform slices): the Toeplitz part T_|i-j| applied as a circular
 * convolution of length 2^k >= 2 Nz on the spectral kernels' FFT, plus the
 * substrate's rank one; checked against the direct sum like the sweeps. */
static void zop_fft(const dif_setup *s, const dif_point *pt, int q, const double complex *x,
                    const double complex *w, double complex *y)
{
    const int nz = s->nz;
    int n = 2;
    while (n < 2 * nz)
        n *= 2;
    const double h = s->slice_h[0];
    const double complex kz = pt->kz1[q];
    const double complex rho = pt->mt[q * DIF_MODE_TABLE + DIF_MT_RHO],
                         c = pt->mt[q * DIF_MODE_TABLE + DIF_MT_C];
    const double complex sfac = 2 * csin(kz * h / 2) / kz;
    double complex *t = calloc((size_t)n, sizeof *t), *v = calloc((size_t)n, sizeof *v);
    t[0] = 2 * (cexp(I * kz * h / 2) - 1) / (I * kz);
    for (int d = 1; d < nz; d++)
        t[d] = t[n - d] = cexp(I * kz * d * h) * sfac;
    double complex sub = 0;
    for (int j = 0; j < nz; j++) {
        v[j] = w[(size_t)j * s->n_modes + q];
        sub += cexp(I * kz * s->z[j]) * sfac * v[j];
    }
    spec_desc d = {.kind = SPEC_C2C, .precision = SPEC_F64, .n = n, .batch = 1};
    spec_plan *fwd, *inv;
    orr_error err;
    spec_plan_create(&d, &fwd, &err);
    d.inverse = 1;
    spec_plan_create(&d, &inv, &err);
    spec_execute(fwd, t, t, &err);
    spec_execute(fwd, v, v, &err);
    for (int k = 0; k < n; k++)
        v[k] *= t[k];
    spec_execute(inv, v, v, &err);
    for (int i = 0; i < nz; i++)
        y[(size_t)i * s->n_modes + q] = x[(size_t)i * s->n_modes + q] -
                                        c * (v[i] + rho * cexp(I * kz * s->z[i]) * sub);
    spec_plan_destroy(fwd);
    spec_plan_destroy(inv);
    free(t);
    free(v);
}

static void test_zop_fft(void)
{
    problem pr;
    orr_error err;
    problem_load(&pr, "orrery-diffraction 1\nperiod 400\norders 4\nsuperstrate a\nsubstrate b\n"
                      "material a eps 1 0\nmaterial b eps 9 2\n"
                      "layer thickness=200 background=a slices=40\nwavelengths 532\ntheta 25\n");
    const dif_setup *s = &pr.s;
    dif_point pt;
    CU_ASSERT_EQUAL_FATAL(dif_point_init(&pr.wu, s, 0, &pt, &err), ORR_OK);
    double complex *x = malloc(s->unknowns * sizeof *x), *w = malloc(s->unknowns * sizeof *w);
    double complex *y = malloc(s->unknowns * sizeof *y), *ref = malloc(s->unknowns * sizeof *y);
    for (size_t i = 0; i < s->unknowns; i++) {
        x[i] = random_c();
        w[i] = random_c();
    }
    double worst = 0;
    for (int q = 0; q < s->n_modes; q++) {
        zop_direct(s, &pt, q, x, w, ref);
        zop_fft(s, &pt, q, x, w, y);
        for (int i = 0; i < s->nz; i++) {
            const size_t k = (size_t)i * s->n_modes + q;
            worst = fmax(worst, cabs(ref[k] - y[k]) / fmax(cabs(ref[k] - x[k]), 1e-300));
        }
    }
    printf("\n    padded-FFT z operator vs direct sum: %.2e relative", worst);
    CU_ASSERT(worst < 1e-10);
    free(x);
    free(w);
    free(y);
    free(ref);
    dif_point_free(&pt);
    problem_free(&pr);
}

/* ---- bad work units ---- */

#define BASE "orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate air\nsubstrate glass\n" \
             "material air eps 1 0\nmaterial glass eps 2.25 0\n"
#define LAYER "layer thickness=100 background=air slices=4\n"
#define SPECTRUM "wavelengths 500\ntheta 10\n"

typedef struct {
    const char *text;
    int line;             /* the line the message must name (0: none) */
    const char *says;     /* part of the message */
} bad_case;

static const bad_case bad_cases[] = {
    {"", 0, "empty work unit"},
    {"orrery-diffraction 2\n", 1, "orrery-diffraction: version '2' is not supported"},
    {"orrery-fdtd 1\n", 1, "expected 'orrery-diffraction 1'"},
    {BASE "perod 800\n" LAYER SPECTRUM, 8, "perod: unknown statement"},
    {"orrery-diffraction 1\nperiod -800\n", 2, "period: must be positive"},
    {"orrery-diffraction 1\nperiod 8e\n", 2, "expected a finite number, found '8e'"},
    {"orrery-diffraction 1\norders 300\n", 2, "300 is outside 0..255"},
    {"orrery-diffraction 1\nperiod 800\norders 3 3\nsuperstrate air\nsubstrate air\n"
     "material air eps 1 0\n" LAYER SPECTRUM, 3, "a line grating (one period) takes MX only"},
    {"orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate air\nmaterial air eps 1 0\n" LAYER
     SPECTRUM, 8, "substrate: missing (a required statement)"},
    {BASE SPECTRUM, 9, "layer: missing (a required statement, at least one)"},
    {BASE "layer thickness=100 background=glas slices=4\n" SPECTRUM, 8,
     "layer background: unknown material 'glas'"},
    {BASE LAYER "shape rect material=glas x=0 width=100\n" SPECTRUM, 9,
     "shape material: unknown material 'glas'"},
    {"orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate air\nsubstrate glas\n"
     "material air eps 1 0\n" LAYER SPECTRUM, 5, "substrate: unknown material 'glas'"},
    {BASE "material gain eps 2 -0.1\n" LAYER SPECTRUM, 8, "gain medium"},
    {BASE "material si nk 600 4 0\nmaterial si nk 500 4 0\n" LAYER SPECTRUM, 9, "increasing"},
    {BASE "material si nk 600 4 0\nmaterial si nk 700 4 0\n" LAYER
     "shape rect material=si x=0 width=100\n" SPECTRUM, 8, "its table covers 600..700 nm, not 500 nm"},
    {BASE "layer thickness=100 background=air\n" SPECTRUM, 8, "layer slices: missing (required)"},
    {BASE "layer thickness=100 background=air slices=4 slices=8\n" SPECTRUM, 8,
     "layer slices: given twice on the line"},
    {BASE "layer thickness=100 background= slices=4\n" SPECTRUM, 8, "layer background: has no value"},
    {BASE "layer thickness=100 air slices=4\n" SPECTRUM, 8, "layer: expected key=value, found 'air'"},
    {BASE "layer thickness=0 background=air slices=4\n" SPECTRUM, 8, "thickness: must be positive"},
    {BASE "shape rect material=glass x=0 width=100\n" LAYER SPECTRUM, 8, "comes before any layer"},
    {BASE LAYER "shape rect material=glass x=0 width=900\n" SPECTRUM, 9, "does not fit in the period"},
    {BASE LAYER "shape rect material=glass x=0 width=300\nshape rect material=glass x=200 width=200\n"
     SPECTRUM, 10, "overlaps the shape of line 9"},
    {BASE LAYER "shape trapezoid material=glass x=0 bottom=50 swa=60\n" SPECTRUM, 9,
     "must stay positive"},
    {BASE LAYER "shape ellipse material=glass x=0 y=0 rx=50 ry=50\n" SPECTRUM, 9,
     "an ellipse in a line grating"},
    {BASE LAYER "wavelengths 500\ntheta 90\n", 10, "theta: 90 is outside [0, 90)"},
    {BASE LAYER SPECTRUM "solver tolerance=0\n", 11, "solver tolerance: must be in"},
    {"orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate glass\nsubstrate glass\n"
     "material glass eps 2.25 0.1\nlayer thickness=100 background=glass slices=4\n" SPECTRUM, 4,
     "must be lossless"},
    {BASE "period 600\n" LAYER SPECTRUM, 8, "given twice (first at line 2)"},
    {BASE LAYER "shape rect material=glass x=0 widht=300\n" SPECTRUM, 9,
     "shape: unknown key 'widht' (expected material, x, width, y, height, rx, ry, bottom or swa)"},
    {BASE LAYER "shape rect material=glass x=0 width=300 rx=5\n" SPECTRUM, 9,
     "shape rx: not a field of a rect"},
    {BASE LAYER "shape trapezoid material=glass x=0 bottom=300\n" SPECTRUM, 9,
     "shape swa: missing (required with trapezoid)"},
    {BASE LAYER "shape square material=glass x=0 width=300\n" SPECTRUM, 9,
     "shape: expected rect, ellipse or trapezoid, found 'square'"},
    {BASE "orders 3 3 3\n", 8, "orders: given twice (first at line 3)"},
    {"orrery-diffraction 1\norders 3 3 3\n", 2, "orders: expected 1 to 2 values, found 3"},
    {BASE LAYER SPECTRUM "wavelength_range 500 600 3\n", 11,
     "wavelength_range: given twice (first at line 9)"},
    {BASE LAYER SPECTRUM "solver method=cg\n", 11,
     "solver method: expected bicgstab or gmres, found 'cg'"},
    {BASE "material a-b eps 1 0\nparameter a-b 1\n" LAYER SPECTRUM, 9,
     "parameter: 'a-b' is not a name ([A-Za-z_][A-Za-z0-9_]*, at most 32 characters)"},
    {BASE "parameter cd 3O\n" LAYER SPECTRUM, 8, "parameter: expected a finite number, found '3O'"},
    {BASE "material 9x eps 1 0\n" LAYER SPECTRUM, 8,
     "material: '9x' is not a name ([A-Za-z_][A-Za-z0-9_-]*, at most 32 characters)"},
    {BASE "material x epsilon 1 0\n" LAYER SPECTRUM, 8, "material: expected eps or nk, found"},
    {BASE LAYER "shape rect material=gl@ss x=0 width=300\n" SPECTRUM, 9,
     "shape material: 'gl@ss' is not a material name"},
    /* 64 words a line at most (a list on one line), as before wutext */
    {BASE LAYER "wavelengths 500 501 502 503 504 505 506 507 508 509 510 511 512 513 514 515 "
     "516 517 518 519 520 521 522 523 524 525 526 527 528 529 530 531 532 533 534 535 536 537 "
     "538 539 540 541 542 543 544 545 546 547 548 549 550 551 552 553 554 555 556 557 558 559 "
     "560 561 562 563 564\ntheta 10\n", 9, "wavelengths: more than 64 words on a line"},
    {BASE "layer thickness=100 background=air slices=60000\n"
     "layer thickness=100 background=air slices=40000\n"
     "layer thickness=100 background=air slices=1\n" SPECTRUM, 10,
     "layer slices: 100001 slices in all layers; at most 100000"},
    {BASE LAYER "wavelength_range 500 600 100000\ntheta 10 20\n", 9,
     "wavelength_range: 200000 spectrum points (100000 wavelengths x 2 theta x 1 phi); at most "
     "100000"},
    {BASE LAYER SPECTRUM "solver restart=20\n", 11, "only with method=gmres"},
    {BASE "parameter cd 30\nparameter cd 40\n" LAYER SPECTRUM, 9, "'cd' given twice"},
    {BASE LAYER "shape rect material=glass x=0 width=300 y=0\n" SPECTRUM, 9, "y= and height= go together"},
    {BASE LAYER "wavelengths 500 nan\ntheta 10\n", 9, "found 'nan'"},
    {BASE LAYER "shape rect material=glass x=5000 width=100\n" SPECTRUM, 9,
     "shape x: 5000 is outside -800..800"},
    {BASE LAYER "shape trapezoid material=glass x=-800.5 bottom=100 swa=80\n" SPECTRUM, 9,
     "shape x: -800.5 is outside -800..800"},
    {"orrery-diffraction 1\nperiod 800 600\norders 3 3\nsuperstrate air\nsubstrate glass\n"
     "material air eps 1 0\nmaterial glass eps 2.25 0\n" LAYER
     "shape ellipse material=glass x=0 y=-700 rx=50 ry=50\n" SPECTRUM, 9,
     "shape y: -700 is outside -600..600"},
    /* issue 40: inputs whose solve overflowed (nan residual, exit 70 after 1000 iterations) */
    {BASE LAYER "wavelengths 1e-300\ntheta 10\n", 9,
     "wavelengths: 1e-300 nm is outside 0.001..1e+09 nm (1 pm to 1 m)"},
    {BASE LAYER "wavelength_range 500 2e9 2\ntheta 10\n", 9,
     "wavelength_range: 2e+09 nm is outside 0.001..1e+09 nm"},
    {BASE "material dense eps 1e200 0\n" LAYER "shape rect material=dense x=0 width=100\n"
     SPECTRUM, 8, "material: 'dense' has |eps| = 1e+200 at 500 nm: at most 1e+06"},
    {BASE "material dense nk 500 2000 1\n" LAYER SPECTRUM, 8, "'dense' has |eps| = 4e+06"},
};

static void test_bad_work_units(void)
{
    for (size_t i = 0; i < ORR_ARRAY_LEN(bad_cases); i++) {
        dif_workunit wu;
        orr_error err;
        memset(&err, 0, sizeof err);
        orr_status s = dif_workunit_parse("bad.txt", bad_cases[i].text, strlen(bad_cases[i].text),
                                          &wu, &err);
        char where[32];
        snprintf(where, sizeof where, "bad.txt:%d: ", bad_cases[i].line);
        const int ok = (s == ORR_ERR_PARSE || s == ORR_ERR_INPUT) &&
                       orr_status_exit_code(s) == 65 && strstr(err.message, bad_cases[i].says) &&
                       (bad_cases[i].line == 0 || strstr(err.message, where));
        if (!ok)
            printf("\n    case %zu: status %d, message '%s'", i, (int)s, err.message);
        CU_ASSERT(ok);
        if (s == ORR_OK)
            dif_workunit_free(&wu);
    }
    printf("\n    %zu kinds of mistakes refused", ORR_ARRAY_LEN(bad_cases));
}

/* The text's limits, kept as diffraction had them before it used wutext:
 * 4 MiB (from a file and from memory) and 64 words a line (63 values of
 * a list are taken); a NUL byte is binary data; '-' in a material name. */
static void test_text_limits(void)
{
    dif_workunit wu;
    orr_error err;
    char text[1024] = BASE "material si-x eps 4 0.1\n" LAYER
                      "shape rect material=si-x x=0 width=100\ntheta 10\nwavelengths";
    for (int i = 0; i < 63; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %d", 500 + i);
    strcat(text, "\n");
    CU_ASSERT_EQUAL_FATAL(dif_workunit_parse("ok.txt", text, strlen(text), &wu, &err), ORR_OK);
    CU_ASSERT(wu.n_wavelengths == 63 && wu.wavelengths[62] == 562 && wu.shapes[0].material == 2);
    dif_workunit_free(&wu);
    const char nul[] = "orrery-diffraction 1\nperiod 800 # \0\n";
    CU_ASSERT_EQUAL(dif_workunit_parse("nul.txt", nul, sizeof nul - 1, &wu, &err), ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "nul.txt:2: text: binary data (a NUL byte)"));
    const size_t big = ((size_t)4 << 20) + 1;
    char *pad = malloc(big), path[300];
    CU_ASSERT_PTR_NOT_NULL_FATAL(pad);
    memset(pad, '\n', big);
    memcpy(pad, BASE, strlen(BASE));
    CU_ASSERT_EQUAL(dif_workunit_parse("big", pad, big, &wu, &err), ORR_ERR_INPUT);
    CU_ASSERT_STRING_EQUAL(err.message, "big: 4194305 bytes: a work unit is at most 4 MiB");
    snprintf(path, sizeof path, "%s/big.txt", tmpdir);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(pad, 1, big, f), big);
    fclose(f);
    free(pad);
    CU_ASSERT_EQUAL(dif_workunit_load(path, &wu, &err), ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, ": larger than 4 MiB (after decompression): a work "
                                  "unit is at most 4 MiB"));
    unlink(path);
}

/* Coefficients p = -3..3 of the slice of a 300 nm line centred at x. */
static void line_coefficients(const char *x, double complex c[7])
{
    char text[512];
    snprintf(text, sizeof text, "%s%sshape rect material=glass x=%s width=300\n%s", BASE, LAYER, x,
             SPECTRUM);
    dif_workunit wu;
    dif_setup s;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(dif_workunit_parse("ok.txt", text, strlen(text), &wu, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(dif_setup_init(&wu, &s, &err), ORR_OK);
    const double complex eps[2] = {1, 2.25};
    for (int p = -3; p <= 3; p++)
        c[p + 3] = dif_contrast_coefficient(&wu, &s, 0, eps, 1, p, 0);
    dif_setup_free(&s);
    dif_workunit_free(&wu);
}

static double coefficients_differ(const double complex a[7], const double complex b[7])
{
    double worst = 0;
    for (int i = 0; i < 7; i++)
        worst = fmax(worst, cabs(a[i] - b[i]));
    return worst;
}

/* A centre anywhere within one period of the origin is taken, so a cell
 * may be drawn centred on 0 or from 0 to LX, and means its image in the
 * cell: x = -800, 0 and 800 are one line, and so are -100 and 700. */
static void test_shape_centres(void)
{
    double complex c0[7], lo[7], hi[7], neg[7], pos[7];
    line_coefficients("0", c0);
    line_coefficients("-800", lo);
    line_coefficients("800", hi);
    line_coefficients("-100", neg);
    line_coefficients("700", pos);
    CU_ASSERT(coefficients_differ(c0, lo) < 1e-14 && coefficients_differ(c0, hi) < 1e-14);
    CU_ASSERT(coefficients_differ(neg, pos) < 1e-14);
    CU_ASSERT(coefficients_differ(c0, neg) > 1e-3);
}

/* At lambda = period and normal incidence orders +-1 graze: refused before
 * any work (exit 65), naming the point, the order and, as every work-unit
 * error, file:line: key: the wavelengths' statement, with the angles' lines. */
static void test_rayleigh(void)
{
    static const struct {
        const char *spectrum, *where, *angles;
    } cases[] = {
        {"wavelengths 500 800\ntheta 0\n", "wu.txt:10: wavelengths: ", "(theta: line 11)"},
        {"theta 0\nphi 0\nwavelength_range 700 800 2\n", "wu.txt:12: wavelength_range: ",
         "(theta: line 10, phi: line 11)"},
    };
    for (size_t i = 0; i < ORR_ARRAY_LEN(cases); i++) {
        char wu[1024], want[256];
        snprintf(wu, sizeof wu, "%s%sshape rect material=glass x=0 width=300\n%s", BASE, LAYER,
                 cases[i].spectrum);
        snprintf(want, sizeof want, "%spoint 1 (lambda 800 nm, theta 0, phi 0): order (-1, 0)",
                 cases[i].where);
        results r;
        orr_error err;
        const orr_status s = run_wu(wu, 1, 0, &r, &err);
        CU_ASSERT_EQUAL(s, ORR_ERR_INPUT);
        CU_ASSERT_EQUAL(orr_status_exit_code(s), 65);
        const int ok = strstr(err.message, want) && strstr(err.message, "Rayleigh anomaly") &&
                       strstr(err.message, cases[i].angles);
        if (!ok)
            printf("\n    case %zu: message '%s'", i, err.message);
        CU_ASSERT(ok);
    }
}

/* ---- thick layers; what is reported as ok (issue 40, item 3) ---- */

static const char thick_fmt[] =
    "orrery-diffraction 1\nperiod 800\norders %d\nsuperstrate air\nsubstrate glass\n"
    "material air eps 1 0\nmaterial glass eps 2.25 0\n"
    "layer thickness=%g background=%s slices=%d\n%swavelengths 600\ntheta 10\n";

/* A 1e6 nm layer: the order (-2, 0), evanescent in air and propagating in
 * glass, gave T_total nan (sin overflowing, its exponential underflowing)
 * with status ok. Its slices are 1e6 nm thick here: finite numbers whose
 * energy balance fails, so the point is `unbalanced`. A homogeneous film
 * (one order) that thick conserves energy in the discrete model: ok. */
static void test_thick_layer(void)
{
    char wu[1024];
    results r;
    orr_error err;
    snprintf(wu, sizeof wu, thick_fmt, 10, 1e6, "air", 1, "shape rect material=glass x=0 width=300\n");
    CU_ASSERT_EQUAL_FATAL(run_wu(wu, 2, 0, &r, &err), ORR_OK);
    printf("\n    grating, one 1e6 nm slice: R_total %.4g T_total %.4g", r.r_total[0], r.t_total[0]);
    CU_ASSERT(isfinite(r.t_total[0]) && isfinite(r.r_total[0]));
    CU_ASSERT(!r.status_ok[0]);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, " unbalanced "));
    CU_ASSERT_PTR_NULL(strstr(r.text, "nan"));   /* a lossless substrate: no nan anywhere */
    snprintf(wu, sizeof wu, thick_fmt, 0, 1e6, "glass", 16, "");
    CU_ASSERT_EQUAL_FATAL(run_wu(wu, 2, 0, &r, &err), ORR_OK);
    printf("\n    film, 16 slices of 62500 nm: |R + T - 1| %.2g",
           fabs(r.r_total[0] + r.t_total[0] - 1));
    CU_ASSERT(r.status_ok[0] && fabs(r.r_total[0] + r.t_total[0] - 1) < 1e-10);
}

/* The energy rule and the finite check on made-up outputs of one point. */
static void test_point_checks(void)
{
    problem pb;
    dif_point pt;
    orr_error err;
    char wu[1024];
    snprintf(wu, sizeof wu, thick_fmt, 2, 200.0, "air", 8, "shape rect material=glass x=0 width=300\n");
    problem_load(&pb, wu);
    CU_ASSERT_EQUAL_FATAL(dif_point_init(&pb.wu, &pb.s, 0, &pt, &err), ORR_OK);
    const int n = pb.s.n_modes;
    double R[5], T[5];
    dif_point_result res = {.residual = 1e-12, .r00 = {0.1, 0.2}, .r_total = 0.2, .t_total = 0.8};
    for (int q = 0; q < n; q++)
        R[q] = T[q] = 0.01;
    CU_ASSERT_EQUAL(dif_point_balance(&pb.wu, &pt, &res), DIF_POINT_OK);
    res.t_total = 0.82;   /* T(0,0) = 1.02 in the issue: more light out than in */
    CU_ASSERT_EQUAL(dif_point_balance(&pb.wu, &pt, &res), DIF_POINT_UNBALANCED);
    res.t_total = 0.78;   /* a lossless stack that loses 2% */
    CU_ASSERT_EQUAL(dif_point_balance(&pb.wu, &pt, &res), DIF_POINT_UNBALANCED);
    res.t_total = 0.795;
    CU_ASSERT_EQUAL(dif_point_balance(&pb.wu, &pt, &res), DIF_POINT_OK);
    /* the rule on the numbers alone (what orrery-validate recomputes) */
    CU_ASSERT_EQUAL(dif_energy_balance(0.2, 0.795, 0), DIF_BALANCE_OK);
    CU_ASSERT_EQUAL(dif_energy_balance(0.2, 0.82, 0), DIF_BALANCE_UNBALANCED);
    CU_ASSERT_EQUAL(dif_energy_balance(0.2, 0.78, 0), DIF_BALANCE_IF_LOSSLESS);
    CU_ASSERT_EQUAL(dif_energy_balance(0.2, NAN, 1), DIF_BALANCE_OK);   /* lossy: R_total alone */
    CU_ASSERT_EQUAL(dif_energy_balance(1.02, NAN, 1), DIF_BALANCE_UNBALANCED);
    CU_ASSERT_EQUAL(dif_energy_balance(NAN, 0.5, 0), DIF_BALANCE_UNBALANCED);
    CU_ASSERT_EQUAL(dif_point_check_finite(&pb.wu, &pb.s, &pt, 0, &res, R, T, &err), ORR_OK);
    T[pt.mode00] = NAN;
    CU_ASSERT_EQUAL(dif_point_check_finite(&pb.wu, &pb.s, &pt, 0, &res, R, T, &err),
                    ORR_ERR_NUMERIC);
    printf("\n    %s", err.message);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "test: point 0: T of order (0, 0) is nan: not "
                                               "finite; nothing is reported"));
    T[pt.mode00] = 0.01;
    res.t_total = -INFINITY;
    CU_ASSERT_EQUAL(dif_point_check_finite(&pb.wu, &pb.s, &pt, 0, &res, R, T, &err),
                    ORR_ERR_NUMERIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "test: point 0: T_total is -inf"));
    dif_point_free(&pt);
    problem_free(&pb);
}

int main(void)
{
    orr_error err;
    snprintf(tmpdir, sizeof tmpdir, "%s/orrery-dif-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir) || orr_runtime_init(0, &err) != ORR_OK) {
        fprintf(stderr, "cannot start: %s\n", err.message);
        return 1;
    }
    srand(12345);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("diffraction (scalar scatterometry model)", NULL, NULL);
    CU_add_test(s, "homogeneous film: Airy, dz^2 (ratio 4.00), |R+T-1| <= 1e-14", test_film_airy);
    CU_add_test(s, "lossless grating: energy balance as the spec's example", test_grating_energy);
    CU_add_test(s, "symmetric line, normal incidence: R_m = R_-m", test_symmetry);
    CU_add_test(s, "convergence in the Fourier orders", test_orders_convergence);
    CU_add_test(s, "CPU threads and batch sizes: the reference's bits", test_backends_agree);
    CU_add_test(s, "GMRES(m) = BiCGStab; bits independent of threads and batches", test_gmres);
    CU_add_test(s, "convolution = block-Toeplitz sum (1D, trapezoid slices)", test_conv_1d);
    CU_add_test(s, "convolution = block-Toeplitz sum (2D, ellipse + rectangle)", test_conv_2d);
    CU_add_test(s, "ellipse Fourier coefficients vs quadrature", test_coefficients_quadrature);
    CU_add_test(s, "z sweeps = direct sum (3 layers, evanescent orders)", test_zop_direct);
    CU_add_test(s, "padded-FFT z operator = direct sum", test_zop_fft);
    CU_add_test(s, "bad work units: file:line: key, exit 65", test_bad_work_units);
    CU_add_test(s, "the text: 4 MiB, 64 words a line, no NUL, '-' in material names",
                test_text_limits);
    CU_add_test(s, "shape centres within one period, as their image in the cell",
                test_shape_centres);
    CU_add_test(s, "Rayleigh anomaly refused: file:line: key, the point and order", test_rayleigh);
    CU_add_test(s, "a 1e6 nm layer: finite, and ok only where energy balances", test_thick_layer);
    CU_add_test(s, "the energy rule of ok and unbalanced; the finite check", test_point_checks);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
