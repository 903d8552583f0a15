"""The viewer's door: the same Host / Origin / token protections as ``memdir serve``, for a browser.

:class:`Guard` is ASGI middleware in front of the pages. For each HTTP request, in order:

1. **Host** — when bound to a loopback address, the ``Host`` header must name a loopback host
   (``127.0.0.1``, ``localhost``, ``[::1]``), so a page on another site cannot reach the viewer by pointing a
   DNS name at 127.0.0.1 (DNS rebinding) → 421.
2. **Origin** — a request a browser marks as coming from another site (``Sec-Fetch-Site: cross-site`` or
   ``same-site``), or whose ``Origin`` is not this server's own origin, is refused → 403. A request that can
   change something (any method but GET/HEAD) must carry a matching ``Origin`` (or ``Referer``).
3. **Token** — when a token is set (required for a non-loopback bind, as for ``serve``), every request needs
   it: ``Authorization: Bearer <token>``, or the ``memdir_ui_token`` cookie. Opening any page with
   ``?token=<token>`` sets that cookie (HttpOnly, SameSite=Strict) and redirects to the same URL without the
   token, so the token is not kept in the address bar or history → 401 otherwise.

Every answer also carries headers that keep it out of other sites' frames and scripts (CSP ``default-src
'self'``, ``frame-ancestors 'none'``, ``X-Frame-Options: DENY``, ``nosniff``, ``Referrer-Policy: same-origin``).
Comparisons of the token are constant-time.
"""

from __future__ import annotations

import hmac
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from memdir.server.http import host_name, is_loopback

COOKIE = "memdir_ui_token"
SAFE_METHODS = ("GET", "HEAD")
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'none'; "
                                 b"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


def local_path(path: str) -> str:
    """``path`` as a link or redirect that stays on this server: a request path that starts with two slashes or a
    backslash (``//evil.example/x``, ``/\\evil.example/x``; a browser reads ``\\`` as ``/``) names another host
    when it is put in an ``href`` or a ``Location``, so its leading slashes and backslashes become one slash."""
    import re
    from urllib.parse import quote

    # a browser drops tabs and line breaks from a URL (/%09/evil.example is //evil.example to it), and a raw line
    # break in a Location header is a header of its own
    rest = re.sub(r"^[\s/\\\x00-\x1f\x7f]+", "", path)
    return "/" + quote(rest, safe="/:@!$&'()*+,;=-._~%")


_host_name = host_name  # ``"127.0.0.1:8766"`` → ``"127.0.0.1"``; ``"[::1]:80"`` → ``"::1"``


class Guard:
    """ASGI middleware; ``bound_host`` is the address the server listens on, ``token`` the shared secret (or
    ``None``; then a non-loopback ``bound_host`` is refused at construction, as ``serve`` does)."""

    def __init__(self, app: Any, *, bound_host: str = "127.0.0.1", token: str | None = None):
        from memdir.server.http import check_serve_options

        check_serve_options(bound_host, token)
        self.app = app
        self.loopback = is_loopback(bound_host)
        self._token = token.encode("utf-8") if token else None
        # the log-in cookie holds a value derived from the token, not the token: browsers send a host's cookies to
        # every port of it, and under `memdir serve` the token is the MCP endpoint's bearer token too
        self._cookie = hmac.new(self._token, b"memdir-ui-cookie", "sha256").hexdigest().encode() if token else None
        self._codes: dict[str, float] = {}  # one-time log-in codes (login_code) and when each expires

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        host = headers.get("host", "")
        method = scope.get("method", "GET").upper()

        if self.loopback and not is_loopback(_host_name(host)):
            return await _deny(send, 421, "this viewer answers only to 127.0.0.1 / localhost (Host header refused)")
        own = f"{scope.get('scheme', 'http')}://{host}"
        site = headers.get("sec-fetch-site")
        if site in ("cross-site", "same-site"):
            return await _deny(send, 403, "refused: the request came from another site")
        origin = headers.get("origin")
        if origin is not None and origin != "null" and origin.rstrip("/") != own:
            return await _deny(send, 403, "refused: another origin")
        if method not in SAFE_METHODS:
            ref = headers.get("referer")
            ok = (origin is not None and origin.rstrip("/") == own) or (origin is None and ref is not None and _same_origin(ref, own))
            if not ok:
                return await _deny(send, 403, "refused: a change needs a same-origin Origin header")

        if self._token is not None:
            query = scope.get("query_string", b"").decode("latin-1")
            pairs = parse_qsl(query, keep_blank_values=True)
            given = next((v for k, v in pairs if k == "token"), None)
            code = next((v for k, v in pairs if k == "code"), None)
            if (given is not None or code is not None) and method in SAFE_METHODS:
                if given is not None and not hmac.compare_digest(given.encode("utf-8"), self._token):
                    return await _deny(send, 401, "unauthorized: wrong token")
                if given is None and not self._use_code(code or ""):
                    return await _deny(send, 401, "unauthorized: this log-in link was used already or has expired; "
                                                  "open the URL the viewer printed (with ?token=…)")
                rest = urlencode([(k, v) for k, v in pairs if k not in ("token", "code")])
                location = local_path(scope.get("root_path", "") + scope.get("path", "/")) + (f"?{rest}" if rest else "")
                cookie = f"{cookie_name(host)}={self._cookie.decode()}; HttpOnly; SameSite=Strict; Path=/"
                return await _redirect(send, location, cookie)
            if not self._authorized(headers, cookie_name(host)):
                return await _deny(send, 401, "unauthorized: open the URL with ?token=… once, or send Authorization: Bearer <token>")

        async def send_with_headers(message):
            if message.get("type") == "http.response.start":
                message = {**message, "headers": list(message.get("headers") or []) + SECURITY_HEADERS}
            await send(message)

        return await self.app(scope, receive, send_with_headers)

    def login_code(self, ttl: float = 120.0) -> str:
        """A log-in code good for one use within ``ttl`` seconds: ``?code=…`` logs a browser in as ``?token=…`` does.
        What the viewer opens the browser with: a browser's command line (``ps`` shows it to every user) holds this,
        not the token."""
        import secrets
        import time

        code = secrets.token_urlsafe(18)
        self._codes[code] = time.monotonic() + ttl
        return code

    def _use_code(self, code: str) -> bool:
        import time

        now = time.monotonic()
        for c in [c for c, until in self._codes.items() if until < now]:
            del self._codes[c]
        for c in list(self._codes):
            if hmac.compare_digest(c.encode(), code.encode()):
                del self._codes[c]  # once
                return True
        return False

    def _authorized(self, headers: dict[str, str], name: str = COOKIE) -> bool:
        assert self._token is not None
        scheme, _, cred = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(cred.strip().encode("utf-8"), self._token):
            return True
        raw = headers.get("cookie")
        if raw:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(raw)
            except Exception:  # noqa: BLE001 — a malformed cookie header is just "no token"
                return False
            got = jar.get(name)
            if got is not None and self._cookie is not None and hmac.compare_digest(got.value.encode("utf-8"), self._cookie):
                return True
        return False


def cookie_name(host_header: str) -> str:
    """The log-in cookie's name for a server reached at ``host_header``: :data:`COOKIE` and the port
    (``memdir_ui_token_8766``). Browsers keep cookies per host, not per port: with one name, two servers on one
    host with their own tokens logged each other out (the cookie holds a value derived from the token, so what
    other ports of the host receive is no token)."""
    h = host_header.strip()
    tail = h.rsplit("]", 1)[-1] if h.startswith("[") else h
    port = tail.rsplit(":", 1)[1] if ":" in tail else ""
    return f"{COOKIE}_{port}" if port.isdigit() else COOKIE


def _same_origin(url: str, own: str) -> bool:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}" == own


async def _deny(send, status: int, message: str) -> None:
    body = (f"<!doctype html><meta charset=utf-8><title>memdir</title><p>{message}</p>\n").encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send, location: str, cookie: str) -> None:
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode("utf-8")), (b"set-cookie", cookie.encode("latin-1")),
                            (b"content-length", b"0"), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": b""})
