/* The one CPUID check (cpu_isa.h). */
#include "cpu_isa.h"

#include "config.h"

int orr_cpu_runs(orr_cpu_isa isa)
{
    switch (isa) {
    case ORR_CPU_BEST:
    case ORR_CPU_SCALAR: return 1;
#if ORR_X86_64
    case ORR_CPU_SSE2: return 1;   /* every x86-64 */
    case ORR_CPU_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case ORR_CPU_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
    default: return 0;
    }
}

orr_cpu_isa orr_cpu_best(void)
{
    for (orr_cpu_isa isa = ORR_CPU_AVX512; isa > ORR_CPU_SCALAR; isa--)
        if (orr_cpu_runs(isa))
            return isa;
    return ORR_CPU_SCALAR;
}
