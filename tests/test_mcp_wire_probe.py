"""Faults a wire probe of ``memdir mcp`` found (a host and a misbehaving model as its peers): every request gets one
JSON-RPC reply, whatever shape it has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="needs the optional `mcp` SDK (pip install 'memdir[mcp]')")

SRC = Path(__file__).resolve().parents[1] / "src"
TIMEOUT = 120


def _session(cwd: Path, home: Path, lines: list[str]) -> list[dict]:
    """``memdir mcp`` fed ``lines`` then end of input; its stdout, each line parsed (all must be JSON-RPC)."""
    env = dict(os.environ, PYTHONPATH=str(SRC), PYTHONIOENCODING="utf-8")
    for k in ("MEMDIR_TOKEN", "MEMDIR_PROJECT_DIR", "MEMDIR_HOME"):
        env.pop(k, None)
    r = subprocess.run([sys.executable, "-m", "memdir", "mcp", "--home", str(home)], cwd=cwd, env=env,
                       input="".join(x + "\n" for x in lines).encode(), capture_output=True, timeout=TIMEOUT)
    out = [json.loads(x) for x in r.stdout.decode("utf-8").splitlines()]
    assert all(m["jsonrpc"] == "2.0" for m in out), out
    return out


INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


def _recall_nested(id_: int, depth: int) -> str:
    return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_recall","arguments":'
            '{"query":"deploy","kinds":%s%s}}}' % (id_, "[" * depth, "]" * depth))


def test_a_deeply_nested_message_gets_an_error_reply_not_silence(tmp_path, project):
    """A message nested 300 levels deep reached the SDK, whose JSON parser stops at about 200 levels and drops the
    line without a reply; one nested 100,000 levels deep raised RecursionError in the light loop: no reply either,
    and the client waited for ever (the session ends only because input ends here)."""
    lines = [INIT, INITIALIZED, _recall_nested(2, 300), "[" * 100_000 + "]" * 100_000, _recall_nested(3, 5_000),
             json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"})]
    replies = _session(project, tmp_path / "home", lines)
    by_id = {json.dumps(r["id"]): r for r in replies}
    assert by_id["1"]["result"]["serverInfo"]["name"] == "memdir" and by_id["4"]["result"] == {}
    # the request the JSON parser reads is answered by its id (the client's call resolves), those it cannot read
    # with a parse error (id null), every one on one line
    assert by_id["2"]["error"]["code"] == -32600 and "\n" not in by_id["2"]["error"]["message"]
    # the one nested 5,000 deep: a parse error where Python's JSON parser gives up (up to 3.12), an invalid request
    # answered by its id where it reads it (3.13's parser goes deeper); one reply either way
    nulls = [r for r in replies if r["id"] is None]
    deep = by_id["3"]["error"]["code"] == -32600 if "3" in by_id else None
    assert len(nulls) == (1 if deep else 2) and all(r["error"]["code"] == -32700 for r in nulls), replies
    assert len(replies) == 5, replies


def test_a_request_whose_id_is_a_replay_id_still_gets_its_reply(tmp_path, project):
    """The light loop hands the session to the SDK by replaying the client's initialize under ids of its own
    (``memdir-replay-N``) and drops the replies to those; a client request under such an id had its reply dropped
    too: no reply, the client waited for ever."""
    call = {"jsonrpc": "2.0", "id": "memdir-replay-1", "method": "tools/call",
            "params": {"name": "memory_list", "arguments": {}}}
    again = json.loads(INIT) | {"id": "memdir-replay-2"}
    replies = _session(project, tmp_path / "home", [INIT, INITIALIZED, json.dumps(call), json.dumps(again)])
    ids = sorted(json.dumps(r["id"]) for r in replies)
    assert ids == ['"memdir-replay-1"', '"memdir-replay-2"', "1"], replies
    by_id = {r["id"]: r for r in replies}
    assert by_id["memdir-replay-1"]["result"]["structuredContent"]["count"] == 0
    assert by_id["memdir-replay-2"]["result"]["serverInfo"]["name"] == "memdir"
