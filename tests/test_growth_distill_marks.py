"""With ``distill.auto`` on, every captured turn gets a row in ``distill_marks`` once a model has read it. Pruning or
forgetting the turn left its mark behind, so the table (and what each distill run reads) grew with every turn ever
distilled while ``prune`` said it gave the space back."""

import sqlite3
from datetime import timedelta

from stub_model import StubModel, memories

import memdir


def _marks(project):
    db = sqlite3.connect(project / ".memory" / ".memdir" / "index.sqlite3")
    try:
        return {r[0] for r in db.execute("SELECT ref FROM distill_marks")}
    finally:
        db.close()


def test_pruned_and_forgotten_turns_take_their_distill_marks_with_them(project, tmp_path, clock):
    reply = memories({"category": "facts", "summary": "Redis port", "body": "Redis runs on 6380 in this project."})
    with StubModel([reply, reply]) as stub, memdir.open(project, home=tmp_path / "g", clock=clock, config={
            "distill.provider": "openai", "distill.url": stub.url, "distill.model": "stub-1",
            "distill.timeout_s": 5.0, "distill.min_turns": 2,
            "tiers.hot_max": 0, "tiers.warm_max": 0}) as m:
        evs = [{"key": f"u:s1:{i}", "role": "user", "text": f"turn {i}: where does redis listen in this setup ({i})?",
                "session": "s1", "ts": f"2026-06-01T10:{i:02d}:00Z"} for i in range(6)]
        m.import_events(evs)
        m.distill(session="s1")
        clock.now += timedelta(days=100)
        m.import_events([{"key": "u:s2:0", "role": "user", "text": "which port does the cache use on staging now?",
                          "session": "s2", "ts": clock.now - timedelta(hours=2)},
                         {"key": "u:s2:1", "role": "user", "text": "and where is the cache configured for staging?",
                          "session": "s2", "ts": clock.now - timedelta(hours=1)}])
        m.distill(session="s2")
        assert len(_marks(project)) == 8
        assert m.prune(90, force=True)["count"] == 6  # s1's turns, idle for 100 days
        assert m.forget("u:s2:0")
        assert _marks(project) == {"u:s2:1"}
