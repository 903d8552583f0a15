"""The turns around a recalled event: the one before and the one after it in its session, each cut to the window
that holds most of the query's weight. A ``memory_recall`` reply carries them because the answer to "why did it
fail" or "how did we fix it" is often one turn away from what matched (the failing output before the reply that
names it, the change after the error): on bench/block_qa.py's tuning half answers reachable in one call went from
0.73 to 0.82 with 400-character windows, validation 0.75 to 0.79 (docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

from memdir.capture.redact import redact  # a window cut from a text stored before a key's shape was known
from memdir.engine.context import block_weights
from memdir.errors import UsageError, count_arg
from memdir.inject.window import focus
from memdir.stores import Stores
from memdir.types import Hit

#: characters of each neighbouring turn shown (its best-matching window)
AROUND_CHARS = 400


def around(s: Stores, hits: list[Hit], query: str, *, chars: int = AROUND_CHARS) -> list[dict[str, Any]]:
    """The body of :meth:`memdir.Memdir.around`, whose docstring is the contract."""
    chars = count_arg(chars, "chars", zero="0 shows no turns")
    if not isinstance(hits, (list, tuple)):
        raise UsageError(f"around needs the list of hits recall returned, not {type(hits).__name__}")
    out: list[dict[str, Any]] = []
    weights: dict[str, float] | None = None
    for h in hits:
        got: dict[str, Any] = {}
        root = s.roots.get(h.scope)
        if h.category or not h.session or chars <= 0 or root is None or not root.exists():
            out.append(got)
            continue
        if weights is None:
            weights = block_weights(s, query)
        for side, rows in (("before", root.store.events_before(h.id, h.session, 1)),
                           ("after", root.store.events_after(h.id, h.session, 1))):
            if rows:
                r = rows[0]
                got[side] = {"handle": r["handle"] or r["ref"], "role": r["role"],
                             "text": focus(redact(r["text"] or ""), weights, chars)}
        out.append(got)
    return out
