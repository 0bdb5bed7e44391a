#!/usr/bin/env python3
"""The assimilator's duplicate check against a large table
(bench/assimilate/RESULTS.md): orrery-assimilate's append_rows (the
table module, workunits/assimilate/table.py) of an old revision, which
finds a work unit's rows by reading the table, against this tree's, which
looks them up in the index beside it, both on copies of one table of ROWS
separation rows, in turn (old, new, old, ...) so that a drift of the
machine moves both.

    bench/assimilate/bench.py [--rows N] [--runs R] [--old REV] [--dir DIR]

Timed, per call (median, min and max of R, milliseconds):
  check: a work unit whose rows are there already (the table's last): the
    lookup alone, nothing written;
  append: a new work unit's row: the lookup, the write and its fsyncs;
and, once, the new index's first build from the table. Run it from the
source tree (it reads REV's table module through git); DIR (default a
temporary one) needs about 0.5 GB per million rows, twice.
"""
import argparse
import fcntl
import json
import mmap
import re
import os
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
MODULE = "workunits/assimilate/table.py"


class Failure(Exception):
    def __init__(self, where, what, rc=1):
        super().__init__("%s: %s" % (where, what))


def json_line(pairs):
    return json.dumps(dict(pairs)) + "\n"


def load(source, name):
    """The table module's functions, given the names it takes from
    orrery-assimilate.in."""
    space = {"os": os, "sys": sys, "json": json, "mmap": mmap, "re": re, "fcntl": fcntl, "stat": stat,
             "Failure": Failure, "PROG": "orrery-assimilate", "json_line": json_line,
             "__name__": name}
    exec(compile(source, name, "exec"), space)
    return space["append_rows"]


def row(wu_id):
    """A separation row as orrery-assimilate writes it (about 330 bytes)."""
    p = [0.571713, 12.312119, -3.305187, 148.010257, 22.453902, 0.42035, -0.468858, 0.760579]
    return [("wu", "de_bench_%d" % wu_id), ("wu_id", wu_id), ("member", 0), ("parameters", p),
            ("search_likelihood", -3.125097883803232), ("background_integral", 0.000427735),
            ("stream_integrals", [12.5673, 0.00274, 3.3e-05]),
            ("background_likelihood", -3.4582),
            ("stream_only_likelihoods", [-4.1, -160.2, -172.5])]


def make_table(path, rows):
    with open(path, "w") as f:
        chunk = []
        for i in range(1, rows + 1):
            chunk.append(json_line(row(i)))
            if len(chunk) == 10000:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))


def timed(fn):
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1e3


def summary(ms):
    return "median %.3f ms (min %.3f, max %.3f; %d calls)" % (
        statistics.median(ms), min(ms), max(ms), len(ms))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--old", default="117ad30", help="the revision with the table scan")
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    old_src = subprocess.run(["git", "-C", TOP, "show", "%s:%s" % (a.old, MODULE)], check=True,
                             stdout=subprocess.PIPE).stdout.decode()
    with open(os.path.join(TOP, MODULE)) as f:
        new_src = f.read()
    old, new = load(old_src, "old"), load(new_src, "new")
    work = tempfile.mkdtemp(prefix="orrery-assimilate-bench-", dir=a.dir)
    try:
        base = os.path.join(work, "base.jsonl")
        t = time.perf_counter()
        make_table(base, a.rows)
        print("table: %d rows, %.1f MB (made in %.1f s)"
              % (a.rows, os.path.getsize(base) / 1e6, time.perf_counter() - t))
        tables = {"old": os.path.join(work, "old.jsonl"), "new": os.path.join(work, "new.jsonl")}
        for t_path in tables.values():
            shutil.copyfile(base, t_path)
        os.unlink(base)
        build = timed(lambda: new(tables["new"], a.rows, [(0, row(a.rows))]))
        print("new: the index's first build from the table: %.0f ms (once; %.1f MB)"
              % (build, os.path.getsize(tables["new"] + ".idx") / 1e6))
        fns = {"old": old, "new": new}
        check = {"old": [], "new": []}
        append = {"old": [], "new": []}
        for i in range(a.runs):
            for way in ("old", "new"):
                check[way].append(timed(lambda: fns[way](tables[way], a.rows,
                                                         [(0, row(a.rows))])))
                wu = a.rows + 1 + i
                append[way].append(timed(lambda: fns[way](tables[way], wu, [(0, row(wu))])))
        for what, ms in (("check (already there)", check), ("append (a new work unit)", append)):
            print("%s:\n  old (table scan): %s\n  new (index):      %s\n  old/new: %.0fx"
                  % (what, summary(ms["old"]), summary(ms["new"]),
                     statistics.median(ms["old"]) / statistics.median(ms["new"])))
        with open(tables["old"], "rb") as f, open(tables["new"], "rb") as g:
            same = f.read() == g.read()
        print("the two tables identical after the runs: %s" % ("yes" if same else "NO"))
        return 0 if same else 1
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
