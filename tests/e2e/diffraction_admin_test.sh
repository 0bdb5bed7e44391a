#!/bin/bash
# The project admins' tools for the diffraction kind (docs/diffraction.md
# section 6):
#  1. orrery-wugen diffraction: a grid batch (layout, parameter lines,
#     placeholders and expressions, jobs lines, submit.sh, the app's cost
#     in summary.txt and the bounds), a Latin hypercube (one point per
#     stratum, reproducible), explicit points; refusals: a work unit the app
#     refuses (its message, the template line, nothing written), a
#     placeholder that names no sampled parameter, a parameter used
#     nowhere, a folder not empty, bad usage; --no-check; the separation
#     generator with and without its word;
#  2. the templates: well-formed, one input opening as diffraction_wu.txt,
#     the output as diffraction_results.txt, "<result>" ending its line;
#  3. orrery-validate on diffraction tables: equal, within and beyond the
#     r00 and efficiency tolerances (options and orrery-validate.conf),
#     truncated, short, malformed, non-finite, another work unit, a
#     separation result against a diffraction one, statuses;
#  4. orrery-assimilate: one row per work unit with the table's texts, nan
#     as null; once only; error rows; a truncated table refused (recorded,
#     exit 0).
# Environment: ORR_APP (the CPU app), ORR_DATA (tests/data/milkyway),
# ORR_WUGEN, ORR_VALIDATE, ORR_ASSIMILATE (defaults: the source tree's
# workunits/ scripts, the build tree's orrery-validate).
# Skipped (77) without python3 and numpy, or an app without the
# diffraction kind.
# shellcheck disable=SC2015,SC2016,SC2012
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
builddir=$(cd "$(dirname "$app")/.." && pwd)
wugen=${ORR_WUGEN:-$top/workunits/orrery-wugen}
validate=${ORR_VALIDATE:-$builddir/workunits/orrery-validate}
asm=$(readlink -f "${ORR_ASSIMILATE:-$top/workunits/orrery-assimilate}")
templates=$top/server_templates
example=$top/workunits/diffraction/example_line.txt
python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: no python3 with numpy"; exit 77; }
"$app" diffraction --help >/dev/null 2>&1 || { echo "SKIP: $app has no diffraction kind"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-dif-admin-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
# check EXIT DESCRIPTION COMMAND...: the exit status, and no traceback
check() {
    local want=$1 what=$2
    shift 2
    "$@" >"$work/out" 2>"$work/why"
    local rc=$?
    if grep -q Traceback "$work/why"; then fail "$what: a Python traceback: $(tail -1 "$work/why")"
    elif [ $rc -eq "$want" ]; then pass "$what: exit $rc $(head -1 "$work/why")"
    else fail "$what: exit $rc, expected $want $(head -1 "$work/why") $(head -1 "$work/out")"; fi
}
says() { # pattern description: the last check's stderr matches
    if grep -q -- "$1" "$work/why"; then pass "$2"; else fail "$2: $(head -1 "$work/why")"; fi
}
gen() { "$wugen" diffraction --checker "$app" "$@"; }
# runs work unit FILE as a client would: under its open name, in a folder
run_wu() { # wu_file result_file
    local d
    d=$(mktemp -d "$work/run-XXXXXX")
    cp "$1" "$d/diffraction_wu.txt"
    (cd "$d" && "$app" diffraction --nthreads 1 -i -c >/dev/null 2>stderr.txt) &&
        cp "$d/diffraction_results.txt" "$2"
}

echo "== 1. orrery-wugen diffraction"
# the example template with an expression: the line sits at x = cd / 4
sed 's/x=0 bottom=\${cd}/x=${cd \/ 4} bottom=${cd}/' "$example" >"$work/t.txt"
if gen -t "$work/t.txt" --grid cd=80:120:3 height=100,115 -n g -o "$work/g" >"$work/g.log" 2>&1; then
    pass "a 3 x 2 grid: $(head -1 "$work/g.log")"
else
    fail "a 3 x 2 grid: $(tail -2 "$work/g.log")"
fi
n=$(ls "$work/g/wu" 2>/dev/null | wc -l)
[ "$n" = 6 ] && [ "$(sed -n 2p "$work/g/points.txt")" = "g_0 80 100" ] &&
    [ "$(sed -n 7p "$work/g/points.txt")" = "g_5 120 115" ] &&
    pass "6 work units, cd outermost: points.txt $(sed -n 3p "$work/g/points.txt" | tr ' ' ,)" ||
    fail "$n work units; points.txt: $(tr '\n' '|' <"$work/g/points.txt")"
wu3=$work/g/wu/g_3.txt
if [ "$(grep -v '^#' "$wu3" | head -3 | tr '\n' '|')" = "orrery-diffraction 1|parameter cd 100|parameter height 115|" ] &&
    grep -q '^layer thickness=115 background=air slices=16$' "$wu3" &&
    grep -q '^shape trapezoid material=resist x=25 bottom=100 swa=88$' "$wu3" &&
    grep -q '^# line.s bottom width and \${height} its height' "$wu3"; then
    pass "work unit 3: parameter lines after the first statement, \${height}, \${cd / 4} = 25, comments as written"
else
    fail "work unit 3: $(grep -v '^#' "$wu3" | head -12 | tr '\n' '|')"
fi
"$app" diffraction -w "$wu3" --check >"$work/check3" 2>/dev/null
est=$(sed -n 's/^rsc_fpops_est //p' "$work/check3")
want=$(python3 -c 'import math, sys
x = float(sys.argv[1]); e = math.floor(math.log10(x)) - 1
print("%.6e" % (math.ceil(x / 10 ** e - 1e-9) * 10 ** e))' "$est")
if [ "$(cat "$work/g"/jobs_*.txt | wc -l)" = 6 ] &&
    grep -qx -- "--wu_name g_3 --command_line diffraction g_3.txt" "$work/g"/jobs_*.txt &&
    grep -q -- "--rsc_fpops_est $want " "$work/g/submit.sh" &&
    grep -q -- "--rsc_memory_bound" "$work/g/submit.sh" && grep -q -- "--rsc_disk_bound" "$work/g/submit.sh" &&
    grep -q 'bin/stage_file --copy "$here/wu"' "$work/g/submit.sh" && sh -n "$work/g/submit.sh" &&
    [ "$(wc -l <"$work/g/commands.txt")" = 6 ] && grep -q "rsc_fpops_est $est" "$work/g/summary.txt"; then
    pass "jobs lines, submit.sh (stage wu/, create_work with the app's rsc_fpops_est $est rounded up to $want), commands.txt, summary.txt"
else
    fail "jobs/submit: $(cat "$work/g"/jobs_*.txt | head -2) / $(grep create_work "$work/g/submit.sh" | head -1)"
fi
# a Latin hypercube: one point in each of the 8 strata of each range, and
# the same points for the same seed
lhs() { gen -t "$example" --lhs 8 --range cd=80:120 height=100:120 --seed "$1" -n "$2" -o "$work/$2"; }
if lhs 7 l1 >/dev/null 2>&1 && lhs 7 l2 >/dev/null 2>&1 && lhs 8 l3 >/dev/null 2>&1 &&
    python3 - "$work" <<'EOF'
import sys
w = sys.argv[1]
def pts(b):
    return [l.split()[1:] for l in open("%s/%s/points.txt" % (w, b)) if not l.startswith("#")]
a, b, c = pts("l1"), pts("l2"), pts("l3")
assert a == b and a != c, (a, c)
for j, (lo, hi) in enumerate([(80, 120), (100, 120)]):
    strata = sorted(int((float(p[j]) - lo) / (hi - lo) * 8) for p in a)
    assert strata == list(range(8)), strata
EOF
then
    pass "--lhs 8: one point per stratum and parameter; seed 7 twice the same, seed 8 other points"
else
    fail "--lhs: $(tr '\n' '|' <"$work/l1/points.txt" 2>/dev/null)"
fi
printf '# explicit points\nheight cd\n110 95.5\n105, 90\n' >"$work/p.txt"
gen -t "$example" --points "$work/p.txt" -n p -o "$work/p" >/dev/null 2>&1 &&
    grep -q '^parameter height 105$' "$work/p/wu/p_1.txt" && grep -q '^parameter cd 90$' "$work/p/wu/p_1.txt" &&
    pass "--points: names from the first line, values as written" || fail "--points: $(ls "$work/p" 2>&1)"
# refusals: nothing written
check 65 "a work unit the app refuses (cd=5: the trapezoid's top width < 0)" \
    gen -t "$example" --grid cd=5,100 height=110 -n bad -o "$work/bad"
says "work unit 0 (cd=5 height=110): .*(template line 15)" "the message: the work unit, its parameters, the app's reason, the template line"
[ ! -e "$work/bad" ] && pass "nothing written" || fail "$work/bad written"
check 65 "a placeholder naming no sampled parameter" gen -t "$example" --grid cd=80,90 -n x -o "$work/x"
says "example_line.txt:14: \${...} uses 'height', which is not sampled" "the message names template:line and the name"
check 65 "a sampled parameter the template never uses" \
    gen -t "$example" --grid cd=80,90 height=110 swa=88 -n x -o "$work/x"
printf 'orrery-diffraction 1\nperiod ${p\n' >"$work/open.txt"
check 65 "a '\${' without '}'" gen -t "$work/open.txt" --grid p=500 -n x -o "$work/x"
check 65 "a call other than the documented functions" \
    gen -t <(sed 's/bottom=\${cd}/bottom=${exp(cd)}/' "$example") --grid cd=80 height=110 -n x -o "$work/x"
check 66 "a missing template" gen -t "$work/none.txt" --grid cd=80 -n x -o "$work/x"
check 1 "an output folder that is not empty" gen -t "$example" --grid cd=80 height=110 -o "$work/g"
check 64 "no sampling" gen -t "$example" -n x -o "$work/x"
check 64 "--grid and --lhs together" gen -t "$example" --grid cd=80 --lhs 3 --range height=1:2 -o "$work/x"
check 64 "--grid COUNT 0" gen -t "$example" --grid cd=80:120:0 height=110 -o "$work/x"
check 64 "an unknown option" gen -t "$example" --grid cd=80 height=110 --frobnicate -o "$work/x"
check 0 "--help" "$wugen" diffraction --help
[ ! -e "$work/x" ] && pass "none of them wrote a folder" || fail "$work/x written"
if "$wugen" diffraction --no-check -t "$example" --grid cd=80,90 height=110 -n nc -o "$work/nc" \
    >/dev/null 2>&1 && grep -q "rough cost model" "$work/nc/summary.txt" &&
    grep -q -- "--rsc_fpops_est" "$work/nc/submit.sh"; then
    pass "--no-check: written, priced by the rough model (summary.txt says so)"
else
    fail "--no-check: $(head -3 "$work/nc/summary.txt" 2>/dev/null)"
fi
# a larger table: the output template is sized by the app's results_bytes
# (--check), 91 MB here (60 angles x 1661 wavelengths, many propagating
# orders on a 6000 nm period), so templates/diffraction_out_128M
sed -e 's/^period 500/period 6000/; s/^orders 8/orders 30/' \
    -e 's/^wavelengths .*/wavelength_range 400.3 699.7 1661/' \
    -e "s/^theta .*/theta$(awk 'BEGIN { for (i = 0; i < 59; i++) printf " %g", i * 1.5 }')/" \
    "$example" >"$work/big.txt"
if gen -t "$work/big.txt" --grid cd=90 height=110 -n B -o "$work/B" >/dev/null 2>"$work/why" &&
    "$app" diffraction -w "$work/B/wu/B_0.txt" --check >"$work/check_big" 2>/dev/null &&
    rb=$(sed -n 's/^results_bytes //p' "$work/check_big") &&
    [ "$(awk -v b="$rb" 'BEGIN { print (b > 64 * 2^20 && b <= 128 * 2^20) }')" = 1 ] &&
    grep -qF "<max_nbytes>134217728</max_nbytes>" "$work/B/templates/diffraction_out_128M" &&
    grep -q -- "--result_template templates/diffraction_out_128M " "$work/B/submit.sh" &&
    grep -q 'cp "$t" "$to"' "$work/B/submit.sh" && sh -n "$work/B/submit.sh" &&
    [ "$(sed 's/134217728/67108864/' "$work/B/templates/diffraction_out_128M")" = "$(cat "$templates/diffraction_out")" ]; then
    pass "results_bytes ${rb:-?}: templates/diffraction_out_128M (diffraction_out but for max_nbytes), which submit.sh installs"
else
    fail "a larger table's template: $(head -1 "$work/why") $(ls "$work/B" "$work/B/templates" 2>&1 | tr '\n' ' ')"
fi
# separation: the generator's first word is optional
if [ -n "${ORR_DATA:-}" ]; then
    v="0.571713 12.312119 -3.305187 148.010257 22.453902 0.42035 -0.468858 0.760579 -1.361644 177.884238 23.882892 1.210639 -1.611974 8.534378 -1.361644 177.884238 10.882892 1.210639 -1.611974 8.534378"
    sep() { # OUT [WORD]
        local out=$1
        shift
        "$wugen" "$@" --checker "$app" -a "$ORR_DATA/params_head/astronomy_parameters-11-small.txt.gz" \
            -s "$ORR_DATA/stars/stars-11.txt.gz" -p "$v" -n s -o "$work/$out"
    }
    if sep s1 >/dev/null 2>&1 && sep s2 separation >/dev/null 2>&1 &&
        cmp -s "$work/s1/jobs_1.txt" "$work/s2/jobs_1.txt" && cmp -s "$work/s1/s_params.txt" "$work/s2/s_params.txt"; then
        pass "orrery-wugen separation ... = orrery-wugen ...: the same work unit"
    else
        fail "separation with and without its word: $(ls "$work/s1" "$work/s2" 2>&1 | tr '\n' ' ')"
    fi
fi

echo "== 2. templates"
xml_ok() { { echo "<t>"; cat "$1"; echo "</t>"; } | xmllint --noout - 2>&1; }
ok=1
for f in diffraction_in diffraction_out; do
    msg=$(xml_ok "$templates/$f") || { ok=0; fail "$f is not well-formed: $msg"; }
done
for e in "<open_name>diffraction_wu.txt</open_name>" "<file_number>0</file_number>" "<copy_file/>"; do
    grep -qF "$e" "$templates/diffraction_in" || { ok=0; fail "diffraction_in lacks $e"; }
done
grep -q "<no_delete/>" "$templates/diffraction_in" && { ok=0; fail "diffraction_in: a work unit's own input needs no <no_delete/>"; }
grep -q "<file_number>1</file_number>" "$templates/diffraction_in" && { ok=0; fail "diffraction_in: one input only"; }
for e in "<name><OUTFILE_0/></name>" "<generated_locally/>" "<upload_when_present/>" "<max_nbytes>67108864</max_nbytes>" \
    "<url><UPLOAD_URL/></url>" "<file_name><OUTFILE_0/></file_name>" "<open_name>diffraction_results.txt</open_name>"; do
    grep -qF "$e" "$templates/diffraction_out" || { ok=0; fail "diffraction_out lacks $e"; }
done
grep -qx "<result>" "$templates/diffraction_out" || { ok=0; fail "diffraction_out: <result> must end its line"; }
[ $ok = 1 ] && pass "diffraction_in and diffraction_out well-formed, with the required elements"

echo "== 3. orrery-validate, diffraction tables"
good=$work/good.txt other=$work/other.txt
if run_wu "$work/g/wu/g_3.txt" "$good" && run_wu "$work/g/wu/g_4.txt" "$other"; then
    # edit ROW FIELD EXPR OUT: field FIELD (0-based) of point row ROW
    # becomes EXPR of its value v (python); ROW -1: every row
    edit() {
        python3 - "${EDIT_SRC:-$good}" "$@" <<'EOF'
import sys
src, row, field, expr, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
lines = open(src).read().split("\n")
for i, l in enumerate(lines):
    w = l.split(" ")
    if w[0] == "point" and (row < 0 or int(w[1]) == row):
        v = float(w[field]) if w[field] not in ("nan", "ok", "not_converged", "unbalanced") else w[field]
        w[field] = str(eval(expr))
        lines[i] = " ".join(w)
open(out, "w").write("\n".join(lines))
EOF
    }
    edit 2 8 "repr(v + 5e-9 * max(abs(v), 0.01))" "$work/r00_close.txt"
    edit 2 8 "repr(v + 1e-6)" "$work/r00_far.txt"
    # the first order's R (m n R T from field 14), and R_total with it: init
    # checks that R_total is the orders' sum
    edit 1 16 "repr(v + 5e-9)" "$work/R_close.txt"
    EDIT_SRC=$work/R_close.txt edit 1 10 "repr(v + 5e-9)" "$work/R_close.txt"
    edit 1 16 "repr(v + 1e-6)" "$work/R_far.txt"
    EDIT_SRC=$work/R_far.txt edit 1 10 "repr(v + 1e-6)" "$work/R_far.txt"
    edit 0 10 "repr(v + 1e-6)" "$work/Rt_far.txt"
    EDIT_SRC=$work/Rt_far.txt edit 0 16 "repr(v + 1e-6)" "$work/Rt_far.txt"
    edit 0 10 "repr(v + 1e-6)" "$work/Rt_alone.txt"      # R_total no longer the orders' sum
    edit 3 8 "'nan'" "$work/r00_nan.txt"
    edit 3 8 "'inf'" "$work/r00_inf.txt"
    edit 3 5 "'done'" "$work/status.txt"
    edit 3 11 "'0.5'" "$work/T_half_nan.txt"          # T_total a number, absorbed nan
    edit 3 13 "'3'" "$work/norders.txt"
    edit 4 5 "'not_converged'" "$work/nc_one.txt"
    # point 1 (a lossy substrate: R_total alone counts) reflecting 1.5: its
    # first order's R and R_total + 1.5, the sums kept; ok, then unbalanced
    edit 1 16 "repr(v + 1.5)" "$work/makes_ok.txt"
    EDIT_SRC=$work/makes_ok.txt edit 1 10 "repr(v + 1.5)" "$work/makes_ok.txt"
    EDIT_SRC=$work/makes_ok.txt edit 1 5 "'unbalanced'" "$work/makes_unb.txt"
    EDIT_SRC=$work/makes_unb.txt edit 1 8 "repr(v + 1e-6)" "$work/makes_unb_far.txt"
    edit 1 5 "'unbalanced'" "$work/unb_balanced.txt"     # its numbers balance
    edit 4 5 "'not_converged'" "$work/nc_a.txt"
    python3 - "$work/nc_a.txt" "$work/nc_b.txt" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
for i, l in enumerate(lines):
    w = l.split(" ")
    if w[0] == "point" and w[1] == "4":
        w[8] = repr(float(w[8]) + 0.1)
        lines[i] = " ".join(w)
open(sys.argv[2], "w").write("\n".join(lines))
EOF
    head -n -1 "$good" >"$work/no_end.txt"
    grep -v "^point 5 " "$good" >"$work/short.txt"
    grep -v "^# work_unit" "$good" >"$work/no_wu.txt"
    head -c $(($(wc -c <"$good") - 1)) "$good" >"$work/no_newline.txt"
    { cat "$good"; echo "point 6 1"; } >"$work/after_end.txt"
    sed 's/^# parameter cd 100$/# parameter cd 100.5/' "$good" >"$work/other_param.txt"
    vcheck() { check "$@"; }
    vcheck 0 "init, the app's table" "$validate" init "$good"
    vcheck 0 "compare, equal" "$validate" compare "$good" "$good"
    # the same work unit on the reference CPU path: another work_unit hash
    (cd "$work" && "$app" diffraction --nthreads 1 --cpu-path scalar -i -c -w "$work/g/wu/g_3.txt" \
        -o "$work/scalar.txt" 2>/dev/null)
    if ! cmp -s <(grep "^# work_unit" "$good") <(grep "^# work_unit" "$work/scalar.txt"); then
        vcheck 0 "compare, the scalar CPU path's table (its work_unit line differs)" \
            "$validate" compare "$good" "$work/scalar.txt"
    else
        vcheck 0 "compare, the scalar CPU path's table" "$validate" compare "$good" "$work/scalar.txt"
    fi
    vcheck 0 "compare, r00 5e-9 apart (relative)" "$validate" compare "$good" "$work/r00_close.txt"
    vcheck 1 "compare, r00 1e-6 apart" "$validate" compare "$good" "$work/r00_far.txt"
    says "point 2: r00 .* differ by .* relative to max(|r00|, 0.01) (r00_tolerance 1e-08)" "the message names the point, r00 and the tolerance"
    vcheck 0 "compare, r00 1e-6 apart, --r00-tolerance 1e-5" "$validate" --r00-tolerance 1e-5 compare "$good" "$work/r00_far.txt"
    vcheck 0 "compare, the first order's R 5e-9 apart" "$validate" compare "$good" "$work/R_close.txt"
    vcheck 1 "compare, the first order's R 1e-6 apart" "$validate" compare "$good" "$work/R_far.txt"
    vcheck 1 "compare, R_total 1e-6 apart" "$validate" compare "$good" "$work/Rt_far.txt"
    says "point 0: R_total .* and .* differ by .* (efficiency_tolerance 1e-08)" "the message names R_total and the tolerance"
    vcheck 0 "compare, R_total 1e-6 apart, --efficiency-tolerance 1e-5" \
        "$validate" --efficiency-tolerance 1e-5 compare "$good" "$work/Rt_far.txt"
    vcheck 1 "compare, another work unit's table" "$validate" compare "$good" "$other"
    vcheck 1 "compare, other parameter lines" "$validate" compare "$good" "$work/other_param.txt"
    vcheck 1 "compare, converged in one result only" "$validate" compare "$good" "$work/nc_one.txt"
    vcheck 0 "compare, a point not_converged in both (its values not compared)" \
        "$validate" compare "$work/nc_a.txt" "$work/nc_b.txt"
    vcheck 1 "init, no '# end points' line" "$validate" init "$work/no_end.txt"
    says "truncated" "the message says truncated"
    vcheck 1 "init, a point row missing" "$validate" init "$work/short.txt"
    vcheck 1 "init, no '# work_unit' line" "$validate" init "$work/no_wu.txt"
    vcheck 1 "init, no line end at the end" "$validate" init "$work/no_newline.txt"
    vcheck 1 "init, a line after the end" "$validate" init "$work/after_end.txt"
    vcheck 1 "init, r00 nan" "$validate" init "$work/r00_nan.txt"
    vcheck 1 "init, r00 inf" "$validate" init "$work/r00_inf.txt"
    vcheck 1 "init, an unknown status" "$validate" init "$work/status.txt"
    says "good.txt\\|status.txt:[0-9]*: status" "the message names file:line and the field"
    vcheck 1 "init, T_total a number and absorbed nan" "$validate" init "$work/T_half_nan.txt"
    vcheck 1 "init, n_orders not matching the fields" "$validate" init "$work/norders.txt"
    vcheck 1 "init, R_total 1e-6 off the orders' sum" "$validate" init "$work/Rt_alone.txt"
    says "R_total .* are not the orders' sums" "the message says so"
    vcheck 1 "init, an ok point reflecting 1.5 (the app writes unbalanced)" "$validate" init "$work/makes_ok.txt"
    says "makes_ok.txt:[0-9]*: an ok point that makes energy" "the message names the line and says so"
    vcheck 0 "init, the same point unbalanced" "$validate" init "$work/makes_unb.txt"
    vcheck 1 "init, an unbalanced point whose numbers balance" "$validate" init "$work/unb_balanced.txt"
    says "unb_balanced.txt:[0-9]*: an unbalanced point whose energy balances" "the message says so"
    vcheck 0 "compare, an unbalanced point in both (compared as converged)" \
        "$validate" compare "$work/makes_unb.txt" "$work/makes_unb.txt"
    vcheck 1 "compare, an unbalanced point's r00 1e-6 apart" \
        "$validate" compare "$work/makes_unb.txt" "$work/makes_unb_far.txt"
    says "point 1: r00 .* differ by" "unbalanced points' numbers are compared"
    vcheck 1 "compare, ok in one, unbalanced in the other (far apart)" \
        "$validate" compare "$good" "$work/makes_unb.txt"
    # a hand-made lossless-substrate point absorbing 5%: ok where a layer
    # is lossy, unbalanced where every material is lossless; the table
    # does not say which, so init takes either word, and compare wants the
    # same word unless the numbers straddle the limit (R + T = 1 - 1e-2)
    lossless_row() { # STATUS T
        printf '# orrery-diffraction-results 1\n# work_unit 0123456789abcdef\n# parameter cd 100\n'
        printf '# periods 800 0 orders 0 0 slices 4\n'
        python3 -c 'import sys; r, t = 0.05, float(sys.argv[2])
print("point 0 500 0 0 %s 10 1e-11 0.1 0.2 %r %r %r 1 0 0 %r %r" % (sys.argv[1], r, t, 1 - r - t, r, t))' "$1" "$2"
        printf '# end points 1\n'
    }
    lossless_row ok 0.9 >"$work/ll_ok.txt"
    lossless_row unbalanced 0.9 >"$work/ll_unb.txt"
    lossless_row ok 0.940000003 >"$work/ll_edge_ok.txt"
    lossless_row unbalanced 0.939999997 >"$work/ll_edge_unb.txt"
    vcheck 0 "init, absorbing 5% over a lossless substrate, ok" "$validate" init "$work/ll_ok.txt"
    vcheck 0 "init, the same unbalanced" "$validate" init "$work/ll_unb.txt"
    vcheck 1 "compare, the two (ok and unbalanced with the same numbers)" \
        "$validate" compare "$work/ll_ok.txt" "$work/ll_unb.txt"
    says "point 0: ok in one result, unbalanced in the other, with numbers on the same side" \
        "the message says so"
    vcheck 0 "compare, 6e-9 apart on either side of the limit, ok and unbalanced" \
        "$validate" compare "$work/ll_edge_ok.txt" "$work/ll_edge_unb.txt"
    printf '<%s> %s </%s>\n' background_integral 0.0003 background_integral stream_integral 34.1 \
        stream_integral background_likelihood -3.3 background_likelihood stream_only_likelihood \
        -160.7 stream_only_likelihood search_likelihood -3.1 search_likelihood >"$work/sep.txt"
    vcheck 0 "init, a (hand-made) separation result" "$validate" init "$work/sep.txt"
    vcheck 1 "compare, a diffraction table against a separation result" "$validate" compare "$good" "$work/sep.txt"
    says "a separation and a diffraction result" "the message says so"
    # script_validator's layout: the conf beside the program
    proj="$work/project"
    mkdir -p "$proj/bin" "$proj/tmp_host"
    ln -s "$(readlink -f "$validate")" "$proj/bin/orrery-validate-compare"
    ln -s "$(readlink -f "$validate")" "$proj/bin/orrery-validate-init"
    in_tmp() { (cd "$proj/tmp_host" && "$@"); }
    printf 'r00_tolerance = 1e-5\nefficiency_tolerance = 1e-5  # loose\n' >"$proj/bin/orrery-validate.conf"
    vcheck 0 "via the links, r00_tolerance = 1e-5 in orrery-validate.conf" \
        in_tmp ../bin/orrery-validate-compare "$good" "$work/r00_far.txt"
    vcheck 0 "via the links, efficiency_tolerance = 1e-5 in orrery-validate.conf" \
        in_tmp ../bin/orrery-validate-compare "$good" "$work/R_far.txt"
    vcheck 1 "via the links, the command line overrides the conf" \
        in_tmp ../bin/orrery-validate-compare --efficiency-tolerance 1e-8 "$good" "$work/R_far.txt"
    printf 'r00_tol = 1e-5\n' >"$proj/bin/orrery-validate.conf"
    vcheck 3 "conf, an unknown key" in_tmp ../bin/orrery-validate-init "$good"
    says "r00_tol: unknown key (known: likelihood_tolerance, integral_tolerance, r00_tolerance, efficiency_tolerance)" \
        "the message lists the four keys"
    printf 'energy_tolerance = 0.1\n' >"$proj/bin/orrery-validate.conf"
    vcheck 3 "conf, energy_tolerance (gone: the app's own rule decides)" in_tmp ../bin/orrery-validate-init "$good"
    check 3 "--energy-tolerance (gone)" "$validate" --energy-tolerance 0.1 init "$good"
else
    fail "the app on a generated work unit: $(cat "$work"/run-*/stderr.txt | tail -2)"
fi

echo "== 4. orrery-assimilate, diffraction"
aproj=$work/aproj
table=$aproj/orrery/diffraction.jsonl
t() { "$asm" --project "$aproj" --app diffraction --command-line diffraction "$@"; }
if [ -f "$good" ]; then
    check 0 "the app's table" t --wu-name g_3 301 "$good"
    if python3 - "$table" "$good" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1, len(rows)
r = rows[0]
assert list(r) == ["wu", "wu_id", "work_unit", "application", "parameters", "points", "lambda",
                   "theta", "phi", "status", "iterations", "residual", "r00_re", "r00_im",
                   "R_total", "T_total", "absorbed", "orders"], list(r)
lines = open(sys.argv[2]).read().split("\n")
assert r["wu"] == "g_3" and r["wu_id"] == 301, r
assert "# work_unit %s" % r["work_unit"] in lines
assert r["parameters"] == {"cd": 100, "height": 115}, r["parameters"]
rows_t = [l.split() for l in lines if l.startswith("point ")]
assert r["points"] == len(rows_t) == 6
raw = open(sys.argv[1]).read()
for w in rows_t:
    k = int(w[1])
    assert repr(r["r00_re"][k]) == repr(float(w[8])) and w[8] in raw, (w[8], r["r00_re"][k])
    assert r["T_total"][k] is None and w[11] == "nan"       # a lossy substrate
    orders = [[int(w[j]), int(w[j + 1]), None if w[j + 2] == "nan" else float(w[j + 2]),
               None if w[j + 3] == "nan" else float(w[j + 3])] for j in range(14, len(w), 4)]
    assert r["orders"][k] == orders, (r["orders"][k], orders)
EOF
    then
        pass "one row: keys in order, parameters as an object, the table's digits, nan as null, the orders"
    else
        fail "row: $(head -c 300 "$table")"
    fi
    cp "$table" "$work/before"
    check 0 "the same work unit again" t --wu-name g_3 301 "$good"
    cmp -s "$table" "$work/before" && pass "appended nothing" || fail "the table changed"
    # refused (exit 0, a row in diffraction-refused.jsonl): the validator's
    # own refusal, never a stalled script_assimilator
    check 0 "a truncated table: refused" t --wu-name g_9 309 "$work/no_end.txt"
    says "refused, not assimilated: .*no_end.txt: truncated" "the message names the file"
    check 1 "two output files (the project's setup: not refused)" t --wu-name g_8 308 "$good" "$good"
    check 0 "a table with an unbalanced point" t --wu-name g_6 306 "$work/makes_unb.txt"
    python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
assert r["wu"] == "g_6" and r["status"][1] == "unbalanced" and r["status"][0] == "ok", r["status"]
assert r["R_total"][1] > 1.5, r["R_total"]' "$table" && pass "its row: status unbalanced at point 1" ||
        fail "unbalanced row: $(tail -c 300 "$table")"
    cp "$table" "$work/before"
    check 0 "an ok point that makes energy: refused" t --wu-name g_10 310 "$work/makes_ok.txt"
    says "refused, not assimilated: .*makes_ok.txt:[0-9]*: an ok point that makes energy" "with the validator's message"
    check 0 "a separation result under the diffraction app: refused" t --wu-name g_7 307 "$work/sep.txt"
    [ "$(wc -l <"$aproj/orrery/diffraction-refused.jsonl")" -eq 3 ] && pass "three refused rows" ||
        fail "refused: $(cat "$aproj/orrery/diffraction-refused.jsonl")"
    cmp -s "$table" "$work/before" && pass "none of them wrote a row" || fail "rows were written"
    check 0 "--error" t --error 6 g_5 305 12
    python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r == {"wu": "g_5", "wu_id": 305, "batch": 12, "error_mask": 6, "parameters": None}, r' \
        "$aproj/orrery/diffraction-errors.jsonl" && pass "the error row, parameters null" ||
        fail "error row: $(cat "$aproj/orrery/diffraction-errors.jsonl")"
else
    fail "assimilator: no table from part 3"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
