"""Reliability of the PostgreSQL store under concurrent writers (issue 14): N client processes x M event writes.

Each client is a separate process with its own connection, logged in as a client role with a token for the
project (row-level security on). It writes its M events in transactions of ``--batch``, all clients sharing the same
few sessions (so neighbouring-turn context is updated across clients), and after every batch it *replays* the
previous batch (the same keys and texts, as a write queue that re-sends after a timeout would). At the end every key
must be stored exactly once: ``lost`` = keys written but missing, ``duplicated`` = rows beyond one per key or text.

    python bench/pg_reliability.py                     # 16 x 500, throwaway cluster (Debian's postgresql)
    python bench/pg_reliability.py --clients 4 --writes 50
    MEMDIR_STORE=postgresql://… python bench/pg_reliability.py   # an existing server (an admin login)

Prints a table; with ``--out`` writes it (Markdown) too. Used by tests/test_storage.py (small) and the slow suite.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

SESSIONS = 4


def _row(client: int, j: int) -> dict:
    text = f"client {client} write {j}: the build cache for service {j % 37} was invalidated by commit {client * 100000 + j:x}"
    return {"kind": "event", "ref": f"c{client}-w{j}", "content_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "role": "user" if j % 2 else "assistant", "session": f"s{(client + j) % SESSIONS}", "ts": f"{j}",
            "ts_epoch": float(j) + client / 100.0, "text": text, "meta": None}


def _client(url: str, project: str, token: str, client: int, writes: int, batch: int, q) -> None:
    from memdir.store.postgres.store import PgStore

    stored = dup = 0
    lat: list[float] = []
    prev: list[dict] = []
    store = None
    try:
        store = PgStore.connect(url, project=project, token=token)  # a refusal is reported too (the parent waits)
        for start in range(0, writes, batch):
            rows = [_row(client, j) for j in range(start, min(writes, start + batch))]
            for group in (rows, prev):  # the new batch, then the previous one again (a replayed queue)
                if not group:
                    continue

                def write(s, group=group):
                    pending: dict[int, str] = {}
                    got = [s.insert_event(r, pending=pending) for r in group]
                    s.flush_events(pending)
                    return got

                t = time.perf_counter()
                got = store.write(write)
                lat.append((time.perf_counter() - t) * 1000 / len(group))
                stored += sum(1 for g in got if g)
                dup += sum(1 for g in got if not g)
            prev = rows
        q.put((client, stored, dup, lat, None))
    except Exception as exc:  # reported, never hidden: the table shows the error
        q.put((client, stored, dup, lat, f"{type(exc).__name__}: {exc}"))
    finally:
        if store is not None:
            store.close()


def run(admin_url: str, client_url: str, *, clients: int, writes: int, batch: int) -> dict:
    """Run the clients against a database; returns the figures (``lost``, ``duplicated``, ``errors``, …)."""
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import store as pg_store

    project = f"rel-{os.getpid()}-{time.time_ns()}"
    admin = pg_store.PgStore.connect(admin_url, project=project)
    token = pg_admin.add_token(admin.conn, "bench", [project])
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    t0 = time.perf_counter()
    procs = [ctx.Process(target=_client, args=(client_url, project, token, c, writes, batch, q)) for c in range(clients)]
    for p in procs:
        p.start()
    results = [q.get(timeout=1800) for _ in procs]
    for p in procs:
        p.join()
    wall = time.perf_counter() - t0
    c = admin.conn
    rows = c.execute("SELECT count(*) AS n, count(DISTINCT ref) AS refs, count(DISTINCT content_sha256) AS shas "
                     "FROM docs WHERE project = %s", (project,)).fetchone()
    fts0 = c.execute("SELECT count(*) AS n FROM fts WHERE project = %s AND seq = 0", (project,)).fetchone()["n"]
    have = {r["ref"] for r in c.execute("SELECT ref FROM docs WHERE project = %s", (project,))}
    want = {f"c{i}-w{j}" for i in range(clients) for j in range(writes)}
    lat = sorted(x for r in results for x in r[3])
    out = {
        "clients": clients, "writes_per_client": writes, "batch": batch, "written": clients * writes,
        "stored_rows": rows["n"], "lost": len(want - have), "duplicated": rows["n"] - len(have),
        "dup_texts": rows["n"] - rows["shas"], "fts_rows": fts0, "replays_refused": sum(r[2] for r in results),
        "errors": [r[4] for r in results if r[4]], "wall_s": round(wall, 1),
        "writes_per_s": round(clients * writes / wall, 1),
        "ms_per_write_p50": round(statistics.median(lat), 2) if lat else None,
        "ms_per_write_p95": round(lat[int(0.95 * (len(lat) - 1))], 2) if lat else None,
    }
    pg_admin.revoke_tokens(c, "bench")
    admin.close()
    return out


def table(r: dict) -> str:
    keys = ["clients", "writes_per_client", "batch", "written", "stored_rows", "lost", "duplicated", "dup_texts",
            "fts_rows", "replays_refused", "errors", "wall_s", "writes_per_s", "ms_per_write_p50", "ms_per_write_p95"]
    lines = ["| figure | value |", "|---|---|"]
    lines += [f"| {k} | {len(r[k]) if k == 'errors' else r[k]} |" for k in keys]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--writes", type=int, default=500)
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    cluster = None
    url = os.environ.get("MEMDIR_STORE", "")
    if url:
        admin_url = client_url = url
    else:
        sys.path.insert(0, str(HERE.parent / "tests"))
        import pg_cluster
        import psycopg

        cluster = pg_cluster.Cluster()
        admin_url = cluster.new_database()
        from memdir.store.postgres import admin as pg_admin
        from memdir.store.postgres import store as pg_store

        pg_store.PgStore.connect(admin_url, project="setup").close()  # migrate as the owner
        with psycopg.connect(admin_url, autocommit=True) as c:
            c.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_client') THEN "
                      "CREATE ROLE bench_client LOGIN; END IF; END $$")
            c.execute("GRANT memdir_client TO bench_client")
        client_url = admin_url.replace("postgresql://memdir@", "postgresql://bench_client@", 1)
    try:
        r = run(admin_url, client_url, clients=a.clients, writes=a.writes, batch=a.batch)
    finally:
        if cluster:
            cluster.stop()
    import platform

    head = (f"PostgreSQL store, {a.clients} client processes x {a.writes} writes (batches of {a.batch}, each batch replayed "
            f"once), row-level security on; {platform.machine()}, {os.cpu_count()} cores")
    text = head + "\n\n" + table(r) + "\n"
    if r["errors"]:
        text += "\nerrors:\n" + "\n".join(f"- {e}" for e in r["errors"]) + "\n"
    print(text)
    if a.out:
        a.out.write_text(text)
    return 0 if not r["lost"] and not r["duplicated"] and not r["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
