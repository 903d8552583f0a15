"""Git merge-conflict markers a ``git pull`` left in a Markdown file (a note, ``ROOT.md``, an ``index.md``).

A hunk is a ``<<<<<<< ours`` line, the ours side, an optional diff3 ``||||||| base`` part, a ``=======`` line, the
theirs side and a ``>>>>>>> theirs`` line, each marker at the start of its line. A lone ``=======`` (a Setext
heading's underline), a hunk inside a fenced code block (a note showing one) and aider's ``<<<<<<< SEARCH`` …
``>>>>>>> REPLACE`` edit blocks are text, not conflicts. Reading a file with hunks as :func:`resolved` gives both
sides without the markers, so neither side's words are lost and no marker is taken for a memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdir.errors import UsageError

_OPEN = re.compile(r"<{7}(?:[ \t].*)?")
_BASE = re.compile(r"\|{7}(?:[ \t].*)?")
_MID = re.compile(r"={7}[ \t]*")
_CLOSE = re.compile(r">{7}(?:[ \t].*)?")
_FENCE = re.compile(r"\s{0,3}(```|~~~)")


@dataclass(frozen=True)
class Hunk:
    """One conflict: ``start``/``end`` are the 0-based line numbers of its ``<<<<<<<`` and ``>>>>>>>`` lines;
    ``ours``/``theirs`` its sides' lines (with their line ends)."""

    start: int
    end: int
    ours: tuple[str, ...]
    theirs: tuple[str, ...]


class Conflicted(UsageError):
    """A note file holding merge-conflict markers: read as :func:`resolved` until a person resolves it."""

    hint = "keep the right text and delete the marker lines (in an editor, or with memdir edit {id})"  # what the problem line ends with


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def hunks(text: str) -> list[Hunk]:
    """The well-formed conflict hunks of ``text``, in order (``[]`` for almost every file: a quick test first)."""
    if "<<<<<<<" not in text or ">>>>>>>" not in text:
        return []
    lines = text.splitlines(keepends=True)
    out: list[Hunk] = []
    fence = None
    i = 0
    while i < len(lines):
        line = _bare(lines[i])
        f = _FENCE.match(line)
        if f and (fence is None or f.group(1) == fence):
            fence = f.group(1) if fence is None else None
        if fence is None and _OPEN.fullmatch(line):
            got = _hunk(lines, i)
            if got is not None and not (line.startswith("<<<<<<< SEARCH") and _bare(lines[got.end]).startswith(">>>>>>> REPLACE")):
                out.append(got)
                i = got.end + 1
                continue
        i += 1
    return out


def _hunk(lines: list[str], start: int) -> Hunk | None:
    ours: list[str] = []
    theirs: list[str] = []
    part = "ours"
    for j in range(start + 1, len(lines)):
        line = _bare(lines[j])
        if _OPEN.fullmatch(line):
            return None  # another opening before this one closed: not a hunk git wrote
        if part != "theirs" and _BASE.fullmatch(line):
            part = "base"
        elif part != "theirs" and _MID.fullmatch(line):
            part = "theirs"
        elif part == "theirs" and _CLOSE.fullmatch(line):
            return Hunk(start, j, tuple(ours), tuple(theirs))
        elif part == "ours":
            ours.append(lines[j])
        elif part == "theirs":
            theirs.append(lines[j])
    return None


def resolved(text: str, found: list[Hunk] | None = None, *, side: str = "both") -> str:
    """``text`` with each hunk replaced by one side (``side="ours"`` or ``"theirs"``) or by its ours side followed by
    the lines of its theirs side that ours does not hold (``"both"``): what a reader takes from a file not resolved."""
    found = hunks(text) if found is None else found
    if not found:
        return text
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    for h in found:
        out += lines[at:h.start]
        side_lines = list(h.theirs if side == "theirs" else h.ours)
        if side_lines and not side_lines[-1].endswith("\n"):
            side_lines[-1] += "\n"
        if side == "both":
            have = {_bare(x) for x in h.ours}
            side_lines += [x if x.endswith("\n") else x + "\n" for x in h.theirs if _bare(x) not in have]
        out += side_lines
        at = h.end + 1
    out += lines[at:]
    return "".join(out)


def where(found: list[Hunk]) -> str:
    """``lines 4-8`` (1-based) of the first hunk, ``and N more`` after it."""
    h = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return f"lines {h.start + 1}-{h.end + 1}{more}"


def problem(found: list[Hunk]) -> str:
    """The one-line problem a file with ``found`` hunks is reported with."""
    return f"unresolved git merge conflict ({where(found)}): both sides are read without the markers until it is resolved"


def parts(raw: str, found: list[Hunk]) -> tuple[dict, str]:
    """``(frontmatter fields, body)`` of a note file with ``found`` hunks: the fields of its ours side (the version
    the person had before the pull; ``{}`` when that side's frontmatter cannot be read) and the body of both sides:
    in place when the hunks lie below the frontmatter, else ours followed by the lines of theirs it lacks."""
    from memdir.notes import markdown

    def body(text: str) -> str:
        try:
            return markdown.split(text)[1]
        except UsageError:
            return markdown.body_of_broken(text)

    mine = resolved(raw, found, side="ours")
    try:
        meta = markdown.split(mine)[0]
    except UsageError:
        meta = {}
    lines = [ln.strip() for ln in raw.lstrip("\ufeff").splitlines()]
    closed = lines.index("---", 1) if lines[:1] == ["---"] and "---" in lines[1:] else -1
    if closed < found[0].start if closed >= 0 else not mine.lstrip("\ufeff").startswith("---"):
        return meta, body(resolved(raw, found))  # a frontmatter closed above the first hunk, or none on either side
    ours = body(mine)
    theirs = body(resolved(raw, found, side="theirs"))
    have = set(ours.splitlines())
    extra = [ln for ln in theirs.splitlines() if ln not in have]
    return meta, ours.rstrip("\n") + ("\n" + "\n".join(extra) if extra else "") + "\n"
