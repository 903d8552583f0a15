"""The viewer's team page against a real team server on the throwaway PostgreSQL cluster (tests/pg_cluster.py;
skipped with the reason when it cannot run): what the store holds for the project, by person, as far as the member's
own token may read it — a teammate's private events are never counted or shown; a refused token is one line."""

from __future__ import annotations

import pytest

import memdir
from memdir.store import open_store
from memdir.ui import missing_deps

pytestmark = pytest.mark.skipif(bool(missing_deps()), reason=f"the ui extra is not installed: {missing_deps()}")


def test_the_team_page_shows_what_the_token_may_read_by_person(pg_url, project, tmp_path, monkeypatch):
    pytest.importorskip("uvicorn")
    from starlette.testclient import TestClient

    from memdir.store.postgres import admin as pg_admin
    from memdir.ui import build
    from test_pg_team import _client, _ev, _login, _serve, _write

    admin = open_store(pg_url, project=project.name)
    _client(admin, "team_ui")
    ann_token = pg_admin.add_token(admin.conn, "ann", [project.name])
    tom = open_store(pg_url, project=project.name, token=pg_admin.add_token(admin.conn, "tom", [project.name]))
    _write(tom, [_ev("tom:1", "tom: the payment sandbox key rotates on mondays", session="t1")])
    tom.close()
    ann = open_store(pg_url, project=project.name, token=ann_token)
    _write(ann, [_ev(f"ann:{i}", f"ann: staging deploy step {i} done", session=f"a{i % 2}", ts=1_790_000_000.0 + i)
                 for i in range(3)])
    ann.close()
    admin.upsert_doc({"kind": "note", "ref": "facts/staging", "content_sha256": "n", "ts": "2026-09-21T00:00:00Z",
                      "ts_epoch": 1.0, "text": "staging notes are shared through git"})
    p, url = _serve(_login(pg_url, "team_ui"))
    try:
        monkeypatch.setenv("MEMDIR_REMOTE_URL", url)
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", ann_token)
        with memdir.open(project, home=tmp_path / "g") as m:
            m.remember("a local note so the project exists", category="facts")
            c = TestClient(build(get=lambda: m), base_url="http://127.0.0.1:8766")
            html = c.get("/team").text
            assert 'id="team-me"' in html and "You are ann" in html
            people = html.split('id="team-people"', 1)[1]
            assert 'data-person="ann"' in people and "(you)" in people
            assert "staging deploy step 2 done" in people and "newest 3 of 3" in people
            assert 'data-person="tom"' not in people and "sandbox" not in html  # tom's events are his
            assert "1 shared note" in html and "1 shared notes" not in html
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "not-a-token-0123456789")
        with memdir.open(project, home=tmp_path / "g") as m:
            html = TestClient(build(get=lambda: m), base_url="http://127.0.0.1:8766").get("/team").text
            err = html.split('id="team-error">', 1)[1].split("</p>", 1)[0]
            assert "HTTP 401" in err and "\n" not in err.strip() and "sandbox" not in html and "staging deploy" not in html
    finally:
        p.terminate()
        p.wait(timeout=30)
        admin.close()
