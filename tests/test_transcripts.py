"""`memdir import <host>`: one gate for hooks and importers (C22), sessions routed to their project by cwd (C23),
Codex command/output pairing, file edits kept as "file + what changed", progress per record on a terminal only."""

from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import memdir
import memdir.capture.gates
import memdir.portability.transcripts
from memdir.cli.main import cli
from memdir.portability.importers import TOOL_SUMMARY_MAX_CHARS, iter_claude_code, iter_codex
from memdir.capture.tools import describe_change, tool_summary
from memdir.portability.transcripts import import_host

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "importers"
TRANSCRIPTS = REPO.parent / "shared" / "data" / "transcripts"
needs_shared = pytest.mark.skipif(
    not TRANSCRIPTS.is_dir(),
    reason=f"real transcripts not found at {TRANSCRIPTS} (the ../shared checkout beside the repo is absent)")


def _fixture(name: str, dest: Path, cwd: Path | str) -> Path:
    """Copy a fixture with ``__CWD__`` replaced by ``cwd`` (the directory the session was recorded in)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text((FIXTURES / name).read_text(encoding="utf-8").replace("__CWD__", str(cwd)), encoding="utf-8")
    return dest


def _events(root: Path, home: Path) -> list[dict]:
    """Every event stored in ``root``'s project store (exported), in time order."""
    out = root.parent / f"{root.name}-export.jsonl"
    with memdir.open(root, home=home) as m:
        m.export(out)
        proj = str(m.roots["project"].path)
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    out.unlink()
    del proj
    return [r for r in rows if r.get("type") == "event"]


def _project(base: Path, name: str) -> Path:
    p = base / name
    (p / ".git").mkdir(parents=True)
    return p


# ---------------------------------------------------------------- one gate (C22)


def test_importers_and_hooks_share_one_gate_function():
    assert memdir.portability.transcripts.gate is memdir.capture.gates.gate
    src = (REPO / "src" / "memdir" / "portability" / "transcripts.py").read_text(encoding="utf-8")
    assert "gate_reason" not in src and "ImportError" not in src


def _exits(tree: ast.Module) -> set[str]:
    """Names of the file's functions that end the process (``sys.exit`` / ``os._exit`` / ``raise SystemExit``), or
    call one that does."""
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out: set[str] = set()
    while True:
        more = {name for name, f in funcs.items() if name not in out and _ends(f, out)}
        if not more:
            return out
        out |= more


def _ends(node: ast.AST, exits: set[str]) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Raise) and isinstance(n.exc, (ast.Call, ast.Name)) and "SystemExit" in ast.dump(n.exc):
            return True
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (f.value.id, f.attr) in (
                    ("sys", "exit"), ("os", "_exit")):
                return True
            if isinstance(f, ast.Name) and f.id in exits:
                return True
    return False


def _guarded_own_imports(path: Path) -> list[str]:
    """``try: <import of memdir / a relative module> except ImportError`` blocks in one file, but for one whose every
    ImportError handler re-raises or ends the process (an entry point whose own files are missing mid-upgrade says so
    and exits: it hides nothing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exits = _exits(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        catches = set()
        for h in node.handlers:
            types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type] if h.type else []
            catches |= {t.id for t in types if isinstance(t, ast.Name)}
        if not catches & {"ImportError", "ModuleNotFoundError"}:
            continue
        import_handlers = [h for h in node.handlers if h.type is not None and {
            t.id for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]) if isinstance(t, ast.Name)}
            & {"ImportError", "ModuleNotFoundError"}]
        if all(_ends(h, exits) for h in import_handlers):
            continue
        reraises = any(isinstance(n, ast.Raise) for h in node.handlers for n in ast.walk(h))
        for stmt in node.body:
            for n in ast.walk(stmt):
                own = (isinstance(n, ast.ImportFrom) and (n.level > 0 or (n.module or "").startswith("memdir"))) or (
                    isinstance(n, ast.Import) and any(a.name.startswith("memdir") for a in n.names))
                dynamic = (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "import_module")
                if own or (dynamic and not reraises):
                    found.append(f"{path.name}:{n.lineno}")
    return found


def test_no_guarded_import_of_our_own_package():
    """A guarded import of our own code hid a missing gate function (issue 9); none may remain."""
    found = [hit for f in sorted((REPO / "src" / "memdir").rglob("*.py")) for hit in _guarded_own_imports(f)]
    assert found == []


def test_c22_import_applies_the_hook_gates(tmp_path):
    proj = _project(tmp_path, "proj")
    home = tmp_path / "home"
    src = _fixture("claude_c22.jsonl", tmp_path / "transcripts" / "s.jsonl", proj)
    with memdir.open(proj, home=home) as m:
        out = import_host(m, "claude-code", src, progress=False)
        # what a hook would be handed for the same turns gets the same verdicts
        hook = [m.capture({"role": "tool", "tool": "Read", "input": {"file_path": str(proj / "src/upload.py")},
                           "output": "1\tline", "session": "h"}),
                m.capture({"role": "tool", "tool": "Grep", "input": {"pattern": "RETRY"}, "output": "x", "session": "h"}),
                m.capture({"role": "tool", "tool": "Glob", "input": {"pattern": "*.toml"}, "output": "x", "session": "h"}),
                m.capture({"role": "user", "text": "continue", "session": "h"}),
                m.capture({"role": "user", "text": "[Request interrupted by user for tool use]", "session": "h"}),
                m.capture({"role": "user", "text": "<command-name>/compact</command-name>", "session": "h"})]
    assert Counter(r.reason for r in hook) == {"noisy_tool": 3, "trivial": 1, "host_injected": 1, "slash_command": 1}
    assert out["skipped_by"] == {"noisy_tool": 3, "trivial": 1, "host_injected": 1, "slash_command": 1}
    assert out["read_by_role"] == {"user": 4, "assistant": 3, "tool": 7}
    assert out["kept_by_role"] == {"user": 1, "assistant": 3, "tool": 4} and out["stored"] == 8
    texts = [e["text"] for e in _events(proj, home)]
    assert len(texts) == 8
    assert not any(t.startswith(("Read:", "Grep:", "Glob:")) or "line 17 of the upload module" in t for t in texts)
    assert "continue" not in texts and not any(t.startswith(("[Request", "<command")) for t in texts)


@needs_shared
@pytest.mark.parametrize("name", ["4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "tool_heavy.jsonl"])
def test_c22_real_claude_code_transcripts(tmp_path, name):
    from test_importers import GATE_KEPT

    proj = _project(tmp_path, "proj")
    with memdir.open(proj, home=tmp_path / "home") as m:
        out = import_host(m, "claude-code", TRANSCRIPTS / "claude-code" / name, projects="here", progress=False)
    assert tuple(out["kept_by_role"][r] for r in ("user", "assistant", "tool")) == GATE_KEPT[name]
    events = _events(proj, tmp_path / "home")
    assert not any(e["text"].startswith(("Read:", "Grep:", "Glob:")) for e in events)
    assert not any(e["text"].strip().lower() == "continue" for e in events)
    assert not any(e["text"].lstrip().startswith(("<task-notification>", "[Request interrupted", "<command-"))
                   for e in events)


# ---------------------------------------------------------------- routing by cwd (C23)


def _claude_session(path: Path, session: str, cwd: str, prompt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    base = {"sessionId": session, "cwd": cwd, "version": "2.1.40", "userType": "external", "isSidechain": False}
    lines = [{**base, "type": "user", "uuid": f"{session}-u", "timestamp": "2026-04-01T10:00:00Z",
              "message": {"role": "user", "content": prompt}},
             {**base, "type": "assistant", "uuid": f"{session}-a", "timestamp": "2026-04-01T10:00:05Z",
              "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": f"Answer about {prompt}"}]}}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def _codex_session(path: Path, session: str, cwd: str, prompt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"timestamp": "2026-04-01T10:00:00Z", "type": "session_meta", "payload": {"id": session, "cwd": cwd}},
             {"timestamp": "2026-04-01T10:00:01Z", "type": "event_msg", "payload": {"type": "user_message", "message": prompt}},
             {"timestamp": "2026-04-01T10:00:02Z", "type": "event_msg",
              "payload": {"type": "agent_message", "message": f"Answer about {prompt}"}}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def _opencode_session(storage: Path, session: str, cwd: str, prompt: str) -> None:
    def put(rel: str, obj: dict) -> None:
        f = storage / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(obj), encoding="utf-8")

    put(f"session/p/{session}.json", {"id": session, "directory": cwd, "time": {"created": 1775037600000}})
    put(f"message/{session}/msg_{session}_1.json", {"id": f"msg_{session}_1", "sessionID": session, "role": "user",
                                                   "time": {"created": 1775037600000}})
    put(f"part/msg_{session}_1/prt_{session}_1.json", {"id": f"prt_{session}_1", "sessionID": session,
                                                      "messageID": f"msg_{session}_1", "type": "text", "text": prompt})
    put(f"message/{session}/msg_{session}_2.json", {"id": f"msg_{session}_2", "sessionID": session, "role": "assistant",
                                                   "time": {"created": 1775037601000}})
    put(f"part/msg_{session}_2/prt_{session}_2.json", {"id": f"prt_{session}_2", "sessionID": session,
                                                      "messageID": f"msg_{session}_2", "type": "text",
                                                      "text": f"Answer about {prompt}"})


def _hosts(tmp_path: Path, a: Path, b: Path) -> dict[str, str]:
    """Default transcript locations of all three hosts under ``tmp_path``, each holding a session recorded in a
    subdirectory of project A, one in project B and one in a directory that no longer exists."""
    claude, codex, data = tmp_path / "claude", tmp_path / "codex", tmp_path / "xdg"
    (a / "src").mkdir()
    sessions = [("a", str(a / "src"), "alpha prompt about the staging deploy"),
                ("b", str(b), "bravo prompt about the invoice export"),
                ("c", str(tmp_path / "deleted-project"), "charlie prompt about a removed checkout")]
    for sid, cwd, prompt in sessions:
        _claude_session(claude / "projects" / f"-{sid}" / f"{sid}0000000-claude.jsonl", f"cc-{sid}", cwd, prompt)
        _codex_session(codex / "sessions" / "2026" / "04" / "01" / f"rollout-2026-04-01T10-00-00-{sid}.jsonl",
                       f"cx-{sid}", cwd, prompt)
        _opencode_session(data / "opencode" / "storage", f"ses_{sid}", cwd, prompt)
    return {"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex), "XDG_DATA_HOME": str(data)}


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode"])
def test_c23_sessions_go_to_the_project_they_were_recorded_in(tmp_path, monkeypatch, host):
    a, b = _project(tmp_path, "alpha"), _project(tmp_path, "bravo")
    home = tmp_path / "home"
    env = {**_hosts(tmp_path, a, b), "MEMDIR_HOME": str(home)}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.chdir(a)
    runner = CliRunner()

    r = runner.invoke(cli, ["import", host, "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["sessions"] == {"imported": 1, "other_project": 1, "cwd_missing": 1, "no_cwd": 0}
    assert out["missing_dirs"] == [str(tmp_path / "deleted-project")]
    assert out["other_projects"] == [str(b)]
    if host != "opencode":  # one session per file: the other sessions' files are not even read
        assert out["lines"] == {"claude-code": 2, "codex": 3}[host]
    texts = [e["text"] for e in _events(a, home)]
    assert sorted(texts) == ["Answer about alpha prompt about the staging deploy", "alpha prompt about the staging deploy"]
    assert not (b / ".memory").exists()  # nothing written into another project without the flag

    r = runner.invoke(cli, ["import", host])
    assert r.exit_code == 0
    assert "no longer exists" in r.stdout and "--all-projects" in r.stdout and str(b) in r.stdout

    r = runner.invoke(cli, ["import", host, "--all-projects", "--json"], catch_exceptions=False)
    out = json.loads(r.stdout)
    assert out["sessions"] == {"imported": 2, "other_project": 0, "cwd_missing": 1, "no_cwd": 0}
    assert out["stored"] == 2 and out["duplicate"] == 2  # A's two events were there already
    assert sorted(e["text"] for e in _events(b, home)) == [
        "Answer about bravo prompt about the invoice export", "bravo prompt about the invoice export"]
    assert len(_events(a, home)) == 2  # nothing of B or of the deleted checkout in A

    r = runner.invoke(cli, ["import", host, "--here", "--json"], catch_exceptions=False)
    out = json.loads(r.stdout)
    assert out["sessions"]["imported"] == 3 and out["stored"] == 4  # B's and the deleted one's, on request
    assert isinstance(runner.invoke(cli, ["import", host, "--here", "--all-projects"]).exception, memdir.UsageError)


def test_opencode_1_18_database_routed_by_session_directory(tmp_path, monkeypatch):
    """A database written by OpenCode 1.18.33 itself (trimmed; see the fixture's header), found at the default
    location: the session's ``directory`` decides the project."""
    import sqlite3

    a, b = _project(tmp_path, "alpha"), _project(tmp_path, "bravo")
    data = tmp_path / "xdg"
    (data / "opencode").mkdir(parents=True)
    con = sqlite3.connect(data / "opencode" / "opencode.db")
    con.executescript((FIXTURES / "opencode_1_18.sql").read_text(encoding="utf-8").replace("__CWD__", str(a)))
    con.commit()
    con.close()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    with memdir.open(b, home=tmp_path / "home") as m:
        out = import_host(m, "opencode", progress=False)
    assert out["sessions"] == {"imported": 0, "other_project": 1, "cwd_missing": 0, "no_cwd": 0}
    with memdir.open(a, home=tmp_path / "home") as m:
        out = import_host(m, "opencode", progress=False)
    assert out["sessions"]["imported"] == 1 and out["stored"] == 3
    assert [e["text"] for e in _events(a, tmp_path / "home")] == [
        '"How do we deploy this service? Check the shell first."', "bash: echo hello → hello",
        "Deployment answer: run make ship from the repo root; the shell said hello."]


def test_import_host_refuses_an_unknown_mode(m, tmp_path):
    f = _fixture("claude_c22.jsonl", tmp_path / "t" / "s.jsonl", m.project_root)
    with pytest.raises(memdir.UsageError):
        import_host(m, "claude-code", f, projects="everywhere", progress=False)


def test_session_without_cwd_is_skipped_unless_here(m, tmp_path):
    f = tmp_path / "t" / "rollout-x.jsonl"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({"timestamp": "2026-04-01T10:00:01Z", "type": "event_msg",
                             "payload": {"type": "user_message", "message": "a prompt that names no directory"}}) + "\n")
    out = import_host(m, "codex", f, progress=False)
    assert out["sessions"]["no_cwd"] == 1 and out["stored"] == 0
    assert import_host(m, "codex", f, projects="here", progress=False)["stored"] == 1


# ---------------------------------------------------------------- Codex: commands and their output, replies


def test_codex_exec_command_paired_with_write_stdin_output(tmp_path):
    f = _fixture("codex_exec.jsonl", tmp_path / "rollout-x.jsonl", "/w")
    stats = Counter()
    events = list(iter_codex(f, stats=stats))
    tools = {e["meta"]["call_id"]: e for e in events if e["role"] == "tool"}
    assert set(tools) == {"call_long", "call_quick", "call_agg", "call_orphan", "call_patch"}
    long = tools["call_long"]
    # the command and every chunk of its output, from two later write_stdin polls that never name it
    assert long["text"] == ("exec_command: make nightly → error (exit 2): step 1/3 compile ok\nstep 2/3 link ok\n"
                            "step 3/3 integration: timeout after 600s waiting for redis")
    assert long["meta"]["exit_code"] == 2 and long["meta"]["is_error"] is True and long["meta"]["stdin_calls"] == 2
    assert tools["call_quick"]["text"] == "exec_command: git log -1 --oneline → a1b2c3d bump cache size"
    assert tools["call_agg"]["text"] == "exec_command: redis-cli ping → PONG"  # exec_command_end's aggregated output
    assert tools["call_orphan"]["text"] == "write_stdin: session 999 input 'y' Enter → confirmed"
    assert stats["skipped:write_stdin_folded"] == 3
    assert not any("still running" in e["text"] for e in events)


def test_codex_input_that_could_not_be_sent_stays_with_its_command(tmp_path):
    """Ctrl-C written to a command whose stdin is closed: the refusal is kept under the command (why it could not be
    stopped) and as a failed call of its own; a failed empty poll still says nothing and is left out."""
    def line(ts, payload, typ="response_item"):
        return json.dumps({"timestamp": f"2026-05-01T10:00:{ts:02d}.000Z", "type": typ, "payload": payload})

    refused = "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true"
    rows = [line(0, {"id": "019e0000-0000-7000-8000-00000000c0df", "cwd": "/w"}, "session_meta"),
            line(1, {"type": "function_call", "name": "exec_command", "call_id": "c1",
                     "arguments": json.dumps({"cmd": "npm run dev"})}),
            line(2, {"type": "function_call_output", "call_id": "c1",
                     "output": "Chunk ID: a\nWall time: 5 seconds\nProcess running with session ID 7\nOutput:\nready on :3000\n"}),
            line(3, {"type": "function_call", "name": "write_stdin", "call_id": "c2",
                     "arguments": json.dumps({"session_id": 7, "chars": "\u0003"})}),
            line(4, {"type": "function_call_output", "call_id": "c2", "output": refused}),
            line(5, {"type": "function_call", "name": "write_stdin", "call_id": "c3",
                     "arguments": json.dumps({"session_id": 7, "chars": ""})}),
            line(6, {"type": "function_call_output", "call_id": "c3", "output": "write_stdin failed: poll refused"})]
    f = tmp_path / "rollout-2026-05-01T10-00-00-x.jsonl"
    f.write_text("\n".join(rows) + "\n", encoding="utf-8")
    tool, stdin = [e for e in iter_codex(f) if e["role"] == "tool"]
    assert tool["text"].startswith("exec_command: npm run dev → ready on :3000\n> input Ctrl-C\n" + refused)
    assert "poll refused" not in tool["text"]
    # and a failed call of its own, naming the command (the gate drops a command that only read a file)
    assert stdin["text"] == "write_stdin: input Ctrl-C to `npm run dev` → error: " + refused
    assert stdin["meta"]["is_error"] and stdin["key"].endswith(":c2")


def test_codex_assistant_messages_from_every_rollout_form(tmp_path):
    f = _fixture("codex_exec.jsonl", tmp_path / "rollout-x.jsonl", "/w")
    replies = [(e["text"], e["meta"]["via"]) for e in iter_codex(f) if e["role"] == "assistant"]
    assert replies == [
        ("The integration step waits 600 s for redis, which is not started in the nightly job.", "response_item"),
        ("Fixed: the nightly job now starts redis before `make nightly`.", "event_msg")]  # once, not twice
    # a rollout whose replies are only response_item messages, next to user_message events
    lines = [line for line in f.read_text().splitlines() if '"agent_message"' not in line]
    g = tmp_path / "rollout-y.jsonl"
    g.write_text("\n".join(lines) + "\n")
    events = list(iter_codex(g))
    assert [e["text"] for e in events if e["role"] == "assistant"] == [t for t, _ in replies]
    assert [e["text"] for e in events if e["role"] == "user"] == ["Why does the nightly build time out?"]


def test_sessions_recorded_by_the_current_hosts(tmp_path):
    """Transcripts written by Claude Code 2.1.197 and Codex 0.171.0 themselves (the issue-9 end-to-end run against a
    stub model; host prose removed): prompt, tool call and reply each come out once, and neither our own injected
    ``<memory>`` block (a Claude Code ``attachment`` line, a Codex ``developer`` message) nor the environment context
    is imported."""
    proj = _project(tmp_path, "proj")
    home = tmp_path / "home"
    cc = _fixture("claude_2_1_197.jsonl", tmp_path / "t" / "919ee6c8-7ca8-49c2-9535-7411bd6721ab.jsonl", proj)
    cx = _fixture("codex_0_171.jsonl", tmp_path / "t" / "rollout-2026-11-30T16-14-23-x.jsonl", proj)
    stats = Counter()
    assert [(e["role"], e["text"]) for e in iter_claude_code(cc, stats=stats)] == [
        ("user", "How do we deploy this service? Check the shell first."), ("tool", "Bash: echo hello → hello"),
        ("assistant", "Deployment answer: run make ship from the repo root; the shell said hello.")]
    assert stats["skipped:attachment"] == 5 and stats["skipped:last-prompt"] == 1 and "skipped:unknown" not in stats
    stats = Counter()
    events = list(iter_codex(cx, stats=stats))
    assert [e["meta"].get("via") for e in events if e["role"] != "tool"] == ["response_item"] * 3
    assert stats["skipped:developer_message"] == 3 and "skipped:unknown" not in stats
    with memdir.open(proj, home=home) as m:
        a = import_host(m, "claude-code", cc, progress=False)
        b = import_host(m, "codex", cx, progress=False)
    assert (a["stored"], a["sessions"]["imported"]) == (3, 1)
    assert b["skipped_by"] == {"host_injected": 1} and b["stored"] == 2 and b["duplicate"] == 1  # same reply twice
    texts = [e["text"] for e in _events(proj, home)]
    assert "What do you remember about deploys? [use-memory-tool]" in texts and "exec_command: echo hello → hello" in texts
    assert not any("<memory>" in t or "environment_context" in t for t in texts)


@needs_shared
def test_codex_real_rollout_has_no_split_command_output(tmp_path):
    f = TRANSCRIPTS / "codex" / "rollout-2026-05-11T11-26-55.jsonl"
    events = list(iter_codex(f))
    tools = [e for e in events if e["role"] == "tool"]
    assert not any("still running in session" in e["text"] for e in tools)
    # the polls are folded into their commands; the one Ctrl-C a closed stdin refused is a failed call of its own
    assert [e["meta"]["is_error"] for e in tools if e["text"].startswith("write_stdin:")] == [True]
    execs = [e for e in tools if e["meta"]["tool"] == "exec_command"]
    assert len(execs) == 43 and all(e["meta"].get("exit_code") is not None for e in execs)
    # empty only where the command printed nothing: `git status --short` on a clean tree, two `rg` without a match
    assert sum("(no output)" in e["text"] for e in execs) == 3
    # the 13 replies arrive once each, also when only the response_item copies are read
    only_items = tmp_path / f.name
    only_items.write_text("".join(x for x in f.open(encoding="utf-8") if '"type":"agent_message"' not in x))
    assert sum(e["role"] == "assistant" for e in iter_codex(only_items)) == 13
    assert sum(e["role"] == "assistant" for e in events) == 13


# ---------------------------------------------------------------- file edits: file + what changed


def test_edit_write_multiedit_apply_patch_summaries():
    assert describe_change("Bash", {"command": "ls"}) is None
    edit = tool_summary("Edit", {"file_path": "/w/src/a.py", "old_string": "x = 1\ny = 2\nz = 3",
                                 "new_string": "x = 1\ny = 20\nz = 3"}, "The file /w/src/a.py has been updated.", cwd="/w")
    assert edit == "Edit: src/a.py (-1 +1 lines)\n- y = 2\n+ y = 20"
    ins = tool_summary("Edit", {"file_path": "/w/a.py", "old_string": "a\nb", "new_string": "a\nnew line\nb"}, "ok")
    assert ins == "Edit: /w/a.py (-0 +1 lines)\n+ new line"
    write = tool_summary("Write", {"file_path": "/w/n.txt", "content": "one\ntwo\n"}, "File created", cwd="/w")
    assert write == "Write: n.txt (2 lines)\none\ntwo"
    multi = tool_summary("MultiEdit", {"file_path": "/w/r.md", "edits": [{"old_string": "a", "new_string": "b"},
                                                                        {"old_string": "c", "new_string": "d"}]}, "ok", cwd="/w")
    assert multi == "MultiEdit: r.md (2 edits)\n- a\n+ b\n- c\n+ d"
    patch = ("*** Begin Patch\n*** Update File: /w/src/b.py\n@@\n ctx\n-old\n+new\n*** Add File: docs/x.md\n+# X\n"
             "*** Delete File: tmp.txt\n*** End Patch")
    assert tool_summary("apply_patch", patch, '{"output": "Success"}', cwd="/w") == (
        "apply_patch: Update src/b.py, Add docs/x.md, Delete tmp.txt\nUpdate src/b.py\n- old\n+ new\nAdd docs/x.md\n"
        "+ # X\nDelete tmp.txt")
    assert tool_summary("apply_patch", json.dumps({"input": patch}), None).endswith("→ (no result)")
    failed = tool_summary("Edit", {"file_path": "a", "old_string": "p", "new_string": "q"},
                          "String to replace not found in file.", is_error=True)
    assert failed.endswith("→ error: String to replace not found in file.")
    assert tool_summary("patch", {"patchText": "*** Begin Patch\n*** Update File: a.py\n-x\n+y\n*** End Patch"},
                        "ok") == "patch: Update a.py\n- x\n+ y"  # OpenCode's patch tool
    # OpenCode's camelCase arguments
    assert tool_summary("edit", {"filePath": "/w/c.ts", "oldString": "let a", "newString": "const a"}, "",
                        cwd="/w") == "edit: c.ts (-1 +1 lines)\n- let a\n+ const a"


def test_change_summaries_are_bounded():
    big_old = "\n".join(f"old line {i} " + "x" * 300 for i in range(400))
    big_new = "\n".join(f"new line {i}" for i in range(400))
    text = tool_summary("Edit", {"file_path": "f.py", "old_string": big_old, "new_string": big_new}, "ok")
    assert len(text) <= TOOL_SUMMARY_MAX_CHARS and "(-400 +400 lines)" in text
    lines = text.splitlines()
    assert lines[-1] == "… (-396 +392 more lines)" and max(len(x) for x in lines) <= 142
    assert sum(x.startswith("+ new line") for x in lines) == 8 and sum(x.startswith("- old line") for x in lines) == 4


def test_edits_are_stored_redacted_and_hooks_summarise_them_the_same_way(tmp_path):
    proj = _project(tmp_path, "proj")
    home = tmp_path / "home"
    src = _fixture("claude_c22.jsonl", tmp_path / "t" / "s.jsonl", proj)
    by_id = {e["meta"].get("tool_use_id"): e for e in iter_claude_code(src)}
    with memdir.open(proj, home=home) as m:
        import_host(m, "claude-code", src, progress=False)
        # the hook's PostToolUse for the same Edit builds the same text (one summary function)
        hook = m.capture({"role": "tool", "tool": "Edit", "input": json.loads(src.read_text().splitlines()[5])["message"]
                          ["content"][1]["input"], "output": "The file has been updated successfully.",
                          "session": "other", "cwd": str(proj)})
    assert hook.reason == "duplicate" and hook.text == by_id["toolu_edit"]["text"]
    stored = {e["text"].split(":", 1)[0]: e["text"] for e in _events(proj, home) if e["role"] == "tool"}
    assert stored["Edit"] == "Edit: src/upload.py (-1 +1 lines)\n- RETRY_LIMIT = 3\n+ RETRY_LIMIT = 5  # raised after the flaky CDN week"
    assert stored["Write"].startswith("Write: config/client.toml (3 lines)") and "retries = 5" in stored["Write"]
    assert "ghp_A1b2" not in stored["Write"]  # redacted on the way in
    assert stored["MultiEdit"].startswith("MultiEdit: README.md (2 edits)\n- Uploads retry 3 times.")


def test_hook_and_import_store_an_edit_identically(tmp_path):
    """A PostToolUse hook for an Edit and the import of the same call store one text (the second is a duplicate)."""
    from memdir.hosts.hooks import run_hook

    proj = _project(tmp_path, "proj")
    home = tmp_path / "home"
    src = _fixture("claude_c22.jsonl", tmp_path / "t" / "s.jsonl", proj)
    line = json.loads(src.read_text().splitlines()[5])
    payload = {"session_id": line["sessionId"], "cwd": str(proj), "hook_event_name": "PostToolUse", "tool_name": "Edit",
               "tool_input": line["message"]["content"][1]["input"], "tool_use_id": "toolu_edit",
               "tool_response": {"filePath": str(proj / "src/upload.py"), "structuredPatch": []}}
    run_hook("claude-code", "post-tool-use", payload, home=str(home))
    with memdir.open(proj, home=home) as m:
        out = import_host(m, "claude-code", src, progress=False)
    edits = [e["text"] for e in _events(proj, home) if e["text"].startswith("Edit:")]
    assert edits == ["Edit: src/upload.py (-1 +1 lines)\n- RETRY_LIMIT = 3\n+ RETRY_LIMIT = 5  # raised after the flaky CDN week"]
    assert out["duplicate"] == 1


@needs_shared
def test_real_edits_and_patches_keep_what_changed():
    edits = [e for f in sorted((TRANSCRIPTS / "claude-code").glob("*.jsonl")) for e in iter_claude_code(f)
             if e["meta"].get("tool") in ("Edit", "Write", "MultiEdit")]
    assert len(edits) == 89  # `jq` count of Edit (67) + Write (22) tool_use blocks
    assert all(len(e["text"]) <= TOOL_SUMMARY_MAX_CHARS for e in edits)
    assert all("has been updated successfully" not in e["text"] for e in edits)
    plain = [e for e in edits if e["meta"]["tool"] == "Edit"]
    assert all("\n+ " in e["text"] or "\n- " in e["text"] for e in plain)
    assert sum("\n+ " in e["text"] for e in plain) >= 60  # what was written, not only what was removed
    patches = [e for e in iter_codex(TRANSCRIPTS / "codex" / "rollout-2026-05-11T11-26-55.jsonl")
               if e["meta"].get("tool") == "apply_patch"]
    assert len(patches) == 3 and all("\n+ " in p["text"] for p in patches)


# ---------------------------------------------------------------- progress: per record, terminal only


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_per_record_on_a_terminal_only(m, tmp_path, monkeypatch):
    f = _fixture("claude_c22.jsonl", tmp_path / "t" / "s.jsonl", m.project_root)
    updates: list[int] = []

    class Bar:
        def __init__(self, *a, **k):
            pass

        def update(self, n):
            updates.append(n)

        def set_postfix_str(self, *a, **k):
            pass

        def close(self):
            pass

    monkeypatch.setattr(memdir.portability.transcripts, "_bar", lambda source, files, stream: Bar())
    import_host(m, "claude-code", f, progress=True, stream=io.StringIO())  # not a terminal: no bar at all
    assert updates == []
    import_host(m, "claude-code", f, progress=True, stream=_TTY())
    n_lines = len(f.read_text().splitlines())
    assert sum(updates) == n_lines and len(updates) >= 14  # a step per record read (14 events), not per file
    monkeypatch.undo()
    tty = _TTY()
    import_host(m, "claude-code", f, progress=True, stream=tty)  # the real bar draws on the given stream
    assert "import claude-code" in tty.getvalue()


def test_json_output_is_never_mixed_with_progress(tmp_path):
    proj = _project(tmp_path, "proj")
    f = _fixture("claude_c22.jsonl", tmp_path / "t" / "s.jsonl", proj)
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "home")}
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "import", "claude-code", str(f), "--json"], cwd=proj,
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["stored"] == 8 and r.stderr == ""
