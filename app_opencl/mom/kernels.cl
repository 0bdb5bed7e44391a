/* The MoM kind's OpenCL kernels (host.c, which drives them with CLBlast's
 * GEMM between them). The build embeds prelude.cl, common/portable.h,
 * common/mom/bessel.h and common/mom/entries.h before this file (their
 * #include lines dropped): the fill's entries are the C reference's
 * formulas, token for token, without contraction (prelude.cl).
 *
 * host.c builds the program once a precision with MOM_SINGLE (0: the
 * factors in double, and the fill, norms, right-hand sides and
 * conversions, which are always double; 1: the factors in single),
 * MOM_NB (the factorisation's block: the triangular kernels' work-groups
 * and the panel's pivot row in local memory), MOM_WG (the other
 * kernels' work-groups, a power of two), MOM_LANES (work-items a row in
 * the panel, a power of two below MOM_WG) and MOM_TC (right-hand columns
 * a triangular work-group).
 *
 * Matrices are column-major with leading dimension n (lda, ldb where
 * given); complex numbers are (re, im) in double2 or float2. */


#if MOM_SINGLE
typedef float real;
typedef float2 cplx;
#else
typedef double real;
typedef double2 cplx;
#endif

#define AT(a, ld, i, j) ((a)[(size_t)(j) * (size_t)(ld) + (size_t)(i)])

static inline cplx cmul(cplx a, cplx b)
{
    return (cplx)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* |re| + |im|: LAPACK's measure for choosing a pivot (izamax). */
static inline real cabs1(cplx a)
{
    return fabs(a.x) + fabs(a.y);
}

/* 1 / p and a / b by Smith's method (no overflow from squaring). */
static inline cplx crecip(cplx p)
{
    if (fabs(p.x) >= fabs(p.y)) {
        const real r = p.y / p.x, d = p.x + p.y * r;
        return (cplx)((real)1 / d, -r / d);
    }
    const real r = p.x / p.y, d = p.x * r + p.y;
    return (cplx)(r / d, (real)-1 / d);
}

static inline cplx cdiv(cplx a, cplx b)
{
    if (fabs(b.x) >= fabs(b.y)) {
        const real r = b.y / b.x, d = b.x + b.y * r;
        return (cplx)((a.x + a.y * r) / d, (a.y - a.x * r) / d);
    }
    const real r = b.x / b.y, d = b.x * r + b.y;
    return (cplx)((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}

/* ---- the panel: partial pivoting, column by column ---- */

/* Candidate (v, i) beats (bv, bi): larger |re| + |im|, and on a tie the
 * smaller row (izamax takes the first largest). A NaN never wins: the
 * caller makes it -1, below every entry's measure. */
static inline int better(real v, int i, real bv, int bi)
{
    return v > bv || (v == bv && i < bi);
}

/* The work-group's best (v, i) into lv[0], li[0]; a call of every
 * work-item of a MOM_WG group. */
static void reduce_best(__local real *lv, __local int *li, real v, int i)
{
    const int t = get_local_id(0);
    lv[t] = v;
    li[t] = i;
    for (int s = MOM_WG / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < s && better(lv[t + s], li[t + s], lv[t], li[t])) {
            lv[t] = lv[t + s];
            li[t] = li[t + s];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The panel (rows j.., columns j .. j+nb-1) is factored a column a
 * launch (lu_column). A work-group holds ROWS rows, MOM_LANES work-items
 * a row (lane l takes the columns l, l + MOM_LANES, ...), so that a GPU
 * can have more work-groups and loads in flight than one work-item a row
 * gives (host.c's default is 1: more lanes are correct but not yet timed
 * on a GPU). Launches are the only
 * synchronisation between work-groups, so a column's pivot comes from the
 * launch before: each work-group leaves its best candidate for the next
 * column, (|re| + |im|, row), and a copy of that row's panel entries
 * (cand_v, cand_i, cand_row: two sets, written and read by turns,
 * parity). Group g's candidates are column c's rows c + g ROWS ... */
#define ROWS (MOM_WG / MOM_LANES)

/* The candidate copy: the panel row `row` into cand_row's slot (after a
 * barrier that makes the group's own writes visible to it). */
static void keep_candidate(__global const cplx *a, const int n, const int j, const int nb,
                           const int row, __global cplx *cand_row)
{
    if (row == INT_MAX)
        return;
    for (int q = get_local_id(0); q < nb; q += MOM_WG)
        cand_row[q] = AT(a, n, row, j + q);
}

/* The first column's candidates: rows j .. n-1 of column j (lane 0 of
 * each row), into set 0. */
__kernel void lu_search(const int n, const int j, const int nb, __global const cplx *a,
                        __global real *cand_v, __global int *cand_i, __global cplx *cand_row)
{
    __local real lv[MOM_WG];
    __local int li[MOM_WG];
    const int t = get_local_id(0), g = get_group_id(0);
    const int i = j + g * ROWS + t % ROWS;
    real v = -1;
    int at = INT_MAX;
    if (i < n && t < ROWS) {
        v = cabs1(AT(a, n, i, j));
        v = v >= 0 ? v : -1;
        at = i;
    }
    reduce_best(lv, li, v, at);
    if (t == 0) {
        cand_v[g] = lv[0];
        cand_i[g] = li[0];
    }
    keep_candidate(a, n, j, nb, li[0], cand_row + (size_t)g * MOM_NB);
}

/* Column c = j + k of the panel. With pivoting: the best of the `groups`
 * candidates of set `parity` is the pivot row p (|re| + |im|, the first
 * largest: izamax), its panel row from the candidate copy; unless the
 * column is zero (zgetf2 does not exchange then) and p != c, rows c and
 * p are exchanged across the panel by the work-group that holds row p,
 * which alone reads row c's old entries and writes rows c and p; ipiv[c]
 * = p + 1. Without pivoting the pivot row is row c. Then, for the rows
 * i > c: l = a_ic / pivot, and the rank-1 update of the panel's columns
 * right of c; with search, each group's best candidate for the next
 * column into the other set. A zero pivot scales by 0 (its column is
 * zero below) and its column goes into info (when info < 0). */
__kernel void lu_column(const int n, const int j, const int nb, const int k, const int groups,
                        const int pivoting, const int search, const int parity,
                        const int cand_stride, __global cplx *a, __global real *cand_v,
                        __global int *cand_i, __global cplx *cand_row, __global int *ipiv,
                        __global int *info)
{
    __local cplx prow[MOM_NB], oldc[MOM_NB];
    __local real lv[MOM_WG];
    __local int li[MOM_WG];
    const int c = j + k, t = get_local_id(0), g = get_group_id(0);
    const int lane = t / ROWS, i = c + 1 + g * ROWS + t % ROWS;
    const int in = parity * cand_stride, out = (1 - parity) * cand_stride;
    int p = c, from = -1;   /* the pivot row; the candidate slot holding it */
    if (pivoting) {
        real v = -1;
        int at = INT_MAX;
        for (int h = t; h < groups; h += MOM_WG)
            if (better(cand_v[in + h], cand_i[in + h], v, at)) {
                v = cand_v[in + h];
                at = cand_i[in + h];
            }
        reduce_best(lv, li, v, at);
        if (li[0] != INT_MAX) {
            p = li[0];
            from = (p - c) / ROWS;
        }
    }
    for (int q = t; q < nb; q += MOM_WG)
        prow[q] = from >= 0 ? cand_row[(size_t)(in + from) * MOM_NB + q] : AT(a, n, c, j + q);
    barrier(CLK_LOCAL_MEM_FENCE);
    const cplx piv = prow[k];
    const int zero = piv.x == 0 && piv.y == 0;
    const int swap = p != c && !zero;
    const cplx rinv = zero ? (cplx)(0, 0) : crecip(piv);
    if (swap && g == (p - c - 1) / ROWS) {   /* the group holding row p */
        for (int q = t; q < nb; q += MOM_WG)
            oldc[q] = AT(a, n, c, j + q);
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        for (int q = t; q < nb; q += MOM_WG)
            AT(a, n, c, j + q) = prow[q];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (g == 0 && t == 0) {
        if (pivoting)
            ipiv[c] = p + 1;
        if (zero && *info < 0)
            *info = c;
    }
    const int moved = swap && i == p;   /* row p takes row c's old entries */
    cplx l = (cplx)(0, 0);
    if (i < n)
        l = cmul(moved ? oldc[k] : AT(a, n, i, c), rinv);
    barrier(CLK_GLOBAL_MEM_FENCE);   /* every lane has read a_ic before lane 0 writes l */
    real v = -1;
    int at = INT_MAX;
    if (i < n) {
        if (moved)
            for (int q = lane; q < k; q += MOM_LANES)
                AT(a, n, i, j + q) = oldc[q];
        if (lane == 0)
            AT(a, n, i, c) = l;
        int q = k + 1 + lane;
        for (; q + MOM_LANES < nb; q += 2 * MOM_LANES) {   /* two loads in flight */
            const cplx x0 = moved ? oldc[q] : AT(a, n, i, j + q);
            const cplx x1 = moved ? oldc[q + MOM_LANES] : AT(a, n, i, j + q + MOM_LANES);
            const cplx u0 = x0 - cmul(l, prow[q]), u1 = x1 - cmul(l, prow[q + MOM_LANES]);
            AT(a, n, i, j + q) = u0;
            AT(a, n, i, j + q + MOM_LANES) = u1;
            if (q == k + 1)
                v = cabs1(u0);
        }
        if (q < nb) {
            const cplx u0 = (moved ? oldc[q] : AT(a, n, i, j + q)) - cmul(l, prow[q]);
            AT(a, n, i, j + q) = u0;
            if (q == k + 1)
                v = cabs1(u0);
        }
        if (lane == 0 && k + 1 < nb) {
            v = v >= 0 ? v : -1;
            at = i;
        }
    }
    if (search) {
        reduce_best(lv, li, v, at);
        if (t == 0) {
            cand_v[out + g] = lv[0];
            cand_i[out + g] = li[0];
        }
        barrier(CLK_GLOBAL_MEM_FENCE);   /* the group's updated rows, visible to it */
        keep_candidate(a, n, j, nb, li[0], cand_row + (size_t)(out + g) * MOM_NB);
    }
}

/* The panel's row exchanges (ipiv[j .. j+nb-1], in order) applied to the
 * columns left and right of it (LAPACK's laswp); a work-item a column. */
__kernel void lu_swap(const int n, const int j, const int nb, __global cplx *a,
                      __global const int *ipiv)
{
    const int t = get_global_id(0);
    const int col = t < j ? t : t + nb;
    if (col >= n)
        return;
    for (int k = j; k < j + nb; k++) {
        const int p = ipiv[k] - 1;
        if (p != k) {
            const cplx u = AT(a, n, k, col);
            AT(a, n, k, col) = AT(a, n, p, col);
            AT(a, n, p, col) = u;
        }
    }
}

/* ---- triangular solves with one diagonal block ---- */

/* B = L^-1 B, L the unit lower triangular m x m block (m <= MOM_NB) at
 * a + a_off (leading dimension lda), B the ncols columns at b + b_off
 * (ldb): forward substitution, MOM_TC columns a work-group of MOM_NB
 * work-items, a row each; B's block in local memory. */
__kernel void trsm_lower_unit(const int m, const int ncols, __global const cplx *a,
                              const ulong a_off, const int lda, __global cplx *b,
                              const ulong b_off, const int ldb)
{
    __local cplx x[MOM_NB * MOM_TC];
    const int i = get_local_id(0), c0 = get_group_id(0) * MOM_TC;
    const int nc = min(MOM_TC, ncols - c0);
    a += a_off;
    b += b_off;
    if (i < m)
        for (int c = 0; c < nc; c++)
            x[c * MOM_NB + i] = AT(b, ldb, i, c0 + c);
    for (int k = 0; k + 1 < m; k++) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i > k && i < m) {
            const cplx l = AT(a, lda, i, k);
            for (int c = 0; c < nc; c++)
                x[c * MOM_NB + i] -= cmul(l, x[c * MOM_NB + k]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < m)
        for (int c = 0; c < nc; c++)
            AT(b, ldb, i, c0 + c) = x[c * MOM_NB + i];
}

/* B = U^-1 B, U upper triangular with its diagonal: back substitution,
 * laid out as trsm_lower_unit. */
__kernel void trsm_upper(const int m, const int ncols, __global const cplx *a, const ulong a_off,
                         const int lda, __global cplx *b, const ulong b_off, const int ldb)
{
    __local cplx x[MOM_NB * MOM_TC];
    const int i = get_local_id(0), c0 = get_group_id(0) * MOM_TC;
    const int nc = min(MOM_TC, ncols - c0);
    a += a_off;
    b += b_off;
    if (i < m)
        for (int c = 0; c < nc; c++)
            x[c * MOM_NB + i] = AT(b, ldb, i, c0 + c);
    for (int k = m - 1; k >= 0; k--) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i == k) {
            const cplx d = AT(a, lda, k, k);
            for (int c = 0; c < nc; c++)
                x[c * MOM_NB + k] = cdiv(x[c * MOM_NB + k], d);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < k) {
            const cplx u = AT(a, lda, i, k);
            for (int c = 0; c < nc; c++)
                x[c * MOM_NB + i] -= cmul(u, x[c * MOM_NB + k]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < m)
        for (int c = 0; c < nc; c++)
            AT(b, ldb, i, c0 + c) = x[c * MOM_NB + i];
}

#if !MOM_SINGLE

/* ---- the fill: always double ---- */

/* Z's columns first .. first+count-1, entry (m, j) into out's column
 * j - col0 (col0 = 0: Z itself; col0 = first: a slab of columns). MoM:
 * mom_z_far, mom_z_self on the diagonal; LCN (lcn != 0): the far formula
 * with the node weights, 0 on the diagonal (always corrected). w: the
 * cells' widths (MoM) or the nodes' weights (LCN); px, py the match
 * points. */
__kernel void mom_fill(const int n, const int first, const int count, const int col0,
                       const double k, const double k_eta_4, const int lcn,
                       __global const double *px, __global const double *py,
                       __global const double *w, __global double2 *out)
{
    const int m = get_global_id(0), c = get_global_id(1);
    if (m >= n || c >= count)
        return;
    const int j = first + c;
    double re, im;
    if (m != j)
        mom_z_far(k_eta_4, k, w[j], px[m] - px[j], py[m] - py[j], &re, &im);
    else if (lcn)
        re = im = 0;
    else
        mom_z_self(k_eta_4, k, w[j], &re, &im);
    AT(out, n, m, j - col0) = (double2)(re, im);
}

/* LCN's corrections of those columns (lcn.h: col_start, col_row, col_re,
 * col_im), overwriting what mom_fill wrote; a work-item a column. */
__kernel void mom_correct(const int n, const int first, const int count, const int col0,
                          __global const int *col_start, __global const int *col_row,
                          __global const double *col_re, __global const double *col_im,
                          __global double2 *out)
{
    const int c = get_global_id(0);
    if (c >= count)
        return;
    const int j = first + c;
    for (int p = col_start[j]; p < col_start[j + 1]; p++)
        AT(out, n, col_row[p], j - col0) = (double2)(col_re[p], col_im[p]);
}

/* A work-group a column j = first + group: upper == 0, over all rows,
 * out[j] = max |a_ij| and out[n + j] = sum |a_ij| (Z's norms); upper != 0,
 * over rows 0 .. j (U), out[j] = max |u_ij| and out[n + j] = |u_jj|. */
__kernel void mom_col_stats(const int n, const int first, const int upper,
                            __global const double2 *a, __global double *out)
{
    __local double lm[MOM_WG], ls[MOM_WG];
    const int j = first + get_group_id(0), t = get_local_id(0);
    const int rows = upper ? j + 1 : n;
    double mx = 0, s = 0;
    for (int i = t; i < rows; i += MOM_WG) {
        const double2 z = AT(a, n, i, j);
        const double v = hypot(z.x, z.y);
        mx = fmax(mx, v);
        s += v;
    }
    lm[t] = mx;
    ls[t] = s;
    for (int h = MOM_WG / 2; h > 0; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < h) {
            lm[t] = fmax(lm[t], lm[t + h]);
            ls[t] += ls[t + h];
        }
    }
    if (t == 0) {
        out[j] = lm[0];
        if (upper) {
            const double2 d = AT(a, n, j, j);
            out[n + j] = hypot(d.x, d.y);
        } else {
            out[n + j] = ls[0];
        }
    }
}

/* The right-hand sides: the incident field at the match points, dir the
 * (cos, sin) pairs of the incidences (made on the host, as the C fill). */
__kernel void mom_rhs(const int n, const int nrhs, const double k, __global const double *dir,
                      __global const double *px, __global const double *py, __global double2 *b)
{
    const int i = get_global_id(0), r = get_global_id(1);
    if (i >= n || r >= nrhs)
        return;
    double re, im;
    mom_incident(k, dir[2 * r], dir[2 * r + 1], px[i], py[i], &re, &im);
    AT(b, n, i, r) = (double2)(re, im);
}

/* ---- conversions and vector steps ---- */

__kernel void mom_to_single(__global const double2 *src, __global float2 *dst, const ulong count)
{
    const size_t e = get_global_id(0);
    if (e < count)
        dst[e] = convert_float2(src[e]);
}

__kernel void mom_widen(__global const float2 *src, __global double2 *dst, const ulong count)
{
    const size_t e = get_global_id(0);
    if (e < count)
        dst[e] = convert_double2(src[e]);
}

__kernel void mom_add(__global double2 *dst, __global const double2 *src, const ulong count)
{
    const size_t e = get_global_id(0);
    if (e < count)
        dst[e] += src[e];
}

/* dst = P src for the nrhs columns (the row exchanges applied to the
 * right-hand sides: row i of dst is row perm[i] of src). */
__kernel void mom_gather(const int n, const int nrhs, __global const int *perm,
                         __global const double2 *src, __global double2 *dst)
{
    const int i = get_global_id(0), r = get_global_id(1);
    if (i < n && r < nrhs)
        AT(dst, n, i, r) = AT(src, n, perm[i], r);
}

/* The same into single precision. */
__kernel void mom_gather_single(const int n, const int nrhs, __global const int *perm,
                                __global const double2 *src, __global float2 *dst)
{
    const int i = get_global_id(0), r = get_global_id(1);
    if (i < n && r < nrhs)
        AT(dst, n, i, r) = convert_float2(AT(src, n, perm[i], r));
}

/* The diagonal of the n x n w set to 1 (w zeroed before: the identity). */
__kernel void mom_set_diag(const int n, __global double2 *w)
{
    const int i = get_global_id(0);
    if (i < n)
        AT(w, n, i, i) = (double2)(1, 0);
}

#endif
