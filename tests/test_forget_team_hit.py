"""`memdir forget ID` of a teammate's memory (a team hit's handle, readable through the team server, never stored
here) says whose it is instead of "no memory with id", which contradicted `memdir get ID` showing it."""

from __future__ import annotations

from click.testing import CliRunner

import memdir
from memdir.cli.main import cli


def test_forget_of_a_teammates_memory_says_so(tmp_path, project, monkeypatch):
    from memdir.engine import teamview

    monkeypatch.setenv("MEMDIR_REMOTE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    hit = {"ref": "team:alice:1", "kind": "event", "role": "user", "session": "s", "ts": "2026-11-30T00:00:00Z",
           "text": "the staging deploy needs the vpn", "handle": "ypev4m", "summary": ""}
    monkeypatch.setattr(teamview, "read", lambda config, root, id, **kw: hit if id == "ypev4m" else None)
    r = CliRunner().invoke(cli, ["--home", str(tmp_path / "g"), "--dir", str(project), "forget", "ypev4m"])
    assert isinstance(r.exception, memdir.NotFound) and "teammate's memory" in str(r.exception), (r.output, r.exception)
    r = CliRunner().invoke(cli, ["--home", str(tmp_path / "g"), "--dir", str(project), "forget", "zzzzzz"])
    assert isinstance(r.exception, memdir.NotFound) and "no memory with id 'zzzzzz'" in str(r.exception)


def test_a_mistyped_note_id_does_not_ask_the_team_server(tmp_path, project, monkeypatch):
    from memdir.engine import teamview

    monkeypatch.setenv("MEMDIR_REMOTE_URL", "http://127.0.0.1:9/v1")
    asked: list[str] = []
    monkeypatch.setattr(teamview, "read", lambda config, root, id, **kw: asked.append(id))
    r = CliRunner().invoke(cli, ["--home", str(tmp_path / "g"), "--dir", str(project), "forget", "facts/nope"])
    assert isinstance(r.exception, memdir.NotFound) and asked == []
