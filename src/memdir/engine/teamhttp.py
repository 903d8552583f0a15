"""Requests to the team server: their URLs (:func:`endpoint`), and one request waited for at most its timeout in
all (:func:`read`). urllib's ``timeout`` bounds each socket operation but not the name lookup before them
(``getaddrinfo``: a resolver that does not answer takes 5 s a try), so a push with a 250 ms budget could hold a hook
for seconds. The request runs in a daemon thread and the caller stops waiting at the timeout; an abandoned request
ends with its thread or the process (rows it delivers anyway are sent again later and stored once by the server's
keys). Requests to this machine skip the environment's proxy, others use it (:mod:`memdir.netproxy`); a failure
on the way through a proxy names it."""

from __future__ import annotations

import threading
import urllib.error
import urllib.parse
import urllib.request

import memdir.netproxy as netproxy


def endpoint(url: str, project: str, what: str) -> str:
    """``<remote.url>/<project>/<what>`` with the project percent-encoded: it defaults to the clone's directory name,
    which may hold spaces, ``#``/``?`` or any script (the server decodes the path)."""
    return f"{url.rstrip('/')}/{urllib.parse.quote(project, safe='')}/{what}"


def without_userinfo(url: str) -> str:
    """``url`` without a ``user:password@``: memdir's login to the team server is the token, and urllib would take
    the userinfo for part of the host (``nonnumeric port: '<password>@host'``, an error line quoting the password)."""
    head, sep, rest = url.partition("://")
    # to the last "@", as memdir.urlmask reads it: a "/" or "@" typed unencoded in the password included
    return f"{head}{sep}{rest.rpartition('@')[2]}" if sep and "@" in rest else url


def read(req: urllib.request.Request, timeout: float) -> bytes:
    """``urlopen(req)``'s whole body, or what it raised (``HTTPError``, ``URLError`` …); ``TimeoutError`` when it is
    not done within ``timeout`` seconds, name lookup included."""
    req.full_url = without_userinfo(req.full_url)
    box: dict = {}

    def run() -> None:
        try:
            with netproxy.opener(req.full_url).open(req, timeout=timeout) as resp:
                box["body"] = resp.read()
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
        return box["body"]
    if via and isinstance(exc, OSError) and not isinstance(exc, urllib.error.HTTPError):
        # the proxy refused, timed out or does not resolve: said, so the user looks at the proxy, not the server
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
            raise TimeoutError(f"timed out{via}") from None
        raise urllib.error.URLError(f"{reason}{via}") from None
    raise exc
