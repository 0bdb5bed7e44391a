# ---- workunits/diffraction/library/results.py: orrery-library's sources ----
# One work unit's results: a results table or a row of orrery-assimilate's
# JSON Lines table, as a Result (included by orrery-library.in).
import json
import math
import re


# ---- one work unit's results ----

class Result:
    """One work unit's results: where from, its hash and parameters, and
    per point lambda, theta, phi, status, r00, R_total, T_total, orders."""

    def __init__(self, source, where):
        self.source, self.where = source, where
        self.work_unit = None
        self.name = None
        self.params = []          # [(name, text)]
        self.lam, self.theta, self.phi = [], [], []
        self.status = []
        self.r00 = []
        self.R_total, self.T_total = [], []
        self.orders = []          # per point: [(m, n, R, T)]

    def describe(self):
        p = " ".join("%s=%s" % nt for nt in self.params)
        return "work unit %s%s (%s)" % (self.name + " " if self.name else "", self.work_unit, p)


def number(text, where, what, nan=False):
    try:
        v = float(text)
    except ValueError:
        raise Failure("%s: %s: '%s' is not a number" % (where, what, text[:40]))
    if math.isnan(v) and nan and text in ("nan", "-nan"):
        return float("nan")
    if not math.isfinite(v):
        raise Failure("%s: %s: '%s' is not a finite number" % (where, what, text[:40]))
    return v


def whole(text, where, what, lo=None):
    if not re.fullmatch(r"-?[0-9]{1,9}", text) or (lo is not None and int(text) < lo):
        raise Failure("%s: %s: '%s' is not a whole number%s"
                      % (where, what, text[:40], "" if lo is None else " >= %d" % lo))
    return int(text)


def read_table(path):
    """A results table: a Result, or None with a note when incomplete."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Failure("%s: %s" % (path, e.strerror or e), 66)
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise Failure("%s: not ASCII text: not a results table" % path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != RESULTS_HEADER:
        raise Failure("%s:1: not a diffraction results table (want '%s')" % (path, RESULTS_HEADER))
    end = re.fullmatch(r"# end points ([0-9]+)", lines[-1]) if text.endswith("\n") else None
    if not end:
        return None, "incomplete (no '# end points N' line at its end)"
    r = Result(path, path)
    n_points = int(end.group(1))
    for n, line in enumerate(lines[1:-1], 2):
        where = "%s:%d" % (path, n)
        w = line.split()
        if line.startswith("#"):
            if len(w) >= 2 and w[1] == "work_unit":
                if len(w) != 3 or r.work_unit is not None:
                    raise Failure("%s: work_unit: want one '# work_unit HASH' line" % where)
                r.work_unit = w[2]
            elif len(w) >= 2 and w[1] == "parameter":
                if len(w) != 4 or not NAME_RE.fullmatch(w[2]):
                    raise Failure("%s: parameter: want '# parameter NAME VALUE'" % where)
                if w[2] in [p[0] for p in r.params]:
                    raise Failure("%s: parameter %s given twice" % (where, w[2]))
                number(w[3], where, "parameter " + w[2])
                r.params.append((w[2], w[3]))
            elif len(w) >= 2 and w[1] == "end":
                raise Failure("%s: an '# end' line before the last line" % where)
            continue
        add_row(r, w, where)
    if len(r.lam) != n_points:
        return None, "incomplete (%d point rows, '# end points %d')" % (len(r.lam), n_points)
    if r.work_unit is None:
        raise Failure("%s: no '# work_unit HASH' line" % path)
    return r, None


# A point's status words (docs/diffraction.md section 4): only ok points
# are usable; not_converged (the last iterate) and unbalanced (converged,
# but breaking the energy balance: a discretisation far too coarse) leave
# their work unit out of the library.
STATUSES = ("ok", "not_converged", "unbalanced")


def add_row(r, w, where):
    if not w or w[0] != "point":
        raise Failure("%s: neither a '#' line nor a 'point' row" % where)
    if len(w) < FIXED_COLUMNS + 1:
        raise Failure("%s: %d fields, want at least %d" % (where, len(w), FIXED_COLUMNS + 1))
    k = whole(w[1], where, "point")
    if k != len(r.lam):
        raise Failure("%s: point %d where point %d was due" % (where, k, len(r.lam)))
    r.lam.append(number(w[2], where, "lambda"))
    r.theta.append(number(w[3], where, "theta"))
    r.phi.append(number(w[4], where, "phi"))
    if w[5] not in STATUSES:
        raise Failure("%s: status '%s' (want ok, not_converged or unbalanced)" % (where, w[5][:40]))
    r.status.append(w[5])
    whole(w[6], where, "iterations", 0)
    number(w[7], where, "residual")
    r.r00.append(complex(number(w[8], where, "r00_re"), number(w[9], where, "r00_im")))
    r.R_total.append(number(w[10], where, "R_total"))
    r.T_total.append(number(w[11], where, "T_total", nan=True))
    number(w[12], where, "absorbed", nan=True)
    n_orders = whole(w[13], where, "n_orders", 1)
    if len(w) != FIXED_COLUMNS + 1 + 4 * n_orders:
        raise Failure("%s: n_orders %d needs %d fields, found %d"
                      % (where, n_orders, FIXED_COLUMNS + 1 + 4 * n_orders, len(w)))
    orders = []
    for j in range(n_orders):
        f = w[FIXED_COLUMNS + 1 + 4 * j:FIXED_COLUMNS + 5 + 4 * j]
        orders.append((whole(f[0], where, "order m"), whole(f[1], where, "order n"),
                       number(f[2], where, "order R", nan=True),
                       number(f[3], where, "order T", nan=True)))
    r.orders.append(orders)


def from_json_row(row, where, source):
    """A Result from a line of orrery-assimilate's diffraction table."""
    def get(key, kind):
        v = row.get(key)
        if not isinstance(v, kind):
            raise Failure("%s: key '%s' missing or not a %s" % (where, key, kind.__name__))
        return v

    def num(v, what, nan=False):
        if v is None and nan:
            return float("nan")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise Failure("%s: %s: %r is not a finite number" % (where, what, v))
        return float(v)

    r = Result(source, where)
    r.work_unit = get("work_unit", str)
    r.name = get("wu", str)
    params = get("parameters", dict)
    for name, v in params.items():
        if not NAME_RE.fullmatch(name):
            raise Failure("%s: parameter name '%s'" % (where, name[:40]))
        text = repr(num(v, "parameter " + name))
        r.params.append((name, text[:-2] if text.endswith(".0") else text))
    cols = {k: get(k, list) for k in ("lambda", "theta", "phi", "status", "r00_re", "r00_im",
                                      "R_total", "T_total", "orders")}
    n = len(cols["lambda"])
    if any(len(c) != n for c in cols.values()) or n == 0:
        raise Failure("%s: the point lists differ in length" % where)
    for i in range(n):
        what = "point %d" % i
        r.lam.append(num(cols["lambda"][i], what + " lambda"))
        r.theta.append(num(cols["theta"][i], what + " theta"))
        r.phi.append(num(cols["phi"][i], what + " phi"))
        if cols["status"][i] not in STATUSES:
            raise Failure("%s: %s: status %r" % (where, what, cols["status"][i]))
        r.status.append(cols["status"][i])
        r.r00.append(complex(num(cols["r00_re"][i], what + " r00_re"),
                             num(cols["r00_im"][i], what + " r00_im")))
        r.R_total.append(num(cols["R_total"][i], what + " R_total"))
        r.T_total.append(num(cols["T_total"][i], what + " T_total", nan=True))
        orders = []
        if not isinstance(cols["orders"][i], list) or not cols["orders"][i]:
            raise Failure("%s: %s: orders: want a list of [m, n, R, T]" % (where, what))
        for o in cols["orders"][i]:
            if (not isinstance(o, list) or len(o) != 4 or
                    not all(isinstance(x, int) and not isinstance(x, bool) for x in o[:2])):
                raise Failure("%s: %s: orders: want [m, n, R, T] lists" % (where, what))
            orders.append((o[0], o[1], num(o[2], what + " order R", True),
                           num(o[3], what + " order T", True)))
        r.orders.append(orders)
    return r


def read_jsonl(path, offset):
    """The complete lines of an assimilator table from byte offset on:
    ([Result], new offset)."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError as e:
        raise Failure("%s: %s" % (path, e.strerror or e), 66)
    end = data.rfind(b"\n") + 1     # a torn last line: the assimilator's, in progress
    line0 = 1
    if offset:
        with open(path, "rb") as f:
            line0 += f.read(offset).count(b"\n")
    out = []
    for k, raw in enumerate(data[:end].split(b"\n")[:-1]):
        where = "%s:%d" % (path, line0 + k)
        try:
            row = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise Failure("%s: not a JSON line: %s" % (where, e))
        if not isinstance(row, dict):
            raise Failure("%s: not a JSON object" % where)
        out.append(from_json_row(row, where, path))
    return out, offset + end
