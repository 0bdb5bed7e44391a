/* What C, CUDA and OpenCL C all compile: the qualifiers that let one
 * inline function serve the host and the kernels, and compensated
 * summation. The OpenCL app embeds this file, with the separation model
 * and formulas, into its kernel source; nothing here may use the C library
 * beyond <math.h>'s functions, or pointers in structs. */
#ifndef ORRERY_PORTABLE_H
#define ORRERY_PORTABLE_H

/* Marks the small inline functions the CUDA kernels share with the C code. */
#ifdef __CUDACC__
#define ORR_HD __host__ __device__
#else
#define ORR_HD
#endif

/* OpenCL C needs the address space of what a pointer points to: the model
 * constants live in constant memory, tables in global memory. Elsewhere
 * these are nothing. */
#ifdef __OPENCL_C_VERSION__
#define ORR_CONSTANT __constant
#define ORR_GLOBAL __global
#else
#define ORR_CONSTANT
#define ORR_GLOBAL
#endif

/* "#pragma unroll N" for the CUDA and OpenCL compilers, nothing for C
 * compilers (they would warn about an unknown pragma). */
#define ORR_PRAGMA(x) _Pragma(#x)
#if defined(__CUDACC__) || defined(__OPENCL_C_VERSION__)
#define ORR_UNROLL(n) ORR_PRAGMA(unroll n)
#else
#define ORR_UNROLL(n)
#endif

/* Kahan compensated sum. The update and the merge follow the separation
 * spec (section 5) exactly: results, checkpoints and every backend depend on
 * this one definition. */
typedef struct {
    double sum;
    double corr;
} orr_kahan;

static inline ORR_HD void orr_kahan_add(orr_kahan *k, double item)
{
    double y = item - k->corr;
    double t = k->sum + y;
    k->corr = (t - k->sum) - y;
    k->sum = t;
}

/* Merge partial sum a into b (b is the later part of the sequence). */
static inline ORR_HD orr_kahan orr_kahan_merge(orr_kahan a, orr_kahan b)
{
    orr_kahan r;
    double c = a.sum + (a.corr + b.corr);
    double s = b.sum + c;
    r.corr = c - (s - b.sum);
    r.sum = s;
    return r;
}

#endif
