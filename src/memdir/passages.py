"""Passages: long stored texts (an assistant message, a tool output) are indexed as several passages so recall can
find, and the block can show, the part that matched rather than the text's start.

An event whose text is longer than :data:`SPLIT_ABOVE` characters is cut into passages of about :data:`TARGET` chars
at line boundaries (a line longer than that is cut at a space). Passage 0 is indexed in the event's own full-text
row (with its neighbouring turns); passages 1.. get full-text rows of their own, keyed to the event through the
``passages`` table (migration ``m008``; their FTS rowids are the negated ``passages.id``). Recall scores every row
and keeps each event's best passage (``Hit.span``). Texts themselves are stored whole up to
``memdir.core.MAX_EVENT_CHARS`` (20,000 chars).
"""

from __future__ import annotations

SPLIT_ABOVE = 1200
TARGET = 600


def split(text: str, *, target: int = TARGET, split_above: int = SPLIT_ABOVE) -> list[tuple[int, int]]:
    """``[(start, end)]`` character spans covering ``text`` in order; one span when ``len(text) <= split_above``."""
    n = len(text)
    if n <= split_above:
        return [(0, n)]
    spans: list[tuple[int, int]] = []
    start = 0
    while start < n:
        if n - start <= target * 1.5:
            spans.append((start, n))
            break
        limit = start + target
        cut = text.rfind("\n", start + target // 3, limit + 1)
        if cut <= start:
            cut = text.rfind(" ", start + target // 3, limit + 1)
        if cut <= start:
            cut = limit
        else:
            cut += 1  # keep the separator with the passage before it
        spans.append((start, cut))
        start = cut
    return spans
