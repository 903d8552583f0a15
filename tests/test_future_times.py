"""Siblings of case C13 (times ahead of the clock): an event or note whose time is in the future (a machine whose
clock ran ahead, a typo, ``9999-12-31``) got decay 1, the weight of a memory made this instant, for as long as the
clock stayed behind it, so it outranked every ordinary memory of the same words for years; and its heat never fell,
so it stayed hot. A time ahead now counts by its distance from the clock, as one behind it does."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import memdir
from memdir.engine import tiers
from memdir.recall import rank

UTC = timezone.utc


@pytest.mark.parametrize("curve", ["exponential", "hyperbolic"])
@pytest.mark.parametrize("days", [0.5, 14, 28, 3650, 2_900_000])
def test_decay_of_a_time_ahead_is_that_of_one_as_far_behind(curve, days):
    behind = rank.decay(days, 14, 0.3, curve=curve)
    assert rank.decay(-days, 14, 0.3, curve=curve) == behind
    assert 0.3 <= behind < 1


def test_decay_stays_one_for_now_and_for_pinned_and_for_no_decay():
    assert rank.decay(0, 14, 0.3) == 1.0
    assert rank.decay(-400, 14, 0.3, pinned=True) == 1.0
    assert rank.decay(-400, 0, 0.3) == 1.0


def _ev(key, text, ts):
    return {"key": key, "role": "user", "text": text, "session": "s", "ts": ts}


@pytest.mark.parametrize("ahead", ["9999-12-31T23:59:59Z", "2036-11-01T12:00:00Z"])
def test_an_event_dated_ahead_does_not_outrank_todays_for_ever(m, clock, ahead):
    today = clock.now - timedelta(hours=1)
    m.import_events([_ev("ahead", "the deploy script uses rsync over ssh", ahead),
                     _ev("today", "the deploy script uses rsync over ssh now", today)])
    hits = m.recall("deploy script rsync", k=5)
    assert [h.id for h in hits][0] == "today", [(h.id, h.score, h.reasons.get("decay")) for h in hits]
    assert all(0 < h.reasons["decay"] <= 1 for h in hits)
    assert next(h for h in hits if h.id == "ahead").reasons["decay"] < 1


def test_an_event_dated_ahead_starts_its_heat_now_and_cools(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock) as m:
        m.import_events([_ev("ahead", "a turn a machine dated a year ahead", clock.now + timedelta(days=365))])
        m.sweep()
        clock.now += timedelta(days=200)
        counts = m.sweep()["project"]
        assert counts["hot"] == 0 and counts["warm"] == 0, counts
