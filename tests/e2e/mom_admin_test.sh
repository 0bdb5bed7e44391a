#!/bin/bash
# The project admins' tools for the mom kind (docs/mom.md section 6):
#  1. orrery-wugen mom, checked by the CPU app's own `mom --check`: a batch of
#     3 parameter sets from a template (layout, the param lines,
#     placeholders and expressions, comments left alone, the index with
#     each work unit's unknowns, flops and bytes, jobs lines, submit.sh with
#     the bounds computed from the checker's rsc_fpops_est and bytes),
#     --list and --lhs, a larger output template for many echo lines, and
#     refusals with their exit codes: a work unit the app refuses (its
#     message, the template line, nothing written), the faithful solver in
#     single precision (the app's exit 69), results past 1 GiB, a
#     placeholder naming no sampled parameter, usage; a `current`
#     statement accepted, its .npy sized from npy_bytes;
#  2. the templates: well-formed, one input opening as mom_wu.txt, the
#     outputs as mom_results.txt and mom_current.npy (optional), the
#     generator's default output template the same, "<result>" ending its
#     line;
#  3. orrery-validate on the app's own results: two runs of one work unit
#     (1 and 2 threads) agree; an echo width moved within and beyond the
#     double and single tolerances (dB and sigma/lambda), a null compared
#     to the pattern's size, a truncated file, a missing file (transient),
#     a mom result against an fdtd and a separation one, another work unit
#     hash, params, geometry or solver, malformed lines, a backward error
#     above 30, the configuration keys and options, script_validator's
#     links; 4. the currents' .npy beside the results: init and compare
#     with it (the four files script_validator passes), a value moved
#     within and beyond current_tolerance, a missing, truncated, misshapen
#     or non-finite .npy, three files for a result; orrery-assimilate
#     keeps it (mom-currents/NAME.npy, the row's "currents").
# Environment: ORR_APP (the CPU app with the mom kind: its build tree has
# orrery-validate), ORR_VALIDATE (default: the build tree's
# workunits/orrery-validate), ORR_WUGEN (default: the source tree's
# workunits/orrery-wugen). Skipped (77) without python3 or without an app
# that runs the mom kind (OpenBLAS missing: exit 69). Prints PASS or FAIL
# per check; exit 1 if any failed.
# shellcheck disable=SC2015,SC2016,SC2012
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
wugen=${ORR_WUGEN:-$top/workunits/orrery-wugen}
templates=$top/server_templates
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
if [ -n "${ORR_VALIDATE:-}" ]; then
    validate=$(readlink -f "$ORR_VALIDATE")
else
    validate=$(cd "$(dirname "$app")/.." && pwd)/workunits/orrery-validate
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-mom-admin-XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'orrery-mom 1\ncircle radius=0.3\ncells 12\nincidence 0\necho 0\n' >"$work/probe.txt"
(cd "$work" && "$app" mom -w probe.txt -o probe.out -i -c >/dev/null 2>"$work/probe.err")
case $? in
0) ;;
69) echo "SKIP: the app runs no mom work unit here: $(tail -1 "$work/probe.err")"; exit 77 ;;
*) echo "FAIL: $app has no mom kind: $(tail -1 "$work/probe.err")"; exit 1 ;;
esac
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
gen() { "$wugen" mom --checker "$app" "$@"; }

echo "== 1. orrery-wugen mom (checked by $app)"
cat >"$work/t.txt" <<'EOF'
orrery-mom 1
# a PEC circle of ka = ${ka} (a placeholder in a comment stays)
param ka ${ka}
param study admin_test
circle radius=${ka / (2 * 3.141592653589793)}
density 20
incidence 0 90
echo from=0 to=180 step=30
solver ${solver}
EOF
printf '# three sets\nka solver\n3 reference\n4.5, mixed   # a comment\n5 faithful\n' >"$work/sets.txt"
if gen -t "$work/t.txt" --list "$work/sets.txt" -n g -o "$work/g" >"$work/g.log" 2>&1; then
    pass "3 parameter sets: $(head -1 "$work/g.log")"
else
    fail "3 parameter sets: $(tail -2 "$work/g.log")"
fi
n=$(find "$work/g/wu" -name '*.txt' 2>/dev/null | wc -l)
[ "$n" = 3 ] && [ "$(sed -n 1p "$work/g/points.txt")" = "# wu ka solver unknowns flops bytes" ] &&
    [ "$(sed -n 2p "$work/g/points.txt" | cut -d' ' -f1-3)" = "g_0 3 reference" ] &&
    [ "$(sed -n 4p "$work/g/points.txt" | cut -d' ' -f1-3)" = "g_2 5 faithful" ] &&
    pass "3 work units; points.txt: wu, the parameters, unknowns, flops, bytes" ||
    fail "$n work units; points.txt: $(tr '\n' '|' <"$work/g/points.txt" 2>/dev/null)"
wu1=$work/g/wu/g_1.txt
if [ "$(grep -v '^#' "$wu1" | head -4 | tr '\n' '|')" = "orrery-mom 1|param solver mixed|param ka 4.5|param study admin_test|" ] &&
    grep -qx 'circle radius=0.716197243914' "$wu1" && grep -qx 'solver mixed' "$wu1" &&
    grep -q '^# a PEC circle of ka = \${ka}' "$wu1"; then
    pass "work unit 1: param solver inserted after the first statement, param ka \${ka} in place, \${ka / (2 pi)} = 0.716197243914, comments as written"
else
    fail "work unit 1: $(tr '\n' '|' <"$wu1")"
fi
# the bounds: the checker's own numbers for work unit 1
"$app" mom -w "$wu1" --check >"$work/check1" 2>/dev/null
key() { sed -n "s/^$1 //p" "$work/check1"; }
want=$(python3 -c 'import math, sys
est, b = (float(x) for x in sys.argv[1:3])
print("--rsc_fpops_est %.6e --rsc_fpops_bound %.6e --rsc_memory_bound %.0f" % (est, 10 * est, math.ceil(1.25 * b + 64 * 2**20)))' \
    "$(key rsc_fpops_est)" "$(key bytes)")
[ "$(sed -n 3p "$work/g/points.txt")" = "g_1 4.5 mixed $(key unknowns) $(printf '%.6e' "$(key flops)") $(key bytes)" ] &&
    pass "points.txt: work unit 1's unknowns, flops and bytes as the checker prints them" ||
    fail "points.txt line 3: $(sed -n 3p "$work/g/points.txt"), checker: $(tr '\n' ' ' <"$work/check1")"
job=$(grep -l -- "--wu_name g_1 " "$work/g"/jobs_*.txt 2>/dev/null | head -1)
k=$(basename "${job:-jobs_0.txt}" .txt | sed 's/jobs_//')
if [ "$(cat "$work/g"/jobs_*.txt | wc -l)" = 3 ] && [ -n "$job" ] &&
    grep -qx -- "--wu_name g_1 --command_line mom g_1.txt" "$job" &&
    grep -q -- "--result_template templates/mom_out $want --rsc_disk_bound [0-9]* --delay_bound 604800 --min_quorum 2 --target_nresults 2 --stdin <\"\$here/jobs_$k.txt\"" "$work/g/submit.sh" &&
    grep -q -- "--appname mom --wu_template templates/mom_in" "$work/g/submit.sh" &&
    grep -q 'bin/stage_file --copy "$here/wu"' "$work/g/submit.sh" && sh -n "$work/g/submit.sh" &&
    [ "$(wc -l <"$work/g/commands.txt")" = 3 ] &&
    grep -q "^  unknowns " "$work/g/summary.txt" && [ ! -e "$work/g/templates" ]; then
    pass "jobs lines, submit.sh (stage wu/, create_work with work unit 1's $want), commands.txt, summary.txt"
else
    fail "jobs/submit: $(grep -h g_1 "$work/g"/jobs_*.txt) / $(grep create_work "$work/g/submit.sh" | head -1) / want $want"
fi
# the disk bound: 2 * the input + the output limits (64 MiB the results,
# 64 MiB the currents) + 2 * bytes + 64 MiB
disk=$(python3 -c 'import sys, os
print("%.0f" % (2 * os.path.getsize(sys.argv[1]) + 2 * 64 * 2**20 + 2 * float(sys.argv[2]) + 64 * 2**20))' "$wu1" "$(key bytes)")
grep -q -- "--rsc_disk_bound $disk .*jobs_$k.txt" "$work/g/submit.sh" &&
    pass "rsc_disk_bound $disk: 2 x the input + the output limits + 2 x bytes + 64 MiB" ||
    fail "rsc_disk_bound: want $disk: $(grep "jobs_$k" "$work/g/submit.sh")"
# a grid and a Latin hypercube
gen -t "$work/t.txt" --grid ka=3:5:3 solver=reference -n G -o "$work/G" >/dev/null 2>&1 &&
    [ "$(grep -vc '^#' "$work/G/points.txt")" = 3 ] && grep -qx 'param ka 4' "$work/G/wu/G_1.txt" &&
    pass "--grid ka=3:5:3: 3 work units, ka 3, 4, 5" || fail "--grid: $(tr '\n' '|' <"$work/G/points.txt" 2>/dev/null)"
sed 's/^solver .*/solver reference/; s/^density 20/cells ${round(n)}/' "$work/t.txt" >"$work/lhs.txt"
if gen -t "$work/lhs.txt" --lhs 3 --range ka=3:5 n=40:80 --seed 5 -n l1 -o "$work/l1" >/dev/null 2>&1 &&
    gen -t "$work/lhs.txt" --lhs 3 --range ka=3:5 n=40:80 --seed 5 -n l2 -o "$work/l2" >/dev/null 2>&1 &&
    [ "$(cut -d' ' -f2- "$work/l1/points.txt")" = "$(cut -d' ' -f2- "$work/l2/points.txt")" ] &&
    grep -q '^cells [0-9]*$' "$work/l1/wu/l1_0.txt"; then
    pass "--lhs 3: the same points for the same seed; \${round(n)} a whole number of cells"
else
    fail "--lhs: $(tr '\n' '|' <"$work/l1/points.txt" 2>/dev/null)"
fi
# many echo lines: a larger output template, installed by submit.sh
incidences() { seq 0 "$(($1 - 1))" | tr '\n' ' '; }
many() { # INCIDENCES: a template with that many incidence angles x 100000 echo angles
    printf 'orrery-mom 1\ncircle radius=${r}\ncells 12\nincidence %s\necho from=0 to=359.9964 step=0.0036\n' \
        "$(incidences "$1")"
}
many 11 >"$work/long.txt"
if gen -t "$work/long.txt" --grid r=0.3 -n L -o "$work/L" >/dev/null 2>&1 &&
    grep -qF "<max_nbytes>134217728</max_nbytes>" "$work/L/templates/mom_out_128M_64M" &&
    grep -q -- "--result_template templates/mom_out_128M_64M " "$work/L/submit.sh" &&
    grep -q 'cp "$t" "$to"' "$work/L/submit.sh" && sh -n "$work/L/submit.sh" &&
    [ "$(sed 's/134217728/67108864/' "$work/L/templates/mom_out_128M_64M")" = "$(cat "$templates/mom_out")" ]; then
    pass "11 incidences x 100000 echo angles: templates/mom_out_128M_64M (mom_out but for the results' max_nbytes), which submit.sh installs"
else
    fail "a long run's template: $(ls "$work/L" "$work/L/templates" 2>&1 | tr '\n' ' ')"
fi
# the output template is sized by the app's results_bytes (--check), not
# by a bound of the generator's own: 120 x 100000 echo lines are 819 MB
# by the app's count, so 1 GiB, where a bound of 104 bytes a line would
# have refused them
many 120 >"$work/big.txt"
gen -t "$work/big.txt" --grid r=0.3 -n B -o "$work/B" >/dev/null 2>&1
"$app" mom -w "$work/B/wu/B_0.txt" --check >"$work/check_big" 2>/dev/null
rb=$(sed -n 's/^results_bytes //p' "$work/check_big")
if [ -n "$rb" ] &&
    [ "$(awk -v b="$rb" 'BEGIN { print (b > 512 * 2^20 && b <= 2^30) }')" = 1 ] &&
    grep -qF "<max_nbytes>1073741824</max_nbytes>" "$work/B/templates/mom_out_1024M_64M" &&
    grep -q -- "--result_template templates/mom_out_1024M_64M " "$work/B/submit.sh"; then
    pass "120 incidences x 100000 echo angles: results_bytes $rb, templates/mom_out_1024M_64M"
else
    fail "the template from results_bytes ($rb): $(ls "$work/B" "$work/B/templates" 2>&1 | tr '\n' ' ')"
fi
many 160 >"$work/huge.txt"
check 65 "results past the 1 GiB the validator reads (160 incidences x 100000 echo angles)" \
    gen -t "$work/huge.txt" --grid r=0.3 -n H -o "$work/H"
says "work unit 0 (r=0.3): .*the results would take .* (12 unknowns, 160 incidence x 100000 echo angles).*results_bytes" \
    "the message: the work unit, the size (the app's --check refuses it)"
# refusals: nothing written
check 65 "a work unit the app refuses (ka=0: radius 0)" \
    gen -t "$work/t.txt" --grid ka=3,0 solver=reference -n bad -o "$work/bad"
says "work unit 1 (ka=0 solver=reference): wu/bad_1.txt:[0-9]*: circle radius: .*(template line 5)" \
    "the message: the work unit, its parameters, the app's reason, the template line"
[ ! -e "$work/bad" ] && pass "nothing written" || fail "$work/bad written"
check 65 "the mixed-only app (--app mom_mixed) given a reference work unit" \
    gen -t "$work/t.txt" --grid ka=3 solver=mixed,reference --app mom_mixed -o "$work/x"
says "work unit 1 (ka=3 solver=reference): solver reference: the app mom_mixed runs solver mixed work only" \
    "the message: the work unit and why"
gen -t "$work/t.txt" --grid ka=3,4 solver=mixed --app mom_mixed -n M -o "$work/M" >/dev/null 2>&1 &&
    grep -q -- "--appname mom_mixed --wu_template templates/mom_mixed_in" "$work/M/submit.sh" &&
    pass "--app mom_mixed: mixed work units accepted, for templates/mom_mixed_in" ||
    fail "--app mom_mixed: $(cat "$work/M/submit.sh" 2>/dev/null | tr '\n' '|')"
check 65 "the faithful solver in single precision (the app's exit 69)" \
    gen -t <(sed 's/^solver .*/solver ${solver}\nprecision single/' "$work/t.txt") --grid ka=3 solver=faithful -o "$work/x"
says "the faithful solver runs in double only" "the message: the app's reason"
# a current statement: the .npy is the output template's second file
if gen -t <(echo "current every=2" | cat "$work/t.txt" -) --grid ka=3,4 solver=reference -n C \
        -o "$work/C" >/dev/null 2>&1 &&
    grep -q -- "--result_template templates/mom_out " "$work/C/submit.sh" &&
    grep -q "output limit 64+64 MiB" "$work/C/summary.txt"; then
    pass "a current statement: accepted, the currents within mom_out's 64 MiB .npy"
else
    fail "a current statement: $(cat "$work/C/summary.txt" 2>&1 | tail -3 | tr '\n' '|')"
fi
check 65 "a bad template: the first statement" \
    gen -t <(sed 's/^orrery-mom 1/orrery-fdtd 1/' "$work/t.txt") --grid ka=3 solver=reference -o "$work/x"
check 65 "a placeholder naming no sampled parameter" gen -t "$work/t.txt" --grid ka=3 -o "$work/x"
says "t.txt:9: \${...} uses 'solver', which is not sampled" "the message names template:line and the name"
check 65 "a sampled parameter the template never uses" \
    gen -t "$work/t.txt" --grid ka=3 solver=mixed w=3 -o "$work/x"
check 64 "a reserved parameter name (unknowns)" \
    gen -t "$work/t.txt" --grid ka=3 solver=mixed unknowns=1 -o "$work/x"
check 64 "a bad parameter value (not a number or a word)" \
    gen -t "$work/t.txt" --grid 'ka=3,4x' solver=mixed -o "$work/x"
check 66 "a missing template" gen -t "$work/none.txt" --grid ka=3 solver=mixed -o "$work/x"
check 1 "an output folder that is not empty" gen -t "$work/t.txt" --list "$work/sets.txt" -o "$work/g"
check 64 "no sampling" gen -t "$work/t.txt" -o "$work/x"
check 1 "a checker that is not executable" \
    "$wugen" mom --checker "$work/none" -t "$work/t.txt" --grid ka=3 solver=mixed -o "$work/x"
check 0 "--help" "$wugen" mom --help
grep -q "rsc_memory_bound bytes + 25% + 64 MiB" "$work/out" && grep -q "300 \* fill_entries" "$work/out" &&
    pass "--help documents the bounds" || fail "--help: $(head -3 "$work/out")"
[ ! -e "$work/x" ] && [ ! -e "$work/H" ] && pass "none of them wrote a folder" || fail "$work/x or $work/H written"

echo "== 2. templates"
xml_ok() { # well-formed once wrapped in one root element
    python3 -c 'import sys, xml.dom.minidom
xml.dom.minidom.parseString("<t>" + open(sys.argv[1]).read() + "</t>")' "$1" 2>&1
}
ok=1
for f in mom_in mom_out; do
    msg=$(xml_ok "$templates/$f") || { ok=0; fail "$f is not well-formed: $msg"; }
done
for e in "<open_name>mom_wu.txt</open_name>" "<file_number>0</file_number>" "<copy_file/>"; do
    grep -qF "$e" "$templates/mom_in" || { ok=0; fail "mom_in lacks $e"; }
done
grep -q "<no_delete/>" "$templates/mom_in" && { ok=0; fail "mom_in: a work unit's own input needs no <no_delete/>"; }
grep -q "<file_number>1</file_number>" "$templates/mom_in" && { ok=0; fail "mom_in: one input only"; }
for e in "<name><OUTFILE_0/></name>" "<generated_locally/>" "<upload_when_present/>" "<max_nbytes>67108864</max_nbytes>" \
    "<url><UPLOAD_URL/></url>" "<file_name><OUTFILE_0/></file_name>" "<open_name>mom_results.txt</open_name>"; do
    grep -qF "$e" "$templates/mom_out" || { ok=0; fail "mom_out lacks $e"; }
done
python3 - "$templates/mom_out" <<'X' || { ok=0; fail "mom_out: the second output is not the optional mom_current.npy"; }
import re, sys
t = open(sys.argv[1]).read()
refs = re.findall(r"<file_ref>(.*?)</file_ref>", t, re.S)
sys.exit(not (len(refs) == 2 and "<open_name>mom_current.npy</open_name>" in refs[1] and
              "<optional/>" in refs[1] and "<optional/>" not in refs[0] and
              t.count("<file_info>") == 2 and "<name><OUTFILE_1/></name>" in t))
X
# the generator writes its larger templates from the same text
python3 - "$wugen" "$templates/mom_out" <<'X' || { ok=0; fail "mom_out differs from the generator's out_template"; }
import os, sys
src = open(os.path.join(os.path.dirname(sys.argv[1]), "mom", "orrery-wugen-mom")).read()
space = {"__name__": "not_main"}
exec(compile(src, "orrery-wugen-mom", "exec"), space)
made = space["out_template"]((64 << 20, 64 << 20), space["Mom"]().output_names)
sys.exit(made != open(sys.argv[2]).read())
X
grep -qx "<result>" "$templates/mom_out" || { ok=0; fail "mom_out: <result> must end its line"; }
[ $ok = 1 ] && pass "mom_in and mom_out well-formed, with the required elements"

echo "== 3. orrery-validate, mom results"
if [ ! -x "$validate" ]; then
    fail "no orrery-validate (set ORR_VALIDATE, or ORR_APP in a build tree): '$validate'"
    echo "$passed passed, $failed failed"
    exit 1
fi
v=$validate
run() { # WU OUT THREADS: the app's results
    (cd "$work" && "$app" mom -w "$1" -o "$2" -i -c --nthreads "$3" >/dev/null 2>"$2.err") ||
        fail "the app on $1: $(tail -1 "$2.err")"
}
run "$work/g/wu/g_0.txt" "$work/a.txt" 1
run "$work/g/wu/g_0.txt" "$work/b.txt" 2
run "$work/g/wu/g_1.txt" "$work/mixed.txt" 1
run "$work/g/wu/g_2.txt" "$work/faithful.txt" 1
sed 's/^solver .*/solver reference\nprecision single/' "$work/g/wu/g_0.txt" >"$work/single_wu.txt"
run "$work/single_wu.txt" "$work/s.txt" 1
run "$work/single_wu.txt" "$work/s2.txt" 2
# edit IN OUT OP...: a copy of a results file, changed. OPs: db=K:D (echo
# line K's sigma times 10^(D/10), its dB plus D), rel=K:X (sigma times
# 1 + X), sigma=K:V (sigma V), raw=K:V (sigma V, the dB column kept),
# dbcol=K:X (the dB column plus X, sigma kept) and replace=KEY:TEXT (the
# line starting with KEY replaced by TEXT).
edit() {
    python3 - "$@" <<'EOF'
import math, sys
src, out, ops = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(src).read().split("\n")
echo = [i for i, l in enumerate(lines) if l.startswith("echo ")]
def set_sigma(k, s, keep_db=False):
    w = lines[echo[k]].split()
    w[3] = "%.17g" % s
    if not keep_db:
        w[4] = "%.17g" % (10 * math.log10(s)) if s > 0 else "-inf"
    lines[echo[k]] = " ".join(w)
for op in ops:
    kind, arg = op.split("=", 1)
    if kind == "replace":
        key, text = arg.split(":", 1)
        lines = [text if l.split(" ", 1)[0] == key else l for l in lines]
        continue
    k, x = arg.split(":")
    k, x = int(k), float(x)
    s = float(lines[echo[k]].split()[3])
    if kind == "db":
        set_sigma(k, s * 10 ** (x / 10))
    elif kind == "rel":
        set_sigma(k, s * (1 + x))
    elif kind == "sigma":
        set_sigma(k, x)
    elif kind == "raw":
        set_sigma(k, x, keep_db=True)
    elif kind == "dbcol":
        w = lines[echo[k]].split()
        w[4] = "%.17g" % (float(w[4]) + x)
        lines[echo[k]] = " ".join(w)
open(out, "w").write("\n".join(lines))
EOF
}
check 0 "init: the app's result" "$v" init "$work/a.txt"
check 0 "compare: two runs (1 and 2 threads)" "$v" compare "$work/a.txt" "$work/b.txt"
check 0 "compare: two runs in single precision (1 and 2 threads)" "$v" compare "$work/s.txt" "$work/s2.txt"
check 0 "init: the mixed solver's result" "$v" init "$work/mixed.txt"
check 0 "init: the faithful solver's result (growth factor, smallest pivot)" "$v" init "$work/faithful.txt"
# double: 1e-6 dB absolute; sigma 1e-6 relative
edit "$work/a.txt" "$work/d_in.txt" db=3:4e-7
edit "$work/a.txt" "$work/d_out.txt" db=3:4e-6
check 0 "double: an echo width 4e-7 dB apart" "$v" compare "$work/a.txt" "$work/d_in.txt"
check 1 "double: an echo width 4e-6 dB apart (the perturbed value)" "$v" compare "$work/a.txt" "$work/d_out.txt"
says "echo at incidence 0, angle 90: .* differ by .* dB (echo_db_tolerance 1e-06, double precision; " \
    "the message names the incidence, the angle, the key, the tolerance and the precision"
# single: 0.05 dB and 1e-2 relative
edit "$work/s.txt" "$work/s_in.txt" db=2:0.03
edit "$work/s.txt" "$work/s_out.txt" db=2:0.3
check 0 "single: an echo width 0.03 dB apart" "$v" compare "$work/s.txt" "$work/s_in.txt"
check 1 "single: an echo width 0.3 dB apart" "$v" compare "$work/s.txt" "$work/s_out.txt"
says "(echo_sigma_tolerance_single 0.01, single precision; " "the message: sigma's single tolerance"
edit "$work/s.txt" "$work/s_db.txt" db=2:0.045
check 0 "single: 0.045 dB apart (1.04% in sigma/lambda) with --echo-sigma-tolerance-single 0.02" \
    "$v" --echo-sigma-tolerance-single 0.02 compare "$work/s.txt" "$work/s_db.txt"
check 1 "single: 0.045 dB apart, sigma 1e-2 relative (the default)" "$v" compare "$work/s.txt" "$work/s_db.txt"
# a null: sigma far below the incidence's largest is compared to the pattern
peak=$(awk '$1 == "echo" && $2 == 0 { if ($4 > m) m = $4 } END { printf "%.17g", m }' "$work/a.txt")
edit "$work/a.txt" "$work/null1.txt" sigma=2:"$(python3 -c "print($peak * 1e-13)")"
edit "$work/a.txt" "$work/null2.txt" sigma=2:"$(python3 -c "print($peak * 2e-13)")"
edit "$work/a.txt" "$work/null3.txt" sigma=2:"$(python3 -c "print($peak * 1e-5)")"
edit "$work/a.txt" "$work/null4.txt" sigma=2:"$(python3 -c "print($peak * 1.00001e-5)")"
check 0 "a null at -130 dB, 3 dB apart: 1e-13 of the peak (within 1e-6 x the floor, 1e-6 of the peak)" \
    "$v" compare "$work/null1.txt" "$work/null2.txt"
check 1 "a value at -50 dB (above the floor), 1e-5 relative apart" \
    "$v" compare "$work/null3.txt" "$work/null4.txt"
# the configuration: keys and options
printf '# mom\necho_db_tolerance = 1e-4   # looser\n' >"$work/loose.conf"
check 0 "--config: echo_db_tolerance 1e-4 takes the 4e-6 dB result" \
    "$v" --config "$work/loose.conf" compare "$work/a.txt" "$work/d_out.txt"
check 0 "--echo-db-tolerance 1e-5 takes it too" "$v" --echo-db-tolerance 1e-5 compare "$work/a.txt" "$work/d_out.txt"
check 1 "--echo-sigma-tolerance 1e-8 refuses the 4e-7 dB one (9.2e-8 relative)" \
    "$v" --echo-sigma-tolerance 1e-8 compare "$work/a.txt" "$work/d_in.txt"
printf 'echo_tolerance = 1\n' >"$work/bad.conf"
check 3 "a configuration with an unknown key (transient)" "$v" --config "$work/bad.conf" init "$work/a.txt"
says "(mom: echo_db_tolerance, echo_sigma_tolerance, echo_db_tolerance_single, echo_sigma_tolerance_single, current_tolerance, current_tolerance_single)" \
    "the message lists the mom keys"
# truncated, missing, malformed
head -n -1 "$work/a.txt" >"$work/no_end.txt"
head -n 12 "$work/a.txt" >"$work/cut.txt"
head -c $(($(wc -c <"$work/a.txt") - 1)) "$work/a.txt" >"$work/no_newline.txt"
check 1 "init: truncated (no end line)" "$v" init "$work/no_end.txt"
says "truncated" "the message says truncated"
check 1 "compare: a truncated result" "$v" compare "$work/a.txt" "$work/cut.txt"
check 1 "init: no line end at its end" "$v" init "$work/no_newline.txt"
check 3 "compare: a missing file (transient)" "$v" compare "$work/a.txt" "$work/none.txt"
says "transient" "the message says transient"
check 3 "init: a missing file (transient)" "$v" init "$work/none.txt"
{ cat "$work/a.txt"; echo "echo 0 0 1 0.000000"; } >"$work/after_end.txt"
check 1 "init: a line after end" "$v" init "$work/after_end.txt"
edit "$work/a.txt" "$work/dbcol.txt" raw=1:1.5
check 1 "init: a dB column that is not its sigma's" "$v" init "$work/dbcol.txt"
# the dB column has 17 digits: it must be its sigma's to a libm's few ulp
db1=$(awk '$1 == "echo" { n++; if (n == 2) print $5 }' "$work/a.txt")
edit "$work/a.txt" "$work/db_ulp.txt" dbcol=1:"$(python3 -c "print(abs($db1) * 1e-14 + 1e-14)")"
edit "$work/a.txt" "$work/db_6dp.txt" dbcol=1:"$(python3 -c "print(abs($db1) * 1e-10 + 1e-10)")"
check 0 "init: a dB column 1e-14 relative from its sigma's (another libm's log10)" "$v" init "$work/db_ulp.txt"
check 1 "init: a dB column 1e-10 relative from its sigma's (not the value the app wrote)" \
    "$v" init "$work/db_6dp.txt"
# far_field, on the wavelength line
sed 's/ far_field consistent$/ far_field exact/' "$work/a.txt" >"$work/exact.txt"
check 0 "init: far_field exact with method mom" "$v" init "$work/exact.txt"
check 1 "compare: another far_field (same hash)" "$v" compare "$work/a.txt" "$work/exact.txt"
says "or far_field (its wavelength line differs)" "the message names far_field"
sed 's/ method mom \(.*\) far_field consistent$/ method lcn \1 far_field exact/' "$work/a.txt" >"$work/lcn_exact.txt"
check 1 "init: far_field exact with method lcn" "$v" init "$work/lcn_exact.txt"
sed 's/ far_field consistent$/ far_field midpoint/' "$work/a.txt" >"$work/ff_word.txt"
check 1 "init: an unknown far_field" "$v" init "$work/ff_word.txt"
sed 's/ far_field consistent$//' "$work/a.txt" >"$work/ff_none.txt"
check 1 "init: no far_field on the wavelength line" "$v" init "$work/ff_none.txt"
edit "$work/a.txt" "$work/neg.txt" raw=1:-1
check 1 "init: a negative sigma" "$v" init "$work/neg.txt"
sed 's/^\(echo [^ ]* [^ ]*\) [^ ]* [^ ]*$/\1 nan nan/' "$work/a.txt" >"$work/nan.txt"
check 1 "init: nan echo widths" "$v" init "$work/nan.txt"
sed '/^seconds /d' "$work/a.txt" >"$work/no_seconds.txt"
check 1 "init: no seconds line" "$v" init "$work/no_seconds.txt"
awk '/^solve / { held = $0; next } { print } /^seconds / { print held }' "$work/a.txt" >"$work/order.txt"
check 1 "init: the solve line after the seconds line (out of order)" "$v" init "$work/order.txt"
says "order.txt:[0-9]*: " "the message names file:line"
edit "$work/a.txt" "$work/be.txt" "replace=solve:solve backward_error 31 growth_factor nan smallest_pivot nan refinements 0"
check 1 "init: a backward error of 31 n eps in double precision" "$v" init "$work/be.txt"
says "backward error 31 n eps .* above 30" "the message names the backward error and the bound"
edit "$work/a.txt" "$work/be_inf.txt" "replace=solve:solve backward_error inf growth_factor nan smallest_pivot nan refinements 0"
check 1 "init: an infinite backward error" "$v" init "$work/be_inf.txt"
edit "$work/s.txt" "$work/be_single.txt" "replace=solve:solve backward_error 3e+06 growth_factor nan smallest_pivot nan refinements 0"
check 0 "init: a backward error of 3e6 double eps in single precision (0.006 of single's)" "$v" init "$work/be_single.txt"
edit "$work/a.txt" "$work/gf.txt" "replace=solve:solve backward_error 0.1 growth_factor 1 smallest_pivot nan refinements 0"
check 1 "init: a growth factor from the reference solver" "$v" init "$work/gf.txt"
edit "$work/a.txt" "$work/k.txt" "replace=wavelength:wavelength 1 k 6.3 unknowns $(awk '/^wavelength/ {print $6}' "$work/a.txt") method mom solver reference precision double far_field consistent"
check 1 "init: k not 2 pi / wavelength" "$v" init "$work/k.txt"
# another work unit, params, geometry, solver; mixed kinds
edit "$work/a.txt" "$work/wu.txt" "replace=work_unit:work_unit 0123456789abcdef"
check 1 "compare: another work unit hash" "$v" compare "$work/a.txt" "$work/wu.txt"
says "another work unit (work_unit 0123456789abcdef" "the message names both hashes"
sed 's/^param study admin_test$/param study other/' "$work/b.txt" >"$work/param.txt"
check 1 "compare: another param line (same hash)" "$v" compare "$work/a.txt" "$work/param.txt"
sed 's/^\(geometry circle radius\) .*/\1 0.5/' "$work/b.txt" >"$work/geom.txt"
check 1 "compare: another geometry (same hash)" "$v" compare "$work/a.txt" "$work/geom.txt"
sed 's/ solver reference / solver mixed /' "$work/b.txt" >"$work/solver.txt"
check 1 "compare: another solver (same hash)" "$v" compare "$work/a.txt" "$work/solver.txt"
sed '/^echo /{/^echo 90 /d}' "$work/b.txt" >"$work/fewer.txt"
check 1 "compare: fewer echo lines" "$v" compare "$work/a.txt" "$work/fewer.txt"
check 1 "compare: the double and the single precision runs" "$v" compare "$work/a.txt" "$work/s.txt"
fdtd_wu=$top/tests/data/fdtd/table_source.txt
if (cd "$work" && "$app" fdtd -w "$fdtd_wu" -o fdtd.txt -i -c >/dev/null 2>&1); then
    check 1 "compare: a mom result against an fdtd one" "$v" compare "$work/a.txt" "$work/fdtd.txt"
    says "an fdtd and a mom result" "the message says so"
else
    fail "the app on $fdtd_wu: no fdtd result to compare against"
fi
printf '<%s> %s </%s>\n' background_integral 0.0003 background_integral stream_integral 34.1 \
    stream_integral background_likelihood -3.3 background_likelihood stream_only_likelihood \
    -160.7 stream_only_likelihood search_likelihood -3.1 search_likelihood >"$work/sep.txt"
check 1 "compare: a separation result against a mom one" "$v" compare "$work/sep.txt" "$work/a.txt"
says "a separation and a mom result" "the message says so"
# script_validator's layout: the links in the project's bin/, run from tmp_HOST/
proj=$work/project
mkdir -p "$proj/bin" "$proj/tmp_host"
ln -s "$validate" "$proj/bin/orrery-validate-init"
ln -s "$validate" "$proj/bin/orrery-validate-compare"
in_tmp() { (cd "$proj/tmp_host" && "$@"); }
check 0 "via the links: init" in_tmp ../bin/orrery-validate-init "$work/a.txt"
check 0 "via the links: compare, two runs" in_tmp ../bin/orrery-validate-compare "$work/a.txt" "$work/b.txt"
check 1 "via the links: compare, beyond the tolerance" in_tmp ../bin/orrery-validate-compare "$work/a.txt" "$work/d_out.txt"
printf 'echo_db_tolerance = 1e-4\n' >"$proj/bin/orrery-validate.conf"
check 0 "via the links: bin/orrery-validate.conf's echo_db_tolerance" \
    in_tmp ../bin/orrery-validate-compare "$work/a.txt" "$work/d_out.txt"

echo "== 4. the currents' .npy"
sed 's/^solver .*/solver reference/' "$work/g/wu/g_0.txt" >"$work/cur_wu.txt"
echo "current every=3" >>"$work/cur_wu.txt"
runc() { # OUT NPY THREADS
    (cd "$work" && "$app" mom -w cur_wu.txt -o "$1" --npy "$2" -i -c --nthreads "$3" >/dev/null 2>"$1.err") ||
        fail "the app with currents: $(tail -1 "$work/$1.err")"
}
runc c1.txt c1.npy 1
runc c2.txt c2.npy 2
c1=$work/c1.txt n1=$work/c1.npy
grep -q "^current every 3 rows [0-9]* incidences [0-9]*$" "$c1" &&
    pass "the results' current line: $(grep '^current' "$c1")" || fail "no current line in $c1"
check 0 "init: the results and their currents" "$v" init "$c1" "$n1"
check 0 "init: the results alone (an older output template)" "$v" init "$c1"
check 0 "compare: 1 and 2 threads, with the currents (script_validator's four files)" \
    "$v" compare "$c1" "$n1" "$work/c2.txt" "$work/c2.npy"
npyedit() { # IN OUT PYTHON: a copy of a .npy, a changed by PYTHON
    python3 -c "import numpy as np, sys; a = np.load(sys.argv[1]); $3; np.save(sys.argv[2], a)" "$1" "$2"
}
if python3 -c "import numpy" 2>/dev/null; then
    npyedit "$n1" "$work/near.npy" "a[4, 2] += 1e-9 * abs(a[:, 2:4]).max()"
    npyedit "$n1" "$work/far.npy" "a[4, 3] += 1e-4 * abs(a[:, 2:4]).max()"
    npyedit "$n1" "$work/nan.npy" "a[1, 2] = np.nan"
    npyedit "$n1" "$work/short.npy" "a = a[:-1]"
    npyedit "$n1" "$work/f4.npy" "a = a.astype(np.float32)"
    check 0 "compare: a current moved by 1e-9 of the largest (current_tolerance 1e-6)" \
        "$v" compare "$c1" "$n1" "$c1" "$work/near.npy"
    check 1 "compare: a current moved by 1e-4 of the largest" "$v" compare "$c1" "$n1" "$c1" "$work/far.npy"
    says "currents .*c1.npy and .*far.npy: row 4, Im J: .* differ by .* of the largest .* (current_tolerance 1e-06, double precision)" \
        "the message: both files, the row, the quantity, the values and the tolerance"
    check 0 "compare: the same, with --current-tolerance 1e-3" \
        "$v" --current-tolerance 1e-3 compare "$c1" "$n1" "$c1" "$work/far.npy"
    check 1 "init: a current that is not finite" "$v" init "$c1" "$work/nan.npy"
    says "nan.npy: row 1, column 2: nan is not finite" "the message: file, row, column"
    check 1 "init: a row missing" "$v" init "$c1" "$work/short.npy"
    says "short.npy: float64 of 2 dimension(s), shape (.*); .*c1.txt's 'current' line wants" "the message: file, shape, why"
    check 1 "init: float32 currents" "$v" init "$c1" "$work/f4.npy"
else
    fail "no numpy for the .npy edits"
fi
head -c 200 "$n1" >"$work/cut.npy"
check 1 "init: a truncated .npy" "$v" init "$c1" "$work/cut.npy"
says "cut.npy: data truncated" "the message: file and why"
check 1 "init: the currents missing though the results name them" "$v" init "$c1" "$work/none.npy"
says "none.npy: missing, though .*c1.txt has 'current every 3'" "the message: which file, why"
check 0 "init: no current line, a results' .npy path absent (the optional file)" "$v" init "$work/a.txt" "$work/none.npy"
check 3 "init: three files for a mom result (the template's mistake: transient)" "$v" init "$c1" "$n1" "$n1"
asm=${ORR_ASSIMILATE:-$top/workunits/orrery-assimilate}
if [ -x "$asm" ] && "$asm" --project "$work/ap" --app mom --wu-name cur_7 --command-line "mom cur_wu.txt" \
        --validator "$v" 7 "$c1" "$n1" 2>"$work/asm.err" &&
    cmp -s "$n1" "$work/ap/orrery/mom-currents/cur_7.npy" &&
    grep -q '"currents": "mom-currents/cur_7.npy"' "$work/ap/orrery/mom.jsonl"; then
    pass "orrery-assimilate keeps the currents: orrery/mom-currents/cur_7.npy, named in the row"
else
    fail "orrery-assimilate and the currents: $(cat "$work/asm.err")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
