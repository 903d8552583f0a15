"""Why the team server's queue cannot deliver (issue 25 item 2): each failed contact with the server (a push, a
recall) is classified into one of a few causes, each with its fix in one line, and the last one is kept in the local
index's ``meta`` table (key :data:`KEY`) until a contact succeeds, so ``memdir status``, ``memdir doctor`` and the
debug log say why rows wait instead of "none refused".

Causes (``kind``):

* ``auth`` — no token set, or the server does not know it (wrong, revoked or expired: HTTP 401);
* ``project`` — the token is valid but does not grant this project (HTTP 403), e.g. a clone whose directory name (the
  default project name) is not the team's project name;
* ``route`` — ``remote.url`` does not lead to the API (HTTP 404/405: a URL without ``/v1``; a redirect, a web page
  such as a captive portal's, a proxy asking for a login: :class:`NotTheServer`);
* ``server`` — the server answered 5xx (its database down: 503) or another status about the request;
* ``unreachable`` — no answer: refused, reset, timed out, a name that does not resolve.

A row the server refused itself (a 4xx about the row) is not a cause here: it is kept aside in the queue
(:func:`memdir.engine.remote.failed`) with the server's reason.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

import memdir.netproxy as netproxy

KEY = "remote_undelivered"

#: causes that never go away by waiting: shown as failures by doctor
BLOCKING = frozenset({"auth", "project", "route"})


class NotTheServer(ValueError):
    """What answered is no team server (a captive portal's or a login page, a redirect, a proxy asking for a login):
    its message is the reason and the fix, ``reason; fix: …`` (:func:`memdir.engine.teamhttp.answer_problem`)."""


def classify(code: int | None, message: str, *, project: str, token_env: str = "MEMDIR_REMOTE_TOKEN") -> dict[str, str]:
    """``{"kind", "reason", "fix"}`` for a failed contact: ``code`` the HTTP status (``None``: no HTTP answer),
    ``message`` the server's error line or the network error, ``project`` the project name sent."""
    msg = " ".join(str(message or "").split())[:300]
    if code is None and msg.startswith(f"{NotTheServer.__name__}: ") and "; fix: " in msg:
        reason, _, fix = " ".join(str(message).split()).partition(": ")[2].partition("; fix: ")
        return {"kind": "route", "reason": reason, "fix": fix}
    if code is None and msg == "no token":
        return {"kind": "auth", "reason": f"no token: {token_env} is not set",
                "fix": f"set {token_env} to your team token (the lead prints it: memdir store token YOU --project {project})"}
    if code == 401:
        return {"kind": "auth", "reason": f"the server does not accept the token (wrong, revoked or expired): {msg}",
                "fix": f"ask the lead for a new token (memdir store token YOU --project {project}) and set {token_env}"}
    if code == 403:
        grants = ""
        if "grants:" in msg:
            grants = msg.split("grants:", 1)[1].strip().rstrip(")")
        first = grants.split(",")[0].strip() if grants else ""
        # two readings: a clone whose directory is not named like its project (set the name), or a token made for
        # another project (setting that name would send this project's events into it: ask for the right token)
        fix = (f'if this clone is the project {first!r} under another directory name, set remote.project = "{first}" in '
               f"the project's config.toml (the token grants: {grants}); otherwise ask the lead for a token granting "
               f"{project!r} (memdir store token YOU --project {project})" if first else
               f"ask the lead to grant project {project!r} (memdir store token YOU --project {project}), or set remote.project")
        return {"kind": "project", "reason": f"the token does not grant project {project!r}: {msg}", "fix": fix}
    if code in (404, 405):
        return {"kind": "route", "reason": f"HTTP {code}: remote.url does not lead to the team server's API",
                "fix": "set remote.url to the server's API, ending in /v1 (e.g. http://host:8765/v1)"}
    if code is not None:
        return {"kind": "server", "reason": msg if msg.startswith(f"HTTP {code}") else f"HTTP {code}: {msg}" if msg else f"HTTP {code}",
                "fix": "the team server or its PostgreSQL is failing: its lead checks `curl <remote.url>/health` and the server's log"}
    return {"kind": "unreachable", "reason": f"the team server cannot be reached: {msg}",
            "fix": netproxy.tls_fix(msg) or "check remote.url and that `memdir serve --store …` runs there; rows wait "
                                            "and are sent later"}


def token_state(token: str | None, *, project: str, token_env: str = "MEMDIR_REMOTE_TOKEN") -> dict[str, str] | None:
    """The ``auth`` cause when ``token`` cannot be sent at all: none set, or one holding a space, a line break or a
    non-ASCII character (memdir's tokens are printable ASCII); ``None`` when it can. Said without the token: the
    HTTP library's refusal of such a header quotes it whole."""
    if not token:
        return classify(None, "no token", project=project, token_env=token_env)
    if not all("!" <= c <= "~" for c in token):
        return {"kind": "auth", "reason": f"{token_env} holds a space, a line break or another character no token has",
                "fix": f"set {token_env} to the token alone, as `memdir store token` printed it"}
    return None


def read(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The last failed contact kept in ``db`` (``{"kind", "reason", "fix", "at", "via"}``), or ``None``."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
        return json.loads(row[0]) if row and row[0] else None
    except (sqlite3.Error, ValueError):
        return None


def record(db: sqlite3.Connection, state: dict[str, Any] | None, *, via: str = "push", now=time.time) -> bool:
    """Keep ``state`` (from :func:`classify`; ``None``: the server answered, clear it) in ``db``'s ``meta``; written
    only when the cause changes (kind and reason), so a hook pays a write once per change. Returns whether it
    changed. Never raises (a locked index keeps the old state)."""
    old = read(db)
    if state is None and old is None:
        return False
    if state is not None and old is not None and (old.get("kind"), old.get("reason")) == (state["kind"], state["reason"]):
        return False
    from memdir.store.sqlite import txn

    try:
        with txn.immediate(db):  # rolled back on an interrupt too, not only on an sqlite3.Error
            if state is None:
                db.execute("DELETE FROM meta WHERE key = ?", (KEY,))
            else:
                db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                           (KEY, json.dumps({**state, "at": now(), "via": via}, ensure_ascii=False)))
    except sqlite3.Error:
        return False
    return True


def line(state: dict[str, Any]) -> str:
    """One line for a log or a terminal: the reason, then the fix."""
    return f"{state['reason']}; fix: {state['fix']}"


def timed_out(exc: BaseException) -> bool:
    """Whether a failed request ended by its own timeout (``TimeoutError``/``socket.timeout``, also wrapped in a
    ``URLError``), as opposed to a refusal, a reset or a name that does not resolve."""
    return isinstance(exc, TimeoutError) or isinstance(getattr(exc, "reason", None), TimeoutError)


def budget_line(budget_s: float) -> str:
    """The one line of a push whose time budget ran out before the server answered (not a cause: the server may be
    fine; a long command, ``memdir push``, sends the rest)."""
    return f"timed out at this command's {budget_s * 1000:.0f} ms budget (not a fault): rows wait, memdir push sends them now"

