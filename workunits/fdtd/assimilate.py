# orrery-assimilate's formatter for fdtd (a part of the script:
# workunits/Makefile.inc joins workunits/orrery-assimilate.in and the files
# its '#@include' lines name; records_rows, no_parameters and Kind come
# from orrery-assimilate.in).
#
# PROJECT/orrery/fdtd.jsonl, one line per work unit: the result's
# records (docs/fdtd.md section 4) as lists, in this order:
#   {"wu": NAME, "wu_id": ID, "work_unit": HASH, "application": TEXT,
#    "parameters": {NAME: VALUE, ...}, KEY: [[...], ...], ...}
# each line its words after the keyword; a nan or -inf is null.
# (A 1 GiB fdtd result is a 1 GiB line: batch such results with
# batch_collect_assimilator instead if that is too much.)

FDTD_RECORDS = ("grid", "host_tables", "probe", "series", "energy", "norm", "cell_updates_per_second",
                "seconds")

KINDS["fdtd"] = Kind(records_rows("fdtd", FDTD_RECORDS), no_parameters)
