/* Separation: the MilkyWay@Home tidal-stream likelihood (docs/separation.md).
 *
 * Data flows one way: files -> sep_params (plain values, no I/O) -> a
 * bundle member's sep_model_consts and the sep_setup tables -> evaluation by
 * a backend (sep_ops in ops.h) -> sep_result -> report. The
 * parser never allocates device memory and a backend never parses. */
#ifndef ORRERY_SEPARATION_H
#define ORRERY_SEPARATION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../cost.h"
#include "../orrery.h"
#include "model.h"

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

/* Model-independent checks on values (steps even and positive, at most
 * SEP_MAX_AREA_CHUNKS chunks an area, sigma != 0, q != 0, w_b in [0, 1]).
 * The limits on a whole work unit are sep_work_unit_limits'. */
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

/* The centre of grid column (nu_step, mu_step) of an area: every backend
 * takes its directions from here (or from sep_gc_direction in nodes.h, the
 * same formula, on a GPU) so they all integrate the same grid. Stars:
 * sep_direction_of_lb in nodes.h. */
void sep_column_direction(const sep_model_consts *mc, const sep_area_tables *t, int nu_step,
                          int mu_step, sep_direction *d);

/* ---- evaluation ---- */

/* Chunks are numbered with int everywhere (ops.h, the GPU kernels, the
 * checkpoint), so no area may have more than this many: the parser
 * refuses one that would (sep_grid_chunks, in 64 bits). Real wedges have
 * 64 000. */
#define SEP_MAX_AREA_CHUNKS (1 << 30)

/* Chunks of a grid of mu_steps x nu_steps columns, in 64 bits so that it
 * cannot overflow whatever the step counts. */
static inline int64_t sep_grid_chunks(int mu_steps, int nu_steps)
{
    return (int64_t)nu_steps * (((int64_t)mu_steps + SEP_CHUNK_MU - 1) / SEP_CHUNK_MU);
}

static inline int sep_chunks_per_row(const sep_area_tables *t)
{
    return (t->mu_steps + SEP_CHUNK_MU - 1) / SEP_CHUNK_MU;
}

static inline int64_t sep_area_chunks(const sep_area_tables *t)
{
    return sep_grid_chunks(t->mu_steps, t->nu_steps);
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

/* Combine the areas' sums into the integrals (wedge minus cuts), checked
 * by sep_check_integrals. */
orr_status sep_finish_integrals(const sep_model_consts *mc, const sep_setup *s,
                                const sep_area_sums *areas, sep_result *res, orr_error *err);

/* Integrals the likelihood can divide by: the background's positive and
 * finite, every stream's finite and not negative (zero for a negligible
 * stream). Anything else is ORR_ERR_NUMERIC: nothing would be computed. */
orr_status sep_check_integrals(const sep_result *res, orr_error *err);

/* The likelihoods from per-star probabilities (backend output); writes one
 * membership line per star to membership if it is not NULL. A search
 * likelihood that is not finite becomes -999 (docs/separation.md section
 * 6); any other likelihood that is not finite is ORR_ERR_NUMERIC. */
orr_status sep_likelihood_from_probs(const sep_model_consts *mc, const sep_stars *stars,
                                     const double *bg_prob, const double *st_prob,
                                     sep_result *res, FILE *membership, orr_error *err);

/* Exact text of the result tags (docs/separation.md section 8); member k >= 1 suffixes
 * every tag with k. */
void sep_report_result(FILE *f, const sep_result *res, int member);

/* The separation kind's checkpoint payload (kind.c), saved whole: where
 * the integration is and every sum so far. Only the same app version reads
 * it back, but its CRC proves nothing about its values (anyone can
 * recompute one), so a loaded payload is checked by sep_run_state_check
 * before use. */
typedef struct {
    int32_t member;    /* being integrated; == members once all are done */
    int32_t area;      /* being integrated, within member */
    int32_t printed;   /* the tags are in stderr and the output files exist */
    int32_t members;
    sep_area_sums sums[SEP_MAX_AREAS];   /* member's areas so far */
    sep_result done[SEP_MAX_BUNDLE];     /* integrals of members < member */
} sep_run_state;

/* ORR_OK when every field of st fits the work unit (setup s, members
 * bundle members of n_streams streams): positions within the grid, areas
 * before the current one complete and after it untouched, finished
 * members' integrals usable, sums finite, unused slots empty. Else
 * ORR_ERR_CHECKPOINT naming the first field that does not fit. */
orr_status sep_run_state_check(const sep_run_state *st, const sep_setup *s, int members,
                               int n_streams, orr_error *err);

/* ---- running the kind ----
 * The kind's descriptor (kind.c, registered in app/kinds.c) parses these
 * from the command line; the runtime's loop runs the work unit. */

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
} sep_run_options;

/* ---- what a work unit costs (docs/separation.md section 10) ---- */

typedef struct {
    double integral_flops;     /* one bundle member's integral, the model of docs/separation.md */
    double likelihood_flops;   /* one member's likelihood */
    double model_flops;        /* (integral + likelihood) x members */
    double fpops_est;          /* BOINC's rsc_fpops_est: (1.7 integral + likelihood) x members */
} sep_cost;

/* f = sum over areas (r/100)(mu/100)(nu/100); integral = f (4 + 2 ns +
 * convolve (56 + 58 ns)) 1e6; likelihood = stars (convolve (100 + 58 ns) +
 * 251 + 12 ns + 54). */
void sep_estimate_cost(const sep_params *p, int n_stars, int members, sep_cost *c);

/* Limits per work unit (docs/separation.md section 10), all areas and
 * bundle members together, far above any real MilkyWay@Home work unit
 * (the largest: 1.6e9 cells, 5e7 bytes of tables, 2.5e14 model flops for
 * a bundle of five 4-stream members) and far below what would exhaust a
 * volunteer's host. */
#define SEP_MAX_CELLS 2e10                 /* grid cells, all areas */
#define SEP_MAX_TABLE_BYTES 1073741824.0   /* 1 GiB of grid tables */
#define SEP_MAX_MODEL_FLOPS 5e15           /* (integral + likelihood) x members */

/* The size of a work unit: what --check prints and the limits judge, from
 * one function (sep_work_unit_size). */
typedef struct {
    long long cells;       /* grid cells, all areas (one bundle member: members share the grid) */
    double table_bytes;    /* the grid tables the largest app holds: the host's, its padded
                              or device copy, and a GPU's direction per grid column */
    double memory_bytes;   /* the CPU app's peak resident size, estimated */
    int members;           /* bundle members the cost counts */
    sep_cost cost;
    orr_unit_cost unit;    /* the same in every kind's shape (cost.h); results: the -t file */
} sep_work_size;

/* The size of the work unit of file p with n_stars stars (0: not read
 * yet) and members bundle members, in 64 bits; ORR_ERR_INPUT if a count
 * overflows even that (never for a file the parser accepted). */
orr_status sep_work_unit_size(const sep_params *p, int n_stars, int members, sep_work_size *z,
                              orr_error *err);

/* ORR_ERR_INPUT naming the estimate and the limit when z exceeds a limit;
 * what names the work unit (the parameter file) in the message. */
orr_status sep_work_unit_limits(const sep_work_size *z, const sep_params *p, const char *what,
                                orr_error *err);

/* A work unit as the app would see it, checked as the app checks it
 * (files, search values, every bundle member's model, the limits),
 * nothing computed: the work-unit generator runs it before anything
 * reaches a volunteer. */
typedef struct {
    sep_model model;
    int n_streams, members, per_wu, convolve, n_areas, n_stars;
    sep_work_size size;    /* the numbers the limits were checked on */
} sep_work_unit_info;

/* Load and check a work unit without running it (see sep_work_unit_info). */
orr_status sep_check_work_unit(const sep_run_options *opt, sep_work_unit_info *info,
                               orr_error *err);

#endif
