"""Ending a write transaction on the index after an error or an interrupt.

``except BaseException: db.execute("ROLLBACK")`` fails when no transaction is open any more — a Ctrl-C that arrives
once ``COMMIT`` went through, or an error after which SQLite rolled back by itself (a full disk) — and its own
``cannot rollback - no transaction is active`` then replaces what happened: an interrupted ``memdir import`` printed
an internal error and exited 1 instead of 130.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator


def rollback(db: sqlite3.Connection) -> None:
    """``ROLLBACK`` the transaction open on ``db``, if one still is (``db.in_transaction``: SQLite's autocommit flag);
    nothing otherwise."""
    if db.in_transaction:
        db.execute("ROLLBACK")


@contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` on ``db``, rolled back on any error or interrupt: the ``BEGIN`` is inside the
    ``try``, so a Ctrl-C that arrives while it waits for another writer (raised as it returns) does not leave the
    connection inside a transaction, where every later write of the process raised ``cannot start a transaction
    within a transaction``."""
    try:
        db.execute("BEGIN IMMEDIATE")
        yield db
        db.execute("COMMIT")
    except BaseException:
        rollback(db)
        raise
