"""More time forms a host or an export may write (case C13/C25's siblings): ISO 8601's ``24:00`` (the next day's
midnight), Go's ``time.String()`` (``… +0000 UTC``, with a monotonic ``m=+…`` reading) and RFC 9557's zone in
brackets. Each was an unreadable timestamp, so ``memdir import`` skipped the whole record as a bad line."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

import memdir
from memdir.timeutil import parse_ts

UTC = timezone.utc


@pytest.mark.parametrize("text,want", [
    ("2026-11-30T24:00:00Z", datetime(2026, 12, 1, tzinfo=UTC)),
    ("2026-11-30T24:00+08:00", datetime(2026, 11, 30, 16, 0, tzinfo=UTC)),
    ("2026-11-30T24:00", datetime(2026, 11, 30, 16, 0, tzinfo=UTC)),  # local (Asia/Shanghai) midnight
    ("2026-11-30 09:15:00.000000 +0000 UTC", datetime(2026, 11, 30, 9, 15, tzinfo=UTC)),
    ("2026-11-30 09:15:00.5 +0800 CST m=+0.000123", datetime(2026, 11, 30, 1, 15, 0, 500000, tzinfo=UTC)),
    ("2026-11-30T09:15:00+08:00[Asia/Shanghai]", datetime(2026, 11, 30, 1, 15, tzinfo=UTC)),
    ("2026-11-30T09:15:00[Europe/Paris]", datetime(2026, 11, 30, 8, 15, tzinfo=UTC)),
    ("2026-11-30T09:15:00Z[UTC]", datetime(2026, 11, 30, 9, 15, tzinfo=UTC)),
])
def test_time_forms(monkeypatch, text, want):
    import time

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        assert parse_ts(text) == want
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize("bad", ["2026-11-30T24:00:01Z", "2026-11-30T25:00:00Z", "2026-11-30T09:15:00 CST"])
def test_what_is_no_time_stays_refused(bad):
    with pytest.raises(memdir.UsageError):
        parse_ts(bad)


def test_an_import_keeps_records_with_those_times(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    dump = tmp_path / "in.jsonl"
    rows = [{"type": "event", "key": f"e{i}", "role": "user", "text": f"imported turn number {i} about kafka",
             "session": "s", "ts": ts} for i, ts in enumerate(["2026-11-30T24:00:00Z", "2026-11-30 09:15:00 +0000 UTC",
                                                                "2026-11-30T09:15:00+08:00[Asia/Shanghai]"])]
    dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with memdir.open(proj, home=tmp_path / "g") as m:
        got = m.import_jsonl(dump)
        assert got.get("bad_lines", 0) == 0 and m.get("e0").ts == datetime(2026, 12, 1, tzinfo=UTC), got
        assert m.get("e1") is not None and m.get("e2").ts == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)


def test_a_zone_in_brackets_is_read_in_every_form_and_an_unknown_one_is_refused():
    from memdir.errors import UsageError
    from memdir.timeutil import parse_ts

    assert parse_ts("Nov 30 2026 09:15[Asia/Tokyo]").isoformat() == "2026-11-30T00:15:00+00:00"
    assert parse_ts("2026-11-30T09:15:00Z[u-ca=gregory]").isoformat() == "2026-11-30T09:15:00+00:00"
    for bad in ("2026-11-30T09:15:00[Mars/Base]", "2026-11-30 09:15 +08 in"):
        with pytest.raises(UsageError):
            parse_ts(bad)  # never read as another time without a word


@pytest.mark.parametrize("text,iso", [
    ("Mon Nov 30 09:15:00 UTC 2026[Asia/Tokyo]", "2026-11-30T09:15:00+00:00"),
    ("Mon Nov 30 2026 09:15:00 GMT+0800 (China Standard Time)[Asia/Shanghai]", "2026-11-30T01:15:00+00:00"),
    ("2026-11-30 09:15:00 +0800 CST[Asia/Shanghai]", "2026-11-30T01:15:00+00:00"),
    ("2026-11-30T09:15:00 utc[Asia/Tokyo]", "2026-11-30T09:15:00+00:00"),
    ("1764494100[Asia/Tokyo]", "2025-11-30T09:15:00+00:00"),
])
def test_a_time_that_names_its_zone_keeps_it_whatever_the_brackets_say(text, iso):
    from memdir.timeutil import parse_ts

    assert parse_ts(text).isoformat() == iso


def test_a_bracket_after_a_long_text_is_refused_at_once():
    from memdir.errors import UsageError
    from memdir.timeutil import parse_ts

    for bad in ("a" + " " * 100_000 + "b[Asia/Tokyo]", "x" + "[a]" * 30_000):
        with pytest.raises(UsageError):  # never a RecursionError
            parse_ts(bad)
