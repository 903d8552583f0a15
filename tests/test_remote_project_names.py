"""A team project whose name is not plain ASCII: the default project name is the clone's directory name, so a clone in
``项目``, ``my app`` or ``café`` sent ``/v1/项目/events`` unencoded. urllib refused it (``UnicodeEncodeError``, ``URL
can't contain control characters``), named the wrong cause ("the team server cannot be reached"), and the rows waited
forever while ``memdir doctor`` said the server was fine (its whoami path names no project). Now the project is
percent-encoded in every path, and the server (which decodes the path) answers for the project named."""

from __future__ import annotations

import pytest

import memdir
from test_pg_team import _client, _login, _serve  # noqa: E402  (the team tests' helpers)

NAMES = ["项目🚀", "my app", "café#1?x"]


@pytest.mark.parametrize("name", NAMES)
def test_a_project_named_in_any_script_syncs_through_the_team_server(pg_url, tmp_path, monkeypatch, name):
    pytest.importorskip("uvicorn")
    from memdir.store import open_store
    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project=name)
    _client(admin, "names_srv")
    ann = pg_admin.add_token(admin.conn, "ann", [name])
    bob = pg_admin.add_token(admin.conn, "bob", [name])
    admin.close()
    p, api = _serve(_login(pg_url, "names_srv"))
    monkeypatch.setenv("MEMDIR_REMOTE_URL", api)
    a, b = tmp_path / "ann" / name, tmp_path / "bob" / name  # the project name is the directory's
    for d in (a, b):
        (d / ".git").mkdir(parents=True)
    try:
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", ann)
        with memdir.open(a, home=tmp_path / "ga") as m:
            m.import_events([{"key": "ann-1", "role": "assistant", "session": "s", "ts": 1_790_000_000,
                              "text": "the gateway retries each webhook three times, then parks it"}])
            res = m.push()
            assert res["left"] == 0 and not res["error"] and m.status()["project"]["remote_queue"]["queued"] == 0, res
            m.share_history(True)
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", bob)
        with memdir.open(b, home=tmp_path / "gb", config={"remote.recall_budget_ms": 20_000}) as m:
            hit = next(h for h in m.recall("gateway webhook", k=3) if h.scope == "team")
            assert "three times" in hit.text
            got = m.get(hit.handle, remote=True)
            assert got is not None and "three times" in got.text
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", ann)
        with memdir.open(a, home=tmp_path / "ga") as m:
            assert m.forget("ann-1")
            assert m.push()["left"] == 0
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", bob)
        with memdir.open(b, home=tmp_path / "gb", config={"remote.recall_budget_ms": 20_000}) as m:
            assert not [h for h in m.recall("gateway webhook", k=3) if h.scope == "team"]
    finally:
        p.terminate()
        p.wait(timeout=30)


@pytest.mark.parametrize("name", ["team/web", "a/../b", "x/events"])
def test_a_project_name_holding_a_slash_syncs_through_the_team_server(pg_url, tmp_path, monkeypatch, name):
    """``remote.project = "team/web"`` (a token may grant any name): the client sends ``team%2Fweb``, which the server
    decodes to a path of one more segment; its routes did not match it, so every push got 404 and the client told
    the user to fix a remote.url that was right. The project is every segment before the operation."""
    pytest.importorskip("uvicorn")
    from memdir.store import open_store
    from memdir.store.postgres import admin as pg_admin

    admin = open_store(pg_url, project=name)
    _client(admin, "slash_srv")
    ann = pg_admin.add_token(admin.conn, "ann", [name])
    bob = pg_admin.add_token(admin.conn, "bob", [name])
    admin.close()
    p, api = _serve(_login(pg_url, "slash_srv"))
    monkeypatch.setenv("MEMDIR_REMOTE_URL", api)
    monkeypatch.setenv("MEMDIR_REMOTE_PROJECT", name)
    a, b = tmp_path / "ann" / "web", tmp_path / "bob" / "web"
    for d in (a, b):
        (d / ".git").mkdir(parents=True)
    try:
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", ann)
        with memdir.open(a, home=tmp_path / "ga") as m:
            m.import_events([{"key": "ann-1", "role": "assistant", "session": "s", "ts": 1_790_000_000,
                              "text": "the gateway retries each webhook three times, then parks it"}])
            res = m.push()
            assert res["left"] == 0 and not res["error"], res
            m.share_history(True)
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", bob)
        with memdir.open(b, home=tmp_path / "gb", config={"remote.recall_budget_ms": 20_000}) as m:
            hit = next(h for h in m.recall("gateway webhook", k=3) if h.scope == "team")
            assert "three times" in hit.text
    finally:
        p.terminate()
        p.wait(timeout=30)


def test_a_remote_url_with_v1_twice_is_still_a_route_error(pg_url):
    """The project is one segment of the path as sent: ``/v1/v1/webapp/events`` is a remote.url with ``/v1`` twice
    (404, whose fix names remote.url), not a project ``v1/webapp`` the token does not grant."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from memdir.server import team as teamserver

    with TestClient(teamserver.app(pg_url)) as c:
        got = c.post("/v1/v1/webapp/events", json={"events": []}, headers={"Authorization": "Bearer x"})
        assert got.status_code == 404 and "route" in got.json()["error"]
