"""What a new user met in the viewer after following the README (issue 25's trial): an import's skipped events shown
(the timeline, `memdir log skips`), a handle search without "No memory matches." under its card, handles on hits and
turns, a bad date said, fused scores labelled, English singulars, the Team page naming the cause with its fix (a
401, a server whose PostgreSQL does not answer), the Health page's stuck queue, and the outline's episodic line whole."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

import memdir
from memdir.ui import i18n, missing_deps

pytestmark = pytest.mark.skipif(bool(missing_deps()), reason=f"the ui extra is not installed: {missing_deps()}")

FIXTURES = Path(__file__).parent / "fixtures" / "importers"


def client(m):
    from starlette.testclient import TestClient

    from memdir.ui import build

    return TestClient(build(get=lambda: m), base_url="http://127.0.0.1:8766", follow_redirects=False)


@pytest.fixture
def sample(tmp_path):
    from memdir.demo import load_sample

    project = tmp_path / "tally"
    (project / ".git").mkdir(parents=True)
    m = memdir.open(project, home=tmp_path / "global")
    load_sample(m)
    yield m
    m.close()


def _import_fixture(tmp_path):
    from memdir.portability.transcripts import import_host

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    src = tmp_path / "t" / "s.jsonl"
    src.parent.mkdir()
    src.write_text((FIXTURES / "claude_c22.jsonl").read_text(encoding="utf-8").replace("__CWD__", str(proj)),
                   encoding="utf-8")
    m = memdir.open(proj, home=tmp_path / "home")
    return m, proj, src, import_host(m, "claude-code", src, progress=False)


# ---- skips ------------------------------------------------------------------------------------------------------
def test_an_imports_skipped_events_are_in_the_skip_log_the_timeline_and_log_skips(tmp_path, monkeypatch):
    from memdir.cli.main import cli
    from memdir.portability.transcripts import import_host

    m, proj, src, out = _import_fixture(tmp_path)
    try:
        assert out["skipped_by"] == {"noisy_tool": 3, "trivial": 1, "host_injected": 1, "slash_command": 1}
        rows = m.capture_skips(limit=100)
        assert sorted(r["reason"] for r in rows) == sorted(["noisy_tool"] * 3 + ["trivial", "host_injected", "slash_command"])
        assert all(r["source"] == "import:claude-code" and r["session"] for r in rows), rows
        # a skipped tool's output is what the gate refused: its row shows the tool's name only
        assert {r["preview"] for r in rows if r["reason"] == "noisy_tool"} <= {"Read", "Grep", "Glob"}
        import_host(m, "claude-code", src, progress=False)  # the same file again: not logged twice
        assert len(m.capture_skips(limit=100)) == 6
        html = client(m).get("/timeline").text
        skips = html.split('id="skips"', 1)[1]
        assert "Nothing was skipped." not in skips
        assert re.search(r'id="skip-reasons">by reason: noisy tool 3 · ', skips), skips[:800]
        assert "import:claude-code" in skips
    finally:
        m.close()
    monkeypatch.chdir(proj)
    got = CliRunner().invoke(cli, ["--home", str(tmp_path / "home"), "log", "skips", "-n", "10"])
    assert got.exit_code == 0 and "no skips logged" not in got.output, got.output
    assert "noisy_tool" in got.output and "import:claude-code" in got.output, got.output


# ---- search ----------------------------------------------------------------------------------------------------
def test_a_handle_search_shows_the_card_without_no_match_under_it_and_hits_show_handles(sample):
    hit = next(h for h in sample.recall("tenant cache key", k=5) if h.handle)
    c = client(sample)
    html = c.get(f"/search?q={hit.handle}").text
    assert 'id="by-handle"' in html and hit.handle in html
    assert "No memory matches." not in html and 'id="no-hits"' in html and "No other memory matches" in html
    html = c.get("/search?q=tenant+cache+key").text
    hits = html.split('id="hits"', 1)[1]
    assert f'<code class="handle" title="handle">{hit.handle}</code>' in hits


def test_a_session_page_shows_each_turns_handle(sample):
    sid = sample.sessions(limit=1)[0]["session"]
    ev = sample.session_events(sid, limit=5)[0]
    assert ev["handle"] and re.fullmatch(r"[0-9a-z]{6,16}", ev["handle"])
    html = client(sample).get(f"/timeline/session?s={sid}&scope=project").text
    assert f'<code class="handle" title="handle">{ev["handle"]}</code>' in html


@pytest.mark.parametrize("param", ["from", "since", "until", "to"])
def test_a_date_that_is_not_a_date_is_said_on_the_page(sample, param):
    html = client(sample).get(f"/search?q=deploy&{param}=garbage").text
    line = re.search(r'<p class="refused bad-date" id="bad-(since|until)">([^<]*)</p>', html)
    assert line and "garbage" in line.group(2) and "not a date" in line.group(2), html[:2000]
    assert 'id="hits"' in html  # the search itself still runs, unfiltered


def test_fused_scores_are_labelled_and_not_shown_as_the_product_of_local_factors(sample):
    real = sample.recall

    class Fused:  # the facade, whose recall fused a team list (as remote.fuse returns it)
        def __getattr__(self, name):
            return getattr(sample, name)

        def recall(self, q, **kw):
            out = real(q, **kw)
            return [replace(h, score=1 / (61 + i), reasons={**h.reasons, "rrf": {"local": i + 1}})
                    for i, h in enumerate(out)]

    from starlette.testclient import TestClient

    from memdir.ui import build

    html = TestClient(build(get=lambda: Fused()), base_url="http://127.0.0.1:8766").get("/search?q=tenant").text
    assert 'id="score-kinds"' in html and "rank fusion" in html
    assert not re.search(r"score 0\.01\d*\s*= BM25", html), html
    assert "fused score 0.0164" in html and "in its own list:" in html


def test_english_counts_of_one_are_singular():
    en, zh = i18n.translator("en"), i18n.translator("zh")
    assert en("search.count", n=1) == "1 hit" and en("search.count", n=2) == "2 hits"
    assert en("timeline.turns", n=1) == "1 turn" and en("team.notes", n="1") == "1 shared note"
    assert en("notes.count", n=1) == "1 note" and en("inj.chars", n=1) == "1 character"
    assert zh("search.count", n=1) == "1 条结果"  # no plural in Chinese
    assert set(i18n.EN_ONE) <= set(i18n.EN)


# ---- the Team page ------------------------------------------------------------------------------------------------
class _Team(BaseHTTPRequestHandler):
    """A team server stand-in: ``mode`` "401" refuses the token; "pgdown" holds the holdings request (its pool waits
    for PostgreSQL) and answers /v1/health with 503."""

    mode = "401"

    def log_message(self, *a):
        pass

    def _send(self, code, body):
        raw = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        if self.path.endswith("/health"):
            self._send(503, {"error": "the store (PostgreSQL) does not answer"})
        else:
            self._send(404, {"error": "no route"})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.mode == "401":
            self._send(401, {"error": "unknown token"})
        else:
            time.sleep(1.5)
            self._send(503, {"error": "late"})


@pytest.fixture
def team_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Team)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def _team_page(tmp_path) -> str:
    """The Team page of a fresh project opened under the environment the test set (remote.url, the token)."""
    project = tmp_path / "tally"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=tmp_path / "global") as m:
        m.remember("a local note so the project exists", category="facts")
        return client(m).get("/team").text


def test_the_team_page_on_a_refused_token_says_it_answered_and_gives_the_fix(tmp_path, team_server, monkeypatch):
    monkeypatch.setenv("MEMDIR_REMOTE_URL", team_server)
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "revoked-token-0123456789")
    _Team.mode = "401"
    html = _team_page(tmp_path)
    err = html.split('id="team-error">', 1)[1].split("</p>", 1)[0]
    assert "did not answer" not in err and "does not accept the token" in err and "HTTP 401" in err
    fix = html.split('id="team-fix">', 1)[1].split("</p>", 1)[0]
    assert fix.startswith("Fix: ask the lead for a new token") and "MEMDIR_REMOTE_TOKEN" in fix


def test_the_team_page_when_postgresql_is_down_says_so_within_its_short_wait(tmp_path, team_server, monkeypatch):
    from memdir.engine import teamview

    monkeypatch.setenv("MEMDIR_REMOTE_URL", team_server)
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "a-token-0123456789")
    monkeypatch.setattr(teamview, "TIMEOUT_S", 0.3)
    _Team.mode = "pgdown"
    html = _team_page(tmp_path)
    err = html.split('id="team-error">', 1)[1].split("</p>", 1)[0]
    assert "no answer within 0.3 s" in err and "/health says HTTP 503" in err and "PostgreSQL" in err, err
    assert "TimeoutError" not in err
    fix = html.split('id="team-fix">', 1)[1].split("</p>", 1)[0]
    assert "PostgreSQL is failing" in fix


def test_the_health_page_says_why_queued_rows_wait(tmp_path, monkeypatch):
    from memdir.engine import delivery

    monkeypatch.setenv("MEMDIR_REMOTE_URL", "http://127.0.0.1:9/v1")
    project = tmp_path / "tally"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=tmp_path / "global") as m:
        m.remember("a local note so the project exists", category="facts")
        delivery.record(m.roots["project"].db, delivery.classify(401, "HTTP 401: unknown token", project="tally"))
        html = client(m).get("/health").text
    row = html.split('id="team-queue"', 1)[1].split("</tr>", 1)[0]
    assert "cannot be delivered (auth)" in row and "does not accept the token" in row
    assert "Fix: ask the lead for a new token" in row


# ---- the outline ---------------------------------------------------------------------------------------------------
def test_the_demos_outline_keeps_the_episodic_line_whole(sample):
    prompt = "部署之前要注意什么？ how do I roll back a bad deploy?"  # the demo's
    n = sample.status()["project"]["events"]
    whole = f"- project episodic: {n} captured turns (use memory_recall to search)"
    assert whole in sample.context(prompt)
    for budget in range(600, 3000, 150):
        for line in sample.context(prompt, max_chars=budget).splitlines():
            if "episodic:" in line:
                assert line == whole, (budget, line)


def test_a_postgresql_stores_session_events_carry_the_handle(pg_url, project):
    from memdir.store import open_store
    from test_pg_team import _ev, _write

    store = open_store(pg_url, project=project.name)
    try:
        _write(store, [_ev("u:s9:1", "the staging deploy needs the vpn", session="s9")])
        rows = store.session_events("s9")
        assert rows and rows[0]["handle"] and store.resolve_handle(rows[0]["handle"]) == "u:s9:1"
    finally:
        store.close()


def test_memdir_recall_labels_a_fused_score_with_its_ranks(tmp_path, monkeypatch):
    from memdir.cli.main import cli
    from memdir.core import Memdir

    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through the staging host first", category="facts")
    real = Memdir.recall

    def fused(self, q, **kw):
        return [replace(h, score=1 / 61, reasons={**h.reasons, "rrf": {"local": 1, "team": 3}}) for h in real(self, q, **kw)]

    monkeypatch.setattr(Memdir, "recall", fused)
    monkeypatch.chdir(project)
    got = CliRunner().invoke(cli, ["--home", str(tmp_path / "g"), "recall", "staging deploys"])
    assert got.exit_code == 0 and "score=0.01639  (fused rank: local #1, team #3)" in got.output, got.output


def test_a_drop_files_skipped_records_are_in_the_skip_log(tmp_path):
    import sys as _sys

    _sys.path.insert(0, str(Path(__file__).parent))
    from test_migrate import _drop

    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    home = tmp_path / "h"
    _drop(home, "local-memory-import.jsonl", [
        {"source": "oldplugin", "kind": "note", "text": "deploy step one runs on the runner", "ts": "2026-11-01T10:00:00Z"},
        {"source": "oldplugin", "kind": "note", "text": "ok", "ts": "2026-11-01T10:01:00Z"}])
    with memdir.open(proj, home=home) as m:
        m.remember("a note so the project exists", category="facts")
        f = m.import_pending()["files"][0]
        assert f["stored"] == 1 and sum(f["skipped_by"].values()) == 1, f
        rows = m.capture_skips(limit=10)
        assert [r["reason"] for r in rows] == list(f["skipped_by"]) and rows[0]["source"], rows
