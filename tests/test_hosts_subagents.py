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
