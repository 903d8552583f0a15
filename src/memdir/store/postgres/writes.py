"""PostgreSQL store: the writes (docs, events with their neighbour context, the full-text rows and their counters)."""

from __future__ import annotations

import json
from typing import Any, Iterable

from memdir.errors import MemdirError
from memdir.recall import handles, passages
from memdir.recall.tokenize import tokenize
from memdir.store.postgres.sql import DOC_COLUMNS, ME, tf_json, tsv_tokens
from memdir.store.rows import context_tokens, event_labels, fts_fields


class PgWrites:
    """PostgreSQL store: the writes (docs, events with their neighbour context, the full-text rows and their counters). Mixed into
    :class:`memdir.store.postgres.store.PgStore`, which holds the connection (``self._x``) and the transaction."""

    # ---- writes ------------------------------------------------------------------------------------------
    #: a handle the insert chose was taken meanwhile by a concurrent writer: choose again, at most this many times
    HANDLE_ATTEMPTS = 4

    def _insert(self, row: dict[str, Any], tail: str = "RETURNING id", tail_params: Iterable[Any] = ()):
        """``INSERT INTO docs`` of ``row`` with the shortest free handle (:mod:`memdir.recall.handles`) chosen in the same
        statement, ``ON CONFLICT DO NOTHING``; ``tail`` follows the insert (``RETURNING id``, or the ``WITH`` form's
        continuation). Handles are unique per project (m004): a row that lost its handle to a concurrent writer is
        inserted again with the next free one; a row whose key (or, for events, text) exists returns ``None``."""
        if row.get("kind") == "event":
            self._own_events()
        d = handles.digest(row["ref"])
        cands = [d[:n] for n in range(handles.LENGTH, len(d) + 1)]
        cols = [c for c in DOC_COLUMNS if c in row and c != "handle"]
        # memdir_free_handle / memdir_doc_taken (m005) see the rows of the project this login may not (private events)
        ins = (f"INSERT INTO docs(project, {', '.join(cols)}, handle) VALUES (%s, {', '.join('%s' for _ in cols)}, "
               "memdir_free_handle(%s, %s::text[], %s)) ON CONFLICT DO NOTHING")
        params = [self.project, *(row[c] for c in cols), self.project, cands, row["ref"]]
        for _ in range(self.HANDLE_ATTEMPTS):
            if tail.startswith("RETURNING"):
                got = self._x(f"{ins} {tail}", params).fetchone()
            else:
                got = self._x(f"WITH d AS ({ins} RETURNING id) {tail}", [*params, *tail_params]).fetchone()
            if got is not None:
                return got
            if self._x("SELECT memdir_doc_taken(%s, %s, %s) AS taken", (
                    self.project, row["ref"], row["content_sha256"] if row.get("kind") == "event" else None)).fetchone()["taken"]:
                return None
        raise MemdirError(f"could not give {row['ref']!r} a free handle (concurrent writers); retry")

    def _insert_doc(self, row: dict[str, Any]) -> int:
        got = self._insert(row)
        if got is None:
            raise MemdirError(f"{row['ref']!r} was written by another client at the same time; retry")
        return got["id"]

    def _insert_fts(self, doc_id: int, seq: int, span: tuple[int, int] | None, fields: tuple[str, str, str, str],
                    *, note: bool = False) -> None:
        dl = sum(len(f.split()) for f in fields)
        self._x("INSERT INTO fts(project, doc_id, seq, span_start, span_end, tags, title, body, context, dl, tsv, tf, note) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, array_to_tsvector(%s::text[]), %s::jsonb, %s)",
                (self.project, doc_id, seq, *(span or (None, None)), *fields, dl, tsv_tokens(*fields), tf_json(fields), note))
        self._count(1, dl, tsv_tokens(*fields), note=note)

    def _bump_gen(self) -> None:
        self._x("INSERT INTO meta(project, key, value) VALUES (%s, 'notes_gen', '1') ON CONFLICT (project, key) "
                "DO UPDATE SET value = (meta.value::integer + 1)::text", (self.project,))

    def upsert_doc(self, row: dict[str, Any]) -> int:
        self.delete_doc(row["ref"], bump=False)
        doc_id = self._insert_doc(row)
        if row.get("kind") == "note":
            self._bump_gen()
        tags = json.loads(row.get("tags") or "[]") + json.loads(row.get("load_when") or "[]")
        title = " ".join(x for x in (row.get("summary"), row.get("highlight")) if x)
        self._insert_fts(doc_id, 0, None, (*fts_fields(tags, title, row["text"]), ""), note=row.get("kind") == "note")
        self._done()
        return doc_id

    def insert_event(self, row: dict[str, Any], *, pending: dict[int, str] | None = None) -> int | None:
        self._own_events()
        spans = passages.split(row["text"], split_above=passages.split_above(row.get("role")))
        a, b = spans[0]
        toks = " ".join(tokenize(row["text"][a:b]))
        if pending is not None and row.get("session"):  # its own full-text row comes with its context (flush_events)
            got = self._insert(row)
            if got is None:
                return None
            doc_id = got["id"]
            pending[doc_id] = toks
        else:
            allf = (*event_labels(row.get("meta")), toks, "")  # an imported record's tags and title (as SQLite)
            dl = sum(len(f.split()) for f in allf)
            got = self._insert(  # the doc and its own full-text row in one statement; same key or same text: stored once
                row, "INSERT INTO fts(project, doc_id, seq, tags, title, body, dl, tsv, tf) SELECT %s, d.id, 0, %s, %s, %s, "
                "%s, array_to_tsvector(%s::text[]), %s::jsonb FROM d RETURNING doc_id",
                [self.project, allf[0], allf[1], toks, dl, tsv_tokens(*allf), tf_json(allf)])
            if got is None:
                return None
            doc_id = got["doc_id"]
            self._count(1, dl, tsv_tokens(*allf))
        for seq, (a, b) in enumerate(spans[1:], start=1):
            self._insert_fts(doc_id, seq, (a, b), ("", "", " ".join(tokenize(row["text"][a:b])), ""))
        self._done()
        return doc_id

    #: columns of an event row :meth:`insert_events` writes in one statement
    _EVENT_COLS = ("ref", "content_sha256", "role", "session", "ts", "ts_epoch", "text", "meta")

    def insert_events(self, rows: list[dict[str, Any]], *, pending: dict[int, str] | None = None) -> list[int | None]:
        """:meth:`insert_event` for many rows in two statements (docs, then their own full-text rows) instead of two
        per row: ``[doc id or None (duplicate key or text)]`` in ``rows``' order. A row that lost its handle to another
        row of the batch or a concurrent writer goes through :meth:`insert_event` (which chooses again)."""
        if not rows:
            return []
        self._own_events()
        prep = []
        for r in rows:
            spans = passages.split(r["text"], split_above=passages.split_above(r.get("role")))
            a, b = spans[0]
            prep.append((spans, " ".join(tokenize(r["text"][a:b]))))
        cols = [[r.get(c) for r in rows] for c in self._EVENT_COLS]
        got = self._x(
            "INSERT INTO docs(project, kind, ref, content_sha256, role, session, ts, ts_epoch, text, meta, handle) "
            "SELECT %s, 'event', v.ref, v.sha, v.role, v.session, v.ts, v.ts_epoch, v.text, v.meta, "
            f"memdir_free_handle(%s, ARRAY(SELECT left(v.dg, n) FROM generate_series({handles.LENGTH}, length(v.dg)) n), v.ref) "
            "FROM unnest(%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::float8[], %b::text[], %b::text[], "
            "%b::text[]) WITH ORDINALITY AS v(ref, sha, role, session, ts, ts_epoch, text, meta, dg, o) ORDER BY v.o "
            "ON CONFLICT DO NOTHING RETURNING id, ref",
            [self.project, self.project, *cols, [handles.digest(r["ref"]) for r in rows]]).fetchall()
        ids = {g["ref"]: g["id"] for g in got}
        out: list[int | None] = []
        fts: list[tuple] = []
        for r, (spans, toks) in zip(rows, prep):
            doc_id = ids.pop(r["ref"], None)
            if doc_id is None:
                out.append(None)
                continue
            out.append(doc_id)
            if pending is not None and r.get("session"):  # its own full-text row comes with its context (flush_events)
                pending[doc_id] = toks
                continue
            allf = (*event_labels(r.get("meta")), toks, "")
            dl = sum(len(f.split()) for f in allf)
            fts.append((doc_id, allf[0], allf[1], toks, dl, " ".join(tsv_tokens(*allf)), tf_json(allf)))
            self._count(1, dl, tsv_tokens(*allf))
        if fts:
            c = list(zip(*fts))
            self._x("INSERT INTO fts(project, doc_id, seq, tags, title, body, dl, tsv, tf) SELECT %s, u.doc_id, 0, u.tags, "
                    "u.title, u.toks, u.dl, array_to_tsvector(string_to_array(u.tsv, ' ')), u.tf FROM unnest(%b::bigint[], "
                    "%b::text[], %b::text[], %b::text[], %b::integer[], %b::text[], %b::jsonb[]) "
                    "AS u(doc_id, tags, title, toks, dl, tsv, tf)",
                    [self.project, *[list(x) for x in c]])
        for i, (r, (spans, toks)) in enumerate(zip(rows, prep)):
            if out[i] is None:  # a duplicate, or a handle taken meanwhile: the one-row path tells them apart
                if not self._x("SELECT memdir_doc_taken(%s, %s, %s) AS taken",
                               (self.project, r["ref"], r["content_sha256"])).fetchone()["taken"]:
                    out[i] = self.insert_event(r, pending=pending)
                continue
            for seq, (a, b) in enumerate(spans[1:], start=1):
                self._insert_fts(out[i], seq, (a, b), ("", "", " ".join(tokenize(r["text"][a:b])), ""))
        self._done()
        return out

    def _order(self, session: str) -> list[int]:
        # a person's turns neighbour only that person's turns (m007: the writer's own rows, the ones it may update)
        return [r["id"] for r in self._x(f"SELECT id FROM docs WHERE project = %s AND kind = 'event' AND session = %s "
                                         f"AND owner = {ME} ORDER BY ts_epoch, id", (self.project, session))]

    def _body_tokens(self, ids: Iterable[int]) -> dict[int, str]:
        ids = list(ids)
        if not ids:
            return {}
        return {r["doc_id"]: r["body"] for r in self._x("SELECT doc_id, body FROM fts WHERE doc_id = ANY(%s) AND seq = 0",
                                                        (ids,))}

    def _set_context(self, targets: dict[int, tuple[int | None, int | None]], fresh: dict[int, str] | None = None,
                     labels: dict[int, tuple[str, str]] | None = None) -> int:
        """Write the ``context`` of ``targets`` (``{doc id: (previous, next)}``): the own full-text row of a doc in
        ``fresh`` (``{doc id: body tokens}``, events inserted with ``pending``; ``labels``: their tags and title
        token streams, :func:`memdir.store.rows.event_labels`) is inserted here, once, with its context; an existing
        row is updated when its context changed."""
        fresh, labels = fresh or {}, labels or {}
        if not targets and not fresh:
            return 0
        ids = sorted(set(targets) - set(fresh))  # one order for every writer: two flushing clients never deadlock on these rows
        toks = dict(fresh)
        toks.update(self._body_tokens({x for pair in targets.values() for x in pair if x is not None and x not in fresh}))
        have = {r["doc_id"]: r for r in self._x("SELECT doc_id, tags, title, body, context, owner, note FROM fts WHERE "
                                                "doc_id = ANY(%s) AND seq = 0 ORDER BY doc_id FOR UPDATE", (ids,))} if ids else {}
        new: list[tuple] = []
        for doc_id in sorted(fresh):
            prev, nxt = targets.get(doc_id, (None, None))
            ctx = " ".join(t for x in (prev, nxt) if x is not None for t in context_tokens(toks.get(x, "")))
            allf = (*labels.get(doc_id, ("", "")), fresh[doc_id], ctx)
            dl = sum(len(f.split()) for f in allf)
            self._count(1, dl, tsv_tokens(*allf))
            new.append((doc_id, allf[0], allf[1], fresh[doc_id], ctx, dl, " ".join(tsv_tokens(*allf)), tf_json(allf)))
        if new:
            self._x("INSERT INTO fts(project, doc_id, seq, tags, title, body, context, dl, tsv, tf) SELECT %s, u.doc_id, 0, "
                    "u.tags, u.title, u.body, u.ctx, u.dl, array_to_tsvector(string_to_array(u.toks, ' ')), u.tf FROM "
                    "unnest(%b::bigint[], %b::text[], %b::text[], %b::text[], %b::text[], %b::integer[], %b::text[], "
                    "%b::jsonb[]) AS u(doc_id, tags, title, body, ctx, dl, toks, tf)",
                    [self.project, *[list(c) for c in zip(*new)]])
        upd: list[tuple] = []
        for doc_id in ids:
            r = have.get(doc_id)
            if r is None:
                continue
            prev, nxt = targets[doc_id]
            ctx = " ".join(t for x in (prev, nxt) if x is not None for t in context_tokens(toks.get(x, "")))
            allf = (r["tags"], r["title"], r["body"], ctx)
            if ctx == r["context"]:
                continue
            was = (r["tags"], r["title"], r["body"], r["context"])
            self._count(-1, sum(len(f.split()) for f in was), tsv_tokens(*was), r["owner"], r["note"])
            self._count(1, sum(len(f.split()) for f in allf), tsv_tokens(*allf), r["owner"], r["note"])
            upd.append((doc_id, ctx, sum(len(f.split()) for f in allf), " ".join(tsv_tokens(*allf)), tf_json(allf)))
        if upd:  # one statement for all rows
            cols = list(zip(*upd))
            self._x("UPDATE fts SET context = u.ctx, dl = u.dl, tsv = array_to_tsvector(string_to_array(u.toks, ' ')), "
                    "tf = u.tf FROM unnest(%b::bigint[], %b::text[], %b::integer[], %b::text[], %b::jsonb[]) "
                    "AS u(doc_id, ctx, dl, toks, tf) WHERE fts.doc_id = u.doc_id AND fts.seq = 0", [list(c) for c in cols])
        self._done()
        return len(new) + len(upd)

    def flush_events(self, pending: dict[int, str]) -> int:
        """The ``context`` field (neighbouring turns' tokens) of the events in ``pending`` and of the older events
        that gained a new neighbour, as :func:`memdir.store.sqlite.index.flush_events`."""
        if not pending:
            return 0
        got = self._x("SELECT id, session, meta FROM docs WHERE id = ANY(%s)", (list(pending),)).fetchall()
        sess = {r["id"]: r["session"] for r in got}
        labels = {r["id"]: event_labels(r["meta"]) for r in got if r["meta"]}
        targets: dict[int, tuple[int | None, int | None]] = {}
        for session in {s for s in sess.values() if s}:
            order = self._order(session)
            for i, x in enumerate(order):
                prev = order[i - 1] if i > 0 else None
                nxt = order[i + 1] if i + 1 < len(order) else None
                if x in pending or prev in pending or nxt in pending:
                    targets[x] = (prev, nxt)
        return self._set_context(targets, fresh=pending, labels=labels)

    def refresh_context(self, sessions: Iterable[str]) -> int:
        targets: dict[int, tuple[int | None, int | None]] = {}
        for session in set(sessions):
            order = self._order(session)
            for i, x in enumerate(order):
                targets[x] = (order[i - 1] if i > 0 else None, order[i + 1] if i + 1 < len(order) else None)
        return self._set_context(targets)

    def _writable(self, ref: str) -> int | None:
        """The id of the doc ``ref`` this connection may change: its person's own (first) or an ownerless one (m007:
        another person's row, even a shared one, is never deleted or rewritten by this connection)."""
        row = self._x(f"SELECT id FROM docs WHERE project = %s AND ref = %s AND owner IN ('', {ME}) ORDER BY owner DESC "
                      "LIMIT 1", (self.project, ref)).fetchone()
        return row["id"] if row else None

    def delete_doc(self, ref: str, *, bump: bool = True) -> bool:
        doc_id = self._writable(ref)
        if doc_id is None:
            return False
        for r in self._x("DELETE FROM fts WHERE project = %s AND doc_id = %s RETURNING dl, tsvector_to_array(tsv) AS toks, "
                         "owner, note", (self.project, doc_id)).fetchall():
            self._count(-1, r["dl"], r["toks"], r["owner"], r["note"])
        got = self._x("DELETE FROM docs WHERE id = %s RETURNING kind", (doc_id,)).fetchone()
        self._done()
        if got is None:
            return False
        if bump and got["kind"] == "note":
            self._bump_gen()
        return True

    def delete_docs(self, refs: Iterable[str]) -> list[str]:
        return [ref for ref in dict.fromkeys(refs) if self.delete_doc(ref)]

    def bump_rehearsal(self, refs: Iterable[str], when: str) -> None:
        """One more recall of each ref, on this connection's person's own counter (m009). A connection without a
        person (the schema owner) counts only keys of ownerless rows: its ownerless counter is read by every member,
        so it must never name a person's private event."""
        mine = "" if self.me else (" WHERE EXISTS (SELECT 1 FROM docs d WHERE d.project = %s AND d.ref = u.r "
                                   "AND d.owner = '')")
        refs = sorted(dict.fromkeys(refs))
        if refs:
            self._x("INSERT INTO rehearsal(project, ref, count, last) SELECT %s, u.r, 1, %s FROM unnest(%s::text[]) AS u(r)"
                    f"{mine} ORDER BY u.r ON CONFLICT (project, owner, ref) DO UPDATE SET count = rehearsal.count + 1, "
                    "last = excluded.last", (self.project, when, refs, *((self.project,) if mine else ())))

    def tombstone(self, ref: str, sha: str | None, kind: str, when: str) -> None:
        self._x(f"DELETE FROM rehearsal WHERE project = %s AND ref = %s AND owner IN ('', {ME})", (self.project, ref))
        self._x("INSERT INTO tombstones(project, ref, content_sha256, kind, deleted_at) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (project, owner, ref) DO UPDATE SET content_sha256 = excluded.content_sha256, kind = excluded.kind, "
                "deleted_at = excluded.deleted_at", (self.project, ref, sha, kind, when))
