/* The vector layer the SIMD kernels are written against, FFTW-style: the
 * kernel source is compiled once per ISA with that ISA's flags and one of
 * ORR_ISA_AVX512 / ORR_ISA_AVX2 / ORR_ISA_SSE2 defined. vd holds VW doubles
 * (GCC vector extensions, so + - * / and comparisons are native and the
 * compiler fuses multiply-adds); this header adds only what the extensions
 * lack: square root, max/min, blends, loads and a horizontal sum, the
 * intrinsics named once per ISA (VD_OP, VD_NATIVE). */
#ifndef ORRERY_SIMD_VEC_H
#define ORRERY_SIMD_VEC_H

#include <stdint.h>
#include <string.h>

#if defined(ORR_ISA_AVX512)
#include <immintrin.h>
#define VW 8
#define ISA_SUFFIX avx512
#define VD_NATIVE __m512d
#define VD_OP(op) _mm512_##op##_pd
#elif defined(ORR_ISA_AVX2)
#include <immintrin.h>
#define VW 4
#define ISA_SUFFIX avx2
#define VD_NATIVE __m256d
#define VD_OP(op) _mm256_##op##_pd
#elif defined(ORR_ISA_SSE2)
#include <emmintrin.h>
#define VW 2
#define ISA_SUFFIX sse2
#define VD_NATIVE __m128d
#define VD_OP(op) _mm_##op##_pd
#else
#error "define the ISA this kernel is compiled for"
#endif

typedef double vd __attribute__((vector_size(VW * sizeof(double))));
typedef int64_t vi __attribute__((vector_size(VW * sizeof(double))));
typedef uint64_t vu __attribute__((vector_size(VW * sizeof(double))));

#define VEC_INLINE static inline __attribute__((always_inline))

VEC_INLINE vd vd_set1(double x) { return (vd){0} + x; }
VEC_INLINE vi vi_set1(int64_t x) { return (vi){0} + x; }

VEC_INLINE vd vd_load(const double *p)
{
    vd v;
    memcpy(&v, p, sizeof v);
    return v;
}

VEC_INLINE vd vd_sqrt(vd x) { return (vd)VD_OP(sqrt)((VD_NATIVE)x); }

/* mask lanes all ones: a, else b */
VEC_INLINE vd vd_blend(vi mask, vd a, vd b) { return (vd)((mask & (vi)a) | (~mask & (vi)b)); }
VEC_INLINE vd vd_abs(vd x) { return (vd)((vi)x & vi_set1(INT64_MAX)); }
/* a > b ? a : b and a < b ? a : b, NaN and signed zeros included: exactly
 * what the max/min instructions do (one instruction, not a blend). */
VEC_INLINE vd vd_max(vd a, vd b) { return (vd)VD_OP(max)((VD_NATIVE)a, (VD_NATIVE)b); }
VEC_INLINE vd vd_min(vd a, vd b) { return (vd)VD_OP(min)((VD_NATIVE)a, (VD_NATIVE)b); }

/* Lanes summed in a fixed order (pairwise halves), so a path's result
 * does not depend on anything but its inputs. */
VEC_INLINE double vd_hsum(vd x)
{
    double t[VW];
    memcpy(t, &x, sizeof t);
    for (int w = VW / 2; w >= 1; w /= 2)
        for (int i = 0; i < w; i++)
            t[i] += t[i + w];
    return t[0];
}

#endif
