"""The MCP server (issue 4): every tool through the SDK's in-process client, case C9 (CJK, emoji, a lone
surrogate), refusals as one-line tool errors (traversal, prune without its token), output schemas, and the
two transports in a subprocess (`memdir mcp` over stdio, `memdir serve` over streamable HTTP)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")
import anyio  # noqa: E402  (installed with mcp)
from mcp import Client, StdioServerParameters  # noqa: E402

import memdir  # noqa: E402
from memdir.server.http import RepairJsonBody, check_serve_options, is_loopback, repair_json_text  # noqa: E402
from memdir.server.mcp import build_server  # noqa: E402
from memdir.server.tools import clean_text  # noqa: E402

TOOLS = {"memory_recall", "memory_read", "memory_remember", "memory_forget", "memory_inspect", "memory_prune", "memory_list"}
T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
START_TIMEOUT = 30  # seconds a subprocess server may take to start before the test is skipped (not asserted)


class Clock:
    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    return p


@pytest.fixture
def store(proj, tmp_path):
    m = memdir.open(proj, home=tmp_path / "home")
    yield m
    m.close()


@pytest.fixture
def server(store):
    return build_server(memdir=store)


async def call(server, name, args=None):
    async with Client(server) as c:
        return await c.call_tool(name, args or {})


def _utf8_strict(result) -> str:
    """The result as the wire would carry it: JSON, then UTF-8 with no error handler (raises on surrogates)."""
    payload = {"content": [getattr(b, "text", None) for b in result.content], "structured": result.structured_content}
    text = json.dumps(payload, ensure_ascii=False)
    text.encode("utf-8")
    return text


def _error_text(result) -> str:
    assert result.is_error, result
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text
    return text


# ---- listing ----------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_tools_listed_with_annotations_and_output_schemas(server):
    async with Client(server) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert set(tools) == TOOLS
    for name, t in tools.items():
        assert t.output_schema and t.output_schema.get("type") == "object", name
        assert t.annotations.open_world_hint is False, name
        assert t.description, name
    for name in ("memory_recall", "memory_inspect", "memory_list"):
        assert tools[name].annotations.read_only_hint is True
        assert tools[name].annotations.destructive_hint is False
    for name in ("memory_forget", "memory_prune"):
        assert tools[name].annotations.destructive_hint is True
        assert tools[name].annotations.read_only_hint is False
    assert tools["memory_remember"].annotations.read_only_hint is False
    assert tools["memory_remember"].annotations.destructive_hint is False
    assert set(tools["memory_recall"].output_schema["properties"]) >= {"hits", "count"}
    hit = tools["memory_recall"].output_schema["$defs"]["RecallHit"]["properties"]
    assert {"id", "kind", "scope", "score", "text", "reasons"} <= set(hit)
    assert {"query", "k", "scope"} <= set(tools["memory_recall"].input_schema["properties"])
    assert set(tools["memory_remember"].input_schema["properties"]) == {
        "text", "category", "summary", "tags", "load_when", "pinned", "supersedes", "scope", "highlight"}


# ---- each tool ---------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_remember_recall_forget_inspect(server, store):
    async with Client(server) as c:
        r = await c.call_tool("memory_remember", {
            "text": "部署脚本用 pnpm 而不是 npm,因为 lockfile 不兼容", "category": "decisions",
            "tags": ["deploy"], "load_when": ["部署"], "pinned": True})
        assert not r.is_error
        note = r.structured_content["note"]
        assert r.structured_content["existed"] is False
        assert note["id"].startswith("decisions/") and note["kind"] == "decision" and note["pinned"] is True
        assert Path(note["path"]).is_file()

        again = await c.call_tool("memory_remember", {"text": "部署脚本用 pnpm 而不是 npm,因为 lockfile 不兼容",
                                                      "category": "decisions"})
        assert again.structured_content["existed"] is True
        assert again.structured_content["note"]["id"] == note["id"]

        hits = (await c.call_tool("memory_recall", {"query": "部署", "k": 3})).structured_content
        assert hits["count"] == 1
        h = hits["hits"][0]
        assert h["id"] == note["id"] and h["scope"] == "project" and h["kind"] == "decision" and h["score"] > 0
        assert "部署" in h["reasons"]["terms"]

        ins = (await c.call_tool("memory_inspect", {})).structured_content
        assert ins["ok"] is True and ins["problems"] == []
        assert ins["counts"]["project"]["notes"] == 1 and ins["notes"][0]["id"] == note["id"]

        gone = (await c.call_tool("memory_forget", {"id": note["id"]})).structured_content
        assert {k: gone[k] for k in ("id", "forgotten", "message")} == {
            "id": note["id"], "forgotten": True, "message": f"forgot {note['id']}"}
        assert (await c.call_tool("memory_recall", {"query": "部署"})).structured_content["count"] == 0
        missing = (await c.call_tool("memory_forget", {"id": note["id"]})).structured_content
        assert missing["forgotten"] is False
    assert store.get(note["id"]) is None


@pytest.mark.anyio
async def test_remember_supersedes_and_global_scope(server, store):
    async with Client(server) as c:
        old = (await c.call_tool("memory_remember", {"text": "tests run with nose", "category": "facts"})).structured_content
        new = (await c.call_tool("memory_remember", {"text": "tests run with pytest", "category": "facts",
                                                     "supersedes": old["note"]["id"]})).structured_content
        assert new["note"]["supersedes"] == old["note"]["id"]
        ids = [h["id"] for h in (await c.call_tool("memory_recall", {"query": "tests run"})).structured_content["hits"]]
        assert ids == [new["note"]["id"]]
        g = (await c.call_tool("memory_remember", {"text": "I prefer short answers", "category": "preferences",
                                                   "scope": "global"})).structured_content
        assert g["note"]["scope"] == "global"
        only = (await c.call_tool("memory_recall", {"query": "short answers", "scope": "global"})).structured_content
        assert [h["scope"] for h in only["hits"]] == ["global"]


@pytest.mark.anyio
async def test_recall_empty_store_and_odd_queries(server):
    async with Client(server) as c:
        for q in ("***", 'AND OR NOT "(', "x" * 5000):
            r = await c.call_tool("memory_recall", {"query": q})
            assert not r.is_error and r.structured_content["hits"] == []
        assert len(r.structured_content["query"]) == 501  # a long query is not sent back whole
        for q in ("", "   "):  # as the CLI: an empty query is a mistake the model is told about, not "no hits"
            assert "the query is empty" in _error_text(await c.call_tool("memory_recall", {"query": q}))
        r = await c.call_tool("memory_recall", {"query": "anything", "k": 10_000})
        assert not r.is_error


@pytest.mark.anyio
async def test_recall_output_stays_small(server, store):
    from memdir.server.tools import MAX_HIT_CHARS, MAX_RECALL_CHARS, MIN_HIT_CHARS

    for i in range(12):
        store.remember(f"long note {i} about caching " + ("lorem ipsum dolor " * 600), category="facts")
    r = (await call(server, "memory_recall", {"query": "caching", "k": 12})).structured_content
    assert r["count"] == 12
    lengths = [len(h["text"]) for h in r["hits"]]
    assert all(h["truncated"] for h in r["hits"]) and max(lengths) <= MAX_HIT_CHARS + 2
    assert sum(lengths) <= MAX_RECALL_CHARS + 12 * (MIN_HIT_CHARS + 2)
    assert lengths[0] >= lengths[-1]  # the best hit keeps the most text


@pytest.mark.anyio
async def test_bad_input_is_a_one_line_tool_error(server):
    async with Client(server) as c:
        msg = _error_text(await c.call_tool("memory_remember", {"text": "x", "category": "no-such-category"}))
        assert "unknown category" in msg
        assert "empty" in _error_text(await c.call_tool("memory_remember", {"text": "   "}))
        assert "scope" in _error_text(await c.call_tool("memory_recall", {"query": "x", "scope": "everywhere"}))
        _error_text(await c.call_tool("memory_remember", {"text": "y", "supersedes": "facts/not-there"}))
        _error_text(await c.call_tool("memory_forget", {"id": ""}))
        _error_text(await c.call_tool("memory_recall", {}))  # query missing: schema validation, still one line


@pytest.mark.anyio
async def test_an_unknown_argument_or_kind_is_a_tool_error_not_an_unfiltered_answer(server, store):
    store.remember("deploys go through the staging cluster first", category="decisions")
    async with Client(server) as c:
        msg = _error_text(await c.call_tool("memory_list", {"kind": "tool"}))  # the argument is "kinds"
        assert "unknown argument 'kind'" in msg and "kinds" in msg
        msg = _error_text(await c.call_tool("memory_recall", {"query": "staging", "limit": 3}))
        assert "unknown argument 'limit'" in msg and "k," in msg
        msg = _error_text(await c.call_tool("memory_recall", {"query": "staging", "kinds": ["bogus"]}))
        assert "unknown kind 'bogus'" in msg  # as memory_list and `memdir recent --kind` say it
        ok = await c.call_tool("memory_recall", {"query": "staging", "kinds": ["decision"]})
        assert not ok.is_error and ok.structured_content["count"] == 1
        ok = await c.call_tool("memory_recall", {"query": "staging", "_meta": {"x": 1}})  # the protocol's own field
        assert not ok.is_error and ok.structured_content["count"] == 1


@pytest.mark.anyio
@pytest.mark.parametrize("bad", ["../../etc/passwd", "/etc/passwd", "a/../../b", "..\\..\\x", "facts/../../../../tmp/x"])
async def test_forget_traversal_refused(server, tmp_path, bad):
    victim = tmp_path / "victim.md"
    victim.write_text("keep me", encoding="utf-8")
    r = await call(server, "memory_forget", {"id": bad})
    msg = _error_text(r)
    assert "memory_forget" in msg and ("id" in msg or "path" in msg)
    assert victim.read_text(encoding="utf-8") == "keep me"


@pytest.mark.anyio
async def test_remember_traversal_category_refused(server, tmp_path):
    msg = _error_text(await call(server, "memory_remember", {"text": "x", "category": "../../outside"}))
    assert "memory_remember" in msg
    assert not (tmp_path / "outside").exists()


# ---- case C9 -----------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_c9_cjk_emoji_lone_surrogate(server, store):
    text = "数据库迁移要先备份 🚀🧠 — lone \ud800 here, pair \U0001F600 ok"
    async with Client(server) as c:
        r = await c.call_tool("memory_remember", {"text": text, "category": "facts", "tags": ["\udfff", "标签"]})
        assert not r.is_error
        body = _utf8_strict(r)
        assert "\ufffd" in body and "🚀" in body and "数据库迁移" in body
        for q in ("数据库 \ud800", "🚀", "\ud800", "\udc00\ud800"):
            res = await c.call_tool("memory_recall", {"query": q})
            assert not res.is_error
            _utf8_strict(res)
        assert (await c.call_tool("memory_recall", {"query": "数据库"})).structured_content["count"] == 1
        bad = await c.call_tool("memory_forget", {"id": "facts/\ud800"})
        _utf8_strict(bad)
        ins = await c.call_tool("memory_inspect", {})
        _utf8_strict(ins)
    note_path = Path(r.structured_content["note"]["path"])
    note_path.read_bytes().decode("utf-8")  # valid UTF-8 on disk too


def test_clean_text_and_json_repair():
    assert clean_text("a\ud800b") == "a\ufffdb"
    assert clean_text("\ud83d\ude00") == "\U0001F600"  # a pair written as two code units is joined
    assert clean_text("ok 中文 🚀") == "ok 中文 🚀"
    line = r'{"a":"x\ud800y","b":"\ud83d\ude00","c":"\\ud800","d":"\udc00"}'
    fixed = repair_json_text(line)
    assert json.loads(fixed) == {"a": "x\ufffdy", "b": "\U0001F600", "c": "\\ud800", "d": "\ufffd"}
    assert len(fixed) == len(line)
    assert repair_json_text('{"plain": 1}') == '{"plain": 1}'


@pytest.mark.anyio
async def test_http_body_repair_middleware():
    seen = {}

    async def app(scope, receive, send):
        msg = await receive()
        seen["body"] = msg["body"]

    body = '{"q":"a\\ud800 中文"}'.encode("utf-8")
    chunks = [{"type": "http.request", "body": body[:7], "more_body": True},
              {"type": "http.request", "body": body[7:], "more_body": False}]

    async def receive():
        return chunks.pop(0)

    await RepairJsonBody(app)({"type": "http", "method": "POST"}, receive, None)
    assert json.loads(seen["body"]) == {"q": "a\ufffd 中文"} and len(seen["body"]) == len(body)


# ---- prune -------------------------------------------------------------------------------------------------
def _cold_store(tmp_path, clock):
    (tmp_path / "p").mkdir(exist_ok=True)
    m = memdir.open(tmp_path / "p", home=tmp_path / "h", clock=clock)
    later, clock.t = clock.t, T0  # captured at the time (imported history starts hot at import: issue 13)
    m.import_events([{"key": f"old{i}", "text": f"old chatter number {i}", "ts": T0} for i in range(3)])
    clock.t = later
    m.import_events([{"key": "new", "text": "fresh memory", "ts": clock.t}])
    return m


@pytest.mark.anyio
async def test_prune_previews_and_needs_the_token(tmp_path):
    if not callable(getattr(memdir.Memdir, "prune", None)):
        pytest.skip("this memdir has no Memdir.prune (see test_prune_not_available)")
    clock = Clock(T0 + timedelta(days=200, minutes=5))
    m = _cold_store(tmp_path, clock)
    try:
        server = build_server(memdir=m)
        async with Client(server) as c:
            pre = (await c.call_tool("memory_prune", {"days": 90})).structured_content
            assert pre["available"] is True and pre["acted"] is False and pre["count"] == 3 and pre["deleted"] == 0
            assert pre["confirm_token"] and pre["confirm_token"] in pre["message"]
            assert {s["id"] for s in pre["samples"]} == {"old0", "old1", "old2"}
            assert m.get("old0") is not None  # a preview deletes nothing

            # a destructive call without the preview's token is refused
            msg = _error_text(await c.call_tool("memory_prune", {"days": 90, "confirm_token": "0000000000"}))
            assert "token" in msg
            _error_text(await c.call_tool("memory_prune", {"days": 30, "confirm_token": pre["confirm_token"]}))
            _error_text(await c.call_tool("memory_prune", {"days": -1}))
            assert m.get("old0") is not None

            clock.t += timedelta(minutes=30)  # same hour: the token still holds
            done = (await c.call_tool("memory_prune", {"days": 90, "confirm_token": pre["confirm_token"]})).structured_content
            assert done["acted"] is True and done["deleted"] == 3 and done["confirm_token"] is None
        assert m.get("old0") is None and m.get("new") is not None
    finally:
        m.close()


@pytest.mark.anyio
async def test_prune_not_available(store):
    class NoPrune:
        """A facade without prune (an older memdir): the tool must say so, not crash."""

        def __getattr__(self, name):
            if name == "prune":
                raise AttributeError(name)
            return getattr(store, name)

    server = build_server(memdir=NoPrune())  # type: ignore[arg-type]
    r = await call(server, "memory_prune", {"days": 90, "confirm_token": "abc"})
    assert not r.is_error
    assert r.structured_content["available"] is False and r.structured_content["acted"] is False
    assert "not available" in r.structured_content["message"]


# ---- lazy open ---------------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_store_opened_lazily_and_reused(proj, tmp_path):
    server = build_server(proj, home=tmp_path / "home")
    st = server.memdir_store
    assert st._memdir is None  # nothing opened by building the server
    try:
        async with Client(server) as c:
            await c.call_tool("memory_remember", {"text": "lazy open works"})
            first = st._memdir
            await c.call_tool("memory_recall", {"query": "lazy"})
            assert st._memdir is first and first is not None
            assert first.project_root == proj.resolve()
    finally:
        st.close()
    assert (proj / ".memory").is_dir()


# ---- serve option checks -----------------------------------------------------------------------------------
def test_loopback_and_serve_options():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1") and is_loopback("127.1.2.3")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.com")
    check_serve_options("127.0.0.1", None)
    check_serve_options("0.0.0.0", "a-long-enough-token-123")
    with pytest.raises(memdir.UsageError, match="needs --token"):
        check_serve_options("0.0.0.0", None)
    with pytest.raises(memdir.UsageError, match="at least 16"):
        check_serve_options("0.0.0.0", "short")


# ---- subprocesses: the real transports ---------------------------------------------------------------------
def _cmd(proj, home, *args):
    return [sys.executable, "-m", "memdir.cli", "--dir", str(proj), "--home", str(home), *args]


def _env():
    env = dict(os.environ)
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("MEMDIR_TOKEN", None)
    return env


def test_serve_refuses_public_host_without_token(proj, tmp_path):
    r = subprocess.run(_cmd(proj, tmp_path / "home", "serve", "--host", "0.0.0.0", "--port", "0"),
                       capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 2, r
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--token" in lines[0] and "Traceback" not in r.stderr


def test_serve_on_a_port_in_use_fails_with_exit_1_not_a_usage_error(proj, tmp_path):
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        r = subprocess.run(_cmd(proj, tmp_path / "home", "serve", "--port", str(port)),
                           capture_output=True, text=True, env=_env(), timeout=120)
    finally:
        taken.close()
    assert r.returncode == 1, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"memdir: error: cannot listen on 127.0.0.1:{port}: Address already "
                                                   "in use") and "--port" in lines[0], r.stderr


def test_a_second_serve_on_the_same_port_says_one_line_and_starts_nothing(proj, tmp_path):
    home = tmp_path / "home"
    first, info = _start_serve(proj, home)
    try:
        r = subprocess.run(_cmd(proj, home, "serve", "--port", str(info["port"])), capture_output=True, text=True,
                           env=_env(), timeout=120)
    finally:
        _stop(first)
    assert r.returncode == 1, r
    # not "another memdir serve answers hooks …; this one does not" before it, as if this one ran
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"memdir: error: cannot listen on 127.0.0.1:{info['port']}: Address already in use"), r.stderr


@pytest.mark.anyio
async def test_stdio_subprocess_lists_tools_and_recalls(proj, tmp_path):
    with memdir.open(proj, home=tmp_path / "home") as m:
        m.remember("the staging database is called kestrel 数据库", category="facts")
    cmd = _cmd(proj, tmp_path / "home", "mcp")
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=_env())
    errlog = open(tmp_path / "stderr.txt", "w+", encoding="utf-8")
    try:
        async with Client(params) as c:
            with anyio.move_on_after(START_TIMEOUT) as scope:
                tools = await c.list_tools()
            if scope.cancelled_caught:
                pytest.skip(f"`memdir mcp` took more than {START_TIMEOUT} s to answer")
            assert {t.name for t in tools.tools} == TOOLS
            r = await c.call_tool("memory_recall", {"query": "kestrel 数据库"})
            assert not r.is_error and r.structured_content["hits"][0]["text"].startswith("the staging database")
    finally:
        errlog.close()


def _reader(stream, q):
    for line in iter(stream.readline, b""):
        q.put(line)
    q.put(None)


def test_stdio_raw_lone_surrogate_gets_an_answer(proj, tmp_path):
    """A host written in JavaScript can send `\\ud800` as a JSON escape (the SDK clients cannot): every such
    request must still be answered, and every byte the server writes must be valid UTF-8 (case C9)."""
    p = subprocess.Popen(_cmd(proj, tmp_path / "home", "mcp"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_env())
    q: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(p.stdout, q), daemon=True).start()

    def send(line: str | bytes):
        p.stdin.write(line if isinstance(line, bytes) else line.encode("utf-8"))
        p.stdin.flush()

    def recv(timeout=60):
        line = q.get(timeout=timeout)
        assert line is not None, p.stderr.read().decode("utf-8", "replace")
        return json.loads(line.decode("utf-8"))  # strict UTF-8

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}) + "\n")
        try:
            init = recv(timeout=START_TIMEOUT)
        except queue.Empty:
            pytest.skip(f"`memdir mcp` took more than {START_TIMEOUT} s to start")
        assert init["result"]["serverInfo"]["name"] == "memdir"
        send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_remember",'
             '"arguments":{"text":"中文 emoji \\ud83d\\ude80 lone \\ud800 end","category":"facts"}}}\n')
        r = recv()
        assert r["id"] == 2 and r["result"]["isError"] is False
        assert r["result"]["structuredContent"]["note"]["text"] == "中文 emoji 🚀 lone \ufffd end"
        send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_recall",'
             '"arguments":{"query":"\\udc00 中文"}}}\n')
        r = recv()
        assert r["id"] == 3 and r["result"]["structuredContent"]["count"] == 1
        send(b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_recall",'
             b'"arguments":{"query":"bad \xff\xfe bytes"}}}\n')
        r = recv()
        assert r["id"] == 4 and r["result"]["isError"] is False
        send('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory_forget",'
             '"arguments":{"id":"../../etc/passwd"}}}\n')
        r = recv()
        assert r["id"] == 5 and r["result"]["isError"] is True
        assert "\n" not in r["result"]["content"][0]["text"]
    finally:
        p.stdin.close()
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        err = p.stderr.read().decode("utf-8", "replace")
        p.stdout.close()
        p.stderr.close()
    assert rc == 0, err
    assert "Traceback" not in err


def _start_serve(proj, home, *extra):
    p = subprocess.Popen(_cmd(proj, home, "serve", "--port", "0", "--json", *extra), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_env())
    q: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(p.stdout, q), daemon=True).start()
    try:
        line = q.get(timeout=START_TIMEOUT)
    except queue.Empty:
        _stop(p)
        pytest.skip(f"`memdir serve` took more than {START_TIMEOUT} s to start")
    if line is None:
        err = p.stderr.read().decode("utf-8", "replace")
        _stop(p)
        pytest.fail(f"memdir serve exited: {err}")
    return p, json.loads(line)


def _stop(p):
    p.terminate()
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    for s in (p.stdout, p.stderr):
        if s:
            s.close()


@pytest.mark.anyio
async def test_serve_streamable_http_roundtrip(proj, tmp_path):
    p, info = _start_serve(proj, tmp_path / "home")
    try:
        assert info["host"] == "127.0.0.1" and info["port"] > 0 and info["url"].endswith("/mcp")
        async with Client(info["url"]) as c:
            r = await c.call_tool("memory_remember", {"text": "served over HTTP 服务", "category": "facts"})
            assert not r.is_error
            hits = (await c.call_tool("memory_recall", {"query": "服务"})).structured_content["hits"]
            assert hits and hits[0]["text"] == "served over HTTP 服务"
    finally:
        _stop(p)
    assert (proj / ".memory" / "facts").is_dir()


@pytest.mark.anyio
async def test_serve_answers_tools_and_hooks_from_one_store(proj):
    """With its hook listener up, `memdir serve`'s tools use the listener's store: a note remembered through a tool
    is in the next hook's block at once, and the reverse (tests/test_warm_start.py checks it is one Memdir)."""
    import shutil
    import tempfile

    from memdir.hosts import warm

    home = Path(tempfile.mkdtemp(prefix="mds-", dir="/tmp"))  # a Unix socket path stays short
    p, info = _start_serve(proj, home)
    try:
        assert info["hook_socket"]
        async with Client(info["url"]) as c:
            r = await c.call_tool("memory_remember", {"text": "The nightly backup runs at 02:00 via cron.",
                                                      "category": "facts"})
            assert not r.is_error
            payload = json.dumps({"session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": str(proj),
                                  "prompt": "when does the nightly backup run?"})
            out = warm.ask("claude-code", "user-prompt", payload, home=str(home), timeout_s=60)
            assert out is not None and "02:00" in out
            hits = (await c.call_tool("memory_recall", {"query": "nightly backup"})).structured_content["hits"]
            assert hits and "02:00" in hits[0]["text"]
    finally:
        _stop(p)
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.anyio
async def test_serve_with_token_requires_bearer(proj, tmp_path):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    token = "t0ken-for-tests-only-0123456789"
    p, info = _start_serve(proj, tmp_path / "home", "--token", token)
    try:
        assert info["auth"] == "bearer"
        async with httpx2.AsyncClient() as h:
            r = await h.post(info["url"], json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert r.status_code == 401 and "unauthorized" in r.json()["error"]
            r = await h.post(info["url"], headers={"Authorization": "Bearer wrong-token-0123456789"}, json={})
            assert r.status_code == 401
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as h:
            async with Client(streamable_http_client(info["url"], http_client=h)) as c:
                r = await c.call_tool("memory_inspect", {})
                assert not r.is_error and r.structured_content["ok"] is True
    finally:
        _stop(p)


def test_serve_stopped_by_sigterm_removes_its_hook_socket(proj, tmp_path):
    """uvicorn re-raised SIGTERM with the default handler after its shutdown: the process died before `serve`'s
    clean-up and left <home>/.memdir/hook.sock behind (hnewuser3 finding 18; SIGINT removed it)."""
    p, info = _start_serve(proj, tmp_path / "home")
    sock = info.get("hook_socket")
    if not sock:
        _stop(p)
        pytest.skip("no hook socket on this platform")
    assert Path(sock).exists()
    _stop(p)  # SIGTERM
    assert p.returncode in (0, 130, -15) and not Path(sock).exists()


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_serve_stopped_by_sighup_ends_as_by_sigterm(proj, tmp_path):
    """A SIGHUP (the terminal closed, a logout) killed `memdir serve` at once and left <home>/.memdir/hook.sock
    behind; it now stops gracefully, as on SIGTERM."""
    p, info = _start_serve(proj, tmp_path / "home")
    sock = info.get("hook_socket")
    try:
        p.send_signal(signal.SIGHUP)
        p.wait(timeout=30)
    finally:
        _stop(p)
    assert p.returncode in (0, 130), p.returncode
    if sock:
        assert not Path(sock).exists()


def test_serve_stopped_by_sigterm_answers_the_calls_it_was_running(proj, tmp_path):
    """A SIGTERM (a restart) while calls were in flight: the notes were written but half the callers got an empty
    200 reply (the SSE library cut every stream at the signal), so they could not tell the write happened; uvicorn's
    graceful shutdown now lets each running call send its answer."""
    import time
    import urllib.request

    p, info = _start_serve(proj, tmp_path / "home")
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}

    def post(body, sid=None):
        h = dict(headers, **({"Mcp-Session-Id": sid} if sid else {}))
        req = urllib.request.Request(info["url"], data=json.dumps(body).encode(), headers=h)
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.headers.get("Mcp-Session-Id"), r.read().decode("utf-8")

    got: dict[int, str] = {}
    try:
        sid, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)

        def call(i):
            try:
                got[i] = post({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {
                    "name": "memory_remember", "arguments": {"text": f"restart note {i} about the zeta service"}}}, sid)[1]
            except Exception as exc:  # noqa: BLE001 - refused before it ran: not acknowledged, allowed
                got[i] = f"refused: {exc!r}"

        threads = [threading.Thread(target=call, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while not got and time.monotonic() < deadline:  # the first answer is out: the others run or wait their turn
            time.sleep(0.01)
        p.terminate()
        p.wait(timeout=30)
        for t in threads:
            t.join(60)
    finally:
        _stop(p)
    import memdir

    with memdir.open(proj, home=tmp_path / "home") as m:
        stored = {n.id for n in m.recent(category="facts", limit=50)}
    answered = {i for i, body in got.items() if '"result"' in body}
    assert not [i for i, body in got.items() if not body.strip()], got  # an empty 200: written, never said
    assert len(stored) == len(answered), (stored, got)


@pytest.mark.anyio
async def test_a_damaged_index_is_a_tool_error_that_says_how_to_recover(server, store, monkeypatch):
    """A page damaged after the open surfaced as 'internal error … DatabaseError' with no way forward: the tool error
    now names the damage and the recovery (as the CLI does); another error stays an internal error."""
    import sqlite3

    from memdir.core import Memdir

    def damaged(self, *a, **k):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(Memdir, "recall", damaged)
    text = _error_text(await call(server, "memory_recall", {"query": "deploy"}))
    assert "the index is damaged (database disk image is malformed)" in text and "aside" in text
    monkeypatch.setattr(Memdir, "recall", lambda self, *a, **k: (_ for _ in ()).throw(sqlite3.OperationalError("x")))
    assert "internal error in memory_recall" in _error_text(await call(server, "memory_recall", {"query": "deploy"}))


def test_doctor_reports_an_index_too_damaged_to_check_as_a_failed_check(store, monkeypatch):
    import sqlite3

    from memdir.engine import health

    real = health.index_checks

    class Damaged:
        def __init__(self, db):
            self.db = db

        def execute(self, sql, *a):
            if sql.startswith("PRAGMA integrity_check"):
                raise sqlite3.DatabaseError("database disk image is malformed")
            return self.db.execute(sql, *a)

    root = store.roots["project"]
    root.ensure()
    store.remember("the deploy window is friday", category="facts")
    monkeypatch.setattr(type(root), "db", property(lambda self: Damaged(self.__dict__.get("_db") or self._open_db()[0])))
    checks = real(store.stores, repair=False)
    bad = [c for c in checks if c["check"] == "project index"]
    assert bad and bad[0]["ok"] == "fail" and "the index is damaged" in bad[0]["remedy"]


@pytest.mark.anyio
async def test_forget_preview_matching_nothing_offers_no_token(server):
    """A text preview that matches nothing says so and hands out no confirm_token (the CLI's "no memory matches"):
    a token would invite the model to a second call that deletes nothing."""
    async with Client(server) as c:
        await c.call_tool("memory_remember", {"text": "builds use uv, not pip", "category": "facts"})
        none = (await c.call_tool("memory_forget", {"query": "zebra giraffe"})).structured_content
        assert none["count"] == 0 and none["forgotten"] is False and none["confirm_token"] is None
        assert "no memory matches" in none["message"] and "confirm_token" not in none["message"]
        some = (await c.call_tool("memory_forget", {"query": "uv, not pip"})).structured_content
        assert some["count"] == 1 and some["confirm_token"]


@pytest.mark.anyio
async def test_forget_refuses_a_rule_and_names_what_a_handle_stood_for(server, store):
    """An agent removes no person's rule (it cannot write or replace one either), and forgetting by a handle says
    which memory went."""
    rule = store.remember("never force-push to main; always open a pull request", category="rules")
    fact = store.remember("the staging cluster is in eu-west-1", category="facts")
    handle = {h.id: h.handle for h in store.recall("force-push main staging cluster eu-west-1", k=5)}
    async with Client(server) as c:
        res = await c.call_tool("memory_forget", {"id": handle[rule.id]})
        assert "is a rule" in _error_text(res)
        res = await c.call_tool("memory_forget", {"id": rule.id})
        assert "is a rule" in _error_text(res)
        gone = (await c.call_tool("memory_forget", {"id": handle[fact.id]})).structured_content
        assert gone["forgotten"] and gone["message"] == f"forgot {fact.id} ({handle[fact.id]})"
    assert store.get(rule.id) is not None and store.get(fact.id) is None


@pytest.mark.anyio
async def test_replies_repeat_a_huge_argument_only_in_part(server):
    """memory_remember echoed a 890,000-character note whole, memory_forget a 500 KB query: a host capped at
    25,000 tokens rejects such a reply. The note is stored whole; the reply shows its start."""
    big = "deploy notes " + "x" * 500_000
    async with Client(server) as c:
        res = await c.call_tool("memory_remember", {"text": big, "tags": [f"t{i}" for i in range(12_000)]})
        assert len(json.dumps(res.structured_content)) < 20_000
        note = res.structured_content["note"]
        assert note["text"].startswith("deploy notes ") and note["text"].endswith("characters]")
        res = await c.call_tool("memory_forget", {"query": "zz" * 250_000})
        assert len(json.dumps(res.structured_content)) < 5_000


@pytest.mark.anyio
async def test_memory_list_limit_below_one_is_an_error_as_recall_k_is(server, store):
    store.remember("the staging cluster is in eu-west-1", category="facts")
    async with Client(server) as c:
        for bad in (0, -1):
            assert "limit must be a whole number of 1 or more" in _error_text(await c.call_tool("memory_list", {"limit": bad}))
        assert (await c.call_tool("memory_list", {"limit": 1})).structured_content["count"] == 1


def test_json_before_serve_prints_the_ready_line_as_json(proj, tmp_path):
    """`memdir --json serve` (the group's flag, which every other command honours) printed the human ready line."""
    p = subprocess.Popen([sys.executable, "-m", "memdir.cli", "--json", *_cmd(proj, tmp_path / "home", "serve", "--port",
                                                                            "0")[3:]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    q: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(p.stdout, q), daemon=True).start()
    try:
        line = q.get(timeout=START_TIMEOUT)
    except queue.Empty:
        pytest.skip(f"`memdir serve` took more than {START_TIMEOUT} s to start")
    finally:
        _stop(p)
    assert line is not None
    info = json.loads(line)
    assert info["url"].startswith("http://127.0.0.1:") and info["port"] > 0
