"""DSH (DeepSeek Harness): `memdir install dsh` round trips, the Stop hook's reply from DSH's session log, and the
log reader behind `memdir import dsh`. Fixtures in tests/fixtures/dsh/ are written from the format in
deepseek-harness dsh-0.1.1-rc.2 (session-persistence-jsonl, core/session types): session.jsonl and the same lines
as session.jsonl.zstd (the header in its own frame, then one frame per append batch)."""

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

import memdir
from memdir.hosts.hooks import run_hook
from memdir.hosts.install import install_host
from memdir.hosts.install_dsh import parse_patches
from memdir.portability.importers import dsh as dshlog

FIX = Path(__file__).parent / "fixtures" / "dsh"
SESSION = "5f0c2a9e-7d41-4b8a-9e3c-1a2b3c4d5e6f"
ARGV = ["/opt/memdir/bin/memdir"]
REPLY = "Staging sets statement_timeout to 30s"
HAVE_ZSTD = shutil.which("zstd") is not None
try:
    import zstandard  # noqa: F401
    HAVE_ZSTANDARD = True
except ImportError:
    HAVE_ZSTANDARD = False
needs_zstd = pytest.mark.skipif(not (HAVE_ZSTD or HAVE_ZSTANDARD), reason="no zstd reader (zstandard or zstd)")


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("USERPROFILE", str(h))
    monkeypatch.delenv("DSH_HOME", raising=False)
    return h


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "memdir-backup" not in p.name}


def js_loader():
    class L(yaml.SafeLoader):
        pass
    L.add_multi_constructor("tag:yaml.org,2002:js", lambda loader, suffix, node: {"js": loader.construct_scalar(node)})
    return L


# ---- install ---------------------------------------------------------------------------------------------------
def test_user_install_writes_rows_and_hooks_and_uninstall_restores_bytes(home):
    layer = home / ".dsh" / "cordis.patch.yml"
    layer.parent.mkdir()
    # DSH's own template for a user layer ends in a flow `[]`, which a block list cannot follow
    original = b"# my layer: applied to every profile\n[]\n"
    layer.write_bytes(original)
    os.chmod(layer, 0o600)
    before = tree(home)

    plan = install_host("dsh", argv=ARGV)
    assert {c["action"] for c in plan.changes} == {"created", "updated"}
    rows = yaml.load(layer.read_text(), Loader=js_loader())
    inserted = {r["id"]: r for patch in rows for r in patch["insert"]}
    assert inserted["memdir-mcp"]["name"] == "@deepseek-ai/dsh-mcp-client"
    assert inserted["memdir-mcp"]["config"] == {"serverName": "memdir", "transport": "stdio",
                                                "command": ARGV[0], "args": ["mcp"], "cwd": {"js": "process.cwd()"}}
    hooks_file = home / ".dsh" / "hooks.json"
    assert inserted["memdir-hooks"] == {"id": "memdir-hooks", "name": "@deepseek-ai/dsh-hooks-claude-code",
                                        "config": {"configPath": str(hooks_file)}}
    assert layer.read_text().startswith("# my layer: applied to every profile\n")
    assert stat.S_IMODE(layer.stat().st_mode) == 0o600
    hooks = json.loads(hooks_file.read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert hooks["Stop"] == [{"hooks": [{"type": "command", "command": "/opt/memdir/bin/memdir hook dsh stop",
                                         "timeout": 10}]}]
    assert any("dsh plugin --profile" in n for n in plan.notes)

    again = install_host("dsh", argv=ARGV)
    assert {c["action"] for c in again.changes} == {"unchanged"}

    install_host("dsh", uninstall=True, argv=ARGV)
    assert tree(home) == before  # byte for byte; hooks.json (ours alone) is gone
    assert layer.read_bytes() == original and stat.S_IMODE(layer.stat().st_mode) == 0o600


def test_user_install_appends_to_a_block_list_and_keeps_js_tags(home, monkeypatch):
    dsh_home = home / "elsewhere"
    monkeypatch.setenv("DSH_HOME", str(dsh_home))
    dsh_home.mkdir()
    layer = dsh_home / "cordis.patch.yml"
    original = ("- id: llm-deepseek\n  config:\n    apiKey: !!js process.env.DEEPSEEK_API_KEY\n"
                "- id: session-telemetry-otel\n  disabled: true").encode()  # no newline at the end
    layer.write_bytes(original)
    hooks = dsh_home / "hooks.json"
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
    hooks.write_text(json.dumps(mine, indent=4))  # not json.dumps(indent=2) + newline, as install writes
    hooks_bytes = hooks.read_bytes()
    os.chmod(hooks, 0o600)
    install_host("dsh", argv=ARGV)
    assert stat.S_IMODE(hooks.stat().st_mode) == 0o600
    rows = parse_patches(layer.read_text(), layer)
    assert [r.get("id") for r in rows[:2]] == ["llm-deepseek", "session-telemetry-otel"]
    assert [r["id"] for r in rows[2]["insert"]] == ["memdir-mcp", "memdir-hooks"]
    assert [h["command"] for g in json.loads(hooks.read_text())["hooks"]["Stop"] for h in g["hooks"]] == [
        "notify-send done", "/opt/memdir/bin/memdir hook dsh stop"]
    install_host("dsh", uninstall=True, argv=ARGV)
    assert layer.read_bytes() == original
    assert hooks.read_bytes() == hooks_bytes and stat.S_IMODE(hooks.stat().st_mode) == 0o600


def test_project_install_overlay_and_hooks_file_round_trip(home, project):
    (project / "README.md").write_text("x")
    before = tree(project)
    plan = install_host("dsh", project=project)
    overlay = project / ".dsh" / "memdir.cordis.yml"
    rows = yaml.load(overlay.read_text(), Loader=js_loader())
    inserted = {r["id"]: r for r in rows[0]["insert"]}
    assert inserted["memdir-hooks"]["config"] == {"configPath": "./.claude/hooks.json"}  # resolved from dsh's cwd
    assert inserted["memdir-mcp"]["config"]["command"] == "memdir"  # committed files: memdir from PATH
    hooks = json.loads((project / ".claude" / "hooks.json").read_text())["hooks"]
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"] == "memdir hook dsh user-prompt"
    assert any("--patch .dsh/memdir.cordis.yml" in n for n in plan.notes)
    assert not (home / ".dsh").exists()  # a project install writes nothing of the user's
    install_host("dsh", project=project, uninstall=True)
    assert tree(project) == before and not (project / ".dsh").exists() and not (project / ".claude").exists()


def test_dry_run_writes_nothing_and_bad_yaml_is_never_rewritten(home):
    (home / ".dsh").mkdir()
    layer = home / ".dsh" / "cordis.patch.yml"
    plan = install_host("dsh", argv=ARGV, dry_run=True)
    assert plan.changes and not any((home / ".dsh").iterdir())
    layer.write_text("id: not-a-list\n")
    with pytest.raises(memdir.errors.UsageError):
        install_host("dsh", argv=ARGV)
    assert layer.read_text() == "id: not-a-list\n" and not (home / ".dsh" / "hooks.json").exists()


def test_cli_install_dsh(home, tmp_path):
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-m", "memdir", "install", "dsh", "--dry-run", "--json"], env=env,
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    files = {Path(c["file"]).name for c in json.loads(r.stdout)["changes"]}
    assert files == {"hooks.json", "cordis.patch.yml"}


# ---- the session log --------------------------------------------------------------------------------------------
def test_raw_and_zstd_logs_read_the_same():
    raw = dshlog.read_lines(FIX / "session.jsonl")
    assert dshlog.turn_replies(raw)[0][1].startswith(REPLY)
    if HAVE_ZSTD or HAVE_ZSTANDARD:
        assert dshlog.read_lines(FIX / "session.jsonl.zstd") == raw


@needs_zstd
def test_incomplete_last_frame_keeps_the_frames_before_it():
    data = (FIX / "session.jsonl.zstd").read_bytes()
    lines = dshlog.decompress(data[:-12]).decode().splitlines()
    assert 1 < len(lines) < len(dshlog.read_lines(FIX / "session.jsonl"))


def test_log_path_follows_dsh_layout(tmp_path):
    assert dshlog.project_key("/home/dev/projects/billing") == "--home-dev-projects-billing--"
    assert dshlog.project_key("C:\\Users\\me\\a b") == "--C-Users-me-a~0020b--"
    assert dshlog.project_key("/") == "--root--"
    assert dshlog.segment("a/b~c") == "a~002Fb~007Ec" and dshlog.segment("..") == "~002E~002E"
    d = tmp_path / "--home-dev-projects-billing--" / SESSION
    d.mkdir(parents=True)
    shutil.copy(FIX / "session.jsonl", d / "session.jsonl")
    assert dshlog.log_path(SESSION, "/home/dev/projects/billing", root=tmp_path) == d / "session.jsonl"
    assert dshlog.log_path("other", "/home/dev/projects/billing", root=tmp_path) is None


def test_iter_dsh_events():
    stats = Counter()
    evs = list(dshlog.iter_dsh(FIX / "session.jsonl", stats=stats))
    assert [(e["role"], e["key"]) for e in evs] == [("user", f"import:dsh:{SESSION}:2"),
                                                    ("tool", f"import:dsh:{SESSION}:9"),
                                                    ("assistant", f"import:dsh:{SESSION}:12")]
    assert evs[0]["meta"]["cwd"] == "/home/dev/projects/billing" and evs[0]["ts"].startswith("2026-11-30T00:53:20")
    assert "statement_timeout" in evs[1]["text"] and evs[1]["meta"]["tool"] == "bash"
    assert stats["skipped:injected"] == 1  # the plugin-sourced context is not a prompt


# ---- Stop ----------------------------------------------------------------------------------------------------------
def stop_payload(project: Path, transcript: Path | str = "") -> dict:
    p = json.loads((FIX / "stop.json").read_text())
    return {**p, "cwd": str(project), "transcript_path": str(transcript)}


def replies(project: Path) -> list[str]:
    with memdir.open(project) as m:
        return [e["text"] for e in m.session_events(SESSION) if e.get("role") == "assistant"]


@pytest.mark.parametrize("name", ["session.jsonl", "session.jsonl.zstd"])
def test_stop_captures_the_reply_from_the_log_once(project, tmp_path, name):
    if name.endswith(".zstd") and not (HAVE_ZSTD or HAVE_ZSTANDARD):
        pytest.skip("no zstd reader")
    log = tmp_path / name
    shutil.copy(FIX / name, log)
    for _ in range(2):
        assert run_hook("dsh", "Stop", stop_payload(project, log)) == ""
    got = replies(project)
    assert len(got) == 1 and got[0].startswith(REPLY)


def test_stop_finds_the_log_from_session_and_cwd_and_takes_the_newest_turn(project, home):
    d = home / ".dsh" / "sessions" / dshlog.project_key(str(project)) / SESSION
    d.mkdir(parents=True)
    log = d / "session.jsonl"
    shutil.copy(FIX / "session.jsonl", log)
    run_hook("dsh", "Stop", stop_payload(project))  # transcript_path "": DSH's persistence could not say
    with open(log, "a", encoding="utf-8") as f:
        f.write((FIX / "turn2.jsonl").read_text())
    run_hook("dsh", "Stop", stop_payload(project))
    got = replies(project)
    assert len(got) == 2 and got[0].startswith(REPLY) and got[1].startswith("The index is safer")


def test_stop_waits_once_for_a_reply_not_yet_written(project, tmp_path):
    log = tmp_path / "session.jsonl"
    lines = (FIX / "turn2.jsonl").read_text().splitlines()
    log.write_text((FIX / "session.jsonl").read_text() + "\n".join(lines[:2]) + "\n")  # turn 2 has no reply yet
    t = time.monotonic()
    run_hook("dsh", "Stop", stop_payload(project, log))
    assert time.monotonic() - t < 5
    assert len(replies(project)) == 1  # turn 1's reply; turn 2's comes with the next Stop


@pytest.mark.parametrize("content", [None, b"", b"\x28\xb5\x2f\xfd not a frame", b"{not json\n\xff\xfe"])
def test_stop_never_fails_on_a_missing_or_corrupt_log(project, tmp_path, content):
    log = tmp_path / "session.jsonl.zstd"
    if content is not None:
        log.write_bytes(content)
    t = time.monotonic()
    assert run_hook("dsh", "Stop", stop_payload(project, log)) == ""
    assert time.monotonic() - t < 5
    assert replies(project) == []


def test_stop_without_a_zstd_reader_gives_a_hint_and_no_crash(project, tmp_path, monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # `import zstandard` raises ImportError
    monkeypatch.setattr(dshlog.shutil, "which", lambda name: None)
    log = tmp_path / "session.jsonl.zstd"
    shutil.copy(FIX / "session.jsonl.zstd", log)
    with pytest.raises(dshlog.ZstdUnavailable, match="pip install zstandard"):
        dshlog.read_lines(log)
    with caplog.at_level("DEBUG", logger="memdir.hosts"):
        assert run_hook("dsh", "Stop", stop_payload(project, log)) == ""
    assert replies(project) == [] and "zstandard" in caplog.text


def test_stop_subprocess_answers_and_exits_0(project, tmp_path):
    log = tmp_path / "session.jsonl"
    shutil.copy(FIX / "session.jsonl", log)
    r = subprocess.run([sys.executable, "-m", "memdir", "hook", "dsh", "Stop"],
                       input=json.dumps(stop_payload(project, log)).encode(), capture_output=True, cwd=project,
                       timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0 and r.stdout == b""
    assert replies(project)[0].startswith(REPLY)


# ---- memdir import dsh ----------------------------------------------------------------------------------------------
def dsh_tree(home: Path, project: Path, name: str = "session.jsonl") -> Path:
    d = home / ".dsh" / "sessions" / dshlog.project_key(str(project)) / SESSION
    d.mkdir(parents=True)
    text = (FIX / "session.jsonl").read_text().replace("/home/dev/projects/billing", str(project))
    (d / "session.jsonl").write_text(text)
    if name.endswith(".zstd"):
        subprocess.run(["zstd", "-q", "--rm", str(d / "session.jsonl"), "-o", str(d / name)], check=True)
    return d / name


@pytest.mark.parametrize("name", ["session.jsonl", "session.jsonl.zstd"])
def test_import_dsh_default_location_twice_stores_once(home, project, name):
    if name.endswith(".zstd") and not HAVE_ZSTD:
        pytest.skip("the fixture tree is compressed with the zstd command")
    from memdir.portability.transcripts import import_host

    dsh_tree(home, project, name)
    with memdir.open(project) as m:
        first = import_host(m, "dsh", progress=False)
        again = import_host(m, "dsh", progress=False)
        roles = sorted(e["role"] for e in m.session_events(SESSION))
    assert first["files"] == 1 and first["stored"] == 2 and first["read_by_role"]["tool"] == 1
    assert again["stored"] == 0 and again["duplicate"] == 2
    assert roles == ["assistant", "user"]  # the grep call is a shell tool: the gate keeps it out (noisy_tool)


def test_import_dsh_cli_without_zstd_reader_is_one_line(home, project, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    monkeypatch.setattr(dshlog.shutil, "which", lambda name: None)
    log = project / "session.jsonl.zstd"
    shutil.copy(FIX / "session.jsonl.zstd", log)
    from memdir.portability.transcripts import import_host

    with memdir.open(project) as m, pytest.raises(dshlog.ZstdUnavailable, match="pip install"):
        import_host(m, "dsh", log, progress=False, projects="here")


def test_project_install_warns_when_the_user_layer_has_memdir_rows(home, project):
    install_host("dsh", argv=ARGV)
    plan = install_host("dsh", project=project)
    assert any("already has memdir's rows" in n for n in plan.notes)


def test_doctor_reports_dsh_profiles_without_the_hooks_bridge(home, monkeypatch):
    from memdir.hosts.host_checks import host_checks

    install_host("dsh", argv=[sys.executable, "-m", "memdir"])
    prof = home / ".dsh" / "profiles"
    for name, deps in (("tui", {}), ("web", {"@deepseek-ai/dsh-hooks-claude-code": "^0.1.1-rc.2"})):
        (prof / name).mkdir(parents=True)
        (prof / name / "package.json").write_text(json.dumps({"name": f"dsh-profile-{name}", "dependencies": deps}))
    got = {c["check"]: c for c in host_checks()}
    assert got["dsh user"]["ok"] == "warn" and "tui" in got["dsh user"]["detail"]
    (prof / "tui" / "package.json").write_text(json.dumps({"dependencies": {"@deepseek-ai/dsh-hooks-claude-code": "*"}}))
    monkeypatch.setattr("memdir.hosts.host_checks.shutil.which", lambda name: "/usr/bin/zstd")
    assert {c["check"]: c for c in host_checks()}["dsh user"]["ok"] == "ok"


def test_a_linked_patch_layer_stays_a_link(home, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "dsh.patch.yml"
    dotfiles.parent.mkdir()
    dotfiles.write_bytes(b"[]\n")
    (home / ".dsh").mkdir()
    layer = home / ".dsh" / "cordis.patch.yml"
    layer.symlink_to(dotfiles)
    install_host("dsh", argv=ARGV)
    assert layer.is_symlink() and "memdir-mcp" in dotfiles.read_text()
    install_host("dsh", uninstall=True, argv=ARGV)
    assert layer.is_symlink() and dotfiles.read_bytes() == b"[]\n"


def test_an_empty_patch_layer_of_the_user_is_kept_empty(home):
    (home / ".dsh").mkdir()
    layer = home / ".dsh" / "cordis.patch.yml"
    layer.write_bytes(b"")
    install_host("dsh", argv=ARGV)
    assert "memdir-hooks" in layer.read_text()
    install_host("dsh", uninstall=True, argv=ARGV)
    assert layer.exists() and layer.read_bytes() == b""


def test_install_dry_run_does_not_ask_for_a_package_memdir_already_has(home):
    """zstandard is a dependency of memdir: the dry run's notes named the old optional extra whatever was installed;
    a reader missing (a broken install) is still said."""
    plan = install_host("dsh", argv=ARGV, dry_run=True)
    assert not any("memdir[dsh]" in n or "optional" in n for n in plan.notes), plan.notes
    assert not any("no zstd reader" in n for n in plan.notes)  # zstandard is installed with memdir


# ---- a long session: the Stop hook reads the log's end, not the whole log ----------------------------------------
def _turn_lines(seq: int, prompt: str, reply: str, tool_chars: int) -> list[str]:
    t = 1764464000000 + seq * 1000
    msg = {"type": "user/message", "seq": seq, "time": t,
           "data": {"id": f"u{seq}", "role": "user", "content": [{"type": "text", "text": prompt}], "source": {"kind": "user"}}}
    tool = {"type": "tool/result", "seq": seq + 1, "time": t,
            "data": {"turn": seq, "step": 1, "message": {"content": [{"type": "tool-result", "toolCallId": f"c{seq}",
                                                                       "content": [{"type": "text", "text": os.urandom(tool_chars // 2).hex()}]}]}}}
    ans = {"type": "assistant/message", "seq": seq + 2, "time": t,
           "data": {"turn": seq, "step": 2, "message": {"id": f"a{seq}", "role": "assistant",
                                                        "content": [{"type": "text", "text": reply}], "source": {"kind": "assistant"}}}}
    return [json.dumps(msg), json.dumps(tool), json.dumps(ans)]


def _long_log(path: Path, *, turns: int, last_tool_chars: int = 100) -> Path:
    batches = [[(FIX / "session.jsonl").read_text().splitlines()[0]]]
    for i in range(turns):
        batches.append(_turn_lines(10 + 3 * i, f"question {i} about the deploy", f"answer {i} about the deploy",
                                   20_000 if i < turns - 1 else last_tool_chars))
    if path.name.endswith(".zstd"):
        import zstandard

        c = zstandard.ZstdCompressor()
        path.write_bytes(b"".join(c.compress(("\n".join(b) + "\n").encode()) for b in batches))
    else:
        path.write_text("".join("\n".join(b) + "\n" for b in batches))
    return path


class _Counting:
    def __init__(self, f):
        self.f, self.n = f, 0

    def read(self, *a):
        data = self.f.read(*a)
        self.n += len(data)
        return data

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


@pytest.mark.parametrize("name", ["session.jsonl", "session.jsonl.zstd"])
@pytest.mark.parametrize("last_tool_chars", [100, 1_500_000])  # the newest turn alone may be longer than the end read
def test_the_stop_hook_reads_the_end_of_a_long_log_not_all_of_it(tmp_path, monkeypatch, name, last_tool_chars):
    """A session of hours: its log grows to tens of MB (a .zstd one decompresses to ten times that), and each Stop read
    and decoded all of it, so the hook overran its budget (3.4 s for a 50 MB log, the reply lost at the budget's end)."""
    if name.endswith(".zstd") and not HAVE_ZSTANDARD:
        pytest.skip("needs the zstandard package to write the frames")
    import memdir.fileio as fileio

    log = _long_log(tmp_path / name, turns=600, last_tool_chars=last_tool_chars)
    size = log.stat().st_size
    assert size > 5_000_000
    opened: list[_Counting] = []
    real = fileio.open_regular
    monkeypatch.setattr(fileio, "open_regular", lambda *a, **k: opened.append(_Counting(real(*a, **k))) or opened[-1])
    got = dshlog.recent_replies(log, wait_s=0)
    assert got in (["answer 598 about the deploy", "answer 599 about the deploy"], ["answer 599 about the deploy"])
    read = sum(c.n for c in opened)
    assert read < size // 2, (read, size)


def test_a_long_logs_end_gives_the_replies_the_whole_log_gives(tmp_path):
    log = _long_log(tmp_path / "session.jsonl", turns=200)
    whole = dshlog.turn_replies(dshlog.read_lines(log), limit=2)
    assert [t for _, t in whole] == dshlog.recent_replies(log, wait_s=0)


# ---- the prompt hook on a step that brings only injected text ------------------------------------------------
# DSH's hooks bridge runs UserPromptSubmit on every agent step that has pending messages (``agent/pre-step``): on
# the step after a tool call that is the SessionStart block, which the bridge injected late (detached), so the
# "prompt" is memdir's own block. Answering it with another block put the rules into the request again and again.


def _prompt_payload(project: Path, prompt: str, host: str) -> dict:
    return {"session_id": SESSION, "cwd": str(project), "transcript_path": "", "hook_event_name": "UserPromptSubmit",
            "prompt": prompt}


@pytest.mark.parametrize("host", ["dsh", "claude-code"])
def test_a_prompt_of_injected_blocks_only_gets_no_block(project, tmp_path, host):
    g = str(tmp_path / "g")
    with memdir.open(project, home=g) as m:
        m.remember("Always use pnpm, never npm", category="rules")
        m.remember("Deploys run with make ship from the repo root")
    first = run_hook(host, "user-prompt", _prompt_payload(project, "How do we deploy this service?", host), home=g)
    assert "make ship" in first  # a person's prompt: a block
    block = json.loads(first)["hookSpecificOutput"]["additionalContext"]
    injected = [block, block + "\n\n" + block, "<system-reminder>\nThe date changed.\n</system-reminder>",
                block + "\n<system-reminder>\nx\n</system-reminder>\n"]
    for prompt in injected:
        assert run_hook(host, "user-prompt", _prompt_payload(project, prompt, host), home=g) == "", prompt[:60]


def test_session_start_adds_no_second_copy_of_the_rules(project, tmp_path):
    """DSH runs SessionStart detached: its block lands next to (or after) the first prompt's block, which already
    carries the rules and the outline, so the request held the rules twice."""
    g = str(tmp_path / "g")
    with memdir.open(project, home=g) as m:
        m.remember("Always use pnpm, never npm", category="rules")
    payload = {"session_id": SESSION, "cwd": str(project), "transcript_path": "", "hook_event_name": "SessionStart",
               "source": "startup"}
    assert run_hook("dsh", "session-start", payload, home=g) == ""
    prompt = run_hook("dsh", "user-prompt", _prompt_payload(project, "which package manager?", "dsh"), home=g)
    assert "Always use pnpm, never npm" in prompt
    assert "Always use pnpm" in run_hook("claude-code", "session-start", payload, home=g)  # kept where it stays
