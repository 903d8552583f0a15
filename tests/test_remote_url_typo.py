"""A mistyped ``remote.url`` (no scheme, ``htp://``, a stray space, a bad port) is refused by the settings, but the
user asked for a team server: what is captured meanwhile is queued, not kept local for good, and is sent once the
URL is fixed; ``doctor`` fails on it and ``push`` names the value it refused instead of "not set"."""

from __future__ import annotations

import pytest

import memdir
from memdir.errors import UsageError


def _server():
    """The team tests' HTTP stub answering at once: (url, [(path, events sent)], stop)."""
    from test_team_newuser import _slow_server

    return _slow_server(0.0)


@pytest.mark.parametrize("typo", ["htp://127.0.0.1:8765/v1", "127.0.0.1:8765/v1", "http://127.0.0.1:87a5/v1"])
def test_events_captured_under_a_mistyped_url_are_queued_and_sent_once_it_is_fixed(tmp_path, monkeypatch, typo):
    url, got, stop = _server()
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    project = tmp_path / "webapp"
    (project / ".git").mkdir(parents=True)
    (project / ".memory").mkdir()
    cfg = project / ".memory" / "config.toml"
    try:
        cfg.write_text(f'remote.url = "{typo}"\n', encoding="utf-8")
        with memdir.open(project, home=tmp_path / "g") as m:
            assert m.import_events([{"key": "k1", "role": "user", "text": "the cormorant rollout needs a freeze",
                                     "session": "s", "ts": 1_790_000_000}])["stored"] == 1
            assert m.status()["project"]["remote_queue"]["queued"] == 1
            bad = [c for c in m.doctor() if c["check"] == "remote.url"]
            assert bad and bad[0]["ok"] == "fail" and "1 row(s)" in bad[0]["detail"], bad
            with pytest.raises(UsageError, match="not a usable team server URL"):
                m.push()
        assert got == []
        cfg.write_text(f'remote.url = "{url}"\n', encoding="utf-8")
        with memdir.open(project, home=tmp_path / "g") as m:
            m.push()
            assert m.status()["project"]["remote_queue"]["queued"] == 0
        assert sum(n for _, n in got) == 1
    finally:
        stop()


def test_doctor_does_not_repeat_a_send_failure_the_server_no_longer_gives(tmp_path, monkeypatch):
    """A 401 recorded by an earlier send, then a valid token: doctor's own contact succeeds, so the delivery line says
    the server accepts the token now and `memdir push` sends the rows (it said "cannot be delivered: HTTP 401")."""
    from memdir.engine import delivery, teamview

    monkeypatch.setenv("MEMDIR_REMOTE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    project = tmp_path / "tally"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a local note so the project exists", category="facts")
        delivery.record(m.roots["project"].db, delivery.classify(401, "HTTP 401: unknown token", project="tally"))
        monkeypatch.setattr(teamview, "check_server", lambda *a, **k: {"check": "team server", "ok": "fail",
                                                                        "detail": "401", "remedy": "new token"})
        line = next(c for c in m.doctor() if c["check"] == "remote delivery")
        assert line["ok"] == "fail" and "cannot be delivered" in line["detail"]
        monkeypatch.setattr(teamview, "check_server", lambda *a, **k: {"check": "team server", "ok": "ok",
                                                                        "detail": "bob's token", "remedy": ""})
        line = next(c for c in m.doctor() if c["check"] == "remote delivery")
        assert line["ok"] == "warn" and "accepts the token now" in line["detail"] and "memdir push" in line["remedy"]


def test_a_later_layer_decides_and_a_refused_password_is_not_shown(tmp_path):
    from memdir.config import Config, refused_url_line, team_wanted

    proj = tmp_path / "config.toml"
    proj.write_text('remote.url = "htp://127.0.0.1:8765/v1"\n', encoding="utf-8")
    assert team_wanted(Config(project_file=proj, env={}))
    off = Config(project_file=proj, env={"MEMDIR_REMOTE_URL": ""})  # the environment turns the team server off
    assert not team_wanted(off) and refused_url_line(off) is None
    glob = tmp_path / "global.toml"
    glob.write_text('remote.url = "htp://stale/v1"\n', encoding="utf-8")
    proj.write_text('remote.url = "http://127.0.0.1:8765/v1"\n', encoding="utf-8")
    assert refused_url_line(Config(global_file=glob, project_file=proj, env={})) is None  # the project's URL is used
    proj.write_text('remote.url = "alice:s3cretpw@teamhost:8765/v1"\n', encoding="utf-8")
    cfg = Config(project_file=proj, env={})
    line = refused_url_line(cfg)
    assert line and "s3cretpw" not in line and "teamhost" in line
    assert cfg.warnings and not any("s3cretpw" in w for w in cfg.warnings)


@pytest.mark.parametrize("pasted", ["http://127.0.0.1:8765/v1 ", "  http://127.0.0.1:8765/v1\n"])
def test_a_url_pasted_with_white_space_around_it_is_the_url(pasted):
    """A URL copied with a trailing space or newline (an environment variable, a config line) means that URL: it is
    used, not refused as a typo."""
    from memdir.config import Config

    cfg = Config(env={"MEMDIR_REMOTE_URL": pasted, "MEMDIR_STORE": " "})
    assert cfg.get("remote.url") == "http://127.0.0.1:8765/v1"
    assert cfg.get("store") == ""
    assert "remote.url" not in cfg.rejected and not [w for w in cfg.warnings if "remote.url" in w]


def test_doctor_does_not_repeat_a_missing_token_once_one_is_set(tmp_path, monkeypatch):
    """A send that found no token, then MEMDIR_REMOTE_TOKEN set: doctor says a token is set now and push sends what
    waits, not "cannot be delivered: no token: MEMDIR_REMOTE_TOKEN is not set"."""
    from memdir.engine import delivery, teamview

    monkeypatch.setenv("MEMDIR_REMOTE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("MEMDIR_REMOTE_TOKEN", raising=False)
    project = tmp_path / "tally"
    (project / ".git").mkdir(parents=True)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a local note so the project exists", category="facts")
        delivery.record(m.roots["project"].db, delivery.classify(None, "no token", project="tally"))
        monkeypatch.setattr(teamview, "check_server", lambda *a, **k: {"check": "team server", "ok": "fail",
                                                                        "detail": "unreachable", "remedy": "start it"})
        line = next(c for c in m.doctor() if c["check"] == "remote delivery")
        assert line["ok"] == "fail" and "not set" in line["detail"]
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
        line = next(c for c in m.doctor() if c["check"] == "remote delivery")
        assert line["ok"] == "warn" and "not set" not in line["detail"] and "set now" in line["detail"]
