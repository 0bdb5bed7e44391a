#!/usr/bin/env python3
"""An independent, deliberately simple reference for the diffraction kind.

The scalar model of docs/diffraction.md section 5 (and the physics spec it
follows), done the slow and obvious way: the FULL dense matrix
(I - k0^2 G Delta-eps) over (order, slice) is built explicitly and solved by
numpy.linalg.solve.  No FFTs, no sweeps, no iterations:

  - Delta-eps-hat per slice: the block-Toeplitz matrix of the exact Fourier
    coefficients of the pattern, f(x) = sum_p f_p exp(2 pi i p x / L);
  - G per order: the exact slice integrals of
    g(z, z') = (i / 2kz) [exp(i kz |z - z'|) + rho exp(i kz (z + z'))],
    collocated at the slice midpoints (general non-uniform slices);
  - r_mn, t_mn referenced to z = 0 (docs section 1), R, T as docs section 1.

Usage: scalar_model.py WU.txt -o RESULTS.txt   (the results table of docs
section 4; iterations is 0 and residual the direct solve's relative one).
`scalar_model.py --spec-check` prints the spec's section 5 numbers.
It also takes the app's form, `scalar_model.py diffraction -w WU -o OUT`, so
that it can stand in for orrery_cpu in tests/e2e/diffraction_rcwa_test.sh.
numpy only; scipy.special.j1 is used for ellipses when scipy is installed.
"""
import argparse
import hashlib
import math
import sys

import numpy as np

try:
    from scipy.special import j1 as _scipy_j1
except ImportError:
    _scipy_j1 = None


def bessel_j1(x):
    """J1 of real x: scipy's, else the trapezoid rule on the periodic
    integral J1(x) = (1/2pi) int_0^2pi cos(t - x sin t) dt, which is exact to
    rounding once the number of nodes exceeds |x| + 40 or so."""
    x = np.asarray(x, float)
    if _scipy_j1 is not None:
        return _scipy_j1(x)
    n = int(np.max(np.abs(x), initial=0.0)) + 64
    t = 2 * np.pi * np.arange(n) / n
    return np.cos(t - x[..., None] * np.sin(t)).mean(axis=-1)


class WUError(Exception):
    pass


# ---------------------------------------------------------------- parsing
def parse_workunit(path):
    wu = dict(path=path, params=[], period=None, orders=None, materials={}, layers=[],
              wavelengths=[], theta=None, phi=[0.0], superstrate=None, substrate=None)
    text = open(path, "rb").read()
    wu["hash"] = hashlib.sha256(text).hexdigest()[:16]
    first = True
    for lineno, raw in enumerate(text.decode().splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        key, args = words[0], words[1:]

        def bad(why, key=key):
            raise WUError("%s:%d: %s: %s" % (path, lineno, key, why))

        def num(s, key=key):
            try:
                return float(s)
            except ValueError:
                bad("not a number: %r" % s)
        if first:
            if words != ["orrery-diffraction", "1"]:
                bad("the first statement must be 'orrery-diffraction 1'")
            first = False
            continue
        kv = dict(a.split("=", 1) for a in args if "=" in a)
        if key == "parameter":
            wu["params"].append((args[0], args[1]))
        elif key == "period":
            wu["period"] = [num(a) for a in args]
        elif key == "orders":
            wu["orders"] = [int(a) for a in args]
        elif key in ("superstrate", "substrate"):
            wu[key] = args[0]
        elif key == "material":
            name, kind, vals = args[0], args[1], [num(a) for a in args[2:]]
            if kind == "eps" and len(vals) == 2:
                wu["materials"][name] = complex(vals[0], vals[1])
            elif kind == "nk" and len(vals) == 2:
                wu["materials"][name] = complex(vals[0], vals[1]) ** 2
            elif kind == "nk" and len(vals) == 3:
                wu["materials"].setdefault(name, []).append(vals)
            else:
                bad("expected 'eps RE IM', 'nk N K' or 'nk LAMBDA N K'")
        elif key == "layer":
            wu["layers"].append(dict(thickness=num(kv["thickness"]), background=kv["background"],
                                     slices=int(kv["slices"]), shapes=[], line=lineno))
        elif key == "shape":
            if not wu["layers"]:
                bad("a shape before any layer")
            shape = {k: (v if k == "material" else num(v)) for k, v in kv.items()}
            shape["kind"] = args[0]
            wu["layers"][-1]["shapes"].append(shape)
        elif key == "wavelengths":
            wu["wavelengths"] += [num(a) for a in args]
        elif key == "wavelength_range":
            a, b, n = num(args[0]), num(args[1]), int(args[2])
            wu["wavelengths"] += list(np.linspace(a, b, n))
        elif key in ("theta", "phi"):
            wu[key] = [num(a) for a in args]
        elif key == "solver":
            pass
        else:
            bad("unknown statement")
    for k in ("period", "orders", "superstrate", "substrate", "theta"):
        if wu[k] is None:
            raise WUError("%s: missing '%s'" % (path, k))
    if len(wu["period"]) == 1:
        wu["orders"] = wu["orders"][:1]
        for L in wu["layers"]:
            for s in L["shapes"]:
                if s["kind"] == "ellipse" or "height" in s or "y" in s:
                    raise WUError("%s: %s: a line grating's shapes have no y extent" % (path, s["kind"]))
    return wu


def permittivity(wu, name, lam):
    m = wu["materials"][name]
    if not isinstance(m, list):
        return m
    rows = np.array(sorted(m))
    if not rows[0, 0] <= lam <= rows[-1, 0]:
        raise WUError("%s: wavelength %g outside material %s's table" % (wu["path"], lam, name))
    n = np.interp(lam, rows[:, 0], rows[:, 1])
    k = np.interp(lam, rows[:, 0], rows[:, 2])
    return complex(n, k) ** 2


# ------------------------------------------------------------ the pattern
def slices_of(wu):
    """(z_mid, h, layer, height of the midpoint above the layer's bottom) per
    slice, top down; z = 0 is the substrate, the stack is 0 < z < total."""
    total = sum(L["thickness"] for L in wu["layers"])
    out, top = [], total
    for L in wu["layers"]:
        h = L["thickness"] / L["slices"]
        bottom = top - L["thickness"]
        for s in range(L["slices"]):
            zm = top - (s + 0.5) * h
            out.append((zm, h, L, zm - bottom))
        top = bottom
    return out, total


def contrast_coefficients(wu, layer, t_mid, lam, eps1, P, Q):
    """Delta-eps-hat_{p,q} of one slice on the integer grids P, Q."""
    Lx = wu["period"][0]
    two_d = len(wu["period"]) > 1
    Ly = wu["period"][1] if two_d else 1.0
    eps_bg = permittivity(wu, layer["background"], lam)
    c = np.where((P == 0) & (Q == 0), eps_bg - eps1, 0).astype(complex)
    for s in layer["shapes"]:
        d_eps = permittivity(wu, s["material"], lam) - eps_bg
        if s["kind"] == "ellipse":
            a, b = s["rx"], s["ry"]
            rho = 2 * np.pi * np.sqrt((P * a / Lx) ** 2 + (Q * b / Ly) ** 2)
            safe = np.where(rho == 0, 1.0, rho)
            airy = np.where(rho == 0, 1.0, 2 * bessel_j1(safe) / safe)
            f = np.pi * a * b / (Lx * Ly) * airy
            f = f * np.exp(-2j * np.pi * (P * s["x"] / Lx + Q * s["y"] / Ly))
        else:
            if s["kind"] == "rect":
                w = s["width"]
            elif s["kind"] == "trapezoid":
                swa = math.radians(s["swa"])
                w = s["bottom"] - 2 * t_mid * math.cos(swa) / math.sin(swa)
            else:
                raise WUError("%s: unknown shape %s" % (wu["path"], s["kind"]))
            f = w / Lx * np.sinc(P * w / Lx) * np.exp(-2j * np.pi * P * s["x"] / Lx)
            if "height" in s:
                H = s["height"]
                f = f * H / Ly * np.sinc(Q * H / Ly) * np.exp(-2j * np.pi * Q * s["y"] / Ly)
            else:
                f = f * (Q == 0)
        c = c + d_eps * f
    return c


# ------------------------------------------------------------ one point
def kz_of(k2):
    """sqrt with Im >= 0, and Re >= 0 when real (docs section 1)."""
    kz = np.sqrt(np.asarray(k2, complex))
    kz = np.where(kz.imag < 0, -kz, kz)
    return np.where((kz.imag == 0) & (kz.real < 0), -kz, kz)


def solve_point(wu, lam, theta, phi):
    Mx = wu["orders"][0]
    My = wu["orders"][1] if len(wu["orders"]) > 1 else 0
    Lx = wu["period"][0]
    Ly = wu["period"][1] if len(wu["period"]) > 1 else None
    eps1 = permittivity(wu, wu["superstrate"], lam)
    eps2 = permittivity(wu, wu["substrate"], lam)
    k0 = 2 * np.pi / lam
    k1 = k0 * math.sqrt(eps1.real)
    th, ph = math.radians(theta), math.radians(phi)
    m, n = np.meshgrid(np.arange(-Mx, Mx + 1), np.arange(-My, My + 1), indexing="ij")
    m, n = m.ravel(), n.ravel()                      # order index a: m outer, n inner
    kx = k1 * math.sin(th) * math.cos(ph) + 2 * np.pi * m / Lx
    ky = k1 * math.sin(th) * math.sin(ph) + (2 * np.pi * n / Ly if Ly else 0.0 * n)
    kz1 = kz_of(k0 ** 2 * eps1 - kx ** 2 - ky ** 2)
    kz2 = kz_of(k0 ** 2 * eps2 - kx ** 2 - ky ** 2)
    if np.min(np.abs(kz1)) < 1e-6 * k1:
        a = int(np.argmin(np.abs(kz1)))
        raise WUError("%s: Rayleigh anomaly at lambda %g theta %g phi %g, order (%d, %d)"
                      % (wu["path"], lam, theta, phi, m[a], n[a]))
    rho = (kz1 - kz2) / (kz1 + kz2)
    i00 = int(np.flatnonzero((m == 0) & (n == 0))[0])

    sl, _ = slices_of(wu)
    z = np.array([s[0] for s in sl])
    h = np.array([s[1] for s in sl])
    nz, na = len(sl), len(m)
    # C[j, a, b] = Delta-eps-hat_{m_a - m_b, n_a - n_b} of slice j
    P, Q = m[:, None] - m[None, :], n[:, None] - n[None, :]
    C = np.array([contrast_coefficients(wu, L, t, lam, eps1, P, Q) for (_, _, L, t) in sl])
    # G[a, i, j] = int_slice_j g_a(z_i, z') dz'
    kz = kz1[:, None, None]
    pre = 1j / (2 * kz)
    sinc_int = 2 * np.sin(kz * h[None, None, :] / 2) / kz     # int_slice exp(+-ikz(z'-z_j))
    dist = np.abs(z[:, None] - z[None, :])[None]
    G = pre * np.exp(1j * kz * dist) * sinc_int
    diag = pre[:, :, 0] * 2 * (np.exp(1j * kz[:, :, 0] * h[None, :] / 2) - 1) / (1j * kz[:, :, 0])
    G[:, np.arange(nz), np.arange(nz)] = diag
    G += pre * rho[:, None, None] * np.exp(1j * kz * z[None, :, None]) \
        * np.exp(1j * kz * z[None, None, :]) * sinc_int
    # A[(a,i), (b,j)] = delta - k0^2 G[a,i,j] C[j,a,b]
    K = k0 ** 2 * np.einsum("aij,jab->aibj", G, C).reshape(na * nz, na * nz)
    A = np.eye(na * nz) - K
    ub = np.zeros((na, nz), complex)
    ub[i00] = np.exp(-1j * kz1[i00] * z) + rho[i00] * np.exp(1j * kz1[i00] * z)
    u = np.linalg.solve(A, ub.ravel())
    residual = np.linalg.norm(ub.ravel() - A @ u) / np.linalg.norm(ub)
    u = u.reshape(na, nz)
    w = np.einsum("jab,bj->aj", C, u)                 # w[a, j]
    s_int = 2 * np.sin(kz1[:, None] * h[None, :] / 2) / kz1[:, None]
    e_dn, e_up = np.exp(-1j * kz1[:, None] * z[None, :]), np.exp(1j * kz1[:, None] * z[None, :])
    src = k0 ** 2 * 1j / (2 * kz1)
    delta = (np.arange(na) == i00).astype(float)
    r = delta * rho[i00] + src * np.sum(w * s_int * (e_dn + rho[:, None] * e_up), axis=1)
    t = delta * (1 + rho[i00]) + src * (1 + rho) * np.sum(w * s_int * e_up, axis=1)
    kz100 = kz1[i00].real
    R = np.abs(r) ** 2 * kz1.real / kz100
    lossless = eps2.imag == 0
    T = np.abs(t) ** 2 * kz2.real / kz100 if lossless else np.full(na, np.nan)
    prop = (kz1.imag == 0) | ((k0 ** 2 * eps2.real - kx ** 2 - ky ** 2) > 0)
    return dict(r=r, t=t, R=R, T=T, m=m, n=n, prop=prop, residual=residual,
                kz1=kz1, kz2=kz2, lossless=lossless)


# ------------------------------------------------------------ the table
def fmt(x):
    return "%.17g" % float(x)


def run(wu, out):
    sl, _ = slices_of(wu)
    Lx = wu["period"][0]
    Ly = wu["period"][1] if len(wu["period"]) > 1 else 0
    My = wu["orders"][1] if len(wu["orders"]) > 1 else 0
    lines = ["# orrery-diffraction-results 1",
             "# application scalar_model.py 1 python double dense-numpy",
             "# work_unit %s" % wu["hash"]]
    lines += ["# parameter %s %s" % p for p in wu["params"]]
    lines.append("# periods %s %s orders %d %d slices %d" % (fmt(Lx), fmt(Ly), wu["orders"][0], My, len(sl)))
    lines.append("# columns: point lambda theta phi status iterations residual r00_re r00_im "
                 "R_total T_total absorbed n_orders (m n R T)...")
    point = 0
    for lam in wu["wavelengths"]:
        for th in wu["theta"]:
            for ph in wu["phi"]:
                res = solve_point(wu, lam, th, ph)
                i00 = int(np.flatnonzero((res["m"] == 0) & (res["n"] == 0))[0])
                prop = res["prop"]
                Rt = float(np.sum(res["R"][prop]))
                Tt = float(np.sum(res["T"][prop])) if res["lossless"] else float("nan")
                orders = []
                for a in np.flatnonzero(prop):
                    orders += [str(res["m"][a]), str(res["n"][a]), fmt(res["R"][a]), fmt(res["T"][a])]
                r00 = res["r"][i00]
                row = ["point", str(point), fmt(lam), fmt(th), fmt(ph), "ok", "0", "%.3g" % res["residual"],
                       fmt(r00.real), fmt(r00.imag), fmt(Rt), fmt(Tt), fmt(1 - Rt - Tt),
                       str(int(np.sum(prop)))] + orders
                lines.append(" ".join(row))
                point += 1
    lines.append("# end points %d" % point)
    out.write("\n".join(lines) + "\n")


def spec_check():
    """The spec's section 5 numbers (docs/diffraction.md's physics spec)."""
    def wu_of(period, mx, sub, layer):
        return dict(path="spec", period=[period], orders=[mx], superstrate="air", substrate="sub",
                    materials=dict(air=1 + 0j, film=2.25 + 0j, sub=sub), layers=[layer])
    lam, th, h = 633.0, 30.0, 120.0
    k0 = 2 * np.pi / lam
    kx = k0 * math.sin(math.radians(th))
    k1, kf, k2 = (kz_of(k0 ** 2 * e - kx ** 2) for e in (1.0, 2.25, 14.44))
    r1f, rf2, e2 = (k1 - kf) / (k1 + kf), (kf - k2) / (kf + k2), np.exp(2j * kf * h)
    airy = (r1f + rf2 * e2) / (1 + r1f * rf2 * e2) * np.exp(-2j * k1 * h)
    prev = None
    for nz in (8, 16, 32, 64, 128, 256):
        layer = dict(thickness=h, background="film", slices=nz, shapes=[])
        res = solve_point(wu_of(500.0, 0, 14.44 + 0j, layer), lam, th, 0.0)
        err = abs(res["r"][0] - airy)
        print("film N_z %3d: |r00 - r_Airy e^(-2i kz1 h)| %.4e%s  |R+T-1| %.1e" % (
            nz, err, "  ratio %.4f" % (prev / err) if prev else "", abs(res["R"][0] + res["T"][0] - 1)))
        prev = err
    line = dict(kind="rect", material="film", x=0.0, width=300.0)
    for nz, mx in ((8, 10), (16, 20), (32, 30)):
        layer = dict(thickness=200.0, background="air", slices=nz, shapes=[line])
        res = solve_point(wu_of(800.0, mx, 2.25 + 0j, layer), 600.0, 10.0, 0.0)
        p = res["prop"]
        print("grating (N_z, Mx) = (%d, %d): |sum R + sum T - 1| %.4e"
              % (nz, mx, abs(res["R"][p].sum() + res["T"][p].sum() - 1)))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--spec-check"]:                 # print the spec's section 5 numbers
        spec_check()
        return 0
    if argv[:1] == ["diffraction"]:              # the app's command line
        argv = argv[1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workunit", nargs="?")
    ap.add_argument("-w", "--work-unit", dest="wu_opt")
    ap.add_argument("-o", "--output", default="diffraction_results.txt")
    args = ap.parse_args(argv)
    path = args.wu_opt or args.workunit or "diffraction_wu.txt"
    try:
        wu = parse_workunit(path)
        with open(args.output, "w") as f:
            run(wu, f)
    except (WUError, KeyError, IndexError, ValueError) as e:
        print("scalar_model.py: error: %s" % e, file=sys.stderr)
        return 65
    return 0


if __name__ == "__main__":
    sys.exit(main())
