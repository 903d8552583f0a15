"""The ``<memory>`` block injected before each model request (seed 000's three layers), built for the reader.

1. **Rules** — the hard rules written in ROOT.md and every live note in ``rules/`` (global first, then project),
   always; then ROOT.md's current goals under their own heading.
2. **Outline** — the registry: categories with counts and their newest summaries, always (cheap).
3. **Relevant** — the best recall hits, at most ``max_entries``, within the ``max_chars`` budget.

Each entry is one compact header and its text: ``[k3f9qa decision 11-02] text…`` — a short handle that
``memdir get``/``forget`` (and the MCP tools) accept, the kind (note kind or event role) and the date (``MM-DD`` in
the current year, else ``YYYY-MM-DD``). What an entry shows:

* the part of a long text that matched (the passage recall found, then the lines richest in the query's rare terms),
  not its start; cuts are marked ``…``;
* for a matched user question, the reply that answered it (prefixed ``re: "question"``) — an earlier question alone
  answers nothing, and the prompt being submitted never comes back as its own memory (``memdir.core``);
* a tool call as a one-line summary unless its output is the evidence; file dumps (``Read`` outputs) as one line,
  after everything else.

The room left after the rules and outline is shared among the entries by water-filling (a short entry gives what it
does not need to the others). Small budgets degrade in order: the best hit is truncated before anything is dropped
(below ~90 chars its header shrinks to ``[handle]`` and the ``## Relevant`` heading goes; a block of entries
only — what a hook sends per prompt — has no heading at all), rules and outline lose
items with a visible ``- …+N more`` line rather than silently. The whole block, tags included, is at most
``max_chars`` characters. Memory text is escaped so it can never close or forge the block or an entry header.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# the window functions live in memdir.inject.window; the block's callers (and tests) read them here too
from memdir.inject.hosttags import defuse
from memdir.notes.markdown import INVISIBLE as _INVISIBLE  # what renders as nothing: it could hide a tag
from memdir.inject.window import (  # noqa: F401
    BEST_LINE_SCAN, CALL_HEAD, FOCUS_LINE, MARKER as _MARKER, PATH_BONUS, best_line, call_line, focus, one_line,
    truncate,
)

OPEN = "<memory>"
CLOSE = "</memory>"
_TAGLIKE = re.compile(r"<(?=\s*/?\s*m\s*e\s*m\s*o\s*r\s*y)", re.I)
_CALL = re.compile(r"[A-Za-z_][\w.-]{0,40}: ")  # a tool entry's call line: "Bash: …", "exec_command: …"
#: a stored "## Rules" or "[abc123 …]" line cannot forge structure, whatever blank it starts with (a space, a no-break
#: or em space, a braille blank)
_HEADING = re.compile(r"(?m)^((?:[^\S\n]|\u2800)*)([#\[])")
#: inside a code block a line starting with ``[`` is code (``[tool.poetry]``, ``[[package]]``): escaped only when it
#: reads as an entry header (a handle, maybe a kind and a date, then ``] `` and text)
_HEADER_LIKE = re.compile(r"^(?:[^\S\n]|\u2800)*\[[a-z0-9]{4,12}(?: [^\]\n]{0,40})?\][^\S\n]+\S")
#: a kind the header shows as it is: one word of letters, digits, ``_`` or ``-`` (``decision``, ``决定``)
KIND_WORD = re.compile(r"[^\W_][\w-]{0,23}")
#: how an event role reads in a header (shorter; what the reader needs is who said it)
KIND_LABEL = {"assistant": "agent"}
MIN_BODY = 20  # chars of text an entry shows at least, or it is not shown
CALL_STUB = 32  # a tool call cut shorter than this, with none of its output, is not shown (its room goes to the others)
MIN_HIT_ROOM = 40  # chars the best hit keeps when rules and goals need room for their count lines
TOP_SHARE = 2.0  # the best entry's share of the room relative to each other entry's (chosen on bench/session_qa.py)
TRIVIAL_OUTPUT = 32  # a tool output of one line this short says nothing by itself: the call is shown instead
FILE_DUMP_TOOLS = ("read", "read_file", "view", "notebookread", "cat")
#: the most text an entry asks for in the water-filling (beyond its header and lead): a long entry's matching part,
#: not all of it, so what it does not need goes to the others and then to :data:`SPARE_BRIEF` one-liners.
#: bench/block_qa.py, tuning half (with SPARE_BRIEF 4): none 79, 250 → 80, 300 → 80, 350 → 81, 450 → 80 of 158
WINDOW_CAP = 350
#: tool entries ranked past ``max_entries`` shown as their call and best line in the room the entries leave unused
#: (block-QA tuning 78 -> 79 of 158 alone; agent turns too: 78). 3 and 4 both 83 with the cap; 3 keeps the
#: validation half's markup under 10% (9.99% against 10.02%)
SPARE_BRIEF = 3


#: compatibility forms that could spell a tag: full-width/small ``< > /`` and full-width Latin letters → ASCII
_FOLD = {0xFF1C: "<", 0xFF1E: ">", 0xFE64: "<", 0xFE65: ">", 0xFF0F: "/", 0x3000: " ",
         # a line or paragraph separator starts a line as a reader sees it: a newline, so the line is escaped as one
         # (a "[abc123 rule …]" or "## Rules" after U+2028 passed for an entry or a heading); full-width # [ ] too
         0x2028: "\n", 0x2029: "\n", 0xFF03: "#", 0xFF3B: "[", 0xFF3D: "]",
         **{c: chr(c - 0xFEE0) for c in range(0xFF21, 0xFF3B)}, **{c: chr(c - 0xFEE0) for c in range(0xFF41, 0xFF5B)}}


def escape(text: str) -> str:
    """Make stored text safe inside the block: fold the compatibility forms that could spell a tag (full-width
    ``＜ｍｅｍｏｒｙ＞`` becomes ASCII; Chinese punctuation such as ``，`` is kept), drop invisible format characters
    and control characters other than newline/tab, then turn the ``<`` of anything that reads as a ``<memory>`` /
    ``</memory>`` tag into ``&lt;``."""
    text = text.translate(_FOLD)
    text = _INVISIBLE.sub("", text)
    text = defuse(_visible(text))  # a host's own tags (``<system-reminder>``) as text, too
    return _look_alike_tags(_TAGLIKE.sub("&lt;", text))


#: what a combining mark cannot belong to: it renders on nothing (or on a dotted circle) after a blank, at a line's
#: start or after ASCII punctuation, so a reader skips it there and sees the ``<``, ``/``, ``[`` or ``#`` around it
_NO_BASE = frozenset(" \t\n!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _visible(text: str) -> str:
    """``text`` without control characters other than newline and tab, and without combining marks that have no
    letter to sit on: ``<\u0301/memory>`` or a line starting ``\u0301[abc123 rule …]`` read as the tag and the entry
    header they hide (case C27's kind); an accent on a letter (``é`` written as ``e`` + U+0301) stays."""
    if text.isascii():
        return text if text.isprintable() else "".join(ch for ch in text if ch in "\n\t" or " " <= ch < "\x7f")
    out: list[str] = []
    prev = "\n"
    for ch in text:
        cat = unicodedata.category(ch)
        if (cat == "Cc" and ch not in "\n\t") or (cat[0] == "M" and (prev in _NO_BASE or prev.isspace())):
            continue
        out.append(ch)
        prev = ch
    return "".join(out)


#: characters that read as ``<`` and ``/``, and letters of other scripts that read as those of ``memory``
_LT_LIKE = "\u2039\u02c2\u1438\ufe64\uff1c\u2329\u27e8\u276e\u3008\u226e"
_LOOKS = str.maketrans({"\u2044": "/", "\u2215": "/", "\u29f8": "/", "\uff0f": "/", "\u0441": "c",
                        "\u043c": "m", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0433": "r", "\u0443": "y",
                        "\u04af": "y", "\u03bf": "o", "\u03b5": "e", "\u0261": "g", "\u1d0d": "m", "\u0280": "r"})
_LOOK_CANDIDATE = re.compile("[<" + _LT_LIKE + "]")
_TAG_AHEAD = re.compile(r"\s*/?\s*m\s*e\s*m\s*o\s*r\s*y")


def _as_read(text: str) -> str:
    """How ``text`` (what follows a ``<``) reads: character references resolved (``&#101;`` is ``e``), compatibility
    forms folded (NFKC), combining marks dropped (``é`` is ``e``), look-alike letters of other scripts as Latin."""
    if "&" in text:
        import html

        text = html.unescape(text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch) and unicodedata.category(ch)[0] != "M")
    return unicodedata.normalize("NFKC", text).translate(_LOOKS).casefold()


def _may_read_as_tag(ahead: str) -> bool:
    """False when what follows a ``<`` cannot read as ``memory`` or ``/memory`` however :func:`_as_read` reads it: its
    first character after blanks (and a ``/``) is ASCII and none of ``m``, ``M`` or the ``&`` of a character reference
    (ASCII letters fold to themselves). Most ``<`` of code and markup (``<b>``, ``</li>``, ``a < b``) end here: reading
    96 characters through NFKD for each of them made a block of large tool outputs several times slower to build."""
    rest = ahead.lstrip()
    if rest[:1] == "/":
        rest = rest[1:].lstrip()
    c = rest[:1]
    return not c.isascii() or c in "mM&" or not c


def _look_alike_tags(text: str) -> str:
    """``text`` with the ``<`` (or a character that reads as one: ``‹``, ``˂``, ``ᐸ``) of anything that reads as a
    ``<memory>`` or ``</memory>`` tag once its compatibility forms are folded (NFKC: mathematical bold letters) and
    look-alike letters of other scripts read as Latin (Cyrillic ``о``, a fraction slash), accents on its letters
    dropped (``</mémory>``) and character references read (``</m&#101;mory>``) turned into ``&lt;``."""
    if text.isascii() and "&" not in text:  # every look-alike is outside ASCII; plain "<" forms were escaped already
        return text
    out, last = [], 0
    for m in _LOOK_CANDIDATE.finditer(text):
        ahead = text[m.end():m.end() + 96]
        if _may_read_as_tag(ahead) and _TAG_AHEAD.match(_as_read(ahead)):
            out.append(text[last:m.start()] + "&lt;")
            last = m.end()
    return "".join(out) + text[last:] if out else text


@dataclass
class Entry:
    """One memory to show: ``id`` (note id / event key, for de-duplication), ``handle``, ``kind``, ``date`` (already
    formatted), ``text``; ``span`` = the passage recall matched (chars of ``text``); ``lead`` = a line shown before the
    text (``re: "question"`` for a reply); ``brief`` = show one line only; ``dump`` = a file dump (placed last);
    ``team`` = a teammate's memory from the team server (marked ``team`` in the header, as recall marks it);
    ``paths`` = the question asks which file, where or what URL: the window prefers a part holding a path or URL;
    ``urls`` = it asks for a web address: only a part holding a URL is preferred; ``decision`` = it asks what was
    decided: a part saying what was decided or recommended is preferred; ``answer`` = the shape of the line the
    question's kind looks for (:func:`memdir.inject.kinds.answer_line`: a test verdict, a commit, the error line of a
    failing output): a part holding one is preferred; ``follows`` = the tool call an agent turn shown just above led
    to (:func:`memdir.engine.context.follow_ups`): never left out as a near-duplicate."""

    id: str
    handle: str
    kind: str
    date: str
    text: str
    span: tuple[int, int] | None = None
    lead: str = ""
    brief: bool = False
    dump: bool = False
    show_date: bool = True
    team: bool = False
    paths: bool = False
    urls: bool = False
    decision: bool = False
    answer: re.Pattern[str] | None = None
    follows: bool = False

    def header(self, full: bool = True) -> str:
        if not full:
            return f"[{self.handle}] "
        kind = KIND_LABEL.get(self.kind, self.kind)
        if kind and not KIND_WORD.fullmatch(kind):
            # a note's kind is stored text (remember's argument, a hand-typed frontmatter): one that is no plain word
            # could close the block, end the header or start a line of its own here
            kind = "note"
        if self.kind == "tool" and _CALL.match(self.lead or self.text):
            kind = ""  # "[handle date] Bash: make test → …": the call names the tool
        return "[" + " ".join(x for x in (self.handle, "team" if self.team else "", kind,
                                          self.date if self.show_date else "") if x) + "] "


#: a Markdown code fence line (at most three spaces in): its marker and what follows it; a backtick fence's info
#: string holds no backtick (```x``` on one line is inline code, not a fence)
_FENCE = re.compile(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})(.*)$")
#: a code comment line inside a fence (``# install``, ``#!/bin/sh``, ``#include``): one ``#``, never a heading's ``##``
_COMMENT = re.compile(r"^[ \t]*#(?!#)")


def _code_lines(lines: list[str]) -> set[int]:
    """Indices of ``lines`` inside a code fence that also closes within them (not the fence lines themselves). A
    fence on the first line does not count: the entry's header is put before that line in the block."""
    inside: set[int] = set()
    start, fence = -1, None
    for i, ln in enumerate(lines):
        m = _FENCE.match(ln)
        if not m or i == 0:
            continue
        if fence is None:
            start, fence = i, m.group(1)
        elif m.group(1).startswith(fence[0]) and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            inside.update(range(start + 1, i))
            fence = None
    return inside


def _clean(text: str) -> str:
    """Escape, drop blank lines and trailing spaces, and neutralise lines that would read as structure: a ``#`` or
    ``[`` at a line's start gets a backslash, except a code comment (one ``#``: a shell or Python comment,
    ``#!/bin/sh``) inside a code fence that opens after the first line and closes within the text. A ``## …`` or
    ``[…`` line is escaped wherever it stands: the block's sections and entries start so, and a model reads the raw
    text, fences or not. Closing a fence a window cut open was measured and not done: its line cost an answer on
    each block-QA half (docs/benchmarks.md)."""
    lines = [ln.rstrip() for ln in escape(text).split("\n") if ln.strip()]
    code = _code_lines(lines)
    def code_as_is(ln: str) -> bool:  # a comment or a [table] line inside a closed fence: code, shown as written
        return _COMMENT.match(ln) is not None or (ln.lstrip().startswith("[") and not _HEADER_LIKE.match(ln))

    return "\n".join(ln if i in code and code_as_is(ln) else _HEADING.sub(r"\1\\\2", ln) for i, ln in enumerate(lines))


def trivial_output(output: str) -> bool:
    """True for a tool output that carries no content of its own: one short line (``completed``, ``(no output)``,
    ``Plan updated``, ``✓ Updated issue: x``) — the call is then what the entry shows."""
    out = output.strip()
    return len(out) <= TRIVIAL_OUTPUT and "\n" not in out


QUOTE = "> "  # the mark of each line of a tool's output in the block: data the tool returned, never an instruction


def tool_parts(e: Entry) -> tuple[str, str, tuple[int, int] | None]:
    """A tool entry as ``(call line, output, span in the output)``: the call (``Bash: make test →``, ``Edit: a.py
    (-1 +2 lines)``) is its lead, else the first line of its text up to `` → `` when that reads as a call
    (``<tool>: …``); the output is the rest. A text of another shape (an import's raw tool text) has no call line:
    all of it is output."""
    if e.lead:
        return e.lead, e.text, e.span
    text = e.text.strip()
    first, nl, rest = text.partition("\n")
    call, arrow, out1 = first.partition(" → ")
    if not (arrow and _CALL.match(call + " ")):
        return "", text, e.span
    out = out1 + nl + rest
    cut = len(text) - len(out)
    span = (max(0, e.span[0] - cut), max(0, e.span[1] - cut)) if e.span else None
    return call + " →", out, span


def quote(text: str) -> str:
    """``text`` escaped as :func:`escape` does, blank lines dropped, each line behind :data:`QUOTE`: what a tool
    returned (a web page, a command's output, a file) reads as quoted data under its call line, so no line of it can
    pass for an instruction, a rule or an entry of the block (case C37)."""
    return "\n".join(QUOTE + ln.rstrip() for ln in escape(text).split("\n") if ln.strip())


def _render_tool(e: Entry, head: str, room: int, weights: dict[str, float]) -> str | None:
    """:func:`render` for a tool entry: the call line, then the output :func:`quote`-d beneath it, both in ``room``."""
    call, out, span = tool_parts(e)
    avail = room - len(head)
    line = _clean(" ".join(call.split()))
    if not line:  # no call line: the header, then the text quoted beneath it
        head, line = head.rstrip(), ""
    if not out.strip():
        return head + truncate(line, avail) if avail >= min(MIN_BODY, len(line) or MIN_BODY) else None
    least = min(MIN_BODY, len(one_line(out, 120)) if e.brief else len(out.strip()))  # what the output needs at least
    if len(line) + 1 + len(QUOTE) + least > avail:  # the call gives up room first, down to MIN_BODY
        line = truncate(line, max(MIN_BODY, avail - 1 - len(QUOTE) - least))
    rest = avail - len(line) - 1
    if rest < len(QUOTE) + least:
        # no room for any of the output: the call alone; one cut shorter than CALL_STUB ("Bash: ./scripts/dep…") says
        # nothing, so the entry gives its room to the others
        full = _clean(" ".join(call.split()))
        if not line or avail < (MIN_BODY if len(full) <= avail else CALL_STUB):
            return None
        return head + truncate(full, avail)
    size = rest
    for _ in range(4):  # each shown line costs its quote mark: focus again in what is left after them
        raw = best_line(out, weights, max(MIN_BODY, min(size - len(QUOTE), 120))) if e.brief else focus(out.strip(), weights, size, span, tail=True, paths=e.paths, urls=e.urls, decision=e.decision, answer=e.answer)
        body = quote(raw)
        if len(body) <= rest or size <= MIN_BODY:
            break
        # shrink past the overshoot by a quote mark: a window one char smaller is often the same lines, and the cut
        # below would drop its last line (the one that matched, when the window ends there)
        size = max(MIN_BODY, size - (len(body) - rest) - len(QUOTE))
    if len(body) > rest:
        body = truncate(body, rest)
    return head + line + "\n" + body


def render(e: Entry, room: int, weights: dict[str, float], *, full: bool = True) -> str | None:
    """The entry in at most ``room`` chars (header included), or ``None`` when fewer than ``MIN_BODY`` chars of text
    would fit. A tool entry is its call line with the output quoted beneath it (:func:`quote`)."""
    head = e.header(full)
    if e.kind == "tool":
        return _render_tool(e, head, room, weights)
    lead = _clean(e.lead) + "\n" if e.lead else ""
    avail = room - len(head) - len(lead)
    least = min(MIN_BODY, len(e.text.strip()) or MIN_BODY)  # a short text ("(no output)") needs only itself
    if avail < least:
        lead, avail = "", room - len(head)
        if avail < least:
            return None
    raw = best_line(e.text, weights, max(MIN_BODY, min(avail, 120))) if e.brief else focus(e.text.strip(), weights, avail, e.span, tail=e.kind == "tool", paths=e.paths, urls=e.urls, decision=e.decision, answer=e.answer)
    body = _clean(raw)
    if len(body) > avail:
        body = truncate(body, avail)
    return head + lead + body


def natural(e: Entry, weights: dict[str, float]) -> int:
    """Chars the entry would take with no budget (header included)."""
    if e.kind == "tool":
        call, out, _ = tool_parts(e)
        shown = best_line(out, weights, 120) if e.brief else out
        return len(e.header()) + len(" ".join(call.split())) + (1 + len(quote(shown)) if shown.strip() else 0)
    head = len(e.header()) + (len(e.lead) + 1 if e.lead else 0)
    if e.brief:
        return head + len(best_line(e.text, weights, 120))
    return head + len(e.text.strip())


def need(e: Entry, weights: dict[str, float]) -> int:
    """Chars the entry asks for when the room is shared: :func:`natural`, its text capped at :data:`WINDOW_CAP`."""
    full = natural(e, weights)
    return full if e.brief else min(full, len(e.header()) + len(e.lead) + 1 + WINDOW_CAP)


def spare_briefs(rest: list[Entry], spare: int, weights: dict[str, float]) -> list[str]:
    """Up to :data:`SPARE_BRIEF` of the tool entries in ``rest`` (best first; file dumps skipped), each as its call
    line and best-matching output line (no date), that fit whole in ``spare`` chars (one newline each)."""
    from dataclasses import replace

    out: list[str] = []
    for e in rest[:2 * SPARE_BRIEF]:
        if len(out) >= SPARE_BRIEF or spare < len(e.handle) + 3 + MIN_BODY:
            break
        if e.kind != "tool" or e.dump:
            continue
        b = replace(e, brief=True, span=None, show_date=False)
        size = natural(b, weights)
        piece = render(b, size, weights) if size + 1 <= spare else None
        if piece:
            out.append(piece)
            spare -= len(piece) + 1
    return out


def waterfill(needs: list[int], room: int, shares: list[float] | None = None) -> list[int]:
    """Share ``room`` among items needing ``needs`` chars, in proportion to ``shares`` (default equal): each gets
    ``min(need, its share)``, and what an item does not use goes to the others."""
    shares = shares or [1.0] * len(needs)
    alloc = [0] * len(needs)
    left = list(range(len(needs)))
    while left and room > 0:
        total = sum(shares[i] for i in left)
        fair = {i: int(room * shares[i] / total) for i in left}
        small = [i for i in left if needs[i] <= fair[i]]
        if not small:
            for i in left:
                alloc[i] = fair[i]
            return alloc
        for i in small:
            alloc[i] = needs[i]
            room -= needs[i]
        left = [i for i in left if i not in small]
    return alloc


def _dated(entries: list[Entry]) -> list[Entry]:
    """``entries`` with each date shown once per run: an entry dated like the one before it shows no date."""
    last = None
    for e in entries:
        e.show_date = e.date != last
        last = e.date
    return entries


def _near_duplicates(entries: list[Entry], weights: dict[str, float]) -> list[Entry]:
    """``entries`` without those whose matched text repeats an earlier one's (the same spec printed by two commands,
    a message quoted in a tool output): 60% or more of its tokens already in one earlier entry."""
    from memdir.recall.tokenize import tokenize

    kept: list[tuple[Entry, set[str]]] = []
    for e in entries:
        text = e.text[e.span[0]:e.span[1]] if e.span else e.text[:1500]
        toks = set(tokenize(text))
        # the later entry adds little when most of its own tokens are already shown (a short earlier entry whose
        # words a long later one contains is no reason to drop the long one)
        if toks and not e.follows and any(len(toks & k) >= 0.6 * len(toks) for _, k in kept if k):
            continue
        kept.append((e, toks))
    return [e for e, _ in kept]


def build(*, rules: list[tuple[str, str]], outline: list[str], entries: list[Entry], max_chars: int, max_entries: int,
          weights: dict[str, float] | None = None, goals: list[tuple[str, str]] = ()) -> str:
    """Assemble the block.

    ``rules`` and ``goals`` (ROOT.md's current goals, shown below the rules): ``(id, text)``; ``outline``: lines; ``entries``: best first (see :class:`Entry`); ``weights``: idf of
    the query's tokens (used to find the matching lines). Each section is its heading plus at least one line, or
    absent. Returns ``""`` when ``max_chars`` or ``max_entries`` is 0 or less, when all three layers are empty, or when
    nothing fits. Never longer than ``max_chars``.
    """
    weights = weights or {}
    if max_chars <= 0 or max_entries <= 0 or (not rules and not goals and not outline and not entries):
        return ""
    budget = max_chars - (len(OPEN) + 1 + len(CLOSE))
    if budget <= 0:
        return ""
    seen: set[str] = set()
    uniq: list[Entry] = []
    for e in entries:
        key = " ".join(e.text.split())
        if e.id in seen or key in seen:
            continue
        seen.update((e.id, key))
        uniq.append(e)
    uniq = [e for e in uniq if not e.dump] + [e for e in uniq if e.dump]  # file dumps never take a decision's slot
    uniq = _near_duplicates(uniq, weights)
    parts: list[str] = []
    used = 0
    rel_head = "## Relevant"

    def section(head: str, items: list[str], limit: int, noun: str) -> None:
        """Append ``head`` and the items that fit under ``limit`` (an item may be cut to fit, keeping ``MIN_BODY``
        chars); items left out are counted in a last ``- …+N more`` line when it fits (visible, never silent)."""
        nonlocal used
        room = limit - used - (len(head) + 1 if head else 0)
        added: list[str] = []
        for n, item in enumerate(items):
            rest = len(items) - n - 1
            more = len(f"- {_MARKER}+{rest} more") + 1 if rest else 0
            if len(item) + 1 + more <= room:
                added.append(item)
                room -= len(item) + 1
            elif room - more - 1 >= MIN_BODY + 2:
                added.append(truncate(item, room - more - 1))
                room -= len(added[-1]) + 1
            else:
                break
        missing = len(items) - len(added)
        if missing:
            line = f"- {_MARKER}+{missing} more"
            if noun and len(f"{line} {noun}") < room:
                line += f" {noun}"
            if len(line) + 1 <= room:
                added.append(line)
        if added:
            parts.extend([head] if head else [])
            parts.extend(added)
            used += (len(head) + 1 if head else 0) + sum(len(x) + 1 for x in added)

    # room kept for the best hit, so what matched is never crowded out by rules and outline
    reserve = 0
    if uniq:
        reserve = min(len(rel_head) + 1 + natural(uniq[0], weights) + 1, max(100, budget // 2))
    rule_head, goal_head = "## Rules (always apply)", "## Current goals"
    rule_items = ["- " + escape(" ".join(t.split())) for _, t in rules]
    goal_items = ["- " + escape(" ".join(t.split())) for _, t in goals]

    def floor(head: str, items: list[str]) -> int:  # a heading and its "- …+N more" line
        return len(head) + len(f"- {_MARKER}+{len(items)} more") + 2 if items else 0

    # rules and goals are never dropped without a word: the best hit gives up what their count lines need, down to
    # MIN_HIT_ROOM (below ~100 chars the one matching memory is worth more than a count of rules)
    hit_min = min(reserve, MIN_HIT_ROOM)
    if rule_items and goal_items and floor(rule_head, rule_items) + floor(goal_head, goal_items) + hit_min > budget:
        rule_items, goal_items = rule_items + goal_items, []  # one count line where two headings do not fit
    keep = floor(goal_head, goal_items)
    reserve = min(reserve, max(budget - floor(rule_head, rule_items) - keep, hit_min))
    if rule_items:
        section(rule_head, rule_items, budget - reserve - keep, "(memdir inspect)")
    if goal_items:
        section(goal_head, goal_items, budget - reserve, "")
    if outline:
        # its own heading only below the rules (whose bullets it would otherwise join); at the top of the block its
        # lines say what they are ("- project decisions/ (3): …", "- project episodic: 74 captured turns …")
        section("## Outline" if parts else "", [escape(x) for x in outline], budget - reserve, "")
    if uniq:
        if not parts:  # the entries are the whole block (a hook's per-prompt block): their headers say enough
            rel_head = ""
        head_cost = len(rel_head) + 1 if rel_head else 0
        room = budget - used - head_cost
        cands = uniq[:max_entries]
        shown: list[str] = []
        shares: list[float] = []
        while cands:
            cands = _dated(cands)
            needs = [need(e, weights) + 1 for e in cands]
            shares = [TOP_SHARE] + [1.0] * (len(cands) - 1)
            alloc = waterfill(needs, room, shares)
            pieces = [render(e, a - 1, weights) if a > 1 else None for e, a in zip(cands, alloc)]
            if all(p is not None for p in pieces) or len(cands) == 1:
                shown = [p for p in pieces if p is not None]
                break
            # drop the lowest-ranked entry that did not fit and share again (the best one is never dropped here)
            worst = max(i for i, p in enumerate(pieces) if p is None) if any(p is None for p in pieces[1:]) else None
            if worst is None or worst == 0:
                cands = cands[:1]
            else:
                cands = cands[:worst] + cands[worst + 1:]
        if shown:
            briefs = spare_briefs(uniq[max_entries:], room - sum(len(x) + 1 for x in shown), weights)
            rest = room - sum(len(x) + 1 for x in briefs)
            if len(shown) == len(cands) and sum(len(x) + 1 for x in shown) < rest:
                # what the capped windows and the one-liners leave goes back to the entries, uncapped
                alloc = waterfill([natural(e, weights) + 1 for e in cands], rest, shares)
                again = [render(e, a - 1, weights) if a > 1 else None for e, a in zip(cands, alloc)]
                if all(p is not None for p in again) and sum(len(p) + 1 for p in again) <= rest:
                    shown = again
            shown += briefs
            parts.extend([rel_head] if rel_head else [])
            parts.extend(shown)
            used += head_cost + sum(len(x) + 1 for x in shown)
        elif not parts or budget - used < head_cost + len(uniq[0].header()) + MIN_BODY:
            # tiny budget: no heading, the smallest header, whatever text fits — what matched still shows
            best = render(uniq[0], budget - used - 1, weights, full=False) if budget - used - 1 > 0 else None
            if best is not None:
                parts.append(best)
                used += len(best) + 1
    if not parts:
        return ""
    return OPEN + "\n" + "\n".join(parts) + "\n" + CLOSE
