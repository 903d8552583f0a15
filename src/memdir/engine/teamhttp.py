"""Requests to the team server: their URLs (:func:`endpoint`), and one request waited for at most its timeout in
all (:func:`read`). urllib's ``timeout`` bounds each socket operation but not the name lookup before them
(``getaddrinfo``: a resolver that does not answer takes 5 s a try), so a push with a 250 ms budget could hold a hook
for seconds. The request runs in a daemon thread and the caller stops waiting at the timeout; an abandoned request
ends with its thread or the process (rows it delivers anyway are sent again later and stored once by the server's
keys). Requests to this machine skip the environment's proxy, others use it (:mod:`memdir.netproxy`); a failure
on the way through a proxy names it."""

from __future__ import annotations

import http.client
import io
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

import memdir.netproxy as netproxy
from memdir.engine import delivery
from memdir.urlmask import safe_url


def endpoint(url: str, project: str, what: str) -> str:
    """``<remote.url>/<project>/<what>`` with the project percent-encoded: it defaults to the clone's directory name,
    which may hold spaces, ``#``/``?`` or any script (the server decodes the path)."""
    return f"{url.rstrip('/')}/{urllib.parse.quote(project, safe='')}/{what}"


def without_userinfo(url: str) -> str:
    """``url`` without a ``user:password@``: memdir's login to the team server is the token, and urllib would take
    the userinfo for part of the host (``nonnumeric port: '<password>@host'``, an error line quoting the password)."""
    head, sep, rest = url.partition("://")
    # the userinfo is what the authority holds before its last "@"; the authority ends at the first "/", "?" or "#"
    # (RFC 3986 3.2): an "@" in the path (https://host/@team/v1) is no login
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    at = rest.rfind("@", 0, end)
    return f"{head}{sep}{rest[at + 1:]}" if sep and at >= 0 else url


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as what it is (:func:`answer_problem`): followed, it would take the token along to the
    address it names (a login page, another host, plain http)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def read(req: urllib.request.Request, timeout: float) -> bytes:
    """``urlopen(req)``'s whole body, or what it raised (``HTTPError``, ``URLError`` …); ``TimeoutError`` when it is
    not done within ``timeout`` seconds, name lookup included. An answer no team server gives — a web page (a captive
    portal, a network's login page, a proxy's block page), a body that is not JSON, a redirect, a proxy asking for a
    login — raises :class:`memdir.engine.delivery.NotTheServer`, one line saying what answered and what to do."""
    req.full_url = without_userinfo(req.full_url)
    box: dict = {}

    def run() -> None:
        try:
            with netproxy.opener(req.full_url, _NoRedirect).open(req, timeout=timeout) as resp:
                box["body"], box["type"] = resp.read(), resp.headers.get_content_type()
        except urllib.error.HTTPError as exc:  # its body read here too: a server dripping it is bounded by the join
            try:
                box["error_body"] = exc.read(65536)
            except (OSError, http.client.HTTPException):
                box["error_body"] = b""
            box["exc"] = exc
        except BaseException as exc:  # noqa: BLE001  (re-raised in the caller's thread)
            box["exc"] = exc

    t = threading.Thread(target=run, daemon=True, name="memdir-remote-request")
    t.start()
    t.join(timeout)
    via = netproxy.via(req.full_url)
    if t.is_alive():
        raise TimeoutError(f"timed out{via}")
    exc = box.get("exc")
    if exc is None:
        problem = answer_problem(req.full_url, 200, box["type"], box["body"], None, via)
        if problem:
            raise delivery.NotTheServer(problem)
        return box["body"]
    if isinstance(exc, urllib.error.HTTPError):
        body = box.get("error_body", b"")
        ctype = exc.headers.get_content_type() if exc.headers else ""
        problem = answer_problem(req.full_url, exc.code, ctype, body, exc.headers, via)
        if problem:
            raise delivery.NotTheServer(problem) from None
        raise urllib.error.HTTPError(exc.url, exc.code, exc.msg, exc.headers, io.BytesIO(body)) from None
    if via and isinstance(exc, OSError):
        # the proxy refused, timed out or does not resolve: said, so the user looks at the proxy, not the server
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
            raise TimeoutError(f"timed out{via}") from None
        raise urllib.error.URLError(f"{reason}{via}") from None
    raise exc


#: 4xx answers about the request rather than its rows: the token (401, 403), the route (404, 405: a remote.url
#: missing ``/v1``), the clock or the rate (408, 429). Their rows stay queued and back off, as after a 5xx.
NOT_ABOUT_THE_ROWS = frozenset({401, 403, 404, 405, 407, 408, 421, 425, 429})


def refuses_rows(code: int) -> bool:
    """Whether an HTTP status says the server refused the rows themselves (sending them again cannot help)."""
    return 400 <= code < 500 and code not in NOT_ABOUT_THE_ROWS


def answer_problem(url: str, code: int, ctype: str, body: bytes, headers, via: str) -> str | None:
    """Why an answer to ``url`` is none a team server gives (``reason; fix: …``, one line), or ``None``: a redirect,
    a proxy's 407, a web page (HTML) with any status but one about the rows (:func:`refuses_rows`: a reverse proxy's
    413 page for a batch too large is answered as that status, so a push splits the batch), a 2xx body that is not
    JSON."""
    shown = safe_url(url)
    if refuses_rows(code):
        return None
    if 300 <= code < 400:
        loc = (headers.get("Location") if headers else None) or ""
        parts = urllib.parse.urlsplit(urllib.parse.urljoin(url, loc.strip()))
        to = safe_url(urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))) if loc else "elsewhere"
        return (f"{shown} answered HTTP {code}, a redirect to {to} (not followed: the token would go along); fix: if "
                "that is a network's sign-in page, sign in in a browser; else set remote.url to the address it leads "
                "to, up to /v1")
    if code == 407:
        return (f"a proxy asks for a login (HTTP 407){via}; fix: put the proxy's user:password@ in HTTPS_PROXY / "
                "HTTP_PROXY, or name the team server's host in NO_PROXY")
    head = body.lstrip()[:1]
    if ctype in ("text/html", "application/xhtml+xml") or head == b"<":
        m = re.search(rb"<title[^>]*>([^<]{1,200})", body[:65536], re.I)
        title = " ".join(m.group(1).decode("utf-8", "replace").split())[:80] if m else ""
        return (f"{shown} answered a web page (HTTP {code}{', ' + repr(title) if title else ''}), not the team "
                f"server's JSON: a captive portal, a network's login or block page, or another site{via}; fix: sign "
                "in to the network in a browser (or ask for the host to be let through), or set remote.url to the "
                "team server's API, ending in /v1")
    if 200 <= code < 300 and body.strip():
        try:
            json.loads(body)
        except ValueError:
            return (f"{shown} answered HTTP {code} with something that is not JSON ({ctype or 'no content type'}): "
                    "not a memdir team server; fix: set remote.url to the team server's API, ending in /v1 "
                    "(memdir serve --store …)")
    return None
