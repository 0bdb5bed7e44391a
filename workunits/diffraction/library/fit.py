# ---- workunits/diffraction/library/fit.py: orrery-library, fit ----
# `fit`: the nearest library entry to a measured spectrum, then the local
# quadratic model's least-squares minimum and its uncertainty.
import json
import math


# ---- fit ----

def read_measured(path, spectrum, quantity, sigma_all):
    """(indices into the spectrum, values, sigmas or None, description)."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(RESULTS_HEADER) + 1)
    except OSError as e:
        raise Failure("%s: %s" % (path, e.strerror or e), 66)
    rows = []      # (where, lambda, theta, phi, value, sigma)
    if head.rstrip(b"\r\n") == RESULTS_HEADER.encode():
        r, why = read_table(path)
        if r is None:
            raise Failure("%s: %s" % (path, why))
        for i in range(len(r.lam)):
            if r.status[i] != "ok":
                continue
            v = abs(r.r00[i]) ** 2 if quantity == "R0" else r.R_total[i]
            rows.append(("%s: point %d" % (path, i), r.lam[i], r.theta[i], r.phi[i], v, None))
        what = "results table"
    else:
        try:
            with open(path) as f:
                lines = f.read().split("\n")
        except (OSError, UnicodeDecodeError) as e:
            raise Failure("%s: %s" % (path, getattr(e, "strerror", None) or e), 66)
        for k, line in enumerate(lines, 1):
            w = line.split("#", 1)[0].split()
            if not w:
                continue
            where = "%s:%d" % (path, k)
            if len(w) not in (4, 5):
                raise Failure("%s: want 'lambda theta phi %s [sigma]', found %d fields"
                              % (where, quantity, len(w)))
            vals = [number(x, where, col) for x, col in zip(w, ("lambda", "theta", "phi",
                                                                quantity, "sigma"))]
            if len(vals) == 5 and not vals[4] > 0:
                raise Failure("%s: sigma must be > 0" % where)
            rows.append((where,) + tuple(vals[:4]) + (vals[4] if len(vals) == 5 else None,))
        what = "spectrum"
    if not rows:
        raise Failure("%s: no measured points" % path)
    sel, y, sig = [], [], []
    for where, l, t, p, v, s in rows:
        hit = [i for i, (L, T, P) in enumerate(spectrum)
               if abs(l - L) <= SPECTRUM_TOL * L and abs(t - T) <= SPECTRUM_TOL
               and abs(p - P) <= SPECTRUM_TOL]
        if not hit:
            raise Failure("%s: (lambda %g, theta %g, phi %g) is not in the library's spectrum"
                          % (where, l, t, p))
        if hit[0] in sel:
            raise Failure("%s: (lambda %g, theta %g, phi %g) measured twice" % (where, l, t, p))
        sel.append(hit[0])
        y.append(v)
        sig.append(s)
    given = [s is not None for s in sig]
    if any(given) and not all(given):
        raise Failure("%s: a sigma on some lines only: give it on every line or none" % path)
    if sigma_all is not None:
        sig = [sigma_all] * len(sig)
    elif not all(given):
        sig = None
    return sel, y, sig, what


def design(x, kind):
    """Rows of the local model's basis at scaled points x (M, k)."""
    n = np()
    M, k = x.shape
    cols = [n.ones(M)]
    cols += [x[:, j] for j in range(k)]
    if kind != "linear":
        cols += [x[:, j] ** 2 for j in range(k)]
    if kind == "quadratic":
        cols += [x[:, a] * x[:, b] for a in range(k) for b in range(a + 1, k)]
    return n.stack(cols, axis=1)


def design_jacobian(x, kind):
    """d(basis)/dx at one point x (k,): (columns, k)."""
    n = np()
    k = len(x)
    rows = [n.zeros(k)]
    rows += [n.eye(k)[j] for j in range(k)]
    if kind != "linear":
        rows += [2 * x[j] * n.eye(k)[j] for j in range(k)]
    if kind == "quadratic":
        for a in range(k):
            for b in range(a + 1, k):
                g = n.zeros(k)
                g[a], g[b] = x[b], x[a]
                rows.append(g)
    return n.stack(rows)


def fit(args):
    n = np()
    quantity, sigma_all, as_json = "R0", None, False
    paths = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--json":
            as_json = True
        elif a in ("--quantity", "--sigma"):
            if i + 1 >= len(args):
                usage("%s needs a value" % a)
            v = args[i + 1]
            i += 1
            if a == "--quantity":
                if v not in ("R0", "R_total"):
                    usage("--quantity %s: R0 or R_total" % v)
                quantity = v
            else:
                try:
                    sigma_all = float(v)
                    if not (math.isfinite(sigma_all) and sigma_all > 0):
                        raise ValueError
                except ValueError:
                    usage("--sigma %s: want a number > 0" % v)
        elif a.startswith("-") and a != "-":
            usage("unknown option %s" % a)
        else:
            paths.append(a)
        i += 1
    if len(paths) != 2:
        usage("fit: want LIBRARY MEASURED")
    lib = Library(paths[0])
    index = lib.load()
    if index is None:
        raise Failure("%s: no library here (no index.json): run assemble first" % paths[0], 66)
    sel, y, sig, what = read_measured(paths[1], index["spectrum"], quantity, sigma_all)
    y = n.array(y)
    w = n.ones(len(y)) if sig is None else 1 / n.array(sig)
    A = lib.arrays
    F = abs(A["r00"][:, sel]) ** 2 if quantity == "R0" else A["R_total"][:, sel]
    P = A["parameters"]
    names = index["parameters"]
    N, k_all = P.shape
    if N == 0:
        raise Failure("%s: the library is empty" % paths[0], 1)
    chi2 = (((F - y) * w) ** 2).sum(axis=1)
    best = int(n.argmin(chi2))
    out = {"library": paths[0], "entries": N, "measured": paths[1], "points": len(y),
           "quantity": quantity, "sigma": "given" if sig is not None else "from the residual",
           "nearest": {"work_unit": index["work_units"][best]["name"],
                       "parameters": dict(zip(names, [float(v) for v in P[best]])),
                       "rms": float(math.sqrt(chi2[best] / len(y)))}}
    # the free parameters and their scales: the library's spacing
    free, scale = [], []
    for j in range(k_all):
        u = n.unique(P[:, j])
        if len(u) > 1:
            free.append(j)
            scale.append((u[-1] - u[0]) / (len(u) - 1))
    k = len(free)
    scale = n.array(scale)
    result = {name: {"value": float(P[best, j]), "uncertainty": None, "fixed": True}
              for j, name in enumerate(names)}
    out["parameters"] = result
    if k == 0:
        out["model"] = "none: no parameter varies in the library"
        return report(out, as_json)
    X = (P[:, free] - P[best, free]) / scale
    dist = n.sqrt((X ** 2).sum(axis=1))
    q = {"quadratic": (k + 1) * (k + 2) // 2, "diagonal": 2 * k + 1, "linear": k + 1}
    M = min(N, max(2 * q["quadratic"], min(3 ** k, 4 * q["quadratic"])))
    near = n.argsort(dist, kind="stable")[:M]
    Xn, Fn = X[near], F[near]
    kind = None
    for kind in ("quadratic", "diagonal", "linear"):
        D = design(Xn, kind)
        if M >= q[kind] and n.linalg.matrix_rank(D) == q[kind]:
            break
    else:
        out["model"] = "none: too few library entries around the nearest to fit a local model"
        return report(out, as_json)
    coef, _, _, _ = n.linalg.lstsq(D, Fn, rcond=None)        # (basis, points)
    fit_res = (D @ coef - Fn) * w
    dof = M - q[kind]
    e_model2 = float((fit_res ** 2).sum() / (dof * len(y))) if dof > 0 else 0.0
    lo, hi = Xn.min(axis=0), Xn.max(axis=0)

    def model(x):
        return (design(x[None, :], kind) @ coef)[0]

    def jac(x):
        return design_jacobian(x, kind).T @ coef            # (k, points)

    x = n.zeros(k)
    r = (model(x) - y) * w
    cost = float(r @ r)
    lam = 1e-3
    steps = 0
    for steps in range(1, 101):
        J = (jac(x) * w).T                                   # (points, k)
        g = J.T @ r
        H = J.T @ J
        moved = False
        while lam < 1e12:
            try:
                dx = -n.linalg.solve(H + lam * n.diag(n.diag(H) + 1e-12), g)
            except n.linalg.LinAlgError:
                lam *= 10
                continue
            xn = n.clip(x + dx, lo, hi)
            rn = (model(xn) - y) * w
            cn = float(rn @ rn)
            if cn < cost:
                x, r, cost = xn, rn, cn
                lam = max(lam / 10, 1e-12)
                moved = True
                break
            lam *= 10
        if not moved or n.abs(dx).max() < 1e-10:
            break
    J = (jac(x) * w).T / scale                               # per parameter unit
    npts = len(y)
    if sig is None:
        s2 = cost / (npts - k) + e_model2 if npts > k else float("nan")
    else:
        s2 = (max(1.0, cost / (npts - k)) if npts > k else 1.0) + e_model2
    try:
        cov = n.linalg.inv(J.T @ J) * s2
        unc = n.sqrt(n.abs(n.diag(cov)))
    except n.linalg.LinAlgError:
        unc = n.full(k, float("nan"))
    edge = []
    for a, j in enumerate(free):
        v = float(P[best, j] + x[a] * scale[a])
        result[names[j]] = {"value": v, "uncertainty": float(unc[a]), "fixed": False}
        col = P[:, j]
        if (x[a] <= lo[a] + 1e-9 and abs(v - col.min()) < 1e-9 * max(1, abs(v))) or \
                (x[a] >= hi[a] - 1e-9 and abs(v - col.max()) < 1e-9 * max(1, abs(v))):
            edge.append(names[j])
    out["model"] = "%s in %d parameter(s) over %d library entries" % (kind, k, M)
    out["model_rms"] = math.sqrt(e_model2)
    out["rms"] = math.sqrt(cost / npts)
    out["steps"] = steps
    out["s2"] = s2
    if edge:
        out["warning"] = ("at the edge of the library in %s: the shape may lie outside the "
                          "sampled range" % ", ".join(edge))
    return report(out, as_json)


def report(out, as_json):
    if as_json:
        def finite(v):   # JSON has no nan: null
            if isinstance(v, dict):
                return {k: finite(x) for k, x in v.items()}
            return None if isinstance(v, float) and not math.isfinite(v) else v
        print(json.dumps(finite(out), indent=1, sort_keys=False))
        return 0
    print("library %s: %d entries; measured %s: %d points of %s (sigma %s)" % (
        out["library"], out["entries"], out["measured"], out["points"], out["quantity"],
        out["sigma"]))
    nb = out["nearest"]
    print("nearest entry: %s (%s), rms misfit %.3g" % (
        nb["work_unit"], " ".join("%s=%.10g" % kv for kv in nb["parameters"].items()), nb["rms"]))
    print("local model: %s" % out["model"])
    if "rms" in out:
        print("fit: rms misfit %.3g after %d step(s); local model's rms misfit to the library %.3g"
              % (out["rms"], out["steps"], out["model_rms"]))
    for name, p in out["parameters"].items():
        if p["fixed"]:
            print("%s = %.10g (fixed: one value in the library)" % (name, p["value"]))
        else:
            print("%s = %.10g +- %.3g" % (name, p["value"], p["uncertainty"]))
    if "warning" in out:
        print("warning: %s" % out["warning"])
    return 0
