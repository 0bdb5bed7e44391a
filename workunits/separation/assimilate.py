# orrery-assimilate's formatter for separation (a part of the script:
# workunits/Makefile.inc joins workunits/orrery-assimilate.in and the files
# its '#@include' lines name; canonical, Raw, Refused, Failure,
# number_text, one_file and Kind come from orrery-assimilate.in).
#
# PROJECT/orrery/APP.jsonl, one line per bundle member:
#   {"wu": NAME, "wu_id": ID, "member": K, "parameters": [...],
#    "search_likelihood": X, "background_integral": X,
#    "stream_integrals": [...], "background_likelihood": X,
#    "stream_only_likelihoods": [...]}
# "parameters": member K's share of the work unit's -p values (N values,
# K members: N/K each, in order); of an error row, all of them.


def separation_parameters(command_line, where):
    """The values after -p in the work unit's command line (-np N of them),
    as JSON number texts."""
    words = command_line.split()
    n = None
    p_at = None
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-np", "--num-params") or w.startswith("--num-params="):
            if "=" in w:
                value = w.split("=", 1)[1]
            elif i + 1 < len(words):
                value = words[i + 1]
                i += 1
            else:
                raise Failure(where, "command line: %s without a value" % w)
            if not re.fullmatch(r"[0-9]+", value):
                raise Failure(where, "command line: %s '%s' is not a count" % (w, value))
            n = int(value)
        elif w in ("-p", "--params"):
            if p_at is not None:
                raise Failure(where, "command line: -p given twice")
            p_at = i + 1
        i += 1
    if p_at is None:
        raise Failure(where, "command line has no -p: '%s'" % command_line.strip())
    if n is None:  # as the app: every number after -p
        n = 0
        while p_at + n < len(words) and number_text(words[p_at + n]) is not None:
            n += 1
    values = words[p_at:p_at + n]
    if len(values) < n:
        raise Failure(where, "command line: -np %d but %d values after -p" % (n, len(values)))
    out = []
    for k, w in enumerate(values):
        t = number_text(w)
        if t is None:
            raise Failure(where, "command line: search value %d '%s' is not a finite number"
                          % (k + 1, w))
        out.append(Raw(t))
    if not out:
        raise Failure(where, "command line: no search values after -p")
    return out


def separation_rows(wu_name, wu_id, command_line, paths, validator):
    """One row per bundle member of a separation result."""
    path = one_file(wu_name, paths)
    doc = canonical(validator, path, "separation")
    members, per_wu = doc["members"], doc["number_params_per_WU"]
    try:
        params = separation_parameters(command_line, "work unit %s" % wu_name)
    except Failure as e:   # this work unit's own command line: it never changes
        raise Refused(None, str(e))
    if len(params) % len(members):
        raise Refused(path, "%d bundle members but %d search values in the command line"
                      % (len(members), len(params)))
    share = len(params) // len(members)
    if per_wu is not None and int(per_wu) != share:
        raise Refused(path, "<number_params_per_WU> %s, but the command line gives each of %d "
                      "members %d values" % (per_wu, len(members), share))
    rows = []
    for k, m in enumerate(members):
        rows.append((k, [
            ("wu", wu_name), ("wu_id", wu_id), ("member", k),
            ("parameters", params[k * share:(k + 1) * share]),
            ("search_likelihood", m["search_likelihood"][0]),
            ("background_integral", m["background_integral"][0]),
            ("stream_integrals", m["stream_integral"]),
            ("background_likelihood", m["background_likelihood"][0]),
            ("stream_only_likelihoods", m["stream_only_likelihood"]),
        ]))
    return rows


KINDS["separation"] = Kind(separation_rows, separation_parameters)
