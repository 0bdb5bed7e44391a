#!/bin/bash
# Nsight Compute over a few rows of bench/spectral/cuda_fft_bench: the first launch
# of the kernels whose function name matches REGEX, with the sections that
# explain a memory-bound FFT (throughput, occupancy, stalls, shared-memory
# bank conflicts). The rows are picked with the bench's filters.
# Usage: ORR_BENCH_PREC=f32 ORR_BENCH_N=1024 ORR_BENCH_KINDS=r2c \
#        bench/spectral/ncu_rows.sh BENCH REGEX [COUNT]
# (REGEX '^fft_' for ours; '^[^f]' for cuFFT's, whose names do not start
# with fft_.) COUNT: launches to profile (default 1).
set -eu
bench=${1:?usage: $0 BENCH REGEX [COUNT]}
regex=${2:?usage: $0 BENCH REGEX [COUNT]}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
exec "$ncu" --kernel-name-base function -k "regex:$regex" --launch-count "${3:-1}" \
    --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats "$bench"
