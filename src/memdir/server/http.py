"""What every HTTP door of memdir shares (``memdir serve``'s MCP endpoint, the viewer, the team API): the loopback
check, bearer-token and JSON-repair ASGI middleware, the serve options' check and the listening socket."""

from __future__ import annotations

import hmac
import ipaddress
import socket
from typing import Any

from memdir.errors import MemdirError, UsageError
from memdir.server.mcplight import repair_json_text  # noqa: F401  (re-exported: the HTTP doors repair bodies too)


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    h = host.strip().strip("[]").lower()
    if h in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def host_name(host_header: str) -> str:
    """The host of a ``Host`` header: ``"127.0.0.1:8766"`` → ``"127.0.0.1"``; ``"[::1]:80"`` → ``"::1"``. A port
    must be ASCII digits (or nothing): a header with anything else after the host (``127.0.0.1:80@evil.example``)
    comes back whole, which no loopback check accepts."""
    import re

    h = host_header.strip()
    m = re.fullmatch(r"\[([^\]]*)\](?::[0-9]*)?|([^:\[\]]*)(?::[0-9]*)?", h)
    if m is None:
        return h  # a bare IPv6 address (``::1``) is its own host; junk stays junk
    return m.group(1) if m.group(1) is not None else m.group(2)


class LoopbackOnly:
    """ASGI middleware for a loopback bind (which needs no token): a request whose ``Host`` is not a loopback name
    is refused (421: a page of another site whose name was pointed at this address, DNS rebinding), and one whose
    ``Origin`` is not a loopback origin (or is ``null``) too (403: a page of another site). The MCP SDK does this
    for ``127.0.0.1``, ``localhost`` and ``::1`` spelled so; a loopback bind spelled otherwise (``127.0.0.2``,
    ``LOCALHOST``) had no check. A client without an ``Origin`` (an MCP client, curl) passes."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        if not is_loopback(host_name(headers.get(b"host", ""))):
            return await _refuse(send, 421, "this server answers only to a loopback Host (127.0.0.1, localhost, [::1])")
        origin = headers.get(b"origin")
        if origin is not None:
            from urllib.parse import urlsplit

            try:
                parts = urlsplit(origin.strip())
                ok = parts.scheme in ("http", "https") and is_loopback(parts.hostname or "")
            except ValueError:
                ok = False
            if not ok:
                return await _refuse(send, 403, "refused: a request from another origin")
        return await self.app(scope, receive, send)


async def _refuse(send, status: int, message: str) -> None:
    import json

    body = json.dumps({"error": message}).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>`` (constant-time compare);
    otherwise 401 with a one-line JSON error. Lifespan and other scopes pass through."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        got = b""
        for name, value in scope.get("headers") or ():
            if name.lower() == b"authorization":
                got = value
                break
        scheme, _, cred = got.partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(cred.strip(), self._token):
            return await self.app(scope, receive, send)
        body = b'{"error": "unauthorized: send Authorization: Bearer <token> (memdir serve --token)"}'
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})


class RepairJsonBody:
    """ASGI middleware: a POST body's lone-surrogate escapes are repaired (:func:`repair_json_text`) before
    the SDK parses it, so such a request is answered instead of rejected (case C9 over HTTP). The repair
    keeps the body's length, so ``Content-Length`` stays right; bodies over 8 MiB pass through untouched."""

    LIMIT = 8 * 1024 * 1024

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http" or scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        queue: list[dict] = []
        size, more = 0, True
        while more and size <= self.LIMIT:
            msg = await receive()
            queue.append(msg)
            if msg.get("type") != "http.request":
                break
            size += len(msg.get("body", b""))
            more = bool(msg.get("more_body"))
        if not more and queue and all(m.get("type") == "http.request" for m in queue):
            body = b"".join(m.get("body", b"") for m in queue)
            if b"\\u" in body:
                text = body.decode("utf-8", "surrogateescape")
                fixed = repair_json_text(text)
                if fixed != text:
                    body = fixed.encode("utf-8", "surrogateescape")
            queue = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay():
            return queue.pop(0) if queue else await receive()

        await self.app(scope, replay, send)


def check_serve_options(host: str, token: str | None) -> None:
    """Raise ``UsageError`` when a non-loopback ``host`` has no ``token`` (or the token is too short)."""
    if token is not None and len(token.strip()) < 16:
        raise UsageError("--token must be at least 16 characters (try: python -c 'import secrets; print(secrets.token_urlsafe(24))')")
    if not is_loopback(host) and not token:
        raise UsageError(f"refusing to serve on {host}: a non-loopback host needs --token (or $MEMDIR_TOKEN)")


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0 = any free port). ``UsageError`` for a host that does not
    resolve; ``MemdirError`` (exit 1, not a usage error) when the address is taken or not allowed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"cannot resolve --host {host!r}: {exc.strerror}") from None
    family, stype, proto, _, addr = infos[0]
    sock = socket.socket(family, stype, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        import errno

        hint = (f" (another program, or another memdir serve / ui, uses port {port}: give another with --port, or "
                "--port 0 for any free one)") if exc.errno == errno.EADDRINUSE else ""
        raise MemdirError(f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}") from None
    sock.set_inheritable(True)
    return sock
