# ---- workunits/wugen/batch.py: the generators' shared module, 3 of 3 ----
# The app's --check, bounds and output templates, the create_work lines,
# submit.sh, the index and the summary, the generator's main: kind.py
# has the overview.
import datetime
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile


# ---- the app ----

def find_checker(kind):
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    for d in (here, os.path.join(here, "..", "app_cpu"), os.path.join(here, "..", "..", "app_cpu")):
        p = os.path.join(d, "orrery_cpu")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.normpath(p)
    p = shutil.which("orrery_cpu")
    if p:
        return p
    raise Failure("cannot find orrery_cpu (build the apps, or pass --checker APP%s)"
                  % (", or --no-check" if kind.no_check else ""))


def app_message(stderr):
    lines = [l for l in stderr.splitlines() if l.strip() and "standalone mode" not in l]
    if not lines:
        return "refused, without a message"
    return re.sub(r"^[^:]*: error: ", "", lines[-1].strip())


def check_keys(kind, checker, out):
    """The --check lines as a dict ("": the lines); the kind's required
    keys as numbers."""
    keys = {"": out.splitlines()}
    for line in out.splitlines():
        w = line.split(None, 1)
        if len(w) == 2:
            keys.setdefault(w[0], w[1].strip())
    for k, whole in COST_KEYS + kind.required:
        v = as_number(keys.get(k, ""))
        if v is None or v < 0 or (whole and v != int(v)):
            raise Failure("%s %s --check printed no valid '%s' line: is it an app with the "
                          "%s kind (%s section 3)?" % (checker, kind.name, k, kind.name, kind.doc))
        keys[k] = int(v) if whole else v
    return keys


def check(kind, checker, path, template, inserted):
    """(keys, None), or (None, message) for a work unit the app refuses."""
    try:
        p = subprocess.run([checker, kind.name, "-w", path, "--check"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
    except OSError as e:
        raise Failure("%s: cannot run: %s" % (checker, e.strerror or e))
    except subprocess.TimeoutExpired:
        raise Failure("%s: --check took more than 10 minutes" % checker)
    # the work unit as wu/NAME_i.txt, not in the temporary folder
    msg = app_message(p.stderr.decode("utf-8", "replace")).replace(
        os.path.dirname(os.path.dirname(path)) + os.sep, "")
    rc, refusals = p.returncode, kind.refusals
    if rc != 0 and (refusals is None or rc in refusals):
        m = re.search(re.escape(os.path.basename(path)) + r":([0-9]+)", msg)
        if m and (refusals is None or rc == 65):
            line = template.template_line(int(m.group(1)), inserted)
            msg += (" (template line %d)" % line if line
                    else " (a generated %s line)" % template.PARAM_WORD)
        return None, msg + (refusals or {}).get(rc, "")
    if rc == 71:
        raise Failure("%s (the checker's exit 71: this machine has less memory than the work "
                      "unit needs; check on a machine at least as large as the hosts)" % msg)
    if rc != 0:
        raise Failure("%s %s --check failed (exit %d): %s" % (checker, kind.name, rc, msg))
    return check_keys(kind, checker, p.stdout.decode("utf-8", "replace")), None


# ---- bounds and output templates ----

def output_limit(size):
    """The output template's max_nbytes for results of at most size bytes:
    64 MiB, or the next power of two MiB; None past the validator's limit."""
    if size > OUTPUT_MAX:
        return None
    limit = OUTPUT_DEFAULT
    while limit < size:
        limit *= 2
    return limit


# A work unit's output limits: a tuple, one max_nbytes for each of the
# kind's outputs (Kind.outputs), in the output template's order.

def is_default(limits):
    return all(limit == OUTPUT_DEFAULT for limit in limits)


def limits_text(limits):
    """MiB of each output: "64", "128+64"."""
    return "+".join("%d" % (limit // MIB) for limit in limits)


def out_template_name(app, limits):
    return "%s_out" % app if is_default(limits) else "%s_out_%s" % (
        app, "_".join("%dM" % (limit // MIB) for limit in limits))


def out_template(limits, names):
    """server_templates/K_out with these max_nbytes: a file_info and a
    file_ref an output, every output after the first optional (the app
    writes it only where the work unit asks)."""
    infos = "".join("<file_info>\n    <name><OUTFILE_%d/></name>\n    <generated_locally/>\n"
                    "    <upload_when_present/>\n    <max_nbytes>%d</max_nbytes>\n"
                    "    <url><UPLOAD_URL/></url>\n</file_info>\n" % (i, limit)
                    for i, limit in enumerate(limits))
    refs = "".join("    <file_ref>\n        <file_name><OUTFILE_%d/></file_name>\n"
                   "        <open_name>%s</open_name>\n        <copy_file/>\n%s"
                   "    </file_ref>\n" % (i, name, "        <optional/>\n" if i else "")
                   for i, name in enumerate(names))
    return infos + "<result>\n" + refs + "</result>\n"


def unit_bounds(est, memory, o, limit):
    """(fpops_est, fpops_bound, memory_bound, output limit) of a work unit."""
    return (est, est * o["margin"], math.ceil(memory * 1.25 + o["memory_extra"] * MIB), limit)


def bounds_text(group, input_bytes, memory, o):
    est, bound, mem, limit = group
    return ("--rsc_fpops_est %.6e --rsc_fpops_bound %.6e --rsc_memory_bound %.0f "
            "--rsc_disk_bound %.0f --delay_bound %d --min_quorum %d --target_nresults %d"
            % (est, bound, mem, 2 * input_bytes + sum(limit) + 2 * memory + 64 * MIB, o["delay"],
               o["quorum"], o["quorum"]))


# ---- the batch ----

def make_units(kind, o, template, names, points, checker, name, work):
    """Writes wu/ in work; returns the rows."""
    wudir = os.path.join(work, "wu")
    os.mkdir(wudir)
    rows = []
    for i, p in enumerate(points):
        wu = "%s_%d" % (name, i)
        text, inserted = template.render(names, p,
                                         kind.inserted_lines(o, name, i, names, p, template))
        path = os.path.join(wudir, wu + ".txt")
        with open(path, "w") as f:
            f.write(text)
        where = "work unit %d (%s)" % (i, point_text(names, p))
        if checker:
            keys, msg = check(kind, checker, path, template, inserted)
            if msg:
                raise Failure("%s: %s" % (where, msg), 65)
        else:
            keys = kind.rough_keys(template, text)
        kind.accept(o, i, where, keys)
        limits = []
        for output, size in kind.outputs(keys):
            limits.append(output_limit(size))
            if limits[-1] is None:
                raise Failure("%s: its %s could reach %.3g bytes (%s), more than the %d "
                              "orrery-validate reads: %s"
                              % ((where, output, size) + kind.too_large(keys)[:1] + (OUTPUT_MAX,)
                                 + kind.too_large(keys)[1:]), 65)
        rows.append(Row(wu, wu + ".txt", p, keys, len(text.encode()), tuple(limits)))
    return rows


def install_templates(work, o, limits, names):
    """templates/ with the larger output templates, and submit.sh's lines
    that install them."""
    os.mkdir(os.path.join(work, "templates"))
    for limit in limits:
        with open(os.path.join(work, "templates", out_template_name(o["app"], limit)), "w") as f:
            f.write(out_template(limit, names))
    return ["# the larger output templates this batch needs: installed once, never",
            "# replaced (a work unit's template must stay as it was created)",
            'for t in "$here"/templates/*; do',
            '    to=templates/$(basename "$t")',
            '    if [ ! -e "$to" ]; then cp "$t" "$to"',
            '    elif ! cmp -s "$t" "$to"; then echo "submit.sh: $to differs from $t" >&2; exit 1; fi',
            "done"]


def write_submit(kind, work, o, name, groups, stamp):
    """jobs_G.txt, submit.sh, commands.txt and templates/; returns the
    groups in order: (G, group, how many work units)."""
    app = o["app"]
    submit = ["#!/bin/sh",
              kind.submit_title.format(prog=kind.prog, stamp=stamp, name=name),
              "# BOINC project's root folder: stages the work units' input files and",
              "# creates the work units (templates/%s_in and templates/%s_out must" % (app, app),
              "# exist: see server_templates/ of Orrery).",
              "set -e",
              'here=$(cd "$(dirname "$0")" && pwd)']
    order = sorted(groups, key=kind.order)
    big = sorted({kind.limit(g) for g in order if not is_default(kind.limit(g))})
    if big:
        submit += install_templates(work, o, big, kind.output_names)
    submit.append('bin/stage_file --copy "$here/wu"')
    commands, listed = [], []
    for k, g in enumerate(order, 1):
        members = groups[g]
        create = ("bin/create_work --appname %s --wu_template templates/%s_in --result_template "
                  "templates/%s %s" % (app, app, out_template_name(app, kind.limit(g)),
                                       kind.bounds(g, members, o)))
        with open(os.path.join(work, "jobs_%d.txt" % k), "w") as f:
            for r in members:
                line = "--wu_name %s --command_line %s %s" % (r.wu, kind.name, r.file)
                f.write(line + "\n")
                commands.append("%s %s" % (create, line))
        submit.append('%s --stdin <"$here/jobs_%d.txt"' % (create, k))
        listed.append((k, g, len(members)))
    with open(os.path.join(work, "submit.sh"), "w") as f:
        f.write("\n".join(submit) + "\n")
    os.chmod(os.path.join(work, "submit.sh"), 0o755)
    with open(os.path.join(work, "commands.txt"), "w") as f:
        f.write("\n".join(commands) + "\n")
    return listed


def write_points(kind, work, names, rows):
    """points.txt: a work unit a line, its values and the kind's columns."""
    with open(os.path.join(work, "points.txt"), "w") as f:
        f.write(" ".join(["# wu"] + names + [k for k, _ in kind.columns]) + "\n")
        for r in rows:
            f.write(" ".join([r.wu] + r.point + [form % r.keys[k] for k, form in kind.columns])
                    + "\n")


def summary_lines(kind, o, names, points, rows, listed, checker, out):
    s = ["%s: %d work unit(s) in %s" % (kind.prog, len(rows), out),
         "template: %s" % o["template"]]
    if o["grid"]:
        s.append("sampling: grid %s (first name outermost)" % " ".join(o["grid"]))
    elif o["lhs"] is not None:
        s.append("sampling: Latin hypercube of %d points, seed %d, %s"
                 % (o["lhs"], o["seed"], " ".join(o["range"])))
    else:
        s.append("sampling: the %s of %s" % (kind.sets, o["list"]))
    for j, n in enumerate(names):
        vals = [p[j] for p in points]
        nums = [as_number(v) for v in vals]
        span = ("in [%s, %s]" % (fmt(min(nums)), fmt(max(nums))) if None not in nums
                else "(%s)" % ", ".join(sorted(set(vals))[:8]))
        s.append("parameter %s: %d value(s) %s" % (n, len(set(vals if kind.words else nums)), span))
    s.append("checked by: %s" % (checker or "nobody (--no-check): rough cost model"))
    s.append("work unit 0, as %s:" % ("the app checks it" if checker else "estimated"))
    s.extend("  " + line for line in rows[0].keys[""])
    s.extend(kind.jobs_line(k, g, n, o) for k, g, n in listed)
    s.append(kind.total_line(rows))
    return s


def batch_name(o, now):
    base = os.path.splitext(os.path.basename(o["template"]))[0]
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", base) or "template"
    return o["name"] or "%s_%s_%s" % (o["app"], base, now.strftime("%Y%m%d%H%M%S"))


def find_app(kind, o):
    """The checker's path; None with --no-check."""
    if o.get("no_check"):
        return None
    checker = os.path.abspath(o["checker"]) if o["checker"] else find_checker(kind)
    if not (os.path.isfile(checker) and os.access(checker, os.X_OK)):
        raise Failure("--checker %s: not an executable file" % checker)
    return checker


def generate(kind, argv):
    o = parse_args(kind, argv)
    template = kind.template(o["template"])
    names, points = sample(kind, o)
    template.check_names(names)
    checker = find_app(kind, o)
    now = datetime.datetime.now(datetime.timezone.utc)
    name = batch_name(o, now)
    out = o["out"] or os.path.join(".", name)
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise Failure("%s exists and is not empty" % out)
    if len("templates/%s" % out_template_name(o["app"], (OUTPUT_MAX,) * len(kind.output_names))) > 63:
        usage("--app: too long a name for create_work's template names (63 characters)")

    work = tempfile.mkdtemp(prefix="orrery-wugen-")
    try:
        rows = make_units(kind, o, template, names, points, checker, name, work)
        groups = {}
        for r in rows:
            groups.setdefault(kind.group(r, o), []).append(r)
        listed = write_submit(kind, work, o, name, groups, now.strftime("%Y-%m-%dT%H:%M:%SZ"))
        write_points(kind, work, names, rows)
        summary = summary_lines(kind, o, names, points, rows, listed, checker, out)
        with open(os.path.join(work, "summary.txt"), "w") as f:
            f.write("\n".join(summary) + "\n")
        os.makedirs(out, exist_ok=True)
        for entry in sorted(os.listdir(work)):
            shutil.move(os.path.join(work, entry), os.path.join(out, entry))
        sys.stdout.write("\n".join(summary) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def run(kind):
    """The generator's main: exit 0 written, or the Failure's code."""
    try:
        sys.exit(generate(kind, sys.argv[1:]))
    except Failure as e:
        sys.stderr.write("%s: %s\n" % (kind.prog, e))
        sys.exit(e.rc)
    except KeyboardInterrupt:
        sys.exit(130)
