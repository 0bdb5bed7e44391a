/* The FDTD kind (docs/fdtd.md): 3D Yee time stepping. Data flow one way:
 * the work-unit file -> fdtd_workunit (parse.c, no computing) ->
 * fdtd_setup (setup.c: dt, the live index ranges of the boundary, the
 * material coefficient tables and maps, the CPML profiles, sizes) -> the
 * fields stepped by a backend's ops (ops.h, update.h) -> the results
 * (report.c): probe series, energy series, norms, speed.
 *
 * Indices are the spec's: arrays of shape (nx+2, ny+2, nz+2), padded
 * 0-based indices 0..n+1 on each axis, the interior 1..n; i fastest in
 * memory (element (i, j, k) at i + sx (j + sy k), sx = nx + 2,
 * sy = ny + 2). Yee positions in cells: Ex(i,j,k) at (i-1/2, j, k), Ey at
 * (i, j-1/2, k), Ez at (i, j, k-1/2), Hx at (i, j-1/2, k-1/2), Hy at
 * (i-1/2, j, k-1/2), Hz at (i-1/2, j-1/2, k). Units: SI (metres, seconds,
 * S/m); the regions' positions in the work unit are in metres from the
 * grid's origin, where padded index 0 is: index position p along x is at
 * p dx (Ex(i,j,k) at ((i-1/2) dx, j dy, k dz)). */
#ifndef ORRERY_FDTD_H
#define ORRERY_FDTD_H

#include <stddef.h>
#include <stdint.h>

#include "../orrery.h"

#define FDTD_KIND_NAME "fdtd"
#define FDTD_MAX_N 8192            /* cells an axis */
#define FDTD_MAX_STEPS 1000000000L
#define FDTD_MAX_PROBES 1000
#define FDTD_MAX_MATERIALS 250     /* plus vacuum: a material index fits a byte */
#define FDTD_MAX_REGIONS 10000
#define FDTD_MAX_TABLE 10000000    /* values of a source table */
#define FDTD_MAX_PARAMS 32
#define FDTD_NAME_LEN 33           /* NUL included */
/* The source's peak |J| (V/m: the amplitude times the waveform's peak),
 * at most 1e100 in double and 1e30 in single precision, and the energy
 * scale eps0 eps_r,max P^2 dV (padded cells) at most 1e200 J (parse.c,
 * check_field_scale). The fields are linear in the source; the norms sum
 * the squares of every cell and the energy weighs them by eps dV, so
 * these keep the sums 1e100 (double) and the stored fields 1e8 (single,
 * float's 3.4e38) clear of overflow for what a resonance can add. An
 * amplitude of 1e200 wrote nan energies and norms. */
#define FDTD_MAX_PEAK_DOUBLE 1e100
#define FDTD_MAX_PEAK_SINGLE 1e30
#define FDTD_MAX_ENERGY_SCALE 1e200

/* CODATA 2018, as the spec gives them. */
#define FDTD_C0 299792458.0
#define FDTD_EPS0 8.8541878128e-12
#define FDTD_MU0 1.25663706212e-6

typedef enum { FDTD_EX, FDTD_EY, FDTD_EZ, FDTD_HX, FDTD_HY, FDTD_HZ, FDTD_N_FIELDS } fdtd_field;
typedef enum { FDTD_THESIS, FDTD_PEC, FDTD_CPML } fdtd_boundary;
typedef enum { FDTD_GAUSS, FDTD_DGAUSS, FDTD_TABLE } fdtd_waveform;
typedef enum { FDTD_FAITHFUL, FDTD_FAST } fdtd_arithmetic;
typedef enum { FDTD_DOUBLE, FDTD_SINGLE } fdtd_precision;
typedef enum { FDTD_BOX, FDTD_SPHERE } fdtd_region_kind;

/* ---- the work unit, as written (parse.c) ---- */

typedef struct {
    char name[FDTD_NAME_LEN];
    int line;
    double eps_r;     /* relative permittivity, > 0 */
    double sigma;     /* conductivity, S/m, >= 0 */
} fdtd_material;

typedef struct {
    fdtd_region_kind kind;
    int line;
    int material;          /* index into materials (0-based); -1: vacuum */
    double lo[3], hi[3];   /* box: corners, metres (lo <= hi) */
    double centre[3];      /* sphere, metres */
    double radius;         /* sphere, metres, > 0 */
} fdtd_region;

typedef struct {
    int line;
    fdtd_field field;
    int at[3];             /* padded indices */
} fdtd_probe;

typedef struct {
    fdtd_field field;      /* default Ez */
    int at[3];             /* padded indices; default (nx/2, ny/2, nz/2) */
    fdtd_waveform waveform;
    double amplitude;      /* A, default 1 */
    double delay, width;   /* d, w in steps (gauss, dgauss; width > 0) */
    long release_after;    /* overwrite for n <= this (default: every step) */
    long n_table;          /* waveform table: J(1..n_table), 0 after */
    double *table;
} fdtd_source;

typedef struct {
    int thickness;         /* cells on every face, >= 1 */
    double order;          /* polynomial grading m of sigma, default 3 */
    double reflection;     /* R0 at normal incidence, default 1e-6 */
    double alpha;          /* CFS alpha at the layer's inner face, S/m, default 0 (graded linearly to 0 at the wall) */
} fdtd_cpml;

typedef struct {
    char path[4096];
    uint64_t content_hash;
    int n_params;
    char param_name[FDTD_MAX_PARAMS][FDTD_NAME_LEN];
    char param_text[FDTD_MAX_PARAMS][64];   /* as written: echoed exactly */
    int n[3];              /* nx, ny, nz: interior cells */
    double d[3];           /* dx, dy, dz: metres */
    double courant;        /* S, (0, 1], default 0.99 */
    long steps;
    fdtd_boundary boundary;
    fdtd_cpml cpml;
    fdtd_source source;
    int n_probes;          /* 0 in the file: the default probe (Ez ten cells from the source along i) */
    fdtd_probe *probes;
    long energy_every;     /* K; 0: no energy series */
    fdtd_arithmetic arithmetic;
    fdtd_precision precision;
    int n_materials;
    fdtd_material *materials;
    int n_regions;         /* later regions paint over earlier ones */
    fdtd_region *regions;
    int snapshot;          /* a decimated snapshot of one field at the end (.npy) */
    fdtd_field snapshot_field;
    int snapshot_every;    /* decimation, cells */
} fdtd_workunit;

/* Reads and checks path (plain or compressed): every error names the file,
 * the line and the key, ORR_ERR_INPUT (exit 65). */
orr_status fdtd_workunit_load(const char *path, fdtd_workunit *wu, orr_error *err);
/* The same from text in memory (fuzzing, tests); path only names it. */
orr_status fdtd_workunit_parse(const char *path, const char *text, size_t len, fdtd_workunit *wu,
                               orr_error *err);
void fdtd_workunit_free(fdtd_workunit *wu);
/* "ex" .. "hz" */
const char *fdtd_field_name(fdtd_field f);

/* The energy series' steps (docs/fdtd.md section 4): every K-th step of
 * `energy every=K` and the last step whatever K, so that the series always
 * ends with the state the norms describe. The one rule for every backend,
 * the job's count and the checkpoint's. */
static inline int fdtd_energy_at(const fdtd_workunit *wu, long n)
{
    return wu->energy_every && (n % wu->energy_every == 0 || n == wu->steps);
}
/* The energies steps 1..done record. */
static inline long fdtd_energy_count(const fdtd_workunit *wu, long done)
{
    if (!wu->energy_every)
        return 0;
    return done / wu->energy_every + (done == wu->steps && done % wu->energy_every != 0);
}
/* The step energy e (from 0) belongs to. */
static inline long fdtd_energy_step(const fdtd_workunit *wu, long e)
{
    const long n = (e + 1) * wu->energy_every;
    return n < wu->steps ? n : wu->steps;
}

/* ---- the discretisation (setup.c) ---- */

/* Arrays of the state, in the checkpoint's order: the six fields, then
 * with the CPML its twelve psi arrays (update.h: FDTD_PSI_TERMS, each the
 * layer's 2t planes across its axis). */
#define FDTD_MAX_ARRAYS (FDTD_N_FIELDS + 12)

typedef struct {
    int n[3];                 /* interior cells */
    long sx, sy, sz;          /* padded sizes: n + 2 */
    size_t cells;             /* sx * sy * sz */
    double d[3];
    double dt;                /* S / (c0 sqrt(sum 1/d^2)) */
    int real_bytes;           /* 8 or 4 */
    /* each field's live index range on each axis, inclusive (the boundary's) */
    int lo[FDTD_N_FIELDS][3], hi[FDTD_N_FIELDS][3];
    /* E coefficients: per distinct (eps_r, sigma) at E positions, after the
     * averaging of the four cells around each edge; index 0 is vacuum.
     * ca, cb and eps (eps0 eps_r, for the energy) in double; the kernels
     * take them in the fields' precision (rounded once). */
    int n_coef;
    double *ca, *cb, *eps;    /* [n_coef] */
    uint16_t *coef_map[3];    /* [cells] per E component; all NULL when the grid is vacuum */
    double dh;                /* dt / mu0 (no magnetic materials) */
    /* the CPML (NULL without): per axis, at integer positions (E's
     * derivatives) and half-integer ones (H's, position p - 1/2 at index p),
     * indices 0..n+1; b = 1, c = 0 outside the layer */
    double *be[3], *ce[3], *bh[3], *ch[3];
    int pml;                  /* thickness, cells (0: no CPML) */
    /* What the kernels read, in one array of doubles (the backends round it
     * once to the fields' precision): ca, cb, then cb / d[a] at cbd_at[a]
     * (fast mode's coefficients); with the CPML, for axis a and h (E 0, H 1)
     * at prof_at[h][a]: b, c and c / d[a], n[a] + 2 values each. */
    double *table;
    size_t table_len;
    int cbd_at[3], prof_at[2][3];
    int n_arrays;             /* fields + psi arrays */
    size_t array_len[FDTD_MAX_ARRAYS];   /* elements */
    /* the source's J(n), n = 1..steps, made on the host once in double so
     * every backend overwrites with the same value (-J(n) in the fields'
     * precision); 0 after release_after */
    double *source;           /* [n_values + 1], source[0] unused */
    long n_source;            /* min(release_after, steps): the steps that overwrite */
    long n_values;            /* J(n) tabled for n <= n_values; 0 (exactly) after */
    long source_at;           /* flat index of the source cell */
    int n_probes;
    fdtd_probe *probes;       /* the work unit's, or the default one */
    long *probe_at;           /* [n_probes] flat indices */
    double state_bytes;       /* the arrays */
    double map_bytes;         /* coefficient maps and profiles */
    double flops_per_step;
} fdtd_setup;

orr_status fdtd_setup_init(const fdtd_workunit *wu, fdtd_setup *s, orr_error *err);
/* The cells painting the regions tests (their bounding boxes within the
 * grid, together), from the region list alone: plan bounds it before
 * fdtd_setup_init paints. */
double fdtd_paint_cells(const fdtd_workunit *wu);
/* J(n) for a step n <= n_source (the cell is set to -J(n)). */
static inline double fdtd_source_value(const fdtd_setup *s, long n)
{
    return n <= s->n_values ? s->source[n] : 0;
}
void fdtd_setup_free(fdtd_setup *s);

#endif
