"""Embedding providers: registry, fake embedder, OpenAI-compatible HTTP client (against a loopback server)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from memdir import embed
from memdir.config import Config
from memdir.embed.fake import FakeEmbedder
from memdir.embed.openai_compat import OpenAICompatProvider


def test_fake_is_deterministic_and_normalised():
    f = FakeEmbedder(dim=32)
    a = f.embed(["deploy with pnpm", "deploy with pnpm", "部署脚本"])
    assert a.shape == (3, 32) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    assert np.array_equal(a[0], a[1])
    assert np.array_equal(FakeEmbedder(dim=32).embed(["deploy with pnpm"])[0], a[0])


def test_fake_similarity_follows_shared_tokens():
    f = FakeEmbedder(dim=256)
    q, near, far = f.embed(["nightly backup script", "the backup script runs nightly", "unrelated words entirely"])
    assert q @ near > q @ far


def test_registry_none_auto_and_unknown():
    assert embed.get_provider(Config(overrides={})) is None  # default: none
    assert embed.resolve_name(Config(overrides={"embed.provider": "auto"})) in ("e5", "use", "sentence-transformers", "model2vec", "none")
    p = embed.get_provider(Config(overrides={"embed.provider": "fake", "embed.dim": 16}))
    assert p.model == "fake-hash-16"
    bad = Config(overrides={"embed.provider": "nope"})  # rejected with a warning, default kept
    assert bad.get("embed.provider") == "none" and any("embed.provider" in w for w in bad.warnings)


def test_register_a_provider_is_one_call():
    embed.register("test-const", lambda cfg: FakeEmbedder(dim=8), lambda: True)
    try:
        p = embed.get_provider(Config(overrides={"embed.provider": "test-const"}))
        assert p.embed(["x"]).shape == (1, 8)
    finally:
        embed.PROVIDERS.pop("test-const")


def test_normalize_keeps_zero_rows():
    out = embed.normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert np.allclose(out, [[0.6, 0.8], [0.0, 0.0]])


def test_lexical_path_does_not_import_numpy(tmp_path):
    code = ("import sys, memdir\n"
            f"m = memdir.open({str(tmp_path / 'p')!r}, home={str(tmp_path / 'h')!r})\n"
            "m.remember('use pnpm for deploys', category='decisions'); m.recall('pnpm'); m.context('pnpm'); m.status()\n"
            "print('numpy' in sys.modules, 'torch' in sys.modules)\n")
    (tmp_path / "p").mkdir()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


# ---- OpenAI-compatible provider against a loopback server -------------------------------------------------------
class _Server:
    def __init__(self, script):
        self.script = list(script)  # per request: "ok" | an HTTP status code | "slow"
        self.requests: list[dict] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"body": body, "auth": self.headers.get("Authorization")})
                action = outer.script.pop(0) if outer.script else "ok"
                if action == "slow":
                    outer.release.wait(5)
                    return
                if action != "ok":
                    self.send_response(action)
                    self.end_headers()
                    return
                data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])]
                payload = json.dumps({"data": list(reversed(data))}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.release = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/embeddings"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def test_openai_batches_caps_and_orders():
    with _Server([]) as srv:
        p = OpenAICompatProvider(srv.url, "bge-m3", api_key="k", batch=2, max_chars=5, sleep=lambda s: None)
        out = p.embed(["a", "bbbbbbbbbb", "cc"])
    assert [len(r["body"]["input"]) for r in srv.requests] == [2, 1]
    assert srv.requests[0]["body"]["input"][1] == "bbbbb"  # length cap
    assert srv.requests[0]["auth"] == "Bearer k"
    assert out.shape == (3, 3) and np.allclose(np.linalg.norm(out, axis=1), 1)
    assert out[1][0] > out[0][0]  # order restored from "index" although the server reversed it


def test_openai_retries_5xx_and_429_then_succeeds():
    waits = []
    with _Server([503, 429, "ok"]) as srv:
        p = OpenAICompatProvider(srv.url, retries=2, sleep=waits.append)
        assert p.embed(["x"]).shape == (1, 3)
    assert len(srv.requests) == 3 and waits == [0.5, 1.0]


def test_openai_gives_up_with_one_line_error():
    with _Server([500, 500, 500]) as srv:
        p = OpenAICompatProvider(srv.url, retries=1, sleep=lambda s: None)
        with pytest.raises(embed.EmbedError, match="failed after 2 tries: HTTP 500"):
            p.embed(["x"])
    with _Server([401]) as srv:
        with pytest.raises(embed.EmbedError, match="HTTP 401.*API key"):
            OpenAICompatProvider(srv.url, retries=3, sleep=lambda s: None).embed(["x"])
        assert len(srv.requests) == 1  # a 4xx is not retried


def test_openai_timeout_is_retried_then_reported():
    with _Server(["slow", "slow"]) as srv:
        p = OpenAICompatProvider(srv.url, timeout_s=0.2, retries=1, sleep=lambda s: None)
        with pytest.raises(embed.EmbedError, match="failed after 2 tries"):
            p.embed(["x"])


def test_openai_rejects_non_http_url():
    with pytest.raises(embed.EmbedError, match="not an http"):
        OpenAICompatProvider("file:///etc/passwd")
