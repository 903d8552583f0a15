"""Siblings of case C13 in imported transcripts: a turn whose line has no time (or one memdir cannot read) among
turns that have one. It was stored at the time of the import, weeks after its conversation, so `memdir recent`
showed it first, apart from its question, and the conversation's order was lost. Such a turn now takes the time of
the turn before it in its session (the first time of the session when none came before), and keeps its place."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import memdir
from memdir.portability.transcripts import import_host

UTC = timezone.utc


def _line(kind, i, text, ts, cwd, session="sess-1"):
    msg = {"role": "user", "content": text} if kind == "user" else \
        {"role": "assistant", "content": [{"type": "text", "text": text}]}
    row = {"type": kind, "message": msg, "uuid": f"{kind[0]}{i}", "sessionId": session, "cwd": cwd,
           "isSidechain": False}
    if ts is not None:
        row["timestamp"] = ts
    return row


def test_turns_without_a_time_keep_their_place_in_the_conversation(project, tmp_path, clock):
    clock.now = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)  # the import runs weeks after the session
    cwd = str(project)
    turns = [
        ("assistant", 0, "Welcome back: the kafka consumer settings are in config/consumer.yaml.", None),
        ("user", 1, "How should we configure the kafka consumer group rebalance timeout?", "2026-11-20T10:00:00Z"),
        ("assistant", 1, "Set session.timeout.ms to 45000 and max.poll.interval.ms to 300000.", None),
        ("user", 2, "What about the kafka producer retries for idempotence?", "2026-11-20T10:01:00Z"),
        ("assistant", 2, "Enable enable.idempotence=true; delivery.timeout.ms bounds the retries.", "not a time"),
        ("user", 3, "And the kafka topic retention for the audit log?", "2026-11-20T10:02:00Z"),
    ]
    path = tmp_path / "sess-1.jsonl"
    path.write_text("".join(json.dumps(_line(k, i, t, ts, cwd)) + "\n" for k, i, t, ts in turns), encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g", clock=clock) as m:
        got = import_host(m, "claude-code", path, projects="here", progress=False)
        assert got["stored"] == 6, got
        evs = m.session_events("sess-1")
        assert [e["text"][:12] for e in evs] == [t[:12] for _, _, t, _ in turns]
        times = [datetime.fromisoformat(e["ts"].replace("Z", "+00:00")) for e in evs]
        assert all(abs(t - datetime(2026, 11, 20, 10, 1, tzinfo=UTC)) <= timedelta(minutes=1) for t in times), times
        newest = m.recent(kinds=["event"], limit=1)[0]
        assert newest.text.startswith("And the kafka topic retention"), newest.text
