"""Hostile text and times: naive local times (C25), bare and labelled secrets (C26, C44), accent folding (C31)."""

import json
import time
from datetime import date, datetime, timedelta, timezone

import pytest

import memdir
from memdir import timeutil
from tests.conftest import run_cli

UTC = timezone.utc


@pytest.fixture
def shanghai(monkeypatch):
    """The machine's zone is Asia/Shanghai (UTC+8, no DST) for the test."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


# ---- C25: a naive time is the machine's local time ------------------------------------------------------------
@pytest.mark.parametrize("value", ["2026-11-30 09:15", "2026-11-30T09:15", "2026-11-30T09:15:00.000",
                                   "2026/11/30 09:15", "9:15 am on 30 November, 2026", datetime(2026, 11, 30, 9, 15)])
def test_c25_naive_times_are_local(shanghai, value):
    assert timeutil.parse_ts(value) == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)


@pytest.mark.parametrize("value,want", [("2026-11-30T09:15Z", datetime(2026, 11, 30, 9, 15, tzinfo=UTC)),
                                        ("2026-11-30T09:15+08:00", datetime(2026, 11, 30, 1, 15, tzinfo=UTC)),
                                        ("2026-11-30T09:15-05:00", datetime(2026, 11, 30, 14, 15, tzinfo=UTC)),
                                        (1796001300, datetime(2026, 11, 30, 1, 15, tzinfo=UTC)),
                                        ("2026-11-30", datetime(2026, 11, 29, 16, 0, tzinfo=UTC)),
                                        (date(2026, 11, 30), datetime(2026, 11, 29, 16, 0, tzinfo=UTC))])
def test_c25_zoned_and_epoch_times_ignore_the_local_zone_dates_are_local_midnight(shanghai, value, want):
    assert timeutil.parse_ts(value) == want


def test_c25_iso_of_a_naive_time_agrees_with_parse_ts(shanghai):
    naive = datetime(2026, 11, 30, 9, 15)
    assert timeutil.iso(naive) == "2026-11-30T01:15:00.000Z" == timeutil.iso(timeutil.parse_ts(naive))
    assert timeutil.parse_ts(timeutil.iso(naive)) == timeutil.parse_ts(naive)  # read back: it does not move
    assert timeutil.local_text(timeutil.parse_ts(naive)) == "2026-11-30 09:15"


def test_c25_captured_and_imported_naive_times_are_stored_as_utc_and_shown_local(shanghai, project, tmp_path, capsys,
                                                                                monkeypatch):
    with memdir.open(project, home=tmp_path / "g") as m:
        r = m.capture({"role": "user", "text": "deploy the billing service to staging", "session": "s1",
                       "ts": "2026-11-30 09:15"})
        assert r.stored, r
        assert m.get(r.key).ts == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)
        c = m.import_events([{"key": "imp:1", "role": "user", "text": "rotate the staging certificates",
                              "session": "s2", "ts": datetime(2026, 11, 30, 9, 16)},
                             {"key": "imp:2", "role": "user", "text": "rename the queue to billing-jobs",
                              "session": "s2", "ts": "2026-11-30T09:17+08:00"}])
        assert c["stored"] == 2
        assert m.get("imp:1").ts == datetime(2026, 11, 30, 1, 16, tzinfo=UTC)
        assert m.get("imp:2").ts == datetime(2026, 11, 30, 1, 17, tzinfo=UTC)
        m.export(tmp_path / "out.jsonl")
        block = m.context("billing staging certificates queue", max_chars=4000)
    rows = [json.loads(ln) for ln in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    stamps = {r.get("key"): r.get("ts") for r in rows if r.get("type") == "event"}
    assert stamps["imp:1"].startswith("2026-11-30T01:16:00") and stamps["imp:1"].endswith("Z")  # export: UTC, Z
    assert "11-30" in block and "11-29" not in block
    code, out, _ = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "recent")
    assert code == 0 and "2026-11-30 09:15" in out and "2026-11-30 09:16" in out and "01:15" not in out
    code, out, _ = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "--json", "recent")
    assert "2026-11-30T01:15:00" in out  # machine-readable: UTC


def test_c25_importers_read_naive_file_times_as_local(shanghai, tmp_path):
    from memdir.portability.importers import aider, textlog

    assert textlog.time_from_name("2026-11-30_09-15-notes.md") == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)
    assert textlog.time_from_name("2026-11-30_09-15Z-notes.md") == datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    hist = tmp_path / ".aider.chat.history.md"
    hist.write_text("# aider chat started at 2026-11-30 09:15:00\n\n#### make the deploy script idempotent\n\n"
                    "Sure, I will change deploy.sh so a second run does nothing.\n", encoding="utf-8")
    evs = list(aider.iter_aider(hist))
    assert evs and timeutil.parse_ts(evs[0]["ts"]) == datetime(2026, 11, 30, 1, 15, tzinfo=UTC)
