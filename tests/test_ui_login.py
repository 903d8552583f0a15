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


def test_each_port_has_its_own_login_cookie_and_it_holds_no_token(m):
    a, b = _client(m, "token-of-viewer-a-0123", 8766), _client(m, "token-of-viewer-b-4567", 8767)
    r = a.get("/search?token=token-of-viewer-a-0123")
    assert r.status_code in (302, 303, 307)
    name, _, rest = r.headers["set-cookie"].partition("=")
    value = rest.split(";", 1)[0]
    assert name == "memdir_ui_token_8766" and value and "token-of-viewer-a" not in value  # other ports get no token
    assert a.get("/search", headers={"cookie": f"{name}={value}"}).status_code == 200
    assert a.get("/search", headers={"cookie": f"{name}=token-of-viewer-a-0123"}).status_code == 401
    # the other viewer's cookie is not this one's: refused, and it does not replace this one's
    assert b.get("/search", headers={"cookie": f"{name}={value}"}).status_code == 401
    vb = b.get("/search?token=token-of-viewer-b-4567").headers["set-cookie"].split(";", 1)[0]
    both = f"{name}={value}; {vb}"
    assert a.get("/search", headers={"cookie": both}).status_code == 200
    assert b.get("/search", headers={"cookie": both}).status_code == 200


def test_the_browser_is_opened_with_a_one_time_code_not_the_token(m, monkeypatch):
    import anyio
    import webbrowser

    import memdir.ui as ui
    from memdir.ui.guard import Guard

    opened, codes = [], []
    real_build = ui.build

    def keep_build(**kw):
        app = real_build(**kw)
        codes.append(app)
        return app

    def stop(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    monkeypatch.setattr(anyio, "run", stop)
    monkeypatch.setattr(ui, "build", keep_build)
    token = "token-of-the-viewer-89ab"
    info = {}
    ui.serve(get=lambda: m, port=0, token=token, open_browser=True, on_ready=info.update)
    assert token in info["url"]  # printed to the user's own terminal
    assert opened and token not in opened[0] and "?code=" in opened[0]
    code = opened[0].split("?code=", 1)[1]
    guard = codes[0]
    assert isinstance(guard, Guard)
    from starlette.testclient import TestClient

    c = TestClient(guard, base_url="http://127.0.0.1:8766", follow_redirects=False)
    first = c.get(f"/search?code={code}")
    assert first.status_code in (302, 303, 307) and "set-cookie" in first.headers
    assert c.get(f"/search?code={code}").status_code == 401  # once
    assert c.get("/search?code=made-up").status_code == 401
    opened.clear()
    ui.serve(get=lambda: m, port=0, token=None, open_browser=True)
    assert opened and opened[0].startswith("http://127.0.0.1:") and "code=" not in opened[0]  # no token: the page


def test_a_path_with_white_space_before_its_slashes_stays_on_this_server(m):
    from memdir.ui.guard import local_path

    for raw in ("/\t/evil.example/x", "/\n/evil.example/x", "/ //evil.example", "/\x00/\\evil.example"):
        got = local_path(raw)
        assert got.startswith("/") and not got.startswith("//") and "\n" not in got and "\t" not in got, got
    c = _client(m, "token-of-viewer-a-0123", 8766)
    r = c.get("/%09/evil.example/x?token=token-of-viewer-a-0123")
    assert r.status_code in (302, 303, 307) and r.headers["location"].startswith("/evil.example"), r.headers
