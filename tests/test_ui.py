"""The viewer without a browser: its door (Host / Origin / token), the edit validation, the skip and injection
logs, every page rendering on the sample data, and the pages mounted in ``memdir serve``."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

import memdir
from memdir.store.sqlite import journal
from memdir.ui import i18n, missing_deps

pytestmark = pytest.mark.skipif(bool(missing_deps()), reason=f"the ui extra is not installed: {missing_deps()}")

LOOPBACK = "http://127.0.0.1:8766"
TOKEN = "t0ken-for-tests-0123456789"


def client(m, *, host="127.0.0.1", token=None, base_url=LOOPBACK, prefix=""):
    from starlette.testclient import TestClient

    from memdir.ui import build

    return TestClient(build(get=lambda: m, host=host, token=token, prefix=prefix), base_url=base_url,
                      raise_server_exceptions=True, follow_redirects=False)


@pytest.fixture
def sample(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from ui_support import sample_store

    m, project, home = sample_store(tmp_path / "s")
    yield m, project, home
    m.close()


def _pages(m) -> list[str]:
    note = m.inspect().notes[0]
    inj = m.injections(limit=1)
    out = ["/", "/search", "/search?q=部署&scope=project&kind=fact", "/notes", "/notes?category=rules",
           f"/notes/{note.scope}/{note.id}", f"/notes/{note.scope}/{note.id}/edit", "/timeline",
           "/timeline/session?s=sample-s1&scope=project", "/injections", "/why?q=deploy&id=" + note.id,
           "/health", "/health?days=0", "/health?doctor=1", "/static/style.css", "/timeline/skips", "/team",
           "/timeline/session?s=sample-s1&scope=project&end=1", "/notes?end=1", "/search?q=部署&k=2&after=WzFd"]
    if inj:
        out.append(f"/injections/{inj[0]['scope']}/{inj[0]['id']}")
    return out


# ---- strings ------------------------------------------------------------------------------------------------
def test_both_languages_have_the_same_keys():
    assert set(i18n.EN) == set(i18n.ZH)
    assert i18n.pick("zh", None, None) == "zh"
    assert i18n.pick(None, "zh", "en-US") == "zh"
    assert i18n.pick(None, None, "zh-CN,zh;q=0.9,en;q=0.5") == "zh"
    assert i18n.pick("xx", None, "fr") == "en"


# ---- every page renders ---------------------------------------------------------------------------------------
def test_every_page_renders_on_the_sample(sample):
    m, _, _ = sample
    c = client(m)
    for url in _pages(m):
        r = c.get(url)
        assert r.status_code in (200, 302), (url, r.status_code, r.text[:300])
        if url != "/" and not url.startswith("/static"):
            assert "memdir" in r.text and 'rel="stylesheet"' in r.text
            assert "default-src 'self'" in r.headers["content-security-policy"]
            assert r.headers["x-frame-options"] == "DENY"


def test_search_is_recall_ranking_with_readable_reasons(sample):
    m, _, _ = sample
    r = client(m).get("/search", params={"q": "缓存串租户", "k": 5})
    ids = [h.id for h in m.recall("缓存串租户", k=5)]
    assert r.status_code == 200
    shown = [line.split('data-id="')[1].split('"')[0] for line in r.text.splitlines() if 'class="hit" data-id=' in line]
    assert shown == ids
    assert "matched terms" in r.text and "BM25" in r.text and "scope prior" in r.text


def test_search_filters_category_session_date(sample):
    m, _, _ = sample
    c = client(m)
    r = c.get("/search", params={"q": "部署", "category": "rules"})
    assert 'data-id="rules/' in r.text and 'data-id="facts/' not in r.text
    r = c.get("/search", params={"q": "部署", "session": "sample-s3"})
    rows = [line for line in r.text.splitlines() if 'class="hit" data-id=' in line]
    assert rows and all(m.get(x.split('data-id="')[1].split('"')[0]).session == "sample-s3" for x in rows)
    r = c.get("/search", params={"q": "部署", "since": "2026-11-05", "until": "2026-11-05", "kind": "event"})
    for line in r.text.splitlines():
        if 'class="hit" data-id=' in line:
            assert m.get(line.split('data-id="')[1].split('"')[0]).ts.date().isoformat() == "2026-11-05"


def test_redactions_show_as_markers_in_the_timeline(sample):
    m, _, _ = sample
    r = client(m).get("/timeline/session", params={"s": "sample-s1", "scope": "project"})
    assert '<mark class="redacted">[redacted:' in r.text
    assert "hunter" not in r.text.lower() or "[redacted:" in r.text


def test_an_unknown_session_is_a_404_like_every_other_unknown_id(sample):
    m, _, _ = sample
    c = client(m)
    r = c.get("/timeline/session", params={"s": "nope", "scope": "project"})
    assert r.status_code == 404 and "nope" in r.text
    assert c.get("/timeline/session", params={"s": "sample-s1", "scope": "project"}).status_code == 200
    # the page a forget of a session's last turn returns to still says what was done
    assert c.get("/timeline/session", params={"s": "nope", "done": "event_forgotten", "id": "x"}).status_code == 200


# ---- the door -------------------------------------------------------------------------------------------------
def test_loopback_refuses_foreign_host_and_other_origins(sample):
    m, _, _ = sample
    c = client(m)
    assert c.get("/search", headers={"host": "evil.example:8766"}).status_code == 421
    assert c.get("/search", headers={"origin": "http://evil.example"}).status_code == 403
    assert c.get("/search", headers={"sec-fetch-site": "cross-site"}).status_code == 403
    assert c.get("/search", headers={"sec-fetch-site": "same-origin"}).status_code == 200
    note = m.inspect().notes[0]
    # a change needs a same-origin Origin: none, or another one, is refused and nothing happens
    for headers in ({}, {"origin": "http://evil.example"}, {"origin": "http://localhost:9999"}):
        r = c.post(f"/notes/{note.scope}/{note.id}/forget", data={"confirm": "yes"}, headers=headers)
        assert r.status_code == 403
        assert m.get(note.id) is not None
    r = c.post(f"/notes/{note.scope}/{note.id}/forget", data={"confirm": "yes"}, headers={"origin": LOOPBACK})
    assert r.status_code == 303 and m.get(note.id) is None


def test_beyond_loopback_needs_a_token_for_every_page(sample):
    m, _, _ = sample
    from memdir.errors import UsageError
    from memdir.ui import build

    with pytest.raises(UsageError, match="token"):
        build(get=lambda: m, host="0.0.0.0")
    c = client(m, host="0.0.0.0", token=TOKEN, base_url="http://192.0.2.10:8766")
    pages = _pages(m)
    for url in pages:
        assert c.get(url).status_code == 401, url
        assert c.get(url, headers={"authorization": "Bearer wrong-token-0123456789"}).status_code == 401, url
        assert c.get(url, headers={"authorization": f"Bearer {TOKEN}"}).status_code in (200, 302), url
    note = m.inspect().notes[0]
    r = c.post(f"/notes/{note.scope}/{note.id}/forget", data={"confirm": "yes"}, headers={"origin": "http://192.0.2.10:8766"})
    assert r.status_code == 401 and m.get(note.id) is not None
    # another origin is refused even with the token
    r = c.get("/search", headers={"authorization": f"Bearer {TOKEN}", "origin": "http://evil.example"})
    assert r.status_code == 403
    # ?token= logs a browser in: a cookie, and the token leaves the address bar
    r = c.get("/search?q=deploy&token=" + TOKEN)
    assert r.status_code == 303 and r.headers["location"] == "/search?q=deploy"
    assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
    assert c.get("/search?q=deploy").status_code == 200  # the client kept the cookie
    assert c.get("/search?token=nope").status_code == 401


# ---- edits through the facade ----------------------------------------------------------------------------------
def test_bad_edits_are_refused_and_write_nothing(m):
    note = m.remember("部署用 pnpm，不用 npm", category="decisions", tags=["pnpm"])
    before = note.path.read_bytes()
    index_before = (note.path.parent / "index.md").read_bytes()
    src = m.note_source(note.id)
    bad = {
        "invalid YAML": src.replace("tags:", "tags: [unclosed"),
        "pinned must be true or false": src.replace("pinned: false", "pinned: maybe"),
        "id must stay": src.replace(f"id: {note.id}", "id: decisions/other"),
        "not a time": src.replace("created:", "created: yesterday-ish\nx_old_created:"),
        "body is empty": src.split("---\n", 2)[0] + "---\n" + src.split("---\n", 2)[1] + "---\n\n",
        "tags must be a list": src.replace("tags:\n- pnpm", "tags:\n- {a: 1}"),
        "supersedes cannot be changed": src.replace("pinned: false", "pinned: false\nsupersedes: facts/x"),
    }
    for why, text in bad.items():
        with pytest.raises(memdir.UsageError, match=why):
            m.edit(note.id, text)
        assert note.path.read_bytes() == before, why
        assert (note.path.parent / "index.md").read_bytes() == index_before


def test_edit_pin_update_file_index_and_recall(m, clock):
    note = m.remember("部署用 pnpm，不用 npm", category="decisions", tags=["pnpm"])
    src = m.note_source(note.id)
    new = src.replace("summary: 部署用 pnpm，不用 npm", "summary: 前端统一用 pnpm").replace("部署用 pnpm，不用 npm\n", "前端统一用 pnpm，lockfile 是 pnpm-lock.yaml\n")
    edited = m.edit(note.id, new)
    assert edited.summary == "前端统一用 pnpm" and "lockfile" in edited.text
    assert "前端统一用 pnpm" in (note.path.parent / "index.md").read_text(encoding="utf-8")
    assert m.recall("lockfile")[0].id == note.id
    assert m.pin(note.id).pinned and m.get(note.id).pinned
    assert not m.pin(note.id, False).pinned
    with pytest.raises(memdir.NotFound):
        m.edit("decisions/nope", new)


def test_edit_redacts_secrets(m):
    note = m.remember("the staging database lives on db1", category="facts")
    src = m.note_source(note.id) + "password: postgres://app:S3cretPassw0rd@db1/app\n"
    m.edit(note.id, src)
    assert "S3cretPassw0rd" not in note.path.read_text(encoding="utf-8")


# ---- the logs ---------------------------------------------------------------------------------------------------
def test_skips_are_logged_with_reasons_and_bounded(m, monkeypatch):
    m.capture({"role": "user", "text": "部署脚本要先跑 alembic upgrade", "session": "s1"})
    assert m.capture_skips() == []  # the project root did not exist before the first capture: nothing to log into
    m.capture({"role": "user", "text": "好的", "session": "s1"})
    m.capture({"role": "user", "text": "/compact", "session": "s1"})
    m.capture({"role": "tool", "tool": "Read", "input": {"file_path": "x.py"}, "session": "s1"})
    m.capture({"role": "user", "text": "部署脚本要先跑 alembic upgrade", "session": "s1"})  # duplicate: not logged
    reasons = [s["reason"] for s in m.capture_skips(session="s1")]
    assert reasons == ["noisy_tool", "slash_command", "trivial"]
    assert m.capture_skips()[0]["preview"] == "Read"
    monkeypatch.setattr(journal, "SKIPS_KEEP", 3)
    for i in range(5):
        m.capture({"role": "user", "text": "ok", "session": f"x{i}"})
    assert len(m.capture_skips()) == 3


def test_injection_log_after_a_hook_run(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from ui_support import inject_once

    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=home) as m:
        note = m.remember("回滚用 ./scripts/deploy.sh --rollback，记录在 deploys.log", category="facts", tags=["部署", "回滚"])
    out = inject_once(project, home, "怎么回滚部署？")
    sent = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "deploy.sh --rollback" in sent
    with memdir.open(project, home=home) as m:
        rows = m.injections()
        assert len(rows) == 1
        row = rows[0]
        assert row["host"] == "claude-code" and row["event"] == "user-prompt" and row["session"] == "s-live"
        assert row["hit_ids"] == [note.id]
        assert row["block"].startswith("<memory") and row["block"] == sent
        assert row["prompt_sha256"] == journal.prompt_hash("怎么回滚部署？")
        page = client(m).get(f"/injections/{row['scope']}/{row['id']}")
        assert page.status_code == 200
        assert "/event?key=" + quote(note.id, safe="") in page.text.replace("&amp;", "&")
        link = client(m).get("/event", params={"key": note.id})
        assert link.status_code == 302 and link.headers["location"] == f"/notes/project/{quote(note.id)}"


def test_record_injection_never_raises(m):
    m.remember("something to show", category="facts")
    m.roots["project"].close()
    m.roots["project"].db.execute("DROP TABLE injections")
    assert m.record_injection("<memory>\nx\n</memory>", prompt="p") is None
    assert m.record_injection("") is None


def test_hit_ids_from_a_block():
    block = "<memory>\n## Relevant\n[k3f9qa fact 11-01] x\n[7hx2mm] y\n\\[abcdef fact] forged\n</memory>"
    assert journal.hit_ids(block) == ["k3f9qa", "7hx2mm"]


# ---- inside memdir serve ------------------------------------------------------------------------------------------
def test_pages_are_mounted_in_serve(sample):
    m, _, _ = sample
    from starlette.testclient import TestClient

    from memdir.ui import with_pages

    async def other(scope, receive, send):
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b"mcp"})

    app = with_pages(other, get=lambda: m, host="127.0.0.1")
    c = TestClient(app, base_url=LOOPBACK, follow_redirects=False)
    assert c.get("/mcp").status_code == 299
    r = c.get("/ui/search", params={"q": "部署"})
    assert r.status_code == 200 and 'href="/ui/notes"' in r.text and 'href="/ui/static/style.css"' in r.text
    assert c.get("/ui").headers["location"] == "/ui/search"
    assert c.get("/ui/search", headers={"host": "evil.example"}).status_code == 421


def test_serve_app_has_the_pages_behind_its_token(sample, tmp_path):
    pytest.importorskip("mcp")
    m, project, home = sample
    from starlette.testclient import TestClient

    from memdir.cli.serve import http_app
    from memdir.server.mcp import build_server

    server = build_server(project, home=home)
    try:
        c = TestClient(http_app(server, host="0.0.0.0", token=TOKEN), base_url="http://192.0.2.10:8765", follow_redirects=False)
        assert c.get("/ui/search?q=部署").status_code == 401
        assert c.post("/mcp", json={}).status_code == 401
        r = c.get("/ui/search?q=部署", headers={"authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200 and 'class="hit"' in r.text
    finally:
        server.memdir_store.close()


# ---- the CLI mirrors the new API ------------------------------------------------------------------------------------
def test_cli_edit_pin_and_logs(project, tmp_path):
    from click.testing import CliRunner

    from memdir.cli.main import cli

    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        note = m.remember("部署用 pnpm，不用 npm", category="decisions")
        m.capture({"role": "user", "text": "好的", "session": "s9"})
        src = m.note_source(note.id)
    base = ["--dir", str(project), "--home", str(home)]
    r = CliRunner().invoke(cli, [*base, "edit", note.id, "-"], input=src.replace("pinned: false", "pinned: maybe"))
    assert isinstance(r.exception, memdir.UsageError) and "pinned must be true or false" in str(r.exception)
    assert m.note_source(note.id) == src
    r = CliRunner().invoke(cli, [*base, "edit", note.id, "-", "--json"], input=src.replace("不用 npm", "不用 npm 和 yarn"))
    assert r.exit_code == 0 and json.loads(r.output)["note"]["text"].endswith("不用 npm 和 yarn")
    r = CliRunner().invoke(cli, [*base, "pin", note.id, "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["pinned"] is True
    r = CliRunner().invoke(cli, [*base, "log", "skips", "--json"])
    assert r.exit_code == 0 and [x["reason"] for x in json.loads(r.output)] == ["trivial"]
    r = CliRunner().invoke(cli, [*base, "log", "injections"])
    assert r.exit_code == 0 and "no injections logged" in r.output


def test_memdir_ui_command_serves_and_stops(project, tmp_path):
    """`memdir ui --port 0 --no-browser --json` prints its URL once listening, serves the pages, stops on SIGINT."""
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g")}
    proc = subprocess.Popen([sys.executable, "-m", "memdir.cli", "--dir", str(project), "ui", "--port", "0", "--no-browser", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        head = ""
        while not head.rstrip().endswith("}"):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            head += line
        info = json.loads(head)
        assert info["host"] == "127.0.0.1" and info["auth"] == "none" and info["url"].endswith("/search")
        with urllib.request.urlopen(info["url"] + "?q=x", timeout=20) as r:
            assert r.status == 200 and b"memdir" in r.read()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
            raise
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "--dir", str(project), "ui", "--host", "0.0.0.0", "--no-browser"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "token" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_proposals_on_the_health_page(m):
    m.remember("something", category="facts")
    p = m.propose("每次 push 前跑 make test", summary="push 前跑 make test", source="distill")
    c = client(m)
    assert f'data-id="{p["id"]}"' in c.get("/health").text
    r = c.post("/proposals", data={"id": p["id"], "action": "accept"}, headers={"origin": LOOPBACK})
    assert r.status_code == 303 and "done=accepted" in r.headers["location"]
    assert any(n.category == "rules" and n.summary == "push 前跑 make test" for n in m.inspect().notes)
    r = c.post("/proposals", data={"id": p["id"], "action": "reject"}, headers={"origin": LOOPBACK})
    assert r.status_code == 400 and "already accepted" in r.text  # decided once; the reason is shown
    assert c.post("/proposals", data={"id": p["id"], "action": "drop"}, headers={"origin": LOOPBACK}).status_code == 400


def test_supersede_from_the_note_page(m):
    old = m.remember("staging 用 docker compose 起服务", category="decisions", tags=["staging"])
    c = client(m)
    r = c.post(f"/notes/project/{old.id}/supersede", data={"text": "staging 改用 k3s 起服务"}, headers={"origin": LOOPBACK})
    assert r.status_code == 303 and "done=superseded" in r.headers["location"]
    assert m.get(old.id).superseded_by is not None
    new = m.get(m.get(old.id).superseded_by)
    assert new.text == "staging 改用 k3s 起服务" and new.supersedes == old.id and new.tags == ("staging",)
    assert [h.id for h in m.recall("staging 服务")] == [new.id]
    page = c.get(r.headers["location"]).text
    assert "Saved the replacement" in page and quote(old.id) in page
    r = c.post(f"/notes/project/{new.id}/supersede", data={"text": "  "}, headers={"origin": LOOPBACK})
    assert r.status_code == 400 and "empty" in r.text


def test_supersede_of_a_note_forgotten_meanwhile_keeps_the_typed_text(m):
    """The supersede form of a note forgotten after the page was opened (another tab, the CLI) answered a bare 404 page
    and the text typed was lost, where the form's other refusals re-open it with the text and one line saying why.
    It is re-opened the same way here (nothing written), and the line says the note is gone."""
    old = m.remember("staging 用 docker compose 起服务", category="decisions", tags=["staging"])
    c = client(m)
    assert m.forget(old.id)
    typed = "staging 改用 k3s 起服务 <b>bold</b>"
    r = c.post(f"/notes/project/{old.id}/supersede", data={"text": typed}, headers={"origin": LOOPBACK})
    assert r.status_code == 404, r.status_code
    assert 'id="supersede-text"' in r.text and "staging 改用 k3s 起服务 &lt;b&gt;bold&lt;/b&gt;" in r.text, r.text
    assert 'id="refused"' in r.text and old.id in r.text and "forgotten" in r.text
    assert not m.recall("k3s") and not m.inspect().notes
    r = c.post(f"/notes/project/{old.id}/supersede?lang=zh", data={"text": typed}, headers={"origin": LOOPBACK})
    assert r.status_code == 404 and "k3s" in r.text and 'id="refused"' in r.text


def test_ids_cannot_leave_the_root(m, tmp_path):
    m.remember("something to keep", category="facts")
    outside = tmp_path / "secret.md"
    outside.write_text("---\nid: x\n---\nTOP SECRET\n", encoding="utf-8")
    c = client(m)
    for nid in ("../../secret", "facts/../../../secret", "/etc/passwd", "facts/..%2F..%2Fsecret"):
        for suffix in ("", "/edit"):
            r = c.get(f"/notes/project/{nid}{suffix}")
            assert r.status_code in (400, 404) and "TOP SECRET" not in r.text, (nid, suffix, r.status_code)
        r = c.post(f"/notes/project/{nid}/edit", data={"frontmatter": "id: x", "body": "pwned"}, headers={"origin": LOOPBACK})
        assert r.status_code in (400, 404)
    assert outside.read_text(encoding="utf-8").endswith("TOP SECRET\n")
    # a note file that is a link out of the root (a clone can carry one): the edit page showed the target's text
    link = m.roots["project"].path / "facts" / "pw.md"
    link.symlink_to(outside)
    for suffix in ("", "/edit"):
        r = c.get(f"/notes/project/facts/pw{suffix}")
        assert r.status_code in (400, 404) and "TOP SECRET" not in r.text, (suffix, r.status_code)
    r = c.post("/notes/project/facts/pw/edit", data={"frontmatter": "id: facts/pw", "body": "pwned"},
               headers={"origin": LOOPBACK})
    assert r.status_code in (400, 404) and link.is_symlink()
    assert outside.read_text(encoding="utf-8").endswith("TOP SECRET\n")


def test_a_global_hit_in_a_logged_block_links_to_its_note(project, tmp_path):
    home = tmp_path / "h"
    with memdir.open(project, home=home) as m:
        m.remember("project fact so the project root exists", category="facts")
        g = m.remember("回滚一律用 deploy.sh --rollback，不手工切镜像", category="decisions", scope="global", tags=["回滚"])
        block = m.context("怎么回滚？")
        assert m.record_injection(block, prompt="怎么回滚？", host="test") is not None
        row = m.injections()[0]
        assert row["scope"] == "project" and g.id in row["hit_ids"]  # the handle was resolved in the global root
        c = client(m)
        r = c.get(f"/injections/project/{row['id']}")
        href = r.text.split(f'">{g.id}</a>')[0].rsplit('href="', 1)[1].replace("&amp;", "&")
        r = c.get(href)
        assert r.status_code == 302, (href, r.text[-300:])
        assert r.headers["location"] == f"/notes/global/{quote(g.id)}"
        assert c.get(r.headers["location"]).status_code == 200


def test_a_form_over_the_size_limit_gets_the_viewer_s_page(m):
    """A body over 1 MiB got Starlette's bare "Field exceeded maximum size of 1024KB." as text/plain."""
    note = m.remember("a note to edit", category="facts")
    c = client(m)
    r = c.post(f"/notes/project/{note.id}/edit", data={"frontmatter": f"id: {note.id}", "body": "x" * (1024 * 1024 + 10)},
               headers={"origin": LOOPBACK})
    assert r.status_code == 413 and "text/html" in r.headers["content-type"]
    assert "not saved" in r.text and "900,000 bytes" in r.text
    assert "a note to edit" in m.note_source(note.id)


JUNK_HOSTS = ["127.0.0.1:18766@evil.example", "127.0.0.1:18766,evil.example", "127.0.0.1:evil.example",
              "localhost:80 evil.example", "[::1]:80@evil.example", "[::1]evil.example", "127.0.0.1:0x50",
              "127.0.0.1:80:81", "localhost:80/evil.example"]


@pytest.mark.parametrize("host", JUNK_HOSTS)
def test_a_host_with_anything_but_digits_after_its_port_colon_is_refused(sample, host):
    """A loopback name followed by junk after the port (``127.0.0.1:18766@evil.example``) passed the Host check as
    loopback: the port is digits or nothing."""
    m, _, _ = sample
    c = client(m)
    assert c.get("/search", headers={"host": host}).status_code == 421, host
    for ok in ("127.0.0.1:18766", "localhost", "127.0.0.1:", "[::1]:8766", "[::1]", "LOCALHOST:1"):
        assert c.get("/search", headers={"host": ok}).status_code == 200, ok


def test_a_port_of_other_digits_than_ascii_is_no_port():
    from memdir.server.http import host_name, is_loopback

    assert not is_loopback(host_name("127.0.0.1:８０")) and is_loopback(host_name(" 127.0.0.1:80 "))


def test_a_turn_whose_key_holds_a_session_id_of_a_key_s_shape_can_still_be_forgotten(m):
    """Every string a page outputs is redacted; an OpenCode session id (``ses_`` and a random tail) has a key's shape,
    so the session page's links and the forget form's hidden key came out as ``[redacted:api_key]``: the turn could
    be neither opened, edited nor forgotten from the viewer. Ids, keys and links are not texts a person typed."""
    sid = "ses_5c2f1a9e8ffeQk3Lr7Tn2Wb4Yd"
    key = f"t:{sid}:call_8Yq2Zr4Tm1"
    m.import_events([{"key": key, "role": "tool", "text": "Bash: make deploy → staging is green", "session": sid}])
    assert m.get(key) is not None
    c = client(m)
    timeline = c.get("/timeline").text
    assert quote(sid, safe="") in timeline
    page = c.get(f"/timeline/session?s={quote(sid, safe='')}&scope=project")
    assert page.status_code == 200
    assert f'name="key" value="{key}"' in page.text, page.text
    r = c.post("/event/forget", data={"key": key, "scope": "project", "confirm": "yes"},
               headers={"Origin": LOOPBACK})
    assert r.status_code == 303, r.text
    assert m.get(key) is None
