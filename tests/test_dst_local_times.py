"""Siblings of case C25 (a naive time is local time) at a daylight-saving change. A wall-clock time the clock skipped
(``2026-03-08 02:30`` in New York) was read with the offset after the change, one hour earlier than the same time
written with its zone in brackets (``…[America/New_York]``, read by ``zoneinfo``), and shown back as ``01:30``,
before the change; where the clock skips midnight (Santiago, Havana, Beirut) a date alone became a time on the day
before, shown as that day. A skipped time is now read with the offset before the change (PEP 495, ``zoneinfo``,
JavaScript, Java): it lands just after the change, on its own day. A time the clock repeats keeps its first pass."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from memdir.timeutil import iso, local_text, parse_ts

UTC = timezone.utc
pytestmark = pytest.mark.skipif(not hasattr(time, "tzset"), reason="needs time.tzset")


@pytest.fixture
def zone(monkeypatch):
    def set_zone(name):
        monkeypatch.setenv("TZ", name)
        time.tzset()
    yield set_zone
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("name,wall,utc", [
    ("America/New_York", "2026-03-08 02:30", "2026-03-08T07:30:00.000Z"),
    ("America/New_York", "2026-03-08T02:00:00", "2026-03-08T07:00:00.000Z"),
    ("Europe/Berlin", "2026-03-29 02:15", "2026-03-29T01:15:00.000Z"),
])
def test_a_skipped_wall_time_reads_as_its_zone_named_in_brackets_does(zone, name, wall, utc):
    zone(name)
    got = parse_ts(wall)
    assert iso(got) == utc
    assert got == parse_ts(f"{wall.replace(' ', 'T')}[{name}]")
    assert got == parse_ts(datetime.fromisoformat(wall))  # a naive datetime the same
    assert local_text(got) > wall.replace("T", " ")[:16]  # shown after the change, never before it


@pytest.mark.parametrize("name,day", [("America/Santiago", "2026-09-06"), ("America/Havana", "2026-03-08"),
                                      ("Asia/Beirut", "2026-03-29")])
def test_a_date_alone_on_a_day_whose_midnight_is_skipped_stays_on_its_day(zone, name, day):
    zone(name)
    assert local_text(parse_ts(day), minutes=False) == day


def test_a_repeated_wall_time_keeps_its_first_pass_and_ordinary_times_do_not_move(zone):
    zone("America/New_York")
    assert iso(parse_ts("2026-11-01 01:30")) == "2026-11-01T05:30:00.000Z"
    assert iso(parse_ts("2026-03-08 01:59")) == "2026-03-08T06:59:00.000Z"
    assert iso(parse_ts("2026-03-08 03:00")) == "2026-03-08T07:00:00.000Z"
    assert iso(parse_ts("2026-07-04 12:00")) == "2026-07-04T16:00:00.000Z"
