#!/bin/bash
# The diffraction benchmark (docs/diffraction.md; results in
# bench/diffraction/RESULTS.md): every app side by side in one run on the
# same work units, 2D contact holes with M = 2MX + 1 = 15, 31 and 63 orders
# a direction, 16 slices, 128 spectrum points solved together. Per app: the
# operator's time per point and product and its bandwidth (`diffraction
# --bench`), the solve's time per point; then the CPU app's threads
# scaling on the M = 31 unit. Apps that are not built or have no device
# are skipped.
# Usage: bench/diffraction/bench.sh [BUILD_DIR] [PRODUCTS]   (default . and 20)
set -u
build=${1:-.}
k=${2:-20}
threads=${THREADS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-dif-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

unit() { # unit M: the work unit with MX = MY = (M - 1) / 2
    cat <<X
orrery-diffraction 1
period 400 400
orders $((($1 - 1) / 2)) $((($1 - 1) / 2))
superstrate air
substrate si
material air eps 1 0
material resist nk 1.6 0.02
material si nk 400 5.57 0.387
material si nk 700 3.78 0.008
layer thickness=150 background=resist slices=16
shape ellipse material=air x=0 y=0 rx=90 ry=90
wavelength_range 410 690 32
theta 0 15 30 45
X
}

value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

run() { # run LABEL APP ARGS...: one line of the table
    local label=$1 app=$2
    shift 2
    [ -x "$app" ] || return 0
    "$app" diffraction "$@" --bench "$k" -o "$work/none" >"$work/out" 2>"$work/err" ||
        { echo "  $label: skipped ($(tail -1 "$work/err"))"; return 0; }
    printf '  %-22s %10.3e %10.3e %8.1f %8.1f %10.3e %6.1f\n' "$label" \
        "$(value "$work/out" matvec_seconds_per_point)" "$(value "$work/out" matvec_seconds)" \
        "$(value "$work/out" matvec_GBps_passes)" "$(value "$work/out" matvec_GBps_least)" \
        "$(value "$work/out" solve_seconds_per_point)" "$(value "$work/out" iterations_per_point)"
}

echo "diffraction benchmark, $(date -u +%Y-%m-%d), $(nproc) CPU threads; GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo none)"
for m in 15 31 63; do
    unit "$m" >"$work/m$m.txt"
    echo "M = $m ($m x $m orders, 16 slices, 128 points):"
    echo "  app                    s/product/pt  s/product  GB/s(passes) GB/s(least) s/point  its/pt"
    run "CPU, $threads threads" "$build/app_cpu/orrery_cpu" -w "$work/m$m.txt" --nthreads "$threads"
    run "CUDA" "$build/app_cuda/orrery_cuda" -w "$work/m$m.txt"
    run "OpenCL" "$build/app_opencl/orrery_opencl" -w "$work/m$m.txt"
done
# Thread scaling: the best of 3 solves for each thread count (the hosts
# are shared and noisy), and the host's ceiling for any threading: as many
# one-thread processes at once as there are threads, each timed alone;
# their summed speed over one process's is what the host's cores give
# together (frequency, caches and memory shared), whatever the code.
solve_time() { # solve_time THREADS [TAG]: seconds a point, M = 31
    "$build/app_cpu/orrery_cpu" diffraction -w "$work/m31.txt" --nthreads "$1" --bench 1 \
        -o "$work/none" 2>/dev/null | awk '$1 == "solve_seconds_per_point" { print $2 }'
}
best_of_3() { for r in 1 2 3; do solve_time "$1"; done | sort -g | head -1; }
[ -x "$build/app_cpu/orrery_cpu" ] || exit 0
echo "CPU threads scaling, M = 31 (best of 3 solves of 128 points; speed-up; efficiency):"
base=
for t in 1 2 4 8 16 32; do
    [ "$t" -le "$threads" ] || break
    s=$(best_of_3 "$t")
    [ -n "$s" ] || break
    base=${base:-$s}
    awk -v t="$t" -v s="$s" -v b="$base" \
        'BEGIN { printf "  %2d threads: %.3e s/point, %.2fx, %.0f%%\n", t, s, b / s, 100 * b / s / t }'
done
for i in $(seq "$threads"); do solve_time 1 >"$work/alone$i" & done
wait
cat "$work"/alone* | awk -v b="$base" -v n="$threads" '{ speed += b / $1 } END {
    printf "  host ceiling: %d one-thread processes at once give %.2fx (%.0f%%)\n", n, speed, 100 * speed / n }'
