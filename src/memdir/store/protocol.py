"""The storage interface: what the facade asks of an index, whichever engine holds it.

:class:`Store` names the index operations the engine uses, bound to one store (no connection argument). Two
implementations: :class:`memdir.store.sqlite.store.SqliteStore` (the embedded SQLite index of one root, the default)
and :class:`memdir.store.postgres.store.PgStore` (a PostgreSQL database shared by several projects, each project's rows
kept apart by a ``project`` column). Rows returned by :meth:`Store.search` carry the columns of ``docs`` plus ``bm25``
(positive, larger is better), ``rehearsals`` and ``span``.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Protocol, runtime_checkable


@runtime_checkable
class DocStore(Protocol):
    """The documents, their tombstones and the index's bookkeeping (notes and events alike)."""

    def transaction(self) -> Any:
        """Context manager: one write transaction; rolled back when the block raises."""

    def upsert_doc(self, row: dict[str, Any]) -> int:
        """Insert or replace a doc by ``row["ref"]`` with its full-text row; returns the doc id."""

    def insert_event(self, row: dict[str, Any], *, pending: dict[int, str] | None = None) -> int | None:
        """Insert an event unless its key or content hash exists (then ``None``); see :func:`memdir.store.sqlite.index.insert_event`."""

    def flush_events(self, pending: dict[int, str]) -> int:
        """Full-text rows / neighbour context of events inserted with ``pending``; returns rows written."""

    def refresh_context(self, sessions: Iterable[str]) -> int:
        """Recompute the neighbouring-turn context of every event of ``sessions``; returns rows updated."""

    def delete_doc(self, ref: str) -> bool:
        """Delete a doc and its full-text rows; True if it existed."""

    def delete_docs(self, refs: Iterable[str]) -> list[str]:
        """Delete many docs as :meth:`delete_doc` deletes one (a bulk forget or prune); returns the refs that existed."""

    def get_doc(self, ref: str) -> dict[str, Any] | None:
        """The ``docs`` row of ``ref`` as a dict, or ``None``."""

    def live_note_with_sha(self, sha: str) -> str | None:
        """The ref of a live (not superseded) note whose content hash is ``sha`` (remember's dedup), or ``None``."""

    def tombstone(self, ref: str, sha: str | None, kind: str, when: str) -> None:
        """Record that ``ref`` (and its text hash) was forgotten; its rehearsal count goes too."""

    def tombstoned(self) -> tuple[set[str], set[str]]:
        """``(refs, content hashes)`` of every tombstone (an import skips them)."""

    def tombstone_test(self) -> Any:
        """A callable ``(ref, content_sha256) -> bool``: True when either is tombstoned (an import skips the row).
        Each store picks its cost: SQLite asks its indexes per row (a capture reads two index entries, not every
        tombstone months of prunes left); PostgreSQL reads the project's tombstones once per call (one round trip)."""

    def tombstone_rows(self) -> list[dict[str, Any]]:
        """Every tombstone this person may see: ``ref, content_sha256, kind, deleted_at`` (``memdir export``)."""

    def count(self, kind: str) -> int:
        """Docs of ``kind`` (``note`` or ``event``)."""

    def close(self) -> None:
        """Release the connection."""

    def has_ref(self, ref: str, kind: str | None = None) -> bool:
        """True when a doc (of ``kind``, when given) has the ref ``ref``."""

    def live_notes(self, category: str | None = None) -> list[dict[str, Any]]:
        """Live (not superseded) notes, oldest id first: ``ref, category, note_kind, summary, text, pinned, ts_epoch``."""

    def notes_superseded_by(self, ref: str) -> list[str]:
        """Refs of the notes whose ``superseded_by`` is ``ref``."""

    def note_states(self) -> dict[str, tuple[int | None, int | None]]:
        """``{note ref: (mtime_ns, size)}`` of the mirrored Markdown files."""

    def note_entries(self) -> list[dict[str, Any]]:
        """Every note's ``ref, category, note_kind, summary, load_when, pinned, superseded_by, ts_epoch`` (compile)."""

    def outline(self) -> list[dict[str, Any]]:
        """Per category of live notes: ``category``, ``n``, ``s`` (summaries newest first, joined by ``; ``)."""

    def recent(self, *, doc_kinds: tuple[str, ...], sub_kinds: tuple[str, ...], category: str | None,
               limit: int) -> list[dict[str, Any]]:
        """Newest live docs first (``memdir recent``), filtered as :meth:`memdir.core.Memdir.recent` says."""

    def count_events(self, since: float, until: float | None, prefixes: list[str]) -> int:
        """Events with ``since <= ts_epoch < until`` whose key starts with one of ``prefixes`` (any when empty)."""

    def events(self) -> Iterator[dict[str, Any]]:
        """Every event, oldest first: ``ref, role, text, session, ts, meta`` (export)."""

    def counts(self) -> dict[str, Any]:
        """``notes, events, superseded, tombstones, categories {name: n}, roles {role: n}`` (inspect, status)."""

    def note_refs(self) -> set[str]:
        """Every note ref (live or superseded)."""

    def set_meta(self, key: str, value: str) -> None:
        """Set a ``meta`` value."""

    def meta_int(self, key: str) -> int:
        """An integer from the store's ``meta`` table (0 when missing)."""

    def bump_meta(self, key: str) -> None:
        """Add one to an integer ``meta`` value (a generation counter)."""

    def delete_notes(self) -> None:
        """Delete every note (docs and full-text rows; ``reindex`` mirrors the Markdown again)."""

    def rebuild_fts(self) -> int:
        """Rebuild every full-text row (notes, events, passages, neighbour context) from the stored texts
        (``reindex``); returns the documents indexed. Caller holds a transaction."""

    def scan_docs(self, prefix: str | None = None) -> Iterator[dict[str, Any]]:
        """Every doc (``ref, kind, role, note_kind, ts, ts_epoch, text, summary, highlight, head, pinned``), or with ``prefix``
        the events whose key starts with it (forget by text or key prefix)."""

    def has_text(self, sha: str, kind: str | None = None) -> bool:
        """True when a doc (of ``kind``, when given; superseded notes included) has the content hash ``sha``."""

    def ref_sha(self, ref: str) -> str | None:
        """The content hash of the doc ``ref``, or ``None`` when there is none."""

    def resolve_handle(self, handle: str) -> str | None:
        """The ref whose handle is ``handle``, or ``None``."""

    def settle(self, *, freed: bool = False, deleted: int = 0) -> None:
        """After a bulk write or deletions (``deleted``: how many rows just went): give space back where the engine
        needs it (SQLite: WAL, vacuum, and after many deletions a merge of the full-text index)."""

    def describe(self) -> dict[str, Any]:
        """``{"engine", "bytes", "schema_version"}`` for ``memdir status``."""


@runtime_checkable
class SearchStore(Protocol):
    """The lexical channel: BM25 search, candidates and their rows, document frequencies, rehearsal, held postings."""

    def search(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
               kinds: tuple[str, ...] | None = None) -> list[Any]:
        """BM25 candidates for ``tokens``, best first (see :func:`memdir.store.sqlite.search.search`)."""

    def candidates(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
                   kinds: tuple[str, ...] | None = None, term_weights: dict[str, float] | None = None,
                   collection: tuple[int, dict[str, int]] | None = None) -> list[dict[str, Any]]:
        """Ranking rows for ``tokens`` (as :func:`memdir.store.sqlite.search.search`: ``id, ref, kind, note_kind, role, session,
        ts_epoch, pinned, rehearsals, head, bm25, span`` and, where the engine knows it, ``mask``), best first.
        ``term_weights``: ``{token: factor}`` multiplying single terms' BM25 weights (1 when absent); ``collection``:
        ``(rows, {token: rows holding it})`` of every index ranked together, idf's statistics
        (:func:`memdir.recall.bm25.collection_idf`; ``None``: this store's own)."""

    def hit_rows(self, spans: dict[int, tuple[int, int] | None], *, terms: list[str] | None = None) -> dict[int, dict[str, Any]]:
        """``{id: whole docs row + span}`` of the hits shown (:func:`memdir.store.sqlite.search.hit_rows`); with the query's
        ``terms`` a store that knows them adds ``fields`` (which terms each column holds)."""

    def doc_freqs(self, tokens: list[str]) -> tuple[int, dict[str, int]]:
        """``(full-text rows, {token: rows holding it})``; tokens found nowhere are left out."""

    def bump_rehearsal(self, refs: Iterable[str], when: str) -> None:
        """Add one to the rehearsal counter of each ref."""

    def hold_postings(self, max_rows: int, *, background: bool = False) -> dict[str, Any] | None:
        """A long-lived process asks for recall's BM25 postings to be held in memory (the same scores, built at
        the next search — in a thread with ``background``, the SQL path answering meanwhile — and kept current
        with every write; :mod:`memdir.store.sqlite.postings`) unless the index has more than ``max_rows`` full-text rows;
        ``max_rows = 0`` lets them go. Returns their figures so far (``None``: none held, or no such path here)."""
        ...


@runtime_checkable
class VectorStore(Protocol):
    """The vector channel: vectors per model, the pending set, search, and the rows fusion re-checks."""

    def delete_vectors(self, ref: str) -> None:
        """Delete the vector of ``ref`` (forget, prune)."""

    def vector_dim(self, model: str | None) -> int | None:
        """The vector length ``model`` was last seen to return (:func:`memdir.engine.hybrid.current_dim`)."""

    def vector_note_dim(self, model: str | None, dim: int) -> bool:
        """Record ``model``'s vector length (:func:`memdir.engine.hybrid.note_dim`); True when it changed."""

    def vector_pending(self, model: str | None, limit: int) -> list[Any]:
        """Docs needing a vector for ``model``, newest first (:func:`memdir.engine.hybrid.pending_rows`)."""

    def vector_pending_count(self, model: str | None) -> int:
        """How many docs need a vector for ``model``."""

    def vector_pending_exists(self, model: str | None) -> bool:
        """Is any doc newer than the last complete backfill pending (the recall path's cheap check)?"""

    def vector_watermark(self, model: str | None) -> None:
        """Record that every doc has a vector for ``model`` now (after a complete backfill)."""

    def vector_put(self, items: list[tuple[str, str]], mat: Any, model: str, when: str) -> int:
        """Store ``ok`` vectors for ``[(ref, content_sha256)]`` (tombstoned refs skipped); returns rows written."""

    def vector_failed(self, items: list[tuple[str, str]], model: str, error: str, when: str) -> None:
        """Record failed embeddings (still pending)."""

    def vector_stamp(self, model: str) -> tuple:
        """Changes whenever the hot/warm vector matrix would (vectors, docs, tiers, vector length)."""

    def vector_rows(self, model: str, dim: int | None) -> list[Any]:
        """``(ref, content_sha256, vector bytes)`` of the hot, warm and unswept vectors, in a stable order."""

    def vector_cold(self, model: str, dim: int) -> Any:
        """A cursor (``fetchmany``/``fetchone``) over ``(ref, content_sha256, vector bytes)`` of the cold vectors."""

    def vector_search(self, model: str, q: Any, k: int, *, hnsw_above: int) -> list[tuple[str, str, float]] | None:
        """The ``k`` hot/warm vectors most similar to unit query ``q`` as ``[(ref, content_sha256, cosine)]`` when the
        store searches vectors itself (PostgreSQL with pgvector: exact up to ``hnsw_above`` vectors, HNSW above);
        ``None`` when the caller scores :meth:`vector_rows` in memory (SQLite, PostgreSQL without pgvector)."""

    def vector_docs(self, refs: list[str]) -> dict[str, Any]:
        """``{ref: docs row + rehearsals}`` of the live docs among ``refs``."""

    def vector_counts(self, model: str | None) -> dict[str, int]:
        """``{"ok", "failed", "other_model"}`` vector counts."""

    def vector_of(self, ref: str, model: str | None) -> bytes | None:
        """The stored vector bytes of ``ref`` for ``model`` (status ok), or ``None``."""

    def vector_copy(self, ref: str, sha: str, model: str, blob: bytes, when: str) -> bool:
        """Store ``blob`` (float32 bytes) as ``ref``'s vector for ``model`` unless it has an ok vector already
        (``memdir migrate`` copying another store's vectors: never overwritten); True when stored."""

    def event_neighbours(self, refs: list[str]) -> dict[str, tuple[str | None, str | None]]:
        """``{ref: (previous ref, next ref)}`` for the events among ``refs`` that have a session: the turns just before
        and after each in its session (time order, the neighbours the full-text context was built from)."""


@runtime_checkable
class TierStore(Protocol):
    """Heat tiers: start, sweep rows, prune candidates, counts."""

    def start_heat(self, refs: list[str], now: float) -> int:
        """:func:`memdir.store.sqlite.tiers.start_heat` on this store."""

    def tier_rows(self) -> list[dict[str, Any]]:
        """Every doc with its rehearsal and tier state (:func:`memdir.engine.tiers.sweep_root`)."""

    def write_tiers(self, inserts: list[tuple], updates: list[tuple]) -> int:
        """Insert and update tier rows (sweep), drop those of deleted docs; returns rows removed."""

    def prune_candidates(self, max_importance: float, cutoff: float, now: float) -> list[dict[str, Any]]:
        """Cold, unpinned docs idle before ``cutoff``: ``ref, kind, ts, head (the text's first 400 characters, as stored), bytes``
        (:func:`memdir.engine.tiers.prune`, which redacts the head, then cuts it). A doc's idle time runs from its time or
        its last rehearsal, whichever is later; from the rehearsal alone (its first sweep: when memdir first saw it) when
        its time is ahead of ``now``, the clock."""

    def drop_tiers(self, ref: str) -> None:
        """Delete the tier row of ``ref``."""

    def tier_counts(self) -> dict[str, int]:
        """``{tier: n}`` plus ``unswept`` (:func:`memdir.store.sqlite.tiers.tier_counts`)."""


@runtime_checkable
class SessionStore(Protocol):
    """Captured sessions and their turns."""

    def sessions(self, *, limit: int = 200) -> list[dict[str, Any]]:
        """Captured sessions, newest first (:func:`memdir.store.sqlite.journal.sessions`)."""

    def session_events(self, session: str | None, *, limit: int = 1000) -> list[dict[str, Any]]:
        """One session's events in time order (:func:`memdir.store.sqlite.journal.session_events`)."""

    def captured_tool_keys(self, session: str) -> set[str]:
        """The keys of the tool calls a hook captured in ``session`` (``t:<session>:<call id>``)
        (:func:`memdir.store.sqlite.journal.captured_tool_keys`)."""

    def captured_replies(self, session: str) -> list[str]:
        """The texts of the assistant turns a hook captured in ``session`` (keys ``a:``), in time order
        (:func:`memdir.store.sqlite.journal.captured_replies`)."""

    def event_with_text(self, sha: str) -> tuple[str | None, float] | None:
        """``(session, ts_epoch)`` of the stored event whose content hash is ``sha``, or ``None`` when there is none
        (:func:`memdir.store.sqlite.journal.event_with_text`)."""

    def session_turns(self, *, session: str | None = None, since: float | None = None,
                      exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
        """Events that have a session (of ``session`` when given, at or after ``since`` epoch seconds), refs in
        ``exclude`` left out (distillation: the refs already distilled, kept host-locally): ``id, ref, role, text,
        session, ts, ts_epoch`` ordered by session, time, id."""

    def events_after(self, ref: str, session: str, limit: int, *, until_role: str | None = None) -> list[dict[str, Any]]:
        """Up to ``limit`` events of ``session`` after the event ``ref`` (by time, then id): ``ref, role, text,
        ts, handle``; with ``until_role``, only those before the first event of that role (the rows after it are
        not read)."""

    def events_before(self, ref: str, session: str, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` events of ``session`` before the event ``ref`` (by time, then id), nearest first:
        ``ref, role, text, ts, handle``; ``[]`` when ``ref`` is unknown."""


@runtime_checkable
class Store(DocStore, SearchStore, VectorStore, TierStore, SessionStore, Protocol):
    """One project's index. Write methods expect the caller to hold :meth:`transaction` (as ``root.tx()`` today).

    The five parts are protocols of their own: a feature types against the one it uses."""
