"""A team token as it comes out of a file or a paste: ``MEMDIR_REMOTE_TOKEN`` read with its newline (``$(<file)`` keeps
none, but an ``EnvironmentFile``, a CRLF ``.env`` or a copy from a terminal do), with spaces around it, or with a line
break or a non-ASCII letter inside. The HTTP library refused such a header with an error quoting it whole
(``Invalid header value b'Bearer mdt_…\\n'``), and that line was printed by ``memdir push``, ``status`` and
``doctor``, written into the index and named the wrong cause ("cannot be reached"). Now the spaces and line ends
around the token are dropped (it works), and a token that still cannot be sent is the ``auth`` cause, said without
the token, and nothing is sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import memdir

SECRET = "mdt_Q7vXk2LmP9sRt4WzYb8NcJ3hGf6DaE1u"


class AuthServer:
    """A team server stand-in: records each request's Authorization header and answers as the real one would."""

    def __init__(self) -> None:
        self.auth: list[str] = []
        srv = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _answer(self, obj):
                srv.auth.append(self.headers.get("Authorization", ""))
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._answer({"person": "ann", "projects": ["p"]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.path.endswith("/events"):
                    return self._answer({"stored": len(body["events"]), "duplicate": 0, "skipped": 0})
                if self.path.endswith("/recall"):
                    return self._answer({"hits": []})
                if self.path.endswith("/sharing"):
                    return self._answer({"project": "p", "person": "ann", "share": True})
                return self._answer({})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = AuthServer()
    yield s
    s.close()


def _cli(project, tmp_path, url, token, *args):
    env = {**os.environ, "MEMDIR_REMOTE_URL": url, "MEMDIR_REMOTE_PROJECT": "p", "MEMDIR_REMOTE_TOKEN": token,
           "MEMDIR_HOME": str(tmp_path / "g"), "MEMDIR_REMOTE_PUSH_BUDGET_MS": "0"}
    return subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)


def _capture(project, tmp_path, url):
    with memdir.open(project, home=tmp_path / "g", config={"remote.url": url, "remote.project": "p",
                                                          "remote.push_budget_ms": 0}) as m:
        assert m.import_events([{"key": "e1", "role": "user", "session": "s", "ts": 1_790_000_000,
                                 "text": "the deploy needs a lock on the orders table"}])["stored"] == 1


@pytest.mark.parametrize("raw", [SECRET + "\n", SECRET + "\r\n", f"  {SECRET}\t", f"{SECRET}\r"])
def test_a_token_with_a_line_end_or_spaces_around_it_is_sent_as_the_token(server, project, tmp_path, monkeypatch, raw):
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", raw)
    _capture(project, tmp_path, server.url)
    r = _cli(project, tmp_path, server.url, raw, "push")
    assert r.returncode == 0 and "1 sent" in r.stdout, r.stdout + r.stderr
    assert server.auth == [f"Bearer {SECRET}"]
    r = _cli(project, tmp_path, server.url, raw, "doctor")
    line = next(x for x in r.stdout.splitlines() if "team server" in x)
    assert "[  ok]" in line and "ann's" in line, r.stdout


@pytest.mark.parametrize("raw", [SECRET[:18] + "\n" + SECRET[18:], SECRET[:18] + "\r\n" + SECRET[18:] + "\n",
                                 SECRET[:18] + " " + SECRET[18:], SECRET + "密"])
def test_a_token_that_cannot_be_sent_is_said_without_it_and_as_the_token_cause(server, project, tmp_path, monkeypatch,
                                                                                 raw):
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", raw)
    _capture(project, tmp_path, server.url)
    parts = [p for p in raw.replace("\r", "\n").replace(" ", "\n").replace("密", "\n").split("\n") if len(p) >= 8]
    said = ""
    for args in (("push",), ("status",), ("doctor",), ("recall", "deploy"), ("share",), ("--json", "push")):
        r = _cli(project, tmp_path, server.url, raw, *args)
        assert "Traceback" not in r.stderr, r.stderr
        said += r.stdout + r.stderr
    assert not any(p in said for p in parts), said
    assert "MEMDIR_REMOTE_TOKEN holds" in said and "cannot be reached" not in said, said
    assert server.auth == []  # nothing was sent with a broken header
    on_disk = b"".join(p.read_bytes() for p in (project / ".memory" / ".memdir").glob("index.sqlite3*"))
    assert not any(p.encode() in on_disk for p in parts)
    with memdir.open(project, home=tmp_path / "g", config={"remote.url": server.url, "remote.project": "p"}) as m:
        q = m.status()["project"]["remote_queue"]
        assert q["queued"] == 1 and q["cause"] == "auth" and "MEMDIR_REMOTE_TOKEN" in q["fix"], q
