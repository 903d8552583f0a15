"""A mistyped ``remote.url`` (no scheme, ``htp://``, a stray space, a bad port) is refused by the settings, but the
user asked for a team server: what is captured meanwhile is queued, not kept local for good, and is sent once the
URL is fixed; ``doctor`` fails on it and ``push`` names the value it refused instead of "not set"."""

from __future__ import annotations

import json
import threading
import time

import pytest

import memdir
from memdir.errors import UsageError


def _server():
    import http.server

    got: list[int] = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            got.append(len(body.get("events") or []))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}/v1", got, srv


@pytest.mark.parametrize("typo", ["htp://127.0.0.1:8765/v1", "127.0.0.1:8765/v1", "http://127.0.0.1:87a5/v1"])
def test_events_captured_under_a_mistyped_url_are_queued_and_sent_once_it_is_fixed(tmp_path, monkeypatch, typo):
    url, got, srv = _server()
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    project = tmp_path / "webapp"
    (project / ".git").mkdir(parents=True)
    (project / ".memory").mkdir()
    cfg = project / ".memory" / "config.toml"
    try:
        cfg.write_text(f'remote.url = "{typo}"\n', encoding="utf-8")
        with memdir.open(project, home=tmp_path / "g") as m:
            assert m.import_events([{"key": "k1", "role": "user", "text": "the cormorant rollout needs a freeze",
                                     "session": "s", "ts": 1_790_000_000}])["stored"] == 1
            assert m.status()["project"]["remote_queue"]["queued"] == 1
            bad = [c for c in m.doctor() if c["check"] == "remote.url"]
            assert bad and bad[0]["ok"] == "fail" and "1 row(s)" in bad[0]["detail"], bad
            with pytest.raises(UsageError, match="not a usable team server URL"):
                m.push()
        assert got == []
        cfg.write_text(f'remote.url = "{url}"\n', encoding="utf-8")
        with memdir.open(project, home=tmp_path / "g") as m:
            m.push()
            assert m.status()["project"]["remote_queue"]["queued"] == 0
        assert sum(got) == 1
    finally:
        srv.shutdown()
