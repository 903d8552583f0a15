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
Writes never raise: a read-only or full disk leaves the index's own table as the only copy (debug log).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable

from memdir.lazylog import getLogger

log = getLogger("memdir")

LOG_NAME = "tombstones.jsonl"
COLUMNS = ("ref", "content_sha256", "kind", "deleted_at")


def log_path(index_path: Path) -> Path:
    """The log beside the index file ``index_path``."""
    return Path(index_path).with_name(LOG_NAME)


def append(index_path: Path, rows: Iterable[Any]) -> int:
    """Append ``rows`` (mappings with :data:`COLUMNS`) to the log of ``index_path``, flushed to disk; returns lines
    written (0 when the disk refuses: logged at debug level, never raised). A log ending in a torn line (no newline)
    gets one first (:func:`memdir.jsonlog.append`), so the new tombstones are never glued onto it."""
    import memdir.jsonlog as jsonlog

    try:
        return jsonlog.append(log_path(index_path), ({k: r[k] for k in COLUMNS} for r in rows))
    except OSError as exc:
        log.debug("tombstone log not written: %s", exc)
        return 0


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
