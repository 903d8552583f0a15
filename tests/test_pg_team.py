"""The team server's reads and people (issue 14 items 2-3): private events enforced by row-level security, recall with
the local path's priors through a connection pool, and clients whose recall asks the server within a budget and falls
back to the local store. Against the throwaway PostgreSQL cluster (tests/pg_cluster.py); skipped with the reason
when it cannot run (failed under MEMDIR_REQUIRE_POSTGRES=1)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading

import pytest

import memdir
from memdir.store import open_store
from memdir.recall.tokenize import query_tokens


WEIGHTS = (4.0, 3.0, 1.0, 0.3)


# `pg` (the session's throwaway cluster) and `pg_url` (a fresh database of it) come from conftest.py


def _login(url: str, login: str) -> str:
    return url.replace("postgresql://memdir@", f"postgresql://{login}@", 1)


def _ev(key: str, text: str, *, ts: float = 1_790_000_000.0, session: str = "s1") -> dict:
    import hashlib

    return {"kind": "event", "ref": key, "content_sha256": hashlib.sha256(text.encode()).hexdigest(), "role": "user",
            "session": session, "ts": "2026-09-21T00:00:00Z", "ts_epoch": ts, "text": text, "meta": None}


def _client(admin, login: str) -> None:
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    admin.conn.execute(f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{login}') THEN "
                       f"CREATE ROLE {login} LOGIN; END IF; END $$")
    pg_admin.grant_client(admin.conn, login)


def _write(store, rows) -> None:
    with store.transaction():
        pending: dict[int, str] = {}
        for r in rows:
            store.insert_event(r, pending=pending)
        store.flush_events(pending)


def _refs(store, q: str) -> list[str]:
    return [r["ref"] for r in store.search(query_tokens(q), weights=WEIGHTS, limit=10)]


def test_a_persons_events_are_private_unless_the_project_shares_them(pg_url):
    import psycopg

    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    admin = open_store(pg_url, project="web")
    _client(admin, "people")
    tok_ann, tok_ben = pg_admin.add_token(admin.conn, "ann", ["web"]), pg_admin.add_token(admin.conn, "ben", ["web"])
    ann = open_store(_login(pg_url, "people"), project="web", token=tok_ann)
    ben = open_store(_login(pg_url, "people"), project="web", token=tok_ben)
    try:
        _write(ann, [_ev("a1", "ann: the staging database password lives in the vault")])
        _write(ben, [_ev("b1", "ben: the staging database is restored every night")])
        admin.upsert_doc({"kind": "note", "ref": "facts/staging", "content_sha256": "n", "ts": "2026-09-21T00:00:00Z",
                          "ts_epoch": 1.0, "text": "staging database notes are shared through git"})
        # each sees their own events and the project's notes, never the other's events — whatever the statement
        assert set(_refs(ann, "staging database")) == {"a1", "facts/staging"}
        assert set(_refs(ben, "staging database")) == {"b1", "facts/staging"}
        assert ben.get_doc("a1") is None
        assert ben.conn.execute("SELECT count(*) AS n FROM fts WHERE body LIKE '%%vault%%'").fetchone()["n"] == 0
        # ben cannot plant a row in ann's name; the same key is his own row (keys are per person, m007)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            ben.conn.execute("INSERT INTO docs(project, kind, ref, content_sha256, ts, ts_epoch, text, owner) VALUES "
                             "('web', 'event', 'x', 'x', 't', 0, 'planted', 'ann')")
        assert ben.insert_event(_ev("a1", "ben reuses ann's key")) is not None
        assert ben.get_doc("a1")["text"] == "ben reuses ann's key" and "vault" in ann.get_doc("a1")["text"]
        # the admin shares the project's events: everyone granted it sees them all
        for who in ("ann", "ben"):
            pg_admin.share_events(admin.conn, "web", person=who)
        assert set(_refs(ben, "staging database")) == {"a1", "b1", "facts/staging"}
        assert ben.get_doc("a1")["text"] == "ben reuses ann's key"  # his own row first when keys meet
        pg_admin.share_events(admin.conn, "web", False, person="ann")
        assert set(_refs(ben, "staging database")) == {"b1", "facts/staging"}
        assert admin.conn.execute("SELECT owner FROM docs WHERE ref = 'a1'").fetchone()["owner"] == "ann"
    finally:
        for s in (ann, ben, admin):
            s.close()


def test_store_share_on_the_command_line(pg_url):
    r = subprocess.run([sys.executable, "-m", "memdir", "store", "share", "web", "--person", "ann", "--store", pg_url,
                        "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"project": "web", "person": "ann", "share_events": True}
    s = open_store(pg_url, project="web")
    try:
        assert s.conn.execute("SELECT share FROM memdir_sharing WHERE project = 'web' AND person = 'ann'").fetchone()["share"]
    finally:
        s.close()


def test_team_recall_applies_the_local_priors(pg_url):
    """Same BM25, then decay and rehearsal as the local path: an old event falls below a recent one with the same
    words, a rehearsed one rises; the factors come back with each hit."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations
    from memdir.recall import rank
    from memdir.server import team as teamserver

    admin = open_store(pg_url, project="web")
    _client(admin, "team_srv")
    tok = pg_admin.add_token(admin.conn, "ann", ["web"])
    import time

    now = time.time()
    ann = open_store(pg_url, project="web", token=tok)  # the schema owner writing for ann: her token names her
    _write(ann, [_ev("old", "the release checklist lives in the wiki", ts=now - 200 * 86400, session="a"),
                 _ev("new", "the release checklist lives in the repo", ts=now - 86400, session="b")])
    client = TestClient(teamserver.app(_login(pg_url, "team_srv")))
    try:
        hits = client.post("/v1/web/recall", json={"query": "release checklist", "k": 5},
                           headers={"Authorization": f"Bearer {tok}"}).json()["hits"]
        assert [h["ref"] for h in hits] == ["new", "old"]
        old = hits[1]
        assert old["decay"] == pytest.approx(0.3) and old["score"] == pytest.approx(old["bm25"] * old["decay"] * old["rehearsal"])
        ann.bump_rehearsal(["old"] * 1, "2026-11-30T00:00:00Z")
        for _ in range(40):
            ann.bump_rehearsal(["old"], "2026-11-30T00:00:00Z")
        hits = client.post("/v1/web/recall", json={"query": "release checklist", "k": 5},
                           headers={"Authorization": f"Bearer {tok}"}).json()["hits"]
        assert hits[1]["rehearsal"] == pytest.approx(rank.rehearsal_boost(41, 0.1), abs=1e-4)
        # many requests through the pool: each bound to its own token, none carrying another's rights
        tok_other = pg_admin.add_token(admin.conn, "zed", ["other"])
        for i in range(20):
            r = client.post("/v1/web/recall", json={"query": "release", "k": 2},
                            headers={"Authorization": f"Bearer {tok if i % 2 else tok_other}"})
            assert r.status_code == (200 if i % 2 else 403)
    finally:
        client.close()
        ann.close()
        admin.close()


def _serve(url: str, *args: str):
    p = subprocess.Popen([sys.executable, "-m", "memdir", "serve", "--store", url, "--port", "0", "--json", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p, json.loads(p.stdout.readline())["url"]


def test_recall_asks_the_team_server_and_fuses_its_hits(pg_url, project, tmp_path, monkeypatch):
    """remote.url set: recall (and the hooks' block) shows the local hits and a teammate's shared events, fused."""
    pytest.importorskip("uvicorn")
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    admin = open_store(pg_url, project="proj")
    _client(admin, "team_srv")
    pg_admin.share_events(admin.conn, "proj", person="tom")
    tok = pg_admin.add_token(admin.conn, "ann", ["proj"])
    tom = open_store(pg_url, project="proj", token=pg_admin.add_token(admin.conn, "tom", ["proj"]))
    _write(tom, [_ev("team:1", "teammate: the flaky payment test needs the sandbox key", ts=1_790_000_000.0)])
    tom.close()
    p, url = _serve(_login(pg_url, "team_srv"))
    try:
        monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", tok)
        # what is tested is the fusion, not the budget (the next test): a loaded machine's first answer can take
        # longer than the default 300 ms, so the budget here is generous
        with memdir.open(project, home=tmp_path / "g", config={"remote.recall_budget_ms": 20_000}) as m:
            m.import_events([{"key": "mine", "role": "user", "text": "my note: the payment test is flaky on mondays",
                              "session": "s", "ts": 1_790_000_000}])
            hits = m.recall("flaky payment test", k=5)
            assert {h.id for h in hits} == {"mine", "team:1"}
            team = next(h for h in hits if h.id == "team:1")
            assert team.scope == "team" and "rrf" in team.reasons
            assert "sandbox key" in m.context("why is the payment test flaky?")
    finally:
        p.terminate()
        p.wait(timeout=30)
        admin.close()


def test_a_silent_or_missing_server_costs_recall_its_budget_only(project, tmp_path, monkeypatch):
    """A server that accepts and never answers, and one that is not there: recall returns the local hits alone,
    without waiting for the server (it would wait forever on the silent one)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    dead_port = free.getsockname()[1]
    free.close()
    try:
        for url in (f"http://127.0.0.1:{srv.getsockname()[1]}/v1", f"http://127.0.0.1:{dead_port}/v1"):
            monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
            monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
            monkeypatch.setenv("MEMDIR_REMOTE_RECALL_BUDGET_MS", "200")
            with memdir.open(project, home=tmp_path / "g") as m:
                m.import_events([{"key": "mine", "role": "user", "text": "the deploy key rotates monthly", "session": "s",
                                  "ts": 1_790_000_000}])
                got: dict = {}
                t = threading.Thread(target=lambda: got.update(hits=m.recall("deploy key", k=3)), daemon=True)
                t.start()
                t.join(60)  # a recall that waited for the silent server would never return
                assert not t.is_alive()
                assert [h.id for h in got["hits"]] == ["mine"] and got["hits"][0].scope == "project"
    finally:
        srv.close()


def test_team_recall_ranks_with_the_local_function_dates_and_session_bonus_included(pg_url, tmp_path, clock, monkeypatch):
    """Issue 14: "the ranking is the same code for both". The team server's recall and ``Memdir.recall`` on the same
    PostgreSQL rows give the same refs and scores, with the date boost (a query naming a day) and the session bonus
    (a setting the server takes from its configuration) applied on both sides."""
    pytest.importorskip("starlette")
    from datetime import timedelta

    from starlette.testclient import TestClient

    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations
    from memdir.server import team as teamserver
    from memdir.timeutil import iso

    cfg = {"recall.session_bonus": 0.3}
    day = clock.now
    corpus = [  # (days ago, session, text)
        (12, "a", "Caroline: I went to the adoption agency meeting and loved it"),
        (12, "a", "Melanie: that sounds wonderful, did they explain the process?"),
        (12, "a", "Caroline: yes, the agency explained the home study step by step"),
        (3, "b", "Melanie: I painted a sunset with my kids at the lake"),
        (3, "b", "Caroline: the painting of the lake is lovely"),
        (1, "c", "Melanie: yesterday we ran the charity race for mental health"),
        (1, "c", "Caroline: the race raised money for the adoption agency too"),
        (30, "d", "Melanie: the agency called about the painting class"),
    ]
    evs = [{"key": f"e{i}", "role": "user", "text": t, "session": s, "ts": iso(day - timedelta(days=d, minutes=-i))}
           for i, (d, s, t) in enumerate(corpus)]
    queries = ["what did Caroline say about the adoption agency 12 days ago?", "the painting at the lake 3 days ago",
               "charity race yesterday", "agency", "what did Melanie paint?", "adoption agency home study"]
    p = tmp_path / "web"
    (p / ".git").mkdir(parents=True)
    admin = open_store(pg_url, project="web")
    _client(admin, "team_rank")
    tok = pg_admin.add_token(admin.conn, "ann", ["web"])
    monkeypatch.setenv("MEMDIR_STORE_TOKEN", tok)  # ann's own store: her events are hers
    client = TestClient(teamserver.app(_login(pg_url, "team_rank"), cfg))
    try:
        with memdir.open(p, home=tmp_path / "g", clock=clock, config={"store": pg_url, "remote.project": "web", **cfg}) as m:
            assert m.import_events(evs)["stored"] == len(evs)
            seen = set()
            for q in queries:
                local = m.recall(q, k=6)
                r = client.post("/v1/web/recall", json={"query": q, "k": 6, "now": iso(day)},
                                headers={"Authorization": f"Bearer {tok}"})
                assert r.status_code == 200, r.text
                team = r.json()["hits"]
                assert [(h["ref"], round(h["score"], 9)) for h in team] == [(h.id, round(h.score, 9)) for h in local], q
                for h in team:
                    seen |= {f for f in ("date", "session_bonus", "subject") if h.get(f)}
            assert seen == {"date", "session_bonus", "subject"}  # every factor of the local path was exercised
    finally:
        client.close()
        admin.close()


def _people(pg_url, login="people2"):
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    admin = open_store(pg_url, project="web")
    _client(admin, login)
    ann = open_store(_login(pg_url, login), project="web", token=pg_admin.add_token(admin.conn, "ann", ["web"]))
    ben = open_store(_login(pg_url, login), project="web", token=pg_admin.add_token(admin.conn, "ben", ["web"]))
    return admin, ann, ben


def _scores(store, q: str) -> list[tuple[str, float]]:
    return [(r["ref"], round(r["bm25"], 12)) for r in store.search(query_tokens(q), weights=WEIGHTS, limit=10)]


def test_identical_text_from_two_people_is_stored_for_each_and_statistics_follow_what_each_sees(pg_url):
    """Issue 14 (m007): the same text (and the same key) from two people is two rows, each private to its writer —
    neither absorbs the other; the BM25 statistics a person's recall uses (N, avgdl, n_t) count the rows that person
    can see and nothing else, so ben writing private rows never moves ann's scores, and ann's scores equal those of a
    project holding just her rows; a forget and its tombstone are the forgetter's own."""
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    admin, ann, ben = _people(pg_url)
    ref = open_store(pg_url, project="reference")  # what ann can see, alone in a project
    try:
        same = _ev("u:s1:0", "the staging deploy needs the vpn token rotated", session="s1")
        for s in (ann, ben, ref):
            _write(s, [same, _ev("u:s1:1", "and the vpn token lives in the vault", session="s1")])
        assert ann.get_doc("u:s1:0") is not None and ben.get_doc("u:s1:0") is not None
        assert admin.count("event") == 4  # two people, two rows each: nothing absorbed
        before = (ann.stats(), ann.doc_freqs(["vpn", "token", "secret"]), _scores(ann, "vpn token"))
        assert before[2] == _scores(ref, "vpn token")
        # ben writes many private rows with the query's words: ann's statistics and scores do not move
        _write(ben, [_ev(f"b{i}", f"ben's vpn token note {i} about the secret vpn", session="b") for i in range(30)])
        assert (ann.stats(), ann.doc_freqs(["vpn", "token", "secret"]), _scores(ann, "vpn token")) == before
        assert ann.doc_freqs(["secret"])[1] == {}  # ann cannot learn that some private row says "secret"
        assert ann.conn.execute("SELECT count(*) AS n FROM term_df WHERE term = 'secret'").fetchone()["n"] == 0
        # ben's own view counts his rows, and equals a project holding exactly them
        _write(ref, [_ev(f"b{i}", f"ben's vpn token note {i} about the secret vpn", session="b") for i in range(30)])
        assert _scores(ben, "vpn token secret") == _scores(ref, "vpn token secret")
        # shared: each sees both people's rows and the statistics of everything visible
        for who in ("ann", "ben"):
            pg_admin.share_events(admin.conn, "web", person=who)
        assert ann.stats() == ben.stats() and ann.stats()[0] == 2 + 32
        assert _scores(ann, "secret vpn") == _scores(ben, "secret vpn")
        # sharing opens reading, never another person's forgetting; a forget is the forgetter's own
        assert not ann.delete_doc("b3") and ben.get_doc("b3") is not None
        with ann.transaction():
            assert ann.delete_doc("u:s1:0")
            ann.tombstone("u:s1:0", same["content_sha256"], "event", "2026-11-30T00:00:00Z")
        assert ben.get_doc("u:s1:0")["owner"] == "ben" and ben.tombstoned() == (set(), set())
        assert ann.tombstoned() == ({"u:s1:0"}, {same["content_sha256"]})
        # the kept counters still equal a recount of the rows, per owner and kind
        got = {(r["owner"], r["note"]): (int(r["n"]), int(r["total"])) for r in admin.conn.execute(
            "SELECT owner, note, sum(n) AS n, sum(total) AS total FROM fts_stats WHERE project = 'web' GROUP BY 1, 2")
            if r["n"]}
        want = {(r["owner"], r["note"]): (int(r["n"]), int(r["total"])) for r in admin.conn.execute(
            "SELECT owner, note, count(*) AS n, sum(dl) AS total FROM fts WHERE project = 'web' GROUP BY 1, 2")}
        assert got == want
    finally:
        for s in (ann, ben, ref, admin):
            s.close()


def test_rehearsal_and_heat_rows_of_a_private_event_are_invisible_to_another_person(pg_url):
    """Issue 14's last privacy gap (m009): recall counters (``rehearsal``) were keyed per project and key, so another
    member read the key and count of a person's private event, in SQL under their own token and in their recall's
    rehearsal factor (the same key from two people shared one counter). Now each counter is the recaller's own row under
    the docs rows' row-level security, never opened by the share switch; heat tiers (m007) stay private too."""
    import psycopg

    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations
    from memdir.server import team as teamserver

    admin, ann, ben = _people(pg_url, "people4")
    client = TestClient(teamserver.app(_login(pg_url, "people4")))
    tok = {p: pg_admin.add_token(admin.conn, p, ["web"]) for p in ("ann", "ben")}

    def api(person: str, q: str) -> dict[str, float]:
        r = client.post("/v1/web/recall", json={"query": q, "k": 5}, headers={"Authorization": f"Bearer {tok[person]}"})
        assert r.status_code == 200, r.text
        return {h["ref"]: h["rehearsal"] for h in r.json()["hits"]}

    try:
        _write(ann, [_ev("a:secret", "ann's private salary negotiation notes"),
                     _ev("k1", "ann: the release train leaves on friday")])
        _write(ben, [_ev("k1", "ben: the release train was delayed")])
        with ann.transaction():
            ann.start_heat(["a:secret", "k1"], 1_790_000_000.0)
        for _ in range(6):
            ann.bump_rehearsal(["a:secret", "k1"], "2026-12-01T00:00:00Z")
        admin.bump_rehearsal(["a:secret"], "2026-12-01T00:00:00Z")  # the schema owner's recall names no one's row
        assert api("ann", "release train")["k1"] > 1.0  # ann's own counter lifts her row

        def ben_sees() -> dict:
            return {t: ben.conn.execute(f"SELECT count(*) AS n FROM {t}").fetchone()["n"] for t in ("rehearsal", "tiers")}

        # under ben's role: no row of ann's counters or heat, whatever the statement; his own k1 is not lifted by hers
        assert ben_sees() == {"rehearsal": 0, "tiers": 0}
        assert ben.conn.execute("SELECT count(*) AS n FROM rehearsal WHERE ref = 'a:secret'").fetchone()["n"] == 0
        assert [r["rehearsals"] for r in ben.search(query_tokens("release train"), weights=WEIGHTS, limit=5)] == [0]
        assert api("ben", "release train") == {"k1": 1.0}
        # nor can he write a counter in ann's name
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            ben.conn.execute("INSERT INTO rehearsal(project, owner, ref, count) VALUES ('web', 'ann', 'k1', 99)")
        # sharing the project's events opens ann's events to ben, never her recall counters
        for who in ("ann", "ben"):
            pg_admin.share_events(admin.conn, "web", person=who)
        assert "a:secret" in {r["ref"] for r in ben.search(query_tokens("salary negotiation"), weights=WEIGHTS, limit=5)}
        assert ben.conn.execute("SELECT count(*) AS n FROM rehearsal").fetchone()["n"] == 0
        assert api("ben", "salary negotiation")["a:secret"] == 1.0
        ben.bump_rehearsal(["a:secret"], "2026-12-01T00:00:00Z")  # ben's recall of a shared event counts for ben
        assert ben.conn.execute("SELECT owner, count FROM rehearsal").fetchall() == [{"owner": "ben", "count": 1}]
        assert api("ann", "salary negotiation")["a:secret"] > api("ben", "salary negotiation")["a:secret"] > 1.0
        # a forget takes the forgetter's counter with it
        with ann.transaction():
            assert ann.delete_doc("a:secret")
            ann.tombstone("a:secret", None, "event", "2026-12-01T00:00:00Z")
        got = admin.conn.execute("SELECT owner, ref FROM rehearsal WHERE project = 'web' ORDER BY 1, 2").fetchall()
        assert [(r["owner"], r["ref"]) for r in got] == [("ann", "k1"), ("ben", "a:secret")]
    finally:
        client.close()
        for s in (ann, ben, admin):
            s.close()


def test_rehearsal_counters_of_an_older_schema_go_to_the_owners_of_their_rows(pg_url, monkeypatch):
    """m009 back-fills: each per-project counter becomes one per person holding a row with that key (the same count);
    a counter of an ownerless row stays ownerless; a counter of a key no row has any more (it could name a deleted
    private event) is dropped."""
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    n = pg_migrations.MIGRATIONS.index(pg_migrations.m009_rehearsal_per_person)
    monkeypatch.setattr(pg_migrations, "MIGRATIONS", pg_migrations.MIGRATIONS[:n])
    first = open_store(pg_url, project="web")
    _write(first, [_ev("team", "an ownerless row")])  # written while the project had no members
    first.close()
    admin, ann, ben = _people(pg_url, "people5")
    try:
        _write(ann, [_ev("k1", "ann's row"), _ev("a2", "ann alone")])
        _write(ben, [_ev("k1", "ben's row")])
        admin.conn.execute("INSERT INTO rehearsal(project, ref, count, last) VALUES ('web', 'k1', 3, 'x'), "
                           "('web', 'a2', 2, 'y'), ('web', 'team', 4, 'z'), ('web', 'gone', 5, 'w'), ('other', 'k1', 1, 'v')")
    finally:
        for s in (ann, ben, admin):
            s.close()
    monkeypatch.undo()
    s = open_store(pg_url, project="web")
    try:
        got = {(r["project"], r["owner"], r["ref"]): (r["count"], r["last"]) for r in s.conn.execute("SELECT * FROM rehearsal")}
        assert got == {("web", "ann", "k1"): (3, "x"), ("web", "ben", "k1"): (3, "x"), ("web", "ann", "a2"): (2, "y"),
                       ("web", "", "team"): (4, "z")}
    finally:
        s.close()


def test_vectors_and_tiers_are_per_person(pg_url):
    """Item 5 (m007): a person's vector and heat rows are theirs — another member reads no embedding of a private
    event (only once the project shares events), and the same key from two people keeps two vectors."""
    np = pytest.importorskip("numpy")
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    admin, ann, ben = _people(pg_url, "people3")
    try:
        for s, text in ((ann, "ann's private deploy plan"), (ben, "ben's private deploy plan")):
            _write(s, [_ev("k1", text)])
            with s.transaction():
                s.start_heat(["k1"], 1_790_000_000.0)
            items = [(r["ref"], r["content_sha256"]) for r in s.vector_pending("m", 10)]
            assert items == [("k1", s.get_doc("k1")["content_sha256"])]
            s.vector_put(items, np.ones((1, 4), dtype=np.float32) * (1 if s is ann else -1), "m", "2026-11-30T00:00:00Z")
        for s, sign in ((ann, 1), (ben, -1)):
            rows = s.vector_rows("m", 4)
            assert len(rows) == 1 and np.frombuffer(rows[0][2], dtype=np.float32)[0] == sign
            assert s.vector_pending_count("m") == 0 and s.tier_counts()["hot"] == 1
        assert ben.conn.execute("SELECT count(*) AS n FROM vectors").fetchone()["n"] == 1
        for who in ("ann", "ben"):
            pg_admin.share_events(admin.conn, "web", person=who)
        assert len(ben.vector_rows("m", 4)) == 2 and ben.vector_pending_count("m") == 0
        assert admin.conn.execute("SELECT count(*) AS n FROM vectors WHERE project = 'web'").fetchone()["n"] == 2
    finally:
        for s in (ann, ben, admin):
            s.close()


def test_two_peoples_clones_share_one_database_each_with_its_own_note_mirror(pg_url, tmp_path, monkeypatch, clock):
    """Item 5: notes are Markdown in each clone; with ``store = postgresql://…`` each person's clone mirrors its own
    notes as that person's rows. Two clones at different Git revisions (ben has a note ann has not pulled) both open
    (before m007 the second person's mirror of the same note id collided with the first's private row and the store
    did not open), each recalls exactly its own clone's notes, also when the project shares its events, and a
    clone's sync never deletes the other's rows."""
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations

    admin = open_store(pg_url, project="web")
    _client(admin, "clones")
    toks = {p: pg_admin.add_token(admin.conn, p, ["web"]) for p in ("ann", "ben")}
    url = _login(pg_url, "clones")

    def clone(person: str, notes: dict[str, str]):
        d = tmp_path / person / "web"
        (d / ".git").mkdir(parents=True)
        for rel, text in notes.items():
            (d / ".memory" / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / ".memory" / rel).write_text(f"---\nsummary: {text}\n---\n{text}\n", encoding="utf-8")
        return d

    ann_dir = clone("ann", {"facts/deploy.md": "deploys go through the blue green switch"})
    ben_dir = clone("ben", {"facts/deploy.md": "deploys go through the blue green switch",
                            "facts/rollback.md": "rollback means flipping the blue green switch back"})

    def recall(person: str, d, q: str) -> list[str]:
        monkeypatch.setenv("MEMDIR_STORE_TOKEN", toks[person])
        with memdir.open(d, home=tmp_path / person / "home", clock=clock,
                         config={"store": url, "remote.project": "web"}) as m:
            return sorted(h.id for h in m.recall(q, k=10))

    try:
        for _ in range(2):  # opening again (each sync) leaves the other's mirror alone
            assert recall("ann", ann_dir, "blue green switch") == ["facts/deploy"]
            assert recall("ben", ben_dir, "blue green switch") == ["facts/deploy", "facts/rollback"]
        for who in ("ann", "ben"):
            pg_admin.share_events(admin.conn, "web", person=who)
        assert recall("ann", ann_dir, "blue green switch") == ["facts/deploy"]
        assert admin.conn.execute("SELECT owner, count(*) AS n FROM docs WHERE kind = 'note' GROUP BY owner "
                                  "ORDER BY owner").fetchall() == [{"owner": "ann", "n": 1}, {"owner": "ben", "n": 2}]
    finally:
        admin.close()


def test_the_schema_owner_writes_events_for_a_person_or_not_at_all_in_a_project_with_members(pg_url, project, tmp_path,
                                                                                             monkeypatch):
    """A connection without a person (the schema owner, no token) wrote events with no owner, which every member of
    the project reads: a person's history captured or exported through the admin login was nobody's private memory.
    In a project a token grants, such a write is refused with one line (store, facade, `export --store`, doctor);
    with the person's token the rows are that person's; a project without members keeps ownerless rows."""
    import os

    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations
    from memdir.errors import MemdirError

    admin = open_store(pg_url, project="solo")
    try:
        _write(admin, [_ev("s1", "one person's own database: no tokens, no members")])  # allowed, ownerless
        assert admin.get_doc("s1")["owner"] == ""
        tok = pg_admin.add_token(admin.conn, "ann", ["web"])
        with pytest.raises(MemdirError, match="no person for project 'web'.*MEMDIR_STORE_TOKEN") as exc:
            _write(open_store(pg_url, project="web"), [_ev("w1", "ann's private turn")])
        assert "\n" not in str(exc.value)
        assert admin.conn.execute("SELECT count(*) AS n FROM docs WHERE project = 'web'").fetchone()["n"] == 0
        with pytest.raises(MemdirError, match="no person"):
            open_store(pg_url, project="web").insert_events([_ev("w1", "ann's private turn")])
        mine = open_store(pg_url, project="web", token=tok)  # the schema owner's login, ann's token: ann's rows
        _write(mine, [_ev("w1", "ann's private turn")])
        assert admin.conn.execute("SELECT owner FROM docs WHERE project = 'web' AND ref = 'w1'").fetchone()["owner"] == "ann"
        mine.close()
    finally:
        admin.close()

    # the facade (store = the admin URL, no MEMDIR_STORE_TOKEN), doctor and `export --store` say the same line
    monkeypatch.delenv("MEMDIR_STORE_TOKEN", raising=False)
    monkeypatch.delenv("MEMDIR_REMOTE_TOKEN", raising=False)
    with memdir.open(project, home=tmp_path / "g", config={"store": pg_url, "remote.project": "web"}) as m:
        with pytest.raises(MemdirError, match="no person"):
            m.import_events([{"key": "x", "role": "user", "text": "captured through the admin login", "ts": 1_790_000_000}])
        person = next(c for c in m.doctor() if c["check"] == "store person")
        assert person["ok"] == "fail" and "MEMDIR_STORE_TOKEN" in person["detail"]
    local = tmp_path / "local"
    (local / ".git").mkdir(parents=True)
    with memdir.open(local, home=tmp_path / "g") as m:
        m.import_events([{"key": "y", "role": "user", "text": "a local turn", "session": "s", "ts": 1_790_000_000}])
    env = {k: v for k, v in os.environ.items() if k not in ("MEMDIR_STORE_TOKEN", "MEMDIR_REMOTE_TOKEN", "MEMDIR_STORE")}
    r = subprocess.run([sys.executable, "-m", "memdir", "export", "--store", pg_url, "--project", "web"], cwd=local,
                       capture_output=True, text=True, timeout=120, env={**env, "MEMDIR_HOME": str(tmp_path / "g")})
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "no person for project 'web'" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-m", "memdir", "export", "--store", pg_url, "--project", "web", "--json"], cwd=local,
                       capture_output=True, text=True, timeout=120,
                       env={**env, "MEMDIR_HOME": str(tmp_path / "g"), "MEMDIR_REMOTE_TOKEN": tok})
    assert r.returncode == 0 and json.loads(r.stdout)["stored"] == 1, r.stderr
    s = open_store(pg_url, project="web")
    try:
        assert s.conn.execute("SELECT owner FROM docs WHERE project = 'web' AND ref = 'y'").fetchone()["owner"] == "ann"
    finally:
        s.close()


def test_one_persons_complete_backfill_does_not_hide_anothers_pending_vectors(pg_url):
    """The recall path's cheap check (``vector_pending_exists``: a pending row newer than the last complete backfill)
    read one watermark per project: after ann embedded everything of hers, ben's older pending rows (lower ids) were
    below it and recall never embedded them. Each person keeps their own watermark; a new vector length clears all."""
    np = pytest.importorskip("numpy")

    admin, ann, ben = _people(pg_url, "people6")
    try:
        _write(ben, [_ev("b1", "ben's deploy notes")])
        _write(ann, [_ev("a1", "ann's deploy notes")])
        items = [(r["ref"], r["content_sha256"]) for r in ann.vector_pending("m", 10)]
        with ann.transaction():
            ann.vector_put(items, np.ones((1, 4), dtype=np.float32), "m", "2026-12-01T00:00:00Z")
        assert ann.vector_pending_count("m") == 0
        with ann.transaction():
            ann.vector_watermark("m")
        assert not ann.vector_pending_exists("m")
        assert ben.vector_pending_count("m") == 1 and ben.vector_pending_exists("m")
        with ben.transaction():
            ben.vector_watermark("m")  # (as after his own complete backfill)
        assert ben.meta_int("embed_watermark:m@ben") > 0
        assert ann.vector_note_dim("m", 8)  # a new length: every person's watermark of the model goes
        assert admin.conn.execute("SELECT count(*) AS n FROM meta WHERE project = 'web' AND key LIKE 'embed_watermark:%%'"
                                  ).fetchone()["n"] == 0
    finally:
        for s in (ann, ben, admin):
            s.close()


def test_store_share_warns_about_a_person_or_project_no_token_names_and_token_refuses_a_past_expiry(pg_url):
    """A typo in `store share --person` / its project is set all the same (a switch may come before the token) but
    said on stderr; `store token --expires` in the past is refused (the token would fail from its first use)."""
    from memdir.store.postgres import admin as pg_admin

    s = open_store(pg_url, project="typo")
    try:
        pg_admin.add_token(s.conn, "bob", ["typo"])
    finally:
        s.close()

    def run(*args):
        return subprocess.run([sys.executable, "-m", "memdir", "store", *args, "--store", pg_url], capture_output=True,
                              text=True, timeout=60)

    ok = run("share", "typo", "--person", "bob")
    assert ok.returncode == 0 and "warning" not in ok.stderr, ok.stderr
    for args in (("share", "typo", "--person", "bbo"), ("share", "typoo", "--person", "bob")):
        r = run(*args)
        assert r.returncode == 0 and "no token of" in r.stderr and "memdir store tokens" in r.stderr, r.stderr
    for when in ("2020-01-01", "0d"):
        r = run("token", "bob", "--project", "typo", "--expires", when)
        assert r.returncode == 2 and "not in the future" in r.stderr and "mdt_" not in r.stdout, (when, r.stdout, r.stderr)


def test_what_a_teammate_reads_from_the_server_holds_no_key_an_older_client_sent(pg_url):
    """A row an older memdir sent (or wrote into the store) with a key in it: the server stores what a client sends
    redacted, and its answers (recall, read, holdings) redact the rows already there, so a teammate never gets a
    key in plain text."""
    pytest.importorskip("uvicorn")
    import urllib.request

    from memdir.store.postgres import admin as pg_admin

    key = "sk-proj-" + "Zq4tW9" * 7
    admin = open_store(pg_url, project="proj")
    _client(admin, "team_srv2")
    pg_admin.share_events(admin.conn, "proj", person="tom")
    ann_tok = pg_admin.add_token(admin.conn, "ann", ["proj"])
    tom_tok = pg_admin.add_token(admin.conn, "tom", ["proj"])
    tom = open_store(pg_url, project="proj", token=tom_tok)
    _write(tom, [_ev("team:1", f"the flaky payment test needs the sandbox key {key}", ts=1_790_000_000.0)])
    tom.close()
    p, url = _serve(_login(pg_url, "team_srv2"))

    def post(tok, what, body):
        req = urllib.request.Request(f"{url}/proj/{what}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {tok}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.read().decode("utf-8")

    try:
        sent = _ev("team:2", f"the staging deploy key is {key} until friday", ts=1_790_000_100.0)
        assert json.loads(post(tom_tok, "events", {"events": [sent]}))["stored"] == 1
        answers = [post(ann_tok, "recall", {"query": "sandbox key payment test", "k": 5}),
                   post(ann_tok, "recall", {"query": "staging deploy key", "k": 5}),
                   post(ann_tok, "read", {"id": "team:1"}), post(ann_tok, "read", {"id": "team:2"}),
                   post(ann_tok, "holdings", {"newest": 5})]
        assert all("[redacted:" in a for a in answers), answers
        for a in answers:
            assert key[:12] not in a, a
        stored = admin.conn.execute("SELECT text FROM docs WHERE ref = 'team:2'").fetchone()["text"]
        assert key[:12] not in stored and "[redacted:" in stored
    finally:
        p.terminate()
        p.wait(timeout=30)
        admin.close()
