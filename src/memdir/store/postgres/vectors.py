"""PostgreSQL store: vectors (exact scoring in the application, pgvector HNSW above a size) and tiers."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Iterator

from memdir.store.postgres.pgvector import (
    HNSW_EF_FACTOR,
    create_hnsw,
    hnsw_dims,
    pgvector_column,
    vec_literal,
)
from memdir.store.postgres.sql import ME, REHEARSAL


class PgVectors:
    """PostgreSQL store: vectors (exact scoring in the application, pgvector HNSW above a size) and tiers. Mixed into
    :class:`memdir.store.postgres.store.PgStore`, which holds the connection (``self._x``) and the transaction."""

    # ---- vectors (memdir.engine.hybrid on PostgreSQL: exact scoring in the application; see doctor for pgvector) -----
    _PENDING = ("(v.ref IS NULL OR v.status <> 'ok' OR v.model IS DISTINCT FROM %(model)s "
                "OR v.content_sha256 IS DISTINCT FROM d.content_sha256 OR v.dim IS DISTINCT FROM coalesce("
                "(SELECT m.value::integer FROM meta m WHERE m.project = d.project AND m.key = 'embed_dim:' || %(model)s), v.dim)) "
                "AND d.superseded_by IS NULL AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.project = d.project "
                "AND t.ref = d.ref)")
    # a connection embeds its own person's memories (m007: the vector row is theirs, keyed like the doc)
    _FROM = (f"FROM docs d LEFT JOIN vectors v ON v.project = d.project AND v.owner = d.owner AND v.ref = d.ref "
             f"WHERE d.project = %(p)s AND d.owner = {ME} AND ")

    def vector_dim(self, model: str | None) -> int | None:
        row = self._x("SELECT value FROM meta WHERE project = %s AND key = %s", (self.project, f"embed_dim:{model}")).fetchone()
        try:
            return int(row["value"]) if row else None
        except (TypeError, ValueError):
            return None

    def _watermark_key(self, model: str | None) -> str:
        """The ``meta`` key of this connection's person's embedding watermark: the pending check covers the person's
        own rows (:attr:`_FROM`), so each person keeps their own (one per project let another member's complete
        backfill hide this person's older pending rows from the recall path's check)."""
        return f"embed_watermark:{model}" + (f"@{self.me}" if self.me else "")

    def vector_note_dim(self, model: str | None, dim: int) -> bool:
        if self.vector_dim(model) == dim:
            return False
        base = f"embed_watermark:{model}"
        with self.conn.transaction():
            self.set_meta(f"embed_dim:{model}", str(int(dim)))  # every person's watermark of the model goes
            self._x("DELETE FROM meta WHERE project = %s AND (key = %s OR left(key, %s) = %s)",
                    (self.project, base, len(base) + 1, base + "@"))
        return True

    def vector_pending(self, model: str | None, limit: int) -> list[Any]:
        sql = (f"SELECT d.ref, d.content_sha256, d.kind, d.summary, d.text {self._FROM}{self._PENDING} "
               "ORDER BY d.ts_epoch DESC, d.id DESC")
        params: dict[str, Any] = {"p": self.project, "model": model}
        if limit is not None and limit >= 0:
            sql += " LIMIT %(limit)s"
            params["limit"] = limit
        return self.conn.execute(sql, params).fetchall()

    def vector_pending_count(self, model: str | None) -> int:
        return int(self.conn.execute(f"SELECT count(*) AS n {self._FROM}{self._PENDING}", {"p": self.project, "model": model}).fetchone()["n"])

    def vector_pending_exists(self, model: str | None) -> bool:
        wm = self.meta_int(self._watermark_key(model))
        return self.conn.execute(f"SELECT 1 {self._FROM}d.id > %(wm)s AND {self._PENDING} LIMIT 1",
                       {"p": self.project, "model": model, "wm": wm}).fetchone() is not None

    def vector_watermark(self, model: str | None) -> None:
        top = self._x(f"SELECT coalesce(max(id), 0) AS top FROM docs WHERE project = %s AND owner = {ME}",
                      (self.project,)).fetchone()["top"]
        self.set_meta(self._watermark_key(model), str(top))

    @property
    def pgvector(self) -> bool:
        """Whether vectors are also held in pgvector (``vectors.embedding``) and searched by the server."""
        if self._pgvector is None:
            self._pgvector = pgvector_column(self.conn)
        return self._pgvector

    def _ensure_hnsw(self, dim: int) -> None:
        if self._hnsw is None:
            self._hnsw = hnsw_dims(self.conn)
        if dim in self._hnsw:
            return
        import psycopg

        try:
            with self.conn.transaction():
                create_hnsw(self.conn, dim)
            self._hnsw.add(dim)
        except psycopg.Error:  # e.g. a client login that does not own the table: exact search in the server
            self._hnsw = hnsw_dims(self.conn)

    def vector_put(self, items: list[tuple[str, str]], mat: Any, model: str, when: str) -> int:
        import numpy as np

        from memdir.embed import EmbedError

        mat = np.ascontiguousarray(mat, dtype=np.float32)
        if mat.ndim != 2 or (len(items) and mat.shape[0] != len(items)):
            raise EmbedError(f"provider returned an array of shape {mat.shape} for {len(items)} texts")
        if not items:
            return 0
        self.vector_note_dim(model, int(mat.shape[1]))
        dead = self.tombstoned()[0]
        pgv = self.pgvector  # the vector also in pgvector's column (searched by the server)
        rows = [(self.project, ref, sha, model, int(vec.shape[0]), vec.tobytes(), when) + ((vec_literal(vec),) if pgv else ())
                for (ref, sha), vec in zip(items, mat) if ref not in dead]
        emb_col, emb_val, emb_set = "", "", ""
        if pgv:
            self._ensure_hnsw(int(mat.shape[1]))
            emb_col, emb_val, emb_set = ", embedding", ", %s::vector", ", embedding = excluded.embedding"
        with self.conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO vectors(project, ref, content_sha256, model, dim, status, vector, error, updated{emb_col}) "
                f"VALUES (%s, %s, %s, %s, %s, 'ok', %s, NULL, %s{emb_val}) ON CONFLICT (project, owner, ref) DO UPDATE SET "
                "content_sha256 = excluded.content_sha256, model = excluded.model, dim = excluded.dim, status = 'ok', "
                f"vector = excluded.vector, error = NULL, updated = excluded.updated{emb_set}, "
                "seq = nextval(pg_get_serial_sequence('vectors', 'seq'))", rows)
        return len(rows)

    def vector_failed(self, items: list[tuple[str, str]], model: str, error: str, when: str) -> None:
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO vectors(project, ref, content_sha256, model, dim, status, vector, error, updated) "
                "VALUES (%s, %s, %s, %s, NULL, 'failed', NULL, %s, %s) ON CONFLICT (project, owner, ref) DO UPDATE SET "
                "content_sha256 = excluded.content_sha256, model = excluded.model, dim = NULL, status = 'failed', "
                "vector = NULL, error = excluded.error, updated = excluded.updated, "
                + ("embedding = NULL, " if self.pgvector else "") +
                "seq = nextval(pg_get_serial_sequence('vectors', 'seq'))",
                [(self.project, r, sha, model, error[:300], when) for r, sha in items])

    def vector_stamp(self, model: str) -> tuple:
        p = (self.project,)
        v = self._x("SELECT count(*) AS n, max(seq) AS top FROM vectors WHERE project = %s", p).fetchone()
        d = self._x("SELECT max(id) AS top FROM docs WHERE project = %s", p).fetchone()["top"]
        g = self._x("SELECT value FROM meta WHERE project = %s AND key = 'tiers_gen'", p).fetchone()
        return (model, v["n"], v["top"], d, g["value"] if g else None, self.vector_dim(model))

    def _tuples(self, sql: str, params: Any):
        from psycopg.rows import tuple_row

        cur = self.conn.cursor(row_factory=tuple_row)
        return cur.execute(sql, params)

    def vector_rows(self, model: str, dim: int | None) -> list[Any]:
        return self._tuples(
            "SELECT v.ref, v.content_sha256, v.vector FROM vectors v LEFT JOIN tiers t ON t.project = v.project "
            "AND t.owner = v.owner AND t.ref = v.ref WHERE v.project = %s AND v.status = 'ok' AND v.model = %s "
            "AND coalesce(t.tier, 'hot') IN ('hot', 'warm') AND (%s::integer IS NULL OR v.dim = %s::integer) ORDER BY v.seq",
            (self.project, model, dim, dim)).fetchall()

    def vector_cold(self, model: str, dim: int) -> Any:
        return self._tuples(
            "SELECT v.ref, v.content_sha256, v.vector FROM vectors v JOIN tiers t ON t.project = v.project "
            "AND t.owner = v.owner AND t.ref = v.ref "
            "WHERE v.project = %s AND t.tier = 'cold' AND v.status = 'ok' AND v.model = %s AND v.dim = %s ORDER BY v.seq",
            (self.project, model, dim))

    def vector_search(self, model: str, q: Any, k: int, *, hnsw_above: int) -> list[tuple[str, str, float]] | None:
        """The ``k`` hot/warm/unswept vectors of ``model`` most similar to the unit query ``q``, searched by the
        server: ``[(ref, content_sha256, cosine)]``, best first (ties by write order, as the in-memory matrix). Exact
        (every vector scored by pgvector) while the project holds at most ``hnsw_above`` of them, so small stores get
        exactly the in-memory scan's top ``k``; above, the HNSW index (``hnsw.ef_search`` = 4k, at least 40, at most
        1,000) gives candidates with their exact similarity, and when filters (other projects, models, tiers) leave
        fewer than ``k`` the exact search runs instead. ``None`` without pgvector: the caller scores in memory."""
        if not self.pgvector or k <= 0:
            return None
        dim = int(q.shape[0])
        params = {"p": self.project, "m": model, "q": vec_literal(q), "k": int(k)}
        # dim as a literal: the partial index's predicate (dim = <n>) must be provable from the statement; hot, warm
        # and unswept rows as an anti-join, which the planner estimates well enough to keep the index's order
        base = (f"FROM vectors v WHERE v.project = %(p)s AND v.status = 'ok' AND v.model = %(m)s AND v.dim = {dim} "
                "AND NOT EXISTS (SELECT 1 FROM tiers t WHERE t.project = v.project AND t.owner = v.owner AND t.ref = v.ref "
                "AND t.tier IN ('cold', 'archive'))")
        n = self.conn.execute(f"SELECT count(*) AS n FROM (SELECT 1 FROM vectors WHERE project = %(p)s AND status = 'ok' "
                              f"AND model = %(m)s AND dim = {dim} LIMIT %(cap)s) x",
                              {**params, "cap": max(int(hnsw_above), 0) + 1}).fetchone()["n"]
        if self._hnsw is None:
            self._hnsw = hnsw_dims(self.conn)
        if n > hnsw_above and dim in self._hnsw:
            # the index's ef_search nearest (all the index returns), then this project's hot/warm ones of the model:
            # a statement with nothing but the index's own predicate, so the planner always walks the HNSW graph
            # (given the filters it may otherwise prefer a sort of the project's rows, i.e. an exact search)
            ef = min(1000, max(40, HNSW_EF_FACTOR * int(k)))
            e = f"(v.embedding::vector({dim})) <#> %(q)s::vector({dim})"  # the partial index's expression
            with self.conn.transaction():
                # seqscan off: on a table without statistics yet (or a small one) the planner may prefer to sort
                # every row — exact, but not what was asked above the threshold
                self.conn.execute(f"SET LOCAL hnsw.ef_search = {ef}; SET LOCAL enable_seqscan = off")
                rows = self._tuples(
                    f"WITH c AS MATERIALIZED (SELECT v.project, v.owner, v.ref, v.content_sha256, v.status, v.model, {e} AS dist "
                    f"FROM vectors v WHERE v.dim = {dim} ORDER BY {e} LIMIT {ef}) "
                    "SELECT v.ref, v.content_sha256, -v.dist AS sim FROM c v WHERE v.project = %(p)s AND v.status = 'ok' "
                    "AND v.model = %(m)s AND NOT EXISTS (SELECT 1 FROM tiers t WHERE t.project = v.project "
                    "AND t.owner = v.owner AND t.ref = v.ref AND t.tier IN ('cold', 'archive')) ORDER BY v.dist LIMIT %(k)s",
                    params).fetchall()
            if len(rows) >= min(k, n):
                return [(r[0], r[1], float(r[2])) for r in rows]
        e = "v.embedding <#> %(q)s::vector"  # no cast: never the index, every vector scored
        rows = self._tuples(f"SELECT v.ref, v.content_sha256, -({e}) AS sim {base} ORDER BY {e}, v.seq LIMIT %(k)s",
                            params).fetchall()
        return [(r[0], r[1], float(r[2])) for r in rows]

    def vector_docs(self, refs: list[str]) -> dict[str, Any]:
        if not refs:
            return {}
        out = {}
        for r in self._x(f"SELECT d.*, coalesce(r.count, 0) AS rehearsals FROM docs d {REHEARSAL} "
                         "WHERE d.project = %s AND d.ref = ANY(%s) "
                         "AND d.superseded_by IS NULL AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE "
                         f"t.project = d.project AND t.ref = d.ref) ORDER BY d.owner = {ME}", (self.project, list(refs))):
            r.pop("project", None)
            out[r["ref"]] = r
        return out

    def event_neighbours(self, refs: list[str]) -> dict[str, tuple[str | None, str | None]]:
        if not refs:
            return {}
        near = ("SELECT o.ref FROM docs o WHERE o.project = d.project AND o.kind = 'event' AND o.session = d.session "
                f"AND o.owner = {ME} AND (o.ts_epoch, o.id) {{}} (d.ts_epoch, d.id) ORDER BY o.ts_epoch {{}}, o.id {{}} LIMIT 1")
        out = {}
        for r in self._x(f"SELECT d.ref, ({near.format('<', 'DESC', 'DESC')}) AS prev, ({near.format('>', 'ASC', 'ASC')}) "
                         "AS next FROM docs d WHERE d.project = %s AND d.kind = 'event' AND d.session IS NOT NULL "
                         f"AND d.ref = ANY(%s) AND d.owner = {ME}", (self.project, list(refs))):
            if r["prev"] is not None or r["next"] is not None:
                out[r["ref"]] = (r["prev"], r["next"])
        return out

    def vector_counts(self, model: str | None) -> dict[str, int]:
        row = self._x("SELECT count(*) FILTER (WHERE status = 'ok' AND model IS NOT DISTINCT FROM %s) AS ok, "
                      "count(*) FILTER (WHERE status = 'failed') AS failed, "
                      "count(*) FILTER (WHERE status = 'ok' AND model IS DISTINCT FROM %s) AS other_model "
                      "FROM vectors WHERE project = %s", (model, model, self.project)).fetchone()
        return {k: int(row[k]) for k in ("ok", "failed", "other_model")}

    def tier_counts(self) -> dict[str, int]:
        out = dict.fromkeys(("hot", "warm", "cold", "archive"), 0)
        for r in self._x("SELECT t.tier, count(*) AS n FROM tiers t JOIN docs d ON d.project = t.project AND d.owner = t.owner "
                         "AND d.ref = t.ref "
                         "WHERE t.project = %s GROUP BY t.tier", (self.project,)):
            out[r["tier"]] = r["n"]
        out["unswept"] = self._x("SELECT count(*) AS n FROM docs d WHERE d.project = %s AND NOT EXISTS (SELECT 1 FROM tiers t "
                                 "WHERE t.project = d.project AND t.owner = d.owner AND t.ref = d.ref)",
                                 (self.project,)).fetchone()["n"]
        return out

    def sessions(self, *, limit: int = 200) -> list[dict[str, Any]]:
        """As :func:`memdir.store.sqlite.journal.sessions`, for this project's events."""
        from memdir.store.rows import session_summary

        rows = self._x(
            "SELECT coalesce(session, '') AS s, min(ts_epoch) AS t0, max(ts_epoch) AS t1, min(ts) AS first, max(ts) AS last, "
            "count(*) AS n, count(*) FILTER (WHERE role = 'user') AS nu, count(*) FILTER (WHERE role = 'assistant') AS na, "
            "count(*) FILTER (WHERE role = 'tool') AS nt FROM docs WHERE project = %s AND kind = 'event' "
            "GROUP BY 1 ORDER BY t1 DESC LIMIT %s", (self.project, int(limit))).fetchall()
        out = []
        for r in rows:
            meta_row = self._x("SELECT meta FROM docs WHERE project = %s AND kind = 'event' AND coalesce(session, '') = %s "
                               "AND meta IS NOT NULL ORDER BY ts_epoch LIMIT 1", (self.project, r["s"])).fetchone()
            out.append(session_summary(r, meta_row["meta"] if meta_row else None))
        return out

    def session_events(self, session: str | None, *, limit: int = 1000) -> list[dict[str, Any]]:
        """As :func:`memdir.store.sqlite.journal.session_events`, for this project's events."""
        from memdir.store.rows import meta_json

        where = "session = %s" if session else "session IS NULL"
        params = (self.project, session, int(limit)) if session else (self.project, int(limit))
        rows = self._x(f"SELECT ref, role, text, ts, meta, handle FROM docs WHERE project = %s AND kind = 'event' "
                       f"AND {where} ORDER BY ts_epoch, id LIMIT %s", params)
        return [{"key": r["ref"], "role": r["role"], "text": r["text"], "ts": r["ts"], "meta": meta_json(r["meta"]),
                 "handle": r["handle"]} for r in rows]

    def captured_tool_keys(self, session: str) -> set[str]:
        """As :func:`memdir.store.sqlite.journal.captured_tool_keys`, for this project's events."""
        rows = self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'event' AND session = %s "
                       "AND left(ref, 2) = 't:'", (self.project, session))
        return {r["ref"] for r in rows}

    def captured_replies(self, session: str) -> list[str]:
        """As :func:`memdir.store.sqlite.journal.captured_replies`, for this project's events."""
        rows = self._x("SELECT text FROM docs WHERE project = %s AND kind = 'event' AND session = %s "
                       "AND role = 'assistant' AND left(ref, 2) = 'a:' ORDER BY ts_epoch, id", (self.project, session))
        return [r["text"] for r in rows]

    def event_with_text(self, sha: str) -> tuple[str | None, float] | None:
        """As :func:`memdir.store.sqlite.journal.event_with_text`, for this project's events (this person's first)."""
        row = self._x(f"SELECT session, ts_epoch FROM docs WHERE project = %s AND kind = 'event' AND content_sha256 = %s "
                      f"ORDER BY owner = {ME} DESC LIMIT 1", (self.project, sha)).fetchone()
        return (row["session"], row["ts_epoch"]) if row else None

    def scan_docs(self, prefix: str | None = None) -> Iterator[dict[str, Any]]:
        cols = "ref, kind, role, note_kind, ts, ts_epoch, text, summary, highlight, left(text, 100) AS head, pinned"
        if prefix is not None:
            yield from self._x(f"SELECT {cols} FROM docs WHERE project = %s AND kind = 'event' AND left(ref, %s) = %s",
                               (self.project, len(prefix), prefix)).fetchall()
        else:
            yield from self._x(f"SELECT {cols} FROM docs WHERE project = %s ORDER BY id", (self.project,)).fetchall()

    def session_turns(self, *, session: str | None = None, since: float | None = None,
                      exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
        sql = ("SELECT id, ref, role, text, session, ts, ts_epoch FROM docs d WHERE project = %s AND kind = 'event' "
               "AND session IS NOT NULL")
        params: list[Any] = [self.project]
        exclude = list(exclude)
        if exclude:
            sql += " AND NOT EXISTS (SELECT 1 FROM unnest(%s::text[]) AS x(r) WHERE x.r = d.ref)"
            params.append(exclude)
        if session is not None:
            sql += " AND session = %s"
            params.append(session)
        if since is not None:
            sql += " AND ts_epoch >= %s"
            params.append(since)
        return self._x(sql + " ORDER BY session, ts_epoch, id", params).fetchall()

    def has_text(self, sha: str, kind: str | None = None) -> bool:
        sql = "SELECT 1 FROM docs WHERE project = %s AND content_sha256 = %s"
        params: list[Any] = [self.project, sha]
        if kind is not None:
            sql += " AND kind = %s"
            params.append(kind)
        return self._x(sql + " LIMIT 1", params).fetchone() is not None

    def ref_sha(self, ref: str) -> str | None:
        row = self._x("SELECT content_sha256 FROM docs WHERE project = %s AND ref = %s LIMIT 1", (self.project, ref)).fetchone()
        return row["content_sha256"] if row else None

    def vector_of(self, ref: str, model: str | None) -> bytes | None:
        row = self._x(f"SELECT vector FROM vectors WHERE project = %s AND ref = %s AND status = 'ok' AND model = %s "
                      f"ORDER BY owner = {ME} DESC LIMIT 1", (self.project, ref, model)).fetchone()
        return bytes(row["vector"]) if row is not None and row["vector"] else None

    def vector_copy(self, ref: str, sha: str, model: str, blob: bytes, when: str) -> bool:
        emb_col, emb_val, emb_set, emb = "", "", "", ()
        if self.pgvector:  # the server searches the vector column: the copy goes there too
            import numpy as np

            self._ensure_hnsw(len(blob) // 4)
            emb_col, emb_val, emb_set = ", embedding", ", %s::vector", "embedding = excluded.embedding, "
            emb = (vec_literal(np.frombuffer(blob, dtype=np.float32)),)
        return self._x(f"INSERT INTO vectors(project, ref, content_sha256, model, dim, status, vector, error, updated{emb_col}) "
                       f"VALUES (%s, %s, %s, %s, %s, 'ok', %s, NULL, %s{emb_val}) ON CONFLICT (project, owner, ref) DO UPDATE SET "
                       "content_sha256 = excluded.content_sha256, model = excluded.model, dim = excluded.dim, status = 'ok', "
                       f"vector = excluded.vector, error = NULL, updated = excluded.updated, {emb_set}"
                       "seq = nextval(pg_get_serial_sequence('vectors', 'seq')) WHERE vectors.status <> 'ok'",
                       (self.project, ref, sha, model, len(blob) // 4, blob, when, *emb)).rowcount > 0

    def settle(self, *, freed: bool = False, deleted: int = 0) -> None:
        """Nothing to do: PostgreSQL's autovacuum gives space back."""

    def purge(self) -> int:
        """Delete every row of this project (docs with their full-text rows, tombstones, rehearsal, tiers, vectors,
        meta); returns the docs deleted. For throwaway projects (benchmarks, tests); an admin's tool, not the API."""
        p = (self.project,)
        n = self._x("DELETE FROM docs WHERE project = %s", p).rowcount
        for t in ("tombstones", "rehearsal", "tiers", "vectors", "meta", "fts_stats", "term_df"):  # + the kept counters
            self._x(f"DELETE FROM {t} WHERE project = %s", p)
        self._dn, self._dtotal, self._ddf = Counter(), Counter(), Counter()
        return n

    def describe(self) -> dict[str, Any]:
        size = self._x("SELECT coalesce(sum(octet_length(text)), 0) AS b FROM docs WHERE project = %s", (self.project,)).fetchone()["b"]
        v = self._x("SELECT max(version) AS v FROM memdir_schema").fetchone()["v"]
        return {"engine": "postgresql", "bytes": int(size), "schema_version": v, "project": self.project}
