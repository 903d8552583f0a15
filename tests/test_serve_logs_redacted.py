"""`memdir serve --debug` logs each request through uvicorn's access log (its path and query: the viewer's search
words, a token put in a URL): those lines are redacted as memdir's own stderr is."""

from __future__ import annotations

import io
import logging

import pytest

uvicorn = pytest.importorskip("uvicorn")

KEY = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"


def test_uvicorn_access_and_error_lines_are_redacted():
    from memdir.cli.serve import redact_server_logs

    async def app(scope, receive, send):  # pragma: no cover - never called
        pass

    uvicorn.Config(app, log_level="debug", access_log=True)  # configures uvicorn's handlers, as serve does
    redact_server_logs()
    access, error = logging.getLogger("uvicorn.access"), logging.getLogger("uvicorn.error")
    loggers = (access, error, logging.getLogger("uvicorn"))  # uvicorn.error writes through uvicorn's handler
    out = io.StringIO()
    try:
        for lg in loggers:
            for h in lg.handlers:
                h.setStream(out)
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", f"/ui/search?q={KEY}", "1.1", 200)
        error.error("bad request for %s", f"/mcp?token={KEY}")
        text = out.getvalue()
        assert "/ui/search?q=" in text and "bad request for" in text
        assert KEY not in text, text
    finally:
        for lg in loggers:
            for h in list(lg.handlers):
                lg.removeHandler(h)


def test_the_team_servers_debug_log_is_redacted_too(pg_url):
    """`memdir --debug serve --store` printed uvicorn's access lines as they came: a token a member put in the URL
    (`?token=mdt_…`, as the viewer's pages take one) reached the server's log in plain text."""
    import json
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    from memdir.store import open_store
    from test_pg_team import _client, _login

    admin = open_store(pg_url, project="web")
    _client(admin, "logs_srv")
    admin.close()
    token = "mdt_" + "Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg9F"
    p = subprocess.Popen([sys.executable, "-m", "memdir", "--debug", "serve", "--store", _login(pg_url, "logs_srv"),
                          "--port", "0", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        api = json.loads(p.stdout.readline())["url"]
        req = urllib.request.Request(f"{api}/web/recall?token={token}", data=b'{"query": "x"}', method="POST",
                                     headers={"Authorization": "Bearer nobody"})
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(req, timeout=30)
        time.sleep(0.5)
    finally:
        p.terminate()
        out, err = p.communicate(timeout=30)
    assert "/web/recall" in out + err, out + err  # the access line is there …
    assert token not in out + err  # … without the token
