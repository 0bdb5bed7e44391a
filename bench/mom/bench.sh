#!/bin/bash
# The MoM benchmark (bench/mom/RESULTS.md), one run, side by side:
# - the anchors: OpenBLAS's zgetrf on the CPU (1 thread and all) next to the
#   CPU solvers' own factorisations (bench/mom/lu_bench), and cuSOLVER's
#   zgetrf/cgetrf with cuBLAS's zgemm/cgemm (bench/mom/cusolver_lu_bench,
#   where built);
# - every app this build has on a circle of ka = 4.5 cut into N cells, each
#   solver: the results' per-phase seconds (fill, factor, solve) and the
#   factorisation's GFLOP/s at (8/3) N^3.
#
#   bench/mom/bench.sh BUILD_DIR [SIZES]
# Environment: THREADS (the CPU's threads, default all), ONE_THREAD_SIZES
# (the one-thread CPU anchors' sizes, default SIZES: N = 10 000 takes
# minutes on one core).
set -u
build=$(cd "${1:-.}" && pwd)
sizes=${2:-2000 5000 10000}
threads=${THREADS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-mom-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
if [ -x "$build/bench/mom/lu_bench" ]; then
    echo "== CPU anchors (bench/mom/lu_bench), 1 thread and $threads"
    "$build/bench/mom/lu_bench" 1 ${ONE_THREAD_SIZES:-$sizes}
    "$build/bench/mom/lu_bench" "$threads" $sizes
fi
if [ -x "$build/bench/mom/cusolver_lu_bench" ]; then
    echo "== GPU anchors (bench/mom/cusolver_lu_bench)"
    "$build/bench/mom/cusolver_lu_bench" $sizes
fi

echo "== the apps: seconds fill / factor / solve (factor GFLOP/s)"
for n in $sizes; do
    for solver in reference mixed faithful; do
        printf 'orrery-mom 1\ncircle radius=0.716197243913529\ncells %s\nincidence 0 45 90\necho from=0 to=180 step=10\nsolver %s\n' \
            "$n" "$solver" >"$work/wu.txt"
        for app in app_cpu/orrery_cpu app_cuda/orrery_cuda app_opencl/orrery_opencl; do
            [ -x "$build/$app" ] || continue
            extra=()
            [ "$app" = app_cpu/orrery_cpu ] && extra=(--nthreads "$threads")
            (cd "$work" && "$build/$app" mom -w wu.txt -o out.txt -i -c "${extra[@]}" >/dev/null 2>err.txt) ||
                { echo "  $n $solver $(basename "$app"): failed: $(tail -1 "$work/err.txt")"; continue; }
            awk -v n="$n" -v s="$solver" -v a="$(basename "$app")" '
                $1 == "seconds" { f = $3; lu = $5; sv = $7 }
                $1 == "solve" { be = $3 }
                END { printf "  %6d %-9s %-15s %9.4f %9.4f %9.4f  (%8.1f GFLOP/s)  backward %.3g\n",
                      n, s, a, f, lu, sv, 8 / 3 * n * n * n / lu / 1e9, be }' "$work/out.txt"
        done
    done
done
