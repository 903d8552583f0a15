"""A date in RFC 2822's form written without a zone ("30 Nov 2026 09:15") is the machine's local time, as every time
without a zone is (docs/API.md: "a time without a zone … is the machine's local time"); "-0000", "GMT" and the
numeric offsets still name their zone."""

from __future__ import annotations

import time

import pytest

from memdir.timeutil import parse_ts


@pytest.fixture
def shanghai(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_an_rfc2822_date_without_a_zone_is_local_time(shanghai):
    assert parse_ts("30 Nov 2026 09:15").isoformat() == parse_ts("2026-11-30 09:15").isoformat() \
        == "2026-11-30T01:15:00+00:00"
    assert parse_ts("Mon, 30 Nov 2026 09:15:00").isoformat() == "2026-11-30T01:15:00+00:00"


@pytest.mark.parametrize("text, want", [
    ("Mon, 30 Nov 2026 09:15:00 +0800", "2026-11-30T01:15:00+00:00"),
    ("30 Nov 2026 09:15:00 -0000", "2026-11-30T09:15:00+00:00"),
    ("30 Nov 2026 09:15:00 GMT", "2026-11-30T09:15:00+00:00"),
    ("Mon, 30 Nov 2026 09:15:00 +0000 (UTC)", "2026-11-30T09:15:00+00:00"),
])
def test_a_zone_written_is_kept(shanghai, text, want):
    assert parse_ts(text).isoformat() == want
