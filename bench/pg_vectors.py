"""Hybrid and vector recall with vectors in pgvector (HNSW, or exact in the server) beside SQLite (issue 14).

The same synthetic events (bench/synth.py, seed 7, as bench/pg_scale.py) go into a SQLite project and into a
PostgreSQL project on a throwaway cluster started from the ``pgserver`` package's binaries (PostgreSQL 16 +
pgvector); both get vectors from memdir's deterministic hashing embedder (``embed.provider = "fake"``, ``--dim``
buckets: texts sharing words are similar; no model download, so 100k events embed in a minute) through
``Memdir.backfill``. Then the same queries go through ``Memdir.recall`` (k = 10) with ``recall.channel`` = ``hybrid``
and ``vector``, on SQLite (in-memory exact scan), on PostgreSQL searching its HNSW index
(``recall.pg_hnsw_threshold = 0``) and on PostgreSQL scoring every vector in the server (threshold above the store).

Printed per size and system: recall p50/p95 in ms (hybrid, vector-only), the share of SQLite's hybrid top 10 it
returns, and for the HNSW rows the vector channel's recall@10 against the exact search of the same store: a returned
vector counts when its similarity reaches the exact 10th best's (the hashing embedder gives equal similarities, so the
exact top 10 is one of several equally good sets).

    python bench/pg_vectors.py --sizes 10000,100000 --out bench/results/pg_vectors.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

EXACT = 10**9  # recall.pg_hnsw_threshold above any store: pgvector scores every vector


def measure(m, queries: list[str], channel: str, thresholds: tuple = (None,)) -> list[tuple[list[float], list[list[str]]]]:
    """Recall latencies and top-10 ids per ``recall.pg_hnsw_threshold`` in ``thresholds``, alternating them query by
    query (A/B in the same moment: the machine's load moves between queries, not between systems)."""
    m.config._values["recall.channel"] = channel
    out: list[tuple[list[float], list[list[str]]]] = [([], []) for _ in thresholds]
    for warm in (True, False):
        for q in (queries[:5] if warm else queries):  # first warm caches (the in-memory matrix, the server's buffers)
            for i, thr in enumerate(thresholds):
                if thr is not None:
                    m.config._values["recall.pg_hnsw_threshold"] = thr
                t = time.perf_counter()
                hits = m.recall(q, k=10)
                if not warm:
                    out[i][0].append((time.perf_counter() - t) * 1000)
                    out[i][1].append([h.id for h in hits])
    return out


def hnsw_recall(store, model: str, qvecs, k: int = 10, cand: int = 100) -> tuple[float, float]:
    """Recall@k of the HNSW search against the exact search on ``store`` (ties counted: a hit is a vector whose
    similarity reaches the exact k-th best's), for ``k`` asked directly and within ``cand`` candidates (as recall asks)."""
    out = []
    exact = [store.vector_search(model, q, k, hnsw_above=EXACT) for q in qvecs]
    for ask in (k, cand):
        got = asked = 0
        for q, ex in zip(qvecs, exact):
            if len(ex) < k:
                continue
            kth = ex[k - 1][2] - 1e-6
            ann = store.vector_search(model, q, ask, hnsw_above=0)[:k]
            got += sum(1 for _, _, s in ann if s >= kth)
            asked += k
        out.append(got / max(1, asked))
    return out[0], out[1]


def ef_sweep(store, model: str, qvecs, factors=(2, 4, 8), cand: int = 100) -> list[tuple[int, float, float, float]]:
    """``(ef_search, recall@10 within cand, p50 ms, exact p50 ms)`` per factor of ``pg_pgvector.HNSW_EF_FACTOR``."""
    from memdir.store.postgres import pgvector as pg_pgvector

    exact, ex_lat = [], []
    for q in qvecs:
        t = time.perf_counter()
        exact.append(store.vector_search(model, q, 10, hnsw_above=EXACT))
        ex_lat.append((time.perf_counter() - t) * 1000)
    keep = pg_pgvector.HNSW_EF_FACTOR
    rows = []
    try:
        for f in factors:
            pg_pgvector.HNSW_EF_FACTOR = f
            got = asked = 0
            lat = []
            for q, ex in zip(qvecs, exact):
                t = time.perf_counter()
                ann = store.vector_search(model, q, cand, hnsw_above=0)[:10]
                lat.append((time.perf_counter() - t) * 1000)
                if len(ex) == 10:
                    got += sum(1 for _, _, s in ann if s >= ex[9][2] - 1e-6)
                    asked += 10
            rows.append((min(1000, max(40, f * cand)), got / max(1, asked), pct(lat, .5), pct(ex_lat, .5)))
    finally:
        pg_pgvector.HNSW_EF_FACTOR = keep
    return rows


def clustered(n: int, dim: int, seed: int, queries: int = 0):
    """``n`` unit vectors around ``n / 100`` random centres (embeddings of related texts cluster), and ``queries``
    more drawn the same way (a query resembles some stored texts), float32: ``(stored, queries)``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // 100), dim)).astype(np.float32)
    mat = centres[rng.integers(0, len(centres), n + queries)] + 0.7 * rng.standard_normal((n + queries, dim)).astype(np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    return mat[:n], mat[n:]


def clustered_only(cluster, sizes: list[int], dim: int, nq: int) -> list[str]:
    """HNSW sweep rows on clustered vectors alone (one store per size, nothing else in the table)."""
    from memdir.store.postgres import pgvector as pg_pgvector
    from memdir.store import open_store

    rows = []
    for n in sizes:
        st = open_store(cluster.new_database(), project="bench")
        mat, qs = clustered(n, dim, 7, nq)
        st._hnsw = {dim}  # bulk load first, then one index build
        t = time.perf_counter()
        for i in range(0, n, 2000):
            with st.transaction():
                st.vector_put([(f"c{j}", f"c{j}") for j in range(i, min(n, i + 2000))], mat[i:i + 2000], "clustered",
                              "2026-11-30T00:00:00+00:00")
        load_s = time.perf_counter() - t
        t = time.perf_counter()
        pg_pgvector.create_hnsw(st.conn, dim)
        build_s = time.perf_counter() - t
        st._hnsw = None
        st.conn.execute("ANALYZE vectors")
        sw = ef_sweep(st, "clustered", list(qs))
        rows.append(f"| {n:,} | clustered Gaussian ({dim}; {n // 100:,} centres, queries from the same centres; stored "
                    f"{load_s:.0f} s, index {build_s:.0f} s) | " + " | ".join(f"ef {ef}: {r:.3f}, {p:.1f} ms" for ef, r, p, _ in sw)
                    + f" | {sw[0][3]:.1f} | {os.getloadavg()[0]:.1f} |")
        print(rows[-1], flush=True)
        st.close()
    return rows


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * (len(xs) - 1) + 0.5))]


def shared(a: list[list[str]], b: list[list[str]]) -> float:
    return statistics.mean(len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(a, b))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--dim", type=int, default=384, help="vector length of the hashing embedder (MiniLM/e5: 384)")
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--ef-construction", type=int, default=None, help="HNSW build breadth (memdir.store.postgres.pgvector.HNSW_EF_CONSTRUCTION)")
    ap.add_argument("--ef-factor", type=int, default=None, help="memdir.store.postgres.pgvector.HNSW_EF_FACTOR for the recall rows")
    ap.add_argument("--clustered-only", action="store_true", help="only the HNSW sweep on clustered vectors (store level)")
    ap.add_argument("--clustered", action=argparse.BooleanOptionalAction, default=True,
                    help="also measure HNSW recall on clustered Gaussian vectors of the same size")
    ap.add_argument("--pg-settings", default="-c shared_buffers=512MB -c work_mem=16MB -c max_wal_size=4GB "
                    "-c maintenance_work_mem=512MB")
    a = ap.parse_args()
    import memdir
    import pg_cluster
    import pg_scale
    import synth
    from memdir import embed
    from memdir.store.postgres import pgvector as pg_pgvector
    from memdir.store import open_store

    queries = synth.queries(a.queries)
    if a.ef_construction:
        pg_pgvector.HNSW_EF_CONSTRUCTION = a.ef_construction
    if a.ef_factor:
        pg_pgvector.HNSW_EF_FACTOR = a.ef_factor
    d = pg_cluster.pgserver_dir()
    if d is None:
        sys.exit("pip install pgserver (PostgreSQL + pgvector binaries) first")
    cluster = pg_cluster.Cluster(a.pg_settings, bindir=d / "bin")
    if a.clustered_only:
        try:
            rows = clustered_only(cluster, [int(x) for x in a.sizes.split(",") if x], a.dim, a.queries)
        finally:
            cluster.stop()
        text = "\n".join(["| vectors | set | factor 2 | factor 4 | factor 8 | exact p50 ms | load |",
                          "|---:|---|---|---|---|---:|---:|", *rows]) + "\n"
        print(text)
        if a.out:
            a.out.write_text(text)
        return 0
    lines = [f"Synthetic events (bench/synth.py, seed 7), hashing embedder (`fake`, {a.dim} dims), {len(queries)} queries, "
             f"k = 10, `recall.vector_candidates` = 100; {platform.machine()}, {os.cpu_count()} cores; PostgreSQL "
             f"16.2 + pgvector 0.6.2 from pgserver's binaries (throwaway cluster, unix socket, fsync off; {a.pg_settings}), "
             f"HNSW m = {pg_pgvector.HNSW_M}, ef_construction = {pg_pgvector.HNSW_EF_CONSTRUCTION}, ef_search = max(40, {pg_pgvector.HNSW_EF_FACTOR} × "
             "candidates) in the recall rows. Load average "
             "(1 min) beside each row: other jobs shared the 2 cores; the two PostgreSQL rows alternate query by query.", "",
             "| events | system | embed + store vectors s | hybrid p50 ms | hybrid p95 ms | vector p50 ms | vector p95 ms | "
             "hybrid top-10 shared with SQLite | vector recall@10 vs exact (k=10 / 100 candidates) | load |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    sweeps: list[str] = []
    build: dict[int, float] = {}
    cfg = {"embed.provider": "fake", "embed.dim": a.dim, "embed.recall_backfill_ms": 0}
    try:
        for n in [int(x) for x in a.sizes.split(",") if x]:
            tmp = Path(tempfile.mkdtemp(prefix="memdir-pgvec-bench-"))
            res = {}
            for system in ("sqlite", "postgresql"):
                proj = tmp / system
                (proj / ".git").mkdir(parents=True)
                url = cluster.new_database() if system == "postgresql" else ""
                with memdir.open(proj, home=tmp / "g") as m:
                    m.roots["project"].ensure()  # the project's memory root (.memory), where the facade looks
                    path = m.roots["project"].db_path
                s = open_store(url, project="bench") if url else open_store("", project="bench", path=path)
                secs, stored = pg_scale.ingest(s, n, a.batch)
                if url:
                    s.conn.execute("ANALYZE")
                s.close()
                print(f"{n} {system}: ingest {stored / secs:.0f}/s (load {os.getloadavg()[0]:.1f})", flush=True)
                extra = {"store": url, "remote.project": "bench"} if url else {}
                with memdir.open(proj, home=tmp / "g", config={**cfg, **extra}) as m:
                    if url:  # a bulk load: the HNSW index is built once after it (as after an import), not row by row
                        st = m.roots["project"].store
                        st._hnsw = pg_pgvector.hnsw_dims(st.conn) | {a.dim}
                    t = time.perf_counter()
                    m.backfill()
                    emb = time.perf_counter() - t
                    if url:
                        t = time.perf_counter()
                        pg_pgvector.create_hnsw(st.conn, a.dim)
                        build[n] = time.perf_counter() - t
                        st._hnsw = None
                    print(f"{n} {system}: vectors in {emb:.0f} s (load {os.getloadavg()[0]:.1f})", flush=True)
                    if url:
                        st.conn.execute("ANALYZE vectors")
                        assert st.pgvector, "pgvector missing on the pgserver cluster"
                        modes = (("postgresql, pgvector HNSW", 0), ("postgresql, pgvector exact", EXACT))
                        hys = measure(m, queries, "hybrid", tuple(t for _, t in modes))
                        ves = measure(m, queries, "vector", tuple(t for _, t in modes))
                        for (label, _), hy, ve in zip(modes, hys, ves):
                            res[label] = (emb, hy, ve, os.getloadavg()[0])
                            print(f"{n} {label}: hybrid p50 {pct(hy[0], .5):.1f} vector p50 {pct(ve[0], .5):.1f}", flush=True)
                        prov = embed.get_provider(m.config)
                        qv = embed.embed_query(prov, queries[0])  # shape check
                        qvecs = [embed.embed_query(prov, q) for q in queries]
                        qvecs = [q for q in qvecs if float((q * q).sum()) > 0]
                        res["recall"] = hnsw_recall(st, prov.model, qvecs)
                        res["sweep"] = ef_sweep(st, prov.model, qvecs)
                        del qv
                        if a.clustered:  # a second set: clustered vectors, searched through the same store
                            mat, cq = clustered(n, a.dim, 7, a.queries)
                            st.conn.execute(f"DROP INDEX vectors_hnsw_{a.dim}")
                            t = time.perf_counter()
                            for i in range(0, n, 2000):
                                with st.transaction():
                                    st.vector_put([(f"c{j}", f"c{j}") for j in range(i, min(n, i + 2000))],
                                                  mat[i:i + 2000], "clustered", "2026-11-30T00:00:00+00:00")
                            pg_pgvector.create_hnsw(st.conn, a.dim)
                            st._hnsw = None
                            put_s = time.perf_counter() - t
                            st.conn.execute("ANALYZE vectors")
                            res["clustered"] = (put_s, ef_sweep(st, "clustered", list(cq)))
                    else:
                        hy = measure(m, queries, "hybrid")[0]
                        ve = measure(m, queries, "vector")[0]
                        res["sqlite"] = (emb, hy, ve, os.getloadavg()[0])
                        print(f"{n} sqlite: hybrid p50 {pct(hy[0], .5):.1f} vector p50 {pct(ve[0], .5):.1f}", flush=True)
            base = res["sqlite"][1][1]
            for label in ("sqlite", "postgresql, pgvector HNSW", "postgresql, pgvector exact"):
                emb, hy, ve, load = res[label]
                if "HNSW" in label:
                    label += f" (index built after the load in {build[n]:.0f} s)"
                rec = ("—" if "HNSW" not in label else f"{res['recall'][0]:.3f} / {res['recall'][1]:.3f}")
                lines.append(f"| {n:,} | {label} | {emb:.0f} | {pct(hy[0], .5):.1f} | {pct(hy[0], .95):.1f} | "
                             f"{pct(ve[0], .5):.1f} | {pct(ve[0], .95):.1f} | "
                             f"{'—' if label == 'sqlite' else f'{shared(base, hy[1]):.2f}'} | {rec} | {load:.1f} |")
            sweeps.append(f"| {n:,} | hashing embedder ({a.dim}) | " + " | ".join(
                f"ef {ef}: {r:.3f}, {p:.1f} ms" for ef, r, p, _ in res["sweep"]) + f" | {res['sweep'][0][3]:.1f} |")
            if "clustered" in res:
                sweeps.append(f"| {n:,} | clustered Gaussian ({a.dim}; stored + indexed in {res['clustered'][0]:.0f} s) | " + " | ".join(
                    f"ef {ef}: {r:.3f}, {p:.1f} ms" for ef, r, p, _ in res["clustered"][1]) + f" | {res['clustered'][1][0][3]:.1f} |")
            print("\n".join(lines[-3:] + sweeps[-2:]), flush=True)
    finally:
        cluster.stop()
    lines += ["", "HNSW search breadth (`memdir.store.postgres.pgvector.HNSW_EF_FACTOR` × 100 candidates = `hnsw.ef_search`): the vector "
              "channel's recall@10 against the exact search of the same store (ties counted) and `PgStore.vector_search` "
              "p50 with 100 candidates; last column the exact search's p50 (pgvector scoring every vector, k = 10).", "",
              "| vectors | set | factor 2 | factor 4 | factor 8 | exact p50 ms |", "|---:|---|---|---|---|---:|", *sweeps]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        a.out.write_text(f"# Vectors on PostgreSQL (pgvector) beside SQLite — `bench/pg_vectors.py --sizes {a.sizes}`\n\n"
                         + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
