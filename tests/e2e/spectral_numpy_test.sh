#!/bin/bash
# The `spectral` and `selftest` subcommands as a numpy/scipy user meets
# them (docs/spectral.md sections 1, 5 and 6), through the app's command line:
#  1. the command line: --help/-h/--version of every subcommand (exit 0,
#     every subcommand, option and exit code listed, nothing run);
#     unknown options, ops, norms and stray words named, exit 64, before
#     any file is read; --inverse where it means nothing refused; an
#     overflowing number reported as a bad value; one "APP: error: "
#     prefix;
#  2. data errors of every op: exit 65 (66 for a missing file, 69 for an
#     unsupported size), the message naming the file; a tridiagonal system
#     with a zero or NaN pivot refused, naming its batch index;
#  3. results against numpy: c2c, r2c, c2r (on spectra whose bins 0 and
#     N/2 are not real: numpy's irfft ignores those imaginary parts), fft2,
#     dht, dct2/dct3 in each norm (scipy.fft.dct where scipy is installed,
#     else scipy's formulas written in numpy), tridiag (numpy.linalg.solve)
#     and conv2d (the numpy recipe of docs/spectral.md), float64 and float32;
#  4. a GPU app that cannot reach its device (ORR_GPU_STUB, the test stub
#     with no GPU code): `spectral` and `selftest` exit 75 saying why, the
#     self-test after checking the CPU kernels and without a "passed" line;
#     `selftest --cpu` passes.
# Skipped (77) without python3 and numpy.
# Environment: ORR_APP (app_cpu/orrery_cpu; a GPU app runs the ops on its
# device: ORR_APP=app_cuda/orrery_cuda on a GPU machine), ORR_APP_ARGS,
# ORR_GPU_STUB (tests/e2e/orrery_gpu_stub; part 4 is left out without it).
set -u
app=$(readlink -f "${ORR_APP:?set ORR_APP to app_cpu/orrery_cpu}")
extra=${ORR_APP_ARGS:-}
stub=${ORR_GPU_STUB:+$(readlink -f "$ORR_GPU_STUB")}
prog=$(basename "$app")
[ -x "$app" ] || { echo "FAIL: $app is not an executable"; exit 1; }
if ! python3 -c "import numpy" 2>/dev/null; then
    echo "SKIP: python3 with numpy not found"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-spectral-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

# run EXPECTED_RC WHAT ARGS...: the app's exit code must be EXPECTED_RC;
# its output is in out.txt and err.txt
run() {
    local want=$1 what=$2
    shift 2
    # shellcheck disable=SC2086
    "$app" "$@" $extra >out.txt 2>err.txt
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$what: exit $rc, expected $want: $(head -2 err.txt)"
        return 1
    fi
    return 0
}
# expect_err PATTERN WHAT: the error line names PATTERN (fixed string) and
# starts with the one prefix
expect_err() {
    if ! grep -q "^$prog: error: " err.txt; then
        fail "$2: no '$prog: error: ' line: $(head -2 err.txt)"
    elif ! grep -qF -- "$1" err.txt; then
        fail "$2: the message does not name '$1': $(head -1 err.txt)"
    else
        pass "$2 ($(grep -m1 "error: " err.txt | cut -c1-110))"
    fi
}
# usage_error WHAT PATTERN ARGS...: exit 64, PATTERN named, nothing run
usage_error() {
    local what=$1 pattern=$2
    shift 2
    run 64 "$what" "$@" && expect_err "$pattern" "$what"
    if grep -q "^PASS\|^FAIL" out.txt; then
        fail "$what: the self-test ran"
    fi
}

echo "== 1. the command line"
for words in "--help" "spectral --help" "spectral -h" "selftest --help" "selftest -h" \
    "spectral --op c2c --help"; do
    # shellcheck disable=SC2086
    if run 0 "$words" $words && grep -q "^Usage:" out.txt && ! grep -q "^PASS" out.txt; then
        pass "$words: usage, exit 0"
    else
        fail "$words: no usage on stdout, or the self-test ran"
    fi
done
run 0 "--help" --help
for want in separation spectral selftest --op --inverse --norm --nthreads --cpu backward ortho \
    forward tridiag; do
    grep -q -- "$want" out.txt || fail "--help does not mention $want"
done
for code in 0 1 64 65 66 69 70 71 74 75 78; do
    grep -Eq "^ +$code  " out.txt || fail "--help does not list exit code $code"
done
pass "--help lists the subcommands, their options and the exit codes"
for words in "--version" "spectral --version" "selftest -V"; do
    # shellcheck disable=SC2086
    if run 0 "$words" $words && grep -q "(Orrery)" out.txt; then
        pass "$words"
    else
        fail "$words: no version line"
    fi
done
usage_error "an unknown option" "'--bogus'" spectral --op c2c --bogus a.npy b.npy
usage_error "--op without its value" "tridiag" spectral --op
usage_error "an unknown op" "'fft3'" spectral --op fft3 a.npy b.npy
grep -q "conv2d" err.txt || fail "the unknown op's message does not list the ops"
usage_error "no --op" "--op is required" spectral a.npy b.npy
usage_error "an unknown norm" "'orto'" spectral --op dct2 --norm orto a.npy b.npy
usage_error "--norm for c2c" "--norm" spectral --op c2c --norm ortho a.npy b.npy
for op in r2c c2r dct2 dct3 dht; do
    usage_error "--inverse with $op" "--inverse" spectral --op $op --inverse a.npy b.npy
done
usage_error "--inverse with conv2d" "--inverse" spectral --op conv2d --inverse a b c
usage_error "--inverse with tridiag" "--inverse" spectral --op tridiag --inverse a b c d e
usage_error "a file too few" "takes 3 files" spectral --op conv2d a.npy b.npy
usage_error "an overflowing --nthreads" "--nthreads" spectral --op c2c --nthreads 1e999 a b
usage_error "an overflowing search value" "out of range" -np 2 -p 1 1e999
grep -q "unknown option" err.txt && fail "1e999 is called an unknown option"
usage_error "selftest with a stray word" "'junk'" selftest junk
usage_error "selftest with an unknown option" "'--all'" selftest --all

echo "== 2. data errors"
python3 - <<'EOF'
import numpy as np
r = np.random.default_rng(7)
np.save("real.npy", r.standard_normal((3, 16)))
np.save("cplx.npy", r.standard_normal((3, 16)) + 1j * r.standard_normal((3, 16)))
np.save("cplx1d.npy", r.standard_normal(16) + 1j * r.standard_normal(16))
np.save("empty.npy", np.zeros((0, 16)))
np.save("n12.npy", r.standard_normal((2, 12)))
np.save("int.npy", np.arange(16))
np.save("slices_even.npy", np.zeros((2, 4, 4), complex))
np.save("slices.npy", np.zeros((4, 5, 5), complex))
np.save("shape.npy", np.ones((16, 16)))
np.save("shapes3.npy", np.ones((3, 16, 16)))
B, n = 6, 9
dl, du, rhs = (r.standard_normal((B, n)) for _ in range(3))
d = 3 + r.standard_normal((B, n))
np.save("dl.npy", dl); np.save("du.npy", du); np.save("rhs.npy", rhs); np.save("d.npy", d)
d0 = d.copy(); d0[4, 0] = 0
np.save("d_zero.npy", d0)
dn = d.copy(); dn[2, 5] = np.nan
np.save("d_nan.npy", dn)
np.save("d_short.npy", d[:, :5])
EOF
# data_error RC FILE WHAT ARGS...
data_error() {
    local want=$1 file=$2 what=$3
    shift 3
    run "$want" "$what" spectral "$@" && expect_err "$file" "$what (exit $want)"
}
for op in c2c c2r fft2; do
    data_error 65 real.npy "$op of a real array" --op $op real.npy o.npy
done
for op in r2c dct2 dct3 dht; do
    data_error 65 cplx.npy "$op of a complex array" --op $op cplx.npy o.npy
done
data_error 65 int.npy "an integer dtype" --op dct2 int.npy o.npy
data_error 65 empty.npy "an empty array" --op dht empty.npy o.npy
data_error 65 cplx1d.npy "fft2 of a 1D array" --op fft2 cplx1d.npy o.npy
data_error 66 missing.npy "a missing file" --op r2c missing.npy o.npy
data_error 69 n12.npy "N = 12 (not a power of two)" --op dct2 n12.npy o.npy
data_error 65 slices_even.npy "conv2d, M even" --op conv2d slices_even.npy shape.npy o.npy
data_error 65 shapes3.npy "conv2d, 3 shapes for 4 slices" --op conv2d slices.npy shapes3.npy o.npy
data_error 65 real.npy "conv2d of real slices" --op conv2d real.npy shape.npy o.npy
data_error 65 d_short.npy "tridiag, shapes differ" --op tridiag dl.npy d_short.npy du.npy rhs.npy o.npy
data_error 65 "batch index 4" "tridiag, a zero pivot" --op tridiag dl.npy d_zero.npy du.npy rhs.npy o.npy
grep -q "row 0" err.txt || [ "$prog" = orrery_cuda ] || fail "the zero pivot's row is not named"
data_error 65 "batch index 2" "tridiag, a NaN pivot" --op tridiag dl.npy d_nan.npy du.npy rhs.npy o.npy
[ -e o.npy ] && fail "a failed op wrote its output"

echo "== 3. against numpy"
# compare.py OP ARGS: writes the inputs, runs the app, checks against numpy
cat >compare.py <<'EOF'
import os, subprocess, sys
import numpy as np
try:
    import scipy.fft as sfft
except ImportError:
    sfft = None
app = sys.argv[1]
extra = sys.argv[2].split()
rng = np.random.default_rng(int(os.environ.get("ORR_SEED", "0")) or None)
failed = 0

def spectral(op, files, *opts):
    cmd = [app, "spectral", "--op", op, *opts, *files, *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()))
    return np.load(files[-1])

def check(what, got, want, single):
    global failed
    e = np.linalg.norm((got - want).ravel()) / max(np.linalg.norm(want.ravel()), 1e-300)
    limit = 2e-5 if single else 1e-12
    ok = e <= limit and got.shape == want.shape
    failed |= not ok
    print("%s: %s: relative L2 difference %.2e (limit %.0e)" % ("PASS" if ok else "FAIL", what, e, limit))

def dct_ref(x, kind, norm):
    """scipy.fft.dct (types 2 and 3) with norm; scipy's own where installed."""
    if sfft is not None:
        return sfft.dct(x, type=kind, norm=norm, axis=-1)
    n = x.shape[-1]
    i = np.arange(n)
    if kind == 2:
        m = 2 * np.cos(np.pi * np.outer(i, 2 * i + 1) / (2 * n))   # [k, i]
        y = x @ m.T
        if norm == "ortho":
            y = y * np.where(i == 0, np.sqrt(1 / (4 * n)), np.sqrt(1 / (2 * n)))
    else:
        m = 2 * np.cos(np.pi * np.outer(2 * i + 1, i) / (2 * n))   # [k, i]
        m[:, 0] = 1
        if norm == "ortho":
            m = np.sqrt(2 / n) * np.cos(np.pi * np.outer(2 * i + 1, i) / (2 * n))
            m[:, 0] = 1 / np.sqrt(n)
        y = x @ m.T
    return y / (2 * n) if norm == "forward" else y

for single in (False, True):
    rt, ct = (np.float32, np.complex64) if single else (np.float64, np.complex128)
    p = "f32" if single else "f64"
    def real(*shape):
        return rng.standard_normal(shape).astype(rt)
    def cplx(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(ct)
    try:
        for n in (4, 64, 1024, 4096):
            x = cplx(5, n); np.save("x.npy", x)
            check("c2c %s N=%d" % (p, n), spectral("c2c", ["x.npy", "y.npy"]), np.fft.fft(x.astype(complex)), single)
            check("c2c --inverse %s N=%d" % (p, n), spectral("c2c", ["x.npy", "y.npy"], "--inverse"),
                  np.fft.ifft(x.astype(complex)), single)
            x = real(5, n); np.save("x.npy", x)
            check("r2c %s N=%d" % (p, n), spectral("r2c", ["x.npy", "y.npy"]), np.fft.rfft(x.astype(float)), single)
            f = np.fft.fft(x.astype(float))
            check("dht %s N=%d" % (p, n), spectral("dht", ["x.npy", "y.npy"]), f.real - f.imag, single)
            for kind in (2, 3):
                for norm in (None, "backward", "ortho", "forward"):
                    opts = ["--norm", norm] if norm else []
                    check("dct%d %s %s N=%d" % (kind, norm or "(default)", p, n),
                          spectral("dct%d" % kind, ["x.npy", "y.npy"], *opts),
                          dct_ref(x.astype(float), kind, norm or "backward"), single)
            # c2r: the imaginary parts of bins 0 and N/2 are not 0 here
            s = cplx(5, n // 2 + 1); np.save("s.npy", s)
            check("c2r %s N=%d (bins 0, N/2 not real)" % (p, n), spectral("c2r", ["s.npy", "y.npy"]),
                  np.fft.irfft(s.astype(complex), n=n), single)
        for n1, n2 in ((8, 16), (64, 32)):
            x = cplx(3, n1, n2); np.save("x.npy", x)
            check("fft2 %s %dx%d" % (p, n1, n2), spectral("fft2", ["x.npy", "y.npy"]), np.fft.fft2(x.astype(complex)), single)
            check("fft2 --inverse %s %dx%d" % (p, n1, n2), spectral("fft2", ["x.npy", "y.npy"], "--inverse"),
                  np.fft.ifft2(x.astype(complex)), single)
        # tridiag: diagonally dominant, against a dense solve
        b, n = 7, 33
        dl, du, rhs = real(b, n), real(b, n), real(b, n)
        d = (3 + rng.standard_normal((b, n))).astype(rt)
        for a, name in ((dl, "dl"), (d, "d"), (du, "du"), (rhs, "rhs")):
            np.save(name + ".npy", a)
        want = np.empty((b, n))
        for t in range(b):
            m = np.diag(d[t].astype(float)) + np.diag(dl[t, 1:].astype(float), -1) + np.diag(du[t, :-1].astype(float), 1)
            want[t] = np.linalg.solve(m, rhs[t].astype(float))
        check("tridiag %s %d systems of %d" % (p, b, n),
              spectral("tridiag", ["dl.npy", "d.npy", "du.npy", "rhs.npy", "y.npy"]), want, single)
        # conv2d: docs/spectral.md's numpy recipe
        m, mfft = 7, 16
        x = cplx(4, m, m); sh = (1.5 + rng.standard_normal((mfft, mfft))).astype(rt)
        np.save("x.npy", x); np.save("sh.npy", sh)
        c = (m - 1) // 2
        idx = (np.arange(m) - c) % mfft
        pad = np.zeros((4, mfft, mfft), complex)
        pad[..., idx[:, None], idx[None, :]] = x
        want = np.fft.ifft2(sh.astype(float) * np.fft.fft2(pad))[..., idx[:, None], idx[None, :]]
        check("conv2d %s M=%d mfft=%d" % (p, m, mfft), spectral("conv2d", ["x.npy", "sh.npy", "y.npy"]), want, single)
    except RuntimeError as e:
        print("FAIL: %s" % e)
        failed = 1
print("(DCT reference: %s)" % ("scipy.fft.dct" if sfft is not None else "scipy's formulas in numpy"))
sys.exit(failed)
EOF
python3 compare.py "$app" "$extra" || failed=1

if [ -n "$stub" ] && [ -x "$stub" ]; then
    echo "== 4. a GPU app without its device"
    app=$stub prog=$(basename "$stub") extra=
    if run 75 "spectral without a device" spectral --op r2c real.npy o.npy; then
        expect_err "no GPU" "spectral without a device (exit 75)"
    fi
    if run 75 "selftest without a device" selftest; then
        expect_err "were not checked" "selftest without a device (exit 75)"
        if grep -q "^passed" out.txt || ! grep -q "^device checks not run" out.txt ||
            ! grep -q "^PASS" out.txt; then
            fail "selftest without a device: the CPU checks did not run or it says passed"
        fi
    fi
    run 0 "selftest --cpu without a device" selftest --cpu && grep -q "^passed" out.txt &&
        pass "selftest --cpu without a device: $(tail -1 out.txt)"
else
    echo "(part 4 left out: ORR_GPU_STUB is not set)"
fi
if [ $failed -eq 0 ]; then echo "all passed"; else echo "FAILED"; fi
exit $failed
