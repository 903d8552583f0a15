"""What the viewer reads back: the injected blocks, the captures that stored nothing, the captured sessions.
"""

from __future__ import annotations

from typing import Any

from memdir.capture import events as cevents
from memdir.errors import UsageError, count_arg, session_arg
from memdir.lazylog import getLogger
from memdir.store.sqlite import journal
from memdir.stores import Stores

log = getLogger("memdir")  # imports logging only when a record can go somewhere


def record_injection(s: Stores, block: str, *, prompt: str = "", host: str | None = None, event: str | None = None,
                     session: str | None = None) -> int | None:
    """The body of :meth:`memdir.Memdir.record_injection`, whose docstring is the contract."""
    try:
        if not block:
            return None
        root = next((r for r in (s.roots["project"], s.roots["global"]) if r.exists()), None)
        if root is None:
            return None
        others = tuple(r.store for r in s.live() if r is not root)
        with root.locked(timeout=0):  # never waits: a long writer (an import) holding the lock skips this row
            return journal.log_injection(root.db, index=root.store, when=s.clock(), block=block, prompt=prompt or "",
                                         host=host, event=event, session=session, others=others)
    except Exception as exc:  # noqa: BLE001
        log.debug("injection not logged: %s", exc)
        return None


def injections(s: Stores, *, limit: int = 50, id: int | None = None, scope: str | None = None) -> list[dict[str, Any]]:
    """The body of :meth:`memdir.Memdir.injections`, whose docstring is the contract."""
    limit, out = count_arg(limit, "limit", zero="0 lists none"), []  # -1 was "all but the last"
    if id is not None and (isinstance(id, bool) or not isinstance(id, int)):  # "x" was a ValueError, 1.9 read row 1
        raise UsageError(f"id must be the whole number of a logged block, not {id!r:.60}")
    if id is not None and not 0 < id < 2**63:  # no row has it (SQLite's integers; a larger one overflowed)
        return []
    for root in s.live(scope):
        out += [{**r, "scope": root.scope} for r in journal.injections(root.db, limit=limit, id=id)]
    return sorted(out, key=lambda r: (r["ts"], r["id"]), reverse=True)[:limit]


def capture_skips(s: Stores, *, limit: int = 200, session: str | None = None) -> list[dict[str, Any]]:
    """The body of :meth:`memdir.Memdir.capture_skips`, whose docstring is the contract."""
    limit, out, session = count_arg(limit, "limit", zero="0 lists none"), [], session_arg(session)
    for root in s.live():
        out += [{**r, "scope": root.scope} for r in journal.skips(root.db, limit=limit, session=session)]
    return sorted(out, key=lambda r: (r["ts"], r["id"]), reverse=True)[:limit]


def sessions(s: Stores, *, limit: int = 200) -> list[dict[str, Any]]:
    """The body of :meth:`memdir.Memdir.sessions`, whose docstring is the contract."""
    limit, out = count_arg(limit, "limit", zero="0 lists none"), []
    for root in s.live():
        out += [{**r, "scope": root.scope, "source": cevents.redact_obj(r["source"]), "cwd": cevents.redact_obj(r["cwd"])}
                for r in root.store.sessions(limit=limit)]
    return sorted(out, key=lambda r: r["last_epoch"], reverse=True)[:limit]


def session_events(s: Stores, session: str | None, *, scope: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
    """The body of :meth:`memdir.Memdir.session_events`, whose docstring is the contract."""
    out = []
    for root in s.live(scope):
        # metadata redacted here (an older memdir stored it as given); texts are redacted where they are shown
        out += [{**r, "scope": root.scope, "meta": cevents.redact_obj(r["meta"]) if r["meta"] else r["meta"]}
                for r in root.store.session_events(session, limit=limit)]
    return sorted(out, key=lambda r: r["ts"])[:limit]
