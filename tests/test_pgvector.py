"""Issue 14: vectors in pgvector where the server has it. Against a throwaway cluster started from the ``pgserver``
package's bundled PostgreSQL 16 + pgvector (tests/pg_cluster.py, fixture ``pgvec``); skipped with the reason when
pgserver or psycopg is missing, failed under ``MEMDIR_REQUIRE_PGVECTOR=1`` (``.ci/run``). The fallback (no pgvector:
vectors scored in the application) runs on the Debian cluster (fixture ``pg``).
"""

from __future__ import annotations

import pytest

from memdir.store.postgres import admin as pg_admin
from memdir.store.postgres import doctor as pg_doctor
from memdir.store.postgres import pgvector as pg_pgvector
from memdir.store.postgres import migrations as pg_migrations
from memdir.store.postgres import store as pg_store
from memdir.store import open_store

np = pytest.importorskip("numpy")

MODEL = "fake:test:32"
WHEN = "2026-11-30T00:00:00+00:00"


def unit_vectors(n: int, dim: int = 32, *, seed: int = 7, clusters: int = 40) -> "np.ndarray":
    """Clustered unit vectors (as embeddings of related texts are), float32."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    mat = centres[rng.integers(0, clusters, n)] + 0.6 * rng.standard_normal((n, dim))
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    return mat.astype(np.float32)


def put(store, mat, prefix: str = "r", model: str = MODEL) -> list[str]:
    refs = [f"{prefix}{i}" for i in range(len(mat))]
    with store.transaction():
        store.vector_put([(r, f"sha-{r}") for r in refs], mat, model, WHEN)
    return refs


def exact(mat, refs, q, k):
    """The in-memory scan's answer (memdir.engine.hybrid.top_k over the matrix in write order)."""
    from memdir.engine.hybrid import top_k

    return [(refs[i], s) for i, s in top_k(mat @ q, k)]


def index_scans(store, dim: int, at_least: int = 0) -> int:
    """Scans of the HNSW index so far. Statistics reach the view when the session flushes them (forced here); on a
    loaded machine that can lag, so wait (up to 20 s) for ``at_least``."""
    import time

    for _ in range(100):
        store.conn.execute("SELECT pg_stat_force_next_flush()")
        store.conn.execute("SELECT 1")
        row = store.conn.execute("SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = %s",
                                 (f"vectors_hnsw_{dim}",)).fetchone()
        n = int(row["idx_scan"]) if row else 0
        if n >= at_least:
            return n
        time.sleep(0.2)
    return n


def test_pgvector_is_installed_with_an_hnsw_index_per_vector_length(pgvec_url):
    s = open_store(pgvec_url, project="a")
    try:
        assert s.pgvector
        v = s.conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()["extversion"]
        assert pg_pgvector.version_tuple(v) >= pg_pgvector.PGVECTOR_MIN
        assert pg_pgvector.hnsw_dims(s.conn) == set()
        put(s, unit_vectors(20, 32))
        put(s, unit_vectors(5, 16), prefix="short", model="other:16")
        assert pg_pgvector.hnsw_dims(s.conn) == {16, 32}
        row = s.conn.execute("SELECT vector, embedding::text AS e FROM vectors WHERE ref = 'r3'").fetchone()
        stored = np.frombuffer(row["vector"], dtype=np.float32)
        assert np.array_equal(np.array(row["e"].strip("[]").split(","), dtype=np.float32), stored)  # same float32s
    finally:
        s.close()


def test_small_stores_get_exactly_the_in_memory_top_k(pgvec_url):
    s = open_store(pgvec_url, project="a")
    try:
        mat = unit_vectors(400)
        refs = put(s, mat)
        for q in unit_vectors(25, seed=11):
            got = s.vector_search(MODEL, q, 10, hnsw_above=10_000)
            want = exact(mat, refs, q, 10)
            assert [r for r, _, _ in got] == [r for r, _ in want]
            assert all(sha == f"sha-{r}" for r, sha, _ in got)
            assert np.allclose([x for _, _, x in got], [x for _, x in want], atol=1e-5)
    finally:
        s.close()


@pytest.mark.slow  # over 5 s: CI runs it in `make test-slow`
def test_hnsw_answers_above_the_threshold_with_high_recall(pgvec_url):
    s = open_store(pgvec_url, project="a")
    try:
        both = unit_vectors(3030)  # queries drawn like the stored vectors (a query resembles some stored texts)
        mat, queries = both[:3000], both[3000:]
        refs = put(s, mat)
        before = index_scans(s, 32)
        hit = total = 0
        for q in queries:
            got = s.vector_search(MODEL, q, 100, hnsw_above=1000)  # 100 candidates, as recall asks
            want = {r for r, _ in exact(mat, refs, q, 10)}
            assert len(got) == 100 and [x for _, _, x in got] == sorted((x for _, _, x in got), reverse=True)
            for r, _, sim in got:  # the similarity of every candidate is exact
                assert sim == pytest.approx(float(mat[refs.index(r)] @ q), abs=1e-5)
            hit += len(want & {r for r, _, _ in got[:10]})
            total += 10
        assert index_scans(s, 32, at_least=before + 30) >= before + 30  # the HNSW index answered
        # HNSW levels are drawn at random per insert, so recall varies between runs; 0.8 separates a working index
        # from a broken one (queries drawn like the stored vectors, 100 candidates: near 1 in practice)
        assert hit / total >= 0.8
    finally:
        s.close()


def test_other_projects_models_and_tiers_never_leak_and_never_starve_the_top_k(pgvec_url):
    """One HNSW index serves every project of the database: rows of other projects/models/cold tiers are filtered
    out after the index scan; when that leaves fewer than k, the exact search answers."""
    a = open_store(pgvec_url, project="a")
    b = open_store(pgvec_url, project="b")
    try:
        put(a, unit_vectors(2000))
        small = unit_vectors(6, seed=3)
        brefs = put(b, small, prefix="b")
        put(b, unit_vectors(50, seed=5), prefix="m", model="fake:other:32")
        b.conn.execute("INSERT INTO tiers(project, ref, reinforced_at, tier) VALUES ('b', 'b5', 0, 'cold')")
        q = unit_vectors(1, seed=9)[0]
        got = b.vector_search(MODEL, q, 10, hnsw_above=0)
        assert [r for r, _, _ in got] == [r for r, _ in exact(small[:5], brefs[:5], q, 10)]
        assert all(r.startswith("r") for r, _, _ in a.vector_search(MODEL, q, 10, hnsw_above=0))
    finally:
        a.close()
        b.close()


def test_vectors_stored_before_pgvector_are_copied_in_when_it_arrives(pgvec_url, monkeypatch):
    """A database migrated where the server had no pgvector keeps bytea vectors (scored in the application); the
    first connect after the server gained pgvector installs it, copies them into the vector column and indexes them."""
    with monkeypatch.context() as mp:
        mp.setattr(pg_store, "enable_pgvector", lambda conn: False)  # the server has no pgvector: neither the connect
        mp.setattr(pg_migrations, "enable_pgvector", lambda conn: False)  # nor migration m006 installs it
        old = open_store(pgvec_url, project="a")
        assert not old.pgvector and old.vector_search(MODEL, unit_vectors(1)[0], 5, hnsw_above=0) is None
        mat = unit_vectors(300)
        refs = put(old, mat)
        old.close()
    s = open_store(pgvec_url, project="a")
    try:
        assert s.pgvector and 32 in pg_pgvector.hnsw_dims(s.conn)
        assert s.conn.execute("SELECT count(*) AS n FROM vectors WHERE embedding IS NULL").fetchone()["n"] == 0
        for q in unit_vectors(5, seed=11):
            assert [r for r, _, _ in s.vector_search(MODEL, q, 10, hnsw_above=10_000)] == [r for r, _ in exact(mat, refs, q, 10)]
    finally:
        s.close()


def _login(url: str, user: str) -> str:
    return url.replace("postgresql://memdir@", f"postgresql://{user}@", 1)


def test_a_client_login_searches_its_own_project_only(pgvec_url):
    """Row-level security holds for the server-side search: a token for alpha never gets beta's vectors, and a client
    login (which may not create indexes) still writes and searches."""
    admin = open_store(pgvec_url, project="alpha")
    c = admin.conn
    for login in ("carol", "dave"):
        c.execute(f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{login}') THEN "
                  f"CREATE ROLE {login} LOGIN; END IF; END $$")
        pg_admin.grant_client(c, login)
    carol = open_store(_login(pgvec_url, "carol"), project="alpha", token=pg_admin.add_token(c, "carol", ["alpha"]))
    dave = open_store(_login(pgvec_url, "dave"), project="beta", token=pg_admin.add_token(c, "dave", ["beta"]))
    try:
        assert carol.pgvector and dave.pgvector
        mat = unit_vectors(60, 24)
        refs = put(carol, mat, prefix="a")  # no index for length 24 yet and carol may not build one: exact
        assert 24 not in pg_pgvector.hnsw_dims(c)
        put(dave, unit_vectors(60, 24, seed=2), prefix="b")
        put(admin, unit_vectors(1, 24, seed=4), prefix="z")  # the owner builds the index with its first write
        assert 24 in pg_pgvector.hnsw_dims(c)
        q = unit_vectors(1, 24, seed=9)[0]
        for above in (0, 10_000):
            got = carol.vector_search(MODEL, q, 10, hnsw_above=above)
            assert got and all(r.startswith("a") for r, _, _ in got)
            assert all(r.startswith("b") for r, _, _ in dave.vector_search(MODEL, q, 10, hnsw_above=above))
        assert [r for r, _, _ in carol.vector_search(MODEL, q, 10, hnsw_above=10_000)] == [r for r, _ in exact(mat, refs, q, 10)]
    finally:
        carol.close()
        dave.close()
        admin.close()


def test_without_pgvector_vectors_are_scored_in_the_application(pg_url):
    """The Debian cluster has no pgvector (bookworm packages none): no column, the store hands scoring back."""
    s = open_store(pg_url, project="a")
    try:
        if s.conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
            pytest.skip("this server has pgvector")
        assert not s.pgvector
        put(s, unit_vectors(10))
        assert s.vector_search(MODEL, unit_vectors(1)[0], 5, hnsw_above=0) is None
        assert len(s.vector_rows(MODEL, 32)) == 10
        checks = {c[0]: c for c in pg_doctor.pgvector_checks(s, 10_000)}
        assert checks["pgvector"][1] == "warn" and "absent" in checks["pgvector"][2]
    finally:
        s.close()


def test_doctor_reports_pgvector_and_whether_hnsw_is_in_use(pgvec_url, project, tmp_path, monkeypatch):
    import memdir

    monkeypatch.setenv("MEMDIR_STORE", pgvec_url)
    cfg = {"embed.provider": "fake", "embed.recall_backfill_ms": 0, "recall.pg_hnsw_threshold": 3}
    with memdir.open(project, home=tmp_path / "g", config=cfg) as m:
        checks = {c["check"]: c for c in m.doctor(repair=False)}
        assert checks["store pgvector"]["ok"] == "ok" and "present" in checks["store pgvector"]["detail"]
        assert "no vectors" in checks["store hnsw"]["detail"]
        for i in range(5):
            m.remember(f"fact number {i} about the deploy train", category="facts")
        m.backfill()
        checks = {c["check"]: c for c in m.doctor(repair=False)}
        assert checks["store hnsw"]["ok"] == "ok" and "HNSW in use" in checks["store hnsw"]["detail"]
        m.config._values["recall.pg_hnsw_threshold"] = 10_000
        checks = {c["check"]: c for c in m.doctor(repair=False)}
        assert "exact search in the server" in checks["store hnsw"]["detail"]
        m.config._values["recall.channel"] = "vector"
        assert m.recall("deploy train", k=3)


def test_a_copied_vector_is_searched_by_the_server(pgvec_url):
    """``memdir migrate`` copies vectors with ``vector_copy`` (bytes in hand): with pgvector they reach the searched
    column too, in both search modes."""
    s = open_store(pgvec_url, project="a")
    try:
        mat = unit_vectors(50)
        put(s, mat[:49])
        assert s.vector_copy("copied", "sha-copied", MODEL, mat[49].tobytes(), WHEN)
        for above in (10_000, 0):
            got = s.vector_search(MODEL, mat[49], 3, hnsw_above=above)
            assert got[0][:2] == ("copied", "sha-copied") and got[0][2] == pytest.approx(1.0, abs=1e-5)
    finally:
        s.close()
