"""Operations on a PostgreSQL team store (issue 14 item 4): export/import between a local store and the server, and a
``pg_dump``/``pg_restore`` backup restored into a new database, with the Debian binaries of the throwaway cluster
(tests/pg_cluster.py). Skipped with the reason when the server binaries or psycopg are missing (failed under
MEMDIR_REQUIRE_POSTGRES=1, as in CI)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import memdir
from memdir.store import open_store
from memdir.recall.tokenize import query_tokens


WEIGHTS = (4.0, 3.0, 1.0, 0.3)


# `pg` (the session's throwaway cluster) and `pg_url` (a fresh database of it) come from conftest.py


def _events(n: int) -> list[dict]:
    return [{"key": f"ev:{i}", "role": "user" if i % 2 == 0 else "assistant",
             "text": f"turn {i}: the deploy of service-{i % 7} failed on migration {i} — rollback and retry",
             "session": f"s{i // 10}", "ts": 1_700_000_000 + 60 * i, "meta": {"n": i}} for i in range(n)]


def _local_events(m) -> dict[str, tuple]:
    db = m.stores.root("project").db
    return {r["ref"]: (r["role"], r["session"], r["ts"], r["text"], r["meta"], r["content_sha256"])
            for r in db.execute("SELECT ref, role, session, ts, text, meta, content_sha256 FROM docs WHERE kind = 'event'")}


def test_export_to_the_store_and_import_back_loses_and_duplicates_nothing(pg_url, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for p in (a, b):
        (p / ".git").mkdir(parents=True)
    with memdir.open(a, home=tmp_path / "g") as m:
        assert m.import_events(_events(120))["stored"] == 120
        m.forget("ev:5")
        before = _local_events(m)
        first = m.export_store(pg_url, project="team-x")
        assert (first["read"], first["stored"], first["duplicate"], first["tombstones"]) == (119, 119, 0, 1)
        again = m.export_store(pg_url, project="team-x")  # deterministic keys: a second run stores nothing
        assert (again["stored"], again["duplicate"]) == (0, 119)
    srv = open_store(pg_url, project="team-x")
    try:
        got = srv.conn.execute("SELECT count(*) AS n, count(DISTINCT ref) AS refs FROM docs WHERE project = 'team-x'").fetchone()
        assert got["n"] == got["refs"] == 119
        assert {r["ref"] for r in srv.search(query_tokens("rollback migration 42"), weights=WEIGHTS, limit=5)} >= {"ev:42"}
    finally:
        srv.close()
    with memdir.open(b, home=tmp_path / "g2") as m2:
        back = m2.import_store(pg_url, project="team-x")
        assert (back["read"], back["stored"], back["duplicate"], back["tombstones"]) == (119, 119, 0, 1)
        assert _local_events(m2) == before  # same keys, texts, times, sessions, meta and hashes
        assert m2.import_store(pg_url, project="team-x")["stored"] == 0
        # the forgotten event stays forgotten on the way back too
        assert m2.import_events([_events(6)[5]])["skipped"] == 1
        assert [h.id for h in m2.recall("rollback migration 42", k=3)][0] == "ev:42"


def test_export_and_import_store_on_the_command_line(pg_url, project, tmp_path):
    env_home = str(tmp_path / "g")

    def run(*args):
        r = subprocess.run([sys.executable, "-m", "memdir", *args], cwd=project, capture_output=True, text=True,
                           env={**__import__("os").environ, "MEMDIR_HOME": env_home}, timeout=120)
        return r.returncode, r.stdout, r.stderr

    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(30))
    code, out, err = run("export", "--store", pg_url, "--project", "cli-p", "--json")
    assert code == 0, err
    assert json.loads(out)["stored"] == 30
    code, out, err = run("import", "--store", pg_url, "--project", "cli-p", "--json")
    assert code == 0, err
    assert json.loads(out)["duplicate"] == 30 and json.loads(out)["stored"] == 0
    code, out, err = run("export", "x.jsonl", "--store", pg_url)
    assert code == 2 and "not both" in err
    code, out, err = run("import", "--store", "sqlite:///nope")
    assert code == 2 and "postgresql://" in err


def _dump_restore(pg, src_url: str, dst_db: str, dump) -> str:
    """``pg_dump -Fc`` of ``src_url`` into ``dump``, ``pg_restore`` into a new database ``dst_db`` (as the schema
    owner, the documented way: docs/team-store.md "Backup and restore"); returns the new database's URL."""
    import psycopg

    with psycopg.connect(pg.url(), autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{dst_db}"')
    dst_url = pg.url(dst_db)
    r = subprocess.run([str(pg.bindir / "pg_dump"), "-Fc", "-f", str(dump), "-d", src_url], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(pg.bindir / "pg_restore"), "--exit-on-error", "-d", dst_url, str(dump)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return dst_url


def test_pg_dump_backup_restores_every_project_with_its_statistics_and_security(pg, pg_url, tmp_path):
    from memdir.store.postgres import admin as pg_admin

    rows = []
    for i, e in enumerate(_events(60)):
        rows.append({"kind": "event", "ref": e["key"], "content_sha256": f"sha{i}", "role": e["role"], "session": e["session"],
                     "ts": "2026-11-30T00:00:00Z", "ts_epoch": float(e["ts"]), "text": e["text"], "meta": None})
    for project in ("pa", "pb"):
        s = open_store(pg_url, project=project)
        with s.transaction():
            pending: dict[int, str] = {}
            for r in rows if project == "pa" else rows[:20]:
                s.insert_event(r, pending=pending)
            s.flush_events(pending)
            s.tombstone("gone", "sha-gone", "event", "2026-11-30T00:00:00Z")
        s.close()
    admin = open_store(pg_url, project="pa")
    tok = pg_admin.add_token(admin.conn, "ann", ["pa"])
    q = query_tokens("rollback migration 42 service-3")
    want = [(r["ref"], r["bm25"], r["handle"]) for r in admin.search(q, weights=WEIGHTS, limit=10)]
    want_stats = admin.stats()
    admin.close()

    restored = _dump_restore(pg, pg_url, f"restored_{tmp_path.name[-20:]}", tmp_path / "memdir.dump")
    s = open_store(restored, project="pa")
    try:
        assert s.count("event") == 60 and s.tombstoned() == ({"gone"}, {"sha-gone"})
        assert s.stats() == want_stats  # counters restored as they were, not counted twice by the triggers
        assert [(r["ref"], r["bm25"], r["handle"]) for r in s.search(q, weights=WEIGHTS, limit=10)] == want
        # writes after the restore keep the counters right (the triggers came back with the schema); pa has a
        # member now, so the schema owner writes an event for a person (her token)
        w = open_store(restored, project="pa", token=tok)
        with w.transaction():
            w.insert_event({**rows[0], "ref": "new", "content_sha256": "sha-new", "text": "a brand new rollback turn"})
        w.close()
        assert s.stats()[0] == want_stats[0] + 1
        assert s.doc_freqs(["rollback"])[1]["rollback"] == 61
        ok = s.conn.execute("SELECT count(*) FROM docs WHERE project = 'pb'").fetchone()
        assert list(ok.values())[0] == 20
        # tokens and row-level security came back too: the token granting pa reads pa only
        s.conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ops_client') THEN "
                       "CREATE ROLE ops_client LOGIN; END IF; END $$")
        pg_admin.grant_client(s.conn, "ops_client")
    finally:
        s.close()
    client = restored.replace("memdir@", "ops_client@")
    c = open_store(client, project="pa", token=tok)
    try:
        assert c.count("event") == 61
    finally:
        c.close()
    c = open_store(client, project="pb", token=tok)
    try:
        assert c.count("event") == 0
    finally:
        c.close()


def _true_counts(s) -> tuple[tuple[int, float], dict[str, int]]:
    st = s.conn.execute("SELECT count(*) AS n, coalesce(sum(dl), 0) AS total FROM fts WHERE project = %s", (s.project,)).fetchone()
    df = {r["t"]: r["n"] for r in s.conn.execute(
        "SELECT t, count(*) AS n FROM fts, unnest(tsvector_to_array(tsv)) t WHERE project = %s GROUP BY t", (s.project,))}
    return (st["n"], st["total"] / st["n"] if st["n"] else 1.0), df


def test_kept_statistics_equal_a_recount_after_every_kind_of_write(pg_url):
    """N, avgdl and each term's document count are kept by the writes (no count at query time): after events with
    passages and neighbour context, notes replaced, forgets with context refresh and a rolled-back transaction, they
    equal a full recount."""
    s = open_store(pg_url, project="counts")
    other = open_store(pg_url, project="other")
    try:
        long_tool = "\n\n".join(f"section {i}: pytest fixture timeout in module m{i} " * 20 for i in range(12))
        with s.transaction():
            pending: dict[int, str] = {}
            for i, e in enumerate(_events(40)):
                s.insert_event({"kind": "event", "ref": e["key"], "content_sha256": f"h{i}", "role": e["role"],
                                "session": e["session"], "ts": "2026-11-30T00:00:00Z", "ts_epoch": float(e["ts"]),
                                "text": e["text"], "meta": None}, pending=pending)
            s.insert_event({"kind": "event", "ref": "tool", "content_sha256": "ht", "role": "tool", "session": "s1",
                            "ts": "2026-11-30T00:00:00Z", "ts_epoch": 1_700_000_615.0, "text": long_tool, "meta": None},
                           pending=pending)
            s.flush_events(pending)
        other.insert_event({"kind": "event", "ref": "o", "content_sha256": "o", "role": "user", "session": None,
                            "ts": "2026-11-30T00:00:00Z", "ts_epoch": 1.0, "text": "another project's rollback", "meta": None})
        for v in ("first", "second"):  # a note replaced (upsert) twice, outside a transaction
            s.upsert_doc({"kind": "note", "ref": "facts/n", "content_sha256": v, "ts": "2026-11-30T00:00:00Z", "ts_epoch": 1.0,
                          "text": f"{v} version about the deploy rollback", "summary": "deploy", "tags": json.dumps(["ops"])})
        with s.transaction():
            for ref in ("ev:3", "ev:11", "tool"):
                s.delete_doc(ref)
            s.refresh_context(["s0", "s1"])
        with pytest.raises(RuntimeError):
            with s.transaction():
                s.insert_event({"kind": "event", "ref": "rolled", "content_sha256": "r", "role": "user", "session": None,
                                "ts": "2026-11-30T00:00:00Z", "ts_epoch": 1.0, "text": "never kept zebra", "meta": None})
                raise RuntimeError("abort")
        stats, df = _true_counts(s)
        assert s.stats() == pytest.approx(stats) and stats[0] == 39
        assert s.doc_freqs(list(df))[1] == df and "zebra" not in s.doc_freqs(["zebra"])[1]
        assert other.stats()[0] == 1 and other.doc_freqs(["rollback"]) == (1, {"rollback": 1})
    finally:
        s.close()
        other.close()


def test_batch_insert_matches_one_row_at_a_time(pg_url):
    """insert_events (two statements a batch) stores what insert_event does row by row: duplicates by key and by
    text inside the batch and against stored rows, long events' passages, handles, context and the counters."""
    one, many = open_store(pg_url, project="one"), open_store(pg_url, project="many")
    try:
        long_tool = "\n\n".join(f"section {i}: pytest fixture timeout in module m{i} " * 20 for i in range(12))
        rows = []
        for i, e in enumerate(_events(30)):
            rows.append({"kind": "event", "ref": e["key"], "content_sha256": f"h{i}", "role": e["role"], "session": e["session"],
                         "ts": "2026-11-30T00:00:00Z", "ts_epoch": float(e["ts"]), "text": e["text"], "meta": None})
        rows.append({**rows[0], "ref": "tool", "content_sha256": "ht", "role": "tool", "text": long_tool})
        rows.append({**rows[3]})  # same key again
        rows.append({**rows[4], "ref": "other-key"})  # same text (hash) again
        for s, bulk in ((one, False), (many, True)):
            with s.transaction():
                pending: dict[int, str] = {}
                if bulk:
                    got = s.insert_events(rows[:10], pending=pending) + s.insert_events(rows[5:], pending=pending)
                else:
                    got = [s.insert_event(r, pending=pending) for r in rows[:10] + rows[5:]]
                s.flush_events(pending)
            assert [g is not None for g in got] == [True] * 10 + [False] * 5 + [True] * 21 + [False, False]
        q = query_tokens("pytest fixture timeout rollback migration 7")
        assert [(r["ref"], r["bm25"], r["handle"], r["span"]) for r in one.search(q, weights=WEIGHTS, limit=20)] == \
               [(r["ref"], r["bm25"], r["handle"], r["span"]) for r in many.search(q, weights=WEIGHTS, limit=20)]
        assert one.stats() == many.stats() and _true_counts(many)[0] == pytest.approx(many.stats())
    finally:
        one.close()
        many.close()
