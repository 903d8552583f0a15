"""`memdir hook <host> <event>` end to end: recorded payloads in, host output out, events stored, fail open."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import memdir
from memdir.hosts import adapters
from memdir.hosts.hooks import run_hook

FIX = Path(__file__).parent / "fixtures" / "hooks"
SESSION = "5f1d2c3a-0b1e-4c55-9a27-3e6f0d1b2c4d"


def payload(name: str, project: Path) -> bytes:
    return (FIX / name).read_text(encoding="utf-8").replace("__CWD__", str(project)).encode("utf-8")


def hook(project: Path, host: str, event: str, data: bytes, *extra: str, module: str = "memdir.cli.main", env=None):
    args = [sys.executable, "-m", module] + (["hook"] if module == "memdir.cli.main" else []) + [host, event, *extra]
    return subprocess.run(args, input=data, capture_output=True, cwd=str(project), env=env, timeout=120)


@pytest.fixture
def seeded(project, tmp_path):
    with memdir.open(project) as m:
        m.remember("Always run pnpm, never npm, in this repository.", category="rules")
        m.remember("The staging database listens on port 5433 at staging-db.internal.", category="facts")
        m.remember("预发环境数据库端口是 5433，主机 staging-db.internal。", category="facts", summary="预发数据库端口")
    return project


def events(project):
    with memdir.open(project) as m:
        hits = m.recall("staging database port 5433 nightly backup cron pnpm", k=50, kinds=["event"])
        return {h.key: h for h in hits}


# ---- Claude Code, as a subprocess --------------------------------------------------------------------------
def test_prompt_in_block_out_and_prompt_captured(seeded):
    r = hook(seeded, "claude-code", "user-prompt", payload("claude_user_prompt.json", seeded))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    ctx = out["hookSpecificOutput"]
    assert ctx["hookEventName"] == "UserPromptSubmit"
    block = ctx["additionalContext"]
    assert block.startswith("<memory>") and block.endswith("</memory>")
    assert "5433" in block
    # rules and outline come once per session with SessionStart (the host keeps it): not again per prompt
    assert "pnpm" not in block and "## Rules" not in block and "## Outline" not in block
    assert len(block) <= 1200  # inject.max_chars default
    assert any(k.startswith(f"u:{SESSION}:") for k in events(seeded))


def test_host_event_names_work_too(seeded):
    r = hook(seeded, "claude-code", "UserPromptSubmit", payload("claude_user_prompt.json", seeded))
    assert json.loads(r.stdout)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"


def test_cjk_prompt(seeded):
    r = hook(seeded, "claude-code", "user-prompt", payload("claude_user_prompt_zh.json", seeded))
    block = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "预发环境数据库端口" in block


def test_trivial_prompt_is_not_captured(seeded):
    r = hook(seeded, "claude-code", "user-prompt", payload("claude_user_prompt_trivial.json", seeded))
    assert r.returncode == 0
    with memdir.open(seeded) as m:
        assert m.status()["project"]["events"] == 0


def test_session_start_full_block(seeded):
    r = hook(seeded, "claude-code", "session-start", payload("claude_session_start.json", seeded))
    ctx = json.loads(r.stdout)["hookSpecificOutput"]
    assert ctx["hookEventName"] == "SessionStart"
    assert "## Rules" in ctx["additionalContext"] and "## Outline" in ctx["additionalContext"]


def test_no_block_means_none_at_session_start_too(seeded):
    """``inject.max_chars = 0`` (no block) holds for the session's opening block as ``inject.max_entries = 0`` does;
    the session-start cap alone at 0 does the same."""
    import os

    for var in ("MEMDIR_INJECT_MAX_CHARS", "MEMDIR_HOOK_SESSION_MAX_CHARS"):
        r = hook(seeded, "claude-code", "session-start", payload("claude_session_start.json", seeded),
                 env={**os.environ, var: "0"})
        assert r.returncode == 0
        assert not r.stdout.strip() or "## Rules" not in r.stdout.decode(), (var, r.stdout)


def test_tool_and_stop_events_are_stored(seeded):
    r1 = hook(seeded, "claude-code", "post-tool-use", payload("claude_post_tool_use_bash.json", seeded))
    r2 = hook(seeded, "claude-code", "PostToolUse", payload("claude_post_tool_use_read.json", seeded))
    r3 = hook(seeded, "claude-code", "stop", payload("claude_stop.json", seeded))
    for r in (r1, r2, r3):
        assert r.returncode == 0 and r.stdout == b""
    with memdir.open(seeded) as m:
        tool = m.get(f"t:{SESSION}:toolu_01HkQe7xV1mZ3c9Yb2Rr8sTt")
        assert tool is not None and tool.role == "tool" and tool.text.startswith("Bash: psql -h staging-db.internal")
        assert m.get(f"t:{SESSION}:toolu_01Pq5wE2bN8kXo3Lf6Gh9jUv") is None  # Read is noise
        assert m.status()["project"]["events"] == 2
        assistant = [h for h in m.recall("pointed migrate.sh", kinds=["assistant"])]
        assert assistant and assistant[0].key.startswith(f"a:{SESSION}:")


def _transcript(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(l) + "\n" for l in lines), encoding="utf-8")
    return str(path)


def test_stop_without_last_assistant_message_reads_the_transcript(seeded, tmp_path):
    t = _transcript(tmp_path / "s.jsonl", [
        {"type": "user", "message": {"role": "user", "content": "Where do the backups go?"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "An older reply."}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "And the staging port?"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Checking the config."}, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5433"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Staging listens on port 5433 at staging-db.internal."}]}},
        {"type": "summary", "summary": "not a message"},
    ])
    out = run_hook("claude-code", "stop", {"session_id": "s-t", "cwd": str(seeded), "hook_event_name": "Stop",
                                           "transcript_path": t, "stop_hook_active": False})
    assert out == ""
    with memdir.open(seeded) as m:
        hits = m.recall("staging port 5433 config", kinds=["assistant"])
    assert [h.text for h in hits] == ["Checking the config.\n\nStaging listens on port 5433 at staging-db.internal."]


def test_stop_with_unreadable_transcript_stores_nothing(seeded, tmp_path):
    run_hook("claude-code", "stop", {"session_id": "s-u", "cwd": str(seeded), "transcript_path": str(tmp_path / "nope")})
    with memdir.open(seeded) as m:
        assert m.status()["project"]["events"] == 0


def test_opencode_prompt_builds_block_before_storing_the_prompt(seeded):
    text = "Which port does the staging database listen on? Asked once, never recalled as its own memory."
    p = {"sessionID": "ses_self", "directory": str(seeded), "text": text}
    out = run_hook("opencode", "prompt", p)
    assert out.startswith("<memory>") and "5433" in out and "## Rules" in out  # OpenCode: the whole block
    assert "Asked once" not in out
    again = run_hook("opencode", "context", {**p, "messages": [text]})  # a later request of the same turn
    assert "5433" in again
    with memdir.open(seeded) as m:
        assert m.status()["project"]["events"] == 1


def test_same_payload_twice_stores_once(seeded):
    for _ in range(2):
        hook(seeded, "claude-code", "stop", payload("claude_stop.json", seeded))
    with memdir.open(seeded) as m:
        assert m.status()["project"]["events"] == 1


@pytest.mark.parametrize("data", [None, b"", b"[1, 2]", b"\xff\xfe not json", b'"a string"'])
def test_broken_payload_exit_0_no_output(seeded, data):
    data = payload("broken.json", seeded) if data is None else data
    r = hook(seeded, "claude-code", "user-prompt", data)
    assert (r.returncode, r.stdout) == (0, b"")


@pytest.mark.parametrize("host,event", [("no-such-host", "user-prompt"), ("claude-code", "no-such-event")])
def test_unknown_host_or_event_fails_open(seeded, host, event):
    r = hook(seeded, host, event, payload("claude_user_prompt.json", seeded))
    assert (r.returncode, r.stdout) == (0, b"")


def test_missing_event_fails_open(seeded):
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "hook", "claude-code"], input=b"{}", capture_output=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, b"")


def test_python_m_memdir_hooks_entry(seeded):
    r = hook(seeded, "claude-code", "user-prompt", payload("claude_user_prompt.json", seeded), module="memdir.hosts.hooks")
    assert r.returncode == 0 and "5433" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


def test_budget_overrun_prints_nothing_exit_0(seeded):
    code = ("import sys, threading, memdir.hosts.hooks as h\n"
            "h.run_hook = lambda *a, **k: threading.Event().wait()\n"
            "sys.exit(h.main(['--budget-ms', '200', 'claude-code', 'user-prompt']))\n")
    r = subprocess.run([sys.executable, "-c", code], input=payload("claude_user_prompt.json", seeded),
                       capture_output=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, b"")


def test_block_capped_at_9000_even_with_bigger_budget(seeded, monkeypatch):
    with memdir.open(seeded) as m:
        for i in range(60):
            m.remember(f"Staging database fact {i}: port 5433 " + " ".join(f"replica{i}x{j}" for j in range(60)),
                       category="facts", summary=f"staging db {i}")  # distinct texts: near-duplicates show once
    monkeypatch.setenv("MEMDIR_INJECT_MAX_CHARS", "50000")
    monkeypatch.setenv("MEMDIR_INJECT_MAX_ENTRIES", "100")
    r = hook(seeded, "claude-code", "user-prompt", payload("claude_user_prompt.json", seeded))
    block = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert 1200 < len(block) <= adapters.HOOK_MAX_CHARS


def test_lone_surrogate_emoji_and_cjk_in_payload(seeded):
    data = json.dumps({"session_id": "u1", "cwd": str(seeded), "hook_event_name": "UserPromptSubmit",
                       "prompt": "staging database 端口 🚀 with a lone \ud800 surrogate, which port?"}).encode()
    assert b"\\ud800" in data
    r = hook(seeded, "claude-code", "user-prompt", data)
    assert r.returncode == 0
    json.loads(r.stdout.decode("utf-8"))
    with memdir.open(seeded) as m:
        hits = m.recall("surrogate", kinds=["user"])
    assert hits and "\ufffd" in hits[0].text and "🚀" in hits[0].text


# ---- other hosts (in-process: same code path, faster) ------------------------------------------------------
def test_codex_prompt_and_notify(seeded):
    out = run_hook("codex", "UserPromptSubmit", payload("codex_user_prompt.json", seeded))
    assert "5433" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    r = hook(seeded, "codex", "notify", b"", payload("codex_notify.json", seeded).decode())
    assert (r.returncode, r.stdout) == (0, b"")
    with memdir.open(seeded) as m:
        hits = m.recall("nightly-backup cron 02:30", kinds=["event"])
    got = {(h.kind, h.text) for h in hits}
    assert ("user", "Rename the cron job to nightly-backup and keep the 02:30 schedule.") in got
    assert ("assistant", "Renamed the cron job to nightly-backup; the schedule stays at 02:30 UTC.") in got
    assert [h.kind for h in hits[:2]].count("assistant") == 1  # the notify turn pair ranks first


def test_dsh_bridge_uses_claude_format(seeded):
    out = run_hook("dsh", "UserPromptSubmit", payload("claude_user_prompt.json", seeded))
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert run_hook("dsh", "Stop", {"session_id": "d1", "cwd": str(seeded), "hook_event_name": "Stop"}) == ""


def test_opencode_context_plain_block_and_fallback_capture(seeded):
    out = run_hook("opencode", "context", payload("opencode_context.json", seeded))
    assert out.startswith("<memory>") and "5433" in out
    # the fallback captured both recent user texts; the prompt hook seeing the same text stores nothing new
    again = run_hook("opencode", "prompt", {"sessionID": "ses_5c2f1a9e8ffeQk3Lr7Tn2Wb4Yd", "directory": str(seeded),
                                            "text": "Which port does the staging database listen on?"})
    assert "5433" in again  # the prompt hook also builds the block now (before it stores the prompt)
    run_hook("opencode", "tool", payload("opencode_tool.json", seeded))
    with memdir.open(seeded) as m:
        assert m.status()["project"]["events"] == 3
        assert m.get("t:ses_5c2f1a9e8ffeQk3Lr7Tn2Wb4Yd:call_8Yq2Zr4Tm1") is not None


def test_emit_happens_before_capture(seeded):
    seen = []

    def emit(out):
        with memdir.open(seeded) as m:
            seen.append((bool(out), m.status()["project"]["events"]))

    run_hook("claude-code", "user-prompt", payload("claude_user_prompt.json", seeded), emit=emit)
    assert seen == [(True, 0)]


# ---- adapters ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,expected", [("UserPromptSubmit", "user-prompt"), ("user-prompt", "user-prompt"),
                                           ("SessionStart", "session-start"), ("PostToolUse", "post-tool-use"),
                                           ("tool.execute.after", "post-tool-use"), ("Stop", "stop"),
                                           ("experimental.chat.system.transform", "context"), ("PreCompact", "ignore"),
                                           ("nope", None)])
def test_event_names(name, expected):
    assert adapters.normalize_event(name) == expected


def test_click_group_lists_hosts_and_unknown_host_exit_0():
    from click.testing import CliRunner

    from memdir.cli.main import cli

    runner = CliRunner()
    r = runner.invoke(cli, ["hook", "--help"])
    assert r.exit_code == 0 and "claude-code" in r.output and "opencode" in r.output
    r = runner.invoke(cli, ["hook", "typo-host", "user-prompt"], input="{}")
    assert r.exit_code == 0 and r.output == ""


def test_hook_path_imports_stay_light():
    code = ("import sys, memdir.hosts.hooks, memdir.hosts.adapters, memdir.hosts.adapters.claude_code, memdir.capture.gates\n"
            "bad = [m for m in ('mcp', 'numpy', 'tqdm', 'click') if m in sys.modules]\n"
            "print(','.join(bad))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == ""


def test_debug_log_of_a_failed_hook_holds_no_unredacted_secret(tmp_path, monkeypatch):
    """MEMDIR_DEBUG: a hook that fails with an error quoting the prompt (and its traceback) reaches debug.log
    only through memdir.capture.redact."""
    import io
    import logging

    from memdir.hosts import hooks

    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    prompt = json.dumps({"prompt": f"deploy with token {secret} please", "cwd": str(tmp_path)})

    def boom(host, event, raw, **kw):
        raise ValueError(f"cannot handle payload {raw.decode()}")

    monkeypatch.setenv("MEMDIR_DEBUG", "1")
    monkeypatch.setattr(hooks, "run_hook", boom)
    monkeypatch.setattr(hooks, "_ask_warm", lambda *a, **kw: False)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(prompt.encode())))
    logger = logging.getLogger("memdir")
    before, level = list(logger.handlers), logger.level
    home = tmp_path / "home"
    try:
        assert hooks.execute("claude-code", "user-prompt", home=str(home)) == 0
        for h in logger.handlers:
            h.flush()
    finally:
        for h in [h for h in logger.handlers if h not in before]:
            logger.removeHandler(h)
            h.close()
        logger.setLevel(level)
    text = (home / ".memdir" / "debug.log").read_text(encoding="utf-8")
    assert "failed open" in text and "Traceback" in text and "[redacted:" in text
    assert secret not in text and "a1B2c3D4e5F6" not in text


def test_no_module_imports_a_private_name_of_the_facade():
    """hreview item 4: hooks took ``core._enable_debug_log``; a helper two modules need gets a public name in its
    own module (memdir.debuglog), and nothing reaches into the facade's private names."""
    import ast

    src = Path(memdir.__file__).parent
    bad = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "core":
                bad += [f"{path.name}: {a.name}" for a in node.names if a.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "core" \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                bad.append(f"{path.name}: core.{node.attr}")
    assert bad == []
    from memdir.debuglog import enable_debug_log  # the public home of the debug log

    assert callable(enable_debug_log)


def test_what_goes_wrong_in_the_store_never_reaches_the_host_s_stderr(seeded):
    """A broken note, an unreadable compiled index.md and a damaged index file each make memdir warn on the CLI; in a
    hook those lines reached the host's stderr (hosts show it, or count the hook as failed): the block still comes,
    stderr stays empty."""
    mem = seeded / ".memory"
    (mem / "facts" / "dated.md").write_text("---\ncreated: 2026-02-30\n---\nthe nightly backup runs at 02:00\n",
                                            encoding="utf-8")
    with open(mem / "facts" / "index.md", "ab") as f:
        f.write(b"x\xff")  # an editor that saved it in another encoding
    with memdir.open(seeded) as m:
        m.remember("staging database backups are kept for 30 days", category="facts")  # a compile meets index.md
    r = hook(seeded, "claude-code", "user-prompt", payload("claude_user_prompt.json", seeded))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert "5433" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    db = mem / ".memdir" / "index.sqlite3"
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])  # damaged: set aside and rebuilt from the files
    r = hook(seeded, "claude-code", "user-prompt", payload("claude_user_prompt.json", seeded))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert list((mem / ".memdir").glob("*corrupt*"))  # set aside, as the CLI does
