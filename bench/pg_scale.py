"""Ingest and recall on the PostgreSQL store beside the SQLite index, on the same synthetic events (issue 14).

Both stores get the same rows (``bench/synth.py`` events, built the way the facade builds them) through the storage
interface (:mod:`memdir.storage`), in transactions of ``--batch`` events with neighbouring-turn context; then the same
queries are asked of both (``recall.candidates`` = 200 candidates, the default field weights). Printed per size:
ingest events/s, recall p50/p95 in ms, and how many of SQLite's top-10 refs PostgreSQL also returns (exact BM25 on
PostgreSQL; SQLite scores large stores approximately, see memdir.bm25).

    python bench/pg_scale.py --sizes 10000,100000 --out bench/results/pg_scale.md
    MEMDIR_STORE=postgresql://… python bench/pg_scale.py      # an existing server instead of a throwaway cluster
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

WEIGHTS = (4.0, 3.0, 1.0, 0.3)
CANDIDATES = 200


def rows(n: int):
    import synth
    from memdir.notes import content_hash
    from memdir.timeutil import iso

    for ev in synth.events(n):
        ts = ev["ts"] if isinstance(ev["ts"], datetime) else datetime.fromisoformat(str(ev["ts"]))
        yield {"kind": "event", "ref": ev["key"], "content_sha256": content_hash(ev["text"]), "role": ev["role"],
               "session": ev.get("session"), "ts": iso(ts), "ts_epoch": ts.timestamp(), "text": ev["text"], "meta": None}


def ingest(store, n: int, batch: int) -> float:
    """Seconds to write ``n`` events."""
    t = time.perf_counter()
    buf: list[dict] = []

    def flush():
        with store.transaction():
            pending: dict[int, str] = {}
            for r in buf:
                store.insert_event(r, pending=pending)
            store.flush_events(pending)
        buf.clear()

    for r in rows(n):
        buf.append(r)
        if len(buf) >= batch:
            flush()
    if buf:
        flush()
    return time.perf_counter() - t


def recall(store, queries: list[list[str]]) -> tuple[list[float], list[list[str]]]:
    lat, tops = [], []
    for toks in queries:
        t = time.perf_counter()
        got = store.search(toks, weights=WEIGHTS, limit=CANDIDATES)
        lat.append((time.perf_counter() - t) * 1000)
        tops.append([r["ref"] for r in got[:10]])
    return lat, tops


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * (len(xs) - 1) + 0.5))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    import synth
    from memdir.storage import open_store
    from memdir.tokenize import query_tokens

    queries = [query_tokens(q) for q in synth.queries(a.queries)]
    cluster = None
    url = os.environ.get("MEMDIR_STORE", "")
    if not url:
        sys.path.insert(0, str(HERE.parent / "tests"))
        import pg_cluster

        cluster = pg_cluster.Cluster()
    lines = [f"Storage interface, synthetic events (bench/synth.py), batches of {a.batch}; {CANDIDATES} candidates per "
             f"query, {len(queries)} queries; {platform.machine()}, {os.cpu_count()} cores, PostgreSQL throwaway cluster on a "
             "unix socket (fsync off) vs SQLite WAL", "",
             "| events | store | ingest events/s | recall p50 ms | recall p95 ms | top-10 shared with SQLite |",
             "|---:|---|---:|---:|---:|---:|"]
    try:
        for n in [int(x) for x in a.sizes.split(",") if x]:
            tmp = Path(tempfile.mkdtemp(prefix="memdir-scale-"))
            sq = open_store("", project="bench", path=tmp / "index.sqlite3")
            pg = open_store(url or cluster.new_database(), project=f"bench-{n}")
            res = {}
            for name, s in (("sqlite", sq), ("postgresql", pg)):
                secs = ingest(s, n, a.batch)
                recall(s, queries[:5])  # warm caches
                lat, tops = recall(s, queries)
                res[name] = (n / secs, lat, tops)
                print(f"{n} {name}: ingest {n / secs:.0f}/s, p50 {pct(lat, .5):.1f} ms", flush=True)
            shared = statistics.mean(len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(res["sqlite"][2], res["postgresql"][2]))
            for name in ("sqlite", "postgresql"):
                rate, lat, _ = res[name]
                lines.append(f"| {n:,} | {name} | {rate:,.0f} | {pct(lat, .5):.1f} | {pct(lat, .95):.1f} | "
                             f"{'—' if name == 'sqlite' else f'{shared:.2f}'} |")
            sq.close()
            pg.close()
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        if cluster:
            cluster.stop()
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
