/* The FDTD kind against physics it must keep (docs/fdtd.md section 5):
 * the discrete energy constant to round-off once the source is released
 * (both lossless walls, a lossless dielectric, single precision); the
 * cavity's ringing at the discrete Yee eigenfrequencies of the spec (an
 * FFT of a probe on the project's spectral kernels) for both wall types;
 * the discrete divergence of E zero away from the source; the CPML's
 * reflection at normal incidence against a run in a domain large enough
 * to have none in the window; a dielectric slab's reflection against its
 * exact value, second order; fast mode within 1e-12 of faithful. The
 * reference ops run directly (no BOINC), on the plain row kernels. */
#include <CUnit/Basic.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdtd/job.h"
#include "fdtd/ops.h"
#include "spectral/spectral.h"

#define PI 3.14159265358979323846

/* ---- a work unit run on the reference ops ---- */

typedef struct {
    fdtd_workunit wu;
    fdtd_setup s;
    fdtd_ctx *ctx;
    double *series;   /* [steps][n_probes] */
    double *energy;   /* [fdtd_energy_count(wu, steps)], zero past it */
} run;

static void run_text(run *r, const char *text)
{
    orr_error err = {.status = ORR_OK};
    memset(r, 0, sizeof *r);
    if (fdtd_workunit_parse("test.wu", text, strlen(text), &r->wu, &err) != ORR_OK ||
        fdtd_setup_init(&r->wu, &r->s, &err) != ORR_OK)
        printf("\n    %s", err.message);
    CU_ASSERT_EQUAL_FATAL(err.status, ORR_OK);
    CU_ASSERT_EQUAL_FATAL(fdtd_reference_ops.open(NULL, &r->wu, &r->s, &r->ctx, &err), ORR_OK);
    r->series = calloc((size_t)r->wu.steps * r->s.n_probes, sizeof *r->series);
    r->energy = calloc((size_t)r->wu.steps + 1, sizeof *r->energy);
    CU_ASSERT_FATAL(r->series && r->energy);
    CU_ASSERT_EQUAL_FATAL(fdtd_reference_ops.steps(r->ctx, 1, (int)r->wu.steps, r->series, r->energy, &err),
                          ORR_OK);
}

static void run_free(run *r)
{
    fdtd_reference_ops.close(r->ctx);
    fdtd_setup_free(&r->s);
    fdtd_workunit_free(&r->wu);
    free(r->series);
    free(r->energy);
}

/* Field f of a finished run, as doubles. */
static double *field(run *r, int f)
{
    orr_error err;
    void *raw = malloc(r->s.cells * (size_t)r->s.real_bytes);
    double *out = malloc(r->s.cells * sizeof *out);
    CU_ASSERT_FATAL(raw && out);
    CU_ASSERT_EQUAL(fdtd_reference_ops.read(r->ctx, f, raw, &err), ORR_OK);
    for (size_t c = 0; c < r->s.cells; c++)
        out[c] = r->s.real_bytes == 4 ? ((float *)raw)[c] : ((double *)raw)[c];
    free(raw);
    return out;
}

/* ---- energy ---- */

/* The energies after the source's release (step release, every 10) stay
 * within tol of the first of them. */
static void energy_flat(const char *text, long release, double tol)
{
    run r;
    run_text(&r, text);
    const long every = r.wu.energy_every, first = release / every + 1, n = r.wu.steps / every;
    double worst = 0;
    CU_ASSERT(r.energy[first - 1] > 0);
    for (long e = first; e < n; e++)
        worst = fmax(worst, fabs(r.energy[e] - r.energy[first - 1]) / r.energy[first - 1]);
    printf("\n    energy drift after release: %.2e (tol %.0e) ", worst, tol);
    CU_ASSERT(worst <= tol);
    run_free(&r);
}

static const char *cavity(const char *boundary, const char *extra, char *buf, size_t size)
{
    snprintf(buf, size,
             "orrery-fdtd 1\ngrid 12 10 9\ncell 1e-3 1.2e-3 0.9e-3\nsteps 300\nboundary %s\n"
             "source waveform=gauss width=6 release_after=40\nprobe ez 3 4 5\nenergy every=10\n%s",
             boundary, extra);
    return buf;
}

static void test_energy(void)
{
    char buf[1024];
    energy_flat(cavity("pec", "", buf, sizeof buf), 40, 1e-13);
    energy_flat(cavity("thesis", "", buf, sizeof buf), 40, 1e-13);
    energy_flat(cavity("pec", "material glass eps_r=4\nbox material=glass from=0,0,0 to=6e-3,1,1\n",
                       buf, sizeof buf), 40, 1e-13);
    energy_flat(cavity("pec", "precision single\n", buf, sizeof buf), 40, 1e-5);
}

/* The series ends with the last step even where K does not divide the
 * steps: 305 steps every 10 give 31 energies, the last W(305), the very
 * value a run sampling every step gives there (and both runs' other
 * samples agree); with 300 steps the last step is not sampled twice. */
static void test_energy_last_step(void)
{
    char every10[1024], every1[1024];
    const char *head = "orrery-fdtd 1\ngrid 12 10 9\ncell 1e-3 1.2e-3 0.9e-3\nsteps %d\n"
                       "boundary pec\nsource waveform=gauss width=6 release_after=40\n"
                       "probe ez 3 4 5\nenergy every=%d\n";
    snprintf(every10, sizeof every10, head, 305, 10);
    snprintf(every1, sizeof every1, head, 305, 1);
    run a, b;
    run_text(&a, every10);
    run_text(&b, every1);
    CU_ASSERT_EQUAL(fdtd_energy_count(&a.wu, 304), 30);
    CU_ASSERT_EQUAL(fdtd_energy_count(&a.wu, 305), 31);
    CU_ASSERT_EQUAL(fdtd_energy_step(&a.wu, 29), 300);
    CU_ASSERT_EQUAL(fdtd_energy_step(&a.wu, 30), 305);
    CU_ASSERT_EQUAL(fdtd_energy_count(&b.wu, 305), 305);
    for (long e = 0; e < 31; e++)
        CU_ASSERT_EQUAL(a.energy[e], b.energy[fdtd_energy_step(&a.wu, e) - 1]);
    CU_ASSERT_EQUAL(a.energy[31], 0);   /* nothing past the count (calloc'd) */
    run_free(&a);
    run_free(&b);
    snprintf(every10, sizeof every10, head, 300, 10);
    run_text(&a, every10);
    CU_ASSERT_EQUAL(fdtd_energy_count(&a.wu, 300), 30);
    CU_ASSERT_EQUAL(fdtd_energy_step(&a.wu, 29), 300);
    CU_ASSERT_EQUAL(a.energy[30], 0);
    run_free(&a);
}

/* ---- resonances ---- */

/* The discrete Yee eigenfrequencies (Hz) of the spec: sin^2(w dt/2)/(c dt)^2
 * = sum_d sin^2(k_d D_d/2)/D_d^2; pec walls k = m pi/((n+1) D), thesis
 * k = (2m+1) pi/((2n+1) D). */
static int eigenfrequencies(const fdtd_setup *s, int thesis, double *f, int max)
{
    int count = 0;
    const int top[3] = {s->n[0] + 1, s->n[1] + 1, s->n[2] + 1};
    for (int a = 0; a < top[0]; a++)
        for (int b = 0; b < top[1]; b++)
            for (int c = 0; c < top[2] && count < max; c++) {
                const int m[3] = {a, b, c};
                double sum = 0;
                for (int d = 0; d < 3; d++) {
                    const double k = thesis ? (2 * m[d] + 1) * PI / ((2 * s->n[d] + 1) * s->d[d])
                                            : m[d] * PI / ((s->n[d] + 1) * s->d[d]);
                    const double q = sin(k * s->d[d] / 2) / s->d[d];
                    sum += q * q;
                }
                const double x = FDTD_C0 * s->dt * sqrt(sum);
                if (x > 0 && x < 1)
                    f[count++] = 2 * asin(x) / s->dt / (2 * PI);
            }
    return count;
}

/* Every clear peak of the probe's spectrum (Hann window, above 2% of the
 * largest) lies within 1.5 bins of an eigenfrequency. */
static void resonances(const char *boundary)
{
    char text[1024];
    snprintf(text, sizeof text,
             "orrery-fdtd 1\ngrid 5 6 7\ncell 1e-3 1e-3 1e-3\nsteps 4096\nboundary %s\n"
             "source waveform=dgauss width=1.5 delay=8 at=2,3,3 release_after=24\nprobe ez 4 2 5\n",
             boundary);
    run r;
    run_text(&r, text);
    const int n = (int)r.wu.steps;
    double complex *x = malloc((size_t)n * sizeof *x);
    spec_plan *plan;
    orr_error err;
    spec_desc d = {.kind = SPEC_C2C, .precision = SPEC_F64, .n = n, .batch = 1};
    CU_ASSERT_EQUAL_FATAL(spec_plan_create(&d, &plan, &err), ORR_OK);
    for (int t = 0; t < n; t++)
        x[t] = r.series[t] * (0.5 - 0.5 * cos(2 * PI * t / n));
    CU_ASSERT_EQUAL(spec_execute(plan, x, x, &err), ORR_OK);
    double f[4096], top = 0;
    const int nf = eigenfrequencies(&r.s, strcmp(boundary, "thesis") == 0, f, 4096);
    const double bin = 1 / (n * r.s.dt);
    for (int k = 1; k < n / 2; k++)
        top = fmax(top, cabs(x[k]));
    int peaks = 0, matched = 0;
    for (int k = 2; k < n / 2 - 1; k++) {
        const double a = cabs(x[k]);
        if (a < 0.02 * top || a < cabs(x[k - 1]) || a < cabs(x[k + 1]))
            continue;
        peaks++;
        double best = INFINITY;
        for (int q = 0; q < nf; q++)
            best = fmin(best, fabs(f[q] - k * bin));
        matched += best <= 1.5 * bin;
        if (best > 1.5 * bin)
            printf("\n    %s: peak at %.6g GHz is %.1f bins from every mode", boundary, k * bin / 1e9,
                   best / bin);
    }
    printf("\n    %s: %d of %d peaks at Yee eigenfrequencies ", boundary, matched, peaks);
    CU_ASSERT(peaks >= 3);
    CU_ASSERT_EQUAL(matched, peaks);
    spec_plan_destroy(plan);
    free(x);
    run_free(&r);
}

static void test_resonances(void)
{
    resonances("pec");
    resonances("thesis");
}

/* ---- divergence ---- */

static void test_divergence(void)
{
    char buf[1024];
    run r;
    run_text(&r, cavity("pec", "", buf, sizeof buf));
    double *e[3] = {field(&r, FDTD_EX), field(&r, FDTD_EY), field(&r, FDTD_EZ)};
    const fdtd_setup *s = &r.s;
    const int *src = r.wu.source.at;
    double worst = 0, scale = 0;
    for (size_t c = 0; c < s->cells; c++)
        scale = fmax(scale, fmax(fabs(e[0][c]), fmax(fabs(e[1][c]), fabs(e[2][c]))));
    /* div E at node (i,j,k): Ex at i -+ 1/2, Ey at j -+ 1/2, Ez at k -+ 1/2 */
    for (long k = 1; k <= s->n[2]; k++)
        for (long j = 1; j <= s->n[1]; j++)
            for (long i = 1; i <= s->n[0]; i++) {
                if (i == src[0] && j == src[1] && (k == src[2] || k == src[2] - 1))
                    continue;   /* the nodes at the source edge's ends hold its charge */
                const long c = i + s->sx * (j + s->sy * k);
                const double div = (e[0][c + 1] - e[0][c]) / s->d[0] +
                                   (e[1][c + s->sx] - e[1][c]) / s->d[1] +
                                   (e[2][c + s->sx * s->sy] - e[2][c]) / s->d[2];
                worst = fmax(worst, fabs(div) * s->d[0] / scale);
            }
    printf("\n    |div E| dx / max|E| away from the source: %.2e ", worst);
    CU_ASSERT(worst <= 1e-12);
    for (int f = 0; f < 3; f++)
        free(e[f]);
    run_free(&r);
}

/* ---- the CPML ---- */

static void test_cpml(void)
{
    /* The probe 8 cells from the source toward +z, 1 cell before the layer
     * (small) and 30 cells before it (large: its echo comes after the window). */
    const char *fmt = "orrery-fdtd 1\ngrid %d %d %d\ncell 1e-3 1e-3 1e-3\nsteps 85\n"
                      "boundary cpml thickness=10\nsource waveform=dgauss width=3 delay=12\n"
                      "probe ez %d %d %d\n";
    char small_wu[512], large_wu[512];
    snprintf(small_wu, sizeof small_wu, fmt, 36, 36, 36, 18, 18, 26);
    snprintf(large_wu, sizeof large_wu, fmt, 80, 80, 80, 40, 40, 48);
    run small, large;
    run_text(&small, small_wu);
    run_text(&large, large_wu);
    double diff = 0, top = 0;
    for (long t = 0; t < small.wu.steps; t++) {
        diff = fmax(diff, fabs(small.series[t] - large.series[t]));
        top = fmax(top, fabs(large.series[t]));
    }
    const double db = 20 * log10(diff / top);
    printf("\n    CPML, 10 cells, normal incidence: reflection %.1f dB ", db);
    CU_ASSERT(top > 0);
    CU_ASSERT(db <= -40);
    run_free(&small);
    run_free(&large);
}

/* ---- reflection from a dielectric slab ---- */

/* A slab of eps_r 4, one guide width thick, filling a PEC waveguide's
 * cross-section (a = (ny+1) cells wide in y, Ez polarised, two cells
 * high): its TE10 mode is two plane waves at incidence angles sin(theta)
 * = pi/(k a), so the slab's reflection is the TE (s) plane-wave reflection
 * of a slab in free space at that angle, known exactly. The source (a
 * modulated Gaussian table: 1.2..2 fc) and the probe are far enough from
 * the slab and the guide's end walls that what the window holds is the
 * incident pulse and the slab's echo only; the echo is the run with the
 * slab minus the run without. res: cells per guide width. */
#define SLAB_EPS 4.0

typedef struct {
    int res;
    double fc, dt;
    double complex incident[16], echo[16];
    double freq[16];   /* f / fc */
    int n_freq;
} slab_run;

static char *slab_unit(int res, int with_slab, double *fc_out)
{
    const double a = 0.02, h = a / res, fc = FDTD_C0 / (2 * a);
    const double dt = 0.99 / (FDTD_C0 * sqrt(3 / (h * h)));
    const double tau = 1.59 / fc / dt, delay = 4 * tau, f0 = 1.6 * fc;
    const long n_table = (long)(8 * tau), xs = 2 * res, xp = 25 * res, xl = 26 * res;
    char *text = malloc(64 * (size_t)n_table + 4096);
    CU_ASSERT_FATAL(text != NULL);
    int len = sprintf(text,
                      "orrery-fdtd 1\ngrid %d %d 1\ncell %.17g %.17g %.17g\nsteps %d\nboundary pec\n"
                      "source waveform=table at=%ld,%d,1 release_after=%ld\nprobe ez %ld %d 1\n",
                      52 * res - 1, res - 1, h, h, h, 130 * res, xs, res / 2, n_table, xp, res / 2);
    if (with_slab)
        len += sprintf(text + len, "material slab eps_r=%g\nbox material=slab from=%.17g,0,0 to=%.17g,1,1\n",
                       SLAB_EPS, xl * h, (xl + res) * h);
    for (long n = 1; n <= n_table; n++)
        len += sprintf(text + len, "%s%.17g%s", n % 8 == 1 ? "table " : "",
                       sin(2 * PI * f0 * (n - delay) * dt) * exp(-pow((n - delay) / tau, 2)),
                       n % 8 == 0 || n == n_table ? "\n" : " ");
    *fc_out = fc;
    return text;
}

/* The slab's reflection, continuum: TE10 wavenumbers beta = sqrt(k^2 - (pi/a)^2). */
static double complex slab_exact(double f_over_fc)
{
    const double kc = PI / 0.02, k0 = kc * f_over_fc, d = 0.02;
    const double b0 = sqrt(k0 * k0 - kc * kc), b1 = sqrt(SLAB_EPS * k0 * k0 - kc * kc);
    const double r = (b0 - b1) / (b0 + b1);
    const double complex p = cexp(-2 * I * b1 * d);
    return r * (1 - p) / (1 - r * r * p);
}

/* |R| measured at f / fc = 1.40 .. 1.85: the largest error against the
 * exact value. */
static double slab_reflection(int res)
{
    double fc;
    run bare, slab;
    char *t0 = slab_unit(res, 0, &fc), *t1 = slab_unit(res, 1, &fc);
    run_text(&bare, t0);
    run_text(&slab, t1);
    double worst = 0;
    printf("\n    slab in a waveguide, %d cells a guide width: f/fc |R| measured, exact", res);
    for (int q = 0; q < 10; q++) {
        const double f = (1.40 + 0.05 * q) * fc;
        double complex inc = 0, echo = 0;
        for (long t = 0; t < bare.wu.steps; t++) {
            const double complex w = cexp(-2 * I * PI * f * (t + 1) * bare.s.dt);
            inc += bare.series[t] * w;
            echo += (slab.series[t] - bare.series[t]) * w;
        }
        const double measured = cabs(echo) / cabs(inc), exact = cabs(slab_exact(f / fc));
        printf("\n      %.2f %.4f %.4f", f / fc, measured, exact);
        worst = fmax(worst, fabs(measured - exact));
    }
    printf("\n    largest |R| error %.4f ", worst);
    free(t0);
    free(t1);
    run_free(&bare);
    run_free(&slab);
    return worst;
}

/* The error against the exact value is the grid's dispersion, second
 * order: at 20 cells a guide width (11 cells a wavelength in the slab at
 * 1.85 fc) |R| is within 0.08, and 30 cells cut it by (20/30)^2. 40 cells
 * (0.0195, the README's example) with ORRERY_FDTD_SLAB_FINE set. */
static void test_slab(void)
{
    const double coarse = slab_reflection(20), finer = slab_reflection(30);
    printf("\n    error ratio 30 / 20 cells: %.3f (second order: %.3f) ", finer / coarse, 4.0 / 9);
    CU_ASSERT(coarse <= 0.08);
    CU_ASSERT(finer <= 1.15 * (4.0 / 9) * coarse);
    if (getenv("ORRERY_FDTD_SLAB_FINE"))
        CU_ASSERT(slab_reflection(40) <= 0.02);
}

/* ---- fast against faithful ---- */

static void fast_vs_faithful(const char *body)
{
    char a[2048], b[2048];
    snprintf(a, sizeof a, "orrery-fdtd 1\n%sarithmetic faithful\n", body);
    snprintf(b, sizeof b, "orrery-fdtd 1\n%sarithmetic fast\n", body);
    run x, y;
    run_text(&x, a);
    run_text(&y, b);
    const size_t n = (size_t)x.wu.steps * x.s.n_probes;
    double diff = 0, top = 0;
    for (size_t i = 0; i < n; i++) {
        diff = fmax(diff, fabs(x.series[i] - y.series[i]));
        top = fmax(top, fabs(x.series[i]));
    }
    printf("\n    fast against faithful: %.2e of the largest value ", diff / top);
    CU_ASSERT(diff <= 1e-12 * top);
    run_free(&x);
    run_free(&y);
}

static void test_fast(void)
{
    fast_vs_faithful("grid 14 12 10\ncell 1e-3 1e-3 1e-3\nsteps 300\nboundary cpml thickness=4\n"
                     "source waveform=gauss width=5\nprobe ez 4 5 6\nprobe hx 9 8 3\n"
                     "material lossy eps_r=3 sigma=0.5\nsphere material=lossy centre=7e-3,6e-3,5e-3 "
                     "radius=3e-3\n");
}

/* ---- nothing non-finite is reported (issue 40) ---- */

/* A finished run reported through the kind's report with one number
 * replaced by value: series[at] (which < 0: energy[-which - 1]); the
 * status, and whether the table exists afterwards. */
static orr_status report_with(long which, double value, int *written, orr_error *err)
{
    char dir[] = "/tmp/orrery-fdtd-report-XXXXXX", out[64], partial[80];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/results.txt", dir);
    snprintf(partial, sizeof partial, "%s.partial", out);
    run r;
    run_text(&r, "orrery-fdtd 1\ngrid 8 8 8\ncell 1e-3 1e-3 1e-3\nsteps 40\nboundary pec\n"
                 "source waveform=gauss width=4\nprobe ez 2 3 4\nprobe hx 5 5 5\nenergy every=10\n");
    fdtd_cli cli = {.job = {.output = out}};
    fdtd_job job = {.opt = &cli, .wu = r.wu, .s = r.s, .ops = {&fdtd_reference_ops, NULL},
                    .ctx = r.ctx, .done = r.wu.steps, .series = r.series, .energy = r.energy,
                    .n_energy = fdtd_energy_count(&r.wu, r.wu.steps)};
    if (which > 0)
        r.series[which] = value;
    else if (which < 0)
        r.energy[-which - 1] = value;
    orr_status st = fdtd_job_report(&job, err);
    *written = access(out, F_OK) == 0;
    CU_ASSERT(access(partial, F_OK) != 0);
    unlink(out);
    rmdir(dir);
    free(job.payload);
    run_free(&r);
    return st;
}

static void test_report_finite(void)
{
    orr_error err;
    int written;
    CU_ASSERT_EQUAL(report_with(0, 0, &written, &err), ORR_OK);
    CU_ASSERT(written);
    /* step 17's value of probe 1 (series[16 * 2 + 1]) */
    CU_ASSERT_EQUAL(report_with(33, -INFINITY, &written, &err), ORR_ERR_NUMERIC);
    CU_ASSERT(!written);
    CU_ASSERT_EQUAL(orr_status_exit_code(err.status), 70);
    printf("\n    %s", err.message);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "test.wu: probe 1 (hx at 5,5,5) at step 17 is -inf: "
                                               "not finite; nothing is reported"));
    CU_ASSERT_EQUAL(report_with(-3, NAN, &written, &err), ORR_ERR_NUMERIC);
    CU_ASSERT(!written);
    printf("\n    %s", err.message);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "test.wu: the energy at step 30 is "));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("fdtd", NULL, NULL);
    CU_add_test(s, "energy constant after the source's release", test_energy);
    CU_add_test(s, "energy series ends with the last step", test_energy_last_step);
    CU_add_test(s, "cavity peaks at the Yee eigenfrequencies", test_resonances);
    CU_add_test(s, "discrete divergence of E away from the source", test_divergence);
    CU_add_test(s, "CPML reflection at normal incidence <= -40 dB", test_cpml);
    CU_add_test(s, "dielectric slab's reflection against the exact value", test_slab);
    CU_add_test(s, "fast within 1e-12 of faithful", test_fast);
    CU_add_test(s, "a non-finite series value or energy is never reported", test_report_finite);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    const unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
