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
