"""Siblings of case C13's epoch milliseconds: epoch microseconds (PostgreSQL, Chrome) and nanoseconds
(``time.time_ns()``, Go's ``UnixNano``, OpenTelemetry), as numbers or numeric strings, and an RFC 2822 date (an HTTP
``Date`` header, an e-mail's). Each is read as the instant it names and stored as aware UTC, in order; before, an
event holding one was refused as "invalid" by capture and skipped by an import (lost)."""

from datetime import datetime, timedelta, timezone

import pytest

from memdir.timeutil import parse_ts

UTC = timezone.utc
WHEN = datetime(2026, 3, 1, 10, 0, 0, 123456, tzinfo=UTC)
US = int(WHEN.timestamp()) * 10**6 + 123456
NS = US * 1000 + 789


@pytest.mark.parametrize("value,expected", [
    (US, WHEN),
    (str(US), WHEN),
    (NS, WHEN),
    (str(NS), WHEN),
    (float(US), WHEN.replace(microsecond=123456)),
    (-US, datetime(1970, 1, 1, tzinfo=UTC) - (WHEN - datetime(1970, 1, 1, tzinfo=UTC))),
    ("Sun, 01 Mar 2026 18:00:00 +0800", WHEN.replace(microsecond=0)),
    ("Sun, 01 Mar 2026 10:00:00 GMT", WHEN.replace(microsecond=0)),
    ("01 Mar 2026 10:00:00 -0000", WHEN.replace(microsecond=0)),
])
def test_epoch_micro_and_nanoseconds_and_rfc2822(value, expected):
    got = parse_ts(value)
    assert got.utcoffset() == timedelta(0)
    assert abs(got - expected) < timedelta(milliseconds=1), got


def test_the_units_below_keep_their_meaning():
    assert parse_ts(1772359200) == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)  # seconds
    assert parse_ts(1772359200123) == datetime(2026, 3, 1, 10, 0, 0, 123000, tzinfo=UTC)  # milliseconds


def _user(text, ts):
    return {"role": "user", "text": text, "session": "s1", "ts": ts}


def test_capture_and_import_store_events_with_these_times_in_order(m):
    base = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    secs = int(base.timestamp())
    forms = [("first: the epoch microseconds event", secs * 10**6),
             ("second: the epoch nanoseconds event", (secs + 3600) * 10**9),
             ("third: the rfc 2822 date event", "Sun, 01 Mar 2026 18:00:00 +0800")]
    keys = []
    for text, ts in forms:
        r = m.capture(_user(text, ts))
        assert r.stored, r
        keys.append(r.key)
    counts = m.import_events([{"key": "imp:ns", "role": "user", "text": "fourth: an imported nanoseconds event",
                               "session": "s2", "ts": str((secs + 3 * 3600) * 10**9)}])
    assert counts["stored"] == 1, counts
    evs = [m.get(k) for k in [*keys, "imp:ns"]]
    assert [e.ts.hour for e in evs] == [8, 9, 10, 11]
    assert all(e.ts.utcoffset() == timedelta(0) for e in evs)
