#!/bin/sh
# Every skip of a test run, with its reason, held against tests/expected-skips:
# a skip that list does not name fails the run (a SKIP is not a pass).
# A skip is a whole test that exited 77 (its .trs says SKIP; the reason is
# the last SKIP line of its .log) or a part of a test that passed, reported
# by a line that starts with SKIP or says "this CPU cannot run".
# Usage: tests/skips.sh EXPECTED-SKIPS LOG...   (LOG: a test's .log, its
# .trs beside it)
expected=${1:?usage: $0 EXPECTED-SKIPS LOG...}
shift
found=0 unexpected=0
report() { # $1: test name, $2: reason
    pattern=$(awk -v t="$1" '!/^#/ && $1 == t { sub(/^[^ ]+ +/, ""); print }' "$expected")
    verdict=UNEXPECTED
    if [ -n "$pattern" ] && printf '%s\n' "$pattern" | while IFS= read -r p; do
            printf '%s\n' "$2" | grep -Eq -- "$p" && exit 0; done; then
        verdict=expected
    fi
    [ $verdict = UNEXPECTED ] && unexpected=$((unexpected + 1))
    found=$((found + 1))
    printf '%-10s %s: %s\n' "$verdict" "$1" "$2"
}
echo "==== skips (each with its reason; tests/expected-skips lists what a machine may lack)"
for log in "$@"; do
    [ -f "$log" ] || continue
    name=${log%.log}
    trs=$name.trs
    if [ -f "$trs" ] && grep -q '^:test-result: SKIP' "$trs"; then
        reason=$(grep '^SKIP' "$log" | grep -v '(exit status: 77)$' | tail -1)
        report "$name" "${reason:-(the test printed no SKIP line)}"
        continue
    fi
    tmp=$(mktemp)
    grep -E '^SKIP|this CPU cannot run' "$log" | sed 's/^[[:space:]]*//' >"$tmp"
    while IFS= read -r line; do report "$name" "$line"; done <"$tmp"
    rm -f "$tmp"
done
echo "$found skips, $unexpected unexpected"
[ $unexpected -eq 0 ]
