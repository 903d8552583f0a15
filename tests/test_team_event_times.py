"""An event sent to the team server without ``ts_epoch`` (a hand-written client, an older one) was stored at epoch 0:
its ``ts`` said 2026 but recall's decay read 1970, so it sank under every other hit for the team. The server now
takes the time from ``ts`` when no number is sent, and refuses a ``ts_epoch`` that is not a number (``true``)."""

from __future__ import annotations

import hashlib

import pytest

from memdir.store import open_store
from test_pg_team import _client, _login  # noqa: E402  (the team tests' helpers)


def _ev(ref: str, **kw) -> dict:
    text = f"the heron migration plan {ref}"
    return {"ref": ref, "content_sha256": hashlib.sha256(text.encode()).hexdigest(), "role": "user", "session": "s",
            "ts": "2026-09-21T00:00:00Z", "text": text, **kw}


def test_an_event_without_ts_epoch_is_stored_at_its_ts(pg_url):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from memdir.server import team as teamserver
    from memdir.store.postgres import admin as pg_admin
    from memdir.timeutil import parse_ts

    admin = open_store(pg_url, project="web")
    _client(admin, "times_srv")
    tok = pg_admin.add_token(admin.conn, "ann", ["web"])
    auth = {"Authorization": f"Bearer {tok}"}
    try:
        with TestClient(teamserver.app(_login(pg_url, "times_srv"))) as c:
            got = c.post("/v1/web/events", json={"events": [_ev("a"), _ev("b", ts_epoch=None)]}, headers=auth)
            assert got.status_code == 200 and got.json()["stored"] == 2, got.text
            bad = c.post("/v1/web/events", json={"events": [_ev("c", ts_epoch=True)]}, headers=auth)
            assert bad.status_code == 400 and "ts_epoch" in bad.json()["error"], bad.text
        want = parse_ts("2026-09-21T00:00:00Z").timestamp()
        rows = admin.conn.execute("SELECT ref, ts_epoch FROM docs WHERE project = 'web' ORDER BY ref").fetchall()
        assert [(r["ref"], r["ts_epoch"]) for r in rows] == [("a", want), ("b", want)]
    finally:
        admin.close()
