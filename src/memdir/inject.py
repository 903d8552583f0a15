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


#: compatibility forms that could spell a tag: full-width/small ``< > /`` and full-width Latin letters → ASCII
_FOLD = {0xFF1C: "<", 0xFF1E: ">", 0xFE64: "<", 0xFE65: ">", 0xFF0F: "/", 0x3000: " ",
         **{c: chr(c - 0xFEE0) for c in range(0xFF21, 0xFF3B)}, **{c: chr(c - 0xFEE0) for c in range(0xFF41, 0xFF5B)}}


def escape(text: str) -> str:
    """Make stored text safe inside the block: fold the compatibility forms that could spell a tag (full-width
    ``＜ｍｅｍｏｒｙ＞`` becomes ASCII; Chinese punctuation such as ``，`` is kept), drop invisible format characters
    and control characters other than newline/tab, then turn the ``<`` of anything that reads as a ``<memory>`` /
    ``</memory>`` tag into ``&lt;``."""
    text = text.translate(_FOLD)
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
    Each section is its heading plus at least one line, or absent. Returns ``""`` when all three are empty or
    nothing fits. Never longer than ``max_chars``.
    """
    if not rules and not outline and not hits:
        return ""
    budget = max_chars - (len(OPEN) + 1 + len(CLOSE))
    if budget <= 0:
        return ""
    parts: list[str] = []
    used = 0

    def section(head: str, items: list[str], limit: int, *, min_room: int = 20, max_items: int | None = None) -> int:
        """Append ``head`` and the items that fit under ``limit``; the first item may be truncated (keeping at
        least ``min_room`` chars). Appends nothing unless one item fits. Returns items added."""
        nonlocal used
        room = limit - used - (len(head) + 1)
        added: list[str] = []
        for item in items:
            if max_items is not None and len(added) >= max_items:
                break
            need = len(item) + 1
            if need <= room:
                added.append(item)
                room -= need
            elif not added and room - 1 >= min_room:
                added.append(truncate(item, room - 1))
                room = 0
                break
        if added:
            parts.append(head)
            parts.extend(added)
            used += len(head) + 1 + sum(len(x) + 1 for x in added)
        return len(added)

    # room kept for the best hit, so what matched is never crowded out by rules and outline
    reserve = min(len(hits[0][1]) + len(hits[0][2]) + 2, max(160, budget // 2)) if hits else 0
    if rules:
        section("## Rules (always apply)", ["- " + escape(" ".join(t.split())) for _, t in rules], budget - reserve)
    if outline:
        section("## Outline", [escape(x) for x in outline], budget - reserve)
    if hits:
        chunks: list[str] = []
        seen: set[str] = set()
        for hid, header, text in hits:
            body = _HEADING.sub(r"\1\\#", escape(text.strip()))  # a stored "## Rules" / "### id" line cannot forge structure
            key = " ".join(body.split())
            if hid in seen or key in seen:
                continue
            seen.update((hid, key))
            chunks.append(f"{escape(header)}\n{body}")
        # entries that do not fit are skipped (a shorter one may still fit); only the first may be truncated
        head = "## Relevant"
        room = budget - used - (len(head) + 1)
        added: list[str] = []
        for c in chunks:
            if len(added) >= max_entries:
                break
            if len(c) + 1 <= room:
                added.append(c)
                room -= len(c) + 1
            elif not added:
                header, _, body = c.partition("\n")
                if room - 1 >= len(header) + 1 + 20:  # the header and at least 20 chars of its body
                    added.append(header + "\n" + truncate(body, room - 1 - len(header) - 1))
                    room = 0
        if added:
            parts.append(head)
            parts.extend(added)
            used += len(head) + 1 + sum(len(x) + 1 for x in added)
    if not parts:
        return ""
    return OPEN + "\n" + "\n".join(parts) + "\n" + CLOSE
