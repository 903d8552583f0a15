"""The team store as a lead and a member meet it (issue 25 items 2-4), on the throwaway PostgreSQL cluster
(tests/pg_cluster.py): a queue that cannot deliver says why and how to fix it (status, doctor, push, the log); the
server tells an unknown token from a project it does not grant, and /v1/health checks the database; tokens are
labelled, listed, revoked one at a time and expire; each person shares their own history; `memdir store init` sets a
store up with least privileges and refusals name the missing privilege."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

import memdir
from memdir.errors import MemdirError
from memdir.store import open_store
from test_pg_team import _client, _login  # noqa: E402  (the team tests' helpers)


def _ev(key: str, text: str) -> dict:
    import hashlib

    return {"kind": "event", "ref": key, "content_sha256": hashlib.sha256(text.encode()).hexdigest(), "role": "user",
            "session": "s1", "ts": "2026-09-21T00:00:00Z", "ts_epoch": 1_790_000_000.0, "text": text, "meta": None}


@pytest.fixture
def team_app(pg_url):
    """``(admin store, TestClient of the team server, post(project, what, body, token))`` over a fresh database."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from memdir.server import team as teamserver

    admin = open_store(pg_url, project="web")
    _client(admin, "life_srv")
    client = TestClient(teamserver.app(_login(pg_url, "life_srv")))

    def post(project, what, body, token):
        return client.post(f"/v1/{project}/{what}", json=body, headers={"Authorization": f"Bearer {token}"})

    yield admin, client, post
    client.close()
    admin.close()


# ---- item 3: tokens ----------------------------------------------------------------------------------------------
def test_several_named_tokens_per_person_listed_and_revoked_one_at_a_time(team_app):
    """`store revoke` removed every token of a person (a rotation had a gap) and nothing listed them. Now ann holds
    one token per machine; the list shows label, created, last used and expiry; revoking one leaves the other
    working; an expired token is refused as a revoked one."""
    from memdir.store.postgres import admin as pg_admin

    admin, _, post = team_app
    laptop = pg_admin.add_token(admin.conn, "ann", ["web"], label="laptop")
    ci = pg_admin.add_token(admin.conn, "ann", ["web"], label="ci")
    with pytest.raises(MemdirError, match="already has a token labelled 'ci'"):
        pg_admin.add_token(admin.conn, "ann", ["web"], label="ci")
    rows = {t["label"]: t for t in pg_admin.list_tokens(admin.conn, "ann")}
    assert set(rows) == {"laptop", "ci"} and all(t["last_used"] is None and t["expires"] is None for t in rows.values())
    assert post("web", "recall", {"query": "x"}, laptop).status_code == 200
    assert pg_admin.list_tokens(admin.conn, "ann")[0]["last_used"] is not None  # laptop: used just now
    # rotation: a new token, then the old one revoked by label; the others never stop
    new = pg_admin.add_token(admin.conn, "ann", ["web"], label="laptop-2")
    with pytest.raises(MemdirError, match="3 tokens"):
        pg_admin.revoke_token(admin.conn, "ann")
    assert pg_admin.revoke_token(admin.conn, "ann", label="laptop") == 1
    assert post("web", "recall", {"query": "x"}, laptop).status_code == 401
    assert post("web", "recall", {"query": "x"}, ci).status_code == 200
    assert post("web", "recall", {"query": "x"}, new).status_code == 200
    assert pg_admin.revoke_token(admin.conn, "ann", token_id=rows["ci"]["id"]) == 1
    assert post("web", "recall", {"query": "x"}, ci).status_code == 401
    assert [t["label"] for t in pg_admin.list_tokens(admin.conn, "ann")] == ["laptop-2"]
    # expiry
    old = pg_admin.add_token(admin.conn, "ann", ["web"], label="temp", expires=datetime.now(timezone.utc) - timedelta(seconds=1))
    assert post("web", "recall", {"query": "x"}, old).status_code == 401
    assert {t["label"]: t["expired"] for t in pg_admin.list_tokens(admin.conn)}["temp"] is True


def test_store_tokens_and_revoke_on_the_command_line(pg_url):
    def run(*args, ok=True):
        r = subprocess.run([sys.executable, "-m", "memdir", "store", *args, "--store", pg_url, "--json"],
                           capture_output=True, text=True, timeout=60)
        assert (r.returncode == 0) == ok, r.stderr
        return json.loads(r.stdout) if ok else r.stderr

    a = run("token", "ann", "--project", "web", "--label", "laptop", "--expires", "90d")
    assert a["label"] == "laptop" and a["expires"] and len(a["id"]) == 10
    run("token", "ann", "--project", "web", "--label", "ci")
    listed = run("tokens")
    assert [(t["person"], t["label"]) for t in listed] == [("ann", "laptop"), ("ann", "ci")]
    assert set(listed[0]) >= {"id", "label", "created", "last_used", "expires", "projects"}
    assert "name one with --label" in run("revoke", "ann", ok=False)
    assert run("revoke", "ann", "--id", a["id"])["revoked"] == 1
    assert [t["label"] for t in run("tokens", "ann")] == ["ci"]
    human = subprocess.run([sys.executable, "-m", "memdir", "store", "tokens", "--store", pg_url], capture_output=True,
                           text=True, timeout=60).stdout
    assert "last used" in human and "ci" in human and "never" in human


def test_tokens_made_before_the_migration_keep_working(pg_url, monkeypatch):
    from memdir.store.postgres import admin as pg_admin
    from memdir.store.postgres import migrations as pg_migrations
    from memdir.store.postgres.people import m012_token_lifecycle_and_personal_sharing as m012

    n = pg_migrations.MIGRATIONS.index(m012)
    monkeypatch.setattr(pg_migrations, "MIGRATIONS", pg_migrations.MIGRATIONS[:n])
    old = open_store(pg_url, project="web")
    toks = [pg_admin.add_token(old.conn, "ann", ["web"]), pg_admin.add_token(old.conn, "ann", ["web"])]
    old.conn.execute("INSERT INTO memdir_projects(project, share_events) VALUES ('web', true)")
    old.close()
    monkeypatch.undo()
    for t in toks:
        s = open_store(pg_url, project="web", token=t)
        try:
            assert s.conn.execute("SELECT memdir_project_ok() AS ok, memdir_person() AS p").fetchone() == {"ok": True, "p": "ann"}
        finally:
            s.close()
    s = open_store(pg_url, project="web")
    try:
        assert sorted(t["label"] for t in pg_admin.list_tokens(s.conn)) == ["token-1", "token-2"]
        assert pg_admin.sharing(s.conn, "web") == {"ann": True}  # a shared project stays readable as it was
    finally:
        s.close()


def test_each_person_shares_their_own_history_and_the_lead_cannot_flip_everyones(team_app, pg_url):
    """Sharing was one switch per project: the lead turning it on exposed every member's past private events. Now
    ann opens her own (through the server, her token), ben's stay private; the admin names one person or nothing."""
    from memdir.store.postgres import admin as pg_admin

    admin, _, post = team_app
    tok = {p: pg_admin.add_token(admin.conn, p, ["web"]) for p in ("ann", "ben", "cy")}
    assert post("web", "events", {"events": [_ev("a1", "ann: the deploy key rotates monthly")]}, tok["ann"]).status_code == 200
    assert post("web", "events", {"events": [_ev("b1", "ben: the deploy key is in my notes")]}, tok["ben"]).status_code == 200

    def sees(person):
        return {h["ref"] for h in post("web", "recall", {"query": "deploy key", "k": 5}, tok[person]).json()["hits"]}

    assert sees("cy") == set()
    r = post("web", "sharing", {"share": True}, tok["ann"])
    assert r.json() == {"project": "web", "person": "ann", "share": True}
    assert sees("cy") == {"a1"} and sees("ben") == {"a1", "b1"} and sees("ann") == {"a1"}
    assert post("web", "sharing", {"share": "yes"}, tok["ann"]).status_code == 400
    post("web", "sharing", {"share": False}, tok["ann"])
    assert sees("cy") == set()
    with pytest.raises(TypeError):
        pg_admin.share_events(admin.conn, "web")  # no switch for everyone at once
    r = subprocess.run([sys.executable, "-m", "memdir", "store", "share", "web", "--store", pg_url],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--person" in r.stderr


# ---- item 2: honest health ---------------------------------------------------------------------------------------
def test_the_server_tells_an_unknown_token_from_a_project_it_does_not_grant(team_app):
    from memdir.store.postgres import admin as pg_admin

    admin, _, post = team_app
    tok = pg_admin.add_token(admin.conn, "ann", ["webapp"])
    r = post("web", "recall", {"query": "x"}, tok)
    assert r.status_code == 403 and "grants: webapp" in r.json()["error"]
    r = post("webapp", "recall", {"query": "x"}, "mdt_wrong")
    assert r.status_code == 401 and "unknown, revoked or expired" in r.json()["error"]


@pytest.mark.parametrize("bad", [{"meta": [1, 2]}, {"meta": 7}, {"role": 5}, {"session": {"a": 1}},
                                 {"ts": "not a time"}, {"ts_epoch": "1e400"}, {"ts_epoch": "abc"},
                                 {"ts_epoch": [1]}, {"text": ["a"]}])
def test_a_malformed_event_row_is_a_400_line_about_it_never_a_500(team_app, bad):
    """A row whose meta was a list, whose role or session was not text, or whose time did not parse got "Internal
    Server Error" (500, psycopg's stack trace in the server's log); a client keeps a 5xx's rows queued and sends them
    again, so one such row held up every row behind it. Now it is a 400 with one line, which the client keeps aside
    (memdir.engine.remote.refuses_rows), and a dict meta (as Memdir.import_events takes it) is stored."""
    from memdir.store.postgres import admin as pg_admin

    admin, _, post = team_app
    tok = pg_admin.add_token(admin.conn, "ann", ["web"])
    r = post("web", "events", {"events": [{**_ev("bad-1", "a malformed row about zebras"), **bad}]}, tok)
    assert r.status_code == 400 and "\n" not in r.json()["error"], (r.status_code, r.text)
    r = post("web", "events", {"events": [{**_ev("ok-1", "a row about zebras"), "meta": {"source": "x"}}]}, tok)
    assert r.status_code == 200 and r.json()["stored"] == 1, r.text
    hits = post("web", "recall", {"query": "zebras"}, tok).json()["hits"]
    assert [h["ref"] for h in hits] == ["ok-1"]


def test_health_checks_the_database():
    """/v1/health said ok while PostgreSQL was down."""
    pytest.importorskip("starlette")
    pytest.importorskip("psycopg_pool")
    from starlette.testclient import TestClient

    from memdir.server import team as teamserver

    with TestClient(teamserver.app("postgresql://nobody@127.0.0.1:1/memdir?connect_timeout=1")) as c:
        r = c.get("/v1/health")
    assert r.status_code == 503 and r.json()["ok"] is False and "PostgreSQL" in r.json()["error"]


def test_health_is_ok_with_the_database_up(team_app):
    _, client, _ = team_app
    r = client.get("/v1/health")
    assert r.status_code == 200 and r.json() == {"ok": True, "store": "ok"}


def _serve(url: str):
    p = subprocess.Popen([sys.executable, "-m", "memdir", "serve", "--store", url, "--port", "0", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p, json.loads(p.stdout.readline())["url"]


def test_a_queue_that_cannot_deliver_says_why_with_the_fix(pg_url, tmp_path, monkeypatch, caplog):
    """Rows waited forever while `status` said failed=0 and doctor `[ ok] remote queue: N row(s) waiting, none
    refused`: a revoked token, no token, a clone whose directory name is not the project's name. Each is now named,
    with its fix, by push, status, doctor and the log; a wrong token no longer gives local-only recall silently."""
    pytest.importorskip("uvicorn")
    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project="webapp")
    _client(admin, "life_srv2")
    good = pg_admin.add_token(admin.conn, "ann", ["webapp"], label="laptop")
    revoked = pg_admin.add_token(admin.conn, "ann", ["webapp"], label="old")
    pg_admin.revoke_token(admin.conn, "ann", label="old")
    p, url = _serve(_login(pg_url, "life_srv2"))
    clone = tmp_path / "webapp-main"  # a clone under another directory name: the default project name is wrong
    (clone / ".git").mkdir(parents=True)
    try:
        monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
        cases = [  # (token, project setting, cause, words of the fix)
            (revoked, "webapp", "auth", "ask the lead for a new token"),
            ("", "webapp", "auth", "set MEMDIR_REMOTE_TOKEN"),
            (good, "", "project", 'remote.project = "webapp"'),
        ]
        seen: list = []
        for token, proj, cause, fix in cases:
            monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", token)
            monkeypatch.setenv("MEMDIR_REMOTE_PROJECT", proj)
            # the budgets are a loaded machine's, not what is tested: the server answers, and how it refuses is named
            budgets = {"remote.recall_budget_ms": 20_000, "remote.push_budget_ms": 20_000}
            with memdir.open(clone, home=tmp_path / "g", config=budgets) as m, \
                    caplog.at_level(logging.DEBUG, logger="memdir"):
                caplog.clear()
                m.import_events([{"key": f"k-{cause}-{len(token)}", "role": "user", "text": f"the invoices job {len(seen)}",
                                  "session": "s", "ts": 1_790_000_000}])
                seen.append(cause)
                # the write's own push (the hook path) logs the cause and its fix (the debug log, a warning when new)
                assert any("cannot be delivered" in r.getMessage() or "not delivered" in r.getMessage()
                           for r in caplog.records if fix in r.getMessage()), [r.getMessage() for r in caplog.records]
                res = m.push()
                assert res["left"] >= 1 and res["kind"] == cause and fix in res["fix"], res
                q = m.status()["project"]["remote_queue"]
                assert q["cause"] == cause and fix in q["fix"] and q["undelivered"], q
                check = next(c for c in m.doctor() if c["check"] == "remote delivery")
                assert check["ok"] == "fail" and fix in check["remedy"]
                assert not any(c["check"] == "remote queue" and "none refused" in c["detail"] and c["ok"] == "ok"
                               for c in m.doctor())
                with caplog.at_level(logging.WARNING, logger="memdir"):
                    caplog.clear()
                    m.recall("invoices job", k=3)
                assert any("local hits only" in r.getMessage() and fix in r.getMessage() for r in caplog.records)
        # fixed: the right project name and token deliver everything and the cause is gone
        monkeypatch.setenv("MEMDIR_REMOTE_PROJECT", "webapp")
        with memdir.open(clone, home=tmp_path / "g") as m:
            seen.clear()
            res = m.push(progress=lambda sent, total: seen.append((sent, total)))
            assert res["left"] == 0 and res["sent"] == 3 and not res.get("kind") and seen[-1] == (3, 3)
            q = m.status()["project"]["remote_queue"]
            assert "undelivered" not in q and q["queued"] == 0
    finally:
        p.terminate()
        p.wait(timeout=30)
        admin.close()


def test_every_push_request_has_its_own_timeout(tmp_path, monkeypatch):
    """A push waited on one request for its whole budget (30 s for `memdir push`); each request is now bounded."""
    import memdir.netproxy
    from memdir.engine import remote

    seen = []

    class Opener:
        def open(self, req, timeout=None):
            seen.append(timeout)
            raise TimeoutError("timed out")

    # every team request is opened by the opener memdir.netproxy builds for its URL (the proxy chosen per address)
    monkeypatch.setattr(memdir.netproxy, "opener", lambda url, *handlers: Opener())
    remote.enqueue(tmp_path, [{"ref": "k", "content_sha256": "x", "text": "t", "ts": "2026-11-30T00:00:00Z", "ts_epoch": 0}])
    res = remote.push(tmp_path, "http://127.0.0.1:9/v1", "p", "tok", budget_s=600)
    assert seen and seen[0] <= remote.REQUEST_TIMEOUT_S and res["kind"] == "unreachable" and res["fix"]


# ---- item 4: set-up -----------------------------------------------------------------------------------------------
def test_store_init_creates_roles_database_and_schema_with_least_privileges(pg):
    import psycopg

    from memdir.server import team as teamserver

    r = subprocess.run([sys.executable, "-m", "memdir", "store", "init", "--admin", pg.url(), "--database", "teamdb",
                        "--owner", "team_owner", "--server-login", "team_srv_i", "--no-passwords", "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out["created"]) >= {"team_owner", "team_srv_i", "database teamdb"}
    with psycopg.connect(pg.url("teamdb"), autocommit=True) as c:
        roles = {row[0]: row[1:] for row in c.execute(
            "SELECT rolname, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolcanlogin FROM pg_roles "
            "WHERE rolname IN ('team_owner', 'team_srv_i', 'memdir_client')")}
        assert roles["team_owner"] == (False, False, False, False, True)
        assert roles["team_srv_i"] == (False, False, False, False, True)
        assert c.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'teamdb'").fetchone()[0] == "team_owner"
        assert c.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'docs'").fetchone()[0] == "team_owner"
        assert not c.execute("SELECT has_database_privilege('public', 'teamdb', 'CONNECT')").fetchone()[0]
    teamserver.check_login(out["server_url"])  # the server's login is a client: row-level security applies
    again = subprocess.run([sys.executable, "-m", "memdir", "store", "init", "--admin", pg.url(), "--database", "teamdb",
                            "--owner", "team_owner", "--server-login", "team_srv_i", "--json"],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and json.loads(again.stdout)["created"] == [], again.stderr


def test_set_up_errors_name_the_missing_privilege(pg):
    """Without CREATEROLE the error said to "connect once with the schema owner's URL" — the URL in use."""
    import psycopg

    from memdir.store.postgres.setup import init

    with psycopg.connect(pg.url(), autocommit=True) as c:
        c.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'plain_lead') THEN "
                  "CREATE ROLE plain_lead LOGIN; END IF; END $$")
        c.execute("DROP DATABASE IF EXISTS lead_db")
        c.execute("CREATE DATABASE lead_db")
        c.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    with pytest.raises(MemdirError, match="plain_lead lacks CREATEROLE and CREATEDB.*ALTER ROLE plain_lead CREATEROLE CREATEDB"):
        init(_login(pg.url(), "plain_lead"))
    with pytest.raises(MemdirError) as exc:
        open_store(_login(pg.url("lead_db"), "plain_lead"), project="web")
    msg = str(exc.value)
    assert "CREATE on schema public" in msg and "memdir store init" in msg and "schema owner's URL" not in msg


def test_a_client_login_on_an_older_schema_is_told_who_may_upgrade_it(pg_url, monkeypatch):
    """The team server's login met an older schema and was told to "connect once with the schema owner's URL"
    without a word on who that is; the line now names the owner and the versions."""
    from memdir.store.postgres import migrations as pg_migrations

    monkeypatch.setattr(pg_migrations, "MIGRATIONS", pg_migrations.MIGRATIONS[:11])
    admin = open_store(pg_url, project="web")
    _client(admin, "old_srv")
    admin.close()
    monkeypatch.undo()
    with pytest.raises(MemdirError) as exc:
        open_store(_login(pg_url, "old_srv"), project="web")
    msg = str(exc.value)
    assert "v11" in msg and f"v{len(pg_migrations.MIGRATIONS)}" in msg and "only its owner memdir may upgrade it" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("what, body", [("recall", {"query": "zebras", "k": True}),
                                        ("recall", {"query": "zebras", "k": False}),
                                        ("recall", {"query": "zebras", "k": 3, "now": True}),
                                        ("holdings", {"newest": True}),
                                        ("holdings", {"newest": False})])
def test_a_boolean_is_not_a_count_nor_a_time(team_app, what, body):
    """`k: true` was read as k = 1 (Python's bool is an int): a 400 with one line, as the other bad values are."""
    from memdir.store.postgres import admin as pg_admin

    admin, _, post = team_app
    tok = pg_admin.add_token(admin.conn, "ann", ["web"])
    r = post("web", what, body, tok)
    assert r.status_code == 400 and "\n" not in r.json()["error"], (r.status_code, r.text)
    assert post("web", what, {k: (3 if v is True or v is False else v) for k, v in body.items()
                              if not (k == "now")}, tok).status_code == 200
