"""A command's coloured output (pytest's ``\\x1b[32mPASSED\\x1b[0m``, a progress line's ``\\x1b[2K``, a title set by
``\\x1b]0;…\\x07``) is stored as the text a terminal shows: the escape sequences hid the words from recall
(``32mpassed``) and put ``[32m`` markup in the block."""

from __future__ import annotations

import memdir
from memdir.notes.markdown import without_escapes

COLOURED = ("tests/unit/test_charm.py::test_config_validation_missing_host \x1b[32mPASSED\x1b[0m\n"
            "\x1b[1m\x1b[31mFAILED\x1b[0m tests/unit/test_charm.py::test_relation_broken - KeyError: 'inverter'\n"
            "\x1b]0;pytest\x07\x1b[2K\rcollected 13 items \x9b1mdone\x9b0m")


def test_escape_sequences_are_left_out():
    out = without_escapes(COLOURED)
    assert "\x1b" not in out and "\x9b" not in out and "[32m" not in out and "]0;" not in out
    assert "test_config_validation_missing_host PASSED\nFAILED tests/unit" in out
    assert "collected 13 items done" in out
    assert without_escapes("plain [32m text, a bracket [0] and a\tTab") == "plain [32m text, a bracket [0] and a\tTab"


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
