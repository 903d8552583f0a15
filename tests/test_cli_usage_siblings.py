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


def _every_command():
    """``(path, command)`` for every command and sub-command the CLI has, groups included."""
    import click

    from memdir.cli.main import cli

    ctx = click.Context(cli)
    out = []
    for name in cli.list_commands(ctx):
        cmd = cli.get_command(ctx, name)
        out.append((name, cmd))
        if isinstance(cmd, click.Group):
            out += [(f"{name} {sub}", c) for sub, c in cmd.commands.items()]
    return out


def test_every_command_and_group_takes_json_after_its_name():
    """The README says --json works with any command: `memdir store --json` said "No such option '--json'"."""
    missing = [path for path, cmd in _every_command()
               if "--json" not in {o for p in cmd.params for o in getattr(p, "opts", ())}]
    assert not missing, missing


def test_a_group_with_json_after_it_and_no_command_is_one_json_usage_line(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "store", "--json")
    assert code == 2 and not out and len(err.strip().splitlines()) == 1, err
    msg = json.loads(err)["error"]
    assert "No such option" not in msg and "Missing command" not in msg
    assert "`memdir store` needs a command" in msg and "token" in msg


def test_a_group_that_runs_alone_prints_json_with_json_after_it(tmp_path, monkeypatch, capsys):
    code, out, err = _run(tmp_path, monkeypatch, capsys, "proposals", "--json")
    assert code == 0 and json.loads(out) == []


@pytest.mark.parametrize("args", [["--version", "--json"], ["--json", "--version"]])
def test_version_with_json_prints_json(tmp_path, monkeypatch, capsys, args):
    from importlib.metadata import version

    code, out, err = _run(tmp_path, monkeypatch, capsys, *args)
    assert code == 0 and not err
    assert json.loads(out) == {"version": version("memdir")}


def test_version_alone_stays_a_line(tmp_path, monkeypatch, capsys):
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "--version")
    assert code == 0 and out.startswith("memdir, version ")
