"""The light start of ``memdir mcp`` (memdir.server.mcplight, memdir.cli.mcpstart): its recorded answers equal the SDK
server's, a session through a subprocess works end to end whatever arrives before the SDK has loaded, a line that is
not JSON gets a parse error, the protocol stream carries JSON-RPC only, and the light modules import the standard
library only. Timings are in bench/mcp_ready.py, not here."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")

from memdir.cli.mcpstart import mcp_argv  # noqa: E402
from memdir.server import mcplight  # noqa: E402
from memdir.server.mcp import build_server  # noqa: E402
from memdir.server.mcptable import light_table, wire_replies  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"
REGENERATE = "make mcp-table (or: python -c 'from memdir.server.mcptable import write_light_table; write_light_table()')"
TIMEOUT = 120  # seconds for one reply from a subprocess (generous: the machine may be loaded; never a speed check)


def _init(version="2025-06-18", id_=1):
    return {"jsonrpc": "2.0", "id": id_, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.fixture(scope="module")
def table():
    t = mcplight.load_table()
    assert t is not None, f"memdir/data/mcp_light.json is missing or from another SDK version: {REGENERATE}"
    return t


@pytest.fixture(scope="module")
def sdk_server():
    return build_server()


# ---- the table is the SDK's own output ------------------------------------------------------------------------
def test_the_light_table_is_what_the_sdk_server_answers(table, sdk_server):
    """Adding, removing or changing a tool (name, description, schema, annotation) without writing the table again
    fails here."""
    fresh = light_table(sdk_server)
    assert fresh == table, f"the light table is stale; write it again: {REGENERATE}"
    names = [t["name"] for t in table["tools_list"][table["handshake_versions"][-1]]["tools"]]
    assert len(names) == len(set(names)) and {"memory_recall", "memory_remember", "memory_forget", "memory_list", "memory_inspect", "memory_prune"} <= set(names)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", "1999-01-01", "2026-07-28"])
def test_light_initialize_and_tools_list_equal_the_sdks(table, sdk_server, version):
    """Version negotiation as the SDK does it: a supported handshake version is echoed, any other gets the latest."""
    msgs = [_init(version), INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "ping"}]
    sdk = wire_replies(sdk_server, msgs)
    light = _light_session(table, [json.dumps(m) for m in msgs], serve=_never)
    assert light == sdk


def test_envelope_discover_and_tools_list_equal_the_sdks(table, sdk_server):
    """The 2026-07-28 per-request envelope (what the SDK's own 2.x client sends): no handshake, same answers."""
    meta = {mcplight.ENVELOPE_KEY: "2026-07-28", mcplight.ENVELOPE_NS + "clientInfo": {"name": "x", "version": "1"},
            mcplight.ENVELOPE_NS + "clientCapabilities": {"roots": {}}}
    msgs = [{"jsonrpc": "2.0", "id": "a", "method": "server/discover", "params": {"_meta": meta}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}]
    light = _light_session(table, [json.dumps(m) for m in msgs], serve=_never)
    assert light == wire_replies(sdk_server, msgs)
    assert table["modern"], "the table has no envelope answers"


# ---- the loop in-process, over a recording stand-in for the SDK -------------------------------------------------
def _never(next_line, write_line):  # pragma: no cover - a light-only session must not start it
    raise AssertionError("the full server was started")


def _light_session(table, lines, serve, load_error=None):
    """Run a LightServer over ``lines``; returns the replies written, parsed."""
    def load():
        if load_error:
            raise load_error
        return serve

    out = io.BytesIO()
    reader = io.BytesIO("".join(line + "\n" for line in lines).encode("utf-8"))
    srv = mcplight.LightServer(table, load, reader, out)
    srv.serve(drain_timeout=10)
    return [json.loads(x) for x in out.getvalue().decode("utf-8").splitlines()]


class Recorder:
    """Stands in for the SDK server: records each line it is fed, answers every request with its method."""

    def __init__(self):
        self.seen: list[dict] = []

    def __call__(self, next_line, write_line):
        while (line := next_line()) is not None:
            msg = json.loads(line)
            self.seen.append(msg)
            if "id" in msg and "method" in msg:
                write_line(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"by": "sdk", "m": msg["method"]}}) + "\n")


def test_handover_replays_initialize_and_keeps_the_order(table):
    rec = Recorder()
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "memory_recall", "arguments": {"query": "x"}}}
    lines = [_init(), INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
             {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}, call,
             {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 9, "method": "ping"}]
    replies = _light_session(table, [json.dumps(m) for m in lines], serve=rec)
    # the SDK saw the session from its start: the initialize (under a replay id), the notifications, then the rest
    assert [m.get("method") for m in rec.seen] == ["initialize", "notifications/initialized",
                                                    "notifications/roots/list_changed", "tools/call", "tools/list", "ping"]
    assert rec.seen[0]["id"].startswith(mcplight.REPLAY_ID) and rec.seen[0]["params"] == lines[0]["params"]
    assert rec.seen[3] == call
    # every client request answered once, in order; the replayed initialize's reply is not passed on
    assert [r["id"] for r in replies] == [1, 2, 7, 8, 9]
    assert replies[1]["result"] == table["tools_list"]["2025-06-18"]
    assert all(r["result"].get("by") == "sdk" for r in replies[2:])


def test_a_call_right_after_initialize_goes_to_the_full_server(table):
    rec = Recorder()
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_list", "arguments": {}}}
    replies = _light_session(table, [json.dumps(_init()), json.dumps(call)], serve=rec)
    assert [m["method"] for m in rec.seen] == ["initialize", "tools/call"]
    assert [r["id"] for r in replies] == [1, 2] and replies[1]["result"] == {"by": "sdk", "m": "tools/call"}


def test_what_the_light_loop_does_not_know_goes_to_the_sdk(table):
    """Before initialize, with a cursor, a malformed initialize, an envelope of an unknown version."""
    cases = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
             {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
             {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
              "params": {"_meta": {mcplight.ENVELOPE_KEY: "2099-01-01"}}},
             {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
              "params": {"cursor": "x", "_meta": {mcplight.ENVELOPE_KEY: "2026-07-28"}}},
             {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "memory_list", "_meta": {mcplight.ENVELOPE_KEY: "2026-07-28"}}},
             {"jsonrpc": "2.0", "id": 1, "method": "resources/list"}]
    for msg in cases:
        rec = Recorder()
        _light_session(table, [json.dumps(msg)], serve=rec)
        assert rec.seen == ([msg] if isinstance(msg, dict) else [msg]), msg
    rec = Recorder()
    _light_session(table, [json.dumps(_init()), json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                                            "params": {"cursor": "x"}})], serve=rec)
    assert [m["method"] for m in rec.seen] == ["initialize", "tools/list"]


def test_malformed_json_gets_a_parse_error_before_and_after_the_handover(table):
    rec = Recorder()
    lines = ["{not json", json.dumps(_init()), json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}),
             '{"jsonrpc": "2.0", "id": 3', json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"})]
    replies = _light_session(table, lines, serve=rec)
    parse = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    assert replies[0] == parse and replies[1]["id"] == 1
    assert parse in replies[2:] and sorted(r["id"] for r in replies[2:] if r["id"] is not None) == [2, 4]
    assert all(isinstance(m, dict) for m in rec.seen)  # the SDK is never fed a line that is not JSON


INVALID = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600}}


@pytest.mark.parametrize("msg", [{"jsonrpc": "2.0", "id": True, "method": "ping"}, {},
                                 {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
                                 {"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/call"},
                                 {"jsonrpc": "2.0", "id": [1], "method": "tools/list"},
                                 [{"jsonrpc": "2.0", "id": 2, "method": "ping"}], {"id": 3, "method": "ping"}, 42])
def test_a_message_that_is_no_json_rpc_request_gets_invalid_request_and_never_reaches_the_sdk(table, msg):
    """The SDK drops such a message without a reply (a client waits forever), and the loop waited up to a minute at
    the end of input for the answer it never sent."""
    rec = Recorder()
    lines = [json.dumps(_init()), json.dumps(msg), json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call"})]
    replies = _light_session(table, lines, serve=rec)
    assert replies[0]["id"] == 1 and replies[-1]["id"] == 9
    bad = replies[1]
    assert bad["id"] is None and bad["error"]["code"] == -32600 and "Invalid Request" in bad["error"]["message"]
    assert [m.get("method") for m in rec.seen] == ["initialize", "tools/call"]


@pytest.mark.parametrize("params", ["x", [1], 3])
def test_a_request_whose_params_are_no_object_gets_invalid_params(table, params):
    rec = Recorder()
    lines = [json.dumps(_init()), json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params}),
             json.dumps({"jsonrpc": "2.0", "method": "notifications/x", "params": params}),
             json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call"})]
    replies = _light_session(table, lines, serve=rec)
    assert [r["id"] for r in replies] == [1, 2, 3] and replies[1]["error"]["code"] == -32602
    assert [m.get("method") for m in rec.seen] == ["initialize", "tools/call"]


def test_a_response_from_the_client_still_reaches_the_sdk(table):
    rec = Recorder()
    answer = {"jsonrpc": "2.0", "id": "srv-1", "result": {"roots": []}}
    _light_session(table, [json.dumps(_init()), json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}),
                           json.dumps(answer)], serve=rec)
    assert rec.seen[-1] == answer


def test_a_full_server_that_fails_to_load_leaves_the_light_answers(table):
    lines = [json.dumps(_init()), json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}),
             json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})]
    replies = _light_session(table, lines, serve=None, load_error=RuntimeError("broken\nsecond line"))
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[1]["error"]["code"] == -32603 and "broken" in replies[1]["error"]["message"]
    assert "\n" not in replies[1]["error"]["message"] and "tools" in replies[2]["result"]


def test_the_table_is_refused_for_another_sdk_version(tmp_path, table):
    other = tmp_path / "t.json"
    other.write_text(json.dumps(dict(table, sdk="0.0.1")), encoding="utf-8")
    assert mcplight.load_table(str(other)) is None
    assert mcplight.load_table(str(tmp_path / "missing.json")) is None
    assert mcplight.sdk_installed(table["sdk"])


def test_mcp_argv():
    assert mcp_argv(["mcp"]) == (os.environ.get("MEMDIR_PROJECT_DIR") or None, None, False)
    assert mcp_argv(["--home", "/h", "mcp", "--dir=/p", "--debug", "--json"]) == ("/p", "/h", True)
    assert mcp_argv(["mcp", "--help"]) is None and mcp_argv(["recall", "x"]) is None
    assert mcp_argv(["mcp", "--port", "1"]) is None and mcp_argv(["mcp", "--dir"]) is None
    assert mcp_argv(["--dir", "/no/such/dir/anywhere", "mcp"]) is None  # click words that error
    assert mcp_argv(["--dir", str(SRC), "--home", "/h", "mcp"]) == (str(SRC), "/h", False)
    assert mcp_argv(["mcp", "--home", __file__]) is None  # a file where a directory is wanted


def test_repair_json_text_keeps_pairs_and_replaces_lone_surrogates():
    assert mcplight.repair_json_text('"\\ud83d\\ude80 \\ud800 \\\\ud800 \\udc00"') == '"\\ud83d\\ude80 \\ufffd \\\\ud800 \\ufffd"'
    assert mcplight.repair_json_text('{"a": "plain"}') == '{"a": "plain"}'


# ---- subprocesses --------------------------------------------------------------------------------------------
def _env():
    env = dict(os.environ, PYTHONPATH=str(SRC), PYTHONIOENCODING="utf-8")
    env.pop("MEMDIR_TOKEN", None)
    env.pop("MEMDIR_PROJECT_DIR", None)
    return env


class Proc:
    """A ``python -m memdir mcp`` (or any command) with a reader thread; every stdout line must be JSON-RPC."""

    def __init__(self, args, cwd):
        self.p = subprocess.Popen([sys.executable, *args], cwd=str(cwd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=_env())
        self.q: queue.Queue = queue.Queue()
        self.lines: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in iter(self.p.stdout.readline, b""):
            self.lines.append(line)
            self.q.put(line)
        self.q.put(None)

    def send(self, *msgs):
        self.p.stdin.write(b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in msgs))
        self.p.stdin.flush()

    def recv(self) -> dict:
        line = self.q.get(timeout=TIMEOUT)
        assert line is not None, self.p.stderr.read().decode("utf-8", "replace")
        msg = json.loads(line.decode("utf-8"))
        assert msg["jsonrpc"] == "2.0", msg
        return msg

    def close(self) -> tuple[int, str]:
        self.p.stdin.close()
        try:
            rc = self.p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.p.kill()
            rc = self.p.wait()
        err = self.p.stderr.read().decode("utf-8", "replace")
        self.p.stdout.close()
        self.p.stderr.close()
        for line in self.lines:  # nothing but JSON-RPC on stdout, start to end
            assert json.loads(line)["jsonrpc"] == "2.0", line
        return rc, err


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    return p


def _call(id_, name, args):
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": args}}


def test_stdio_session_end_to_end(proj, tmp_path, table):
    s = Proc(["-m", "memdir", "mcp", "--home", str(tmp_path / "home")], proj)
    try:
        s.send(_init(), INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        init, tools = s.recv(), s.recv()
        assert init["id"] == 1 and init["result"] == table["initialize"]["2025-06-18"]
        assert tools["id"] == 2 and tools["result"] == table["tools_list"]["2025-06-18"]
        s.send(b"this is not json", _call(3, "memory_remember", {"text": "deploys use pnpm, never npm 部署", "category": "decisions"}))
        assert s.recv() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        r = s.recv()
        assert r["id"] == 3 and r["result"]["isError"] is False
        assert r["result"]["structuredContent"]["note"]["category"] == "decisions"
        s.send(_call(4, "memory_recall", {"query": "pnpm 部署"}), {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        got = {m["id"]: m for m in (s.recv(), s.recv())}
        hits = got[4]["result"]["structuredContent"]["hits"]
        assert hits and hits[0]["text"].startswith("deploys use pnpm")
        assert got[5]["result"] == tools["result"]  # the SDK's own answer, after the handover, is the same
    finally:
        rc, err = s.close()
    assert rc == 0 and "Traceback" not in err, err


def test_a_request_with_a_bad_id_is_answered_and_the_server_ends_with_its_input(proj, tmp_path):
    s = Proc(["-m", "memdir", "mcp", "--home", str(tmp_path / "home")], proj)
    try:
        s.send(_init(), {"jsonrpc": "2.0", "id": True, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert s.recv()["id"] == 1
        assert s.recv()["error"]["code"] == -32600
        assert s.recv() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        rc, err = s.close()
    assert rc == 0 and "Traceback" not in err, err


def test_a_call_sent_before_loading_finished_gets_its_answer(proj, tmp_path):
    home = tmp_path / "home"
    import memdir

    with memdir.open(proj, home=home) as m:
        m.remember("the staging database is called kestrel", category="facts")
    s = Proc(["-m", "memdir", "--dir", str(proj), "mcp", "--home", str(home)], tmp_path)
    try:  # all at once, right after the spawn: the SDK takes far longer than this to import
        s.send(_init(), _call(2, "memory_recall", {"query": "kestrel"}), INITIALIZED,
               {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        got = {}
        for _ in range(3):
            msg = s.recv()
            got[msg["id"]] = msg
        assert got[1]["result"]["serverInfo"]["name"] == "memdir"
        assert got[2]["result"]["structuredContent"]["hits"][0]["text"].startswith("the staging database")
        assert [t["name"] for t in got[3]["result"]["tools"]]
    finally:
        rc, err = s.close()
    assert rc == 0 and "Traceback" not in err, err


def test_stdin_closed_with_a_call_in_flight_still_answers_it(proj, tmp_path):
    s = Proc(["-m", "memdir", "mcp", "--home", str(tmp_path / "home")], proj)
    s.send(_init(), INITIALIZED, _call(2, "memory_list", {}))
    rc, err = s.close()
    ids = [json.loads(x)["id"] for x in s.lines]
    assert ids == [1, 2] and rc == 0, err


def test_stray_output_never_reaches_the_protocol_stream(tmp_path, table):
    """print() and a child process writing to fd 1 while the session runs: their text lands on stderr."""
    code = (
        "import json, os, sys\n"
        "from memdir.server import mcplight\n"
        "def load():\n"
        "    print('stray print')\n"
        "    os.system('echo stray child')\n"
        "    def serve(next_line, write_line):\n"
        "        while (line := next_line()) is not None:\n"
        "            print('stray in the server')\n"
        "            m = json.loads(line)\n"
        "            if 'id' in m: write_line(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {}}) + '\\n')\n"
        "    return serve\n"
        "mcplight.run(load, mcplight.load_table())\n")
    s = Proc(["-c", code], tmp_path)
    s.send(_init(), {"jsonrpc": "2.0", "id": 2, "method": "tools/call"})
    rc, err = s.close()
    assert [json.loads(x)["id"] for x in s.lines] == [1, 2]
    assert rc == 0 and "stray print" in err and "stray child" in err and "stray in the server" in err, err


def test_the_light_path_imports_the_standard_library_only():
    code = ("import sys; import memdir.cli.mcpstart, memdir.server.mcplight; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('click', 'mcp', 'mcp_types', 'pydantic', 'anyio', 'starlette', 'yaml', 'frontmatter', 'numpy')"
            " or m in ('memdir.core', 'memdir.server.mcp', 'memdir.cli.main')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=TIMEOUT)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_sdks_own_client_over_the_light_start(proj, tmp_path):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "memdir", "mcp", "--home", str(tmp_path / "home")],
                                   env=_env(), cwd=str(proj))
    async with Client(params) as c:
        tools = await c.list_tools()
        assert {t.name for t in tools.tools} >= {"memory_recall", "memory_remember"}
        r = await c.call_tool("memory_remember", {"text": "the CI runner is called osprey", "category": "facts"})
        assert not r.is_error
        r = await c.call_tool("memory_recall", {"query": "osprey"})
        assert not r.is_error and r.structured_content["hits"][0]["text"].startswith("the CI runner")


def test_without_a_fitting_table_the_plain_sdk_start_serves(proj, tmp_path, table):
    """Another SDK version installed (load_table gives None): `memdir mcp` runs the SDK's own stdio start, same answers."""
    code = ("import sys; from memdir.server import mcplight; mcplight.load_table = lambda *a, **k: None\n"
            "from memdir.__main__ import main; main(sys.argv[1:])\n")
    s = Proc(["-c", code, "mcp", "--home", str(tmp_path / "home")], proj)
    try:
        s.send(_init(), INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, _call(3, "memory_list", {}))
        got = {}
        for _ in range(3):
            msg = s.recv()
            got[msg["id"]] = msg
        assert got[1]["result"] == table["initialize"]["2025-06-18"]
        assert got[2]["result"] == table["tools_list"]["2025-06-18"] and got[3]["result"]["isError"] is False
    finally:
        rc, err = s.close()
    assert rc == 0 and "Traceback" not in err, err


def test_ctrl_c_ends_the_mcp_server_quietly_while_it_loads_and_once_it_serves(tmp_path):
    """SIGINT at start (the SDK still loading) or once a reply went out leaves with status 130 and nothing on stderr
    (a KeyboardInterrupt traceback from the light loop or from closing the store was printed 7 times in 12)."""
    import signal
    import time

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for answered in (False, True):
        p = Proc(["-m", "memdir", "mcp", "--home", str(tmp_path / "g")], proj)
        if answered:
            p.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            assert p.recv()["id"] == 1
        else:
            time.sleep(0.2)  # inside the light loop, the SDK not loaded yet (no sleep is a speed check here)
        p.p.send_signal(signal.SIGINT)
        code = p.p.wait(timeout=TIMEOUT)
        assert code == 130, (answered, code, p.p.stderr.read())
        assert p.p.stderr.read() == b"", answered


def test_a_request_the_sdk_refuses_for_its_params_says_what_is_wrong(proj, tmp_path):
    """The SDK answered a tools/list sent before initialize, and a tools/call with no params, with a string as its
    arguments or a number as its name, with the same `-32602 Invalid request parameters` and empty data: nothing said
    what to fix."""
    s = Proc(["-m", "memdir", "mcp", "--home", str(tmp_path / "home")], proj)
    try:
        s.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        early = s.recv()
        assert early["id"] == 1 and early["error"]["code"] == -32602
        assert "initialize" in early["error"]["message"], early
        s.send(_init(id_=2), INITIALIZED)
        assert s.recv()["id"] == 2
        bad = [{"jsonrpc": "2.0", "id": 3, "method": "tools/call"},
               {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "memory_recall", "arguments": "x"}},
               {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 5, "arguments": {}}},
               {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "memory_recall", "arguments": {"query": "x"}, "_meta": 5}}]
        s.send(*bad)
        got = {m["id"]: m for m in (s.recv(), s.recv(), s.recv(), s.recv())}
        for i in (3, 4, 5):
            err = got[i]["error"]
            assert err["code"] == -32602 and "name" in err["message"] and "arguments" in err["message"], got[i]
        assert got[7]["error"]["code"] == -32602 and "schema" in got[7]["error"]["message"], got[7]
        s.send({"jsonrpc": "2.0", "id": 6, "method": "ping"})
        assert s.recv() == {"jsonrpc": "2.0", "id": 6, "result": {}}
    finally:
        rc, err = s.close()
    assert rc == 0 and "Traceback" not in err, err
