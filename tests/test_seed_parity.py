"""Seed parity: behaviours the seed designs promise (seed 000: Markdown memory dir, pinned notes, `.state.json`;
seed 001: prune with a confirmation token; seed 004: OpenCode local-memory, its noisy tools and drop-file import)
that memdir had missed. One section per fix."""

from __future__ import annotations

from stub_model import StubModel, memories

import memdir


def _open_distill(project, tmp_path, clock, stub):
    conf = {"distill.provider": "openai", "distill.url": stub.url, "distill.model": "stub-1", "distill.timeout_s": 5.0}
    return memdir.open(project, home=tmp_path / "g", clock=clock, config=conf)


def _session(m, sid="s1", n=4):
    text = "We decided to deploy with pnpm because the npm lockfile broke CI"
    evs = []
    for i in range(n):
        evs.append({"key": f"u:{sid}:{i}", "role": "user", "text": f"turn {i} of {sid}: {text} ({i})", "session": sid,
                    "ts": f"2026-10-01T10:{i:02d}:00Z"})
        evs.append({"key": f"a:{sid}:{i}", "role": "assistant", "text": f"Noted point {i} of {sid} about {text}.",
                    "session": sid, "ts": f"2026-10-01T10:{i:02d}:30Z"})
    return m.import_events(evs)


# ---- 1. distillation never supersedes a pinned note ---------------------------------------------------------
def test_distill_proposes_instead_of_superseding_a_pinned_note(project, tmp_path, clock):
    with StubModel() as stub, _open_distill(project, tmp_path, clock, stub) as m:
        pinned = m.remember("Deploys use pnpm: the npm lockfile broke CI twice.", category="decisions",
                            summary="Deploy with pnpm, not npm", pinned=True)
        loose = m.remember("The CI machine has two cores and 24 GiB of memory.", category="facts",
                           summary="CI machine size")
        _session(m)
        stub.replies.append(memories(
            {"category": "decisions", "summary": "Deploy with bun, not pnpm",
             "body": "Deploys now use bun: pnpm was too slow on CI.", "supersedes": pinned.id},
            {"category": "facts", "summary": "CI machine has four cores",
             "body": "The CI machine was upgraded to four cores and 32 GiB.", "supersedes": loose.id},
        ))
        out = m.distill()
        # the pinned note stays live; its replacement is a pending proposal in its own category
        assert m.get(pinned.id).superseded_by is None
        assert [p["supersedes"] for p in out["proposals"]] == [pinned.id]
        assert "pinned" in out["proposals"][0]["reason"]
        (prop,) = m.proposals()
        assert prop["category"] == "decisions" and prop["supersedes"] == pinned.id and prop["source"] == "distill"
        # an unpinned note is still superseded as before
        assert out["superseded"] == [{"id": loose.id, "by": out["notes"][0]["id"]}]
        # a person accepting the proposal does supersede the pinned note
        note = m.accept_proposal(prop["id"])
        assert note.category == "decisions" and m.get(pinned.id).superseded_by == note.id


# ---- 2. migrate from a seed 000 directory: idempotent, hit counts carried --------------------------------------
def _seed000(tmp_path):
    import json

    md = tmp_path / "seed000" / "memory"
    (md / "decisions").mkdir(parents=True)
    (md / "ROOT.md").write_text("# ROOT\n", encoding="utf-8")
    (md / "decisions" / "use-npm.md").write_text(
        "---\nid: decisions/use-npm\nkind: decision\nsummary: use npm\nsuperseded_by: decisions/use-pnpm\n---\n"
        "We use npm for installs.\n", encoding="utf-8")
    (md / "decisions" / "use-pnpm.md").write_text(
        "---\nid: decisions/use-pnpm\nkind: decision\nsummary: use pnpm\nsupersedes: decisions/use-npm\n---\n"
        "We use pnpm for installs now: the npm lockfile broke CI.\n", encoding="utf-8")
    (md / ".state.json").write_text(json.dumps({"hits": {"decisions/use-pnpm.md": {"hits": 7, "lastHit": 1791512014824},
                                                         "decisions/gone": 3}}), encoding="utf-8")
    return md


def test_migrate_seed000_twice_duplicates_nothing(m, tmp_path):
    md = _seed000(tmp_path)
    first = m.migrate(from_path=md)["sources"][0]["result"]
    assert first["notes_new"] == 2
    for _ in range(2):
        again = m.migrate(from_path=md)["sources"][0]["result"]
        assert again.get("notes_new", 0) == 0 and again["notes_existing"] == 2
    files = sorted(p.name for p in (m.project_root / ".memory" / "decisions").glob("*.md") if p.name != "index.md")
    assert files == ["use-npm.md", "use-pnpm.md"]
    assert m.get("decisions/use-npm").superseded_by == "decisions/use-pnpm"
    assert m.inspect().counts["project"]["superseded"] == 1


def test_migrate_seed000_carries_state_json_hit_counts(m, tmp_path):
    md = _seed000(tmp_path)
    res = m.migrate(from_path=md)["sources"][0]
    assert res["found"]["hit_counts"] == 2 and res["result"]["hits_carried"] == 1
    rows = {r["ref"]: r for r in m.roots["project"].store.tier_rows()}
    hot = rows["decisions/use-pnpm"]
    assert hot["rcount"] == 7 and hot["rlast"].startswith("2026-")
    assert hot["heat0"] > rows["decisions/use-npm"]["heat0"]  # the sweep turned the hits into heat
    # a re-run adds no hits twice
    assert m.migrate(from_path=md)["sources"][0]["result"]["hits_carried"] == 0
    assert {r["ref"]: r["rcount"] for r in m.roots["project"].store.tier_rows()}["decisions/use-pnpm"] == 7


# ---- 3. `memdir forget --id X` -----------------------------------------------------------------------------
def test_cli_forget_by_id_option_for_a_note_an_event_and_a_handle(project, tmp_path, capsys):
    from conftest import run_cli

    base = ("--dir", str(project), "--home", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember("Deploys use pnpm: the npm lockfile broke CI twice.", category="decisions")
        m.import_events([{"key": "u:s1:1", "role": "user", "text": "how do we rotate the staging database password?",
                          "session": "s1", "ts": "2026-10-01T10:00:00Z"},
                         {"key": "u:s1:2", "role": "user", "text": "the kafka consumer lags after midnight again",
                          "session": "s1", "ts": "2026-10-01T10:01:00Z"}])
        handle = next(h.handle for h in m.recall("kafka consumer lags") if h.id == "u:s1:2")
    code, out, err = run_cli(capsys, *base, "forget", "--id", note.id)
    assert code == 0 and f"forgot {note.id}" in out
    code, out, err = run_cli(capsys, *base, "forget", "--id", "u:s1:1")
    assert code == 0 and "forgot u:s1:1" in out
    code, out, err = run_cli(capsys, *base, "--json", "forget", "--id", handle)
    assert code == 0 and '"ref": "u:s1:2"' in out
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.get(note.id) is None and m.get("u:s1:1") is None and m.get("u:s1:2") is None
    # an unknown id: one line, exit 1; the id twice (argument and --id): a usage error
    code, out, err = run_cli(capsys, *base, "forget", "--id", "facts/no-such-note")
    assert code == 1 and err.strip().count("\n") == 0 and "no memory with id 'facts/no-such-note'" in err
    code, out, err = run_cli(capsys, *base, "forget", "a/b", "--id", "c/d")
    assert code == 2 and err.strip().count("\n") == 0 and "not both" in err


# ---- 4. MCP memory_prune: force with the token flow ---------------------------------------------------------
def test_mcp_prune_force_previews_then_deletes_with_the_token(tmp_path):
    import pytest

    pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")
    import anyio
    from datetime import datetime, timedelta, timezone

    from conftest import Clock
    from mcp import Client

    from memdir.server.mcp import build_server

    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    clock = Clock(t0)
    (tmp_path / "p" / ".git").mkdir(parents=True)
    m = memdir.open(tmp_path / "p", home=tmp_path / "h", clock=clock)
    m.import_events([{"key": f"old{i}", "text": f"old chatter number {i}", "ts": t0} for i in range(3)])
    clock.now = t0 + timedelta(days=200, minutes=5)
    m.import_events([{"key": "new", "text": "fresh memory", "ts": clock.now}])

    async def scenario():
        async with Client(build_server(memdir=m)) as c:
            tool = next(t for t in (await c.list_tools()).tools if t.name == "memory_prune")
            assert "force" in tool.input_schema["properties"]
            # force alone: the preview with its token, nothing deleted
            pre = (await c.call_tool("memory_prune", {"days": 90, "force": True})).structured_content
            assert pre["acted"] is False and pre["count"] == 3 and pre["confirm_token"]
            assert "force=true" in pre["message"] and pre["confirm_token"] in pre["message"]
            assert m.get("old0") is not None
            # force with a wrong token: refused, one line
            bad = await c.call_tool("memory_prune", {"days": 90, "force": True, "confirm_token": "0000000000"})
            assert bad.is_error and "\n" not in bad.content[0].text and m.get("old0") is not None
            # the second call: the token and force
            done = (await c.call_tool("memory_prune", {"days": 90, "force": True,
                                                       "confirm_token": pre["confirm_token"]})).structured_content
            assert done["acted"] is True and done["deleted"] == 3

    try:
        anyio.run(scenario)
        assert m.get("old0") is None and m.get("new") is not None
    finally:
        m.close()


# ---- 5. claude-mem: each row into the project it names; persona_memory as global notes -------------------------
def _claude_mem(path):
    import sqlite3

    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE sdk_sessions(id INTEGER PRIMARY KEY, content_session_id TEXT, memory_session_id TEXT, project TEXT);
        CREATE TABLE user_prompts(id INTEGER PRIMARY KEY, content_session_id TEXT, prompt_number INTEGER,
          prompt_text TEXT, created_at_epoch INTEGER);
        CREATE TABLE observations(id INTEGER PRIMARY KEY, memory_session_id TEXT, project TEXT, type TEXT, title TEXT,
          narrative TEXT, created_at_epoch INTEGER);
        CREATE TABLE persona_memory(id INTEGER PRIMARY KEY, key TEXT, content TEXT, created_at_epoch INTEGER);
        INSERT INTO sdk_sessions VALUES (1, 'c-web', 'm-web', 'web'), (2, 'c-api', 'm-api', 'api'), (3, 'c-x', 'm-x', 'ghost');
        INSERT INTO user_prompts VALUES (1, 'c-web', 1, 'why does the websocket drop after 60 seconds?', 1772355600000),
          (2, 'c-api', 1, 'how do we paginate the invoices endpoint?', 1772355601000),
          (3, 'c-x', 1, 'rename the ghost service to phantom everywhere', 1772355602000);
        INSERT INTO observations VALUES (1, 'm-web', 'web', 'discovery', 'nginx proxy_read_timeout is 60s',
          'raised proxy_read_timeout to 3600s for the websocket route', 1772355603000),
          (2, 'm-api', 'api', 'decision', 'invoices use cursor pagination',
          'cursor pagination on created_at and id, page size 100', 1772355604000);
        INSERT INTO persona_memory VALUES (1, 'editor', 'The user prefers vim keybindings in every editor.', 1772355605000),
          (2, 'language', 'The user writes commit messages in English, chats in Chinese.', 1772355606000),
          (3, 'empty', '   ', 1772355607000);
    """)
    db.commit()
    db.close()
    return path


def test_claude_mem_rows_go_to_the_project_they_name(tmp_path):
    from memdir.portability.importers.claude_mem import import_claude_mem

    web, api = tmp_path / "code" / "web", tmp_path / "code" / "api"
    for p in (web, api):
        (p / ".git").mkdir(parents=True)
    db = _claude_mem(tmp_path / "claude-mem.db")
    home = tmp_path / "g"
    with memdir.open(web, home=home) as m:
        out = import_claude_mem(m, db)  # default: this project's rows only
        assert out["stored"] == 2 and out["other_projects"] == {"api": "other_project", "ghost": "other_project"}
        assert out["skipped_by"]["other_project"] == 3
        assert m.get("import:claude-mem:p:1") is not None and m.get("import:claude-mem:o:1") is not None
        assert m.get("import:claude-mem:p:2") is None and m.get("import:claude-mem:o:2") is None
        out = import_claude_mem(m, db, projects="all")  # each into its own project; "ghost" exists nowhere
        assert out["stored"] == 2 and out["duplicate"] == 2 and out["projects"][str(api)] == 2
        assert out["other_projects"] == {"ghost": "other_project"}
        assert m.get("import:claude-mem:p:2") is None
    with memdir.open(api, home=home) as a:
        assert a.get("import:claude-mem:p:2") is not None and a.get("import:claude-mem:o:2") is not None
        assert a.get("import:claude-mem:p:1") is None


def test_claude_mem_persona_rows_become_global_preference_notes(tmp_path):
    from memdir.portability.importers.claude_mem import import_claude_mem

    web = tmp_path / "web"
    (web / ".git").mkdir(parents=True)
    db = _claude_mem(tmp_path / "claude-mem.db")
    with memdir.open(web, home=tmp_path / "g") as m:
        out = import_claude_mem(m, db)
        assert out["notes"] == 2 and out["tables"]["persona_memory"] == 2
        notes = [m.get(i, scope="global") for i in out["persona_notes"]]
        assert {n.category for n in notes} == {"preferences"} and {n.scope for n in notes} == {"global"}
        assert "vim keybindings" in notes[0].text and "persona" in notes[0].tags
        again = import_claude_mem(m, db)
        assert again["notes"] == 0 and again["notes_existing"] == 2  # a re-run writes no note twice
        assert m.forget_source("claude-mem")["forgotten"]  # the batch can be undone


# ---- 6. drop files: each record into the project it names --------------------------------------------------
def test_drop_file_records_land_in_the_project_they_name(tmp_path, monkeypatch):
    import json
    import subprocess

    from memdir.portability import dropimport

    web, api = tmp_path / "code" / "web", tmp_path / "code" / "api"
    for p in (web, api):
        (p / ".git").mkdir(parents=True)
    home = tmp_path / "g"
    (home / "import").mkdir(parents=True)
    f = home / "import" / "export.jsonl"
    rows = [{"id": "w1", "text": "the web app builds with vite and deploys to the cdn", "project": str(web)},
            {"id": "a1", "text": "the api paginates invoices with a cursor on created_at", "project": "api"},
            {"id": "x1", "text": "the billing worker retries webhooks three times", "project": "billing"}]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    # the api project's hook runs first: each record still goes to the project it names
    with memdir.open(api, home=home) as a:
        out = a.import_pending()["files"][0]
        assert out["projects"] == {str(web): 1, str(api): 1} and out["waiting_for"] == ["billing"]
        assert a.get("import:export:a1") is not None and a.get("import:export:w1") is None
    with memdir.open(web, home=home) as w:
        assert w.get("import:export:w1") is not None and w.get("import:export:a1") is None
    assert f.exists()  # the billing record waits for its project
    # other projects' hooks start no importer for it; the billing project's does
    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append(args))
    assert dropimport.spawn_if_pending(home, web) is False and not started
    billing = tmp_path / "code" / "billing"
    (billing / ".git").mkdir(parents=True)
    assert dropimport.spawn_if_pending(home, billing) is True
    monkeypatch.undo()
    with memdir.open(billing, home=home) as b:
        out = b.import_pending()["files"][0]
        assert out["stored"] == 1 and out["duplicate"] == 2 and out["done_as"].startswith("export.jsonl.done-")
        assert b.get("import:export:x1") is not None
    assert not f.exists() and not (home / "import" / ".export.jsonl.waiting").exists()


# ---- 7. OpenCode's `execute` is a shell tool for the capture gates ----------------------------------------------
def test_execute_tool_is_gated_like_bash(m):
    from memdir.capture.gates import gate

    for command, kept in (("cat src/app.py", False), ("cd src && rg -n deploy . | head", False),
                          ("sed -n '1,80p' README.md", False), ("make test", True),
                          ("pnpm deploy --prod", True), ("sed -i s/a/b/ x.py", True)):
        for tool in ("bash", "execute"):
            ev = {"role": "tool", "tool": tool, "input": {"command": command}, "output": "done: 3 files\nok",
                  "session": "s1", "call_id": f"{tool}-{command}"}
            d = gate(ev, m.config)
            assert d.keep is kept, (tool, command, d.reason)
            if not kept:
                assert d.reason == "noisy_tool"
    # and through live capture, as the OpenCode hook sends it
    read = m.capture({"role": "tool", "tool": "execute", "input": {"command": "nl -ba src/app.py"},
                      "output": "1 import os", "session": "s2", "call_id": "c1", "source": "opencode"})
    run = m.capture({"role": "tool", "tool": "execute", "input": {"command": "pnpm test"},
                     "output": "12 passed", "session": "s2", "call_id": "c2", "source": "opencode"})
    assert not read.stored and read.reason == "noisy_tool" and run.stored
