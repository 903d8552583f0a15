"""Distillation against a model that misbehaves in ways the stub of test_distill does not: an item the store
refuses (invisible text), an endpoint that sends its answer a byte at a time (each read within the timeout, the
whole far beyond it), and a reply far larger than any note could be. Each: the call or item fails with a reason,
nothing is lost, the turns stay pending (or are marked) as the case says, and the run goes on to the next item."""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import memdir
from memdir.distill import flow as distill
from memdir.llm import LLMError
from memdir.llm.http import OpenAIChatProvider


def _session(m, sid="s1", n=4):
    evs = []
    for i in range(n):
        evs.append({"key": f"u:{sid}:{i}", "role": "user", "text": f"turn {i}: we deploy with pnpm since the npm lockfile broke CI ({i})",
                    "session": sid, "ts": f"2026-10-01T10:{i:02d}:00Z"})
        evs.append({"key": f"a:{sid}:{i}", "role": "assistant", "text": f"Understood, point {i}: pnpm with a frozen lockfile.",
                    "session": sid, "ts": f"2026-10-01T10:{i:02d}:30Z"})
    m.import_events(evs)


class Fixed:
    name, model = "stub", "stub-1"

    def __init__(self, reply: str):
        self.reply = reply

    def complete(self, system: str, prompt: str) -> str:
        return self.reply


@pytest.mark.parametrize("body", ["\u200b\u2060\u200b", "\ufeff", "\u00ad\u00ad"])
def test_an_item_the_store_refuses_is_rejected_alone_and_the_rest_is_written(m, body):
    _session(m)
    reply = json.dumps({"version": 1, "memories": [
        {"category": "facts", "summary": "invisible", "body": body},
        {"category": "decisions", "summary": "Deploy with pnpm", "body": "Deploys use pnpm: the npm lockfile broke CI."}]})
    out = distill.run(m, provider=Fixed(reply))  # never raises for one item
    assert [r["item"] for r in out["rejected"]] == [0] and out["rejected"][0]["reason"]
    assert [n["summary"] for n in out["notes"]] == ["Deploy with pnpm"]
    assert not out["errors"] and out["marked"] == 8  # the reply was read: its turns are done
    assert distill.run(m, provider=Fixed(reply))["calls"] == 0  # a second run asks nothing


def test_a_body_that_is_not_text_is_rejected_as_such():
    from memdir.distill.prompt import check_item

    cand, why = check_item({"category": "facts", "summary": "s", "body": 12345}, categories=["facts"], max_body=2000)
    assert cand is None and "string" in why


def test_a_model_s_terminal_escapes_never_reach_the_report_or_the_note():
    """The run's report printed the model's summary as it came (``\x1b[31m`` recoloured the terminal)."""
    from memdir.distill.prompt import check_item

    cand, _ = check_item({"category": "facts", "summary": "deploys\x1b[31m use\x07 pnpm\x1b]0;owned\x07",
                          "body": "Deploys use pnpm\x1b[0m: the npm lockfile broke CI.\x08"},
                         categories=["facts"], max_body=2000)
    assert cand["summary"] == "deploys use pnpm"
    assert cand["body"] == "Deploys use pnpm: the npm lockfile broke CI."


@pytest.mark.parametrize("body", ["sk-proj-" + "A1b2C3d4E5" * 5, "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" * 3 + "\n-----END OPENSSH PRIVATE KEY-----\n",
                                  "ghp_" + "a1B2c3D4e5" * 3 + "a1B2c3 \u200b"])
def test_a_body_that_is_only_a_secret_is_rejected_not_kept_as_its_marker(body):
    """A note whose whole body was one key became ``[redacted:openai_key]`` under ``facts/redacted-openai-key``."""
    from memdir.distill.prompt import check_item

    cand, why = check_item({"category": "facts", "summary": "the key", "body": body}, categories=["facts"],
                           max_body=2000)
    assert cand is None and "secret" in why
    kept, _ = check_item({"category": "facts", "summary": "the key", "body": "the staging key lives in .env: " + body},
                         categories=["facts"], max_body=2000)
    assert kept is not None and "[redacted:" in kept["body"]


# ---- an endpoint on 127.0.0.1 that answers too slowly or too much --------------------------------------------
class Endpoint:
    """``mode``: ``drip`` (the reply a byte every ``gap`` s: each read is quick, the whole is not), ``huge`` (a
    reply of ``size`` bytes)."""

    def __init__(self, mode: str, *, gap: float = 0.2, size: int = 0):
        content = json.dumps({"version": 1, "memories": []})
        body = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
        stop = self.stop = threading.Event()

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length") or 0))
                data = body if mode == "drip" else (b'{"choices": [{"message": {"content": "' + b"x" * size + b'"}}]}')
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                try:
                    if mode == "drip":
                        for b in data:
                            if stop.is_set():
                                return
                            self.wfile.write(bytes([b]))
                            self.wfile.flush()
                            time.sleep(gap)
                    else:
                        for i in range(0, len(data), 1 << 20):
                            self.wfile.write(data[i:i + (1 << 20)])
                except OSError:
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def test_a_reply_sent_a_byte_at_a_time_is_cut_at_the_timeout():
    ep = Endpoint("drip", gap=0.2)  # about 90 bytes: some 18 s in all, each read 0.2 s
    try:
        p = OpenAIChatProvider(ep.url, "stub", timeout_s=1.0)
        t = time.monotonic()
        with pytest.raises(LLMError, match="within 1 s"):
            p.complete("system", "prompt")
        assert time.monotonic() - t < 8  # the timeout bounds the whole call, not each read
    finally:
        ep.close()


def test_a_reply_larger_than_any_answer_is_refused_with_its_reason():
    from memdir.llm import http as llm_http

    ep = Endpoint("huge", size=llm_http.MAX_REPLY_BYTES + 1000)
    try:
        p = OpenAIChatProvider(ep.url, "stub", timeout_s=20.0)
        with pytest.raises(LLMError, match="larger than"):
            p.complete("system", "prompt")
    finally:
        ep.close()


def test_a_dripping_endpoint_leaves_every_turn_pending(project, tmp_path, clock):
    ep = Endpoint("drip", gap=0.2)
    try:
        m = memdir.open(project, home=tmp_path / "g", clock=clock,
                        config={"distill.provider": "openai", "distill.url": ep.url, "distill.model": "stub",
                                "distill.timeout_s": 1.0})
        _session(m, "s1")
        out = distill.run(m)
        assert out["errors"] and out["marked"] == 0 and not out["notes"]
        assert len(distill.pending_turns(m.roots["project"])["s1"]) == 8
        m.close()
    finally:
        ep.close()


class Failing:
    """A provider whose every call fails with ``exc``; counts its calls."""
    name, model = "stub", "stub-1"

    def __init__(self, exc: Exception):
        self.exc, self.calls = exc, 0

    def complete(self, system: str, prompt: str) -> str:
        self.calls += 1
        raise self.exc


def test_a_model_that_cannot_be_reached_ends_the_run_instead_of_being_waited_for_per_session(m):
    """Each pending session asked the endpoint again after it had timed out: a run over 30 sessions waited 30
    timeouts. An unreachable model now ends the run; an answer that is an error (HTTP 500) does not."""
    from memdir.llm import LLMUnreachable

    for sid in ("s1", "s2", "s3"):  # three sessions, each with its own words (the same text is stored once)
        m.import_events([{"key": f"{r}:{sid}:{i}", "role": r, "session": sid, "ts": f"2026-10-01T1{i}:00:00Z",
                          "text": f"{sid} turn {i} by {r}: the {sid} service deploys with pnpm ({i})"}
                         for i in range(4) for r in ("user", "assistant")])
    down = Failing(LLMUnreachable("no answer from http://127.0.0.1:9/v1 within 1 s"))
    out = distill.run(m, provider=down)
    assert down.calls == 1 and len(out["errors"]) == 1 and out["marked"] == 0
    skipped = [x for x in out["sessions"] if x["status"] == "skipped"]
    assert len(skipped) == 2 and all("not tried" in x["reason"] and "within 1 s" in x["reason"] for x in skipped)
    assert all(len(v) == 8 for v in distill.pending_turns(m.roots["project"]).values())  # nothing lost
    refusing = Failing(LLMError("http://127.0.0.1:9/v1 answered HTTP 500: overloaded"))
    out = distill.run(m, provider=refusing)
    assert refusing.calls == 3 and len(out["errors"]) == 3  # it answered: each session is its own question


class StopsOnSecond:
    """A provider that answers its first call with no items and is stopped (Ctrl-C) in its second."""
    name, model = "stub", "stub-1"

    def __init__(self):
        self.calls = 0

    def complete(self, system: str, prompt: str) -> str:
        self.calls += 1
        if self.calls == 2:
            raise KeyboardInterrupt
        return json.dumps({"version": 1, "memories": [
            {"category": "facts", "summary": f"fact {self.calls}", "body": f"The first session's fact {self.calls}."}]})


def test_ctrl_c_in_a_run_says_how_far_it_got_and_keeps_what_it_wrote(m):
    """Ctrl-C printed a bare "aborted": nothing said which sessions were done."""
    from memdir.errors import Interrupted

    for sid in ("s1", "s2"):
        m.import_events([{"key": f"{r}:{sid}:{i}", "role": r, "session": sid, "ts": f"2026-10-01T1{i}:00:00Z",
                          "text": f"{sid} turn {i} by {r}: the {sid} service deploys with pnpm ({i})"}
                         for i in range(4) for r in ("user", "assistant")])
    with pytest.raises(Interrupted) as got:
        distill.run(m, provider=StopsOnSecond())
    assert got.value.done == 1 and "distil the rest" in str(got.value) and "1 session " in str(got.value)
    pending = distill.pending_turns(m.roots["project"])
    assert len(pending) == 1 and len(next(iter(pending.values()))) == 8  # the first is done, the second waits
    assert any(n.summary == "fact 1" for n in m.recent(category="facts"))


# ---- a host CLI that hangs ----------------------------------------------------------------------------------
@pytest.mark.skipif(os.name == "nt", reason="process groups are POSIX")
def test_a_hanging_host_cli_is_ended_with_every_process_it_started(tmp_path):
    from memdir.llm.host_cli import HostCLIProvider

    pidfile = tmp_path / "child.pid"
    script = tmp_path / "fake-claude"
    script.write_text(f"#!/bin/sh\nsleep 600 &\necho $! > {pidfile}\nwait\n")
    script.chmod(0o755)
    p = HostCLIProvider("claude", [str(script)], timeout_s=1.0)
    with pytest.raises(LLMError, match="no answer within 1 s"):
        p.complete("system", "prompt")
    child = int(pidfile.read_text())
    for _ in range(100):  # the grandchild is gone (killed with its group), not left running for ten minutes
        if not _alive(child):
            break
        time.sleep(0.05)
    alive = _alive(child)
    if alive:
        os.kill(child, 9)
    assert not alive


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.mark.skipif(os.name == "nt", reason="signals and process groups are POSIX")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_to_the_detached_distiller_ends_the_model_cli_with_it(tmp_path, sig):
    """`kill` (or a logout's SIGHUP) to the detached distiller ended it at once and left the model CLI, in a process
    group of its own, running (a hung one for good); now the CLI's group ends with it and distill.log says so in one
    line."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    proj, home = tmp_path / "proj", tmp_path / "home"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        _session(m)
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "fake-claude"
    script.write_text(f"#!/bin/sh\nsleep 600 &\necho $! > {pidfile}\nwait\n")
    script.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"), MEMDIR_DISTILL_PROVIDER="claude",
               MEMDIR_DISTILL_COMMAND=str(script), MEMDIR_DISTILL_MIN_TURNS="1")
    p = subprocess.Popen([sys.executable, "-m", "memdir.distill", "--session", "s1", "--dir", str(proj),
                          "--home", str(home)], cwd=proj, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child = None
    try:
        for _ in range(600):
            if pidfile.exists() and pidfile.read_text().strip():
                child = int(pidfile.read_text())
                break
            assert p.poll() is None, p.stderr.read()
            time.sleep(0.05)
        assert child is not None
        p.send_signal(getattr(signal, sig))
        p.wait(timeout=30)
        for _ in range(400):
            if not _alive(child):
                break
            time.sleep(0.05)
        alive = _alive(child)
    finally:
        if p.poll() is None:
            p.kill()
        if child is not None and _alive(child):
            os.kill(child, 9)
    err = p.stderr.read().decode("utf-8", "replace")
    assert not alive, "the model CLI's process was left running"
    assert "Traceback" not in err and "stopped by a signal" in err, err


def test_a_pipe_closed_under_the_reader_thread_ends_it_quietly():
    """A stop signal ends the model CLI and closes its pipes while a reader thread is still reading one: the thread
    raised ValueError ("I/O operation on closed file") and Python printed its traceback into distill.log."""
    import io
    import threading

    from memdir.llm.host_cli import _drain

    closed = io.BufferedReader(io.BytesIO(b"partial answer"))
    closed.close()
    buf = bytearray()
    _drain(closed, buf, 1 << 16, threading.Event())  # returns, raises nothing
    assert buf == b""
    live, done = io.BufferedReader(io.BytesIO(b"x" * 100)), threading.Event()
    _drain(live, buf, 10, done)
    assert done.is_set()
