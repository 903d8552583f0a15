"""Tombstones that outlive the index: ``<root>/.memdir/tombstones.jsonl``.

Forgetting is a promise: a forgotten event must not come back when its transcript is imported again. The
tombstones table lives in the index, and the index is derived — deleted by hand, or moved aside when SQLite can no
longer read it, it is rebuilt from the Markdown with no events and (before this log) no tombstones, so the next
import brought forgotten events back. This module keeps a copy of every tombstone beside the index:

* every tombstone the SQLite store commits is appended here as one JSON line ``{"ref", "content_sha256", "kind",
  "deleted_at"}`` (after the commit; a rolled-back forget appends nothing);
* an index opened without the log (made by an older memdir) writes its whole tombstones table to it once;
* a new index (first open, deleted, or moved aside as corrupt) loads the log, and from a moved-aside file whatever
  tombstones SQLite can still read;
* ``memdir export`` writes tombstones as ``{"type": "tombstone", …}`` lines and ``memdir import`` applies them
  (:meth:`memdir.core.Memdir.import_jsonl`).

The log holds refs (event keys, note ids) and content hashes, never text. A torn last line (full disk, power cut) is
kept as a line of its own and skipped when read, with one warning (:mod:`memdir.jsonlog`).
Writes never raise: a full disk (or a directory under the name) leaves the index's own table as the only copy, said in
one warning; `memdir doctor` (:func:`mend`) writes the missing tombstones once it can.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

from memdir.lazylog import getLogger

log = getLogger("memdir")

LOG_NAME = "tombstones.jsonl"
COLUMNS = ("ref", "content_sha256", "kind", "deleted_at")

_unwritten: set[str] = set()  # logs this process could not append to, said once each


def log_path(index_path: Path) -> Path:
    """The log beside the index file ``index_path``."""
    return Path(index_path).with_name(LOG_NAME)


def append(index_path: Path, rows: Iterable[Any]) -> int:
    """Append ``rows`` (mappings with :data:`COLUMNS`) to the log of ``index_path``, flushed to disk; returns lines
    written (0 when the disk refuses: one warning per log and process, never raised). A log ending in a torn line (no newline)
    gets one first (:func:`memdir.jsonlog.append`), so the new tombstones are never glued onto it."""
    import memdir.jsonlog as jsonlog

    path = log_path(index_path)
    try:
        return jsonlog.append(path, ({k: r[k] for k in COLUMNS} for r in rows))
    except OSError as exc:
        if str(path) not in _unwritten:  # said once: without the log a rebuilt index would bring the item back
            _unwritten.add(str(path))
            log.warning("memdir: warning: %s could not be written (%s): the forget holds in the index, but an index "
                        "rebuilt from the notes would not know it; run `memdir doctor` once the file can be written",
                        path, exc)
        return 0


def mend(db: sqlite3.Connection, index_path: Path, *, repair: bool) -> str | None:
    """What keeps the log from holding every tombstone of the index ``db`` (a forget whose append failed: a full disk,
    a directory or FIFO under the log's name), as one line for ``memdir doctor``, or ``None`` when nothing does.
    With ``repair`` a log that is not a regular file is set aside as ``tombstones.jsonl.bad-<time>`` (never deleted)
    and the missing tombstones are appended."""
    path = log_path(index_path)
    said = []
    if path.is_symlink() or (path.exists() and not path.is_file()):
        if not repair:
            return f"{path} is not a regular file: forgets are not logged beside the index"
        aside = path.with_name(f"{LOG_NAME}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            os.replace(path, aside)
        except OSError as exc:
            return f"{path} is not a regular file and could not be set aside ({exc}): forgets are not logged"
        said.append(f"{path} was not a regular file: set aside as {aside.name}")
    logged = {r["ref"] for r in read(path)}
    rows = [dict(zip(COLUMNS, r)) for r in db.execute("SELECT ref, content_sha256, kind, deleted_at FROM tombstones")]
    missing = [r for r in rows if r["ref"] not in logged]
    if missing:
        n = append(index_path, missing) if repair else 0
        said.append(f"{len(missing)} tombstone{'' if len(missing) == 1 else 's'} of the index missing from {path.name}"
                    + (" written to it" if n else ": an index rebuilt from the notes would bring those memories back"))
    return "; ".join(said) or None


def read(path: Path) -> list[dict[str, Any]]:
    """The tombstones in the log file ``path`` (missing file: none). Torn or malformed lines are skipped and reported
    once (:func:`memdir.jsonlog.read`); a tombstone an older memdir appended onto a torn line is still read."""
    import memdir.jsonlog as jsonlog

    out: list[dict[str, Any]] = []
    for obj in jsonlog.read(path)[0]:
        if isinstance(obj.get("ref"), str) and obj["ref"]:
            out.append({k: obj.get(k) if isinstance(obj.get(k), str) else None for k in COLUMNS})
    return out


def salvage(aside: Path) -> list[dict[str, Any]]:
    """Whatever tombstones SQLite can still read from the moved-aside index file ``aside`` (none when that table's
    pages are damaged too)."""
    rows: list[dict[str, Any]] = []
    try:
        db = sqlite3.connect(f"file:{aside}?mode=ro", uri=True, timeout=1)
    except sqlite3.Error:
        return rows
    try:
        for r in db.execute("SELECT ref, content_sha256, kind, deleted_at FROM tombstones"):
            rows.append(dict(zip(COLUMNS, r)))
    except sqlite3.Error as exc:  # damaged pages: keep what was read before them
        log.debug("tombstones of %s partly unreadable: %s", aside, exc)
    finally:
        db.close()
    return rows


def insert(db: sqlite3.Connection, rows: Iterable[dict[str, Any]]) -> int:
    """Add ``rows`` to the index's tombstones table (a ref already there keeps its row); returns rows added."""
    cur = db.executemany("INSERT OR IGNORE INTO tombstones(ref, content_sha256, kind, deleted_at) VALUES (?, ?, ?, ?)",
                         [(r["ref"], r.get("content_sha256"), r.get("kind") or "event", r.get("deleted_at") or "")
                          for r in rows if r.get("ref")])
    return max(cur.rowcount, 0)


def on_open(db: sqlite3.Connection, index_path: Path, *, created: bool, aside: Path | None = None) -> int:
    """Keep the index and its log in step at open: a new index (``created``) takes the log's tombstones and those
    readable in ``aside`` (a corrupt file just moved away); an existing one without a log writes its table to a new
    log. Returns tombstones restored into the index. Never raises."""
    path = log_path(index_path)
    try:
        if created:
            logged = read(path)
            seen = {r["ref"] for r in logged}
            saved = [r for r in (salvage(aside) if aside is not None else []) if r["ref"] not in seen]
            n = insert(db, logged + saved) if logged or saved else 0
            if saved:
                append(index_path, saved)  # the log holds every tombstone from now on
            elif not path.exists():
                path.touch(mode=0o600)
            return n
        if not path.exists():
            rows = [dict(zip(COLUMNS, r)) for r in db.execute("SELECT ref, content_sha256, kind, deleted_at FROM tombstones")]
            if rows:
                append(index_path, rows)
            else:
                path.touch(mode=0o600)
    except (OSError, sqlite3.Error) as exc:
        log.debug("tombstone log: %s", exc)
    return 0
