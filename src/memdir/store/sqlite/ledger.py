"""How many episodic events the index holds, kept outside it: ``<root>/.memdir/events.json`` (case C42).

Notes live in Markdown and come back when the index is rebuilt; episodic events live only in the index. When
``index.sqlite3`` is deleted (or moved aside as corrupt) a new one is made from the notes, and the events are gone
unless restored from an export or re-imported from the host's transcripts. Without a count kept elsewhere nothing
could say so: the new index does not know it ever held events. This file is that count::

    {"events": 1234, "lost": 0, "rebuilt_at": null}

* ``events``: events in the index now. Each transaction that stores or deletes events changes it by its delta,
  written **before** the ``COMMIT`` (while SQLite's write lock serialises writers, so two writers never lose an
  update) and put back when the commit fails. Cost on the hook path: one ``read`` and one ``pwrite`` of this
  128-byte file per committed batch (~20 us; a capture is one batch, an import of 60,000 events about 120), no
  fsync and no rename — a counter left behind by a power cut may be off by the last batch or unreadable (then it
  starts again from the index's count), which only makes the number in the warning approximate.
* an existing index without the file (made by an older memdir) writes its count once, at open;
* a **new** index (first open, deleted, moved aside) moves ``events`` into ``lost`` and records ``rebuilt_at``;
  :func:`notice` then gives the one line every CLI command prints, until a ``memdir import`` completes
  (:func:`acknowledge`).

Reading and writing never raise (a read-only root keeps working without it).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from memdir.fileio import open_regular
from memdir.lazylog import getLogger

log = getLogger("memdir")

FILE_NAME = "events.json"


def path_of(index_path: Path) -> Path:
    """The counter file beside the index file ``index_path``."""
    return Path(index_path).with_name(FILE_NAME)


#: the record's fixed size: each write replaces the same bytes in place (one ``pwrite``, no new file)
RECORD_BYTES = 128


def read(index_path: Path) -> dict[str, Any] | None:
    """``{"events": int, "lost": int, "rebuilt_at": str | None}``, or ``None`` when the file is missing or unreadable."""
    try:
        with open_regular(path_of(index_path)) as f:  # a FIFO here blocked every open of the store
            raw = f.read(4096)
        obj = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(obj, dict):
        return None

    def num(k: str) -> int:
        v = obj.get(k)
        return max(int(v), 0) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0

    at = obj.get("rebuilt_at")
    return {"events": num("events"), "lost": num("lost"), "rebuilt_at": at if isinstance(at, str) else None}


def write(index_path: Path, state: dict[str, Any]) -> bool:
    """Write ``state`` over the file's :data:`RECORD_BYTES` in place (one ``pwrite``: a new file and a rename cost
    a hook ~2 ms on a busy disk, this ~10 us), no fsync; False when the disk refuses (logged at debug level)."""
    data = json.dumps({k: state.get(k) for k in ("events", "lost", "rebuilt_at")}).encode("utf-8")
    data = data.ljust(RECORD_BYTES - 1) + b"\n"
    try:
        from memdir.fileio import open_own

        fd = open_own(path_of(index_path), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            os.pwrite(fd, data, 0)
            if os.fstat(fd).st_size != len(data):
                os.ftruncate(fd, len(data))
        finally:
            os.close(fd)
        return True
    except OSError as exc:
        log.debug("event counter not written: %s", exc)
        return False


def add(index_path: Path, delta: int, db: sqlite3.Connection | None = None) -> dict[str, Any] | None:
    """Change the count by ``delta`` (inside the writer's transaction); returns the state before, for
    :func:`write` to put back when the commit fails. A missing file is started from ``db``'s count when given."""
    if not delta:
        return None
    old = read(index_path)
    if old is None:
        if db is None:
            return None
        base = {"events": count(db) - delta, "lost": 0, "rebuilt_at": None}  # the count includes this transaction
    else:
        base = old
    write(index_path, {**base, "events": max(base["events"] + delta, 0)})
    return old or base


def count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(*) FROM docs WHERE kind = 'event'").fetchone()[0])


def on_open(db: sqlite3.Connection, index_path: Path, *, created: bool, when: str) -> None:
    """Keep the counter in step at open: a new index (``created``) moves the events the old one held into ``lost``
    (``rebuilt_at`` = ``when``); an existing one without the file writes its count. Never raises."""
    try:
        old = read(index_path)
        if created:
            if old is not None and old["events"]:
                write(index_path, {"events": 0, "lost": old["lost"] + old["events"], "rebuilt_at": when})
            elif old is None:
                write(index_path, {"events": 0, "lost": 0, "rebuilt_at": None})
        elif old is None:
            write(index_path, {"events": count(db), "lost": 0, "rebuilt_at": None})
    except (OSError, sqlite3.Error) as exc:
        log.debug("event counter: %s", exc)


def notice(index_path: Path) -> str | None:
    """The one line to print while events are known lost (``None`` otherwise): the index was rebuilt from the
    notes, how many events are gone, and how to bring them back."""
    st = read(index_path)
    if st is None or not st["lost"]:
        return None
    n = st["lost"]
    events = f"{n} episodic event is" if n == 1 else f"{n} episodic events are"
    return (f"the index {index_path} was rebuilt from the notes ({st['rebuilt_at'] or 'at an earlier open'}): {events} "
            "gone unless restored from an export (memdir import <export.jsonl>) or re-imported from the host's "
            "transcripts (memdir import claude-code|codex|opencode …); this notice stays until a memdir import completes")


def acknowledge(index_path: Path) -> None:
    """Forget the lost count (a ``memdir import`` completed: the user has restored what they could)."""
    st = read(index_path)
    if st is not None and st["lost"]:
        write(index_path, {**st, "lost": 0, "rebuilt_at": None})
