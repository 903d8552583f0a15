"""Siblings of C4 on the command line: a usage mistake is one line on stderr and exit 2 (``--json``: one JSON
object there), and ``--json`` before the command is the same as after it, for every command."""

import json

import pytest

from memdir.cli.main import main


def _run(tmp_path, monkeypatch, capsys, *args):
    proj = tmp_path / "p"
    proj.mkdir(exist_ok=True)
    monkeypatch.chdir(proj)
    code = 0
    try:
        main(["--home", str(tmp_path / "g"), *args])
    except SystemExit as exc:
        code = exc.code or 0
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_command_group_without_its_command_is_one_usage_line(tmp_path, monkeypatch, capsys, json_flag):
    """`memdir store` alone printed its whole help page squeezed onto one `memdir: error: Usage: …` line."""
    code, out, err = _run(tmp_path, monkeypatch, capsys, *json_flag, "store")
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1, err
    msg = json.loads(err)["error"] if json_flag else err
    assert "Usage:" not in msg and "Options:" not in msg and len(msg) < 300, msg
    assert "init" in msg and "token" in msg and "--help" in msg
