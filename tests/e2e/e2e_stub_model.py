"""A scripted model on 127.0.0.1 for the end-to-end suite: it speaks the three wire formats the hosts use
(Anthropic Messages, OpenAI Responses, OpenAI Chat Completions; streamed as SSE or plain JSON) and logs every
request body as one JSON line ``{"path", "body", "t"}`` to ``log_path``.

Script of one turn, decided from the request alone (so any host, any retry, gets the same answer):

* no tools offered (title generation, summaries, quota probes) → a short final text;
* the last message is a tool result → the final text ``FINAL_TEXT``;
* otherwise → one tool call: the shell tool with ``echo hello`` or, when the user prompt contains
  ``MCP_MARK``, memdir's ``memory_recall`` MCP tool with the query ``deploy`` (as soon as the host offers it:
  Claude Code is first asked to ``WaitForMcpServers``, a host still connecting gets a shell call first).

Run: ``python e2e_stub_model.py LOG_PATH`` prints ``PORT`` on stdout and serves until killed.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "Deployment answer: run make ship from the repo root; the shell said hello."
TITLE_TEXT = "Deploy question"
MCP_MARK = "[use-memory-tool]"
SHELL_COMMAND = "echo hello"
#: a memdir distillation prompt (memdir.distill.flow.build_prompt ends with it) is answered with DISTILL_REPLY, whatever
#: tools are offered (test_distill_e2e sets the reply)
DISTILL_MARK = "Reply with the JSON object only."
DISTILL_REPLY = '{"version": 1, "memories": []}'


# ---- reading a request -----------------------------------------------------------------------------------
def tool_names(body: dict[str, Any]) -> list[str]:
    """Every tool name offered; a Responses ``namespace`` tool (Codex's MCP servers) gives ``<ns>.<name>``."""
    out = []
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        name = t.get("name") or (t.get("function") or {}).get("name")
        if t.get("type") == "namespace" and isinstance(t.get("tools"), list):
            out += [f"{name}.{sub.get('name')}" for sub in t["tools"] if isinstance(sub, dict)]
        elif name:
            out.append(name)
    return out


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(c.get("text") if isinstance(c, dict) and "text" in c else
                                  c.get("content") if isinstance(c, dict) else c) for c in content if c is not None)
    return ""


def last_is_tool_result(path: str, body: dict[str, Any]) -> bool:
    if path.endswith("/responses"):
        items = body.get("input") or []
        last = items[-1] if isinstance(items, list) and items else {}
        return isinstance(last, dict) and last.get("type") in ("function_call_output", "custom_tool_call_output",
                                                               "mcp_tool_call_output", "local_shell_call_output")
    msgs = body.get("messages") or []
    if not msgs:
        return False
    last = msgs[-1]
    if last.get("role") == "tool":
        return True
    content = last.get("content")
    return isinstance(content, list) and any(isinstance(c, dict) and c.get("type") == "tool_result" for c in content)


def user_texts(path: str, body: dict[str, Any]) -> list[str]:
    """Every user-role text of the request (Responses ``input`` items or chat ``messages``)."""
    items = body.get("input") if path.endswith("/responses") else body.get("messages")
    out = []
    for it in items or []:
        if isinstance(it, dict) and it.get("role") == "user":
            out.append(_text_of(it.get("content")))
    return out


def pick_tool(path: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    names = tool_names(body)
    prompt = "\n".join(user_texts(path, body))
    if MCP_MARK in prompt:
        for n in names:
            if n.endswith("memory_recall"):
                return n, {"query": "deploy"}
        if "WaitForMcpServers" in names and "WaitForMcpServers" not in json.dumps(body.get("messages") or []):
            return "WaitForMcpServers", {"servers": ["memdir"]}  # Claude Code: MCP servers still connecting
    for n in ("Bash", "bash", "shell", "exec_command", "shell_command", "local_shell"):
        if n in names:
            if n == "exec_command":
                return n, {"cmd": SHELL_COMMAND}
            if n == "shell":
                return n, {"command": ["bash", "-lc", SHELL_COMMAND]}
            if n == "shell_command":
                return n, {"command": SHELL_COMMAND}
            if n == "bash":
                return n, {"command": SHELL_COMMAND, "description": "Print hello"}
            return n, {"command": SHELL_COMMAND, "description": "Print hello"}
    return None


def memory_tool_called(body: dict[str, Any]) -> bool:
    """True when the conversation already holds a call of a ``…memory_recall`` tool."""
    return "memory_recall" in json.dumps([it for it in (body.get("input") or body.get("messages") or [])
                                          if isinstance(it, dict) and (it.get("type") == "function_call"
                                                                       or it.get("role") == "assistant")])


def decide(path: str, body: dict[str, Any]) -> tuple[str, Any]:
    """``("text", str)`` or ``("tool", (name, args))`` for this request. A host that connects MCP servers
    while the first request is already out gets the memory tool call on its next turn."""
    if DISTILL_MARK in "\n".join(user_texts(path, body)):
        return "text", DISTILL_REPLY
    if not tool_names(body):
        return "text", TITLE_TEXT
    if last_is_tool_result(path, body):
        if MCP_MARK in "\n".join(user_texts(path, body)) and not memory_tool_called(body):
            tool = pick_tool(path, body)
            if tool and (tool[0].endswith("memory_recall") or tool[0] == "WaitForMcpServers"):
                return "tool", tool
        return "text", FINAL_TEXT
    tool = pick_tool(path, body)
    return ("tool", tool) if tool else ("text", FINAL_TEXT)


# ---- writing an answer -----------------------------------------------------------------------------------
def _sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> bytes:
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out).encode()


def anthropic(body: dict[str, Any], kind: str, value: Any) -> tuple[bytes, str]:
    mid = "msg_" + uuid.uuid4().hex[:20]
    model = body.get("model", "stub")
    usage = {"input_tokens": 10, "output_tokens": 5}
    if kind == "tool":
        name, args = value
        block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name, "input": args}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": value}
        stop = "end_turn"
    if not body.get("stream"):
        return json.dumps({"id": mid, "type": "message", "role": "assistant", "model": model, "content": [block],
                           "stop_reason": stop, "stop_sequence": None, "usage": usage}).encode(), "application/json"
    start = {**block, "input": {}} if kind == "tool" else {"type": "text", "text": ""}
    delta = ({"type": "input_json_delta", "partial_json": json.dumps(value[1])} if kind == "tool"
             else {"type": "text_delta", "text": value})
    ev = [("message_start", {"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant",
                                                                   "model": model, "content": [], "stop_reason": None,
                                                                   "stop_sequence": None, "usage": usage}}),
          ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
          ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
          ("content_block_stop", {"type": "content_block_stop", "index": 0}),
          ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                             "usage": {"output_tokens": 5}}),
          ("message_stop", {"type": "message_stop"})]
    return _sse(ev), "text/event-stream"


def responses(body: dict[str, Any], kind: str, value: Any) -> tuple[bytes, str]:
    rid = "resp_" + uuid.uuid4().hex[:20]
    if kind == "tool":
        name, args = value
        ns, _, short = name.rpartition(".")
        item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:16], "call_id": "call_" + uuid.uuid4().hex[:16],
                "name": short, "arguments": json.dumps(args), "status": "completed", **({"namespace": ns} if ns else {})}
    else:
        item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:16], "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": value, "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    resp = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "completed",
            "model": body.get("model", "stub"), "output": [item], "usage": usage}
    ev: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created", "response": {**resp, "status": "in_progress", "output": []}})]
    ev.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}))
    if kind == "text":
        ev.append(("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                   "output_index": 0, "content_index": 0, "delta": value}))
    ev.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}))
    ev.append(("response.completed", {"type": "response.completed", "response": resp}))
    return _sse(ev), "text/event-stream"


def chat(body: dict[str, Any], kind: str, value: Any) -> tuple[bytes, str]:
    cid = "chatcmpl-" + uuid.uuid4().hex[:20]
    base = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": body.get("model", "stub")}
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if kind == "tool":
        name, args = value
        call = {"index": 0, "id": "call_" + uuid.uuid4().hex[:16], "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}
        delta, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        message = {"role": "assistant", "content": None, "tool_calls": [{k: v for k, v in call.items() if k != "index"}]}
    else:
        delta, finish = {"role": "assistant", "content": value}, "stop"
        message = {"role": "assistant", "content": value}
    if not body.get("stream"):
        return json.dumps({**base, "object": "chat.completion", "usage": usage,
                           "choices": [{"index": 0, "message": message, "finish_reason": finish}]}).encode(), "application/json"
    ev = [(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
          (None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage}),
          (None, "[DONE]")]
    return _sse(ev), "text/event-stream"


class Handler(BaseHTTPRequestHandler):
    log_path = "requests.jsonl"
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, code: int, data: bytes, ctype: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True

    def _record(self, body: Any) -> None:
        with self.lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"path": self.path, "method": self.command, "body": body, "t": time.time()}) + "\n")

    def do_GET(self):  # noqa: N802 - model lists and probes
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            return self._send(200, json.dumps({"object": "list", "data": [{"id": "stub-model", "object": "model"}],
                                               "models": []}).encode(), "application/json")
        self._send(404, b'{"error": "not found"}', "application/json")

    def do_HEAD(self):  # noqa: N802
        self._send(200, b"", "text/plain")

    def do_POST(self):  # noqa: N802
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        self._record(body)
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/count_tokens"):
            return self._send(200, b'{"input_tokens": 100}', "application/json")
        if not isinstance(body, dict):
            return self._send(400, b'{"error": "bad body"}', "application/json")
        kind, value = decide(path, body)
        if path.endswith("/messages"):
            data, ctype = anthropic(body, kind, value)
        elif path.endswith("/responses"):
            data, ctype = responses(body, kind, value)
        elif path.endswith("/chat/completions"):
            data, ctype = chat(body, kind, value)
        else:
            return self._send(404, b'{"error": "not found"}', "application/json")
        self._send(200, data, ctype)


def serve(log_path: str, port: int = 0) -> ThreadingHTTPServer:
    """Start the stub in a daemon thread; returns the server (``server.server_address[1]`` is the port)."""
    handler = type("H", (Handler,), {"log_path": log_path})
    srv = ThreadingHTTPServer(("127.0.0.1", port), handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


if __name__ == "__main__":
    s = serve(sys.argv[1])
    print(s.server_address[1], flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
