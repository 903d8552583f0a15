"""Size arguments of the API given as other things than a small whole number (case C19's siblings): ``recall(k=0)``
gives no hits (it gave the default 8: 0 means none, as for ``context``), a negative ``k`` or ``limit`` is a
``UsageError`` (it gave ``[]`` or one hit), infinity, NaN, ``True`` and strings are ``UsageError`` (they raised
``OverflowError``/``ValueError`` or counted as 1), and a huge int asks for all there is (it raised ``OverflowError``
from SQLite)."""

from __future__ import annotations

import pytest

import memdir
from memdir.errors import UsageError


@pytest.fixture()
def m(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        for i in range(5):
            m.remember(f"deploy step {i}: run the canary rollout for service {i}")
        yield m


def test_zero_means_none_and_negative_is_a_usage_error(m):
    assert m.recall("canary rollout", k=0) == []
    assert m.recent(limit=0) == []
    assert m.context("canary rollout", max_entries=0) == ""
    assert m.explain("canary rollout", k=0)["hits"] == []  # explain reads k as recall does
    for call in (lambda: m.recall("canary rollout", k=-1), lambda: m.recent(limit=-3),
                 lambda: m.explain("canary rollout", k=-1)):
        with pytest.raises(UsageError):
            call()


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan"), True, "3", [3]])
def test_a_count_that_is_no_number_is_a_usage_error(m, bad):
    for call in (lambda: m.recall("canary rollout", k=bad), lambda: m.recent(limit=bad),
                 lambda: m.context("canary rollout", max_chars=bad), lambda: m.context("canary rollout", max_entries=bad)):
        with pytest.raises(UsageError):
            call()


def test_a_huge_count_asks_for_all_there_is(m):
    huge = 10 ** 30
    assert len(m.recall("canary rollout", k=huge)) == 5
    assert len(m.recent(limit=huge)) == 5
    block = m.context("canary rollout", max_entries=huge, max_chars=huge)
    assert "canary rollout for service" in block and block.endswith("</memory>")
    assert len(m.recall("canary rollout", k=2.9)) == 2
