"""Vector search at scale: exact scan vs ANN (usearch, hnswlib) and sqlite-vec, plus hybrid recall latency.

    python bench/vector_scale.py ann   [--n 1000000] [--dim 384] [--queries 200] [--libs usearch,hnswlib,sqlite-vec]
    python bench/vector_scale.py store [--sizes 10000,100000] [--dim 384] [--queries 50]

``ann``: synthetic unit vectors clustered like sentence embeddings (a mixture of 1,000 Gaussian clusters, so the
neighbourhoods are not uniform noise), queries = perturbed data points. Reports build time, p50/p95 query
latency (one query at a time, k = 10) and recall@10 against the exact numpy scan (the ground truth).

``store``: a memdir store of N synthetic events with the fake embedder at ``dim`` dims (vectors the size of
MiniLM's), ``recall.channel = hybrid``; p50/p95 of :meth:`Memdir.explain` latency *excluding* query embedding
(lexical + vector + fuse + docs lookups), after a warm-up that loads the in-memory matrix.
Prints Markdown tables; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
K = 10


def synthetic(n: int, dim: int, seed: int = 0, clusters: int = 1000) -> np.ndarray:
    """``(n, dim)`` float32 unit rows: cluster centre + noise (σ = 0.6 per unit-norm centre)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    out = np.empty((n, dim), dtype=np.float32)
    for s in range(0, n, 100_000):
        e = min(n, s + 100_000)
        lab = rng.integers(0, clusters, e - s)
        out[s:e] = centres[lab] + 0.6 * rng.standard_normal((e - s, dim)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def exact_topk(data: np.ndarray, qs: np.ndarray, k: int) -> tuple[np.ndarray, list[float]]:
    lat, res = [], []
    for q in qs:
        t = time.perf_counter()
        s = data @ q
        idx = np.argpartition(-s, k)[:k]
        idx = idx[np.argsort(-s[idx])]
        lat.append((time.perf_counter() - t) * 1000)
        res.append(idx)
    return np.array(res), lat


def recall_at_k(found: list, truth: np.ndarray) -> float:
    return float(np.mean([len(set(map(int, f)) & set(map(int, t))) / len(t) for f, t in zip(found, truth)]))


def run_ann(n: int, dim: int, nq: int, libs: list[str]) -> None:
    print(f"generating {n:,} x {dim} vectors …", file=sys.stderr)
    data = synthetic(n, dim)
    rng = np.random.default_rng(1)
    qs = data[rng.integers(0, n, nq)] + 0.3 * rng.standard_normal((nq, dim)).astype(np.float32) / np.sqrt(dim)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    truth, lat = exact_topk(data, qs, K)
    rows = [("exact numpy scan", 0.0, pct(lat, 50), pct(lat, 95), 1.0, f"{data.nbytes / 2**20:.0f} MiB matrix")]
    for lib in libs:
        print(f"{lib} …", file=sys.stderr)
        try:
            rows.append(globals()[f"_{lib.replace('-', '_')}"](data, qs, truth))
        except (ImportError, AttributeError) as exc:  # not installed, or sqlite3 built without extension loading
            rows.append((lib, float("nan"), float("nan"), float("nan"), float("nan"), f"unavailable: {exc}"))
    print(f"\n### ANN vs exact: {n:,} synthetic vectors, {dim} dims, {nq} queries, k = {K}\n")
    print("| method | build s | p50 ms | p95 ms | recall@10 vs exact | note |\n|---|---|---|---|---|---|")
    for name, b, p50, p95, r, note in rows:
        print(f"| {name} | {b:.1f} | {p50:.2f} | {p95:.2f} | {r:.4f} | {note} |")


def _usearch(data, qs, truth):
    from usearch.index import Index

    t = time.perf_counter()
    ix = Index(ndim=data.shape[1], metric="ip", dtype="f32", connectivity=16, expansion_add=128, expansion_search=64)
    ix.add(np.arange(len(data), dtype=np.uint64), data)
    build = time.perf_counter() - t
    lat, found = [], []
    for q in qs:
        t = time.perf_counter()
        m = ix.search(q, K)
        lat.append((time.perf_counter() - t) * 1000)
        found.append(m.keys)
    return ("usearch HNSW (M=16, ef_add=128, ef=64)", build, pct(lat, 50), pct(lat, 95), recall_at_k(found, truth), "f32")


def _hnswlib(data, qs, truth):
    import hnswlib

    t = time.perf_counter()
    ix = hnswlib.Index(space="ip", dim=data.shape[1])
    ix.init_index(max_elements=len(data), M=16, ef_construction=128)
    ix.add_items(data, np.arange(len(data)))
    ix.set_ef(64)
    build = time.perf_counter() - t
    lat, found = [], []
    for q in qs:
        t = time.perf_counter()
        labels, _ = ix.knn_query(q, k=K)
        lat.append((time.perf_counter() - t) * 1000)
        found.append(labels[0])
    return ("hnswlib HNSW (M=16, ef_c=128, ef=64)", build, pct(lat, 50), pct(lat, 95), recall_at_k(found, truth), "")


def _sqlite_vec(data, qs, truth):
    import sqlite3

    import sqlite_vec

    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    t = time.perf_counter()
    db.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{data.shape[1]}] distance_metric=cosine)")
    db.executemany("INSERT INTO v(rowid, embedding) VALUES (?, ?)", ((i, data[i].tobytes()) for i in range(len(data))))
    build = time.perf_counter() - t
    lat, found = [], []
    for q in qs:
        t = time.perf_counter()
        rows = db.execute("SELECT rowid FROM v WHERE embedding MATCH ? AND k = ? ORDER BY distance", (q.tobytes(), K)).fetchall()
        lat.append((time.perf_counter() - t) * 1000)
        found.append([r[0] for r in rows])
    return ("sqlite-vec vec0 (brute force)", build, pct(lat, 50), pct(lat, 95), recall_at_k(found, truth), "exact scan in SQLite")


WORDS = ("deploy build cache redis postgres migration schema index backup cron nightly release branch merge review "
         "test flaky timeout retry queue worker kafka docker image registry secret token rotate vault proxy nginx "
         "latency memory leak profile trace span metric alert oncall incident rollback feature flag config yaml "
         "python rust typescript react vite webpack pnpm yarn poetry lint format commit hook ci pipeline runner").split()


def run_store(sizes: list[int], dim: int, nq: int) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    import memdir

    rng = np.random.default_rng(7)
    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    out = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "p").mkdir()
            cfg = {"embed.provider": "fake", "embed.dim": dim, "recall.channel": "hybrid", "embed.batch": 2048,
                   "embed.recall_backfill_ms": 0}
            m = memdir.open(Path(tmp) / "p", home=Path(tmp) / "h", config=cfg, clock=lambda: t0)
            print(f"store {n:,}: importing …", file=sys.stderr)
            evs = ({"key": f"e{i}", "role": "user", "ts": t0.timestamp() - i,
                    "text": " ".join(rng.choice(WORDS, 12)) + f" item {i}"} for i in range(n))
            m.import_events(evs)
            t = time.perf_counter()
            m.backfill()
            print(f"  backfill {time.perf_counter() - t:.1f}s", file=sys.stderr)
            queries = [" ".join(rng.choice(WORDS, 4)) for _ in range(nq)]
            m.explain(queries[0])  # warm-up: loads the contiguous matrix
            parts = {k: [] for k in ("lexical", "vector", "fuse", "excl_embed", "embed")}
            for q in queries:
                lat = m.explain(q, k=10)["latency_ms"]
                for k in ("lexical", "vector", "fuse", "embed"):
                    parts[k].append(lat[k])
                parts["excl_embed"].append(lat["total"] - lat["embed"] - lat["backfill"])
            out.append((n, {k: (pct(v, 50), pct(v, 95)) for k, v in parts.items()}))
            m.close()
    print(f"\n### hybrid recall latency excluding query embedding (fake embedder, {dim} dims, k = 10, {nq} queries)\n")
    print("| items | p50 ms | p95 ms | lexical p50 | vector p50 | fuse p50 |\n|---|---|---|---|---|---|")
    for n, p in out:
        print(f"| {n:,} | {p['excl_embed'][0]:.1f} | {p['excl_embed'][1]:.1f} | {p['lexical'][0]:.1f} | "
              f"{p['vector'][0]:.1f} | {p['fuse'][0]:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ann")
    a.add_argument("--n", type=int, default=1_000_000)
    a.add_argument("--dim", type=int, default=384)
    a.add_argument("--queries", type=int, default=200)
    a.add_argument("--libs", default="usearch,hnswlib,sqlite-vec")
    s = sub.add_parser("store")
    s.add_argument("--sizes", default="10000,100000")
    s.add_argument("--dim", type=int, default=384)
    s.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    if args.cmd == "ann":
        run_ann(args.n, args.dim, args.queries, [x for x in args.libs.split(",") if x])
    else:
        run_store([int(x) for x in args.sizes.split(",")], args.dim, args.queries)


if __name__ == "__main__":
    main()
