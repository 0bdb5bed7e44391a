/* The CPU kernel paths (instruction sets) and the one CPUID check of which
 * this CPU runs. The CPU backend chooses a path once (--cpu-path, else the
 * best) and every CPU kernel below it takes that choice: the kinds' SIMD
 * code and the spectral kernels' FFT lanes alike. */
#ifndef ORRERY_CPU_ISA_H
#define ORRERY_CPU_ISA_H

/* ORR_CPU_BEST (0, what a zeroed description holds): not chosen, the best
 * this CPU runs. SCALAR: the portable C the others are tested against. */
typedef enum { ORR_CPU_BEST, ORR_CPU_SCALAR, ORR_CPU_SSE2, ORR_CPU_AVX2, ORR_CPU_AVX512 } orr_cpu_isa;

/* Whether this CPU runs isa's kernels, as the build compiles them (AVX2:
 * with FMA; AVX-512: F and DQ). BEST and SCALAR: always; a path this
 * build has none of (not x86-64): never. */
int orr_cpu_runs(orr_cpu_isa isa);
/* The widest path this CPU runs (never ORR_CPU_BEST). */
orr_cpu_isa orr_cpu_best(void);

#endif
