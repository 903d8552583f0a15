"""Compiled indexes: ``<category>/index.md`` and ROOT.md's registry and routing tables (seed 000).

Generated text lives between ``<!-- auto:begin NAME`` and ``<!-- auto:end`` lines; everything outside them
is kept byte for byte, and a line inside them that compile would not write (a person's) is moved just below the
end marker and reported, never dropped. Marker lines are matched loosely (the seed's ROOT example leaves them unclosed, without
``-->``) and kept as they were. A block whose end marker is missing is left untouched and reported.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from memdir.notes import conflicts

_BEGIN = re.compile(r"^\s*<!--\s*auto:begin\s+([\w-]+)")
_END = re.compile(r"^\s*<!--\s*auto:end\b")
UNMERGED = "left untouched"  # how a problem of a page in a merge conflict begins (replace_block writes nothing)


@dataclass
class Entry:
    """What the compiler needs of a note."""

    id: str
    category: str
    slug: str
    kind: str
    summary: str
    load_when: tuple[str, ...]
    pinned: bool
    superseded_by: str | None
    updated_epoch: float


def cell(text: str, limit: int = 80) -> str:
    """Make ``text`` safe for one Markdown table cell: one line, ``|`` escaped, HTML comment/markers defused."""
    t = re.sub(r"\s+", " ", str(text)).strip()
    if len(t) > limit:
        t = t[: limit - 1].rstrip() + "…"
    return t.replace("\\", "\\\\").replace("|", "\\|").replace("<!--", "&lt;!--").replace("-->", "--&gt;")


def find_blocks(text: str) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """Locate auto blocks: ``{name: (first content line index, end marker line index)}`` and problems. A marker
    inside a merge conflict a ``git pull`` left (one side's block, or both) makes no block: the page is left alone."""
    lines = text.splitlines(keepends=True)
    blocks: dict[str, tuple[int, int]] = {}
    problems: list[str] = []
    torn = [h for h in conflicts.hunks(text) if any(_BEGIN.match(x) or _END.match(x) for x in lines[h.start:h.end + 1])]
    if torn:
        return blocks, [f"{UNMERGED}: an auto marker lies inside an unresolved git merge conflict "
                        f"({conflicts.where(torn)}): resolve it (keep one side's block) and memdir compiles it again"]
    i = 0
    while i < len(lines):
        m = _BEGIN.match(lines[i])
        if m:
            name = m.group(1)
            j = i + 1
            while j < len(lines) and not _END.match(lines[j]) and not _BEGIN.match(lines[j]):
                j += 1
            if j < len(lines) and _END.match(lines[j]):
                if name in blocks:
                    problems.append(f"auto block {name!r} appears twice; only the first is compiled")
                else:
                    blocks[name] = (i + 1, j)
                i = j + 1
                continue
            problems.append(f"auto block {name!r} has no auto:end marker; left untouched: add a line "
                            f"'<!-- auto:end {name} -->' where its generated lines end (reindex does not add it)")
            i = j
            continue
        i += 1
    return blocks, problems


def replace_block(text: str, name: str, content_lines: list[str], *, default_section: str) -> tuple[str, list[str]]:
    """Return ``text`` with block ``name``'s content replaced (appended as a new section if absent)."""
    blocks, problems = find_blocks(text)
    lines = text.splitlines(keepends=True)
    body = [ln if ln.endswith("\n") else ln + "\n" for ln in content_lines]
    if name in blocks:
        start, end = blocks[name]
        old = lines[start:end]
        # keep a hand-tuned header (e.g. Chinese column names) when it has the same number of columns
        if len(old) >= 2 and len(body) >= 2 and old[0].lstrip().startswith("|") and old[0].count("|") == body[0].count("|") \
                and re.match(r"^\s*\|[\s:|-]+\|\s*$", old[1]):
            body = old[:2] + body[2:]
        # a line compile never writes is a person's: kept just below the end marker, never dropped
        # (the marker lines of a git merge conflict inside the block are resolved by compiling it, not kept)
        hunk = {i for h in conflicts.hunks(text) for i in range(h.start, h.end + 1)}
        kept = [ln if ln.endswith("\n") else ln + "\n" for i, ln in enumerate(old, start)
                if not _own(ln, body) and not (i in hunk and _CONFLICT_MARK.match(ln))]
        if kept:
            problems.append(f"{len(kept)} hand-written line{'s' if len(kept) > 1 else ''} inside auto block {name!r} "
                            "moved just below its auto:end line (memdir rewrites what lies between the markers)")
            mark = lines[end] if lines[end].endswith("\n") else lines[end] + "\n"
            return "".join(lines[:start] + body + [mark] + kept + lines[end + 1:]), problems
        return "".join(lines[:start] + body + lines[end:]), problems
    if any(f"auto block {name!r}" in p or p.startswith(UNMERGED) for p in problems):
        return text, problems
    sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    head = f"{default_section}\n" if default_section else ""
    new = f"{sep}{head}<!-- auto:begin {name} -->\n" + "".join(body) + "<!-- auto:end -->\n"
    return text + new, problems


_INDEX_LINE = re.compile(r"^- \[([^\]]+)\]\(\1\.md\)")  # ``- [slug](slug.md) …``: what index_lines writes
_NO_NOTES = "_(no notes yet)_"
_CONFLICT_MARK = re.compile(r"(?:<{7}|>{7}|={7}|\|{7})(?:[ \t]|\r?$)")


def _cells(line: str) -> int:
    """How many cells a Markdown table row has (``\\|`` is a pipe inside a cell); 0 for a line that is no row."""
    t = line.strip()
    return re.sub(r"\\.", "", t).count("|") - 1 if len(t) > 1 and t[0] == t[-1] == "|" else 0


def _own(line: str, body: list[str]) -> bool:
    """Whether ``line`` of a block is of a kind compile writes there (a table row with the body's columns, an index
    line, a blank line), so dropping it loses nothing a person wrote; a stale row of a deleted note is one too."""
    t = line.strip()
    if not t:
        return True
    width = _cells(body[0]) if body else 0
    if width:
        return _cells(t) == width
    return bool(_INDEX_LINE.match(t)) or t == _NO_NOTES


def index_lines(entries: list[Entry]) -> list[str]:
    """One line per file: ``- [slug](slug.md) — summary`` plus ``(pinned)`` / ``(superseded by …)``."""
    out = []
    for e in sorted(entries, key=lambda e: e.slug):
        flags = (" (pinned)" if e.pinned else "") + (f" (superseded by {cell(e.superseded_by, 60)})" if e.superseded_by else "")
        out.append(f"- [{e.slug}]({e.slug}.md) — {cell(e.summary, 100)}{flags}")
    return out or [_NO_NOTES]


def index_md(category: str, entries: list[Entry], existing: str | None) -> tuple[str, list[str]]:
    """The compiled ``index.md`` for one category."""
    text = existing if existing is not None else f"# {category}\n\nOne line per note, compiled by memdir from the files' frontmatter.\n"
    return replace_block(text, "index", index_lines(entries), default_section="")


def registry_lines(entries: list[Entry], categories: list[str]) -> list[str]:
    by_cat: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        by_cat[e.category].append(e)
    out = ["| dir | summary | entries |", "|---|---|---|"]
    for cat in sorted(set(categories) | set(by_cat)):
        es = by_cat.get(cat, [])
        if not es:
            continue
        live = [e for e in es if not e.superseded_by]
        newest = max(live or es, key=lambda e: e.updated_epoch)
        pinned = sum(e.pinned for e in es)
        count = f"{len(es)}" + (f" ({pinned} pinned)" if pinned else "")
        out.append(f"| {cat}/ | {cell(newest.summary, 40)} | {count} |")
    return out


def routing_lines(entries: list[Entry]) -> list[str]:
    out = ["| when | file | kind |", "|---|---|---|"]
    rows = sorted({(w, f"{e.category}/{e.slug}.md", e.kind) for e in entries if not e.superseded_by for w in e.load_when},
                  key=lambda r: (r[0].casefold(), r[1]))
    out += [f"| {cell(w, 40)} | {cell(f, 80)} | {cell(k, 20)} |" for w, f, k in rows]
    return out


def root_md(scope: str, entries: list[Entry], categories: list[str], existing: str | None) -> tuple[str, list[str]]:
    """The compiled ``ROOT.md``: registry and routing tables refreshed, everything else kept."""
    text = existing if existing is not None else (
        f"# Memory root ({scope})\n\n"
        "> Compiled by memdir: the tables between `auto:begin` and `auto:end` are generated from the notes'\n"
        "> frontmatter; write anything you like elsewhere.\n\n"
        "## Current goals\n\n<!-- hand-written: what you are working on now -->\n\n"
        "## Hard rules\n\n<!-- notes in rules/ are injected into every prompt -->\n\n"
    )
    text, p1 = replace_block(text, "registry", registry_lines(entries, categories), default_section="## Registry\n")
    text, p2 = replace_block(text, "routing", routing_lines(entries), default_section="## Routing\n")
    return text, p1 + [p for p in p2 if p not in p1]
