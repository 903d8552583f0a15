"""An MCP tool's result as a host passes it to a post-tool hook: a list of content blocks (text, an image, an
embedded resource, a resource link) or a dict holding that list under ``content``. Its text is what is stored: not
a JSON dump of the whole result, and an embedded resource's text is not lost as "(no output)"."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import memdir
from memdir.capture.tools import output_text

IMAGE = {"type": "image", "data": "iVBORw0KGgo" * 400, "mimeType": "image/png"}


@pytest.mark.parametrize("output,want,unwanted", [
    ({"content": [{"type": "text", "text": "the deploy ran on orca-7"}, IMAGE]}, "the deploy ran on orca-7", "iVBOR"),
    ([{"type": "resource", "resource": {"uri": "file:///srv/notes.md", "text": "staging db is orca on 5433"}}],
     "staging db is orca on 5433", None),
    ({"content": [{"type": "resource_link", "uri": "https://wiki.example.com/runbook", "name": "runbook"}],
      "isError": False}, "https://wiki.example.com/runbook", None),
    ([{"type": "text", "text": "first"}, {"type": "resource", "resource": {"text": "second"}}], "first\nsecond", None),
])
def test_content_blocks_give_their_text(output, want, unwanted):
    got = output_text(output)
    assert want in got
    assert unwanted is None or unwanted not in got


def test_a_hook_stores_an_mcp_tools_text_not_its_dump(project, tmp_path):
    home = tmp_path / "g"
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "mcp__runbooks__lookup",
               "tool_use_id": "t1", "tool_input": {"page": "runbook"},
               "tool_response": [{"type": "resource", "resource": {"uri": "file:///r.md",
                                                                  "text": "rollback with helm rollback web 3"}}, IMAGE]}
    env = {"MEMDIR_HOME": str(home), "MEMDIR_HOOK_WARM": "0", "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "memdir", "hook", "claude-code", "post-tool-use", "--budget-ms", "20000"],
                       input=json.dumps(payload).encode(), capture_output=True, cwd=str(project), env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    with memdir.open(project, home=home) as m:
        texts = [e.text for e in m.recent(kinds=["tool"], limit=5)]
    assert any("rollback with helm rollback web 3" in t for t in texts), texts
    assert not any("iVBOR" in t or "(no output)" in t for t in texts), texts
