"""The part of an entry the block shows: the window of a long text that holds the most query weight
(:func:`focus`), the one line that matches (:func:`best_line`), a long tool call's line around what matched
(:func:`call_line`), and the cuts they share (:func:`truncate`, marked ``…``). Used by :mod:`memdir.inject.block`
and, for the turns around a hit, by :mod:`memdir.engine.around`."""

from __future__ import annotations

import math
import re

MARKER = "…"
#: a focus window's score adds this times its best single line's query weight to the weight of the distinct query terms
#: it holds, so the window reaches the line that matches most (not just the earliest run with the same terms). Chosen
#: on bench/session_qa.py (per prompt, lexical): 0 → 0.673, 0.5 / 1 / 2 → 0.692
FOCUS_LINE = 1.0
#: for a "which file / where / what URL" question (``Entry.paths``) a window holding a path or a URL gains this times the
#: query's top term weight (bench/block_qa.py, tuning half: 0 -> 95, 0.5 -> 96, 1.0 -> 97, 2.0 -> 97 of 158)
PATH_BONUS = 1.0
#: a file path with a directory or an extension, or a URL
_PATHLIKE = re.compile(r"https?://\S+|(?<![\w.~-])(?:[\w.~-]+/)+[\w.-]+"
                       r"|(?<![\w-])[\w-]+\.(?:md|py|ts|tsx|js|json|toml|ya?ml|csv|txt|ex|exs|rs|go|sh|html|css)\b")
#: a line that says what was decided or recommended (what a "what did we decide" question asks for)
_DECISION_LINE = re.compile(r"\b(?:decid(?:e|ed)|decision|chose|go with|going with|settle[d]? on|instead of|rather than"
                            r"|prefer|recommend(?:ed)?|I'd|we'll|I'll|let's|should)\b|决定|改用|采用|而不是|就用|建议", re.I)
#: for a "what did we decide" question (``decision``) a window holding such a line gains this times the query's top
#: weight (bench/block_qa.py, tuning half: 1.0 -> 108, 2.0 -> 109, 3.0 -> 109 of 158; validation 87 at each)
DECISION_BONUS = 2.0
#: for a question whose kind names the shape of its answer (a test runner's verdict for "how many tests passed", a
#: commit line for "which commit", the line naming the error in a failing output for "why did it fail":
#: :func:`memdir.inject.kinds.answer_line`) a window holding such a line gains this times the query's top weight
#: (bench/block_qa.py, tuning half: verdict and commit 111 -> 112 of 158 at 1.0 and 2.0; with the failing output's
#: line in every entry 112 -> 113 at 1.0, 114 at 2.0 and 3.0, in tool outputs only 114 at 2.0; docs/benchmarks.md)
ANSWER_BONUS = 2.0
#: a URL (what a "which web address" question asks for: a file path does not answer it)
_URL = re.compile(r"https?://\S+")
#: how capture opens a failed call's output: its status, then the lines that say why
_FAILED = re.compile(r"error(?: \(exit -?\d+\))?: \S")
BEST_LINE_SCAN = 400  # lines of an entry a one-line view looks through for the line that matches


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` chars at a line boundary, else a word boundary, adding ``…``."""
    if len(text) <= limit:
        return text
    if limit <= len(MARKER):
        return text[: max(0, limit)]
    room = limit - len(MARKER)
    cut = text.rfind("\n", 0, room + 1)
    if cut <= 0:
        cut = text.rfind(" ", 0, room + 1)
        if cut < room // 2:
            cut = room
    return text[:cut].rstrip() + MARKER


def _pieces(text: str, width: int = 160) -> list[tuple[int, int]]:
    """Line spans of ``text``; a line longer than ``2 * width`` is cut into pieces of about ``width`` at spaces."""
    out: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        a, b = pos, pos + len(line)
        while b - a > 2 * width:
            cut = text.rfind(" ", a + width // 2, a + width)
            cut = cut + 1 if cut > a else a + width
            out.append((a, cut))
            a = cut
        out.append((a, b))
        pos = b + 1
    return out


def focus(text: str, weights: dict[str, float], size: int, span: tuple[int, int] | None = None, *,
          tail: bool = False, paths: bool = False, urls: bool = False, decision: bool = False,
          answer: re.Pattern[str] | None = None) -> str:
    """At most ``size`` chars of ``text``: the run of whole lines (a long line counts as pieces of about 160 chars)
    that fits in ``size`` and holds the most query weight — the summed ``weights`` (idf) of the distinct query tokens
    in it (with ``paths``, plus :data:`PATH_BONUS` times the top weight for a run holding a path or a URL; with
    ``urls`` too, for a run holding a URL only; with ``decision``, :data:`DECISION_BONUS` times it for a run holding
    a line that says what was decided; with ``answer``, :data:`ANSWER_BONUS` times it for a run holding a line that
    pattern finds). Runs
    overlapping ``span`` (the passage recall matched) win ties; then the earliest. Cuts are marked ``…``.
    Returns ``text`` itself when it fits."""
    if len(text) <= size:
        return text
    if size <= len(MARKER) * 2 + 4:
        return truncate(text, size)
    from memdir.recall.tokenize import pictograph, tokenize

    pieces = [p for p in _pieces(text) if p[1] > p[0]] or [(0, len(text))]
    if span:  # look near the passage recall matched
        near = [p for p in pieces if p[1] > span[0] - 1500 and p[0] < span[1] + 1500]
        pieces = near or pieces
    probes = [pictograph(t) or t[:4] for t, w in weights.items() if w > 0]  # an emoji's token is not its text
    found: list[set[str]] = []
    for a, b in pieces:
        piece = text[a:b]
        low = piece.casefold()
        found.append({t for t in tokenize(piece) if weights.get(t, 0.0) > 0} if any(x in low for x in probes) else set())
    room = size - len(MARKER) * 2
    # a compound query word (``gqc.7``, ``api/review-context``) and its parts (``gqc``, ``7``) are one word here: a
    # line holding the compound does not outweigh a line holding two other words (bench/session_qa.py, per prompt,
    # lexical: 0.712 -> 0.731; hybrid e5 0.750 either way)
    compounds = [t for t in weights if weights[t] > 0 and any(c in t for c in "./:-_")]

    def weight_of(terms: set[str]) -> float:
        held = [c for c in compounds if c in terms]  # only compounds the run holds can absorb a part (a long query
        # has thousands of terms; testing each against every compound made a block of a pasted log take seconds)
        return math.fsum(weights[t] for t in terms if not any(t != c and t in c for c in held))

    # a "which file / where / what URL" question: a run holding a path or a URL gains PATH_BONUS x the query's top weight
    bonus = [0.0] * len(pieces)
    if paths and weights:
        top_w = max(weights.values())
        shape = _URL if urls else _PATHLIKE
        bonus = [PATH_BONUS * top_w if shape.search(text[a:b]) else 0.0 for a, b in pieces]
    elif answer is not None and weights:
        top_w = max(weights.values())
        bonus = [ANSWER_BONUS * top_w if answer.search(text[a:b]) else 0.0 for a, b in pieces]
    elif decision and weights:
        top_w = max(weights.values())
        bonus = [DECISION_BONUS * top_w if _DECISION_LINE.search(text[a:b]) else 0.0 for a, b in pieces]
    cap = 2 * max(bonus, default=0.0)
    best, best_s = (0, 1), -1.0
    for i in range(len(pieces)):
        if not found[i] and best_s >= 0 and not (answer is not None and bonus[i]):
            continue  # a best run can always start at a matching line (or at an answer-shaped one)
        terms: set[str] = set()
        length, j = 0, i
        top_line = extra = 0.0
        while j < len(pieces):
            add = pieces[j][1] - pieces[j][0] + (1 if j > i else 0)
            if length + add > room and j > i:
                break
            length += add
            terms |= found[j]
            top_line = max(top_line, weight_of(found[j]))
            # a test run prints its verdict over two lines (``Test Files  1 passed``, ``Tests  16 passed``): each
            # answer-shaped line counts, up to two
            extra = min(extra + bonus[j], cap) if answer is not None else max(extra, bonus[j])
            j += 1
        sc = weight_of(terms) + FOCUS_LINE * top_line + extra
        if span and not (pieces[i][0] < span[1] and pieces[j - 1][1] > span[0]):
            sc *= 0.999
        if sc > best_s or (answer is not None and tail and sc == best_s > 0 and not terms):
            best, best_s = (i, j), sc  # answer lines alone, no query word: a command's result is its end, the last
    lo, hi = best[0], best[1] - 1
    if tail and best_s <= 0:  # nothing matched (a hit found by meaning, not words): a command's result is its end,
        # a failed command's the why capture put first (``error (exit 1): …``, memdir.capture.tools.summarise_tool)
        lo = hi = 0 if _FAILED.match(text) else len(pieces) - 1
        while lo == 0 and hi + 1 < len(pieces) and pieces[hi + 1][1] - pieces[0][0] <= room:
            hi += 1
    if best_s > 0:
        lo, hi = _follow_lead_in(text, pieces, lo, hi, room, found, bonus, weight_of)
    length = pieces[hi][1] - pieces[lo][0]
    while lo > 0 and length + (pieces[lo][0] - pieces[lo - 1][0]) <= room:  # room left at the end: add lines before
        lo -= 1
        length = pieces[hi][1] - pieces[lo][0]
    a, b = pieces[lo][0], pieces[hi][1]
    if b - a > room:
        return (MARKER if a > 0 else "") + truncate(text[a:b], room + len(MARKER))
    return (MARKER if a > 0 else "") + text[a:b] + (MARKER if b < len(text) else "")


#: lines a window may move on to reach what its last line leads into (block-QA tuning 114 -> 115 of 158 at 1 and 3,
#: validation 89 -> 90 of 163 at both; docs/benchmarks.md)
FOLLOW_LINES = 3


#: words a clause does not end on (articles, prepositions, auxiliaries, conjunctions): a line ending on one, followed by
#: a line in lower case, is a paragraph wrapped mid-sentence, not a list of whole lines
_CLAUSE_GOES_ON = frozenset(
    "a an the to of in on at by for from with into onto about as than and or but nor if that which who whose whom "
    "is are was were be been being am has have had do does did will would shall should can could may might must "
    "not no its their our your his her my this these those".split())


def _leads_in(text: str, pieces: list[tuple[int, int]], k: int) -> bool:
    """True when piece ``k`` leads into the next: it ends with a colon (``Changed:``, ``**See:**``, ``instead:``), it
    is a long line's piece cut before the line ends, or it stops on a word no clause ends on and the next line goes on
    in lower case (a paragraph wrapped mid-sentence: ``→ The leader should`` / ``appear once …``)."""
    a, b = pieces[k]
    line = text[a:b].rstrip().rstrip("*").rstrip()
    if line.endswith((":", "：")):
        return True
    if b < len(text) and text[b] != "\n":
        return True
    last = line.rsplit(None, 1)[-1].casefold() if line else ""
    if k + 1 < len(pieces) and last in _CLAUSE_GOES_ON:
        return text[pieces[k + 1][0]:pieces[k + 1][1]].lstrip("> ")[:1].islower()
    return False


def _follow_lead_in(text: str, pieces: list[tuple[int, int]], lo: int, hi: int, room: int, found: list[set[str]],
                    bonus: list[float], weight_of) -> tuple[int, int]:
    """The window ``pieces[lo..hi]`` moved on, a line at a time (at most :data:`FOLLOW_LINES`), while its last line
    leads into the next (:func:`_leads_in`) and the lines it drops at its start hold no query term and no bonus the
    rest does not: what "**Documentation:**" or "you could use X instead:" announces is the answer, and a window that
    ends on the announcement shows the question's words without it."""
    def held(a: int, b: int) -> tuple[float, float]:
        terms: set[str] = set().union(*found[a:b + 1])
        return weight_of(terms), max(bonus[a:b + 1], default=0.0)

    base = held(lo, hi)
    for _ in range(FOLLOW_LINES):
        if hi + 1 >= len(pieces) or not _leads_in(text, pieces, hi):
            break
        nlo, nhi = lo, hi + 1
        while nlo < nhi and pieces[nhi][1] - pieces[nlo][0] > room:
            nlo += 1
        if pieces[nhi][1] - pieces[nlo][0] > room:
            break
        now = held(nlo, nhi)
        if now[0] < base[0] - 1e-9 or now[1] < base[1]:
            break
        lo, hi = nlo, nhi
    return lo, hi


def one_line(text: str, limit: int = 100) -> str:
    """The first non-blank line of ``text``, whitespace collapsed, cut at ``limit`` chars."""
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    return truncate(" ".join(first.split()), limit)


#: chars of a long call's opening kept before the part of it that matches the question (the tool and its program)
CALL_HEAD = 32


def call_line(call: str, weights: dict[str, float], limit: int = 80) -> str:
    """A tool call's line in at most ``limit`` chars, whitespace collapsed: its opening, cut at a word with ``…``; or,
    when the part cut off holds a query token (``weights`` > 0) the opening does not, the first :data:`CALL_HEAD` chars,
    ``…``, and the stretch of the rest from that token on (a command's flags and arguments sit at its end:
    ``npm test -- --run <long path> -t "Compaction Config"``)."""
    flat = " ".join(call.split())
    if len(flat) <= limit:
        return flat
    head = truncate(flat, limit)
    if not weights:
        return head
    from memdir.recall.tokenize import tokenize

    shown = set(tokenize(head))
    keep = truncate(flat, CALL_HEAD)
    if keep.endswith(MARKER):
        keep = keep[:-len(MARKER)]
    rest = flat[len(keep):]
    room = limit - len(keep.rstrip()) - len(MARKER)
    if room < 16:  # no room for a second part: the opening
        return head
    low = rest.casefold()
    best, at = 0.0, -1
    for t in set(tokenize(rest)) - shown:
        w = weights.get(t, 0.0)
        if w <= best:
            continue
        m = re.search(r"(?<![0-9a-z])" + re.escape(t), low)  # at a word's start, not inside another word
        if m:
            best, at = w, m.start()
    if at < 0:
        return head
    if len(rest) - at <= room:  # the token is near the end: show the end, from a word boundary
        start = rest.find(" ", len(rest) - room) + 1 or at
        return keep.rstrip() + MARKER + rest[min(start, at):]
    start = rest.rfind(" ", 0, at) + 1  # from the word holding the token (a flag just before it too)
    if start > 0:
        prev = rest.rfind(" ", 0, start - 1) + 1
        if rest[prev:prev + 1] == "-" and at - prev < room // 2:
            start = prev
    if at - start > room // 2:  # a long word (a path): from shortly before the token
        start = max(start, at - 12)
    return keep.rstrip() + MARKER + truncate(rest[start:], room)


def best_line(text: str, weights: dict[str, float], limit: int = 100) -> str:
    """The line of ``text`` holding the most query weight (the summed ``weights`` of the distinct query tokens in it;
    the first on a tie, an edit's ``+`` line before its ``-`` line), whitespace collapsed and cut at ``limit`` chars:
    what a one-line entry shows — the error line or the changed line that carries the question's rare terms, not the
    output's opening. When no line holds any weight: an edit's first ``+`` line (what the code became; block-QA
    tuning 82 -> 84 of 158, validation unchanged), else the first non-blank line."""
    lines = text.split("\n")[:BEST_LINE_SCAN]
    diff = any(ln.startswith("+ ") for ln in lines)  # an edit's changed lines ("- old", "+ new")
    if not weights and not diff:
        return one_line(text, limit)
    from memdir.recall.tokenize import tokenize

    best, best_s = "", 0.0
    for ln in lines:
        if not ln.strip():
            continue
        sc = math.fsum(weights.get(t, 0.0) for t in set(tokenize(ln[:2 * limit + 200])))
        if sc and diff and ln.startswith("+ "):
            sc += 1e-6  # an edit's new line wins a tie with its old one: what the agent wrote is the change
        if sc > best_s:
            best, best_s = ln, sc
    if not best:  # nothing matched: an edit shows what the code became (its first "+" line), not what it was
        first_new = next((ln for ln in lines if ln.startswith("+ ") and ln[2:].strip()), "") if diff else ""
        return truncate(" ".join(first_new.split()), limit) if first_new else one_line(text, limit)
    line = " ".join(best.split())
    if len(line) > limit:  # a long line: the part around its first query term
        return focus(line, weights, limit)
    return line
