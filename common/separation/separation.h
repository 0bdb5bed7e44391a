/* Separation: the MilkyWay@Home tidal-stream likelihood (specs/separation.md).
 *
 * Data flows one way: files -> sep_params (plain values, no I/O) -> a
 * bundle member's sep_model_consts and the sep_setup tables -> evaluation by
 * a backend (sep_backend_ops in backend.h) -> sep_result -> report. The
 * parser never allocates device memory and a backend never parses. */
#ifndef ORRERY_SEPARATION_H
#define ORRERY_SEPARATION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../orrery.h"

#define SEP_MAX_STREAMS 8
#define SEP_MAX_AREAS 16          /* the wedge and up to 15 cuts */
#define SEP_MAX_CONVOLVE 256
#define SEP_MAX_BUNDLE 64
#define SEP_MAX_SEARCH_PARAMS (SEP_MAX_BUNDLE * (2 + 6 * SEP_MAX_STREAMS))

/* Fixed physical constants (spec section 1). */
#define SEP_SUN_R0 8.5
#define SEP_ABS_MAG 4.2
#define SEP_STDEV 0.6
#define SEP_V146_R0 12.0
/* v146 thick disk (Xu et al. 2015): exp(R / -3.5 kpc + |z| / -0.7 kpc),
 * with upstream's 9-digit constants: the exact quotients move the
 * likelihood by 1e-9, far outside the 1e-12 agreement required. */
#define SEP_DISK_INV_LENGTH (-0.285714286)
#define SEP_DISK_INV_HEIGHT (-1.428571429)
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* (deg * pi) / 180, not deg * (pi / 180): the two differ in the last bit,
 * and the published stream integrals follow the former. */
static inline ORR_HD double sep_d2r(double deg) { return deg * M_PI / 180.0; }
static inline ORR_HD double sep_r2d(double rad) { return rad * 180.0 / M_PI; }

typedef enum {
    SEP_MODEL_AUTO = 0,   /* from the file: background_weight_* lines mean v146 */
    SEP_MODEL_CLASSIC,
    SEP_MODEL_V146
} sep_model;

const char *sep_model_name(sep_model m);

typedef struct {
    double min, max;
    int steps;
} sep_axis;

typedef struct {
    sep_axis r;   /* apparent magnitude g */
    sep_axis mu;  /* degrees */
    sep_axis nu;  /* degrees */
} sep_area;

typedef struct {
    double weight;        /* epsilon */
    double mu, r, theta, phi, sigma;
    int optimize_weight;
    int optimize[5];
} sep_stream;

/* An astronomy parameter file as written (both layouts). */
typedef struct {
    sep_model file_model;            /* what the layout says */
    int has_version;
    double parameters_version;
    double background_weight;
    int has_bg_weight_range;         /* the four v146 lines are present */
    double bg_weight_step, bg_weight_min, bg_weight_max;
    int optimize_background_weight;
    int n_bg_params;                 /* 4, or 7 with the (unused) aux terms */
    double bg[7];                    /* alpha, q, r0, delta [, a, b, c] */
    int bg_optimize[7];
    int n_streams;
    sep_stream streams[SEP_MAX_STREAMS];
    int convolve;
    int sgr_coordinates;
    int aux_bg_profile;
    int wedge;
    int n_areas;                     /* 1 + number_cuts */
    sep_area areas[SEP_MAX_AREAS];
    uint64_t content_hash;           /* of the file's bytes (sep_params_load) */
} sep_params;

/* Parse an astronomy parameter file (plain or compressed). Every problem is
 * reported with file, line and key. */
orr_status sep_params_load(const char *path, sep_params *out, orr_error *err);
orr_status sep_params_parse(const char *path, const char *text, size_t len, sep_params *out,
                            orr_error *err);

/* Model-independent checks on values (steps even and positive, sigma != 0,
 * q != 0, w_b in [0, 1], memory limits...). */
orr_status sep_params_validate(const sep_params *p, sep_model model, orr_error *err);

/* How many search parameters one work unit takes under model. */
int sep_search_params_per_wu(const sep_params *p, sep_model model);

/* Split n command-line values into bundle members: returns the member count
 * in *members, or an error explaining the expected count. n = 0 means one
 * member with the file's own values. */
orr_status sep_search_bundle_size(const sep_params *p, sep_model model, int n, int *members,
                                  orr_error *err);

/* The parameters of bundle member k: the file with search values applied. */
orr_status sep_params_apply_search(const sep_params *file, sep_model model, const double *values,
                                   int n_values, int member, sep_params *out, orr_error *err);

/* Star catalogue: galactic l, b (degrees), heliocentric r (kpc). */
typedef struct {
    int n;
    double *l, *b, *r;
    uint64_t content_hash;           /* of the file's bytes (sep_stars_load) */
} sep_stars;

orr_status sep_stars_load(const char *path, sep_stars *out, orr_error *err);
orr_status sep_stars_parse(const char *path, const char *text, size_t len, sep_stars *out,
                           orr_error *err);
void sep_stars_free(sep_stars *s);

/* Options that change the model (command line). */
typedef struct {
    sep_model model;     /* SEP_MODEL_AUTO: from the file */
    int modfit;          /* asymmetric magnitude Gaussian (v146) */
    int newbg;           /* broken power-law background (v146) */
} sep_model_options;

/* ---- derived constants: what the integrand needs, per bundle member ---- */

typedef struct {
    sep_model model;
    int modfit, newbg;
    int convolve;
    int wedge;
    double xr;                   /* 3 sigma_M (classic) or 1 (v146) */
    /* background */
    double q, q_inv_sqr, r0, alpha, delta, alpha_delta3;
    int bg_fast;                 /* alpha == delta == 1: Hernquist without pow */
    double halo_weight;          /* v146 w_b; 1 for classic */
    double disk_weight;          /* v146 1 - w_b; 0 for classic and --newbg */
    double exp_bg_weight;        /* e_b */
    /* streams */
    int n_streams;
    double stream_a[SEP_MAX_STREAMS][3];
    double stream_c[SEP_MAX_STREAMS][3];
    double stream_sigma_sq2[SEP_MAX_STREAMS];   /* 2 sigma^2 */
    double stream_neg_inv_sigma_sq2[SEP_MAX_STREAMS];   /* -1 / (2 sigma^2), for the
                                                           fast paths' multiply */
    int stream_negligible[SEP_MAX_STREAMS];   /* |sigma| <= 1e-4: integral set to 0 */
    double exp_stream_weight[SEP_MAX_STREAMS];
    double sum_exp_weights;      /* S = 0.001 (e_b + sum e_s) */
} sep_model_consts;

orr_status sep_model_consts_init(const sep_params *member, const sep_model_options *opt,
                                 sep_model model, sep_model_consts *mc, orr_error *err);

/* Gauss-Legendre nodes on [-1, 1] (Numerical Recipes' gauleg, Newton to
 * 3e-11), ascending. */
void sep_gauss_legendre(int n, double *x, double *w);

/* Per-area tables: everything that depends only on the grid and the model,
 * not on the search parameters, so bundle members share them. */
typedef struct {
    int r_steps, mu_steps, nu_steps;
    double mu_min, mu_step;
    double *irv;           /* [r] */
    double *reff_xr_rp3;   /* [r] K_i */
    double *r_point;       /* [r * convolve + c] */
    double *qw_r3_N;       /* [r * convolve + c] */
    double *nu;            /* [nu] cell centre (degrees) */
    double *id;            /* [nu] */
} sep_area_tables;

typedef struct {
    int convolve;
    double dx[SEP_MAX_CONVOLVE];
    double qgaus_w[SEP_MAX_CONVOLVE];
    int n_areas;
    sep_area_tables areas[SEP_MAX_AREAS];
    long long total_cells;   /* over all areas, for progress */
    /* star nodes as fixed factors of r' (all models but --modfit) */
    int star_factored;
    double star_ratio[SEP_MAX_CONVOLVE];
    double star_weight[SEP_MAX_CONVOLVE];
} sep_setup;

orr_status sep_setup_init(const sep_params *p, const sep_model_consts *mc, sep_setup *s,
                          orr_error *err);
void sep_setup_free(sep_setup *s);

/* The r-point terms of one cell or star with centre distance r' (kpc).
 * Fills r_point[c], qw_r3_N[c] and returns K = reff xr / r'^3. */
double sep_r_points(const sep_model_consts *mc, const sep_setup *s, double r_prime,
                    double *r_point, double *qw_r3_N);


/* The same for a star, faster: without --modfit the per-node pow and exp
 * come from tables made once (equal to sep_r_points up to rounding). */
double sep_star_r_points(const sep_model_consts *mc, const sep_setup *s, double r_prime,
                         double *r_point, double *qw_r3_N);

/* A line of sight: sines and cosines of galactic l and b. */
typedef struct {
    double lsin, lcos, bsin, bcos;
} sep_direction;

/* The centre of grid column (nu_step, mu_step) of an area: every backend
 * takes its directions from here (or from sep_gc_direction in nodes.h, the
 * same formula, on a GPU) so they all integrate the same grid. Stars:
 * sep_direction_of_lb in nodes.h. */
void sep_column_direction(const sep_model_consts *mc, const sep_area_tables *t, int nu_step,
                          int mu_step, sep_direction *d);

/* ---- evaluation ---- */

/* The integral is cut into chunks of SEP_CHUNK_MU mu columns of one nu row
 * (chunk k of an area: row k / chunks_per_row). Each chunk is summed from
 * zero over its cells in the order mu, r, and the chunks are merged in order
 * (orr_kahan_merge). The boundaries are fixed, so the sums do not depend on
 * how many threads computed them or how chunks were batched, and a
 * checkpoint between chunks resumes to the same bits. */
#define SEP_CHUNK_MU 16

typedef struct {
    orr_kahan bg;
    orr_kahan st[SEP_MAX_STREAMS];
} sep_partial;

static inline int sep_chunks_per_row(const sep_area_tables *t)
{
    return (t->mu_steps + SEP_CHUNK_MU - 1) / SEP_CHUNK_MU;
}

static inline int sep_area_chunks(const sep_area_tables *t)
{
    return t->nu_steps * sep_chunks_per_row(t);
}

/* Chunk k of an area: its nu row and mu columns [mu_begin, mu_end). */
static inline void sep_chunk_cells(const sep_area_tables *t, int k, int *nu_step, int *mu_begin,
                                   int *mu_end)
{
    const int per_row = sep_chunks_per_row(t);
    *nu_step = k / per_row;
    *mu_begin = (k % per_row) * SEP_CHUNK_MU;
    *mu_end = *mu_begin + SEP_CHUNK_MU < t->mu_steps ? *mu_begin + SEP_CHUNK_MU : t->mu_steps;
}

/* Merge chunk partial p (the next in order) into the running sum. */
void sep_partial_merge(sep_partial *sum, const sep_partial *p, int n_streams);

/* One cell's contribution to a chunk's sums: the node sums (without K)
 * times the cell volume V and K, in the reference's order. */
static inline ORR_HD void sep_partial_add_cell(sep_partial *p, double V, double K, double bg_nodes,
                                        const double *st_nodes, int n_streams)
{
    orr_kahan_add(&p->bg, V * (bg_nodes * K));
    for (int j = 0; j < n_streams; j++)
        orr_kahan_add(&p->st[j], st_nodes[j] * (V * K));
}

/* Integral of one area so far: chunks 0..next_chunk-1 merged. */
typedef struct {
    int next_chunk;
    sep_partial sum;
} sep_area_sums;

typedef struct {
    double background_integral;
    double stream_integral[SEP_MAX_STREAMS];
    double background_likelihood;
    double stream_only_likelihood[SEP_MAX_STREAMS];
    double search_likelihood;
    int n_streams;
} sep_result;

/* Combine the areas' sums into the integrals (wedge minus cuts). */
orr_status sep_finish_integrals(const sep_model_consts *mc, const sep_setup *s,
                                const sep_area_sums *areas, sep_result *res, orr_error *err);

/* The likelihoods from per-star probabilities (backend output); writes one
 * membership line per star to membership if it is not NULL. */
orr_status sep_likelihood_from_probs(const sep_model_consts *mc, const sep_stars *stars,
                                     const double *bg_prob, const double *st_prob,
                                     sep_result *res, FILE *membership, orr_error *err);

/* Exact text of the result tags (spec section 8); member k >= 1 suffixes
 * every tag with k. */
void sep_report_result(FILE *f, const sep_result *res, int member);

/* ---- running the kind ---- */

struct orr_backend;

typedef struct {
    const char *params_file;       /* logical names, resolved through BOINC */
    const char *stars_file;
    const char *membership_file;   /* -o: per-star membership, or NULL */
    int ignore_checkpoint;
    int cleanup_checkpoint;
    int write_results_file;        /* -t: also write results.txt */
    sep_model_options model;
    int np;                        /* -np value, or -1 when not given */
    int n_search;                  /* values after -p */
    const double *search;
    const char *app_name;
    const char *platform;
} sep_run_options;

/* Run a separation work unit end to end; results go to stderr (and the
 * files asked for). */
orr_status sep_run(const sep_run_options *opt, struct orr_backend *be, orr_error *err);

#endif
