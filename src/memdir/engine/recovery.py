"""Recovering the episodic events of an index that was set aside as unreadable (``memdir doctor``).

:func:`memdir.store.sqlite.opening.open_index` moves a file SQLite cannot read to ``index.sqlite3.corrupt-<epoch>`` and
starts a new index from the Markdown notes; the events lived only in the old file. :func:`recover` reads back what
its readable pages still hold (:func:`memdir.store.sqlite.salvage.read_events`) and imports it with
:func:`memdir.engine.events.import_events` (keys kept: a second recovery stores nothing twice), then writes a
marker beside the file, which is kept. The lost-events notice then counts only what is still missing (none: it is
dropped).
"""

from __future__ import annotations

from typing import Any, Callable

from memdir.engine import events as event_ops
from memdir.store.sqlite import ledger, salvage
from memdir.stores import Stores
from memdir.timeutil import iso


def pending(root: Any) -> list[str]:
    """Names of ``root``'s set-aside index files whose events were not recovered yet (``[]`` for a remote root)."""
    return [] if root.remote else [p.name for p in salvage.unsalvaged(root.derived)]


def recover(s: Stores, root: Any, *, repair: bool, add: Callable[..., None]) -> None:
    """One doctor check per set-aside index file of ``root``: with ``repair`` its readable events are imported into
    ``root`` (a warning when rows could not be read); without, a warning naming the file and the remedy. ``add``:
    ``add(check, ok, detail, remedy)`` as :func:`memdir.engine.health.index_checks` collects them."""
    if root.remote or not root.derived.is_dir():
        return
    for path in salvage.set_aside(root.derived):
        name = f"{root.scope} set-aside index"
        done = salvage.salvaged(path)
        if done is not None:
            add(name, "ok", f"{path.name}: {done.get('recovered', 0)} events recovered on {done.get('at', '?')} "
                f"({done.get('unreadable', 0)} rows unreadable); the file is kept", "")
            continue
        if not repair or root.read_only:
            add(name, "warn", f"{path.name}: an index SQLite could not read was set aside; its events are not in the "
                "index", "run `memdir doctor` in a writable checkout: it recovers what can still be read of it")
            continue
        try:
            events, bad = salvage.read_events(path)
        except OSError as exc:  # unreadable to this user, or no room for the copy: said, tried again next time
            add(name, "warn", f"{path.name}: could not be read ({exc})", "check its permissions and the free space "
                "in the temporary directory, then run `memdir doctor` again")
            continue
        counts = event_ops.import_events(s, events, scope=root.scope) if events else {"stored": 0, "duplicate": 0}
        got = counts["stored"] + counts["duplicate"]
        if got or bad:  # a file nothing could be read from is tried again by the next doctor (a newer memdir may)
            salvage.mark(path, {"recovered": got, "stored": counts["stored"], "unreadable": bad, "at": iso(s.clock())})
        with root.locked():  # a capture's commit updates the same counter file under this lock
            st = ledger.read(root.db_path) or {}
            lost = int(st.get("lost") or 0)
            if lost and got >= lost:
                ledger.acknowledge(root.db_path)
            elif lost:  # the notice counts what is still missing
                ledger.write(root.db_path, {**st, "lost": lost - got})
        short = bad or not got or got < lost
        add(name, "warn" if short else "ok",
            f"{path.name}: {got}" + (f" of the {lost}" if lost else "") + f" events read back ({counts['stored']} "
            "stored now)" + (f", {bad} rows unreadable" if bad else "") + "; the file is kept",
            "re-import the host's transcripts (memdir import claude-code|codex|opencode …) or an export for the rest"
            if short else "")
