"""`memdir serve` builds recall's held postings at start, in a thread, and the build steps aside for hook and tool
calls (memdir.foreground); recall answers from SQL until the build is done."""

from __future__ import annotations

import random
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("numpy")

import memdir  # noqa: E402
from memdir import foreground  # noqa: E402
from memdir.hosts import warm
from test_layout_props import _event  # noqa: E402


def _until_idle() -> None:
    import time

    for _ in range(3000):
        if not foreground.busy():
            return
        time.sleep(0.01)
    raise AssertionError("a call kept the foreground mark")


def _project(base: Path) -> Path:
    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    return project


def _seed(project: Path, home: Path, n: int = 60) -> None:
    rng = random.Random(3)
    with memdir.open(project, home=home) as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(n)])
        m.remember("The staging database listens on port 5433.", category="facts")


def test_keep_warm_start_builds_in_a_thread_without_a_recall(tmp_path):
    project = _project(tmp_path)
    _seed(project, tmp_path / "g")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.keep_warm(start=True)
        mem = m.roots["project"].store.mem
        assert mem is not None and mem.building is not None
        mem.building.join(60)
        assert mem.ready and mem.builds == 1
        hits = m.recall("staging database port", k=8)
        assert hits[0].text.startswith("The staging database") and mem.builds == 1  # what the start built


@pytest.mark.parametrize("mode", ["off", "on"])
def test_keep_warm_start_leaves_off_and_on_as_configured(tmp_path, mode):
    project = _project(tmp_path)
    _seed(project, tmp_path / "g", 5)
    with memdir.open(project, home=tmp_path / "g", config={"recall.memory_index": mode}) as m:
        m.keep_warm(start=True)  # "off": never held; "on": built by the first recall itself, in its thread
        assert m.roots["project"].store.mem is None


def test_a_background_build_waits_while_a_foreground_call_runs(tmp_path):
    project = _project(tmp_path)
    _seed(project, tmp_path / "g")
    with memdir.open(project, home=tmp_path / "g") as m:
        with foreground.active():
            m.keep_warm(start=True)
            mem = m.roots["project"].store.mem
            mem.building.join(0.3)
            assert not mem.ready  # paused at its first row: it takes up to MAX_PAUSE_S per row while the call runs
            assert [h for h in m.recall("staging database", k=3)]  # answered meanwhile, from SQL
            assert not mem.ready
        mem.building.join(60)
        assert mem.ready and foreground.paused_s > 0


def test_foreground_code_never_pauses_itself():
    """pause() is for background jobs only: the same code run inside a call (a catch-up in a recall) goes on."""
    before = foreground.paused_s
    with foreground.active():
        for _ in range(3):
            foreground.pause()
    assert foreground.paused_s == before and not foreground.busy()


def test_the_switch_interval_comes_back_after_background_jobs():
    import sys

    old = sys.getswitchinterval()
    with foreground.background():
        with foreground.background():
            assert sys.getswitchinterval() <= foreground.SWITCH_INTERVAL_S
        assert sys.getswitchinterval() <= foreground.SWITCH_INTERVAL_S
    assert sys.getswitchinterval() == old


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_the_hook_listener_prewarms_the_project_store(tmp_path, monkeypatch):
    home = Path(tempfile.mkdtemp(prefix="mdw-", dir="/tmp"))  # a Unix socket path stays short
    try:
        monkeypatch.setenv("MEMDIR_HOME", str(home))
        project = _project(tmp_path)
        _seed(project, home)
        with warm.WarmServer() as srv:
            assert srv.start()
            srv.prewarm(str(project)).join(60)
            (_, m), = srv._stores.values()  # opened before any hook came
            mem = m.roots["project"].store.mem
            mem.building.join(60)
            assert mem.ready and m.stores.state.get("warm")
            payload = ('{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "staging database port", '
                       f'"cwd": "{project}"}}')
            out = warm.ask("claude-code", "user-prompt", payload, timeout_s=30)
            assert out is not None and "5433" in out
            assert len(srv._stores) == 1 and mem.builds == 1  # the hook used the prewarmed store and its postings
            _until_idle()  # the call let go of the foreground mark (after its captures, which follow the answer)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_a_hook_call_marks_the_foreground_while_it_runs(tmp_path, monkeypatch):
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("needs Unix sockets")
    home = Path(tempfile.mkdtemp(prefix="mdw-", dir="/tmp"))
    try:
        monkeypatch.setenv("MEMDIR_HOME", str(home))
        seen = []

        def run(host, event, payload, **kw):
            seen.append(foreground.busy())
            kw["emit"]("ok")

        with warm.WarmServer(run=run) as srv:
            assert srv.start()
            assert warm.ask("claude-code", "user-prompt", "{}", timeout_s=30) == "ok"
        assert seen == [True]
        _until_idle()
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.slow  # over 7 s: CI runs it in `make test-slow`
@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_serve_tools_and_hooks_share_one_store_and_its_postings(tmp_path, monkeypatch):
    pytest.importorskip("mcp")
    from memdir.server.mcp import MemoryStore

    home = Path(tempfile.mkdtemp(prefix="mdw-", dir="/tmp"))
    try:
        monkeypatch.setenv("MEMDIR_HOME", str(home))
        project = _project(tmp_path)
        _seed(project, home)
        with warm.WarmServer() as srv:  # as memdir serve wires them
            assert srv.start()
            srv.prewarm(str(project)).join(60)
            tools = MemoryStore(str(project), keep_warm=True, opener=lambda: srv.store_for(str(project)), lock=srv.lock)
            m = tools.memdir
            assert m is srv.store_for(str(project)) and tools.lock is srv.lock
            m.roots["project"].store.mem.building.join(60)
            hits = tools.run("recall", lambda md: md.recall("staging database port", k=3))
            assert hits and hits[0].text.startswith("The staging database")
            payload = ('{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "staging database port", '
                       f'"cwd": "{project}"}}')
            assert "5433" in warm.ask("claude-code", "user-prompt", payload, timeout_s=30)
            assert len(srv._stores) == 1 and m.roots["project"].store.mem.builds == 1  # one Memdir, one build
            tools.close()  # not the tools' to close: the listener's store stays open
            assert m.roots["project"]._db is not None
            _until_idle()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_the_background_build_s_connection_is_opened_before_its_thread_starts(tmp_path, monkeypatch):
    """A store closed while its postings build starts must not crash the process: the second connection (SQLite's
    backup of an index held in memory) is made by the caller, never by the thread racing ``close()``."""
    from memdir.store.sqlite import readonly

    project = _project(tmp_path)
    _seed(project, tmp_path / "g", 5)
    opened_in: list[str] = []
    real = readonly.second_connection

    def spy(db):
        opened_in.append(threading.current_thread().name)
        return real(db)

    monkeypatch.setattr(readonly, "second_connection", spy)
    for _ in range(5):
        with memdir.open(project, home=tmp_path / "g") as m:
            m.keep_warm(start=True)  # closed at once, the build thread still starting
    assert opened_in and all(n != "memdir-postings" for n in opened_in), opened_in


def test_asking_for_the_postings_while_a_background_build_runs_waits_for_it_and_builds_once(tmp_path, monkeypatch):
    """``keep_warm(build=True)`` during the background build ``serve`` started waits for that build: a second one in
    the caller's thread filled the same index beside it and pointed it at the caller's connection, which closing the
    store then closed under the running build (a crash of the whole process, seen in ``make test``)."""
    from memdir.store.sqlite import postings

    project, home = _project(tmp_path), tmp_path / "home"
    _seed(project, home)
    gate, builders = threading.Event(), []
    build = postings.MemIndex.build

    def slow_build(self, db=None):
        builders.append(threading.current_thread().name)
        if threading.current_thread().name == "memdir-postings":
            gate.wait(10)
        return build(self, db)

    monkeypatch.setattr(postings.MemIndex, "build", slow_build)
    with memdir.open(project, home=home) as m:
        m.keep_warm(True, start=True)
        for _ in range(1000):  # the thread is started; wait until it is held at the gate
            if "memdir-postings" in builders:
                break
            time.sleep(0.01)
        assert builders.count("memdir-postings") >= 1
        threading.Timer(0.3, gate.set).start()
        got = m.keep_warm(True, build=True)["project"]
        assert got.get("ready") and not got.get("disabled"), got
        assert threading.current_thread().name not in builders, builders  # no second build in the caller's thread
