"""A terminal's line wraps undone: the plain-text transcript formats that copy what a terminal drew (Claude Code's
``/export``, the terminal output a SpecStory history of Cursor kept) hold each long line cut at the terminal's width.
:func:`unwrap` joins back the breaks the terminal made and no others; :func:`columns` counts a line's columns (CJK
characters take two); :func:`text_width` and :func:`hard_wrap_width` say at what width a block was wrapped.
"""

from __future__ import annotations

import re
import unicodedata


def columns(text: str) -> int:
    """Terminal columns ``text`` takes: two for a wide or fullwidth character (CJK), one for any other."""
    return len(text) if text.isascii() else sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


#: a line that starts its own item whatever the width: a list bullet or number, a numbered diff row, a table row, a
#: heading, a fence (and any line that opens with a symbol: a box or tree drawing, a check mark, an arrow)
_ITEM = re.compile(r"^(?:[-*•>#|]|\d+[.)]\s|\d+ {1,4}[-+ ]|```)")
#: columns below the measured width within which a line of prose is still taken as cut by the terminal
NEAR = 4
#: columns a block's lines may fall short of the width measured over the file (a status line wraps a little earlier)
SLACK = 8
#: a Han or kana character (or a fullwidth form) at a line's end / start: Chinese and Japanese break between any two
#: characters, with no space to keep (Korean spaces its words: a break there was at a space)
_CJK_END = re.compile(r"[\u2e80-\u9fff\u3040-\u30ff\uf900-\ufaff\uff00-\uffef]$")
_CJK_START = re.compile(r"^[\u2e80-\u9fff\u3040-\u30ff\uf900-\ufaff\uff00-\uffef]")
_MARK = re.compile(r"^(?:[-*•+]|\d+[.)])\s+")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _continues(prev: str, line: str) -> bool:
    """``line`` sits where a wrapped continuation of ``prev`` would: at its indentation, one column deeper (the space
    the terminal broke at, carried to the new row: Claude Code's renderer does that), or under the text of the list
    item ``prev`` opens. A deeper line is code or a nested item, a shallower one a new paragraph."""
    a, b = _indent(prev), _indent(line)
    if a == b or b == a + 1:
        return True
    m = _MARK.match(prev.lstrip(" "))
    return m is not None and b == a + len(m.group(0))


def unwrap(lines: list[str], width: int, near: int = 0, *, result: bool = False) -> list[str]:
    """``lines`` (their block's indentation removed, each as the file has it, trailing spaces included) with the
    breaks the terminal made rejoined. The terminal wraps greedily, so a break it made leaves a line that could not
    take the next line's first word (line + space + word wider than ``width`` columns; for prose, whose renderer's
    width varies by a few columns, wider than ``width - near`` unless the line ends in ``:``, :data:`NEAR`); a
    shorter line ended where the text did. In a tool's result (``result``) a break must also show it: the space the
    terminal keeps at a break between words, a line filling the whole width (a word cut there), or a word too long to
    have been moved (below) — rows of a listing or a log are not run together. A line that opens an item (:data:`_ITEM`, or any line opening with a
    symbol), follows a blank one, or does not sit where a continuation would (:func:`_continues`) is never joined,
    nor anything inside a fence. A break that cut a word joins without a space: a line near the width (less
    :data:`SLACK`) whose last word and the next line's first are together wider than that (a path, a URL), a full
    line without a trailing space in a result, and a break between two Han or kana characters."""
    out: list[str] = []
    fenced = False
    prev = ""  # the line before, as the terminal showed it (out[-1] may hold several joined)
    for line in lines:
        s = line.strip()
        if s.startswith("```"):
            fenced = not fenced
        if (not fenced and prev.strip() and s and not _ITEM.match(s) and not unicodedata.category(s[0]).startswith("S")
                and _continues(prev, line)):
            body = prev.rstrip()
            w, word = columns(body), s.split(None, 1)[0]
            if columns(word[0]) == 2:  # CJK text breaks between any two characters: the first one had to fit
                word = word[0]
            need = w + 1 + columns(word)
            spaced = len(body) < len(prev)
            # a word wider than the line cannot have been moved whole: the terminal cut it (a path, a URL)
            long_cut = w >= width - SLACK and columns(body.split()[-1] + word) > width - SLACK
            if result:
                forced = need > width and (spaced or w >= width or long_cut)
            else:  # near the width, a line ending in ':' introduced what follows (a list, a command): not cut
                forced = need > width or (need > width - near and not body.endswith(":"))
            if forced:
                cjk = _CJK_END.search(body) is not None and _CJK_START.match(s) is not None
                # a row one column deeper starts with the space the terminal broke at: a break between words
                carried = _indent(line) == _indent(prev) + 1
                cut = not spaced and not carried and (cjk or long_cut or (result and w >= width))
                out[-1] += ("" if cut else " ") + s
                prev = line[1:] if carried else line  # the paragraph's own indentation, for the row after it
                continue
        out.append(line.rstrip())
        prev = line
    return out


def text_width(rows: list[str], floor: int) -> int:
    """The columns the terminal wrapped ``rows`` at: the widest of them, at least ``floor`` (a file with few long
    lines must not make every break look forced). Boxed rows (``│ … │``) are left out: they are padded to the box."""
    return max([floor] + [columns(r.rstrip()) for r in rows if not r.lstrip().startswith(("│", "╭", "╰", "├"))])


#: rows of one block cut at its widest width, mid-text, that show a terminal wrapped it there
HARD_WRAP_LINES = 3
#: the narrowest terminal taken as having wrapped a block
HARD_WRAP_MIN = 60
#: the most of a block's non-empty rows that may sit at its widest width: a listing or a table whose rows all have
#: one width (``sha256sum``, ``ls`` of same-length names, psql) is drawn that way, not wrapped
HARD_WRAP_SHARE = 0.75
#: a row a program drew across the terminal on purpose, never a cut one: a rule of one character repeated (pytest's
#: ``=====`` / ``_____`` lines, a box's edge) at its start or end, or a table's row (``| … |``, ``+---+``)
_DRAWN = re.compile(r"^\s*(?:[|+]|([-=_*#~.:<>/\\─━═│┃])\1\1)|(?:[|+]|([-=_*#~.:<>/\\─━═│┃])\2\2)\s*$")


def _cut(row: str, after: str, width: int) -> bool:
    """``row``, followed by ``after``, reads as cut by a terminal ``width`` columns wide: it fills the width (or all but
    its last column, which a wide character after it could not take) and is not a drawn row (:data:`_DRAWN`)."""
    w = columns(row)
    return (w == width or (w == width - 1 and after[:1] != "" and columns(after[0]) == 2)) and not _DRAWN.search(row)


def hard_wrap_width(rows: list[str]) -> int | None:
    """The width a terminal cut ``rows`` (one command's output) at character by character, when it did: the widest
    row's columns, at least :data:`HARD_WRAP_MIN`, where :data:`HARD_WRAP_LINES` rows or more are cut there mid-text
    (no space on either side of the cut, :func:`_cut`) and at most :data:`HARD_WRAP_SHARE` of the block's non-empty
    rows are that wide; else ``None``."""
    if len(rows) < 2:
        return None
    widths = [columns(r) for r in rows]
    w = max(widths)
    if w < HARD_WRAP_MIN:
        return None
    cuts = sum(1 for row, after in zip(rows, rows[1:]) if _cut(row, after, w) and row[-1:].strip() and after[:1].strip())
    wide = sum(1 for x in widths if x >= w - 1)
    if cuts < HARD_WRAP_LINES or wide > HARD_WRAP_SHARE * sum(1 for x in widths if x):
        return None
    return w


def unhard_wrap(rows: list[str], width: int) -> list[str]:
    """``rows`` with each row a terminal cut at ``width`` columns (:func:`_cut`) joined to the row after it, no space
    between (a terminal that cuts at the width character by character, as Cursor's did, leaves every cut row full:
    ``…/python3.`` + ``10/site-packages`` is one path again)."""
    out: list[str] = []
    joining = False
    for i, row in enumerate(rows):
        if joining:
            out[-1] += row
        else:
            out.append(row)
        joining = i + 1 < len(rows) and _cut(row, rows[i + 1], width)
    return out
