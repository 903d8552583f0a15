"""The storage interface: what the facade asks of an index, whichever engine holds it.

:class:`Store` names the index operations :mod:`memdir.core` and :mod:`memdir.root` use today, bound to one store
(no connection argument). Two implementations:

* :class:`SqliteStore` — the embedded SQLite index of one root (the default); every method is the function of the
  same name in :mod:`memdir.index` (unchanged), applied to the root's connection;
* :class:`memdir.pgstore.PgStore` — a PostgreSQL database shared by several projects (``store =
  "postgresql://…"`` in ``config.toml``, or ``MEMDIR_STORE``), each project's rows kept apart by a ``project``
  column.

The ranking is the same code for both: tokens from :mod:`memdir.tokenize`, BM25 with Lucene's idf and the field
weights of :mod:`memdir.bm25`, priors in :mod:`memdir.rank`. Rows returned by :meth:`Store.search` carry the
columns of ``docs`` plus ``bm25`` (positive, larger is better), ``rehearsals`` and ``span``.

Not yet routed: the facade still opens :class:`SqliteStore`'s connection itself and runs a few statements of its
own (counts, inspect, export); the methods below marked *facade SQL* are those statements given a name, so the
facade can move onto this interface one call at a time.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Protocol, runtime_checkable

from . import index


@runtime_checkable
class Store(Protocol):
    """One project's index. Write methods expect the caller to hold :meth:`transaction` (as ``root.tx()`` today)."""

    def transaction(self) -> Any:
        """Context manager: one write transaction; rolled back when the block raises."""

    def upsert_doc(self, row: dict[str, Any]) -> int:
        """Insert or replace a doc by ``row["ref"]`` with its full-text row; returns the doc id."""

    def insert_event(self, row: dict[str, Any], *, pending: dict[int, str] | None = None) -> int | None:
        """Insert an event unless its key or content hash exists (then ``None``); see :func:`memdir.index.insert_event`."""

    def flush_events(self, pending: dict[int, str]) -> int:
        """Full-text rows / neighbour context of events inserted with ``pending``; returns rows written."""

    def refresh_context(self, sessions: Iterable[str]) -> int:
        """Recompute the neighbouring-turn context of every event of ``sessions``; returns rows updated."""

    def delete_doc(self, ref: str) -> bool:
        """Delete a doc and its full-text rows; True if it existed."""

    def search(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
               kinds: tuple[str, ...] | None = None) -> list[Any]:
        """BM25 candidates for ``tokens``, best first (see :func:`memdir.index.search`)."""

    def bump_rehearsal(self, refs: Iterable[str], when: str) -> None:
        """Add one to the rehearsal counter of each ref."""

    def resolve_handle(self, handle: str) -> str | None:
        """The ref whose handle is ``handle``, or ``None``."""

    def meta_int(self, key: str) -> int:
        """An integer from the store's ``meta`` table (0 when missing)."""

    # facade SQL (core.py runs these statements inline today)
    def get_doc(self, ref: str) -> dict[str, Any] | None:
        """The ``docs`` row of ``ref`` as a dict, or ``None``."""

    def live_note_with_sha(self, sha: str) -> str | None:
        """The ref of a live (not superseded) note whose content hash is ``sha`` (remember's dedup), or ``None``."""

    def tombstone(self, ref: str, sha: str | None, kind: str, when: str) -> None:
        """Record that ``ref`` (and its text hash) was forgotten; its rehearsal count goes too."""

    def tombstoned(self) -> tuple[set[str], set[str]]:
        """``(refs, content hashes)`` of every tombstone (an import skips them)."""

    def count(self, kind: str) -> int:
        """Docs of ``kind`` (``note`` or ``event``)."""

    def close(self) -> None:
        """Release the connection."""


class SqliteStore:
    """:class:`Store` over one root's SQLite index (``<root>/.memdir/index.sqlite3``): each method is the
    :mod:`memdir.index` function of the same name on ``db``."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    @classmethod
    def open(cls, path) -> "SqliteStore":
        """Open (creating or migrating) the index file at ``path`` (:func:`memdir.index.open_index`)."""
        return cls(index.open_index(path)[0])

    @contextmanager
    def transaction(self) -> Iterator["SqliteStore"]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def upsert_doc(self, row):
        return index.upsert_doc(self.db, row)

    def insert_event(self, row, *, pending=None):
        return index.insert_event(self.db, row, pending=pending)

    def flush_events(self, pending):
        return index.flush_events(self.db, pending)

    def refresh_context(self, sessions):
        return index.refresh_context(self.db, sessions)

    def delete_doc(self, ref):
        return index.delete_doc(self.db, ref)

    def search(self, tokens, *, weights, limit, kinds=None):
        # whole rows, as the Store contract says (the facade ranks on index.search's slim rows and reads whole rows
        # for its hits alone)
        rows = index.search(self.db, tokens, weights=weights, limit=limit, kinds=kinds)
        whole = index.hit_rows(self.db, {r["id"]: r["span"] for r in rows})
        return [{**whole[r["id"]], **r} for r in rows if r["id"] in whole]

    def bump_rehearsal(self, refs, when):
        index.bump_rehearsal(self.db, refs, when)

    def resolve_handle(self, handle):
        return index.resolve_handle(self.db, handle)

    def meta_int(self, key):
        return index.meta_int(self.db, key)

    def get_doc(self, ref):
        row = self.db.execute("SELECT * FROM docs WHERE ref = ?", (ref,)).fetchone()
        return dict(row) if row is not None else None

    def live_note_with_sha(self, sha):
        row = self.db.execute("SELECT ref FROM docs WHERE kind = 'note' AND content_sha256 = ? AND superseded_by IS NULL "
                              "ORDER BY id LIMIT 1", (sha,)).fetchone()
        return row[0] if row else None

    def tombstone(self, ref, sha, kind, when):
        self.db.execute("DELETE FROM rehearsal WHERE ref = ?", (ref,))
        self.db.execute("INSERT OR REPLACE INTO tombstones(ref, content_sha256, kind, deleted_at) VALUES (?, ?, ?, ?)",
                        (ref, sha, kind, when))

    def tombstoned(self):
        refs = {r[0] for r in self.db.execute("SELECT ref FROM tombstones")}
        shas = {r[0] for r in self.db.execute("SELECT content_sha256 FROM tombstones WHERE content_sha256 IS NOT NULL")}
        return refs, shas

    def count(self, kind):
        return int(self.db.execute("SELECT count(*) FROM docs WHERE kind = ?", (kind,)).fetchone()[0])

    def close(self):
        self.db.close()


def is_remote(spec: str | None) -> bool:
    """True when ``spec`` (the ``store`` setting) names a PostgreSQL database."""
    return bool(spec) and str(spec).startswith(("postgresql://", "postgres://"))


def open_store(spec: str | None, *, project: str, path=None, token: str | None = None) -> Store:
    """The store named by ``spec`` (the ``store`` setting / ``MEMDIR_STORE``): a ``postgresql://…`` URL opens
    :class:`memdir.pgstore.PgStore` for ``project`` (needs the ``postgres`` extra; ``token`` binds the connection to
    ``project`` for row-level security, see :meth:`memdir.pgstore.PgStore.connect`); empty opens the SQLite index
    at ``path``. Raises ``UsageError`` for anything else."""
    if is_remote(spec):
        from .pgstore import PgStore

        return PgStore.connect(str(spec), project=project, token=token)
    if spec:
        from .errors import UsageError

        raise UsageError(f"store {spec!r} is not understood: leave it empty (the local SQLite index) or give a "
                         "postgresql://user@host/db URL")
    if path is None:
        from .errors import UsageError

        raise UsageError("the SQLite store needs the path of its index file")
    return SqliteStore.open(path)
