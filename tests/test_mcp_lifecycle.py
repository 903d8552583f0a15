"""``memdir mcp`` when its host goes away: a host that dies (killed, crashed) closes both ends of the pipe, and the
server must leave promptly instead of working through the calls it had queued for nobody to read."""

from __future__ import annotations

import io
import json
import threading
import time

import pytest

pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")

from memdir.server import mcplight  # noqa: E402


def _init(id_=1):
    return {"jsonrpc": "2.0", "id": id_, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


class _DeadPipe(io.RawIOBase):
    """The write end of a pipe whose reader (the host) died: every write is EPIPE."""

    def writable(self):
        return True

    def write(self, b):
        raise BrokenPipeError(32, "Broken pipe")


class _SlowSDK:
    """Stands in for the SDK server: each request takes ``per`` seconds, then its answer is written."""

    def __init__(self, per: float):
        self.per, self.answered = per, 0

    def __call__(self, next_line, write_line):
        while (line := next_line()) is not None:
            msg = json.loads(line)
            if "id" in msg and "method" in msg:
                time.sleep(self.per)
                self.answered += 1
                write_line(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}) + "\n")


def test_a_host_that_died_is_not_served_the_calls_it_queued():
    """A host killed with 40 calls queued (its stdout gone): the server went on answering every one into the
    broken pipe, up to its 60 s drain, before it exited; it now stops at the first reply it cannot write."""
    table = mcplight.load_table()
    assert table is not None
    sdk = _SlowSDK(0.25)
    calls = [{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
              "params": {"name": "memory_list", "arguments": {}}} for i in range(40)]
    lines = [_init(), {"jsonrpc": "2.0", "method": "notifications/initialized"}, *calls]
    reader = io.BytesIO("".join(json.dumps(m) + "\n" for m in lines).encode())
    srv = mcplight.LightServer(table, lambda: sdk, reader, _DeadPipe())
    done = threading.Event()
    started = time.monotonic()
    t = threading.Thread(target=lambda: (srv.serve(drain_timeout=60), done.set()), daemon=True)
    t.start()
    assert done.wait(30), "the server never ended"
    took = time.monotonic() - started
    assert took < 3.0 and sdk.answered < 10, (took, sdk.answered)


@pytest.mark.slow
def test_memdir_mcp_leaves_promptly_when_its_host_is_killed(tmp_path):
    """The whole server: a host killed (both pipes closed) while 40 calls wait behind each other for the store; the
    server ran all of them for nobody (6-9 s of CPU) before it exited; it now leaves within a call or two."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import memdir

    proj, home = tmp_path / "proj", tmp_path / "home"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        m.import_events([{"key": f"k{i}", "role": "user", "session": "s", "ts": f"2026-10-01T10:{i % 60:02d}:00Z",
                          "text": f"we deploy with pnpm, lockfile {i} " + "word " * 300} for i in range(200)])
    src = str(Path(__file__).resolve().parents[1] / "src")
    p = subprocess.Popen([sys.executable, "-m", "memdir", "mcp", "--home", str(home)], cwd=proj,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, PYTHONPATH=src))

    def send(msg):
        p.stdin.write(json.dumps(msg).encode() + b"\n")
        p.stdin.flush()

    send(_init())
    assert json.loads(p.stdout.readline())["id"] == 1
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_inspect", "arguments": {}}})
    assert json.loads(p.stdout.readline())["id"] == 2  # the full server is serving
    for i in range(40):
        send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
              "params": {"name": "memory_list", "arguments": {"limit": 50, "kinds": ["event"]}}})
    time.sleep(1.0)
    p.stdout.close()  # the host is killed: both ends of its pipes close
    p.stdin.close()
    started = time.monotonic()
    try:
        rc = p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    took = time.monotonic() - started
    err = p.stderr.read().decode("utf-8", "replace")
    p.stderr.close()
    assert rc == 0 and "Traceback" not in err, err
    assert took < 3.0, took
