"""The PostgreSQL schema: numbered migrations (:data:`MIGRATIONS`, version in ``memdir_schema``), applied by
:func:`migrate` under an advisory lock so concurrent clients migrate once."""

from __future__ import annotations

from memdir.errors import MemdirError
from memdir.store.postgres.pgvector import (
    enable_pgvector,
    pgvector_column,
    vector_storage,
)
from memdir.store.postgres.people import m012_token_lifecycle_and_personal_sharing, m013_revoked_tokens
from memdir.store.postgres.sql import CLIENT_ROLE, LOCK_KEY, OWN, PROJECT_OK


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


# CLIENT_ROLE (the NOLOGIN role of client logins) lives in memdir.store.postgres.sql, imported above


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
    (``{term: body + context·2¹² + title·2²⁴ + tags·2³⁶}``, each at most 4095: :func:`tf_json`) so one statement scores; ``fts_stats`` (rows, total length) and
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
        cur.execute(f"CREATE POLICY {t}_read ON {t} FOR SELECT USING ({PROJECT_OK} AND ({OWN} OR (({sh}) AND {shares})))")
        cur.execute(f"CREATE POLICY {t}_insert ON {t} FOR INSERT WITH CHECK ({PROJECT_OK} AND {OWN})")
        cur.execute(f"CREATE POLICY {t}_update ON {t} FOR UPDATE USING ({PROJECT_OK} AND {OWN}) WITH CHECK ({PROJECT_OK} AND {OWN})")
        cur.execute(f"CREATE POLICY {t}_delete ON {t} FOR DELETE USING ({PROJECT_OK} AND {OWN})")


def m006_pgvector(cur) -> None:
    """Vectors in pgvector where the server has it (``vectors.embedding``, HNSW per vector length); otherwise
    vectors stay scored in the application. Also lets client logins use the sequences made after m002 (``vectors.seq``:
    before, a client login could not write a vector)."""
    cur.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {CLIENT_ROLE}")
    enable_pgvector(cur.connection)


def m008_vector_storage(cur) -> None:
    """Where m006 added ``vectors.embedding``: keep it in the row and the bytes out of line (:func:`vector_storage`;
    ``enable_pgvector`` does the same when pgvector arrives later)."""
    if pgvector_column(cur.connection):
        vector_storage(cur.connection)


def m009_rehearsal_per_person(cur) -> None:
    """Recall counters per person (issue 14): ``rehearsal`` was keyed ``(project, ref)`` under the project-only
    policy of m002, so any member read the key and count of another person's rehearsed *private* event, and the same
    key from two people shared one counter (one person's recalls lifted the other's row). Now a counter is the row of
    the person whose recall bumped it (``owner``, default ``coalesce(memdir_person(), '')``, key ``(project, owner,
    ref)``) under the docs rows' row-level security per command (read, insert, update, delete own or ownerless), and
    sharing a project's events never opens it: what a person recalled, and how often, is theirs. Recall reads the
    asker's own counter plus an ownerless one (:data:`REHEARSAL`).

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
    cur.execute(f"CREATE POLICY rehearsal_read ON rehearsal FOR SELECT USING ({PROJECT_OK} AND {OWN})")
    cur.execute(f"CREATE POLICY rehearsal_insert ON rehearsal FOR INSERT WITH CHECK ({PROJECT_OK} AND {OWN})")
    cur.execute(f"CREATE POLICY rehearsal_update ON rehearsal FOR UPDATE USING ({PROJECT_OK} AND {OWN}) WITH CHECK ({PROJECT_OK} AND {OWN})")
    cur.execute(f"CREATE POLICY rehearsal_delete ON rehearsal FOR DELETE USING ({PROJECT_OK} AND {OWN})")

def _context(bodies: dict[int, str], prev: int | None, nxt: int | None, *, first_n: bool = False) -> str:
    """An event's context as the writes make it now (:func:`memdir.store.rows.context_tokens`), or with ``first_n``
    as they made it before issue 26 (each neighbour's first tokens, stopwords included)."""
    from memdir.store.rows import CONTEXT_TOKENS, context_tokens

    if first_n:
        return " ".join(t for x in (prev, nxt) if x is not None for t in bodies.get(x, "").split()[:CONTEXT_TOKENS])
    return " ".join(t for x in (prev, nxt) if x is not None for t in context_tokens(bodies.get(x, "")))


def m011_accent_folding(cur) -> None:
    """Accent folding (case C31, tokenizer v5: :func:`memdir.recall.tokenize.fold`): a word with accented Latin
    letters is indexed with its folded spelling too (``café`` → ``café cafe``). PostgreSQL keeps memdir's tokens in
    ``fts``, so the rows written before are re-tokenized here from ``docs`` (notes: tags + load_when, summary +
    highlight, text; an event's passages by their spans), as the writes make them: only rows whose tokens change
    (notes, and events whose text is not ASCII). An event's ``context`` (its neighbours' first
    :data:`memdir.store.rows.CONTEXT_TOKENS` tokens, per person and session) is recomputed where it was what the old
    tokens gave (a context left otherwise is kept). The BM25 counters (``fts_stats``, ``term_df``) are then counted
    again from the rows, as m007 did."""
    retokenize(cur, "d.kind = 'note' OR octet_length(d.text) <> char_length(d.text)")


def retokenize(cur, where: str, params: tuple = ()) -> None:
    """Re-tokenize the full-text rows of the docs ``where`` selects (SQL over ``d``, the docs table, with ``params``)
    as writes make them now, their events' neighbours' contexts where they were what the old tokens gave, and count
    the BM25 counters again (m011, m014)."""
    import json

    from memdir.recall import passages
    from memdir.recall.tokenize import tokenize
    from memdir.store.postgres.sql import tf_json, tsv_tokens
    from memdir.store.rows import event_labels, fts_fields

    cur.execute("SELECT f.id, f.doc_id, f.seq, f.span_start, f.span_end, f.tags, f.title, f.body, f.context, d.kind, "
                "d.role, d.text, d.tags AS dtags, d.load_when, d.summary, d.highlight, d.project, d.owner, d.session, d.meta "
                "FROM fts f JOIN docs d ON d.id = f.doc_id WHERE " + where, params)
    new: dict[int, list[str]] = {}  # fts id -> [tags, title, body, context]
    old_body: dict[int, str] = {}  # event doc id -> its own row's body, before and after
    new_body: dict[int, str] = {}
    sessions: set[tuple[str, str, str]] = set()
    for r in cur.fetchall():
        text = r["text"]
        if r["kind"] == "note":
            tags = json.loads(r["dtags"] or "[]") + json.loads(r["load_when"] or "[]")
            title = " ".join(x for x in (r["summary"], r["highlight"]) if x)
            fields = [*fts_fields(tags, title, text), r["context"]]
        else:
            if r["seq"] == 0:
                a, b = passages.split(text, split_above=passages.split_above(r["role"]))[0]
            else:
                a, b = r["span_start"], r["span_end"]
            labels = event_labels(r["meta"]) if r["seq"] == 0 else (r["tags"], r["title"])  # m010's, folded too
            fields = [labels[0], labels[1], " ".join(tokenize(text[a:b])), r["context"]]
            if r["seq"] == 0 and fields[2] != r["body"]:
                old_body[r["doc_id"]], new_body[r["doc_id"]] = r["body"], fields[2]
                if r["session"]:
                    sessions.add((r["project"], r["owner"], r["session"]))
        if fields != [r["tags"], r["title"], r["body"], r["context"]]:
            new[r["id"]] = fields
    for project, owner, session in sorted(sessions):
        cur.execute("SELECT d.id, f.id AS fid, f.tags, f.title, f.body, f.context FROM docs d JOIN fts f ON "
                    "f.doc_id = d.id AND f.seq = 0 WHERE d.project = %s AND d.owner = %s AND d.kind = 'event' AND "
                    "d.session = %s ORDER BY d.ts_epoch, d.id", (project, owner, session))
        rows = cur.fetchall()
        before = {r["id"]: old_body.get(r["id"], r["body"]) for r in rows}
        after = {r["id"]: new_body.get(r["id"], r["body"]) for r in rows}
        for i, r in enumerate(rows):
            prev = rows[i - 1]["id"] if i else None
            nxt = rows[i + 1]["id"] if i + 1 < len(rows) else None
            if not r["context"] or r["context"] not in (_context(before, prev, nxt), _context(before, prev, nxt, first_n=True)):
                continue
            ctx = _context(after, prev, nxt)
            if ctx != r["context"]:
                new.setdefault(r["fid"], [r["tags"], r["title"], after[r["id"]], r["context"]])[3] = ctx
    if not new:
        return
    cur.executemany("UPDATE fts SET tags = %s, title = %s, body = %s, context = %s, dl = %s, "
                    "tsv = array_to_tsvector(%s::text[]), tf = %s::jsonb WHERE id = %s",
                    [(*f, sum(len(x.split()) for x in f), tsv_tokens(*f), tf_json(f), fid) for fid, f in new.items()])
    cur.execute("""
        DELETE FROM fts_stats;
        DELETE FROM term_df;
        INSERT INTO fts_stats(project, owner, note, shard, n, total)
            SELECT project, owner, note, 0, count(*), coalesce(sum(dl), 0) FROM fts GROUP BY 1, 2, 3;
        INSERT INTO term_df(project, term, owner, note, shard, df)
            SELECT project, t, owner, note, 0, count(*) FROM fts, unnest(tsvector_to_array(tsv)) t GROUP BY 1, 2, 3, 4;
    """)



def relabel_events(cur, labels_of=None) -> int:
    """Give every event's own full-text row the tags and title its ``meta`` holds (``labels_of(meta) -> (tags
    tokens, title tokens)``, default :func:`memdir.store.rows.event_labels`), with its length, terms and packed counts,
    and move ``fts_stats``/``term_df`` by the difference (shard 0 of the row's owner and kind). Only events whose
    ``meta`` names a title or tags are read; a row already as it should be is left. Returns rows rewritten."""
    from collections import Counter

    from memdir.store.postgres.sql import tf_json, tsv_tokens
    from memdir.store.rows import event_labels

    labels_of = labels_of or event_labels
    cur.execute("SELECT f.id, f.project, f.owner, f.note, f.tags, f.title, f.body, f.context, f.dl, d.meta FROM fts f "
                "JOIN docs d ON d.id = f.doc_id WHERE f.seq = 0 AND d.kind = 'event' AND (d.meta LIKE %s OR d.meta LIKE %s) "
                "ORDER BY f.id", ('%"title"%', '%"tags"%'))
    total: Counter = Counter()
    df: Counter = Counter()
    n = 0
    for r in cur.fetchall():
        new = labels_of(r["meta"])
        if new == (r["tags"] or "", r["title"] or ""):
            continue
        was = (r["tags"] or "", r["title"] or "", r["body"] or "", r["context"] or "")
        allf = (*new, was[2], was[3])
        dl = sum(len(f.split()) for f in allf)
        cur.execute("UPDATE fts SET tags = %s, title = %s, dl = %s, tsv = array_to_tsvector(%s::text[]), tf = %s::jsonb "
                    "WHERE id = %s", (allf[0], allf[1], dl, tsv_tokens(*allf), tf_json(allf), r["id"]))
        key = (r["project"], r["owner"], r["note"])
        total[key] += dl - (r["dl"] or 0)
        old_t, new_t = set(tsv_tokens(*was)), set(tsv_tokens(*allf))
        for t in new_t - old_t:
            df[(*key, t)] += 1
        for t in old_t - new_t:
            df[(*key, t)] -= 1
        n += 1
    for (project, owner, note), d in sorted(total.items()):
        cur.execute("INSERT INTO fts_stats(project, owner, note, shard, n, total) VALUES (%s, %s, %s, 0, 0, %s) "
                    "ON CONFLICT (project, owner, note, shard) DO UPDATE SET total = fts_stats.total + excluded.total",
                    (project, owner, note, d))
    for (project, owner, note, t), d in sorted(df.items()):
        if d:
            cur.execute("INSERT INTO term_df(project, term, owner, note, shard, df) VALUES (%s, %s, %s, %s, 0, %s) "
                        "ON CONFLICT (project, term, owner, note, shard) DO UPDATE SET df = term_df.df + excluded.df",
                        (project, t, owner, note, d))
    return n


def m010_event_labels(cur) -> None:
    """An imported record's own tags and title (its ``meta``: a drop file's or a JSONL record's ``title``/``tags``, a
    claude-mem observation's title) are indexed in its row's tags and title fields, as the SQLite index does
    (:func:`memdir.store.rows.event_labels`): the rows written before get them here (:func:`relabel_events`)."""
    relabel_events(cur)


def m014_dotted_capital_i(cur) -> None:
    """A Turkish dotted capital I reads as ``i`` (:func:`memdir.recall.tokenize.normalize`; it cut ``İstanbul`` in two):
    the rows of the docs that hold one (or its decomposed form, a combining dot above) are re-tokenized
    (:func:`retokenize`); others keep their tokens."""
    whole = ("d.text || coalesce(d.summary, '') || coalesce(d.highlight, '') || coalesce(d.tags, '') || "
             "coalesce(d.load_when, '') || coalesce(d.meta, '')")
    retokenize(cur, f"strpos({whole}, %s) > 0 OR strpos({whole}, %s) > 0", ("\u0130", "\u0307"))


def m015_unspaced_scripts(cur) -> None:
    """Thai, Lao, Myanmar and Khmer runs are cut into character pairs (:func:`memdir.recall.tokenize.tokenize`; a
    word inside a run was not found): the rows of the docs holding such a character are re-tokenized
    (:func:`retokenize`); others keep their tokens."""
    whole = ("d.text || coalesce(d.summary, '') || coalesce(d.highlight, '') || coalesce(d.tags, '') || "
             "coalesce(d.load_when, '') || coalesce(d.meta, '')")
    retokenize(cur, f"({whole}) ~ %s", ("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]",))


def m016_marks_inside_words(cur) -> None:
    """A combining mark or invisible character between two letters no longer cuts the word
    (:func:`memdir.recall.tokenize.mend_words`): the rows of the docs holding a non-ASCII character are re-tokenized
    (:func:`retokenize` rewrites only those whose tokens change)."""
    whole = ("d.text || coalesce(d.summary, '') || coalesce(d.highlight, '') || coalesce(d.tags, '') || "
             "coalesce(d.load_when, '') || coalesce(d.meta, '')")
    retokenize(cur, f"octet_length({whole}) <> char_length({whole})")


def m017_dotless_i(cur) -> None:
    """A Turkish dotless ``ı`` also gives the tokens of its ``i`` spelling (:func:`memdir.recall.tokenize.fold`): the
    rows of the docs holding one are re-tokenized (:func:`retokenize`)."""
    whole = ("d.text || coalesce(d.summary, '') || coalesce(d.highlight, '') || coalesce(d.tags, '') || "
             "coalesce(d.load_when, '') || coalesce(d.meta, '')")
    retokenize(cur, f"strpos({whole}, %s) > 0", ("\u0131",))


def m018_pictographs(cur) -> None:
    """A pictograph (an emoji) is a token of its own (:func:`memdir.recall.tokenize.pictograph_token`; it was a
    separator, so ``🚀`` found nothing): the rows of the docs holding one are re-tokenized (:func:`retokenize`)."""
    from memdir.recall.tokenize import PICTO_RANGES

    whole = ("d.text || coalesce(d.summary, '') || coalesce(d.highlight, '') || coalesce(d.tags, '') || "
             "coalesce(d.load_when, '') || coalesce(d.meta, '')")
    retokenize(cur, f"({whole}) ~ %s", (f"[{PICTO_RANGES}]",))


#: numbered schema migrations; append, never edit a landed one
MIGRATIONS = [m001_create_tables, m002_row_level_security, m003_tiers_vectors, m004_stats_and_term_counts,
              m005_private_events, m006_pgvector, m007_per_person_keys_and_counters, m008_vector_storage,
              m009_rehearsal_per_person, m010_event_labels, m011_accent_folding, m012_token_lifecycle_and_personal_sharing,
              m013_revoked_tokens, m014_dotted_capital_i, m015_unspaced_scripts, m016_marks_inside_words,
              m017_dotless_i, m018_pictographs]


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
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
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
