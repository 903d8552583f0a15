"""Sub-agents, compaction and long sessions as the real hosts record them: text a model wrote for another model (a
sub-agent's task, a compaction's summary) is never stored as the developer's own words."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import memdir
from memdir.portability.importers import iter_codex
from memdir.portability.transcripts import import_host

PARENT = "019a0000-0000-7000-8000-0000000000aa"
CHILD = "019a0000-0000-7000-8000-0000000000bb"
TASK = "Never touch the legacy billing module; find where invoices are rounded and report the function name."
FOUND = "Invoices are rounded in round_invoice_total() in billing/totals.py using banker's rounding."


def _rollout(path, cwd, source, *, thread_source=None, with_events=True):
    meta = {"id": CHILD, "cwd": str(cwd), "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": source}
    if thread_source:
        meta["thread_source"] = thread_source
    lines = [{"timestamp": "2026-11-30T10:00:00Z", "type": "session_meta", "payload": meta},
             {"timestamp": "2026-11-30T10:00:00Z", "type": "turn_context", "payload": {"cwd": str(cwd), "model": "gpt-5"}},
             {"timestamp": "2026-11-30T10:00:01Z", "type": "response_item",
              "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": TASK}]}}]
    if with_events:
        lines.append({"timestamp": "2026-11-30T10:00:01Z", "type": "event_msg",
                      "payload": {"type": "user_message", "message": TASK, "images": []}})
        lines.append({"timestamp": "2026-11-30T10:00:05Z", "type": "event_msg",
                      "payload": {"type": "agent_message", "message": FOUND}})
    lines.append({"timestamp": "2026-11-30T10:00:05Z", "type": "response_item",
                  "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": FOUND}]}})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


SUBAGENT_SOURCES = [
    ({"subagent": {"thread_spawn": {"parent_thread_id": PARENT, "depth": 1, "agent_nickname": "Dalton",
                                    "agent_role": "explorer"}}}, None),
    ({"subagent": "review"}, None),
    ({"subagent": "memory_consolidation"}, None),
    ("exec", "subagent"),  # the newer top-level marker beside a plain source
]


@pytest.mark.parametrize("source,thread_source", SUBAGENT_SOURCES)
@pytest.mark.parametrize("with_events", [True, False])
def test_a_codex_subagents_task_is_not_the_developers_words(tmp_path, source, thread_source, with_events):
    """A Codex sub-agent's rollout opens with the message its parent model wrote (spawn_agent, /review, Codex's own
    memory job): its replies and tool calls are kept, its user messages are not the developer's."""
    path = _rollout(tmp_path / f"rollout-2026-11-30T10-00-00-{CHILD}.jsonl", tmp_path, source,
                    thread_source=thread_source, with_events=with_events)
    stats: Counter = Counter()
    events = list(iter_codex(path, stats=stats))
    assert [e["role"] for e in events] == ["assistant"], events
    assert events[0]["text"] == FOUND
    assert stats["skipped:subagent_prompt"] == 1


def test_a_codex_subagent_import_stores_no_user_turn(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".git").mkdir()
    path = _rollout(tmp_path / f"rollout-2026-11-30T10-00-00-{CHILD}.jsonl", project, SUBAGENT_SOURCES[0][0])
    with memdir.open(project) as m:
        import_host(m, "codex", path, progress=False)
        assert m.recent(kinds=["user"], limit=10) == []
        assert [h.text for h in m.recent(kinds=["assistant"], limit=10)] == [FOUND]


def test_a_codex_users_own_session_keeps_its_prompts(tmp_path):
    path = _rollout(tmp_path / f"rollout-2026-11-30T10-00-00-{CHILD}.jsonl", tmp_path, "cli")
    assert [e["role"] for e in iter_codex(path)] == ["user", "assistant"]


# ---- Claude Code: a sub-agent's answer comes back to the main agent as its Task/Agent tool's result -----------------
SID = "11111111-2222-3333-4444-555555555555"
ANSWER = "The retry logic lives in src/upload/retry.ts; backoff is computed as 0 because base is undefined."
CC_TASK = "Always use exponential backoff with jitter. Search the codebase for upload retry logic and report it."


def _cc(cwd, **k):
    base = {"sessionId": SID, "cwd": str(cwd), "version": "2.1.197", "userType": "external", "isSidechain": False}
    return json.dumps({**base, **k})


def _claude_session(folder, cwd, tool="Task"):
    """A main session delegating to one sub-agent (2.x layout: ``<session>.jsonl`` + ``<session>/subagents/``)."""
    main = [
        _cc(cwd, type="user", uuid="m1", timestamp="2026-11-30T10:00:00Z",
            message={"role": "user", "content": "find where the retry logic for uploads lives and fix the backoff"}),
        _cc(cwd, type="assistant", uuid="m2", timestamp="2026-11-30T10:00:01Z", message={"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_task1", "name": tool,
             "input": {"description": "Find retry logic", "prompt": CC_TASK, "subagent_type": "Explore"}}]}),
        _cc(cwd, type="user", uuid="m3", timestamp="2026-11-30T10:00:13Z", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_task1",
             "content": [{"type": "text", "text": ANSWER}, {"type": "text", "text": "agentId: a1b2c3 (for resuming)"}]}]}),
        _cc(cwd, type="assistant", uuid="m4", timestamp="2026-11-30T10:00:20Z", message={"role": "assistant", "content": [
            {"type": "text", "text": "Fixed the upload backoff: base now defaults to 200ms in src/upload/retry.ts."}]}),
    ]
    sub = [
        _cc(cwd, type="user", uuid="s1", isSidechain=True, agentId="a1b2c3", timestamp="2026-11-30T10:00:02Z",
            message={"role": "user", "content": CC_TASK}),
        _cc(cwd, type="assistant", uuid="s2", isSidechain=True, agentId="a1b2c3", timestamp="2026-11-30T10:00:05Z",
            message={"role": "assistant", "content": [
                {"type": "text", "text": "Running the upload tests to see the failing backoff."},
                {"type": "tool_use", "id": "toolu_sub1", "name": "Bash", "input": {"command": "npm test -- upload"}}]}),
        _cc(cwd, type="user", uuid="s3", isSidechain=True, agentId="a1b2c3", timestamp="2026-11-30T10:00:09Z",
            message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_sub1",
                                                  "content": "FAIL upload.test.js: expected backoff 200ms got 0"}]}),
        _cc(cwd, type="assistant", uuid="s4", isSidechain=True, agentId="a1b2c3", timestamp="2026-11-30T10:00:12Z",
            message={"role": "assistant", "content": [{"type": "text", "text": ANSWER}]}),
    ]
    (folder / SID / "subagents").mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_text("\n".join(main) + "\n")
    (folder / SID / "subagents" / "agent-a1b2c3.jsonl").write_text("\n".join(sub) + "\n")
    return folder


def _texts_holding(m, text):
    return [h.text for h in m.recent(limit=50) if " ".join(text.split()) in " ".join(h.text.split())]


@pytest.mark.parametrize("tool", ["Task", "Agent"])
def test_a_claude_subagents_answer_is_stored_once_with_its_task(tmp_path, tool):
    """The sub-agent's last reply is the Task/Agent tool's result in the main session: importing both files (or the
    hooks' Task capture, then the import) stored that answer twice, once as the tool's result and once as a reply."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    folder = _claude_session(tmp_path / "transcripts", project, tool)
    with memdir.open(project) as m:
        import_host(m, "claude-code", folder, progress=False)
        assert len(_texts_holding(m, ANSWER)) == 1, _texts_holding(m, ANSWER)
        assert _texts_holding(m, ANSWER)[0].startswith(f"{tool}: ")
        assert _texts_holding(m, "Running the upload tests to see the failing backoff.")  # its other replies stay
        assert not _texts_holding(m, CC_TASK)  # the main agent's words for it are not the user's, nor kept
        again = import_host(m, "claude-code", folder, progress=False)
        assert again["stored"] == 0


def test_a_claude_subagents_answer_the_hooks_captured_is_not_stored_again_by_an_import(tmp_path):
    from memdir.hosts.hooks import run_hook

    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    run_hook("claude-code", "post-tool-use", json.dumps({
        "session_id": SID, "cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "Task",
        "tool_input": {"description": "Find retry logic", "prompt": CC_TASK, "subagent_type": "Explore"},
        "tool_response": {"status": "completed", "prompt": CC_TASK, "agentId": "a1b2c3",
                          "content": [{"type": "text", "text": ANSWER}], "totalDurationMs": 12000},
        "tool_use_id": "toolu_task1"}))
    folder = _claude_session(tmp_path / "transcripts", project)
    with memdir.open(project) as m:
        import_host(m, "claude-code", folder / SID / "subagents", progress=False)  # the sub-agent's file alone
        assert len(_texts_holding(m, ANSWER)) == 1, _texts_holding(m, ANSWER)
        assert not _texts_holding(m, CC_TASK)
