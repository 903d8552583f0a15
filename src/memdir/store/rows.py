"""What the SQLite and PostgreSQL stores share: pure helpers over rows, no SQL and no connection.

Both engines index the same token streams (:func:`fts_fields`), the same neighbour context (:data:`CONTEXT_TOKENS`
tokens of each neighbouring turn), read event ``meta`` the same way (:func:`meta_json`) and count the same tiers.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from memdir.recall.tokenize import tokenize

#: the fields of an event row a team client sends and the team server stores
EVENT_FIELDS = ("ref", "content_sha256", "role", "session", "ts", "ts_epoch", "text", "meta")

#: the tiers, hottest first (memdir.engine.tiers sweeps docs into them)
TIERS = ("hot", "warm", "cold", "archive")


def fts_fields(tags: Iterable[str], title: str, body: str) -> tuple[str, str, str]:
    """Token streams for the three FTS5 columns (tags + load_when, summary/highlight, body)."""
    return " ".join(tokenize(" ".join(tags))), " ".join(tokenize(title)), " ".join(tokenize(body))


def event_labels(meta: str | dict[str, Any] | None) -> tuple[str, str]:
    """Token streams for an event's tags and title columns, from its ``meta`` (the JSON text or a dict).

    An imported record keeps its own labels there (a drop file's ``title`` and ``tags``, a claude-mem observation's
    ``title``): ``meta["tags"]`` (a list of strings, or one comma-separated string) and ``meta["title"]`` (a
    string) are indexed like a note's tags and summary, at ``recall.weight_tags`` and ``recall.weight_title``. An
    event without them (every captured or transcript turn) gives ``("", "")``, so its row, and every BM25 statistic
    of a store holding only such events, is what it was. Never raises."""
    m = meta if isinstance(meta, dict) else meta_json(meta)
    tags = m.get("tags")
    if isinstance(tags, str):
        tags = [t for t in tags.split(",")]
    tags = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    title = m.get("title") if isinstance(m.get("title"), str) else ""
    if not tags and not title:
        return "", ""
    return " ".join(tokenize(" ".join(tags))), " ".join(tokenize(title))


#: tokens of each neighbouring turn indexed in an event's ``context`` column
CONTEXT_TOKENS = 80


def context_tokens(tokens: str) -> list[str]:
    """What of a neighbour's passage-0 token stream ``tokens`` goes into an event's ``context`` column: its first
    :data:`CONTEXT_TOKENS` tokens. Leaving the stopwords out (a query never searches for one) would save ~1 MB of
    postings at 10k turns, but it moves document lengths and lowered LongMemEval's user-turn recall@5 (0.824 ->
    0.780; docs/ingest-and-size.md), so it is not done."""
    return tokens.split(None, CONTEXT_TOKENS)[:CONTEXT_TOKENS]


def meta_json(text: str | None) -> dict[str, Any]:
    """An event's ``meta`` column as a dict: ``{}`` for none, bad JSON or a non-object."""
    try:
        v = json.loads(text) if text else {}
    except ValueError:
        return {}
    return v if isinstance(v, dict) else {}


def session_summary(r: Any, meta_text: str | None) -> dict[str, Any]:
    """One captured session's summary row from the grouped counts ``r`` (``s``, ``t0``, ``t1``, ``first``, ``last``,
    ``n``, ``nu``, ``na``, ``nt``) and the ``meta`` of its first event: ``{"session", "first", "last", "turns",
    "roles": {role: n}, "source", "cwd", "first_epoch", "last_epoch"}`` (the same shape on both engines)."""
    meta = meta_json(meta_text)
    return {"session": r["s"] or None, "first": r["first"], "last": r["last"], "turns": r["n"],
            "roles": {"user": r["nu"] or 0, "assistant": r["na"] or 0, "tool": r["nt"] or 0},
            "source": meta.get("source"), "cwd": meta.get("cwd"), "first_epoch": r["t0"], "last_epoch": r["t1"]}
