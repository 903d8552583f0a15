"""Recall's prior by question kind: a "why did it fail" question weighs the failed tool calls among its lexical
candidates (``recall.fail_prior``, memdir.engine.lexical.failed_first)."""

from __future__ import annotations

import memdir
from memdir.engine.lexical import failed, failed_first

FAILED = "Bash: npm run build → error (exit 2): error TS2322: Type 'string' is not assignable to type 'number'"
EVENTS = [
    {"key": "a:s:1", "role": "assistant", "session": "s", "ts": "2026-11-01T10:00:00Z",
     "text": "The release build of the bundle is slow; the release build step runs the build twice, the build cache "
             "is cold on CI"},
    {"key": "t:s:2", "role": "tool", "session": "s", "ts": "2026-11-01T10:01:00Z", "text": FAILED},
    {"key": "t:s:3", "role": "tool", "session": "s", "ts": "2026-11-01T10:02:00Z",
     "text": "Bash: npm run build → built the release bundle in 41 s"},
]


def _open(project, tmp_path, clock, **cfg):
    m = memdir.open(project, home=tmp_path / "g", clock=clock, config=cfg or None)
    m.import_events(EVENTS)
    return m


def test_a_why_did_it_fail_question_puts_the_failed_call_first(project, tmp_path, clock):
    q = "Why did the release build fail?"
    m = _open(project, tmp_path, clock, **{"recall.fail_prior": 1.0})
    try:
        plain = m.recall(q, k=3)
    finally:
        m.close()
    assert plain[0].text != FAILED  # lexically, the reply naming the build three times leads
    m = _open(project, tmp_path, clock, **{"recall.fail_prior": 10.0})
    try:
        hits = m.recall(q, k=1)
        assert hits[0].text == FAILED and hits[0].reasons["fail"] == 10.0
        # a question that asks no "why did it fail" keeps the lexical order
        other = m.recall("What does the release build do?", k=3)
        assert other[0].text != FAILED and all("fail" not in h.reasons for h in other)
    finally:
        m.close()


def test_the_failed_call_is_found_beyond_the_top_k(project, tmp_path, clock):
    m = _open(project, tmp_path, clock, **{"recall.fail_prior": 10.0})
    try:
        filler = [{"key": f"a:f:{i}", "role": "assistant", "session": "f", "ts": "2026-11-01T09:00:00Z",
                   "text": f"release build note {i}: the release build ran the build for bundle {i}"} for i in range(12)]
        m.import_events(filler)
        ranked = [h.text for h in m.recall("What does the release build do?", k=20)]
        assert ranked.index(FAILED) >= 3  # outside a top 3 on words alone
        # the failed calls of the top FAIL_POOL candidates are weighed, not only those of the top k
        assert FAILED in [h.text for h in m.recall("Why did the release build fail?", k=3)]
    finally:
        m.close()


def test_failed_first_reweighs_failed_calls_only_and_keeps_the_others_order():
    row = lambda i: {"id": i}  # noqa: E731

    class Root:
        scope = "project"

    r = Root()
    top = [(3.0, r, (row(1), 1, 1, 1, "assistant", {})), (2.0, r, (row(2), 1, 1, 1, "tool", {})),
           (1.9, r, (row(3), 1, 1, 1, "tool", {})), (1.0, r, (row(4), 1, 1, 1, "tool", {}))]
    full = {("project", 1): {"text": "the build → error in CI, said the reply"},  # not a tool: never weighed
            ("project", 2): {"text": "Bash: npm test → 12 passed"},
            ("project", 3): {"text": "Bash: ls → fine"},
            ("project", 4): {"text": FAILED}}
    out = failed_first(top, full, 4.0)
    assert [x[2][0]["id"] for x in out] == [4, 1, 2, 3]
    assert out[0][0] == 4.0 and out[0][2][5] == {"fail": 4.0} and out[1][2][5] == {}


def test_a_user_turn_pasting_a_failure_counts_as_failed_and_a_reply_does_not():
    pasted = "I am getting this error:\nFAILED tests/test_main.py::test_x - TypeError: main() got an unexpected keyword"
    assert failed("user", pasted)
    assert not failed("user", "please rename the build step to bundle")
    assert not failed("assistant", pasted)  # a reply quoting it is not the failure
    assert failed("tool", FAILED) and not failed("tool", "Bash: npm test → 12 passed")
