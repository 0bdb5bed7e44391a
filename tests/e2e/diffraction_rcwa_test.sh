#!/bin/bash
# The diffraction kind against an independent RCWA code (grcwa, from PyPI):
# TE light on lamellar line gratings (docs/diffraction.md; the scalar model
# is exact there), dielectric and lossy lines, on silicon-like and glass
# substrates, theta 0..30, several wavelengths, one and two layers. At the
# same truncation MX the app's only error is its z slicing: each work unit of
# tests/data/diffraction/rcwa_*.txt is run at its slices, 2x and 4x, and
# tests/diffraction/rcwa_compare.py checks, per point, that |r00 - r_rcwa|
# falls by 4.00 per halving of dz, that R0, every propagating R_m (T_m on a
# lossless substrate) and the complex r00 (moved to the top of the stack:
# r_top = r00 exp(2i kz1 h)) agree at the finest slicing, and that the
# Richardson extrapolation of the two finest runs is RCWA's result.
#
# Usage: diffraction_rcwa_test.sh [APP]   (APP, else $ORRERY_CPU, else
# $ORR_APP as `make check` exports it: orrery_cpu, run as
# `APP diffraction -w WU -o RESULTS`; tests/diffraction/scalar_model.py takes
# the same form and can stand in for it).
# Needs python3 with numpy (and venv or pip); grcwa is installed from PyPI
# into a virtual environment under $TMPDIR. Exit 77 (skip) when PyPI cannot
# be reached or python3/numpy/venv are missing; otherwise 0 only when every
# check passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
app=${1:-${ORRERY_CPU:-${ORR_APP:-}}}
[ -n "$app" ] || { echo "FAIL: give the app as \$1, ORRERY_CPU or ORR_APP"; exit 1; }
app=$(readlink -f "$app")
[ -x "$app" ] || { echo "FAIL: $app is not an executable"; exit 1; }
if ! python3 -c "import numpy" 2>/dev/null; then
    echo "SKIP: python3 with numpy not found"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-dif-rcwa-XXXXXX")
trap 'rm -rf "$work"' EXIT

# the package index pip uses (PIP_INDEX_URL or pip's configuration, else PyPI)
index_url() {
    local url=${PIP_INDEX_URL:-}
    [ -n "$url" ] || url=$(python3 -m pip config get global.index-url 2>/dev/null)
    echo "${url:-https://pypi.org/simple}"
}
reachable() {
    python3 - "$(index_url)/grcwa/" <<'EOF' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=15).read(1)
EOF
}

start=$(date +%s)
py=
if python3 -m venv --system-site-packages "$work/venv" >/dev/null 2>&1 &&
    [ -x "$work/venv/bin/pip" ]; then
    if "$work/venv/bin/pip" install -q --disable-pip-version-check --timeout 20 --retries 1 \
        grcwa >"$work/pip.log" 2>&1; then
        py=$work/venv/bin/python
    fi
elif python3 -m pip --version >/dev/null 2>&1; then
    # no venv module (Debian without python3-venv): pip's --target instead
    if python3 -m pip install -q --disable-pip-version-check --timeout 20 --retries 1 \
        --target "$work/site" grcwa >"$work/pip.log" 2>&1; then
        py="env PYTHONPATH=$work/site python3"
    fi
else
    echo "SKIP: python3 has neither venv nor pip, grcwa cannot be installed"
    exit 77
fi
if [ -z "$py" ]; then
    if ! reachable; then
        echo "SKIP: PyPI ($(index_url)) cannot be reached, grcwa cannot be installed"
        exit 77
    fi
    echo "FAIL: pip install grcwa failed: $(tail -3 "$work/pip.log")"
    exit 1
fi
echo "grcwa $($py -c 'import grcwa; print(grcwa.__version__)') installed in $(($(date +%s) - start)) s"

# BLAS threads for the (small) RCWA side only; the app keeps its own setting.
# In the scratch folder: the app's checkpoint stays out of the build tree.
cd "$work" || exit 1
OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $py "$top/tests/diffraction/rcwa_compare.py" \
    --app "$app" "$top"/tests/data/diffraction/rcwa_*.txt
rc=$?
echo "($(($(date +%s) - start)) s in all)"
if [ $rc -eq 0 ]; then echo "all passed"; else echo "FAILED"; fi
exit $rc
