# orrery-assimilate's tables: JSON Lines files appended under a lock, each
# work unit's rows once (a part of the script: workunits/Makefile.inc joins
# workunits/orrery-assimilate.in and the files its '#@include' lines name;
# Failure, PROG and json_line come from orrery-assimilate.in).


def open_regular(path, flags, mode=0o644):
    """os.open that never waits on a FIFO (O_NONBLOCK) and refuses what is
    not a regular file (a FIFO, a device, a directory)."""
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOCTTY, mode)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Failure(path, "not a regular file (a FIFO, device or directory): refused")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def append_rows(table, wu_id, rows):
    """Appends the rows (member, pairs) not already in table for wu_id,
    under an exclusive lock. Returns how many it appended."""
    directory = os.path.dirname(table) or "."
    try:
        os.makedirs(directory, exist_ok=True)
        created = not os.path.exists(table)
        fd = open_regular(table, os.O_RDWR | os.O_CREAT | os.O_APPEND)
    except OSError as e:
        raise Failure(e.filename or table, e.strerror or str(e))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        present = set()
        if size:
            with mmap.mmap(fd, size, prot=mmap.PROT_READ) as mm:
                # a torn last line (a run that never exited 0): dropped
                if mm[size - 1:size] != b"\n":
                    keep = mm.rfind(b"\n") + 1
                    sys.stderr.write("%s: %s: dropping an incomplete last line (%d bytes)\n"
                                     % (PROG, table, size - keep))
                    size = keep
                present = _members_present(mm, size, wu_id, table)
            if size != os.fstat(fd).st_size:
                os.ftruncate(fd, size)
        todo = [pairs for member, pairs in rows if member not in present]
        data = "".join(json_line(pairs) for pairs in todo).encode("ascii")
        if data:
            try:
                _write_all(fd, data)
                os.fsync(fd)
            except OSError:
                try:  # leave no part of this work unit's rows behind
                    os.ftruncate(fd, size)
                except OSError:
                    pass
                raise
        if created:
            dfd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        return len(todo)
    except OSError as e:
        raise Failure(table, e.strerror or str(e))
    finally:
        os.close(fd)


def _members_present(mm, size, wu_id, table):
    """The member numbers of the rows for wu_id in mm[:size] (None for a
    row without one, an error row)."""
    key = b'"wu_id": %d,' % wu_id
    found = set()
    at = mm.find(key, 0, size)
    while at >= 0:
        start = mm.rfind(b"\n", 0, at) + 1
        end = mm.find(b"\n", at, size)
        end = size if end < 0 else end
        try:
            row = json.loads(mm[start:end].decode("ascii"))
            if row.get("wu_id") != wu_id:
                raise ValueError("wu_id")
        except (ValueError, UnicodeDecodeError):
            raise Failure(table, "line %d is not a row of this table"
                          % (mm[:start].count(b"\n") + 1))
        found.add(row.get("member"))
        at = mm.find(key, end, size)
    return found
