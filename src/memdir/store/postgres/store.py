"""A :class:`memdir.store.protocol.Store` on PostgreSQL: one database shared by several projects (issue 14).

Chosen by ``store = "postgresql://user@host/db"`` in ``config.toml`` or ``MEMDIR_STORE``; needs the ``postgres`` extra
(psycopg 3). Every table has a ``project`` column and every statement names the store's project, so projects sharing
a database never see each other's rows.

Full text. PostgreSQL never tokenizes: each full-text row (an event's passage 0 with its neighbouring turns, a later
passage, or a note's tags/title/body) holds memdir's own token streams (:func:`memdir.recall.tokenize.tokenize`) per field,
their total length ``dl``, and ``tsv = array_to_tsvector(tokens)`` with a GIN index. ``array_to_tsvector`` takes our
tokens verbatim (the ``simple`` text-search configuration would re-parse them and split ``node.js`` or ``c++``); a
query term is matched as one quoted lexeme. Scoring is the same BM25 as the SQLite path (:mod:`memdir.recall.bm25`):

    score(d, q) = Σ_t idf_lucene(N, n_t) · f·(k1 + 1) / (f + k1·(1 - b + b·dl/avgdl)),  k1 = 1.2, b = 0.75,

``f`` the field-weighted count of ``t`` in the row, ``N`` the full-text rows of the project, ``n_t`` those holding
``t``, terms chosen by :func:`memdir.recall.bm25.select_terms`. These are FTS5's ``bm25()`` constants and length
normalisation, so both stores give the same scores on the same rows. ``N``, the total length and every ``n_t`` are
kept up to date by the writes (tables ``fts_stats`` and ``term_df``, migration m004) and each row holds its per-field
term counts (``fts.tf``), so recall is one statement: the GIN index finds each chosen term's rows, PostgreSQL sums the
BM25 parts and returns the best. In large stores the SQLite path's caps apply (common terms skipped, a postings
budget, the newest ``PER_TERM_CAP`` rows of a frequent term), so both stores cut the same corners.

Events. ``(project, ref)`` and ``(project, content_sha256)`` of events are unique; inserts are ``ON CONFLICT DO
NOTHING``, so the same event written twice (a retry, a second host, a queued write replayed) is stored once.

Schema changes are numbered migrations (:data:`MIGRATIONS`, version in ``memdir_schema``), applied under an advisory
lock so concurrent clients migrate once.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

from memdir.recall import handles, passages
from memdir.recall.bm25 import LARGE_STORE, PER_TERM_CAP, idf_lucene, select_terms
from memdir.config import safe_url as _safe_url
from memdir.errors import MemdirError
from memdir.store.rows import CONTEXT_TOKENS, fts_fields
from memdir.recall.tokenize import tokenize

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
#: every table limited to the connection's project (m002, m003, m004)
RLS_TABLES = PROJECT_TABLES + ("tiers", "vectors", "fts_stats", "term_df")
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
    """Heat tiers (:mod:`memdir.engine.tiers`) and embeddings (:mod:`memdir.engine.hybrid`) per project, as the SQLite index's
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
        -- seq: renewed on every write (as SQLite's INSERT OR REPLACE renews the rowid): the matrix order and stamp
        CREATE TABLE vectors(
            project text NOT NULL, ref text NOT NULL, content_sha256 text, model text, dim integer,
            status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ok', 'failed')),
            vector bytea, error text, updated text, seq bigserial NOT NULL,
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


#: writers spread their statistics over this many rows per project (``pg_backend_pid() % STAT_SHARDS``), so
#: concurrent clients rarely wait on one another's counters; readers sum the shards
STAT_SHARDS = 16


def m004_stats_and_term_counts(cur) -> None:
    """Recall without scanning (issue 14): ``fts.tf`` holds each row's per-field counts of its terms
    (``{term: body + context·2¹² + title·2²⁴ + tags·2³⁶}``, each at most 4095: :func:`_tf`) so one statement scores; ``fts_stats`` (rows, total length) and
    ``term_df`` (rows holding each term) are kept by the store's writes (:meth:`PgStore._flush_counts`, once per
    transaction), in :data:`STAT_SHARDS` rows per project and term, so a query reads ``N``, ``avgdl`` and ``n_t``
    by key instead of counting. Row-level security keeps each project's counters its own. Handles become
    unique per project (a duplicate left by an older, racing writer loses its handle: it is then never resolved,
    as before)."""
    cur.execute("""
        ALTER TABLE fts ADD COLUMN tf jsonb;
        UPDATE fts SET tf = coalesce((
            SELECT jsonb_object_agg(t, least(c, 4095) + least(d, 4095) * 4096 + least(b, 4095) * 16777216
                                       + least(a, 4095) * 68719476736) FROM (
                SELECT t, count(*) FILTER (WHERE k = 0) a, count(*) FILTER (WHERE k = 1) b,
                       count(*) FILTER (WHERE k = 2) c, count(*) FILTER (WHERE k = 3) d
                FROM (SELECT unnest(string_to_array(fts.tags, ' ')) t, 0 k UNION ALL
                      SELECT unnest(string_to_array(fts.title, ' ')), 1 UNION ALL
                      SELECT unnest(string_to_array(fts.body, ' ')), 2 UNION ALL
                      SELECT unnest(string_to_array(fts.context, ' ')), 3) x
                WHERE t <> '' GROUP BY t) y), '{}');
        ALTER TABLE fts ALTER COLUMN tf SET NOT NULL;
        -- recall reads tf for every posting it scores: kept in the row (compressed, lz4 when the server has it),
        -- the texts and the tsvector go out of line first
        ALTER TABLE fts ALTER COLUMN tf SET STORAGE MAIN;
        DO $$ BEGIN
            ALTER TABLE fts ALTER COLUMN tf SET COMPRESSION lz4, ALTER COLUMN tsv SET COMPRESSION lz4,
                ALTER COLUMN body SET COMPRESSION lz4, ALTER COLUMN context SET COMPRESSION lz4;
        EXCEPTION WHEN OTHERS THEN NULL;  -- a server built without lz4 keeps pglz
        END $$;
        CREATE INDEX fts_project_id ON fts(project, id);
        CREATE TABLE fts_stats(project text NOT NULL, shard integer NOT NULL, n bigint NOT NULL, total bigint NOT NULL,
                               PRIMARY KEY (project, shard));
        CREATE TABLE term_df(project text NOT NULL, term text NOT NULL, shard integer NOT NULL, df bigint NOT NULL,
                             PRIMARY KEY (project, term, shard));
        INSERT INTO fts_stats(project, shard, n, total) SELECT project, 0, count(*), coalesce(sum(dl), 0) FROM fts GROUP BY project;
        INSERT INTO term_df(project, term, shard, df)
            SELECT project, t, 0, count(*) FROM fts, unnest(tsvector_to_array(tsv)) t GROUP BY project, t;
    """)
    for t in ("fts_stats", "term_df"):
        cur.execute(f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY")
        cur.execute(f"CREATE POLICY {t}_project ON {t} USING (project = current_setting('app.project', true) "
                    f"AND (SELECT memdir_project_ok())) WITH CHECK (project = current_setting('app.project', true) "
                    f"AND (SELECT memdir_project_ok()))")
        cur.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {t} TO {CLIENT_ROLE}")
    cur.execute("""
        UPDATE docs SET handle = NULL WHERE id IN (
            SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY project, handle ORDER BY id) AS k FROM docs
                            WHERE handle IS NOT NULL) x WHERE k > 1);
        DROP INDEX docs_handle;
        CREATE UNIQUE INDEX docs_handle ON docs(project, handle);
    """)


def m005_private_events(cur) -> None:
    """A person's events are private unless the project shares them (issue 14), enforced by row-level security:
    ``docs.owner`` and ``fts.owner`` are the person whose token wrote the row (``memdir_person()``, set by default and
    checked on write: a client cannot write rows in another person's name); a row is visible to its owner, to
    everyone in the project when it has no owner (notes, rows the schema owner wrote) or when the project shares its
    events (``memdir_projects.share_events``, set by the admin: ``memdir store share PROJECT``). Uniqueness stays per
    project (a second person's identical event is a duplicate), so ``memdir_doc_taken`` and ``memdir_free_handle``
    (owner's rights, no rows returned) tell a writer whether a key, text or handle is taken by a row it cannot see."""
    cur.execute("""
        CREATE TABLE memdir_projects(project text PRIMARY KEY, share_events boolean NOT NULL DEFAULT false);
        REVOKE ALL ON memdir_projects FROM PUBLIC;
        CREATE FUNCTION memdir_person() RETURNS text
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT t.person FROM public.memdir_tokens t
            WHERE t.sha256 = encode(sha256(convert_to(coalesce(current_setting('app.token', true), ''), 'UTF8')), 'hex')
        $$;
        CREATE FUNCTION memdir_project_shares() RETURNS boolean
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT coalesce((SELECT p.share_events FROM public.memdir_projects p
                             WHERE p.project = current_setting('app.project', true)), false)
        $$;
        CREATE FUNCTION memdir_doc_taken(p text, r text, k text) RETURNS boolean
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT p = current_setting('app.project', true) AND EXISTS (
                SELECT 1 FROM public.docs d WHERE d.project = p AND (d.ref = r OR (k IS NOT NULL AND d.kind = 'event'
                AND d.content_sha256 = k)))
        $$;
        CREATE FUNCTION memdir_free_handle(p text, cands text[], r text) RETURNS text
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT u.c FROM unnest(cands) WITH ORDINALITY AS u(c, o)
            WHERE p = current_setting('app.project', true)
              AND NOT EXISTS (SELECT 1 FROM public.docs x WHERE x.project = p AND x.handle = u.c AND x.ref <> r)
            ORDER BY u.o LIMIT 1
        $$;
        ALTER TABLE docs ADD COLUMN owner text DEFAULT memdir_person();
        ALTER TABLE fts ADD COLUMN owner text DEFAULT memdir_person();
        CREATE INDEX fts_owner ON fts(project, owner) WHERE owner IS NOT NULL;
    """)
    for fn in ("memdir_person()", "memdir_project_shares()", "memdir_doc_taken(text, text, text)",
               "memdir_free_handle(text, text[], text)"):
        cur.execute(f"REVOKE ALL ON FUNCTION {fn} FROM PUBLIC")
        cur.execute(f"GRANT EXECUTE ON FUNCTION {fn} TO {CLIENT_ROLE}")
    for t in ("docs", "fts"):
        cur.execute(f"DROP POLICY {t}_project ON {t}")
        cur.execute(f"""CREATE POLICY {t}_project ON {t}
            USING (project = current_setting('app.project', true) AND (SELECT memdir_project_ok())
                   AND (owner IS NULL OR owner = (SELECT memdir_person()) OR (SELECT memdir_project_shares())))
            WITH CHECK (project = current_setting('app.project', true) AND (SELECT memdir_project_ok())
                        AND (owner IS NULL OR owner = (SELECT memdir_person())))""")


#: the person a client connection writes as (``''``: no token, e.g. the schema owner), evaluated once per statement
ME = "(SELECT coalesce(memdir_person(), ''))"
#: rows of ``PROJECT_TABLES``-like tables a connection may see (m007): ``{shareable}`` says which rows the project's
#: sharing opens to its other members
_P = "project = current_setting('app.project', true) AND (SELECT memdir_project_ok())"
_OWN = f"(owner = '' OR owner = {ME})"


def m007_per_person_keys_and_counters(cur) -> None:
    """Each person's memory is theirs, also in what the database deduplicates and counts (issue 14):

    * keys and texts are unique per person: ``docs(project, owner, ref)`` and, for events, ``(project, owner,
      content_sha256)`` (were per project, so a second person's identical event was a "duplicate" stored nowhere
      they could see); ``owner`` is ``''`` for rows written without a token (never NULL), the default is
      ``coalesce(memdir_person(), '')``;
    * tombstones, heat tiers and vectors carry the owner too (keys ``(project, owner, ref)``): a person forgets only
      for themselves, and another member never reads the embedding of a private event;
    * the BM25 counters (``fts_stats``, ``term_df``) are kept per owner and per notes/events (``fts.note``) and are
      visible exactly as the rows they count, so N, avgdl and every n_t a person's recall uses are those of the rows
      that person can see: no statistic moves because of another person's private row (the scores equal SQLite's
      over the same visible rows);
    * row-level security per command: a row is read when it is the person's own, ownerless, or (events, their
      full-text rows, counters, vectors and tiers of events) when the project shares its events; it is written,
      updated and deleted only when it is the person's own or ownerless — sharing opens reading, never another
      person's forgetting. Notes are each person's mirror of their clone's Markdown (shared through Git, never
      through the share switch)."""
    cur.execute("""
        UPDATE docs SET owner = '' WHERE owner IS NULL;
        UPDATE fts SET owner = '' WHERE owner IS NULL;
        ALTER TABLE docs ALTER COLUMN owner SET DEFAULT coalesce(memdir_person(), ''), ALTER COLUMN owner SET NOT NULL;
        ALTER TABLE fts ALTER COLUMN owner SET DEFAULT coalesce(memdir_person(), ''), ALTER COLUMN owner SET NOT NULL;
        ALTER TABLE fts ADD COLUMN note boolean NOT NULL DEFAULT false;
        UPDATE fts SET note = true FROM docs d WHERE d.id = fts.doc_id AND d.kind = 'note';
        ALTER TABLE docs DROP CONSTRAINT docs_project_ref_key;
        CREATE UNIQUE INDEX docs_owner_ref ON docs(project, owner, ref);
        CREATE INDEX docs_ref ON docs(project, ref);
        DROP INDEX docs_event_sha;
        CREATE UNIQUE INDEX docs_event_sha ON docs(project, owner, content_sha256) WHERE kind = 'event';
        DROP INDEX fts_owner;
        CREATE INDEX fts_owner ON fts(project, owner) WHERE owner <> '';

        ALTER TABLE tombstones ADD COLUMN owner text NOT NULL DEFAULT '';
        ALTER TABLE tiers ADD COLUMN owner text NOT NULL DEFAULT '';
        ALTER TABLE vectors ADD COLUMN owner text NOT NULL DEFAULT '';
        UPDATE tiers t SET owner = d.owner FROM docs d WHERE d.project = t.project AND d.ref = t.ref;
        UPDATE vectors v SET owner = d.owner FROM docs d WHERE d.project = v.project AND d.ref = v.ref;
        ALTER TABLE tombstones ALTER COLUMN owner SET DEFAULT coalesce(memdir_person(), ''),
            DROP CONSTRAINT tombstones_pkey, ADD PRIMARY KEY (project, owner, ref);
        ALTER TABLE tiers ALTER COLUMN owner SET DEFAULT coalesce(memdir_person(), ''),
            DROP CONSTRAINT tiers_pkey, ADD PRIMARY KEY (project, owner, ref);
        ALTER TABLE vectors ALTER COLUMN owner SET DEFAULT coalesce(memdir_person(), ''),
            DROP CONSTRAINT vectors_pkey, ADD PRIMARY KEY (project, owner, ref);

        ALTER TABLE fts_stats ADD COLUMN owner text NOT NULL DEFAULT '', ADD COLUMN note boolean NOT NULL DEFAULT false;
        ALTER TABLE term_df ADD COLUMN owner text NOT NULL DEFAULT '', ADD COLUMN note boolean NOT NULL DEFAULT false;
        DELETE FROM fts_stats;
        DELETE FROM term_df;
        ALTER TABLE fts_stats DROP CONSTRAINT fts_stats_pkey, ADD PRIMARY KEY (project, owner, note, shard);
        ALTER TABLE term_df DROP CONSTRAINT term_df_pkey, ADD PRIMARY KEY (project, term, owner, note, shard);
        INSERT INTO fts_stats(project, owner, note, shard, n, total)
            SELECT project, owner, note, 0, count(*), coalesce(sum(dl), 0) FROM fts GROUP BY 1, 2, 3;
        INSERT INTO term_df(project, term, owner, note, shard, df)
            SELECT project, t, owner, note, 0, count(*) FROM fts, unnest(tsvector_to_array(tsv)) t GROUP BY 1, 2, 3, 4;

        CREATE OR REPLACE FUNCTION memdir_doc_taken(p text, r text, k text) RETURNS boolean
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT p = current_setting('app.project', true) AND EXISTS (
                SELECT 1 FROM public.docs d WHERE d.project = p AND d.owner = coalesce(public.memdir_person(), '')
                AND (d.ref = r OR (k IS NOT NULL AND d.kind = 'event' AND d.content_sha256 = k)))
        $$;
        CREATE OR REPLACE FUNCTION memdir_free_handle(p text, cands text[], r text) RETURNS text
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
            SELECT u.c FROM unnest(cands) WITH ORDINALITY AS u(c, o)
            WHERE p = current_setting('app.project', true)
              AND NOT EXISTS (SELECT 1 FROM public.docs x WHERE x.project = p AND x.handle = u.c
                              AND NOT (x.ref = r AND x.owner = coalesce(public.memdir_person(), '')))
            ORDER BY u.o LIMIT 1
        $$;
    """)
    shares = "(SELECT memdir_project_shares())"
    of_event = ("EXISTS (SELECT 1 FROM docs d WHERE d.project = {t}.project AND d.owner = {t}.owner AND d.ref = {t}.ref "
                "AND d.kind = 'event')")
    shareable = {"docs": "kind = 'event'", "fts": "NOT note", "fts_stats": "NOT note", "term_df": "NOT note",
                 "tombstones": "false", "tiers": of_event.format(t="tiers"), "vectors": of_event.format(t="vectors")}
    for t, sh in shareable.items():
        cur.execute(f"DROP POLICY {t}_project ON {t}")
        cur.execute(f"CREATE POLICY {t}_read ON {t} FOR SELECT USING ({_P} AND ({_OWN} OR (({sh}) AND {shares})))")
        cur.execute(f"CREATE POLICY {t}_insert ON {t} FOR INSERT WITH CHECK ({_P} AND {_OWN})")
        cur.execute(f"CREATE POLICY {t}_update ON {t} FOR UPDATE USING ({_P} AND {_OWN}) WITH CHECK ({_P} AND {_OWN})")
        cur.execute(f"CREATE POLICY {t}_delete ON {t} FOR DELETE USING ({_P} AND {_OWN})")


def share_events(conn, project: str, share: bool = True) -> None:
    """Make ``project``'s events visible to every person its tokens grant (``share``), or private to the person who
    wrote each (the default). ``conn`` is an admin connection."""
    conn.execute("INSERT INTO memdir_projects(project, share_events) VALUES (%s, %s) ON CONFLICT (project) "
                 "DO UPDATE SET share_events = excluded.share_events", (project, bool(share)))


#: pgvector's first release with HNSW indexes
PGVECTOR_MIN = (0, 5, 0)

#: HNSW search breadth: ``hnsw.ef_search`` = this × the candidates asked (at least 40, pgvector's default; at most
#: 1,000, its limit); bench/pg_vectors.py measures recall@10 and latency per value
HNSW_EF_FACTOR = 4

#: HNSW graph build: links per node and build breadth (``WITH (m, ef_construction)``), as memdir.engine.hybrid' own ANN
HNSW_M, HNSW_EF_CONSTRUCTION = 16, 64


def _version(v: str | None) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in (v or "").split("."))
    except ValueError:
        return ()


def vec_literal(vec: Any) -> str:
    """A float32 vector as pgvector's text input (``[x,y,…]``); each value's shortest repr reads back as the same
    float32, so the server holds exactly the bytes the SQLite path stores."""
    return "[" + ",".join(map(repr, vec.tolist())) + "]"


def enable_pgvector(conn) -> bool:
    """Install the ``vector`` extension (pgvector ≥ 0.5.0, which has HNSW) and the ``vectors.embedding`` column when
    the server has it and this login may; copy the vectors stored so far into it. Returns whether the column is there.
    Run by migration m006 and again at connect when the server gained pgvector later (``CREATE EXTENSION`` needs a
    superuser or the database owner: a client login just keeps exact scoring in the application)."""
    if pgvector_column(conn):
        return True
    ext = conn.execute("SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if ext is None or _version(ext["installed_version"] or ext["default_version"]) < PGVECTOR_MIN:
        return False
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("ALTER TABLE vectors ADD COLUMN IF NOT EXISTS embedding vector")
            _vector_storage(conn)
            rows = conn.execute("SELECT ctid::text AS tid, vector FROM vectors WHERE status = 'ok' AND vector IS NOT NULL "
                                "AND embedding IS NULL").fetchall()  # by row (the key is per person since m007)
            if rows:
                import numpy as np
            with conn.cursor() as cur:
                cur.executemany("UPDATE vectors SET embedding = %s::vector WHERE ctid = %s::tid",
                                [(vec_literal(np.frombuffer(r["vector"], dtype=np.float32)), r["tid"]) for r in rows])
            for d in conn.execute("SELECT DISTINCT dim FROM vectors WHERE embedding IS NOT NULL").fetchall():
                _create_hnsw(conn, int(d["dim"]))
    except psycopg.Error:
        return False
    return True


def _vector_storage(conn) -> None:
    """Keep the searched column in the row and move the bytes (read only without pgvector) out of line: a 384-float
    row holds 3 KB of both, over PostgreSQL's 2 KB TOAST threshold, and a search would otherwise fetch every
    candidate's vector from TOAST (bench/results/pg_vectors.md: exact search on dense vectors 176-182 -> 82 ms p50 at
    10k, same load). Applies to rows written afterwards."""
    conn.execute("ALTER TABLE vectors ALTER COLUMN vector SET STORAGE EXTERNAL, ALTER COLUMN embedding SET STORAGE MAIN")


def pgvector_column(conn) -> bool:
    """Whether ``vectors.embedding`` (pgvector) exists."""
    return conn.execute("SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('vectors') AND attname = 'embedding' "
                        "AND NOT attisdropped").fetchone() is not None


def hnsw_dims(conn) -> set[int]:
    """The vector lengths that have an HNSW index (``vectors_hnsw_<dim>``)."""
    return {int(r["indexname"].rsplit("_", 1)[1]) for r in conn.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'vectors' AND indexname LIKE 'vectors\\_hnsw\\_%'")}


def _create_hnsw(conn, dim: int) -> None:
    """An HNSW index (inner product on unit vectors = cosine; pgvector's defaults m = 16, ef_construction = 64) over
    the vectors of length ``dim``: pgvector indexes a fixed length, so one partial expression index per length."""
    dim = int(dim)
    conn.execute(f"CREATE INDEX IF NOT EXISTS vectors_hnsw_{dim} ON vectors USING hnsw ((embedding::vector({dim})) "
                 f"vector_ip_ops) WITH (m = {int(HNSW_M)}, ef_construction = {int(HNSW_EF_CONSTRUCTION)}) WHERE dim = {dim}")


def m006_pgvector(cur) -> None:
    """Vectors in pgvector where the server has it (``vectors.embedding``, HNSW per vector length); otherwise
    vectors stay scored in the application. Also lets client logins use the sequences made after m002 (``vectors.seq``:
    before, a client login could not write a vector)."""
    cur.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {CLIENT_ROLE}")
    enable_pgvector(cur.connection)


def m008_vector_storage(cur) -> None:
    """Where m006 added ``vectors.embedding``: keep it in the row and the bytes out of line (:func:`_vector_storage`;
    ``enable_pgvector`` does the same when pgvector arrives later)."""
    if pgvector_column(cur.connection):
        _vector_storage(cur.connection)


def m009_rehearsal_per_person(cur) -> None:
    """Recall counters per person (issue 14): ``rehearsal`` was keyed ``(project, ref)`` under the project-only
    policy of m002, so any member read the key and count of another person's rehearsed *private* event, and the same
    key from two people shared one counter (one person's recalls lifted the other's row). Now a counter is the row of
    the person whose recall bumped it (``owner``, default ``coalesce(memdir_person(), '')``, key ``(project, owner,
    ref)``) under the docs rows' row-level security per command (read, insert, update, delete own or ownerless), and
    sharing a project's events never opens it: what a person recalled, and how often, is theirs. Recall reads the
    asker's own counter plus an ownerless one (:data:`_REHEARSAL`).

    Back-fill: each old counter goes to every person holding a row with its key (the same count and time: before,
    the count was shared by them all); a counter of an ownerless row stays ownerless; a counter whose key no row has
    any more (it could name a forgotten private event, and no recall reads it) is dropped."""
    cur.execute("""
        ALTER TABLE rehearsal DROP CONSTRAINT rehearsal_pkey;
        ALTER TABLE rehearsal ADD COLUMN owner text;
        INSERT INTO rehearsal(project, owner, ref, count, last)
            SELECT DISTINCT r.project, d.owner, r.ref, r.count, r.last FROM rehearsal r
            JOIN docs d ON d.project = r.project AND d.ref = r.ref WHERE r.owner IS NULL;
        DELETE FROM rehearsal WHERE owner IS NULL;
        ALTER TABLE rehearsal ALTER COLUMN owner SET DEFAULT coalesce(memdir_person(), ''),
            ALTER COLUMN owner SET NOT NULL, ADD PRIMARY KEY (project, owner, ref);
    """)
    cur.execute("DROP POLICY rehearsal_project ON rehearsal")
    cur.execute(f"CREATE POLICY rehearsal_read ON rehearsal FOR SELECT USING ({_P} AND {_OWN})")
    cur.execute(f"CREATE POLICY rehearsal_insert ON rehearsal FOR INSERT WITH CHECK ({_P} AND {_OWN})")
    cur.execute(f"CREATE POLICY rehearsal_update ON rehearsal FOR UPDATE USING ({_P} AND {_OWN}) WITH CHECK ({_P} AND {_OWN})")
    cur.execute(f"CREATE POLICY rehearsal_delete ON rehearsal FOR DELETE USING ({_P} AND {_OWN})")


#: the recall counter a connection ranks a ``docs d`` row with (m009): its person's own plus an ownerless one, as
#: ``r.count`` / ``r.last`` (NULL when none)
_REHEARSAL = ("LEFT JOIN LATERAL (SELECT sum(x.count)::integer AS count, max(x.last) AS last FROM rehearsal x "
              f"WHERE x.project = d.project AND x.ref = d.ref AND x.owner IN ('', {ME})) r ON true")


#: numbered schema migrations; append, never edit a landed one
MIGRATIONS = [m001_create_tables, m002_row_level_security, m003_tiers_vectors, m004_stats_and_term_counts,
              m005_private_events, m006_pgvector, m007_per_person_keys_and_counters, m008_vector_storage,
              m009_rehearsal_per_person]


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


#: a frequent term's newest postings are looked for in the newest ``CAP_WINDOW · PER_TERM_CAP · N / n_t`` rows
CAP_WINDOW = 2.0

#: bits of each field's count in a packed ``fts.tf`` value; the most frequent first, so most values are small numbers
TF_BITS = 12
TF_SHIFT = {"body": 0, "context": 12, "title": 24, "tags": 36}
TF_MAX = (1 << TF_BITS) - 1


def _tf(fields: Iterable[str]) -> str:
    """``{term: packed counts}`` of a full-text row (fields: tags, title, body, context) as JSON (``fts.tf``): the
    term's count in each field, :data:`TF_BITS` bits at :data:`TF_SHIFT` (at most :data:`TF_MAX`; BM25's tf part has
    long saturated there). One number per term keeps the column small: it is read for every posting recall scores."""
    packed: Counter = Counter()
    for f, sh in zip(fields, (TF_SHIFT[x] for x in FIELDS)):
        if f:
            for t, n in Counter(f.split()).items():
                packed[t] += min(n, TF_MAX) << sh
    return json.dumps(packed, ensure_ascii=False, separators=(",", ":"))


class PgStore:
    """One project's view of a PostgreSQL memdir database (see the module docstring)."""

    def __init__(self, conn, project: str) -> None:
        if not project:
            raise MemdirError("a PostgreSQL store needs a project name")
        self.conn = conn
        self.project = project
        self._depth = 0  # transactions open through this store (the counters are written when the outermost ends)
        # per (owner, note) counter key (m007): full-text rows added (negative: removed) since the counters were
        # written, their length, and the rows holding each term
        self._dn: Counter = Counter()
        self._dtotal: Counter = Counter()
        self._ddf: Counter = Counter()  # {(owner, note, term): rows}
        self._me: str | None = None
        self._members: bool | None = None  # whether a token grants this project (checked once per transaction)
        self._pgvector: bool | None = None  # vectors.embedding exists (pgvector); looked up when first needed
        self._hnsw: set[int] | None = None  # vector lengths with an HNSW index

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
        try:
            migrate(conn)
            conn.execute("SELECT set_config('app.project', %s, false), set_config('app.token', %s, false)",
                         (project, token or ""))
        except psycopg.errors.InsufficientPrivilege as exc:  # a client login on a database nobody set up (or upgraded)
            conn.close()
            raise MemdirError(f"the store {_safe_url(url)} has no memdir schema (or an older one) and this login may not "
                              f"create it ({str(exc).strip().splitlines()[0]}): connect once with the schema owner's "
                              "URL (e.g. `memdir store grant <login> --store <owner's URL>`)") from None
        except psycopg.Error as exc:
            conn.close()
            raise MemdirError(f"the store {_safe_url(url)} could not be prepared: {str(exc).strip().splitlines()[0]}") from None
        store = cls(conn, project)
        store._pgvector = enable_pgvector(conn)  # also when the server gained pgvector after migration m006
        return store

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator["PgStore"]:
        with self._tx():
            yield self

    @contextmanager
    def _tx(self) -> Iterator[None]:
        self._depth += 1
        try:
            with self.conn.transaction():
                yield
                if self._depth == 1:
                    self._flush_counts()
        finally:
            self._depth -= 1
            if self._depth == 0:  # committed (written) or rolled back (dropped with the rows they counted)
                self._dn, self._dtotal, self._ddf = Counter(), Counter(), Counter()
                self._members = None

    @property
    def me(self) -> str:
        """The person this connection writes as (``memdir_person()``; ``''`` without a token): the ``owner`` of the
        rows it inserts (m007)."""
        if self._me is None:
            self._me = self._x("SELECT coalesce(memdir_person(), '') AS me").fetchone()["me"]
        return self._me

    def has_members(self) -> bool:
        """Whether a token grants this project (it has members whose events are private). Read by a connection
        allowed to read ``memdir_tokens`` (the schema owner, a superuser); ``False`` for any other (a client login
        without a token sees and writes nothing anyway: row-level security)."""
        if self._members is None or self._depth == 0:
            ok = self._x("SELECT has_table_privilege('memdir_tokens', 'SELECT') AS ok").fetchone()["ok"]
            self._members = bool(ok) and self._x("SELECT EXISTS (SELECT 1 FROM memdir_tokens WHERE %s = ANY(projects)) AS m",
                                                 (self.project,)).fetchone()["m"]
        return self._members

    def ownerless_refusal(self) -> str | None:
        """Why this connection may not write events here, or ``None``. A connection without a person (the schema
        owner or a superuser with no token) writes rows with no owner, which every member of the project reads: in
        a project that has members (a token grants it) its events would be nobody's private memory, so they must
        carry a person — the connection's token (``MEMDIR_STORE_TOKEN``; the remote token for ``export --store``)
        — or be refused. A project nobody holds a token for (one person's own database) keeps ownerless rows."""
        if self.me or not self.has_members():
            return None
        return (f"this store login has no person for project {self.project!r}, which has members: its events would "
                "have no owner and every member would read them; set MEMDIR_STORE_TOKEN (export --store: "
                f"MEMDIR_REMOTE_TOKEN) to the person's token (`memdir store token PERSON --project {self.project}`)")

    def _own_events(self) -> None:
        why = self.ownerless_refusal()
        if why:
            raise MemdirError(why)

    def _count(self, sign: int, dl: int, terms: Iterable[str], owner: str | None = None, note: bool = False) -> None:
        """Note a full-text row of ``owner`` (default: this connection's person) added (``sign`` 1) or removed (-1)
        for ``fts_stats``/``term_df``."""
        key = (self.me if owner is None else owner, bool(note))
        self._dn[key] += sign
        self._dtotal[key] += sign * dl
        for t in terms:
            self._ddf[(*key, t)] += sign

    def _flush_counts(self) -> None:
        """Write the pending counter changes: one statement per table, terms in one order (concurrent writers of one
        shard never wait on each other in a cycle); the last writes of the transaction, so the rows stay locked
        briefly. Outside a transaction each write calls it at once."""
        shard = "pg_backend_pid() %% " + str(STAT_SHARDS)
        ddf = sorted((t, o, n, c) for (o, n, t), c in self._ddf.items() if c)
        if ddf:
            self._x(f"INSERT INTO term_df(project, term, owner, note, shard, df) SELECT %s, t, o, n, {shard}, c FROM "
                    "unnest(%s::text[], %s::text[], %s::boolean[], %s::bigint[]) AS u(t, o, n, c) ORDER BY t, o, n "
                    "ON CONFLICT (project, term, owner, note, shard) DO UPDATE SET df = term_df.df + excluded.df",
                    (self.project, [x[0] for x in ddf], [x[1] for x in ddf], [x[2] for x in ddf], [x[3] for x in ddf]))
        for (o, n) in sorted(set(self._dn) | set(self._dtotal)):
            if self._dn[(o, n)] or self._dtotal[(o, n)]:
                self._x(f"INSERT INTO fts_stats(project, owner, note, shard, n, total) VALUES (%s, %s, %s, {shard}, %s, %s) "
                        "ON CONFLICT (project, owner, note, shard) DO UPDATE SET n = fts_stats.n + excluded.n, "
                        "total = fts_stats.total + excluded.total", (self.project, o, n, self._dn[(o, n)], self._dtotal[(o, n)]))
        self._dn, self._dtotal, self._ddf = Counter(), Counter(), Counter()

    def _done(self) -> None:
        """After a write: outside a transaction, its counter changes are written now."""
        if self._depth == 0:
            self._flush_counts()

    def write_rows(self, rows: list[dict[str, Any]]) -> dict[str, int]:
        """Store prepared event rows (the team server's ``/events`` and ``memdir import --store``) in one
        retried transaction: tombstoned refs/texts skipped, the rest inserted by deterministic key with their
        neighbour context. Returns ``{"stored", "duplicate", "skipped"}``."""
        def fn(st):
            refs, shas = st.tombstoned()
            out = {"stored": 0, "duplicate": 0, "skipped": 0}
            pending: dict[int, str] = {}
            todo = [r for r in rows if not (r["ref"] in refs or r["content_sha256"] in shas)]
            out["skipped"] = len(rows) - len(todo)
            for got in st.insert_events(todo, pending=pending):
                out["stored" if got else "duplicate"] += 1
            st.flush_events(pending)
            return out

        return self.write(fn)

    def write(self, fn, *, attempts: int = 8):
        """``fn(self)`` in one transaction, run again (up to ``attempts`` times, with a short random back-off) when
        PostgreSQL aborts it for a deadlock or a serialization failure between concurrent writers; returns what
        ``fn`` returns. Writes made of deterministic keys (``ON CONFLICT DO NOTHING``) are safe to run again."""
        import random
        import time

        import psycopg

        for n in range(attempts):
            try:
                with self._tx():
                    return fn(self)
            except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure):
                if n + 1 == attempts:
                    raise
                time.sleep(random.uniform(0.01, 0.05) * (n + 1))

    def _x(self, sql: str, params: Iterable[Any] = ()):
        return self.conn.execute(sql, tuple(params))

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
                (self.project, doc_id, seq, *(span or (None, None)), *fields, dl, _tsv_tokens(*fields), _tf(fields), note))
        self._count(1, dl, _tsv_tokens(*fields), note=note)

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
            got = self._insert(  # the doc and its own full-text row in one statement; same key or same text: stored once
                row, "INSERT INTO fts(project, doc_id, seq, body, dl, tsv, tf) SELECT %s, d.id, 0, %s, %s, "
                "array_to_tsvector(%s::text[]), %s::jsonb FROM d RETURNING doc_id",
                [self.project, toks, len(toks.split()), _tsv_tokens(toks), _tf(("", "", toks, ""))])
            if got is None:
                return None
            doc_id = got["doc_id"]
            self._count(1, len(toks.split()), _tsv_tokens(toks))
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
            fts.append((doc_id, toks, len(toks.split()), " ".join(_tsv_tokens(toks)), _tf(("", "", toks, ""))))
            self._count(1, len(toks.split()), _tsv_tokens(toks))
        if fts:
            c = list(zip(*fts))
            self._x("INSERT INTO fts(project, doc_id, seq, body, dl, tsv, tf) SELECT %s, u.doc_id, 0, u.toks, u.dl, "
                    "array_to_tsvector(string_to_array(u.tsv, ' ')), u.tf FROM unnest(%b::bigint[], %b::text[], "
                    "%b::integer[], %b::text[], %b::jsonb[]) AS u(doc_id, toks, dl, tsv, tf)",
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

    def _set_context(self, targets: dict[int, tuple[int | None, int | None]], fresh: dict[int, str] | None = None) -> int:
        """Write the ``context`` of ``targets`` (``{doc id: (previous, next)}``): the own full-text row of a doc in
        ``fresh`` (``{doc id: body tokens}``, events inserted with ``pending``) is inserted here, once, with its
        context; an existing row is updated when its context changed."""
        fresh = fresh or {}
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
            ctx = " ".join(t for x in (prev, nxt) if x is not None for t in toks.get(x, "").split()[:CONTEXT_TOKENS])
            allf = ("", "", fresh[doc_id], ctx)
            dl = sum(len(f.split()) for f in allf)
            self._count(1, dl, _tsv_tokens(*allf))
            new.append((doc_id, fresh[doc_id], ctx, dl, " ".join(_tsv_tokens(*allf)), _tf(allf)))
        if new:
            self._x("INSERT INTO fts(project, doc_id, seq, body, context, dl, tsv, tf) SELECT %s, u.doc_id, 0, u.body, u.ctx, "
                    "u.dl, array_to_tsvector(string_to_array(u.toks, ' ')), u.tf FROM unnest(%b::bigint[], %b::text[], "
                    "%b::text[], %b::integer[], %b::text[], %b::jsonb[]) AS u(doc_id, body, ctx, dl, toks, tf)",
                    [self.project, *[list(c) for c in zip(*new)]])
        upd: list[tuple] = []
        for doc_id in ids:
            r = have.get(doc_id)
            if r is None:
                continue
            prev, nxt = targets[doc_id]
            ctx = " ".join(t for x in (prev, nxt) if x is not None for t in toks.get(x, "").split()[:CONTEXT_TOKENS])
            allf = (r["tags"], r["title"], r["body"], ctx)
            if ctx == r["context"]:
                continue
            was = (r["tags"], r["title"], r["body"], r["context"])
            self._count(-1, sum(len(f.split()) for f in was), _tsv_tokens(*was), r["owner"], r["note"])
            self._count(1, sum(len(f.split()) for f in allf), _tsv_tokens(*allf), r["owner"], r["note"])
            upd.append((doc_id, ctx, sum(len(f.split()) for f in allf), " ".join(_tsv_tokens(*allf)), _tf(allf)))
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
        sess = {r["id"]: r["session"] for r in self._x("SELECT id, session FROM docs WHERE id = ANY(%s)", (list(pending),))}
        targets: dict[int, tuple[int | None, int | None]] = {}
        for session in {s for s in sess.values() if s}:
            order = self._order(session)
            for i, x in enumerate(order):
                prev = order[i - 1] if i > 0 else None
                nxt = order[i + 1] if i + 1 < len(order) else None
                if x in pending or prev in pending or nxt in pending:
                    targets[x] = (prev, nxt)
        return self._set_context(targets, fresh=pending)

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
              term_weights: dict[str, float] | None = None) -> list[tuple[int, float, int]]:
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
        for i, t in enumerate(tokens[:62]):  # a repeated term keeps the bit of its first place
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
            args += [tw * math.sqrt(qtf[t]) * idf_lucene(N, df[t]), bit.get(t, 0), t, self.project, _lexeme(t)]
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
               kinds: tuple[str, ...] | None = None, term_weights: dict[str, float] | None = None) -> list[dict[str, Any]]:
        """As :func:`memdir.store.sqlite.index.search`: each doc keeps its best full-text row; superseded notes and other
        ``kinds`` are dropped after scoring; rows are dicts of ``docs`` + ``bm25``, ``mask``, ``rehearsals``, ``span``."""
        if not tokens:
            return []
        ranked = self.score(tokens, weights=weights, limit=limit * 2 if kinds else limit, term_weights=term_weights)
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
        rows = self._x(f"SELECT d.*, coalesce(r.count, 0) AS rehearsals FROM docs d {_REHEARSAL} "
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
                   kinds: tuple[str, ...] | None = None, term_weights: dict[str, float] | None = None) -> list[dict[str, Any]]:
        """Ranking rows (:meth:`search`'s whole rows plus ``head``, the text's first 60 characters; no ``mask``: the
        facade then looks for every query term)."""
        rows = self.search(tokens, weights=weights, limit=limit, kinds=kinds, term_weights=term_weights)
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
            f"FROM docs d {_REHEARSAL} "
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

    def prune_candidates(self, max_importance: float, cutoff: float) -> list[dict[str, Any]]:
        return self._x(
            "SELECT d.ref, d.kind, d.ts, left(d.text, 100) AS head, "
            "octet_length(d.text) + coalesce(octet_length(v.vector), 0) AS bytes "
            "FROM docs d JOIN tiers t ON t.project = d.project AND t.owner = d.owner AND t.ref = d.ref "
            "LEFT JOIN vectors v ON v.project = d.project AND v.owner = d.owner AND v.ref = d.ref "
            f"WHERE d.project = %s AND d.owner = {ME} AND t.tier IN ('cold', 'archive') AND d.pinned = 0 AND t.importance < %s "
            "AND greatest(d.ts_epoch, t.reinforced_at) < %s ORDER BY d.ts_epoch DESC",
            (self.project, max_importance, cutoff)).fetchall()

    def drop_tiers(self, ref: str) -> None:
        self._x(f"DELETE FROM tiers WHERE project = %s AND ref = %s AND owner IN ('', {ME})", (self.project, ref))

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
                _create_hnsw(self.conn, dim)
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
        for r in self._x(f"SELECT d.*, coalesce(r.count, 0) AS rehearsals FROM docs d {_REHEARSAL} "
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
        from memdir.store.rows import meta_json

        rows = self._x(
            "SELECT coalesce(session, '') AS s, min(ts_epoch) AS t0, max(ts_epoch) AS t1, min(ts) AS first, max(ts) AS last, "
            "count(*) AS n, count(*) FILTER (WHERE role = 'user') AS nu, count(*) FILTER (WHERE role = 'assistant') AS na, "
            "count(*) FILTER (WHERE role = 'tool') AS nt FROM docs WHERE project = %s AND kind = 'event' "
            "GROUP BY 1 ORDER BY t1 DESC LIMIT %s", (self.project, int(limit))).fetchall()
        out = []
        for r in rows:
            meta_row = self._x("SELECT meta FROM docs WHERE project = %s AND kind = 'event' AND coalesce(session, '') = %s "
                               "AND meta IS NOT NULL ORDER BY ts_epoch LIMIT 1", (self.project, r["s"])).fetchone()
            meta = meta_json(meta_row["meta"]) if meta_row else {}
            out.append({"session": r["s"] or None, "first": r["first"], "last": r["last"], "turns": r["n"],
                        "roles": {"user": r["nu"] or 0, "assistant": r["na"] or 0, "tool": r["nt"] or 0},
                        "source": meta.get("source"), "cwd": meta.get("cwd"), "first_epoch": r["t0"], "last_epoch": r["t1"]})
        return out

    def session_events(self, session: str | None, *, limit: int = 1000) -> list[dict[str, Any]]:
        """As :func:`memdir.store.sqlite.journal.session_events`, for this project's events."""
        from memdir.store.rows import meta_json

        where = "session = %s" if session else "session IS NULL"
        params = (self.project, session, int(limit)) if session else (self.project, int(limit))
        rows = self._x(f"SELECT ref, role, text, ts, meta FROM docs WHERE project = %s AND kind = 'event' AND {where} "
                       "ORDER BY ts_epoch, id LIMIT %s", params)
        return [{"key": r["ref"], "role": r["role"], "text": r["text"], "ts": r["ts"], "meta": meta_json(r["meta"])} for r in rows]

    def scan_docs(self, prefix: str | None = None) -> Iterator[dict[str, Any]]:
        cols = "ref, kind, role, note_kind, ts, ts_epoch, text, summary, highlight, left(text, 100) AS head"
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

    def settle(self, *, freed: bool = False) -> None:
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


def doctor(url: str, *, project: str, token: str | None = None, hnsw_threshold: int = 10_000) -> list[dict[str, str]]:
    """Checks of a PostgreSQL store, shaped as :func:`memdir.engine.hybrid.doctor`'s (``check``, ``ok`` = ok|warn|fail,
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
            "SELECT relname, relrowsecurity FROM pg_class WHERE relname = ANY(%s) AND relkind = 'r'", (list(RLS_TABLES),))}
        off = [t for t in RLS_TABLES if not rls.get(t)]
        add("row-level security", "ok" if not off else "fail", "on for " + ", ".join(RLS_TABLES) if not off
            else f"off for {', '.join(off)}", "" if not off else "connect once as the schema owner to migrate")
        me = c.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user").fetchone()
        owner = c.execute("SELECT pg_get_userbyid(relowner) = current_user AS own FROM pg_class WHERE relname = 'docs'").fetchone()
        if me and (me["rolsuper"] or me["rolbypassrls"] or (owner and owner["own"])):
            add("login", "warn", "this login owns the tables or bypasses row-level security: it sees every project",
                f"give each person a client login (GRANT {CLIENT_ROLE} TO <login>) and a token; keep this one for admin")
            why = store.ownerless_refusal()
            if why:
                add("person", "fail", f"events are refused: {why}", "set MEMDIR_STORE_TOKEN, or use a client login with a token")
            elif not store.me:
                add("person", "ok", f"no token: events are written without an owner (project {project!r} has no members)")
            else:
                add("person", "ok", f"events are written as {store.me!r}")
        else:
            ok = c.execute("SELECT memdir_project_ok() AS ok").fetchone()["ok"]
            add("token", "ok" if ok else "fail", f"token grants project {project!r}" if ok else
                f"no token granting project {project!r} (nothing will be visible)", "" if ok else "ask the store's admin for a token")
        for row in pgvector_checks(store, hnsw_threshold):
            add(*row)
    except Exception as exc:  # a check that cannot run is a finding, not a crash
        add("checks", "fail", f"{type(exc).__name__}: {exc}", "")
    finally:
        store.close()
    return out


def pgvector_checks(store: PgStore, hnsw_threshold: int) -> list[tuple[str, str, str, str]]:
    """doctor's ``(check, ok, detail, remedy)`` rows on vectors: pgvector present or absent, and per model and vector
    length of the project whether its HNSW index exists and is used (above ``hnsw_threshold`` vectors)."""
    c = store.conn
    ext = c.execute("SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if ext is None:
        return [("pgvector", "warn", "absent: the vector extension is not available on this server; vectors are scored "
                 "exactly in the application", "install pgvector >= 0.5 on the server (e.g. the postgresql-<version>-"
                 "pgvector package, or a build that ships it) for HNSW")]
    have = ext["installed_version"] or ext["default_version"]
    if _version(have) < PGVECTOR_MIN:
        return [("pgvector", "warn", f"vector {have} has no HNSW (needs >= 0.5.0): vectors are scored in the application",
                 "ALTER EXTENSION vector UPDATE (as a superuser) after upgrading pgvector")]
    if not store.pgvector:
        return [("pgvector", "warn", f"vector {ext['default_version']} is available but not installed in this database: "
                 "vectors are scored in the application", "connect once with a superuser login (CREATE EXTENSION vector)")]
    out = [("pgvector", "ok", f"present: vector {ext['installed_version']}; vectors are stored and searched by the server", "")]
    dims = hnsw_dims(c)
    rows = c.execute("SELECT model, dim, count(*) AS n FROM vectors WHERE project = %s AND status = 'ok' "
                     "AND embedding IS NOT NULL GROUP BY model, dim ORDER BY model, dim", (store.project,)).fetchall()
    if not rows:
        out.append(("hnsw", "ok", "no vectors in this project yet (an HNSW index per vector length is built with the first)", ""))
    for r in rows:
        what = f"{r['model']} (length {r['dim']}): {r['n']:,} vectors"
        if r["dim"] not in dims:
            out.append(("hnsw", "warn", f"{what}, no HNSW index for this length: exact search in the server",
                        f"connect once as the table owner (it creates vectors_hnsw_{r['dim']})"))
        elif r["n"] > hnsw_threshold:
            out.append(("hnsw", "ok", f"{what}: HNSW in use (index vectors_hnsw_{r['dim']}; above "
                        f"recall.pg_hnsw_threshold = {hnsw_threshold:,})", ""))
        else:
            out.append(("hnsw", "ok", f"{what}: exact search in the server (HNSW index vectors_hnsw_{r['dim']} used above "
                        f"recall.pg_hnsw_threshold = {hnsw_threshold:,})", ""))
    return out
