#!/bin/bash
# The FDTD kind end to end through the CPU app: every CPU kernel path and
# thread count gives the same bytes (faithful mode; fast mode: the same
# bytes among paths with FMA and among those without); a run killed with
# SIGKILL at random moments and restarted until it finishes writes exactly
# the results of an uninterrupted run; the energy series ends with the last
# step where K does not divide the steps; --check; the exit codes of bad
# input, missing files, unwritable output and a grid too big for memory.
#
# Environment: ORR_APP (the CPU app), ORR_CPU_PATHS (the paths this build
# has); ORR_KILL_SEED replays a failure.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
app=${ORR_APP:?set ORR_APP to the app binary}
paths=${ORR_CPU_PATHS:-scalar}
data="$here/data/fdtd"
seed=${ORR_KILL_SEED:-$$}
RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-fdtd-XXXXXX")
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
passed=0
fail() { echo "FAIL: $*"; echo "(seed $seed; folder kept: $work)"; trap - EXIT; exit 1; }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
# the results without the lines that name the machine or time it
body() { grep -v -e '^application ' -e '^cell_updates_per_second ' -e '^seconds ' "$1"; }
cd "$work" || exit 1

# ---- kernel paths and threads ----
# The paths this build has that this CPU runs (a one-step benchmark asks);
# the others are said and left out, as the unit tests do.
runnable=
for p in $paths; do
    if "$app" fdtd -w "$data/table_source.txt" --bench 1 --cpu-path "$p" >/dev/null 2>err.txt; then
        runnable="$runnable $p"
    elif grep -q 'this CPU cannot run it' err.txt; then
        echo "note: path $p left out: this CPU cannot run it"
    else
        fail "path $p: $(tail -1 err.txt)"
    fi
done
paths=${runnable# }
for f in "$data"/*.txt; do
    u=$(basename "$f" .txt)
    [ "$u" = kill_cavity ] && continue
    fast=$(grep -c '^arithmetic fast' "$f")
    for p in $paths; do
        for t in 1 3; do
            "$app" fdtd -w "$f" -o "$u.$p.$t" -i -c --cpu-path "$p" --nthreads "$t" 2>err.txt ||
                fail "$u on $p, $t threads: $(tail -1 err.txt)"
            body "$u.$p.$t" >"$u.$p.$t.body"
        done
        cmp -s "$u.$p.1.body" "$u.$p.3.body" || fail "$u on $p: 1 and 3 threads differ"
        case $p in scalar | sse2) class=nofma ;; *) class=fma ;; esac
        [ "$fast" = 0 ] && class=all
        if [ -e "$u.$class.ref" ]; then
            cmp -s "$u.$class.ref" "$u.$p.1.body" || fail "$u: path $p differs from the others ($class)"
        else
            cp "$u.$p.1.body" "$u.$class.ref"
        fi
    done
    grep -q '^end$' "$u.$p.1" || fail "$u: results not complete"
done
ok "every unit: the same bytes on paths ($paths) and 1 or 3 threads"

# ---- killed and restarted until it finishes ----
run=(fdtd -w "$data/kill_cavity.txt" --nthreads 2 --checkpoint-period 1)
mkdir ref killed
(cd ref && "$app" "${run[@]}" -o results.txt 2>stderr.txt) || fail "uninterrupted: $(tail -2 ref/stderr.txt)"
cd killed || exit 1
kills=0
while :; do
    "$app" "${run[@]}" -o results.txt 2>>stderr.txt &
    pid=$!
    # 0.8-2.8 s, growing 0.2 s a kill: a loaded machine still gets past a checkpoint
    t=$((8 + RANDOM % 20 + 2 * kills))
    sleep "$((t / 10)).$((t % 10))"
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        kills=$((kills + 1))
        [ "$kills" -lt 40 ] || fail "still not finished after 40 kills"
        continue
    fi
    wait "$pid" || fail "a restarted run failed: $(tail -3 stderr.txt)"
    break
done
resumed=$(grep -c 'resuming from checkpoint' stderr.txt)
cmp -s <(body results.txt) <(body ../ref/results.txt) ||
    fail "the killed run's results differ: $(diff <(body results.txt) <(body ../ref/results.txt) | head -4)"
[ "$kills" -ge 1 ] && [ "$resumed" -ge 1 ] || fail "$kills kills and $resumed resumes: too few to test anything"
ok "killed $kills times, resumed $resumed times: the same results"
# a finished run restarted prints nothing twice and succeeds
"$app" "${run[@]}" -o again.txt 2>>stderr.txt || fail "restart after the report failed"
[ ! -e again.txt ] || fail "a restart after the report wrote results again"
ok "restart after the report: nothing to do"
cd .. || exit 1

# ---- the energy series ends with the last step ----
# 405 steps, energy every=10: steps 10..400 and 405, the last state's
sed 's/^steps 400$/steps 405/' "$data/cavity_pec.txt" >steps405.wu
"$app" fdtd -w steps405.wu -o steps405.txt -i -c 2>err.txt || fail "405 steps: $(tail -1 err.txt)"
[ "$(grep -c '^energy ' steps405.txt)" = 41 ] && [ "$(grep '^energy ' steps405.txt | tail -1 | cut -d' ' -f2)" = 405 ] ||
    fail "405 steps every 10: energy lines $(grep '^energy ' steps405.txt | cut -d' ' -f2 | tr '\n' ' ')"
[ "$(grep '^energy ' steps405.txt | sed -n 40p | cut -d' ' -f2)" = 400 ] || fail "405 steps: step 400's energy missing"
ok "405 steps, energy every 10: 41 energies, the last at step 405"

# ---- --check and bad input ----
"$app" fdtd -w "$data/cavity_pec.txt" --check >check.txt 2>err.txt || fail "--check: $(tail -1 err.txt)"
for key in cells padded_cells steps dt bytes flops probes arithmetic precision boundary; do
    grep -q "^$key " check.txt || fail "--check prints no $key"
done
ok "--check prints its keys"
expect() { # expect CODE WHAT ARGS...: the app exits CODE
    local code=$1 what=$2
    shift 2
    "$app" fdtd "$@" -i -c >/dev/null 2>err.txt
    local rc=$?
    [ "$rc" = "$code" ] || fail "$what: exit $rc, expected $code ($(tail -1 err.txt))"
    ok "$what: exit $code: $(tail -1 err.txt | cut -c1-100)"
}
printf 'orrery-fdtd 1\ngrid 8 8 8\ncell 1e-3 1e-3 1e-3\nsteps 10\ncourant 1.2\nsource waveform=gauss width=3\n' >bad.wu
expect 65 "Courant number above 1" -w bad.wu -o out.txt
grep -q 'bad.wu:5: courant' err.txt || fail "the message names no file, line and key"
expect 66 "missing work unit" -w nothing.wu -o out.txt
printf 'orrery-fdtd 1\ngrid 2000 2000 2000\ncell 1e-3 1e-3 1e-3\nsteps 10\nsource waveform=gauss width=3\n' >huge.wu
expect 71 "a grid beyond the host's memory" -w huge.wu -o out.txt
grep -q 'needs [0-9]* bytes' err.txt || fail "the refusal names no bytes"
expect 74 "unwritable output" -w "$data/cavity_pec.txt" -o /nonexistent/dir/out.txt
echo "fdtd_test: $passed checks passed"
