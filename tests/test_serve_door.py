"""``memdir serve``'s MCP endpoint as a web page would reach it: every loopback bind that needs no token answers only to
a loopback Host and a loopback Origin (no DNS rebinding), not only the three host spellings the MCP SDK knows."""

from __future__ import annotations

import pytest

import memdir

pytest.importorskip("mcp")

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.fixture
def server(project, tmp_path):
    from memdir.server.mcp import build_server

    memdir.open(project, home=tmp_path / "g").close()
    srv = build_server(project, home=tmp_path / "g")
    yield srv
    srv.memdir_store.close()


@pytest.mark.parametrize("bound", ["127.0.0.1", "localhost", "::1", "127.0.0.2", "127.1.2.3", "LOCALHOST",
                                   "0:0:0:0:0:0:0:1"])
def test_a_loopback_bind_refuses_a_rebound_host_and_a_foreign_origin(server, bound):
    """``memdir serve --host 127.0.0.2`` needs no token (a loopback address) but its MCP endpoint answered a request
    whose Host was evil.example: a page of that site, its name pointed at 127.0.0.2, could read and forget memories."""
    from starlette.testclient import TestClient

    from memdir.cli.serve import http_app

    shown = f"[{bound}]" if ":" in bound else bound
    with TestClient(http_app(server, host=bound), base_url=f"http://{shown}:8765") as c:
        r = c.post("/mcp", json=INIT, headers={**ACCEPT, "host": "evil.example:8765"})
        assert r.status_code == 421, (bound, r.status_code)
        r = c.post("/mcp", json=INIT, headers={**ACCEPT, "origin": "http://evil.example:8765"})
        assert r.status_code == 403, (bound, r.status_code)
        r = c.post("/mcp", json=INIT, headers={**ACCEPT, "origin": "null"})
        assert r.status_code == 403, (bound, r.status_code)
        r = c.post("/mcp", json=INIT, headers=ACCEPT)  # an MCP client on this machine
        assert r.status_code == 200, (bound, r.status_code, r.text[:200])
        r = c.post("/mcp", json=INIT, headers={**ACCEPT, "host": "localhost:8765", "origin": "http://localhost:8765"})
        assert r.status_code == 200, (bound, r.status_code)


def test_a_bind_beyond_loopback_is_guarded_by_its_token_alone(server):
    from starlette.testclient import TestClient

    from memdir.cli.serve import http_app

    token = "t0ken-for-tests-0123456789"
    with TestClient(http_app(server, host="0.0.0.0", token=token), base_url="http://192.0.2.10:8765") as c:
        r = c.post("/mcp", json=INIT, headers={**ACCEPT, "authorization": f"Bearer {token}"})
        assert r.status_code == 200
        assert c.post("/mcp", json=INIT, headers=ACCEPT).status_code == 401


@pytest.mark.parametrize("host", ["127.0.0.1:8765@evil.example", "127.0.0.1:8765,evil.example", "[::1]:8765@evil.example",
                                  "localhost:evil.example"])
def test_a_host_with_junk_after_its_port_is_refused(server, host):
    from starlette.testclient import TestClient

    from memdir.cli.serve import http_app

    with TestClient(http_app(server, host="127.0.0.1"), base_url="http://127.0.0.1:8765") as c:
        assert c.post("/mcp", json=INIT, headers={**ACCEPT, "host": host}).status_code == 421, host
