"""The hand-written part of ``ROOT.md`` (seeds 000 and 002): its current goals, its hard rules and its routing table.

``ROOT.md`` is a person's page: a goals section (``## Current goals``, ``## 当前目标``) and a hard-rules section
(``## Hard rules``, ``## 铁规则（常驻，永不衰减）``) hold what the model must always see; a routing table maps a
trigger (a word a prompt may name) to a note file or a category. This module only reads the text: what is inside
HTML comments and between ``auto:begin``/``auto:end`` markers (compiled by :mod:`memdir.notes.compile`) is not a
goal or a rule, but compiled routing rows are routing rows like hand-written ones.

Items: each list item (``-``, ``*``, ``+``, ``1.``, ``1)``, with its indented continuation lines) is one item; a
paragraph of plain lines is one item; a checked goal (``- [x] …``) is done and left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memdir.errors import UsageError
from memdir.notes import conflicts
from memdir.notes.compile import find_blocks

#: heading texts (case-folded, a trailing parenthetical removed) that open each section; a heading that starts with
#: one of these words counts ("Hard rules for this repo", "铁规则（常驻）")
GOAL_HEADS = ("current goals", "current goal", "goals", "goal", "当前目标", "目标", "目前目标")
RULE_HEADS = ("hard rules", "hard rule", "rules", "rule", "铁规则", "硬规则", "规则", "铁律")
MAX_ITEM = 2000  # chars of one item kept (a paragraph pasted by mistake stays bounded in the block)

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_CHECK = re.compile(r"^\[([ xX])\]\s+")
_PAREN = re.compile(r"\s*[（(][^（()）]*[)）]\s*$")
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_RULE_ROW = re.compile(r"^[\s|:-]+$")


@dataclass
class RootPage:
    """What ``ROOT.md`` says by hand: ``goals`` and ``rules`` as item texts in page order, ``routes`` as
    ``(trigger, target)`` pairs (``target`` a note path such as ``pitfalls/x.md`` or a category such as
    ``pitfalls/``)."""

    goals: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    routes: list[tuple[str, str]] = field(default_factory=list)


def section_kind(heading: str) -> str | None:
    """``"goals"``, ``"rules"`` or ``None`` for a heading's text."""
    h = _PAREN.sub("", heading.strip()).strip().casefold().rstrip(":：")
    if h.startswith(GOAL_HEADS):
        return "goals"
    if h.startswith(RULE_HEADS):
        return "rules"
    return None


def strip_comments(lines: list[str]) -> list[str]:
    """``lines`` with HTML comments removed (one comment may span lines; an unclosed one runs to the line's end, as
    the seed's unclosed ``<!-- auto:end`` markers do)."""
    out: list[str] = []
    inside = False
    for ln in lines:
        text = ""
        rest = ln
        while rest:
            if inside:
                end = rest.find("-->")
                if end < 0:
                    rest = ""
                    break
                rest, inside = rest[end + 3:], False
                continue
            start = rest.find("<!--")
            if start < 0:
                text += rest
                break
            text += rest[:start]
            rest = rest[start + 4:]
            inside = True
        # an unclosed marker line (``<!-- auto:end``) ends the comment with its line
        if inside and re.match(r"^\s*<!--\s*auto:(begin|end)\b", ln) and "-->" not in ln:
            inside = False
        out.append(text)
    return out


def items_of(lines: list[str], *, goals: bool) -> list[str]:
    """The items of one section's lines (comments already removed)."""
    items: list[list[str]] = []
    open_item = False
    for raw in lines:
        ln = raw.rstrip()
        if not ln.strip():
            open_item = False
            continue
        m = _BULLET.match(ln)
        if m:
            items.append([m.group(1).strip()])
            open_item = True
        elif open_item:
            items[-1].append(ln.strip().lstrip("> ").strip())
        else:
            items.append([ln.strip().lstrip("> ").strip()])
            open_item = True
    out: list[str] = []
    for parts in items:
        text = " ".join(p for p in parts if p).strip()
        check = _CHECK.match(text)
        if check:
            if goals and check.group(1) in "xX":
                continue
            text = text[check.end():].strip()
        if text and not _RULE_ROW.match(text):
            out.append(text[:MAX_ITEM])
    return list(dict.fromkeys(out))


def routes_of(lines: list[str]) -> list[tuple[str, str]]:
    """``(trigger, target)`` of every table row whose second cell names a note file or a category (``x/y.md``,
    ``x/``); header and separator rows are skipped. Several triggers in one cell may be split by ``,`` ``、`` ``/``."""
    out: list[tuple[str, str]] = []
    for ln in lines:
        m = _ROW.match(ln)
        if not m or _RULE_ROW.match(ln):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", m.group(1))]
        if len(cells) < 2:
            continue
        target = cells[1].strip("` ")
        if not re.fullmatch(r"[\w.-]+/(?:[\w.-]+\.md)?", target):
            continue
        for trig in re.split(r"\s*[,，、;；]\s*", cells[0]):
            trig = trig.strip("` ")
            if trig:
                out.append((trig, target))
    return list(dict.fromkeys(out))


def parse(text: str) -> RootPage:
    """Read a ``ROOT.md``'s text into a :class:`RootPage` (never raises on odd Markdown: what is not understood is
    not an item). Merge-conflict markers a ``git pull`` left are not items: both sides' lines are read."""
    text = conflicts.resolved(text)
    lines = text.splitlines()
    blocks, _ = find_blocks(text)
    compiled = set()
    for start, end in blocks.values():
        compiled.update(range(start - 1, end + 1))  # the markers and what lies between
    page = RootPage()
    page.routes = routes_of([ln for ln in lines if "|" in ln])
    visible = strip_comments([("" if i in compiled else ln) for i, ln in enumerate(lines)])
    current: str | None = None
    level = 0
    body: dict[str, list[str]] = {"goals": [], "rules": []}
    fence = False
    for ln in visible:
        if ln.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _HEADING.match(ln)
        if m:
            depth = len(m.group(1))
            kind = section_kind(m.group(2))
            if kind is not None:
                current, level = kind, depth
                continue
            if current is not None and depth <= level:
                current = None
            continue  # a sub-heading inside a section is structure, not an item
        if current is not None:
            body[current].append(ln)
    page.goals = items_of(body["goals"], goals=True)
    page.rules = items_of(body["rules"], goals=False)
    return page


def slugs(page: RootPage) -> list[str]:
    """The slug of each item, numbered in page order: ``goal-01``…, then ``rule-01``…"""
    return [f"goal-{i:02d}" for i in range(1, len(page.goals) + 1)] + \
        [f"rule-{i:02d}" for i in range(1, len(page.rules) + 1)]


def item(page: RootPage, slug: str) -> tuple[str, str]:
    """``(kind, text)`` of the item ``slug`` (``"goal"`` or ``"rule"``); raises ``UsageError`` when the page has no
    such item (any more)."""
    kind, _, num = slug.partition("-")
    items = page.goals if kind == "goal" else page.rules if kind == "rule" else []
    if not num.isdigit() or not 1 <= int(num) <= len(items):
        raise UsageError(f"ROOT.md has no item {slug!r} (any more): see `memdir inspect`")
    return kind, items[int(num) - 1]
