# ---- workunits/diffraction/library/store.py: orrery-library, the library and assemble ----
# The library folder (index.json and the .npy arrays that only grow) and
# `assemble`, which adds the sources' work units to it.
import fcntl
import json
import math
import os
import sys


# ---- the library ----

class Library:
    def __init__(self, path):
        self.path = path
        self.index = None
        self.arrays = {}

    def file(self, name):
        return os.path.join(self.path, name)

    def load(self):
        """The library as its index says (a new one: None)."""
        n = np()
        try:
            with open(self.file("index.json")) as f:
                index = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise Failure("%s: %s" % (self.file("index.json"), getattr(e, "strerror", None) or e))
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            raise Failure("%s: not an orrery-library index (want format '%s')"
                          % (self.file("index.json"), FORMAT))
        entries, n_orders = index["entries"], len(index["orders"])
        for name in ARRAYS:
            path = self.file(name + ".npy")
            try:
                a = n.load(path)
            except (OSError, ValueError) as e:
                raise Failure("%s: %s" % (path, getattr(e, "strerror", None) or e), 66)
            if a.shape[0] < entries or (a.ndim == 3 and a.shape[2] < n_orders):
                raise Failure("%s: %s rows, index.json says %d: the library is damaged (rebuild "
                              "it: assemble into a new folder)" % (path, a.shape, entries))
            a = a[:entries]
            if a.ndim == 3:
                a = a[:, :, :n_orders]
            self.arrays[name] = a
        self.index = index
        return index

    def lock(self):
        try:
            os.makedirs(self.path, exist_ok=True)
            fd = os.open(self.file(".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise Failure("%s: %s" % (e.filename or self.path, e.strerror or e), 74)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def write(self):
        n = np()
        try:
            for name in ARRAYS:
                path = self.file(name + ".npy")
                with open(path + ".partial", "wb") as f:
                    n.save(f, self.arrays[name])
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(path + ".partial", path)
            path = self.file("index.json")
            with open(path + ".partial", "w") as f:
                f.write(index_text(self.index))
                f.flush()
                os.fsync(f.fileno())
            os.replace(path + ".partial", path)
            dfd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError as e:
            raise Failure("%s: %s" % (e.filename or self.path, e.strerror or e), 74)


def index_text(index):
    """index.json: a key a line, lists of lists (the spectrum, the orders,
    the work units) an element a line."""
    out = []
    for key, v in index.items():
        if isinstance(v, list) and v and isinstance(v[0], (list, dict)):
            body = ",\n".join("  " + json.dumps(e) for e in v)
            out.append("%s: [\n%s\n ]" % (json.dumps(key), body))
        elif isinstance(v, dict) and v and all(isinstance(e, dict) for e in v.values()):
            body = ",\n".join("  %s: %s" % (json.dumps(k), json.dumps(e)) for k, e in v.items())
            out.append("%s: {\n%s\n }" % (json.dumps(key), body))
        else:
            out.append("%s: %s" % (json.dumps(key), json.dumps(v)))
    return "{\n " + ",\n ".join(out) + "\n}\n"


def same_spectrum(spectrum, r):
    """None if r's points are the spectrum's, else what differs."""
    if len(spectrum) != len(r.lam):
        return "%d points, the library's spectrum has %d" % (len(r.lam), len(spectrum))
    for i, (l, t, p) in enumerate(spectrum):
        if not (abs(r.lam[i] - l) <= SPECTRUM_TOL * l and abs(r.theta[i] - t) <= SPECTRUM_TOL
                and abs(r.phi[i] - p) <= SPECTRUM_TOL):
            return ("point %d is (%.10g, %.10g, %.10g), the library's (%.10g, %.10g, %.10g)"
                    % (i, r.lam[i], r.theta[i], r.phi[i], l, t, p))
    return None


def disagreement(a, b, tol):
    """None if results a and b (entries as dicts of arrays) agree within
    tol, else where they first differ."""
    n = np()
    scale = n.maximum(n.maximum(abs(a["r00"]), abs(b["r00"])), tol["r00_floor"])
    d = abs(a["r00"] - b["r00"]) / scale
    if (d > tol["r00"]).any():
        i = int(n.argmax(d))
        return "r00 at point %d differs by %.3g (relative to max(|r00|, %g))" % (
            i, d[i], tol["r00_floor"])
    for key in ("R_total", "T_total", "R_orders", "T_orders"):
        x, y = a[key], b[key]
        if x.shape != y.shape:
            return "%s: the propagating orders differ" % key
        if (n.isnan(x) != n.isnan(y)).any():
            return "%s: nan in one, a number in the other" % key
        d = n.where(n.isnan(x), 0, abs(x - y))
        if (d > tol["efficiency"]).any():
            at = n.unravel_index(int(n.argmax(d)), d.shape)
            return "%s at point %d differs by %.3g" % (key, at[0], d[at])
    return None


def assemble(args):
    n = np()
    tol = dict(DEFAULT_TOL)
    given_tol = {}
    paths = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--r00-tolerance", "--efficiency-tolerance"):
            if i + 1 >= len(args):
                usage("%s needs a value" % a)
            try:
                v = float(args[i + 1])
                if not (math.isfinite(v) and v >= 0):
                    raise ValueError
            except ValueError:
                usage("%s %s: want a finite number >= 0" % (a, args[i + 1]))
            given_tol["r00" if a.startswith("--r00") else "efficiency"] = v
            i += 2
            continue
        if a.startswith("-") and a != "-":
            usage("unknown option %s" % a)
        paths.append(a)
        i += 1
    if len(paths) < 2:
        usage("assemble: want LIBRARY SOURCE...")
    lib = Library(paths[0])
    lock = lib.lock()
    try:
        return assemble_locked(lib, paths[1:], tol, given_tol)
    finally:
        os.close(lock)


def list_sources(paths):
    """(path, kind): kind 'table' or 'jsonl'."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                f = os.path.join(p, name)
                if not os.path.isfile(f):
                    continue
                try:
                    with open(f, "rb") as h:
                        first = h.read(len(RESULTS_HEADER) + 1)
                except OSError as e:
                    raise Failure("%s: %s" % (f, e.strerror or e), 66)
                if first.rstrip(b"\r\n") == RESULTS_HEADER.encode():
                    out.append((f, "table"))
        elif not os.path.exists(p):
            raise Failure("%s: no such file or folder" % p, 66)
        elif p.endswith(".jsonl"):
            out.append((p, "jsonl"))
        else:
            out.append((p, "table"))
    return out


def note(what):
    sys.stderr.write("%s: %s\n" % (PROG, what))


def entry_of(r, orders_at):
    """Result r as one library row: dict of arrays (orders in the columns
    orders_at maps (m, n) to, which grows)."""
    n = np()
    S = len(r.lam)
    for pt in r.orders:
        for m, k, _, _ in pt:
            if (m, k) not in orders_at:
                orders_at[(m, k)] = len(orders_at)
    O = len(orders_at)
    Ro = n.full((S, O), n.nan)
    To = n.full((S, O), n.nan)
    for i, pt in enumerate(r.orders):
        for m, k, R, T in pt:
            Ro[i, orders_at[(m, k)]] = R
            To[i, orders_at[(m, k)]] = T
    return {"r00": n.array(r.r00, dtype=complex), "R_total": n.array(r.R_total),
            "T_total": n.array(r.T_total), "R_orders": Ro, "T_orders": To}


def widen(a, columns):
    n = np()
    if a.shape[-1] >= columns:
        return a
    pad = [(0, 0)] * (a.ndim - 1) + [(0, columns - a.shape[-1])]
    return n.pad(a, pad, constant_values=n.nan)


def assemble_locked(lib, sources, tol, given_tol):
    n = np()
    index = lib.load()
    if index is None:
        tol.update(given_tol)
        index = {"format": FORMAT, "parameters": None, "spectrum": None, "orders": [],
                 "entries": 0, "tolerances": tol, "work_units": [], "sources": {}}
        arrays = None
    else:
        tol = index["tolerances"]
        if given_tol and any(tol.get(k) != v for k, v in given_tol.items()):
            note("the library's tolerances are kept (%s): they are set when it is made"
                 % ", ".join("%s %g" % kv for kv in sorted(tol.items())))
        arrays = lib.arrays
    # an entry is its coordinates: the parameters' values (the results'
    # work_unit hash also names the backend and CPU path that computed them)
    known = {tuple(float(t) for t in wu["parameters"]): k
             for k, wu in enumerate(index["work_units"])}
    orders_at = {tuple(o): k for k, o in enumerate(index["orders"])}
    new_rows, new_wus = [], []
    counts = {"added": 0, "duplicate": 0, "conflict": 0, "incomplete": 0, "not_converged": 0,
              "unbalanced": 0, "unchanged": 0}
    seen_sources = dict(index["sources"])
    sources_before = dict(index["sources"])

    def stored(k):
        """Entry k (library or new) as a dict of arrays."""
        if k < index["entries"]:
            return {key: arrays[key][k] for key in ARRAYS if key != "parameters"}
        return new_rows[k - index["entries"]]

    for path, kind in list_sources(sources):
        apath = os.path.abspath(path)
        try:
            st = os.stat(path)
        except OSError as e:
            raise Failure("%s: %s" % (path, e.strerror or e), 66)
        before = seen_sources.get(apath)
        if kind == "jsonl":
            offset = before["offset"] if before and before.get("kind") == "jsonl" else 0
            if offset > st.st_size:
                note("%s: shorter than when last read: read again from the start" % path)
                offset = 0
            results, offset = read_jsonl(path, offset)
            seen_sources[apath] = {"kind": "jsonl", "offset": offset}
        else:
            stamp = {"kind": "table", "size": st.st_size, "mtime": st.st_mtime}
            if before == stamp:
                counts["unchanged"] += 1
                continue
            r, why = read_table(path)
            if r is None:
                note("%s: %s: left out" % (path, why))
                counts["incomplete"] += 1
                continue    # not recorded: read again when complete
            results = [r]
            seen_sources[apath] = stamp
        for r in results:
            names = [p[0] for p in r.params]
            if index["parameters"] is None:
                if not names:
                    raise Failure("%s: no '# parameter' lines: a library needs coordinates"
                                  % r.where)
                index["parameters"] = names
                index["spectrum"] = [[l, t, p] for l, t, p in zip(r.lam, r.theta, r.phi)]
            if sorted(names) != sorted(index["parameters"]):
                raise Failure("%s: parameters %s, the library's are %s" % (
                    r.where, " ".join(names) or "(none)", " ".join(index["parameters"])))
            diff = same_spectrum(index["spectrum"], r)
            if diff:
                raise Failure("%s: not the library's spectrum: %s" % (r.where, diff))
            failed = r.status.count("not_converged")
            if failed:
                note("%s: %s: %d point(s) not converged: left out" % (r.where, r.describe(), failed))
                counts["not_converged"] += 1
                continue
            failed = r.status.count("unbalanced")
            if failed:
                note("%s: %s: %d point(s) unbalanced (energy not conserved: too coarse a "
                     "discretisation): left out" % (r.where, r.describe(), failed))
                counts["unbalanced"] += 1
                continue
            value = dict(r.params)
            key = tuple(float(value[p]) for p in index["parameters"])
            e = entry_of(r, orders_at)
            if key in known:
                k = known[key]
                other = stored(k)
                cols = max(other["R_orders"].shape[-1], e["R_orders"].shape[-1])
                a = dict(other, R_orders=widen(other["R_orders"], cols),
                         T_orders=widen(other["T_orders"], cols))
                b = dict(e, R_orders=widen(e["R_orders"], cols), T_orders=widen(e["T_orders"], cols))
                why = disagreement(a, b, tol)
                first = (index["work_units"] + new_wus)[k]
                if why:
                    note("%s: CONFLICT: %s: the library has these parameters (%s, from %s) with "
                         "other values: %s; the library keeps its own"
                         % (r.where, r.describe(), first["name"], first["source"], why))
                    counts["conflict"] += 1
                else:
                    note("%s: %s: a duplicate of the library's %s (from %s), equal: skipped"
                         % (r.where, r.describe(), first["name"], first["source"]))
                    counts["duplicate"] += 1
                continue
            known[key] = index["entries"] + len(new_rows)
            new_rows.append(e)
            new_wus.append({"work_unit": r.work_unit, "name": r.name or os.path.basename(r.source),
                            "source": r.where, "parameters": [value[p] for p in index["parameters"]]})
            counts["added"] += 1

    if new_rows:
        O = len(orders_at)
        P = len(index["parameters"])
        S = len(index["spectrum"])
        add = {"parameters": n.array([[float(t) for t in wu["parameters"]] for wu in new_wus]),
               "r00": n.array([e["r00"] for e in new_rows]),
               "R_total": n.array([e["R_total"] for e in new_rows]),
               "T_total": n.array([e["T_total"] for e in new_rows]),
               "R_orders": n.array([widen(e["R_orders"], O) for e in new_rows]),
               "T_orders": n.array([widen(e["T_orders"], O) for e in new_rows])}
        if arrays is None:
            arrays = {"parameters": n.zeros((0, P)), "r00": n.zeros((0, S), complex),
                      "R_total": n.zeros((0, S)), "T_total": n.zeros((0, S)),
                      "R_orders": n.zeros((0, S, O)), "T_orders": n.zeros((0, S, O))}
        for key in ARRAYS:
            old = arrays[key]
            if old.ndim == 3:
                old = widen(old, O)
            arrays[key] = n.concatenate([old, add[key]])
        index["orders"] = [list(mn) for mn, _ in sorted(orders_at.items(), key=lambda kv: kv[1])]
        index["work_units"].extend(new_wus)
        index["entries"] += len(new_rows)
    index["sources"] = seen_sources
    if new_rows or seen_sources != sources_before:
        if index["parameters"] is None:
            pass    # nothing usable read yet: no library to write
        else:
            lib.index, lib.arrays = index, arrays
            lib.write()
    print("%s: %d work unit(s) added, %d in all; left out: %d incomplete, %d not converged, "
          "%d unbalanced; %d duplicate(s), %d conflict(s); %d source(s) unchanged"
          % (lib.path, counts["added"], index["entries"], counts["incomplete"],
             counts["not_converged"], counts["unbalanced"], counts["duplicate"], counts["conflict"],
             counts["unchanged"]))
    return 1 if counts["conflict"] else 0
