"""The team server reads at most ``team.MAX_BODY`` bytes of a request, and none without a token: a body of any size
sent by anyone who can reach the server once grew its memory by 1.6 GB before it answered 400."""

import pytest


@pytest.fixture
def client(monkeypatch):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from memdir.server import team

    def no_pool(url):
        raise AssertionError("the store was asked for a request that should have been refused before it")

    monkeypatch.setattr(team, "_pool", no_pool)
    monkeypatch.setattr(team, "MAX_BODY", 1000, raising=False)
    with TestClient(team.app("postgresql://nobody@127.0.0.1:1/none")) as c:
        yield c


def test_a_request_without_a_token_is_refused_before_its_body_is_read(client):
    read = []

    def body():
        read.append(1)
        yield b'{"query": "x", "k": 3}'

    r = client.post("/v1/p/recall", content=body())
    assert r.status_code == 401 and "Bearer" in r.json()["error"]
    assert not read


@pytest.mark.parametrize("chunked", [False, True])
def test_a_body_over_the_cap_gets_413_and_is_not_held(client, chunked):
    big = b'{"query": "' + b"a " * 2000 + b'", "k": 3}'
    content = iter([big[i:i + 100] for i in range(0, len(big), 100)]) if chunked else big
    r = client.post("/v1/p/recall", content=content, headers={"Authorization": "Bearer t"})
    assert r.status_code == 413 and "MiB" in r.json()["error"]


def test_a_body_under_the_cap_is_read_as_before(client):
    r = client.post("/v1/p/recall", content=b"[1, 2]", headers={"Authorization": "Bearer t"})
    assert r.status_code == 400 and r.json()["error"] == "the body must be a JSON object"


@pytest.mark.parametrize("method, path", [("POST", "/v1/p/nothing"), ("GET", "/v1/p/events"), ("POST", "/nope"),
                                          ("POST", "/v1/health"), ("DELETE", "/v1/whoami")])
def test_an_unknown_route_or_method_is_a_one_line_json_error(client, method, path):
    """The module's promise, "errors are one-line JSON {"error": …}", held for the routes only: a wrong path or
    method got Starlette's plain-text "Not Found" / "Method Not Allowed"."""
    r = client.request(method, path, headers={"Authorization": "Bearer t"})
    assert r.status_code in (404, 405)
    assert r.headers["content-type"].startswith("application/json")
    msg = r.json()["error"]
    assert msg and "\n" not in msg
