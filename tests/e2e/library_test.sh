#!/bin/bash
# The diffraction library (workunits/diffraction/orrery-library,
# docs/diffraction.md section 6):
#  1. the README's example ("Diffraction libraries, without a server"), run
#     as written: wugen on a 3 x 3 grid, the app on each work unit,
#     assemble, and a fit of a spectrum simulated at an off-grid shape that
#     finds it within the uncertainty it reports (and an uncertainty
#     smaller than half the grid's spacing); a measured spectrum as text
#     (lambda theta phi R0 sigma) fits to the same shape;
#  2. assemble: re-reading adds nothing; new results are appended (the old
#     rows unchanged); a duplicate is skipped, a conflict reported (exit 1);
#     an incomplete table, a not_converged and an unbalanced point are
#     left out; another spectrum, other parameters and a malformed table
#     are refused (exit 65, FILE:LINE, the library unchanged); an
#     interrupted write (arrays
#     longer than the index) is harmless;
#  3. the assimilator's JSON Lines as a source: the same library, read on
#     from where it stopped;
#  4. fit's refusals and usage (exit 64, 65, 66).
# Environment: ORR_APP (the CPU app); ORR_LIBRARY, ORR_WUGEN, ORR_ASSIMILATE
# (default: the build tree's workunits/).
# Skipped (77) without python3 and numpy, or an app without the
# diffraction kind.
# shellcheck disable=SC2015,SC2016,SC2012
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
builddir=$(cd "$(dirname "$app")/.." && pwd)
lib_tool=${ORR_LIBRARY:-$builddir/workunits/diffraction/orrery-library}
wugen=${ORR_WUGEN:-$builddir/workunits/orrery-wugen}
asm=${ORR_ASSIMILATE:-$builddir/workunits/orrery-assimilate}
example=$top/workunits/diffraction/example_line.txt
python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: no python3 with numpy"; exit 77; }
"$app" diffraction --help >/dev/null 2>&1 || { echo "SKIP: $app has no diffraction kind"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-library-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { # EXIT DESCRIPTION COMMAND...: the exit status, and no traceback
    local want=$1 what=$2
    shift 2
    "$@" >"$work/out" 2>"$work/why"
    local rc=$?
    if grep -q Traceback "$work/why"; then fail "$what: a Python traceback: $(tail -1 "$work/why")"
    elif [ $rc -eq "$want" ]; then pass "$what: exit $rc $(tail -1 "$work/why")"
    else fail "$what: exit $rc, expected $want $(tail -1 "$work/why") $(tail -1 "$work/out")"; fi
}
says() { # pattern description: the last check's stderr matches
    if grep -q -- "$1" "$work/why"; then pass "$2"; else fail "$2: $(tail -1 "$work/why")"; fi
}
L() { "$lib_tool" "$@"; }
runwu() { # WU OUT
    (cd "$work" && "$app" diffraction --nthreads 1 -i -c -w "$1" -o "$2" 2>>"$work/app.log")
}
gen() { "$wugen" diffraction --checker "$app" "$@" >/dev/null; }

echo "== 1. the README's example"
# the README's block, run in a scratch tree laid out as the built clone
python3 - "$top/README.md" "$work/example.sh" <<'EOF' || fail "no example block in README.md"
import sys
lines = open(sys.argv[1]).read().split("\n")
at = lines.index("<!-- library_test: the example -->")
assert lines[at + 1] == "```sh", lines[at + 1]
end = lines.index("```", at + 2)
open(sys.argv[2], "w").write("\n".join(lines[at + 2:end]) + "\n")
EOF
mkdir -p "$work/top/app_cpu"
ln -s "$app" "$work/top/app_cpu/orrery_cpu"
# workunits/ as a built clone has it: the sources' files, and over them
# the built ones (the generated scripts live in the build tree when it is
# not the source tree, as under distcheck)
cp -rs "$top/workunits" "$work/top/workunits"
[ "$builddir" = "$top" ] || cp -rsf "$builddir/workunits/." "$work/top/workunits/"
ex=$work/top/try-diffraction
if (cd "$work/top" && bash -e "$work/example.sh") >"$work/example.out" 2>"$work/example.err"; then
    pass "the example runs: $(grep -c . "$work/example.out") lines of output"
else
    fail "the example: $(tail -3 "$work/example.err") $(tail -3 "$ex/run.log" 2>/dev/null)"
fi
grep -q "^library: 9 work unit(s) added, 9 in all" "$work/example.out" &&
    pass "assemble: $(grep '^library:' "$work/example.out")" || fail "assemble: $(cat "$work/example.out")"
grep -q "^cd = .* +- " "$work/example.out" && grep -q "^height = .* +- " "$work/example.out" &&
    pass "fit prints: $(grep -E '^(cd|height) = ' "$work/example.out" | tr '\n' ' ')" ||
    fail "fit: $(tail -4 "$work/example.out")"
# the shape found within the reported uncertainty
(cd "$ex" && L fit --json library measured.txt) >"$work/fit.json" 2>"$work/fit.err"
if python3 - "$work/fit.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["nearest"]["parameters"] == {"cd": 100.0, "height": 110.0}, r["nearest"]
truth = {"cd": (93.7, 20.0), "height": (113.1, 10.0)}      # value, grid spacing
for name, (v, step) in truth.items():
    p = r["parameters"][name]
    err, unc = abs(p["value"] - v), p["uncertainty"]
    print("%s: %.6g, %.3g from %g, uncertainty %.3g (spacing %g)" % (name, p["value"], err, v, unc, step))
    assert err <= unc, (name, err, unc)
    assert 0 < unc < step / 2, (name, unc)
EOF
then
    pass "the off-grid shape within the reported uncertainty: $(python3 - "$work/fit.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print("; ".join("%s %.4f +- %.3g" % (k, v["value"], v["uncertainty"]) for k, v in r["parameters"].items()))
EOF
)"
else
    fail "recovery: $(cat "$work/fit.json" "$work/fit.err" | tail -20)"
fi
# the same spectrum as text, R0 = |r00|^2, with a sigma column
awk '$1 == "point" && $6 == "ok" { printf "%s %s %s %.17g 1e-3\n", $3, $4, $5, $9 * $9 + $10 * $10 }' \
    "$ex/measured.txt" >"$work/measured_text.txt"
(cd "$ex" && L fit --json library "$work/measured_text.txt") >"$work/fit2.json" 2>>"$work/fit.err"
python3 - "$work/fit.json" "$work/fit2.json" <<'EOF' &&
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert b["sigma"] == "given" and b["points"] == 6
for k in a["parameters"]:
    x, y = a["parameters"][k]["value"], b["parameters"][k]["value"]
    assert abs(x - y) <= 1e-6 * abs(x), (k, x, y)
EOF
    pass "a measured spectrum as 'lambda theta phi R0 sigma' lines: the same shape" ||
    fail "text spectrum: $(tail -5 "$work/fit2.json")"

echo "== 2. assemble"
lib=$work/lib
cp -r "$ex/library" "$lib"
res=$ex/results
check 0 "the same results again" L assemble "$lib" "$res"
grep -q "0 work unit(s) added, 9 in all;.* 9 source(s) unchanged" "$work/out" &&
    pass "nothing added, 9 sources unchanged" || fail "$(cat "$work/out")"
snap() { python3 -c 'import numpy as np, sys
for n in ("parameters", "r00", "R_total", "T_total", "R_orders", "T_orders"):
    a = np.load(sys.argv[1] + "/" + n + ".npy")
    b = a[:int(sys.argv[2])]
    print(n, b.shape, b.tobytes().hex()[:4000])' "$@"; }
snap "$lib" 9 >"$work/snap9"
cp "$lib/index.json" "$work/index9"
# new results: a column of the grid beyond it (cd = 140)
gen -t "$example" --grid cd=140 height=100:120:3 -n more -o "$work/more"
mkdir -p "$work/res2"
for wu in "$work"/more/wu/*.txt; do runwu "$wu" "$work/res2/$(basename "$wu")"; done
check 0 "three new results" L assemble "$lib" "$work/res2"
if grep -q "3 work unit(s) added, 12 in all" "$work/out" && snap "$lib" 9 | cmp -s - "$work/snap9" &&
    python3 -c 'import numpy as np, json, sys
i = json.load(open(sys.argv[1] + "/index.json"))
p = np.load(sys.argv[1] + "/parameters.npy")
assert i["entries"] == 12 and p.shape == (12, 2) and list(p[-1]) == [140, 120], p
assert [w["name"] for w in i["work_units"][-3:]] == ["more_0.txt", "more_1.txt", "more_2.txt"]' "$lib"; then
    pass "appended: 12 entries, the first 9 rows unchanged, the new ones last"
else
    fail "append: $(cat "$work/out")"
fi
mkdir -p "$work/dup" "$work/conflict" "$work/partial" "$work/nc"
cp "$res/lines_0.txt" "$work/dup/copy_of_0.txt"
# the same work unit on the reference CPU path: its work_unit hash differs
(cd "$work" && "$app" diffraction --nthreads 1 --cpu-path scalar -i -c -w "$ex/batch/wu/lines_1.txt" \
    -o "$work/dup/scalar_1.txt" 2>>"$work/app.log")
check 0 "duplicates (a copy; the same work unit on another CPU path)" L assemble "$lib" "$work/dup"
says "copy_of_0.txt: .*a duplicate of the library's lines_0.txt.*equal: skipped" "reported: a duplicate, skipped"
grep -q "0 work unit(s) added, 12 in all; .* 2 duplicate(s)" "$work/out" &&
    pass "the other CPU path's result (another work_unit hash) is a duplicate too" || fail "$(cat "$work/why")"
awk '$1 == "point" && $2 == 3 { $9 = $9 + 1e-4 } { print }' "$res/lines_1.txt" >"$work/conflict/lines_1.txt"
check 1 "a conflict (the same work unit, r00 1e-4 apart)" L assemble "$lib" "$work/conflict"
says "CONFLICT.*r00 at point 3 differs" "reported: the conflict, where, and the library keeps its own"
head -n -1 "$res/lines_2.txt" >"$work/partial/lines_2b.txt"
awk '$1 == "point" && $2 == 1 { $6 = "not_converged" } { print }' "$work/res2/more_0.txt" |
    sed 's/^# parameter height 100$/# parameter height 99/; s/^# work_unit .*/# work_unit 0123456789abcdef/' \
    >"$work/nc/nc.txt"
awk '$1 == "point" && $2 == 2 { $6 = "unbalanced" } { print }' "$work/res2/more_0.txt" |
    sed 's/^# parameter height 100$/# parameter height 98/; s/^# work_unit .*/# work_unit 0123456789abcdee/' \
    >"$work/nc/unbalanced.txt"
check 0 "an incomplete table, a not_converged point and an unbalanced one" L assemble "$lib" "$work/partial" "$work/nc"
if grep -q "incomplete.*left out" "$work/why" && grep -q "1 point(s) not converged: left out" "$work/why" &&
    grep -q "unbalanced.txt: .*1 point(s) unbalanced (energy not conserved.*left out" "$work/why" &&
    grep -q "0 work unit(s) added, 12 in all; left out: 1 incomplete, 1 not converged, 1 unbalanced" "$work/out"; then
    pass "all three reported and left out"
else
    fail "left out: $(cat "$work/why" "$work/out")"
fi
cp "$lib/index.json" "$work/index12"
sed 's/^wavelengths 450 633$/wavelengths 450 600/' "$example" >"$work/t_other.txt"
gen -t "$work/t_other.txt" --grid cd=90 height=105 -n spec -o "$work/spec"
runwu "$work/spec/wu/spec_0.txt" "$work/spec.txt"
check 65 "another spectrum" L assemble "$lib" "$work/spec.txt"
says "spec.txt: not the library's spectrum: point 3 is (600" "the message names the point"
sed 's/\${cd}/${width}/' "$example" >"$work/t_width.txt"
gen -t "$work/t_width.txt" --grid width=90 height=105 -n width -o "$work/width"
runwu "$work/width/wu/width_0.txt" "$work/width.txt"
check 65 "other parameters" L assemble "$lib" "$work/width.txt"
says "parameters width height, the library's are cd height" "the message names both"
awk '$1 == "point" && $2 == 4 { $7 = "many" } { print }' "$res/lines_5.txt" >"$work/bad.txt"
check 65 "a malformed table" L assemble "$lib" "$work/res2" "$work/bad.txt"
says "bad.txt:12: iterations: 'many' is not a whole number" "the message names FILE:LINE and the field"
cmp -s "$lib/index.json" "$work/index12" && pass "the refusals left the library as it was" ||
    fail "index.json changed"
# an interrupted write: arrays longer than the index says
python3 -c 'import numpy as np, sys
p = np.load(sys.argv[1] + "/R_total.npy")
np.save(sys.argv[1] + "/R_total.npy", np.concatenate([p, np.full((2, p.shape[1]), 7.0)]))' "$lib"
check 0 "info on arrays longer than the index (an interrupted write)" L info "$lib"
grep -q "12 entries" "$work/out" && pass "12 entries, the extra rows ignored" || fail "$(cat "$work/out")"
cp "$ex/measured.txt" "$work/meas.txt"
check 0 "fit on it" L fit "$lib" "$work/meas.txt"
check 64 "assemble, no source" L assemble "$lib"
check 64 "assemble, an unknown option" L assemble --fast "$lib" "$res"
check 66 "assemble, a missing source" L assemble "$lib" "$work/none.txt"

echo "== 3. the assimilator's table as a source"
proj=$work/proj
i=0
for f in "$res"/lines_*.txt; do
    "$asm" --project "$proj" --wu-name "$(basename "$f" .txt)" --app diffraction \
        --command-line diffraction $((100 + i)) "$f" || fail "assimilating $f"
    i=$((i + 1))
    [ $i = 5 ] && L assemble "$work/jlib" "$proj/orrery/diffraction.jsonl" >/dev/null 2>&1
done
check 0 "the rest of the JSON Lines table" L assemble "$work/jlib" "$proj/orrery/diffraction.jsonl"
grep -q "4 work unit(s) added, 9 in all" "$work/out" && pass "read on from where it stopped: 4 added" ||
    fail "$(cat "$work/out")"
python3 -c 'import numpy as np, json, sys
a, b = sys.argv[1:]
for n in ("parameters", "r00", "R_total", "T_total", "R_orders", "T_orders"):
    x, y = np.load(a + "/" + n + ".npy"), np.load(b + "/" + n + ".npy")
    assert x.shape == y.shape and np.array_equal(x, y, equal_nan=True), n
assert [w["work_unit"] for w in json.load(open(a + "/index.json"))["work_units"]] == \
    [w["work_unit"] for w in json.load(open(b + "/index.json"))["work_units"]]' "$ex/library" "$work/jlib" &&
    pass "the same library as from the tables, bit for bit" || fail "the libraries differ"

echo "== 4. fit: refusals and usage"
printf '450 10 0 0.3\n451 10 0 0.3\n' >"$work/off_spec.txt"
check 65 "a measured point not in the library's spectrum" L fit "$lib" "$work/off_spec.txt"
says "off_spec.txt:2: (lambda 451, theta 10, phi 0) is not in the library's spectrum" "the message names FILE:LINE"
printf '450 10 0 0.3 1e-3\n450 30 0 0.3\n' >"$work/half_sigma.txt"
check 65 "a sigma on some lines only" L fit "$lib" "$work/half_sigma.txt"
printf '450 10 0 zero\n' >"$work/nan_spec.txt"
check 65 "a value that is not a number" L fit "$lib" "$work/nan_spec.txt"
check 66 "no library" L fit "$work/nolib" "$work/meas.txt"
check 64 "fit, one argument" L fit "$lib"
check 64 "--quantity T" L fit --quantity T "$lib" "$work/meas.txt"
check 64 "an unknown command" L merge "$lib"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
