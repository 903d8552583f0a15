"""A stub chat model on 127.0.0.1 for the distillation tests: it answers OpenAI ``/v1/chat/completions`` and
Anthropic ``/v1/messages`` with recorded replies, one per request, in order, and records every request body.

A reply is a string (the model's text), ``Stall()`` (hold the request until the stub closes — a timeout for a
client with a shorter limit) or ``Status(code)`` (an HTTP error). After the list is used up every request
gets :data:`EMPTY` (``{"version": 1, "memories": []}``).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EMPTY = json.dumps({"version": 1, "memories": []})


@dataclass
class Stall:
    seconds: float = 10.0


@dataclass
class Status:
    code: int = 500


def memories(*items: dict[str, Any]) -> str:
    return json.dumps({"version": 1, "memories": list(items)}, ensure_ascii=False)


class StubModel:
    def __init__(self, replies: list[Any] | None = None):
        self.replies = list(replies or [])
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._release = threading.Event()
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):  # noqa: N802
                n = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                with stub._lock:
                    stub.requests.append(body)
                    stub.paths.append(self.path)
                    reply = stub.replies.pop(0) if stub.replies else EMPTY
                if isinstance(reply, Stall):
                    stub._release.wait(reply.seconds)
                    return self._send(200, {"choices": []})
                if isinstance(reply, Status):
                    return self._send(reply.code, {"error": {"message": "stub error"}})
                if self.path.endswith("/messages"):
                    return self._send(200, {"type": "message", "role": "assistant",
                                            "content": [{"type": "text", "text": reply}]})
                return self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]})

            def _send(self, code: int, obj: Any) -> None:
                data = json.dumps(obj).encode()
                try:
                    self.send_response(code)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def prompts(self) -> list[str]:
        """Every request's messages as one text (system + user), for assertions."""
        out = []
        for b in self.requests:
            parts = [b.get("system") or ""] + [m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                                                for m in b.get("messages", [])]
            out.append("\n".join(parts))
        return out

    def close(self) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "StubModel":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
