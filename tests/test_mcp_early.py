"""The early answers of ``memdir mcp`` (memdir.server.mcpearly): a ``memory_recall`` that comes while the SDK is still
loading is answered from the engine, with exactly the reply the SDK server gives; anything else, or a call after the
SDK has loaded, goes to the SDK as before. Timings are in bench/mcp_first_call.py, not here."""

from __future__ import annotations

import io
import json
import shutil
import threading
from datetime import datetime, timezone

import pytest

pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")

from memdir.core import Memdir  # noqa: E402
from memdir.server import mcplight  # noqa: E402
from memdir.server.mcp import MemoryStore, build_server  # noqa: E402
from memdir.server.mcpearly import early_tools, recall_arguments  # noqa: E402
from memdir.server.mcptable import wire_replies  # noqa: E402

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(id_, args, name="memory_recall", **extra):
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": args, **extra}}


def _fill(root):
    (root / "proj" / ".git").mkdir(parents=True)
    m = Memdir(root / "proj", home=root / "home", clock=lambda: NOW)
    m.remember("deploys use pnpm, never npm: the lockfile differs 部署用 pnpm", category="decisions", tags=["pnpm"])
    m.remember("a" * 6000 + " pnpm at the end of a long note", category="facts")
    m.import_events([
        {"key": "s:1", "role": "user", "text": "why does the deploy fail with npm?", "session": "s", "ts": "2026-11-30T10:00:00Z"},
        {"key": "s:2", "role": "assistant", "text": "npm ignores pnpm-lock.yaml; run pnpm install 🚀 部署", "session": "s",
         "ts": "2026-11-30T10:00:05Z"},
        {"key": "s:3", "role": "tool", "text": "pnpm install: done in 3.2s", "session": "s", "ts": "2026-11-30T10:00:09Z"},
    ])
    m.close()


def _store(root):
    return MemoryStore(memdir=Memdir(root / "proj", home=root / "home", clock=lambda: NOW))


@pytest.fixture
def twin(tmp_path):
    """Two identical stores (a recall counts as a rehearsal, so each side asks its own copy)."""
    _fill(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    return tmp_path / "a", tmp_path / "b"


@pytest.fixture(scope="module")
def table():
    t = mcplight.load_table()
    assert t is not None
    return t


class Gate:
    """A stand-in for the SDK's load that does not finish until released; records what the SDK is fed."""

    def __init__(self):
        self.release = threading.Event()
        self.seen: list[dict] = []

    def load(self):
        self.release.wait(30)
        return self.serve

    def serve(self, next_line, write_line):
        while (line := next_line()) is not None:
            msg = json.loads(line)
            self.seen.append(msg)
            if "id" in msg and "method" in msg:
                write_line(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"by": "sdk"}}) + "\n")


def _session(table, msgs, early, gate):
    out = io.BytesIO()
    reader = io.BytesIO("".join(json.dumps(m) + "\n" for m in msgs).encode("utf-8"))

    class Reader:  # lets the SDK load once every message was read (the end of input would wait for it otherwise)
        def readline(self):
            line = reader.readline()
            if not line:
                gate.release.set()
            return line

    srv = mcplight.LightServer(table, gate.load, Reader(), out, early)
    srv.serve(drain_timeout=30)
    return srv, [json.loads(x) for x in out.getvalue().decode("utf-8").splitlines()]


QUERIES = [{"query": "pnpm 部署"}, {"query": "deploy npm", "k": 2, "scope": "project"},
           {"query": "pnpm", "kinds": ["event"]}, {"query": "nothing matches zzqx"}, {"query": "pnpm", "k": 50},
           {"query": "lockfile 🚀 部署"}, {"query": "pnpm", "k": 10 ** 30}]


@pytest.mark.parametrize("args", QUERIES)
def test_an_early_recall_is_the_sdk_servers_answer(twin, table, args):
    a, b = twin
    sdk = wire_replies(build_server(store=_store(b)), [INIT, INITIALIZED, _call(2, args)])[-1]
    gate = Gate()
    srv, replies = _session(table, [INIT, INITIALIZED, _call(2, args)], lambda: early_tools(_store(a)), gate)
    assert srv.early_answers == 1
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[1] == sdk
    assert gate.seen == []  # every message was answered without the SDK: it was never handed the session


def test_an_early_recall_of_a_lone_surrogate_is_answered(twin, table):
    """Case C9: the line's escape of a lone surrogate is repaired to U+FFFD before anything parses it."""
    a, _ = twin
    gate = Gate()
    srv, replies = _session(table, [INIT, _call(2, {"query": "pnpm \ud800 部署"})], lambda: early_tools(_store(a)), gate)
    assert srv.early_answers == 1
    result = replies[1]["result"]
    assert result["isError"] is False and result["structuredContent"]["query"] == "pnpm \ufffd 部署"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_calls_the_early_path_leaves_go_to_the_sdk_in_order(twin, table):
    a, _ = twin
    msgs = [INIT, INITIALIZED, _call(2, {"query": "pnpm", "kind": "tool"}), _call(3, {"query": "pnpm", "k": "3"}),
            _call(4, {"query": "pnpm", "k": True}), _call(5, {"query": 7}), _call(6, {"query": "pnpm", "scope": "team"}),
            _call(7, {"query": "pnpm"}, name="memory_list"), _call(8, {"query": "  "}), _call(9, {"query": "pnpm"})]
    gate = Gate()
    srv, replies = _session(table, msgs, lambda: early_tools(_store(a)), gate)
    # the first declined call hands the session over: every later one is the SDK's too
    assert [r["id"] for r in replies] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert srv.early_answers == 0 and all(r["result"] == {"by": "sdk"} for r in replies[1:])
    assert [m.get("id") for m in gate.seen if "id" in m][1:] == [2, 3, 4, 5, 6, 7, 8, 9]


def test_an_early_recall_then_a_declined_call(twin, table):
    a, _ = twin
    msgs = [INIT, _call(2, {"query": "pnpm"}, _meta={"progressToken": 1}), _call(3, {"query": "pnpm", "k": 0}),
            _call(4, {"query": "pnpm"})]
    gate = Gate()
    srv, replies = _session(table, msgs, lambda: early_tools(_store(a)), gate)
    assert [r["id"] for r in replies] == [1, 2, 3, 4] and srv.early_answers == 1
    assert replies[1]["result"]["structuredContent"]["hits"]
    assert replies[2]["result"] == replies[3]["result"] == {"by": "sdk"}  # k=0 fails: the SDK words the error


def test_no_early_answer_before_initialize_or_when_the_early_load_fails(twin, table):
    a, _ = twin
    gate = Gate()
    srv, replies = _session(table, [_call(2, {"query": "pnpm"})], lambda: early_tools(_store(a)), gate)
    assert srv.early_answers == 0 and replies == [{"jsonrpc": "2.0", "id": 2, "result": {"by": "sdk"}}]

    def broken():
        raise ImportError("no pydantic here")

    gate = Gate()
    srv, replies = _session(table, [INIT, _call(2, {"query": "pnpm"})], broken, gate)
    assert srv.early_answers == 0 and replies[1] == {"jsonrpc": "2.0", "id": 2, "result": {"by": "sdk"}}


def test_the_early_answers_and_the_sdk_server_share_one_store(twin):
    a, _ = twin
    store = _store(a)
    call = early_tools(store)
    server = build_server(store=store)
    assert server.memdir_store is store
    assert call("memory_recall", {"query": "pnpm"})["structuredContent"]["count"] >= 1


def test_recall_arguments_accepts_the_plain_json_shapes_only():
    assert recall_arguments({"query": "x"}) == ("x", None, None, None)
    assert recall_arguments({"query": "x", "k": 3, "scope": "global", "kinds": ["note"]}) == ("x", 3, "global", ["note"])
    assert recall_arguments({"query": "x", "k": None, "scope": None, "kinds": None}) == ("x", None, None, None)
    for bad in [None, [], {}, {"query": "x", "_meta": {}}, {"query": "x", "k": 2.0}, {"query": "x", "kinds": "note"},
                {"query": "x", "kinds": [1]}, {"query": b"x"}]:
        assert recall_arguments(bad) is None, bad


def test_the_warm_up_asks_no_team_server(tmp_path, monkeypatch):
    """The warm-up's recall is local: with remote.url set, a team recall of its made-up query at every `memdir mcp`
    start reached the team server (and, with a hosted embedding provider, an embedding endpoint)."""
    from memdir.engine import remote

    _fill(tmp_path)
    asked = []
    monkeypatch.setattr(remote, "ask", lambda *a, **k: asked.append(a) or None)
    m = Memdir(tmp_path / "proj", home=tmp_path / "home", clock=lambda: NOW,
               config={"remote.url": "http://127.0.0.1:9/team"})
    call = early_tools(MemoryStore(memdir=m))
    assert asked == []
    assert call("memory_recall", {"query": "pnpm"})["structuredContent"]["count"] >= 1
