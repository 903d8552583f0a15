"""Ingest and recall on the PostgreSQL store beside the SQLite index, on the same synthetic events (issue 14).

Both stores get the same rows (``bench/synth.py`` events, built the way the facade builds them) through the storage
interface (:mod:`memdir.store.sqlite.store`), in transactions of ``--batch`` events with neighbouring-turn context; then the same
queries are asked of both (``recall.candidates`` = 200 candidates, the default field weights). Printed per size:
ingest events/s, recall p50/p95 in ms, and how many of SQLite's top-10 refs PostgreSQL also returns (exact BM25 on
PostgreSQL; SQLite scores large stores approximately, see memdir.recall.bm25).

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


def _make_row(ev: dict) -> dict:
    from memdir.notes.markdown import content_hash
    from memdir.timeutil import iso

    ts = ev["ts"] if isinstance(ev["ts"], datetime) else datetime.fromisoformat(str(ev["ts"]))
    return {"kind": "event", "ref": ev["key"], "content_sha256": content_hash(ev["text"]), "role": ev["role"],
            "session": ev.get("session"), "ts": iso(ts), "ts_epoch": ts.timestamp(), "text": ev["text"], "meta": None}


def cache_dir() -> Path:
    d = Path(os.environ.get("MEMDIR_BENCH_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memdir-bench")
    d.mkdir(parents=True, exist_ok=True)
    return d


def rows(n: int):
    """``n`` synthetic event rows (bench/synth.py, seed 7), built the way the facade builds them; generated once per
    ``n`` and kept as gzipped JSON lines in :func:`cache_dir` (1M rows take minutes to generate and hash)."""
    import gzip
    import json

    import synth

    f = cache_dir() / f"synth-events-{n}-seed7.jsonl.gz"
    if not f.exists():
        tmp = f.with_suffix(f".tmp{os.getpid()}")
        with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=3) as out:
            for ev in synth.events(n):
                out.write(json.dumps(_make_row(ev), ensure_ascii=False) + "\n")
        tmp.replace(f)
    with gzip.open(f, "rt", encoding="utf-8") as inp:
        for line in inp:
            yield json.loads(line)


def ingest(store, n: int, batch: int, deadline: float | None = None) -> tuple[float, int]:
    """``(seconds, events)`` to write ``n`` events, or as many as fit before ``deadline`` (``time.time()``)."""
    t = time.perf_counter()
    buf: list[dict] = []

    bulk = getattr(store, "insert_events", None)  # PostgreSQL: a batch in two statements (SQLite: one row at a time)

    def flush():
        with store.transaction():
            pending: dict[int, str] = {}
            if bulk:
                bulk(buf, pending=pending)
            else:
                for r in buf:
                    store.insert_event(r, pending=pending)
            store.flush_events(pending)
        buf.clear()

    done = 0
    for r in rows(n):
        buf.append(r)
        if len(buf) >= batch:
            flush()
            done += batch
            if done % 50_000 == 0:
                el = time.perf_counter() - t
                print(f"  … {done:,} in {el:.0f} s ({done / el:.0f}/s, load {os.getloadavg()[0]:.1f})", flush=True)
            if deadline and time.time() > deadline:
                print(f"  deadline: stopped at {done:,} events", flush=True)
                return time.perf_counter() - t, done
    if buf:
        done += len(buf)
        flush()
    return time.perf_counter() - t, done


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


def merge(files: list[Path], out: Path | None) -> int:
    """Table rows from several ``--json-out`` files (e.g. one process per store, run in parallel)."""
    import json

    runs = [r for f in files for r in json.loads(f.read_text())]
    lines = []
    for n in sorted({r["n"] for r in runs}):
        got = {r["store"]: r for r in runs if r["n"] == n}
        sq = got.get("sqlite")
        for name in ("sqlite", "postgresql"):
            r = got.get(name)
            if r is None:
                continue
            shared = ("—" if name == "sqlite" or sq is None or sq.get("stored", n) != r.get("stored", n) else
                      f"{statistics.mean(len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(sq['tops'], r['tops'])):.2f}")
            events = f"{n:,}" if r.get("stored", n) == n else f"{r['stored']:,} (of {n:,}: stopped at the deadline)"
            lines.append(f"| {events} | {name} | {r['rate']:,.0f} | {pct(r['lat'], .5):.1f} | {pct(r['lat'], .95):.1f} | {shared} | "
                         f"{r['load']:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        with out.open("a") as f:
            f.write(text)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--pg-settings", default="-c shared_buffers=512MB -c work_mem=16MB -c max_wal_size=4GB",
                    help="server settings of the throwaway cluster")
    ap.add_argument("--append", action="store_true", help="append the rows to --out's table instead of writing a new one")
    ap.add_argument("--stores", default="sqlite,postgresql", help="run only these (one process per store can run in "
                    "parallel; --json-out keeps each run's figures, --merge prints the table of several)")
    ap.add_argument("--json-out", type=Path, default=None, help="write each store's figures (rate, latencies, top-10) here")
    ap.add_argument("--merge", nargs="*", type=Path, default=None, help="--json-out files to print as one table")
    ap.add_argument("--deadline", default=None, help="UTC HH:MM: stop ingesting then and measure recall on what is stored")
    a = ap.parse_args()
    if a.merge:
        return merge(a.merge, a.out)
    import synth
    from memdir.store import open_store
    from memdir.recall.tokenize import query_tokens

    queries = [query_tokens(q) for q in synth.queries(a.queries)]
    deadline = None
    if a.deadline:
        hh, mm = (int(x) for x in a.deadline.split(":"))
        now = datetime.utcnow()
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0).timestamp() - (now - datetime.now()).total_seconds()
    cluster = None
    stores = [x for x in a.stores.split(",") if x]
    url = os.environ.get("MEMDIR_STORE", "")
    if not url and "postgresql" in stores:
        sys.path.insert(0, str(HERE.parent / "tests"))
        import pg_cluster

        cluster = pg_cluster.Cluster(a.pg_settings)
    lines = [f"Storage interface, synthetic events (bench/synth.py), batches of {a.batch}; {CANDIDATES} candidates per "
             f"query, {len(queries)} queries; {platform.machine()}, {os.cpu_count()} cores, PostgreSQL throwaway cluster on a "
             "unix socket (fsync off) vs SQLite WAL", "",
             f"PostgreSQL settings: {a.pg_settings}; `ANALYZE` after ingest (autovacuum's job on a live server)", "",
             "| events | store | ingest events/s | recall p50 ms | recall p95 ms | top-10 shared with SQLite | load avg (1 min) |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    try:
        for n in [int(x) for x in a.sizes.split(",") if x]:
            tmp = Path(tempfile.mkdtemp(prefix="memdir-scale-"))
            opened = {"sqlite": lambda: open_store("", project="bench", path=tmp / "index.sqlite3"),
                      "postgresql": lambda: open_store(url or cluster.new_database(), project=f"bench-{n}")}
            res = {}
            for name in stores:
                s = opened[name]()
                secs, stored = ingest(s, n, a.batch, deadline)
                if name == "postgresql":
                    s.conn.execute("ANALYZE")
                recall(s, queries[:5])  # warm caches
                lat, tops = recall(s, queries)
                res[name] = (stored / secs, lat, tops, os.getloadavg()[0])
                print(f"{stored} {name}: ingest {stored / secs:.0f}/s, p50 {pct(lat, .5):.1f} ms", flush=True)
                s.close()
                if a.json_out:
                    import json

                    out = json.loads(a.json_out.read_text()) if a.json_out.exists() else []
                    out.append({"n": n, "stored": stored, "store": name, "rate": stored / secs, "lat": lat, "tops": tops,
                                "load": res[name][3]})
                    a.json_out.write_text(json.dumps(out))
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
            if len(res) < 2:
                continue
            shared = statistics.mean(len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(res["sqlite"][2], res["postgresql"][2]))
            for name in ("sqlite", "postgresql"):
                rate, lat, _, load = res[name]
                lines.append(f"| {n:,} | {name} | {rate:,.0f} | {pct(lat, .5):.1f} | {pct(lat, .95):.1f} | "
                             f"{'—' if name == 'sqlite' else f'{shared:.2f}'} | {load:.1f} |")
    finally:
        if cluster:
            cluster.stop()
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        if a.append and a.out.exists():
            with a.out.open("a") as f:
                f.write("\n".join(x for x in lines if x.startswith("| ") and x[2].isdigit()) + "\n")
        else:
            a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
