"""A hook payload larger than the hook reads (``MAX_PAYLOAD_BYTES``, 16 MB): a command that printed megabytes, a
``Write`` of a big file (its whole content in ``tool_input``). The payload was cut, no longer JSON, and the tool call
was lost without a trace (not stored, not in the skip log). Now the call's line is captured from what the payload's
head says, its output replaced by a line saying it was not kept; the gates still apply."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import memdir
from memdir.hosts.hookclient import MAX_PAYLOAD_BYTES


def _hook(project, home, payload: dict) -> subprocess.CompletedProcess:
    code = ("import sys; sys.argv = ['memdir', 'hook', 'claude-code', 'post-tool-use']; import memdir.__main__ as e; "
            "e.main()")
    env = {**os.environ, "MEMDIR_HOOK_WARM": "0", "MEMDIR_HOME": str(home), "MEMDIR_HOOK_BUDGET_MS": "60000"}
    env.pop("MEMDIR_DEBUG", None)
    return subprocess.run([sys.executable, "-c", code], input=json.dumps(payload).encode(), capture_output=True,
                          cwd=str(project), timeout=120, env=env)


def _payload(project, tool, tool_input, response, use_id):
    # the order Claude Code sends: the call's arguments before its response, tool_use_id last
    return {"session_id": "big-1", "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
            "hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": tool_input,
            "tool_response": response, "tool_use_id": use_id}


def _texts(project, home):
    with memdir.open(project, home=home) as m:
        return [e.text for e in m.recent(kinds=["tool"], limit=20)]


def test_a_tool_output_over_the_payload_limit_still_leaves_its_call_line(project, tmp_path):
    home = tmp_path / "home"
    with memdir.open(project, home=home) as m:
        m.remember("the build prints a lot", category="facts")
    huge = "compiling module with a long progress line\n" * (MAX_PAYLOAD_BYTES // 40)
    r = _hook(project, home, _payload(project, "Bash", {"command": "make verbose-build"},
                                      {"stdout": huge, "stderr": "", "interrupted": False}, "toolu_big"))
    assert r.returncode == 0 and r.stdout == b"", r.stderr[-2000:]
    texts = _texts(project, home)
    assert any(t.startswith("Bash: make verbose-build") and "not kept" in t for t in texts), texts


def test_a_write_of_a_file_over_the_limit_keeps_the_path(project, tmp_path):
    home = tmp_path / "home"
    body = "x = 1  # generated\n" * (MAX_PAYLOAD_BYTES // 18)
    r = _hook(project, home, _payload(project, "Write", {"file_path": str(project / "gen.py"), "content": body},
                                      {"type": "create", "filePath": str(project / "gen.py"), "content": body}, "toolu_w"))
    assert r.returncode == 0, r.stderr[-2000:]
    texts = _texts(project, home)
    assert any("gen.py" in t and "not kept" in t for t in texts), texts


def test_a_small_payload_is_read_as_before(project, tmp_path):
    home = tmp_path / "home"
    r = _hook(project, home, _payload(project, "Bash", {"command": "make small"}, {"stdout": "built in 3s"}, "toolu_s"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert any(t == "Bash: make small → built in 3s" for t in _texts(project, home)), _texts(project, home)
