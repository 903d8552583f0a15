"""The rows and the contentless full-text index of one memory root's derived SQLite index
(``<root>/.memdir/index.sqlite3``): writing a note's or an event's ``docs`` row and its FTS5 rows, the neighbours'
context kept in step, removal with the exact tokens a row was indexed with, rebuilding and checking the full-text
index. Opening the file (pragmas, migrations, a corrupt file moved aside) is :mod:`memdir.store.sqlite.opening`;
reading it for recall is :mod:`memdir.store.sqlite.search`. The Markdown files are the truth for notes: the index
mirrors them; events live only here (export them with ``memdir export``).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Iterable

from memdir.lazylog import getLogger
from memdir.recall import handles, passages
import memdir.store.rows as rows
from memdir.store.sqlite import codec
from memdir.store.sqlite import vectors as vector_table
from memdir.recall.tokenize import tokenize

log = getLogger("memdir")  # imports logging only when a record can go somewhere


def bump_gen(db: sqlite3.Connection, key: str = "notes_gen") -> None:
    """Count a change of the note mirror (compared with ``compiled_gen`` to find stale index.md/ROOT.md)."""
    db.execute("INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1", (key,))


def meta_int(db: sqlite3.Connection, key: str) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    try:
        return int(row[0]) if row else 0
    except (TypeError, ValueError):
        return 0


# ---- the contentless full-text index ---------------------------------------------------------------------------
# ``fts`` keeps no copy of its token streams (``content=''``, migration m009): a row is removed by handing FTS5 the
# exact values it was written with (``'delete'``), or the index is silently corrupted. Those values are always
# recomputed from ``docs``: a note's tags/title/body from its columns; an event's body from its passage 0
# (:func:`body0`) and its context from the neighbour ids it was indexed with (``docs.ctx_prev``/``ctx_next``, kept
# in step with every FTS write); a passage's body from its span of the text. The tokenizer version is pinned by
# :func:`memdir.store.sqlite.opening.check_tokenizer` (a change rebuilds everything with ``'delete-all'``).
# :func:`check_fts` compares the index with what ``docs`` says it holds.

_FTS_INSERT = "INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, ?, ?, ?, ?)"
_FTS_DELETE = "INSERT INTO fts(fts, rowid, tags, title, body, context) VALUES ('delete', ?, ?, ?, ?, ?)"


def note_values(r: Any) -> tuple[str, str, str, str]:
    tags = json.loads(r["tags"] or "[]") + json.loads(r["load_when"] or "[]")
    title = " ".join(x for x in (r["summary"], r["highlight"]) if x)
    return (*rows.fts_fields(tags, title, r["text"]), "")


def event_labels(r: Any) -> tuple[str, str]:
    """The tags and title token streams of docs row ``r`` (an event read with its ``meta``)."""
    return rows.event_labels(r["meta"])


def body0(text: str, role: str | None) -> str:
    """Tokens of an event's passage 0 (what its own FTS row holds in ``body``)."""
    a, b = passages.split(text, split_above=passages.split_above(role))[0]
    return " ".join(tokenize(text[a:b]))


class Tokens:
    """Passage-0 tokens of events by id (read from ``docs`` and cached; ``fresh`` = already known), and their
    tags and title columns (:meth:`labels`)."""

    def __init__(self, db: sqlite3.Connection, fresh: dict[int, str] | None = None) -> None:
        self.db = db
        self.cache: dict[int, str] = dict(fresh or {})
        self.label_cache: dict[int, tuple[str, str]] = {}

    def prime_labels(self, ids: Iterable[int]) -> None:
        """Read the labels of ``ids`` (events just inserted) in one statement per 500."""
        ids = [x for x in ids if x is not None and x not in self.label_cache]
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for r in self.db.execute(f"SELECT id, meta FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk):
                self.label_cache[r[0]] = rows.event_labels(r[1])

    def labels(self, x: int) -> tuple[str, str]:
        """Event ``x``'s tags and title token streams (:func:`memdir.store.rows.event_labels` of its ``meta``)."""
        got = self.label_cache.get(x)
        if got is None:
            r = self.db.execute("SELECT meta FROM docs WHERE id = ?", (x,)).fetchone()
            got = self.label_cache[x] = rows.event_labels(r[0] if r is not None else None)
        return got

    def prime(self, ids: Iterable[int]) -> None:
        ids = [x for x in ids if x is not None and x not in self.cache]
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for r in self.db.execute(f"SELECT id, text, role FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk):
                self.cache[r[0]] = body0(r[1], r[2])

    def __call__(self, x: int) -> str:
        t = self.cache.get(x)
        if t is None:
            r = self.db.execute("SELECT text, role FROM docs WHERE id = ?", (x,)).fetchone()
            if r is None:  # never expected: an indexed neighbour is re-contexted before it goes (delete_doc)
                log.warning("memdir: index context names a missing event %s; the full-text index is rebuilt at next open", x)
                db_mark_rebuild(self.db)
                t = ""
            else:
                t = body0(r[0], r[1])
            self.cache[x] = t
        return t


def db_mark_rebuild(db: sqlite3.Connection) -> None:
    """Have the next :func:`open_index` rebuild the full-text index from ``docs``."""
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', 'rebuild-suspect')")


def event_values(r: Any, tokens_of: Tokens) -> tuple[str, str, str, str]:
    """The values event row ``r`` (id, ctx_prev, ctx_next, and ``meta`` when it has it, else read) was indexed with:
    its labels (:func:`memdir.store.rows.event_labels`), passage-0 tokens and neighbour context."""
    labels = rows.event_labels(r["meta"]) if "meta" in r.keys() else tokens_of.labels(r["id"])
    return (*labels, tokens_of(r["id"]), _context(tokens_of, r["ctx_prev"], r["ctx_next"]))


def _unindex(db: sqlite3.Connection, r: Any, tokens_of: Tokens) -> None:
    """Remove every FTS row of docs row ``r`` (its own and its passages'), with the values they hold."""
    if r["kind"] == "note":
        vals = note_values(r)
    else:
        tokens_of.cache.setdefault(r["id"], body0(r["text"], r["role"]))
        vals = event_values(r, tokens_of)
    db.execute(_FTS_DELETE, (r["id"], *vals))
    _delete_passages(db, r["id"], r["text"])


def upsert_doc(db: sqlite3.Connection, row: dict[str, Any]) -> int:
    """Insert or replace a doc by ``ref`` and refresh its FTS row; returns the doc id. Caller holds a transaction."""
    old = db.execute("SELECT * FROM docs WHERE ref = ?", (row["ref"],)).fetchone()
    if old is not None:
        _remove(db, [old])
    row = {**row, "handle": handles.assign(db, row["ref"])}
    cols, st = codec.doc_columns(db, row)
    cur = codec.write(db, *codec.insert_sql("INSERT", cols))
    doc_id = cur.lastrowid
    codec.learn(db, st, doc_id, cols)
    if row.get("kind") == "note":
        if row.get("category") != "ROOT.md":  # ROOT.md's goals and rules are lines of no compiled table
            bump_gen(db)
        fields = {k: row.get(k) for k in ("tags", "load_when", "summary", "highlight")}
        db.execute(_FTS_INSERT, (doc_id, *note_values({**fields, "text": row["text"]})))
    else:  # an event: its passages, and with a session its neighbours' context (theirs refreshed), as insert_event
        toks = index_passages(db, doc_id, row["text"], row.get("role"), fresh=True)
        if row.get("session"):
            flush_events(db, {doc_id: toks})
        else:
            db.execute(_FTS_INSERT, (doc_id, *rows.event_labels(row.get("meta")), toks, ""))
    return doc_id


def insert_event(db: sqlite3.Connection, row: dict[str, Any], *, pending: dict[int, str] | None = None,
                 pieces: list[tuple[int, int, str]] | None = None) -> int | None:
    """Insert an event unless its key or content hash exists; returns the new doc id, or ``None`` when it was a
    duplicate. An event that has a session gets its FTS row from :func:`flush_events` (its neighbours in the
    ``context`` column, theirs refreshed): later, for all of ``pending`` (a dict) in one write, or now without it.
    ``pieces``: its passages' tokens made ahead (:func:`index_passages`). Caller holds a transaction."""
    row = {**row, "handle": handles.assign(db, row["ref"])}
    cols, st = codec.doc_columns(db, row)
    # a key or (event) content hash already stored: ignored, both are UNIQUE
    cur = codec.write(db, *codec.insert_sql("INSERT OR IGNORE", cols))
    if cur.rowcount == 0:
        return None
    codec.learn(db, st, cur.lastrowid, cols)
    toks = index_passages(db, cur.lastrowid, row["text"], row.get("role"), fresh=True, pieces=pieces)
    if not row.get("session"):
        db.execute(_FTS_INSERT, (cur.lastrowid, *rows.event_labels(row.get("meta")), toks, ""))
    elif pending is not None:
        pending[cur.lastrowid] = toks
    else:  # alone: its row and its neighbours' context now
        flush_events(db, {cur.lastrowid: toks})
    return cur.lastrowid


_PREV = ("SELECT id FROM docs WHERE kind = 'event' AND session = ? AND (ts_epoch < ? OR (ts_epoch = ? AND id < ?)) "
         "ORDER BY ts_epoch DESC, id DESC LIMIT 1")
_NEXT = ("SELECT id FROM docs WHERE kind = 'event' AND session = ? AND (ts_epoch > ? OR (ts_epoch = ? AND id > ?)) "
         "ORDER BY ts_epoch, id LIMIT 1")


def _neighbours(db: sqlite3.Connection, ids: Iterable[int]) -> dict[int, tuple[int | None, int | None]]:
    """``{id: (previous id, next id)}`` within each event's session, by (ts, id)."""
    ids = list(ids)
    info: dict[int, tuple[str, float]] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for r in db.execute(f"SELECT id, session, ts_epoch FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk):
            if r[1] is not None:
                info[r[0]] = (r[1], r[2])
    by_session: dict[str, list[int]] = {}
    for i, (sess, _) in info.items():
        by_session.setdefault(sess, []).append(i)
    out: dict[int, tuple[int | None, int | None]] = {}
    for sess, members in by_session.items():
        if len(members) > 8:  # many in one session: read its order once
            order = [r[0] for r in db.execute("SELECT id FROM docs WHERE kind = 'event' AND session = ? ORDER BY ts_epoch, id", (sess,))]
            pos = {x: n for n, x in enumerate(order)}
            for x in members:
                n = pos.get(x)
                if n is not None:
                    out[x] = (order[n - 1] if n > 0 else None, order[n + 1] if n + 1 < len(order) else None)
        else:
            for x in members:
                _, ts = info[x]
                p = db.execute(_PREV, (sess, ts, ts, x)).fetchone()
                q = db.execute(_NEXT, (sess, ts, ts, x)).fetchone()
                out[x] = (p[0] if p else None, q[0] if q else None)
    return out


def _context(tokens_of, prev: int | None, nxt: int | None) -> str:
    parts: list[str] = []
    for x in (prev, nxt):
        if x is not None:
            parts.extend(rows.context_tokens(tokens_of(x)))
    return " ".join(parts)


def _recontext(db: sqlite3.Connection, targets: dict[int, tuple[int | None, int | None]], tokens_of: Tokens) -> int:
    """Give events ``{id: (prev, next)}`` that context where it differs from the one they are indexed with (the
    old row deleted with its exact values, the new one inserted, the ids stored). Returns rows rewritten."""
    if not targets:
        return 0
    ids = list(targets)
    rows = []
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        rows += db.execute(f"SELECT id, ctx_prev, ctx_next, meta FROM docs WHERE id IN ({','.join('?' * len(chunk))})",
                           chunk).fetchall()
    rows = [r for r in rows if (r["ctx_prev"], r["ctx_next"]) != targets[r["id"]]]
    if not rows:
        return 0
    tokens_of.prime([r["id"] for r in rows] + [x for r in rows for x in (r["ctx_prev"], r["ctx_next"], *targets[r["id"]])])
    db.executemany(_FTS_DELETE, [(r["id"], *event_values(r, tokens_of)) for r in rows])
    db.executemany(_FTS_INSERT, [(r["id"], *event_labels(r), tokens_of(r["id"]), _context(tokens_of, *targets[r["id"]]))
                                 for r in rows])
    codec.write(db, "UPDATE docs SET ctx_prev = ?, ctx_next = ? WHERE id = ?", [(*targets[r["id"]], r["id"]) for r in rows], many=True)
    return len(rows)


def flush_events(db: sqlite3.Connection, pending: dict[int, str]) -> int:
    """Write the FTS rows of events inserted with ``pending``, each with its neighbours' tokens (previous and next
    turn of its session, at most :data:`memdir.store.rows.CONTEXT_TOKENS` each) in the ``context`` column, and refresh the context
    of older events that gained a new neighbour. A question about a turn's surroundings then still finds it
    (LoCoMo turn recall@10 0.615 → 0.705, bench/results). Returns FTS rows written. Caller holds a transaction."""
    if not pending:
        return 0
    tokens_of = Tokens(db, pending)
    tokens_of.prime_labels(pending)
    nb = _neighbours(db, pending)
    tokens_of.prime({y for x in pending for y in nb.get(x, (None, None))})
    rows, ids = [], []
    for x, toks in pending.items():
        prev, nxt = nb.get(x, (None, None))
        rows.append((x, *tokens_of.labels(x), toks, _context(tokens_of, prev, nxt)))
        if prev is not None or nxt is not None:
            ids.append((prev, nxt, x))
    db.executemany(_FTS_INSERT, rows)
    codec.write(db, "UPDATE docs SET ctx_prev = ?, ctx_next = ? WHERE id = ?", ids, many=True)
    old = {y for x in pending for y in nb.get(x, (None, None)) if y is not None and y not in pending}
    return len(pending) + _recontext(db, _neighbours(db, old), tokens_of)


def refresh_context(db: sqlite3.Connection, sessions: Iterable[str]) -> int:
    """Bring the ``context`` column of every event of ``sessions`` in step with its neighbours (after a forget, or a
    rebuild). Returns rows rewritten. Caller holds a transaction."""
    targets: dict[int, tuple[int | None, int | None]] = {}
    for session in set(sessions):
        order = [r[0] for r in db.execute("SELECT id FROM docs WHERE kind = 'event' AND session = ? ORDER BY ts_epoch, id", (session,))]
        for i, x in enumerate(order):
            targets[x] = (order[i - 1] if i > 0 else None, order[i + 1] if i + 1 < len(order) else None)
    return _recontext(db, targets, Tokens(db))


def _remove(db: sqlite3.Connection, olds: list[Any]) -> None:
    """Delete docs rows ``olds`` and every FTS row that holds their tokens: their own, their passages', and the
    context of the neighbours indexed with them (those are re-contexted without them). Each session the rows belong
    to is read once, however many of its events go (a bulk forget of a long session ran for minutes when every
    event read its session again). Caller holds a transaction."""
    if not olds:
        return
    gone = {r["id"] for r in olds}
    # events staying whose context was indexed with a deleted neighbour's words: SQLite filters each session's rows
    # (one deleted event of a 20,000-turn session returns its two neighbours, not the session)
    by_session: dict[Any, list[int]] = {}
    for r in olds:
        if r["kind"] == "event" and r["session"] is not None:
            by_session.setdefault(r["session"], []).append(r["id"])
    deps, seen = [], set()
    for sess, ids in by_session.items():
        for i in range(0, len(ids), 400):
            chunk = ids[i:i + 400]
            marks = ",".join("?" * len(chunk))
            for r in db.execute(f"SELECT id, ctx_prev, ctx_next, meta FROM docs WHERE kind = 'event' AND session = ? "
                                f"AND (ctx_prev IN ({marks}) OR ctx_next IN ({marks}))", (sess, *chunk, *chunk)):
                if r["id"] not in gone and r["id"] not in seen:
                    seen.add(r["id"])
                    deps.append(r)
    tokens_of = Tokens(db)
    tokens_of.prime([r["id"] for r in olds if r["kind"] == "event"]
                    + [x for r in olds if r["kind"] == "event" for x in (r["ctx_prev"], r["ctx_next"])])
    for old in olds:  # every FTS row out while all the words they were indexed with can still be read
        _unindex(db, old, tokens_of)
    if deps:  # their context still holds the old events' words: out with the exact values while it can be read
        tokens_of.prime([r["id"] for r in deps] + [x for r in deps for x in (r["ctx_prev"], r["ctx_next"])])
        db.executemany(_FTS_DELETE, [(r["id"], *event_values(r, tokens_of)) for r in deps])
    for old in olds:
        db.execute("DELETE FROM docs WHERE id = ?", (old["id"],))
        seq = db.execute("INSERT INTO removed(doc_id) VALUES (?)", (old["id"],)).lastrowid
        if seq % REMOVED_KEEP == 0:
            db.execute("DELETE FROM removed WHERE seq <= ?", (seq - REMOVED_KEEP,))
    vector_table.ids_may_return(db, min(gone))  # a replaced newest note comes back under its own id: still checked for a vector
    if deps:
        nb = _neighbours(db, [r["id"] for r in deps])
        tokens_of.prime({x for r in deps for x in nb.get(r["id"], (None, None))})
        rows, ids = [], []
        for r in deps:
            prev, nxt = nb.get(r["id"], (None, None))
            rows.append((r["id"], *event_labels(r), tokens_of(r["id"]), _context(tokens_of, prev, nxt)))
            ids.append((prev, nxt, r["id"]))
        db.executemany(_FTS_INSERT, rows)
        codec.write(db, "UPDATE docs SET ctx_prev = ?, ctx_next = ? WHERE id = ?", ids, many=True)


#: entries of the ``removed`` log kept (m010): a reader further behind rebuilds (:mod:`memdir.store.sqlite.postings`)
REMOVED_KEEP = 4096


def delete_doc(db: sqlite3.Connection, ref: str) -> bool:
    """Delete a doc and its FTS rows (neighbours re-contexted without it); returns True if it existed. Caller holds
    a transaction."""
    return bool(delete_docs(db, [ref]))


def delete_docs(db: sqlite3.Connection, refs: Iterable[str]) -> list[tuple[str, str]]:
    """Delete many docs as :func:`delete_doc` deletes one, in one :func:`_remove` (each session read once). Returns
    ``(ref, kind)`` of the docs that existed. Caller holds a transaction."""
    refs = list(dict.fromkeys(refs))
    olds = []
    for i in range(0, len(refs), 500):
        chunk = refs[i:i + 500]
        olds += db.execute(f"SELECT * FROM docs WHERE ref IN ({','.join('?' * len(chunk))})", chunk).fetchall()
    if any(r["kind"] == "note" for r in olds):
        bump_gen(db)
    _remove(db, olds)
    # a pruned or forgotten turn's distillation mark (m007) goes with it: the table only ever grew otherwise
    db.executemany("DELETE FROM distill_marks WHERE ref = ?", [(r["ref"],) for r in olds if r["kind"] == "event"])
    return [(r["ref"], r["kind"]) for r in olds]


def delete_kind(db: sqlite3.Connection, kind: str) -> int:
    """Delete every doc of ``kind`` with its FTS rows (``memdir reindex`` drops the note mirror). Returns docs
    deleted. Caller holds a transaction."""
    n = 0
    for (ref,) in db.execute("SELECT ref FROM docs WHERE kind = ?", (kind,)).fetchall():
        n += delete_doc(db, ref)
    return n


def index_passages(db: sqlite3.Connection, doc_id: int, text: str, role: str | None = None, *, fresh: bool = False,
                   pieces: list[tuple[int, int, str]] | None = None) -> str:
    """Split an event's ``text`` into passages (:func:`memdir.recall.passages.tokens`, or ``pieces``: what it returns
    for this text and role, made ahead), write the FTS rows of passages 1.. (rowid ``-passages.id``) and return the
    tokens of passage 0, which go into the event's own FTS row. Earlier passages of ``doc_id`` (of the same ``text``)
    are replaced, unless ``fresh`` (a doc just inserted has none). Caller holds a transaction."""
    if not fresh:
        _delete_passages(db, doc_id, text)
    if pieces is None:
        pieces = passages.tokens(text, role)
    for seq, (a, b, toks) in enumerate(pieces[1:], start=1):
        cur = db.execute("INSERT INTO passages(doc_id, seq, start, end) VALUES (?, ?, ?, ?)", (doc_id, seq, a, b))
        db.execute(_FTS_INSERT, (-cur.lastrowid, "", "", toks, ""))
    return pieces[0][2]


def _delete_passages(db: sqlite3.Connection, doc_id: int, text: str) -> None:
    rows = db.execute("SELECT id, start, end FROM passages WHERE doc_id = ?", (doc_id,)).fetchall()
    if rows:
        db.executemany(_FTS_DELETE, [(-pid, "", "", " ".join(tokenize(text[a:b])), "") for pid, a, b in rows])
        db.execute("DELETE FROM passages WHERE doc_id = ?", (doc_id,))


def rebuild_fts(db: sqlite3.Connection) -> int:
    """Rebuild the whole full-text index (and the passages table, and every event's neighbour ids) from ``docs``;
    returns docs indexed. Caller holds a transaction."""
    bump_gen(db, "fts_epoch")  # a process holding postings in memory rebuilds them (memdir.store.sqlite.postings)
    db.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
    db.execute("DELETE FROM passages")
    n = 0
    rows = []
    for r in db.execute("SELECT id, tags, load_when, summary, highlight, text FROM docs WHERE kind = 'note'"):
        rows.append((r["id"], *note_values(r)))
        n += 1
    db.executemany(_FTS_INSERT, rows)
    codec.write(db, "UPDATE docs SET ctx_prev = NULL, ctx_next = NULL WHERE ctx_prev IS NOT NULL OR ctx_next IS NOT NULL", ())
    # events session by session in (ts, id) order: each one's context is its neighbours' passage-0 tokens
    cur = db.execute("SELECT id, session, role, text, meta FROM docs WHERE kind = 'event' ORDER BY session, ts_epoch, id")
    group: list[tuple[int, str]] = []
    labels: dict[int, tuple[str, str]] = {}
    session: object = object()

    def flush(group: list[tuple[int, str]], in_session: bool) -> None:
        toks = dict(group)
        rows, ids = [], []
        for i, (x, t) in enumerate(group):
            prev = group[i - 1][0] if in_session and i > 0 else None
            nxt = group[i + 1][0] if in_session and i + 1 < len(group) else None
            rows.append((x, *labels.pop(x, ("", "")), t, _context(toks.__getitem__, prev, nxt)))
            if prev is not None or nxt is not None:
                ids.append((prev, nxt, x))
        db.executemany(_FTS_INSERT, rows)
        codec.write(db, "UPDATE docs SET ctx_prev = ?, ctx_next = ? WHERE id = ?", ids, many=True)

    for r in cur.fetchall():
        if r["session"] != session:
            if group:
                flush(group, session is not None)
            group, session = [], r["session"]
        group.append((r["id"], index_passages(db, r["id"], r["text"], r["role"])))
        if r["meta"]:
            labels[r["id"]] = event_labels(r)
        n += 1
    if group:
        flush(group, session is not None)
    return n


def check_fts(db: sqlite3.Connection) -> list[str]:
    """Problems of the full-text index, ``[]`` when it holds what ``docs`` says (each term's instances per column and
    the rows holding them, compared with an index built afresh from ``docs`` in a temporary table; no row without a
    document) and each event's neighbour
    ids match its session's order. For tests and ``memdir doctor``; reads the whole index."""
    from memdir.recall.tokenize import FTS_TOKENCHARS

    problems: list[str] = []
    try:
        db.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
    except sqlite3.DatabaseError as exc:
        problems.append(f"integrity-check: {exc}")
    for sess in [r[0] for r in db.execute("SELECT DISTINCT session FROM docs WHERE kind = 'event' AND session IS NOT NULL")]:
        rows = db.execute("SELECT id, ctx_prev, ctx_next FROM docs WHERE kind = 'event' AND session = ? ORDER BY ts_epoch, id",
                          (sess,)).fetchall()
        for i, r in enumerate(rows):
            want = (rows[i - 1][0] if i > 0 else None, rows[i + 1][0] if i + 1 < len(rows) else None)
            if (r[1], r[2]) != want:
                problems.append(f"event {r[0]} of session {sess} is indexed with neighbours {(r[1], r[2])}, not {want}")
    db.execute("DROP TABLE IF EXISTS temp.fts_expect")
    db.execute(f"""CREATE VIRTUAL TABLE temp.fts_expect USING fts5(tags, title, body, context, content='',
        tokenize = "unicode61 remove_diacritics 0 tokenchars '{FTS_TOKENCHARS}'")""")
    try:
        tokens_of = Tokens(db)
        exp = []
        for r in db.execute("SELECT * FROM docs").fetchall():
            exp.append((r["id"], *(note_values(r) if r["kind"] == "note" else event_values(r, tokens_of))))
            for pid, a, b in db.execute("SELECT id, start, end FROM passages WHERE doc_id = ?", (r["id"],)).fetchall():
                exp.append((-pid, "", "", " ".join(tokenize(r["text"][a:b])), ""))
        db.executemany("INSERT INTO temp.fts_expect(rowid, tags, title, body, context) VALUES (?, ?, ?, ?, ?)", exp)
        # per term and column: the rows holding it and its instances (a row deleted with other values than it was
        # indexed with leaves postings behind); per row: its token count per column (postings filed under another
        # row, or under a row no document has). One pass over each index and its row sizes, where comparing every
        # instance (term, row, column, offset) sorted millions of tuples (8 s at 10k rows). Positions are never read
        # by memdir, so an offset alone cannot matter.
        db.execute("CREATE VIRTUAL TABLE temp.v_have USING fts5vocab(main, fts, col)")
        db.execute("CREATE VIRTUAL TABLE temp.v_want USING fts5vocab(temp, fts_expect, col)")
        for label, a, b in (("extra", "v_have", "v_want"), ("missing", "v_want", "v_have")):
            diff = db.execute(f"SELECT term, col, doc, cnt FROM temp.{a} EXCEPT SELECT term, col, doc, cnt FROM temp.{b} "
                              "LIMIT 5").fetchall()
            problems += [f"{label} postings (term, column, rows, instances) {tuple(d)}" for d in diff]
        sizes = db.execute("SELECT id FROM main.fts_docsize EXCEPT SELECT id FROM temp.fts_expect_docsize UNION "
                           "SELECT id FROM (SELECT id, sz FROM main.fts_docsize EXCEPT "
                           "SELECT id, sz FROM temp.fts_expect_docsize) LIMIT 5").fetchall()
        problems += [f"full-text row {r[0]} does not hold its document's words" for r in sizes]
        have = db.execute("SELECT count(*) FROM fts").fetchone()[0]
        if have != len(exp):
            problems.append(f"{have} full-text rows, {len(exp)} expected")
    finally:
        for t in ("v_have", "v_want", "fts_expect"):
            db.execute(f"DROP TABLE IF EXISTS temp.{t}")
    return problems
