#!/bin/sh
# Make a parameter file's integration grid finer: multiplies the steps of
# the r, mu and nu lines by R, MU and NU. The tests and the bench use it to
# turn a small work unit into a longer one.
# Usage: tools/refine-grid.sh R MU NU < params.txt > finer.txt
[ $# -eq 3 ] || { echo "usage: $0 R MU NU < params > finer" >&2; exit 64; }
exec awk -v fr="$1" -v fm="$2" -v fn="$3" '
    /^(r|mu|nu)\[min,max,steps\]:/ {
        split($0, kv, ":"); split(kv[2], v, ",")
        f = ($0 ~ /^r\[/) ? fr : ($0 ~ /^mu\[/) ? fm : fn
        printf "%s:%s,%s, %d\n", kv[1], v[1], v[2], v[3] * f
        next
    }
    { print }'
