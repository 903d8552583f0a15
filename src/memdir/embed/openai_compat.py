"""The ``openai`` provider: any OpenAI-compatible ``POST /v1/embeddings`` endpoint (OpenAI, SiliconFlow
bge-m3, Ollama, a local server), with the standard library's ``urllib`` (no extra dependency).

Request body ``{"model", "input": [texts], "dimensions"?}``; response ``{"data": [{"index", "embedding"}]}``, one
finite, non-zero vector of one length per text (:func:`vectors`; anything else is an ``EmbedError``, never stored).
Texts are cut to ``embed.max_chars`` characters and sent ``embed.batch`` at a time; each request has a timeout
of ``embed.timeout_s`` seconds (seed 001: 6 s) and is retried ``embed.retries`` times after a timeout, a
connection error, HTTP 429 or 5xx, with back-off 0.5 s · 2^attempt, all within the caller's deadline when it
set one (recall does: ``embed.recall_deadline_ms``). A 429/503 with ``Retry-After`` and a call that fails every try
open the circuit breaker (:mod:`memdir.embed.breaker`): until its cool-down ends no process asks the endpoint, and
recall answers from the lexical channel at once. The key is read from the environment
variable named by ``embed.api_key_env``, else from that name in ``<global root>/.env`` (:mod:`memdir.envfile`;
never from a file we write).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Sequence

import memdir.netproxy as netproxy
from memdir.embed import EmbedError, cap
from memdir.embed.breaker import Breaker, retry_after
from memdir.urlmask import safe_url, scrub

MIN_TRY_S = 0.05  # a request with less time than this left is not sent


class OpenAICompatProvider:
    name = "openai"

    def __init__(self, url: str, model: str = "", *, api_key: str | None = None, dim: int = 0, timeout_s: float = 6.0,
                 batch: int = 64, retries: int = 2, max_chars: int = 2000, sleep: Callable[[float], None] = time.sleep,
                 home: str | os.PathLike | None = None):
        if not url.startswith(("http://", "https://")):
            raise EmbedError(f"embed.url {safe_url(url)!r} is not an http(s) URL")
        #: the endpoint as messages, the log and the circuit breaker's file name it: its password masked
        self.where = safe_url(url)
        self.url, self.model_name, self.api_key, self.dim = url, model or "text-embedding-3-small", api_key, dim
        self.timeout_s, self.batch, self.retries, self.max_chars, self._sleep = timeout_s, batch, retries, max_chars, sleep
        self.model = f"openai:{self.model_name}" + (f":{dim}" if dim else "")
        self.breaker = Breaker(home)
        #: a ``time.monotonic()`` instant after which no call waits any more (set by :func:`memdir.embed.deadline`)
        self.deadline: float | None = None

    @classmethod
    def from_config(cls, config: Any) -> "OpenAICompatProvider":
        from memdir.envfile import lookup

        home = getattr(config, "home", None)
        key, _ = lookup(config.get("embed.api_key_env"), home)
        return cls(config.get("embed.url"), config.get("embed.model"), api_key=key,
                   dim=config.get("embed.dim"), timeout_s=config.get("embed.timeout_s"), batch=config.get("embed.batch"),
                   retries=config.get("embed.retries"), max_chars=config.get("embed.max_chars"), home=home)

    def left(self) -> float | None:
        """Seconds left before :attr:`deadline` (``None``: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _post(self, texts: list[str]) -> Any:
        down = self.breaker.open_reason(self.where)
        if down:  # asked again only when it may be (Retry-After) or after the cool-down
            raise EmbedError(down)
        body: dict[str, Any] = {"model": self.model_name, "input": texts}
        if self.dim:
            body["dimensions"] = self.dim
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode("utf-8")
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                pause = 0.5 * 2 ** (attempt - 1)
                left = self.left()
                if left is not None and left <= pause + MIN_TRY_S:
                    break
                self._sleep(pause)
            left = self.left()
            if left is not None and left < MIN_TRY_S:
                last = last or "no time left"
                break
            timeout = self.timeout_s if left is None else min(self.timeout_s, left)
            req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            end = time.monotonic() + timeout  # the whole attempt, headers included, not each read
            try:
                mat = vectors(_fetch(req, timeout, end), len(texts), self.where)
                self.breaker.close(self.where)
                return mat
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                wait = retry_after(exc.headers.get("Retry-After") if exc.headers else None)
                if exc.code in (429, 503) and wait is not None:  # the server says when: never before
                    cool = self.breaker.trip(self.where, f"{last}, Retry-After {wait:.0f} s", retry_after_s=wait)
                    # the wait applied (a Retry-After of years is capped at the longest cool-down), not the header's
                    raise EmbedError(f"{self.where} answered {last}; asked again in {cool:.0f} s") from None
                if exc.code != 429 and exc.code < 500:
                    hint = " (check the API key: embed.api_key_env)" if exc.code in (401, 403) else ""
                    if 300 <= exc.code < 400:
                        hint = _redirect_hint(self.url, exc.headers.get("Location") if exc.headers else None)
                    raise EmbedError(f"{self.where} answered {last}{hint}") from None
            except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException) as exc:
                # a garbage status line or a body cut off is a failure of the connection, as a reset is; the
                # server's bytes in it may hold line ends, and the warning is one line
                last = " ".join(scrub(str(getattr(exc, "reason", exc)), self.url).split())[:200] or type(exc).__name__
                if isinstance(exc, http.client.HTTPException):
                    last = f"a broken HTTP reply ({type(exc).__name__}: {last})"
            except (ValueError, KeyError, TypeError) as exc:
                raise EmbedError(f"{self.where} returned an unexpected body ({type(exc).__name__}: {exc})") from None
        cool = self.breaker.trip(self.where, last or "failed")
        fix = netproxy.tls_fix(last)
        raise EmbedError(f"{self.where} failed after {attempt + 1} tries: {last}{netproxy.via(self.url)}; not asked "
                         f"again for {cool:.0f} s" + (f"; fix: {fix}" if fix else ""))

    def embed(self, texts: Sequence[str]):
        """``texts`` (n) -> float32 ``(n, dim)`` unit rows, in batches. Raises ``EmbedError`` (the endpoint failed,
        is in its cool-down, or the deadline passed)."""
        import numpy as np

        texts = cap(texts, self.max_chars)
        parts = [self._post(texts[i:i + self.batch]) for i in range(0, len(texts), self.batch)]
        if not parts:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        lengths = sorted({p.shape[1] for p in parts})
        if len(lengths) > 1:  # the model changed under us between two batches
            raise EmbedError(f"{self.where} returned vectors of length {' and '.join(map(str, lengths))} in one run; "
                             "try again (a new length is re-embedded by memdir backfill)")
        return np.vstack(parts)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as the error it is: urllib would send the texts, and the key in the Authorization
    header it keeps, to whatever address the reply names (another host, or plain http)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class _Cutoff:
    """Shuts a request's socket down at ``end`` (``time.monotonic()``). The socket's timeout bounds each read only:
    a server sending its status line and headers a byte at a time would hold a recall (and a hook) for minutes."""

    def __init__(self, end: float):
        self.end, self.fired, self.socks, self.timer = end, False, [], None

    def bind(self, cls: Any) -> Callable[..., Any]:
        """``cls`` (an ``http.client`` connection class) whose sockets this cutoff shuts at its end."""
        def make(host: str, **kw: Any) -> Any:
            conn = cls(host, **kw)
            conn._create_connection = self.connect
            return conn
        return make

    def connect(self, *args: Any, **kw: Any) -> socket.socket:
        sock = socket.create_connection(*args, **kw)
        self.socks.append(sock)
        if self.timer is None:
            self.timer = threading.Timer(max(0.0, self.end - time.monotonic()), self.fire)
            self.timer.daemon = True
            self.timer.start()
        return sock

    def fire(self) -> None:
        self.fired = True
        for sock in self.socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # a read blocked in another thread returns at once
            except OSError:
                pass

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


class _HTTP(urllib.request.HTTPHandler):
    def __init__(self, cutoff: _Cutoff):
        super().__init__()
        self.cutoff = cutoff

    def do_open(self, http_class, req, **kw):
        return super().do_open(self.cutoff.bind(http_class), req, **kw)


class _HTTPS(urllib.request.HTTPSHandler):
    def __init__(self, cutoff: _Cutoff):
        super().__init__()
        self.cutoff = cutoff

    def do_open(self, http_class, req, **kw):
        return super().do_open(self.cutoff.bind(http_class), req, **kw)


def _fetch(req: urllib.request.Request, timeout: float, end: float) -> Any:
    """The JSON body of ``req``'s reply, the whole exchange (connect, headers, body) done by ``end``; past it
    ``TimeoutError``. A redirect is an ``HTTPError`` (:class:`_NoRedirect`)."""
    cutoff = _Cutoff(end)
    try:
        # the environment's proxy (HTTPS_PROXY …), but never for an endpoint on this machine (Ollama's default)
        with netproxy.opener(req.full_url, _NoRedirect, _HTTP(cutoff), _HTTPS(cutoff)).open(req, timeout=timeout) as resp:
            return json.loads(_read_within(resp, end).decode("utf-8"))
    except Exception:
        if cutoff.fired:  # what the shut socket made of the reply (reset, cut body) is the timeout it stands for
            raise TimeoutError("the reply came too slowly") from None
        raise
    finally:
        cutoff.cancel()


def _redirect_hint(url: str, location: str | None) -> str:
    """Where a redirect leads, for the error line: its query (which may carry a key) and any password left out."""
    if not location:
        return ", a redirect"
    parts = urllib.parse.urlsplit(urllib.parse.urljoin(url, location.strip()))
    to = safe_url(urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))
    return f", a redirect to {to}: set embed.url to that address if it is the endpoint"


def vectors(payload: Any, n: int, where: str) -> Any:
    """The ``n`` embeddings of a reply body, in the order of the texts, as float32 unit rows ``(n, dim)``.

    Raises ``EmbedError`` unless the body is one vector per text: ``data`` a list of ``n`` objects whose ``index``
    fields are 0..n-1 once each (or all absent: the list's order), each ``embedding`` the same number of finite
    numbers, not all zero. A NaN or zero vector stored as embedded would match nothing, and stay so for good."""
    import numpy as np

    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise EmbedError(f'{where} returned an unexpected body (no list of {{"index", "embedding"}} objects)')
    if len(data) != n:
        raise EmbedError(f"{where} returned {len(data)} embeddings for {n} texts")
    index = [d.get("index") for d in data]
    if any(i is not None for i in index):
        if sorted(i if type(i) is int else -1 for i in index) != list(range(n)):
            raise EmbedError(f'{where} returned embeddings whose "index" fields are not 0 to {n - 1} once each')
        data = sorted(data, key=lambda d: d["index"])
    try:
        with np.errstate(all="ignore"):  # overflow is refused below, not printed as a warning
            mat = np.asarray([d.get("embedding") for d in data], dtype=np.float64)
            norms = np.linalg.norm(mat, axis=-1, keepdims=True) if mat.ndim == 2 else None
    except (ValueError, TypeError):
        mat, norms = None, None
    if mat is None or norms is None or mat.shape[1] == 0:
        raise EmbedError(f"{where} returned embeddings that are not lists of numbers of one length")
    if not (np.isfinite(mat).all() and np.isfinite(norms).all()):
        raise EmbedError(f"{where} returned embeddings holding NaN or infinite numbers")
    if (norms == 0).any():
        raise EmbedError(f"{where} returned an all-zero embedding")
    return np.ascontiguousarray(mat / norms, dtype=np.float32)


def _read_within(resp: Any, end: float) -> bytes:
    """The body of ``resp``, read a piece at a time until ``end`` (``time.monotonic()``): the socket's timeout bounds
    each read, and a reply trickled a few bytes at a time would otherwise hold a recall (and a hook) for minutes.
    Raises ``TimeoutError`` past ``end``."""
    parts: list[bytes] = []
    while True:
        if time.monotonic() > end:
            raise TimeoutError("the reply came too slowly")
        chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read()
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
