"""The viewer's log-in as other users of the machine and other local servers see it: the token never on the
browser's command line (``ps`` shows it to every user), and a log-in cookie per port (browsers keep cookies per host:
one name sent the viewer's token to every other server on the host, and two viewers logged each other out)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from memdir.ui import missing_deps

pytestmark = pytest.mark.skipif(bool(missing_deps()), reason=f"the ui extra is not installed: {missing_deps()}")


def _client(m, token, port):
    from starlette.testclient import TestClient

    from memdir.ui import build

    return TestClient(build(get=lambda: m, host="127.0.0.1", token=token), base_url=f"http://127.0.0.1:{port}",
                      raise_server_exceptions=True, follow_redirects=False)


def test_each_port_has_its_own_login_cookie(m):
    a, b = _client(m, "token-of-viewer-a-0123", 8766), _client(m, "token-of-viewer-b-4567", 8767)
    r = a.get("/search?token=token-of-viewer-a-0123")
    assert r.status_code in (302, 303, 307) and "memdir_ui_token_8766=token-of-viewer-a-0123" in r.headers["set-cookie"]
    assert a.get("/search", headers={"cookie": "memdir_ui_token_8766=token-of-viewer-a-0123"}).status_code == 200
    # the other viewer's cookie is not this one's: refused, and it does not replace this one's
    assert b.get("/search", headers={"cookie": "memdir_ui_token_8766=token-of-viewer-a-0123"}).status_code == 401
    both = "memdir_ui_token_8766=token-of-viewer-a-0123; memdir_ui_token_8767=token-of-viewer-b-4567"
    assert a.get("/search", headers={"cookie": both}).status_code == 200
    assert b.get("/search", headers={"cookie": both}).status_code == 200


def test_the_browser_is_opened_on_a_private_page_not_on_the_token(m, monkeypatch):
    import anyio
    import webbrowser

    import memdir.ui as ui

    opened, seen = [], {}

    def fake_open(url):
        opened.append(url)
        path = Path(url[len("file://"):])
        seen["mode"] = stat.S_IMODE(path.stat().st_mode)
        seen["text"] = path.read_text(encoding="utf-8")
        seen["path"] = path
        return True

    def stop(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(webbrowser, "open", fake_open)
    monkeypatch.setattr(anyio, "run", stop)
    token = "token-of-the-viewer-89ab"
    info = {}
    ui.serve(get=lambda: m, port=0, token=token, open_browser=True, on_ready=info.update)
    assert token in info["url"]  # printed to the user's own terminal
    assert opened and token not in opened[0] and opened[0].startswith("file://")
    assert seen["mode"] == 0o600 and info["url"].replace("&", "&amp;") in seen["text"]
    assert not seen["path"].exists()  # removed when the viewer stops
    opened.clear()
    ui.serve(get=lambda: m, port=0, token=None, open_browser=True)
    assert opened and opened[0].startswith("http://127.0.0.1:")  # no token: the page itself
