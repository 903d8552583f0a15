"""Distillation against a model that misbehaves in ways the stub of test_distill does not: an item the store
refuses (invisible text), an endpoint that sends its answer a byte at a time (each read within the timeout, the
whole far beyond it), and a reply far larger than any note could be. Each: the call or item fails with a reason,
nothing is lost, the turns stay pending (or are marked) as the case says, and the run goes on to the next item."""

from __future__ import annotations

import json

import pytest

import memdir
from memdir.distill import flow as distill


def _session(m, sid="s1", n=4):
    evs = []
    for i in range(n):
        evs.append({"key": f"u:{sid}:{i}", "role": "user", "text": f"turn {i}: we deploy with pnpm since the npm lockfile broke CI ({i})",
                    "session": sid, "ts": f"2026-10-01T10:{i:02d}:00Z"})
        evs.append({"key": f"a:{sid}:{i}", "role": "assistant", "text": f"Understood, point {i}: pnpm with a frozen lockfile.",
                    "session": sid, "ts": f"2026-10-01T10:{i:02d}:30Z"})
    m.import_events(evs)


class Fixed:
    name, model = "stub", "stub-1"

    def __init__(self, reply: str):
        self.reply = reply

    def complete(self, system: str, prompt: str) -> str:
        return self.reply


@pytest.mark.parametrize("body", ["\u200b\u2060\u200b", "\ufeff", "\u00ad\u00ad"])
def test_an_item_the_store_refuses_is_rejected_alone_and_the_rest_is_written(m, body):
    _session(m)
    reply = json.dumps({"version": 1, "memories": [
        {"category": "facts", "summary": "invisible", "body": body},
        {"category": "decisions", "summary": "Deploy with pnpm", "body": "Deploys use pnpm: the npm lockfile broke CI."}]})
    out = distill.run(m, provider=Fixed(reply))  # never raises for one item
    assert [r["item"] for r in out["rejected"]] == [0] and out["rejected"][0]["reason"]
    assert [n["summary"] for n in out["notes"]] == ["Deploy with pnpm"]
    assert not out["errors"] and out["marked"] == 8  # the reply was read: its turns are done
    assert distill.run(m, provider=Fixed(reply))["calls"] == 0  # a second run asks nothing


def test_a_body_that_is_not_text_is_rejected_as_such():
    from memdir.distill.prompt import check_item

    cand, why = check_item({"category": "facts", "summary": "s", "body": 12345}, categories=["facts"], max_body=2000)
    assert cand is None and "string" in why
