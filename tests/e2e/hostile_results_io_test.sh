#!/bin/sh
# Results and work units as files (issue 40, items 3, 5, 6 and 7):
#  1. the validator and the assimilator agree (the assimilator reads
#     results only through `orrery-validate canonical`): a diffraction
#     table with CRLF line ends, '# end points +4' or 'point -0' is
#     accepted by both, with the same row as the original's; a lossless
#     substrate's table with T_total and absorbed nan and T(0,0) 1.02 is
#     refused by both (the assimilator records it and exits 0, so
#     script_assimilator goes on), as is an ok point making half the light
#     again, which both accept as unbalanced; fdtd and mom results
#     assimilate;
#  2. a FIFO as the result or the table: exit 1 at once, never a hang;
#  3. -o naming the work unit (-w), by name, by a symlink, by a hard link:
#     exit 64 for diffraction, fdtd and mom, the work unit untouched;
#  4. an output that cannot be written (its folder missing, a folder that
#     is a file) is refused before computing: fdtd and mom exit 74 within
#     2 s of a unit that computes for seconds, also for --npy; a checkpoint
#     and an earlier results file are left as they were, and the next good
#     run resumes from the checkpoint;
#  5. gzip files of two members (cat a.gz b.gz) read whole: separation's
#     parameter file, an fdtd and a mom work unit give the results of the
#     plain file; garbage after the last member is refused (exit 65,
#     naming the file).
# Every run is bounded by `timeout`: a check that times out (124) fails.
# Environment: ORR_APP (the CPU app), ORR_DATA (tests/data/milkyway),
# ORR_ASSIMILATE (default: the build tree's workunits/orrery-assimilate).
# Skipped (77) without python3, gzip, mkfifo or timeout.
# shellcheck disable=SC2015,SC2016
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${ORR_APP:?set ORR_APP to the CPU app}" "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}"
app=$(readlink -f "$ORR_APP")
data=$(readlink -f "$ORR_DATA")
builddir=$(cd "$(dirname "$app")/.." && pwd)
asm=$(readlink -f "${ORR_ASSIMILATE:-$builddir/workunits/orrery-assimilate}")
validate=$builddir/workunits/orrery-validate
tdata=$top/tests/data
for c in python3 gzip mkfifo timeout; do
    command -v $c >/dev/null 2>&1 || { echo "SKIP: needs $c"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-results-io-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# check EXIT DESCRIPTION COMMAND...: the exit status under timeout $limit, the
# seconds it took in $took, stderr in $work/why
check() {
    c_want=$1 c_what=$2
    shift 2
    c_start=$(date +%s)
    timeout "${limit:-120}" "$@" >"$work/out" 2>"$work/why"
    c_rc=$?
    took=$(($(date +%s) - c_start))
    c_why=$(grep -v -e '^CPU backend' -e 'standalone mode' -e '^[a-z]*: [0-9]' "$work/why" | head -1)
    if [ $c_rc -eq 124 ]; then fail "$c_what: hung (killed after ${limit:-120} s)"
    elif grep -q Traceback "$work/why"; then fail "$c_what: a Python traceback: $(tail -1 "$work/why")"
    elif [ $c_rc -eq "$c_want" ]; then pass "$c_what: exit $c_rc $c_why"
    else fail "$c_what: exit $c_rc, expected $c_want $c_why"; fi
}
says() { # pattern description: the last check's stderr matches
    if grep -q -- "$1" "$work/why"; then pass "$2"; else fail "$2: $(tail -1 "$work/why")"; fi
}
quick() { # description: the last check took at most 2 s
    [ "$took" -le 2 ] && pass "$1 (${took} s)" || fail "$1: took $took s"
}
# the lines of a results file that do not depend on the run's timing
body() { grep -v -e '^seconds' -e '^cell_updates_per_second' -e '^application' "$1"; }
# ./asm_t TABLE APP ID FILE: assimilate FILE as work unit ID of APP into TABLE
printf '#!/bin/sh\nexec "%s" --table "$1" --app "$2" --command-line x --wu-name "w_$3" "$3" "$4"\n' \
    "$asm" >asm_t
chmod +x asm_t

echo "== 1. the validator and the assimilator agree"
cat >lossless.txt <<'EOF'
orrery-diffraction 1
parameter cd 300
period 500
orders 8
superstrate air
substrate glass
material air eps 1 0
material resist eps 2.25 0
material glass eps 2.25 0
layer thickness=200 background=air slices=16
shape trapezoid material=resist x=0 bottom=300 swa=88
wavelengths 450 633
theta 10 30
EOF
check 0 "diffraction on a lossless substrate" "$app" diffraction -i -w lossless.txt -o good.txt
sed 's/$/\r/' good.txt >crlf.txt
sed 's/^# end points 4$/# end points +4/' good.txt >plus.txt
sed 's/^point 0 /point -0 /' good.txt >minus0.txt
for f in crlf plus minus0; do
    check 0 "init, $f.txt" "$validate" init $f.txt
    check 0 "compare, $f.txt and the original" "$validate" compare good.txt $f.txt
    check 0 "assimilate, $f.txt" ./asm_t "$f.jsonl" diffraction 1 $f.txt
done
check 0 "assimilate, the original" ./asm_t good.jsonl diffraction 1 good.txt
for f in crlf plus minus0; do
    cmp -s good.jsonl $f.jsonl && pass "$f.txt: the original's row" || fail "$f.txt: another row: $(head -c 300 $f.jsonl)"
done
# point 1: T_total and absorbed nan on glass, T(0,0) 1.02 (the 1e6 nm layer's row)
# (fields: 11 R_total, 12 T_total, 13 absorbed, 14 n_orders, then m n R T)
awk '$1 == "point" && $2 == 1 { $12 = "-nan"; $13 = "-nan"
         for (j = 15; j < NF; j += 4) if ($j == 0 && $(j + 1) == 0) $(j + 3) = "1.02" }
     { print }' good.txt >nan.txt
check 1 "init, nan totals and T(0,0) 1.02 on a lossless substrate" "$validate" init nan.txt
says "nan.txt:[0-9]*: order (.*T is nan at every order" "the message names the line and an order"
check 0 "assimilate, the same table: refused, exit 0" ./asm_t nan.jsonl diffraction 2 nan.txt
says "refused, not assimilated: nan.txt:[0-9]*: order (" "with the validator's message"
[ ! -s nan.jsonl ] && grep -q '"wu_id": 2' diffraction-refused.jsonl && [ -f refused/2-nan.txt ] &&
    pass "no row; a refused row and the file kept" || fail "nan.jsonl: $(cat nan.jsonl 2>/dev/null)"
# T(0,0), T_total + 0.5 and absorbed - 0.5: the sums hold, the energy not
awk '$1 == "point" && $2 == 1 { $12 = sprintf("%.17g", $12 + 0.5); $13 = sprintf("%.17g", $13 - 0.5)
         for (j = 15; j < NF; j += 4) if ($j == 0 && $(j + 1) == 0) $(j + 3) = sprintf("%.17g", $(j + 3) + 0.5) }
     { print }' good.txt >energy.txt
check 1 "init, an ok point that makes half the light again" "$validate" init energy.txt
says "energy.txt:[0-9]*: an ok point that makes energy" "the message says so"
# the same point as the app writes it: unbalanced, accepted and assimilated
awk '$1 == "point" && $2 == 1 { $6 = "unbalanced" } { print }' energy.txt >unbalanced.txt
check 0 "init, the same point unbalanced" "$validate" init unbalanced.txt
check 0 "assimilate, the unbalanced table" ./asm_t unbalanced.jsonl diffraction 5 unbalanced.txt
python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["status"] == ["ok", "unbalanced", "ok", "ok"], r["status"]' unbalanced.jsonl &&
    pass "its row: status unbalanced at point 1" || fail "unbalanced.jsonl: $(head -c 300 unbalanced.jsonl)"
check 0 "assimilate, fdtd's cavity" "$app" fdtd -i -w "$tdata/fdtd/cavity_pec.txt" -o fdtd_res.txt
check 0 "assimilate, an fdtd result" ./asm_t fdtd.jsonl fdtd 3 fdtd_res.txt
check 0 "mom's circle" "$app" mom -i -w "$tdata/mom/circle_mom.txt" -o mom_res.txt --npy current.npy
check 0 "assimilate, a mom result" ./asm_t mom.jsonl mom 4 mom_res.txt
python3 - fdtd.jsonl fdtd_res.txt mom.jsonl mom_res.txt <<'EOF' && pass "fdtd and mom rows: every record's words" || fail "fdtd or mom rows"
import json, sys
for table, res in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    row = json.loads(open(table).read())
    lines = [l.split() for l in open(res).read().splitlines()[1:]]
    want = {}
    for w in lines:
        if w[0] not in ("work_unit", "application", "param", "end"):
            want.setdefault(w[0], []).append(w[1:])
    for key, recs in want.items():
        got = row[key]
        assert len(got) == len(recs), key
        for g, r in zip(got, recs):
            assert len(g) == len(r), (key, g, r)
            for x, y in zip(g, r):
                assert (x is None and y in ("nan", "-nan", "-inf")) or str(x) == y or x == float(y), (key, x, y)
    assert row["parameters"]["case"] in ("cavity_pec", "circle_mom"), row["parameters"]
EOF

echo "== 2. FIFOs"
mkfifo fifo
check 1 "a FIFO as the result" "$asm" --table f.jsonl --app diffraction --command-line x --wu-name f 5 fifo
check 1 "a FIFO as the table" "$asm" --table fifo --app diffraction --command-line x --wu-name f 5 good.txt
says "not a regular file" "the message says so"

echo "== 3. -o naming the work unit"
cp lossless.txt dif_wu.txt
cp "$tdata/fdtd/cavity_pec.txt" fdtd_wu.txt
cp "$tdata/mom/circle_mom.txt" mom_wu.txt
for k in diffraction fdtd mom; do
    w=${k}_wu.txt
    [ $k = diffraction ] && w=dif_wu.txt
    cp "$w" keep.txt
    ln -sf "$w" link.txt
    ln -f "$w" hard.txt
    check 64 "$k: -o the work unit" "$app" $k -i -w "$w" -o "$w"
    says "names the work unit" "the message says so"
    check 64 "$k: -o ./the work unit" "$app" $k -i -w "$w" -o "./$w"
    check 64 "$k: -o a symlink to it" "$app" $k -i -w "$w" -o link.txt
    check 64 "$k: -o a hard link to it" "$app" $k -i -w hard.txt -o "$w"
    cmp -s "$w" keep.txt && pass "$k: the work unit untouched" || fail "$k: the work unit changed"
done
check 64 "mom: --npy the work unit" "$app" mom -i -w mom_wu.txt -o r.txt --npy mom_wu.txt
check 64 "mom: --npy the results" "$app" mom -i -w mom_wu.txt -o r.txt --npy r.txt

echo "== 4. unwritable outputs, before computing"
kill_fdtd=$tdata/fdtd/kill_cavity.txt
kill_mom=$tdata/mom/kill_circle.txt
: >file
check 74 "fdtd: -o in a folder that does not exist" "$app" fdtd -i -w "$kill_fdtd" -o nowhere/r.txt
quick "refused before computing"
says "nowhere/r.txt" "the message names the path"
check 74 "mom: -o in a folder that is a file" "$app" mom -i -w "$kill_mom" -o file/r.txt
quick "refused before computing"
check 74 "mom: --npy in a folder that does not exist" "$app" mom -i -w "$tdata/mom/circle_mom.txt" -o r.txt --npy nowhere/c.npy
quick "refused before computing"
check 74 "diffraction: --npy in a folder that does not exist" "$app" diffraction -i -w lossless.txt -o r.txt --npy nowhere/p
[ ! -e r.txt ] && pass "no results written" || fail "r.txt written"
# a checkpoint from a killed run, an earlier results file: both survive a
# refused run, and the next good run resumes
mkdir ck && cd ck || exit 1
echo "earlier results" >results.txt
# the kill test's unit, a fifth of its steps: a few seconds
sed 's/^steps 4000$/steps 800/' "$kill_fdtd" >short.txt
"$app" fdtd -w short.txt --checkpoint-period 1 -o results.txt 2>/dev/null &
pid=$!
n=0
while [ ! -s fdtd_checkpoint ] && [ $n -lt 30 ]; do sleep 1; n=$((n + 1)); done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -s fdtd_checkpoint ]; then
    cp fdtd_checkpoint ../ckpt.saved
    check 74 "fdtd with a checkpoint: -o unwritable" "$app" fdtd -w short.txt -o nowhere/r.txt
    cmp -s fdtd_checkpoint ../ckpt.saved && grep -q "^earlier results$" results.txt &&
        pass "the checkpoint and the earlier results file untouched" || fail "the checkpoint or results.txt changed"
    check 0 "the good run after it" "$app" fdtd -w short.txt --checkpoint-period 1 -o results.txt
    says "resuming from checkpoint" "it resumed"
    grep -q '^end$' results.txt && pass "its results written whole" || fail "results.txt: $(tail -1 results.txt)"
else
    fail "no checkpoint within 30 s"
fi
cd "$work" || exit 1

echo "== 5. gzip of several members"
params=$data/params_head/astronomy_parameters-11-small.txt.gz
stars=$data/stars/stars-11.txt.gz
v="0.571713 12.312119 -3.305187 148.010257 22.453902 0.42035 -0.468858 0.760579 -1.361644 177.884238 23.882892 1.210639 -1.611974 8.534378 -1.361644 177.884238 10.882892 1.210639 -1.611974 8.534378"
split_gz() { # FILE OUT: FILE (plain or gzip) as two gzip members, cut at its middle line
    gzip -dcf "$1" >plain.tmp
    n=$(($(wc -l <plain.tmp) / 2))
    head -n $n plain.tmp | gzip -n >"$2"
    tail -n +$((n + 1)) plain.tmp | gzip -n >>"$2"
}
split_gz "$params" params2.gz
mkdir s1 s2
# shellcheck disable=SC2086
(cd s1 && timeout 60 "$app" -i -a "$params" -s "$stars" -np 20 -p $v -t >/dev/null 2>&1)
# shellcheck disable=SC2086
(cd s2 && timeout 60 "$app" -i -a ../params2.gz -s "$stars" -np 20 -p $v -t >/dev/null 2>&1)
[ -s s1/results.txt ] && cmp -s s1/results.txt s2/results.txt &&
    pass "separation: two-member parameter file, the same results" || fail "separation: results differ"
split_gz "$tdata/fdtd/cavity_pec.txt" fdtd2.gz
check 0 "fdtd: a two-member work unit" "$app" fdtd -i -w fdtd2.gz -o fdtd2_res.txt
body fdtd_res.txt >a.tmp
body fdtd2_res.txt >b.tmp
cmp -s a.tmp b.tmp && grep -q '^energy' b.tmp && pass "fdtd: the plain file's results, energy lines and all" ||
    fail "fdtd: results differ: $(diff a.tmp b.tmp | head -3)"
split_gz "$tdata/mom/circle_mom.txt" mom2.gz
check 0 "mom: a two-member work unit" "$app" mom -i -w mom2.gz -o mom2_res.txt --npy current2.npy
body mom_res.txt >a.tmp
body mom2_res.txt >b.tmp
cmp -s a.tmp b.tmp && grep -q '^echo' b.tmp && pass "mom: the plain file's results, echo lines and all" ||
    fail "mom: results differ: $(diff a.tmp b.tmp | head -3)"
{ cat mom2.gz; echo junk; } >mom3.gz
check 65 "mom: garbage after the last member" "$app" mom -i -w mom3.gz -o r.txt
says "mom3.gz: .*trailing data" "the message names the file"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
