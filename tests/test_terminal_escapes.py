"""A command's coloured output (pytest's ``\\x1b[32mPASSED\\x1b[0m``, a progress line's ``\\x1b[2K``, a title set by
``\\x1b]0;…\\x07``) is stored as the text a terminal shows: the escape sequences hid the words from recall
(``32mpassed``) and put ``[32m`` markup in the block."""

from __future__ import annotations

import memdir
from memdir.notes.markdown import without_escapes

COLOURED = ("tests/unit/test_charm.py::test_config_validation_missing_host \x1b[32mPASSED\x1b[0m\n"
            "\x1b[1m\x1b[31mFAILED\x1b[0m tests/unit/test_charm.py::test_relation_broken - KeyError: 'inverter'\n"
            "\x1b]0;pytest\x07\x1b[2K\rcollected 13 items done")


def test_escape_sequences_are_left_out():
    out = without_escapes(COLOURED)
    assert "\x1b" not in out and "[32m" not in out and "]0;" not in out
    assert "test_config_validation_missing_host PASSED\nFAILED tests/unit" in out
    assert "collected 13 items done" in out
    assert without_escapes("plain [32m text, a bracket [0] and a\tTab") == "plain [32m text, a bracket [0] and a\tTab"


def test_cleaning_twice_is_cleaning_once_and_latin1_mojibake_stays():
    once = without_escapes("\x1b\x1b[0m[31mRED \x1b]unterminated title and \x1b")
    assert "\x1b" not in once and without_escapes(once) == once
    mojibake = "\u00e2\x80\x9cquote\u00e2\x80\x9d and \u00e2\x80\x9cmore"  # UTF-8 read as Latin-1: C1 code points
    assert without_escapes(mojibake) == mojibake


def test_a_coloured_output_is_stored_and_found_by_its_words(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        got = m.import_events([{"key": "t1", "role": "tool", "text": "Bash: pytest tests/unit → " + COLOURED,
                                "session": "s", "ts": 1_790_000_000},
                               {"key": "t2", "role": "tool", "text": "\x1b[0m\x1b[2K", "session": "s",
                                "ts": 1_790_000_001}])
        assert got["stored"] == 1  # nothing but escapes: no text
        text = m.get("t1").text
        assert "\x1b" not in text and "[0m" not in text
        hits = m.recall("which test failed with the inverter KeyError", k=3)
        assert hits and hits[0].id == "t1" and "fail" in hits[0].reasons["terms"]  # "\x1b[31mFAILED" read as "31mfailed"
        hits = m.recall("PASSED", k=3)
        assert hits and hits[0].id == "t1"


def test_an_event_without_a_key_keeps_the_key_it_had_before_escapes_were_left_out(tmp_path):
    """Its key is the hash of the text as stored before (escapes in): the same line imported again, or a tombstone
    left by forgetting it then, still finds it."""
    from datetime import datetime, timezone

    from memdir.capture.events import bound_text, import_row, redact_text
    from memdir.notes.markdown import content_hash

    raw = "deploy log: \x1b[33mDEBUG=1\x1b[0m set for the canary"
    row, _ = import_row({"text": raw, "role": "tool", "source": "jsonl"}, datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert row["text"] == "deploy log: DEBUG=1 set for the canary"
    assert row["ref"] == "import:jsonl:" + content_hash(bound_text(redact_text(raw).strip()))[:16]
    plain, _ = import_row({"text": "no escapes here", "role": "tool"}, datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert plain["ref"] == "import:jsonl:" + plain["content_sha256"][:16]


def test_a_capture_of_nothing_but_escapes_is_not_called_forgotten(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        r = m.capture({"role": "assistant", "text": "\x1b[0m\x1b[2K\x1b[?25h", "session": "s"})
        assert not r.stored and r.reason != "tombstoned", r
        r = m.capture({"role": "assistant", "text": "\x1b[32mAll 13 tests passed\x1b[0m after the fix", "session": "s"})
        assert r.stored and "\x1b" not in m.get(r.key).text
