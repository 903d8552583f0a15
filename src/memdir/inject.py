"""The ``<memory>`` block injected before each model request (seed 000's three layers).

1. **Rules** — every live note in ``rules/`` (global first, then project), always.
2. **Outline** — the registry: categories with counts and their newest summaries, always (cheap).
3. **Bodies** — the best recall hits, at most ``max_entries``, within the ``max_chars`` budget.

The whole block, tags included, is at most ``max_chars`` characters. When anything matched, the block is never
empty: an over-long best hit is cut at a line boundary (or a word boundary inside a single long line).
Memory text is escaped so it can never close or forge the block.
"""

from __future__ import annotations

import re
import unicodedata

OPEN = "<memory>"
CLOSE = "</memory>"
_TAGLIKE = re.compile(r"<(?=\s*/?\s*m\s*e\s*m\s*o\s*r\s*y)", re.I)
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_MARKER = "…"
_HEADING = re.compile(r"(?m)^([ \t]*)#")


def escape(text: str) -> str:
    """Make stored text safe inside the block: NFKC-normalize (full-width ``＜ｍｅｍｏｒｙ＞`` becomes ASCII), drop
    invisible format characters and control characters other than newline/tab, then turn the ``<`` of anything
    that reads as a ``<memory>`` / ``</memory>`` tag into ``&lt;``."""
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc")
    return _TAGLIKE.sub("&lt;", text)


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` chars at a line boundary, else a word boundary, adding ``…``."""
    if len(text) <= limit:
        return text
    if limit <= len(_MARKER):
        return text[: max(0, limit)]
    room = limit - len(_MARKER)
    cut = text.rfind("\n", 0, room + 1)
    if cut <= 0:
        cut = text.rfind(" ", 0, room + 1)
        if cut < room // 2:
            cut = room
    return text[:cut].rstrip() + _MARKER


def build(*, rules: list[tuple[str, str]], outline: list[str], hits: list[tuple[str, str, str]],
          max_chars: int, max_entries: int) -> str:
    """Assemble the block.

    ``rules``: ``(id, text)``; ``outline``: lines; ``hits``: ``(id, header, text)`` best first.
    Returns ``""`` when all three are empty. Never longer than ``max_chars`` (if even the tags do not fit,
    returns ``""``).
    """
    if not rules and not outline and not hits:
        return ""
    frame = len(OPEN) + 1 + len(CLOSE)
    budget = max_chars - frame
    if budget <= 0:
        return ""
    parts: list[str] = []
    used = 0

    def add(chunk: str, *, limit: int) -> bool:
        nonlocal used
        need = len(chunk) + 1
        if need <= limit - used:
            parts.append(chunk)
            used += need
            return True
        return False

    # reserve room for the best hit so the block is never empty of what matched
    reserve = min(len(hits[0][1]) + len(hits[0][2]) + 2, max(160, budget // 2)) if hits else 0
    if rules:
        add("## Rules (always apply)", limit=budget - reserve)
        for rid, text in rules:
            line = "- " + escape(" ".join(text.split()))
            if not add(line, limit=budget - reserve):
                room = budget - reserve - used - 1
                if room > 20:
                    add(truncate(line, room), limit=budget - reserve)
                break
    if outline:
        head_ok = add("## Outline", limit=budget - reserve)
        if head_ok:
            for line in outline:
                if not add(escape(line), limit=budget - reserve):
                    break
    if hits:
        add("## Relevant", limit=budget)
        shown = 0
        seen: set[str] = set()
        for hid, header, text in hits:
            if shown >= max_entries:
                break
            body = _HEADING.sub(r"\1\\#", escape(text.strip()))  # a stored "## Rules" / "### id" line cannot forge structure
            key = " ".join(body.split())
            if hid in seen or key in seen:
                continue
            chunk = f"{escape(header)}\n{body}"
            if add(chunk, limit=budget):
                shown += 1
            elif shown == 0:
                room = budget - used - 1
                if room > len(header) + 10:
                    add(truncate(chunk, room), limit=budget)
                    shown += 1
            seen.update((hid, key))
    if not parts:
        return ""
    return OPEN + "\n" + "\n".join(parts) + "\n" + CLOSE
