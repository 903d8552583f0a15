"""While PostgreSQL is down the team server logs one line when the outage starts and one when it ends; the pool's own
two warnings per reconnection attempt (51 lines in two minutes) are held back."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("psycopg_pool")


def test_the_pool_s_retry_warnings_are_held_back(monkeypatch):
    import psycopg_pool

    from memdir.server import team
    from memdir.store.postgres.store import PgStore

    class FakePool:
        check_connection = staticmethod(lambda conn: None)

        def __init__(self, *a, **kw):
            pass

        def open(self, wait=True, timeout=None):
            pass

    monkeypatch.setattr(psycopg_pool, "ConnectionPool", FakePool)
    monkeypatch.setattr(PgStore, "connect", classmethod(lambda cls, url, project: type("C", (), {"close": lambda s: None})()))
    pool_log = logging.getLogger("psycopg.pool")
    monkeypatch.setattr(pool_log, "level", logging.NOTSET)
    team._pool("postgresql://nobody@127.0.0.1:1/none")
    assert not pool_log.isEnabledFor(logging.WARNING) and pool_log.isEnabledFor(logging.ERROR)


def test_health_tells_a_busy_pool_from_postgresql_down(monkeypatch):
    """/v1/health waits 0.8 s for a connection; when all of them are at work on requests that is a busy server, not an
    outage (which would make every request answer 503 quickly until PostgreSQL is seen again)."""
    pytest.importorskip("starlette")
    from psycopg_pool import PoolTimeout
    from starlette.testclient import TestClient

    from memdir.server import team

    class Pool:
        def __init__(self, size, available):
            self.stats = {"pool_size": size, "pool_available": available}

        def connection(self, timeout=None):
            raise PoolTimeout("couldn't get a connection after 0.80 sec")

        def get_stats(self):
            return self.stats

        def close(self):
            pass

    for pool, want in ((Pool(team.POOL_MAX, 0), 200), (Pool(0, 0), 503)):
        monkeypatch.setattr(team, "_pool", lambda url, p=pool: p)
        with TestClient(team.app("postgresql://nobody@127.0.0.1:1/none")) as c:
            assert c.get("/v1/health").status_code == want
