"""Reading a root's index where nothing may be written (case C36): ``.memory/`` on a read-only mount, a sandbox that
forbids writes, a checkout whose files belong to someone else.

The usual open (:func:`memdir.store.sqlite.opening.open_index`) writes: it switches the file to WAL (creating
``-wal`` and ``-shm`` beside it), migrates, re-tokenizes, compresses, touches the tombstone log. Here, in order:

1. ``file:…?mode=ro``: SQLite's read-only mode. It still takes the usual locks and reads a WAL left by a writer,
   but it needs the ``-shm`` file, which it cannot create in a directory it cannot write (a WAL-mode file whose
   last writer closed cleanly has none);
2. ``file:…?immutable=1``: no locks, no ``-shm``; SQLite assumes nothing changes the file meanwhile and reads no
   ``-wal`` (which a clean close has folded into the file and removed; one left by a writer killed before a read-only
   mount is ignored, logged);
3. an index in memory: when there is no index file (``.memdir/`` is git-ignored, so a fresh clone has none) or
   it needs a migration, the file's rows (or none) are copied into ``:memory:`` and upgraded there. The root's sync
   then mirrors the Markdown notes into the copy (:func:`to_memory` when a read-only file is stale), so recall finds
   the notes either way; nothing reaches the disk.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memdir.errors import MemdirError
from memdir.lazylog import getLogger
from memdir.store.sqlite import codec, opening, tombstones
from memdir.store.sqlite.migrations import migrate

log = getLogger("memdir")

#: how an index was opened: ``"ro"``, ``"immutable"`` (steps 1 and 2 above) or ``"memory"`` (step 3)
HOW = ("ro", "immutable", "memory")


def cannot_write(path: str | Path) -> str | None:
    """Why this process cannot create files in directory ``path`` (its nearest existing ancestor when it is missing),
    as a few words (``"read-only file system"``, ``"no write permission"``), or ``None`` when it can. Root counts
    too: ``os.access`` says a read-only mount or an immutable directory is not writable for root either."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        if os.statvfs(p).f_flag & getattr(os, "ST_RDONLY", 1):
            return "read-only file system"
    except (OSError, AttributeError):
        pass
    if not os.access(p, os.W_OK):
        return "no write permission"
    return None


#: free bytes below which a disk counts as full: SQLite's WAL index (``-shm``) alone takes 32 KiB
ROOM_BYTES = 64 * 1024


def no_room(path: str | Path) -> str | None:
    """Why nothing more fits in directory ``path`` (its nearest existing ancestor when missing): ``"no space left on
    device"``, ``"disk quota exceeded"``, else ``None``. Asked after a write failed, to tell a full disk from other
    I/O errors: the free space first, then a small write (a quota shows in no ``statvfs``), removed at once."""
    import errno
    import tempfile

    full = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        v = os.statvfs(p)
        if v.f_bavail * v.f_frsize < ROOM_BYTES or (v.f_files and not v.f_favail):
            return os.strerror(errno.ENOSPC).lower()
    except (OSError, AttributeError):
        pass
    try:
        fd, tmp = tempfile.mkstemp(dir=p, prefix=".tmp-room-")
    except OSError as exc:
        return os.strerror(exc.errno).lower() if exc.errno in full else None
    try:
        left = ROOM_BYTES
        while left > 0:
            wrote = os.write(fd, b"\0" * left)
            if not wrote:  # a file system that takes nothing more without saying why
                return os.strerror(errno.ENOSPC).lower()
            left -= wrote
    except OSError as exc:
        return os.strerror(exc.errno).lower() if exc.errno in full else None
    finally:
        os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return None


#: files of ``.memdir/`` a write changes beside the index: the tombstone log, the event counter, the write lock
DERIVED_FILES = ("tombstones.jsonl", "events.json", "write.lock")


def unwritable_part(derived: Path) -> str | None:
    """Why a write to the root whose ``.memdir/`` is ``derived`` would be refused part way, or ``None``: a file of it
    a write appends to (a forget whose tombstone cannot be logged would come back after a rebuild). A read-only
    category directory is not such a part: only its own notes' writes fail (each in one line), captures and the
    other categories go on."""
    for name in DERIVED_FILES:
        p = derived / name
        if p.is_file() and not os.access(p, os.W_OK):
            return f"{derived.name}/{name} is not writable"
    return None


def _uri(path: Path, query: str) -> str:
    from urllib.parse import quote  # only for a read-only store: not on every hook's import path

    return f"file:{quote(str(path.resolve()))}?{query}"


def _connect(target: str, *, uri: bool) -> sqlite3.Connection:
    db = sqlite3.connect(target, uri=uri, timeout=opening.BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                         check_same_thread=False, factory=codec.Connection)
    db.row_factory = sqlite3.Row
    opening.add_functions(db)
    return db


def to_memory(db: sqlite3.Connection, *, close: bool = True) -> sqlite3.Connection:
    """A writable copy of ``db`` in memory (SQLite's backup API; the schema's functions registered); ``db`` is
    closed unless ``close=False``. Writes to the copy reach no file."""
    mem = _connect(":memory:", uri=False)
    db.backup(mem)
    if close:
        db.close()
    return mem


def open_readonly(path: Path) -> tuple[sqlite3.Connection, str]:
    """Open the index at ``path`` without writing anything beside it; returns ``(connection, how)`` (:data:`HOW`).
    Raises ``MemdirError`` (one line) when the file exists but SQLite can read it in no way."""
    if not (path.exists() and path.stat().st_size > 0):
        db = _connect(":memory:", uri=False)
        migrate(db)
        tombstones.on_open(db, path, created=True)  # the log's forgotten items stay forgotten (it is only read)
        return db, "memory"
    db, how, errors = None, "", []
    for how, query in (("ro", "mode=ro"), ("immutable", "immutable=1")):
        try:
            db = _connect(_uri(path, query), uri=True)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            break
        except sqlite3.DatabaseError as exc:
            errors.append(f"{how}: {exc}")
            if db is not None:
                db.close()
            db = None
    if db is None:
        raise MemdirError(f"could not read the index {path} of a read-only store ({'; '.join(errors)}); "
                          "mount it writable once, or move .memdir/ aside (notes are read from the Markdown)")
    wal = Path(str(path) + "-wal")
    if how == "immutable" and wal.exists() and wal.stat().st_size:  # an empty one (a failed open's) holds nothing
        log.warning("memdir: %s-wal is left from a writer and cannot be read on a read-only store; "
                    "the last writes before it became read-only may be missing", path)
    if opening.needs_upgrade(db):  # an older schema: upgraded in memory, the file stays as it is
        db = to_memory(db)
        migrate(db)
        opening.check_tokenizer(db)
        how = "memory"
    return db, how


def second_connection(db: sqlite3.Connection) -> sqlite3.Connection:
    """Another connection to what ``db`` reads, for a reader thread (:mod:`memdir.store.sqlite.postings` builds on
    one): the same file opened as :func:`memdir.store.sqlite.opening.connect_reader` does, else read-only as
    :func:`open_readonly` does (``mode=ro``, then ``immutable=1``), or, for an index in memory, a copy of it."""
    path = db.execute("PRAGMA database_list").fetchone()[2]
    if not path:
        return to_memory(db, close=False)
    tries = [lambda: opening.connect_reader(path)]
    tries += [lambda q=q: _connect(_uri(Path(path), q), uri=True) for q in ("mode=ro", "immutable=1")]
    last: sqlite3.Error | None = None
    for connect in tries:
        conn = None
        try:
            conn = connect()
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            last = exc
            if conn is not None:
                conn.close()
    assert last is not None
    raise last
