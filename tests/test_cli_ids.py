"""Ids given to the CLI as a person types them: a blank id is a usage error (exit 2) for every command that takes
one, as ``forget`` already said; a very long one is not echoed whole in the one-line error."""

import json

import pytest

from conftest import run_cli


@pytest.fixture
def home(project, tmp_path, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    return tmp_path / "g"


@pytest.mark.parametrize("command", ["get", "pin", "edit", "forget"])
@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_id_is_a_usage_error(home, capsys, command, blank):
    code, out, err = run_cli(capsys, command, blank)
    assert code == 2, (command, err)
    assert err.startswith("memdir: error: ") and err.count("\n") == 1 and "id" in err


def test_a_long_id_is_not_echoed_whole(home, capsys):
    long_id = "facts/" + "a" * 5000
    code, out, err = run_cli(capsys, "get", long_id)
    assert code == 1 and err.count("\n") == 1 and len(err) < 400 and "characters cut" in err
    code, out, err = run_cli(capsys, "--json", "get", long_id)
    got = json.loads(err)
    assert got["exit_code"] == 1 and len(got["error"]) < 400


def test_a_handle_typed_in_capitals_and_a_superseded_note_s_successor(home, capsys):
    code, out, _ = run_cli(capsys, "--json", "remember", "I love spicy food")
    old = json.loads(out)["id"]
    code, out, _ = run_cli(capsys, "--json", "recall", "spicy food")
    handle = json.loads(out)[0]["handle"]
    code, out, err = run_cli(capsys, "get", handle.upper())
    assert code == 0 and "I love spicy food" in out, err
    run_cli(capsys, "remember", "I no longer eat spicy food", "--supersedes", old)
    code, out, err = run_cli(capsys, "get", old)
    assert code == 0 and "superseded by facts/i-no-longer-eat-spicy-food" in out.splitlines()[0]
