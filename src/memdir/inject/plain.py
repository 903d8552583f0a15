"""Markdown's emphasis, inline-code and heading marks taken out of prose shown in the block.

A reply's bold (two asterisks each side), inline code (a backtick each side) and ``### Heading`` cost characters of
a 1,200-character block and carry no words (a heading line is shown escaped, ``\\###``, so it cannot pose as one of
the block's own sections). Lines inside a code fence keep their marks (``# comment`` in a shell snippet is code).
Block-QA (docs/benchmarks.md): bold and headings tuning 119 unchanged, validation 100 -> 101; inline code's
backticks then tuning 119 -> 120, validation 101 unchanged.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"[ \t]*(```|~~~)")
_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+(?=\S)")  # four spaces or a tab in: a code block
#: inline code whose text holds no markup character: `<private>` or `</memory>` keeps its backticks, so the bare tag
#: is never read as one (the block's redaction would take `<private>` for a private span's start)
_TICK = re.compile(r"(?<!`)`(?=[^`\s])[^`\n<>\[\]*#|\\&]*?(?<=[^`\s])`(?!`)")
_BOLD = re.compile(r"\*\*(?=[^\s*])(?:[^*\n]|\*(?!\*))*?(?<=[^\s*])\*\*")


def plain(text: str, span: tuple[int, int] | None = None) -> tuple[str, tuple[int, int] | None]:
    """``(text, span)`` without heading marks at line starts, the ``**`` around bold words and the backticks around
    inline code, outside code fences;
    ``span`` (a character range of ``text``, or ``None``) is moved to the same characters of the new text."""
    cut: list[tuple[int, int]] = []  # removed character ranges of ``text``
    pos, fenced = 0, False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            m = _HEADING.match(line)
            if m:
                cut.append((pos, pos + m.end()))
            for b in _BOLD.finditer(line):
                cut += [(pos + b.start(), pos + b.start() + 2), (pos + b.end() - 2, pos + b.end())]
            for b in _TICK.finditer(line):  # inline code's backticks: the words stay, as the model reads them
                cut += [(pos + b.start(), pos + b.start() + 1), (pos + b.end() - 1, pos + b.end())]
        pos += len(line)
    if not cut:
        return text, span
    cut.sort()
    out, last = [], 0
    for a, b in cut:
        out.append(text[last:a])
        last = b
    out.append(text[last:])

    def moved(i: int) -> int:
        return i - sum(min(b, i) - a for a, b in cut if a < i)

    return "".join(out), (moved(span[0]), moved(span[1])) if span else None
