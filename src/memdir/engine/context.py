"""The ``<memory>`` block of a prompt: rules, the outline, and the entries recall finds, laid out by
:mod:`memdir.inject.block` within the budget.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from memdir.capture.gates import is_acknowledgement
from memdir.engine import events as event_ops
from memdir.engine import lexical
from memdir.engine import recall as recall_ops
from memdir.engine import routing
from memdir.errors import choice_args, count_arg
from memdir.inject import block as inject
from memdir.inject import entries as inject_entries
from memdir.inject.kinds import answer_line, answers, asks_decision, asks_url, question_kind
from memdir.lazylog import getLogger
from memdir.recall import glossary
from memdir.recall.tokenize import bounded_query, query_tokens, tokenize
from memdir.roots import ROOT_PAGE
from memdir.stores import Stores
from memdir.timeutil import parse_ts
from memdir.types import Hit, Note

log = getLogger("memdir")  # imports logging only when a record can go somewhere

KIND_FULL = True  # a tool entry answering the question's kind is never cut to one line (bench/block_qa.py)


def rule_notes(s: Stores) -> list[Note]:
    """The body of :meth:`memdir.Memdir.rules`, whose docstring is the contract."""
    s.look()  # a long-lived process: notes changed on disk since its last look (C20)
    return rules_as_stored(s)


def rules_as_stored(s: Stores) -> list[Note]:
    """:func:`rule_notes` from the index as it is (the caller looked at the disk already)."""
    return page_notes(s, "rule") + [n for n in category_notes(s, "rules")]


def goal_notes(s: Stores) -> list[Note]:
    """The body of :meth:`memdir.Memdir.goals`, whose docstring is the contract."""
    s.look()
    return page_notes(s, "goal")


def category_notes(s: Stores, category: str) -> list[Note]:
    """Live notes of ``category``, global root first, each root's in id order."""
    out: list[Note] = []
    for root in reversed(s.live()):  # global first; one this user cannot read is left out
        for r in sorted(root.store.live_notes(category), key=lambda r: r["ref"]):
            out.append(Note(id=r["ref"], category=category, kind=r["note_kind"], summary=r["summary"] or "",
                            text=r["text"], scope=root.scope, pinned=bool(r["pinned"])))
    return out


def page_notes(s: Stores, kind: str) -> list[Note]:
    """ROOT.md's hand-written items of ``kind`` (``"goal"`` / ``"rule"``), global first, in page order."""
    return [n for n in category_notes(s, ROOT_PAGE) if n.kind == kind]


def outline(s: Stores) -> list[str]:
    """The body of :meth:`memdir.Memdir.outline`, whose docstring is the contract."""
    s.look()
    return outline_lines(s)


def outline_lines(s: Stores, skip: tuple[str, ...] = (), hide: set[tuple[str, str, str]] | frozenset = frozenset()) -> list[str]:
    """One line per root's episodic count and per category (``- <scope> <category>/ (<n>): <summaries>``, newest
    first, cut at 160 chars), ``skip`` categories left out. ``hide``: ``(scope, category, summary)`` of notes the
    block shows in full: their summaries are not repeated here (a category all of whose notes are shown has no line)."""
    lines = []
    for root in s.live():  # project, then global (left out when this user cannot read it)
        # the episodic line first: a block short of room cuts its last outline line, and a category line cut at a
        # word still reads (its count leads), where "96 captured…" would lose what the line is for
        n_events = root.store.count("event")
        if n_events:
            lines.append(f"- {root.scope} episodic: {n_events} captured turn{'' if n_events == 1 else 's'} (use memory_recall to search)")
        for r in root.store.outline():
            if r["category"] in skip:
                continue
            said = r["s"] or ""
            if hide:
                rest = [x for x in said.split("; ") if (root.scope, r["category"], x.strip()) not in hide]
                if not rest:
                    continue
                said = "; ".join(rest)
            lines.append(inject.truncate(f"- {root.scope} {r['category']}/ ({r['n']}): {said}", 160))
    return lines


def context(s: Stores, prompt: str = "", *, max_chars: int | None = None, max_entries: int | None = None,
            reinforce: bool = True, sections: Iterable[str] = ("rules", "outline", "hits")) -> str:
    """The body of :meth:`memdir.Memdir.context`, whose docstring is the contract."""
    max_chars = limit_arg(s, max_chars, "max_chars")
    max_entries = limit_arg(s, max_entries, "max_entries")
    if max_chars == 0 or max_entries == 0:
        return ""
    sections = set(choice_args(sections, "sections", ("rules", "outline", "hits")))
    lexical.resync(s)
    event_ops.drain_pending(s)
    # the rules' texts only when the block shows them (a prompt's hook asks for hits alone: reading every rule
    # note's text per prompt only to leave rules out of the hits cost ~1 ms at 300 notes); a hit is a rule when
    # it is a live note of the rules category, which is what rules() lists
    rules = rules_as_stored(s) if "rules" in sections else []
    goals = page_notes(s, "goal") if "rules" in sections else []
    prompt = bounded_query(prompt) if isinstance(prompt, str) else ""  # a pasted log: its head and tail
    # rules and ROOT.md's goals are shown in every session (the rules section, or the session-start block of a hook)
    # a prompt that only acknowledges or says to go on ("ok", "thanks!", "好的，继续") asks for nothing: whatever holds
    # its word is no answer
    asks = bool(prompt.strip()) and "hits" in sections and not is_acknowledgement(prompt)
    hits = ranked_hits(s, prompt, max(8, max_entries * 3)) if asks else []
    if asks:
        hits = routing.forward(s, prompt, hits, skip=("rules", ROOT_PAGE))
    weights = block_weights(s, prompt) if hits else {}
    kind = question_kind(prompt) if hits else None
    ordered = inject_entries.block_order(hits, kind, max_entries)
    ordered, followed = follow_ups(s, ordered, kind, max_entries, best=hits[0] if hits else None, weights=weights)
    entries = block_entries(s, prompt, ordered, weights, kind)
    for e, _ in entries:
        e.follows = e.id in followed
        entry_without_secrets(e)  # what the block may show: no key cut in two by a window
    # the notes whose bodies the block shows: the outline does not list their summaries again. Which are shown is
    # known once the block is built (its budget, near-duplicates): built with the likely ones hidden, then again
    # when one of them was not shown after all
    first = {e.handle for e, _ in entries[:max_entries]}  # echoes of the prompt are out of entries already
    hide = {h.handle: (h.scope, h.category, (h.summary or "").strip()) for h in ordered if h.category and h.handle in first}

    def build(hidden: set) -> str:
        return inject.build(
            rules=[(r.id, r.summary if len(r.text) > 200 else r.text) for r in rules] if "rules" in sections else [],
            goals=[(g.id, g.summary if len(g.text) > 200 else g.text) for g in goals],
            # the rules section already shows every rule (and ROOT.md's goals): the outline does not repeat them
            outline=outline_lines(s, skip=("rules", ROOT_PAGE) if "rules" in sections else (ROOT_PAGE,), hide=hidden)
            if "outline" in sections else [], entries=[e for e, _ in entries], weights=weights,
            max_chars=max_chars, max_entries=max_entries)

    hidden = set(hide.values())
    block = build(hidden)
    for _ in range(3):  # the hidden set only shrinks: a longer outline leaves the entries less room
        shown_notes = {x for handle, x in hide.items() if f"[{handle}" in block and x in hidden}
        if shown_notes == hidden:
            break
        hidden = shown_notes
        block = build(hidden)
    block = without_secrets(block, max_chars)
    if reinforce and entries and block:
        shown = [scope_ref for e, scope_ref in entries if f"[{e.handle}" in block]
        if shown:
            from types import SimpleNamespace

            lexical.rehearse(s, [SimpleNamespace(scope=sc, id=ref) for sc, ref in shown])
    return block


def entry_without_secrets(e: inject.Entry) -> None:
    """``e``'s text (and lead) with every secret the capture rules find today replaced by its marker, before a window
    is cut from it, its matched passage moved by what the markers before it changed."""
    from memdir.capture.redact import redact, redact_span

    e.text, e.span = redact_span(e.text, e.span)
    if e.lead:
        e.lead = redact(e.lead)


def without_secrets(block: str, max_chars: int) -> str:
    """``block`` with every secret the capture rules find today replaced by its ``[redacted:kind]`` marker: a text
    stored by an older memdir (before a rule knew that key's shape) or a note typed by hand reaches the model without
    it. A marker longer than what it replaced can push the block past ``max_chars``: its last entry lines go then."""
    from memdir.capture.redact import redact

    out = redact(block)
    if out == block or len(out) <= max_chars:
        return out
    body = out.split("\n")[:-1]  # the last line closes the block
    while len(body) > 1 and len("\n".join(body)) + 1 + len(inject.CLOSE) > max_chars:
        body.pop()
    return "\n".join(body + [inject.CLOSE]) if len(body) > 1 else ""


def limit_arg(s: Stores, value: Any, name: str) -> int:
    if value is None:
        return int(s.config.get(f"inject.{name}"))
    return count_arg(value, name, zero="0 gives an empty block")


#: how many times more hits the block asks recall for when most of its first ones are the prompt asked again
ECHO_WIDEN = 4


def ranked_hits(s: Stores, prompt: str, k: int) -> list[Hit]:
    """Recall's ``k`` best hits for the block, rules and ROOT.md left out (the rules section shows them). When more
    than half are user turns repeating the prompt (:func:`memdir.inject.entries.near_same`: a question asked again
    and again, each captured; the block drops the ones without a reply), recall is asked for :data:`ECHO_WIDEN` times
    as many, so they do not crowd out every memory that answers it. Both looks share one
    ``remote.recall_budget_ms`` of waiting for the team server: a silent server costs the block that budget once."""
    import time

    until = time.monotonic() + float(s.config.get("remote.recall_budget_ms") or 0) / 1000

    def ask(n: int) -> list[Hit]:
        return [h for h in recall_ops.ranked(s, prompt, k=n, scope=None, kinds=None, rehearse=False, team_until=until)
                if not (h.category in ("rules", ROOT_PAGE) and h.scope in ("project", "global"))]

    hits = ask(k)
    echo = PromptEcho(s, prompt)
    echoes = sum(1 for h in hits if h.kind == "user" and echo.same(h.text))
    return ask(k * ECHO_WIDEN) if echoes * 2 > len(hits) else hits


class PromptEcho:
    """Is a stored user turn the prompt again? Asked of the prompt as typed and, when capture stores it otherwise, as
    stored (its host tags cut, colours taken out, keys and ``<private>`` spans redacted: what the turn holds when the
    prompt was captured before its block was built, by OpenCode's prompt hook or a second hook): the stored form of
    the prompt being submitted never comes back as its own memory (case C24)."""

    def __init__(self, s: Stores, prompt: str):
        self.s, self.prompt, self.ptoks = s, prompt, set(tokenize(prompt))
        self.stored: tuple[set[str], str] | None = None  # worked out at the first user turn only

    def forms(self) -> list[tuple[set[str], str]]:
        if self.stored is None:
            from memdir.capture.events import redact_bounded
            from memdir.capture.gates import gate

            text = redact_bounded(gate({"role": "user", "text": self.prompt}, self.s.config).text or self.prompt)
            self.stored = (set(tokenize(text)), text)
        return [(self.ptoks, self.prompt)] + ([self.stored] if self.stored[1] != self.prompt else [])

    def same(self, text: str) -> bool:
        """:func:`memdir.inject.entries.near_same` of either form of the prompt."""
        return any(inject_entries.near_same(t, p, text) for t, p in self.forms())

    def asked_again(self, text: str) -> bool:
        """:func:`memdir.inject.entries.asked_again` of either form of the prompt."""
        return any(inject_entries.asked_again(t, p, text) for t, p in self.forms())


def block_weights(s: Stores, prompt: str) -> dict[str, float]:
    """What the block looks for in its entries: the idf of each query token, and of each token the glossary
    bridges to (:func:`memdir.recall.glossary.bridge`) times its weight, so the shown window of an English memory for
    a Chinese question reaches the bridged words."""
    tokens = query_tokens(prompt)
    bridged = glossary.bridge(prompt, tokens, float(s.config.get("recall.bridge_weight")))
    idf = query_idf(s, tokens + list(bridged))
    return {t: w * bridged.get(t, 1.0) for t, w in idf.items()}


def query_idf(s: Stores, tokens: list[str]) -> dict[str, float]:
    """Lucene idf of each query token in the project root (else the global root); 0 for unknown tokens."""
    from memdir.recall.bm25 import idf_lucene

    for root in s.live():
        n, df = root.store.doc_freqs(tokens)
        if n:
            return {t: idf_lucene(n, c) for t, c in df.items()}
    return {}


def block_entries(s: Stores, prompt: str, hits: list[Hit], weights: dict[str, float],
                  kind: str | None = None) -> list[tuple[inject.Entry, tuple[str, str]]]:
    """Block entries for ``hits`` (best first), with the ``(scope, ref)`` each shows. A user turn is replaced by the
    reply that answered it (led by the question, unless it is the prompt itself); a user turn that is the prompt
    and has no reply is dropped (case C24); one that only asks (:func:`memdir.inject.entries.only_asks`) and got no
    reply goes after the other entries."""
    now = s.clock()
    echo = PromptEcho(s, prompt)
    out: list[tuple[inject.Entry, tuple[str, str]]] = []
    later: list[tuple[inject.Entry, tuple[str, str]]] = []  # earlier questions nobody answered: after the rest
    for h in hits:
        if h.kind == "user":
            same = echo.same(h.text)
            reply = reply_to(s, h, weights)
            if reply is None:
                if not (same or echo.asked_again(h.text)):
                    # a question nobody answered says nothing itself: after every entry that does
                    (later if inject_entries.only_asks(h.text) else out).append((inject_entries.entry(h, now), (h.scope, h.id)))
                continue
            # the question's first line that says something (a pasted block's opening ``` or --- says nothing)
            said = next((ln for ln in h.text.split("\n") if any(c.isalnum() for c in ln)), h.text)
            lead = "" if same else 're: "' + inject.one_line(said, 90) + '"'
            out.append((inject_entries.entry(reply, now, lead=lead), (h.scope, reply.key)))
            continue
        # a "which command" question: a shell call's line is the answer, shown whole up to COMMAND_CALL
        limit = inject_entries.COMMAND_CALL if kind == "command" and answers(kind, h.text) else inject_entries.CALL_LINE
        out.append((inject_entries.entry(h, now, weights=weights, call_limit=limit), (h.scope, h.id)))
    out += later
    # a tool call is shown in full only when it is the evidence: its matched text holds nearly as much of the
    # query's weight as the best entry's; otherwise one line (what was run and the first output line)
    if kind == "file":  # windows reach the path or URL the question asks for
        urls = asks_url(prompt)
        for e, _ in out:
            e.paths, e.urls = True, urls
    elif asks_decision(prompt):  # windows reach the line that says what was decided
        for e, _ in out:
            e.decision = True
    elif (line := answer_line(kind)) is not None:  # windows reach a test run's verdict, the line naming a commit
        for e, _ in out:  # ... or the error line of a failing output (a reply explaining the failure is read whole)
            if kind != "fail" or e.kind == "tool":
                e.answer = line
    cover = [inject_entries.cover(e, weights) for e, _ in out]
    top = max(cover, default=0.0)
    for (e, _), c in zip(out, cover):
        if kind and KIND_FULL and e.kind == "tool" and answers(kind, (e.lead + " " + e.text) if e.lead else e.text):
            continue  # the failing output of a "why did it fail", the change of a "how did we fix": shown in full
        if e.kind == "tool" and not e.dump and not inject_entries.evidence(c, top) and inject_entries.tool_name(e.lead) not in inject_entries.USER_ANSWER_TOOLS:
            e.brief = True  # its call line (the lead) and the output's first line quoted beneath (inject.block)
            e.span = None
    return out


def follow_ups(s: Stores, hits: list[Hit], kind: str | None, shown: int, *,
               best: Hit | None = None, weights: dict[str, float] | None = None) -> tuple[list[Hit], set[str]]:
    """``hits`` (in the block's order) with, right after each agent turn among the first ``shown``, the tool call
    that turn led to (:func:`next_call`) when that call is what the question's ``kind`` looks for
    (:func:`memdir.inject.kinds.answers`: the edit after "Dialyzer says run returns a 3-tuple. Let me fix the
    pattern:" for "how did we fix", the failed run after the turn that started it for "why did it fail"): moved up
    when recall ranked it lower, added when recall did not find it (its words are often not the question's). Recall's
    ``best`` hit, when given, stays among the first ``shown``. ``weights``: the query's term weights
    (:func:`block_weights`), which pick among the calls a turn led to. Returns the list and the keys of the calls so
    placed: the block does not leave them out as near-duplicates (a one-line fix's words are often all in a bigger
    edit shown above it).
    Block-QA (docs/benchmarks.md): tuning 116 -> 118 of 158, validation 99 -> 100 of 163; picking among the calls
    a turn led to, not only its very next one: tuning 118 -> 119, validation 100."""
    if not kind or not hits:
        return hits, set()
    out, placed, i = list(hits), set(), 0
    while i < min(len(out), shown):
        nxt = next_call(s, out[i], kind, weights or {})
        if nxt is not None:
            j = next((j for j, x in enumerate(out) if x.id == nxt.id), None)
            if j is None or j > i:
                out.insert(i + 1, nxt if j is None else out.pop(j))
                placed.add(nxt.key)
        i += 1
    if best is not None and best in out and out.index(best) >= shown:  # not pushed out by another turn's call
        out.insert(shown - 1, out.pop(out.index(best)))
    return out, placed


#: the most tool calls right after an agent turn that count as the calls it led to
FOLLOW_RUN = 6


def next_call(s: Stores, h: Hit, kind: str, weights: dict[str, float]) -> Hit | None:
    """The tool call the agent turn ``h`` led to, as a :class:`Hit` scored as ``h``: among the tool calls right after
    it in its session (up to the next user or agent turn, at most :data:`FOLLOW_RUN`), those that answer ``kind``
    (:func:`memdir.inject.kinds.answers`), the one holding most of the query's ``weights`` (:func:`weight_held`; the
    first on a tie). "The host key changed. Let me check UDP first" leads to a port check and then ``ssh-keygen -R``:
    for "which command cleared the host key" the second. ``None`` when no call after it answers ``kind``."""
    if h.kind != "assistant" or not h.session or h.category:
        return None
    root = s.roots.get(h.scope)
    if root is None or not root.exists():
        return None
    run = []
    for r in root.store.events_after(h.id, h.session, FOLLOW_RUN):
        if r["role"] != "tool":
            break  # the next turn: what comes after it is that turn's doing
        if answers(kind, r["text"] or ""):
            run.append(r)
    if not run:
        return None
    # one call answers: it (nothing to weigh, which would tokenize it on the prompt's path); several: the one holding
    # most of the query's weight, the first on a tie
    best = run[0] if len(run) == 1 else max(run, key=lambda r: (weight_held(r["text"] or "", weights), -run.index(r)))
    return event_hit(best, h, "tool", reasons={"follows": h.id})


def weight_held(text: str, weights: dict[str, float]) -> float:
    """The summed weight of the distinct query terms in ``text``'s first 3,000 chars (exact: no hash-seed ties)."""
    return math.fsum(weights.get(t, 0.0) for t in set(tokenize(text[:3000])))


def event_hit(r: Any, h: Hit, kind: str, **extra: Any) -> Hit:
    """The stored event row ``r`` (``ref, text, ts, handle``) of ``h``'s session as a :class:`Hit` scored as ``h``."""
    return Hit(id=r["ref"], key=r["ref"], kind=kind, scope=h.scope, score=h.score, text=r["text"],
               ts=parse_ts(r["ts"]) if r["ts"] else None, session=h.session, handle=r["handle"], **extra)


def reply_to(s: Stores, h: Hit, weights: dict[str, float]) -> Hit | None:
    """The assistant turn that answered the user turn ``h``: among the assistant turns after it in its session,
    up to the next user turn (at most 80 events), the one holding most of the query's weight (the last on a tie)."""
    if not h.session:
        return None
    root = s.roots.get(h.scope)
    if root is None or not root.exists():
        return None
    rows = root.store.events_after(h.id, h.session, 80, until_role="user")
    best, best_s = None, -1.0
    for r in rows:
        if r["role"] == "user":
            break
        if r["role"] != "assistant":
            continue
        sc = weight_held(r["text"], weights)
        if sc >= best_s:
            best, best_s = r, sc
    return None if best is None else event_hit(best, h, "assistant")
