# orrery-assimilate's formatter for mom (a part of the script:
# workunits/Makefile.inc joins workunits/orrery-assimilate.in and the files
# its '#@include' lines name; canonical, record_head, Kept, Failure and
# Kind come from orrery-assimilate.in).
#
# PROJECT/orrery/APP.jsonl (mom.jsonl, mom_mixed.jsonl), one line per work
# unit: the result's records (docs/mom.md section 4) as lists, in this
# order:
#   {"wu": NAME, "wu_id": ID, "work_unit": HASH, "application": TEXT,
#    "parameters": {NAME: VALUE, ...}, KEY: [[...], ...], ...,
#    "currents": PATH}
# each line its words after the keyword; a nan or -inf is null. (mom's
# warning: its text, one string.) "currents": where the work unit has
# `current`, the result's .npy (the output template's second file, checked
# by the validator beside the table), kept as APP-currents/NAME.npy beside
# the table (the path relative to the table's folder); else null.

MOM_RECORDS = ("geometry", "wavelength", "solve", "warning", "seconds", "current", "echo")


def mom_rows(wu_name, wu_id, command_line, paths, validator):
    if not 1 <= len(paths) <= 2:
        raise Failure("work unit %s" % wu_name, "a mom result has its results and at most its "
                      "currents' .npy, not %d files" % len(paths))
    doc = canonical(validator, paths[0], "mom", paths[1:])
    currents = None
    if doc["records"].get("current") and len(paths) == 2:
        currents = Kept(paths[1], "currents", ".npy")
    return [(None, record_head(wu_name, wu_id, doc) +
             [(k, doc["records"].get(k, [])) for k in MOM_RECORDS] + [("currents", currents)])]


KINDS["mom"] = Kind(mom_rows, no_parameters)

# mom_mixed (docs/mom.md 6.2) is the same kind under another app name.
KINDS["mom_mixed"] = KINDS["mom"]
