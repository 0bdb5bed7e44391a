/* The MoM kind's CUDA kernels (kernels.cu) behind C launchers for host.c:
 * every pointer is device memory, complex values are (re, im) pairs of
 * doubles (cuDoubleComplex) or floats (cuComplex), matrices column-major.
 * Each launcher queues its kernels on the default stream, returns the
 * launch's cudaError_t as int and does not synchronise. */
#ifndef ORRERY_CUDA_MOM_KERNELS_H
#define ORRERY_CUDA_MOM_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the fill reads: the match points, the source weights and, for LCN,
 * the corrections column by column (common/mom/lcn.h). */
typedef struct {
    int n;                    /* unknowns */
    int lcn;                  /* 0: MoM (self term on the diagonal), 1: LCN (corrections) */
    double k, k_eta_4;        /* k, and k eta / 4 as the host computes it */
    const double *px, *py;    /* [n] match points: MoM's collocation points, LCN's nodes */
    const double *w;          /* [n] MoM's cell widths, LCN's node weights */
    const int *col_start;     /* LCN: [n + 1] */
    const int *col_row;       /* LCN: [nnz] */
    const double *col_re, *col_im;   /* LCN: [nnz] */
} mom_cuda_system;

/* Z's columns first .. first + count - 1 into z (column c at z + 2 c ld,
 * ld >= n), the far formula everywhere, MoM's self terms or LCN's
 * corrections over it; with norms (may be NULL), each column's max |z|
 * into norms[first + c] and sum |z| into norms[n + first + c]. */
int orr_cuda_mom_fill(const mom_cuda_system *s, int first, int count, double *z, size_t ld,
                      double *norms);

/* The plane waves at the match points: b[r][i], r < nrhs, from the
 * directions' (cos, sin) pairs dir[2 r], dir[2 r + 1]. */
int orr_cuda_mom_rhs(const mom_cuda_system *s, int nrhs, const double *dir, double *b);

/* count complex values from double to single and back. */
int orr_cuda_mom_to_single(const double *from, float *to, size_t count);
int orr_cuda_mom_to_double(const float *from, double *to, size_t count);

/* ipiv[first .. first + count - 1] += first (a panel's pivots made global,
 * 1-based as LAPACK's). */
int orr_cuda_mom_offset_pivots(int *ipiv, int first, int count);

/* LAPACK's laswp: for k = k1 .. k2 - 1 (0-based rows) in turn, rows k and
 * ipiv[k] - 1 exchanged in columns c0 .. c1 - 1 of a (leading dimension
 * ld); single: a holds floats. */
int orr_cuda_mom_swap_rows(void *a, int single, size_t ld, int c0, int c1, const int *ipiv, int k1,
                           int k2);

/* The unpivoted LU in place of the w x w block at a (double, leading
 * dimension ld, 1 <= w <= 32), whose first column is column `first` of the
 * matrix: a zero pivot in its column q sets *zero_pivot =
 * min(*zero_pivot, first + q). */
int orr_cuda_mom_diagonal_lu(double *a, size_t ld, int w, int first, int *zero_pivot);

/* Per column j < n of an LU's U in a: top[j] = max_{i <= j} |a[i][j]|,
 * diag[j] = |a[j][j]|. */
int orr_cuda_mom_u_norms(const double *a, size_t ld, int n, double *top, double *diag);

/* unit = 1: buf[j] = a[j][j] and a[j][j] = 1, j < n; unit = 0: a[j][j] =
 * buf[j] (the diagonal set aside and put back). */
int orr_cuda_mom_diagonal(double *a, size_t ld, int n, double *buf, int unit);

/* out[c] = sum_i |v[c][i]|, i < n, for each of cols columns (leading
 * dimension n). */
int orr_cuda_mom_column_sums(const double *v, int n, int cols, double *out);

/* y[e] += x[e], count complex values. */
int orr_cuda_mom_add(const double *x, double *y, size_t count);

#ifdef __cplusplus
}
#endif

#endif
