"""Passages: long stored texts (an assistant message, a tool output) are indexed as several passages so recall can
find, and the block can show, the part that matched rather than the text's start.

A tool event whose text is longer than :data:`SPLIT_ABOVE` characters is cut into passages of about :data:`TARGET`
chars at line boundaries (a line longer than that is cut at a space); user and assistant turns are indexed whole
(:func:`split_above` says why). Sizes chosen on ``bench/session_qa.py`` (1,000/400 against 1,200/600, 800/400,
1,600/800, 800/300, 600/250). Passage 0 is indexed in the event's own full-text
row (with its neighbouring turns); passages 1.. get full-text rows of their own, keyed to the event through the
``passages`` table (migration ``m008``; their FTS rowids are the negated ``passages.id``). Recall scores every row
(a passage's score weighted by :data:`PASSAGE_WEIGHT`) and keeps each event's best passage (``Hit.span``). Texts themselves are stored whole up to
``memdir.core.MAX_EVENT_CHARS`` (20,000 chars).
"""

from __future__ import annotations

SPLIT_ABOVE = 1000
TARGET = 400
#: a passage's BM25 score counts this much against a whole event's (passages are short, so an incidental match in a
#: long command output would otherwise outrank the turn that answers; session-QA answer-in-block 0.48 -> 0.62 with
#: 0.6, against 0.60 with 0.5 or 0.4, 0.56 with 0.75, 0.48 with 1.0)
PASSAGE_WEIGHT = 0.6
SPLIT_ABOVE_TURN: int | None = None


def split_above(role: str | None) -> int | None:
    """The length above which an event of ``role`` is split: :data:`SPLIT_ABOVE` for tool output; user/assistant
    turns are not split (:data:`SPLIT_ABOVE_TURN` ``None``): splitting turns above 1,000 chars raised session-QA
    answer-in-block (0.48 -> 0.54) but cost LongMemEval-S turn recall@5 (0.582 -> 0.541; 0.566 even when only turns
    above 8,000 chars were split), so turns stay one indexed row and the block focuses inside them instead."""
    return SPLIT_ABOVE if role == "tool" else SPLIT_ABOVE_TURN


def split(text: str, *, target: int = TARGET, split_above: int | None = SPLIT_ABOVE) -> list[tuple[int, int]]:
    """``[(start, end)]`` character spans covering ``text`` in order; one span when ``len(text) <= split_above`` or
    ``split_above`` is ``None``."""
    n = len(text)
    if split_above is None or n <= split_above:
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


def tokens(text: str, role: str | None) -> list[tuple[int, int, str]]:
    """``[(start, end, tokens)]`` for each passage of an event's ``text`` (:func:`split` at :func:`split_above` of its
    ``role``): the span and its recall tokens joined by spaces, as the index writes them (passage 0 goes into the
    event's own FTS row)."""
    from memdir.recall.tokenize import tokenize

    return [(a, b, " ".join(tokenize(text[a:b]))) for a, b in split(text, split_above=split_above(role))]
