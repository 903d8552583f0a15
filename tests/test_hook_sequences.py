"""Hooks as hosts fire them, in sequences (siblings of C16, C22, C24, C33): what a host put in a prompt in place of
something else (a pasted image, a collapsed paste) is not the user's words."""

import json
import shutil
import subprocess
import sys
import time

import pytest

import memdir
from memdir.hosts.hooks import run_hook


def prompt(project, session, text, host="claude-code"):
    payload = {"session_id": session, "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": text}
    return run_hook(host, "user-prompt", json.dumps(payload))


def users(project):
    with memdir.open(project) as m:
        return [h.text for h in m.recent(kinds=["user"], limit=50)]


@pytest.mark.parametrize("text", ["[Image #12]", "[Image #1] [Image #2]", "[Pasted text #1 +40 lines]",
                                  "[Pasted text #3]  [Image #1]", "[Image #1] why?"])
def test_a_prompt_of_host_placeholders_alone_is_not_the_users_words(project, text):
    prompt(project, "s1", text)
    assert users(project) == []


def test_a_prompt_with_words_beside_a_placeholder_is_kept_as_typed(project):
    prompt(project, "s1", "[Image #1] why does the login page render blank like this?")
    assert users(project) == ["[Image #1] why does the login page render blank like this?"]


# ---- OpenCode: a sub-agent's (task tool) prompt and reply are the agent's, not the user's ----------------------------
SUBAGENT_HARNESS = r"""
import plugin from "./memdir.mjs";
const hooks = await plugin.server({ directory: process.argv[2] });
const ev = (type, properties) => hooks.event({ event: { type, properties } });
await hooks["chat.message"]({ sessionID: "parent", messageID: "m1" }, { parts: [{ type: "text", text: "Find where the refresh token gets rotated in the auth service" }] });
await ev("session.created", { info: { id: "child", parentID: "parent", title: "Find rotation (@explore subagent)" } });
await hooks["chat.message"]({ sessionID: "child", messageID: "m2", agent: "explore" }, { parts: [{ type: "text", text: "Search the codebase for where refresh tokens are rotated and report the file" }] });
const out = { system: [] };
await hooks["experimental.chat.system.transform"]({ sessionID: "child" }, out);
await ev("message.updated", { info: { id: "a2", role: "assistant", sessionID: "child" } });
await ev("message.part.updated", { part: { id: "p2", type: "text", messageID: "a2", sessionID: "child", text: "Refresh tokens are rotated in auth/refresh.py by rotate()." } });
await ev("session.idle", { sessionID: "child" });
await ev("message.updated", { info: { id: "a1", role: "assistant", sessionID: "parent" } });
await ev("message.part.updated", { part: { id: "p1", type: "text", messageID: "a1", sessionID: "parent", text: "The refresh token is rotated by rotate() in auth/refresh.py after each use." } });
await ev("session.idle", { sessionID: "parent" });
console.log(JSON.stringify({ child_block: out.system }));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the OpenCode plugin harness")
def test_an_opencode_subagents_prompt_and_reply_are_not_stored_as_a_turn(tmp_path):
    from memdir.hosts.adapters.opencode import render_plugin

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj) as m:
        m.remember("Refresh tokens are rotated once per use; the old one is revoked.", category="facts")
    d = tmp_path / "oc"
    d.mkdir()
    (d / "memdir.mjs").write_text(render_plugin([sys.executable, "-m", "memdir.cli"], timeout_ms=60000))
    (d / "h.mjs").write_text(SUBAGENT_HARNESS)
    r = subprocess.run(["node", "h.mjs", str(proj)], cwd=d, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    assert "refresh" in json.loads(r.stdout.strip().splitlines()[-1])["child_block"][0].lower()  # the block still goes
    deadline = time.monotonic() + 60  # replies go to detached processes that may outlive node: wait (bounded)
    while time.monotonic() < deadline and not [h for h in _turns(proj) if h.session == "parent" and h.kind == "assistant"]:
        time.sleep(0.2)
    time.sleep(2)  # the child's reply, had it been sent, was sent before the parent's
    assert sorted((h.session, h.kind) for h in _turns(proj)) == [("parent", "assistant"), ("parent", "user")]


def _turns(project):
    with memdir.open(project) as m:
        return m.recent(kinds=["event"], limit=50)
