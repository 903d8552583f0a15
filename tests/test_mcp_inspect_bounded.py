"""``memory_inspect`` keeps within the bound ``memory_recall`` and ``memory_list`` keep (a probe: 150 notes with
4,000-character summaries gave a 631,692-character reply; Claude Code caps a tool result at 25,000 tokens)."""

from __future__ import annotations

import memdir
from memdir.server import tools
from memdir.server.tools import MAX_RECALL_CHARS, do_inspect, reply_size

INSPECT_TEXT_CHARS = getattr(tools, "INSPECT_TEXT_CHARS", 200)


def test_an_inspect_reply_of_many_long_summaries_stays_within_the_bound(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        for i in range(150):
            m.remember(f"note {i}: the deploy of service {i} goes through helm", category="facts",
                       summary=f"summary {i} " + "很长的说明，关于缓存和部署。 " * 300)
        out = do_inspect(m)
    chars, _ = reply_size(out)
    assert chars <= MAX_RECALL_CHARS
    assert out["notes_total"] == 150 and 0 < out["notes_listed"] == len(out["notes"]) < 150
    assert out["problems_total"] == len(out["problems"]) == 0
    assert all(len(n["summary"]) <= INSPECT_TEXT_CHARS for n in out["notes"])
    assert out["counts"]["project"]["notes"] == 150


def test_a_small_store_is_listed_whole(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        for i in range(5):
            m.remember(f"note {i}: the deploy of service {i} goes through helm", category="facts")
        out = do_inspect(m)
    assert out["notes_total"] == out["notes_listed"] == len(out["notes"]) == 5
