"""The light start's table (:mod:`memdir.server.mcplight`): the SDK server's own answers to ``initialize``,
``ping``, ``tools/list`` and ``server/discover``, recorded by talking to it over :func:`memdir.server.mcp.serve_lines`
(``make mcp-table`` writes them to ``memdir/data/mcp_light.json``)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdir.server.mcp import build_server, serve_lines

if TYPE_CHECKING:  # pragma: no cover
    from mcp.server import MCPServer


def wire_replies(server: "MCPServer", messages: list[dict[str, Any]], timeout: float = 60.0) -> list[dict[str, Any]]:
    """The replies ``server`` writes, as parsed JSON, to ``messages`` sent one at a time over :func:`serve_lines`
    (each request waits for its reply, at most ``timeout`` seconds, before the next message goes). What a stdio
    client receives, byte for byte up to JSON parsing; raises ``TimeoutError`` when a reply does not come."""
    import json
    import queue

    feed: "queue.Queue[str | None]" = queue.Queue()
    out: "queue.Queue[dict]" = queue.Queue()
    t = threading.Thread(target=serve_lines, args=(server, feed.get, lambda s: out.put(json.loads(s))), daemon=True)
    t.start()
    replies = []
    try:
        for msg in messages:
            feed.put(json.dumps(msg))
            if "id" in msg:
                while True:
                    r = out.get(timeout=timeout)
                    replies.append(r)
                    if r.get("id") == msg["id"] and "method" not in r:
                        break
    except queue.Empty:
        raise TimeoutError(f"no reply to {messages!r}") from None
    finally:
        feed.put(None)
        t.join(timeout)
    return replies


def light_table(server: "MCPServer | None" = None) -> dict[str, Any]:
    """The answers the light loop gives (:mod:`memdir.server.mcplight`), taken from the SDK server ``server`` (default:
    :func:`build_server` over nothing opened): ``{"sdk": the mcp version, "handshake_versions": [...],
    "initialize": {version: result}, "tools_list": {version: result}, "ping": result, "modern": {version:
    {"server/discover": result, "tools/list": result}}}``: one session per version the SDK negotiates in
    ``initialize``, and for each version of the per-request envelope (2026-07-28) the answers to ``server/discover``
    and ``tools/list`` (they do not depend on the client's info or capabilities)."""
    from importlib.metadata import version as dist_version

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    from memdir.server.mcplight import ENVELOPE_KEY, ENVELOPE_NS

    server = server or build_server()
    table: dict[str, Any] = {"sdk": dist_version("mcp"), "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
                             "initialize": {}, "tools_list": {}, "ping": None, "modern": {}}
    for v in HANDSHAKE_PROTOCOL_VERSIONS:
        init, ping, tools = wire_replies(server, [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "memdir", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}])
        table["initialize"][v], table["ping"], table["tools_list"][v] = init["result"], ping["result"], tools["result"]
    for v in MODERN_PROTOCOL_VERSIONS:  # the per-request envelope: no handshake, each request says who asks
        meta = {ENVELOPE_KEY: v, f"{ENVELOPE_NS}clientInfo": {"name": "memdir", "version": "0"},
                f"{ENVELOPE_NS}clientCapabilities": {}}
        found, tools = wire_replies(server, [{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}},
                                             {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}])
        table["modern"][v] = {"server/discover": found["result"], "tools/list": tools["result"]}
    return table


def write_light_table(path: str | Path | None = None) -> Path:
    """Write :func:`light_table` as JSON to ``path`` (default: the file the light loop reads,
    ``memdir/data/mcp_light.json``); returns the path. Run it after adding or changing a tool
    (``make mcp-table``); ``tests/test_mcp_fast_start.py`` fails until then."""
    import json

    from memdir.server.mcplight import TABLE_PATH

    out = Path(path or TABLE_PATH)
    out.write_text(json.dumps(light_table(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return out
