"""pgvector on the PostgreSQL store: the extension when the server has it, the vector column, HNSW indexes per
vector length and their build and search settings."""

from __future__ import annotations

from typing import Any

from memdir.store.postgres.sql import LOCK_KEY

#: pgvector's first release with HNSW indexes
PGVECTOR_MIN = (0, 5, 0)


#: HNSW search breadth: ``hnsw.ef_search`` = this × the candidates asked (at least 40, pgvector's default; at most
#: 1,000, its limit); bench/pg_vectors.py measures recall@10 and latency per value
HNSW_EF_FACTOR = 4


#: HNSW graph build: links per node and build breadth (``WITH (m, ef_construction)``), as memdir.engine.hybrid' own ANN
HNSW_M, HNSW_EF_CONSTRUCTION = 16, 64


def version_tuple(v: str | None) -> tuple[int, ...]:
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
    if ext is None or version_tuple(ext["installed_version"] or ext["default_version"]) < PGVECTOR_MIN:
        return False
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("ALTER TABLE vectors ADD COLUMN IF NOT EXISTS embedding vector")
            vector_storage(conn)
            rows = conn.execute("SELECT ctid::text AS tid, vector FROM vectors WHERE status = 'ok' AND vector IS NOT NULL "
                                "AND embedding IS NULL").fetchall()  # by row (the key is per person since m007)
            if rows:
                import numpy as np
            with conn.cursor() as cur:
                cur.executemany("UPDATE vectors SET embedding = %s::vector WHERE ctid = %s::tid",
                                [(vec_literal(np.frombuffer(r["vector"], dtype=np.float32)), r["tid"]) for r in rows])
            for d in conn.execute("SELECT DISTINCT dim FROM vectors WHERE embedding IS NOT NULL").fetchall():
                create_hnsw(conn, int(d["dim"]))
    except psycopg.Error:
        return False
    return True


def vector_storage(conn) -> None:
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


def create_hnsw(conn, dim: int) -> None:
    """An HNSW index (inner product on unit vectors = cosine; pgvector's defaults m = 16, ef_construction = 64) over
    the vectors of length ``dim``: pgvector indexes a fixed length, so one partial expression index per length."""
    dim = int(dim)
    conn.execute(f"CREATE INDEX IF NOT EXISTS vectors_hnsw_{dim} ON vectors USING hnsw ((embedding::vector({dim})) "
                 f"vector_ip_ops) WITH (m = {int(HNSW_M)}, ef_construction = {int(HNSW_EF_CONSTRUCTION)}) WHERE dim = {dim}")
