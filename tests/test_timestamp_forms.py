"""Times as machines and people commonly write them, beside ISO 8601 and RFC 2822 (cases C13, C25): an ISO time whose
zone follows a space or is named (``date -u '+%F %T %Z'``, a log line's ``09:15:00.123 +0800``), the ``date`` /
``ctime`` form, ``git log``'s default form and JavaScript's ``Date.toString()``. Each was an "unreadable timestamp"
that made ``memdir import`` skip the record whole. A zone written is kept; none, or the machine's own zone's name, is
local time; a zone's name that says nothing certain (``CST`` elsewhere) is still refused."""

from __future__ import annotations

import json
import time

import pytest

from memdir.errors import UsageError
from memdir.timeutil import parse_ts


@pytest.fixture
def shanghai(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("text, want", [
    ("2026-11-30 09:15:00 UTC", "2026-11-30T09:15:00+00:00"),
    ("2026-11-30T09:15:00 GMT", "2026-11-30T09:15:00+00:00"),
    ("2026-11-30 09:15:00.123 +0800", "2026-11-30T01:15:00.123000+00:00"),
    ("2026-11-30 09:15:00,5 +08:00", "2026-11-30T01:15:00.500000+00:00"),
    ("2026-11-30 09:15 -05:00", "2026-11-30T14:15:00+00:00"),
    ("Mon Nov 30 09:15:00 2026", "2026-11-30T01:15:00+00:00"),            # ctime: local
    ("Mon Nov 30 09:15:00 CST 2026", "2026-11-30T01:15:00+00:00"),        # date: this machine's zone's name
    ("Mon Nov 30 09:15:00 UTC 2026", "2026-11-30T09:15:00+00:00"),
    ("Mon Nov  2 09:15:00 2026 +0800", "2026-11-02T01:15:00+00:00"),      # git log's default
    ("Mon Nov 30 2026 09:15:00 GMT-0500 (Eastern Standard Time)", "2026-11-30T14:15:00+00:00"),  # JS Date
    ("Nov 30 2026 09:15", "2026-11-30T01:15:00+00:00"),
])
def test_common_written_forms_are_read(shanghai, text, want):
    assert parse_ts(text).isoformat() == want


@pytest.mark.parametrize("text", ["Mon Nov 30 09:15:00 PST 2026", "Mon Foo 30 09:15:00 2026", "2026-11-30 09:15:00 XYZ",
                                  "Mon Nov 31 09:15:00 2026", "Nov 30 2026 25:15", "Nov 30 09:15:00 2026 2027"])
def test_what_names_no_certain_time_is_still_refused(shanghai, text):
    with pytest.raises(UsageError):
        parse_ts(text)


def test_an_import_of_such_records_stores_them(shanghai, project, tmp_path):
    import memdir

    lines = [{"role": "user", "text": f"deploy step {n} of the kafka rollout", "session": "s", "ts": ts}
             for n, ts in enumerate(["2026-11-30 09:15:00 UTC", "Mon Nov 30 09:16:00 CST 2026",
                                     "2026-11-30 09:17:00.123 +0800"])]
    f = tmp_path / "t.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_jsonl(f)
        got = sorted(e.ts.isoformat() for e in (m.get(h.id) for h in m.recall("kafka rollout", k=10)))
    assert got == ["2026-11-30T01:16:00+00:00", "2026-11-30T01:17:00.123000+00:00", "2026-11-30T09:15:00+00:00"]
