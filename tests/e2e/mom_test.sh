#!/bin/bash
# The MoM kind end to end through the CPU app: every test unit runs on 1
# and 3 threads to the same echo widths (to 1e-9 dB: OpenBLAS may split
# its sums by thread count); a run killed with SIGKILL at random moments
# (in the factorisation and the solve) and restarted until it
# finishes writes exactly the results of an uninterrupted run; --check;
# the exit codes of bad input, missing files, unwritable output and a
# matrix too big for memory.
#
# Environment: ORR_APP (the CPU app); ORR_KILL_SEED replays a failure.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
app=${ORR_APP:?set ORR_APP to the app binary}
data="$here/data/mom"
seed=${ORR_KILL_SEED:-$$}
RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-mom-XXXXXX")
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
passed=0
fail() { echo "FAIL: $*"; echo "(seed $seed; folder kept: $work)"; trap - EXIT; exit 1; }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
# the results without the lines that name the machine or time it
body() { grep -v -e '^application ' -e '^seconds ' "$1"; }
cd "$work" || exit 1

# ---- every unit, 1 and 3 threads ----
for f in "$data"/*.txt; do
    u=$(basename "$f" .txt)
    [ "$u" = kill_circle ] && continue
    for t in 1 3; do
        "$app" mom -w "$f" -o "$u.$t" --npy "$u.$t.npy" -i -c --nthreads "$t" 2>err.txt ||
            fail "$u, $t threads: $(tail -1 err.txt)"
        grep -q '^end$' "$u.$t" || fail "$u: results not complete"
    done
    worst=$(paste -d' ' <(grep '^echo ' "$u.1") <(grep '^echo ' "$u.3") |
        awk '{d = $5 - $10; if (d < 0) d = -d; if (d > m) m = d} END {printf "%.3g", m + 0}')
    awk -v w="$worst" 'BEGIN {exit !(w <= 1e-9)}' || fail "$u: 1 and 3 threads differ by $worst dB"
    backward=$(awk '/^solve / {print $3}' "$u.1")
    awk -v b="$backward" 'BEGIN {exit !(b <= 30)}' || fail "$u: backward error $backward"
done
ok "every unit: 1 and 3 threads agree to 1e-9 dB, backward errors <= 30 n eps"
[ -s circle_mom.1.npy ] || fail "no currents written for circle_mom"
# circle_mom: 200 cells, every=2, 2 incidences: 100 rows of x, y, then
# Re J, Im J per incidence; the points the 200-gon's midpoints, cells 0,
# 2, 4, ... (docs/mom.md section 4)
why=$(python3 - circle_mom.1.npy <<'EOF'
import array, ast, math, sys
raw = open(sys.argv[1], "rb").read()
n = int.from_bytes(raw[8:10], "little")
head = ast.literal_eval(raw[10:10 + n].decode("latin1"))
v = array.array("d", raw[10 + n:])
if head["descr"] != "<f8" or head["shape"] != (100, 6) or len(v) != 600:
    sys.exit("%s %s" % (head["descr"], head["shape"]))
a, cells = 0.716197243913529, 200
for r in range(100):
    t = 2 * math.pi * (2 * r + 0.5) / cells   # cell 2r's midpoint angle
    x, y = v[6 * r], v[6 * r + 1]
    want = a * math.cos(math.pi / cells)
    if abs(x - want * math.cos(t)) > 1e-12 or abs(y - want * math.sin(t)) > 1e-12:
        sys.exit("row %d: the point (%r, %r), not cell %d's midpoint" % (r, x, y, 2 * r))
    if not all(math.isfinite(c) for c in v[6 * r + 2:6 * r + 6]):
        sys.exit("row %d: a current not finite" % r)
EOF
) || fail "circle_mom's currents: $why"
ok "currents written as .npy: each beside its cell's midpoint"

# ---- killed and restarted until it finishes ----
run=(mom -w "$data/kill_circle.txt" --nthreads 2 --checkpoint-period 1)
mkdir ref killed
(cd ref && "$app" "${run[@]}" -o results.txt 2>stderr.txt) || fail "uninterrupted: $(tail -2 ref/stderr.txt)"
cd killed || exit 1
kills=0
stamp() { stat -c %Y.%Z:%i mom_checkpoint 2>/dev/null; }
while :; do
    before=$(stamp)
    "$app" "${run[@]}" -o results.txt 2>>stderr.txt &
    pid=$!
    # each run is killed only once it has written a new checkpoint (written
    # whole and renamed: after the fill, after the factorisation, between
    # block columns, after the report: at most one a second here), then
    # within 0.1 s: every kill leaves something to resume, however loaded
    # the machine
    while kill -0 "$pid" 2>/dev/null && [ "$(stamp)" = "$before" ]; do sleep 0.05; done
    t=$((RANDOM % 100))
    sleep "$((t / 1000)).$(printf %03d $((t % 1000)))"
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
ok "killed $kills times, resumed $resumed times ($(grep 'resuming' stderr.txt | sed 's/.*checkpoint: //; s/,.*//' | sort | uniq -c | tr -s ' ' | tr '\n' ';')): the same results"
"$app" "${run[@]}" -o again.txt 2>>stderr.txt || fail "restart after the report failed"
[ ! -e again.txt ] || fail "a restart after the report wrote results again"
ok "restart after the report: nothing to do"
cd .. || exit 1

# ---- --check and bad input ----
"$app" mom -w "$data/circle_lcn.txt" --check >check.txt 2>err.txt || fail "--check: $(tail -1 err.txt)"
for key in unknowns cells right_hand_sides echo_angles bytes flops; do
    grep -q "^$key " check.txt || fail "--check prints no $key"
done
grep -q '^unknowns 160$' check.txt || fail "--check: LCN's unknowns are not cells x q"
ok "--check prints its keys"
expect() { # expect CODE WHAT ARGS...: the app exits CODE
    local code=$1 what=$2
    shift 2
    "$app" mom "$@" -i -c >/dev/null 2>err.txt
    local rc=$?
    [ "$rc" = "$code" ] || fail "$what: exit $rc, expected $code ($(tail -1 err.txt))"
    ok "$what: exit $code: $(tail -1 err.txt | cut -c1-100)"
}
printf 'orrery-mom 1\ncircle radius=1\ncells 2\nincidence 0\n' >bad.wu
expect 65 "too few cells" -w bad.wu -o out.txt
grep -q 'bad.wu:3: cells' err.txt || fail "the message names no file, line and key"
expect 66 "missing work unit" -w nothing.wu -o out.txt
printf 'orrery-mom 1\ncircle radius=1\ncells 200000\nincidence 0\n' >huge.wu
expect 71 "a matrix beyond the host's memory" -w huge.wu -o out.txt
grep -q 'needs [0-9]* bytes' err.txt || fail "the refusal names no bytes"
expect 74 "unwritable output" -w "$data/circle_mom.txt" -o /nonexistent/dir/out.txt
printf 'orrery-mom 1\ncircle radius=1\ncells 200\nincidence 0\n' >resonant.wu
"$app" mom -w resonant.wu -o resonant.txt -i -c 2>err.txt || fail "a unit near a resonance failed"
grep -q '^warning .*interior resonance' resonant.txt || fail "no warning near ka = 2 pi's resonance"
ok "ka = 2 pi: warned of the interior resonance at 6.380"
echo "mom_test: $passed checks passed"
