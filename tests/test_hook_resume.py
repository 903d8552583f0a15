"""A resumed session (`claude --resume`, `claude --continue`, `codex exec resume`) keeps the block its SessionStart
hook gave when it began, and the host runs SessionStart again (source "resume"): the session's rules and outline
reached the model once more with every resume (twice, three times in every request). A resumed session that got
its block already gets none again; one that never got one (begun before memdir was installed), or a compacted
one (its history was summarised), gets it."""

import json

import memdir
from memdir.hosts.hooks import run_hook


def seed(project):
    with memdir.open(project) as m:
        m.remember("Always run pnpm, never npm, in this repository.", category="rules")


def start(project, session, source):
    return run_hook("claude-code", "session-start", json.dumps({"session_id": session, "cwd": str(project),
                                                                 "hook_event_name": "SessionStart", "source": source}))


def test_a_resumed_session_gets_no_second_session_block(project):
    seed(project)
    assert "pnpm" in start(project, "s1", "startup")
    assert start(project, "s1", "resume") == ""
    assert start(project, "s1", "resume") == ""  # --continue again
    assert "pnpm" in start(project, "s1", "compact")  # the history was summarised: the block again
    assert "pnpm" in start(project, "s2", "resume")  # never given a block here: it gets one
    assert start(project, "s2", "resume") == ""
    assert "pnpm" in run_hook("codex", "session-start", json.dumps({"session_id": "s1", "cwd": str(project),
                                                                    "hook_event_name": "SessionStart",
                                                                    "source": "startup"}))
