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

Schema changes are numbered migrations (:data:`memdir.store.postgres.migrations.MIGRATIONS`, version in ``memdir_schema``), applied under an advisory
lock so concurrent clients migrate once.
"""


from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

from memdir.urlmask import safe_url, scrub
from memdir.errors import MemdirError, StoreUnreachable, install_hint
from memdir.store.postgres.migrations import STAT_SHARDS, migrate
from memdir.store.postgres.pgvector import enable_pgvector
from memdir.store.postgres.reads import PgReads
from memdir.store.postgres.vectors import PgVectors
from memdir.store.postgres.writes import PgWrites


class PgStore(PgWrites, PgReads, PgVectors):
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
            raise MemdirError(f"store is a postgresql:// URL but psycopg is not installed: {install_hint('postgres')}") from None
        try:
            conn = psycopg.connect(url, autocommit=True, row_factory=dict_row, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreUnreachable(f"could not connect to the store {safe_url(url)}: {scrub((str(exc).strip().splitlines() or [type(exc).__name__])[0], url)}") from None
        try:
            migrate(conn)
            conn.execute("SELECT set_config('app.project', %s, false), set_config('app.token', %s, false)",
                         (project, token or ""))
        except psycopg.errors.InsufficientPrivilege as exc:  # a login that may not create (or upgrade) the schema
            from memdir.store.postgres.privileges import refusal

            why = refusal(conn, exc, url)  # names the missing privilege (CREATEROLE, CREATE, the owner)
            conn.close()
            raise MemdirError(why) from None
        except psycopg.Error as exc:
            conn.close()
            raise MemdirError(f"the store {safe_url(url)} could not be prepared: {scrub((str(exc).strip().splitlines() or [type(exc).__name__])[0], url)}") from None
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
