#!/bin/bash
# Thread scaling of Orrery's CPU separation app (issue 29), beside the
# ceiling the machine itself sets. For each grid, on one path (AVX-512
# where the CPU has it, else the app's own choice):
#   1 thread   the grid alone on one thread (T1, wall seconds);
#   N threads  the grid on N threads (TN, the minimum and median of
#              BENCH_REPEATS runs); scaling = T1 / TN, as a multiple of N;
#   N at once  N independent one-thread runs of the grid started together:
#              nothing shared but the machine, so what N busy cores cost
#              each one (clock, shared caches, memory, a VM's neighbours),
#              whatever a program does with threads; ceiling = T1 / their
#              mean wall, the multiple of N the machine gives perfectly
#              independent work ("max" is the slowest of them).
# Grids: x16 (small11 refined 4 2 2, 22.9 M cells) and slice12, a 1/16
# slice of the production stripe 12 in nu (40 of its 640 rows, 89.6 M
# cells): its chunks are the full stripe's (1400 r steps, 16 mu columns),
# so one thread takes a sixteenth of the full stripe's time, which one
# thread would take too long to measure. BENCH_STRIPE12_FULL=1 adds the
# full stripe on N threads, scaled against 16 x the slice's T1. Every
# run's search likelihood must equal the 1-thread run's to the last digit
# (the sums do not depend on the thread count); the script exits 1 if not.
#
# Usage: bench/separation/threads.sh [N]   (N: default the CPUs here)
# Environment: ORR_APP (default app_cpu/orrery_cpu), ORR_DATA (default
# tests/data/milkyway), BENCH_PATH (a --cpu-path), BENCH_REPEATS (N-thread
# runs, default 3), BENCH_GRIDS (default "x16 slice12"),
# BENCH_STRIPE12_FULL=1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
n=${1:-$(nproc)}
app=$(readlink -f "${ORR_APP:-$here/../../app_cpu/orrery_cpu}")
[ -x "$app" ] || { echo "$0: no Orrery app at $app (set ORR_APP)" >&2; exit 66; }
data=$(readlink -f "${ORR_DATA:-$here/../../tests/data/milkyway}")
repeats=${BENCH_REPEATS:-3}
grids=${BENCH_GRIDS:-x16 slice12}
[ "${BENCH_STRIPE12_FULL:-0}" = 1 ] && grids="$grids stripe12"
path=${BENCH_PATH:-}
if [ -z "$path" ] && grep -q avx512f /proc/cpuinfo; then path=avx512; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-threads-XXXXXX")
trap 'rm -rf "$work"' EXIT
search="-np 20 -p $sep_search"
zcat "$data/params_head/astronomy_parameters-11-small.txt.gz" | sh "$here/../../tools/refine-grid.sh" 4 2 2 >"$work/x16.txt"
zcat "$data/stars/stars-11.txt.gz" >"$work/x16.stars"
zcat "$data/params_head/astronomy_parameters-12.txt.gz" >"$work/stripe12.txt"
zcat "$data/stars/stars-12.txt.gz" >"$work/stripe12.stars"
sed 's/^nu\[min,max,steps\]:.*/nu[min,max,steps]: -1.25, -1.09375, 40/' "$work/stripe12.txt" >"$work/slice12.txt"
cp "$work/stripe12.stars" "$work/slice12.stars"
grep -q '^nu\[min,max,steps\]: -1.25, -1.09375, 40$' "$work/slice12.txt" ||
    { echo "$0: stripe 12's nu line is not the expected one; cannot cut the slice" >&2; exit 1; }

bad=0
# One run of grid $1 on $2 threads, in a folder of its own: prints "wall
# likelihood" (likelihood "failed" if the app failed).
run() {
    local dir args="" t w
    dir=$(mktemp -d "$work/run-XXXXXX")
    [ "$1" = x16 ] && args=$search
    local TIMEFORMAT='%3R'
    # shellcheck disable=SC2086
    if w=$( { time (cd "$dir" && "$app" -i -c --no-progress ${path:+--cpu-path=$path} --nthreads "$2" \
        -a "$work/$1.txt" -s "$work/$1.stars" $args >out.txt 2>&1); } 2>&1); then
        t=$(sep_likelihood "$dir/out.txt")
    else
        t=failed
    fi
    echo "$w ${t:-none}"
    rm -rf "$dir"
}
check() { # likelihood, reference
    [ "$1" = "$2" ] || { echo "# MISMATCH: likelihood $1, one thread gave $2"; bad=1; }
}

sep_machine
echo "# orrery: $app, path ${path:-chosen by the app}, $n threads; wall seconds"
echo "# load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine skew the times)"
printf '%-9s %9s %9s %9s %9s %9s %9s %9s\n' grid "T1" "TN min" "TN med" scaling "at once" "max" ceiling
slice_t1=
for g in $grids; do
    if [ "$g" = stripe12 ]; then
        [ -n "$slice_t1" ] || { echo "# stripe12: needs slice12's one-thread time (BENCH_GRIDS)"; continue; }
        t1=$(awk -v s="$slice_t1" 'BEGIN { printf "%.3f", 16 * s }')
        ref=
    else
        read -r t1 ref < <(run "$g" 1)
        [ "$ref" != failed ] || { echo "# $g: the one-thread run failed"; bad=1; continue; }
        [ "$g" = slice12 ] && slice_t1=$t1
    fi
    : >"$work/tn"
    runs=$repeats
    [ "$g" != stripe12 ] || runs=1
    for ((i = 0; i < runs; i++)); do
        read -r w l < <(run "$g" "$n")
        [ -n "$ref" ] || ref=$l
        check "$l" "$ref"
        echo "$w" >>"$work/tn"
    done
    mean=- max=- ceiling=-
    if [ "$g" != stripe12 ]; then
        for ((i = 0; i < n; i++)); do run "$g" 1 >"$work/once.$i" & done
        wait
        if grep -q -v " $ref\$" "$work"/once.*; then
            echo "# MISMATCH: a run of $n at once gave another likelihood than one thread's $ref"
            bad=1
        fi
        mean=$(cut -d' ' -f1 "$work"/once.* | sep_stat mean)
        max=$(cut -d' ' -f1 "$work"/once.* | sep_stat max)
        ceiling=$(awk -v a="$t1" -v b="$mean" -v n="$n" 'BEGIN { printf "%.2f*N", a / b }')
        rm -f "$work"/once.*
    fi
    tmin=$(sep_stat min <"$work/tn")
    tmed=$(sep_stat median <"$work/tn")
    awk -v g="$g" -v t1="$t1" -v a="$tmin" -v m="$tmed" -v n="$n" -v mean="$mean" -v max="$max" -v c="$ceiling" 'BEGIN {
        printf "%-9s %9.3f %9.3f %9.3f %7.2f*N %9s %9s %9s\n", g, t1, a, m, t1 / a / n, mean, max, c }'
done
echo "# scaling = T1 / TN min / N; ceiling = T1 / (mean wall of N one-thread runs at once), the same multiple for independent work"
[ "$grids" = "${grids/stripe12/}" ] || echo "# stripe12: T1 is 16 x slice12's (one thread on the full stripe takes too long); TN one run"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$bad" = 0 ] || { echo "# FAILED: a run failed or its likelihood differs from the one-thread run's"; exit 1; }
