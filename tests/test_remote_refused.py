"""A queued row the team server refuses (issue 14 follow-up): after a 4xx about the rows — not a 5xx, a timeout, or a
4xx about the token or the route — the row is kept aside as failed with the server's one-line reason (never deleted,
never sent again on its own), the rest of its batch is delivered, ``memdir status``/``doctor`` show the count and
reason, and ``memdir push --retry-failed`` sends them again. Against a small HTTP server in a thread (offline)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import memdir
from memdir.engine import remote


class FakeServer:
    """``POST /v1/<project>/events`` and ``/forget``: ``mode`` "refuse-bad" answers 400 to a batch holding a row whose
    text contains ``BAD`` (as the real server does for a malformed row: the whole request), "ok" stores everything,
    or a fixed status (403, 500) for every request. ``stored`` lists the refs received, ``requests`` counts them."""

    def __init__(self) -> None:
        self.mode: object = "refuse-bad"
        self.stored: list[str] = []
        self.forgot: list[str] = []
        self.requests = 0
        srv = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                srv.requests += 1
                if isinstance(srv.mode, int):
                    return self._send(srv.mode, {"error": f"status {srv.mode}"})
                if self.path.endswith("/forget"):
                    if srv.mode == "refuse-bad" and "BAD" in body["ref"]:
                        return self._send(400, {"error": "forget needs ref and when (ISO time)"})
                    srv.forgot.append(body["ref"])
                    return self._send(200, {"forgotten": True})
                evs = body["events"]
                if srv.mode == "refuse-bad" and any("BAD" in e["text"] for e in evs):
                    return self._send(400, {"error": "each event needs ref, content_sha256, text and ts (strings)"})
                srv.stored += [e["ref"] for e in evs]
                return self._send(200, {"stored": len(evs), "duplicate": 0, "skipped": 0})

            def _send(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = FakeServer()
    yield s
    s.close()


def _events(n: int, bad=()) -> list[dict]:
    return [{"key": f"e{i}", "role": "user", "session": "s", "ts": 1_790_000_000 + i,
             "text": f"turn {i} about the deploy" + (" BAD" if i in bad else "")} for i in range(n)]


def _open(project, tmp_path, url, **cfg):
    return memdir.open(project, home=tmp_path / "g", config={"remote.url": url, "remote.project": "p",
                                                            "remote.push_budget_ms": 0, **cfg})


def test_rows_the_server_refuses_are_kept_aside_with_its_reason_and_the_rest_delivered(server, project, tmp_path,
                                                                                        monkeypatch):
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    with _open(project, tmp_path, server.url) as m:
        assert m.import_events(_events(20, bad={3, 11}))["stored"] == 20
        derived = m.roots["project"].derived
        assert remote.pending(derived) == 20  # push budget 0: queued only
        res = m.push()
        assert res["sent"] == 18 and res["left"] == 0 and res["failed"] == 2, res
        assert res["error"].startswith("HTTP 400: each event needs ref")
        assert sorted(server.stored) == sorted(f"e{i}" for i in range(20) if i not in (3, 11))  # each once
        assert len(set(server.stored)) == len(server.stored)
        kept = m.remote_failed()
        assert [(f["op"], f["ref"]) for f in kept] == [("event", "e3"), ("event", "e11")]
        assert all(f["reason"] == "HTTP 400: each event needs ref, content_sha256, text and ts (strings)" and f["at"]
                   for f in kept)
        assert remote.pending(derived) == 0
        # never sent again on their own: a later push (and the push after a write) sends nothing of them
        before = server.requests
        assert m.push() == {"sent": 0, "left": 0, "failed": 2, "error": None}
        assert server.requests == before
        st = m.status()["project"]["remote_queue"]
        assert st == {"queued": 0, "failed": 2, "reason": kept[-1]["reason"]}
        check = next(c for c in m.doctor() if c["check"] == "remote queue")
        assert check["ok"] == "warn" and "2 queued row(s) refused" in check["detail"] and "--retry-failed" in check["remedy"]
        # a refused forget is kept aside the same way
        m.import_events([{"key": "BAD-forget", "role": "user", "session": "s", "ts": 1_790_000_100, "text": "fine text"}])
        m.push()
        m.forget("BAD-forget")
        res = m.push()
        assert res["failed"] == 3 and ("forget", "BAD-forget") in {(f["op"], f["ref"]) for f in m.remote_failed()}

    # the server is fixed: `memdir push --retry-failed` sends them again (status/doctor clear)
    server.mode = "ok"
    env = {"MEMDIR_REMOTE_URL": server.url, "MEMDIR_REMOTE_PROJECT": "p", "MEMDIR_REMOTE_TOKEN": "tok",
           "MEMDIR_HOME": str(tmp_path / "g")}
    import os

    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "push", "--retry-failed", "--json"],
                       capture_output=True, text=True, timeout=120, env={**os.environ, **env}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert (got["retried"], got["sent"], got["failed"], got["left"]) == (3, 3, 0, 0), got
    assert {"e3", "e11"} <= set(server.stored) and "BAD-forget" in server.forgot
    with _open(project, tmp_path, server.url) as m:
        assert m.remote_failed() == [] and m.status()["project"]["remote_queue"] == {"queued": 0, "failed": 0}


@pytest.mark.parametrize("status", [403, 401, 404, 429, 500, 503])
def test_answers_about_the_token_route_rate_or_server_keep_rows_queued(server, project, tmp_path, monkeypatch, status):
    """Not about the rows: the rows stay queued (backed off), none is set aside, and they go once the server takes
    them."""
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    server.mode = status
    with _open(project, tmp_path, server.url) as m:
        m.import_events(_events(5))
        res = m.push()
        assert (res["sent"], res["left"], res["failed"]) == (0, 5, 0) and res["error"].startswith(f"HTTP {status}")
        assert m.remote_failed() == []
        server.mode = "ok"
        res = m.push()
        assert (res["sent"], res["left"], res["failed"]) == (5, 0, 0)
        assert sorted(server.stored) == [f"e{i}" for i in range(5)]


def test_memdir_push_reports_refused_rows_and_exits_1(server, project, tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    with _open(project, tmp_path, server.url) as m:
        m.import_events(_events(4, bad={2}))
    env = {**os.environ, "MEMDIR_REMOTE_URL": server.url, "MEMDIR_REMOTE_PROJECT": "p", "MEMDIR_HOME": str(tmp_path / "g")}
    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "push"], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 1
    assert "3 sent, 0 queued, 1 refused by the server and kept aside (memdir push --retry-failed)" in r.stdout
    assert "HTTP 400: each event needs ref" in r.stdout
    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "status"], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0 and "remote_queue: queued=0, failed=1, reason=HTTP 400: each event needs ref" in r.stdout


def test_forgetting_a_note_queues_no_server_forget_an_event_still_does(server, project, tmp_path, monkeypatch):
    """Notes never go to the team server through the queue (they are shared through Git), so forgetting one queued a
    forget for a row the server cannot have (and its handler then tombstoned that key for the person). Only events'
    forgets are queued."""
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    server.mode = "ok"
    with _open(project, tmp_path, server.url) as m:
        note = m.remember("we deploy with make deploy", category="facts")
        m.import_events(_events(1))
        assert m.push()["sent"] == 1 and server.stored == ["e0"]
        assert m.forget(note.id)
        derived = m.roots["project"].derived
        assert remote.pending(derived) == 0
        assert m.push() == {"sent": 0, "left": 0, "failed": 0, "error": None} and server.forgot == []
        assert m.forget("e0")
        assert remote.pending(derived) == 1
        assert m.push()["sent"] == 1 and server.forgot == ["e0"]
