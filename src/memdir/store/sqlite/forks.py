"""SQLite connections are not carried across ``os.fork()``.

A child forked while a connection was open (``os.fork()``, multiprocessing's ``fork`` start method) inherits the
connection and SQLite's record of the locks it holds, but not the locks themselves (POSIX locks belong to a
process). The parent's last close then found nobody else on the file, checkpointed and deleted the ``-wal`` while
the child went on writing into it: every event the child stored after that was gone, though each call had
returned. In the child every connection of this package is closed at once, before anything else runs, so SQLite
forgets the inherited state; the stores reopen theirs at their next use (:func:`memdir.stores.after_fork`).
"""

from __future__ import annotations

import os
import sqlite3
import weakref

_OPEN: "weakref.WeakSet[sqlite3.Connection]" = weakref.WeakSet()
_HOOKED = False


def track(db: sqlite3.Connection) -> None:
    """Close ``db`` in any child this process forks from now on."""
    global _HOOKED
    if not _HOOKED and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_in_child)
        _HOOKED = True
    _OPEN.add(db)


def _in_child() -> None:
    dbs = list(_OPEN)
    _OPEN.clear()
    for db in dbs:
        try:
            db.close()
        except Exception:  # noqa: BLE001 — a connection the parent was using mid-call: nothing more can be done
            pass
