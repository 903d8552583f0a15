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


def _ten_mb(kind: str, seed: str) -> str:
    import base64
    import random

    rnd = random.Random(seed)
    if kind == "base64":
        return base64.b64encode(rnd.randbytes(7_500_000)).decode()
    words = f"deploy nginx upstream {seed} pool migration timeout 部署 数据库 the and with error warning".split()
    return " ".join(rnd.choice(words) for _ in range(1_700_000))[:10_000_000]


@pytest.mark.parametrize("kind", ["prose", "base64"])
@pytest.mark.parametrize("host", ["claude-code", "codex", "dsh", "opencode"])
def test_ten_megabyte_prompts_replies_and_tool_outputs_are_stored_within_the_budget(project, tmp_path, host, kind):
    """C8 through a hook: a 10 MB prompt, reply or tool output (a pasted log, an image as base64) was redacted whole
    before it was cut to the stored size, twice per capture (5-10 s), so the hook ran past its budget and the turn was
    lost (the last words had no time to queue it either). Each is now stored, bounded, within the budget."""
    home = tmp_path / "home"
    text = _ten_mb(kind, f"{host}{kind}")
    oc = host == "opencode"
    calls = [
        ("user-prompt", {"sessionID": "big", "directory": str(project), "text": text} if oc else
         {"session_id": "big", "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": "q " + text}),
        ("stop", {"sessionID": "big", "directory": str(project), "text": "r " + text} if oc else
         {"session_id": "big", "cwd": str(project), "hook_event_name": "Stop", "last_assistant_message": "r " + text}),
        ("post-tool-use", {"sessionID": "big", "directory": str(project), "tool": "bash", "callID": "c1",
                           "args": {"command": "make all"}, "output": text} if oc else
         {"session_id": "big", "cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "Bash",
          "tool_input": {"command": "make all"}, "tool_response": {"stdout": text, "stderr": ""}, "tool_use_id": "c1"}),
    ]
    for event, payload in calls:
        r, took = _run(project, home, host, event, payload, budget_ms=3000)
        assert r.returncode == 0 and r.stderr == b"", r.stderr[-2000:]
        assert took < 3.0 + 1.5, f"{host} {event}: {took:.1f} s"
    with memdir.open(project, home=home) as m:
        got = {e.key[0]: e for e in m.recent(limit=20)}
    assert set(got) == {"u", "a", "t"}, sorted(got)
    from memdir.capture.events import MAX_EVENT_CHARS

    assert all(len(e.text) <= MAX_EVENT_CHARS for e in got.values())


def test_a_secret_at_any_cut_of_a_long_text_never_survives_in_part():
    """The long text is redacted in its kept head and tail only: a key straddling a cut must go whole or with the
    margin, never leave a piece behind."""
    from memdir.capture.events import MAX_EVENT_CHARS, REDACT_MARGIN, redact_bounded

    key = "ghp_" + "Zq8Lm2Rt6Vx0Bn4Kp7Wd1Fs9Hj3Gc5Ya8Ee"
    head = int(MAX_EVENT_CHARS * 0.7)
    tail = MAX_EVENT_CHARS - head - 40
    n = 5 * MAX_EVENT_CHARS + 3 * REDACT_MARGIN
    for at in [*range(head - 45, head + 5), *range(head + REDACT_MARGIN - 45, head + REDACT_MARGIN + 5),
               *range(n - tail - 45, n - tail + 5), *range(n - tail - REDACT_MARGIN - 45, n - tail - REDACT_MARGIN + 5)]:
        text = ("word " * (n // 5))[:at] + key + ("word " * (n // 5))[: n - at - len(key)]
        out = redact_bounded(text)
        assert len(out) <= MAX_EVENT_CHARS
        assert not any(key[i:i + 12] in out for i in range(len(key) - 11)), at
