"""Reading the derived SQLite index for recall: BM25 candidates (:func:`search`, scored by
:func:`memdir.recall.bm25.score` or from the held postings), the whole rows of the hits shown (:func:`hit_rows`), a
short handle's ref, and the rehearsal counters recall bumps."""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable

from memdir.recall import passages
from memdir.store.sqlite import codec


def resolve_handle(db: sqlite3.Connection, handle: str) -> str | None:
    """The ref whose handle is ``handle`` in this index, or ``None``."""
    row = db.execute("SELECT ref FROM docs WHERE handle = ? LIMIT 2", (handle,)).fetchall()
    return row[0][0] if len(row) == 1 else None


#: what ranking needs of a candidate (the rest of a row is read for the hits alone: :func:`hit_rows`)
_SLIM = ("d.id, d.ref, d.kind, d.note_kind, d.role, d.session, d.ts_epoch, d.pinned, coalesce(r.count, 0) AS rehearsals, "
         "d.text_head AS head, d.text_len AS text_len")  # head: the speaker / subject (rank.subject_of)


def search(db: sqlite3.Connection, tokens: list[str], *, weights: tuple[float, ...], limit: int,
           kinds: tuple[str, ...] | None = None, term_weights: dict[str, float] | None = None,
           mem: Any = None, collection: tuple[int, dict[str, int]] | None = None) -> list[dict[str, Any]]:
    """BM25 candidates for ``tokens`` (any term matching makes a candidate), best first, at most ``limit``: dicts
    of ``id, ref, kind, note_kind, role, session, ts_epoch, pinned, rehearsals, head`` (the text's first 60 chars),
    ``text_len`` plus ``bm25`` (positive; larger is
    better), ``mask`` (bit ``i`` set when ``tokens[i]`` matched) and ``span`` (the matching passage of a long
    event, or ``None`` when it matched in its own row). Read the hits' whole rows with :func:`hit_rows`, which
    gives a long event matched in its own row its first passage (its text is read for the hits alone).

    Scoring is :func:`memdir.recall.bm25.score` (FTS5 term statistics, Lucene idf); ``weights`` are the per-column
    multipliers (tags, title, body, context); ``term_weights`` multiplies single terms' weights. A long event's
    passages score as rows of their own and the event keeps its best. Superseded notes and other ``kinds`` are
    dropped after scoring. ``collection``: ``(rows, {token: rows holding it})`` of all the indexes ranked together,
    for idf (:func:`memdir.recall.bm25.collection_idf`). ``mem``: a :class:`memdir.store.sqlite.postings.MemIndex` of ``db`` that scores the same from memory
    when it can.
    """
    from memdir.recall.bm25 import score

    if not tokens:
        return []
    n = limit * 2 if kinds else limit
    if mem is not None:
        with mem.lock:
            if mem.refresh(background=mem.background):  # the same rows from memory: scores, passages, slim rows (memdir.store.sqlite.postings)
                ranked = mem.score(tokens, weights=weights, limit=n, term_weights=term_weights, collection=collection)
                return _candidates(ranked, limit, kinds, mem.passage, mem.slim_rows) if ranked else []
    ranked = score(db, tokens, weights=weights, limit=n, with_terms=True, term_weights=term_weights,
                   collection=collection)
    if not ranked:
        return []

    def where(pids: list[int]) -> dict[int, tuple[int, int, int]]:
        out: dict[int, tuple[int, int, int]] = {}
        for i in range(0, len(pids), 500):
            chunk = pids[i:i + 500]
            for r in db.execute(f"SELECT id, doc_id, start, end FROM passages WHERE id IN ({','.join('?' * len(chunk))})", chunk):
                out[r[0]] = (r[1], r[2], r[3])
        return out

    def slim(ids: list[int]) -> list[dict[str, Any]]:
        out = []
        cur = db.cursor()
        cur.row_factory = None  # plain tuples zipped with the column names: ~0.2 ms less than sqlite3.Row per 200 rows
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            cur.execute(f"SELECT {_SLIM} FROM docs d LEFT JOIN rehearsal r ON r.ref = d.ref "
                        f"WHERE d.id IN ({','.join('?' * len(chunk))}) AND d.superseded_by IS NULL", chunk)
            cols = [d[0] for d in cur.description]
            out += [dict(zip(cols, r)) for r in cur]
        return out

    return _candidates(ranked, limit, kinds, where, slim)


def _candidates(ranked: list[tuple], limit: int, kinds: tuple[str, ...] | None, where, slim) -> list[dict[str, Any]]:
    """:func:`search`'s rows from scored FTS rows ``(rowid, score, mask)``: ``where(passage ids)`` gives
    ``{id: (doc_id, start, end)}``, ``slim(doc ids)`` the live (not superseded) docs' ranking columns."""
    best: dict[int, tuple[float, int, tuple[int, int] | None]] = {}
    spans = where([-r[0] for r in ranked if r[0] < 0])
    # a passage row counts PASSAGE_WEIGHT of its score (memdir.recall.passages)
    ranked = sorted(ranked, key=lambda x: -x[1] * (passages.PASSAGE_WEIGHT if x[0] < 0 else 1.0))
    for rowid, sc, mask in ranked:  # best first: each doc keeps its best row (its own row = passage 0, or a passage)
        if rowid < 0:
            if -rowid not in spans:
                continue
            doc_id, a, b = spans[-rowid]
            span: tuple[int, int] | None = (a, b)
            sc *= passages.PASSAGE_WEIGHT
        else:
            doc_id, span = rowid, None
        if doc_id not in best:
            best[doc_id] = (sc, mask, span)
    out = []
    for d in slim(list(best)):
        if kinds and d["kind"] not in kinds:
            continue
        d["bm25"], d["mask"], d["span"] = best[d["id"]]
        out.append(d)
    out.sort(key=lambda d: -d["bm25"])
    return out[:limit]


def hit_rows(db: sqlite3.Connection, spans: dict[int, tuple[int, int] | None], *, mem: Any = None,
             terms: list[str] | None = None) -> dict[int, dict[str, Any]]:
    """``{id: whole row of docs}`` for the hits shown (``spans``: ``{id: span from search}``), each with its
    ``span``: the passage that matched, or for a long event matched in its own row its first passage. With held
    postings (``mem``) and the query's ``terms``, each row also has ``fields``: ``{"tags"|"title"|"body": terms
    found there}`` from the postings (:meth:`memdir.store.sqlite.postings.MemIndex.fields`), so the hit's reasons need no
    tokenizing."""
    held = False
    if mem is not None and terms:
        with mem.lock:  # caught up first: a row is the same per (id, ref) from then on
            held = mem.ready and mem.refresh(background=mem.background)
    ids = list(spans)
    out: dict[int, dict[str, Any]] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for r in db.execute(f"SELECT * FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk):
            d = codec.public_row(r)
            span = spans.get(r["id"])
            above = passages.split_above(r["role"]) if r["kind"] == "event" else None
            if span is None and above is not None and len(r["text"]) > above:
                span = passages.split(r["text"], split_above=above)[0]
            d["span"] = span
            out[r["id"]] = d
    if held and out:
        rows_ = list(out.values())
        with mem.lock:
            found = mem.fields([(d["id"], d["ref"], d["span"]) for d in rows_], terms) if mem.ready else []
        for d, f in zip(rows_, found):
            if f is not None:
                d["fields"] = f
    return out


def bump_rehearsal(db: sqlite3.Connection, refs: Iterable[str], when: str) -> None:
    """Add one to the rehearsal counter of each ref (recalled by a person/tool, or injected into a block)."""
    refs = list(dict.fromkeys(refs))
    if not refs:
        return
    db.executemany(
        "INSERT INTO rehearsal(ref, count, last) VALUES (?, 1, ?) ON CONFLICT(ref) DO UPDATE SET count = count + 1, last = excluded.last",
        [(r, when) for r in refs],
    )
