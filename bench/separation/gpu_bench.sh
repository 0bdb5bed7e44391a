#!/bin/bash
# Separation speed on a GPU: small11 (160x64x140), a medium grid (the same
# stripe 64 times finer) and the production stripes 12 (1600x640x1400, 3
# streams) and 79 (1 stream), each in the responsive mode (launches of
# ~1/60 s) and the non-responsive one (-r), side by side in one run.
# Reports the run's seconds, the integral's GPU seconds, its model-GFLOP/s
# (docs/separation.md section 10: cells (4 + 2 ns + convolve (56 + 58 ns))) and the
# fraction of the FP64 FMA peak measured on the same device just before
# (bench/cuda_peak), and the host CPU seconds per GPU second.
#
# Usage: bench/separation/gpu_bench.sh APP [APP...]   (e.g. app_cuda/orrery_cuda)
# Environment: ORR_DATA (default tests/data/milkyway), ORR_GPU_PEAK (a
# program printing "<GFLOP/s> GFLOP/s ..." first; default bench/cuda_peak),
# BENCH_CASES ("small11 medium stripe12 stripe79"), BENCH_MODES
# ("responsive non-responsive"), ORR_APP_ARGS (extra arguments),
# BENCH_WARMUP (1: run each app and case once untimed first, so the timed
# runs find the OpenCL kernels in the driver's cache, as every run after a
# volunteer's first does; the first run's build time is in the app's log).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=$(readlink -f "${ORR_DATA:-$here/../../tests/data/milkyway}")
peak_prog=${ORR_GPU_PEAK:-$here/../cuda_peak}
cases=${BENCH_CASES:-small11 medium stripe12 stripe79}
modes=${BENCH_MODES:-responsive non-responsive}
[ $# -ge 1 ] || { echo "usage: $0 APP [APP...]" >&2; exit 64; }

work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-gpubench-XXXXXX")
trap 'rm -rf "$work"' EXIT
zcat "$data/params_head/astronomy_parameters-11-small.txt.gz" >"$work/small11.txt"
sh "$here/../../tools/refine-grid.sh" 4 4 4 <"$work/small11.txt" >"$work/medium.txt"
zcat "$data/params_head/astronomy_parameters-12.txt.gz" >"$work/stripe12.txt"
zcat "$data/params_head/astronomy_parameters-79.txt.gz" >"$work/stripe79.txt"

peak_line=$("$peak_prog" 2>&1 | head -1)
peak=$(echo "$peak_line" | awk '{print $1}')
echo "# $(date -u +%Y-%m-%d), measured: $peak_line"
printf '%-22s %-9s %-14s %8s %8s %9s %8s %10s\n' app case mode "run s" "GPU s" "GFLOP/s" \
    "of peak" "CPU s/GPU s"

for app in "$@"; do
    app=$(readlink -f "$app")
    for c in $cases; do
        case $c in
        small11 | medium) stars="$data/stars/stars-11.txt.gz" ;;
        stripe12) stars="$data/stars/stars-12.txt.gz" ;;
        stripe79) stars="$data/stars/stars-79.txt.gz" ;;
        esac
        convolve=$(sed -n 's/^convolve: *\([0-9]*\).*/\1/p' "$work/$c.txt")
        if [ "${BENCH_WARMUP:-1}" = 1 ]; then
            # shellcheck disable=SC2086
            (cd "$work" && "$app" -i -c --no-progress -a "$work/$c.txt" -s "$stars" \
                ${ORR_APP_ARGS:-} >/dev/null 2>&1) || true
        fi
        for m in $modes; do
            flag=
            [ "$m" = non-responsive ] && flag=-r
            # shellcheck disable=SC2086
            out=$(cd "$work" && "$app" -i -c --no-progress $flag -a "$work/$c.txt" -s "$stars" \
                  ${ORR_APP_ARGS:-} 2>&1) || { echo "$app $c $m: $(echo "$out" | tail -1)"; continue; }
            secs=$(echo "$out" | sed -n 's/.*finished in \([0-9.]*\) s.*/\1/p')
            read -r ns cells <<<"$(echo "$out" |
                sed -n 's/.* \([0-9]*\) streams\{0,1\}, .* \([0-9]*\) cells,.*/\1 \2/p')"
            read -r gpu cpu <<<"$(echo "$out" |
                sed -n 's/.*integrals: .*, \([0-9.]*\) s on the device, host CPU \([0-9.]*\) s.*/\1 \2/p')"
            awk -v a="$(basename "$app")" -v c="$c" -v m="$m" -v s="$secs" -v g="$gpu" \
                -v cpu="$cpu" -v ns="$ns" -v cells="$cells" -v cv="$convolve" -v pk="$peak" 'BEGIN {
                f = cells * (4 + 2 * ns + cv * (56 + 58 * ns)) / g / 1e9
                printf "%-22s %-9s %-14s %8.3f %8.3f %9.0f %7.1f%% %10.4f\n", a, c, m, s, g, f,
                       100 * f / pk, cpu / g }'
        done
    done
done
