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
