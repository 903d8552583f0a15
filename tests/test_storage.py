"""The storage interface (issue 14): the same behaviour tests on the SQLite index and on PostgreSQL.

The PostgreSQL store runs against a real server started for the session (tests/pg_cluster.py); without the server
binaries or psycopg those cases skip with the reason (and fail under MEMDIR_REQUIRE_POSTGRES=1, as in CI).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone

import pytest

from memdir.recall import passages
from memdir import store as storage
from memdir.store import open_store
from memdir.store.protocol import Store
from memdir.store.sqlite.store import SqliteStore
from memdir.recall.tokenize import query_tokens

import pg_cluster

WEIGHTS = (4.0, 3.0, 1.0, 0.3)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = open_store("", project="p", path=tmp_path / "index.sqlite3")
    else:
        s = open_store(request.getfixturevalue("pg_url"), project="proj-a")
    yield s
    s.close()


def sha(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def event(key: str, text: str, *, session: str | None = "s1", ts: float = 1_700_000_000.0, role: str = "user") -> dict:
    return {"kind": "event", "ref": key, "content_sha256": sha(text), "role": role, "session": session,
            "ts": f"{ts}", "ts_epoch": ts, "text": text, "meta": None}


def note(ref: str, text: str, *, summary: str = "", tags=(), superseded_by: str | None = None, ts: float = 1_700_000_000.0) -> dict:
    cat = ref.split("/")[0]
    return {"kind": "note", "ref": ref, "content_sha256": sha(text), "category": cat, "note_kind": "fact", "ts": f"{ts}",
            "ts_epoch": ts, "summary": summary, "highlight": None, "text": text, "tags": json.dumps(list(tags)),
            "load_when": "[]", "pinned": 0, "supersedes": None, "superseded_by": superseded_by}


def refs(store: Store, query: str, **kw) -> list[str]:
    return [r["ref"] for r in store.search(query_tokens(query), weights=WEIGHTS, limit=10, **kw)]


def import_events(store: Store, rows: list[dict]) -> dict[str, int]:
    """What the facade's import does with a store: tombstones skipped, duplicates counted, context flushed."""
    counts = {"stored": 0, "duplicate": 0, "skipped": 0}
    with store.transaction():
        tomb_refs, tomb_shas = store.tombstoned()
        pending: dict[int, str] = {}
        for row in rows:
            if row["ref"] in tomb_refs or row["content_sha256"] in tomb_shas:
                counts["skipped"] += 1
            elif store.insert_event(row, pending=pending):
                counts["stored"] += 1
            else:
                counts["duplicate"] += 1
        store.flush_events(pending)
    return counts


def test_both_implementations_are_stores(tmp_path):
    s = SqliteStore.open(tmp_path / "i.sqlite3")
    assert isinstance(s, Store)
    s.close()
    from memdir.store.postgres.store import PgStore

    assert all(callable(getattr(PgStore, m, None)) for m in ("upsert_doc", "insert_event", "flush_events", "search",
                                                             "delete_doc", "tombstone", "tombstoned", "get_doc"))


def test_unknown_store_spec_is_a_usage_error(tmp_path):
    from memdir.errors import UsageError

    with pytest.raises(UsageError):
        open_store("mysql://x", project="p")
    assert storage.is_remote("postgresql://u@h/db") and not storage.is_remote("")


def test_remember_and_recall(store):
    with store.transaction():
        store.upsert_doc(note("decisions/deploy", "We deploy with the blue-green script every Friday.", summary="deploy day",
                              tags=["release"]))
        store.upsert_doc(note("facts/db", "The staging database is PostgreSQL 15.", summary="staging db"))
    assert store.meta_int("notes_gen") == 2
    assert refs(store, "when do we deploy?") == ["decisions/deploy"]
    assert refs(store, "release") == ["decisions/deploy"]  # tags are indexed
    got = store.get_doc("facts/db")
    assert got["summary"] == "staging db" and store.resolve_handle(got["handle"]) == "facts/db"
    assert store.live_note_with_sha(sha("The staging database is PostgreSQL 15.")) == "facts/db"
    assert store.count("note") == 2 and store.count("event") == 0
    with store.transaction():  # a rewrite of the same id replaces it
        store.upsert_doc(note("facts/db", "The staging database moved to MySQL.", summary="staging db"))
    assert store.count("note") == 1 + 1 and refs(store, "postgresql") == []


def test_import_events_dedup_by_key_and_text(store):
    first = import_events(store, [event("k1", "the cache key includes the locale"), event("k2", "flaky test in ci pipeline")])
    assert first == {"stored": 2, "duplicate": 0, "skipped": 0}
    again = import_events(store, [event("k1", "the cache key includes the locale"),
                                  event("k3", "the cache key  includes the locale")])  # same key; same text, new key
    assert again == {"stored": 0, "duplicate": 2, "skipped": 0}
    assert store.count("event") == 2
    assert refs(store, "locale cache")[0] == "k1"


def test_neighbouring_turns_are_context(store):
    import_events(store, [event("a", "which port does the api listen on", ts=1.0),
                          event("b", "it listens on 8443 behind nginx", ts=2.0, role="assistant"),
                          event("c", "unrelated: lunch at noon", session="s2", ts=3.0)])
    got = refs(store, "api port")
    assert got[0] == "a" and "b" in got and "c" not in got  # b found through its neighbour's words


def test_forget_tombstones_and_blocks_reimport(store):
    import_events(store, [event("a", "the deploy token lives in vault", ts=1.0), event("b", "rotate it monthly", ts=2.0)])
    with store.transaction():
        row = store.get_doc("a")
        assert store.delete_doc("a")
        store.refresh_context(["s1"])
        store.tombstone("a", row["content_sha256"], "event", "2026-11-30T00:00:00Z")
    assert refs(store, "vault") == []  # neither a's own row nor b's context still holds the word
    assert store.get_doc("a") is None and not store.delete_doc("a")
    assert "a" in store.tombstoned()[0]
    assert import_events(store, [event("a", "the deploy token lives in vault"), event("a2", "the deploy token lives in vault")]) \
        == {"stored": 0, "duplicate": 0, "skipped": 2}


def test_superseded_notes_are_not_recalled(store):
    with store.transaction():
        store.upsert_doc(note("facts/port-old", "The api port is 8080.", superseded_by="facts/port"))
        store.upsert_doc(note("facts/port", "The api port is 8443."))
    assert refs(store, "api port") == ["facts/port"]
    assert store.live_note_with_sha(sha("The api port is 8080.")) is None  # a superseded copy does not count


def test_kinds_filter_and_rehearsal(store):
    import_events(store, [event("e1", "grafana dashboard for latency")])
    with store.transaction():
        store.upsert_doc(note("facts/grafana", "Grafana lives at grafana.internal.", tags=["grafana"]))
        store.bump_rehearsal(["facts/grafana", "facts/grafana"], "2026-11-30T00:00:00Z")
        store.bump_rehearsal(["facts/grafana"], "2026-11-30T00:00:01Z")
    assert refs(store, "grafana", kinds=("event",)) == ["e1"]
    rows = store.search(query_tokens("grafana"), weights=WEIGHTS, limit=5, kinds=("note",))
    assert [r["ref"] for r in rows] == ["facts/grafana"] and rows[0]["rehearsals"] == 2


def test_long_event_recalls_its_passage(store):
    filler = "\n".join(f"line {i} about nothing in particular" for i in range(80))
    text = filler + "\nthe kubelet crashed because of the cgroup driver mismatch\n" + filler
    import_events(store, [event("long", text, role="tool")])  # tool outputs are passages; turns are indexed whole
    rows = store.search(query_tokens("cgroup driver"), weights=WEIGHTS, limit=5)
    assert rows and rows[0]["ref"] == "long"
    a, b = rows[0]["span"]
    assert "cgroup driver" in text[a:b] and (a, b) != (0, len(text))


CORPUS_NOTES = [
    note("decisions/deploy", "We deploy with the blue-green script every Friday; rollback is `make rollback`.",
         summary="deploy on Friday", tags=["release", "deploy"]),
    note("pitfalls/node", "node.js 18 breaks the C++ addon; pin node 16 for the build image.", summary="node pin"),
    note("facts/zh", "部署脚本在 scripts/deploy.sh，周五发布。", summary="部署脚本"),
    note("facts/db", "The staging database is PostgreSQL 15 with pgvector.", summary="staging database", tags=["db"]),
]
CORPUS_EVENTS = [
    event("e1", "how do we deploy the api to staging?", ts=10.0),
    event("e2", "Run scripts/deploy.sh staging; it uses the blue-green switch.", ts=11.0, role="assistant"),
    event("e3", "the database migration failed on staging: lock timeout", ts=12.0),
    event("e4", "部署失败了，数据库锁超时", session="s2", ts=13.0),
    event("e5", "\n".join(f"log line {i}: retrying connection" for i in range(120)) + "\nfinal: pgvector extension missing",
          session="s2", ts=14.0, role="tool"),
    event("e6", "don't forget Caroline's review of the node.js upgrade", session=None, ts=15.0),
]
QUERIES = ["deploy staging", "how do we deploy?", "部署", "数据库 锁", "node.js c++ addon", "pgvector extension", "caroline review",
           "lock timeout database", "blue-green rollback friday", "retrying connection"]


def test_postgres_scores_match_sqlite(tmp_path, pg_url):
    """The same rows give the same candidates and the same BM25 scores on both stores (the ranking is one code)."""
    stores = [open_store("", project="p", path=tmp_path / "i.sqlite3"), open_store(pg_url, project="p")]
    try:
        for s in stores:
            with s.transaction():
                for n in CORPUS_NOTES:
                    s.upsert_doc(n)
            import_events(s, CORPUS_EVENTS)
        for q in QUERIES:
            a, b = (s.search(query_tokens(q), weights=WEIGHTS, limit=20) for s in stores)
            assert [r["ref"] for r in a] == [r["ref"] for r in b], q
            assert [r["bm25"] for r in a] == pytest.approx([r["bm25"] for r in b], rel=1e-9), q
            for x, y in zip(a, b):  # the best passage; among passages of equal score either store may pick another
                assert (x["span"] is None) == (y["span"] is None), q
                if x["span"] and tuple(x["span"]) != tuple(y["span"]):
                    spans = passages.split(x["text"])
                    assert tuple(x["span"]) in spans and tuple(y["span"]) in spans, q
        rows = [s.search(query_tokens("pgvector extension"), weights=WEIGHTS, limit=1)[0] for s in stores]
        assert rows[0]["span"] == tuple(rows[1]["span"]) and "pgvector" in rows[0]["text"][slice(*rows[0]["span"])]
    finally:
        for s in stores:
            s.close()


def test_projects_sharing_a_database_never_see_each_other(pg_url):
    a, b = open_store(pg_url, project="alpha"), open_store(pg_url, project="beta")
    try:
        import_events(a, [event("k1", "alpha secret: the launch code is swordfish")])
        with a.transaction():
            a.upsert_doc(note("facts/x", "alpha note about swordfish"))
        assert refs(b, "swordfish") == [] and b.get_doc("k1") is None and b.count("event") == 0
        assert b.resolve_handle(a.get_doc("k1")["handle"]) is None
        # the same key and text in the other project is a different memory, stored there too
        assert import_events(b, [event("k1", "alpha secret: the launch code is swordfish")])["stored"] == 1
        with b.transaction():
            assert b.delete_doc("facts/x") is False
        assert refs(a, "swordfish") and a.count("event") == 1
    finally:
        a.close()
        b.close()


def test_schema_migrates_once_and_refuses_a_newer_one(pg_url):
    import psycopg

    from memdir.errors import MemdirError
    from memdir.store.postgres.migrations import MIGRATIONS

    s1, s2 = open_store(pg_url, project="x"), open_store(pg_url, project="y")
    with psycopg.connect(pg_url, autocommit=True) as c:
        assert c.execute("SELECT count(*), max(version) FROM memdir_schema").fetchone() == (len(MIGRATIONS), len(MIGRATIONS))
        c.execute("INSERT INTO memdir_schema(version) VALUES (%s)", (len(MIGRATIONS) + 1,))
    s1.close()
    s2.close()
    with pytest.raises(MemdirError, match="newer"):
        open_store(pg_url, project="x")


def test_unreachable_server_is_one_clear_error(tmp_path):
    pytest.importorskip("psycopg")
    from memdir.errors import MemdirError

    with pytest.raises(MemdirError, match="could not connect"):
        open_store(f"postgresql://nobody:pw@/none?host={tmp_path}&connect_timeout=2", project="p")


def _login(url: str, login: str) -> str:
    """``url`` with another user name (the test cluster trusts local logins)."""
    return url.replace("postgresql://memdir@", f"postgresql://{login}@", 1)


def test_a_token_for_project_a_cannot_read_project_b(pg_url):
    """Row-level security: a client login sees and writes only the project its token grants, whatever it asks."""
    import psycopg

    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project="alpha")  # the schema owner (a superuser here): migrates, makes tokens
    c = admin.conn
    for login in ("alice", "bob"):
        c.execute(f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{login}') THEN "
                  f"CREATE ROLE {login} LOGIN; END IF; END $$")
        pg_admin.grant_client(c, login)
    tok_a = pg_admin.add_token(c, "alice", ["alpha"])
    tok_b = pg_admin.add_token(c, "bob", ["beta"])
    alice = open_store(_login(pg_url, "alice"), project="alpha", token=tok_a)
    bob = open_store(_login(pg_url, "bob"), project="beta", token=tok_b)
    try:
        assert import_events(alice, [event("a1", "alpha: the vpn password rotates on mondays")])["stored"] == 1
        assert import_events(bob, [event("b1", "beta: the vpn gateway is in frankfurt")])["stored"] == 1
        assert refs(alice, "vpn") == ["a1"] and refs(bob, "vpn") == ["b1"]
        # even a statement without a project condition sees one project's rows
        assert alice.conn.execute("SELECT array_agg(ref) AS r FROM docs").fetchone()["r"] == ["a1"]
        # alice's token asked for beta: nothing is visible, nothing can be written
        sneaky = open_store(_login(pg_url, "alice"), project="beta", token=tok_a)
        assert refs(sneaky, "vpn") == [] and sneaky.get_doc("b1") is None and sneaky.count("event") == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            import_events(sneaky, [event("x", "planted into beta")])
        sneaky.close()
        # setting app.project by hand without beta's token shows nothing either
        raw = psycopg.connect(_login(pg_url, "alice"), autocommit=True)
        raw.execute("SELECT set_config('app.project', 'beta', false), set_config('app.token', 'guess', false)")
        assert raw.execute("SELECT count(*) FROM docs").fetchone()[0] == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            raw.execute("SELECT * FROM memdir_tokens")  # clients never read the token table
        raw.close()
        # revoking the token closes the door on the next statement
        pg_admin.revoke_tokens(c, "bob")
        assert refs(bob, "vpn") == []
        assert admin.conn.execute("SELECT count(*) AS n FROM docs").fetchone()["n"] == 2  # the owner sees all
    finally:
        alice.close()
        bob.close()
        admin.close()


def _reliability(pg, clients: int, writes: int) -> dict:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import pg_reliability

    admin_url = pg.new_database()
    open_store(admin_url, project="setup").close()  # the owner migrates
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as c:
        c.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rel_client') THEN "
                  "CREATE ROLE rel_client LOGIN; END IF; END $$")
        c.execute("GRANT memdir_client TO rel_client")
    return pg_reliability.run(admin_url, _login(admin_url, "rel_client"), clients=clients, writes=writes, batch=10)


def test_concurrent_clients_lose_and_duplicate_nothing(pg):
    """Client processes write through row-level security at once, each replaying its previous batch: every key once."""
    r = _reliability(pg, 3, 30)
    assert (r["lost"], r["duplicated"], r["dup_texts"], r["errors"]) == (0, 0, 0, [])
    assert r["stored_rows"] == r["fts_rows"] == 90 and r["replays_refused"] == 60


@pytest.mark.slow
def test_sixteen_clients_by_five_hundred_writes(pg):
    r = _reliability(pg, 16, 500)
    assert (r["lost"], r["duplicated"], r["dup_texts"], r["errors"]) == (0, 0, 0, [])
    assert r["stored_rows"] == r["fts_rows"] == 8000


def test_doctor_checks_the_store(pg_url, project, tmp_path, monkeypatch):
    import memdir

    monkeypatch.setenv("MEMDIR_STORE", pg_url)
    m = memdir.open(project, home=tmp_path / "g")
    try:
        checks = {c["check"]: c for c in m.doctor() if c["check"].startswith("store ")}
    finally:
        m.close()
    assert checks["store connection"]["ok"] == "ok" and "PostgreSQL" in checks["store connection"]["detail"]
    assert checks["store schema"]["ok"] == checks["store row-level security"]["ok"] == "ok"
    assert checks["store login"]["ok"] == "warn"  # the test cluster's superuser sees every project
    pgv = checks["store pgvector"]  # Debian's cluster: no pgvector (tests/test_pgvector.py covers a server with it)
    assert (pgv["ok"], pgv["detail"].split(":")[0]) in (("warn", "absent"), ("ok", "present"))


def test_doctor_reports_an_unreachable_store(project, tmp_path, monkeypatch):
    pytest.importorskip("psycopg")
    import memdir

    monkeypatch.setenv("MEMDIR_STORE", f"postgresql://x:secret@/none?host={tmp_path}&connect_timeout=2")
    m = memdir.open(project, home=tmp_path / "g")
    try:
        c = next(c for c in m.doctor() if c["check"] == "store connection")
    finally:
        m.close()
    assert c["ok"] == "fail" and "secret" not in c["detail"]


def test_team_server_refuses_another_projects_token(pg_url):
    """memdir serve --store: the person's token decides the project, the database enforces it (HTTP 403 / nothing)."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from memdir.store.postgres import admin as pg_admin
    from memdir.server import team as teamserver
    from memdir.errors import MemdirError

    admin = open_store(pg_url, project="alpha")
    c = admin.conn
    c.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'team_srv') THEN "
              "CREATE ROLE team_srv LOGIN; END IF; END $$")
    pg_admin.grant_client(c, "team_srv")
    tok_a, tok_b = pg_admin.add_token(c, "ann", ["alpha"]), pg_admin.add_token(c, "ben", ["beta"])
    with pytest.raises(MemdirError, match="sees every project"):
        teamserver.check_login(pg_url)  # the superuser would bypass row-level security
    srv_url = _login(pg_url, "team_srv")
    teamserver.check_login(srv_url)
    client = TestClient(teamserver.app(srv_url))
    try:
        def post(project, what, body, tok):
            return client.post(f"/v1/{project}/{what}", json=body, headers={"Authorization": f"Bearer {tok}"})

        ev = event("a1", "alpha: staging uses the eu-west bucket")
        r = post("alpha", "events", {"events": [ev, ev]}, tok_a)
        assert r.status_code == 200 and r.json() == {"stored": 1, "duplicate": 1, "skipped": 0}
        assert post("alpha", "events", {"events": [ev]}, tok_a).json()["duplicate"] == 1  # a replayed queue
        assert [h["ref"] for h in post("alpha", "recall", {"query": "staging bucket"}, tok_a).json()["hits"]] == ["a1"]
        # ann's token on beta, ben's on alpha, no token, a made-up one: refused
        assert post("beta", "recall", {"query": "staging bucket"}, tok_a).status_code == 403
        assert post("alpha", "recall", {"query": "staging bucket"}, tok_b).status_code == 403
        assert post("beta", "events", {"events": [event("x", "planted")]}, tok_a).status_code == 403
        assert client.post("/v1/alpha/recall", json={"query": "x"}).status_code == 401
        assert post("alpha", "recall", {"query": "x"}, "mdt_guess").status_code == 401  # nobody: a token to fix
        assert post("beta", "recall", {"query": "staging bucket"}, tok_b).json()["hits"] == []
        r = post("alpha", "forget", {"ref": "a1", "when": "2026-11-30T00:00:00Z"}, tok_a)
        assert r.json() == {"forgotten": True}
        assert post("alpha", "events", {"events": [ev]}, tok_a).json()["skipped"] == 1  # tombstoned
        assert post("alpha", "events", {"events": [{"ref": "x"}]}, tok_a).status_code == 400
    finally:
        client.close()
        admin.close()


def test_memdir_serve_store_end_to_end(pg_url):
    """The CLI: `memdir serve --store URL --port 0 --json` prints its URL, answers with the token's project only."""
    import subprocess
    import sys

    httpx = pytest.importorskip("httpx")
    pytest.importorskip("uvicorn")
    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project="p1")
    admin.conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'team_srv') THEN "
                       "CREATE ROLE team_srv LOGIN; END IF; END $$")
    pg_admin.grant_client(admin.conn, "team_srv")
    tok = pg_admin.add_token(admin.conn, "ann", ["p1"])
    admin.close()
    bad = subprocess.run([sys.executable, "-m", "memdir", "serve", "--store", pg_url, "--port", "0"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode != 0 and "sees every project" in bad.stderr and bad.stderr.count("\n") == 1
    p = subprocess.Popen([sys.executable, "-m", "memdir", "serve", "--store", _login(pg_url, "team_srv"), "--port", "0", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        info = json.loads(p.stdout.readline())
        h = {"Authorization": f"Bearer {tok}"}
        r = httpx.post(info["url"] + "/p1/events", json={"events": [event("k", "the nightly job runs at 02:00")]}, headers=h, timeout=30)
        assert r.json()["stored"] == 1
        assert httpx.post(info["url"] + "/p2/recall", json={"query": "nightly"}, headers=h, timeout=30).status_code == 403
        assert httpx.post(info["url"] + "/p1/recall", json={"query": "nightly"}, headers=h, timeout=30).json()["hits"][0]["ref"] == "k"
        # a forget that overtakes its event's send (two processes of one person): the late write stores nothing
        f = httpx.post(info["url"] + "/p1/forget", json={"ref": "late", "when": "2026-11-30T00:00:00Z"}, headers=h, timeout=30)
        assert f.json() == {"forgotten": False}
        r = httpx.post(info["url"] + "/p1/events", json={"events": [event("late", "the weekly report goes out on fridays")]},
                       headers=h, timeout=30)
        assert r.json()["stored"] == 0
        assert not httpx.post(info["url"] + "/p1/recall", json={"query": "weekly report fridays"}, headers=h, timeout=30).json()["hits"]
    finally:
        p.terminate()
        p.wait(timeout=30)


def test_store_cli_tokens(pg_url):
    import subprocess
    import sys

    def run(*args):
        r = subprocess.run([sys.executable, "-m", "memdir", "store", *args, "--store", pg_url, "--json"], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    got = run("token", "ann", "--project", "web", "--project", "api")
    assert got["projects"] == ["api", "web"] and got["token"].startswith("mdt_")
    s = open_store(pg_url, project="web", token=got["token"])
    assert s.conn.execute("SELECT memdir_project_ok() AS ok").fetchone()["ok"]
    s.close()
    assert run("revoke", "ann")["revoked"] == 1
    bad = subprocess.run([sys.executable, "-m", "memdir", "store", "token", "ann", "--project", "x", "--store", "mysql://h"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(url: str):
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-m", "memdir", "serve", "--store", url, "--port", "0", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p, json.loads(p.stdout.readline())["url"]


def test_remote_queue_survives_a_dead_server_and_arrives_once(pg_url, project, tmp_path, monkeypatch):
    """remote.url: events are stored locally and queued; a server that is down keeps them queued; the server killed
    mid-write and restarted receives every queued event exactly once."""
    import threading

    import memdir
    from memdir.store.postgres import admin as pg_admin
    from memdir.engine import remote

    admin = open_store(pg_url, project="proj")
    admin.conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'team_srv') THEN "
                       "CREATE ROLE team_srv LOGIN; END IF; END $$")
    pg_admin.grant_client(admin.conn, "team_srv")
    tok = pg_admin.add_token(admin.conn, "ann", ["proj"])
    srv_url = _login(pg_url, "team_srv")
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", tok)
    monkeypatch.setenv("MEMDIR_REMOTE_URL", f"http://127.0.0.1:{_free_port()}/v1")  # nobody listens there
    derived = project / ".memory" / ".memdir"
    evs = [{"key": f"k{i}", "role": "user", "text": f"queued event number {i} about the release train", "session": "s",
            "ts": 1_700_000_000 + i} for i in range(500)]
    p = None
    try:
        with memdir.open(project, home=tmp_path / "g") as m:
            assert m.import_events(evs[:100])["stored"] == 100  # the write succeeds locally
            assert remote.pending(derived) == 100
            res = m.push()
            assert res["sent"] == 0 and res["left"] == 100  # (backed off after the failed send at import)
        p, url = _serve(srv_url)
        monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
        with memdir.open(project, home=tmp_path / "g") as m:
            assert remote.push(derived, url, "proj", tok, budget_s=60, now=lambda: 1e12)["left"] == 0
            assert admin.count("event") == 100
            monkeypatch.setenv("MEMDIR_REMOTE_URL", f"http://127.0.0.1:{_free_port()}/v1")
        with memdir.open(project, home=tmp_path / "g") as m:
            m.import_events(evs[100:])
        assert remote.pending(derived) == 400
        done = {}
        t = threading.Thread(target=lambda: done.update(remote.push(derived, url, "proj", tok, budget_s=120, batch=10,
                                                                    now=lambda: 1e12)))
        t.start()
        while admin.count("event") < 150 and t.is_alive():
            threading.Event().wait(0.02)
        p.kill()  # mid-write
        p.wait(timeout=30)
        t.join(timeout=120)
        assert done["error"] and 0 < done["left"] < 400, done
        p, url = _serve(srv_url)  # restarted
        later = lambda: 2e12  # noqa: E731  (past the failed batch's back-off)
        assert remote.push(derived, url, "proj", tok, budget_s=120, now=later) == {"sent": done["left"], "left": 0, "failed": 0, "error": None}
        got = admin.conn.execute("SELECT count(*) AS n, count(DISTINCT ref) AS refs FROM docs WHERE project = 'proj'").fetchone()
        assert got["n"] == got["refs"] == 500
    finally:
        if p is not None:
            p.kill()
            p.wait(timeout=30)
        admin.close()


def test_a_silent_server_costs_the_push_budget_only(tmp_path):
    """A server that accepts and never answers: the send gives up at the budget, the rows stay queued."""
    import socket

    from memdir.engine import remote

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    try:
        remote.enqueue(tmp_path, [{"ref": "k", "content_sha256": "x", "text": "t", "ts": "2026-11-30T00:00:00Z", "ts_epoch": 0}])
        res = remote.push(tmp_path, f"http://127.0.0.1:{srv.getsockname()[1]}/v1", "p", "tok", budget_s=0.3)
        assert res["sent"] == 0 and res["left"] == 1 and "timed out" in res["error"].lower()
        assert remote.enqueue(tmp_path, [{"ref": "k", "content_sha256": "x", "text": "t", "ts": "z", "ts_epoch": 0}]) == 0
    finally:
        srv.close()


@pytest.fixture
def team(pg_url, monkeypatch):
    """A real team server (``memdir serve --store``) for project ``proj`` and a token for it in
    ``MEMDIR_REMOTE_TOKEN``: yields ``(admin store, server url, token)``."""
    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project="proj")
    admin.conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'team_srv') THEN "
                       "CREATE ROLE team_srv LOGIN; END IF; END $$")
    pg_admin.grant_client(admin.conn, "team_srv")
    tok = pg_admin.add_token(admin.conn, "ann", ["proj"])
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", tok)
    monkeypatch.setenv("MEMDIR_REMOTE_PUSH_BUDGET_MS", "60000")  # a write's own push completes on a loaded machine
    p, url = _serve(_login(pg_url, "team_srv"))
    try:
        yield admin, url, tok
    finally:
        p.kill()
        p.wait(timeout=30)
        admin.close()


def _on_server(admin) -> dict:
    return admin.conn.execute("SELECT count(*) AS n, count(DISTINCT ref) AS refs FROM docs WHERE project = 'proj' "
                              "AND kind = 'event'").fetchone()


def _cut(project, home, cut: str, n: int) -> int:
    """Import ``n`` events in a child process that ends itself with ``os._exit`` at ``cut``: ``"after-commit"``
    (the events committed locally, before anything is sent: where the queue file used to be written),
    ``"in-queue"`` (inside the transaction, after the queue rows) or ``"after-send"`` (the server answered, the
    queue rows not yet deleted). Returns the child's exit code."""
    import subprocess
    import sys

    script = f"""
import os, sys, urllib.request
import memdir
from memdir.engine import remote
cut = {cut!r}
if cut == "after-commit":
    remote.send_rows = lambda s, root, rows: os._exit(7)
elif cut == "in-queue":
    real = remote.queue_rows
    def queue_rows(db, rows):
        real(db, rows)
        os._exit(7)
    remote.queue_rows = queue_rows
elif cut == "after-send":
    real_open = urllib.request.OpenerDirector.open  # what urlopen and memdir's proxy-aware openers call
    def opened(self, *a, **kw):
        resp = real_open(self, *a, **kw)
        resp.read()
        os._exit(7)
    urllib.request.OpenerDirector.open = opened
with memdir.open({str(project)!r}, home={str(home)!r}) as m:
    m.import_events([{{"key": f"cut{{i}}", "role": "user", "text": f"cut off event {{i}} about the deploy freeze",
                       "session": "s", "ts": 1_700_000_000 + i}} for i in range({n})])
os._exit(0)
"""
    return subprocess.run([sys.executable, "-c", script], timeout=120).returncode


def test_a_write_cut_off_after_its_local_commit_still_reaches_the_server_once(team, project, tmp_path, monkeypatch):
    """Issue 14 item 3 (hreview2): the process ends (a hook's budget: ``os._exit``) right after the events commit
    locally, before any send. The events were queued in the same transaction, so the next push delivers them to the
    real team server, exactly once however often it is pushed."""
    import memdir
    from memdir.engine import remote

    admin, url, tok = team
    monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
    derived = project / ".memory" / ".memdir"
    assert _cut(project, tmp_path / "g", "after-commit", 20) == 7
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.count_events(since=datetime(2000, 1, 1, tzinfo=timezone.utc)) == 20  # committed locally
        assert remote.pending(derived) == 20  # stored locally and queued: nothing local-only
        assert _on_server(admin)["n"] == 0
        assert m.push() == {"sent": 20, "left": 0, "failed": 0, "error": None}
    assert remote.push(derived, url, "proj", tok, budget_s=60) == {"sent": 0, "left": 0, "failed": 0, "error": None}
    got = _on_server(admin)
    assert got["n"] == got["refs"] == 20


def test_a_write_cut_off_inside_its_transaction_leaves_neither_event_nor_queue_row(team, project, tmp_path, monkeypatch):
    import memdir
    from memdir.engine import remote

    admin, url, _ = team
    monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
    assert _cut(project, tmp_path / "g", "in-queue", 5) == 7
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.count_events(since=datetime(2000, 1, 1, tzinfo=timezone.utc)) == 0  # rolled back: not stored ...
        assert remote.pending(project / ".memory" / ".memdir") == 0  # ... and not queued
        m.import_events([{"key": "later", "role": "user", "text": "a later event about the deploy freeze", "session": "s",
                          "ts": 1_700_000_100}])
    got = _on_server(admin)
    assert got["n"] == got["refs"] == 1


def test_a_send_whose_answer_is_cut_off_is_sent_again_and_stored_once(team, project, tmp_path, monkeypatch):
    """The server stored the batch, the client died before deleting its queue rows: they go again, the server
    keeps one copy (deterministic keys)."""
    import memdir
    from memdir.engine import remote

    admin, url, _ = team
    monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
    derived = project / ".memory" / ".memdir"
    assert _cut(project, tmp_path / "g", "after-send", 12) == 7
    assert _on_server(admin)["n"] == 12 and remote.pending(derived) == 12
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.push() == {"sent": 12, "left": 0, "failed": 0, "error": None}
    got = _on_server(admin)
    assert got["n"] == got["refs"] == 12


def test_a_queue_file_of_an_older_memdir_is_moved_into_the_index_and_sent(team, project, tmp_path, monkeypatch):
    """Upgrade: the pending rows of ``remote-queue.sqlite3`` (the queue before m012) are moved into the index's
    queue table and reach the server once; the old file is removed."""
    import sqlite3

    import memdir
    from memdir.engine import remote

    admin, url, tok = team
    with memdir.open(project, home=tmp_path / "g") as m:  # no remote.url yet: a local store
        m.import_events([{"key": "local", "role": "user", "text": "a local event", "session": "s", "ts": 1_700_000_000}])
    derived = project / ".memory" / ".memdir"
    old = sqlite3.connect(str(derived / remote.QUEUE_FILE), isolation_level=None)  # the old file, as it was written
    old.execute("PRAGMA journal_mode = WAL")
    old.execute("CREATE TABLE queue(ref TEXT PRIMARY KEY, row TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, "
                "next_at REAL NOT NULL DEFAULT 0, seq INTEGER)")
    for i in range(30):
        row = {"ref": f"old{i}", "content_sha256": hashlib.sha256(f"old {i}".encode()).hexdigest(), "role": "user",
               "session": "s", "ts": "2026-11-30T00:00:00Z", "ts_epoch": 1_700_000_000 + i,
               "text": f"an event queued by an older memdir {i}", "meta": None}
        old.execute("INSERT INTO queue(ref, row, tries, next_at, seq) VALUES (?, ?, ?, ?, ?)",
                    (row["ref"], json.dumps(row), 3, 1e12 if i % 2 else 0, i + 1))
    old.close()
    monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": "new", "role": "user", "text": "a new event", "session": "s", "ts": 1_700_000_001}])
        assert not (derived / remote.QUEUE_FILE).exists()
    assert remote.pending(derived) == 15  # the ones still backed off wait, as before the upgrade
    assert remote.push(derived, url, "proj", tok, budget_s=60, now=lambda: 2e12) == {"sent": 15, "left": 0, "failed": 0, "error": None}
    got = _on_server(admin)
    assert got["n"] == got["refs"] == 31
    assert admin.conn.execute("SELECT count(*) AS n FROM docs WHERE project = 'proj' AND ref = 'local'").fetchone()["n"] == 0


def test_forgetting_a_sent_event_forgets_it_on_the_server_and_an_unsent_one_never_goes(team, project, tmp_path, monkeypatch):
    """A local forget is queued in its own transaction too: the server drops an event it already has; an event still
    queued (server down) is taken out of the queue and never sent."""
    import memdir
    from memdir.engine import remote

    admin, url, tok = team
    derived = project / ".memory" / ".memdir"
    ev = lambda k: {"key": k, "role": "user", "text": f"event {k} about the staging database", "session": "s",  # noqa: E731
                    "ts": 1_700_000_000}
    monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([ev("sent1"), ev("sent2")])
        assert _on_server(admin)["n"] == 2 and remote.pending(derived) == 0
        monkeypatch.setenv("MEMDIR_REMOTE_URL", f"http://127.0.0.1:{_free_port()}/v1")  # the server is out of reach
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([ev("unsent")])
        assert m.forget("sent1") and m.forget("unsent")
        assert remote.pending(derived) == 2  # two forgets; the unsent event left the queue
    got = remote.push(derived, url, "proj", tok, budget_s=60, now=lambda: 2e12)
    assert got == {"sent": 2, "left": 0, "failed": 0, "error": None}
    refs = {r["ref"] for r in admin.conn.execute("SELECT ref FROM docs WHERE project = 'proj' AND kind = 'event'")}
    assert refs == {"sent2"}


def test_a_forget_reaches_the_team_server_at_once_not_at_the_next_capture(team, project, tmp_path, monkeypatch):
    """A capture sends its rows within remote.push_budget_ms; a forget only queued itself, so teammates kept recalling
    the forgotten text until the next capture or a `memdir push`."""
    import memdir
    from memdir.engine import remote

    admin, url, tok = team
    derived = project / ".memory" / ".memdir"
    monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
    evs = [{"key": k, "role": "user", "text": f"event {k}: the staging password moved to the vault", "session": "s",
            "ts": 1_700_000_000} for k in ("f1", "f2", "f3")]
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(evs)
        assert _on_server(admin)["n"] == 3
        assert m.forget("f1")
        assert remote.pending(derived) == 0
        preview = m.forget_matching(query="event f2")
        m.forget_matching(query="event f2", token=preview["token"])
        assert remote.pending(derived) == 0
    refs = {r["ref"] for r in admin.conn.execute("SELECT ref FROM docs WHERE project = 'proj' AND kind = 'event'")}
    assert refs == {"f3"}


def test_captured_replies_are_the_hooks_assistant_turns_of_a_session(store):
    """What an import compares an imported reply with (memdir.engine.events.captured_before): the session's assistant
    turns a hook captured (keys ``a:``), in time order; not imported ones, not user turns, not another session's."""
    import_events(store, [event("a:1", "The first captured reply.", role="assistant", ts=1_700_000_002.0),
                          event("a:0", "An earlier captured reply.", role="assistant", ts=1_700_000_001.0),
                          event("u:1", "A prompt.", role="user"),
                          event("import:x:s1:m1", "An imported reply.", role="assistant"),
                          event("a:2", "Another session's reply.", role="assistant", session="s2")])
    assert store.captured_replies("s1") == ["An earlier captured reply.", "The first captured reply."]
    assert store.captured_replies("s3") == []


def test_event_with_text_names_the_session_and_time_of_the_event_holding_a_text(store):
    """What an import asks of a duplicate prompt (memdir.engine.events.copied_from): the session and time of the event
    that holds its text; a note's text or an unknown one is no event."""
    import_events(store, [event("u:A:1", "why does the deploy fail", session="A", ts=1_700_000_005.0),
                          event("import:x:1", "no session here", session=None)])
    store.upsert_doc(note("facts/deploy", "a note about the deploy"))
    assert store.event_with_text(sha("why does the deploy fail")) == ("A", 1_700_000_005.0)
    assert store.event_with_text(sha("no session here")) == (None, 1_700_000_000.0)
    assert store.event_with_text(sha("a note about the deploy")) is None
    assert store.event_with_text(sha("never stored")) is None


def test_captured_tool_keys_are_the_hooks_tool_calls_of_a_session(store):
    import_events(store, [event("t:s1:toolu_1", "Bash: ls → a", role="tool"),
                          event("import:x:s1:toolu_2", "Bash: pwd → /x", role="tool"),
                          event("t:s2:toolu_3", "Bash: id → uid", role="tool", session="s2")])
    assert store.captured_tool_keys("s1") == {"t:s1:toolu_1"} and store.captured_tool_keys("s9") == set()
