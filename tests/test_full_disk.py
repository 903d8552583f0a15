"""A store on a full disk: reads answer from what is on disk (as on a read-only store, case C36), every write fails
with one line saying the disk is full, and nothing stored before is lost.

The disk is a real one: a small tmpfs mounted under the test's directory and filled until a few KB (or none) are
free, so SQLite cannot make its ``-wal``/``-shm`` files. Mounting needs root (the tests run as root on CI); else
skipped."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

import memdir
from memdir.errors import ReadOnlyStore


def _run(cmd: list[str]) -> bool:
    try:
        return subprocess.run(cmd, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@contextmanager
def small_disk(where: Path, size: str = "4m"):
    """A tmpfs of ``size`` mounted at ``where`` for the block (root only, else the test is skipped)."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or not _run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)]):
        pytest.skip("cannot mount a small tmpfs here (a full disk needs one)")
    try:
        yield where
    finally:
        _run(["umount", str(where)]) or _run(["umount", "-l", str(where)])


def fill(disk: Path, leave_kb: int) -> Path:
    """Fill ``disk`` until ``leave_kb`` KB are free; returns the filler file (delete it to free the disk)."""
    filler = disk / "filler"
    v = os.statvfs(disk)
    free = v.f_bavail * v.f_frsize
    with open(filler, "wb") as f:
        left = max(0, free - leave_kb * 1024)
        while left > 0:
            try:
                left -= f.write(b"\0" * min(left, 1 << 20))
            except OSError:
                break
    v = os.statvfs(disk)
    assert v.f_bavail * v.f_frsize <= (leave_kb + 4) * 1024
    return filler


def _store(disk: Path) -> tuple[Path, Path, str]:
    proj, home = disk / "proj", disk / "g"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        nid = m.remember("deploy with the blue-green script from the main branch", category="decisions").id
        m.remember("never push to production on a friday", category="rules")
        m.capture({"role": "user", "text": "how do we roll back a failed deploy quickly?", "session": "s1"})
    return proj, home, nid


def _notes(mem: Path) -> dict[str, str]:
    return {str(p.relative_to(mem)): p.read_text(encoding="utf-8") for p in sorted(mem.rglob("*.md"))}


def _cli(proj: Path, home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMDIR_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "memdir", "--dir", str(proj), *args], input=stdin, text=True,
                          capture_output=True, timeout=120, env=env, cwd=proj)


def _mcp_recall(proj: Path, home: Path, query: str) -> dict:
    """One ``memory_recall`` over stdio (``memdir mcp``): the tool's result."""
    env = {**os.environ, "MEMDIR_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONIOENCODING": "utf-8"}
    p = subprocess.Popen([sys.executable, "-m", "memdir", "--dir", str(proj), "mcp"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=proj)
    q: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [q.put(line) for line in p.stdout], daemon=True).start()

    def send(msg: dict) -> None:
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
        assert json.loads(q.get(timeout=90))["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "memory_recall", "arguments": {"query": query}}})
        return json.loads(q.get(timeout=90))["result"]
    finally:
        p.stdin.close()
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        p.stdout.close()
        p.stderr.close()


@pytest.mark.parametrize("leave_kb", [0, 8])
def test_reads_answer_from_a_full_disk_and_writes_say_it_is_full(tmp_path, leave_kb):
    with small_disk(tmp_path / "disk") as disk:
        proj, home, nid = _store(disk)
        mem = proj / ".memory"
        (mem / "facts").mkdir()  # a note saved by an editor since the last index: the open's sync has to write
        (mem / "facts" / "cache.md").write_text("the build cache warms up at nine every morning\n", encoding="utf-8")
        before = _notes(mem)
        filler = fill(disk, leave_kb)
        r = _cli(proj, home, "recall", "cache warms")
        assert r.returncode == 0 and "nine every morning" in r.stdout, r.stderr
        r = _cli(proj, home, "recall", "deploy")
        assert r.returncode == 0 and "blue-green" in r.stdout, r.stderr
        r = _cli(proj, home, "context", "how do we deploy?")
        assert r.returncode == 0 and "blue-green" in r.stdout and "friday" in r.stdout, r.stderr
        r = _cli(proj, home, "status")
        assert r.returncode == 0, r.stderr
        payload = json.dumps({"session_id": "s9", "prompt": "how do we deploy the service to production?",
                              "hook_event_name": "UserPromptSubmit", "cwd": str(proj)})
        r = _cli(proj, home, "hook", "claude-code", "user-prompt-submit", stdin=payload)
        assert r.returncode == 0 and "<memory>" in r.stdout and "blue-green" in r.stdout, (r.stdout, r.stderr)
        res = _mcp_recall(proj, home, "deploy")
        assert res["isError"] is False and res["structuredContent"]["count"] >= 1, res
        for args in (["remember", "a note that finds no room on the disk"], ["forget", nid], ["pin", nid]):
            r = _cli(proj, home, *args)
            assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
            assert "full" in r.stderr and "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert _notes(mem) == before
        filler.unlink()
        r = _cli(proj, home, "remember", "a note stored once the disk has room again")
        assert r.returncode == 0, r.stderr
        r = _cli(proj, home, "recall", "deploy")
        assert r.returncode == 0 and "blue-green" in r.stdout
        r = _cli(proj, home, "recall", "roll back")
        assert r.returncode == 0 and "roll back a failed deploy" in r.stdout  # the captured event is still there


def test_a_long_lived_process_reads_while_the_disk_is_full_and_writes_once_it_has_room(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        proj, home, nid = _store(disk)
        filler = fill(disk, 0)
        with memdir.open(proj, home=home) as m:
            assert [h.id for h in m.recall("blue-green deploy")][:1] == [nid]
            assert "blue-green" in m.context("how do we deploy?")
            with pytest.raises(ReadOnlyStore) as exc:
                m.remember("a fact about caching layers")
            assert "full" in str(exc.value) and "\n" not in str(exc.value)
            filler.unlink()
            new = m.remember("a fact about caching layers")
            assert [h.id for h in m.recall("caching layers")][:1] == [new.id]
            assert m.recall("blue-green deploy")[0].id == nid
        with memdir.open(proj, home=home) as m:
            assert [h.id for h in m.recall("caching layers")][:1] == [new.id]


# ---- the debug log on a full disk ---------------------------------------------------------------------------------
DEBUG_LOG_FULL = """
import io, sys
import memdir.debuglog as d
d._open_regular = lambda path: open("/dev/full", "a", encoding="utf-8")  # every write: ENOSPC, as on a full disk
from memdir.cli.main import main
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()), encoding="utf-8")
main(sys.argv[2:])
"""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_debug_log_the_disk_cannot_take_never_fails_a_hook_or_a_command(tmp_path):
    """MEMDIR_DEBUG=1 with the global root on a full disk: logging's report of each failed write went to stderr, which
    a hook sends back into the debug log, without end (RecursionError, exit 1, megabytes on stderr)."""
    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        m.remember("deploy with the blue-green script from the main branch", category="decisions")
    env = {**os.environ, "MEMDIR_HOME": str(home), "MEMDIR_DEBUG": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    tool = json.dumps({"session_id": "s1", "cwd": str(proj), "hook_event_name": "PostToolUse", "tool_name": "Bash",
                       "tool_input": {"command": "make deploy"},
                       "tool_response": {"stdout": "deployed version 42 to the production cluster east"}})
    prompt = json.dumps({"session_id": "s1", "prompt": "how do we deploy the service?", "cwd": str(proj),
                         "hook_event_name": "UserPromptSubmit"})
    for stdin, args in ((tool, ["hook", "claude-code", "post-tool-use"]),
                        (prompt, ["hook", "claude-code", "user-prompt-submit"]),
                        ("", ["--dir", str(proj), "recall", "deploy"])):
        r = subprocess.run([sys.executable, "-c", DEBUG_LOG_FULL, stdin, *args], capture_output=True, text=True,
                           timeout=120, env=env, cwd=proj)
        assert r.returncode == 0 and r.stderr == "", (args, r.returncode, r.stderr[-2000:])
        if "recall" in args or "user-prompt-submit" in args:
            assert "blue-green" in r.stdout


# ---- a capture the index has no room for --------------------------------------------------------------------------
def test_a_capture_the_index_has_no_room_for_is_queued_not_lost(tmp_path, monkeypatch):
    """A tool output a hook captured while the index could not grow (SQLite's "database or disk is full", with room
    left for a small file) was dropped: it now waits in the spool, as for a busy lock, and is stored once there is
    room; a queue file the disk could not take whole leaves no part of itself behind."""
    from memdir.engine import spool
    from memdir.store.sqlite import opening

    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        m.remember("deploy with the blue-green script from the main branch", category="decisions")
    real = opening.open_index

    def full(path):  # the index may not grow by one page: what a nearly full disk does to SQLite
        db, created = real(path)
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        return db, created

    monkeypatch.setattr(opening, "open_index", full)
    words = " ".join(f"word{i} lorem{i * 7} ipsum{i * 13}" for i in range(400))
    with memdir.open(proj, home=home) as m:
        r = m.capture({"role": "tool", "tool": "Bash", "text": f"$ make deploy\ndeployed version 42 {words}",
                       "session": "s1", "call_id": "c1"})
        assert r.stored and r.reason == "spooled", r
    monkeypatch.undo()
    with memdir.open(proj, home=home) as m:
        assert any("deployed version 42" in h.text for h in m.recall("deployed version 42"))
    assert not list(spool.spool_dir(memdir.open(proj, home=home).stores.root("project")).iterdir())

    def no_room(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(spool.json, "dump", no_room)
    root = memdir.open(proj, home=home).stores.root("project")
    with pytest.raises(OSError):
        spool.put(root, [{"key": "k", "role": "user", "text": "x"}], scope="project")
    assert not [p.name for p in spool.spool_dir(root).iterdir()]


def test_an_export_to_a_full_disk_names_that_disk_and_keeps_the_earlier_export(tmp_path):
    """The store's disk has room, the export's has none: the one line named the memory store's disk as full."""
    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        m.remember("deploy with the blue-green script from the main branch", category="decisions")
        m.capture({"role": "user", "text": "how do we roll back a failed deploy quickly?", "session": "s1"})
    with small_disk(tmp_path / "disk") as disk:
        out = disk / "backup.jsonl"
        assert _cli(proj, home, "export", str(out)).returncode == 0
        kept = out.read_bytes()
        fill(disk, 0)
        r = _cli(proj, home, "export", str(out))
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "full" in r.stderr and str(disk) in r.stderr and "memory store" not in r.stderr, r.stderr
        assert out.read_bytes() == kept and sorted(p.name for p in disk.iterdir()) == ["backup.jsonl", "filler"]
