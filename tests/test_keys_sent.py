"""What an agent typed into a running command (Codex's ``write_stdin``): the keys by the names people use for them
(``Ctrl-C``, ``Enter``, ``Esc``), not the escape codes a JSON string holds (``'\\x03'``), so "why could the agent not
send Ctrl-C" finds the call."""

from __future__ import annotations

import pytest

from memdir.capture.tools import keys_text, primary_arg


@pytest.mark.parametrize("chars,shown", [
    ("\x03", "Ctrl-C"),
    ("\x04", "Ctrl-D"),
    ("q\n", "'q' Enter"),
    ("yes\r", "'yes' Enter"),
    ("\x1b", "Esc"),
    ("\x1b[A\x1b[A\r", "Up Up Enter"),
    ("\t", "Tab"),
    ("\x7f\x7f", "Backspace Backspace"),
    (":wq\n", "':wq' Enter"),
    ("plain text", "'plain text'"),
    ("", "''"),
    ("\x00", "Ctrl-@"),
])
def test_keys_by_name(chars, shown):
    assert keys_text(chars) == shown


def test_a_write_stdin_call_reads_as_the_keys_it_sent():
    assert primary_arg({"session_id": 7, "chars": "\x03"}) == "input Ctrl-C"
    assert primary_arg({"session_id": 7, "chars": ""}) == "poll"
