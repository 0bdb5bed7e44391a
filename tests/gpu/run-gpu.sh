#!/bin/bash
# GPU check for a machine with a GPU: every case of expected.json
# (tests/data/milkyway/cases.txt) through a GPU app, each value within
# the GPU tolerance of docs/separation.md of the published one, then a kill/resume check
# (a run killed after its first checkpoint and restarted prints the same
# tags as an uninterrupted run), then the app's spectral self-test. Prints
# one summary line at the end.
#
# Usage: tests/gpu/run-gpu.sh APP   (run-cuda.sh and run-opencl.sh name it)
# Environment: ORR_DATA (default tests/data/milkyway), ORR_APP_ARGS (extra
# arguments for every run, e.g. --device 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
app=$(readlink -f "${1:?usage: $0 APP}")
data=$(readlink -f "${ORR_DATA:-$here/../data/milkyway}")
extra=${ORR_APP_ARGS:-}
# GPU sums run in another order: 1e-11 absolute (spec), and for the
# integrals (values up to ~1e3) 2e-14 relative where that is larger.
tol_abs=1e-11 tol_rel=2e-14

work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-gpu-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 worst=0

resolve() { [ -e "$data/$1" ] && echo "$data/$1" || echo "$data/$1.gz"; }

# Values between <TAGk> and </TAGk> in a file.
tag_values() { sed -n "s:.*<$2>\(.*\)</$2>.*:\1:p" "$1" | head -1; }

run_case() { # id, command words (paths relative to data), expectations via globals
    local dir="$work/$id" args=() prev=
    mkdir -p "$dir"
    for w in $command; do
        if [ "$prev" = -a ] || [ "$prev" = -s ]; then args+=("$(resolve "$w")"); else args+=("$w"); fi
        prev=$w
    done
    # shellcheck disable=SC2086
    (cd "$dir" && "$app" "${args[@]}" $extra 2>stderr.txt >/dev/null)
    local rc=$? ok=1
    if [ "$expect_error" = 1 ]; then
        [ $rc -ne 0 ] && grep -q "error: " "$dir/stderr.txt" || ok=0
    elif [ $rc -ne 0 ]; then
        ok=0
        echo "  $id: exit $rc: $(tail -1 "$dir/stderr.txt")"
    else
        for e in "${expects[@]}"; do
            read -r key tag values <<<"$e"
            member=${key#expect}
            got=$(tag_values "$dir/stderr.txt" "$tag$member")
            res=$(awk -v g="$got" -v w="$values" -v ta="$tol_abs" -v tr="$tol_rel" -v tag="$tag" '
                BEGIN {
                    n = split(g, a, " "); m = split(w, b, " ")
                    if (n != m) { print "count " n " vs " m; exit }
                    worst = 0; bad = 0
                    for (i = 1; i <= n; i++) {
                        d = a[i] - b[i]; if (d < 0) d = -d
                        r = b[i] < 0 ? -b[i] : b[i]
                        t = (index(tag, "integral") && tr * r > ta) ? tr * r : ta
                        if (d > t) bad = 1
                        if (d > worst) worst = d
                    }
                    printf "%s %.3e", bad ? "bad" : "ok", worst }')
            case $res in
            ok*) worst=$(awk -v a="$worst" -v b="${res#ok }" 'BEGIN { print (b > a) ? b : a }') ;;
            *) ok=0; echo "  $id: $tag$member: got [$got], expected [$values] ($res)" ;;
            esac
        done
    fi
    if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "  FAIL $id"; fi
}

id= command= expect_error=0 expects=()
while IFS= read -r line; do
    case $line in
    "#"* | "") ;;
    "case "*) read -r _ id _ <<<"$line"; command= expect_error=0 expects=() ;;
    "command "*) command=${line#command } ;;
    expect*) expects+=("$line") ;;
    "error "*) expect_error=1 ;;
    end) run_case ;;
    esac
done <"$data/cases.txt"
echo "reference cases: $passed passed, $failed failed; largest deviation $worst"

# Kill after the first checkpoint, restart: the same tags as straight through.
# The production-size stripe 12 (1600x640x1400): seconds on a GPU, so there
# is a checkpoint to resume from.
small=(-a "$(resolve params_head/astronomy_parameters-12.txt)" -s "$data/stars/stars-12.txt.gz")
mkdir "$work/straight" "$work/killed"
# shellcheck disable=SC2086
(cd "$work/straight" && "$app" "${small[@]}" $extra 2>stderr.txt)
(
    cd "$work/killed" || exit 1
    # shellcheck disable=SC2086
    "$app" --checkpoint-period 1 "${small[@]}" $extra 2>>stderr.txt &
    pid=$!
    for _ in $(seq 600); do [ -f separation_checkpoint ] && break; sleep 0.01; done
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    # shellcheck disable=SC2086
    "$app" "${small[@]}" $extra 2>>stderr.txt
)
resumed=$(grep -c "resuming from checkpoint" "$work/killed/stderr.txt")
if [ "$(grep '^<' "$work/straight/stderr.txt")" = "$(grep '^<' "$work/killed/stderr.txt")" ] &&
    [ -s "$work/straight/stderr.txt" ]; then
    passed=$((passed + 1))
    echo "kill/resume: tags identical ($resumed resume)"
    [ "$resumed" -ge 1 ] || { passed=$((passed - 1)); failed=$((failed + 1)); echo "  but it never resumed"; }
else
    failed=$((failed + 1))
    echo "kill/resume: tags differ"
    diff <(grep '^<' "$work/straight/stderr.txt") <(grep '^<' "$work/killed/stderr.txt")
fi
# The spectral self-test: the CPU kernels and the device's.
# shellcheck disable=SC2086
# A GPU app must run every kernel on its device: a SKIP fails here.
if "$app" selftest $extra >"$work/selftest.txt" 2>&1 && grep -q "^on the device:" "$work/selftest.txt" &&
    ! grep -q "^SKIP" "$work/selftest.txt"; then
    passed=$((passed + 1))
    echo "selftest: $(tail -1 "$work/selftest.txt")"
else
    failed=$((failed + 1))
    echo "selftest failed:"
    grep -v "^PASS" "$work/selftest.txt"
fi
grep -m1 "CUDA backend\|OpenCL backend" "$work/straight/stderr.txt"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
