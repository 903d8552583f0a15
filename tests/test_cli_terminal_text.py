"""What a person reads in a terminal: the CLI's human lines (recall, get, recent, inspect, previews, summaries).

A note typed by hand (or a text an older memdir stored) can hold a terminal's escape sequences; a line cut for a
person must not split a character a terminal draws as one (a ZWJ emoji, a flag, a letter with its accent); times a
person reads are local; counts read as English (``1 event``, not ``1 events``)."""

from __future__ import annotations

import json
import re

import click.utils
import pytest

from conftest import run_cli


@pytest.fixture
def base(project, tmp_path):
    return ("--dir", str(project), "--home", str(tmp_path / "g"))


#: C0 controls a terminal acts on (all but tab and line feed), ESC among them, and the C1 controls
_ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_a_hand_typed_note_holding_escape_sequences_never_drives_the_terminal(base, project, capsys, monkeypatch):
    """On a terminal click passes colour codes through: a note file holding ``ESC[2J`` (clear screen), an OSC title
    (``ESC]0;…BEL``), a bell or a carriage return that overwrites the line must reach the screen as text only."""
    monkeypatch.setattr(click.utils, "should_strip_ansi", lambda *a, **k: False)  # as on a TTY
    code, out, err = run_cli(capsys, *base, "remember", "placeholder so the project root exists")
    assert code == 0, err
    (project / ".memory" / "facts" / "esc.md").write_text(
        '---\nsummary: "red \\x1b[31mALERT\\x1b[0m title"\n---\n'
        "deploy body \x1b[2J cleared and \x1b]0;pwned\x07 titled, a bell\x07 and fake\rOVERWRITE \x9b31m c1\n",
        encoding="utf-8")
    for args in (("recall", "deploy body"), ("get", "facts/esc"), ("recent",), ("inspect",),
                 ("forget", "--query", "deploy body"), ("context", "deploy body cleared")):
        code, out, err = run_cli(capsys, *base, *args)
        assert code == 0, (args, err)
        assert not _ACTING.search(out + err), (args, out)
        if args[0] in ("recall", "get"):
            assert "deploy body" in out and "titled" in out, (args, out)
    code, out, err = run_cli(capsys, *base, "--json", "get", "facts/esc")
    assert code == 0 and "\x1b]0;pwned\x07" in json.loads(out)["text"]  # the machine-readable copy is as stored
