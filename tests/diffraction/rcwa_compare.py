#!/usr/bin/env python3
"""The diffraction app against an independent RCWA code (grcwa, PyPI).

For TE-polarised light (E along the lines, y; phi = 0) on lamellar (rect)
line gratings the scalar model is exact, and at the same truncation
(orders -MX..MX, the same exact rectangle Fourier coefficients, Laurent's
rule) it is the same x-discretised problem RCWA solves exactly in z.  The
app's only error against RCWA is then its z slicing, which falls as dz^2.

For each work unit given, the app is run at the work unit's slices, twice
and four times them (`APP diffraction -w WU -o RESULTS`), and for every
point of its spectrum the script checks:
  - convergence: |r00 - r_rcwa| falls by 4.00 between N_z and 2 N_z (within
    --ratio-tol, at the two finest runs);
  - agreement at the finest N_z: |R0 - R0_rcwa| and every propagating
    |R_m - R_m,rcwa| (and T_m for a lossless substrate) <= --tol, and the
    complex r00 (phase moved to the top of the stack) within --rtol;
  - the Richardson extrapolation (4 r(2N) - r(N)) / 3 of the two finest
    runs agrees with RCWA to --xtol: the limit is RCWA's result;
and, for the reference itself, that grcwa's own pixel-grid input (4096
area-weighted pixels) gives the r_top of the exact coefficients to --gtol.
One PASS/FAIL line a check; exit 0 only when all pass.

grcwa conventions used (grcwa 0.1.2, rcwa.py): lengths in nm with c = 1, so
freq = 1/lambda and omega = k0; angles in radians; exp(-i omega t).  Layer 0
is the superstrate, the last the substrate (both thickness 0), patterned
layers in between, top down.  The unknowns are the Fourier amplitudes of
(hx, hy); with phi = 0 an s-polarised wave (s_amp = 1, p_amp = 0) is TE and
lives in the hx block only.  For TE, Hx is -kz/omega Ey for the downward
wave and +kz/omega Ey for the upward one, so the reflection of E is
r_top = -b0[0] / a0[0], both amplitudes taken at the top of the stack
(GetAmplitudes(0, 0): a of a layer is referenced at its top, b at its
bottom, which coincide for a layer of thickness 0).  The docs' r00 is at
z = 0: r_top = r00 exp(2 i kz1 h).  A 1D grating is a 2D lattice with a tiny
second period (L2 = (0, LX/1000): its orders lie far outside the circular
truncation); grcwa drops the last, partial shell of G vectors, so asking for
nG = 2 MX + 2 gives exactly the orders 0, 1, -1, ..., MX, -MX.  grcwa's only
patterned input is a pixel grid (Add_LayerFourier is declared but never set
up), so the layers' eps convolution matrices are put in directly, the way
GridLayer_geteps does it, from the exact Fourier coefficients.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scalar_model  # noqa: E402  (the work-unit parser and materials only)

import grcwa  # noqa: E402
from grcwa.rcwa import MakeKPMatrix, SolveLayerEigensystem  # noqa: E402

grcwa.set_backend("numpy")


def eps_matrix(wu, layer, lam, orders):
    """The Toeplitz matrix eps_hat[m_a - m_b] of a (rect-only, 1D) layer."""
    Lx = wu["period"][0]
    p = orders[:, None] - orders[None, :]
    eps_bg = scalar_model.permittivity(wu, layer["background"], lam)
    e = np.where(p == 0, eps_bg, 0).astype(complex)
    for s in layer["shapes"]:
        if s["kind"] != "rect":
            raise SystemExit("rcwa_compare.py: only rect shapes (lamellar gratings)")
        w = s["width"]
        f = w / Lx * np.sinc(p * w / Lx) * np.exp(-2j * np.pi * p * s["x"] / Lx)
        e = e + (scalar_model.permittivity(wu, s["material"], lam) - eps_bg) * f
    return e


def pixel_grid(wu, layer, lam, n):
    """eps on grcwa's grid x_k = k LX / n, each pixel the area-weighted mean
    over [x_k - dx/2, x_k + dx/2] (so the grid's error is O((m/n)^2))."""
    Lx = wu["period"][0]
    dx = Lx / n
    x = np.arange(n) * dx
    eps_bg = scalar_model.permittivity(wu, layer["background"], lam)
    e = np.full(n, eps_bg, complex)
    for s in layer["shapes"]:
        a = s["x"] - s["width"] / 2
        b = s["x"] + s["width"] / 2
        cover = np.zeros(n)
        for shift in (-Lx, 0.0, Lx):           # the shape's periodic images
            lo = np.maximum(x - dx / 2, a + shift)
            hi = np.minimum(x + dx / 2, b + shift)
            cover += np.clip(hi - lo, 0, None) / dx
        e += cover * (scalar_model.permittivity(wu, s["material"], lam) - eps_bg)
    return e


def rcwa_point(wu, lam, theta, grid=0):
    """grcwa's TE r_top, and R_m, T_m by order m (dicts), for phi = 0; the
    layers from the exact Fourier coefficients, or with grid > 0 through
    grcwa's own pixel-grid input (GridLayer_geteps) of that many pixels."""
    if len(wu["period"]) != 1 or any(p != 0 for p in wu["phi"]):
        raise SystemExit("rcwa_compare.py: line gratings (one period) at phi = 0 only")
    Lx, Mx = wu["period"][0], wu["orders"][0]
    eps1 = scalar_model.permittivity(wu, wu["superstrate"], lam)
    eps2 = scalar_model.permittivity(wu, wu["substrate"], lam)
    obj = grcwa.obj(2 * Mx + 2, [Lx, 0.0], [0.0, Lx / 1000], 1.0 / lam, math.radians(theta), 0.0,
                    verbose=0)
    obj.Add_LayerUniform(0.0, eps1)
    for L in wu["layers"]:
        obj.Add_LayerGrid(L["thickness"], max(grid, 1), 1)
    obj.Add_LayerUniform(0.0, eps2)
    obj.Init_Setup(Gmethod=0)
    G = np.asarray(obj.G)
    assert obj.nG == 2 * Mx + 1 and not G[:, 1].any(), "grcwa's truncation is not -MX..MX"
    orders = G[:, 0]
    if grid:
        obj.GridLayer_geteps(np.concatenate([pixel_grid(wu, L, lam, grid) for L in wu["layers"]]))
    else:
        for i, L in enumerate(wu["layers"]):    # as GridLayer_geteps, exact coefficients
            e = eps_matrix(wu, L, lam, orders)
            epinv = np.linalg.inv(e)
            z = np.zeros_like(e)
            ep2 = np.block([[e, z], [z, e]])
            obj.Patterned_epinv_list[i] = epinv
            obj.Patterned_ep2_list[i] = ep2
            kp = MakeKPMatrix(obj.omega, 1, epinv, obj.kx, obj.ky)
            obj.kp_list[i + 1] = kp
            obj.q_list[i + 1], obj.phi_list[i + 1] = SolveLayerEigensystem(obj.omega, obj.kx, obj.ky,
                                                                           kp, ep2)
    obj.MakeExcitationPlanewave(0, 0, 1, 0, order=0)     # s: E along y, TE
    a0, b0 = obj.GetAmplitudes(0, 0.0)
    R, T = obj.RT_Solve(normalize=1, byorder=1)
    R, T = np.real(R), np.real(T)                         # grcwa's normalisation is complex-typed
    return -b0[0] / a0[0], dict(zip(orders.tolist(), R)), dict(zip(orders.tolist(), T))


def read_results(path):
    rows = []
    for line in open(path):
        if not line.startswith("point "):
            continue
        f = line.split()
        row = dict(lam=float(f[2]), theta=float(f[3]), phi=float(f[4]), status=f[5],
                   r00=complex(float(f[8]), float(f[9])), R={}, T={})
        k = 14
        for _ in range(int(f[13])):
            m, n, R, T = int(f[k]), int(f[k + 1]), float(f[k + 2]), float(f[k + 3])
            if n != 0:
                raise RuntimeError("%s: order (%d, %d) in a line grating's results" % (path, m, n))
            row["R"][m], row["T"][m] = R, T
            k += 4
        rows.append(row)
    return rows


def run_app(app, text, mult, tmp, tag):
    wu_path = os.path.join(tmp, "%s_x%d.txt" % (tag, mult))
    out = os.path.join(tmp, "%s_x%d.res" % (tag, mult))
    with open(wu_path, "w") as f:
        f.write(re.sub(r"slices=(\d+)", lambda m: "slices=%d" % (int(m.group(1)) * mult), text))
    p = subprocess.run(app + ["diffraction", "-w", wu_path, "-o", out], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(app), p.returncode, p.stderr.strip()[-300:]))
    return read_results(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--app", required=True, help="orrery_cpu (or scalar_model.py, which takes the same form)")
    ap.add_argument("--mults", default="1,2,4", help="slice multipliers, coarse to fine")
    ap.add_argument("--tol", type=float, default=1e-4, help="R, T at the finest N_z")
    ap.add_argument("--rtol", type=float, default=2e-4, help="complex r00 at the finest N_z")
    ap.add_argument("--xtol", type=float, default=1e-6, help="extrapolated r00")
    ap.add_argument("--gtol", type=float, default=5e-6, help="grcwa: pixel grid vs exact coefficients")
    ap.add_argument("--ratio-tol", type=float, default=0.1, help="|ratio - 4| at the finest pair")
    ap.add_argument("workunits", nargs="+")
    args = ap.parse_args()
    app = [args.app]
    mults = [int(x) for x in args.mults.split(",")]
    failed, checks = 0, 0

    def check(ok, what):
        nonlocal failed, checks
        checks += 1
        failed += not ok
        print("%s: %s" % ("PASS" if ok else "FAIL", what))

    with tempfile.TemporaryDirectory() as tmp:
        for path in args.workunits:
            tag = os.path.splitext(os.path.basename(path))[0]
            wu = scalar_model.parse_workunit(path)
            text = open(path).read()
            h = sum(L["thickness"] for L in wu["layers"])
            nz = sum(L["slices"] for L in wu["layers"])
            try:
                runs = [run_app(app, text, k, tmp, tag) for k in mults]
            except RuntimeError as e:
                check(False, "%s: %s" % (tag, e))
                continue
            points = [(lam, th) for lam in wu["wavelengths"] for th in wu["theta"] for _ in wu["phi"]]
            if any(len(run) != len(points) or not all(
                    math.isclose(r["lam"], p[0], rel_tol=1e-12) and math.isclose(r["theta"], p[1], rel_tol=1e-12)
                    for r, p in zip(run, points)) for run in runs):
                check(False, "%s: the results' points are not the work unit's %s" % (tag, points))
                continue
            for i, row in enumerate(runs[-1]):
                lam, th = row["lam"], row["theta"]
                name = "%s lambda=%g theta=%g" % (tag, lam, th)
                bad = [run[i]["status"] for run in runs if run[i]["status"] != "ok"]
                check(not bad, "%s: status %s" % (name, " ".join(run[i]["status"] for run in runs)))
                r_top, Rr, Tr = rcwa_point(wu, lam, th)
                r_grid = rcwa_point(wu, lam, th, grid=4096)[0]
                check(abs(r_grid - r_top) <= args.gtol, "%s: grcwa, 4096-pixel grid vs exact coefficients: "
                      "|r_top diff| %.2e (tol %.0e)" % (name, abs(r_grid - r_top), args.gtol))
                eps1 = scalar_model.permittivity(wu, wu["superstrate"], lam)
                kz1 = 2 * np.pi / lam * math.sqrt(eps1.real) * math.cos(math.radians(th))
                shift = np.exp(2j * kz1 * h)
                errs = [abs(run[i]["r00"] * shift - r_top) for run in runs]
                ratios = [errs[j] / errs[j + 1] for j in range(len(errs) - 1)]
                check(abs(ratios[-1] - 4) <= args.ratio_tol,
                      "%s: |r00 - r_rcwa| %s at N_z %s, ratios %s" % (
                          name, " ".join("%.3e" % e for e in errs),
                          " ".join(str(nz * k) for k in mults), " ".join("%.3f" % q for q in ratios)))
                dR = abs(row["R"].get(0, np.nan) - Rr[0])
                check(dR <= args.tol, "%s: R0 %.8f, rcwa %.8f, |diff| %.2e at N_z %d (tol %.0e)"
                      % (name, row["R"].get(0, np.nan), Rr[0], dR, nz * mults[-1], args.tol))
                check(errs[-1] <= args.rtol, "%s: r00*exp(2i kz1 h) %.6f%+.6fi, rcwa %.6f%+.6fi, "
                      "|diff| %.2e (tol %.0e)" % (name, (row["r00"] * shift).real,
                                                  (row["r00"] * shift).imag, r_top.real, r_top.imag,
                                                  errs[-1], args.rtol))
                x = (4 * runs[-1][i]["r00"] - runs[-2][i]["r00"]) / 3 * shift
                check(abs(x - r_top) <= args.xtol, "%s: Richardson-extrapolated r00 vs rcwa |diff| %.2e "
                      "(tol %.0e)" % (name, abs(x - r_top), args.xtol))
                worst, which = 0.0, "none"
                for kind, ours, theirs in (("R", row["R"], Rr), ("T", row["T"], Tr)):
                    for m, v in ours.items():
                        if kind == "T" and math.isnan(v):
                            continue              # lossy substrate: T is nan by contract
                        d = abs(v - theirs.get(m, np.nan))
                        if not d <= worst:
                            worst, which = d, "%s_%d" % (kind, m)
                check(worst <= args.tol and set(row["R"]) <= set(Rr),
                      "%s: orders %s, worst |diff| %.2e (%s) (tol %.0e)"
                      % (name, sorted(row["R"]), worst, which, args.tol))
    print("%d checks, %d failed" % (checks, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
