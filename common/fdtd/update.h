/* The Yee update of one cell, written once for the C reference, the CPU
 * threads, CUDA and OpenCL (plain expression macros: the same tokens in
 * every dialect, over float or double arrays alike). The operations and
 * their order are the spec's (docs/fdtd.md section 3):
 *
 *   faithful: E = ca E + cb ((A(+a) - A) / da - (B(+b) - B) / db),
 *             H = H - dh ((A - A(-a)) / da - (B - B(-b)) / db),
 *   with each difference divided by its cell size (no reciprocal), and
 *   no FMA contraction anywhere: the C files are compiled with
 *   -ffp-contract=off, CUDA with --fmad=false, OpenCL with
 *   "#pragma OPENCL FP_CONTRACT OFF", so every backend gives the same bits.
 *   In vacuum ca = 1 and cb = dt/eps0, so ca E is E exactly and the update
 *   is the spec's E += dt/eps (...) bit for bit;
 *   fast: the coefficients divided by the cell sizes once (cba = cb / da,
 *   ...) and fused multiply-adds written out (FDTD_FMA: the dialect's
 *   fma where the hardware has one, else a product and a sum), never left
 *   to the compiler: so the fast paths too agree bit for bit wherever
 *   they have FMA (AVX2, AVX-512, CUDA, OpenCL) and within rounding
 *   elsewhere.
 *
 * For E the curl terms (A along a, B along b) are: Ex: Hz along y, Hy
 * along z; Ey: Hx along z, Hz along x; Ez: Hy along x, Hx along y; H
 * the same pattern of E: Hx: Ez along y, Ey along z; Hy: Ex along z, Ez
 * along x; Hz: Ey along x, Ex along y. s_a is the index stride of axis a
 * (1, sx, sx * sy). */
#ifndef ORRERY_FDTD_UPDATE_H
#define ORRERY_FDTD_UPDATE_H

/* The forward and backward curl components. */
/* FDTD_DIV(x, d): x / d correctly rounded, as C's '/' (a dialect may
 * compute it its own faster way with the same bits: the GPU kernels'
 * exact-reciprocal quotient, docs/fdtd.md section 3). */
#ifndef FDTD_DIV
#define FDTD_DIV(x, d) ((x) / (d))
#endif

#define FDTD_CURL_FWD(A, B, c, sa, sb, da, db) \
    (FDTD_DIV((A)[(c) + (sa)] - (A)[c], da) - FDTD_DIV((B)[(c) + (sb)] - (B)[c], db))
#define FDTD_CURL_BWD(A, B, c, sa, sb, da, db) \
    (FDTD_DIV((A)[c] - (A)[(c) - (sa)], da) - FDTD_DIV((B)[c] - (B)[(c) - (sb)], db))

/* faithful */
#define FDTD_E_FAITHFUL(E, A, B, c, sa, sb, da, db, ca, cb) \
    ((E)[c] = (ca) * (E)[c] + (cb) * FDTD_CURL_FWD(A, B, c, sa, sb, da, db))
#define FDTD_H_FAITHFUL(H, A, B, c, sa, sb, da, db, dh) \
    ((H)[c] = (H)[c] - (dh) * FDTD_CURL_BWD(A, B, c, sa, sb, da, db))

/* fast: cba = cb / da, cbb = cb / db, dha = dh / da, dhb = dh / db;
 * FDTD_FMA(a, b, c) = a b + c, defined by the including file */
#define FDTD_E_FAST(E, A, B, c, sa, sb, ca, cba, cbb)                                    \
    ((E)[c] = FDTD_FMA((ca), (E)[c],                                                      \
                       FDTD_FMA((cba), (A)[(c) + (sa)] - (A)[c], -((cbb) * ((B)[(c) + (sb)] - (B)[c])))))
#define FDTD_H_FAST(H, A, B, c, sa, sb, dha, dhb)                                        \
    ((H)[c] = FDTD_FMA(-(dha), (A)[c] - (A)[(c) - (sa)],                                  \
                       FDTD_FMA((dhb), (B)[c] - (B)[(c) - (sb)], (H)[c])))

/* The CPML (docs/fdtd.md section 3.3, Roden and Gedney's recursive
 * convolution with kappa = 1): in the layer along axis a, each curl term
 * along a carries an auxiliary psi, updated after the sweep and added in
 * a separate pass (x, then y, then z; the + term, then the - term), so
 * the sweep itself is the same everywhere:
 *   E: psi = b psi + c ((A(+a) - A) / da),   E = E +- cb psi,
 *   H: psi = b psi + c ((A - A(-a)) / da),   H = H -+ dh psi.
 * fast: c / da precomputed (cd), FDTD_FMA. */
#define FDTD_PSI_FWD(psi, b, cc, A, c, sa, da) ((psi) = (b) * (psi) + (cc) * FDTD_DIV((A)[(c) + (sa)] - (A)[c], da))
#define FDTD_PSI_BWD(psi, b, cc, A, c, sa, da) ((psi) = (b) * (psi) + (cc) * FDTD_DIV((A)[c] - (A)[(c) - (sa)], da))
#define FDTD_PSI_FWD_FAST(psi, b, cd, A, c, sa) ((psi) = FDTD_FMA((b), (psi), (cd) * ((A)[(c) + (sa)] - (A)[c])))
#define FDTD_PSI_BWD_FAST(psi, b, cd, A, c, sa) ((psi) = FDTD_FMA((b), (psi), (cd) * ((A)[c] - (A)[(c) - (sa)])))

/* The CPML's twelve auxiliary terms, in the order of their psi arrays
 * (state arrays FDTD_N_FIELDS + term): per axis x, y, z: E's + term, E's
 * - term, H's + term, H's - term; X(term, axis, h, updated field,
 * differentiated field, sign). E = E + sign cb psi; H = H - sign dh psi.
 * Per cell the corrections come after the sweep, axis x then y then z. */
#define FDTD_PSI_TERMS(X)                     \
    X(0, 0, 0, FDTD_EZ, FDTD_HY, 1)           \
    X(1, 0, 0, FDTD_EY, FDTD_HZ, -1)          \
    X(2, 0, 1, FDTD_HZ, FDTD_EY, 1)           \
    X(3, 0, 1, FDTD_HY, FDTD_EZ, -1)          \
    X(4, 1, 0, FDTD_EX, FDTD_HZ, 1)           \
    X(5, 1, 0, FDTD_EZ, FDTD_HX, -1)          \
    X(6, 1, 1, FDTD_HX, FDTD_EZ, 1)           \
    X(7, 1, 1, FDTD_HZ, FDTD_EX, -1)          \
    X(8, 2, 0, FDTD_EY, FDTD_HX, 1)           \
    X(9, 2, 0, FDTD_EX, FDTD_HY, -1)          \
    X(10, 2, 1, FDTD_HY, FDTD_EX, 1)          \
    X(11, 2, 1, FDTD_HX, FDTD_EY, -1)
#define FDTD_N_PSI 12

/* A psi array holds the layer's 2t planes across its axis (q = 0..t-1 the
 * low layer's planes p = 1..t, q = t..2t-1 the high layer's) over the
 * whole padded cross-section, i fastest. The planes: E terms (derivatives
 * at whole positions p) p in [1, t] and [n+1-t, n]; H terms (at p - 1/2)
 * p in [1, t] and [n+2-t, n+1]. -1: p is not in the layer. */
#define FDTD_PSI_PLANE(p, n, t, h) \
    ((p) >= 1 && (p) <= (t) ? (p) - 1 : (p) >= (n) + 1 + (h) - (t) && (p) <= (n) + (h) ? (t) + (p) - ((n) + 1 + (h) - (t)) : -1)

/* Sums over the arrays (energy, L2 norms) in one order on every backend,
 * so they too agree bit for bit: a row (fixed j, k) in FDTD_LANES lane
 * sums, lane l taking i = l, l + 32, ... in turn; the lanes combined by
 * the butterfly v_l += v_(l xor m) for m = 16, 8, 4, 2, 1 (lane 0's
 * value: a GPU warp's shuffle reduction); the rows in order of k, then j.
 * All in double, whatever the fields' precision. */
#define FDTD_LANES 32

/* lane 0's value of the butterfly over v[FDTD_LANES] (v is overwritten) */
#define FDTD_BUTTERFLY(v)                                              \
    do {                                                               \
        for (int fdtd_m_ = FDTD_LANES / 2; fdtd_m_ > 0; fdtd_m_ /= 2) { \
            double fdtd_t_[FDTD_LANES];                                \
            for (int fdtd_l_ = 0; fdtd_l_ < FDTD_LANES; fdtd_l_++)     \
                fdtd_t_[fdtd_l_] = (v)[fdtd_l_] + (v)[fdtd_l_ ^ fdtd_m_]; \
            for (int fdtd_l_ = 0; fdtd_l_ < FDTD_LANES; fdtd_l_++)     \
                (v)[fdtd_l_] = fdtd_t_[fdtd_l_];                       \
        }                                                              \
    } while (0)

/* One cell's energy terms (before the factor dV / 2):
 *   eps_x Ex Ex + eps_y Ey Ey + eps_z Ez Ez + mu0 (Hx0 Hx1 + Hy0 Hy1 + Hz0 Hz1)
 * left to right in double (H0 before the step's H sweep, H1 after). */
#define FDTD_CELL_ENERGY(ex, ey, ez, epx, epy, epz, hx0, hx1, hy0, hy1, hz0, hz1, mu0)            \
    ((epx) * (double)(ex) * (double)(ex) + (epy) * (double)(ey) * (double)(ey) +                   \
     (epz) * (double)(ez) * (double)(ez) +                                                         \
     (mu0) * ((double)(hx0) * (double)(hx1) + (double)(hy0) * (double)(hy1) +                      \
              (double)(hz0) * (double)(hz1)))

#endif
