"""Opening another program's SQLite database read-only (OpenCode's ``opencode.db``, claude-mem's database,
alice-memory's store): one opener, so every importer escapes the path the same way and says the same thing
when the file is not SQLite."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from memdir.errors import UsageError

log = logging.getLogger("memdir.portability.importers")


def connect_ro(db: Path, *, expected: str) -> sqlite3.Connection:
    """A read-only connection to ``db``, never writing to it.

    The path is URL-escaped (a ``?``, ``#`` or ``%`` in it is part of the name, not of the URI). A file that is
    not SQLite raises :class:`UsageError` ``"<db> is not an SQLite database: pass <expected>"``; a database that
    cannot be opened read-only (a WAL database in a directory we may not write) is read as immutable."""
    from urllib.request import pathname2url  # here, not at import: urllib.request pulls in http.client, email, ssl

    url = "file:" + pathname2url(str(Path(db).resolve()))
    try:
        con = sqlite3.connect(url + "?mode=ro", uri=True)
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc) or "file is encrypted" in str(exc):
            raise UsageError(f"{db} is not an SQLite database: pass {expected}") from None
        log.warning("%s: read-only open failed (%s); reading it as immutable", db, exc)
        try:
            con = sqlite3.connect(url + "?immutable=1", uri=True)
            con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc2:
            raise UsageError(f"cannot read {db} ({exc2}): check its permissions") from None
    return con
