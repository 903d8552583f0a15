"""Text measured as a terminal draws it: in cells (a Chinese or Japanese character, a wide emoji take two; an accent,
a zero-width joiner or a variation selector none) and cut only between the characters a person sees (a ZWJ family
emoji, a flag, a letter with its accents stay whole). Used by the CLI's lines for people to cut a long title or
text to a line and to pad a column; ``--json`` and the stored text are never cut here."""

from __future__ import annotations

import unicodedata

from memdir.graphemes import clusters

MARKER = "…"


def _cluster_cells(cl: str) -> int:
    first = cl[0]
    if unicodedata.category(first) in ("Mn", "Me", "Cf", "Cc") and len(cl) == 1:
        return 0
    if unicodedata.east_asian_width(first) in "WF" or "\ufe0f" in cl or 0x1F1E6 <= ord(first) <= 0x1F1FF:
        return 2
    return 1


def cells(text: str) -> int:
    """The columns ``text`` (one line) takes on a terminal."""
    if text.isascii():
        return len(text)
    return sum(_cluster_cells(cl) for cl in clusters(text))


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: as it is when it fits, else its whole characters that fit with ``…``
    (one cell) after them, cut at a space in the second half of the room when there is one."""
    if cells(text) <= width:
        return text
    if width <= 0:
        return ""
    room = width - len(MARKER)
    kept: list[str] = []
    used = 0
    after = ""
    for cl in clusters(text):
        w = _cluster_cells(cl)
        if used + w > room:
            after = cl
            break
        kept.append(cl)
        used += w
    head = "".join(kept)
    space = head.rfind(" ")
    if not after.isspace() and space >= len(head) // 2 and space > 0:  # the cut fell inside a word
        head = head[:space]
    return head.rstrip() + MARKER


def pad(text: str, width: int) -> str:
    """``text`` followed by the spaces that make it ``width`` cells wide (as it is when it is wider)."""
    return text + " " * max(0, width - cells(text))
