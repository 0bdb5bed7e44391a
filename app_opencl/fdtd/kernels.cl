/* OpenCL FDTD kernels: a time step's phases over the device's state
 * (common/fdtd/device.h), as the CUDA kernels (app_cuda/fdtd/kernels.cu).
 * The build embeds this file after common/portable.h and
 * common/fdtd/update.h (their #include lines dropped): the per-cell
 * arithmetic is update.h's macros, the tokens the C reference compiles.
 * FP_CONTRACT OFF keeps faithful mode unfused (the reference's bits); fast
 * mode's FMAs are the ones update.h writes (FDTD_FMA: fma, overloaded for
 * float and double); faithful quotients are the CUDA kernels'
 * exact-reciprocal division (fdtd_div below, update.h's FDTD_DIV), the
 * same bits as '/'. host.c builds
 * one program a configuration with FDTD_SINGLE, FDTD_FAST_MODE, FDTD_PML
 * (0 or 1) and fdtd.h's field numbers FDTD_EX .. FDTD_HZ, FDTD_N_FIELDS
 * (from the C enum, so they cannot drift); single precision also with
 * -cl-fp32-correctly-rounded-divide-sqrt. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#if FDTD_SINGLE
typedef float real;
#else
typedef double real;
#endif
#define FDTD_FMA(a, b, c) fma((a), (b), (c))

/* Faithful mode's division by a cell size, correctly rounded like the '/'
 * it stands for (app_cuda/fdtd/kernels.cu's cell_size, whose comment has
 * the argument): q0 = x RN(1/d), then two corrections by the exact
 * remainder; zero is its own quotient, and numerators outside the range
 * where every intermediate stays normal take the device's '/'. */
typedef struct {
    real d, inv;      /* d and RN(1/d) */
    int elo, ehi;     /* the biased exponents of x that take the quick path */
} cell_size;          /* made by host.c (cell_sizes_of) */

typedef struct {
    cell_size s[3];
} cell_sizes;

static int biased_exponent(real x)
{
#if FDTD_SINGLE
    return (as_int(x) >> 23) & 0xff;
#else
    return (int)((as_long(x) >> 52) & 0x7ff);
#endif
}

static real fdtd_div(real x, cell_size s)
{
    const int e = biased_exponent(x);
    if (e < s.elo || e > s.ehi)
        return x == 0 ? x : x / s.d;   /* +-0 / d = +-0 (cell sizes are > 0) */
    const real q0 = x * s.inv;
    const real q1 = fma(fma(-s.d, q0, x), s.inv, q0);
    return fma(fma(-s.d, q1, x), s.inv, q1);
}
#undef FDTD_DIV
#define FDTD_DIV(x, d) fdtd_div((x), (d))

#define BX 32       /* the sweeps' work-groups: 32 along i (coalesced), BY rows; host.c's */
#define BY 8
#define FDTD_ROWS 8  /* the sums' work-groups: rows (of FDTD_LANES work-items); host.c's */

/* common/fdtd/device.h's fdtd_dims, field for field */
typedef struct {
    double d[3];
    double dh, dhd[3];
    double mu0;
    long sx, sy, sz;
    long cells;
    int n[3];
    int t;
    int n_coef;
    int single, fast;
    int has_map;
    int lo[FDTD_N_FIELDS][3], hi[FDTD_N_FIELDS][3];
    int cbd[3];
    int prof[2][3];
    int box[2][2][3];
    int n_probes;
} fdtd_dims;

/* The state: every kernel's first arguments. Absent arrays (no CPML,
 * vacuum) come as a dummy buffer, never read. */
#define STATE_ARGS                                                                                 \
    const fdtd_dims P, __global real *f0, __global real *f1, __global real *f2, __global real *f3, \
        __global real *f4, __global real *f5, __global real *p0, __global real *p1,                \
        __global real *p2, __global real *p3, __global real *p4, __global real *p5,                \
        __global real *p6, __global real *p7, __global real *p8, __global real *p9,                \
        __global real *p10, __global real *p11, __global const ushort *m0,                         \
        __global const ushort *m1, __global const ushort *m2, __global const real *tab,           \
        __global const double *eps, const cell_sizes CS

typedef struct {
    __global real *f[FDTD_N_FIELDS];
    __global real *psi[FDTD_N_PSI];
    __global const ushort *map[3];
    __global const real *tab;
    __global const double *eps;
    cell_sizes cs;   /* faithful mode's divisors */
} view;

#define VIEW_OF(v)                                                                          \
    const view v = {{f0, f1, f2, f3, f4, f5}, {p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11}, \
                    {m0, m1, m2}, tab, eps, CS}

static int live(const fdtd_dims *P, int f, int i, int j, int k)
{
    return i >= P->lo[f][0] && i <= P->hi[f][0] && j >= P->lo[f][1] && j <= P->hi[f][1] &&
           k >= P->lo[f][2] && k <= P->hi[f][2];
}

static long stride(const fdtd_dims *P, int a)
{
    return a == 0 ? 1 : a == 1 ? P->sx : P->sx * P->sy;
}

/* Field f's curl partners (update.h): A along axis a, B along axis b. */
static int partner_a(int f)
{
    return f == FDTD_EX ? FDTD_HZ : f == FDTD_EY ? FDTD_HX : f == FDTD_EZ ? FDTD_HY
         : f == FDTD_HX ? FDTD_EZ : f == FDTD_HY ? FDTD_EX : FDTD_EY;
}
static int partner_b(int f)
{
    return f == FDTD_EX ? FDTD_HY : f == FDTD_EY ? FDTD_HZ : f == FDTD_EZ ? FDTD_HX
         : f == FDTD_HX ? FDTD_EY : f == FDTD_HY ? FDTD_EZ : FDTD_EX;
}
static int axis_a(int f) { return f % 3 == 0 ? 1 : f % 3 == 1 ? 2 : 0; }
static int axis_b(int f) { return f % 3 == 0 ? 2 : f % 3 == 1 ? 0 : 1; }

/* One cell's values in a phase (ph 0: E, 1: H), loaded before any is
 * computed (as the CUDA kernels: every load in flight at once). The
 * macros run on these registers with c = ph and strides 1: v[q][ph] is
 * field 3 ph + q at the cell, a[q] and b[q] its partners at (c, c + s)
 * for E and (c - s, c) for H, the very operands sweep.h reads from the
 * arrays, so the bits are the same. The CPML terms differentiate the same
 * partners along the same axes (FDTD_PSI_TERMS): they read a[] and b[]. */
typedef struct {
    int live[3];
    real v[3][2], a[3][2], b[3][2];
} cell;

static void load_cell(const fdtd_dims *P, const view *v, int ph, int i, int j, int k, long c,
                      cell *x)
{
    for (int q = 0; q < 3; q++) {
        const int f = 3 * ph + q;
        x->live[q] = live(P, f, i, j, k);
        if (!x->live[q])
            continue;
        const long sa = stride(P, axis_a(f)), sb = stride(P, axis_b(f));
        __global const real *A = v->f[partner_a(f)] + c, *B = v->f[partner_b(f)] + c;
        x->v[q][ph] = v->f[f][c];
        x->a[q][0] = ph ? A[-sa] : A[0];
        x->a[q][1] = ph ? A[0] : A[sa];
        x->b[q][0] = ph ? B[-sb] : B[0];
        x->b[q][1] = ph ? B[0] : B[sb];
    }
}

static void store_cell(const view *v, int ph, long c, const cell *x)
{
    for (int q = 0; q < 3; q++)
        if (x->live[q])
            v->f[3 * ph + q][c] = x->v[q][ph];
}

/* The sweep of the phase's three fields (update.h's macros). */
static void sweep_cell(const fdtd_dims *P, const view *v, int ph, long c, cell *x)
{
    for (int q = 0; q < 3; q++) {
        const int f = 3 * ph + q, a = axis_a(f), b = axis_b(f);
        if (!x->live[q])
            continue;
        if (ph == 0) {
            const int m = P->has_map ? v->map[q][c] : 0;
#if FDTD_FAST_MODE
            FDTD_E_FAST(x->v[q], x->a[q], x->b[q], 0, 1, 1, v->tab[m], v->tab[P->cbd[a] + m],
                        v->tab[P->cbd[b] + m]);
#else
            FDTD_E_FAITHFUL(x->v[q], x->a[q], x->b[q], 0, 1, 1, v->cs.s[a], v->cs.s[b],
                            v->tab[m], v->tab[P->n_coef + m]);
#endif
        } else {
#if FDTD_FAST_MODE
            FDTD_H_FAST(x->v[q], x->a[q], x->b[q], 1, 1, 1, (real)P->dhd[a], (real)P->dhd[b]);
#else
            FDTD_H_FAITHFUL(x->v[q], x->a[q], x->b[q], 1, 1, 1, v->cs.s[a], v->cs.s[b],
                            (real)P->dh);
#endif
        }
    }
}

#if FDTD_PML
/* One CPML term (update.h's FDTD_PSI_TERMS row) at cell c, if c is in the
 * term's layer: psi's recursion, then the field's correction (sweep.h's
 * psi_row, one cell). The term's partner g is a curl partner of f along
 * the term's axis: a[] or b[]. */
static void psi_term(const fdtd_dims *P, const view *v, int term, int axis, int h, int f, int sign,
                     int i, int j, int k, long c, cell *x)
{
    const int q = f - 3 * h;
    if (!x->live[q])
        return;
    const int p = axis == 0 ? i : axis == 1 ? j : k, t = P->t;
    const int plane = FDTD_PSI_PLANE(p, P->n[axis], t, h);
    if (plane < 0)
        return;
    const long at = axis == 0   ? plane + 2 * (long)t * (j + P->sy * k)
                    : axis == 1 ? P->sx * (plane + 2 * (long)t * k) + i
                                : P->sx * (j + P->sy * plane) + i;
    real psi = v->psi[term][at];
    const real *g = axis_a(f) == axis ? x->a[q] : x->b[q];
    __global const real *pb = v->tab + P->prof[h][axis], *pc = pb + P->n[axis] + 2,
                        *pcd = pc + P->n[axis] + 2;
#if FDTD_FAST_MODE
    if (h)
        FDTD_PSI_BWD_FAST(psi, pb[p], pcd[p], g, 1, 1);
    else
        FDTD_PSI_FWD_FAST(psi, pb[p], pcd[p], g, 0, 1);
#else
    const cell_size da = v->cs.s[axis];
    if (h)
        FDTD_PSI_BWD(psi, pb[p], pc[p], g, 1, 1, da);
    else
        FDTD_PSI_FWD(psi, pb[p], pc[p], g, 0, 1, da);
#endif
    v->psi[term][at] = psi;
    const real coef = h ? (real)P->dh : v->tab[P->n_coef + (P->has_map ? v->map[q][c] : 0)];
    if ((sign > 0) != (h != 0))
        x->v[q][h] = x->v[q][h] + coef * psi;
    else
        x->v[q][h] = x->v[q][h] - coef * psi;
}
#endif

/* A cell's phase: loads, the sweep, the CPML terms (axis x, y, z), stores. */
static void phase_cell(const fdtd_dims *P, const view *v, int ph, int i, int j, int k, long c,
                       cell *x)
{
    load_cell(P, v, ph, i, j, k, c, x);
    sweep_cell(P, v, ph, c, x);
#if FDTD_PML
#define TERM(term, axis, h, f, g, sign) \
    if ((h) == ph)                      \
        psi_term(P, v, term, axis, h, f, sign, i, j, k, c, x);
    FDTD_PSI_TERMS(TERM)
#undef TERM
#endif
    store_cell(v, ph, c, x);
}

/* A work-item a cell of the phase's launch box. */
__kernel __attribute__((reqd_work_group_size(BX, BY, 1))) void fdtd_e_phase(STATE_ARGS)
{
    VIEW_OF(v);
    const int i = P.box[0][0][0] + (int)get_global_id(0), j = P.box[0][0][1] + (int)get_global_id(1),
              k = P.box[0][0][2] + (int)get_global_id(2);
    cell x;
    if (i <= P.box[0][1][0] && j <= P.box[0][1][1])
        phase_cell(&P, &v, 0, i, j, k, i + P.sx * (j + P.sy * k), &x);
}

__kernel __attribute__((reqd_work_group_size(BX, BY, 1))) void fdtd_h_phase(STATE_ARGS)
{
    VIEW_OF(v);
    const int i = P.box[1][0][0] + (int)get_global_id(0), j = P.box[1][0][1] + (int)get_global_id(1),
              k = P.box[1][0][2] + (int)get_global_id(2);
    cell x;
    if (i <= P.box[1][1][0] && j <= P.box[1][1][1])
        phase_cell(&P, &v, 1, i, j, k, i + P.sx * (j + P.sy * k), &x);
}

/* update.h's butterfly over the FDTD_LANES work-items of a row: lane l
 * adds lane l xor m's value, m = 16 .. 1 (every work-item of the group
 * calls it: barriers). */
static double butterfly(__local double *lanes, int l, double v)
{
    for (int m = FDTD_LANES / 2; m > 0; m /= 2) {
        lanes[l] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = v + lanes[l ^ m];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return v;
}

/* The H phase of an energy step, FDTD_LANES work-items a row (j, k): each
 * cell's H before and after its update (sweep, CPML terms), then its
 * energy terms; the row's sum into rows[rows_at + row]. */
__kernel __attribute__((reqd_work_group_size(FDTD_LANES, FDTD_ROWS, 1))) void fdtd_h_energy(
    STATE_ARGS, __global double *rows, long rows_at)
{
    __local double lanes[FDTD_ROWS][FDTD_LANES];
    VIEW_OF(v);
    const int l = get_local_id(0);
    const long row = get_global_id(1);
    const int j = (int)(row % P.sy), k = (int)(row / P.sy);
    double sum = 0;
    for (int i = l; row < P.sy * P.sz && i < P.sx; i += FDTD_LANES) {
        const long c = P.sx * row + i;
        real h0[3], h1[3];
        for (int q = 0; q < 3; q++)
            h0[q] = v.f[FDTD_HX + q][c];
        cell x;
        phase_cell(&P, &v, 1, i, j, k, c, &x);
        for (int q = 0; q < 3; q++)
            h1[q] = x.live[q] ? x.v[q][1] : h0[q];
        double ep[3];
        for (int f = 0; f < 3; f++)
            ep[f] = v.eps[P.has_map ? v.map[f][c] : 0];
        sum += FDTD_CELL_ENERGY(v.f[FDTD_EX][c], v.f[FDTD_EY][c], v.f[FDTD_EZ][c], ep[0], ep[1],
                                ep[2], h0[0], h1[0], h0[1], h1[1], h0[2], h1[2], P.mu0);
    }
    sum = butterfly(lanes[get_local_id(1)], l, sum);
    if (l == 0 && row < P.sy * P.sz)
        rows[rows_at + row] = sum;
}

/* Sum of squares and largest magnitude of x, FDTD_LANES work-items a row
 * (sweep.h's norm_rows: a NaN wins the maximum). */
__kernel __attribute__((reqd_work_group_size(FDTD_LANES, FDTD_ROWS, 1))) void fdtd_norm(
    const fdtd_dims P, __global const real *x, __global double *rows, __global double *rows_max)
{
    __local double lanes[FDTD_ROWS][FDTD_LANES];
    const int l = get_local_id(0);
    const long row = get_global_id(1);
    double sum = 0, m = 0;
    for (int i = l; row < P.sy * P.sz && i < P.sx; i += FDTD_LANES) {
        const double a = (double)x[P.sx * row + i];
        sum += a * a;
        m = fabs(a) > m || a != a ? fabs(a) : m;
    }
    __local double *mine = lanes[get_local_id(1)];
    sum = butterfly(mine, l, sum);
    for (int s = FDTD_LANES / 2; s > 0; s /= 2) {
        mine[l] = m;
        barrier(CLK_LOCAL_MEM_FENCE);
        const double o = mine[l ^ s];
        m = o > m || o != o ? o : m;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0 && row < P.sy * P.sz) {
        rows[row] = sum;
        rows_max[row] = m;
    }
}

/* The source cell (do_src, one work-item; value already in the fields'
 * precision, rounded on the host), or the probes into out[out_at + p]. */
__kernel void fdtd_points(STATE_ARGS, __global const long *probe_at, __global double *out, int do_src,
                          int src_field, long src_at, real value, long out_at)
{
    VIEW_OF(v);
    const int p = get_global_id(0);
    if (do_src) {
        if (p == 0)
            v.f[src_field][src_at] = value;
        return;
    }
    if (p < P.n_probes)
        out[out_at + p] = (double)v.f[probe_at[2 * p]][probe_at[2 * p + 1]];
}
