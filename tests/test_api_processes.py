"""``Memdir`` inside another program: one instance used by several threads, and an instance opened before
``os.fork()`` (multiprocessing's ``fork`` start method) used in the child. Nothing acknowledged is lost, nothing
is stored twice and no bare ``sqlite3`` error comes out."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

import memdir


@pytest.fixture()
def proj(tmp_path):
    p = tmp_path / "proj"
    p.mkdir()
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    return p


def _events(prefix: str, n: int, word: str) -> list[dict]:
    return [{"key": f"{prefix}-{i}", "role": "user", "text": f"{prefix} event {i} about {word}{i}", "session": prefix,
             "ts": 1_700_000_000 + i} for i in range(n)]


def _integrity(proj) -> str:
    db = sqlite3.connect(str(proj / ".memory" / ".memdir" / "index.sqlite3"))
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_with_an_open_memdir_keeps_every_write_when_the_parent_closes_first(proj, tmp_path):
    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("the parent wrote this before the fork")
    assert m.recall("parent")  # the index is open in the parent when it forks
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child keeps writing through the instance it inherited
        os.close(r)
        code = 0
        try:
            for i, ev in enumerate(_events("child", 30, "cherries")):
                m.import_events([ev])
                if i == 3:
                    os.write(w, b"x")
                time.sleep(0.01)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(w)
    os.read(r, 1)
    m.close()  # the parent is done with it while the child still writes
    with memdir.open(proj, home=tmp_path / "home") as m2:
        m2.import_events(_events("parent", 10, "plums"))
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    with memdir.open(proj, home=tmp_path / "home") as m3:
        assert m3.inspect().counts["project"]["events"] == 40
        assert all(m3.get(f"child-{i}") is not None for i in range(30))
    assert _integrity(proj) == "ok"


def _child_writes(proj, home, tag):
    m = _SHARED[0]
    for ev in _events(tag, 10, "bananas"):
        m.import_events([ev])
    m.remember(f"the child {tag} remembered this")


_SHARED: list = []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_multiprocessing_fork_children_of_an_open_memdir_lose_nothing(proj, tmp_path):
    import multiprocessing

    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("opened in the parent")
    m.recall("opened")
    _SHARED[:] = [m]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_child_writes, args=(proj, tmp_path / "home", f"c{i}")) for i in range(3)]
    for p in procs:
        p.start()
    m.import_events(_events("parent", 10, "plums"))
    m.close()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with memdir.open(proj, home=tmp_path / "home") as m2:
        counts = m2.inspect().counts["project"]
        assert counts["events"] == 40 and counts["notes"] == 4
    assert _integrity(proj) == "ok"
    _SHARED.clear()


def test_one_instance_shared_by_threads_raises_no_sqlite_error_and_loses_nothing(proj, tmp_path):
    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("deploy with pnpm, never npm")
    errors: list[BaseException] = []
    done = threading.Event()

    def importer():
        try:
            for start in range(0, 3000, 600):
                m.import_events(_events("imp", 3000, "deploy")[start:start + 600])
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)
        finally:
            done.set()

    def reader(n):
        i = 0
        try:
            while not done.is_set():
                i += 1
                m.recall("deploy", rehearse=True)
                m.context("how do we deploy?")
                m.record_injection("<memory>x</memory>", prompt="p")
                m.remember(f"reader {n} learnt fact number {i}")
                m.status()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=importer)] + [threading.Thread(target=reader, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert errors == []
    notes = [n for n in m.recent(kinds="note", limit=100000)]
    m.close()
    with memdir.open(proj, home=tmp_path / "home") as m2:
        counts = m2.inspect().counts["project"]
        assert counts["events"] == 3000 and counts["notes"] == len(notes)
    assert _integrity(proj) == "ok"


def test_close_from_another_thread_waits_for_the_call_under_way(proj, tmp_path):
    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("the staging database is db-2")
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader():
        try:
            while not stop.is_set():
                m.recall("staging database")
                m.context("which staging database?")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    t = threading.Thread(target=reader)
    t.start()
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        m.close()
        time.sleep(0.002)
    stop.set()
    t.join(60)
    m.close()
    assert errors == []


def test_spawned_children_open_their_own_and_lose_nothing(proj, tmp_path):
    code = (
        "import multiprocessing as mp, sys, memdir\n"
        "def work(p, h, t):\n"
        "    with memdir.open(p, home=h) as m:\n"
        "        m.import_events([{'key': f'{t}-{i}', 'role': 'user', 'text': f'{t} said {i}', 'session': t,"
        " 'ts': 1700000000} for i in range(20)])\n"
        "if __name__ == '__main__':\n"
        "    p, h = sys.argv[1], sys.argv[2]\n"
        "    m = memdir.open(p, home=h); m.remember('opened before the children'); m.recall('opened')\n"
        "    ps = [mp.get_context('spawn').Process(target=work, args=(p, h, f's{i}')) for i in range(2)]\n"
        "    [x.start() for x in ps]; [x.join() for x in ps]\n"
        "    m.close(); sys.exit(max(x.exitcode for x in ps))\n"
    )
    script = tmp_path / "spawner.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script), str(proj), str(tmp_path / "home")], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    with memdir.open(proj, home=tmp_path / "home") as m:
        assert m.inspect().counts["project"]["events"] == 40


@pytest.mark.parametrize("nth", [1, 2, 3])
@pytest.mark.parametrize("call", ["remember", "import_events", "record_injection", "forget"])
def test_ctrl_c_while_a_transaction_begins_leaves_the_instance_working(proj, tmp_path, monkeypatch, call, nth):
    """Ctrl-C arriving while ``BEGIN IMMEDIATE`` ran (it may wait seconds for another writer) left the connection
    inside a transaction: every later write of the instance raised ``sqlite3.OperationalError: cannot start a
    transaction within a transaction``."""
    from memdir.store.sqlite import codec

    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("an older note about the build")
    m.import_events(_events("old", 2, "ledger"))
    seen = {"n": 0}
    real = sqlite3.Connection.execute

    def execute(self, sql, *args):
        out = real(self, sql, *args)
        if sql.startswith("BEGIN"):
            seen["n"] += 1
            if seen["n"] == nth:
                raise KeyboardInterrupt
        return out

    calls = {
        "remember": lambda: m.remember("the release branch is cut on fridays"),
        "import_events": lambda: m.import_events(_events("new", 3, "ticket")),
        "record_injection": lambda: m.record_injection("<memory>x</memory>", prompt="p"),
        "forget": lambda: m.forget("old-0"),
    }
    monkeypatch.setattr(codec.Connection, "execute", execute, raising=False)
    try:
        calls[call]()
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    calls[call]()  # the same call again works
    m.remember("a later note about the deploy")
    m.import_events(_events("later", 2, "pager"))
    m.close()
    with memdir.open(proj, home=tmp_path / "home") as m2:
        assert m2.get("later-1") is not None and m2.recall("later note deploy")
        if call == "import_events":
            assert all(m2.get(f"new-{i}") is not None for i in range(3))
        if call == "forget":
            assert m2.get("old-0") is None
        assert m2.inspect().problems == []  # an interrupted remember run again wrote no second file
    assert _integrity(proj) == "ok"


def test_remember_again_after_ctrl_c_between_the_file_and_its_index_row_stores_one_note(proj, tmp_path, monkeypatch):
    """The note file was written, Ctrl-C came before its index row: the same ``remember`` again (what a user does)
    wrote a second file, ``…-2.md``, and ``inspect`` reported a duplicate."""
    from memdir.engine.root import Root

    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("an older note about the build")
    real = Root.refresh

    def refresh(self, note_id):
        monkeypatch.setattr(Root, "refresh", real)
        raise KeyboardInterrupt

    monkeypatch.setattr(Root, "refresh", refresh)
    with pytest.raises(KeyboardInterrupt):
        m.remember("the release branch is cut on fridays")
    again = m.remember("the release branch is cut on fridays")
    assert again.existed and again.id == "facts/the-release-branch-is-cut-on-fridays"
    m.close()
    with memdir.open(proj, home=tmp_path / "home") as m2:
        assert [h.id for h in m2.recall("release branch fridays", kinds="note")] == [again.id]
        assert m2.inspect().problems == []


def test_remember_in_a_long_lived_instance_finds_a_note_written_by_hand_meanwhile(proj, tmp_path):
    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("an older note about the build")
    (proj / ".memory" / "facts" / "cache.md").write_text("the build cache lives in /var/cache/ci\n")
    again = m.remember("The build cache lives in /var/cache/ci")
    assert again.existed and again.id == "facts/cache"
    m.close()


def test_ctrl_c_while_a_note_file_is_opened_is_a_keyboard_interrupt_not_a_bad_file_descriptor(tmp_path, monkeypatch):
    """Ctrl-C inside ``os.fdopen`` (the file object already owned the descriptor and closed it) made the handler
    close the number again: ``OSError: [Errno 9] Bad file descriptor`` instead of the interrupt, and in a program
    with threads the number may by then be another file's."""
    from memdir import fileio

    f = tmp_path / "note.md"
    f.write_text("x\n")
    real = os.fdopen

    def fdopen(fd, *args, **kwargs):
        real(fd, *args, **kwargs).close()
        raise KeyboardInterrupt

    monkeypatch.setattr(fileio.os, "fdopen", fdopen)
    with pytest.raises(KeyboardInterrupt):
        fileio.open_regular(f)
