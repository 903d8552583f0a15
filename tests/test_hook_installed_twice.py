"""memdir's hooks registered twice (your settings and the project's both hold them, or OpenCode's plugin in both
folders): the host runs both copies of each hook on the same payload, and the model got every block twice (the
session's rules twice, each prompt's matches twice). The first copy answers; a copy of the same call a moment
later prints nothing. Captures were already stored once (deterministic keys)."""

import json
import os
import time

import memdir
from memdir.hosts.hooks import run_hook

SESSION = "7c2b8f4e-1111-4d2a-9b3c-0123456789ab"


def seed(project):
    with memdir.open(project) as m:
        m.remember("Always run pnpm, never npm, in this repository.", category="rules")
        m.remember("The staging database listens on port 5433 at staging-db.internal.", category="facts")


def prompt_payload(project, prompt, session=SESSION):
    return json.dumps({"session_id": session, "cwd": str(project), "hook_event_name": "UserPromptSubmit",
                       "prompt": prompt, "transcript_path": str(project / "t.jsonl")})


def start_payload(project, source="startup", session=SESSION):
    return json.dumps({"session_id": session, "cwd": str(project), "hook_event_name": "SessionStart",
                       "source": source})


def test_the_second_copy_of_a_hook_call_prints_no_second_block(project):
    seed(project)
    first = run_hook("claude-code", "session-start", start_payload(project))
    again = run_hook("claude-code", "session-start", start_payload(project))
    assert "pnpm" in first and again == ""
    p = prompt_payload(project, "which port does the staging database listen on?")
    first = run_hook("claude-code", "user-prompt", p)
    again = run_hook("claude-code", "user-prompt", p)
    assert "5433" in first and again == ""
    for host in ("codex", "opencode"):  # the same for the other hosts' prompt hooks
        ps = {"codex": prompt_payload(project, "staging database port again?", session="c-" + SESSION),
              "opencode": json.dumps({"sessionID": "ses_abc", "directory": str(project),
                                      "text": "staging database port again?"})}
        assert "5433" in run_hook(host, "user-prompt", ps[host]) and run_hook(host, "user-prompt", ps[host]) == ""
    with memdir.open(project) as m:  # the prompt itself stored once
        users = [e for e in m.recent(limit=50, kinds=["event"]) if "which port" in e.text]
    assert len(users) == 1


def test_another_prompt_session_or_a_later_repeat_still_gets_its_block(project):
    seed(project)
    p = prompt_payload(project, "which port does the staging database listen on?")
    assert "5433" in run_hook("claude-code", "user-prompt", p)
    assert "5433" in run_hook("claude-code", "user-prompt", prompt_payload(project, "staging database host?"))
    assert "5433" in run_hook("claude-code", "user-prompt",
                              prompt_payload(project, "which port does the staging database listen on?", session="other"))
    assert "pnpm" in run_hook("claude-code", "session-start", start_payload(project))
    assert "pnpm" in run_hook("claude-code", "session-start", start_payload(project, source="compact"))
    # the same prompt typed again later in the session: its block again
    for f in (project / ".memory" / ".memdir" / "hook-once").iterdir():
        old = time.time() - 120
        os.utime(f, (old, old))
    assert "5433" in run_hook("claude-code", "user-prompt", p)


def test_both_copies_of_a_prompt_typed_again_later_do_not_both_answer(tmp_path, monkeypatch):
    """"continue" typed again after the window: the two copies both find the earlier claim stale. One of them
    replacing it while the other is about to must not leave both answering (the block twice)."""
    from types import SimpleNamespace

    from memdir.hosts import once

    derived = tmp_path / ".memdir"
    derived.mkdir()
    call = SimpleNamespace(event="user-prompt", session=SESSION, host="claude-code", cwd=str(tmp_path),
                           prompt="continue")
    assert once.first_copy([derived], call, {})
    marker = next(p for p in (derived / "hook-once").iterdir() if p.is_file())
    old = time.time() - 3 * once.WINDOW_S
    os.utime(marker, (old, old))
    real_stat, results, ran = os.stat, [], []

    def stat(path, *a, **kw):  # copy B has found the claim stale: copy A runs whole right then
        st = real_stat(path, *a, **kw)
        if str(path) == str(marker) and not ran:
            ran.append(1)
            results.append(once.first_copy([derived], call, {}))
        return st

    monkeypatch.setattr(once.os, "stat", stat)
    results.append(once.first_copy([derived], call, {}))
    monkeypatch.setattr(once.os, "stat", real_stat)
    assert sorted(results) == [False, True], results
    assert not once.first_copy([derived], call, {})  # the claim made stays, nothing left aside
    assert [p.name for p in (derived / "hook-once").iterdir() if p.is_file()] == [marker.name]
