#!/bin/bash
# Orrery's CPU separation app against MilkyWay@Home's own separation 1.02
# (issue 29), side by side on one machine in one run. On small11 and on a
# grid 16 times finer (BENCH_X16, default tools/refine-grid.sh 4 2 2:
# 560x320x128 = 22.9 M cells), one thread each, it times upstream's default
# path (the one it picks itself; its log names it), upstream --force-sse2 and
# every Orrery CPU path this CPU runs. The runs are interleaved (round robin,
# BENCH_REPEATS rounds) so that a slow spell of the machine hits every
# program alike. Timed: CPU seconds (user + sys) of the whole process, read
# from bash's `time` (the child's rusage); the minimum over the rounds gives
# the ratios, the median is printed beside it. "x upstream" is upstream's
# default time / this program's time (above 1: faster than upstream),
# "x up-sse2" the same against upstream --force-sse2 (like for like for
# Orrery's sse2 path). Both programs read the same plain-text files (upstream
# reads no gzip). Every run's search likelihood is printed and compared with
# upstream's within 1e-12, the CPU tolerance of expected.json: a run that
# disagrees, fails or changes its result between rounds is marked and the
# script exits 1, so that a broken run cannot pass for a fast one.
#
# Thread scaling, and the ceiling the machine sets it, is threads.sh's.
#
# Usage: bench/separation/vs_upstream.sh [UPSTREAM]
#   UPSTREAM  the upstream milkyway_separation 1.02 binary, a CPU build
#             made outside this tree (never commit its source or binary):
#             the tag separation_1.02 of github.com/Milkyway-at-home/
#             milkywayathome_client, with its tools/ and separation/tests/
#             (git archive leaves them out; extract them too); then
#               cmake SRC -DSEPARATION=ON -DNBODY=OFF -DBOINC_APPLICATION=OFF
#                 -DBOINC_RELEASE=OFF -DSEPARATION_OPENCL=OFF -DDOUBLEPREC=ON
#                 -DCMAKE_BUILD_TYPE=Release -DCMAKE_POLICY_VERSION_MINIMUM=3.5
#               make milkyway_separation
#             With gcc 12 and a current cmake two textual fixes are needed,
#             neither touching the maths: drop the extra `CACHE INTERNAL
#             "..."` arguments of check_include_files in
#             cmake_modules/CheckSSE2.cmake, and replace the en-dash by '-'
#             in the unused mw_fract macro of
#             milkyway/include/milkyway_math_{double,float}.h. The binary
#             needs only libc and libm, so it runs on other machines too.
#             On small11 it gives the published -3.125097883803232, the
#             likelihood every run here is checked against.
# Environment: UPSTREAM (when no argument is given), ORR_APP (default
# app_cpu/orrery_cpu), ORR_DATA (default tests/data/milkyway),
# BENCH_REPEATS (rounds, default 3), BENCH_GRIDS ("small11 x16"), BENCH_X16
# (refine-grid factors R MU NU of the x16 grid, default "4 2 2"), BENCH_PATHS
# (Orrery paths, default "scalar sse2 avx2 avx512"; a path this CPU or build
# lacks is skipped with the app's message).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
upstream=${1:-${UPSTREAM:-}}
[ -n "$upstream" ] || { echo "usage: $0 UPSTREAM (or set UPSTREAM): the upstream milkyway_separation binary" >&2; exit 64; }
upstream=$(readlink -f "$upstream")
[ -x "$upstream" ] || { echo "$0: $upstream is not an executable" >&2; exit 66; }
app=$(readlink -f "${ORR_APP:-$here/../../app_cpu/orrery_cpu}")
[ -x "$app" ] || { echo "$0: no Orrery app at $app (set ORR_APP)" >&2; exit 66; }
data=$(readlink -f "${ORR_DATA:-$here/../../tests/data/milkyway}")
repeats=${BENCH_REPEATS:-3}
grids=${BENCH_GRIDS-small11 x16}
x16=${BENCH_X16:-4 2 2}
paths=${BENCH_PATHS:-scalar sse2 avx2 avx512}
tol=1e-12

work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-vs-upstream-XXXXXX")
trap 'rm -rf "$work"' EXIT

search=$sep_search
zcat "$data/params_head/astronomy_parameters-11-small.txt.gz" >"$work/small11.txt"
zcat "$data/stars/stars-11.txt.gz" >"$work/stars-11.txt"
# shellcheck disable=SC2086
sh "$here/../../tools/refine-grid.sh" $x16 <"$work/small11.txt" >"$work/x16.txt"
cells() { # the grid's r x mu x nu cell count
    awk -F'[:,]' '/^(r|mu|nu)\[min,max,steps\]:/ { n = (n ? n : 1) * $6 } END { printf "%d", n }' "$1"
}

# One run: the command line is "$@", run in a fresh folder; records wall,
# user+sys CPU seconds and the search likelihood, or the failure.
declare -A cpu wall like fail note
run_one() { # key, then the command line
    local key=$1 dir t
    shift
    dir=$(mktemp -d "$work/run-XXXXXX")
    local TIMEFORMAT='%3R %3U %3S'
    if { time (cd "$dir" && "$@" >out.txt 2>&1); } 2>"$dir/time.txt"; then
        read -r w u s <"$dir/time.txt"
        cpu[$key]="${cpu[$key]:-} $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')"
        wall[$key]="${wall[$key]:-} $w"
        t=$(sep_likelihood "$dir/out.txt")
        [ -n "$t" ] || t=none
        # the likelihood must be the same in every round
        if [ -n "${like[$key]:-}" ] && [ "${like[$key]}" != "$t" ]; then t="varies(${like[$key]},$t)"; fi
        like[$key]=$t
        [ -n "${note[$key]:-}" ] || note[$key]=$(sed -n 's/^Using \(.*\) path$/\1/p' "$dir/out.txt" | head -1)
    else
        fail[$key]=$(grep -v '^ *$' "$dir/out.txt" | tail -1)
    fi
    rm -rf "$dir"
}

# The programs of each grid, in run order: key|label|threads|command.
programs() { # grid
    local g=$1 args="-np 20 -p $search" stars=$work/stars-11.txt
    echo "up|upstream default|1|$upstream -i -c -a $work/$g.txt -s $stars $args"
    echo "upsse2|upstream --force-sse2|1|$upstream -i -c --force-sse2 -a $work/$g.txt -s $stars $args"
    for p in $paths; do
        echo "$p|orrery $p|1|$app -i -c --no-progress --cpu-path=$p --nthreads 1 -a $work/$g.txt -s $stars $args"
    done
}

sep_machine
echo "# upstream: $upstream ($("$upstream" --version 2>&1 | head -1))"
echo "# orrery: $app"
echo "# load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs on the machine skew the times)"
echo "# CPU seconds (user+sys, whole process), min and median of $repeats interleaved rounds, one thread"
echo "# ratios from the minimum: x upstream = upstream default s / s, x up-sse2 = upstream --force-sse2 s / s"
printf '%-8s %-30s %4s %9s %9s %9s %10s %10s  %s\n' grid program thr "min s" "median s" "wall s" \
    "x upstream" "x up-sse2" "search_likelihood"
bad=0
for g in $grids; do
    mapfile -t progs < <(programs "$g")
    for ((round = 1; round <= repeats; round++)); do
        for line in "${progs[@]}"; do
            IFS='|' read -r key _ _ cmd <<<"$line"
            [ -z "${fail[$g.$key]:-}" ] || continue
            # shellcheck disable=SC2086
            run_one "$g.$key" $cmd
        done
    done
    # the likelihood every run must give: upstream's, else the first program's
    ref_like=${like[$g.up]:-}
    if [ -z "$ref_like" ]; then IFS='|' read -r key _ <<<"${progs[0]}"; ref_like=${like[$g.$key]:-}; fi
    up_min=$(echo "${cpu[$g.up]:-}" | sep_stat min)
    sse_min=$(echo "${cpu[$g.upsse2]:-}" | sep_stat min)
    for line in "${progs[@]}"; do
        IFS='|' read -r key label thr _ <<<"$line"
        k=$g.$key
        if [ -n "${fail[$k]:-}" ]; then
            printf '%-8s %-30s %4s  skipped: %s\n' "$g" "$label" "$thr" "${fail[$k]}"
            case ${fail[$k]} in *"cannot run it"* | *"unknown path"*) ;; *) bad=1 ;; esac
            continue
        fi
        [ -z "${note[$k]:-}" ] || label="$label (${note[$k]})"
        mn=$(echo "${cpu[$k]}" | sep_stat min)
        md=$(echo "${cpu[$k]}" | sep_stat median)
        wl=$(echo "${wall[$k]}" | sep_stat min)
        ok=""
        ok=$(awk -v a="${like[$k]}" -v b="$ref_like" -v t="$tol" 'BEGIN {
            d = a - b; if (d < 0) d = -d
            if (a !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ || b !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ || d > t)
                print " MISMATCH vs " b }')
        [ -z "$ok" ] || bad=1
        awk -v g="$g" -v l="$label" -v t="$thr" -v mn="$mn" -v md="$md" -v wl="$wl" -v up="$up_min" \
            -v ss="$sse_min" -v lk="${like[$k]}$ok" 'BEGIN {
            printf "%-8s %-30s %4s %9.3f %9.3f %9.3f %10s %10s  %s\n", g, l, t, mn, md, wl,
                (up == "" || t != 1) ? "-" : sprintf("%.2f", up / mn),
                (ss == "" || t != 1) ? "-" : sprintf("%.2f", ss / mn), lk }'
    done
    echo "# $g: $(cells "$work/$g.txt") cells"
done

echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$bad" = 0 ] || { echo "# FAILED: a run failed or its likelihood disagrees with upstream's (see above)"; exit 1; }
