"""A queue of captured events for a root whose write lock is busy (case C33: a long ``memdir import`` holds it
while hooks keep capturing).

A capture that cannot get the lock within ``capture.lock_wait_ms`` writes its rows to one file
``<root>/.memdir/spool/<ns>-<pid>.json`` (written whole, then renamed: no lock needed, never half-visible) and
returns; the next writer of that root (:func:`memdir.engine.events.import_events`: every capture, every import
batch) drains the files in name order under the lock and deletes each after its rows are committed. Rows carry
their keys, so a file drained twice (a drainer killed between commit and delete) stores nothing twice. A file that
cannot be read is moved aside to ``spool/bad-<name>`` and logged, never deleted.

File shape: ``{"scope": "project" | "global", "rows": [event dicts as given to import_events]}``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable

from memdir.fileio import open_regular
from memdir.errors import MemdirError
from memdir.roots import private_dir
from memdir.lazylog import getLogger

log = getLogger("memdir")
DIRNAME = "spool"
#: a drain stops after this many files, so one writer never holds the lock long for others' rows
MAX_FILES = 200
#: seconds of draining a capture (a hook) or a reader (recall, context: the prompt hook) spends at most; a long import
#: drains without a bound
HOOK_DRAIN_S = 0.25
_local = threading.local()


def spool_dir(root: Any) -> Path:
    return Path(root.derived) / DIRNAME


def put(root: Any, rows: list[dict[str, Any]], *, scope: str) -> Path:
    """Queue ``rows`` for ``root``; returns the file. Raises ``OSError`` when even that cannot be written."""
    d = spool_dir(root)
    private_dir(d)  # captured turns, like the index: their owner's alone
    name = f"{time.time_ns():020d}-{os.getpid()}-{threading.get_ident() % 100000}.json"
    tmp = d / f".{name}.part"
    # captured turns, like the index: readable by their owner alone
    try:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as fh:
            json.dump({"scope": scope, "rows": rows}, fh, ensure_ascii=False, default=str)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, d / name)
    except BaseException:  # a full disk: no cut file left to hold its space and be set aside later
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return d / name


#: seconds after which a queue file still being written (``.<name>.part``) is taken for one whose writer died
#: between writing and renaming it (a hook ended by its watchdog): a whole one is queued, a cut one set aside
STALE_PART_S = 30


def pending(root: Any) -> list[Path]:
    """The queued files of ``root``, oldest first (``[]`` without a spool: one ``stat``). A ``.part`` file left by a
    writer that died before renaming it (:data:`STALE_PART_S`) is renamed into the queue when it holds whole JSON,
    else moved aside as ``bad-*``."""
    d = spool_dir(root)
    try:
        names = list(d.iterdir())
    except OSError:
        return []
    parts = [p for p in names if p.name.startswith(".") and p.name.endswith(".json.part")]
    if parts:  # rare: read the folder again only when one was looked at
        for p in parts:
            _adopt(p)
        try:
            names = list(d.iterdir())
        except OSError:
            return []
    return sorted(p for p in names if p.suffix == ".json" and not p.name.startswith((".", "bad-")))


def _adopt(part: Path) -> None:
    """Queue the stale ``.part`` file ``part`` under its own name when it reads as whole JSON, else set it aside."""
    try:
        if time.time() - part.stat().st_mtime < STALE_PART_S:
            return  # a writer may be at work on it
        with open_regular(part) as f:
            json.loads(f.read().decode("utf-8"))
        os.replace(part, part.with_name(part.name[1:-len(".part")]))
    except (OSError, ValueError):
        try:
            os.replace(part, part.with_name("bad-" + part.name.lstrip(".")))
        except OSError:
            pass


def drain(root: Any, store_rows: Callable[[list[dict[str, Any]], str], Any], *, budget_s: float | None = None) -> int:
    """Store the queued rows of ``root`` through ``store_rows(rows, scope)`` (which takes the lock itself, as
    :func:`memdir.engine.events.import_events` does), the rows of many files in one call per scope (one transaction
    instead of one per file: a hook after a long writer found ~200 files at ~45 ms each); returns the number of files
    drained. A file is removed only once its rows are stored (rows already there are duplicates: nothing twice).
    Never waits for the lock (another writer drains then) and never raises; re-entry from ``store_rows`` is a no-op.
    ``budget_s``: stop taking files once this many seconds went by reading them (a hook's capture or a reader drains
    a part; the callers after it drain the rest)."""
    if getattr(_local, "draining", False):
        return 0
    files = pending(root)
    if not files:
        return 0
    _local.draining = True
    done = 0
    until = None if budget_s is None else time.monotonic() + budget_s
    try:
        with root.locked(timeout=0):
            taken: list[Path] = []
            by_scope: dict[str, list[dict[str, Any]]] = {}
            for f in files[:MAX_FILES]:
                if until is not None and taken and time.monotonic() > until:
                    break
                try:
                    with open_regular(f, "r", encoding="utf-8") as fh:  # a FIFO here blocked every reader
                        obj = json.loads(fh.read())
                    rows, scope = obj["rows"], obj.get("scope") or "project"
                    if not isinstance(rows, list):
                        raise ValueError("rows is not a list")
                    if not all(isinstance(r, dict) and isinstance(r.get("role"), str) and isinstance(r.get("text"), str)
                               for r in rows):  # what put() writes; anything else would be skipped, and the file gone
                        raise ValueError("a row without its role or text")
                except FileNotFoundError:
                    continue  # drained by another process meanwhile
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    log.warning("memdir: queued capture %s cannot be read (%s); moved aside", f, exc)
                    try:
                        os.replace(f, f.with_name("bad-" + f.name))
                    except OSError:
                        pass
                    continue
                by_scope.setdefault(scope, []).extend(rows)
                taken.append(f)
            for scope, rows in by_scope.items():
                store_rows(rows, scope)
            for f in taken:
                try:
                    f.unlink()
                except FileNotFoundError:
                    pass
                done += 1
    except MemdirError:
        return done  # busy: the writer holding the lock (or the next one) drains
    except Exception as exc:  # noqa: BLE001 - a hook must never fail over the queue of another
        log.debug("spool drain stopped: %s: %s", type(exc).__name__, exc)
    finally:
        _local.draining = False
    if done:
        log.debug("spool: stored the events of %d queued file(s) in %s", done, root.path)
    return done
