#!/bin/bash
# Separation speed on the CPU: every kernel path of orrery_cpu on small11
# (160x64x140 cells) and a medium grid (640x256x560, the same stripe made 64
# times finer), on 1 thread and on N, side by side in one run. Reports
# seconds, cells/s, model-GFLOP/s (the flop model of docs/separation.md section 10) and the
# fraction of the measured FP64 peak (bench/fma_peak, per core x threads),
# and each path's speed-up over the scalar reference.
#
# Usage: bench/separation/separation_bench.sh [N threads, default: all cores]
# Environment: ORR_APP (default app_cpu/orrery_cpu), ORR_DATA (default
# tests/data/milkyway), BENCH_GRIDS ("small11 medium"), BENCH_PATHS (the
# app's paths), BENCH_SLOW=1 to time the scalar and sse2 paths on the
# medium grid too (several minutes each; skipped by default).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
app=$(readlink -f "${ORR_APP:-$here/../../app_cpu/orrery_cpu}")
data=$(readlink -f "${ORR_DATA:-$here/../../tests/data/milkyway}")
peak_prog=${ORR_FMA_PEAK:-$here/../fma_peak}
threads=${1:-$(nproc)}
grids=${BENCH_GRIDS:-small11 medium}
paths=${BENCH_PATHS:-scalar sse2 avx2 avx512}

work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

search=$sep_search
stars="$data/stars/stars-11.txt.gz"
nstars=$(zcat "$stars" | head -1 | tr -d ' \r')
zcat "$data/params_head/astronomy_parameters-11-small.txt.gz" >"$work/small11.txt"
sh "$here/../../tools/refine-grid.sh" 4 4 4 <"$work/small11.txt" >"$work/medium.txt"

peak=$("$peak_prog" | awk '{print $1}')
sep_machine
echo "# app: $app; threads: 1 and $threads; measured peak $peak GFLOP/s per core ($("$peak_prog" | cut -d'(' -f2 | cut -d, -f1))"
printf '%-8s %-7s %7s %9s %11s %9s %8s %9s %9s\n' grid path threads seconds "cells/s" "GFLOP/s" \
    "of peak" "x scalar" "x 1 thr"

# The model of docs/separation.md: integral f (4 + 2 ns + convolve (56 + 58 ns)) 1e6 with
# f = (r/100)(mu/100)(nu/100), plus stars (convolve (100 + 58 ns) + 251 + 12 ns + 54).
model_flops() { # r mu nu
    awk -v r="$1" -v mu="$2" -v nu="$3" -v n="$nstars" 'BEGIN {
        ns = 3; c = 120; f = (r / 100) * (mu / 100) * (nu / 100)
        printf "%.6e", f * (4 + 2 * ns + c * (56 + 58 * ns)) * 1e6 + n * (c * (100 + 58 * ns) + 251 + 12 * ns + 54) }'
}

declare -A scalar_time one_thread
for grid in $grids; do
    case $grid in
    small11) dims="140 160 64" ;;
    medium) dims="560 640 256" ;;
    esac
    read -r r mu nu <<<"$dims"
    cells=$((r * mu * nu))
    flops=$(model_flops "$r" "$mu" "$nu")
    for path in $paths; do
        for t in 1 "$threads"; do
            case "$grid.$path.${BENCH_SLOW:-0}" in medium.scalar.0 | medium.sse2.0) continue ;; esac
            [ "$t" = 1 ] || [ "$threads" != 1 ] || continue
            # shellcheck disable=SC2086
            out=$(cd "$work" && "$app" -i -c --no-progress --cpu-path="$path" --nthreads "$t" \
                  -a "$work/$grid.txt" -s "$stars" -np 20 -p $search 2>&1) || {
                echo "$grid $path: $(echo "$out" | tail -1)"; continue; }
            secs=$(echo "$out" | sed -n 's/.*finished in \([0-9.]*\) s.*/\1/p')
            [ "$path" = scalar ] && scalar_time[$grid.$t]=$secs
            [ "$t" = 1 ] && one_thread[$grid.$path]=$secs
            ref=${scalar_time[$grid.$t]:-}
            awk -v g="$grid" -v p="$path" -v t="$t" -v s="$secs" -v c="$cells" -v f="$flops" \
                -v pk="$peak" -v ref="$ref" -v one="${one_thread[$grid.$path]}" 'BEGIN {
                gf = f / s / 1e9
                printf "%-8s %-7s %7d %9.3f %11.3e %9.1f %7.1f%% %9s %9.2f\n", g, p, t, s, c / s, gf,
                       100 * gf / (pk * t), ref == "" ? "-" : sprintf("%.2f", ref / s), one / s }'
        done
    done
done
