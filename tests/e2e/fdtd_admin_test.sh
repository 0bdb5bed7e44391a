#!/bin/bash
# The project admins' tools for the fdtd kind (docs/fdtd.md section 6):
#  1. orrery-wugen fdtd: a grid batch (layout, the param lines, placeholders
#     and expressions, comments left alone, the index with each work unit's
#     estimates, jobs lines, submit.sh with the bounds from the checker's
#     rsc_fpops_est and bytes), a list of sets (words as values), a Latin hypercube
#     (one point per stratum, reproducible), a long run's larger output
#     template, and refusals with their exit codes: a work unit the checker
#     refuses (its message, the template line, nothing written), bad values,
#     a placeholder naming no sampled parameter, a parameter used nowhere, a
#     snapshot, results past 1 GiB, usage;
#  2. the templates: well-formed, one input opening as fdtd_wu.txt, the
#     output as fdtd_results.txt, "<result>" ending its line;
#  3. orrery-validate on made-up fdtd results, for each arithmetic and
#     precision: equal, within and beyond the tolerance (relative to the
#     series' largest value), energy and norms, other probes, steps, grid,
#     params or work unit, truncated and malformed files, a separation
#     result against an fdtd one, script_validator's links.
# The checker is a stub script that prints what the app's --check prints
# (so this runs before the app has the fdtd kind); ORR_FDTD_CHECKER=app
# uses ORR_APP instead, if it has the fdtd kind, and then also validates
# the app's own results from two CPU paths.
# Environment: ORR_APP (the CPU app: its build tree has orrery-validate),
# ORR_VALIDATE (default: the build tree's workunits/orrery-validate),
# ORR_WUGEN (default: the source tree's workunits/orrery-wugen),
# ORR_FDTD_CHECKER (stub or app; default stub).
# Skipped (77) without python3. Prints PASS or FAIL per check; exit 1 if
# any failed.
# shellcheck disable=SC2015,SC2016,SC2012
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
wugen=${ORR_WUGEN:-$top/workunits/orrery-wugen}
templates=$top/server_templates
app=
[ -n "${ORR_APP:-}" ] && app=$(readlink -f "$ORR_APP")
if [ -n "${ORR_VALIDATE:-}" ]; then
    validate=$(readlink -f "$ORR_VALIDATE")
elif [ -n "$app" ]; then
    validate=$(cd "$(dirname "$app")/.." && pwd)/workunits/orrery-validate
else
    validate=
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-fdtd-admin-XXXXXX")
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

# ---- the checker: the stub prints the keys of APP fdtd -w FILE --check ----
stub=$work/stub_checker
cat >"$stub" <<'EOF'
#!/bin/sh
# A stand-in for `orrery_cpu fdtd -w FILE --check`: reads grid, steps,
# probe, energy, arithmetic, precision and boundary; refuses (exit 65, one
# line FILE:LINE: KEY: what) a first statement other than orrery-fdtd 1, a
# grid size outside 1..8192, steps outside 1..1000000000, energy every=K
# above steps.
[ $# -eq 4 ] && [ "$1" = fdtd ] && [ "$2" = -w ] && [ "$4" = --check ] ||
    { echo "stub: error: usage: stub fdtd -w FILE --check" >&2; exit 64; }
exec awk -v f="$3" '
function bad(line, key, what) { printf "stub: error: %s:%d: %s: %s\n", f, line, key, what > "/dev/stderr"; failed = 1; exit 65 }
function whole(s) { return s ~ /^[0-9]+$/ }
{ sub(/#.*/, "") }
NF == 0 { next }
!first { first = 1; if ($0 !~ /^[ \t]*orrery-fdtd[ \t]+1[ \t]*$/) bad(NR, "orrery-fdtd", "the first statement must be orrery-fdtd 1"); next }
$1 == "grid" { for (a = 2; a <= 4; a++) if (!whole($a) || $a < 1 || $a > 8192) bad(NR, "grid", $a " is outside 1..8192"); nx = $2; ny = $3; nz = $4 }
$1 == "steps" { if (!whole($2) || $2 < 1 || $2 > 1000000000) bad(NR, "steps", "expected a whole number 1..1000000000, found " $2); steps = $2 }
$1 == "probe" { probes++ }
$1 == "energy" { for (a = 2; a <= NF; a++) if ($a ~ /^every=/) { every = substr($a, 7); eline = NR } }
$1 == "arithmetic" { arith = $2 }
$1 == "precision" { prec = $2 }
$1 == "boundary" { bound = $2 }
END {
    if (failed) exit 65
    if (!nx) bad(NR, "grid", "missing (a required statement)")
    if (!steps) bad(NR, "steps", "missing (a required statement)")
    if (every != "" && every + 0 > steps + 0) bad(eline, "energy every", every " is above steps (" steps ")")
    if (!probes) probes = 1
    cells = nx * ny * nz; padded = (nx + 2) * (ny + 2) * (nz + 2)
    printf "cells %d\npadded_cells %d\nsteps %d\ndt 1.9065748695310057e-12\n", cells, padded, steps
    printf "bytes %.0f\nflops %.6e\nprobes %d\n", 2 * 48 * padded + 8 * steps * probes + 64e6, 36 * cells * steps, probes
    # the cost lines of every kind: the results bounded as the app does
    printf "results_bytes %.0f\nnpy_bytes 0\n", 4096 + probes * 40 + steps * (8 + probes * 25)
    # the estimate for BOINC, unlike flops here: the generator takes this one
    printf "rsc_fpops_est %.6e\n", 36 * cells * steps + 1e9
    printf "arithmetic %s\nprecision %s\nboundary %s\n", arith ? arith : "faithful", prec ? prec : "double", bound ? bound : "thesis"
}' "$3"
EOF
chmod +x "$stub"
checker=$stub
if [ "${ORR_FDTD_CHECKER:-stub}" = app ]; then
    if [ -n "$app" ] && "$app" fdtd --help >/dev/null 2>&1; then
        checker=$app
    else
        echo "note: ORR_FDTD_CHECKER=app, but '$app' has no fdtd kind: the stub checks"
    fi
fi
echo "checker: $checker"
gen() { "$wugen" fdtd --checker "$checker" "$@"; }

echo "== 1. orrery-wugen fdtd"
cat >"$work/t.txt" <<'EOF'
orrery-fdtd 1
# a PEC cavity of ${n} cells a side (a placeholder in a comment stays)
param n ${n}
grid ${n} ${n} ${n}
cell 1e-3 1e-3 1e-3
steps 40
boundary pec
source waveform=gauss component=ez width=4 release_after=20
probe ez 2 3 4
probe hy ${n / 2} 3 3
energy every=10
arithmetic ${mode}
EOF
if gen -t "$work/t.txt" --grid n=8,10 mode=faithful,fast -n g -o "$work/g" >"$work/g.log" 2>&1; then
    pass "a 2 x 2 grid: $(head -1 "$work/g.log")"
else
    fail "a 2 x 2 grid: $(tail -2 "$work/g.log")"
fi
n=$(find "$work/g/wu" -name '*.txt' 2>/dev/null | wc -l)
[ "$n" = 4 ] && [ "$(sed -n 1p "$work/g/points.txt")" = "# wu n mode flops bytes" ] &&
    [ "$(sed -n 2p "$work/g/points.txt" | cut -d' ' -f1-3)" = "g_0 8 faithful" ] &&
    [ "$(sed -n 5p "$work/g/points.txt" | cut -d' ' -f1-3)" = "g_3 10 fast" ] &&
    pass "4 work units, n outermost; points.txt: wu, the parameters, flops, bytes" ||
    fail "$n work units; points.txt: $(tr '\n' '|' <"$work/g/points.txt" 2>/dev/null)"
wu3=$work/g/wu/g_3.txt
if [ "$(grep -v '^#' "$wu3" | head -3 | tr '\n' '|')" = "orrery-fdtd 1|param mode fast|param n 10|" ] &&
    grep -qx 'grid 10 10 10' "$wu3" && grep -qx 'probe hy 5 3 3' "$wu3" && grep -qx 'arithmetic fast' "$wu3" &&
    grep -q '^# a PEC cavity of \${n} cells' "$wu3"; then
    pass "work unit 3: param mode inserted after the first statement, param n \${n} in place, \${n / 2} = 5, comments as written"
else
    fail "work unit 3: $(grep -v '^#' "$wu3" | tr '\n' '|')"
fi
# the estimates: the checker's own numbers for work unit 3
"$checker" fdtd -w "$wu3" --check >"$work/check3" 2>/dev/null
flops=$(sed -n 's/^flops //p' "$work/check3")
bytes=$(sed -n 's/^bytes //p' "$work/check3")
est=$(sed -n 's/^rsc_fpops_est //p' "$work/check3")
want=$(python3 -c 'import math, sys
f, b = float(sys.argv[1]), float(sys.argv[2])
print("--rsc_fpops_est %.6e --rsc_fpops_bound %.6e --rsc_memory_bound %.0f" % (f, 10 * f, math.ceil(1.25 * b + 64 * 2**20)))' "$est" "$bytes")
[ "$(sed -n 5p "$work/g/points.txt")" = "g_3 10 fast $(printf '%.6e' "$flops") $bytes" ] &&
    pass "points.txt: work unit 3's flops and bytes as the checker prints them" ||
    fail "points.txt line 5: $(sed -n 5p "$work/g/points.txt"), checker: $flops $bytes"
job=$(grep -l -- "--wu_name g_3 " "$work/g"/jobs_*.txt 2>/dev/null | head -1)
k=$(basename "${job:-jobs_0.txt}" .txt | sed 's/jobs_//')
if [ "$(cat "$work/g"/jobs_*.txt | wc -l)" = 4 ] && [ -n "$job" ] &&
    grep -qx -- "--wu_name g_3 --command_line fdtd g_3.txt" "$job" &&
    grep -q -- "--result_template templates/fdtd_out $want --rsc_disk_bound [0-9]* --delay_bound 604800 --min_quorum 2 --target_nresults 2 --stdin <\"\$here/jobs_$k.txt\"" "$work/g/submit.sh" &&
    grep -q -- "--appname fdtd --wu_template templates/fdtd_in" "$work/g/submit.sh" &&
    grep -q 'bin/stage_file --copy "$here/wu"' "$work/g/submit.sh" && sh -n "$work/g/submit.sh" &&
    [ "$(wc -l <"$work/g/commands.txt")" = 4 ] &&
    grep -q "^jobs_$k.txt: 2 work unit(s): rsc_fpops_est $(printf '%.3e' "$est")," "$work/g/summary.txt" &&
    [ ! -e "$work/g/templates" ]; then
    pass "jobs lines, submit.sh (stage wu/, create_work with work unit 3's $want), commands.txt, summary.txt"
else
    fail "jobs/submit: $(grep -h g_3 "$work/g"/jobs_*.txt) / $(grep create_work "$work/g/submit.sh" | head -1) / want $want"
fi
groups=$(grep -c create_work "$work/g/submit.sh")
[ "$groups" = 2 ] && pass "two create_work calls: the work units of one size share their bounds" ||
    fail "$groups create_work calls, expected 2 (one per grid size)"
# a list of sets: values as written, words allowed
printf '# sets\nmode n\nfast 8   # a comment\nfaithful, 10\n' >"$work/list.txt"
gen -t "$work/t.txt" --list "$work/list.txt" -n p -o "$work/p" >/dev/null 2>&1 &&
    grep -qx 'param mode faithful' "$work/p/wu/p_1.txt" && grep -qx 'grid 10 10 10' "$work/p/wu/p_1.txt" &&
    [ "$(sed -n 2p "$work/p/points.txt" | cut -d' ' -f1-3)" = "p_0 fast 8" ] &&
    pass "--list: names from the first line, words and numbers as written" ||
    fail "--list: $(ls "$work/p" 2>&1 | tr '\n' ' ')"
# a Latin hypercube: one point per stratum, the same points for the same seed
sed 's/^grid .*/grid ${round(n)} 8 8/; s/^probe hy .*/probe hy 4 3 3/; s/^arithmetic .*/arithmetic fast/; s/^steps 40/steps ${round(steps)}/' \
    "$work/t.txt" >"$work/lhs.txt"
lhs() { gen -t "$work/lhs.txt" --lhs 6 --range n=6:12 steps=30:60 --seed "$1" -n "$2" -o "$work/$2"; }
if lhs 7 l1 >/dev/null 2>&1 && lhs 7 l2 >/dev/null 2>&1 && lhs 8 l3 >/dev/null 2>&1 &&
    python3 - "$work" <<'EOF'
import sys
w = sys.argv[1]
def pts(b):
    return [l.split()[1:3] for l in open("%s/%s/points.txt" % (w, b)) if not l.startswith("#")]
a, b, c = pts("l1"), pts("l2"), pts("l3")
assert a == b and a != c, (a, c)
for j, (lo, hi) in enumerate([(6, 12), (30, 60)]):
    strata = sorted(int((float(p[j]) - lo) / (hi - lo) * 6) for p in a)
    assert strata == list(range(6)), strata
EOF
then
    grep -q '^grid [0-9]* 8 8$' "$work/l1/wu/l1_0.txt" &&
        pass "--lhs 6: one point per stratum; seed 7 twice the same, seed 8 others; \${round(n)} a whole number" ||
        fail "--lhs: $(grep '^grid' "$work/l1/wu/l1_0.txt")"
else
    fail "--lhs: $(tr '\n' '|' <"$work/l1/points.txt" 2>/dev/null)"
fi
# a long run: results past 64 MiB get a larger output template, installed by submit.sh
probes() { # N: N probe lines on an 8^3 grid
    python3 -c 'import sys
n = int(sys.argv[1])
for p in range(n):
    print("probe ez %d %d %d" % (1 + p % 5, 1 + p // 5 % 5, 1 + p // 25))' "$1"
}
{ grep -v '^probe\|^energy' "$work/t.txt" | sed 's/^steps 40/steps ${steps}/'; probes 30; } >"$work/long.txt"
if gen -t "$work/long.txt" --grid n=8 mode=fast steps=200000 -n L -o "$work/L" >/dev/null 2>&1 &&
    grep -qF "<max_nbytes>268435456</max_nbytes>" "$work/L/templates/fdtd_out_256M" &&
    grep -q -- "--result_template templates/fdtd_out_256M " "$work/L/submit.sh" &&
    grep -q 'cp "$t" "$to"' "$work/L/submit.sh" && sh -n "$work/L/submit.sh" &&
    [ "$(sed 's/268435456/67108864/' "$work/L/templates/fdtd_out_256M")" = "$(cat "$templates/fdtd_out")" ]; then
    pass "200000 steps x 30 probes: templates/fdtd_out_256M (fdtd_out but for max_nbytes), which submit.sh installs"
else
    fail "a long run's template: $(ls "$work/L" "$work/L/templates" 2>&1 | tr '\n' ' ')"
fi
# (200 probe lines and 10^9 steps would pass 1 GiB whatever the checker; a
# whole-number steps the stub and the app both take)
{ grep -v '^probe\|^energy' "$work/t.txt" | sed 's/^steps 40/steps ${steps}/'; probes 100; } >"$work/huge.txt"
check 65 "results past the 1 GiB the validator reads (500000 steps x 100 probes)" \
    gen -t "$work/huge.txt" --grid n=8 mode=fast steps=500000 -n H -o "$work/H"
says "work unit 0 (n=8 mode=fast steps=500000): its results could reach .* fewer probes or steps" \
    "the message: the work unit, the size, what to do"
# refusals: nothing written
check 65 "a work unit the checker refuses (n=0: grid 0)" gen -t "$work/t.txt" --grid n=8,0 mode=fast -n bad -o "$work/bad"
says "work unit 1 (n=0 mode=fast): wu/bad_1.txt:[0-9]*: grid: .*(template line 4)" \
    "the message: the work unit, its parameters, the checker's reason, the template line"
[ ! -e "$work/bad" ] && pass "nothing written" || fail "$work/bad written"
check 65 "a bad template: the first statement" gen -t <(sed 's/^orrery-fdtd 1/orrery-fdtd 2/' "$work/t.txt") --grid n=8 mode=fast -o "$work/x"
check 64 "a bad parameter value (not a number or a word)" gen -t "$work/t.txt" --grid 'n=8,9x' mode=fast -o "$work/x"
check 64 "a bad parameter name" gen -t "$work/t.txt" --grid 'n-1=8' mode=fast -o "$work/x"
check 64 "a reserved parameter name (flops)" gen -t "$work/t.txt" --grid n=8 mode=fast flops=1 -o "$work/x"
check 65 "a placeholder naming no sampled parameter" gen -t "$work/t.txt" --grid n=8 -o "$work/x"
says "t.txt:12: \${...} uses 'mode', which is not sampled" "the message names template:line and the name"
check 65 "a sampled parameter the template never uses" gen -t "$work/t.txt" --grid n=8 mode=fast w=3 -o "$work/x"
check 65 "a sampled parameter whose param line is not its echo" \
    gen -t <(sed 's/^param n \${n}/param n 5/' "$work/t.txt") --grid n=8 mode=fast -o "$work/x"
check 65 "a snapshot (the output template uploads the results only)" \
    gen -t <(echo "snapshot field=ez every=2" | cat "$work/t.txt" -) --grid n=8 mode=fast -o "$work/x"
check 65 "a call other than the documented functions" \
    gen -t <(sed 's/^grid .*/grid ${exp(n)} 8 8/' "$work/t.txt") --grid n=8 mode=fast -o "$work/x"
printf 'n mode\n8 fast\n8 fast\n' >"$work/repeat.txt"
check 65 "--list: a set given twice" gen -t "$work/t.txt" --list "$work/repeat.txt" -o "$work/x"
check 66 "a missing template" gen -t "$work/none.txt" --grid n=8 mode=fast -o "$work/x"
check 66 "a missing list" gen -t "$work/t.txt" --list "$work/none.txt" -o "$work/x"
check 1 "an output folder that is not empty" gen -t "$work/t.txt" --grid n=8 mode=fast -o "$work/g"
check 64 "no sampling" gen -t "$work/t.txt" -o "$work/x"
check 64 "--grid and --list together" gen -t "$work/t.txt" --grid n=8 mode=fast --list "$work/list.txt" -o "$work/x"
check 64 "--grid COUNT 0" gen -t "$work/t.txt" --grid n=8:10:0 mode=fast -o "$work/x"
check 64 "an unknown option" gen -t "$work/t.txt" --grid n=8 mode=fast --frobnicate -o "$work/x"
check 1 "a checker that is not executable" "$wugen" fdtd --checker "$work/none" -t "$work/t.txt" --grid n=8 mode=fast -o "$work/x"
check 0 "--help" "$wugen" fdtd --help
grep -q "rsc_memory_bound bytes + 25% + 64 MiB" "$work/out" && grep -q -- "--checker APP" "$work/out" &&
    pass "--help documents the memory bound and --checker" || fail "--help: $(head -3 "$work/out")"
[ ! -e "$work/x" ] && [ ! -e "$work/H" ] && pass "none of them wrote a folder" || fail "$work/x or $work/H written"

echo "== 2. templates"
xml_ok() { # well-formed once wrapped in one root element
    python3 -c 'import sys, xml.dom.minidom
xml.dom.minidom.parseString("<t>" + open(sys.argv[1]).read() + "</t>")' "$1" 2>&1
}
ok=1
for f in fdtd_in fdtd_out; do
    msg=$(xml_ok "$templates/$f") || { ok=0; fail "$f is not well-formed: $msg"; }
done
for e in "<open_name>fdtd_wu.txt</open_name>" "<file_number>0</file_number>" "<copy_file/>"; do
    grep -qF "$e" "$templates/fdtd_in" || { ok=0; fail "fdtd_in lacks $e"; }
done
grep -q "<no_delete/>" "$templates/fdtd_in" && { ok=0; fail "fdtd_in: a work unit's own input needs no <no_delete/>"; }
grep -q "<file_number>1</file_number>" "$templates/fdtd_in" && { ok=0; fail "fdtd_in: one input only"; }
for e in "<name><OUTFILE_0/></name>" "<generated_locally/>" "<upload_when_present/>" "<max_nbytes>67108864</max_nbytes>" \
    "<url><UPLOAD_URL/></url>" "<file_name><OUTFILE_0/></file_name>" "<open_name>fdtd_results.txt</open_name>"; do
    grep -qF "$e" "$templates/fdtd_out" || { ok=0; fail "fdtd_out lacks $e"; }
done
grep -qx "<result>" "$templates/fdtd_out" || { ok=0; fail "fdtd_out: <result> must end its line"; }
[ $ok = 1 ] && pass "fdtd_in and fdtd_out well-formed, with the required elements"

echo "== 3. orrery-validate, fdtd results"
if [ -z "$validate" ] || [ ! -x "$validate" ]; then
    fail "no orrery-validate (set ORR_VALIDATE, or ORR_APP in a build tree): '$validate'"
    echo "$passed passed, $failed failed"
    exit 1
fi
# mk OUT key=value...: a made-up results file. Keys: arithmetic, precision,
# steps, probes (FIELD:I:J:K,...), wu (hash), param (NAME:VALUE), dt,
# series=STEP:PROBE:X (value + X * the probe series' largest |value|),
# energy=STEP:X, norm=FIELD:X (relative), end=0 (no end line),
# cut=N (only the first N lines, no end), nan=STEP:PROBE, noise=PROBE:SEED
# (the probe's series round-off noise of 1e-19), hznoise=X (hz's norms X
# times 1e-19: a component zero by symmetry), tables=HASH (a host_tables
# line: results from one host's libm tables), lastdigit=STEP:PROBE (that
# value's last printed digit changed: 1 ulp or so)
mk() {
    python3 - "$@" <<'EOF'
import math, sys
out, o = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
steps = int(o.get("steps", 60))
probes = [p.split(":") for p in o.get("probes", "ez:4:5:6,hy:6:4:4,ex:2:2:2").split(",")]
single = o.get("precision", "double") == "single"
g = "%.9g" if single else "%.17g"
lines = ["# orrery fdtd results 1", "work_unit %s" % o.get("wu", "0123456789abcdef"),
         "application orrery 0.1.0 made-up by fdtd_admin_test.sh", "param %s" % o.get("param", "n 8").replace(":", " "),
         "grid 8 8 8 cell 0.001 0.001 0.001 dt %s steps %d boundary pec arithmetic %s precision %s"
         % (o.get("dt", "1.9065748695310057e-12"), steps, o.get("arithmetic", "faithful"), o.get("precision", "double"))]
if "tables" in o:
    lines.append("host_tables %s" % o["tables"])
lines += ["probe %d %s %s %s %s" % (p, f, i, j, k) for p, (f, i, j, k) in enumerate(probes)]
def value(n, p):   # a pulse that rings: large mid-series, small at both ends
    return (p + 1) * 0.37 * math.sin(0.7 * n + p) * math.exp(-((n - steps / 2) / (steps / 6)) ** 2)
series = [[value(n, p) for p in range(len(probes))] for n in range(1, steps + 1)]
if "series" in o:
    s, p, x = o["series"].split(":")
    big = max(abs(v[int(p)]) for v in series)
    series[int(s) - 1][int(p)] += float(x) * big
if "noise" in o:
    p, seed = (int(x) for x in o["noise"].split(":"))
    for n, vals in enumerate(series, 1):
        vals[p] = 1e-19 * math.sin(n * seed)
if "nan" in o:
    s, p = o["nan"].split(":")
    series[int(s) - 1][int(p)] = float("nan")
lines += ["series %d %s" % (n, " ".join(g % v for v in vals)) for n, vals in enumerate(series, 1)]
if "lastdigit" in o:
    s, p = (int(x) for x in o["lastdigit"].split(":"))
    w = lines[-steps - 1 + s].split()
    mant, e = (w[2 + p].split("e") + [""])[:2]
    mant = mant[:-1] + ("1" if mant[-1] != "1" else "2")
    w[2 + p] = mant + ("e" + e if e else "")
    lines[-steps - 1 + s] = " ".join(w)
energy = [(k, 1e-20 * (1 - math.exp(-k / 15.0))) for k in range(10, steps + 1, 10)]
if "energy" in o:
    s, x = o["energy"].split(":")
    top = max(e for _, e in energy)
    energy = [(k, e + float(x) * top if k == int(s) else e) for k, e in energy]
lines += ["energy %d %.17g" % ke for ke in energy]
norms = {f: (0.5 + i / 10.0, 0.01 * (i + 1)) for i, f in enumerate(["ex", "ey", "ez", "hx", "hy", "hz"])}
if "hznoise" in o:
    norms["hz"] = (float(o["hznoise"]) * 1e-19, float(o["hznoise"]) * 1e-20)
if "norm" in o:
    f, x = o["norm"].split(":")
    norms[f] = (norms[f][0] * (1 + float(x)), norms[f][1])
lines += ["norm %s %.17g %.17g" % (f, l2, mx) for f, (l2, mx) in norms.items()]
lines += ["cell_updates_per_second 1.5e+08", "seconds 0.0123"]
if o.get("end", "1") == "1":
    lines.append("end")
if "cut" in o:
    lines = lines[:int(o["cut"])]
open(out, "w").write("\n".join(lines) + "\n")
EOF
}
v="$validate"
# for each arithmetic and precision: its tolerance, within (0.4 tol) and
# beyond (4 tol), the perturbation at a step where the value is small
# (step 3: near the series' start): relative to the field's largest value
# (here the probe's own series: the H field's only probe, above its norms)
for mode in "faithful double 1e-12" "fast double 1e-9" "faithful single 1e-5" "fast single 1e-3"; do
    read -r a p tol <<<"$mode"
    m="$a $p"
    base=$work/${a}_$p
    mk "$base.txt" arithmetic="$a" precision="$p"
    mk "$base-in.txt" arithmetic="$a" precision="$p" series="3:1:$(python3 -c "print(0.4 * $tol)")"
    mk "$base-out.txt" arithmetic="$a" precision="$p" series="3:1:$(python3 -c "print(4 * $tol)")"
    mk "$base-ein.txt" arithmetic="$a" precision="$p" energy="20:$(python3 -c "print(0.4 * $tol)")"
    mk "$base-eout.txt" arithmetic="$a" precision="$p" energy="20:$(python3 -c "print(4 * $tol)")"
    mk "$base-nin.txt" arithmetic="$a" precision="$p" norm="hy:$(python3 -c "print(0.4 * $tol)")"
    mk "$base-nout.txt" arithmetic="$a" precision="$p" norm="hy:$(python3 -c "print(4 * $tol)")"
    check 0 "$m: init" "$v" init "$base.txt"
    check 0 "$m: compare, identical" "$v" compare "$base.txt" "$base.txt"
    check 0 "$m: a probe value 0.4 x $tol of the field's largest apart" "$v" compare "$base.txt" "$base-in.txt"
    check 1 "$m: a probe value 4 x $tol of the field's largest apart" "$v" compare "$base.txt" "$base-out.txt"
    says "probe 1: step 3 differs by .* (tolerance $(printf '%g' "$tol"), $m; " \
        "$m: the message names the probe, the step, the tolerance and the mode"
    check 0 "$m: an energy 0.4 x $tol of the largest apart" "$v" compare "$base.txt" "$base-ein.txt"
    check 1 "$m: an energy 4 x $tol of the largest apart" "$v" compare "$base.txt" "$base-eout.txt"
    check 0 "$m: a norm 0.4 x $tol apart (hy: the H field's largest L2 norm)" "$v" compare "$base.txt" "$base-nin.txt"
    check 1 "$m: a norm 4 x $tol apart" "$v" compare "$base.txt" "$base-nout.txt"
done
# faithful results from the same host tables are bit-identical from every
# backend: compared exactly, so a last-digit change is refused; fast ones
# (and faithful ones from two hosts' tables) within their tolerance
for a in faithful fast; do
    for p in double single; do
        mk "$work/x_$a$p.txt" arithmetic=$a precision=$p tables=00c0ffee00c0ffee
        mk "$work/y_$a$p.txt" arithmetic=$a precision=$p tables=00c0ffee00c0ffee lastdigit=30:0
    done
done
cmp -s "$work/x_faithfuldouble.txt" "$work/y_faithfuldouble.txt" &&
    fail "lastdigit changed nothing" || pass "lastdigit: one value's last printed digit changed"
check 0 "faithful double, same host tables: identical results" \
    "$v" compare "$work/x_faithfuldouble.txt" "$work/x_faithfuldouble.txt"
check 1 "faithful double, same host tables: the last digit of one value refused (exact)" \
    "$v" compare "$work/x_faithfuldouble.txt" "$work/y_faithfuldouble.txt"
says "x_faithfuldouble.txt:[0-9]* and .*y_faithfuldouble.txt:[0-9]*: probe 0 at step 30: .* and .* (faithful double: bit-identical backends, host_tables 00c0ffee00c0ffee: compared exactly)" \
    "the message: both files and lines, the quantity, both values, why exact"
check 1 "faithful single, same host tables: the last digit refused (exact)" \
    "$v" compare "$work/x_faithfulsingle.txt" "$work/y_faithfulsingle.txt"
check 0 "fast double: the last digit within 1e-9" "$v" compare "$work/x_fastdouble.txt" "$work/y_fastdouble.txt"
check 0 "fast single: the last digit within 1e-3" "$v" compare "$work/x_fastsingle.txt" "$work/y_fastsingle.txt"
mk "$work/z_faithfuldouble.txt" arithmetic=faithful precision=double tables=0badc0de0badc0de lastdigit=30:0
check 0 "faithful double, another host's tables: the last digit within 1e-12" \
    "$v" compare "$work/x_faithfuldouble.txt" "$work/z_faithfuldouble.txt"
mk "$work/t2.txt" tables=00c0ffee00c0ffee
sed 's/^host_tables .*/&\nhost_tables 00c0ffee00c0ffee/' "$work/t2.txt" >"$work/t3.txt"
check 1 "init: two host_tables lines" "$v" init "$work/t3.txt"
sed 's/^host_tables .*/host_tables 00C0FFEE/' "$work/t2.txt" >"$work/t4.txt"
check 1 "init: a malformed host_tables line" "$v" init "$work/t4.txt"
# the app's own: one run against itself and another thread count, exactly
f=$work/faithful_double.txt
# the tolerance comes from the files' mode: 1e-10 apart fails faithful double, passes fast double
mk "$work/fd-1e10.txt" series=3:1:1e-10
mk "$work/fast-1e10.txt" arithmetic=fast series=3:1:1e-10
check 1 "faithful double, 1e-10 apart: beyond 1e-12" "$v" compare "$f" "$work/fd-1e10.txt"
check 0 "fast double, 1e-10 apart: within 1e-9" "$v" compare "$work/fast_double.txt" "$work/fast-1e10.txt"
check 1 "faithful against fast (another grid line)" "$v" compare "$f" "$work/fast_double.txt"
# a component zero by symmetry holds round-off noise, which differs between
# backends by 100% of itself: compared to its field's size, it agrees
mk "$work/noise1.txt" noise=1:1 hznoise=7.9
mk "$work/noise2.txt" noise=1:2 hznoise=8.8
check 0 "a probe and the hz norms holding noise of 1e-19 only: within the H field's size" \
    "$v" compare "$work/noise1.txt" "$work/noise2.txt"
mk "$work/probes.txt" probes=ez:4:5:6,hy:6:4:5,ex:2:2:2
mk "$work/probes2.txt" probes=ez:4:5:6,hy:6:4:4
mk "$work/steps.txt" steps=61
mk "$work/dt.txt" dt=1.9e-12
mk "$work/param.txt" param=n:9
mk "$work/wu.txt" wu=0123456789abcdee
check 1 "another probe cell" "$v" compare "$f" "$work/probes.txt"
says "another 'probe' line" "the message says so"
check 1 "fewer probes" "$v" compare "$f" "$work/probes2.txt"
check 1 "other steps" "$v" compare "$f" "$work/steps.txt"
says "61 steps, the other result 60" "the message names the steps"
check 1 "another dt (grid line)" "$v" compare "$f" "$work/dt.txt"
check 1 "another param line" "$v" compare "$f" "$work/param.txt"
check 1 "another work unit hash" "$v" compare "$f" "$work/wu.txt"
# truncated and malformed
mk "$work/no_end.txt" end=0
mk "$work/cut.txt" cut=40
mk "$work/nan.txt" nan=7:0
head -c $(($(wc -c <"$f") - 1)) "$f" >"$work/no_newline.txt"
{ cat "$f"; echo "series 61 0 0 0"; } >"$work/after_end.txt"
grep -v '^series 17 ' "$f" >"$work/gap.txt"
sed 's/^series 5 \([^ ]*\) .*/series 5 \1/' "$f" >"$work/short_row.txt"
grep -v '^norm hz' "$f" >"$work/five_norms.txt"
sed 's/^probe 2 ex/probe 2 ee/' "$f" >"$work/field.txt"
sed '/^series 1 /i energy 10 1' "$f" >"$work/order.txt"
check 1 "init, no end line (truncated)" "$v" init "$work/no_end.txt"
says "truncated" "the message says truncated"
check 1 "compare, no end line (truncated)" "$v" compare "$f" "$work/no_end.txt"
check 1 "init, cut in the series" "$v" init "$work/cut.txt"
check 1 "init, no line end at its end" "$v" init "$work/no_newline.txt"
check 1 "init, a line after end" "$v" init "$work/after_end.txt"
check 1 "init, a series line missing" "$v" init "$work/gap.txt"
check 1 "init, a series line short of a value" "$v" init "$work/short_row.txt"
check 1 "init, nan in a series" "$v" init "$work/nan.txt"
check 1 "init, five norm lines" "$v" init "$work/five_norms.txt"
check 1 "init, an unknown probe field" "$v" init "$work/field.txt"
check 1 "init, an energy line before the series" "$v" init "$work/order.txt"
says "order.txt:[0-9]*: " "the message names file:line"
printf '<%s> %s </%s>\n' background_integral 0.0003 background_integral stream_integral 34.1 \
    stream_integral background_likelihood -3.3 background_likelihood stream_only_likelihood \
    -160.7 stream_only_likelihood search_likelihood -3.1 search_likelihood >"$work/sep.txt"
check 1 "compare, an fdtd result against a separation one" "$v" compare "$f" "$work/sep.txt"
says "a separation and an fdtd result" "the message says so"
# script_validator's layout: the links in the project's bin/, run from tmp_HOST/
proj=$work/project
mkdir -p "$proj/bin" "$proj/tmp_host"
ln -s "$validate" "$proj/bin/orrery-validate-init"
ln -s "$validate" "$proj/bin/orrery-validate-compare"
in_tmp() { (cd "$proj/tmp_host" && "$@"); }
check 0 "via the links: init" in_tmp ../bin/orrery-validate-init "$f"
check 0 "via the links: compare, within" in_tmp ../bin/orrery-validate-compare "$f" "$work/faithful_double-in.txt"
check 1 "via the links: compare, beyond" in_tmp ../bin/orrery-validate-compare "$f" "$work/faithful_double-out.txt"
# the app's own results: the scalar CPU path and the best this CPU runs
# (ORR_FDTD_CHECKER=app only)
if [ "$checker" = "$app" ]; then
    res() { # OUT [OPTIONS]
        local to=$1
        shift
        (cd "$work" && "$app" fdtd -w "$work/g/wu/g_1.txt" -o "$to" -i -c --nthreads 1 --no-progress \
            "$@" >/dev/null 2>&1)
    }
    if res "$work/app_scalar.txt" --cpu-path scalar && res "$work/app_best.txt"; then
        check 0 "the app's results: init" "$v" init "$work/app_scalar.txt"
        check 0 "the app's results: the scalar path against the best" \
            "$v" compare "$work/app_scalar.txt" "$work/app_best.txt"
    else
        fail "the app on work unit g_1: no results"
    fi
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
