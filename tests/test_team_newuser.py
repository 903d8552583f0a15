"""What a new user met following the README's team section (the team store's findings of a new-user trial): a time
budget that runs out is not "unreachable"; an import sends what it queued; the server answers 503 at once when
PostgreSQL is down; doctor contacts the team server; `store init` runs again; a team hit's handle can be opened;
revoked tokens are listed as such. PostgreSQL tests run on the throwaway cluster (tests/pg_cluster.py)."""

from __future__ import annotations

import json
import logging
import os
import threading
import time

import pytest
from click.testing import CliRunner

import memdir
from memdir.cli.main import cli
from test_pg_team import _client, _login, _serve  # noqa: E402  (the team tests' helpers)


def _slow_server(delay_s: float):
    """An HTTP server answering every POST 200 ``{}`` after ``delay_s``; returns (url, hits, stop)."""
    import http.server

    hits: list[str] = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            time.sleep(delay_s)
            hits.append((self.path, len(json.loads(body).get("events") or [])))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    def stop():
        srv.shutdown()
        srv.server_close()

    return f"http://127.0.0.1:{srv.server_address[1]}/v1", hits, stop


def test_a_budget_that_runs_out_is_not_unreachable_and_an_import_sends_its_rows(tmp_path, monkeypatch, caplog):
    """`memdir import` printed "the team server cannot be reached: TimeoutError" for a healthy server (its
    end-of-run push had the hooks' 250 ms budget, and running out of it was classed as unreachable); status then
    said cause=unreachable. Now a write's short push leaves the rows queued without a cause, and the import command
    sends them within the long command's budget."""
    url, hits, stop = _slow_server(0.4)
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
    monkeypatch.setenv("MEMDIR_REMOTE_PUSH_BUDGET_MS", "150")
    project = tmp_path / "webapp"
    (project / ".git").mkdir(parents=True)
    try:
        with memdir.open(project, home=tmp_path / "g") as m, caplog.at_level(logging.DEBUG, logger="memdir"):
            assert m.import_events([{"key": "k1", "role": "user", "text": "the invoices job runs nightly",
                                     "session": "s", "ts": 1_790_000_000}])["stored"] == 1
            q = m.status()["project"]["remote_queue"]
            assert q["queued"] == 1 and "cause" not in q and "undelivered" not in q, q
            assert not any(c["check"] == "remote delivery" for c in m.doctor())
        assert not any("cannot be reached" in r.getMessage() for r in caplog.records)
        f = tmp_path / "ev.jsonl"
        f.write_text("".join(json.dumps({"type": "event", "key": f"j{i}", "role": "user", "session": "s",
                                         "text": f"deploy step {i} of the billing service"}) + "\n" for i in range(5)))
        r = CliRunner().invoke(cli, ["--home", str(tmp_path / "g"), "--dir", str(project), "import", str(f)])
        assert r.exit_code == 0, r.output
        assert "cannot be reached" not in r.output and "wait for the team server" not in r.output, r.output
        with memdir.open(project, home=tmp_path / "g") as m:
            q = m.status()["project"]["remote_queue"]
            assert q["queued"] == 0 and "cause" not in q, q
        assert sum(n for _, n in hits) >= 6
    finally:
        stop()


def test_postgresql_down_gets_a_quick_503_the_client_names_the_server_cause(tmp_path):
    """With PostgreSQL stopped, `memdir push` waited 15 s and said "TimeoutError: timed out; check remote.url" (the
    server waited 30 s for a pool connection, the client gave up at 15 s), so the documented `server` cause never
    appeared, and the server's log had nothing from memdir. Now the server answers 503 "the store (PostgreSQL) does
    not answer" after a short pool wait, the client classes it as `server` with its fix, the log has one line."""
    pytest.importorskip("uvicorn")
    import pg_cluster

    from memdir.engine import remote
    from memdir.server import team as teamserver
    from memdir.store import open_store
    from memdir.store.postgres import admin as pg_admin

    assert teamserver.POOL_WAIT_S <= 5 and teamserver.POOL_WAIT_S < remote.REQUEST_TIMEOUT_S
    cluster = pg_cluster.start_cluster()
    p = None
    try:
        url = cluster.new_database()
        admin = open_store(url, project="webapp")
        _client(admin, "down_srv")
        tok = pg_admin.add_token(admin.conn, "ann", ["webapp"])
        admin.close()
        p, api = _serve(_login(url, "down_srv"))
        row = {"ref": "k1", "content_sha256": "a" * 64, "text": "the invoices job", "ts": "2026-11-30T00:00:00Z",
               "ts_epoch": 1.0, "role": "user", "session": "s"}
        remote.enqueue(tmp_path, [row])
        assert remote.push(tmp_path, api, "webapp", tok, budget_s=30)["sent"] == 1
        cluster.stop()  # PostgreSQL goes away under the running server
        remote.enqueue(tmp_path, [{**row, "ref": "k2"}, {**row, "ref": "k3"}])
        res = remote.push(tmp_path, api, "webapp", tok, budget_s=30)
        assert res["left"] == 2 and res["kind"] == "server", res
        assert "HTTP 503" in res["error"] and "PostgreSQL" in res["error"] and "curl" in res["fix"], res
        remote.push(tmp_path, api, "webapp", tok, budget_s=30, due_only=False)  # a second failed request
        # the viewer's Team page: it waits 2 s for the server, then 1 s for /health; the server answered a request
        # after 3 s and /health after 5 s, so the page blamed the network ("unreachable") for PostgreSQL's outage
        from memdir.engine import teamview

        cfg = {"remote.url": api, "remote.project": "webapp", "remote.token_env": "MEMDIR_TEST_TEAM_TOKEN"}
        os.environ["MEMDIR_TEST_TEAM_TOKEN"] = tok
        try:
            with pytest.raises(teamview.TeamUnavailable) as got:
                teamview.holdings(type("Cfg", (), {"get": lambda self, k: cfg.get(k)})(), tmp_path)
        finally:
            del os.environ["MEMDIR_TEST_TEAM_TOKEN"]
        assert got.value.cause["kind"] == "server" and "PostgreSQL" in got.value.cause["reason"], got.value.cause
        assert teamview.no_answer(api, TimeoutError("timed out"), 2.0, project="webapp")["kind"] == "server"
    finally:
        cluster.stop()
        if p is not None:
            p.terminate()
            err = p.communicate(timeout=30)[1]
    lines = [x for x in err.splitlines() if x.startswith("memdir: the store (PostgreSQL) does not answer")]
    assert len(lines) == 1, err


def test_serve_store_warns_about_plain_http_on_a_non_loopback_host(pg_url):
    """`memdir serve --store … --host 0.0.0.0` served tokens and memories over plain HTTP without a word."""
    pytest.importorskip("uvicorn")
    from memdir.store import open_store

    admin = open_store(pg_url, project="webapp")
    _client(admin, "warn_srv")
    admin.close()
    p, _ = _serve(_login(pg_url, "warn_srv"), "--host", "0.0.0.0")
    p.terminate()
    err = p.communicate(timeout=30)[1]
    assert "plain HTTP" in err and "127.0.0.1 behind a TLS reverse proxy" in err, err


def test_doctor_contacts_the_team_server(pg_url, tmp_path, monkeypatch):
    """`memdir doctor` never contacted the team server: a bogus token, no token or a remote.url without /v1 all
    gave `[ ok] remote queue: 0 row(s) waiting` and exit 0. It now asks the server (GET /v1/whoami, a short timeout)
    and says whose the token is and what it grants, or fails with the fix."""
    pytest.importorskip("uvicorn")
    from memdir.store import open_store
    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project="webapp")
    _client(admin, "doc_srv")
    tok = pg_admin.add_token(admin.conn, "ann", ["webapp"], label="laptop")
    admin.close()
    p, api = _serve(_login(pg_url, "doc_srv"))
    project = tmp_path / "webapp"
    (project / ".git").mkdir(parents=True)
    cases = [  # (url, token, project, ok, words of the detail or remedy)
        (api, tok, "webapp", "ok", "the token is ann's and grants webapp"),
        (api, "mdt_bogus", "webapp", "fail", "ask the lead for a new token"),
        (api, "", "webapp", "fail", "set MEMDIR_REMOTE_TOKEN"),
        (api.rsplit("/v1", 1)[0], tok, "webapp", "fail", "ending in /v1"),
        (api, tok, "webapp-bob", "fail", 'remote.project = "webapp"'),
    ]
    try:
        for url, token, proj, ok, words in cases:
            monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", token)
            with memdir.open(project, home=tmp_path / "g", config={"remote.url": url, "remote.project": proj}) as m:
                check = next(c for c in m.doctor() if c["check"] == "team server")
            assert check["ok"] == ok and words in check["detail"] + check["remedy"], (url, token, proj, check)
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "mdt_bogus")
        monkeypatch.setenv("MEMDIR_REMOTE_URL", api)
        r = CliRunner().invoke(cli, ["--home", str(tmp_path / "g"), "--dir", str(project), "doctor"])
        assert r.exit_code == 1 and "[fail] team server" in r.output, r.output
    finally:
        p.terminate()
        p.wait(timeout=30)


def test_store_init_runs_again_without_the_owner_password(pg):
    """A second `memdir store init --admin …` failed ("could not connect to the store postgresql://memdir_owner@…:
    no password supplied") although the docs said running it again keeps what exists: it connected as the owner,
    whose password only the first run knew. It now creates or upgrades the schema as the admin with SET ROLE owner
    (here the owner may not log in at all, as when its password is not at hand)."""
    import subprocess
    import sys

    import psycopg

    base = [sys.executable, "-m", "memdir", "store", "init", "--admin", pg.url(), "--database", "againdb",
            "--owner", "again_owner", "--server-login", "again_srv"]
    first = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    with psycopg.connect(pg.url(), autocommit=True) as c:
        c.execute("ALTER ROLE again_owner NOLOGIN")  # its URL cannot be used by the second run
    with psycopg.connect(pg.url("againdb"), autocommit=True) as c:
        c.execute("DELETE FROM memdir_schema WHERE version = (SELECT max(version) FROM memdir_schema)")
    again = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "nothing (all there already)" in again.stdout and "password unchanged" in again.stdout, again.stdout
    from memdir.store.postgres.migrations import MIGRATIONS

    with psycopg.connect(pg.url("againdb"), autocommit=True) as c:
        assert c.execute("SELECT max(version) FROM memdir_schema").fetchone()[0] == len(MIGRATIONS)
        assert c.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'docs'").fetchone()[0] == "again_owner"


def test_a_team_hits_handle_or_key_opens_from_the_team_server(pg_url, tmp_path, monkeypatch):
    """`memdir get zntznw` (a `[zntznw team tool]` hit) said "no memory with id", and memory_read could not read
    the team handles the <memory> block shows. Both now ask the team server (POST /v1/<project>/read), which
    answers under row-level security: a teammate's event once shared, nothing once private again."""
    pytest.importorskip("uvicorn")
    from memdir.server.tools import do_read
    from memdir.store import open_store
    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project="webapp")
    _client(admin, "read_srv")
    ann = pg_admin.add_token(admin.conn, "ann", ["webapp"])
    bob = pg_admin.add_token(admin.conn, "bob", ["webapp"])
    admin.close()
    p, api = _serve(_login(pg_url, "read_srv"))
    monkeypatch.setenv("MEMDIR_REMOTE_URL", api)
    monkeypatch.setenv("MEMDIR_REMOTE_PROJECT", "webapp")
    a, b = tmp_path / "ann" / "webapp", tmp_path / "bob" / "webapp"
    for d in (a, b):
        (d / ".git").mkdir(parents=True)
    try:
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", ann)
        with memdir.open(a, home=tmp_path / "ga") as m:
            m.import_events([{"key": "ann-1", "role": "assistant", "session": "s", "ts": 1_790_000_000,
                              "text": "the codemie gateway retries each webhook three times, then parks it"}])
            assert m.push()["left"] == 0
            m.share_history(True)
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", bob)
        with memdir.open(b, home=tmp_path / "gb", config={"remote.recall_budget_ms": 20_000}) as m:
            hit = next(h for h in m.recall("codemie gateway webhook", k=3) if h.scope == "team")
            assert hit.handle
            assert m.get(hit.handle) is None  # a local lookup (the viewer, the block) never asks the server
            for ident in (hit.handle, hit.key):
                got = m.get(ident, remote=True)
                assert got is not None and got.scope == "team" and "three times" in got.text, ident
            page = do_read(m, hit.handle)
            assert "three times" in page["text"] and page["scope"] == "team"
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", ann)
        with memdir.open(a, home=tmp_path / "ga") as m:
            m.share_history(False)
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", bob)
        with memdir.open(b, home=tmp_path / "gb") as m:
            assert m.get(hit.handle, remote=True) is None and m.get(hit.key, remote=True) is None  # private again: RLS
        r = CliRunner().invoke(cli, ["--home", str(tmp_path / "gb"), "--dir", str(b), "get", "ann-1"])
        assert r.exit_code == 1
        # a NUL in the id was a 500 with psycopg's stack trace on the server: now one 400 line
        import urllib.error
        import urllib.request

        req = urllib.request.Request(f"{api}/webapp/read", data=json.dumps({"id": "a\u0000b"}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {bob}"})
        with pytest.raises(urllib.error.HTTPError) as bad:
            urllib.request.urlopen(req, timeout=10)
        assert bad.value.code == 400 and "bad input" in bad.value.read().decode()
    finally:
        p.terminate()
        p.wait(timeout=30)


def test_store_tokens_says_a_token_was_revoked(pg_url):
    """After `memdir store revoke bob --label desktop`, `memdir store tokens bob` said "no tokens": no trace that
    bob ever had one. The revoked token is now counted, and listed with when it was revoked."""
    base = ["store", "tokens", "--store", pg_url]
    runner = CliRunner()
    assert runner.invoke(cli, ["store", "token", "bob", "--project", "webapp", "--label", "desktop", "--store", pg_url]).exit_code == 0
    assert runner.invoke(cli, ["store", "revoke", "bob", "--label", "desktop", "--store", pg_url]).exit_code == 0
    r = runner.invoke(cli, base + ["bob"])
    assert r.exit_code == 0 and "1 revoked token(s)" in r.output and "--revoked" in r.output, r.output
    r = runner.invoke(cli, base + ["bob", "--revoked"])
    assert r.exit_code == 0 and "desktop" in r.output and "revoked" in r.output.splitlines()[0], r.output
    r = runner.invoke(cli, base + ["bob", "--revoked", "--json"])
    rows = json.loads(r.output)
    assert [t["label"] for t in rows] == ["desktop"] and rows[0]["revoked"], rows


def test_doctor_fts_line_counts_memories_not_an_inflated_docs_figure(tmp_path):
    """doctor said "project fts: 109 docs" for a project of 10 events: the count added the passages of long events.
    It now says how many memories, and how many passages beside them."""
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    long = "\n".join(f"line {i} of the long exploration report, listing files" for i in range(300))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": "k1", "role": "tool", "session": "s", "ts": 1_790_000_000, "text": long},
                         {"key": "k2", "role": "user", "session": "s", "ts": 1_790_000_001, "text": "a short question"}])
        check = next(c for c in m.doctor() if c["check"] == "project fts")
    assert check["detail"].startswith("2 memories + ") and "passages" in check["detail"], check


def test_review_bad_admin_inputs_get_one_line_errors():
    """`--expires 99999999d` raised OverflowError (a stack trace); `revoke --id ______` matched any token through
    LIKE's wildcards."""
    from memdir.cli.store import _expiry
    from memdir.errors import MemdirError, UsageError
    from memdir.store.postgres import admin

    with pytest.raises(UsageError, match="--expires"):
        _expiry("99999999d")
    for tid in ("______", "%%%%%%", "abc12z"):
        with pytest.raises(MemdirError, match="hex digits"):
            admin.revoke_token(None, "bob", token_id=tid)
