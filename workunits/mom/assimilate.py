# orrery-assimilate's formatter for mom (a part of the script:
# workunits/Makefile.inc joins workunits/orrery-assimilate.in and the files
# its '#@include' lines name; records_rows, no_parameters and Kind come
# from orrery-assimilate.in).
#
# PROJECT/orrery/mom.jsonl, one line per work unit: the result's
# records (docs/mom.md section 4) as lists, in this order:
#   {"wu": NAME, "wu_id": ID, "work_unit": HASH, "application": TEXT,
#    "parameters": {NAME: VALUE, ...}, KEY: [[...], ...], ...}
# each line its words after the keyword; a nan or -inf is null.
# (mom's warning: its text, one string.)

MOM_RECORDS = ("geometry", "wavelength", "solve", "warning", "seconds", "echo")

KINDS["mom"] = Kind(records_rows("mom", MOM_RECORDS), no_parameters)
