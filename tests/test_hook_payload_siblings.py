"""Siblings of the hook-capture cases (C8, C16, C22, C33, C40) for every host's hook: payloads a host, a wrapper or
a person trying the hook by hand may send that the recorded fixtures do not show. A hook always exits 0 within its
budget (fail open), prints a valid answer or nothing, and stores what it stores once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

import memdir

HOSTS_PROMPT = [("claude-code", "user-prompt"), ("codex", "user-prompt"), ("dsh", "user-prompt"),
                ("opencode", "user-prompt")]


def _env(home, **extra):
    env = {**os.environ, "MEMDIR_HOME": str(home), **extra}
    env.pop("MEMDIR_DEBUG", None)
    env.pop("MEMDIR_HOOK_BUDGET_MS", None)  # the budget under test is the one given on the command line
    return env


def _prompt_payload(host, project, text, session):
    if host == "opencode":
        return {"sessionID": session, "directory": str(project), "text": text}
    return {"session_id": session, "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": text}


def _user_keys(project, home):
    with memdir.open(project, home=home) as m:
        return [e.key for e in m.recent(kinds=["user"], limit=50)]


@pytest.mark.parametrize("warm", ["", "0"])
@pytest.mark.parametrize("host,event", HOSTS_PROMPT)
def test_a_stdin_that_never_closes_does_not_hang_the_hook(project, tmp_path, host, event, warm):
    """A host (or a wrapper script) that writes the payload and keeps stdin open: the hook used to wait for an end of
    file forever (the host's own timeout killed it, the prompt went without memory and uncaptured). A complete payload
    is now taken once the pipe goes quiet; a payload cut short ends the hook within its budget, printing nothing."""
    home = tmp_path / "home"
    with memdir.open(project, home=home) as m:
        m.remember("The staging database listens on port 5433 at staging-db.internal.", category="facts")
    env = _env(home, MEMDIR_HOOK_WARM=warm) if warm else _env(home)
    whole = json.dumps(_prompt_payload(host, project, "which port does the staging database listen on?", "open-1"))
    for data, complete in ((whole, True), (whole[: len(whole) // 2], False)):
        t = time.monotonic()
        p = subprocess.Popen([sys.executable, "-m", "memdir", "hook", host, event, "--budget-ms", "2500"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(project),
                             env=env)
        try:
            p.stdin.write(data.encode())
            p.stdin.flush()  # and never closed
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pytest.fail(f"{host} {event}: the hook still waits for stdin to close after 20 s")
            took = time.monotonic() - t
            out, err = p.stdout.read(), p.stderr.read()
        finally:
            if p.poll() is None:
                p.kill()
            p.stdin.close()
            p.stdout.close()
            p.stderr.close()
        assert p.returncode == 0 and err == b"", err[-2000:]
        assert took < 2.5 + 2.0, f"{host}: {took:.1f} s for a {len(data)}-byte payload on an open stdin"
        if complete:
            assert b"5433" in out, out
        else:
            assert out == b"", out
    assert any(k.startswith("u:open-1:") for k in _user_keys(project, home))


def _run(project, home, host, event, payload, *, budget_ms=6000, timeout=60):
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "memdir", "hook", host, event, "--budget-ms", str(budget_ms)],
                       input=json.dumps(payload).encode() if not isinstance(payload, bytes) else payload,
                       capture_output=True, cwd=str(project), env=_env(home, MEMDIR_HOOK_WARM="0"), timeout=timeout)
    return r, time.monotonic() - t


@pytest.mark.parametrize("host", ["claude-code", "codex", "dsh"])
def test_a_stop_whose_transcript_path_is_a_fifo_or_a_device_is_not_waited_on(project, tmp_path, host):
    """``transcript_path`` is whatever the payload says: a FIFO's open waited for a writer and ``/dev/zero`` was read
    without end, both until the budget killed the hook (CPU and memory spent, the turn lost). Only a regular file is
    read; anything else counts as no transcript, at once."""
    home = tmp_path / "home"
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero", "/dev/urandom"):
        payload = {"session_id": "stop-1", "cwd": str(project), "hook_event_name": "Stop", "transcript_path": path,
                   "stop_hook_active": False}
        r, took = _run(project, home, host, "stop", payload)
        assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"", r.stderr[-2000:]
        assert took < 4.0, f"{host} stop on {path}: {took:.1f} s (the budget is 6 s: it waited on the file)"
