"""An embedding endpoint that hangs or says "come back later" (case C34): recall, context and the block answer from
the lexical channel within the recall deadline, the endpoint is not asked again until it may be (Retry-After, or a
cool-down shared by every process through a file), and doctor says it is down."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import memdir
from memdir.embed.breaker import Breaker, retry_after


class Endpoint:
    """A local /v1/embeddings stand-in: ``mode`` = ``"hang"`` (answers after 30 s), ``"429"`` (Retry-After: 60) or
    ``"ok"``; ``hits`` counts the requests it received."""

    def __init__(self, mode: str):
        self.mode, self.hits = mode, 0
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                outer.hits += 1
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                if outer.mode == "hang":
                    time.sleep(30)
                    return
                if outer.mode == "drip":  # headers and a length, then the body a few bytes at a time
                    raw = json.dumps({"data": [{"index": i, "embedding": [1.0, 0.0, 0.5]}
                                               for i, _ in enumerate(body["input"])], "pad": " " * 400}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    try:
                        for i in range(0, len(raw), 8):
                            self.wfile.write(raw[i:i + 8])
                            self.wfile.flush()
                            time.sleep(0.5)
                    except OSError:
                        pass
                    return
                if outer.mode in ("429", "429long"):
                    self.send_response(429)
                    self.send_header("Retry-After", "60" if outer.mode == "429" else "99999999")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = [{"index": i, "embedding": [1.0, float(len(t) % 7), 0.5]} for i, t in enumerate(body["input"])]
                raw = json.dumps({"data": data}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/embeddings"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint(request):
    ep = Endpoint(request.param)
    yield ep
    ep.close()


def open_hybrid(project, home, url):
    return memdir.open(project, home=home, config={"embed.provider": "openai", "embed.url": url,
                                                   "recall.channel": "hybrid", "embed.timeout_s": 6.0})


@pytest.mark.parametrize("endpoint", ["hang", "drip"], indirect=True)
def test_a_hanging_endpoint_costs_one_deadline_then_nothing(project, tmp_path, endpoint):
    home = tmp_path / "g"
    m = open_hybrid(project, home, endpoint.url)
    m.remember("deploys go through scripts/deploy.sh on the staging cluster", category="decisions")
    t = time.monotonic()
    hits = m.recall("deploy staging")
    first = time.monotonic() - t
    assert hits and "deploy.sh" in hits[0].text  # the lexical channel answered
    assert first < 4.0  # the recall deadline (1.2 s), not 3 tries x 6 s
    asked = endpoint.hits
    assert asked >= 1
    # a new process (a hook) finds the breaker open: it does not ask the endpoint at all
    m2 = open_hybrid(project, home, endpoint.url)
    t = time.monotonic()
    block = m2.context("how do we deploy to staging?")
    assert "deploy.sh" in block and time.monotonic() - t < 1.0
    assert endpoint.hits == asked
    problems = [c for c in m2.doctor(repair=False) if c.get("check") == "provider" or "provider" in str(c.get("name", ""))]
    assert problems and any("down" in json.dumps(c) for c in problems), problems


@pytest.mark.parametrize("endpoint", ["429"], indirect=True)
def test_retry_after_is_honoured_across_processes(project, tmp_path, endpoint):
    home = tmp_path / "g"
    m = open_hybrid(project, home, endpoint.url)
    m.remember("the release checklist lives in docs/release.md", category="facts")
    assert m.recall("release checklist")[0].text.startswith("the release checklist")
    assert endpoint.hits == 1  # no retry against an explicit Retry-After
    m2 = open_hybrid(project, home, endpoint.url)
    assert m2.recall("release checklist")
    assert endpoint.hits == 1  # still inside the 60 s
    b = Breaker(home)
    state = b.read()[endpoint.url]
    assert 50 <= state["until"] - time.time() <= 61
    state["until"] = time.time() - 1  # the minute has passed
    b.write({endpoint.url: state})
    endpoint.mode = "ok"
    m3 = open_hybrid(project, home, endpoint.url)
    assert m3.recall("release checklist")
    assert endpoint.hits >= 2 and endpoint.url not in Breaker(home).read()  # a success closes it


def test_the_breaker_cools_down_longer_each_time_and_reads_http_dates():
    now = [1000.0]
    b = Breaker(None, clock=lambda: now[0])
    assert b.trip("u", "timed out") == 15
    assert b.open_reason("u") and "timed out" in b.open_reason("u")
    assert b.trip("u", "timed out") == 30
    now[0] += 31
    assert b.open_reason("u") is None
    assert b.trip("u", "429", retry_after_s=7200) == 600  # capped
    b.close("u")
    assert b.open_reason("u") is None
    assert retry_after("120") == 120
    assert 0 <= retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412480 - 60) - 60 < 1
    assert retry_after("soon") is None and retry_after(None) is None


@pytest.mark.parametrize("endpoint", ["hang"], indirect=True)
def test_a_prompt_hook_answers_while_a_writer_holds_the_lock(project, tmp_path, endpoint):
    """The hostile day (bench/hostile_day.py): a long import holds the write lock and an open SQLite write
    transaction while a prompt hook on the hybrid channel runs against a hanging endpoint. Nothing the hook does
    after recall (the failed embedding's bookkeeping, the rehearsal count, the injection log) may wait for that
    lock: the block comes out within the hook's own budget (20 s here; before, the rehearsal waited 30 s for SQLite
    and the embedding bookkeeping 60 s for the lock, which is held for 60 s)."""
    import os
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("deploys go through scripts/deploy.sh on the staging cluster", category="decisions")
    code = textwrap.dedent(f"""
        import time, memdir
        m = memdir.open({str(project)!r}, home={str(home)!r})
        root = m.roots["project"]
        with root.locked(), root.store.transaction():
            print("held", flush=True)
            time.sleep(60)
    """)
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        fix = Path(__file__).parent / "fixtures" / "hooks" / "claude_user_prompt.json"
        data = json.loads(fix.read_text(encoding="utf-8"))
        data.update(cwd=str(project), prompt="How do we deploy to the staging cluster?")
        env = {**os.environ, "MEMDIR_HOME": str(home), "MEMDIR_HOOK_BUDGET_MS": "20000", "MEMDIR_EMBED_PROVIDER": "openai",
               "MEMDIR_EMBED_URL": endpoint.url, "MEMDIR_RECALL_CHANNEL": "hybrid"}
        r = subprocess.run([sys.executable, "-m", "memdir.cli.main", "hook", "claude-code", "user-prompt"],
                           input=json.dumps(data).encode(), capture_output=True, cwd=str(project), env=env, timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip(), "the hook's budget ran out: something in it waited for the write lock"
    assert "deploy.sh" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_breaker_file_is_private(tmp_path):
    import os
    import stat

    old = os.umask(0o022)
    try:
        b = Breaker(tmp_path / "g")
        b.write({"http://127.0.0.1:9/embed": {"until": 1.0, "strikes": 1}})
    finally:
        os.umask(old)
    assert b.path.exists() and stat.S_IMODE(os.stat(b.path).st_mode) == 0o600


@pytest.mark.parametrize("endpoint", ["429long"], indirect=True)
def test_a_retry_after_beyond_the_longest_cool_down_is_said_as_the_wait_applied(tmp_path, endpoint):
    """A Retry-After of three years is waited for at most MAX_COOLDOWN_S: the message says that wait, not the header's."""
    from memdir.embed.breaker import MAX_COOLDOWN_S
    from memdir.embed.openai_compat import OpenAICompatProvider
    from memdir.embed import EmbedError

    prov = OpenAICompatProvider(endpoint.url, home=tmp_path / "g", sleep=lambda s: None)
    with pytest.raises(EmbedError) as err:
        prov.embed(["the release checklist"])
    assert f"asked again in {MAX_COOLDOWN_S:.0f} s" in str(err.value) and "99999999 s" not in str(err.value)
