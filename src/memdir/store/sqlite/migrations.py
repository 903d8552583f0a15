"""Numbered schema migrations for the derived index (``PRAGMA user_version``), applied in order.

Each migration is a small function ``mNNN_name(db)``; add new ones at the end, never edit old ones.
"""

from __future__ import annotations

import re
import sqlite3

from memdir.errors import MemdirError
from memdir.recall.tokenize import FTS_TOKENCHARS
from memdir.store.sqlite import txn


def m001_create_tables(db: sqlite3.Connection) -> None:
    _script(db, f"""
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
        -- one row per recallable document: a note mirror (kind='note') or an episodic event (kind='event')
        CREATE TABLE docs(
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('note', 'event')),
            ref TEXT NOT NULL UNIQUE,            -- note id 'category/slug' or event key
            content_sha256 TEXT NOT NULL,
            role TEXT,                           -- events: user | assistant | tool
            category TEXT, note_kind TEXT,       -- notes
            session TEXT,
            ts TEXT NOT NULL,                    -- ISO 8601 UTC ('...Z'); notes: updated
            ts_epoch REAL NOT NULL,
            summary TEXT, highlight TEXT,
            text TEXT NOT NULL,
            tags TEXT, load_when TEXT,           -- JSON arrays
            pinned INTEGER NOT NULL DEFAULT 0,
            supersedes TEXT, superseded_by TEXT,
            path TEXT, mtime_ns INTEGER, size INTEGER,
            meta TEXT
        );
        CREATE UNIQUE INDEX docs_event_sha ON docs(content_sha256) WHERE kind = 'event';
        CREATE INDEX docs_note_sha ON docs(content_sha256) WHERE kind = 'note';
        CREATE INDEX docs_kind_ts ON docs(kind, ts_epoch);
        CREATE INDEX docs_session ON docs(session) WHERE session IS NOT NULL;
        -- token streams from memdir.recall.tokenize (space-separated); rowid = docs.id
        CREATE VIRTUAL TABLE fts USING fts5(tags, title, body,
            tokenize = "unicode61 remove_diacritics 0 tokenchars '{FTS_TOKENCHARS}'");
        CREATE TABLE tombstones(
            ref TEXT PRIMARY KEY, content_sha256 TEXT, kind TEXT, deleted_at TEXT NOT NULL
        );
        CREATE INDEX tombstones_sha ON tombstones(content_sha256);
        -- rehearsal counters stay out of the Markdown so Git sync never conflicts (seed 000 .state.json)
        CREATE TABLE rehearsal(ref TEXT PRIMARY KEY, count INTEGER NOT NULL DEFAULT 0, last TEXT);
        CREATE VIEW events AS SELECT id, ref AS key, content_sha256, session, role, ts, text FROM docs WHERE kind = 'event';
        """)


def _script(db: sqlite3.Connection, sql: str) -> None:
    # executescript() would COMMIT the migration's transaction; run the statements one by one instead
    for stmt in sql.split(";\n"):
        lines = [ln for ln in stmt.splitlines() if ln.strip() and not ln.strip().startswith("--")]
        if lines:
            db.execute("\n".join(lines))


def m002_vectors_tiers(db: sqlite3.Connection) -> None:
    """Embeddings (memdir.engine.hybrid) and heat tiers (memdir.engine.tiers), both keyed by ``docs.ref`` (seed 001)."""
    _script(db, """
        -- one L2-normalised float32 vector per doc; status pending | ok | failed; a model/dim/text change makes it stale
        CREATE TABLE vectors(
            ref TEXT PRIMARY KEY,
            content_sha256 TEXT,
            model TEXT, dim INTEGER,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ok', 'failed')),
            vector BLOB,
            error TEXT,
            updated TEXT
        );
        CREATE INDEX vectors_status ON vectors(status, model);
        -- heat = heat0 * 0.5 ** ((now - reinforced_at) / half_life); tier hot | warm | cold | archive
        CREATE TABLE tiers(
            ref TEXT PRIMARY KEY,
            heat0 REAL NOT NULL DEFAULT 1.0,
            reinforced_at REAL NOT NULL,
            seen_count INTEGER NOT NULL DEFAULT 0,
            tier TEXT NOT NULL DEFAULT 'hot' CHECK (tier IN ('hot', 'warm', 'cold', 'archive')),
            importance REAL NOT NULL DEFAULT 1.0,
            changed_at TEXT
        );
        CREATE INDEX tiers_tier ON tiers(tier)
        """)


def m003_fts_vocab(db: sqlite3.Connection) -> None:
    # per-term document frequencies for memdir.recall.bm25 (Lucene idf)
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS fts_vocab USING fts5vocab(fts, 'row')")


def m004_fts_context(db: sqlite3.Connection) -> None:
    # a fourth FTS column: the neighbouring turns of an event (memdir.store.sqlite.index.refresh_context); rows are rebuilt by
    # memdir.store.sqlite.opening.check_tokenizer, which the marker below triggers
    db.execute("DROP TABLE IF EXISTS fts_vocab")
    db.execute("DROP TABLE IF EXISTS fts")
    db.execute(f"""CREATE VIRTUAL TABLE fts USING fts5(tags, title, body, context,
        tokenize = "unicode61 remove_diacritics 0 tokenchars '{FTS_TOKENCHARS}'")""")
    db.execute("CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row')")
    if db.execute("SELECT 1 FROM docs LIMIT 1").fetchone():
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', 'rebuild-m004')")


def m005_event_order_index(db: sqlite3.Connection) -> None:
    # neighbour lookups for the context column (memdir.store.sqlite.index.flush_events)
    db.execute("CREATE INDEX IF NOT EXISTS docs_event_order ON docs(session, ts_epoch, id) WHERE kind = 'event'")


def m006_journal(db: sqlite3.Connection) -> None:
    """Two small bounded logs for the viewer (memdir.store.sqlite.journal): capture decisions that stored nothing, with the
    gate's reason, and each ``<memory>`` block handed to a host. Each keeps its newest rows only."""
    _script(db, """
        CREATE TABLE capture_skips(
            id INTEGER PRIMARY KEY,
            ts TEXT NOT NULL, ts_epoch REAL NOT NULL,
            reason TEXT NOT NULL,                -- the gate: trivial, too_short, slash_command, noisy_tool, ...
            role TEXT, session TEXT, source TEXT,
            preview TEXT                         -- redacted, at most 200 characters
        );
        CREATE INDEX capture_skips_ts ON capture_skips(ts_epoch);
        CREATE TABLE injections(
            id INTEGER PRIMARY KEY,
            ts TEXT NOT NULL, ts_epoch REAL NOT NULL,
            prompt_sha256 TEXT,                  -- of the prompt text the block was built for ('' = session start)
            host TEXT, event TEXT, session TEXT,
            block TEXT NOT NULL,                 -- the <memory> block as sent
            hit_ids TEXT                         -- JSON array of the note ids / event keys whose bodies it holds
        );
        CREATE INDEX injections_ts ON injections(ts_epoch)
        """)


def m007_distill(db: sqlite3.Connection) -> None:
    # memdir.distill.flow: which events a model has already distilled (so a second run adds nothing) and one row per
    # model call (the per-day cap and an audit trail: provider, model, status, counts)
    _script(db, """
        CREATE TABLE distill_marks(ref TEXT PRIMARY KEY, session TEXT, run INTEGER, at TEXT NOT NULL);
        CREATE TABLE distill_runs(
            id INTEGER PRIMARY KEY,
            session TEXT, day TEXT NOT NULL, started_at TEXT NOT NULL,
            provider TEXT, model TEXT,
            status TEXT NOT NULL,               -- ok | invalid_reply | error
            detail TEXT, counts TEXT            -- JSON
        );
        CREATE INDEX distill_runs_day ON distill_runs(day)
        """)


def m008_handles_passages(db: sqlite3.Connection) -> None:
    """Short handles (``memdir.recall.handles``) and passages of long events (``memdir.recall.passages``).

    ``docs.handle``: the short, stable name the block shows and ``get``/``forget`` accept. ``passages``: spans 1.. of a
    long event's text; each has an FTS row whose rowid is ``-passages.id`` (passage 0 stays in the event's own row).
    Existing rows get their handles here; the marker below makes :func:`memdir.store.sqlite.opening.check_tokenizer` re-index events
    so long ones are split into passages."""
    from memdir.recall.handles import digest, LENGTH

    db.execute("ALTER TABLE docs ADD COLUMN handle TEXT")
    db.execute("CREATE INDEX docs_handle ON docs(handle)")
    db.execute("""CREATE TABLE passages(
        id INTEGER PRIMARY KEY,
        doc_id INTEGER NOT NULL,             -- docs.id of the event
        seq INTEGER NOT NULL,                -- 1.. (passage 0 is indexed in the event's own FTS row)
        start INTEGER NOT NULL, end INTEGER NOT NULL   -- character span in docs.text
    )""")
    db.execute("CREATE INDEX passages_doc ON passages(doc_id)")
    taken: set[str] = set()
    for doc_id, ref in db.execute("SELECT id, ref FROM docs ORDER BY id").fetchall():
        d = digest(ref)
        n = LENGTH
        while d[:n] in taken and n < len(d):
            n += 1
        taken.add(d[:n])
        db.execute("UPDATE docs SET handle = ? WHERE id = ?", (d[:n], doc_id))
    if db.execute("SELECT 1 FROM docs WHERE kind = 'event' LIMIT 1").fetchone():
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', 'rebuild-m008')")


#: docs.text as generated from its stored columns (m009; memdir.store.sqlite.index registers memdir_unz on every connection)
TEXT_EXPR = ("text_head || CASE WHEN text_tail IS NULL THEN '' WHEN typeof(text_tail) = 'blob' "
             "THEN memdir_unz(text_tail) ELSE text_tail END")


def m009_compact_layout(db: sqlite3.Connection) -> None:
    """The compact on-disk layout (issue 12 item 3).

    * ``fts`` becomes contentless (``content=''``): FTS5 no longer keeps its own copy of every token stream (it was
      the largest table). A row is removed by handing FTS5 the values it was written with, which
      :mod:`memdir.store.sqlite.index` recomputes from ``docs``; for an event's ``context`` column from the neighbour ids it was
      indexed with, ``docs.ctx_prev`` / ``docs.ctx_next`` (the neighbours' words live in the index alone).
    * ``docs.text`` becomes a virtual generated column over ``text_head`` (its first 60 characters, plain) and
      ``text_tail`` (the rest: plain, or zlib-compressed when that is smaller), with ``text_len`` its length.
      Readers keep reading ``text``; rows are written by :mod:`memdir.store.sqlite.index` alone.

    The marker below makes :func:`memdir.store.sqlite.opening.check_tokenizer` rebuild the index (and the neighbour ids)."""
    from memdir.store.sqlite.codec import text_columns

    for col in ("text_head TEXT NOT NULL DEFAULT ''", "text_tail", "text_len INTEGER NOT NULL DEFAULT 0",
                "ctx_prev INTEGER", "ctx_next INTEGER"):
        db.execute(f"ALTER TABLE docs ADD COLUMN {col}")
    last = 0
    while True:
        rows = db.execute("SELECT id, text FROM docs WHERE id > ? ORDER BY id LIMIT 2000", (last,)).fetchall()
        if not rows:
            break
        db.executemany("UPDATE docs SET text_head = ?, text_tail = ?, text_len = ? WHERE id = ?",
                       [(*text_columns(t), i) for i, t in rows])
        last = rows[-1][0]
    db.execute("DROP VIEW IF EXISTS events")
    drop_column(db, "docs", "text")
    # no declared type: PRAGMA integrity_check from a plain sqlite3 (without memdir_unz) then skips the column
    db.execute(f"ALTER TABLE docs ADD COLUMN text GENERATED ALWAYS AS ({TEXT_EXPR}) VIRTUAL")
    db.execute("CREATE VIEW events AS SELECT id, ref AS key, content_sha256, session, role, ts, text FROM docs WHERE kind = 'event'")
    db.execute("DROP TABLE IF EXISTS fts_vocab")
    db.execute("DROP TABLE IF EXISTS fts")
    db.execute(f"""CREATE VIRTUAL TABLE fts USING fts5(tags, title, body, context, content='',
        tokenize = "unicode61 remove_diacritics 0 tokenchars '{FTS_TOKENCHARS}'")""")
    db.execute("CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row')")
    if db.execute("SELECT 1 FROM docs LIMIT 1").fetchone():
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', 'rebuild-m009')")


#: ``ALTER TABLE … DROP COLUMN`` exists from SQLite 3.35.0 (2021-03-12, its release notes); generated columns (m009)
#: from 3.31.0. Older libraries (e.g. RHEL 9's Python 3.11 links 3.34.1) take :func:`drop_column`'s table rebuild.
HAS_DROP_COLUMN = sqlite3.sqlite_version_info >= (3, 35, 0)
MIN_SQLITE = (3, 31, 0)


def drop_column(db: sqlite3.Connection, table: str, column: str) -> None:
    """Remove ``column`` from ``table``, keeping every row, ``rowid`` and index. SQLite ≥ 3.35 does it in place;
    before that the table is rebuilt: created again from its stored ``CREATE TABLE`` text without the column's
    definition, rows copied, the old table dropped, the new one renamed, its indexes recreated (the procedure
    SQLite's ``ALTER TABLE`` documentation gives for schema changes it cannot make in place). Views over the table
    must be dropped by the caller first. Raises ``RuntimeError`` when the column's definition cannot be found."""
    if HAS_DROP_COLUMN:
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        return
    sql = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
    indexes = [r[0] for r in db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", (table,))]
    # one column definition: from the name to the next comma at nesting depth 0 (our definitions hold no commas)
    new_sql, n = re.subn(rf"(?m)(?<=[(,])(\s*(?:--[^\n]*\n\s*)*){column}\s[^,()]*(?:\([^)]*\)[^,()]*)*,", r"\1", sql, count=1)
    if n != 1:
        raise RuntimeError(f"cannot find the definition of {table}.{column} to drop it")
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] != column]
    tmp = f"{table}__rebuild"
    db.execute(re.sub(rf"^CREATE TABLE\s+\"?{table}\"?", f"CREATE TABLE {tmp}", new_sql, count=1))
    names = ", ".join(cols)
    db.execute(f"INSERT INTO {tmp}(rowid, {names}) SELECT rowid, {names} FROM {table}")
    db.execute(f"DROP TABLE {table}")
    db.execute(f"ALTER TABLE {tmp} RENAME TO {table}")
    for ix in indexes:
        db.execute(ix)


def m010_removed_log(db: sqlite3.Connection) -> None:
    """``removed``: the ids of docs rows removed (with their full-text rows), in order, the newest few thousand kept
    (:func:`memdir.store.sqlite.index._remove` writes it). A process holding recall's postings in memory
    (:mod:`memdir.store.sqlite.postings`) reads what was removed since its last look instead of comparing every id; SQLite
    reuses the highest id after a delete, so a new row alone cannot tell that an old one went."""
    db.execute("CREATE TABLE removed(seq INTEGER PRIMARY KEY AUTOINCREMENT, doc_id INTEGER NOT NULL)")


def m011_text_dictionary(db: sqlite3.Connection) -> None:
    """Issue 12 (size): texts compressed with the store's own preset dictionary, and one index fewer.

    * ``meta.zdict`` (its Adler-32 in ``meta.zdict_id``): a zlib preset dictionary made of the store's first texts;
      a compressed ``docs.text_tail`` names it in its zlib header (``FDICT``), a tail without it is plain zlib as in
      m009 (both are read by ``memdir_unz``; :func:`memdir.store.sqlite.codec.make_zdict`). A store with enough text gets it here
      and every tail is recompressed; a smaller one when it has grown (at open, or while a bulk import writes).
      An older memdir cannot read these tails: the schema version keeps it from opening the store.
    * ``docs_session`` is dropped: every query by session also filters ``kind = 'event'`` and is served by
      ``docs_event_order(session, ts_epoch, id)``."""
    from memdir.store.sqlite.codec import compress_all

    db.execute("DROP INDEX IF EXISTS docs_session")
    compress_all(db)


def m012_remote_queue(db: sqlite3.Connection) -> None:
    """``remote_queue``: events (``op = 'event'``) and forgets (``op = 'forget'``) waiting to be sent to the team
    server (``remote.url``, :mod:`memdir.engine.remote`), in the index itself so an event and its queue row commit in one
    transaction (before, a separate queue file was written after the event's commit: a hook cut off between the two
    left the event local-only, never sent). The rows of an existing queue file are moved in by
    :func:`memdir.engine.remote.adopt_legacy` (after this commits, then the file goes)."""
    db.execute("CREATE TABLE IF NOT EXISTS remote_queue(op TEXT NOT NULL DEFAULT 'event', ref TEXT NOT NULL, "
               "row TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, next_at REAL NOT NULL DEFAULT 0, seq INTEGER, "
               "PRIMARY KEY(op, ref))")
    db.execute("CREATE INDEX IF NOT EXISTS remote_queue_seq ON remote_queue(seq)")


def m013_remote_refused(db: sqlite3.Connection) -> None:
    """``remote_queue.failed``: the team server's one-line reason when it refused a queued row itself (a 4xx answer
    other than about the token, the route or the rate; :mod:`memdir.engine.remote`), with ``failed_at``. Such a row was
    sent again forever; now it is kept aside (never deleted, never sent again on its own) until ``memdir push
    --retry-failed`` puts it back in the queue."""
    have = {r[1] for r in db.execute("PRAGMA table_info(remote_queue)")}
    for col, typ in (("failed", "TEXT"), ("failed_at", "REAL")):
        if col not in have:  # idempotent, as m012 (a store set back to an older user_version runs both again)
            db.execute(f"ALTER TABLE remote_queue ADD COLUMN {col} {typ}")


def m014_hash_bytes_derived_ts(db: sqlite3.Connection) -> None:
    """Issue 26 (size): ``docs.content_sha256`` and ``docs.ts`` become virtual generated columns
    (:mod:`memdir.store.sqlite.codec`, ``SHA_EXPR`` / ``TS_EXPR``): the hash is stored as its 32 bytes in ``sha``
    (both hash indexes move to it; 64 hex characters were 32 bytes more in the row and again in each index), the ISO
    time in ``ts_raw`` only when SQLite's rendering of ``ts_epoch`` differs from it. Readers see the same values."""
    from memdir.store.sqlite.codec import SHA_EXPR, TS_EXPR, TS_DERIVED, sha_key, write

    if "sha" in {r[1] for r in db.execute("PRAGMA table_xinfo(docs)")}:
        return  # idempotent, as m013 (a store set back to an older user_version runs it again)
    db.execute("DROP VIEW IF EXISTS events")
    db.execute("DROP INDEX IF EXISTS docs_event_sha")
    db.execute("DROP INDEX IF EXISTS docs_note_sha")
    db.execute("ALTER TABLE docs ADD COLUMN sha")  # no declared type: BLOB, or TEXT for a hash that is not hex
    db.execute("ALTER TABLE docs ADD COLUMN ts_raw TEXT")
    last = 0
    while True:
        rows = db.execute("SELECT id, content_sha256 FROM docs WHERE id > ? ORDER BY id LIMIT 2000", (last,)).fetchall()
        if not rows:
            break
        write(db, "UPDATE docs SET sha = ? WHERE id = ?", [(sha_key(h), i) for i, h in rows], many=True)
        last = rows[-1][0]
    write(db, f"UPDATE docs SET ts_raw = NULLIF(ts, {TS_DERIVED})", ())
    drop_column(db, "docs", "content_sha256")
    drop_column(db, "docs", "ts")
    db.execute(f"ALTER TABLE docs ADD COLUMN content_sha256 GENERATED ALWAYS AS ({SHA_EXPR}) VIRTUAL")
    db.execute(f"ALTER TABLE docs ADD COLUMN ts GENERATED ALWAYS AS ({TS_EXPR}) VIRTUAL")
    db.execute("CREATE UNIQUE INDEX docs_event_sha ON docs(sha) WHERE kind = 'event'")
    db.execute("CREATE INDEX docs_note_sha ON docs(sha) WHERE kind = 'note'")
    db.execute("CREATE VIEW events AS SELECT id, ref AS key, content_sha256, session, role, ts, text FROM docs WHERE kind = 'event'")


def m015_zstd_tails(db: sqlite3.Connection) -> None:
    """Issue 26 (size, speed): a store's compression dictionary is made with Zstandard (``meta.zdict_id`` =
    ``zstd:<its Adler-32>``, :data:`memdir.store.sqlite.codec.ZSTD_DICT_BYTES` trained on its first tails) and its tails are
    Zstandard frames; a store whose zlib dictionary was made before keeps it (``memdir_unz`` reads both kinds). No
    row changes here: the schema version keeps an older memdir, which reads only zlib, from opening the store."""


MIGRATIONS = [m001_create_tables, m002_vectors_tiers, m003_fts_vocab, m004_fts_context, m005_event_order_index,
              m006_journal, m007_distill, m008_handles_passages,
              m009_compact_layout, m010_removed_log, m011_text_dictionary, m012_remote_queue, m013_remote_refused,
              m014_hash_bytes_derived_ts, m015_zstd_tails]


def _retired_m016(db: sqlite3.Connection) -> bool:
    """A v16 index of the memdir of 2026-12-04 (m016: FTS5 ``automerge`` 8 in the FTS table's config, no row changed),
    taken back the next day: the setting is dropped (FTS5's default again); a v16 index without it is not this one."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'fts_config'").fetchone():
        return False
    row = db.execute("SELECT v FROM fts_config WHERE k = 'automerge'").fetchone()
    if row is None or str(row[0]) != "8":
        return False
    db.execute("DELETE FROM fts_config WHERE k = 'automerge'")
    return True


#: schema versions a released memdir wrote and a later one took back, each with the step back to the version before
#: (it returns False, changing nothing, when the index is not the one that version made): without it an index a
#: user's memdir wrote is refused as "newer" by every later memdir. A future migration takes the number after these.
RETIRED = {16: _retired_m016}


def step_back_retired(db: sqlite3.Connection) -> int:
    """Step an index of a retired schema version (:data:`RETIRED`) back to the version before it, in one transaction;
    returns the schema version."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    while version > len(MIGRATIONS) and version in RETIRED:
        try:
            db.execute("BEGIN IMMEDIATE")
            now = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have stepped it back already
            if now == version and RETIRED[version](db):
                db.execute(f"PRAGMA user_version = {version - 1}")
            db.execute("COMMIT")
        except BaseException:
            txn.rollback(db)
            raise
        was, version = version, db.execute("PRAGMA user_version").fetchone()[0]
        if version == was:
            break
    return version


class NewerIndex(MemdirError, RuntimeError):
    """The index was written by a newer memdir (a ``RuntimeError`` as before; a ``MemdirError``, so one CLI line)."""


def check_not_newer(db: sqlite3.Connection) -> int:
    """The index's schema version; raises :class:`NewerIndex` when a newer memdir wrote it."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise NewerIndex(f"the index {_db_file(db)} was written by a newer memdir (schema v{version}, this one knows "
                         f"v{len(MIGRATIONS)}): upgrade memdir (pip install -U memdir), then restart the agent")
    return version


def migrate(db: sqlite3.Connection, upto: int | None = None, applied: list[int] | None = None) -> int:
    """Apply pending migrations, each in its own transaction; returns the resulting schema version. ``upto`` stops
    at that version (tests build a store of an older layout with it). ``applied`` gets the number of each migration
    this call applied (not those another process applied meanwhile): ``1`` in it means this call created the schema.

    Raises ``MemdirError`` (also a ``RuntimeError``) if the database is newer than this memdir (downgrade is not
    supported): the CLI prints one line, not "internal error".
    """
    step_back_retired(db)
    version = check_not_newer(db)
    for n, fn in enumerate(MIGRATIONS[version:upto], start=version + 1):
        try:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("PRAGMA user_version").fetchone()[0] >= n:  # another process applied it meanwhile
                db.execute("COMMIT")
                continue
            fn(db)
            db.execute(f"PRAGMA user_version = {n}")
            db.execute("COMMIT")
            if applied is not None:
                applied.append(n)
        except BaseException:
            txn.rollback(db)
            raise
    return db.execute("PRAGMA user_version").fetchone()[0]


def _db_file(db) -> str:
    try:
        return db.execute("PRAGMA database_list").fetchone()[2] or "(in memory)"
    except Exception:  # noqa: BLE001 — only for the message
        return "(unknown)"
