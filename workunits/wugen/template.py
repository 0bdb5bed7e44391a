# ---- workunits/wugen/template.py: the generators' shared module, 2 of 3 ----
# Values and ${...} expressions, the work-unit template, the sampling of
# parameter sets (--grid, --list, --lhs): kind.py has the overview.
import ast
import math
import random


# ---- numbers, words and expressions ----

def fmt(v, digits=12):
    s = "%.*g" % (digits, v)
    return "0" if s in ("-0", "+0") else s


def as_number(text):
    """float(text) if text is a finite number, else None."""
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def value_text(kind, text, where, normalise):
    """A parameter value: a number (normalised with 12 digits if asked) or,
    where the kind allows, a word."""
    v = as_number(text)
    if v is not None:
        return fmt(v) if normalise else text
    if not kind.words:
        raise Failure("%s: '%s' is not a finite number" % (where, text), 65)
    if not WORD_RE.fullmatch(text):
        raise Failure("%s: '%s' is neither a finite number nor a word" % (where, text), 65)
    return text


def option_number(text, where):
    v = as_number(text)
    if v is None:
        usage("%s: '%s' is not a finite number" % (where, text))
    return v


BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
          ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
          ast.Pow: lambda a, b: a ** b}


def compile_expr(text, where, functions):
    """The placeholder ${text} as (tree, names used)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise Failure("%s: ${%s}: not an expression" % (where, text), 65)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in functions or node.keywords:
                raise Failure("%s: ${%s}: only %s may be called"
                              % (where, text, ", ".join(functions)), 65)
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
                raise Failure("%s: ${%s}: only numbers and names" % (where, text), 65)
        elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Load, ast.Name,
                                   ast.USub, ast.UAdd) + tuple(BINARY)):
            raise Failure("%s: ${%s}: %s is not allowed (+ - * / ** and calls only)"
                          % (where, text, type(node).__name__), 65)
    funcs = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return tree, {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in funcs}


def evaluate(node, values, functions):
    if isinstance(node, ast.Expression):
        return evaluate(node.body, values, functions)
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        if values[node.id] is None:
            raise ValueError("'%s' is not a number" % node.id)
        return values[node.id]
    if isinstance(node, ast.UnaryOp):
        v = evaluate(node.operand, values, functions)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        return BINARY[type(node.op)](evaluate(node.left, values, functions),
                                     evaluate(node.right, values, functions))
    if isinstance(node, ast.Call):
        return functions[node.func.id](*[evaluate(a, values, functions) for a in node.args])
    raise ValueError(type(node).__name__)


def point_text(names, texts):
    return " ".join("%s=%s" % nt for nt in zip(names, texts))


# ---- the template ----

class Template:
    """A work-unit template: its lines, the line of its first statement
    (FIRST), per line its placeholders [(start, end, text, tree, names)],
    the first line naming each parameter in a ${...} (refs), the same
    counting only the lines that make work units differ (used). A kind's
    subclass reads its own statements (statement) and adds its checks of
    the sampled names (check_sampled, check_count)."""
    FIRST = DOC = None
    FUNCTIONS = {}
    PARAM_WORD = "param"     # the statement of a parameter's line
    UNUSED = "appears in no ${...}: every work unit would be the same run"

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                data = f.read((4 << 20) + 1)
        except OSError as e:
            raise Failure("%s: %s" % (path, e.strerror or e), 66)
        if len(data) > 4 << 20:
            raise Failure("%s: larger than 4 MiB: not a work unit" % path, 65)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Failure("%s: not UTF-8 text" % path, 65)
        self.lines = text.replace("\r\n", "\n").split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.first = None
        self.holders = []
        self.refs = {}
        self.used = {}
        for n, line in enumerate(self.lines, 1):
            self._read_line(n, line)
        if self.first is None:
            raise Failure("%s: no statement (want a work unit of %s section 2)"
                          % (path, self.DOC), 65)

    def _read_line(self, n, line):
        where = "%s:%d" % (self.path, n)
        code = line.split("#", 1)[0]
        words = code.split()
        holders = []
        for m in PLACEHOLDER.finditer(code):
            tree, names = compile_expr(m.group(1), where, self.FUNCTIONS)
            holders.append((m.start(), m.end(), m.group(1), tree, names))
        if "${" in PLACEHOLDER.sub("", code):
            raise Failure("%s: a '${' without its '}'" % where, 65)
        self.holders.append(holders)
        for h in holders:
            for name in h[4]:
                self.refs.setdefault(name, n)
        if words and self.first is None:
            if words != self.FIRST.split():
                raise Failure("%s: the first statement must be '%s', found '%s'"
                              % (where, self.FIRST, code.strip()[:60]), 65)
            self.first = n
            return
        if words and not self.statement(n, where, words):
            return
        for h in holders:
            for name in h[4]:
                self.used.setdefault(name, n)

    def statement(self, n, where, words):
        """A statement after the first: False where its placeholders do
        not make work units differ (an echo of a sampled value)."""
        return True

    def check_names(self, names):
        for name in sorted(set(self.refs) - set(names)):
            raise Failure("%s:%d: ${...} uses '%s', which is not sampled (sampled: %s)"
                          % (self.path, self.refs[name], name, ", ".join(names)), 65)
        for name in names:
            if name not in self.used:
                raise Failure("%s: the sampled parameter '%s' %s" % (self.path, name, self.UNUSED),
                              65)
            self.check_sampled(name)
        self.check_count(names)

    def check_sampled(self, name):
        pass

    def check_count(self, names):
        pass

    def _line(self, n, line, holders, textof, values, point):
        pieces, at = [], 0
        for start, end, text, tree, _ in holders:
            pieces.append(line[at:start])
            key = text.strip()
            if key in textof:
                pieces.append(textof[key])
            else:
                try:
                    v = evaluate(tree, values, self.FUNCTIONS)
                except (ArithmeticError, ValueError, TypeError) as e:
                    raise Failure("%s:%d: ${%s} at %s: %s" % (self.path, n, text, point, e), 65)
                if isinstance(v, complex) or not math.isfinite(v):
                    raise Failure("%s:%d: ${%s} at %s is not a finite number"
                                  % (self.path, n, text, point), 65)
                pieces.append(fmt(v))
            at = end
        pieces.append(line[at:])
        return "".join(pieces)

    def render(self, names, texts, inserted):
        """The work unit for one parameter set, the lines `inserted` after
        its first statement: (text, how many lines were inserted)."""
        textof = dict(zip(names, texts))
        values = {n: as_number(t) for n, t in zip(names, texts)}
        point = point_text(names, texts)
        out = []
        for n, (line, holders) in enumerate(zip(self.lines, self.holders), 1):
            out.append(self._line(n, line, holders, textof, values, point) if holders else line)
            if n == self.first:
                out.extend(inserted)
        return "\n".join(out) + "\n", len(inserted)

    def template_line(self, wu_line, inserted):
        """The template's line number for a line of a rendered work unit."""
        if wu_line <= self.first:
            return wu_line
        if wu_line <= self.first + inserted:
            return None
        return wu_line - inserted


class ParamTemplate(Template):
    """A template whose work units echo their parameters in `param NAME
    VALUE` lines (fdtd, mom): a template's own `param NAME ${NAME}` line
    for a sampled name stands where it is, the generator writes the
    others; NOT_UPLOADED (statement, what it writes) is refused: the
    output template uploads the results file only."""
    FUNCTIONS = {"sqrt": math.sqrt, "abs": abs, "min": min, "max": max,
                 "round": lambda x: float(math.floor(x + 0.5)),
                 "floor": lambda x: float(math.floor(x)), "ceil": lambda x: float(math.ceil(x))}
    UNUSED = "appears in no ${...} outside its param line: every work unit would be the same run"
    KIND = RESULTS = NOT_UPLOADED = None

    def __init__(self, path):
        self.params = {}
        super().__init__(path)

    def statement(self, n, where, words):
        if self.NOT_UPLOADED and words[0] == self.NOT_UPLOADED[0]:
            raise Failure("%s: %s: the %s output template uploads %s only, so %s would be lost "
                          "on the hosts: remove it" % ((where,) + self.NOT_UPLOADED[:1]
                                                       + (self.KIND, self.RESULTS)
                                                       + self.NOT_UPLOADED[1:]), 65)
        if words[0] == "param" and len(words) == 3:
            if words[1] in self.params:
                raise Failure("%s: param %s: given twice (line %d)"
                              % (where, words[1], self.params[words[1]][0]), 65)
            self.params[words[1]] = (n, words[2])
            return words[2] != "${%s}" % words[1]
        return True

    def check_sampled(self, name):
        line, value = self.params.get(name, (0, "${%s}" % name))
        if value != "${%s}" % name:
            raise Failure("%s:%d: param %s: a sampled parameter's param line must be "
                          "'param %s ${%s}' (or absent: the generator writes it)"
                          % (self.path, line, name, name, name), 65)

    def check_count(self, names):
        extra = [n for n in names if n not in self.params]
        if len(extra) + len(self.params) > MAX_PARAMS:
            raise Failure("%s: more than %d param lines in all" % (self.path, MAX_PARAMS), 65)
        self.inserted_names = extra


# ---- sampling ----

def split_spec(spec, option):
    name, eq, value = spec.partition("=")
    if not eq or not NAME_RE.fullmatch(name):
        usage("%s %s: want NAME=VALUES, NAME a name ([A-Za-z_][A-Za-z0-9_]*, at most 32)"
              % (option, spec))
    return name, value


def grid_values(kind, spec):
    name, value = split_spec(spec, "--grid")
    where = "--grid %s" % spec
    if ":" in value:
        parts = value.split(":")
        if len(parts) != 3:
            usage("%s: want FIRST:LAST:COUNT" % where)
        first, last = (option_number(p, where) for p in parts[:2])
        if not re.fullmatch(r"[0-9]+", parts[2]) or int(parts[2]) < 1:
            usage("%s: COUNT must be a whole number >= 1" % where)
        count = int(parts[2])
        if count > MAX_WORK_UNITS:
            usage("%s: more than %d values" % (where, MAX_WORK_UNITS))
        if count == 1 and first != last:
            usage("%s: COUNT 1 needs FIRST = LAST" % where)
        texts = [fmt(first + (last - first) * k / max(count - 1, 1)) for k in range(count)]
        texts[-1] = fmt(last)
    else:
        try:
            texts = [value_text(kind, v, where, True) for v in value.split(",")]
        except Failure as e:
            usage(str(e))
    if len(set(texts)) != len(texts):
        usage("%s: repeated values" % where)
    return name, texts


def lhs_random(n, ranges, seed):
    """The Latin hypercube with Python's random.Random(seed)."""
    rng = random.Random(seed)
    cols = []
    for name, lo, hi in ranges:
        strata = list(range(n))
        rng.shuffle(strata)
        cols.append([fmt(lo + (hi - lo) * (s + rng.random()) / n, 10) for s in strata])
    return [list(row) for row in zip(*cols)]


def lhs_numpy(n, ranges, seed):
    """The Latin hypercube with numpy's default_rng(seed)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    cols = []
    for name, lo, hi in ranges:
        strata = rng.permutation(n)
        u = rng.random(n)
        cols.append([fmt(lo + (hi - lo) * (s + x) / n, 10) for s, x in zip(strata, u)])
    return [list(row) for row in zip(*cols)]


def read_list(kind, path):
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise Failure("%s: %s" % (path, getattr(e, "strerror", None) or e), 66)
    names, points = None, []
    for n, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].replace(",", " ").split()
        if not words:
            continue
        where = "%s:%d" % (path, n)
        if names is None:
            for w in words:
                if not NAME_RE.fullmatch(w):
                    raise Failure("%s: '%s' is not a parameter name" % (where, w), 65)
            if len(set(words)) != len(words):
                raise Failure("%s: a name given twice" % where, 65)
            names = words
            continue
        if len(words) != len(names):
            raise Failure("%s: %d values for %d names" % (where, len(words), len(names)), 65)
        points.append([value_text(kind, w, where, False) for w in words])
        if len(points) > MAX_WORK_UNITS:
            raise Failure("%s: more than %d work units" % (path, MAX_WORK_UNITS), 65)
    if names is None or not points:
        raise Failure("%s: no parameter sets (a line of names, then a line of values per "
                      "work unit)" % path, 65)
    seen = {}
    for k, p in enumerate(points):
        key = tuple(p) if kind.words else tuple(float(t) for t in p)
        if key in seen:
            raise Failure("%s: set %d repeats set %d" % (path, k + 1, seen[key] + 1), 65)
        seen[key] = k
    return names, points


def grid_points(kind, specs):
    names, axes = [], []
    for spec in specs:
        name, texts = grid_values(kind, spec)
        if name in names:
            usage("--grid: %s given twice" % name)
        names.append(name)
        axes.append(texts)
    total = 1
    for axis in axes:
        total *= len(axis)
    if total > MAX_WORK_UNITS:
        usage("--grid: %d work units, more than %d" % (total, MAX_WORK_UNITS))
    points = [[]]
    for axis in axes:
        points = [p + [t] for p in points for t in axis]
    return names, points


def lhs_sample(kind, o):
    ranges = []
    for spec in o["range"]:
        name, value = split_spec(spec, "--range")
        parts = value.split(":")
        if len(parts) != 2:
            usage("--range %s: want NAME=LO:HI" % spec)
        lo, hi = (option_number(p, "--range %s" % spec) for p in parts)
        if not lo < hi:
            usage("--range %s: LO must be below HI" % spec)
        if name in [r[0] for r in ranges]:
            usage("--range: %s given twice" % name)
        ranges.append((name, lo, hi))
    draw = lhs_numpy if kind.lhs == "numpy" else lhs_random
    return [r[0] for r in ranges], draw(o["lhs"], ranges, o["seed"])


def sample(kind, o):
    """(names, [value texts per work unit])"""
    if o["grid"]:
        names, points = grid_points(kind, o["grid"])
    elif o["lhs"] is not None:
        names, points = lhs_sample(kind, o)
    else:
        names, points = read_list(kind, o["list"])
    for name in names:
        if name in kind.reserved:
            usage("the parameter name '%s' is one of the index's columns (%s)"
                  % (name, ", ".join(kind.reserved)))
    if len(names) > MAX_PARAMS:
        usage("more than %d parameters" % MAX_PARAMS)
    for p in points:
        for name, t in zip(names, p):
            if len(t) > MAX_VALUE_TEXT:
                raise Failure("parameter %s: value '%s...' longer than %d characters"
                              % (name, t[:20], MAX_VALUE_TEXT), 65)
    return names, points
