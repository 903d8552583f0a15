"""A :class:`memdir.storage.Store` on PostgreSQL: one database shared by several projects (issue 14).

Chosen by ``store = "postgresql://user@host/db"`` in ``config.toml`` or ``MEMDIR_STORE``; needs the ``postgres`` extra
(psycopg 3). Every table has a ``project`` column and every statement names the store's project, so projects sharing
a database never see each other's rows.

Full text. PostgreSQL never tokenizes: each full-text row (an event's passage 0 with its neighbouring turns, a later
passage, or a note's tags/title/body) holds memdir's own token streams (:func:`memdir.tokenize.tokenize`) per field,
their total length ``dl``, and ``tsv = array_to_tsvector(tokens)`` with a GIN index. ``array_to_tsvector`` takes our
tokens verbatim (the ``simple`` text-search configuration would re-parse them and split ``node.js`` or ``c++``); a
query term is matched as one quoted lexeme. Scoring is the same BM25 as the SQLite path (:mod:`memdir.bm25`):

    score(d, q) = Σ_t idf_lucene(N, n_t) · f·(k1 + 1) / (f + k1·(1 - b + b·dl/avgdl)),  k1 = 1.2, b = 0.75,

``f`` the field-weighted count of ``t`` in the row, ``N`` the full-text rows of the project, ``n_t`` those holding
``t`` (per-term statistics read through the GIN index), terms chosen by :func:`memdir.bm25.select_terms`. These are
FTS5's ``bm25()`` constants and length normalisation, so both stores give the same scores on the same rows.

Events. ``(project, ref)`` and ``(project, content_sha256)`` of events are unique; inserts are ``ON CONFLICT DO
NOTHING``, so the same event written twice (a retry, a second host, a queued write replayed) is stored once.

Schema changes are numbered migrations (:data:`MIGRATIONS`, version in ``memdir_schema``), applied under an advisory
lock so concurrent clients migrate once.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

from . import handles, passages
from .bm25 import idf_lucene, select_terms
from .errors import MemdirError
from .index import CONTEXT_TOKENS, fts_fields
from .tokenize import tokenize

#: FTS5's BM25 constants (sqlite/ext/fts5/fts5_aux.c), which the SQLite path uses through ``bm25()``
K1, B = 1.2, 0.75

DOC_COLUMNS = ("kind", "ref", "content_sha256", "role", "category", "note_kind", "session", "ts", "ts_epoch", "summary",
               "highlight", "text", "tags", "load_when", "pinned", "supersedes", "superseded_by", "path", "mtime_ns", "size",
               "meta", "handle")
FIELDS = ("tags", "title", "body", "context")

_LOCK_KEY = 0x6D656D646972  # 'memdir': the advisory lock held while migrating


def m001_create_tables(cur) -> None:
    cur.execute("""
        CREATE TABLE meta(project text NOT NULL, key text NOT NULL, value text, PRIMARY KEY (project, key));
        CREATE TABLE docs(
            id bigserial PRIMARY KEY,
            project text NOT NULL,
            kind text NOT NULL CHECK (kind IN ('note', 'event')),
            ref text NOT NULL,
            content_sha256 text NOT NULL,
            role text, category text, note_kind text, session text,
            ts text NOT NULL, ts_epoch double precision NOT NULL,
            summary text, highlight text, text text NOT NULL, tags text, load_when text,
            pinned integer NOT NULL DEFAULT 0, supersedes text, superseded_by text,
            path text, mtime_ns bigint, size bigint, meta text, handle text,
            UNIQUE (project, ref)
        );
        CREATE UNIQUE INDEX docs_event_sha ON docs(project, content_sha256) WHERE kind = 'event';
        CREATE INDEX docs_note_sha ON docs(project, content_sha256) WHERE kind = 'note';
        CREATE INDEX docs_handle ON docs(project, handle);
        CREATE INDEX docs_event_order ON docs(project, session, ts_epoch, id) WHERE kind = 'event';
        -- full-text rows: seq 0 = the doc's own row, 1.. = passages of a long event (span in docs.text)
        CREATE TABLE fts(
            id bigserial PRIMARY KEY,
            project text NOT NULL,
            doc_id bigint NOT NULL REFERENCES docs(id) ON DELETE CASCADE,
            seq integer NOT NULL,
            span_start integer, span_end integer,
            tags text NOT NULL DEFAULT '', title text NOT NULL DEFAULT '', body text NOT NULL DEFAULT '',
            context text NOT NULL DEFAULT '',
            dl integer NOT NULL,
            tsv tsvector NOT NULL,
            UNIQUE (doc_id, seq)
        );
        CREATE INDEX fts_tsv ON fts USING gin (tsv);
        CREATE INDEX fts_project ON fts(project);
        CREATE TABLE tombstones(project text NOT NULL, ref text NOT NULL, content_sha256 text, kind text,
                                deleted_at text NOT NULL, PRIMARY KEY (project, ref));
        CREATE INDEX tombstones_sha ON tombstones(project, content_sha256);
        CREATE TABLE rehearsal(project text NOT NULL, ref text NOT NULL, count integer NOT NULL DEFAULT 0, last text,
                               PRIMARY KEY (project, ref));
    """)


#: the tables a client reads and writes; each is limited by row-level security to the connection's project
PROJECT_TABLES = ("meta", "docs", "fts", "tombstones", "rehearsal")
#: the (NOLOGIN) role a team's client logins are made members of (:func:`grant_client`)
CLIENT_ROLE = "memdir_client"


def m002_row_level_security(cur) -> None:
    """Projects enforced by the database: a row is visible and writable only when its ``project`` is the
    connection's ``app.project`` *and* the connection's ``app.token`` is a token (stored as its SHA-256 only) granted
    that project. ``memdir_project_ok()`` runs as the schema owner (clients cannot read ``memdir_tokens``); wrapped
    in a sub-select it is evaluated once per statement. Roles that own the tables or are superusers (the admin who
    migrates) are not limited; client logins are members of :data:`CLIENT_ROLE`."""
    cur.execute("""
        CREATE TABLE memdir_tokens(
            sha256 text PRIMARY KEY,        -- hex SHA-256 of the token; the token itself is never stored
            person text NOT NULL,
            projects text[] NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        REVOKE ALL ON memdir_tokens FROM PUBLIC;
        CREATE FUNCTION memdir_project_ok() RETURNS boolean
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT coalesce(current_setting('app.project', true), '') <> '' AND EXISTS (
                SELECT 1 FROM public.memdir_tokens t
                WHERE t.sha256 = encode(sha256(convert_to(coalesce(current_setting('app.token', true), ''), 'UTF8')), 'hex')
                  AND current_setting('app.project', true) = ANY (t.projects))
        $$;
        REVOKE ALL ON FUNCTION memdir_project_ok() FROM PUBLIC;
    """)
    cur.execute(f"""DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{CLIENT_ROLE}') THEN CREATE ROLE {CLIENT_ROLE} NOLOGIN; END IF;
    END $$""")
    cur.execute(f"GRANT EXECUTE ON FUNCTION memdir_project_ok() TO {CLIENT_ROLE}")
    cur.execute(f"GRANT SELECT ON memdir_schema TO {CLIENT_ROLE}")
    for t in PROJECT_TABLES:
        cur.execute(f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY")
        cur.execute(f"CREATE POLICY {t}_project ON {t} USING (project = current_setting('app.project', true) "
                    f"AND (SELECT memdir_project_ok())) WITH CHECK (project = current_setting('app.project', true) "
                    f"AND (SELECT memdir_project_ok()))")
        cur.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {t} TO {CLIENT_ROLE}")
    cur.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {CLIENT_ROLE}")


#: tables added by m003, limited by row-level security like :data:`PROJECT_TABLES`
TIER_TABLES = ("tiers", "vectors")


def m003_tiers_vectors(cur) -> None:
    """Heat tiers (:mod:`memdir.tiers`) and embeddings (:mod:`memdir.vectors`) per project, as the SQLite index's
    ``tiers`` and ``vectors`` tables (a vector is the L2-normalised float32 array's bytes; scored in the application
    where the server has no pgvector), under the same row-level security."""
    cur.execute("""
        CREATE TABLE tiers(
            project text NOT NULL, ref text NOT NULL,
            heat0 double precision NOT NULL DEFAULT 1.0, reinforced_at double precision NOT NULL,
            seen_count integer NOT NULL DEFAULT 0,
            tier text NOT NULL DEFAULT 'hot' CHECK (tier IN ('hot', 'warm', 'cold', 'archive')),
            importance double precision NOT NULL DEFAULT 1.0, changed_at text,
            PRIMARY KEY (project, ref)
        );
        CREATE INDEX tiers_tier ON tiers(project, tier);
        CREATE TABLE vectors(
            project text NOT NULL, ref text NOT NULL, content_sha256 text, model text, dim integer,
            status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ok', 'failed')),
            vector bytea, error text, updated text,
            PRIMARY KEY (project, ref)
        );
        CREATE INDEX vectors_status ON vectors(project, status, model);
    """)
    for t in TIER_TABLES:
        cur.execute(f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY")
        cur.execute(f"CREATE POLICY {t}_project ON {t} USING (project = current_setting('app.project', true) "
                    f"AND (SELECT memdir_project_ok())) WITH CHECK (project = current_setting('app.project', true) "
                    f"AND (SELECT memdir_project_ok()))")
        cur.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {t} TO {CLIENT_ROLE}")


#: numbered schema migrations; append, never edit a landed one
MIGRATIONS = [m001_create_tables, m002_row_level_security, m003_tiers_vectors]


def add_token(conn, person: str, projects: Iterable[str]) -> str:
    """Create a token for ``person`` granting ``projects``; returns the token (shown once: only its SHA-256 is kept).
    ``conn`` is an admin connection (the schema owner)."""
    import hashlib
    import secrets

    projects = sorted({p for p in projects if p})
    if not person or not projects:
        raise MemdirError("a token needs a person and at least one project")
    token = "mdt_" + secrets.token_urlsafe(24)
    conn.execute("INSERT INTO memdir_tokens(sha256, person, projects) VALUES (%s, %s, %s)",
                 (hashlib.sha256(token.encode()).hexdigest(), person, projects))
    return token


def revoke_tokens(conn, person: str) -> int:
    """Delete every token of ``person``; returns how many. ``conn`` is an admin connection."""
    return conn.execute("DELETE FROM memdir_tokens WHERE person = %s", (person,)).rowcount


def grant_client(conn, login: str) -> None:
    """Make the existing database login ``login`` a member of :data:`CLIENT_ROLE` (reads/writes limited by RLS)."""
    from psycopg import sql

    conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(CLIENT_ROLE), sql.Identifier(login)))


def migrate(conn) -> int:
    """Apply pending migrations (each in its own transaction, under an advisory lock); returns the schema version.
    Raises ``MemdirError`` when the database is newer than this memdir."""
    if conn.execute("SELECT to_regclass('memdir_schema') IS NOT NULL AS ok").fetchone()["ok"]:
        have = conn.execute("SELECT max(version) AS v FROM memdir_schema").fetchone()["v"] or 0
        if have == len(MIGRATIONS):
            return have  # the usual case; a client login (no DDL rights) stops here
    else:
        conn.execute("CREATE TABLE IF NOT EXISTS memdir_schema(version integer NOT NULL)")
    for n, fn in enumerate(MIGRATIONS, start=1):
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            row = conn.execute("SELECT max(version) AS v FROM memdir_schema").fetchone()
            have = row["v"] or 0
            if have > len(MIGRATIONS):
                raise MemdirError(f"store schema v{have} is newer than this memdir (v{len(MIGRATIONS)}); upgrade memdir")
            if have >= n:
                continue
            with conn.cursor() as cur:
                fn(cur)
            conn.execute("INSERT INTO memdir_schema(version) VALUES (%s)", (n,))
    return len(MIGRATIONS)


def _lexeme(t: str) -> str:
    """``t`` as a one-lexeme tsquery literal (quoted; ``'`` doubled, ``\\`` escaped): never parsed, never an error."""
    return "'" + t.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsv_tokens(*streams: str) -> list[str]:
    return list(dict.fromkeys(t for s in streams for t in s.split()))


class PgStore:
    """One project's view of a PostgreSQL memdir database (see the module docstring)."""

    def __init__(self, conn, project: str) -> None:
        if not project:
            raise MemdirError("a PostgreSQL store needs a project name")
        self.conn = conn
        self.project = project

    @classmethod
    def connect(cls, url: str, *, project: str, token: str | None = None) -> "PgStore":
        """Connect to ``url`` (``postgresql://…``), migrate the schema, and return ``project``'s store. With ``token``
        the connection is bound to ``project`` for row-level security (``app.project``, ``app.token``): as a client
        login it then sees and writes ``project``'s rows only, and nothing at all when the token does not grant it.
        Raises ``MemdirError`` when psycopg is missing or the server cannot be reached."""
        try:
            import psycopg
            from psycopg.rows import dict_row
        except ImportError:
            raise MemdirError("store is a postgresql:// URL but psycopg is not installed: pip install 'memdir[postgres]'") from None
        try:
            conn = psycopg.connect(url, autocommit=True, row_factory=dict_row, connect_timeout=10)
        except psycopg.Error as exc:
            raise MemdirError(f"could not connect to the store {_safe_url(url)}: {str(exc).strip().splitlines()[0]}") from None
        migrate(conn)
        conn.execute("SELECT set_config('app.project', %s, false), set_config('app.token', %s, false)",
                     (project, token or ""))
        return cls(conn, project)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator["PgStore"]:
        with self.conn.transaction():
            yield self

    def write(self, fn, *, attempts: int = 8):
        """``fn(self)`` in one transaction, run again (up to ``attempts`` times, with a short random back-off) when
        PostgreSQL aborts it for a deadlock or a serialization failure between concurrent writers; returns what
        ``fn`` returns. Writes made of deterministic keys (``ON CONFLICT DO NOTHING``) are safe to run again."""
        import random
        import time

        import psycopg

        for n in range(attempts):
            try:
                with self.conn.transaction():
                    return fn(self)
            except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure):
                if n + 1 == attempts:
                    raise
                time.sleep(random.uniform(0.01, 0.05) * (n + 1))

    def _x(self, sql: str, params: Iterable[Any] = ()):
        return self.conn.execute(sql, tuple(params))

    # ---- writes ------------------------------------------------------------------------------------------
    def _handle(self, ref: str) -> str:
        d = handles.digest(ref)
        for n in range(handles.LENGTH, len(d) + 1):
            if self._x("SELECT 1 FROM docs WHERE project = %s AND handle = %s AND ref <> %s LIMIT 1",
                       (self.project, d[:n], ref)).fetchone() is None:
                return d[:n]
        return d

    def _insert_doc(self, row: dict[str, Any], *, on_conflict: bool) -> int | None:
        row = {**row, "handle": self._handle(row["ref"])}
        cols = [c for c in DOC_COLUMNS if c in row]
        sql = (f"INSERT INTO docs(project, {', '.join(cols)}) VALUES (%s, {', '.join('%s' for _ in cols)})"
               + (" ON CONFLICT DO NOTHING" if on_conflict else "") + " RETURNING id")
        got = self._x(sql, [self.project, *(row[c] for c in cols)]).fetchone()
        return got["id"] if got else None

    def _insert_fts(self, doc_id: int, seq: int, span: tuple[int, int] | None, fields: tuple[str, str, str, str]) -> None:
        dl = sum(len(f.split()) for f in fields)
        self._x("INSERT INTO fts(project, doc_id, seq, span_start, span_end, tags, title, body, context, dl, tsv) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, array_to_tsvector(%s::text[]))",
                (self.project, doc_id, seq, *(span or (None, None)), *fields, dl, _tsv_tokens(*fields)))

    def _bump_gen(self) -> None:
        self._x("INSERT INTO meta(project, key, value) VALUES (%s, 'notes_gen', '1') ON CONFLICT (project, key) "
                "DO UPDATE SET value = (meta.value::integer + 1)::text", (self.project,))

    def upsert_doc(self, row: dict[str, Any]) -> int:
        self.delete_doc(row["ref"], bump=False)
        doc_id = self._insert_doc(row, on_conflict=False)
        if row.get("kind") == "note":
            self._bump_gen()
        tags = json.loads(row.get("tags") or "[]") + json.loads(row.get("load_when") or "[]")
        title = " ".join(x for x in (row.get("summary"), row.get("highlight")) if x)
        self._insert_fts(doc_id, 0, None, (*fts_fields(tags, title, row["text"]), ""))
        return doc_id

    def insert_event(self, row: dict[str, Any], *, pending: dict[int, str] | None = None) -> int | None:
        spans = passages.split(row["text"], split_above=passages.split_above(row.get("role")))
        a, b = spans[0]
        toks = " ".join(tokenize(row["text"][a:b]))
        row = {**row, "handle": self._handle(row["ref"])}
        cols = [c for c in DOC_COLUMNS if c in row]
        got = self._x(  # the doc and its own full-text row in one statement; same key or same text: stored once
            f"WITH d AS (INSERT INTO docs(project, {', '.join(cols)}) VALUES (%s, {', '.join('%s' for _ in cols)}) "
            "ON CONFLICT DO NOTHING RETURNING id) "
            "INSERT INTO fts(project, doc_id, seq, body, dl, tsv) SELECT %s, d.id, 0, %s, %s, "
            "array_to_tsvector(%s::text[]) FROM d RETURNING doc_id",
            [self.project, *(row[c] for c in cols), self.project, toks, len(toks.split()), _tsv_tokens(toks)]).fetchone()
        if got is None:
            return None
        doc_id = got["doc_id"]
        for seq, (a, b) in enumerate(spans[1:], start=1):
            self._insert_fts(doc_id, seq, (a, b), ("", "", " ".join(tokenize(row["text"][a:b])), ""))
        if pending is not None and row.get("session"):
            pending[doc_id] = toks
        return doc_id

    def _order(self, session: str) -> list[int]:
        return [r["id"] for r in self._x("SELECT id FROM docs WHERE project = %s AND kind = 'event' AND session = %s "
                                         "ORDER BY ts_epoch, id", (self.project, session))]

    def _body_tokens(self, ids: Iterable[int]) -> dict[int, str]:
        ids = list(ids)
        if not ids:
            return {}
        return {r["doc_id"]: r["body"] for r in self._x("SELECT doc_id, body FROM fts WHERE doc_id = ANY(%s) AND seq = 0",
                                                        (ids,))}

    def _set_context(self, targets: dict[int, tuple[int | None, int | None]]) -> int:
        if not targets:
            return 0
        ids = sorted(targets)  # one order for every writer: two flushing clients never deadlock on these rows
        toks = self._body_tokens({x for pair in targets.values() for x in pair if x is not None})
        have = {r["doc_id"]: r for r in self._x("SELECT doc_id, tags, title, body FROM fts WHERE doc_id = ANY(%s) AND seq = 0 "
                                                "ORDER BY doc_id FOR UPDATE", (ids,))}
        upd: list[tuple] = []
        for doc_id in ids:
            r = have.get(doc_id)
            if r is None:
                continue
            prev, nxt = targets[doc_id]
            ctx = " ".join(t for x in (prev, nxt) if x is not None for t in toks.get(x, "").split()[:CONTEXT_TOKENS])
            allf = (r["tags"], r["title"], r["body"], ctx)
            upd.append((doc_id, ctx, sum(len(f.split()) for f in allf), " ".join(_tsv_tokens(*allf))))
        if upd:  # one statement for all rows
            cols = list(zip(*upd))
            self._x("UPDATE fts SET context = u.ctx, dl = u.dl, tsv = array_to_tsvector(string_to_array(u.toks, ' ')) "
                    "FROM unnest(%s::bigint[], %s::text[], %s::integer[], %s::text[]) AS u(doc_id, ctx, dl, toks) "
                    "WHERE fts.doc_id = u.doc_id AND fts.seq = 0", [list(c) for c in cols])
        return len(upd)

    def flush_events(self, pending: dict[int, str]) -> int:
        """The ``context`` field (neighbouring turns' tokens) of the events in ``pending`` and of the older events
        that gained a new neighbour, as :func:`memdir.index.flush_events`."""
        if not pending:
            return 0
        sess = {r["id"]: r["session"] for r in self._x("SELECT id, session FROM docs WHERE id = ANY(%s)", (list(pending),))}
        targets: dict[int, tuple[int | None, int | None]] = {}
        for session in {s for s in sess.values() if s}:
            order = self._order(session)
            for i, x in enumerate(order):
                prev = order[i - 1] if i > 0 else None
                nxt = order[i + 1] if i + 1 < len(order) else None
                if x in pending or prev in pending or nxt in pending:
                    targets[x] = (prev, nxt)
        return self._set_context(targets)

    def refresh_context(self, sessions: Iterable[str]) -> int:
        targets: dict[int, tuple[int | None, int | None]] = {}
        for session in set(sessions):
            order = self._order(session)
            for i, x in enumerate(order):
                targets[x] = (order[i - 1] if i > 0 else None, order[i + 1] if i + 1 < len(order) else None)
        return self._set_context(targets)

    def delete_doc(self, ref: str, *, bump: bool = True) -> bool:
        got = self._x("DELETE FROM docs WHERE project = %s AND ref = %s RETURNING kind", (self.project, ref)).fetchone()
        if got is None:
            return False
        if bump and got["kind"] == "note":
            self._bump_gen()
        return True  # its fts rows go with it (ON DELETE CASCADE)

    def bump_rehearsal(self, refs: Iterable[str], when: str) -> None:
        for ref in sorted(dict.fromkeys(refs)):
            self._x("INSERT INTO rehearsal(project, ref, count, last) VALUES (%s, %s, 1, %s) ON CONFLICT (project, ref) "
                    "DO UPDATE SET count = rehearsal.count + 1, last = excluded.last", (self.project, ref, when))

    def tombstone(self, ref: str, sha: str | None, kind: str, when: str) -> None:
        self._x("DELETE FROM rehearsal WHERE project = %s AND ref = %s", (self.project, ref))
        self._x("INSERT INTO tombstones(project, ref, content_sha256, kind, deleted_at) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (project, ref) DO UPDATE SET content_sha256 = excluded.content_sha256, kind = excluded.kind, "
                "deleted_at = excluded.deleted_at", (self.project, ref, sha, kind, when))

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
        row = self._x("SELECT * FROM docs WHERE project = %s AND ref = %s", (self.project, ref)).fetchone()
        if row is None:
            return None
        row.pop("project", None)
        return row

    def live_note_with_sha(self, sha: str) -> str | None:
        row = self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'note' AND content_sha256 = %s AND superseded_by "
                      "IS NULL ORDER BY id LIMIT 1", (self.project, sha)).fetchone()
        return row["ref"] if row else None

    def tombstoned(self) -> tuple[set[str], set[str]]:
        rows = self._x("SELECT ref, content_sha256 FROM tombstones WHERE project = %s", (self.project,)).fetchall()
        return {r["ref"] for r in rows}, {r["content_sha256"] for r in rows if r["content_sha256"]}

    def count(self, kind: str) -> int:
        return int(self._x("SELECT count(*) AS n FROM docs WHERE project = %s AND kind = %s", (self.project, kind)).fetchone()["n"])

    def score(self, tokens: list[str], *, weights: tuple[float, ...], limit: int) -> list[tuple[int, float]]:
        """``[(fts row id, score)]`` best first, at most ``limit`` (the formula in the module docstring)."""
        st = self._x("SELECT count(*) AS n, coalesce(sum(dl), 0) AS total FROM fts WHERE project = %s", (self.project,)).fetchone()
        N = st["n"]
        if not N:
            return []
        avgdl = st["total"] / N if st["total"] else 1.0
        qtf = Counter(tokens)  # a repeated query term weighs sqrt(count), as memdir.bm25.score
        uniq = list(qtf)
        counts = self._x(  # per-term statistics: documents holding each term, in one pass over the GIN index
            "SELECT " + ", ".join(f"count(*) FILTER (WHERE tsv @@ %s::tsquery) AS n{k}" for k in range(len(uniq)))
            + " FROM fts WHERE project = %s AND tsv @@ %s::tsquery",
            [*(_lexeme(t) for t in uniq), self.project, " | ".join(_lexeme(t) for t in uniq)]).fetchone()
        df = {t: counts[f"n{k}"] for k, t in enumerate(uniq) if counts[f"n{k}"]}
        terms = select_terms(df, N)
        if not terms:
            return []
        idf = {t: math.sqrt(qtf[t]) * idf_lucene(N, df[t]) for t in terms}
        w = dict(zip(FIELDS, (tuple(weights) + (0.0,) * 4)[:4]))
        acc: dict[int, float] = {}
        for r in self._x("SELECT id, tags, title, body, context, dl FROM fts WHERE project = %s AND tsv @@ %s::tsquery",
                         (self.project, " | ".join(_lexeme(t) for t in terms))):  # every posting of the chosen terms at once
            per = [(w[c], Counter(r[c].split())) for c in FIELDS if r[c] and w[c]]
            norm = K1 * (1 - B + B * r["dl"] / avgdl)
            sc = 0.0
            for t in terms:
                f = sum(wc * cnt[t] for wc, cnt in per if t in cnt)
                if f > 0:
                    sc += idf[t] * f * (K1 + 1) / (f + norm)
            if sc > 0:
                acc[r["id"]] = sc
        return sorted(acc.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

    def search(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
               kinds: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
        """As :func:`memdir.index.search`: each doc keeps its best full-text row; superseded notes and other
        ``kinds`` are dropped after scoring; rows are dicts of ``docs`` + ``bm25``, ``rehearsals``, ``span``."""
        if not tokens:
            return []
        ranked = self.score(tokens, weights=weights, limit=limit * 2 if kinds else limit)
        if not ranked:
            return []
        where = {r["id"]: r for r in self._x("SELECT id, doc_id, seq, span_start, span_end FROM fts WHERE id = ANY(%s)",
                                             ([i for i, _ in ranked],))}
        scores: dict[int, float] = {}
        spans: dict[int, tuple[int, int] | None] = {}
        weighted = [(fid, sc * (passages.PASSAGE_WEIGHT if where.get(fid) and where[fid]["seq"] else 1.0)) for fid, sc in ranked]
        for fid, sc in sorted(weighted, key=lambda x: -x[1]):  # a passage counts PASSAGE_WEIGHT of a whole doc's row
            r = where.get(fid)
            if r is None or r["doc_id"] in scores:
                continue
            scores[r["doc_id"]] = sc
            spans[r["doc_id"]] = (r["span_start"], r["span_end"]) if r["seq"] else None
        rows = self._x("SELECT d.*, coalesce(r.count, 0) AS rehearsals FROM docs d LEFT JOIN rehearsal r "
                       "ON r.project = d.project AND r.ref = d.ref WHERE d.project = %s AND d.id = ANY(%s) "
                       "AND d.superseded_by IS NULL", (self.project, list(scores))).fetchall()
        out = []
        for d in rows:
            if kinds and d["kind"] not in kinds:
                continue
            d.pop("project", None)
            d["bm25"] = scores[d["id"]]
            span = spans.get(d["id"])
            above = passages.split_above(d["role"]) if d["kind"] == "event" else None
            if span is None and above is not None and len(d["text"]) > above:
                span = passages.split(d["text"], split_above=above)[0]
            d["span"] = span
            out.append(d)
        out.sort(key=lambda d: -d["bm25"])
        return out[:limit]

    # ---- the facade's reads and writes (memdir.storage.Store; the SQL core.py / root.py / tiers.py need) ------
    def candidates(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
                   kinds: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
        """Ranking rows (:meth:`search`'s whole rows plus ``head``, the text's first 60 characters; no ``mask``: the
        facade then looks for every query term)."""
        rows = self.search(tokens, weights=weights, limit=limit, kinds=kinds)
        for r in rows:
            r["head"] = r["text"][:60]
        return rows

    def hit_rows(self, spans: dict[int, tuple[int, int] | None]) -> dict[int, dict[str, Any]]:
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
        n = self._x("SELECT count(*) AS n FROM fts WHERE project = %s", (self.project,)).fetchone()["n"]
        uniq = list(dict.fromkeys(tokens))
        if not n or not uniq:
            return n, {}
        counts = self._x(
            "SELECT " + ", ".join(f"count(*) FILTER (WHERE tsv @@ %s::tsquery) AS n{k}" for k in range(len(uniq)))
            + " FROM fts WHERE project = %s AND tsv @@ %s::tsquery",
            [*(_lexeme(t) for t in uniq), self.project, " | ".join(_lexeme(t) for t in uniq)]).fetchone()
        return n, {t: counts[f"n{k}"] for k, t in enumerate(uniq) if counts[f"n{k}"]}

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

    def events_after(self, ref: str, session: str, limit: int) -> list[dict[str, Any]]:
        me = self._x("SELECT id, ts_epoch FROM docs WHERE project = %s AND ref = %s", (self.project, ref)).fetchone()
        if me is None:
            return []
        return self._x("SELECT ref, role, text, ts, handle FROM docs WHERE project = %s AND kind = 'event' AND session = %s "
                       "AND (ts_epoch > %s OR (ts_epoch = %s AND id > %s)) ORDER BY ts_epoch, id LIMIT %s",
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

    def note_refs(self) -> set[str]:
        return {r["ref"] for r in self._x("SELECT ref FROM docs WHERE project = %s AND kind = 'note'", (self.project,))}

    def set_meta(self, key: str, value: str) -> None:
        self._x("INSERT INTO meta(project, key, value) VALUES (%s, %s, %s) ON CONFLICT (project, key) "
                "DO UPDATE SET value = excluded.value", (self.project, key, str(value)))

    def bump_meta(self, key: str) -> None:
        self._x("INSERT INTO meta(project, key, value) VALUES (%s, %s, '1') ON CONFLICT (project, key) "
                "DO UPDATE SET value = (meta.value::integer + 1)::text", (self.project, key))

    def delete_notes(self) -> None:
        self._x("DELETE FROM docs WHERE project = %s AND kind = 'note'", (self.project,))

    def delete_vectors(self, ref: str) -> None:
        self._x("DELETE FROM vectors WHERE project = %s AND ref = %s", (self.project, ref))

    def start_heat(self, refs: list[str], now: float) -> int:
        from .timeutil import iso, parse_ts

        if not refs:
            return 0
        return self._x("INSERT INTO tiers(project, ref, heat0, reinforced_at, seen_count, tier, importance, changed_at) "
                       "SELECT %s, r, 1.0, %s, 0, 'hot', 1.0, %s FROM unnest(%s::text[]) AS r ON CONFLICT DO NOTHING",
                       (self.project, now, iso(parse_ts(now)), list(dict.fromkeys(refs)))).rowcount

    def tier_rows(self) -> list[dict[str, Any]]:
        return self._x(
            "SELECT d.ref, d.kind, d.pinned, d.ts_epoch, coalesce(r.count, 0) AS rcount, r.last AS rlast, "
            "t.ref AS tref, t.heat0, t.reinforced_at, t.seen_count, t.tier, t.importance "
            "FROM docs d LEFT JOIN rehearsal r ON r.project = d.project AND r.ref = d.ref "
            "LEFT JOIN tiers t ON t.project = d.project AND t.ref = d.ref WHERE d.project = %s ORDER BY d.id",
            (self.project,)).fetchall()

    def write_tiers(self, inserts: list[tuple], updates: list[tuple]) -> int:
        with self.conn.cursor() as cur:
            if inserts:
                cur.executemany("INSERT INTO tiers(project, ref, heat0, reinforced_at, seen_count, tier, importance, changed_at) "
                                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (project, ref) DO UPDATE SET "
                                "heat0 = excluded.heat0, reinforced_at = excluded.reinforced_at, seen_count = excluded.seen_count, "
                                "tier = excluded.tier, importance = excluded.importance, changed_at = excluded.changed_at",
                                [(self.project, *row) for row in inserts])
            if updates:
                cur.executemany("UPDATE tiers SET heat0 = %s, reinforced_at = %s, seen_count = %s, tier = %s, importance = %s, "
                                "changed_at = CASE WHEN tier = %s THEN changed_at ELSE %s END WHERE project = %s AND ref = %s",
                                [(h0, at, seen, tier, imp, tier, stamp, self.project, ref)
                                 for h0, at, seen, tier, imp, stamp, ref in updates])
        return self._x("DELETE FROM tiers t WHERE t.project = %s AND NOT EXISTS (SELECT 1 FROM docs d WHERE "
                       "d.project = t.project AND d.ref = t.ref)", (self.project,)).rowcount

    def prune_candidates(self, max_importance: float, cutoff: float) -> list[dict[str, Any]]:
        return self._x(
            "SELECT d.ref, d.kind, d.ts, left(d.text, 100) AS head, "
            "octet_length(d.text) + coalesce(octet_length(v.vector), 0) AS bytes "
            "FROM docs d JOIN tiers t ON t.project = d.project AND t.ref = d.ref "
            "LEFT JOIN vectors v ON v.project = d.project AND v.ref = d.ref "
            "WHERE d.project = %s AND t.tier IN ('cold', 'archive') AND d.pinned = 0 AND t.importance < %s "
            "AND greatest(d.ts_epoch, t.reinforced_at) < %s ORDER BY d.ts_epoch DESC",
            (self.project, max_importance, cutoff)).fetchall()

    def drop_tiers(self, ref: str) -> None:
        self._x("DELETE FROM tiers WHERE project = %s AND ref = %s", (self.project, ref))

    def scan_docs(self, prefix: str | None = None) -> Iterator[dict[str, Any]]:
        cols = "ref, kind, role, note_kind, ts, ts_epoch, text, summary, highlight, left(text, 100) AS head"
        if prefix is not None:
            yield from self._x(f"SELECT {cols} FROM docs WHERE project = %s AND kind = 'event' AND left(ref, %s) = %s",
                               (self.project, len(prefix), prefix)).fetchall()
        else:
            yield from self._x(f"SELECT {cols} FROM docs WHERE project = %s ORDER BY id", (self.project,)).fetchall()

    def settle(self, *, freed: bool = False) -> None:
        """Nothing to do: PostgreSQL's autovacuum gives space back."""

    def describe(self) -> dict[str, Any]:
        size = self._x("SELECT coalesce(sum(octet_length(text)), 0) AS b FROM docs WHERE project = %s", (self.project,)).fetchone()["b"]
        v = self._x("SELECT max(version) AS v FROM memdir_schema").fetchone()["v"]
        return {"engine": "postgresql", "bytes": int(size), "schema_version": v, "project": self.project}


def _safe_url(url: str) -> str:
    """``url`` without its password, for messages."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        p = urlsplit(url)
        if p.password:
            netloc = p.netloc.replace(f":{p.password}@", ":***@")
            return urlunsplit(p._replace(netloc=netloc))
    except ValueError:
        pass
    return url


def doctor(url: str, *, project: str, token: str | None = None) -> list[dict[str, str]]:
    """Checks of a PostgreSQL store, shaped as :func:`memdir.vectors.doctor`'s (``check``, ``ok`` = ok|warn|fail,
    ``detail``, ``remedy``): the connection and server version, the schema version, row-level security on every
    project table, the pgvector extension, whether this login bypasses row-level security, and whether ``token``
    grants ``project``. Never raises."""
    out: list[dict[str, str]] = []

    def add(check, ok, detail, remedy=""):
        out.append({"check": f"store {check}", "ok": ok, "detail": detail, "remedy": remedy})

    try:
        store = PgStore.connect(url, project=project, token=token)
    except MemdirError as exc:
        add("connection", "fail", str(exc), "check the store URL (`memdir config`), that the server runs and accepts this login")
        return out
    c = store.conn
    try:
        v = c.execute("SHOW server_version").fetchone()["server_version"]
        add("connection", "ok", f"{_safe_url(url)}: PostgreSQL {v}, project {project!r}")
        have = c.execute("SELECT max(version) AS v FROM memdir_schema").fetchone()["v"]
        add("schema", "ok" if have == len(MIGRATIONS) else "fail", f"schema v{have} (this memdir: v{len(MIGRATIONS)})")
        rls = {r["relname"]: r["relrowsecurity"] for r in c.execute(
            "SELECT relname, relrowsecurity FROM pg_class WHERE relname = ANY(%s) AND relkind = 'r'", (list(PROJECT_TABLES),))}
        off = [t for t in PROJECT_TABLES if not rls.get(t)]
        add("row-level security", "ok" if not off else "fail", "on for " + ", ".join(PROJECT_TABLES) if not off
            else f"off for {', '.join(off)}", "" if not off else "connect once as the schema owner to migrate")
        me = c.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        owner = c.execute("SELECT pg_get_userbyid(relowner) = current_user AS own FROM pg_class WHERE relname = 'docs'").fetchone()
        if me and (me["rolsuper"] or me["rolbypassrls"] or (owner and owner["own"])):
            add("login", "warn", "this login owns the tables or bypasses row-level security: it sees every project",
                f"give each person a client login (GRANT {CLIENT_ROLE} TO <login>) and a token; keep this one for admin")
        else:
            ok = c.execute("SELECT memdir_project_ok() AS ok").fetchone()["ok"]
            add("token", "ok" if ok else "fail", f"token grants project {project!r}" if ok else
                f"no token granting project {project!r} (nothing will be visible)", "" if ok else "ask the store's admin for a token")
        ext = c.execute("SELECT name, installed_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()
        if ext is None:
            add("pgvector", "warn", "the vector extension is not available on this server: vectors are scored in the application",
                "install pgvector on the server (e.g. the postgresql-<version>-pgvector package) for HNSW")
        else:
            add("pgvector", "ok", f"vector {ext['installed_version'] or 'available, not installed'}")
    except Exception as exc:  # a check that cannot run is a finding, not a crash
        add("checks", "fail", f"{type(exc).__name__}: {exc}", "")
    finally:
        store.close()
    return out
