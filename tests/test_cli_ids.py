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
    assert got["exit_code"] == 1 and long_id in got["error"]  # a script gets the message whole


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


def test_the_demo_shows_recall_as_memdir_recall_does(capsys, tmp_path, monkeypatch):
    """The demo's transcript printed its own hit lines (no handle, ``terms=…``, the text cut at 160); a new user's
    first real ``memdir recall`` looked different."""
    import memdir
    from memdir.cli.memory import hit_line
    from memdir.demo import _show, load_sample

    (tmp_path / "p").mkdir()
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        load_sample(m)
        capsys.readouterr()
        _show(m, "database password", k=2)
        shown = capsys.readouterr().out
        hits = m.recall("database password", k=2)
    assert "terms=" not in shown
    for i, h in enumerate(hits, 1):
        assert hit_line(i, h).split("\n")[0] in shown


def test_a_long_path_in_an_error_is_kept_whole(home, capsys, tmp_path):
    path = tmp_path / ("d" * 150) / "missing-export.jsonl"
    code, out, err = run_cli(capsys, "import", str(path))
    assert code != 0 and str(path) in err and "characters cut" not in err
