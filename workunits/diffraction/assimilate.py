# orrery-assimilate's formatter for diffraction (a part of the script:
# workunits/Makefile.inc joins workunits/orrery-assimilate.in and the files
# its '#@include' lines name; canonical, one_file, record_head,
# no_parameters and Kind come from orrery-assimilate.in).
#
# PROJECT/orrery/diffraction.jsonl, one line per work unit (a shape and its
# whole spectrum, docs/diffraction.md sections 4 and 6):
#   {"wu": NAME, "wu_id": ID, "work_unit": HASH, "application": TEXT,
#    "parameters": {NAME: VALUE, ...}, "points": N,
#    "lambda": [...], "theta": [...], "phi": [...], "status": [...],
#    "iterations": [...], "residual": [...], "r00_re": [...],
#    "r00_im": [...], "R_total": [...], "T_total": [...],
#    "absorbed": [...], "orders": [[[m, n, R, T], ...], ...]}
# one list element per point, in the table's order; the table's nan is
# null; status the table's word (ok, not_converged, unbalanced).
# orrery-library assemble reads this file.

DIFFRACTION_COLUMNS = ("lambda", "theta", "phi", "status", "iterations", "residual", "r00_re",
                       "r00_im", "R_total", "T_total", "absorbed")


def diffraction_rows(wu_name, wu_id, command_line, paths, validator):
    """One row for a diffraction work unit: its results table as lists."""
    doc = canonical(validator, one_file(wu_name, paths), "diffraction")
    points = doc["records"].get("point", [])
    # a point row's words: K, the 11 columns, n_orders, then m n R T each
    cols = [(key, [p[1 + i] for p in points]) for i, key in enumerate(DIFFRACTION_COLUMNS)]
    orders = [[p[j:j + 4] for j in range(13, len(p), 4)] for p in points]
    return [(None, record_head(wu_name, wu_id, doc) + [("points", len(points))] + cols +
             [("orders", orders)])]


KINDS["diffraction"] = Kind(diffraction_rows, no_parameters)
