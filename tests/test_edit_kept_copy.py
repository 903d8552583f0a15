"""An edit made in $EDITOR that is refused keeps the person's text in a temporary file, as said; a token typed into
it lay there in plain text (a walkthrough found dozens of such files in /tmp). The kept copy is redacted as a save
would store it; the rest of the text is kept whole."""

from __future__ import annotations

import re
import sys

import click

import memdir
from conftest import run_cli

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def test_a_refused_editor_edit_keeps_the_text_redacted(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember("deploys go through helm charts", category="decisions")
    typed = f"---\nsummary: [broken\n---\ndeploys go through helm charts, the bot's token is {TOKEN} and password=Hunter2!x9\n"
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(click, "edit", lambda text, extension=None: typed)
    code, out, err = run_cli(capsys, "--dir", str(project), "edit", note.id)
    assert code != 0
    kept = re.search(r"kept in (\S+)", err).group(1)
    body = open(kept, encoding="utf-8").read()
    assert TOKEN not in body and "Hunter2!x9" not in body
    assert "deploys go through helm charts, the bot's token is [redacted:" in body and "summary: [broken" in body
