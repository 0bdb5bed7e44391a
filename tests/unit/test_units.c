/* Unit tests of the shared core against independent references: survey
 * geometry (values from the formulas of docs/separation.md evaluated at 40 digits with
 * mpmath), Gauss-Legendre quadrature (exact polynomial integrals), Kahan
 * summation, r-point construction, each density, the status table, and a
 * battery of malformed inputs that must be rejected with a message. */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "checkpoint.h"
#include "io/io.h"
#include "separation/nodes.h"
#include "separation/ops.h"
#include "separation/separation.h"

static const char *datadir;

/* ---------------- numerics ---------------- */

static void test_gc_to_lb_known_points(void)
{
    /* wedge, mu, nu -> l (wrapped to (-180, 180]), b: from the formulas of docs/separation.md
     * formulas at 40 digits (mpmath), independently of this code. */
    static const double ref[][5] = {
        {11, 150, -1.25, -121.74161847523562608, 41.203107069962174468},
        {11, 229, 1.25, 4.4442635374874323451, 47.847290893846957164},
        {86, 310, 0, 40.332358195045962826, -26.341698284932326028},
        {79, 416, 0.5, -178.01784443690953024, -37.029824819143105446},
        {20, 185, 0.3, -134.29296484699658329, 82.717252889283943623},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        double l, b;
        sep_gc_to_lb((int)ref[i][0], ref[i][1], ref[i][2], &l, &b);
        CU_ASSERT_DOUBLE_EQUAL(l, ref[i][3], 1e-11);
        CU_ASSERT_DOUBLE_EQUAL(b, ref[i][4], 1e-11);
    }
}

/* sep_lb_to_gc (cutting catalogues to a wedge) inverts sep_gc_to_lb. */
static void test_lb_to_gc_round_trip(void)
{
    srand48(11);
    for (int i = 0; i < 10000; i++) {
        const int wedge = 1 + i % 90;
        const double mu = 360 * drand48(), nu = 170 * drand48() - 85;
        double l, b, mu2, nu2;
        sep_gc_to_lb(wedge, mu, nu, &l, &b);
        sep_lb_to_gc(wedge, l, b, &mu2, &nu2);
        double dmu = fabs(mu2 - mu);
        if (dmu > 180)
            dmu = 360 - dmu;
        /* the 12-digit rotation is orthonormal to ~1e-11: 1e-8 degrees */
        CU_ASSERT(dmu < 1e-8 * (1 + 1 / cos(nu * M_PI / 180)));
        CU_ASSERT_DOUBLE_EQUAL(nu2, nu, 1e-8);
    }
}

static void test_gauss_legendre_polynomials(void)
{
    static const int sizes[] = {2, 8, 64, 120, 256};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        double x[256], w[256];
        sep_gauss_legendre(n, x, w);
        for (int i = 1; i < n; i++)
            CU_ASSERT(x[i] > x[i - 1]);
        /* exact for every degree up to 2n - 1 */
        for (int deg = 0; deg < 2 * n; deg += (n > 16 ? 7 : 1)) {
            long double sum = 0;
            for (int i = 0; i < n; i++)
                sum += (long double)w[i] * powl(x[i], deg);
            double exact = deg % 2 ? 0.0 : 2.0 / (deg + 1);
            /* upstream stops Newton at |dz| < 3e-11 and takes the weight
             * from the previous iterate: weights are good to ~1e-11 */
            CU_ASSERT_DOUBLE_EQUAL((double)sum, exact, n * 1e-12);
        }
    }
}

static void test_kahan_beats_naive(void)
{
    /* 1 + 1e6 * 1e-16: the naive sum never leaves 1.0 */
    orr_kahan k = {0, 0};
    double naive = 1.0;
    orr_kahan_add(&k, 1.0);
    for (int i = 0; i < 1000000; i++) {
        orr_kahan_add(&k, 1e-16);
        naive += 1e-16;
    }
    CU_ASSERT_EQUAL(naive, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(k.sum, 1.0 + 1e-10, 1e-15);
    /* merging two halves gives the same as one pass */
    orr_kahan a = {0, 0}, b = {0, 0};
    orr_kahan_add(&a, 1.0);
    for (int i = 0; i < 500000; i++)
        orr_kahan_add(&a, 1e-16);
    for (int i = 0; i < 500000; i++)
        orr_kahan_add(&b, 1e-16);
    orr_kahan m = orr_kahan_merge(a, b);
    CU_ASSERT_DOUBLE_EQUAL(m.sum, 1.0 + 1e-10, 1e-15);
}

static sep_params small11_params(void)
{
    sep_params p;
    char path[4096];
    orr_error err;
    snprintf(path, sizeof path, "%s/params_head/astronomy_parameters-11-small.txt.gz", datadir);
    CU_ASSERT_EQUAL_FATAL(sep_params_load(path, &p, &err), ORR_OK);
    return p;
}

static void test_r_points(void)
{
    sep_params p = small11_params();
    sep_model_options opt = {SEP_MODEL_CLASSIC, 0, 0};
    sep_model_consts mc;
    sep_setup s;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(sep_model_consts_init(&p, &opt, SEP_MODEL_CLASSIC, &mc, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(sep_setup_init(&p, &mc, &s, &err), ORR_OK);
    const sep_area_tables *t = &s.areas[0];
    CU_ASSERT_EQUAL(t->r_steps, 140);
    /* irv: shell volume between consecutive distances times dmu (radians) */
    double dg = (23.0 - 16.0) / 140, dmu = (229.0 - 150.0) / 160;
    for (int i = 0; i < t->r_steps; i += 13) {
        double lo = pow(10, (16.0 + i * dg - 14.2) / 5), hi = pow(10, (16.0 + (i + 1) * dg - 14.2) / 5);
        double irv = (hi * hi * hi - lo * lo * lo) / 3 * dmu * M_PI / 180;
        CU_ASSERT_DOUBLE_EQUAL(t->irv[i] / irv, 1.0, 1e-12); /* hi^3 - lo^3 cancels ~2 digits */
        /* node weights integrate the magnitude Gaussian over +-3 sigma:
         * sum w N r^3 / r^3 * 3 sigma = erf(3 / sqrt 2) */
        double sum = 0;
        for (int c = 0; c < s.convolve; c++) {
            double r = t->r_point[i * s.convolve + c];
            sum += t->qw_r3_N[i * s.convolve + c] / (r * r * r);
        }
        CU_ASSERT_DOUBLE_EQUAL(sum * 3 * SEP_STDEV, erf(3 / sqrt(2.0)), 1e-10);
        /* nodes are distances of magnitude g' + dx */
        double rp = (lo + hi) / 2, gp = 5 * (log10(rp * 1000) - 1) + 4.2;
        double r_first = pow(10, (gp + s.dx[0] - 14.2) / 5);
        CU_ASSERT_DOUBLE_EQUAL(t->r_point[i * s.convolve] / r_first, 1.0, 1e-14);
    }
    sep_setup_free(&s);
}

/* One star through the reference backend against each density written out
 * from docs/separation.md's formulas in long double. */
static void check_star_densities(sep_model model, int newbg, double wb)
{
    sep_params p = small11_params();
    sep_model_options opt = {model, 0, newbg};
    sep_model_consts mc;
    sep_setup s;
    orr_error err;
    p.background_weight = wb;
    if (model == SEP_MODEL_V146)
        p.bg[2] = SEP_V146_R0;
    CU_ASSERT_EQUAL_FATAL(sep_model_consts_init(&p, &opt, model, &mc, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(sep_setup_init(&p, &mc, &s, &err), ORR_OK);
    double l = 200.5, b = 55.25, r = 12.0;
    sep_stars stars = {1, &l, &b, &r, 0};
    double bgp, stp[SEP_MAX_STREAMS];
    CU_ASSERT_EQUAL(sep_reference_ops.star_probs(NULL, &mc, &s, &stars, 0, 1, &bgp, stp, &err), ORR_OK);

    double rp[SEP_MAX_CONVOLVE], qw[SEP_MAX_CONVOLVE];
    double K = sep_r_points(&mc, &s, r, rp, qw);
    long double bg = 0, st[SEP_MAX_STREAMS] = {0};
    long double lr = l * M_PI / 180, br = b * M_PI / 180;
    for (int c = 0; c < s.convolve; c++) {
        long double x = rp[c] * cosl(br) * cosl(lr) - 8.5L, y = rp[c] * cosl(br) * sinl(lr),
                    z = rp[c] * sinl(br);
        long double rg = sqrtl(x * x + y * y + z * z / (p.bg[1] * p.bg[1]));
        long double rho;
        if (newbg)
            rho = powl(8.5L / rg, rg < p.bg[2] ? p.bg[0] : p.bg[3]);
        else {
            rho = 1.0L / (rg * powl(rg + p.bg[2], 3));
            if (model == SEP_MODEL_V146)
                rho = wb * rho + (1 - wb) * expl(-sqrtl(x * x + y * y) / 3.5L - fabsl(z) / 0.7L);
        }
        bg += qw[c] * rho;
        for (int j = 0; j < p.n_streams; j++) {
            long double q[3] = {x - mc.stream_c[j][0], y - mc.stream_c[j][1], z - mc.stream_c[j][2]};
            long double dot = q[0] * mc.stream_a[j][0] + q[1] * mc.stream_a[j][1] + q[2] * mc.stream_a[j][2];
            long double d2 = 0;
            for (int k = 0; k < 3; k++) {
                long double e = q[k] - dot * mc.stream_a[j][k];
                d2 += e * e;
            }
            st[j] += qw[c] * expl(-d2 / (2.0L * p.streams[j].sigma * p.streams[j].sigma));
        }
    }
    /* the disk constants are upstream's 9-digit ones: 1e-8 relative */
    double tol = model == SEP_MODEL_V146 && !newbg && wb < 1 ? 1e-8 : 1e-12;
    CU_ASSERT_DOUBLE_EQUAL(bgp / (double)(bg * K), 1.0, tol);
    for (int j = 0; j < p.n_streams; j++)
        CU_ASSERT_DOUBLE_EQUAL(stp[j] / (double)(st[j] * K), 1.0, 1e-12);
    sep_setup_free(&s);
}

static void test_density_classic_halo_and_streams(void) { check_star_densities(SEP_MODEL_CLASSIC, 0, 0.0); }
static void test_density_v146_halo_disk_mixture(void) { check_star_densities(SEP_MODEL_V146, 0, 0.3); }
static void test_density_v146_broken_power_law(void) { check_star_densities(SEP_MODEL_V146, 1, 1.0); }

static void test_stream_centre_on_stripe(void)
{
    /* the centre lies at (mu, nu = 0) of the wedge at distance r */
    sep_params p = small11_params();
    sep_model_options opt = {SEP_MODEL_CLASSIC, 0, 0};
    sep_model_consts mc;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(sep_model_consts_init(&p, &opt, SEP_MODEL_CLASSIC, &mc, &err), ORR_OK);
    for (int j = 0; j < p.n_streams; j++) {
        double l, b, *c = mc.stream_c[j];
        sep_gc_to_lb(p.wedge, p.streams[j].mu, 0.0, &l, &b);
        double x = c[0] + 8.5, y = c[1], z = c[2];
        CU_ASSERT_DOUBLE_EQUAL(sqrt(x * x + y * y + z * z), p.streams[j].r, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(atan2(z, hypot(x, y)) * 180 / M_PI, b, 1e-10);
        double a2 = 0;
        for (int k = 0; k < 3; k++)
            a2 += mc.stream_a[j][k] * mc.stream_a[j][k];
        CU_ASSERT_DOUBLE_EQUAL(a2, 1.0, 1e-15);
    }
}

/* The GPU kernels take a stream's exponent along a line of sight from its
 * quadratic in r (sep_stream_quadratic): it must agree with the direct
 * distance from the axis, evaluated in long double, as closely as the
 * direct formula in double does, also close to the axis (where an expanded
 * quadratic loses digits) and looking along it. */
static void test_stream_quadratic(void)
{
    sep_params p = small11_params();
    sep_model_options opt = {SEP_MODEL_CLASSIC, 0, 0};
    sep_model_consts mc;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(sep_model_consts_init(&p, &opt, SEP_MODEL_CLASSIC, &mc, &err), ORR_OK);
    srand48(20261122);
    double worst = 0, worst_direct = 0;
    for (int i = 0; i < 200000; i++) {
        const int j = i % p.n_streams;
        double l = 360 * drand48(), b = 180 * drand48() - 90, r = 100 * drand48();
        if (i % 4 == 1) {   /* through the stream centre: the exponent reaches 0 */
            const double *c = mc.stream_c[j];
            const double x = c[0] + 8.5, y = c[1], z = c[2];
            l = atan2(y, x) * 180 / M_PI;
            b = atan2(z, hypot(x, y)) * 180 / M_PI;
            r = sqrt(x * x + y * y + z * z) * (1 + 1e-3 * (drand48() - 0.5));
        }
        sep_direction d;
        sep_direction_of_lb(l, b, &d);
        if (i % 1000 == 2) {   /* along the axis */
            d.lcos = mc.stream_a[j][0];
            d.lsin = mc.stream_a[j][1];
            d.bsin = mc.stream_a[j][2];
            d.bcos = 1;
        }
        sep_stream_quad q;
        sep_stream_quadratic(&mc, j, &d, &q);
        const long double x = (long double)r * d.bcos * d.lcos - 8.5L,
                          y = (long double)r * d.bcos * d.lsin, z = (long double)r * d.bsin;
        const long double o[3] = {x - mc.stream_c[j][0], y - mc.stream_c[j][1], z - mc.stream_c[j][2]};
        const long double dot = o[0] * mc.stream_a[j][0] + o[1] * mc.stream_a[j][1] + o[2] * mc.stream_a[j][2];
        long double d2 = 0;
        for (int k = 0; k < 3; k++) {
            const long double e = o[k] - dot * mc.stream_a[j][k];
            d2 += e * e;
        }
        const long double want = d2 * mc.stream_neg_inv_sigma_sq2[j];
        /* exp's relative error is the exponent's absolute error */
        const double dev = (double)fabsl(sep_stream_exponent(&q, r) - want) / (1 + (double)fabsl(want));
        if (dev > worst)
            worst = dev;
        const double xd = r * d.bcos * d.lcos - 8.5, yd = r * d.bcos * d.lsin, zd = r * d.bsin;
        const double direct = sep_stream_d2(&mc, j, xd, yd, zd) * mc.stream_neg_inv_sigma_sq2[j];
        const double devd = (double)fabsl(direct - want) / (1 + (double)fabsl(want));
        if (devd > worst_direct)
            worst_direct = devd;
    }
    /* as close as the direct formula in double (sep_stream_d2) comes */
    CU_ASSERT(worst < 1e-14 && worst <= 1.25 * worst_direct);
    if (!(worst < 1e-14 && worst <= 1.25 * worst_direct))
        printf("\n  stream quadratic: worst deviation %.3g (direct formula %.3g)\n", worst,
               worst_direct);
}

static void test_status_table(void)
{
    CU_ASSERT_EQUAL(orr_status_exit_code(ORR_OK), 0);
    for (int s = 1; s < ORR_STATUS_COUNT; s++) {
        CU_ASSERT_STRING_NOT_EQUAL(orr_status_message((orr_status)s), "unknown status");
        int code = orr_status_exit_code((orr_status)s);
        CU_ASSERT(code < 192 || code > 208); /* BOINC reserves 192-208 */
    }
    CU_ASSERT(orr_status_is_transient(ORR_ERR_DEVICE));
    CU_ASSERT(!orr_status_is_transient(ORR_ERR_PARSE));
}

/* The two device classes: unavailable now (75, EX_TEMPFAIL, BOINC's
 * temporary exit) and unfit for the work on this host (78, EX_CONFIG, an
 * error the server sends elsewhere), and no other error row transient:
 * a permanent failure retried on the same host runs until the deadline. */
static void test_status_device_classes(void)
{
    CU_ASSERT_EQUAL(orr_status_exit_code(ORR_ERR_DEVICE), 75);
    CU_ASSERT(orr_status_is_transient(ORR_ERR_DEVICE));
    CU_ASSERT_EQUAL(orr_status_exit_code(ORR_ERR_DEVICE_UNFIT), 78);
    CU_ASSERT(!orr_status_is_transient(ORR_ERR_DEVICE_UNFIT));
    CU_ASSERT_STRING_EQUAL(orr_status_name(ORR_ERR_DEVICE_UNFIT), "ORR_ERR_DEVICE_UNFIT");
    for (int s = 1; s < ORR_STATUS_COUNT; s++) {
        const orr_status st = (orr_status)s;
        if (st != ORR_ERR_DEVICE_UNFIT)
            CU_ASSERT_NOT_EQUAL(orr_status_exit_code(st), 78);
        if (orr_status_is_transient(st))
            CU_ASSERT(st == ORR_ERR_DEVICE || st == ORR_QUIT);
    }
}

/* ---------------- malformed inputs ---------------- */

static char *small11_text;  /* a valid parameter file to break */

static char *replace_line(const char *text, const char *key, const char *newline)
{
    /* newline NULL: delete the line starting with key */
    size_t n = strlen(text) + (newline ? strlen(newline) : 0) + 2;
    char *out = malloc(n);
    const char *p = strstr(text, key);
    if (!p) {
        strcpy(out, text);
        return out;
    }
    const char *eol = strchr(p, '\n');
    eol = eol ? eol + 1 : p + strlen(p);
    memcpy(out, text, (size_t)(p - text));
    out[p - text] = '\0';
    if (newline) {
        strcat(out, newline);
        strcat(out, "\n");
    }
    strcat(out, eol);
    return out;
}

typedef struct {
    const char *what;
    const char *key;       /* line to replace (prefix), or NULL for whole text */
    const char *line;      /* replacement, NULL deletes the line */
    const char *expect;    /* substring the message must contain */
} params_breakage;

static const params_breakage breakages[] = {
    {"missing key", "convolve:", NULL, "expected key 'convolve'"},
    {"wrong key order", "wedge:", "wedg: 11", "expected key 'wedge'"},
    {"not a number", "convolve:", "convolve: many", "not a number"},
    {"NaN value", "background_parameters[4]:", "background_parameters[4]: 1.0, nan, 12.3, 1.0", "not finite"},
    {"Inf value", "stream_parameters[5]: 148", "stream_parameters[5]: 148.0, inf, 0.4, -0.4, 0.7", "not finite"},
    {"wrong value count", "background_step[4]:", "background_step[4]: 0.02, 0.1", "expected 4 values"},
    {"declared count disagrees", "background_min[4]:", "background_min[5]: 0, 0.3, 1, 0.1", "declares 5 values"},
    {"negative steps", "r[min,max,steps]:", "r[min,max,steps]: 16.0, 23.0, -140", "even whole number"},
    {"odd steps", "mu[min,max,steps]:", "mu[min,max,steps]: 150, 229, 161", "even whole number"},
    {"fractional steps", "nu[min,max,steps]:", "nu[min,max,steps]: -1.25, 1.25, 64.5", "even whole number"},
    {"huge steps", "r[min,max,steps]:", "r[min,max,steps]: 16.0, 23.0, 20000000", "even whole number"},
    {"max below min", "mu[min,max,steps]:", "mu[min,max,steps]: 229, 150, 160", "greater than min"},
    {"too many streams", "number_streams:", "number_streams: 99, 5", "number_streams"},
    {"bad number_parameters", "number_parameters:", "number_parameters: 5", "number_parameters"},
    {"flag not 0/1", "optimize_weight:", "optimize_weight: 2", "must be 0 or 1"},
    {"unexpected trailing key", "number_cuts:", "number_cuts: 0\nextra_key: 1", "unexpected key"},
    {"cut count without cuts", "number_cuts:", "number_cuts: 2", "r_cut"},
    {"no colon", "wedge:", "wedge 11", "expected 'name: value'"},
    {"odd convolve", "convolve:", "convolve: 7", "convolve must be even"},
    {"sgr coordinates", "sgr_coordinates:", "sgr_coordinates: 1", "not supported"},
    {"sigma zero", "stream_parameters[5]: 148", "stream_parameters[5]: 148.0, 22.4, 0.4, -0.4, 0.0", "sigma = 0"},
    {"q zero", "background_parameters[4]:", "background_parameters[4]: 1.0, 0.0, 12.3, 1.0", "q = 0"},
    /* nu x ceil(mu / 16) beyond int once silently gave zero integrals */
    {"chunk count beyond int", "number_cuts:",
     "number_cuts: 1\nr_cut[min,max,steps][3]: 16, 23, 2\nmu_cut[min,max,steps][3]: 150, 229, 4000\n"
     "nu_cut[min,max,steps][3]: -1.25, 1.25, 10000000",
     "bad.txt:50: key 'nu_cut': area 1: 4000 mu x 10000000 nu steps make 2500000000 chunks"},
    {"truncated file", "stream_weight: -1.361644", NULL, NULL},
};

static void test_params_breakages(void)
{
    for (size_t i = 0; i < sizeof breakages / sizeof breakages[0]; i++) {
        const params_breakage *b = &breakages[i];
        char *text = replace_line(small11_text, b->key, b->line);
        if (!b->expect) { /* truncated: cut the file in the middle */
            text[strlen(text) / 2] = '\0';
        }
        sep_params p;
        orr_error err;
        orr_error_clear(&err);
        orr_status s = sep_params_parse("bad.txt", text, strlen(text), &p, &err);
        if (s == ORR_OK) {
            sep_model_options opt = {SEP_MODEL_AUTO, 0, 0};
            sep_model_consts mc;
            s = sep_model_consts_init(&p, &opt, SEP_MODEL_AUTO, &mc, &err);
        }
        CU_ASSERT_NOT_EQUAL(s, ORR_OK);
        if (s == ORR_OK) {
            printf("\n  accepted: %s", b->what);
        } else {
            const char *want = b->expect ? b->expect : "bad.txt:";
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message, want));
            if (!strstr(err.message, want))
                printf("\n  %s: message '%s' lacks '%s'", b->what, err.message, want);
        }
        free(text);
    }
}

static void test_params_file_line_in_message(void)
{
    char *text = replace_line(small11_text, "convolve:", "convolve: twelve");
    sep_params p;
    orr_error err;
    CU_ASSERT_EQUAL(sep_params_parse("f.txt", text, strlen(text), &p, &err), ORR_ERR_PARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "f.txt:40: key 'convolve'"));
    free(text);
}

static void test_params_empty_and_binary(void)
{
    sep_params p;
    orr_error err;
    CU_ASSERT_NOT_EQUAL(sep_params_parse("e.txt", "", 0, &p, &err), ORR_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "empty"));
    CU_ASSERT_NOT_EQUAL(sep_params_parse("e.txt", "\n\n  \n", 5, &p, &err), ORR_OK);

    char path[] = "/tmp/orrery-junk-XXXXXX";
    int fd = mkstemp(path);
    unsigned char junk[512];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 37 + 11);
    CU_ASSERT_EQUAL((int)write(fd, junk, sizeof junk), (int)sizeof junk);
    close(fd);
    CU_ASSERT_NOT_EQUAL(sep_params_load(path, &p, &err), ORR_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
    unlink(path);
    CU_ASSERT_EQUAL(sep_params_load("/nonexistent/params.txt", &p, &err), ORR_ERR_OPEN);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "/nonexistent/params.txt"));
}

static void test_search_param_counts(void)
{
    sep_params p = small11_params();
    orr_error err;
    int members;
    CU_ASSERT_EQUAL(sep_search_bundle_size(&p, SEP_MODEL_CLASSIC, 20, &members, &err), ORR_OK);
    CU_ASSERT_EQUAL(sep_search_bundle_size(&p, SEP_MODEL_CLASSIC, 19, &members, &err), ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "got 19, the classic model takes 20"));
    CU_ASSERT_EQUAL(sep_search_bundle_size(&p, SEP_MODEL_V146, 60, &members, &err), ORR_OK);
    CU_ASSERT_EQUAL(members, 3);
    CU_ASSERT_EQUAL(sep_search_bundle_size(&p, SEP_MODEL_V146, 30, &members, &err), ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "multiple"));
    /* w_b outside [0, 1] in a v146 member */
    double v[20] = {1.5, 0.57, -3.3, 148, 22, 0.4, -0.4, 0.76, -1.3, 177, 23, 1.2, -1.6, 8.5,
                    -1.3, 177, 10, 1.2, -1.6, 8.5};
    sep_params m;
    sep_model_options opt = {SEP_MODEL_V146, 0, 0};
    sep_model_consts mc;
    CU_ASSERT_EQUAL(sep_params_apply_search(&p, SEP_MODEL_V146, v, 20, 0, &m, &err), ORR_OK);
    CU_ASSERT_EQUAL(sep_model_consts_init(&m, &opt, SEP_MODEL_V146, &mc, &err), ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "outside [0, 1]"));
    v[0] = NAN;
    CU_ASSERT_EQUAL(sep_params_apply_search(&p, SEP_MODEL_V146, v, 20, 0, &m, &err), ORR_ERR_INPUT);
}

typedef struct {
    const char *what;
    const char *text;
    const char *expect;
} stars_breakage;

static const stars_breakage star_breakages[] = {
    {"empty", "", "empty star file"},
    {"count not a number", "many\n1 2 3\n", "number of stars"},
    {"count larger than lines", "3\n1 2 3\n4 5 6\n", "declares 3 stars but the file holds 2"},
    {"more lines than count", "1\n1 2 3\n4 5 6\n", "more star lines"},
    {"non-numeric field", "2\n1 2 3\n4 x 6\n", "field 2 is not a number"},
    {"NaN field", "1\n1 nan 3\n", "non-finite"},
    {"Inf field", "1\ninf 2 3\n", "non-finite"},
    {"two fields", "1\n1 2\n", "expected 3 fields"},
    {"negative distance", "1\n1 2 -3\n", "r > 0"},
    {"huge count", "999999999999\n1 2 3\n", "outside"},
    {"count far beyond file", "40000000\n1 2 3\n", "only"},
};

static void test_stars_breakages(void)
{
    for (size_t i = 0; i < sizeof star_breakages / sizeof star_breakages[0]; i++) {
        const stars_breakage *b = &star_breakages[i];
        sep_stars s;
        orr_error err;
        orr_error_clear(&err);
        orr_status st = sep_stars_parse("stars.txt", b->text, strlen(b->text), &s, &err);
        CU_ASSERT_NOT_EQUAL(st, ORR_OK);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, b->expect));
        if (st == ORR_OK || !strstr(err.message, b->expect))
            printf("\n  %s: '%s' lacks '%s'", b->what, err.message, b->expect);
        if (st == ORR_OK)
            sep_stars_free(&s);
    }
}

static void test_compressed_reading(void)
{
    /* the same catalogue plain, gzip and zlib gives the same stars */
    const char *text = "2\n10.5 20.25 5.0\n11 -21 6.5\n";
    char plain[] = "/tmp/orrery-stars-XXXXXX";
    int fd = mkstemp(plain);
    CU_ASSERT_EQUAL((int)write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    char gz[64];
    snprintf(gz, sizeof gz, "%s.gz", plain);
    gzFile g = gzopen(gz, "wb");
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
    char zl[64];
    snprintf(zl, sizeof zl, "%s.z", plain);
    unsigned char zbuf[256];
    uLongf zlen = sizeof zbuf;
    compress(zbuf, &zlen, (const Bytef *)text, strlen(text));
    FILE *f = fopen(zl, "wb");
    fwrite(zbuf, 1, zlen, f);
    fclose(f);
    const char *paths[3] = {plain, gz, zl};
    for (int i = 0; i < 3; i++) {
        sep_stars s;
        orr_error err;
        CU_ASSERT_EQUAL_FATAL(sep_stars_load(paths[i], &s, &err), ORR_OK);
        CU_ASSERT_EQUAL(s.n, 2);
        CU_ASSERT_DOUBLE_EQUAL(s.b[1], -21.0, 0);
        sep_stars_free(&s);
    }
    /* a corrupt and a truncated gzip file are reported, not read as junk */
    f = fopen(gz, "r+b");
    fseek(f, 12, SEEK_SET);
    fputc(0xff, f);
    fputc(0x00, f);
    fclose(f);
    sep_stars s;
    orr_error err;
    CU_ASSERT_NOT_EQUAL(sep_stars_load(gz, &s, &err), ORR_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "compressed data"));
    if (truncate(zl, (off_t)(zlen / 2)) == 0) {
        CU_ASSERT_NOT_EQUAL(sep_stars_load(zl, &s, &err), ORR_OK);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "truncated"));
    }
    unlink(plain);
    unlink(gz);
    unlink(zl);
}

/* Appends text as one gzip member to path (mode "ab": a second call makes
 * the file `cat a.gz b.gz` would). */
static void append_gzip_member(const char *path, const char *text)
{
    gzFile g = gzopen(path, "ab");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
}

/* A gzip file of several members reads as their concatenation, as gzip -d
 * reads it (the first member alone dropped the rest silently); garbage
 * after the last member is refused, naming the file. */
static void test_gzip_members(void)
{
    char path[] = "/tmp/orrery-members-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    const char *parts[3] = {"first line\n", "", "second\nthird\n"};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(path, i == 0 ? "wb" : "ab");
        fclose(f);
        append_gzip_member(path, parts[i]);
    }
    orr_buffer buf;
    orr_error err;
    orr_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(orr_read_file(path, 1 << 20, 1, &buf, &err), ORR_OK);
    CU_ASSERT_EQUAL(buf.size, strlen("first line\nsecond\nthird\n"));
    CU_ASSERT_STRING_EQUAL(buf.data, "first line\nsecond\nthird\n");
    orr_buffer_free(&buf);
    /* the limit counts every member */
    CU_ASSERT_EQUAL(orr_read_file(path, 16, 1, &buf, &err), ORR_ERR_INPUT);
    FILE *f = fopen(path, "ab");
    fputs("junk", f);
    fclose(f);
    CU_ASSERT_EQUAL(orr_read_file(path, 1 << 20, 1, &buf, &err), ORR_ERR_PARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "trailing data"));
    /* a second member cut short is truncated data, not a short file */
    f = fopen(path, "wb");
    fclose(f);
    append_gzip_member(path, parts[0]);
    append_gzip_member(path, parts[2]);
    struct stat st;
    stat(path, &st);
    if (truncate(path, st.st_size - 6) == 0) {
        CU_ASSERT_EQUAL(orr_read_file(path, 1 << 20, 1, &buf, &err), ORR_ERR_PARSE);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "truncated"));
    }
    unlink(path);
}

/* ---------------- hostile work units ---------------- */

/* small11's text with its grid replaced: wedge r, mu, nu steps, then n
 * identical cuts of cr, cmu, cnu steps. */
static char *grid_text(int r, int mu, int nu, int n, int cr, int cmu, int cnu)
{
    char line[128];
    snprintf(line, sizeof line, "r[min,max,steps]: 16.0, 23.0, %d", r);
    char *a = replace_line(small11_text, "r[min,max,steps]:", line);
    snprintf(line, sizeof line, "mu[min,max,steps]: 150, 229, %d", mu);
    char *b = replace_line(a, "mu[min,max,steps]:", line);
    free(a);
    snprintf(line, sizeof line, "nu[min,max,steps]: -1.25, 1.25, %d", nu);
    a = replace_line(b, "nu[min,max,steps]:", line);
    free(b);
    size_t cap = 64 + (size_t)n * 200;
    char *cuts = malloc(cap);
    size_t at = (size_t)snprintf(cuts, cap, "number_cuts: %d", n);
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(cuts + at, cap - at,
                               "\nr_cut[min,max,steps][3]: 16.0, 23.0, %d\nmu_cut[min,max,steps][3]: 150, 229, %d"
                               "\nnu_cut[min,max,steps][3]: -1.25, 1.25, %d",
                               cr, cmu, cnu);
    b = replace_line(a, "number_cuts:", cuts);
    free(a);
    free(cuts);
    return b;
}

/* The size of a grid as the app reckons it, and the limits' verdict. */
static orr_status grid_verdict(int r, int mu, int nu, int n, int cr, int cmu, int cnu, int stars,
                               int members, sep_work_size *z, orr_error *err)
{
    char *text = grid_text(r, mu, nu, n, cr, cmu, cnu);
    sep_params p;
    orr_status s = sep_params_parse("grid.txt", text, strlen(text), &p, err);
    free(text);
    if (s == ORR_OK)
        s = sep_work_unit_size(&p, stars, members, z, err);
    if (s == ORR_OK)
        s = sep_work_unit_limits(z, &p, "grid.txt", err);
    return s;
}

static void expect_limit(orr_status s, const orr_error *err, const char *what)
{
    CU_ASSERT_EQUAL(s, ORR_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, what));
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, "more than the limit of"));
    if (s != ORR_ERR_INPUT || !strstr(err->message, what))
        printf("\n  wanted a refusal naming '%s', got %d: %s", what, (int)s, err->message);
}

/* Limits hold for the work unit, every area and member together: 16
 * areas each under the old per-area limits are refused as a whole. */
static void test_work_unit_limits(void)
{
    sep_work_size z;
    orr_error err;
    orr_error_clear(&err);
    /* 16 areas of 600 000 r steps: 3.7e10 bytes of tables */
    expect_limit(grid_verdict(600000, 16, 2, 15, 600000, 16, 2, 3, 1, &z, &err), &err,
                 "tables need 3.72e+10 bytes (16 areas");
    /* 16 areas of 1e11 cells: 1.6e12 cells, 4.4e16 flops */
    expect_limit(grid_verdict(1000, 10000, 10000, 15, 1000, 10000, 10000, 3, 1, &z, &err), &err,
                 "1.6e+12 grid cells (16 areas)");
    /* a grid within the cell limit, but 64 bundle members of it */
    CU_ASSERT_EQUAL(grid_verdict(1400, 1600, 6400, 0, 0, 0, 0, 100000, 1, &z, &err), ORR_OK);
    expect_limit(grid_verdict(1400, 1600, 6400, 0, 0, 0, 0, 100000, 64, &z, &err), &err,
                 "model flops (64 bundle members");
    /* the numbers --check prints are those judged: the cells as setup counts them */
    CU_ASSERT_EQUAL(grid_verdict(140, 160, 64, 1, 70, 40, 40, 97434, 1, &z, &err), ORR_OK);
    CU_ASSERT_EQUAL(z.cells, 140LL * 160 * 64 + 70 * 40 * 40);
    CU_ASSERT_EQUAL(z.members, 1);
    /* host tables (2 + 2 convolve doubles per r step, 2 per nu step), a copy, the directions */
    double host = ((140 + 70) * (2.0 + 240) + 2.0 * (64 + 40)) * 8;
    CU_ASSERT_DOUBLE_EQUAL(z.table_bytes, 2 * host + (160.0 * 64 + 40 * 40) * 32, 0.5);
    sep_cost c;
    char *text = grid_text(140, 160, 64, 1, 70, 40, 40);
    sep_params p;
    CU_ASSERT_EQUAL_FATAL(sep_params_parse("grid.txt", text, strlen(text), &p, &err), ORR_OK);
    free(text);
    sep_estimate_cost(&p, 97434, 1, &c);
    CU_ASSERT_DOUBLE_EQUAL(z.cost.model_flops, c.model_flops, 0);
}

/* Every real work unit passes with room to spare: its grid with the
 * largest catalogue (126 000 stars) in a bundle of 5, well under a fifth
 * of each limit. */
static void test_real_work_units_within_limits(void)
{
    static const char *const files[] = {
        "params_head/astronomy_parameters-11-aux.txt.gz", "params_head/astronomy_parameters-12.txt.gz",
        "params_head/astronomy_parameters-79.txt.gz", "params_head/astronomy_parameters-82.txt.gz",
        "params_head/astronomy_parameters-86.txt.gz", "params_head/astronomy_parameters-86-aux.txt.gz",
        "params_2010/astronomy_parameters-11.txt.gz", "params_2010/astronomy_parameters-20.txt.gz",
        "params_2010/astronomy_parameters-21.txt.gz", "params_v146/astronomy_parameters-86-small-v146.txt.gz",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", datadir, files[i]);
        sep_params p;
        sep_work_size z;
        orr_error err;
        CU_ASSERT_EQUAL_FATAL(sep_params_load(path, &p, &err), ORR_OK);
        CU_ASSERT_EQUAL(sep_work_unit_size(&p, 126000, 5, &z, &err), ORR_OK);
        CU_ASSERT_EQUAL(sep_work_unit_limits(&z, &p, path, &err), ORR_OK);
        const int roomy = z.cells < SEP_MAX_CELLS / 5 && z.table_bytes < SEP_MAX_TABLE_BYTES / 5 &&
                          z.cost.model_flops < SEP_MAX_MODEL_FLOPS / 5;
        CU_ASSERT(roomy);
        if (!roomy)
            printf("\n  %s: %lld cells, %.3g table bytes, %.3g flops: too close to the limits",
                   files[i], z.cells, z.table_bytes, z.cost.model_flops);
    }
}

static void test_integrals_that_cannot_divide(void)
{
    sep_result r;
    orr_error err;
    memset(&r, 0, sizeof r);
    r.n_streams = 2;
    r.background_integral = 3e-4;
    r.stream_integral[0] = 34.0;
    r.stream_integral[1] = 0.0;   /* a negligible stream's, by convention */
    CU_ASSERT_EQUAL(sep_check_integrals(&r, &err), ORR_OK);
    const double bad_bg[] = {0.0, -1e-5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_bg / sizeof bad_bg[0]; i++) {
        sep_result b = r;
        b.background_integral = bad_bg[i];
        CU_ASSERT_EQUAL(sep_check_integrals(&b, &err), ORR_ERR_NUMERIC);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "background integral"));
    }
    const double bad_st[] = {-2.0, NAN, -INFINITY};
    for (size_t i = 0; i < sizeof bad_st / sizeof bad_st[0]; i++) {
        sep_result b = r;
        b.stream_integral[1] = bad_st[i];
        CU_ASSERT_EQUAL(sep_check_integrals(&b, &err), ORR_ERR_NUMERIC);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "stream 2"));
    }
}

/* A cut identical to the wedge: wedge minus cut is exactly 0, refused
 * instead of printing nan with exit 0. */
static void test_cut_equal_to_wedge(void)
{
    char *text = grid_text(10, 16, 4, 1, 10, 16, 4);
    sep_params p;
    sep_model_options opt = {SEP_MODEL_CLASSIC, 0, 0};
    sep_model_consts mc;
    sep_setup s;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(sep_params_parse("cut.txt", text, strlen(text), &p, &err), ORR_OK);
    free(text);
    CU_ASSERT_EQUAL_FATAL(sep_model_consts_init(&p, &opt, SEP_MODEL_CLASSIC, &mc, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(sep_setup_init(&p, &mc, &s, &err), ORR_OK);
    sep_area_sums sums[2];
    memset(sums, 0, sizeof sums);
    for (int a = 0; a < 2; a++) {
        sep_partial part[4];
        const int n = (int)sep_area_chunks(&s.areas[a]);
        CU_ASSERT_EQUAL_FATAL(n, 4);
        CU_ASSERT_EQUAL(sep_reference_ops.integral_chunks(NULL, &mc, &s, a, 0, n, part, &err), ORR_OK);
        for (int k = 0; k < n; k++)
            sep_partial_merge(&sums[a].sum, &part[k], mc.n_streams);
        sums[a].next_chunk = n;
    }
    CU_ASSERT(sums[0].sum.bg.sum > 0);
    sep_result res;
    CU_ASSERT_EQUAL(sep_finish_integrals(&mc, &s, sums, &res, &err), ORR_ERR_NUMERIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "background integral (wedge minus cuts) is 0"));
    sep_setup_free(&s);
}

/* No likelihood tag prints as nan: the search likelihood's documented
 * -999, anything else refused. */
static void test_likelihood_tags_finite(void)
{
    sep_model_consts mc;
    memset(&mc, 0, sizeof mc);
    mc.n_streams = 1;
    mc.exp_bg_weight = 1.0;
    mc.exp_stream_weight[0] = 1.0;
    mc.sum_exp_weights = 2.0;
    double l = 10, b = 20, r = 5, bg_prob = 1e308, st_prob = 1e308;
    sep_stars stars = {1, &l, &b, &r, 0};
    sep_result res;
    orr_error err;
    memset(&res, 0, sizeof res);
    res.n_streams = 1;
    res.background_integral = 1.0;
    res.stream_integral[0] = 1.0;
    /* the star's total overflows: the search likelihood alone is not finite */
    CU_ASSERT_EQUAL(sep_likelihood_from_probs(&mc, &stars, &bg_prob, &st_prob, &res, NULL, &err), ORR_OK);
    CU_ASSERT_DOUBLE_EQUAL(res.search_likelihood, -999.0, 0);
    CU_ASSERT(isfinite(res.background_likelihood) && isfinite(res.stream_only_likelihood[0]));
    /* a zero stream integral (sigma <= 1e-4) and zero probability: 0 / 0 */
    st_prob = 0.0;
    bg_prob = 1e-3;
    res.stream_integral[0] = 0.0;
    CU_ASSERT_EQUAL(sep_likelihood_from_probs(&mc, &stars, &bg_prob, &st_prob, &res, NULL, &err),
                    ORR_ERR_NUMERIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "stream-only likelihood of stream 1 is not finite"));
    /* a weight whose exponential overflows leaves the background nothing */
    res.stream_integral[0] = 1.0;
    st_prob = 1e-3;
    mc.exp_stream_weight[0] = INFINITY;
    mc.sum_exp_weights = INFINITY;
    CU_ASSERT_EQUAL(sep_likelihood_from_probs(&mc, &stars, &bg_prob, &st_prob, &res, NULL, &err),
                    ORR_ERR_NUMERIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "background-only likelihood is not finite"));
}

/* ---------------- checkpoint format ---------------- */

static char ckpt_path[64];

static void write_bytes(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(b, 1, n, f), n);
    fclose(f);
}

static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = malloc(1 << 16);
    *n = fread(b, 1, 1 << 16, f);
    fclose(f);
    return b;
}

static void test_checkpoint_round_trip(void)
{
    double payload[37];
    for (int i = 0; i < 37; i++)
        payload[i] = i * 1.25 - 3e-17 * i;
    orr_error err;
    uint64_t wu = orr_hash64(ORR_HASH64_INIT, "work unit A", 11);
    snprintf(ckpt_path, sizeof ckpt_path, "/tmp/orrery-ckpt-%d", (int)getpid());
    CU_ASSERT_EQUAL_FATAL(orr_checkpoint_write(ckpt_path, "separation", wu, payload, sizeof payload, &err), ORR_OK);
    void *back;
    size_t n;
    CU_ASSERT_EQUAL_FATAL(orr_checkpoint_read(ckpt_path, "separation", wu, &back, &n, &err), ORR_OK);
    CU_ASSERT_EQUAL(n, sizeof payload);
    CU_ASSERT_EQUAL(memcmp(back, payload, sizeof payload), 0);
    free(back);
    /* no temporary file is left behind */
    char tmp[80];
    snprintf(tmp, sizeof tmp, "%s.tmp", ckpt_path);
    CU_ASSERT_NOT_EQUAL(access(tmp, F_OK), 0);
}

static void expect_refused(const char *kind, uint64_t wu, const char *reason)
{
    void *back = NULL;
    size_t n;
    orr_error err;
    orr_error_clear(&err);
    orr_status s = orr_checkpoint_read(ckpt_path, kind, wu, &back, &n, &err);
    CU_ASSERT_EQUAL(s, ORR_ERR_CHECKPOINT);
    CU_ASSERT_PTR_NULL(back);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, reason));
    if (!strstr(err.message, reason))
        printf("\n  '%s' lacks '%s'", err.message, reason);
    free(back);
}

static void test_checkpoint_corruptions(void)
{
    size_t n;
    uint64_t wu = orr_hash64(ORR_HASH64_INIT, "work unit A", 11);
    unsigned char *good = read_bytes(ckpt_path, &n);
    unsigned char bad[1 << 16];

    expect_refused("separation", wu ^ 1, "another work unit");
    expect_refused("spectral", wu, "not 'spectral'");
    /* truncated at every length short of complete */
    for (size_t cut = 0; cut < n; cut += 7) {
        write_bytes(ckpt_path, good, cut);
        void *back;
        size_t m;
        orr_error err;
        CU_ASSERT_EQUAL(orr_checkpoint_read(ckpt_path, "separation", wu, &back, &m, &err), ORR_ERR_CHECKPOINT);
    }
    /* any flipped payload byte, extra bytes, bad magic, newer format, other app version */
    memcpy(bad, good, n);
    bad[n - 20] ^= 0x10;
    write_bytes(ckpt_path, bad, n);
    expect_refused("separation", wu, "checksum");
    memcpy(bad, good, n);
    bad[n] = 0;
    write_bytes(ckpt_path, bad, n + 1);
    expect_refused("separation", wu, "size does not match");
    memcpy(bad, good, n);
    bad[0] = 'X';
    write_bytes(ckpt_path, bad, n);
    expect_refused("separation", wu, "not an Orrery checkpoint");
    memcpy(bad, good, n);
    bad[8] = 9;
    write_bytes(ckpt_path, bad, n);
    expect_refused("separation", wu, "format 9");
    memcpy(bad, good, n);
    memcpy(bad + 12, "0.0.1\0", 6);
    write_bytes(ckpt_path, bad, n);
    expect_refused("separation", wu, "app version 0.0.1");
    /* a missing file is the ordinary first start, not an error to report */
    remove(ckpt_path);
    void *back;
    size_t m;
    orr_error err;
    CU_ASSERT_EQUAL(orr_checkpoint_read(ckpt_path, "separation", wu, &back, &m, &err), ORR_ERR_OPEN);
    free(good);
}

/* ---------------- checkpoint state ---------------- */

/* small86's grid (a wedge and one cut) for the state checks. */
static sep_setup state_setup;
static int state_chunks[2];

static void state_setup_init(void)
{
    char path[4096];
    sep_params p;
    sep_model_options opt = {SEP_MODEL_CLASSIC, 0, 0};
    sep_model_consts mc;
    orr_error err;
    snprintf(path, sizeof path, "%s/params_head/astronomy_parameters-86-small.txt.gz", datadir);
    CU_ASSERT_EQUAL_FATAL(sep_params_load(path, &p, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(p.n_areas, 2);
    CU_ASSERT_EQUAL_FATAL(sep_model_consts_init(&p, &opt, SEP_MODEL_CLASSIC, &mc, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(sep_setup_init(&p, &mc, &state_setup, &err), ORR_OK);
    for (int a = 0; a < 2; a++)
        state_chunks[a] = (int)sep_area_chunks(&state_setup.areas[a]);
}

/* A member's integrals as the run would have them (one stream). */
static void finished_member(sep_result *r)
{
    memset(r, 0, sizeof *r);
    r->n_streams = 1;
    r->background_integral = 1.2e-4;
    r->stream_integral[0] = 310.5;
}

/* Three bundle members, the second being integrated: in the cut, at chunk 3. */
static void mid_run_state(sep_run_state *st)
{
    memset(st, 0, sizeof *st);
    st->members = 3;
    st->member = 1;
    st->area = 1;
    st->sums[0].next_chunk = state_chunks[0];
    st->sums[0].sum.bg.sum = 1.3e-4;
    st->sums[0].sum.bg.corr = 1e-21;
    st->sums[0].sum.st[0].sum = 320.0;
    st->sums[1].next_chunk = 3;
    st->sums[1].sum.bg.sum = 1e-6;
    st->sums[1].sum.st[0].sum = 9.5;
    finished_member(&st->done[0]);
}

/* The state once every member is integrated (and maybe reported). */
static void done_state(sep_run_state *st, int printed)
{
    memset(st, 0, sizeof *st);
    st->members = 3;
    st->member = 3;
    st->printed = printed;
    for (int m = 0; m < 3; m++) {
        finished_member(&st->done[m]);
        if (printed) {
            st->done[m].background_likelihood = -3.3;
            st->done[m].stream_only_likelihood[0] = -4.1;
            st->done[m].search_likelihood = -999.0;
        }
    }
}

static void expect_state(const sep_run_state *st, const char *what, const char *reason)
{
    orr_error err;
    orr_error_clear(&err);
    orr_status s = sep_run_state_check(st, &state_setup, 3, 1, &err);
    if (!reason) {
        CU_ASSERT_EQUAL(s, ORR_OK);
        if (s != ORR_OK)
            printf("\n  %s: refused: %s", what, err.message);
        return;
    }
    CU_ASSERT_EQUAL(s, ORR_ERR_CHECKPOINT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, reason));
    if (s != ORR_ERR_CHECKPOINT || !strstr(err.message, reason))
        printf("\n  %s: status %d, message '%s' lacks '%s'", what, (int)s, err.message, reason);
}

/* Every field of a checkpoint with a valid CRC is checked against the
 * work unit: positions, completeness, sums, results, unused slots. */
static void test_checkpoint_state_fields(void)
{
    sep_run_state st;
    state_setup_init();
    mid_run_state(&st);
    expect_state(&st, "mid-run state", NULL);
    done_state(&st, 0);
    expect_state(&st, "integrals done", NULL);
    done_state(&st, 1);
    expect_state(&st, "reported", NULL);

#define MID(change, reason)                  \
    do {                                     \
        mid_run_state(&st);                  \
        change;                              \
        expect_state(&st, #change, reason);  \
    } while (0)
#define DONE(printed, change, reason)        \
    do {                                     \
        done_state(&st, printed);            \
        change;                              \
        expect_state(&st, #change, reason);  \
    } while (0)
    MID(st.members = 2, "2 bundle members, the work unit has 3");
    MID(st.member = -1, "bundle member -1 is outside 0..3");
    MID(st.member = 4, "bundle member 4 is outside 0..3");
    MID(st.printed = 7, "reported flag 7");
    MID(st.printed = 1, "results reported, but bundle member 1 of 3 is not integrated");
    MID(st.area = 2, "area 2 is outside 0..1");
    MID(st.area = -1, "area -1 is outside 0..1");
    /* the case: another area's position out of range */
    MID(st.sums[0].next_chunk = 5, "area 0 is at chunk 5 of 640, but a later area");
    MID(st.sums[0].next_chunk = -1000000, "area 0 is at chunk -1000000");
    MID(st.sums[1].next_chunk = state_chunks[1] + 1, "area 1 is at chunk 121, outside 0..120");
    MID(st.sums[1].next_chunk = -1, "area 1 is at chunk -1, outside");
    MID((st.area = 0, st.sums[0].next_chunk = 7), "area 1 has sums but is not integrated yet");
    MID(st.sums[2].next_chunk = 1, "area 2 has sums but the work unit has no such area");
    MID(st.sums[15].sum.bg.corr = 1e-30, "area 15 has sums");
    MID(st.sums[1].sum.bg.sum = NAN, "area 1's sums");
    MID(st.sums[0].sum.st[0].corr = INFINITY, "area 0's sums");
    MID(st.sums[1].sum.st[3].sum = 1.0, "area 1's sums are not those of 3 chunks of 1 stream");
    MID((st.sums[1].next_chunk = 0), "area 1's sums are not those of 0 chunks");
    MID(st.done[0].n_streams = 2, "bundle member 0: 2 streams, the work unit has 1");
    MID(st.done[0].background_integral = 0, "bundle member 0: the background integral");
    MID(st.done[0].background_integral = NAN, "bundle member 0: the background integral");
    MID(st.done[0].stream_integral[0] = -1, "bundle member 0: the integral of stream 1");
    MID(st.done[0].stream_integral[4] = 1, "bundle member 0: unused stream slot 5 holds values");
    MID(st.done[0].search_likelihood = NAN, "bundle member 0: a likelihood");
    MID(st.done[1].background_integral = 1, "bundle member 1 has results but is not integrated yet");
    MID(st.done[63].n_streams = 1, "bundle member 63 has results but is not in the work unit");
    DONE(0, st.area = 1, "area 1 is outside 0..0");
    DONE(0, st.sums[0].next_chunk = state_chunks[0], "area 0 has sums but every member's integrals are done");
    DONE(1, st.done[2].stream_only_likelihood[0] = -INFINITY, "bundle member 2: a likelihood");
    DONE(1, st.done[3].search_likelihood = -3, "bundle member 3 has results but is not in the work unit");
#undef MID
#undef DONE
    sep_setup_free(&state_setup);
}

int main(void)
{
    datadir = getenv("ORR_DATA");
    if (!datadir) {
        fprintf(stderr, "ORR_DATA must name tests/data/milkyway (make check sets it)\n");
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/params_head/astronomy_parameters-11-small.txt.gz", datadir);
    orr_buffer buf;
    orr_error err;
    if (orr_read_file(path, 1 << 20, 1, &buf, &err) != ORR_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    small11_text = buf.data;

    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite num = CU_add_suite("numerics", NULL, NULL);
    CU_add_test(num, "stripe (mu, nu) -> galactic (l, b)", test_gc_to_lb_known_points);
    CU_add_test(num, "galactic (l, b) -> stripe (mu, nu) inverts it", test_lb_to_gc_round_trip);
    CU_add_test(num, "Gauss-Legendre exact on polynomials", test_gauss_legendre_polynomials);
    CU_add_test(num, "Kahan summation and merge", test_kahan_beats_naive);
    CU_add_test(num, "r-point construction", test_r_points);
    CU_add_test(num, "density: classic halo and streams", test_density_classic_halo_and_streams);
    CU_add_test(num, "density: v146 halo + thick disk", test_density_v146_halo_disk_mixture);
    CU_add_test(num, "density: v146 --newbg power law", test_density_v146_broken_power_law);
    CU_add_test(num, "stream centre and axis", test_stream_centre_on_stripe);
    CU_add_test(num, "stream exponent as a quadratic in r", test_stream_quadratic);
    CU_add_test(num, "status table", test_status_table);
    CU_add_test(num, "status table: the device classes", test_status_device_classes);
    CU_pSuite bad = CU_add_suite("malformed inputs", NULL, NULL);
    CU_add_test(bad, "parameter file breakages", test_params_breakages);
    CU_add_test(bad, "message names file and line", test_params_file_line_in_message);
    CU_add_test(bad, "empty, binary and missing files", test_params_empty_and_binary);
    CU_add_test(bad, "search parameter counts", test_search_param_counts);
    CU_add_test(bad, "star catalogue breakages", test_stars_breakages);
    CU_add_test(bad, "plain, gzip, zlib, corrupt, truncated", test_compressed_reading);
    CU_add_test(bad, "gzip of several members: all read; trailing garbage refused",
                test_gzip_members);

    CU_pSuite hostile = CU_add_suite("hostile work units", NULL, NULL);
    CU_add_test(hostile, "limits per work unit, not per area", test_work_unit_limits);
    CU_add_test(hostile, "real work units pass the limits with room", test_real_work_units_within_limits);
    CU_add_test(hostile, "integrals the likelihood cannot divide by", test_integrals_that_cannot_divide);
    CU_add_test(hostile, "a cut equal to the wedge", test_cut_equal_to_wedge);
    CU_add_test(hostile, "no likelihood tag prints as nan", test_likelihood_tags_finite);

    CU_pSuite ck = CU_add_suite("checkpoint format", NULL, NULL);
    CU_add_test(ck, "round trip, atomic write", test_checkpoint_round_trip);
    CU_add_test(ck, "corrupt, truncated, foreign, old files refused", test_checkpoint_corruptions);
    CU_pSuite cs = CU_add_suite("checkpoint state", NULL, NULL);
    CU_add_test(cs, "every field checked against the work unit", test_checkpoint_state_fields);

    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    orr_buffer_free(&buf);
    return failed ? 1 : 0;
}
