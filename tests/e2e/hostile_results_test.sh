#!/bin/sh
# Work units whose results could not be finite (issue 40, items 2 and 3),
# through the CPU app and, where it is built, the OpenCL app (PoCL in CI):
#  - refused at parse time, exit 65, the message naming FILE:LINE: KEY:
#    mom at wavelength 1e160 (inf echo widths before) and echo or
#    incidence angles of +-1e308 degrees (nan); fdtd with amplitude=1e308
#    or 1e200 (nan energies and norms), and a peak above single
#    precision's limit; diffraction at 1e-300 nm and with eps 1e200 (the
#    solve went nan);
#  - a diffraction layer of 1e6 nm on a lossless substrate (T_total nan,
#    status ok before): every number finite, the point `unbalanced`;
#    a homogeneous film as thick stays `ok` (the discrete model conserves
#    its energy);
#  - units at the edge of the ranges run and write only finite numbers.
# A refused run leaves no results file behind (nor a .partial).
# Environment: ORR_APP (the CPU app), ORR_OPENCL_APP (the OpenCL app, used
# when it exists).
set -u
app=${ORR_APP:?set ORR_APP to the CPU app}
ocl=${ORR_OPENCL_APP:-}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-hostile-results-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# run APP KIND UNIT WANT_EXIT SAYS LABEL: the exit code, the message (SAYS
# a fixed string in stderr), and no results file unless it exited 0
run() {
    a=$1 kind=$2 unit=$3 want=$4 says=$5 label=$6
    rm -f out.txt out.txt.partial
    timeout 120 "$a" "$kind" -w "$unit" -o out.txt -i -c >/dev/null 2>err.txt
    rc=$?
    why=$(grep -v -e '^CPU backend' -e '^OpenCL' -e "^$kind:" -e 'init data file' err.txt | tail -1)
    if [ $rc -ne "$want" ]; then
        fail "$label: exit $rc, expected $want: $why"
        return
    fi
    if [ -n "$says" ] && ! grep -qF -- "$says" err.txt; then
        fail "$label: exit $rc but the message lacks '$says': $why"
        return
    fi
    if [ "$want" -ne 0 ] && { [ -e out.txt ] || [ -e out.txt.partial ]; }; then
        fail "$label: exit $rc but a results file was left"
        return
    fi
    pass "$label: exit $rc ${why:-}"
}

# finite LABEL [WORD]: no nan or inf in out.txt (in its WORD lines only:
# mom's solve line has nan for what only the faithful solver measures);
# every unit here has a lossless substrate, where the diffraction table
# has no nan either
finite() {
    bad=$(awk -v w="${2:-}" 'w == "" || $1 == w' out.txt | grep -i -m1 -e nan -e inf)
    if [ -n "$bad" ]; then
        fail "$1: a non-finite number in the results: $(echo "$bad" | cut -c1-120)"
    else
        pass "$1: every number finite"
    fi
}

# ---- mom ----
mom() { # FILE WAVELENGTH RADIUS INCIDENCE ECHO...
    f=$1 lambda=$2 radius=$3 inc=$4
    shift 4
    printf 'orrery-mom 1\nwavelength %s\ncircle radius=%s\ncells 40\nincidence %s\necho %s\n' \
        "$lambda" "$radius" "$inc" "$*" >"$f"
}
mom mom_far.txt 1e160 0.7 0 0 90
mom mom_far_scaled.txt 1e160 0.7e160 0 0 90
mom mom_echo.txt 1 0.7 0 1e308 -1e308
mom mom_incidence.txt 1 0.7 -1e308 0
mom mom_edge.txt 1e100 0.7e100 0 0 90 1e6
printf 'orrery-mom 1\ncircle radius=0.7\ncells 40\nincidence 0\necho from=0 to=1e308 step=1e304\n' \
    >mom_range.txt

# ---- fdtd ----
base="$here/data/fdtd/cavity_pec.txt"
for a in 1e308 1e200 -1e308; do
    sed "s/^source .*/& amplitude=$a/" "$base" >"fdtd_$a.txt"
done
sed 's/^source .*/& amplitude=1e31/; s/^steps .*/&\nprecision single/' "$base" >fdtd_single.txt
sed 's/^source .*/& amplitude=1e100/' "$base" >fdtd_edge.txt
src_line=$(grep -n '^source' "$base" | cut -d: -f1)

# ---- diffraction ----
grating="$here/data/diffraction/grating_balance.txt"
sed 's/thickness=200 background=air slices=8/thickness=1e6 background=air slices=1/' "$grating" \
    >dif_thick.txt
sed 's/thickness=120 background=film slices=16/thickness=1e6 background=film slices=16/' \
    "$here/data/diffraction/film.txt" >dif_thick_film.txt
sed 's/^wavelengths 600/wavelengths 1e-300/' "$grating" >dif_short.txt
sed 's/glass eps 2.25 0/glass eps 1e200 0/' "$grating" >dif_dense.txt
wl_line=$(grep -n '^wavelengths' "$grating" | cut -d: -f1)
glass_line=$(grep -n '^material glass' "$grating" | cut -d: -f1)

apps=$app
[ -n "$ocl" ] && [ -x "$ocl" ] && apps="$app $ocl"
for a in $apps; do
    n=$(basename "$a")
    echo "== $n"
    run "$a" mom mom_far.txt 65 "mom_far.txt:2: wavelength: 1e+160 is outside" "$n mom wavelength 1e160"
    run "$a" mom mom_far_scaled.txt 65 "mom_far_scaled.txt:2: wavelength:" "$n mom wavelength and radius 1e160"
    run "$a" mom mom_echo.txt 65 "mom_echo.txt:6: echo: 1e+308 degrees" "$n mom echo 1e308 degrees"
    run "$a" mom mom_incidence.txt 65 "mom_incidence.txt:5: incidence: -1e+308 degrees" \
        "$n mom incidence -1e308 degrees"
    run "$a" mom mom_range.txt 65 "mom_range.txt:5: echo to: 1e+308 degrees" "$n mom echo to=1e308"
    run "$a" mom mom_edge.txt 0 "" "$n mom at the ranges' edges (wavelength 1e100, echo 1e6 degrees)"
    [ -e out.txt ] && finite "$n mom at the ranges' edges" echo
    for f in fdtd_1e308 fdtd_1e200 fdtd_-1e308; do
        run "$a" fdtd "$f.txt" 65 "$f.txt:$src_line: source amplitude: the peak field" "$n $f"
    done
    run "$a" fdtd fdtd_single.txt 65 "source amplitude: the peak field 1e+31 V/m" \
        "$n fdtd single precision, amplitude 1e31"
    run "$a" fdtd fdtd_edge.txt 0 "" "$n fdtd amplitude 1e100"
    [ -e out.txt ] && finite "$n fdtd amplitude 1e100"
    run "$a" diffraction dif_short.txt 65 "dif_short.txt:$wl_line: wavelengths: 1e-300 nm is outside" \
        "$n diffraction at 1e-300 nm"
    run "$a" diffraction dif_dense.txt 65 "dif_dense.txt:$glass_line: material: 'glass' has |eps| = 1e+200" \
        "$n diffraction eps 1e200"
    run "$a" diffraction dif_thick.txt 0 "1 point UNBALANCED" "$n diffraction layer of 1e6 nm"
    if [ -e out.txt ]; then
        finite "$n diffraction layer of 1e6 nm"
        if awk '$1 == "point" { s = $6 } END { exit s != "unbalanced" }' out.txt; then
            pass "$n diffraction layer of 1e6 nm: its point is unbalanced, not ok"
        else
            fail "$n diffraction layer of 1e6 nm: status $(awk '$1 == "point" { print $6 }' out.txt)"
        fi
    fi
    run "$a" diffraction dif_thick_film.txt 0 "" "$n diffraction film of 1e6 nm"
    if [ -e out.txt ]; then
        finite "$n diffraction film of 1e6 nm"
        if awk '$1 == "point" { s = $6; a = $13 < 0 ? -$13 : $13 } END { exit !(s == "ok" && a < 1e-9) }' out.txt; then
            pass "$n diffraction film of 1e6 nm: ok, energy conserved"
        else
            fail "$n diffraction film of 1e6 nm: $(grep '^point' out.txt | cut -c1-120)"
        fi
    fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
