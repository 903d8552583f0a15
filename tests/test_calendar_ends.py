"""Siblings of case C13 (far past / far future): a time near the ends of the calendar. Go's zero time
``0001-01-01T00:00:00Z`` (what a Go tool writes for "no time") or any year below 1000 was stored as ``1-01-01T…``
(strftime's unpadded ``%Y``), which memdir could not read back: from then on every recall, context block and prompt
hook of that project failed, and an export of it could not be imported. A time whose local wall clock falls outside
years 1..9999 (``0001-01-01`` west of Greenwich, ``9999-12-31`` east of it) raised ``OverflowError`` on display."""

import json
import os
import time
from datetime import datetime, timezone

import pytest

from memdir.timeutil import iso, local, local_text, parse_ts

from conftest import run_cli

UTC = timezone.utc


@pytest.mark.parametrize("when", [datetime(1, 1, 1, tzinfo=UTC), datetime(999, 12, 31, 10, 0, tzinfo=UTC),
                                  datetime(45, 6, 7, 8, 9, 10, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)])
def test_a_time_near_the_calendar_ends_is_written_so_it_reads_back(when):
    text = iso(when)
    assert text[:4] == f"{when.year:04d}", text
    assert parse_ts(text) == when


def test_a_short_year_an_older_version_stored_still_reads():
    assert parse_ts("1-01-01T00:00:00.000Z") == datetime(1, 1, 1, tzinfo=UTC)
    assert parse_ts("999-12-31T10:00:00.000Z") == datetime(999, 12, 31, 10, tzinfo=UTC)


@pytest.fixture
def zone(monkeypatch):
    def set_zone(name):
        monkeypatch.setenv("TZ", name)
        time.tzset()
    yield set_zone
    monkeypatch.undo()
    time.tzset()


@pytest.mark.skipif(not hasattr(time, "tzset"), reason="needs time.tzset")
@pytest.mark.parametrize("name,when", [("America/New_York", datetime(1, 1, 1, tzinfo=UTC)),
                                       ("Asia/Shanghai", datetime(9999, 12, 31, 23, 0, tzinfo=UTC))])
def test_a_time_whose_local_clock_leaves_the_calendar_is_shown_not_raised(zone, name, when):
    zone(name)
    assert local(when) == when
    assert local_text(when)[:4] == f"{when.year:04d}"


def _lines(path, rows):
    path.write_text("".join(json.dumps({"text": t, "ts": ts, "session": "go"}) + "\n" for t, ts in rows),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("zone_name", ["UTC", "America/New_York", "Asia/Shanghai"])
def test_one_event_at_go_zero_time_does_not_break_recall_context_or_export(project, tmp_path, capsys, zone, zone_name):
    zone(zone_name)
    src = _lines(tmp_path / "times.jsonl", [("the sidecar wrote its zero time for the deploy event", "0001-01-01T00:00:00Z"),
                                             ("the deploy event of the tenth century", "0950-05-05T05:05:05Z"),
                                             ("the deploy event at the end of the calendar", "9999-12-31T23:59:59Z"),
                                             ("an ordinary deploy event", "2026-03-01T10:00:00Z")])
    base = ["--dir", str(project), "--home", str(tmp_path / "g")]
    code, out, err = run_cli(capsys, *base, "import", str(src))
    assert code == 0, err
    code, out, err = run_cli(capsys, *base, "recall", "deploy event", "-k", "10")
    assert code == 0 and "Traceback" not in err and err == "", err
    assert out.count("deploy event") == 4, out
    code, out, err = run_cli(capsys, *base, "recent", "-n", "10")
    assert code == 0 and err == "", err
    code, out, err = run_cli(capsys, *base, "context", "deploy event")
    assert code == 0 and "<memory>" in out, err
    dump = tmp_path / "dump.jsonl"
    code, out, err = run_cli(capsys, *base, "export", str(dump))
    assert code == 0, err
    times = sorted(json.loads(line)["ts"] for line in dump.read_text(encoding="utf-8").splitlines()
                   if json.loads(line).get("type") == "event")
    assert times == ["0001-01-01T00:00:00.000Z", "0950-05-05T05:05:05.000Z", "2026-03-01T10:00:00.000Z",
                     "9999-12-31T23:59:59.000Z"]
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    code, out, err = run_cli(capsys, "--dir", str(other), "--home", str(tmp_path / "g2"), "--json", "import", str(dump))
    assert code == 0, err
    assert json.loads(out)["stored"] == 4, out
    assert os.environ.get("TZ") == zone_name


LAST = datetime.max.replace(tzinfo=UTC)
FIRST = datetime.min.replace(tzinfo=UTC)


@pytest.mark.skipif(not hasattr(time, "tzset"), reason="needs time.tzset")
@pytest.mark.parametrize("name", ["America/New_York", "Europe/London", "Asia/Shanghai", "UTC"])
@pytest.mark.parametrize("value,end", [("0001-01-01 00:00:00", FIRST), (datetime(1, 1, 1), FIRST), ("0001-01-01", FIRST),
                                       ("0001-01-01T00:00:00+08:00", FIRST), ("9999-12-31 23:59:59", LAST),
                                       (datetime(9999, 12, 31, 23, 59), LAST), ("9999-12-31T23:59:59-05:00", LAST)])
def test_a_time_whose_utc_instant_leaves_the_calendar_is_read_not_dropped(zone, name, value, end):
    """Go's zero time without a zone (``time.Time{}`` formatted as ``2006-01-02 15:04:05``) is local time: west of
    Greenwich (and, by the platform's look-up of the offset, anywhere) its UTC instant or that look-up left years
    1..9999, and the event holding it was skipped as unreadable: lost at import. Now it is the calendar's nearest
    time, within a day of what was written."""
    zone(name)
    got = parse_ts(value)
    assert got.tzinfo is not None and abs(got - end).days <= 1, got


@pytest.mark.parametrize("value,want", [("2016-12-31T23:59:60Z", datetime(2016, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
                                        ("2016-12-31T23:59:60.5+00:00", datetime(2016, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
                                        ("2017-01-01T08:59:60+09:00", datetime(2016, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
                                        ("Sat, 31 Dec 2016 23:59:60 +0000", datetime(2016, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))])
def test_a_leap_second_is_read_as_the_last_instant_of_its_minute(value, want):
    """RFC 3339 allows second 60 (a leap second, as an NTP-synced log writes it); it made the event unreadable and
    skipped. It sorts after the minute's second 59 and before the next minute."""
    assert parse_ts(value) == want


def test_events_at_a_leap_second_and_at_go_zero_time_are_stored(project, tmp_path, capsys, zone):
    zone("America/New_York")
    src = _lines(tmp_path / "times.jsonl", [("the leap second deploy event", "2016-12-31T23:59:60Z"),
                                             ("the zero time deploy event", "0001-01-01 00:00:00"),
                                             ("the next deploy event", "2017-01-01T00:00:00Z")])
    base = ["--dir", str(project), "--home", str(tmp_path / "g")]
    code, out, err = run_cli(capsys, *base, "--json", "import", str(src))
    assert code == 0 and json.loads(out)["stored"] == 3, (out, err)
    code, out, err = run_cli(capsys, *base, "--json", "recent", "-n", "10")
    assert [h["text"] for h in json.loads(out)] == ["the next deploy event", "the leap second deploy event",
                                                    "the zero time deploy event"]
