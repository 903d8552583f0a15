"""`memdir install HOST --command …`: the command to register, as the user types it."""

from __future__ import annotations

import json
import os

import pytest

from memdir.cli.main import main
from memdir.hosts.install import install_host


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for k in ("CODEX_HOME", "DSH_HOME", "XDG_CONFIG_HOME", "MEMDIR_HOME"):
        monkeypatch.delenv(k, raising=False)
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return h


@pytest.mark.parametrize("command", ['memdir "unclosed', "memdir 'x"])
def test_a_command_with_an_unclosed_quote_is_a_one_line_usage_error(home, capsys, command):
    """It was `memdir: internal error: ValueError: No closing quotation`."""
    with pytest.raises(SystemExit) as exc:
        main(["--home", str(home / "g"), "install", "claude-code", "--command", command])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert exc.value.code == 2, err
    assert len(lines) == 1 and lines[0].startswith("memdir: error:") and "--command" in err, err
    assert "internal error" not in err
    assert not os.listdir(home)
