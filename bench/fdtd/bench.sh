#!/bin/bash
# The FDTD benchmark (bench/fdtd/RESULTS.md): cell updates per second and
# the bandwidth they imply (18 values a cell update) for every app this
# build has, side by side on the same work units (a PEC cube of N^3 cells,
# N = 128, 256, 384, double and single), against the host's copy bandwidth
# (bench/cpu_copy) and the GPU's (bench/cuda_peak, where built); plus the
# vectorised one-thread CPU path against the plain scalar reference.
#
#   bench/fdtd/bench.sh BUILD_DIR [SIZES]   (THREADS: the CPU app's threads)
set -u
build=$(cd "${1:-.}" && pwd)
sizes=${2:-128 256 384}
threads=${THREADS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-fdtd-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

unit() { # unit N PRECISION: a PEC cube, a pulse at the centre
    cat <<X
orrery-fdtd 1
grid $1 $1 $1
cell 1e-3 1e-3 1e-3
steps 1000
boundary pec
source waveform=gauss width=10
precision $2
X
}

value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

declare -A rate
run() { # run KEY LABEL K APP ARGS...: one line of the table
    local key=$1 label=$2 k=$3 app=$4
    shift 4
    [ -x "$app" ] || return 0
    (cd "$work" && "$app" fdtd -w wu.txt --bench "$k" "$@" >out 2>err) ||
        { echo "  $label: skipped ($(tail -1 "$work/err"))"; return 0; }
    rate[$key]=$(value "$work/out" cell_updates_per_second)
    printf '  %-26s %12.4g %10.1f\n' "$label" "${rate[$key]}" "$(value "$work/out" GBps)"
}

ratio() { # ratio A B: A / B where both were measured
    [ -n "${rate[$1]:-}" ] && [ -n "${rate[$2]:-}" ] && awk -v a="${rate[$1]}" -v b="${rate[$2]}" 'BEGIN { printf "%.2f", a / b }'
}

echo "fdtd benchmark, $(date -u +%Y-%m-%d), $(nproc) CPU threads; GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo none)"
[ -x "$build/bench/cpu_copy" ] && "$build/bench/cpu_copy" "$threads"
[ -x "$build/bench/cuda_peak" ] && "$build/bench/cuda_peak" 2>&1 | grep -i 'copy'
for n in $sizes; do
    for p in double single; do
        unit "$n" "$p" >"$work/wu.txt"
        rate=()
        echo "N = $n, $p:                  cell updates/s       GB/s"
        # steps timed: enough for a second or so at N = 384 (a GPU's 50
        # steps at N = 128 took 7 ms, and varied 4x from run to run)
        run cpu "CPU, $threads threads" 10 "$build/app_cpu/orrery_cpu" --nthreads "$threads"
        run one "CPU, 1 thread (best path)" 5 "$build/app_cpu/orrery_cpu" --nthreads 1
        run plain "CPU, 1 thread, plain" 5 "$build/app_cpu/orrery_cpu" --nthreads 1 --cpu-path scalar
        run cuda "CUDA" 500 "$build/app_cuda/orrery_cuda"
        run opencl "OpenCL" 500 "$build/app_opencl/orrery_opencl"
        echo "  vectorised / plain (1 thread): $(ratio one plain)   OpenCL / CUDA: $(ratio opencl cuda)"
    done
done
