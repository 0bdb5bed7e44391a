#!/bin/sh
# orrery-assimilate, the script BOINC's script_assimilator runs for each
# finished work unit (workunits/orrery-assimilate):
#  1. the CPU app's stripe-11 sample result -> one row: the result's texts
#     (search likelihood as the app wrote it), the 20 parameters; running
#     it again appends nothing;
#  2. a bundle of two members -> two rows with the split parameter
#     vectors; a missing member tag, a NaN, a vector that does not split,
#     a bad <number_params_per_WU>: refused (exit 0, no row in the table,
#     a row in separation-refused.jsonl and the file kept; the validator
#     refuses them too), a missing result (a lost upload: recorded, no
#     copy), a validator that writes no JSON or dies on a file (refused,
#     the file kept); an unknown app, a FIFO as the
#     result or the table: exit 1 at once, no row;
#  3. --error rows (once), usage errors (exit 2), a missing config.xml,
#     a torn last line; every table line parses as JSON;
#  4. the database path with a stub MySQLdb (PYTHONPATH) and a fake
#     PROJECT/config.xml, called as script_assimilator calls it:
#     ../bin/orrery-assimilate from PROJECT/tmp_host/, bin/ holding a link.
# Environment: ORR_APP (the CPU app), ORR_DATA (tests/data/milkyway),
# ORR_ASSIMILATE (default: the source tree's workunits/orrery-assimilate).
# Skipped (77) without python3.
# shellcheck disable=SC2015
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${ORR_APP:?set ORR_APP to the CPU app}" "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}"
app=$(readlink -f "$ORR_APP")
data=$(readlink -f "$ORR_DATA")
asm=$(readlink -f "${ORR_ASSIMILATE:-$top/workunits/orrery-assimilate}")
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-assimilate-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# check EXIT DESCRIPTION COMMAND...: the exit status, no traceback, at most
# one line on stderr when it fails
check() {
    c_want=$1 c_what=$2
    shift 2
    "$@" >"$work/out" 2>"$work/why"
    c_rc=$?
    if grep -q Traceback "$work/why"; then
        fail "$c_what: a Python traceback: $(tail -1 "$work/why")"
    elif [ $c_rc -ne "$c_want" ]; then
        fail "$c_what: exit $c_rc, expected $c_want $(head -1 "$work/why")"
    elif [ "$c_want" -ne 0 ] && [ "$(wc -l <"$work/why")" -ne 1 ]; then
        fail "$c_what: $(wc -l <"$work/why") lines on stderr, expected one"
    else
        pass "$c_what: exit $c_rc $(head -1 "$work/why")"
    fi
}
nrows() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
# raw text of KEY in line N of FILE (a list without its brackets)
raw() {
    python3 -c 'import re, sys
lines = open(sys.argv[1]).readlines()
m = re.search(r"\"%s\": (\[[^]]*\]|[^,}]*)" % sys.argv[3], lines[int(sys.argv[2]) - 1])
v = m.group(1) if m else ""
print(v[1:-1] if v.startswith("[") else v)' "$@" 2>/dev/null
}
tagtext() { sed -n "s:.*<$2> *\\([^ <]*\\).*:\\1:p" "$1"; }
commas() { echo "$1" | sed 's/ /, /g'; }
all_json() { python3 -c 'import json, sys
for f in sys.argv[1:]:
    for n, line in enumerate(open(f), 1):
        try:
            json.loads(line)
        except ValueError as e:
            sys.exit("%s:%d: %s" % (f, n, e))' "$@"; }

v="0.571713 12.312119 -3.305187 148.010257 22.453902 0.42035 -0.468858 0.760579 -1.361644 177.884238 23.882892 1.210639 -1.611974 8.534378 -1.361644 177.884238 10.882892 1.210639 -1.611974 8.534378"
v2=$(echo "$v" | sed 's/^0\.571713 12\.312119/0.5 11.0/')
cmd="-t -np 20 -p $v"
proj=$work/proj
table=$proj/orrery/separation.jsonl
errors=$proj/orrery/separation-errors.jsonl
t() { "$asm" --project "$proj" "$@"; }

echo "== 1. the sample result"
mkdir -p "$work/run" "$proj"
# shellcheck disable=SC2086
if ! (cd "$work/run" && "$app" -i -a "$data/params_head/astronomy_parameters-11-small.txt.gz" \
    -s "$data/stars/stars-11.txt.gz" -np 20 -p $v -t >/dev/null 2>stderr.txt); then
    fail "the CPU app on the sample: $(tail -2 "$work/run/stderr.txt")"
    echo "$passed passed, $failed failed"
    exit 1
fi
res=$work/run/results.txt
check 0 "the sample result" t --wu-name sample_0 --app separation --command-line "$cmd" 101 "$res"
app_sl=$(tagtext "$res" search_likelihood)
got=$(raw "$table" 1 search_likelihood)
if [ "$(nrows "$table")" = 1 ] && [ -n "$app_sl" ] && [ "$got" = "$app_sl" ] &&
    awk -v a="$got" 'BEGIN { d = a + 3.125097883803232; exit !(d <= 1e-12 && -d <= 1e-12) }'; then
    pass "one row, search_likelihood $got as the app wrote it (published -3.125097883803232)"
else
    fail "rows $(nrows "$table"), search_likelihood '$got', the app's '$app_sl'"
fi
[ "$(raw "$table" 1 parameters)" = "$(commas "$v")" ] && pass "parameters: the 20 values, as given" ||
    fail "parameters: $(raw "$table" 1 parameters)"
st=$(sed -n 's:.*<stream_integral> *\([^<]*[^ <]\) *<.*:\1:p' "$res" | tr -s ' ')
[ "$(raw "$table" 1 stream_integrals)" = "$(commas "$st")" ] &&
    [ "$(raw "$table" 1 background_integral)" = "$(tagtext "$res" background_integral)" ] &&
    pass "stream_integrals and background_integral: the result's texts" ||
    fail "stream_integrals $(raw "$table" 1 stream_integrals), result: $st"
python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline())
keys = ["wu", "wu_id", "member", "parameters", "search_likelihood", "background_integral",
        "stream_integrals", "background_likelihood", "stream_only_likelihoods"]
assert list(r) == keys, list(r)
assert (r["wu"], r["wu_id"], r["member"]) == ("sample_0", 101, 0), r
assert len(r["stream_integrals"]) == len(r["stream_only_likelihoods"]) == 3, r' "$table" &&
    pass "keys in order; wu, wu_id, member; 3 streams" || fail "row content: $(head -1 "$table")"
cp "$table" "$work/before"
check 0 "the same work unit again" t --wu-name sample_0 --app separation --command-line "$cmd" 101 "$res"
cmp -s "$table" "$work/before" && pass "appended nothing" || fail "the table changed: $(tail -1 "$table")"

echo "== 2. bundles and bad results"
{
    echo "<number_WUs> 2 </number_WUs>"
    echo "<number_params_per_WU> 20 </number_params_per_WU>"
    grep -v "search_application" "$res"
    grep -v "search_application" "$res" | sed 's:<\(/\{0,1\}[a-z_]*\)>:<\11>:g' |
        sed 's:\(<search_likelihood1>\) [^ <]* :\1 -3.200000000000001 :'
} >"$work/b2.txt"
check 0 "a bundle of two" t --wu-name b2_0 --app separation --command-line "-t -np 40 -p $v $v2" 102 "$work/b2.txt"
if [ "$(nrows "$table")" = 3 ] && [ "$(raw "$table" 2 member)" = 0 ] && [ "$(raw "$table" 3 member)" = 1 ] &&
    [ "$(raw "$table" 2 parameters)" = "$(commas "$v")" ] && [ "$(raw "$table" 3 parameters)" = "$(commas "$v2")" ] &&
    [ "$(raw "$table" 3 search_likelihood)" = -3.200000000000001 ] &&
    [ "$(raw "$table" 2 search_likelihood)" = "$app_sl" ]; then
    pass "two rows, members 0 and 1, parameters split 20 + 20, each its own likelihood"
else
    fail "bundle rows: $(tail -2 "$table")"
fi
cp "$table" "$work/before"
# A result that can never be assimilated is refused, not failed: exit 0
# (script_assimilator would stop on anything else, and meet it first again
# after every restart), a row in separation-refused.jsonl, the file kept.
refused=$proj/orrery/separation-refused.jsonl
grep -v "<search_likelihood1>" "$work/b2.txt" >"$work/missing.txt"
check 0 "a member's tag missing: refused" t --wu-name m_0 --app separation --command-line "-t -np 40 -p $v $v2" 103 "$work/missing.txt"
grep -q "refused, not assimilated: .*missing.txt: member 1: <search_likelihood1> missing" "$work/why" &&
    pass "the message names the file, member and tag (the validator's)" || fail "message: $(cat "$work/why")"
sed 's:<background_likelihood1> [^<]*<:<background_likelihood1> nan <:' "$work/b2.txt" >"$work/nan.txt"
check 0 "a NaN: refused" t --wu-name n_0 --app separation --command-line "-t -np 40 -p $v $v2" 104 "$work/nan.txt"
check 0 "41 values for 2 members: refused" t --wu-name d_0 --app separation --command-line "-t -np 41 -p $v $v2 1.0" 105 "$work/b2.txt"
check 0 "-np 20 but fewer values: refused" t --wu-name f_0 --app separation --command-line "-t -np 20 -p 1 2 3" 106 "$res"
sed 's:<number_params_per_WU> 20 <:<number_params_per_WU> 20.5 <:' "$work/b2.txt" >"$work/perwu.txt"
check 0 "<number_params_per_WU> 20.5: refused" t --wu-name p_0 --app separation --command-line "-t -np 40 -p $v $v2" 114 "$work/perwu.txt"
check 0 "the same refused work unit again" t --wu-name p_0 --app separation --command-line "-t -np 40 -p $v $v2" 114 "$work/perwu.txt"
if python3 -c 'import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["wu_id"] for r in rows] == [103, 104, 105, 106, 114], rows
for r in rows:
    assert list(r) == ["wu", "wu_id", "file", "kept", "reason"], r
    assert open(r["kept"], "rb").read() == open(r["file"], "rb").read(), r
assert "member 1: <search_likelihood1> missing" in rows[0]["reason"], rows[0]
assert "number_params_per_WU" in rows[4]["reason"], rows[4]' "$refused"; then
    pass "five refused rows (once each): wu, wu_id, file, kept (a copy), reason"
else
    fail "refused rows: $(cat "$refused")"
fi
for f in missing nan perwu; do
    "${ORR_VALIDATE:-$(dirname "$asm")/orrery-validate}" init "$work/$f.txt" 2>/dev/null
    [ $? -eq 1 ] && pass "orrery-validate init refuses $f.txt too" || fail "orrery-validate init on $f.txt"
done
check 1 "an unknown app" t --wu-name u_0 --app nbody --command-line "$cmd" 107 "$res"
check 0 "a missing result (a lost upload): refused, the daemon goes on" t --wu-name r_0 --app separation --command-line "$cmd" 108 "$work/none.txt"
grep -q "refused, not assimilated: .*none.txt: missing (the upload is gone).*no file to keep" "$work/why" &&
    tail -1 "$refused" | grep -q '"wu_id": 108, "file": ".*none.txt", "kept": null, "reason": ' &&
    pass "recorded in separation-refused.jsonl, kept null" || fail "the missing result's record: $(tail -1 "$refused")"
printf '#!/bin/sh\necho "{not json"\n' >"$work/v_nojson" && chmod +x "$work/v_nojson"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$work/v_crash" && chmod +x "$work/v_crash"
check 0 "a validator that writes no JSON for a result: refused, the file kept" \
    t --wu-name r_1 --app separation --command-line "$cmd" --validator "$work/v_nojson" 110 "$res"
grep -q "wrote no JSON for it" "$work/why" && [ -f "$proj/orrery/refused/110-$(basename "$res")" ] &&
    pass "the reason says so; refused/110-$(basename "$res") kept" || fail "no JSON: $(cat "$work/why")"
check 0 "a validator killed by a signal on a result: refused" \
    t --wu-name r_2 --app separation --command-line "$cmd" --validator "$work/v_crash" 111 "$res"
grep -q "died of signal 11 on it" "$work/why" && pass "the reason names the signal" || fail "crash: $(cat "$work/why")"
check 1 "a validator that is not there (the admin's: every result would fail)" \
    t --wu-name r_3 --app separation --command-line "$cmd" --validator "$work/v_none" 112 "$res"
mkfifo "$work/fifo"
check 1 "a FIFO as the result: refused at once, never waited on" timeout 10 "$asm" --project "$proj" --wu-name r_0 --app separation --command-line "$cmd" 108 "$work/fifo"
check 1 "a FIFO as the table" timeout 10 "$asm" --table "$work/fifo" --wu-name r_0 --app separation --command-line "$cmd" 108 "$res"
grep -q "not a regular file" "$work/why" && pass "the message says so" || fail "message: $(cat "$work/why")"
cmp -s "$table" "$work/before" && [ ! -e "$proj/orrery/nbody.jsonl" ] && pass "none of them wrote a row" ||
    fail "rows were written: $(tail -1 "$table")"

echo "== 3. failed work units, usage, the table"
check 0 "--error" t --app separation --command-line "$cmd" --error 6 e_0 109 17
check 0 "--error again" t --app separation --command-line "$cmd" --error 6 e_0 109 17
python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1, rows
assert list(rows[0]) == ["wu", "wu_id", "batch", "error_mask", "parameters"], rows
assert (rows[0]["wu"], rows[0]["wu_id"], rows[0]["batch"], rows[0]["error_mask"]) == ("e_0", 109, 17, 6), rows
assert len(rows[0]["parameters"]) == 20, rows' "$errors" &&
    pass "one error row: wu, wu_id, batch, error_mask, parameters" || fail "error rows: $(cat "$errors")"
check 2 "no arguments" "$asm"
check 2 "a WU_ID that is not a number" t --wu-name x --app separation --command-line "$cmd" 1x "$res"
check 2 "--app without --command-line" t --app separation 110 "$res"
check 2 "--error with two arguments (an old server's form)" t --error 6 111
check 0 "--help" "$asm" --help
grep -q "^usage: orrery-assimilate" "$work/out" && pass "--help prints the usage" || fail "--help: $(head -1 "$work/out")"
mkdir -p "$work/empty"
check 1 "no config.xml, no test options" "$asm" --project "$work/empty" 112 "$res"
grep -q "$work/empty/config.xml: No such file" "$work/why" && pass "the message names config.xml" ||
    fail "message: $(cat "$work/why")"
printf '{"wu": "torn", "wu_id": 9' >>"$table"
check 0 "after a torn last line" t --wu-name g_0 --app separation --command-line "$cmd" 113 "$res"
[ "$(nrows "$table")" = 4 ] && ! grep -q torn "$table" && pass "the torn line dropped, the row appended" ||
    fail "table: $(tail -2 "$table")"
msg=$(all_json "$table" "$errors" 2>&1) && pass "every line of both tables parses as JSON" || fail "$msg"

echo "== 4. the database (stub MySQLdb)"
mkdir -p "$work/py/MySQLdb" "$work/db/bin" "$work/db/tmp_host"
cat >"$work/py/MySQLdb/__init__.py" <<'EOF'
# A stand-in for python3-mysqldb: the workunits of $STUB_WUS (JSON:
# id -> [name, xml_doc, app]); each connect and query logged to $STUB_LOG.
import json, os

class Error(Exception):
    pass

class OperationalError(Error):
    pass

QUERY = ("SELECT wu.name, wu.xml_doc, app.name FROM workunit wu "
         "JOIN app ON app.id = wu.appid WHERE wu.id = %s")

def log(line):
    with open(os.environ["STUB_LOG"], "a") as f:
        f.write(line + "\n")

class Cursor:
    def execute(self, query, args):
        log("query %s %r" % (" ".join(query.split()), args))
        if " ".join(query.split()) != QUERY or len(args) != 1:
            raise Error("unexpected query")
        wus = json.load(open(os.environ["STUB_WUS"]))
        row = wus.get(str(args[0]))
        # xml_doc is a blob: bytes
        self.row = None if row is None else (row[0], row[1].encode(), row[2])

    def fetchone(self):
        return self.row

class Connection:
    def cursor(self):
        return Cursor()

    def close(self):
        pass

def connect(**kw):
    log("connect " + " ".join("%s=%s" % kv for kv in sorted(kw.items())))
    if kw.get("db") == "down":
        raise OperationalError(2002, "Can't connect to local MySQL server through socket")
    return Connection()
EOF
escaped=$(echo "$v" | sed 's/ -3\.305187 / \&#45;3.305187 /')
cat >"$work/wus.json" <<EOF
{"42": ["sep_42", "<workunit>\\n    <command_line>\\n-t -np 20 -p $escaped\\n</command_line>\\n    <rsc_fpops_est>1e12</rsc_fpops_est>\\n</workunit>\\n", "separation"],
 "43": ["sep_43", "<workunit><command_line>-t -np 20 -p $v</command_line></workunit>", "separation"],
 "44": ["nb_44", "<workunit><command_line>-f x</command_line></workunit>", "nbody"]}
EOF
cat >"$work/db/config.xml" <<'EOF'
<?xml version="1.0" ?>
<boinc>
  <config>
    <db_name>orrery_db</db_name>
    <db_user>boincadm</db_user>
    <db_passwd></db_passwd>
    <db_host></db_host>
    <upload_dir>/nowhere/upload</upload_dir>
  </config>
  <daemons/>
</boinc>
EOF
ln -s "$asm" "$work/db/bin/orrery-assimilate"
STUB_LOG=$work/stub.log STUB_WUS=$work/wus.json PYTHONPATH=$work/py${PYTHONPATH:+:$PYTHONPATH}
export STUB_LOG STUB_WUS PYTHONPATH
inproject() { (cd "$work/db/tmp_host" && ../bin/orrery-assimilate "$@"); }
check 0 "../bin/orrery-assimilate 42 PATH, from tmp_host/" inproject 42 "$res"
dbt=$work/db/orrery/separation.jsonl
if grep -q "^connect db=orrery_db host=localhost passwd= user=boincadm$" "$work/stub.log" &&
    grep -q "^query SELECT wu.name, wu.xml_doc, app.name FROM workunit wu JOIN app ON app.id = wu.appid WHERE wu.id = %s (42,)$" "$work/stub.log"; then
    pass "config.xml read (empty db_host -> localhost), the parameterised query for id 42"
else
    fail "stub log: $(cat "$work/stub.log")"
fi
if [ "$(nrows "$dbt")" = 1 ] && [ "$(raw "$dbt" 1 wu)" = '"sep_42"' ] && [ "$(raw "$dbt" 1 wu_id)" = 42 ] &&
    [ "$(raw "$dbt" 1 parameters)" = "$(commas "$v")" ]; then
    pass "the row in PROJECT/orrery/ (bin/ a link, not followed): the database's name, the unescaped command line"
else
    fail "database row: $(cat "$dbt" 2>/dev/null)"
fi
check 0 "--error 2 sep_43 43 5 from the database" inproject --error 2 sep_43 43 5
[ "$(raw "$work/db/orrery/separation-errors.jsonl" 1 batch)" = 5 ] &&
    [ "$(raw "$work/db/orrery/separation-errors.jsonl" 1 parameters)" = "$(commas "$v")" ] &&
    pass "the error row, parameters from the database" || fail "error row: $(cat "$work/db/orrery/separation-errors.jsonl")"
check 1 "--error naming another work unit" inproject --error 2 other 43 5
check 1 "a workunit id not in the database" inproject 99 "$res"
grep -q "config.xml: database orrery_db: no workunit with id 99" "$work/why" && pass "the message names the database" ||
    fail "message: $(cat "$work/why")"
check 1 "an app without a formatter (nbody, from the database)" inproject 44 "$res"
sed 's:<db_name>orrery_db<:<db_name>down<:' "$work/db/config.xml" >"$work/cfg" && mv "$work/cfg" "$work/db/config.xml"
check 1 "the database down" inproject 42 "$res"
sed 's:<db_name>down</db_name>::' "$work/db/config.xml" >"$work/cfg" && mv "$work/cfg" "$work/db/config.xml"
check 1 "config.xml without <db_name>" inproject 42 "$res"
echo "<boinc><config>" >"$work/db/config.xml"
check 1 "config.xml not well-formed" inproject 42 "$res"
[ "$(nrows "$dbt")" = 1 ] && pass "none of them wrote a row" || fail "database table: $(cat "$dbt")"
msg=$(all_json "$dbt" "$work/db/orrery/separation-errors.jsonl" 2>&1) && pass "the database tables parse as JSON" ||
    fail "$msg"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
