"""What stands between memdir and its team server on a company network: a captive portal or a login page answering
HTML, a redirect (301/302/307/308), a proxy's block page (HTML 403) or its demand for a login (407). Each keeps the
rows queued, follows no redirect (the token would go where it leads) and is named in one line with what to do —
never "cannot be reached: JSONDecodeError" or "the token does not grant the project"."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memdir.engine import remote, teamview

ROW = {"ref": "k1", "content_sha256": "x", "text": "deploy with pnpm", "ts": "2026-11-30T00:00:00Z", "ts_epoch": 0}
PAGE = b"<!DOCTYPE html>\n<html><body><h1>Sign in to CorpNet</h1>\n<form>...</form></body></html>"


def _stub(code, headers=(), body=PAGE, ctype="text/html; charset=utf-8"):
    seen = []

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _go(self):
            seen.append((self.command, self.path, self.headers.get("Authorization")))
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _go

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/v1", seen


CASES = {
    "portal 200": (200, (), "web page"),
    "portal 200 without a content type": (200, (), "web page"),
    "redirect 302 to a login page": (302, (("Location", "http://login.corp.example/portal?next=x"),), "login.corp.example/portal"),
    "redirect 301": (301, (("Location", "https://team.example/v1/whoami"),), "https://team.example/v1"),
    "redirect 307": (307, (("Location", "/other/v1/whoami"),), "/other/v1"),
    "redirect 308": (308, (("Location", "/other/v1/whoami"),), "/other/v1"),
    "proxy block page 403": (403, (), "web page"),
    "proxy login 407": (407, (("Proxy-Authenticate", 'Basic realm="corp"'),), "proxy"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_what_is_not_the_team_server_is_named_with_its_fix(tmp_path, case):
    code, headers, said = CASES[case]
    ctype = "application/octet-stream" if "without a content type" in case else "text/html; charset=utf-8"
    srv, url, seen = _stub(code, headers, ctype=ctype)
    try:
        remote.enqueue(tmp_path, [ROW])
        res = remote.push(tmp_path, url, "proj", "tok", budget_s=3)
        assert res["sent"] == 0 and res["left"] == 1, res
        line = f"{res['error']} {res.get('fix')}"
        assert said in line, line
        assert "cannot be reached" not in line and "JSONDecodeError" not in line and "does not grant" not in line, line
        assert "\n" not in line and "<html" not in line.lower(), line
        check = teamview.check_server(url, "proj", "tok", timeout_s=2)
        assert check["ok"] == "fail" and said in check["detail"] + check["remedy"], check
        assert "does not grant" not in check["detail"] and "JSONDecodeError" not in check["detail"], check
        # no redirect was followed: every request went to the stub itself, none to where it pointed
        assert all(p.startswith("/v1/") for _, p, _ in seen), seen
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_team_recall_answered_by_a_portal_says_so(tmp_path):
    srv, url, _ = _stub(200)
    try:
        r = remote.Recall(url, "proj", "tok", "deploy", 5, budget_s=2)
        assert r.result() is None and "web page" in r.error, r.error
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_reverse_proxys_413_page_splits_the_batch_as_a_413_does(tmp_path):
    """nginx answers a body over its limit with an HTML "413 Request Entity Too Large" page: that is about the rows
    (a batch too large), so push sends smaller batches instead of keeping every row queued behind a "portal"."""
    rows, got = [dict(ROW, ref=f"k{i}", text=f"deploy step {i}") for i in range(10)], []

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            events = body.get("events") or body.get("rows") or []
            if len(events) > 2:
                page = b"<html><head><title>413 Request Entity Too Large</title></head><body>nginx</body></html>"
                self.send_response(413)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)
                return
            got.extend(events)
            out = json.dumps({"stored": len(events), "duplicates": 0}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        remote.enqueue(tmp_path, rows)
        res = remote.push(tmp_path, f"http://127.0.0.1:{srv.server_address[1]}/v1", "proj", "tok", budget_s=10)
        assert res["sent"] == 10 and res["left"] == 0, res
        assert len(got) == 10
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.mark.parametrize("url, sent", [
    ("https://team.example.com/@acme/v1", "https://team.example.com/@acme/v1"),
    ("https://me:pa%40ss@team.example.com/v1", "https://team.example.com/v1"),
    ("https://me:secret@team.example.com/v1/@x", "https://team.example.com/v1/@x"),
    ("http://team.example.com:8080/v1?a=b@c", "http://team.example.com:8080/v1?a=b@c"),
])
def test_only_the_authoritys_login_is_left_out_of_the_url(url, sent):
    from memdir.engine.teamhttp import without_userinfo

    assert without_userinfo(url) == sent
