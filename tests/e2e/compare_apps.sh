#!/bin/bash
# Two builds of an app, byte for byte: every separation case of
# tests/data/milkyway/cases.txt (and the membership file of the first) run
# through OLD and NEW with the same extra arguments; the result tags and
# output files must be identical. For refactors that promise "no change in
# behaviour" (the log's timing lines are left out of the comparison).
#
# Usage: tests/e2e/compare_apps.sh OLD_APP NEW_APP [ARGS...]
#   e.g. ... /tmp/base/app_cpu/orrery_cpu app_cpu/orrery_cpu --cpu-path sse2 --nthreads 3
# Environment: ORR_DATA (default tests/data/milkyway), CASES (a regular
# expression on case ids; default all). Prints "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
old=$(readlink -f "${1:?usage: $0 OLD_APP NEW_APP [ARGS...]}")
new=$(readlink -f "${2:?usage: $0 OLD_APP NEW_APP [ARGS...]}")
shift 2
data=$(readlink -f "${ORR_DATA:-$here/../data/milkyway}")
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-compare-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 first=1

resolve() { [ -e "$data/$1" ] && echo "$data/$1" || echo "$data/$1.gz"; }

# Runs app in dir with the case's words (paths made absolute) and "$@";
# keeps what must not differ: the result tags, the exit code, the files.
run_one() { # app, dir, words, extra...
    local app=$1 dir=$2 words=$3 args=() prev=
    shift 3
    mkdir -p "$dir"
    for w in $words; do
        if [ "$prev" = -a ] || [ "$prev" = -s ]; then args+=("$(resolve "$w")"); else args+=("$w"); fi
        prev=$w
    done
    (cd "$dir" && "$app" "${args[@]}" "$@" 2>stderr.txt >stdout.txt; echo "exit $?" >rc.txt)
    grep -v -E -e "finished in|backend|kernels for|launches" -e "^[0-9:]+ \([0-9]+\): " "$dir/stderr.txt" \
        >"$dir/kept.txt"
    rm -f "$dir/stderr.txt" "$dir/boinc_finish_called" "$dir/separation_checkpoint"
}

while read -r key rest; do
    case $key in
    case) id=${rest%% *} ;;
    command)
        [ -n "${CASES:-}" ] && ! [[ $id =~ $CASES ]] && continue
        extra=("$@")
        [ $first = 1 ] && extra+=(-o membership.txt -t)
        run_one "$old" "$work/old/$id" "$rest" "${extra[@]}"
        run_one "$new" "$work/new/$id" "$rest" "${extra[@]}"
        if diff -r "$work/old/$id" "$work/new/$id" >"$work/diff.txt"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "  $id differs:"
            head -20 "$work/diff.txt"
        fi
        first=0
        ;;
    esac
done <"$data/cases.txt"
echo "compare $(basename "$new") ${*:-}: $passed passed, $failed failed"
[ $failed = 0 ]
