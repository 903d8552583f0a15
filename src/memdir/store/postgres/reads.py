"""PostgreSQL store: the reads (BM25 search, hit rows, handles, sessions) and the statements the engine asks of a
:class:`memdir.store.protocol.Store`."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Any, Iterable, Iterator

from memdir.capture import events as cevents
from memdir.recall import passages
from memdir.recall.bm25 import (
    K1,
    LARGE_STORE,
    MASK_TERMS,
    PER_TERM_CAP,
    B,
    collection_idf,
    select_terms,
)
from memdir.store.postgres.sql import CAP_WINDOW, ME, REHEARSAL, lexeme


class PgReads:
    """PostgreSQL store: the reads (BM25 search, hit rows, handles, sessions) and the statements the engine asks of a Mixed into
    :class:`memdir.store.postgres.store.PgStore`, which holds the connection (``self._x``) and the transaction."""

    # ---- reads -------------------------------------------------------------------------------------------
    def resolve_handle(self, handle: str) -> str | None:
        rows = self._x("SELECT ref FROM docs WHERE project = %s AND handle = %s LIMIT 2", (self.project, handle)).fetchall()
        return rows[0]["ref"] if len(rows) == 1 else None

    def meta_int(self, key: str) -> int:
        row = self._x("SELECT value FROM meta WHERE project = %s AND key = %s", (self.project, key)).fetchone()
        try:
            return int(row["value"]) if row else 0
        except (TypeError, ValueError):
            return 0

    def get_doc(self, ref: str) -> dict[str, Any] | None:
        # another member's shared event may carry the same key: this person's own row first (m007)
        row = self._x(f"SELECT * FROM docs WHERE project = %s AND ref = %s ORDER BY owner = {ME} DESC, owner DESC, id LIMIT 1",
                      (self.project, ref)).fetchone()
        if row is None:
            return None
        row.pop("project", None)
        return row

    def event_refs_from(self, prefix: str) -> list[str]:
        """Refs of the events whose key starts with ``prefix`` (at most 20)."""
        rows = self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'event' AND ref >= %s AND ref < %s LIMIT 20",
                       (self.project, prefix, prefix + "\U0010ffff")).fetchall()
        return [r["ref"] for r in rows]

    def live_note_with_sha(self, sha: str) -> str | None:
        row = self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'note' AND content_sha256 = %s AND superseded_by "
                      "IS NULL ORDER BY id LIMIT 1", (self.project, sha)).fetchone()
        return row["ref"] if row else None

    def tombstone_rows(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._x(f"SELECT ref, content_sha256, kind, deleted_at FROM tombstones WHERE project = %s "
                                         f"AND owner IN ('', {ME}) ORDER BY ref", (self.project,)).fetchall()]

    def tombstoned(self) -> tuple[set[str], set[str]]:
        rows = self._x(f"SELECT ref, content_sha256 FROM tombstones WHERE project = %s AND owner IN ('', {ME})",
                       (self.project,)).fetchall()
        return {r["ref"] for r in rows}, {r["content_sha256"] for r in rows if r["content_sha256"]}

    def tombstone_test(self) -> Any:
        refs, shas = self.tombstoned()  # one round trip for a whole batch of an import
        return lambda ref, sha: ref in refs or sha in shas

    def count(self, kind: str) -> int:
        return int(self._x("SELECT count(*) AS n FROM docs WHERE project = %s AND kind = %s", (self.project, kind)).fetchone()["n"])

    def stats(self) -> tuple[int, float]:
        """``(N, avgdl)``: full-text rows of the project and their mean length, from ``fts_stats`` (m004)."""
        st = self._x("SELECT coalesce(sum(n), 0) AS n, coalesce(sum(total), 0) AS total FROM fts_stats WHERE project = %s",
                     (self.project,)).fetchone()
        n = int(st["n"])
        return n, (float(st["total"]) / n if n and st["total"] else 1.0)

    def _kept_df(self, terms: Iterable[str]) -> dict[str, int]:
        """Full-text rows holding each term (terms found nowhere are left out), from ``term_df`` (m004)."""
        return {r["term"]: int(r["df"]) for r in self._x(
            "SELECT term, sum(df) AS df FROM term_df WHERE project = %s AND term = ANY(%s) GROUP BY term HAVING sum(df) > 0",
            (self.project, list(terms)))}

    def score(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
              term_weights: dict[str, float] | None = None,
              collection: tuple[int, dict[str, int]] | None = None) -> list[tuple[int, float, int]]:
        """``[(fts row id, score, mask)]`` best first, at most ``limit`` (the formula in the module docstring; bit ``i``
        of ``mask`` set when ``tokens[i]`` matched). The SQLite path's large-store rules apply (:mod:`memdir.recall.bm25`):
        from :data:`memdir.recall.bm25.LARGE_STORE` rows on, common terms are skipped, rarer terms taken first within
        ``POSTINGS_BUDGET``, and a term in more than ``PER_TERM_CAP`` rows adds its newest ``PER_TERM_CAP`` only.
        One statement: the GIN index finds each term's rows, ``fts.tf`` gives the per-field counts, PostgreSQL sums
        and cuts."""
        N, avgdl = self.stats()
        if not N:
            return []
        qtf = Counter(tokens)  # a repeated query term weighs sqrt(count), as memdir.recall.bm25.score
        df = self._kept_df(qtf)
        terms = select_terms(df, N, term_weights=term_weights)
        if not terms:
            return []
        bit: dict[str, int] = {}
        for i, t in enumerate(tokens[:MASK_TERMS]):  # a repeated term keeps the bit of its first place
            bit.setdefault(t, 1 << i)
        w = [float(x) for x in (tuple(weights) + (0.0,) * 4)[:4]]
        capped = [t for t in terms if N >= LARGE_STORE and df[t] > PER_TERM_CAP]
        span = None
        if capped:  # the newest PER_TERM_CAP rows of a frequent term: looked for among the project's newest rows
            span = self._x("SELECT min(id) AS lo, max(id) AS hi FROM fts WHERE project = %s", (self.project,)).fetchone()
        parts: list[str] = []
        args: list[Any] = []
        for t in terms:
            sel = ("SELECT id, dl, %s::float8 AS idf, %s::bigint AS bit, (tf ->> %s)::bigint AS c FROM fts "
                   "WHERE project = %s AND tsv @@ %s::tsquery")
            tw = term_weights.get(t, 1.0) if term_weights else 1.0  # as memdir.recall.bm25.score
            args += [tw * math.sqrt(qtf[t]) * collection_idf(N, df[t], t, collection), bit.get(t, 0), t, self.project,
                     lexeme(t)]
            if t in capped:
                # rows are numbered in insertion order: the newest ones of a term spread evenly are within the last
                # CAP_WINDOW · PER_TERM_CAP · N / n_t rows, found through the (project, id) index and the GIN index
                # together, without visiting the older postings (where FTS5 stops early, PostgreSQL would read all)
                lo = 0
                want = CAP_WINDOW * PER_TERM_CAP * N / df[t]
                if span and span["hi"] is not None and want < N:
                    lo = int(span["hi"] - (span["hi"] - span["lo"] + 1) * want / N)
                sel += " AND id > %s ORDER BY id DESC LIMIT %s"
                args += [lo, PER_TERM_CAP]
            parts.append(f"({sel})")
        rows = self._x(f"""
            WITH p AS MATERIALIZED ({' UNION ALL '.join(parts)}),
            s AS (SELECT id, dl, idf, bit, %s * ((c >> 36) & 4095) + %s * ((c >> 24) & 4095) + %s * (c & 4095)
                         + %s * ((c >> 12) & 4095) AS f FROM p)
            SELECT id, sum(idf * f * {K1 + 1!r} / (f + {K1!r} * (1 - {B!r} + {B!r} * dl / %s::float8))) AS score,
                   bit_or(bit) AS mask
            FROM s WHERE f > 0 GROUP BY id ORDER BY score DESC, id LIMIT %s""", [*args, *w, avgdl, int(limit)]).fetchall()
        return [(r["id"], float(r["score"]), int(r["mask"])) for r in rows]

    def search(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
               kinds: tuple[str, ...] | None = None, term_weights: dict[str, float] | None = None,
               collection: tuple[int, dict[str, int]] | None = None) -> list[dict[str, Any]]:
        """As :func:`memdir.store.sqlite.search.search`: each doc keeps its best full-text row; superseded notes and other
        ``kinds`` are dropped after scoring; rows are dicts of ``docs`` + ``bm25``, ``mask``, ``rehearsals``, ``span``."""
        if not tokens:
            return []
        ranked = self.score(tokens, weights=weights, limit=limit * 2 if kinds else limit, term_weights=term_weights,
                            collection=collection)
        if not ranked:
            return []
        where = {r["id"]: r for r in self._x("SELECT id, doc_id, seq, span_start, span_end FROM fts WHERE id = ANY(%s)",
                                             ([i for i, _, _ in ranked],))}
        scores: dict[int, float] = {}
        masks: dict[int, int] = {}
        spans: dict[int, tuple[int, int] | None] = {}
        weighted = [(fid, sc * (passages.PASSAGE_WEIGHT if where.get(fid) and where[fid]["seq"] else 1.0), m)
                    for fid, sc, m in ranked]
        for fid, sc, m in sorted(weighted, key=lambda x: -x[1]):  # a passage counts PASSAGE_WEIGHT of a whole doc's row
            r = where.get(fid)
            if r is None or r["doc_id"] in scores:
                continue
            scores[r["doc_id"]] = sc
            masks[r["doc_id"]] = m
            spans[r["doc_id"]] = (r["span_start"], r["span_end"]) if r["seq"] else None
        rows = self._x(f"SELECT d.*, coalesce(r.count, 0) AS rehearsals FROM docs d {REHEARSAL} "
                       "WHERE d.project = %s AND d.id = ANY(%s) "
                       "AND d.superseded_by IS NULL", (self.project, list(scores))).fetchall()
        out = []
        for d in rows:
            if kinds and d["kind"] not in kinds:
                continue
            d.pop("project", None)
            d["bm25"], d["mask"] = scores[d["id"]], masks[d["id"]]
            span = spans.get(d["id"])
            above = passages.split_above(d["role"]) if d["kind"] == "event" else None
            if span is None and above is not None and len(d["text"]) > above:
                span = passages.split(d["text"], split_above=above)[0]
            d["span"] = span
            out.append(d)
        out.sort(key=lambda d: (-d["bm25"], d["id"]))  # equal scores in id order, whatever order the rows came back in
        return out[:limit]

    # ---- the facade's reads and writes (memdir.store.protocol.Store; the SQL core.py / root.py / tiers.py need) ------
    def hold_postings(self, max_rows: int, *, background: bool = False) -> None:
        """Postings in memory are a SQLite-store path (:mod:`memdir.store.sqlite.postings`); the server scores here."""
        return None

    def candidates(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
                   kinds: tuple[str, ...] | None = None, term_weights: dict[str, float] | None = None,
                   collection: tuple[int, dict[str, int]] | None = None) -> list[dict[str, Any]]:
        """Ranking rows (:meth:`search`'s whole rows plus ``head``, the text's first 60 characters; no ``mask``: the
        facade then looks for every query term)."""
        rows = self.search(tokens, weights=weights, limit=limit, kinds=kinds, term_weights=term_weights,
                           collection=collection)
        for r in rows:
            r["head"] = r["text"][:60]
        rows.sort(key=lambda r: (-r["bm25"], r["id"]))  # equal scores in id order, as the SQLite index returns them
        return rows

    def hit_rows(self, spans: dict[int, tuple[int, int] | None], *, terms: list[str] | None = None) -> dict[int, dict[str, Any]]:
        out: dict[int, dict[str, Any]] = {}
        if not spans:
            return out
        for d in self._x("SELECT * FROM docs WHERE project = %s AND id = ANY(%s)", (self.project, list(spans))):
            d.pop("project", None)
            span = spans.get(d["id"])
            above = passages.split_above(d["role"]) if d["kind"] == "event" else None
            if span is None and above is not None and len(d["text"]) > above:
                span = passages.split(d["text"], split_above=above)[0]
            d["span"] = span
            out[d["id"]] = d
        return out

    def doc_freqs(self, tokens: list[str]) -> tuple[int, dict[str, int]]:
        """``(N, {term: rows holding it})`` from the kept counters (m004)."""
        return self.stats()[0], self._kept_df(dict.fromkeys(tokens))

    def has_ref(self, ref: str, kind: str | None = None) -> bool:
        if kind is None:
            return self._x("SELECT 1 FROM docs WHERE project = %s AND ref = %s", (self.project, ref)).fetchone() is not None
        return self._x("SELECT 1 FROM docs WHERE project = %s AND ref = %s AND kind = %s",
                       (self.project, ref, kind)).fetchone() is not None

    def live_notes(self, category: str | None = None) -> list[dict[str, Any]]:
        sql = ("SELECT ref, category, note_kind, summary, text, pinned, ts_epoch FROM docs WHERE project = %s "
               "AND kind = 'note' AND superseded_by IS NULL")
        params: list[Any] = [self.project]
        if category is not None:
            sql += " AND category = %s"
            params.append(category)
        return self._x(sql + " ORDER BY id", params).fetchall()

    def notes_superseded_by(self, ref: str) -> list[str]:
        return [r["ref"] for r in self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'note' AND superseded_by = %s",
                                          (self.project, ref))]

    def notes_superseding(self, ref: str) -> list[str]:
        return [r["ref"] for r in self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'note' AND supersedes = %s",
                                          (self.project, ref))]

    def note_states(self) -> dict[str, tuple[int | None, int | None]]:
        return {r["ref"]: (r["mtime_ns"], r["size"]) for r in
                self._x("SELECT ref, mtime_ns, size FROM docs WHERE project = %s AND kind = 'note'", (self.project,))}

    def note_entries(self) -> list[dict[str, Any]]:
        return self._x("SELECT ref, category, note_kind, summary, load_when, pinned, superseded_by, ts_epoch FROM docs "
                       "WHERE project = %s AND kind = 'note'", (self.project,)).fetchall()

    def outline(self) -> list[dict[str, Any]]:
        return self._x("SELECT category, count(*) AS n, string_agg(summary, '; ' ORDER BY ts_epoch DESC) AS s FROM docs "
                       "WHERE project = %s AND kind = 'note' AND superseded_by IS NULL GROUP BY category "
                       "ORDER BY category COLLATE \"C\"", (self.project,)).fetchall()

    def recent(self, *, doc_kinds: tuple[str, ...], sub_kinds: tuple[str, ...], category: str | None,
               limit: int) -> list[dict[str, Any]]:
        sql = "SELECT * FROM docs WHERE project = %s AND superseded_by IS NULL"
        params: list[Any] = [self.project]
        if doc_kinds:
            sql += " AND kind = ANY(%s)"
            params.append(list(doc_kinds))
        if sub_kinds:
            sql += " AND ((kind = 'note' AND note_kind = ANY(%s)) OR (kind = 'event' AND role = ANY(%s)))"
            params += [list(sub_kinds), list(sub_kinds)]
        if category:
            sql += " AND kind = 'note' AND category = %s"
            params.append(category)
        rows = self._x(sql + " ORDER BY ts_epoch DESC, id DESC LIMIT %s", [*params, limit]).fetchall()
        for r in rows:
            r.pop("project", None)
        return rows

    def count_events(self, since: float, until: float | None, prefixes: list[str]) -> int:
        sql = "SELECT count(*) AS n FROM docs WHERE project = %s AND kind = 'event' AND ts_epoch >= %s"
        params: list[Any] = [self.project, since]
        if until is not None:
            sql += " AND ts_epoch < %s"
            params.append(until)
        if prefixes:
            sql += " AND (" + " OR ".join("left(ref, %s) = %s" for _ in prefixes) + ")"
            for p in prefixes:
                params += [len(p), p]
        return int(self._x(sql, params).fetchone()["n"])

    def events_after(self, ref: str, session: str, limit: int, *, until_role: str | None = None) -> list[dict[str, Any]]:
        me = self._x(f"SELECT id, ts_epoch FROM docs WHERE project = %s AND ref = %s ORDER BY owner = {ME} DESC LIMIT 1",
                     (self.project, ref)).fetchone()
        if me is None:
            return []
        rows = self._x("SELECT ref, role, text, ts, handle FROM docs WHERE project = %s AND kind = 'event' AND session = %s "
                       "AND (ts_epoch > %s OR (ts_epoch = %s AND id > %s)) ORDER BY ts_epoch, id LIMIT %s",
                       (self.project, session, me["ts_epoch"], me["ts_epoch"], me["id"], limit)).fetchall()
        if until_role is not None:
            rows = list(itertools.takewhile(lambda r: r["role"] != until_role, rows))
        return rows

    def events_before(self, ref: str, session: str, limit: int) -> list[dict[str, Any]]:
        me = self._x(f"SELECT id, ts_epoch FROM docs WHERE project = %s AND ref = %s ORDER BY owner = {ME} DESC LIMIT 1",
                     (self.project, ref)).fetchone()
        if me is None:
            return []
        return self._x("SELECT ref, role, text, ts, handle FROM docs WHERE project = %s AND kind = 'event' AND session = %s "
                       "AND (ts_epoch < %s OR (ts_epoch = %s AND id < %s)) ORDER BY ts_epoch DESC, id DESC LIMIT %s",
                       (self.project, session, me["ts_epoch"], me["ts_epoch"], me["id"], limit)).fetchall()

    def events(self) -> Iterator[dict[str, Any]]:
        yield from self._x("SELECT ref, role, text, session, ts, meta FROM docs WHERE project = %s AND kind = 'event' "
                           "ORDER BY ts_epoch, id", (self.project,)).fetchall()

    def counts(self) -> dict[str, Any]:
        p = (self.project,)
        one = self._x("SELECT count(*) FILTER (WHERE kind = 'note') AS notes, count(*) FILTER (WHERE kind = 'event') AS events, "
                      "count(*) FILTER (WHERE kind = 'note' AND superseded_by IS NOT NULL) AS superseded FROM docs "
                      "WHERE project = %s", p).fetchone()
        return {**one, "tombstones": self._x("SELECT count(*) AS n FROM tombstones WHERE project = %s", p).fetchone()["n"],
                "categories": {r["category"]: r["n"] for r in self._x(
                    "SELECT category, count(*) AS n FROM docs WHERE project = %s AND kind = 'note' GROUP BY category", p)},
                "roles": {r["role"]: r["n"] for r in self._x(
                    "SELECT role, count(*) AS n FROM docs WHERE project = %s AND kind = 'event' GROUP BY role", p)}}

    def holdings(self, newest: int = 5) -> dict[str, Any]:
        """What this login may read of the project, by person (row-level security decides; nothing here widens it):
        ``{"me": person or None, "notes": n, "people": [{"person", "events", "sessions", "first", "last",
        "newest": [{"ref", "role", "session", "ts", "text"}]}]}``, the most recently active person first; ``text``
        is at most 200 characters, redacted before the cut (:func:`memdir.capture.events.head`: a row an older memdir
        sent may hold a key); ``person`` ``""`` holds rows written without a token."""
        p = (self.project,)
        me = self._x("SELECT memdir_person() AS me").fetchone()["me"]
        notes = self._x("SELECT count(*) AS n FROM docs WHERE project = %s AND kind = 'note' AND superseded_by IS NULL",
                        p).fetchone()["n"]
        people = []
        for r in self._x("SELECT owner, count(*) AS n, count(DISTINCT session) AS sessions, min(ts) AS first, "
                         "max(ts) AS last FROM docs WHERE project = %s AND kind = 'event' GROUP BY owner "
                         "ORDER BY max(ts_epoch) DESC", p).fetchall():
            rows = self._x("SELECT ref, role, session, ts, left(text, 800) AS text FROM docs WHERE project = %s "
                           "AND kind = 'event' AND owner = %s ORDER BY ts_epoch DESC, id DESC LIMIT %s",
                           (self.project, r["owner"], int(newest))).fetchall()
            people.append({"person": r["owner"], "events": r["n"], "sessions": r["sessions"], "first": r["first"],
                           "last": r["last"], "newest": [{**x, "text": cevents.head(x["text"], 200)} for x in rows]})
        return {"me": me, "notes": notes, "people": people}

    def note_refs(self) -> set[str]:
        return {r["ref"] for r in self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'note'", (self.project,))}

    def set_meta(self, key: str, value: str) -> None:
        self._x("INSERT INTO meta(project, key, value) VALUES (%s, %s, %s) ON CONFLICT (project, key) "
                "DO UPDATE SET value = excluded.value", (self.project, key, str(value)))

    def bump_meta(self, key: str) -> None:
        self._x("INSERT INTO meta(project, key, value) VALUES (%s, %s, '1') ON CONFLICT (project, key) "
                "DO UPDATE SET value = (meta.value::integer + 1)::text", (self.project, key))

    def delete_notes(self) -> None:
        for r in self._x(f"DELETE FROM fts WHERE project = %s AND doc_id IN (SELECT id FROM docs WHERE project = %s AND "
                         f"kind = 'note' AND owner IN ('', {ME})) RETURNING dl, tsvector_to_array(tsv) AS toks, owner, note",
                         (self.project, self.project)).fetchall():
            self._count(-1, r["dl"], r["toks"], r["owner"], r["note"])
        self._x(f"DELETE FROM docs WHERE project = %s AND kind = 'note' AND owner IN ('', {ME})", (self.project,))
        self._done()

    def rebuild_fts(self) -> int:
        """PostgreSQL keeps each row's own terms (``tsv`` and per-field counts), so nothing is recomputed from
        the text; returns the documents of this project."""
        return int(self._x("SELECT count(*) AS n FROM docs WHERE project = %s", (self.project,)).fetchone()["n"])

    def delete_vectors(self, ref: str) -> None:
        self._x(f"DELETE FROM vectors WHERE project = %s AND ref = %s AND owner IN ('', {ME})", (self.project, ref))

    def start_heat(self, refs: list[str], now: float) -> int:
        from memdir.timeutil import iso, parse_ts

        if not refs:
            return 0
        return self._x("INSERT INTO tiers(project, ref, heat0, reinforced_at, seen_count, tier, importance, changed_at) "
                       "SELECT %s, r, 1.0, %s, 0, 'hot', 1.0, %s FROM unnest(%s::text[]) AS r ON CONFLICT DO NOTHING",
                       (self.project, now, iso(parse_ts(now)), list(dict.fromkeys(refs)))).rowcount

    def tier_rows(self) -> list[dict[str, Any]]:
        return self._x(
            "SELECT d.ref, d.kind, d.pinned, d.ts_epoch, coalesce(r.count, 0) AS rcount, r.last AS rlast, "
            "t.ref AS tref, t.heat0, t.reinforced_at, t.seen_count, t.tier, t.importance "
            f"FROM docs d {REHEARSAL} "
            f"LEFT JOIN tiers t ON t.project = d.project AND t.owner = d.owner AND t.ref = d.ref WHERE d.project = %s "
            f"AND d.owner = {ME} ORDER BY d.id",
            (self.project,)).fetchall()

    def write_tiers(self, inserts: list[tuple], updates: list[tuple]) -> int:
        with self.conn.cursor() as cur:
            if inserts:
                cur.executemany("INSERT INTO tiers(project, ref, heat0, reinforced_at, seen_count, tier, importance, changed_at) "
                                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (project, owner, ref) DO UPDATE SET "
                                "heat0 = excluded.heat0, reinforced_at = excluded.reinforced_at, seen_count = excluded.seen_count, "
                                "tier = excluded.tier, importance = excluded.importance, changed_at = excluded.changed_at",
                                [(self.project, *row) for row in inserts])
            if updates:
                cur.executemany("UPDATE tiers SET heat0 = %s, reinforced_at = %s, seen_count = %s, tier = %s, importance = %s, "
                                f"changed_at = CASE WHEN tier = %s THEN changed_at ELSE %s END WHERE project = %s AND ref = %s "
                                f"AND owner = {ME}",
                                [(h0, at, seen, tier, imp, tier, stamp, self.project, ref)
                                 for h0, at, seen, tier, imp, stamp, ref in updates])
        return self._x("DELETE FROM tiers t WHERE t.project = %s AND NOT EXISTS (SELECT 1 FROM docs d WHERE "
                       "d.project = t.project AND d.owner = t.owner AND d.ref = t.ref)", (self.project,)).rowcount

    def prune_candidates(self, max_importance: float, cutoff: float, now: float) -> list[dict[str, Any]]:
        return self._x(
            "SELECT d.ref, d.kind, d.ts, left(d.text, 400) AS head, "
            "octet_length(d.text) + coalesce(octet_length(v.vector), 0) AS bytes "
            "FROM docs d JOIN tiers t ON t.project = d.project AND t.owner = d.owner AND t.ref = d.ref "
            "LEFT JOIN vectors v ON v.project = d.project AND v.owner = d.owner AND v.ref = d.ref "
            f"WHERE d.project = %s AND d.owner = {ME} AND t.tier IN ('cold', 'archive') AND d.pinned = 0 AND t.importance < %s "
            "AND CASE WHEN d.ts_epoch > %s THEN t.reinforced_at ELSE greatest(d.ts_epoch, t.reinforced_at) END < %s "
            "ORDER BY d.ts_epoch DESC", (self.project, max_importance, now, cutoff)).fetchall()

    def drop_tiers(self, ref: str) -> None:
        self._x(f"DELETE FROM tiers WHERE project = %s AND ref = %s AND owner IN ('', {ME})", (self.project, ref))
