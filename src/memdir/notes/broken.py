"""What a hand-edited note file's frontmatter says when it cannot be taken as written: a frontmatter opened with
``---`` and never closed (its field lines are fields, never the note's first line, so never its summary), and a field
given twice (YAML keeps the last one silently; ``memdir inspect`` names both), and one that lost its opening ``---``
line (its fields are still read as fields, and ``inspect`` says so). The file itself is never changed.
"""

from __future__ import annotations

import re
from typing import Any

from memdir.notes import markdown

#: a top-level ``key:`` line of YAML (the start of a field; what follows it indented, or ``- item``, continues it)
_FENCE = re.compile(r"-{3,}\s*")  # the line that opens and closes a frontmatter
_KEY = re.compile(r"(?P<q>[\"']?)(?P<key>[A-Za-z_][\w.-]*)(?P=q):(?:\s|$)")


def parts(raw: str) -> tuple[dict[str, Any], str]:
    """``(fields, body)`` of a note file :func:`memdir.notes.markdown.split` refuses. A frontmatter never closed: the
    field lines after the opening ``---`` are left out of the body and only their ``summary`` is taken (the note is
    still indexed by its body alone); when nothing else follows them they stay the body (the note stays findable) and
    the summary is the first field's value. Broken YAML that is closed: ``({}, the text after it)``."""
    body = markdown.body_of_broken(raw)
    rest = raw.lstrip("\ufeff").partition("\n")[2]
    if body != rest:  # closed (only a never-closed frontmatter's body is all of the text after its opening line)
        return {}, body
    lines = rest.split("\n")
    n = 0
    while n < len(lines) and (_KEY.match(lines[n]) or (n and lines[n][:1] in (" ", "\t", "-") and lines[n].strip())):
        n += 1
    if not n:
        return {}, body
    head, tail = "\n".join(lines[:n]), "\n".join(lines[n:]).lstrip("\r\n")
    try:
        meta = markdown.load_frontmatter(head)
    except Exception:  # noqa: BLE001  (any YAML error, a bad date, nesting too deep: no fields, as for broken YAML)
        meta = None
    summary = meta.get("summary") if isinstance(meta, dict) else None
    if (not isinstance(summary, str) or not summary.strip()) and markdown.is_blank(tail):
        summary = next((v for ln in lines[:n] if (m := _KEY.match(ln)) and (v := ln[m.end():].strip())), None)
    return ({"summary": summary} if summary else {}), (tail if not markdown.is_blank(tail) else body)


def repeated(raw: str) -> list[str]:
    """The fields a note file's frontmatter gives more than once, each as one phrase for ``inspect`` (``summary given
    2 times (the last, 'b', is read)``); ``[]`` for a file without frontmatter or with each field once."""
    lines = raw.lstrip("\ufeff").split("\n")
    end = next((i for i, ln in enumerate(lines) if i and _FENCE.fullmatch(ln)), 0)
    if not _FENCE.fullmatch(lines[0]) or not end:  # no frontmatter, or one never closed (reported as such)
        return []
    seen: dict[str, list[str]] = {}
    for line in lines[1:end]:
        m = _KEY.match(line)
        if m:
            seen.setdefault(m.group("key"), []).append(line[m.end():].strip())
    return [f"{k} given {len(v)} times (the last, {v[-1][:40]!r}, is read)" for k, v in seen.items() if len(v) > 1]


def split(raw: str) -> tuple[dict[str, Any], str, str | None]:
    """:func:`memdir.notes.markdown.split`, with a note whose frontmatter lost its opening ``---`` line
    (:func:`memdir.notes.markdown.lost_opening`) read by its fields and the body after their ``---``, not as a body
    whose first line (``summary: …``) would be its summary. Raises ``UsageError`` as ``split`` does."""
    meta, body, fm = markdown.split(raw)
    if fm is not None or not markdown.lost_opening(body):
        return meta, body, fm
    lines = body.split("\n")
    end = [ln.rstrip() for ln in lines].index("---")
    head = "\n".join(lines[:end])
    try:
        got = markdown.load_frontmatter(head)
    except Exception:  # noqa: BLE001  (what YAML cannot read stays the body, as before)
        return meta, body, fm
    return (got, "\n".join(lines[end + 1:]), head) if isinstance(got, dict) else (meta, body, fm)


def problems(raw: str) -> list[str]:
    """What ``inspect`` says of a readable note file's frontmatter beyond its fields' values: fields given twice
    (:func:`repeated`), an opening ``---`` line lost (:func:`split`)."""
    text = raw.lstrip("\ufeff")
    lost = not _FENCE.fullmatch(text.split("\n", 1)[0]) and markdown.lost_opening(text)
    return repeated(raw) + (["the frontmatter lost its opening '---' line (its fields are read as fields until it is "
                             "put back)"] if lost else [])
