/* The time step's row operations for one precision, written once for the
 * reference (reference.c) and the CPU backend's ISA builds
 * (app_cpu/fdtd/): the including file defines FDTD_REAL (float or
 * double), FDTD_VIEW (fdtd_view_d or fdtd_view_f: one type a precision,
 * the same in every file, so the reference's views drive every build's
 * rows), FDTD_SUF(name) (names for this precision and build) and
 * FDTD_FMA (update.h), and includes this file once per precision; the
 * entry points at the end are the build's fdtd_rows (rows.h).
 *
 * A row is (j, k) with i running along it. Every update of a cell reads
 * only the other field (E reads H, H reads E), so a row's sweep, its CPML
 * terms (axis x, then y, then z) and its energy can run together, rows in
 * any order and on any thread, with the same bits per cell as whole-array
 * passes in the spec's order. */
static inline int FDTD_SUF(live_row)(const FDTD_VIEW * v, int f, long j, long k)
{
    return j >= v->lo[f][1] && j <= v->hi[f][1] && k >= v->lo[f][2] && k <= v->hi[f][2];
}

/* Strides of the three axes and the curl partners of each field:
 * partner A along axis a and B along axis b (update.h). */
static const int FDTD_SUF(curl_a)[FDTD_N_FIELDS] = {FDTD_HZ, FDTD_HX, FDTD_HY, FDTD_EZ, FDTD_EX, FDTD_EY};
static const int FDTD_SUF(curl_b)[FDTD_N_FIELDS] = {FDTD_HY, FDTD_HZ, FDTD_HX, FDTD_EY, FDTD_EZ, FDTD_EX};
static const int FDTD_SUF(axis_a)[FDTD_N_FIELDS] = {1, 2, 0, 1, 2, 0};
static const int FDTD_SUF(axis_b)[FDTD_N_FIELDS] = {2, 0, 1, 2, 0, 1};

/* The sweep of E field f (0..2) along row (j, k). */
static void FDTD_SUF(e_sweep_row)(const FDTD_VIEW * v, int f, long j, long k)
{
    const long stride[3] = {1, v->sx, v->sx * v->sy};
    const long base = v->sx * (j + v->sy * k);
    const int a = FDTD_SUF(axis_a)[f], b = FDTD_SUF(axis_b)[f];
    const long sa = stride[a], sb = stride[b];
    FDTD_REAL *E = v->f[f];
    const FDTD_REAL *A = v->f[FDTD_SUF(curl_a)[f]], *B = v->f[FDTD_SUF(curl_b)[f]];
    const uint16_t *map = v->map[f];
    const long i0 = base + v->lo[f][0], i1 = base + v->hi[f][0];
    if (v->fast) {
        const FDTD_REAL *cba = v->cbd[a], *cbb = v->cbd[b];
        if (!map)
            for (long c = i0; c <= i1; c++)
                FDTD_E_FAST(E, A, B, c, sa, sb, v->ca[0], cba[0], cbb[0]);
        else
            for (long c = i0; c <= i1; c++)
                FDTD_E_FAST(E, A, B, c, sa, sb, v->ca[map[c]], cba[map[c]], cbb[map[c]]);
    } else {
        const FDTD_REAL da = v->d[a], db = v->d[b];
        if (!map)
            for (long c = i0; c <= i1; c++)
                FDTD_E_FAITHFUL(E, A, B, c, sa, sb, da, db, v->ca[0], v->cb[0]);
        else
            for (long c = i0; c <= i1; c++)
                FDTD_E_FAITHFUL(E, A, B, c, sa, sb, da, db, v->ca[map[c]], v->cb[map[c]]);
    }
}

static void FDTD_SUF(h_sweep_row)(const FDTD_VIEW * v, int f, long j, long k)
{
    const long stride[3] = {1, v->sx, v->sx * v->sy};
    const long base = v->sx * (j + v->sy * k);
    const int a = FDTD_SUF(axis_a)[f], b = FDTD_SUF(axis_b)[f];
    const long sa = stride[a], sb = stride[b];
    FDTD_REAL *H = v->f[f];
    const FDTD_REAL *A = v->f[FDTD_SUF(curl_a)[f]], *B = v->f[FDTD_SUF(curl_b)[f]];
    const long i0 = base + v->lo[f][0], i1 = base + v->hi[f][0];
    if (v->fast) {
        const FDTD_REAL dha = v->dhd[a], dhb = v->dhd[b];
        for (long c = i0; c <= i1; c++)
            FDTD_H_FAST(H, A, B, c, sa, sb, dha, dhb);
    } else {
        const FDTD_REAL da = v->d[a], db = v->d[b], dh = v->dh;
        for (long c = i0; c <= i1; c++)
            FDTD_H_FAITHFUL(H, A, B, c, sa, sb, da, db, dh);
    }
}

/* One CPML term (update.h's FDTD_PSI_TERMS) on the cells of row (j, k)
 * that lie in the term's layer. */
static void FDTD_SUF(psi_row)(const FDTD_VIEW * v, int term, int axis, int h, int f, int g,
                              int sign, long j, long k)
{
    const long stride[3] = {1, v->sx, v->sx * v->sy};
    const long base = v->sx * (j + v->sy * k), s = stride[axis];
    const int n = v->n[axis], t = v->t;
    FDTD_REAL *F = v->f[f], *psi = v->psi[term];
    const FDTD_REAL *G = v->f[g], *pb = v->b[h][axis], *pc = v->c[h][axis], *pcd = v->cd[h][axis];
    const FDTD_REAL da = v->d[axis];
    long q0 = 0, c0, c1;
    if (axis == 0) {
        c0 = v->lo[f][0];
        c1 = v->hi[f][0];
    } else {
        const long p = axis == 1 ? j : k;
        const long q = FDTD_PSI_PLANE(p, n, t, h);
        if (q < 0)
            return;
        c0 = v->lo[f][0];
        c1 = v->hi[f][0];
        q0 = axis == 1 ? v->sx * (q + 2L * t * k) : v->sx * (j + v->sy * q);
    }
    for (long i = c0; i <= c1; i++) {
        const long p = axis == 0 ? i : axis == 1 ? j : k;
        const long q = axis == 0 ? FDTD_PSI_PLANE(i, n, t, h) : 0;
        if (q < 0)
            continue;
        const long c = base + i;
        FDTD_REAL *ps = axis == 0 ? &psi[q + 2L * t * (j + v->sy * k)] : &psi[q0 + i];
        if (v->fast) {
            if (h)
                FDTD_PSI_BWD_FAST(*ps, pb[p], pcd[p], G, c, s);
            else
                FDTD_PSI_FWD_FAST(*ps, pb[p], pcd[p], G, c, s);
        } else {
            if (h)
                FDTD_PSI_BWD(*ps, pb[p], pc[p], G, c, s, da);
            else
                FDTD_PSI_FWD(*ps, pb[p], pc[p], G, c, s, da);
        }
        const FDTD_REAL coef = h ? v->dh : v->cb[v->map[f] ? v->map[f][c] : 0];
        if ((sign > 0) != (h != 0))
            F[c] = F[c] + coef * *ps;
        else
            F[c] = F[c] - coef * *ps;
    }
}

/* Row (j, k)'s CPML terms for E (h = 0) or H (h = 1), axis x then y then z. */
static void FDTD_SUF(pml_row)(const FDTD_VIEW * v, int h, long j, long k)
{
#define FDTD_SUF_PSI_ROW(term, axis, hh, f, g, sign)                         \
    if ((hh) == h && FDTD_SUF(live_row)(v, f, j, k))                         \
        FDTD_SUF(psi_row)(v, term, axis, hh, f, g, sign, j, k);
    FDTD_PSI_TERMS(FDTD_SUF_PSI_ROW)
#undef FDTD_SUF_PSI_ROW
}

/* E: every row of slabs k0..k1-1 (sweep, then the CPML terms). */
static void FDTD_SUF(e_rows)(const FDTD_VIEW * v, long k0, long k1)
{
    for (long k = k0; k < k1; k++)
        for (long j = 0; j < v->sy; j++) {
            for (int f = FDTD_EX; f <= FDTD_EZ; f++)
                if (FDTD_SUF(live_row)(v, f, j, k))
                    FDTD_SUF(e_sweep_row)(v, f, j, k);
            if (v->t)
                FDTD_SUF(pml_row)(v, 0, j, k);
        }
}

/* One row's energy terms (update.h's order), H0 the row's H before the
 * step's H updates. */
static double FDTD_SUF(energy_row)(const FDTD_VIEW * v, long j, long k,
                                   const FDTD_REAL *const h0[3])
{
    const long base = v->sx * (j + v->sy * k);
    double lane[FDTD_LANES] = {0};
    for (long i = 0; i < v->sx; i++) {
        const long c = base + i;
        double ep[3];
        for (int f = 0; f < 3; f++)
            ep[f] = v->eps[v->map[f] ? v->map[f][c] : 0];
        lane[i % FDTD_LANES] += FDTD_CELL_ENERGY(v->f[FDTD_EX][c], v->f[FDTD_EY][c], v->f[FDTD_EZ][c], ep[0],
                                                 ep[1], ep[2], h0[0][i], v->f[FDTD_HX][c], h0[1][i],
                                                 v->f[FDTD_HY][c], h0[2][i], v->f[FDTD_HZ][c], FDTD_MU0);
    }
    FDTD_BUTTERFLY(lane);
    return lane[0];
}

/* H: every row of slabs k0..k1-1 (sweep, then the CPML terms); with
 * rows (not NULL) each row's energy into rows[j + sy * (k - k0)], using
 * scratch (3 sx values) for the row's H before. */
static void FDTD_SUF(h_rows)(const FDTD_VIEW * v, long k0, long k1, double *rows,
                             FDTD_REAL *scratch)
{
    for (long k = k0; k < k1; k++)
        for (long j = 0; j < v->sy; j++) {
            const long base = v->sx * (j + v->sy * k);
            const FDTD_REAL *h0[3] = {scratch, scratch + v->sx, scratch + 2 * v->sx};
            if (rows)
                for (int f = 0; f < 3; f++)
                    memcpy(scratch + f * v->sx, v->f[FDTD_HX + f] + base, (size_t)v->sx * sizeof *scratch);
            for (int f = FDTD_HX; f <= FDTD_HZ; f++)
                if (FDTD_SUF(live_row)(v, f, j, k))
                    FDTD_SUF(h_sweep_row)(v, f, j, k);
            if (v->t)
                FDTD_SUF(pml_row)(v, 1, j, k);
            if (rows)
                rows[j + v->sy * (k - k0)] = FDTD_SUF(energy_row)(v, j, k, h0);
        }
}

/* Array x's rows k0..k1-1: each row's sum of squares (update.h's order)
 * into rows[j + sy * (k - k0)], and the largest magnitude into *max. */
static void FDTD_SUF(norm_rows)(const FDTD_VIEW * v, const FDTD_REAL *x, long k0, long k1,
                                double *rows, double *max)
{
    double m = 0;
    for (long k = k0; k < k1; k++)
        for (long j = 0; j < v->sy; j++) {
            const FDTD_REAL *r = x + v->sx * (j + v->sy * k);
            double lane[FDTD_LANES] = {0};
            for (long i = 0; i < v->sx; i++) {
                const double a = (double)r[i];
                lane[i % FDTD_LANES] += a * a;
                m = fabs(a) > m || a != a ? fabs(a) : m;
            }
            FDTD_BUTTERFLY(lane);
            rows[j + v->sy * (k - k0)] = lane[0];
        }
    *max = m;
}

/* The build's entry points for this precision (rows.h). */
static void FDTD_SUF(e_rows_any)(const void *v, long k0, long k1)
{
    FDTD_SUF(e_rows)(v, k0, k1);
}

static void FDTD_SUF(h_rows_any)(const void *v, long k0, long k1, double *rows, void *scratch)
{
    FDTD_SUF(h_rows)(v, k0, k1, rows, scratch);
}

static void FDTD_SUF(norm_rows_any)(const void *v, const void *x, long k0, long k1, double *rows,
                                    double *max)
{
    FDTD_SUF(norm_rows)(v, x, k0, k1, rows, max);
}
