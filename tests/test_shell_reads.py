"""A shell tool that only reads files (Codex's ``exec_command`` with ``sed -n``/``cat``/``nl``/``rg``, a ``Bash``
call from a Codex or Claude Code hook) is gated as Claude Code's Read/Grep/Glob tools are: ``noisy_tool``, by the
one gate function hooks and importers share (DESIGN.md). Before, those file dumps were stored and filled block slots."""

from __future__ import annotations

import json

import pytest

import memdir
from memdir.capture.gates import gate, is_shell_read, shell_command
from memdir.config import Config

from conftest import shared_path


@pytest.mark.parametrize("cmd", [
    "sed -n '1,180p' /Users/Sample_User/.codex/plugins/cache/skills/SKILL.md",
    "sed -n '70,150p' src/a.ts && sed -n '1,220p' src/b.ts",
    "nl -ba src/agents/plugins/opencode/opencode.plugin.ts | sed -n '104,120p'",
    "cat package.json", "head -n 40 README.md", "rg -n \"compact|context\" src tests",
    "rg --files node_modules | rg 'opencode'", "find node_modules/x -maxdepth 3 -type f | sed -n '1,80p'",
    "ls -la src", "cd src && grep -rn foo . 2>/dev/null | head", "git grep -n TODO", "bash -lc 'cat a.py'",
])
def test_file_reads_searches_and_listings_are_reads(cmd):
    assert is_shell_read(cmd)


@pytest.mark.parametrize("cmd", [
    "git status --short", "git diff --stat", "npm test -- --run x.test.ts", "npm run build", "sed -i 's/a/b/' x.py",
    "sed 's/a/b/' x.py", "cat a > b", "cat a; rm b", "cat a\nrm -rf b", "find . -name '*.pyc' -delete",
    "find . -exec rm {} +", "strings bin/x | rg -i compact", "pytest -q", "(cat a)", "psql -c '\\dt'",
    "tail -20 log.txt", "cat log/dev.log", "tail -5 /tmp/claude-1000/tasks/bae407b.output",
])
def test_commands_that_do_or_change_something_are_not_reads(cmd):
    assert not is_shell_read(cmd)


def test_shell_command_is_read_from_every_input_form():
    assert shell_command("exec_command", json.dumps({"cmd": "cat x", "workdir": "/w"})) == "cat x"
    assert shell_command("exec_command", {"cmd": "cat x"}) == "cat x"
    assert shell_command("shell", {"command": ["bash", "-lc", "nl -ba a.py"]}) == "nl -ba a.py"
    assert shell_command("Bash", {"command": "ls", "description": "list"}) == "ls"
    assert shell_command("Read", {"file_path": "a.py"}) is None


def test_a_codex_hook_bash_read_is_not_captured_but_a_build_is(project, tmp_path):
    """Codex hooks send Claude Code's PostToolUse payload: tool_name "Bash", tool_input.command."""
    with memdir.open(project, home=tmp_path / "g") as m:
        read = m.capture({"role": "tool", "tool": "Bash", "session": "s1",
                          "input": {"command": "sed -n '1,200p' src/config.ts"},
                          "output": "export const config = {\n  compaction: { auto: true }\n}\n" * 20})
        assert not read.stored and read.reason == "noisy_tool"
        build = m.capture({"role": "tool", "tool": "Bash", "session": "s1", "input": {"command": "npm run build"},
                           "output": "error TS2304: Cannot find name 'compaction'", "is_error": True})
        assert build.stored


def _codex_rollout(tmp_path, calls):
    """A Codex 0.12x rollout in its real line form: session_meta, then per call a ``function_call`` exec_command
    (``arguments`` a JSON string with ``cmd``/``workdir``) and its ``function_call_output``."""
    lines = [{"timestamp": "2026-05-11T11:26:55.000Z", "type": "session_meta",
              "payload": {"id": "0196b1f0-aaaa-7bbb-8ccc-000000000001", "cwd": str(tmp_path / "proj"), "originator": "codex_cli_rs"}},
             {"timestamp": "2026-05-11T11:27:00.000Z", "type": "event_msg",
              "payload": {"type": "user_message", "message": "make the compaction threshold configurable"}}]
    for i, (cmd, out) in enumerate(calls):
        lines.append({"timestamp": f"2026-05-11T11:28:{i:02d}.000Z", "type": "response_item",
                      "payload": {"type": "function_call", "name": "exec_command", "call_id": f"call_{i}",
                                  "arguments": json.dumps({"cmd": cmd, "workdir": str(tmp_path / "proj"),
                                                           "yield_time_ms": 1000, "max_output_tokens": 12000})}})
        lines.append({"timestamp": f"2026-05-11T11:28:{i:02d}.500Z", "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": f"call_{i}",
                                  "output": f"Chunk ID: c{i}\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n{out}"}})
    p = tmp_path / "rollout-2026-05-11T11-26-55-0196b1f0.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return p


def test_importing_a_codex_rollout_gates_its_file_reads(project, tmp_path):
    from memdir.portability.transcripts import import_host

    dump = "export function buildOpenCodeConfig() {\n  return { compaction: { auto: true } };\n}\n" * 30
    path = _codex_rollout(tmp_path, [("sed -n '1,220p' src/agents/plugins/codemie-code.plugin.ts", dump),
                                     ("rg -n \"compact\" src", "src/a.ts:3: compaction"),
                                     ("npm test -- --run src/x.test.ts", "FAIL src/x.test.ts > Compaction Config")])
    with memdir.open(project, home=tmp_path / "g") as m:
        out = import_host(m, "codex", path, projects="here", progress=False)
        assert out["skipped_by"].get("noisy_tool") == 2
        tools = [h for h in m.recent(kinds=["tool"], limit=10)]
        assert [h.text.split(" ", 2)[:2] for h in tools] == [["exec_command:", "npm"]]
        assert "buildOpenCodeConfig" not in m.context("how is buildOpenCodeConfig compaction set up")


def test_the_real_codex_rollout_keeps_its_builds_and_drops_its_reads(project, tmp_path):
    from memdir.portability.transcripts import import_host

    path = shared_path("data", "transcripts", "codex", "rollout-2026-05-11T11-26-55.jsonl")
    with memdir.open(project, home=tmp_path / "g") as m:
        out = import_host(m, "codex", path, projects="here", progress=False)
        texts = [h.text for h in m.recent(kinds=["tool"], limit=100)]
    assert out["skipped_by"].get("noisy_tool", 0) >= 28  # 32 reads: sed -n, nl | sed, rg, cat, find | sed
    assert not [t for t in texts if t.startswith(("exec_command: sed -n", "exec_command: nl -ba", "exec_command: rg -n"))]
    # the searches that failed are kept as their fact and why (the directory they searched did not exist)
    assert any(t.startswith('searched "compact|compaction') and "No such file or directory" in t for t in texts)
    assert any(t.startswith("exec_command: npm test") for t in texts) and any("git diff" in t for t in texts)


def test_the_gate_is_the_same_for_hooks_and_importers():
    cfg = Config()
    hook = {"role": "tool", "tool": "Bash", "input": {"command": "cat README.md"}, "output": "# memdir"}
    imported = {"role": "tool", "text": "exec_command: cat README.md → # memdir", "meta": {"tool": "exec_command"},
                "input": {"cmd": "cat README.md"}}
    assert gate(hook, cfg).reason == gate(imported, cfg).reason == "noisy_tool"


def test_with_read_facts_on_a_shell_read_keeps_what_it_read_for_hooks_and_importers_alike(project, tmp_path):
    from memdir.portability.transcripts import import_host

    hook = {"role": "tool", "tool": "Bash", "input": {"command": "cat README.md"}, "output": "# memdir"}
    imported = {"role": "tool", "text": "exec_command: cat README.md → # memdir", "meta": {"tool": "exec_command"},
                "input": {"cmd": "cat README.md"}}
    on = {"capture.read_facts": True}
    assert gate(hook, Config(overrides=on)).text == gate(imported, Config(overrides=on)).text == "read README.md"
    dump = "export function buildOpenCodeConfig() {\n  return { compaction: { auto: true } };\n}\n" * 30
    path = _codex_rollout(tmp_path, [("sed -n '1,220p' src/agents/plugins/codemie-code.plugin.ts", dump),
                                     ("rg -n \"compact\" src", "src/a.ts:3: compaction"),
                                     ("npm test -- --run src/x.test.ts", "FAIL src/x.test.ts > Compaction Config")])
    with memdir.open(project, home=tmp_path / "g", config=on) as m:
        out = import_host(m, "codex", path, projects="here", progress=False)
        assert not out["skipped_by"].get("noisy_tool")
        tools = sorted(h.text.split(" → ")[0] for h in m.recent(kinds=["tool"], limit=10))
        assert tools == ["exec_command: npm test -- --run src/x.test.ts", "read src/agents/plugins/codemie-code.plugin.ts",
                         'searched "compact" in src']
        assert "buildOpenCodeConfig" not in m.context("how is buildOpenCodeConfig compaction set up")


def test_a_read_or_search_that_failed_keeps_its_fact_and_why_for_hooks_and_importers_alike():
    """With capture.read_facts off (the default) a read or search is dropped, unless it failed: then its one-line
    fact and the lines that say why are kept ("why did the search in node_modules fail")."""
    cfg = Config()
    why = "rg: node_modules/opencode-ai: No such file or directory (os error 2)"
    hook = {"role": "tool", "tool": "Bash", "input": {"command": "rg -n compact node_modules/opencode-ai"},
            "output": why, "is_error": True, "session": "s"}
    imported = {"role": "tool", "session": "s", "meta": {"tool": "exec_command"},
                "text": f"exec_command: rg -n compact node_modules/opencode-ai → error (exit 2): {why}",
                "input": {"cmd": "rg -n compact node_modules/opencode-ai"}}
    grep = {"role": "tool", "tool": "Grep", "input": {"pattern": "compact", "path": "node_modules/opencode-ai"},
            "output": why, "is_error": True, "session": "s"}
    for ev in (hook, imported, grep):
        d = gate(ev, cfg)
        assert d.reason is None, (ev, d.reason)
        assert d.text.startswith('searched "compact" in node_modules/opencode-ai → error') and why in d.text
    nomatch = {"role": "tool", "session": "s", "meta": {"tool": "exec_command"}, "input": {"cmd": "rg -n compact src"},
               "text": "exec_command: rg -n compact src → error (exit 1): (no output)"}
    assert gate(nomatch, cfg).reason == "noisy_tool"  # rg's exit 1 with nothing printed: no match, not a failure
    ok = {**hook, "output": "node_modules/opencode-ai/a.js:3: compact", "is_error": False}
    assert gate(ok, cfg).reason == "noisy_tool" and gate({**grep, "is_error": False, "output": "a.js:1"}, cfg).reason == "noisy_tool"


def test_a_failed_read_s_why_is_redacted_before_it_is_cut_and_a_file_s_text_never_makes_a_failure():
    from memdir.capture.failed_reads import FAILED_FACT_MAX_CHARS

    cfg = Config()
    # a file whose own text says "Exit code 1" was read fine: dropped, its content never kept
    ok = {"role": "tool", "tool": "Read", "input": {"file_path": "/p/ci.log"}, "session": "s",
          "output": "Exit code 1\nAWS_SECRET=hunter2hunter2 build step failed"}
    assert gate(ok, cfg).reason == "noisy_tool"
    # Claude Code's Bash shape: nothing printed and exit 1 is a search without a match
    nomatch = {"role": "tool", "tool": "Bash", "input": {"command": "rg foo src"}, "session": "s",
               "output": {"stdout": "", "stderr": "", "exit_code": 1}, "exit_code": 1}
    assert gate(nomatch, cfg).reason == "noisy_tool"
    token = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    for pad in range(180, 260, 7):
        ev = {"role": "tool", "tool": "Read", "input": {"file_path": "/a"}, "session": "s", "is_error": True,
              "output": "E" + "r" * pad + " " + token}
        d = gate(ev, cfg)
        assert d.reason is None and "ghp_" not in d.text and token[4:14] not in d.text, d.text
        assert len(d.text) <= len("read /a → ") + FAILED_FACT_MAX_CHARS
