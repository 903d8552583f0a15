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


def test_a_session_resumed_from_a_subdirectory_of_its_project_gets_no_second_block(project):
    """The host resumes a session from wherever the user stands: a subdirectory of the same project is the same
    project (the same rules and outline, kept in the session's history); another project gets its own block."""
    import subprocess

    seed(project)
    sub = project / "src" / "api"
    sub.mkdir(parents=True)
    assert "pnpm" in start(project, "s1", "startup")
    assert start(sub, "s1", "resume") == ""
    assert start(project / "src", "s1", "resume") == ""
    other = project.parent / f"{project.name}-other"
    other.mkdir()
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    with memdir.open(other) as m:
        m.remember("Deploys of the other service go through staging first.", category="rules")
    assert "staging" in start(other, "s1", "resume")  # another project: its own memory, never given in this session
