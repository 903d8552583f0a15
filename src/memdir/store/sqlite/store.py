"""The SQLite index of one root behind the :class:`memdir.store.protocol.Store` interface.

:class:`Store` names the index operations :mod:`memdir.core` and :mod:`memdir.engine.root` use today, bound to one store
(no connection argument). Two implementations:

* :class:`SqliteStore` — the embedded SQLite index of one root (the default); every method is the function of the
  same name in :mod:`memdir.store.sqlite.index` (unchanged), applied to the root's connection;
* :class:`memdir.store.postgres.store.PgStore` — a PostgreSQL database shared by several projects (``store =
  "postgresql://…"`` in ``config.toml``, or ``MEMDIR_STORE``), each project's rows kept apart by a ``project``
  column.

The ranking is the same code for both: tokens from :mod:`memdir.recall.tokenize`, BM25 with Lucene's idf and the field
weights of :mod:`memdir.recall.bm25`, priors in :mod:`memdir.recall.rank`. Rows returned by :meth:`Store.search` carry the
columns of ``docs`` plus ``bm25`` (positive, larger is better), ``rehearsals`` and ``span``.

The facade reaches an index through ``Root.store`` only (:class:`memdir.engine.root.Root`): every statement core.py,
root.py and tiers.py ran inline is a named method here. The SQLite methods are the statements as they were; host-
local bookkeeping (the injection and skip logs, distillation marks, the remote queue) stays in the root's own SQLite
file whichever store holds the index.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Any, Iterator

from memdir.store.sqlite import codec, index, opening, search, txn


class SqliteStore:
    """:class:`Store` over one root's SQLite index (``<root>/.memdir/index.sqlite3``): each method is the
    :mod:`memdir.store.sqlite.index` function of the same name on ``db``."""

    def __init__(self, db: sqlite3.Connection, path=None) -> None:
        self.db = db
        self.mem: Any = None  # memdir.store.sqlite.postings.MemIndex once hold_postings() was called
        #: the index file: committed tombstones are copied to the log beside it (:mod:`memdir.store.sqlite.tombstones`)
        self.path = path
        self._tombs: list[dict[str, Any]] = []  # written in the open transaction, logged after its commit
        self._delta = 0  # events stored minus deleted in the open transaction (memdir.store.sqlite.ledger)
        #: the last :meth:`transaction` committed (also when an interrupt arrived once its COMMIT was through)
        self.committed = False

    @classmethod
    def open(cls, path) -> "SqliteStore":
        """Open (creating or migrating) the index file at ``path`` (:func:`memdir.store.sqlite.opening.open_index`)."""
        return cls(opening.open_index(path)[0], path)

    @contextmanager
    def transaction(self) -> Iterator["SqliteStore"]:
        undo = None
        committing = self.committed = False
        try:
            self.db.execute("BEGIN IMMEDIATE")  # in the try: Ctrl-C while it waits for a writer rolls it back
            # a newer memdir may have upgraded the file since this process opened it (a long-running server): it
            # stops writing in the older layout (raises migrations.NewerIndex), it does not fail mid-write
            from memdir.store.sqlite import migrations

            if self.db.execute("PRAGMA user_version").fetchone()[0] > len(migrations.MIGRATIONS):
                migrations.check_not_newer(self.db)
            yield self
            undo = self._count_events()  # before COMMIT: SQLite's write lock serialises the counter's writers
            committing = True
            self.db.execute("COMMIT")
            self.committed = True
        except BaseException as exc:
            if committing and not self.db.in_transaction and not isinstance(exc, sqlite3.Error):
                # committed, and an interrupt (Ctrl-C) came on the way back: the writes stand, and so does their log
                self.committed = True
                self._log_tombstones()
                raise
            txn.rollback(self.db)  # none left to roll back after an error SQLite rolled back itself (a full disk)
            self._tombs.clear()
            self._delta = 0
            if undo is not None:
                from memdir.store.sqlite import ledger

                ledger.write(self.path, undo)
            raise
        self._log_tombstones()

    def _count_events(self) -> dict[str, Any] | None:
        """Add the open transaction's event delta to the counter beside the index; returns the counter as it was
        (put back if the commit fails), ``None`` when nothing changed."""
        delta, self._delta = self._delta, 0
        if not delta or self.path is None:
            return None
        from memdir.store.sqlite import ledger

        return ledger.add(self.path, delta, self.db)

    def _log_tombstones(self) -> None:
        tombs, self._tombs = self._tombs, []
        if tombs and self.path is not None:
            from memdir.store.sqlite import tombstones

            tombstones.append(self.path, tombs)

    def upsert_doc(self, row):
        if row.get("kind") != "note" and not self.has_ref(row["ref"]):
            self._delta += 1
        return index.upsert_doc(self.db, row)

    def insert_event(self, row, *, pending=None, pieces=None):
        new_id = index.insert_event(self.db, row, pending=pending, pieces=pieces)
        if new_id is not None:
            self._delta += 1
        return new_id

    def flush_events(self, pending):
        return index.flush_events(self.db, pending)

    def refresh_context(self, sessions):
        return index.refresh_context(self.db, sessions)

    def delete_doc(self, ref):
        return bool(self.delete_docs([ref]))

    def delete_docs(self, refs):
        gone = index.delete_docs(self.db, refs)
        self._delta -= sum(kind == "event" for _, kind in gone)
        return [ref for ref, _ in gone]

    def search(self, tokens, *, weights, limit, kinds=None):
        # whole rows, as the Store contract says (the facade ranks on search.search's slim rows and reads whole rows
        # for its hits alone)
        rows = search.search(self.db, tokens, weights=weights, limit=limit, kinds=kinds)
        whole = search.hit_rows(self.db, {r["id"]: r["span"] for r in rows})
        return [{**whole[r["id"]], **r, "span": whole[r["id"]]["span"]} for r in rows if r["id"] in whole]

    def bump_rehearsal(self, refs, when):
        search.bump_rehearsal(self.db, refs, when)
        if self.mem is not None:
            self.mem.rehearsals_stale = True

    def resolve_handle(self, handle):
        return search.resolve_handle(self.db, handle)

    def meta_int(self, key):
        return index.meta_int(self.db, key)

    def get_doc(self, ref):
        row = self.db.execute("SELECT * FROM docs WHERE ref = ?", (ref,)).fetchone()
        return codec.public_row(row) if row is not None else None

    def event_refs_from(self, prefix):
        # the refs' UNIQUE index, read as a range (LIKE would not use it)
        return [r[0] for r in self.db.execute("SELECT ref FROM docs WHERE ref >= ? AND ref < ? AND kind = 'event' LIMIT 20",
                                              (prefix, prefix + "\U0010ffff"))]

    def live_note_with_sha(self, sha):
        row = self.db.execute("SELECT ref FROM docs WHERE kind = 'note' AND sha = ? AND superseded_by IS NULL "
                              "ORDER BY id LIMIT 1", (codec.sha_key(sha),)).fetchone()
        return row[0] if row else None

    def tombstone(self, ref, sha, kind, when):
        self.db.execute("DELETE FROM rehearsal WHERE ref = ?", (ref,))
        if self.mem is not None:
            self.mem.rehearsals_stale = True
        self.db.execute("INSERT OR REPLACE INTO tombstones(ref, content_sha256, kind, deleted_at) VALUES (?, ?, ?, ?)",
                        (ref, sha, kind, when))
        self._tombs.append({"ref": ref, "content_sha256": sha, "kind": kind, "deleted_at": when})
        if not self.db.in_transaction:
            self._log_tombstones()

    def tombstone_rows(self):
        """Every tombstone: ``ref, content_sha256, kind, deleted_at`` (export)."""
        return [dict(r) for r in self.db.execute("SELECT ref, content_sha256, kind, deleted_at FROM tombstones ORDER BY ref")]

    def tombstoned(self):
        refs = {r[0] for r in self.db.execute("SELECT ref FROM tombstones")}
        shas = {r[0] for r in self.db.execute("SELECT content_sha256 FROM tombstones WHERE content_sha256 IS NOT NULL")}
        return refs, shas

    def tombstone_test(self):
        db = self.db

        def hit(ref, sha):  # the primary key and tombstones_sha: two index lookups whatever the table's size
            if db.execute("SELECT 1 FROM tombstones WHERE ref = ?", (ref,)).fetchone() is not None:
                return True
            return sha is not None and db.execute("SELECT 1 FROM tombstones WHERE content_sha256 = ? LIMIT 1",
                                                  (sha,)).fetchone() is not None
        return hit

    def count(self, kind):
        return int(self.db.execute("SELECT count(*) FROM docs WHERE kind = ?", (kind,)).fetchone()[0])

    # ---- the facade's reads and writes (the SQL core.py / root.py / tiers.py ran inline) ------------------
    def candidates(self, tokens, *, weights, limit, kinds=None, term_weights=None, collection=None):
        return search.search(self.db, tokens, weights=weights, limit=limit, kinds=kinds, term_weights=term_weights,
                            mem=self.mem, collection=collection)

    def hold_postings(self, max_rows, *, background=False):
        if max_rows <= 0:
            self.mem = None
            return None
        if self.mem is None:
            from memdir.store.sqlite.postings import MemIndex

            self.mem = MemIndex(self.db, max_rows=max_rows)
        self.mem.max_rows, self.mem.background = max_rows, background
        return self.mem.stats()

    def hit_rows(self, spans, *, terms=None):
        return search.hit_rows(self.db, spans, mem=self.mem, terms=terms)

    def doc_freqs(self, tokens):
        from memdir.recall.bm25 import doc_freqs, total_docs

        n = total_docs(self.db)  # O(1) from FTS5's averages record; count(*) over fts_docsize reads every row
        return n, (doc_freqs(self.db, list(dict.fromkeys(tokens))) if n else {})

    def has_ref(self, ref, kind=None):
        if kind is None:
            return self.db.execute("SELECT 1 FROM docs WHERE ref = ?", (ref,)).fetchone() is not None
        return self.db.execute("SELECT 1 FROM docs WHERE ref = ? AND kind = ?", (ref, kind)).fetchone() is not None

    def live_notes(self, category=None):
        sql = ("SELECT ref, category, note_kind, summary, text, pinned, ts_epoch FROM docs WHERE kind = 'note' "
               "AND superseded_by IS NULL")
        params: tuple = ()
        if category is not None:
            sql += " AND category = ?"
            params = (category,)
        return [dict(r) for r in self.db.execute(sql + " ORDER BY id", params)]

    def notes_superseded_by(self, ref):
        return [r[0] for r in self.db.execute("SELECT ref FROM docs WHERE kind = 'note' AND superseded_by = ?", (ref,))]

    def notes_superseding(self, ref):
        return [r[0] for r in self.db.execute("SELECT ref FROM docs WHERE kind = 'note' AND supersedes = ?", (ref,))]

    def note_states(self):
        return {r["ref"]: (r["mtime_ns"], r["size"]) for r in self.db.execute("SELECT ref, mtime_ns, size FROM docs WHERE kind = 'note'")}

    def note_entries(self):
        return [dict(r) for r in self.db.execute(
            "SELECT ref, category, note_kind, summary, load_when, pinned, superseded_by, ts_epoch FROM docs WHERE kind = 'note'")]

    def outline(self):
        return [dict(r) for r in self.db.execute(
            "SELECT category, count(*) AS n, group_concat(summary, '; ') AS s FROM "
            "(SELECT category, summary FROM docs WHERE kind = 'note' AND superseded_by IS NULL "
            "ORDER BY ts_epoch DESC) GROUP BY category ORDER BY category")]

    def recent(self, *, doc_kinds, sub_kinds, category, limit):
        # each kind's newest by its index (docs_kind_ts), merged, then only the rows shown read: one sort of the whole
        # table carrying every row's text made SQLite decompress them all (200,000 events: 3.5 s for the newest 20)
        kinds = [k for k in ("note", "event") if (not doc_kinds or k in doc_kinds) and (not category or k == "note")]
        if not kinds:
            return []
        parts, params = [], []
        for kind in kinds:
            sql = f"SELECT id, ts_epoch FROM docs WHERE kind = '{kind}' AND superseded_by IS NULL"
            if sub_kinds:
                sql += f" AND {'note_kind' if kind == 'note' else 'role'} IN ({','.join('?' * len(sub_kinds))})"
                params += sub_kinds
            if category:
                sql += " AND category = ?"
                params.append(category)
            parts.append(f"SELECT * FROM ({sql} ORDER BY ts_epoch DESC, id DESC LIMIT ?)")
            params.append(limit)
        newest = f"SELECT id FROM ({' UNION ALL '.join(parts)}) ORDER BY ts_epoch DESC, id DESC LIMIT ?"
        sql = f"SELECT * FROM docs WHERE id IN ({newest}) ORDER BY ts_epoch DESC, id DESC"
        return [codec.public_row(r) for r in self.db.execute(sql, (*params, limit))]

    def count_events(self, since, until, prefixes):
        sql = "SELECT count(*) FROM docs WHERE kind = 'event' AND ts_epoch >= ?"
        params: list[Any] = [since]
        if until is not None:
            sql += " AND ts_epoch < ?"
            params.append(until)
        if prefixes:
            sql += " AND (" + " OR ".join("substr(ref, 1, ?) = ?" for _ in prefixes) + ")"
            for p in prefixes:
                params += [len(p), p]
        return int(self.db.execute(sql, params).fetchone()[0])

    def events_after(self, ref, session, limit, *, until_role=None):
        me = self.db.execute("SELECT id, ts_epoch FROM docs WHERE ref = ?", (ref,)).fetchone()
        if me is None:
            return []
        out = []
        for r in self.db.execute(  # stepped row by row: a row after ``until_role`` is never read (nor its text unpacked)
                "SELECT ref, role, text, ts, handle FROM docs WHERE kind = 'event' AND session = ? AND "
                "(ts_epoch > ? OR (ts_epoch = ? AND id > ?)) ORDER BY ts_epoch, id LIMIT ?",
                (session, me["ts_epoch"], me["ts_epoch"], me["id"], limit)):
            if until_role is not None and r["role"] == until_role:
                break
            out.append(dict(r))
        return out

    def events_before(self, ref, session, limit):
        me = self.db.execute("SELECT id, ts_epoch FROM docs WHERE ref = ?", (ref,)).fetchone()
        if me is None:
            return []
        return [dict(r) for r in self.db.execute(
            "SELECT ref, role, text, ts, handle FROM docs WHERE kind = 'event' AND session = ? AND "
            "(ts_epoch < ? OR (ts_epoch = ? AND id < ?)) ORDER BY ts_epoch DESC, id DESC LIMIT ?",
            (session, me["ts_epoch"], me["ts_epoch"], me["id"], limit))]

    def events(self):
        for r in self.db.execute("SELECT ref, role, text, session, ts, meta FROM docs WHERE kind = 'event' ORDER BY ts_epoch, id"):
            yield dict(r)

    def counts(self):
        db = self.db
        return {"notes": db.execute("SELECT count(*) FROM docs WHERE kind='note'").fetchone()[0],
                "events": db.execute("SELECT count(*) FROM docs WHERE kind='event'").fetchone()[0],
                "superseded": db.execute("SELECT count(*) FROM docs WHERE kind='note' AND superseded_by IS NOT NULL").fetchone()[0],
                "tombstones": db.execute("SELECT count(*) FROM tombstones").fetchone()[0],
                "categories": {r[0]: r[1] for r in db.execute("SELECT category, count(*) FROM docs WHERE kind='note' GROUP BY category")},
                "roles": {r[0]: r[1] for r in db.execute("SELECT role, count(*) FROM docs WHERE kind='event' GROUP BY role")}}

    def note_refs(self):
        return {r[0] for r in self.db.execute("SELECT ref FROM docs WHERE kind = 'note'")}

    def set_meta(self, key, value):
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, str(value)))

    def delete_notes(self):
        index.delete_kind(self.db, "note")  # with their full-text rows (contentless: exact values, m009)

    def rebuild_fts(self):
        return index.rebuild_fts(self.db)

    def delete_vectors(self, ref):
        try:
            self.db.execute("DELETE FROM vectors WHERE ref = ?", (ref,))
        except sqlite3.Error:
            pass

    def start_heat(self, refs, now):
        from memdir.store.sqlite.tiers import start_heat

        return start_heat(self.db, refs, now)

    def tier_rows(self):
        return [dict(r) for r in self.db.execute(
            "SELECT d.ref, d.kind, d.pinned, d.ts_epoch, coalesce(r.count, 0) AS rcount, r.last AS rlast, "
            "t.ref AS tref, t.heat0, t.reinforced_at, t.seen_count, t.tier, t.importance "
            "FROM docs d LEFT JOIN rehearsal r ON r.ref = d.ref LEFT JOIN tiers t ON t.ref = d.ref")]

    def write_tiers(self, inserts, updates):
        db = self.db
        for row in inserts:  # (ref, heat0, reinforced_at, seen_count, tier, importance, changed_at)
            db.execute("INSERT INTO tiers(ref, heat0, reinforced_at, seen_count, tier, importance, changed_at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", row)
        for h0, at, seen, tier, imp, stamp, ref in updates:
            db.execute("UPDATE tiers SET heat0 = ?, reinforced_at = ?, seen_count = ?, tier = ?, importance = ?, "
                       "changed_at = CASE WHEN tier = ? THEN changed_at ELSE ? END WHERE ref = ?",
                       (h0, at, seen, tier, imp, tier, stamp, ref))
        return db.execute("DELETE FROM tiers WHERE ref NOT IN (SELECT ref FROM docs)").rowcount

    def prune_candidates(self, max_importance, cutoff, now):
        return [dict(r) for r in self.db.execute(
            "SELECT d.ref, d.kind, d.ts, substr(d.text, 1, 400) AS head, "
            "length(CAST(d.text AS BLOB)) + coalesce(length(v.vector), 0) AS bytes "
            "FROM docs d JOIN tiers t ON t.ref = d.ref LEFT JOIN vectors v ON v.ref = d.ref "
            "WHERE t.tier IN ('cold', 'archive') AND d.pinned = 0 AND t.importance < ? "
            "AND CASE WHEN d.ts_epoch > ? THEN t.reinforced_at ELSE max(d.ts_epoch, t.reinforced_at) END < ? "
            "ORDER BY d.ts_epoch DESC", (max_importance, now, cutoff))]

    def drop_tiers(self, ref):
        self.db.execute("DELETE FROM tiers WHERE ref = ?", (ref,))

    def bump_meta(self, key):
        self.db.execute("INSERT INTO meta(key, value) VALUES (?, '1') "
                        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1", (key,))

    # ---- vectors: memdir.store.sqlite.vectors on this index -----------------------------------------------
    def vector_dim(self, model):
        from memdir.store.sqlite import vectors

        return vectors.current_dim(self.db, model)

    def vector_note_dim(self, model, dim):
        from memdir.store.sqlite import vectors

        return vectors.note_dim(self.db, model, dim)

    def vector_pending(self, model, limit):
        from memdir.store.sqlite import vectors

        return vectors.pending_rows(self.db, model, limit)

    def vector_pending_count(self, model):
        from memdir.store.sqlite import vectors

        return vectors.pending_count(self.db, model)

    def vector_pending_exists(self, model):
        from memdir.store.sqlite import vectors

        return vectors.pending_exists(self.db, model)

    def vector_watermark(self, model):
        from memdir.store.sqlite import vectors

        vectors.set_watermark(self.db, model)

    def vector_put(self, items, mat, model, when):
        from memdir.store.sqlite import vectors

        return vectors.store(self.db, items, mat, model, when)

    def vector_failed(self, items, model, error, when):
        from memdir.store.sqlite import vectors

        vectors.mark_failed(self.db, items, model, error, when)

    def vector_stamp(self, model):
        from memdir.store.sqlite import vectors

        return vectors.stamp(self.db, model)

    def vector_rows(self, model, dim):
        from memdir.store.sqlite import vectors

        return vectors.hot_rows(self.db, model, dim)

    def vector_cold(self, model, dim):
        from memdir.store.sqlite import vectors

        return vectors.cold_rows(self.db, model, dim)

    def vector_search(self, model, q, k, *, hnsw_above):
        return None  # scored in memory (memdir.engine.hybrid.VectorIndex)

    def vector_docs(self, refs):
        from memdir.store.sqlite import vectors

        return vectors.live_rows(self.db, refs)

    def event_neighbours(self, refs):
        out = {}
        for i in range(0, len(refs), 500):
            part = refs[i:i + 500]
            for r in self.db.execute(
                    "SELECT d.ref, p.ref AS prev, n.ref AS next FROM docs d LEFT JOIN docs p ON p.id = d.ctx_prev "
                    f"LEFT JOIN docs n ON n.id = d.ctx_next WHERE d.ref IN ({','.join('?' * len(part))}) "
                    "AND d.kind = 'event' AND (d.ctx_prev IS NOT NULL OR d.ctx_next IS NOT NULL)", part):
                out[r["ref"]] = (r["prev"], r["next"])
        return out

    def vector_counts(self, model):
        from memdir.store.sqlite import vectors

        return vectors.vector_counts(self.db, model)

    def tier_counts(self):
        from memdir.store.sqlite import tiers

        return tiers.tier_counts(self.db)

    def sessions(self, *, limit=200):
        from memdir.store.sqlite import journal

        return journal.sessions(self.db, limit=limit)

    def session_events(self, session, *, limit=1000):
        from memdir.store.sqlite import journal

        return journal.session_events(self.db, session, limit=limit)

    def captured_tool_keys(self, session):
        from memdir.store.sqlite import journal

        return journal.captured_tool_keys(self.db, session)

    def captured_replies(self, session):
        from memdir.store.sqlite import journal

        return journal.captured_replies(self.db, session)

    def event_with_text(self, sha):
        from memdir.store.sqlite import journal

        return journal.event_with_text(self.db, sha)

    def scan_docs(self, prefix=None):
        cols = "ref, kind, role, note_kind, ts, ts_epoch, text, summary, highlight, substr(text, 1, 100) AS head, pinned"
        if prefix is not None:
            rows = self.db.execute(f"SELECT {cols} FROM docs WHERE kind = 'event' AND substr(ref, 1, ?) = ?", (len(prefix), prefix))
        else:
            rows = self.db.execute(f"SELECT {cols} FROM docs")
        for r in rows:
            yield dict(r)

    def session_turns(self, *, session=None, since=None, exclude=()):
        import json

        sql = ("SELECT id, ref, role, text, session, ts, ts_epoch FROM docs WHERE kind = 'event' AND session IS NOT NULL")
        params: list[Any] = []
        exclude = list(exclude)
        if exclude:
            sql += " AND ref NOT IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(exclude))
        if session is not None:
            sql += " AND session = ?"
            params.append(session)
        if since is not None:
            sql += " AND ts_epoch >= ?"
            params.append(since)
        return [dict(r) for r in self.db.execute(sql + " ORDER BY session, ts_epoch, id", params)]

    def has_text(self, sha, kind=None):
        key = codec.sha_key(sha)  # docs.sha, through the partial index of each kind
        return any(self.db.execute("SELECT 1 FROM docs WHERE kind = ? AND sha = ?", (k, key)).fetchone() is not None
                   for k in ((kind,) if kind is not None else ("event", "note")))

    def ref_sha(self, ref):
        row = self.db.execute("SELECT content_sha256 FROM docs WHERE ref = ?", (ref,)).fetchone()
        return row[0] if row else None

    def vector_of(self, ref, model):
        row = self.db.execute("SELECT vector FROM vectors WHERE ref = ? AND status = 'ok' AND model = ?", (ref, model)).fetchone()
        return bytes(row[0]) if row is not None and row[0] else None

    def vector_copy(self, ref, sha, model, blob, when):
        have = self.db.execute("SELECT status FROM vectors WHERE ref = ?", (ref,)).fetchone()
        if have is not None and have[0] == "ok":
            return False
        self.db.execute("INSERT OR REPLACE INTO vectors(ref, content_sha256, model, dim, status, vector, error, updated) "
                        "VALUES (?, ?, ?, ?, 'ok', ?, NULL, ?)", (ref, sha, model, len(blob) // 4, blob, when))
        return True

    def settle(self, *, freed=False, deleted=0):
        opening.settle(self.db, freed=freed, deleted=deleted)

    def describe(self):
        path = self.db.execute("PRAGMA database_list").fetchone()[2]
        from pathlib import Path

        return {"engine": "sqlite", "bytes": opening.file_size(Path(path)) if path else 0,
                "schema_version": self.db.execute("PRAGMA user_version").fetchone()[0]}

    def close(self):
        self.db.close()


