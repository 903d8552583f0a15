"""Siblings of case C13's epoch numbers written as strings. An eight-digit date in ISO 8601's basic form
(``20261130``: ``date +%Y%m%d``, a log's or a file name's date) was read as epoch seconds, a day of 1970, while
``20261130T0915`` beside it was read as the date it is; and an epoch string in a form a number takes elsewhere
(``1.5e12``, ``+1772359200``) was refused, though the same value as a JSON number was read."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

import memdir
from memdir.timeutil import parse_ts

UTC = timezone.utc


@pytest.fixture
def shanghai(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("text,want", [
    ("20261130", datetime(2026, 11, 29, 16, 0, tzinfo=UTC)),  # local midnight, as 2026-11-30 is
    (" 19991231 ", datetime(1999, 12, 30, 16, 0, tzinfo=UTC)),
])
def test_an_eight_digit_date_is_that_date(shanghai, text, want):
    assert parse_ts(text) == want == parse_ts(text.strip()[:4] + "-" + text.strip()[4:6] + "-" + text.strip()[6:])


@pytest.mark.parametrize("text", ["1.5e12", "1.5E+12", "+1500000000000", "+1500000000", "1500000000.0e0"])
def test_an_epoch_string_in_any_form_of_a_number_is_read_as_that_number(text):
    assert parse_ts(text) == parse_ts(float(text)) == datetime(2017, 7, 14, 2, 40, tzinfo=UTC)


@pytest.mark.parametrize("value", [20261130, 12345678, "12345678", "20261345"])
def test_numbers_and_eight_digits_that_are_no_date_stay_epoch_seconds(value):
    assert parse_ts(value) == datetime.fromtimestamp(int(value), UTC)


@pytest.mark.parametrize("text", ["1e400", "+", "1e", "e5", "--5", "1.5e12.3"])
def test_what_is_no_number_is_still_refused(text):
    with pytest.raises(memdir.UsageError):
        parse_ts(text)


@pytest.mark.parametrize("text,want", [
    ("2026", datetime(2025, 12, 31, 16, 0, tzinfo=UTC)),  # local Jan 1, as 2026-01-01 is
    (" 1999 ", datetime(1998, 12, 31, 16, 0, tzinfo=UTC)),
])
def test_a_four_digit_string_is_that_year(shanghai, text, want):
    """``parse_ts("2026")`` was 1970-01-01T00:33:46Z, epoch seconds, with no error: a year written alone (ISO 8601's
    reduced form) is that year's first local day."""
    assert parse_ts("٢٠٢٦") == parse_ts("2026")  # digits of another script too
    assert parse_ts(text) == want == parse_ts(text.strip() + "-01-01")


@pytest.mark.parametrize("text", ["1", "0", "42", "123", "12345", "202611", "1234567"])
def test_a_digit_string_that_is_no_year_stays_epoch_seconds(text):
    """Other digit strings are epoch seconds as written (``distill --since 0`` asks for every turn, its help says
    "or epoch seconds"); only four digits read as a year."""
    assert parse_ts(text) == parse_ts(int(text))


def test_year_zero_is_refused():
    with pytest.raises(memdir.UsageError, match="timestamp"):
        parse_ts("0000")


@pytest.mark.parametrize("value", [2026, 202611, 0, 1234567, 2026.0])
def test_epoch_numbers_stay_epoch_numbers(value):
    assert parse_ts(value) == datetime.fromtimestamp(value, UTC)


def test_an_imported_event_dated_by_a_year_string_is_stored_in_that_year(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": "k1", "role": "user", "text": "the release train leaves on fridays", "session": "s",
                          "ts": "2026"}])
        assert m.get("k1").ts.astimezone().year == 2026


def test_a_year_typed_into_a_note_s_frontmatter_is_that_year(project, tmp_path):
    """``created: 2026`` in a hand-written note is a number to YAML, and was read as epoch seconds (1970-01-01)."""
    path = project / ".memory" / "facts" / "yearly.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nsummary: yearly\ncreated: 2026\nupdated: 2027\n---\nthe yearly gadget audit\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.get("facts/yearly")
        assert (note.created.astimezone().year, note.updated.astimezone().year) == (2026, 2027), note
        assert note.created == parse_ts("2026")
