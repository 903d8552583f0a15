"""What can still be read of an index SQLite could not open: the file :func:`memdir.store.sqlite.opening.open_index`
set aside as ``index.sqlite3.corrupt-<epoch>`` (a disk that filled mid-write, a sync tool that copied half a file).

Notes come back from their Markdown; episodic events lived only in that file. :func:`read_events` walks its
``docs`` table in rowid order, one row at a time, without any index (``NOT INDEXED``): where a page cannot be read
it reads the next :data:`PROBE` rowids one at a time (the rows on readable pages a scan cannot reach past a bad one),
then scans on, looking further, doubling the distance, while whole stretches stay unreadable, until a read succeeds
again or :data:`MAX_MISSES` doublings failed. A row whose compressed tail cannot
be decompressed (its dictionary lost with a page) is counted, not guessed at. A copy of the file (and
of its ``-wal``) is read, so nothing beside the original is created or changed, and the original is never removed.

The events come back as :meth:`memdir.Memdir.import_events` takes them (their keys, roles, sessions, times and meta
as stored), so importing them twice stores nothing twice (``memdir doctor`` does it: :mod:`memdir.engine.health`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memdir.lazylog import getLogger
from memdir.store.sqlite import codec

log = getLogger("memdir")

#: doublings of the probe distance after an unreadable page before the walk ends (2**24 rowids past the last read)
MAX_MISSES = 24
#: rowids read one at a time after an unreadable page (the rows on the pages around it that a scan cannot reach)
PROBE = 256
#: the marker file written beside a set-aside index once its events were recovered (``<file>.salvaged``)
MARK = ".salvaged"

_COLS = "id, kind, ref, role, session, ts_epoch, ts_raw, text_head, text_tail, meta"


def set_aside(derived: Path) -> list[Path]:
    """The set-aside index files in a root's ``.memdir`` directory ``derived``, oldest first (their ``-wal``,
    ``-shm`` and markers left out)."""
    return sorted((p for p in Path(derived).glob("index.sqlite3.corrupt-*")
                   if not p.name.endswith(("-wal", "-shm", MARK)) and p.is_file()), key=lambda p: p.name)


def unsalvaged(derived: Path) -> list[Path]:
    """:func:`set_aside` files of ``derived`` whose events were not recovered yet (no marker)."""
    return [p for p in set_aside(derived) if salvaged(p) is None] if Path(derived).is_dir() else []


def salvaged(path: Path) -> dict[str, Any] | None:
    """What an earlier recovery from ``path`` wrote in its marker (``{"recovered", "unreadable", "at"}``), or None."""
    try:
        obj = json.loads(Path(str(path) + MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def mark(path: Path, info: dict[str, Any]) -> None:
    """Write the marker of ``path`` (see :func:`salvaged`); never raises."""
    try:
        Path(str(path) + MARK).write_text(json.dumps(info) + "\n", encoding="utf-8")
    except OSError as exc:
        log.debug("salvage marker not written for %s: %s", path, exc)


def _text(db: sqlite3.Connection, head: Any, tail: Any) -> str | None:
    if not isinstance(head, str):
        return None
    if tail is None:
        return head
    if isinstance(tail, str):
        return head + tail
    try:
        return head + codec.unz(db, bytes(tail))
    except (sqlite3.DatabaseError, ValueError, UnicodeDecodeError, Exception):  # zlib.error, zstd errors
        return None


def _event(db: sqlite3.Connection, r: sqlite3.Row) -> dict[str, Any] | None:
    text = _text(db, r["text_head"], r["text_tail"])
    ts = r["ts_raw"] if isinstance(r["ts_raw"], str) else r["ts"] if isinstance(r["ts"], str) else r["ts_epoch"]
    if text is None or not isinstance(r["ref"], str) or not isinstance(ts, (str, int, float)):
        return None
    try:
        meta = json.loads(r["meta"]) if r["meta"] else None
    except (ValueError, TypeError):
        meta = None
    return {"key": r["ref"], "role": r["role"], "text": text, "session": r["session"],
            "ts": ts if isinstance(ts, str) else float(ts), "meta": meta if isinstance(meta, dict) else None}


def read_events(path: Path) -> tuple[list[dict[str, Any]], int]:
    """``(events, unreadable)``: the episodic events readable in the set-aside index ``path`` (dicts ``{key, role,
    text, session, ts, meta}``, rowid order) and how many rows were found but could not be read. The file and its
    ``-wal`` (the latest commits may be only there) are copied to a temporary directory and read there, so nothing
    beside the original is touched; the columns are read as the file's own schema names them (an index of an older
    layout has ``text`` and ``ts`` where a newer one has ``text_head``/``text_tail`` and ``ts_raw``). Pages SQLite
    cannot read are skipped (see the module docstring); a file whose schema cannot be read is read again with its
    copy's header mended (:func:`_mend_header`), and gives ``([], 0)`` when that reads nothing either.
    Never raises for the file's content; ``OSError`` only when it cannot be read or copied."""
    import shutil
    import tempfile

    src = Path(path)
    if not src.is_file():
        raise FileNotFoundError(path)
    with tempfile.TemporaryDirectory(prefix="memdir-salvage-") as tmp:
        copy = Path(tmp) / "index.sqlite3"
        shutil.copyfile(src, copy)
        wal = Path(str(src) + "-wal")
        if wal.is_file():
            shutil.copyfile(wal, Path(str(copy) + "-wal"))
        got = _read(copy)
        if got != ([], 0) or not _mend_header(copy):
            return got
        return _read(copy)  # the copy's header mended: its pages are read as they are


#: the first 16 bytes of every SQLite database file (https://www.sqlite.org/fileformat.html, section 1.3)
MAGIC = b"SQLite format 3\x00"
#: what the header holds at bytes 21-23 in every SQLite 3 file: the payload fractions 64, 32, 32
FRACTIONS = bytes((64, 32, 32))


def _mend_header(copy: Path) -> bool:
    """Write a valid header's fixed parts into ``copy`` (a temporary copy, never the set-aside file): the magic string,
    a page size when the one written is not a power of two from 512 to 65,536 (guessed from the file's size: the
    largest such size dividing it, at most SQLite's default 4,096 first), the payload fractions, and, when the magic
    string was overwritten, the format versions (1, 1 unless 1 or 2) and the reserved space (0). True when something
    was changed (a file whose first bytes were overwritten read back no event, its pages all intact)."""
    try:
        with open(copy, "r+b") as f:
            head = bytearray(f.read(100))
            if len(head) < 100:
                return False
            before = bytes(head)
            head[0:16] = MAGIC
            size = int.from_bytes(head[16:18], "big")
            size = 65536 if size == 1 else size
            if size < 512 or size > 65536 or size & (size - 1):
                total = copy.stat().st_size
                size = next((p for p in (4096, 1024, 2048, 512, 8192, 16384, 32768, 65536) if total % p == 0), 4096)
                head[16:18] = (1 if size == 65536 else size).to_bytes(2, "big")
            head[21:24] = FRACTIONS
            if before[0:16] != MAGIC:  # the header was overwritten: its format versions and reserved space too
                if head[18] not in (1, 2) or head[19] not in (1, 2):
                    head[18:20] = bytes((1, 1))
                head[20] = 0
            if bytes(head) == before:
                return False
            f.seek(0)
            f.write(head)
            return True
    except OSError:
        return False


def _read(path: Path) -> tuple[list[dict[str, Any]], int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, factory=codec.Connection)
    db.row_factory = sqlite3.Row
    # a file shorter than its header says (a truncated copy) is refused at the first read unless the schema is
    # "writable": then SQLite takes the file's own size and reads the pages it has (the connection is read-only)
    db.execute("PRAGMA writable_schema = ON")
    out: list[dict[str, Any]] = []
    bad = 0
    try:
        try:
            have = {r[1] for r in db.execute("PRAGMA table_info(docs)")}
        except sqlite3.DatabaseError:
            return [], 0
        if not {"id", "kind", "ref"} <= have:
            return [], 0
        cols = ", ".join(c if c in have else f"NULL AS {c}" for c in
                         ("id", "kind", "ref", "role", "session", "ts_epoch", "ts_raw", "ts", "text_head", "text_tail",
                          "meta"))
        if "text_head" not in have and "text" in have:  # an older layout: the whole text in one column
            cols = cols.replace("NULL AS text_head", "text AS text_head")
        def take(r: sqlite3.Row) -> None:
            nonlocal bad
            if r["kind"] != "event":
                return
            ev = _event(db, r)
            if ev is None:
                bad += 1
            else:
                out.append(ev)

        last, step, misses = 0, PROBE, 0
        while misses < MAX_MISSES:
            try:
                for r in db.execute(f"SELECT {cols} FROM docs NOT INDEXED WHERE id > ? ORDER BY id", (last,)):
                    last, step, misses = r["id"], PROBE, 0
                    take(r)
                break  # the end of the table
            except sqlite3.DatabaseError:  # a page that cannot be read: each rowid of the next stretch alone
                found = False
                for i in range(last + 1, last + PROBE + 1):
                    try:
                        r = db.execute(f"SELECT {cols} FROM docs NOT INDEXED WHERE id = ?", (i,)).fetchone()
                    except sqlite3.DatabaseError:
                        continue
                    if r is not None:
                        take(r)
                        found = True
                last += step if not found else PROBE
                step = PROBE if found else step * 2  # a long unreadable stretch: look further on, doubling
                misses = 0 if found else misses + 1
    finally:
        db.close()
    return out, bad
