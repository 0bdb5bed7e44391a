/* orrery-stars: star catalogues for test work, read and written the way
 * the apps read them (the core's parser).
 *
 *   orrery-stars cut PARAMS STARS OUT        keep the stars inside the
 *       parameter file's wedge: mu and nu within the first area's ranges
 *       and the magnitude g (from the distance) within its r range
 *   orrery-stars subsample N SEED STARS OUT  N stars chosen at random
 *       (reproducible from SEED), in catalogue order
 *
 * STARS may be plain or compressed; OUT is plain text ("-": stdout) in the
 * catalogue format: a count line, then "l b r" with 17 significant digits,
 * so every value reads back as the same double. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "separation/nodes.h"
#include "separation/separation.h"

static int usage(void)
{
    fprintf(stderr, "usage: orrery-stars cut PARAMS STARS OUT\n"
                    "       orrery-stars subsample N SEED STARS OUT\n");
    return 64;
}

static int fail(const orr_error *err, orr_status s)
{
    fprintf(stderr, "orrery-stars: %s\n", err->message);
    return orr_status_exit_code(s);
}

static int write_stars(const char *path, const sep_stars *st, const unsigned char *keep, int kept)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "orrery-stars: %s: cannot write\n", path);
        return 74;
    }
    fprintf(f, "%d\n", kept);
    for (int i = 0; i < st->n; i++)
        if (keep[i])
            fprintf(f, "%.17g %.17g %.17g\n", st->l[i], st->b[i], st->r[i]);
    if ((f != stdout && fclose(f) != 0) || (f == stdout && fflush(f) != 0)) {
        fprintf(stderr, "orrery-stars: %s: write failed\n", path);
        return 74;
    }
    return 0;
}

/* Apparent magnitude g of a turnoff star at heliocentric distance r (kpc):
 * the inverse of the apps' g -> r. */
static double g_of_r(double r_kpc)
{
    return 5.0 * (log10(r_kpc * 1000.0) - 1.0) + SEP_ABS_MAG;
}

static int in_range(double x, double lo, double hi)
{
    return x >= (lo < hi ? lo : hi) && x <= (lo < hi ? hi : lo);
}

static int cut(const char *params_path, const char *stars_path, const char *out)
{
    orr_error err;
    orr_error_clear(&err);
    sep_params p;
    sep_stars st;
    orr_status s = sep_params_load(params_path, &p, &err);
    if (s != ORR_OK)
        return fail(&err, s);
    s = sep_stars_load(stars_path, &st, &err);
    if (s != ORR_OK)
        return fail(&err, s);
    const sep_area *a = &p.areas[0];
    unsigned char *keep = calloc((size_t)st.n + 1, 1);
    if (!keep)
        return 71;
    int kept = 0;
    for (int i = 0; i < st.n; i++) {
        double mu, nu;
        sep_lb_to_gc(p.wedge, st.l[i], st.b[i], &mu, &nu);
        /* mu ranges may pass 360 (310 .. 420): compare in [mu.min, mu.min + 360) */
        while (mu < a->mu.min)
            mu += 360.0;
        keep[i] = in_range(mu, a->mu.min, a->mu.max) && in_range(nu, a->nu.min, a->nu.max) &&
                  in_range(g_of_r(st.r[i]), a->r.min, a->r.max);
        kept += keep[i];
    }
    fprintf(stderr, "orrery-stars: kept %d of %d stars inside wedge %d\n", kept, st.n, p.wedge);
    int rc = write_stars(out, &st, keep, kept);
    free(keep);
    sep_stars_free(&st);
    return rc;
}

/* splitmix64: a small, well-mixed generator; the same SEED gives the same
 * subsample on every machine. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int subsample(const char *n_arg, const char *seed_arg, const char *stars_path,
                     const char *out)
{
    char *end;
    long want = strtol(n_arg, &end, 10);
    unsigned long long seed = strtoull(seed_arg, &end, 10);
    if (want < 1 || *end != '\0')
        return usage();
    orr_error err;
    orr_error_clear(&err);
    sep_stars st;
    orr_status s = sep_stars_load(stars_path, &st, &err);
    if (s != ORR_OK)
        return fail(&err, s);
    if (want > st.n)
        want = st.n;
    /* Selection sampling (Knuth's algorithm S): each star is kept with the
     * probability still needed / still left, which keeps exactly N in
     * catalogue order. */
    unsigned char *keep = calloc((size_t)st.n + 1, 1);
    if (!keep)
        return 71;
    uint64_t state = seed;
    long needed = want;
    for (int i = 0; i < st.n && needed > 0; i++) {
        const double u = (next_random(&state) >> 11) * (1.0 / 9007199254740992.0);
        if (u * (st.n - i) < needed) {
            keep[i] = 1;
            needed--;
        }
    }
    int rc = write_stars(out, &st, keep, (int)want);
    free(keep);
    sep_stars_free(&st);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "cut") == 0)
        return cut(argv[2], argv[3], argv[4]);
    if (argc == 6 && strcmp(argv[1], "subsample") == 0)
        return subsample(argv[2], argv[3], argv[4], argv[5]);
    return usage();
}
