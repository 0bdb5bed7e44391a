# orrery-assimilate's tables: JSON Lines files appended under a lock, each
# work unit's rows once, found through an index beside the table (a part
# of the script: workunits/Makefile.inc joins workunits/orrery-assimilate.in
# and the files its '#@include' lines name; Failure, PROG and json_line come
# from orrery-assimilate.in).
#
# The index, TABLE.idx (SQLite, Python's sqlite3): the (wu_id, member) of
# every row of TABLE (member -1 for a row without one), and the table's
# state it describes: its size, inode and last line. It is only ever behind
# the table, never ahead: it is committed after the rows' fsync, under the
# table's flock. A run killed between the two leaves rows the index lacks,
# which the next call adds from the table's tail (the bytes past the
# recorded size); an index that is ahead of, or about another file than,
# the table (the table truncated, edited or replaced; the index missing,
# unreadable or corrupt) is rebuilt from the whole table, once. So a
# work unit's check is one indexed lookup, not a read of the table.

import sqlite3

INDEX_SUFFIX = ".idx"
INDEX_TAIL = 256                 # bytes of the table's end kept to tell it is the same file
NO_MEMBER = -1


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


def _fsync_directory(directory):
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def copy_synced(source, to):
    """source copied to to whole or not at all (a temporary name, fsync,
    rename, the folder synced): a row written after it never names a
    file a crash lost."""
    directory = os.path.dirname(to) or "."
    try:
        os.makedirs(directory, exist_ok=True)
        src = open_regular(source, os.O_RDONLY)
        with os.fdopen(src, "rb") as f, open(to + ".tmp", "wb") as out:
            shutil.copyfileobj(f, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(to + ".tmp", to)
        _fsync_directory(directory)
    except OSError as e:
        raise Failure(e.filename or to, e.strerror or str(e))


def _drop_torn_line(fd, table):
    """The table's size without a torn last line (a run that never
    finished its write), truncated to it."""
    size = os.fstat(fd).st_size
    if size == 0:
        return 0
    last = os.pread(fd, 1, size - 1)
    if last == b"\n":
        return size
    with mmap.mmap(fd, size, prot=mmap.PROT_READ) as mm:
        keep = mm.rfind(b"\n") + 1
    sys.stderr.write("%s: %s: dropping an incomplete last line (%d bytes)\n"
                     % (PROG, table, size - keep))
    os.ftruncate(fd, keep)
    return keep


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
        size = _drop_torn_line(fd, table)
        index = RowIndex(table, fd, size)
        try:
            present = index.members(wu_id)
            todo = [(member, pairs) for member, pairs in rows if member not in present]
            data = "".join(json_line(pairs) for _, pairs in todo).encode("ascii")
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
                    _fsync_directory(directory)
                # only now: the index never names rows the disk lacks
                index.add(wu_id, [member for member, _ in todo], size + len(data))
        finally:
            index.close()
        return len(todo)
    except OSError as e:
        raise Failure(table, e.strerror or str(e))
    finally:
        os.close(fd)


# The head of every row json_line writes: its work unit's id, then its
# member's number if it has one; any other line is parsed as JSON.
_ROW_HEAD = re.compile(rb'\{"wu": "(?:[^"\\]|\\.)*", "wu_id": ([0-9]+)(, "member": ([0-9]+))?[,}]')


def _row_key(line):
    """(wu_id, member) of one line of a table (member NO_MEMBER for a row
    without one, an error or refused row); ValueError if it is no row."""
    m = _ROW_HEAD.match(line)
    if m:
        return int(m.group(1)), int(m.group(3)) if m.group(2) else NO_MEMBER
    try:
        row = json.loads(line.decode("ascii"))
        wu, member = row["wu_id"], row.get("member")
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError):
        raise ValueError("not a row")
    if not isinstance(wu, int) or not (member is None or isinstance(member, int)):
        raise ValueError("not a row")
    return wu, NO_MEMBER if member is None else member


class RowIndex:
    """TABLE.idx for the locked table open as fd, of size bytes (the file
    header says what it holds and why it is never ahead of the table)."""

    def __init__(self, table, fd, size):
        self.table, self.fd, self.size = table, fd, size
        self.path = table + INDEX_SUFFIX
        self.db = None
        try:
            self._open()
            state = self._state()
            if state is None:
                self._rebuild()
            elif state[0] < size:
                self._catch_up(state[0])
        except sqlite3.Error as e:
            self.close()
            self._rebuild_after(e)
        except BaseException:
            self.close()
            raise

    def _open(self):
        if os.path.lexists(self.path) and not os.path.isfile(self.path):
            raise Failure(self.path, "not a regular file (the table's index): refused")
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS rows (wu_id INTEGER NOT NULL, "
                        "member INTEGER NOT NULL, PRIMARY KEY (wu_id, member)) WITHOUT ROWID")
        self.db.execute("CREATE TABLE IF NOT EXISTS state (one INTEGER PRIMARY KEY CHECK (one = 1), "
                        "size INTEGER NOT NULL, inode INTEGER NOT NULL, tail BLOB NOT NULL)")

    def _tail(self, size):
        return os.pread(self.fd, min(INDEX_TAIL, size), size - min(INDEX_TAIL, size))

    def _state(self):
        """The recorded (size, ...) if the index describes this table up
        to a size it still has; None if it must be rebuilt."""
        row = self.db.execute("SELECT size, inode, tail FROM state").fetchone()
        if row is None:
            return None
        size, inode, tail = row
        if size > self.size or inode != os.fstat(self.fd).st_ino or bytes(tail) != self._tail(size):
            return None
        return row

    def _index_lines(self, start):
        """Adds the rows of the table's bytes start..size (whole lines)."""
        if self.size <= start:
            return
        with mmap.mmap(self.fd, self.size, prot=mmap.PROT_READ) as mm:
            keys, at = [], start
            while at < self.size:
                end = mm.find(b"\n", at, self.size)
                try:
                    keys.append(_row_key(mm[at:end]))
                except ValueError:
                    raise Failure(self.table, "line %d is not a row of this table"
                                  % (mm[:at].count(b"\n") + 1))
                at = end + 1
        self.db.executemany("INSERT OR IGNORE INTO rows VALUES (?, ?)", keys)

    def _record(self, size):
        self.db.execute("INSERT OR REPLACE INTO state VALUES (1, ?, ?, ?)",
                        (size, os.fstat(self.fd).st_ino, self._tail(size)))

    def _rebuild(self):
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("DELETE FROM rows")
        self._index_lines(0)
        self._record(self.size)
        self.db.execute("COMMIT")

    def _catch_up(self, indexed):
        """Rows a killed run appended after its fsync, before its index
        commit: the table's lines past the recorded size."""
        self.db.execute("BEGIN IMMEDIATE")
        self._index_lines(indexed)
        self._record(self.size)
        self.db.execute("COMMIT")

    def _rebuild_after(self, error):
        """A corrupt or unreadable index: removed and made again."""
        sys.stderr.write("%s: %s: rebuilding the index (%s)\n" % (PROG, self.path, error))
        for suffix in ("", "-journal"):
            try:
                os.unlink(self.path + suffix)
            except FileNotFoundError:
                pass
        try:
            self._open()
            self._rebuild()
        except sqlite3.Error as e:
            raise Failure(self.path, "cannot make the table's index: %s" % e)

    def members(self, wu_id):
        """The member numbers of wu_id's rows (None for a row without one)."""
        try:
            found = self.db.execute("SELECT member FROM rows WHERE wu_id = ?", (wu_id,)).fetchall()
        except sqlite3.Error as e:
            raise Failure(self.path, "%s" % e)
        return {None if m == NO_MEMBER else m for (m,) in found}

    def add(self, wu_id, members, size):
        """Records wu_id's new rows and the table's new size, after they
        are on disk."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("INSERT OR IGNORE INTO rows VALUES (?, ?)",
                                [(wu_id, NO_MEMBER if m is None else m) for m in members])
            self._record(size)
            self.db.execute("COMMIT")
        except sqlite3.Error as e:
            # the rows are in the table: the next call's catch-up indexes them
            sys.stderr.write("%s: %s: not updated (%s); the next call catches up\n"
                             % (PROG, self.path, e))

    def close(self):
        if self.db is not None:
            self.db.close()
            self.db = None
