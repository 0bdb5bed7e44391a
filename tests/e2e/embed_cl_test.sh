#!/bin/sh
# tools/embed-cl.sh round trip: a source holding backslashes, quotes,
# continued macro lines, `?` (trigraph material), tabs, `%` and #include
# lines is embedded, the C string compiled and printed, and the text must
# be the source itself (its #include lines emptied, a #line directive
# first). Run under every awk the machine has: Debian's default mawk, and
# busybox awk, BWK's awk and gawk where installed (tools/install-deps.sh
# brings the first two), since a volunteer's kernels are built from
# whatever text the build machine's awk wrote.
# Environment: ORR_CC (the C compiler; default cc).
set -u
embed="$(cd "$(dirname "$0")/../../tools" && pwd)/embed-cl.sh"
cc=${ORR_CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-embed-XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0 tried=0

cat >"$work/kernel.cl" <<'EOF'
#include "header.h"
  #  include <other.h>
#define SUM(a, b) \
    ((a) + \
     (b))
	/* a tab first; "quoted" and 'c' and '\\' and '\n' */
const char *s = "back\\slash \"q\" ??= ??/ %s %d %%";
#define STR(x) #x

kernel void k(global double *x) { x[0] = SUM(1, 2); } // trailing \
continued comment
EOF
# What the compiled string must hold: the #line directive, then the source
# with its two #include lines emptied.
{ printf '#line 1 "kernel.cl"\n'; sed -e '1,2s/.*//' "$work/kernel.cl"; } >"$work/expected"

cat >"$work/main.c" <<'EOF'
#include <stdio.h>
#include <string.h>
extern const char embedded[];
int main(void) { fwrite(embedded, 1, strlen(embedded), stdout); return 0; }
EOF

try() { # $1: a label, $2...: the awk command
    label=$1; shift
    tried=$((tried + 1))
    out="$work/$label"
    if ! AWK="$*" sh "$embed" embedded "$work/kernel.cl" >"$out.c" 2>"$out.err"; then
        echo "FAIL $label: embed-cl.sh failed: $(tail -1 "$out.err")"; failed=$((failed + 1)); return
    fi
    if ! $cc -std=c11 -Werror -o "$out.bin" "$work/main.c" "$out.c" 2>"$out.err"; then
        echo "FAIL $label: the generated C does not compile: $(head -3 "$out.err")"
        failed=$((failed + 1)); return
    fi
    "$out.bin" >"$out.txt"
    if cmp -s "$out.txt" "$work/expected"; then
        echo "PASS $label"
    else
        echo "FAIL $label: the embedded text differs from the source:"
        diff "$work/expected" "$out.txt" | head -10
        failed=$((failed + 1))
    fi
}

try default-awk awk
for a in mawk gawk original-awk; do
    command -v $a >/dev/null 2>&1 && try $a $a
done
busybox awk 'BEGIN {}' </dev/null >/dev/null 2>&1 && try busybox-awk busybox awk
# A file that cannot be read is an error, not an empty kernel.
if sh "$embed" embedded "$work/missing.cl" >/dev/null 2>&1; then
    echo "FAIL: a missing source was embedded without an error"; failed=$((failed + 1))
else
    echo "PASS missing source refused"
fi
echo "$((tried + 1 - failed)) passed, $failed failed"
[ $failed -eq 0 ]
