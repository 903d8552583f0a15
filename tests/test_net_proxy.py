"""Company networks: HTTP_PROXY / HTTPS_PROXY / ALL_PROXY set (upper or lower case) to a proxy that is dead or slow.
Requests to this machine (the team server or an embedding endpoint on 127.0.0.1, [::1] or localhost) never go
through it; an endpoint elsewhere does (NO_PROXY names the hosts that do not), as curl and the HTTP libraries do."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memdir.embed.openai_compat import OpenAICompatProvider
from memdir.engine import delivery, remote, teamview

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
ROW = {"ref": "k1", "content_sha256": "x", "text": "deploy with pnpm", "ts": "2026-11-30T00:00:00Z", "ts_epoch": 0}


class Stub:
    """A loopback server answering as the team server and an embeddings endpoint; ``seen`` keeps each request line's
    target (a proxy is asked with the absolute URL)."""

    def __init__(self, family=socket.AF_INET, host="127.0.0.1"):
        outer, self.seen = self, []

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _answer(self, obj):
                body = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                outer.seen.append(self.path)
                self._answer({"person": "ann", "projects": ["proj"]})

            def do_POST(self):
                outer.seen.append(self.path)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.path.endswith("/embeddings"):
                    self._answer({"data": [{"index": i, "embedding": [1.0, 0.5]} for i in range(len(body["input"]))]})
                elif self.path.endswith("/recall"):
                    self._answer({"hits": [{"ref": "t1", "text": "team hit", "score": 1.0}]})
                else:
                    self._answer({"stored": len(body.get("events", []))})

        class S(ThreadingHTTPServer):
            address_family = family

        self.srv = S((host, 0), H)
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


@pytest.fixture
def stub():
    s = Stub()
    yield s
    s.close()


def _dead_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def slow_proxy():
    """A proxy that accepts connections and never answers."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    srv.close()


@pytest.fixture(params=["upper", "lower", "all"])
def proxied(request, monkeypatch, slow_proxy):
    """Every proxy variable of one spelling set to a proxy that never answers (and NO_PROXY unset)."""
    for v in PROXY_VARS + ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(v, raising=False)
    names = {"upper": ("HTTP_PROXY", "HTTPS_PROXY"), "lower": ("http_proxy", "https_proxy"),
             "all": ("ALL_PROXY", "all_proxy")}[request.param]
    for v in names:
        monkeypatch.setenv(v, slow_proxy)
    return slow_proxy


def _loopback_urls(stub):
    return [f"http://127.0.0.1:{stub.port}/v1", f"http://localhost:{stub.port}/v1/"]


def test_a_push_to_a_team_server_on_this_machine_skips_a_dead_proxy(tmp_path, stub, proxied):
    for i, url in enumerate(_loopback_urls(stub)):
        d = tmp_path / str(i)
        d.mkdir()
        remote.enqueue(d, [ROW])
        t0 = time.monotonic()
        res = remote.push(d, url, "proj", "tok", budget_s=2)
        assert res["sent"] == 1 and res["left"] == 0, (url, res)
        assert time.monotonic() - t0 < 1.5


def test_a_team_recall_and_doctor_on_this_machine_skip_a_dead_proxy(stub, proxied):
    url = f"http://127.0.0.1:{stub.port}/v1"
    r = remote.Recall(url, "proj", "tok", "deploy", 5, budget_s=1.5)
    assert r.result() and r.error is None
    check = teamview.check_server(url, "proj", "tok", timeout_s=1.5)
    assert check["ok"] == "ok", check


def test_an_ipv6_loopback_team_server_skips_the_proxy(proxied):
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        s = Stub(socket.AF_INET6, "::1")
    except OSError:
        pytest.skip("no IPv6 loopback")
    try:
        check = teamview.check_server(f"http://[::1]:{s.port}/v1", "proj", "tok", timeout_s=1.5)
        assert check["ok"] == "ok", check
    finally:
        s.close()


def test_an_embedding_endpoint_on_this_machine_skips_the_proxy(stub, proxied, tmp_path):
    p = OpenAICompatProvider(f"http://127.0.0.1:{stub.port}/v1/embeddings", "m", timeout_s=1.5, retries=0,
                             home=tmp_path)
    assert p.embed(["hello"]).shape == (1, 2)


def test_an_embedding_endpoint_elsewhere_goes_through_the_proxy(stub, monkeypatch, tmp_path):
    for v in PROXY_VARS + ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{stub.port}")  # the stub answers as the proxy would
    p = OpenAICompatProvider("http://embed.example.invalid/v1/embeddings", "m", timeout_s=2, retries=0, home=tmp_path)
    assert p.embed(["hello"]).shape == (1, 2)
    assert stub.seen == ["http://embed.example.invalid/v1/embeddings"]


def test_no_proxy_names_a_host_that_is_asked_directly(stub, monkeypatch, tmp_path):
    for v in PROXY_VARS + ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{_dead_port()}")
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{_dead_port()}")
    monkeypatch.setenv("no_proxy", "example.invalid")
    p = OpenAICompatProvider("http://embed.example.invalid/v1/embeddings", "m", timeout_s=2, retries=0, home=tmp_path)
    with pytest.raises(Exception) as got:
        p.embed(["x"])
    assert "proxy" not in str(got.value).lower()  # asked directly: the name does not resolve, no proxy was tried


def test_an_unreachable_proxy_is_named_in_the_doctor_line(monkeypatch, tmp_path):
    for v in PROXY_VARS + ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(v, raising=False)
    port = _dead_port()
    monkeypatch.setenv("HTTPS_PROXY", f"http://bob:Pr0xyPassw0rd@127.0.0.1:{port}")
    check = teamview.check_server("https://team.example.invalid/v1", "proj", "tok", timeout_s=1.5)
    line = check["detail"] + check["remedy"]
    assert check["ok"] == "fail" and f"127.0.0.1:{port}" in line and "HTTPS_PROXY" in line, check
    assert "Pr0xyPassw0rd" not in line


def test_an_embedding_endpoint_behind_a_dead_proxy_names_the_proxy(monkeypatch, tmp_path):
    for v in PROXY_VARS + ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{_dead_port()}")
    p = OpenAICompatProvider("https://embed.example.invalid/v1/embeddings", "m", timeout_s=1, retries=0, home=tmp_path)
    with pytest.raises(Exception) as got:
        p.embed(["x"])
    assert "through the proxy http://127.0.0.1:" in str(got.value) and "https_proxy" in str(got.value)


@pytest.mark.parametrize("auth", ["ann:S3cretPassw0rd@", "ann:S3cret%2FPassw0rd@", "ann@"])
def test_a_team_url_with_user_and_password_works_and_never_shows_the_password(tmp_path, stub, auth):
    for i, url in enumerate([f"http://{auth}127.0.0.1:{stub.port}/v1", f"http://{auth}localhost/v1"]):
        d = tmp_path / str(i)
        d.mkdir()
        remote.enqueue(d, [ROW])
        res = remote.push(d, url, "proj", "tok", budget_s=2)
        assert "S3cret" not in json.dumps(res)
        db = sqlite3.connect(d / "index.sqlite3")  # what status and doctor show later
        assert "S3cret" not in json.dumps(delivery.read(db))
        db.close()
        check = teamview.check_server(url, "proj", "tok", timeout_s=1.5)
        assert "S3cret" not in json.dumps(check)
        if i == 0:  # the server on this machine: delivered, and doctor says the credential is not sent
            assert res["sent"] == 1, res
            assert check["ok"] == "warn" and "user:password@" in check["remedy"], check


class ChatStub(Stub):
    """The stub answering ``/chat/completions`` too (as an OpenAI-compatible chat endpoint, or the proxy before one)."""

    def __init__(self):
        super().__init__()
        handler = self.srv.RequestHandlerClass
        post, outer = handler.do_POST, self

        def do_POST(h):
            if h.path.endswith("/chat/completions"):
                outer.seen.append(h.path)
                h.rfile.read(int(h.headers.get("Content-Length") or 0))
                h._answer({"choices": [{"message": {"content": "[]"}}]})
            else:
                post(h)

        handler.do_POST = do_POST


def test_the_distill_chat_provider_honours_the_proxy_and_skips_it_for_this_machine(monkeypatch, slow_proxy):
    pytest.importorskip("httpx2")
    from memdir.llm.http import OpenAIChatProvider

    s = ChatStub()
    try:
        for v in PROXY_VARS + ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(v, raising=False)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{s.port}")  # the stub as the company proxy
        assert OpenAIChatProvider("http://llm.example.invalid/v1", "m", timeout_s=3).complete("s", "p") == "[]"
        assert s.seen == ["http://llm.example.invalid/v1/chat/completions"]
        monkeypatch.setenv("HTTP_PROXY", slow_proxy)  # a dead proxy: an endpoint on this machine is asked directly
        monkeypatch.setenv("ALL_PROXY", slow_proxy)
        assert OpenAIChatProvider(f"http://127.0.0.1:{s.port}/v1", "m", timeout_s=3).complete("s", "p") == "[]"
    finally:
        s.close()
