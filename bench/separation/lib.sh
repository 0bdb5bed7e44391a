# What the separation bench scripts share (sourced, not run).

# The search parameters of MilkyWay@Home's small11 sample, given with
# -np 20 -p to every run on a small11-based grid.
sep_search="0.571713 12.312119 -3.305187 148.010257 22.453902 0.42035 -0.468858 0.760579 -1.361644 177.884238 23.882892 1.210639 -1.611974 8.534378 -1.361644 177.884238 10.882892 1.210639 -1.611974 8.534378"

# A report's first line: the date, the CPU, how many.
sep_machine() {
    echo "# $(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
}

# The search likelihood an app printed into file $1 (empty if none).
sep_likelihood() {
    sed -n 's:.*<search_likelihood> *\([^ <]*\).*:\1:p' "$1" | head -1
}

# min, median, mean or max ($1) of the numbers on stdin, one or more a
# line, blank ones skipped; nothing for no numbers.
sep_stat() {
    tr ' ' '\n' | grep . | sort -g | awk -v w="$1" '{ v[NR] = $1; s += $1 } END {
        if (!NR) exit
        if (w == "min") print v[1]; else if (w == "max") print v[NR]; else if (w == "mean") printf "%.3f\n", s / NR
        else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
