"""What an OpenAI-compatible embedding endpoint may send back that is not a vector per text (siblings of cases C21,
C34): NaN, infinities, nulls, empty or all-zero vectors, a number or a matrix in place of a vector, rows of two
lengths, missing or repeated ``index`` fields, a body of another shape, a reply cut off or a status line of garbage,
a redirect, headers sent a byte at a time. Each is one ``EmbedError`` line naming the endpoint: the memories stay
pending (never stored with a vector that matches nothing), recall answers from the lexical channel within its
deadline, and the API key goes nowhere but the configured URL."""

from __future__ import annotations

import json
import socket
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

import memdir
from memdir import embed
from memdir.embed.openai_compat import OpenAICompatProvider


class Raw:
    """A loopback /v1/embeddings server whose reply is ``reply(texts) -> bytes`` (the body of a 200), or, for a
    ``reply`` returning a ``("raw", bytes, gap_s)`` tuple, those bytes written on the socket as they are, ``gap_s``
    apart byte by byte; ``seen`` keeps each request's path and Authorization header."""

    def __init__(self, reply):
        self.reply, self.seen = reply, []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.seen.append((self.path, self.headers.get("Authorization")))
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                outer.seen.append((self.path, self.headers.get("Authorization")))
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                out = outer.reply(body["input"])
                if isinstance(out, tuple):
                    _, raw, gap = out
                    try:
                        for i in range(len(raw)):
                            self.wfile.write(raw[i:i + 1])
                            self.wfile.flush()
                            time.sleep(gap)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/embeddings"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def rows(fn):
    """A reply giving text ``i`` the embedding ``fn(i, text)``."""
    return lambda texts: json.dumps({"data": [{"index": i, "embedding": fn(i, t)} for i, t in enumerate(texts)]}).encode()


def items(fn):
    """A reply whose ``data`` is ``fn(texts)`` as it is."""
    return lambda texts: json.dumps({"data": fn(texts)}).encode()


NOT_VECTORS = {
    "NaN": lambda t: b'{"data": [' + b",".join(b'{"index": %d, "embedding": [NaN, 1, 0]}' % i for i in range(len(t))) + b"]}",
    "Infinity": lambda t: b'{"data": [' + b",".join(b'{"index": %d, "embedding": [Infinity, 1, 0]}' % i for i in range(len(t))) + b"]}",
    "beyond float64 norm": rows(lambda i, t: [1e308, 1e308, 1.0]),
    "nulls": rows(lambda i, t: [None, None, None]),
    "empty": rows(lambda i, t: []),
    "all zero": rows(lambda i, t: [0.0, 0.0, 0.0]),
    "strings": rows(lambda i, t: ["a", "b", "c"]),
    "a number": rows(lambda i, t: 1.0),
    "a matrix": rows(lambda i, t: [[1.0, 2.0], [3.0, 4.0]]),
    "two lengths": rows(lambda i, t: [1.0, 2.0, 3.0][: 2 + i % 2]),
    "index repeated": items(lambda t: [{"index": 0, "embedding": [1.0, float(i), 0.0]} for i in range(len(t))]),
    "index out of range": items(lambda t: [{"index": i + 5, "embedding": [1.0, float(i), 0.0]} for i in range(len(t))]),
    "index as text": items(lambda t: [{"index": str(i), "embedding": [1.0, float(i), 0.0]} for i in range(len(t))]),
    "index on some": items(lambda t: [{"embedding": [1.0, 0.0, 0.0]}] + [{"index": i, "embedding": [1.0, 1.0, 0.0]}
                                                                       for i in range(1, len(t))]),
    "bare lists": items(lambda t: [[1.0, float(i), 0.0] for i in range(len(t))]),
    "data an object": lambda t: b'{"data": {"index": 0, "embedding": [1, 0, 0]}}',
    "data null": lambda t: b'{"data": null}',
    "a list": lambda t: b"[1, 2, 3]",
    "html": lambda t: b"<html><body>Sign in</body></html>",
    "cut in half": lambda t: rows(lambda i, x: [1.0, 0.5, 0.25])(t)[:30],
}


@pytest.mark.parametrize("name", list(NOT_VECTORS))
def test_a_reply_that_is_not_one_vector_per_text_is_one_error_line(name):
    srv = Raw(NOT_VECTORS[name])
    try:
        p = OpenAICompatProvider(srv.url, "m", retries=0, sleep=lambda s: None)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy's overflow warnings are lines on the user's terminal
            with pytest.raises(embed.EmbedError) as err:
                p.embed(["first text", "second text", "third text"])
    finally:
        srv.close()
    msg = str(err.value)
    assert srv.url in msg and "\n" not in msg, msg


def test_vectors_in_any_order_or_without_index_keep_their_texts():
    srv = Raw(items(lambda t: [{"index": i, "embedding": [float(i + 1), 1.0, 0.0]} for i in range(len(t))][::-1]))
    bare = Raw(items(lambda t: [{"embedding": [float(i + 1), 1.0, 0.0]} for i in range(len(t))]))
    try:
        for s in (srv, bare):
            out = OpenAICompatProvider(s.url, "m", sleep=lambda x: None).embed(["a", "b", "c"])
            assert out.shape == (3, 3) and out.dtype == np.float32
            assert np.allclose(np.linalg.norm(out, axis=1), 1)
            assert out[0][0] < out[1][0] < out[2][0]  # text i got vector i
    finally:
        srv.close()
        bare.close()


def test_a_vector_of_numbers_beyond_float32_is_scaled_without_a_warning():
    srv = Raw(rows(lambda i, t: [1e39, 1e38, 0.0]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = OpenAICompatProvider(srv.url, "m", sleep=lambda s: None).embed(["a"])
    finally:
        srv.close()
    assert np.isfinite(out).all() and np.allclose(np.linalg.norm(out, axis=1), 1)


def test_vectors_changing_length_between_batches_are_one_error():
    n = [0]

    def reply(texts):
        n[0] += 1
        return rows(lambda i, t: [1.0] * (8 if n[0] < 3 else 10))(texts)

    srv = Raw(reply)
    try:
        with pytest.raises(embed.EmbedError, match="length 8 and 10 in one run"):
            OpenAICompatProvider(srv.url, "m", batch=1, sleep=lambda s: None).embed(["a", "b", "c"])
    finally:
        srv.close()


def test_memories_given_nan_vectors_stay_pending_and_are_embedded_once_the_endpoint_heals(project, tmp_path):
    bad = [True]
    good = rows(lambda i, t: [1.0, float(len(t) % 5), 0.5])
    srv = Raw(lambda t: NOT_VECTORS["NaN"](t) if bad[0] else good(t))
    try:
        m = memdir.open(project, home=tmp_path / "g", config={"embed.provider": "openai", "embed.url": srv.url,
                                                              "recall.channel": "hybrid"})
        m.remember("deploys go through scripts/deploy.sh on the staging cluster", category="decisions")
        out = m.backfill()
        assert out["embedded"] == 0 and out["pending"] == 1 and srv.url in out["error"]
        assert m.recall("deploy staging")[0].text.startswith("deploys go through")  # the lexical channel
        bad[0] = False
        out = m.backfill()
        assert out["embedded"] == 1 and out["pending"] == 0
    finally:
        srv.close()


def raw(data: bytes, gap: float = 0.0):
    """A reply of these bytes on the socket, status line and headers included."""
    return lambda texts: ("raw", data, gap)


BROKEN_HTTP = {
    "garbage status line": raw(b"GARBAGE\r\nMORE\r\n\r\n"),
    "a header line too long": raw(b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * 70000 + b"\r\n\r\n"),
    "chunked body cut": raw(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n{\"data\": ["),
    "closed at once": raw(b""),
}


@pytest.mark.parametrize("name", list(BROKEN_HTTP))
def test_a_broken_http_reply_is_one_error_line_and_cools_the_endpoint_down(name, tmp_path):
    srv = Raw(BROKEN_HTTP[name])
    try:
        p = OpenAICompatProvider(srv.url, "m", retries=1, sleep=lambda s: None, home=tmp_path / "g")
        with pytest.raises(embed.EmbedError) as err:
            p.embed(["a", "b"])
        asked = len(srv.seen)
        with pytest.raises(embed.EmbedError, match="is down"):  # a connection-level failure: not asked again at once
            p.embed(["a"])
    finally:
        srv.close()
    msg = str(err.value)
    assert srv.url in msg and "\n" not in msg and "tries" in msg, msg
    assert asked == 2 and len(srv.seen) == 2


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(code):
    target = Raw(rows(lambda i, t: [1.0, 0.0, 0.0]))
    srv = Raw(raw(b"HTTP/1.1 %d Moved\r\nLocation: http://127.0.0.1:%d/elsewhere\r\nContent-Length: 0\r\n\r\n"
                  % (code, target.httpd.server_address[1])))
    try:
        p = OpenAICompatProvider(srv.url, "m", api_key="sk-test-secret-key-0123456789", retries=0, sleep=lambda s: None)
        with pytest.raises(embed.EmbedError) as err:
            p.embed(["a"])
    finally:
        srv.close()
        target.close()
    assert target.seen == []  # neither the texts nor the key went to the other address
    assert f"HTTP {code}" in str(err.value) and "/elsewhere" in str(err.value), str(err.value)


def test_headers_sent_a_byte_at_a_time_cost_one_timeout_not_minutes():
    slow = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: " + b"a" * 2000 + b"\r\n\r\n{}"
    srv = Raw(raw(slow, 0.05))  # each byte well within the socket's timeout: about 100 s in all
    try:
        p = OpenAICompatProvider(srv.url, "m", timeout_s=1.0, retries=0, sleep=lambda s: None)
        t = time.monotonic()
        with pytest.raises(embed.EmbedError, match="too slowly|timed out"):
            p.embed(["a"])
        assert time.monotonic() - t < 3.0
    finally:
        srv.close()


def test_recall_and_the_block_answer_within_the_deadline_from_an_endpoint_dripping_its_headers(project, tmp_path):
    slow = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Pad: " + b"a" * 2000 + b"\r\n\r\n{}"
    srv = Raw(raw(slow, 0.05))
    try:
        m = memdir.open(project, home=tmp_path / "g", config={"embed.provider": "openai", "embed.url": srv.url,
                                                              "recall.channel": "hybrid"})
        m.remember("deploys go through scripts/deploy.sh on the staging cluster", category="decisions")
        t = time.monotonic()
        hits = m.recall("deploy staging")
        assert hits and "deploy.sh" in hits[0].text
        assert time.monotonic() - t < 4.0  # the recall deadline (1.2 s), not the endpoint's pace
        assert "deploy.sh" in m.context("how do we deploy to staging?")
    finally:
        srv.close()


@pytest.mark.parametrize("param", ["api_key", "key", "api-key", "token", "access_token"])
def test_a_key_in_the_endpoint_s_query_is_not_shown_or_kept(project, tmp_path, caplog, param):
    """A gateway taking its key in the URL (``embed.url = "https://…/v1/embeddings?api_key=…"``): doctor's line, the
    warnings and the breaker's file name the endpoint without it, whatever the key's shape."""
    secret = "q8Zt3vN1xW7pL0sKd2Rm"  # no provider prefix: only its place in the URL says it is a key
    srv = Raw(raw(b"HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n"))
    try:
        url = f"{srv.url}?{param}={secret}&v=1"
        home = tmp_path / "g"
        m = memdir.open(project, home=home, config={"embed.provider": "openai", "embed.url": url,
                                                    "recall.channel": "hybrid", "embed.retries": 0})
        m.remember("deploys go through scripts/deploy.sh on the staging cluster", category="decisions")
        assert m.recall("deploy staging")
        shown = json.dumps(m.doctor(repair=False)) + json.dumps(m.status()) + caplog.text
        kept = "".join(f.read_text(encoding="utf-8") for f in (home / ".memdir").glob("embed-breaker.json"))
    finally:
        srv.close()
    assert "503" in shown and kept  # the failure was seen and recorded
    assert secret not in shown and secret not in kept


def test_a_failing_endpoint_is_one_warning_per_process_until_it_works_again(project, tmp_path, caplog):
    """A long-lived process (the MCP server, ``memdir serve``) recalling against an endpoint that refuses the key
    says so in one warning line, not two lines per recall; once the endpoint works and fails again it says so again."""
    ok = [False]
    good = rows(lambda i, t: [1.0, float(len(t) % 5), 0.5])
    srv = Raw(lambda t: good(t) if ok[0] else ("raw", b"HTTP/1.1 401 No\r\nContent-Length: 0\r\n\r\n", 0))
    try:
        m = memdir.open(project, home=tmp_path / "g", config={"embed.provider": "openai", "embed.url": srv.url,
                                                              "embed.model": f"m-{tmp_path.name}",  # this test's own
                                                              "recall.channel": "hybrid"})
        m.remember("deploys go through scripts/deploy.sh on the staging cluster", category="decisions")
        with caplog.at_level("WARNING", logger="memdir"):
            for _ in range(4):
                assert "deploy.sh" in m.context("how do we deploy to staging?")
                assert m.recall("deploy staging")
            said = [r for r in caplog.records if r.levelname == "WARNING" and "401" in r.getMessage()]
            assert len(said) == 1, [r.getMessage() for r in said]
            ok[0] = True
            assert m.recall("deploy staging")
            ok[0] = False
            m.recall("deploy staging")
            said = [r for r in caplog.records if r.levelname == "WARNING" and "401" in r.getMessage()]
            assert len(said) == 2
    finally:
        srv.close()
