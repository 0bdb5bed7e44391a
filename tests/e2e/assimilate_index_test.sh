#!/bin/sh
# orrery-assimilate's index (TABLE.idx, workunits/assimilate/table.py): a
# work unit already in the table adds nothing whatever state a crash, an
# admin or a disk left the index in, and an interrupted run never leaves
# the index naming rows the table lacks:
#  1. rows through --error calls (no validator needed), each once; the
#     index missing: rebuilt from the table, no row twice;
#  2. the state a run killed between the rows' fsync and the index's
#     commit leaves (a row the index lacks): caught up, not added again;
#  3. the table truncated under the index (its last row gone): the index
#     no longer trusted, the row added again; the table replaced by
#     another file, the index garbage: rebuilt (one line on stderr);
#  4. 25 runs killed (SIGKILL) at random moments: after each, every row
#     the index names is in the table; then every work unit once.
# Environment: ORR_ASSIMILATE (default: the built script beside the
# source's). Skipped (77) without python3.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
asm=$(readlink -f "${ORR_ASSIMILATE:-$top/workunits/orrery-assimilate}")
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-assimilate-index-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
t=$work/orrery/separation-errors.jsonl

# err ID: a failed work unit's row, as script_assimilator asks for it
err() {
    "$asm" --project "$work" --app separation --command-line "-np 2 -p 1 2" \
        --error 1 "wu_$1" "$1" 0 2>>"$work/stderr"
}
# each ID...: every work unit's row exactly once, and no other
once() {
    python3 - "$t" "$@" <<'X'
import json, sys
ids = [json.loads(l)["wu_id"] for l in open(sys.argv[1])]
want = sorted(int(a) for a in sys.argv[2:])
sys.exit(0 if sorted(ids) == want else "rows %s, want %s" % (sorted(ids), want))
X
}
# sound: the index names no row the table lacks, and no larger table
sound() {
    python3 - "$t" <<'X'
import json, os, sqlite3, sys
t = sys.argv[1]
if not os.path.exists(t + ".idx"):
    sys.exit(0)
db = sqlite3.connect(t + ".idx")
try:
    named = set(db.execute("SELECT wu_id FROM rows"))
    state = db.execute("SELECT size FROM state").fetchone()
except sqlite3.Error:
    sys.exit(0)    # not made yet: the next call rebuilds it
have = set()
with open(t, "rb") as f:
    data = f.read()
for line in data.split(b"\n"):
    try:
        have.add((json.loads(line)["wu_id"],))
    except ValueError:
        pass     # a torn last line: the next call drops it
lacking = named - have
if lacking or (state and state[0] > len(data)):
    sys.exit("the index names %s, the table lacks them (index size %s, table %d)"
             % (sorted(lacking), state, len(data)))
X
}

# ---- 1. rows once; the index rebuilt when missing ----
for i in 1 2 3 4 5; do err $i; done
err 3
if once 1 2 3 4 5 && [ -f "$t.idx" ]; then pass "five work units, one repeated: five rows, an index beside"
else fail "rows or index: $(ls "$work/orrery")"; fi
rm -f "$t.idx"
err 2
err 6
if once 1 2 3 4 5 6 && [ -f "$t.idx" ]; then pass "index removed: rebuilt, no row twice"
else fail "after removing the index"; fi

# ---- 2. a run killed after the rows' fsync, before the index's commit ----
tail -1 "$t" | sed 's/"wu_id": 6,/"wu_id": 7,/; s/wu_6/wu_7/' >>"$t"
err 7
if once 1 2 3 4 5 6 7; then pass "a row the index lacks (a killed run's): caught up, not added again"
else fail "the killed run's row"; fi

# ---- 3. the table behind the index, replaced; the index garbage ----
head -n 6 "$t" >"$t.tmp" && cat "$t.tmp" >"$t" && rm -f "$t.tmp"
err 7
if once 1 2 3 4 5 6 7; then pass "the table truncated under the index: the lost row added again"
else fail "after truncating the table"; fi
cp "$t" "$t.new" && mv "$t.new" "$t"
err 8
err 8
if once 1 2 3 4 5 6 7 8; then pass "the table replaced by a copy: rebuilt, no row twice"
else fail "after replacing the table"; fi
head -c 4096 /dev/urandom >"$t.idx"
: >"$work/stderr"
err 8
err 9
if once 1 2 3 4 5 6 7 8 9 && grep -q "rebuilding the index" "$work/stderr"; then
    pass "a garbage index: rebuilt ($(head -1 "$work/stderr"))"
else fail "after garbage in the index: $(cat "$work/stderr")"; fi

# ---- 4. runs killed at random moments ----
bad=0
for i in $(seq 10 34); do
    err "$i" &
    pid=$!
    sleep "0.0$(awk -v s="$i" 'BEGIN { srand(s); printf "%02d", int(rand() * 99) }')"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    why=$(sound 2>&1) || { bad=$((bad + 1)); echo "  after killing run $i: $why"; }
done
[ $bad -eq 0 ] && pass "25 killed runs: the index never named a row the table lacked" ||
    fail "$bad killed runs left the index ahead of the table"
for i in $(seq 1 34); do err "$i"; done
# shellcheck disable=SC2046
if once $(seq 1 34) && sound; then pass "then every work unit again: each once"
else fail "after the killed runs"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
