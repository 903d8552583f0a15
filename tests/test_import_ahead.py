"""A long import makes its rows and tokens ahead in a second process (memdir.engine.ahead): the store it writes is
the one the import writes alone, byte for byte, and a worker that cannot start or dies changes nothing but speed."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest

import memdir
from memdir.engine import ahead

SECRET = "ghp_" + "R3al1yS3cr3tT0k3nV4lu3F0rT3st1ngXyZ12"


def _events(n: int) -> list:
    out: list = []
    for i in range(n):
        ev = {"key": f"k:{i}", "role": ("user", "assistant", "tool")[i % 3], "session": f"s{i % 7}",
              "ts": f"2026-05-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
              "text": f"turn {i} about the deploy of service {i % 13} and its retries"}
        if i % 3 == 2:  # a long tool output: split into passages
            ev["text"] = f"Bash: pytest -q → run {i}\n" + "\n".join(f"tests/test_mod{j}.py::test_{j} PASSED" for j in range(260))
        if i % 17 == 0:
            ev["text"] += f" 部署脚本第{i}次失败，原因是超时"
        if i % 29 == 0:
            ev["text"] += f" token={SECRET}"
            ev["meta"] = {"tool": "Bash", "note": f"export GH={SECRET}"}
        if i % 31 == 0:
            del ev["ts"]  # its time is the batch's: made in the importing process
        out.append(ev)
    out.append(dict(out[5]))  # a duplicate key
    out.append("not an event")  # skipped, with the same reason either way
    out.append({"key": "k:empty", "role": "user", "text": "   ", "ts": "2026-05-01T10:00:00Z"})
    return out


def _digest(proj) -> tuple[str, str, str, int]:
    db = sqlite3.connect(next(proj.glob(".memory/.memdir/index.sqlite3")))
    db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, fts, instance)")
    out = []
    for sql in ("SELECT term, doc, col, offset FROM temp.v ORDER BY 1, 2, 3, 4",
                "SELECT id, ref, role, session, sha, text_head, text_tail, text_len, meta, ctx_prev, ctx_next, handle "
                "FROM docs ORDER BY id",
                "SELECT * FROM passages ORDER BY id"):
        h = hashlib.sha256()
        for r in db.execute(sql):
            h.update(repr(r).encode())
        out.append(h.hexdigest())
    n = db.execute("SELECT count(*) FROM passages").fetchone()[0]
    db.close()
    return (*out, n)


def _import(tmp_path, name, events, clock):
    proj = tmp_path / name
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / f"{name}-home", clock=clock) as m:
        counts = m.import_events(events)
        assert SECRET not in "".join(h.text for h in m.recall("deploy token", k=50))
    return counts, _digest(proj)


def _alone(tmp_path, monkeypatch, events, clock):
    """The import of ``events`` with no worker: what every other way must write."""
    monkeypatch.setenv("MEMDIR_IMPORT_WORKERS", "0")
    got = _import(tmp_path, "alone", events, clock)
    monkeypatch.delenv("MEMDIR_IMPORT_WORKERS")
    return got


def _workers_on(monkeypatch, chunk: int | None = None) -> None:
    """Workers for any import of a list, on a machine taken to have two cores."""
    monkeypatch.setattr(ahead, "AHEAD_MIN", 0)
    monkeypatch.setattr(ahead, "cores", lambda: 2)
    if chunk is not None:
        monkeypatch.setattr(ahead, "CHUNK", chunk)


@pytest.fixture
def clock():
    from datetime import datetime, timezone

    fixed = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
    return lambda: fixed


def test_the_worker_writes_the_store_the_import_writes_alone(tmp_path, monkeypatch, clock):
    events = _events(900)
    alone = _alone(tmp_path, monkeypatch, events, clock)
    _workers_on(monkeypatch, chunk=40)
    made = [0]
    real = ahead.ahead

    def counting(evs, total, workers):
        assert workers == 2  # the default of import.workers
        for ev, prep in real(evs, total, workers):
            made[0] += prep is not None
            yield ev, prep

    monkeypatch.setattr(ahead, "ahead", counting)
    # a loaded test machine (the suite runs in parallel) may keep the niced worker from answering within the usual
    # wait, and every chunk it misses is made here: the wait is long so that "most rows from the worker" holds
    monkeypatch.setattr(ahead, "WAIT_S", 10.0)
    with_worker = _import(tmp_path, "worker", events, clock)
    assert made[0] > 600  # most rows came from the worker (the first chunks are made here while it starts)
    assert with_worker == alone
    assert alone[0]["stored"] == 900 and alone[0]["duplicate"] == 1 and alone[0]["skipped"] == 2
    assert alone[1][3] > 0  # the tool outputs were split into passages


def test_a_worker_that_cannot_run_changes_nothing_but_speed(tmp_path, monkeypatch, clock):
    events = _events(300)
    alone = _alone(tmp_path, monkeypatch, events, clock)
    _workers_on(monkeypatch, chunk=20)
    monkeypatch.setattr(ahead.sys, "executable", "/bin/false")  # exits at once: no ready message, stdin closed
    assert _import(tmp_path, "broken", events, clock) == alone


def test_ctrl_c_stops_the_worker_and_keeps_the_committed_batches(tmp_path, monkeypatch):
    from memdir.engine import events as event_ops
    from memdir.errors import Interrupted
    from memdir.store.sqlite import index as sqlite_index

    _workers_on(monkeypatch)
    monkeypatch.setattr(event_ops, "BATCH_SECONDS", 1e9)
    workers = []
    real_init = ahead._Worker.__init__

    def init(self):
        real_init(self)
        workers.append(self)

    monkeypatch.setattr(ahead._Worker, "__init__", init)
    real_insert, seen = sqlite_index.insert_event, [0]

    def insert(*a, **kw):
        seen[0] += 1
        if seen[0] == 1200:  # in the third batch of 500
            raise KeyboardInterrupt
        return real_insert(*a, **kw)

    monkeypatch.setattr(sqlite_index, "insert_event", insert)
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    evs = [{"key": f"k:{i}", "role": "user", "text": f"event {i} about deploys", "session": "s",
            "ts": "2026-05-01T10:00:00Z"} for i in range(3000)]
    with memdir.open(proj, home=tmp_path / "g") as m:
        with pytest.raises(Interrupted):
            m.import_events(evs)
        assert workers and all(w.proc.poll() is not None for w in workers)  # no worker left running
        monkeypatch.setattr(sqlite_index, "insert_event", real_insert)
        again = m.import_events(evs)
    assert (again["stored"], again["duplicate"]) == (2000, 1000)


def test_short_imports_and_one_core_prepare_here(monkeypatch):
    monkeypatch.setattr(ahead, "cores", lambda: 2)
    assert ahead.wanted(ahead.AHEAD_MIN - 1, 2) is None and ahead.wanted(ahead.AHEAD_MIN, 2) == 0
    assert ahead.wanted(None, 2) is None  # a generator: it may change what it handed out before it is written
    assert ahead.wanted(10 ** 6, 0) is None  # import.workers = 0
    monkeypatch.setattr(ahead, "cores", lambda: 1)
    assert ahead.wanted(10 ** 6, 2) is None


def test_a_generator_that_reuses_its_event_object_loses_nothing(tmp_path, monkeypatch, clock):
    def reused(n):
        ev: dict = {}
        for i in range(n):
            ev.clear()
            ev.update({"key": f"g:{i}", "role": "user", "session": "s", "ts": f"2026-05-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
                       "text": f"turn {i} of a reader that hands out one dict"})
            yield ev

    _workers_on(monkeypatch)
    counts, _ = _import(tmp_path, "gen", reused(2500), clock)
    assert counts["stored"] == 2500 and counts["duplicate"] == 0


def test_a_stalled_worker_neither_stalls_the_import_nor_outlives_it(tmp_path, monkeypatch, clock):
    import signal
    import time

    events = _events(900)
    alone = _alone(tmp_path, monkeypatch, events, clock)
    _workers_on(monkeypatch, chunk=30)
    workers = []
    real_take = ahead._Worker.take

    def take(self, seq, timeout):
        if self not in workers:  # its first chunk came back: now it stops (SIGSTOP), with chunks still owed
            workers.append(self)
            got = real_take(self, seq, timeout)
            os.kill(self.proc.pid, signal.SIGSTOP)
            return got
        return real_take(self, seq, timeout)

    monkeypatch.setattr(ahead._Worker, "take", take)
    t = time.monotonic()
    assert _import(tmp_path, "stalled", events, clock) == alone
    assert time.monotonic() - t < 30
    assert workers and all(w.proc.poll() is not None for w in workers)


def test_the_worker_does_not_run_code_from_the_working_directory(tmp_path, monkeypatch, clock):
    here = tmp_path / "cwd"
    here.mkdir()
    marker = tmp_path / "ran"
    (here / "struct.py").write_text(f"open({str(marker)!r}, 'w').close()\nfrom _struct import *\n", encoding="utf-8")
    monkeypatch.chdir(here)
    _workers_on(monkeypatch)
    _import(tmp_path, "p", _events(300), clock)
    assert not marker.exists()
