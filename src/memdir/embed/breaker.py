"""A circuit breaker for an embedding endpoint, shared by every memdir process of a user (each hook is a new
process, so the state lives in a file: ``<global root>/.memdir/embed-breaker.json``).

After a failure the endpoint is not asked again until a cool-down ends: the server's ``Retry-After`` when it
answers 429 or 503 with one (capped at :data:`MAX_COOLDOWN_S`), else :data:`FIRST_COOLDOWN_S` doubled per
consecutive failure up to the cap. A success closes the breaker. Reading or writing the file never raises: a
breaker that cannot be kept behaves as closed (the deadline of each call still bounds the wait).

File shape: ``{"<url>": {"until": <epoch s>, "failures": <n>, "reason": "<one line>"}}``.
"""

from __future__ import annotations

import email.utils
import json
import os
import time
from pathlib import Path

FIRST_COOLDOWN_S = 15.0
MAX_COOLDOWN_S = 600.0
FILENAME = "embed-breaker.json"


class Breaker:
    """The breaker of the endpoints under ``home`` (the global root); ``home=None`` keeps the state in memory only."""

    def __init__(self, home: str | os.PathLike | None, *, clock=time.time):
        self.path = Path(home) / ".memdir" / FILENAME if home is not None else None
        self.clock = clock
        self.memory: dict[str, dict] = {}

    def read(self) -> dict[str, dict]:
        if self.path is None:
            return self.memory
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def write(self, data: dict[str, dict]) -> None:
        if self.path is None:
            self.memory = data
            return
        try:
            from memdir.roots import private_derived  # 0700: what is in it is one person's
            private_derived(self.path.parent)
            tmp = self.path.with_name(f".{FILENAME}.{os.getpid()}.tmp")
            # 0600 like every file of .memdir/: it names the endpoint (its URL may hold a key)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(json.dumps(data))
            os.replace(tmp, self.path)
        except OSError:
            pass

    def open_reason(self, url: str) -> str | None:
        """``None`` when ``url`` may be asked now, else one line saying why not and until when (local time)."""
        entry = self.read().get(url)
        if not isinstance(entry, dict):
            return None
        try:
            until = float(entry.get("until", 0))
        except (TypeError, ValueError):
            return None
        if until <= self.clock():
            return None
        when = time.strftime("%H:%M:%S", time.localtime(until))
        return f"{url} is down ({entry.get('reason') or 'failed'}); not asked again until {when}"

    def trip(self, url: str, reason: str, *, retry_after_s: float | None = None) -> float:
        """Record a failure of ``url``; returns the cool-down in seconds."""
        data = self.read()
        entry = data.get(url) if isinstance(data.get(url), dict) else {}
        failures = int(entry.get("failures", 0) or 0) + 1
        if retry_after_s is not None and retry_after_s > 0:
            cool = min(float(retry_after_s), MAX_COOLDOWN_S)
        else:
            cool = min(FIRST_COOLDOWN_S * 2 ** (failures - 1), MAX_COOLDOWN_S)
        data[url] = {"until": self.clock() + cool, "failures": failures, "reason": reason[:200]}
        self.write(data)
        return cool

    def close(self, url: str) -> None:
        """Record a success: ``url`` is asked normally again."""
        data = self.read()
        if url in data:
            del data[url]
            self.write(data)


def retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header value asks to wait (delta-seconds or an HTTP date, RFC 9110 §10.2.3);
    ``None`` when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
