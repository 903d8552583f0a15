"""The MCP tools' bodies: plain functions over a Memdir that the server wraps (recall, read, remember, forget, list,
inspect, prune), their size bounds, and the UTF-8 hygiene of what goes in and out (lone surrogates become U+FFFD)."""

from __future__ import annotations

import json
from typing import Any

from memdir.errors import MemdirError, NotFound, UsageError
from memdir.timeutil import iso

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from memdir.core import Memdir

MAX_K = 50                   # memory_recall hits per call
#: memory_recall's hits when the model gives no ``k``: block-QA (bench/block_qa.py, both halves split by repository),
#: answers reachable in the block or one call with the windows below: 8 -> 141 / 138, 10 -> 142 / 144, 12 -> 144 /
#: 146, 16 -> 142 / 136 of 158 / 163 (more hits halve the texts that carry the answer)
DEFAULT_K = 12
MAX_HIT_CHARS = 4_000        # text per hit; longer bodies are cut (``truncated: true``) ...
MAX_RECALL_CHARS = 20_000    # ... and all hits together stay under this, so a reply fits hosts' output caps
MIN_HIT_CHARS = 200          # (Claude Code: MAX_MCP_OUTPUT_TOKENS, 25k tokens); each hit keeps at least this
MAX_INSPECT_NOTES = 200      # notes listed by memory_inspect (counts are always complete)
MAX_READ_CHARS = 16_000      # memory_read's page (JSON-escaped characters of text): with its other fields the reply
                             # stays under MAX_RECALL_CHARS
#: a whole reply (its JSON, every field) in estimated tokens: a host receives it twice (the text content and the
#: structured copy) and Claude Code cuts a tool result at 25,000 tokens (MAX_MCP_OUTPUT_TOKENS), so one copy stays
#: under 10,000 (Chinese text is about a token a character: 20,000 characters of it would not fit)
MAX_REPLY_TOKENS = 10_000
CJK_TOKENS = 1.2             # estimated tokens per CJK / kana / hangul character (tokenizers give 1-1.5 for Chinese)
MIDDLE_TOKENS = 0.6          # ... per Greek, Cyrillic, Hebrew or Arabic character (about two characters a token)
OTHER_TOKENS = 0.3           # ... per other character (English prose ~4 chars a token; JSON punctuation is denser)


def clean_text(value: str) -> str:
    """Return ``value`` as a string that encodes to UTF-8: lone surrogates (``"\\ud800"``) become U+FFFD,
    valid surrogate pairs are joined into their code point, NUL bytes are dropped. Never raises."""
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return value.replace("\x00", "")


def clean(value: Any) -> Any:
    """:func:`clean_text` applied to every string in a JSON-like value (dict keys included)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def cut_note(hit: Any, cut: int, total: int) -> str:
    """What ends a text :func:`hit_out` cut at ``cut`` of ``total`` characters: how to read the rest."""
    return f" … [{cut:,} of {total:,} characters shown; the rest: memory_read id={(hit.handle or hit.id)!r} offset={cut}]"


def window_note(hit: Any, start: int, end: int, total: int) -> str:
    """What ends a text :func:`hit_out` showed from ``start`` to ``end`` of ``total`` characters (the passage recall
    matched, past the opening): which characters these are and how to read on or read the whole."""
    return (f" … [characters {start:,}-{end:,} of {total:,} shown; memory_read id={(hit.handle or hit.id)!r} "
            f"offset={end} reads on, offset=0 from the start]")


def estimate_tokens(text: str) -> int:
    """A conservative estimate of ``text``'s length in model tokens (no tokenizer is loaded): :data:`CJK_TOKENS`
    per character from U+2E80 up (CJK, kana, hangul, full-width forms) and of the scripts U+0900-U+1CFF (Indic,
    Thai, Lao, Tibetan, Myanmar, Georgian, Ethiopic, Khmer: tokenizers split them about a token a character or
    finer), :data:`MIDDLE_TOKENS` per Greek, Cyrillic, Armenian, Hebrew or Arabic one (U+0370-U+08FF),
    :data:`OTHER_TOKENS` per other one."""
    if text.isascii():  # most replies: no character past ASCII, no loop
        return int(len(text) * OTHER_TOKENS) + 1
    wide = middle = 0
    for ch in text:
        o = ord(ch)
        if o >= 0x2E80 or 0x900 <= o <= 0x1CFF:
            wide += 1
        elif 0x370 <= o <= 0x8FF:
            middle += 1
    return int(wide * CJK_TOKENS + middle * MIDDLE_TOKENS + (len(text) - wide - middle) * OTHER_TOKENS) + 1


def reply_size(reply: dict[str, Any]) -> tuple[int, int]:
    """``(characters, estimated tokens)`` of ``reply``: the characters of its compact JSON (UTF-8 text, not escaped),
    the tokens of the indented JSON the SDK sends as the text copy (the larger of the two copies)."""
    compact = json.dumps(reply, ensure_ascii=False, separators=(",", ":"), default=str)
    sent = json.dumps(reply, ensure_ascii=False, indent=2, default=str)
    return len(compact), estimate_tokens(sent)


def fit_hits(reply: dict[str, Any], key: str, hits: list[Any], limits: list[int]) -> dict[str, Any]:
    """Cut ``reply[key]`` (``hit_out`` of ``hits`` at ``limits``) until the whole reply is at most
    :data:`MAX_RECALL_CHARS` characters and :data:`MAX_REPLY_TOKENS` estimated tokens: the longest text is halved
    (never below :data:`MIN_HIT_CHARS`), then the lowest-ranked hits are left out (``reply["omitted"]`` counts them,
    ``reply["count"]`` is what is listed)."""
    while True:
        chars, tokens = reply_size(reply)
        if chars <= MAX_RECALL_CHARS and tokens <= MAX_REPLY_TOKENS or not reply[key]:
            break
        longest = max(range(len(reply[key])), key=lambda i: len(reply[key][i]["text"]))
        was = len(reply[key][longest]["text"])
        shorter = None
        if was > MIN_HIT_CHARS:
            shorter = hit_out(hits[longest], max(MIN_HIT_CHARS, was // 2))
        if shorter is not None and len(shorter["text"]) < was:
            limits[longest] = max(MIN_HIT_CHARS, was // 2)
            kept = {f: v for f, v in reply[key][longest].items() if f in ("before", "after")}
            reply[key][longest] = {**shorter, **kept}
        else:  # at its floor, or its cut note alone outgrows it (a long id): the lowest hit goes
            reply[key].pop()
            hits.pop()
            limits.pop()
            reply["omitted"] = reply.get("omitted", 0) + 1
    reply["count"] = len(reply[key])
    return reply


#: characters of a cut hit's first line kept before the window holding its matched passage
PASSAGE_LEAD = 160
#: characters of the matched passage a cut hit shows at least; below that a hit is cut from its opening
MIN_WINDOW = 80
#: characters a window may start before its passage, to begin at a line's start (else at a space)
LINE_BACK = 200


def span_of(hit: Any, total: int) -> tuple[int, int] | None:
    """``hit.span`` when it is a usable character range of a text of ``total`` characters (two ints, ``0 <= a < b``;
    a team server's row may carry anything), else ``None``."""
    span = getattr(hit, "span", None)
    if not isinstance(span, (tuple, list)) or len(span) != 2:
        return None
    a, b = span
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)) or not 0 <= a < b:
        return None
    return a, min(b, total)


def passage_cut(hit: Any, text: str, limit: int) -> tuple[str, int, int] | None:
    """The part of ``text`` (a hit's, longer than ``limit``) to show when the passage recall matched (``hit.span``, a
    long event's) lies past what a cut at the opening shows: ``(lead, start, end)``, the text is then ``lead +
    text[start:end]`` and its :func:`window_note`, at most ``limit`` characters in all. The window starts at the
    line (else the word) that begins the passage, or earlier so that it reaches the text's end; ``lead`` is the text's
    first line (a tool call's command, a turn's opening; cut at :data:`PASSAGE_LEAD`) when the window starts after it
    and there is room. ``None`` when the opening holds the passage, or there is no usable span or room."""
    span = span_of(hit, len(text))
    head = limit - len(cut_note(hit, limit, len(text)))
    if span is None or span[1] <= head:
        return None
    room = limit - len(window_note(hit, len(text), len(text), len(text)))  # the note at its longest
    if room < MIN_WINDOW:
        return None
    first = text.split("\n", 1)[0]
    keep = min(len(first), PASSAGE_LEAD) + (len(first) > PASSAGE_LEAD) + 3  # the first line, its cut mark, " …\n"
    led = span[0] > len(first) + 1 and room - keep >= MIN_WINDOW
    n = room - keep if led else room
    at, back = span[0], min(LINE_BACK, n // 3)  # back to where its line starts, never so far the passage is left out
    nl = text.rfind("\n", max(0, at - back), at)
    if nl >= 0:
        at = nl + 1
    elif at > 0:  # one long line (minified JSON, a fetched page): from the word the passage starts in
        sp = text.rfind(" ", max(0, at - back), at)
        at = sp + 1 if sp >= 0 else at
    start = max(0, min(at, len(text) - n))  # a passage at the end: the window reaches it, and the end
    if led and start <= len(first):  # moved back into the first line: it shows that line itself
        led, n = False, room
        start = max(0, min(at, len(text) - n))
    if start < MIN_WINDOW:  # the window would begin at the opening anyway
        return None
    lead = ""
    if led:  # " …" marks the lines left out between the first line and the window
        lead = (first[:PASSAGE_LEAD] + ("…" if len(first) > PASSAGE_LEAD else "")
                + (" …\n" if start > len(first) + 1 else "\n"))
    return lead, start, min(len(text), start + n)


def secret_free(text: str | None) -> str | None:
    """``text`` as a reply shows it: every secret the capture rules find today replaced by its ``[redacted:kind]``
    marker (a text stored by an older memdir, before a rule knew that key's shape, or a note typed by hand)."""
    if not text:
        return text
    from memdir.capture.redact import redact

    return redact(text)


def redacted_hit(hit: Any) -> Any:
    """``hit`` with its text redacted whole and its matched passage moved with it
    (:func:`memdir.capture.redact.redact_span`); ``hit`` itself when nothing was redacted."""
    from dataclasses import is_dataclass, replace

    from memdir.capture.redact import redact_span

    text, span = redact_span(hit.text or "", span_of(hit, len(hit.text or "")))
    return replace(hit, text=text, span=span) if text != (hit.text or "") and is_dataclass(hit) else hit


def hit_out(hit: Any, limit: int = MAX_HIT_CHARS) -> dict[str, Any]:
    hit = redacted_hit(hit)  # redacted whole before any cut: a key a cut split in two would pass as two halves
    text = hit.text or ""
    truncated = len(text) > limit
    if truncated:  # the cut text says how to read the rest (memory_read from the cut), within the same limit
        at = passage_cut(hit, text, limit)
        if at is None:
            cut = max(1, limit - len(cut_note(hit, limit, len(text))))
            text = text[:cut] + cut_note(hit, cut, len(text))
        else:  # the part recall matched, not the opening it never matched (led by the first line)
            lead, start, end = at
            text = lead + text[start:end] + window_note(hit, start, end, len(text))
    reasons = json.loads(json.dumps(hit.reasons or {}, ensure_ascii=False, default=str))
    if isinstance(reasons.get("fields"), dict):  # terms matched in the neighbouring turns: for a person's --explain,
        reasons["fields"].pop("context", None)  # not the model's reply (its bound is shared with the hits' texts)
    return {"id": hit.id, "handle": hit.handle, "kind": hit.kind, "scope": hit.scope, "score": round(float(hit.score), 6),
            "summary": secret_free(hit.summary), "text": text, "truncated": truncated,
            "ts": iso(hit.ts) if getattr(hit, "ts", None) else None,
            "pinned": bool(hit.pinned), "category": hit.category, "reasons": reasons}


#: characters of the query a ``memory_recall`` reply repeats (the rest is cut with ``…``)
QUERY_ECHO = 500


def recall_k(m: "Memdir", k: int | None) -> int:
    """The hits a ``memory_recall`` returns: ``k`` when given, else the ``recall.k`` a user set (config file or
    environment), else :data:`DEFAULT_K`; at most :data:`MAX_K`. Raises ``UsageError`` for a ``k`` below 1 (a call
    asking for no hits, or a negative count, is a mistake to say, not one hit to return)."""
    if k is None:
        k = m.config.get("recall.k") if m.config.source("recall.k") != "default" else DEFAULT_K
    elif isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise UsageError(f"k must be a whole number of 1 or more (got {k!r}; at most {MAX_K} hits are returned)")
    return max(1, min(int(k), MAX_K))


def shared_turns(out: list[dict[str, Any]]) -> dict[tuple[int, str], tuple[int, dict[str, Any]]]:
    """Name, not repeat, a neighbour that is itself a hit of the same reply: in ``out`` (:func:`hit_out` dicts with
    ``before`` / ``after``), a neighbour whose window's text the other hit's text shows whole gets ``"text": "(hit N
    of this reply)"`` (N from 1), so the reply's bound goes to texts it does not hold yet (block-QA reachable: tuning
    145 -> 146, validation 144 unchanged). Changes ``out`` in place; returns what it replaced,
    ``{(hit index, side): (the other hit's index, the neighbour as it was)}``, for :func:`unshare_lost`."""
    rank = {h["handle"]: i for i, h in enumerate(out) if h.get("handle")}
    named: dict[tuple[int, str], tuple[int, dict[str, Any]]] = {}
    for i, hit in enumerate(out):
        for side in ("before", "after"):
            turn, j = hit.get(side), rank.get((hit.get(side) or {}).get("handle"))
            if turn and j is not None and j != i and _core(turn["text"]) in out[j]["text"]:
                named[(i, side)] = (j, turn)
                hit[side] = {**turn, "text": f"(hit {j + 1} of this reply)"}
    return named


def _core(window: str) -> str:
    """A neighbour's window without the cut marks at its ends (the part another text must hold)."""
    return window.strip().strip("…").strip()


def unshare_lost(hits: list[dict[str, Any]], named: dict[tuple[int, str], tuple[int, dict[str, Any]]]) -> bool:
    """Give back (in ``hits``, a reply's after :func:`fit_hits`) each neighbour :func:`shared_turns` named whose
    other hit was left out or no longer shows its window whole (its text was halved); ``True`` when one was given
    back (the reply must be fitted again). Those given back leave ``named``."""
    lost = [key for key, (j, turn) in named.items()
            if key[0] < len(hits) and (j >= len(hits) or _core(turn["text"]) not in hits[j]["text"])]
    for i, side in lost:
        hits[i][side] = named.pop((i, side))[1]
    return bool(lost)


def do_recall(m: "Memdir", query: str, k: int | None = None, scope: str | None = None,
              kinds: list[str] | None = None) -> dict[str, Any]:
    """``{"query", "count", "hits": [{id, handle, kind, scope, score, summary, text, truncated, ts, pinned,
    category, reasons, before?, after?}], "omitted"?}``, best first; ``k`` as :func:`recall_k` says (``before`` /
    ``after``: the turn next to an event hit in its session, ``{handle, role, text}``, its best-matching window of at
    most 400 characters, :meth:`Memdir.around`; a neighbour another hit shows whole names it, :func:`shared_turns`).
    Each text is cut at 4,000 chars (:func:`hit_out`: from its opening,
    or around the passage recall matched, :func:`passage_cut`) and the whole reply kept within 20,000 characters and
    10,000 estimated tokens (:func:`fit_hits`: long texts halved, then the lowest hits left out and counted in
    ``omitted``; ``truncated: true``; a cut text ends with a note saying how to read the rest with
    :func:`do_read`). Recall counts as a rehearsal."""
    k = recall_k(m, k)
    if not isinstance(query, str) or not clean_text(query).strip():
        raise UsageError("the query is empty: give the words to search for")
    hits = m.recall(clean_text(query), k=k, scope=scope, kinds=[clean_text(x) for x in kinds] if kinds else None,
                    rehearse=True)
    out, limits, left = [], [], MAX_RECALL_CHARS
    # the turn before and after each event hit (a failing output before the reply that names it, the change after
    # an error): its best-matching window, AROUND_CHARS each (memdir.engine.around)
    near = m.around(list(hits), clean_text(query))
    for h, ctx in zip(hits, near):  # best first: the best hits keep the most text
        limits.append(max(MIN_HIT_CHARS, min(MAX_HIT_CHARS, left)))
        out.append({**hit_out(h, limits[-1]), **ctx})
        left -= len(out[-1]["text"])  # the neighbours count in fit_hits' bound, not in this share
    named = shared_turns(out)
    shown = query if len(query) <= QUERY_ECHO else query[:QUERY_ECHO] + "…"  # a pasted log is not sent back whole
    reply, kept = {"query": shown, "count": len(out), "hits": out}, list(hits)
    while True:  # fit_hits leaves out and cuts in ``kept`` and ``limits`` too
        reply = fit_hits(reply, "hits", kept, limits)
        if not unshare_lost(reply["hits"], named):
            return reply


def page(text: str, offset: int, limit: int, tokens: int | None = None) -> str:
    """The longest ``text[offset:end]`` whose JSON string form (``json.dumps(..., ensure_ascii=False)``, quotes
    excluded) is at most ``limit`` characters and, with ``tokens``, at most that many estimated tokens
    (:func:`estimate_tokens`: a page of Chinese is shorter), at least one character when any is left: a page of
    quotes, backslashes or control characters (each escaped to 2-6 characters) stays inside the budget too."""
    end = min(len(text), offset + limit)
    while end - offset > 1:
        shown = json.dumps(text[offset:end], ensure_ascii=False)[1:-1]
        size, need = len(shown), estimate_tokens(shown) if tokens is not None else 0
        if size <= limit and (tokens is None or need <= tokens):
            break
        ratio = min(limit / size, tokens / need if tokens is not None and need else 1.0)
        end = offset + max(1, int((end - offset) * ratio) - 1)
    return text[offset:end]


def do_read(m: "Memdir", id: str, offset: int = 0, max_chars: int = MAX_READ_CHARS,
            scope: str | None = None) -> dict[str, Any]:
    """One memory's whole text, a page at a time: ``{"id", "kind", "scope", "summary", "offset", "total_chars",
    "next_offset", "text"}``. ``id``: the short handle a hit or the ``<memory>`` block shows, a note id or an event
    key (:meth:`Memdir.get`, project first; ``scope`` picks a root). ``text`` is ``whole[offset:offset + n]``, ``n``
    at most ``max_chars`` (clamped to 1..16,000: with the other fields a reply stays under 20,000 characters, the
    budget of ``memory_recall``) counted as the characters of its JSON form, so escapes count, and the whole reply
    at most :data:`MAX_REPLY_TOKENS` estimated tokens (a page of Chinese holds about 8,000 characters); ``next_offset`` is
    where the next page starts, ``None`` after the last (offsets count characters, code points). Read-only, not a
    rehearsal. Raises ``NotFound`` (nothing has that id), ``UsageError`` (a negative or non-integer offset)."""
    try:
        offset, max_chars = int(offset), int(max_chars)
    except (TypeError, ValueError):
        raise UsageError(f"offset and max_chars must be integers (got {offset!r}, {max_chars!r})") from None
    if offset < 0:
        raise UsageError(f"offset must be >= 0 (got {offset})")
    max_chars = max(1, min(max_chars, MAX_READ_CHARS))
    ref = clean_text(id).strip() if isinstance(id, str) else ""
    item = m.get(ref, scope=scope, remote=True) if ref else None
    if item is None:
        raise NotFound(f"no memory has the id or handle {ref!r}; memory_recall and memory_list show them")
    text = secret_free(item.text or "") or ""  # paged as shown: a key a page break split would pass as two halves
    summary = getattr(item, "summary", None)
    reply = {"id": getattr(item, "id", None) or item.key, "kind": getattr(item, "kind", None) or item.role,
             "scope": item.scope, "summary": (secret_free(summary) or "")[:200] if summary else None, "offset": offset,
             "total_chars": len(text), "next_offset": None, "text": ""}
    # the page's tokens too (MAX_REPLY_TOKENS a copy with the other fields): 16,000 characters of Chinese were ~19,000
    room = max(1, MAX_REPLY_TOKENS - reply_size(reply)[1] - 16)
    chunk = page(text, offset, max_chars, room) if offset < len(text) else ""
    end = offset + len(chunk)
    reply.update(next_offset=end if end < len(text) else None, text=chunk)
    return reply


def _echo(text: str | None, limit: int) -> str | None:
    """``text`` as a reply repeats it: at most ``limit`` characters, a longer one cut with ``… [N characters]``."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text):,} characters]"


def _echo_list(items: Any, limit: int = 2_000) -> list[str]:
    """A list of short strings as a reply repeats it: up to ``limit`` characters in all, then ``…``."""
    out, used = [], 0
    for x in items:
        if used + len(x) > limit:
            out.append(f"… [{len(items) - len(out):,} more]")
            break
        out.append(x)
        used += len(x)
    return out


def note_out(note: Any) -> dict[str, Any]:
    """A note as a reply shows it: its text, summary, tags and load_when cut so the reply stays within a host's
    limit (the whole note is in its file; ``memory_read`` pages through it)."""
    return {"id": note.id, "category": note.category, "kind": note.kind, "scope": note.scope,
            "summary": _echo(note.summary, 500), "text": _echo(note.text, MAX_HIT_CHARS),
            "tags": _echo_list(list(note.tags)), "load_when": _echo_list(list(note.load_when)),
            "pinned": bool(note.pinned), "supersedes": note.supersedes, "superseded_by": note.superseded_by,
            "created": iso(note.created) if note.created else None,
            "updated": iso(note.updated) if note.updated else None,
            "path": str(note.path) if note.path else None}


def do_remember(m: "Memdir", text: str, category: str = "facts", summary: str | None = None,
                tags: list[str] | None = None, load_when: list[str] | None = None, pinned: bool | None = None,
                supersedes: str | None = None, scope: str = "project", highlight: str | None = None) -> dict[str, Any]:
    """``{"existed": bool, "note": {...}}``; raises what :meth:`Memdir.remember` raises. A ``rules`` note is
    not written: it becomes a pending proposal, ``{"existed": bool, "note": None, "proposal": {...}, "message"}``
    (a person accepts it with ``memdir proposals accept ID``); so does a note that would supersede a rule."""
    sup = clean_text(supersedes).strip() if supersedes else None
    try:  # by what it names, not how: the handle recall and the block show stands for a rule as well as its id
        target = m.get(sup) if sup else None
    except MemdirError:
        target = None  # a bad id: remember says why
    replaces_rule = getattr(target, "category", None) == "rules"
    if clean_text(category).strip() == "rules" or replaces_rule:  # a model never writes or replaces a rule
        p = m.propose(clean_text(text), category=clean_text(category).strip(), summary=clean_text(summary) if summary else None,
                      tags=[clean_text(t) for t in tags or ()], load_when=[clean_text(t) for t in load_when or ()],
                      supersedes=clean_text(supersedes) if supersedes else None, scope=scope, source="mcp")
        brief = {k: p.get(k) for k in ("id", "status", "scope", "proposed")}  # text and summary cut as note_out's
        brief.update(summary=_echo(p.get("summary"), 500), text=_echo(p.get("text"), MAX_HIT_CHARS))
        msg = (f"rules are written by people: proposal {p['id']} is pending; the user accepts it with "
               f"`memdir proposals accept {p['id']}`")
        return {"existed": not p["created"], "note": None, "proposal": brief, "message": msg}
    note = m.remember(clean_text(text), category=clean_text(category),
                      summary=clean_text(summary) if summary else None,
                      tags=[clean_text(t) for t in tags or ()], load_when=[clean_text(t) for t in load_when or ()],
                      pinned=bool(m.config.get("remember.pinned") if pinned is None else pinned),
                      supersedes=clean_text(supersedes) if supersedes else None, scope=scope,
                      highlight=clean_text(highlight) if highlight else None)
    return {"existed": bool(note.existed), "note": note_out(note)}


def do_forget_matching(m: "Memdir", query: str | None = None, prefix: str | None = None,
                       confirm_token: str | None = None) -> dict[str, Any]:
    """Forget by text or key prefix (:meth:`Memdir.forget_matching`): a preview with a ``confirm_token``, or
    the delete when the token is given; the notes of ``rules/`` are left out (only people remove a rule). Returns ``{"id": None, "forgotten", "count", "confirm_token",
    "samples", "message"}``; ``confirm_token`` is ``None`` once deleted and when nothing matches."""
    if query is not None and prefix is not None:  # said with the tool's argument names, not the CLI's options
        raise UsageError("give query or prefix to forget by, not both")
    res = m.forget_matching(query=clean_text(query) if query is not None else None,
                            prefix=clean_text(prefix) if prefix is not None else None,
                            token=clean_text(confirm_token).strip() if confirm_token else None, rules=False)
    what = f"query={_echo(query, 200)!r}" if query is not None else f"prefix={_echo(prefix, 200)!r}"
    if res["deleted"]:
        msg = f"forgot {res['count']} memories matching {what} ({res['notes']} notes, {res['events']} events)"
    elif not res["count"]:  # as the CLI: nothing to confirm, so no token inviting a second call
        return {"id": None, "forgotten": False, "count": 0, "confirm_token": None, "samples": [],
                "message": f"no memory matches {what}; nothing to forget (see memory_recall)"}
    else:
        msg = (f"preview only, nothing deleted: {res['count']} memories match {what}. To delete them call memory_forget "
               f"again with the same {what.split('=')[0]} and confirm_token={res['token']!r}.")
    return {"id": None, "forgotten": bool(res["deleted"]), "count": res["count"],
            "confirm_token": None if res["deleted"] else res["token"], "samples": res.get("samples", []), "message": msg}


def do_list(m: "Memdir", kinds: list[str] | None = None, category: str | None = None, scope: str | None = None,
            limit: int = 20) -> dict[str, Any]:
    """``{"count", "entries": [hit dicts as memory_recall, score 0]}``, newest first (:meth:`Memdir.recent`).
    ``UsageError`` for a ``limit`` below 1 (as ``memory_recall``'s ``k``: a call asking for nothing is a mistake to
    say, not one entry to return); above :data:`MAX_K` it is :data:`MAX_K`."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise UsageError(f"limit must be a whole number of 1 or more (got {limit!r}; at most {MAX_K} entries are returned)")
    hits = m.recent(kinds=[clean_text(k) for k in kinds] if kinds else None,
                    category=clean_text(category) if category else None, scope=scope, limit=max(1, min(int(limit), MAX_K)))
    out, limits, left = [], [], MAX_RECALL_CHARS
    for h in hits:
        limits.append(max(MIN_HIT_CHARS, min(MAX_HIT_CHARS, left)))
        out.append(hit_out(h, limits[-1]))
        left -= len(out[-1]["text"])
    return fit_hits({"count": len(out), "entries": out}, "entries", list(hits), limits)


def do_forget(m: "Memdir", id: str) -> dict[str, Any]:
    """``{"id", "forgotten": bool, "message"}`` (the message names the memory a handle stood for); ``PathError`` for
    ids leaving the root (case C14); ``UsageError`` for a note of ``rules/``: a model never writes, replaces or
    removes a person's rule (:func:`do_remember` makes a proposal of a new one)."""
    id = clean_text(id).strip()  # as get and forget read it: the reply names it so too
    try:
        target = m.get(id)
    except MemdirError:
        target = None
    name = getattr(target, "id", None) or getattr(target, "key", None) or id
    if getattr(target, "category", None) == "rules":
        raise UsageError(f"{name} is a rule: rules are removed by people (`memdir forget {name}` in a terminal, or "
                         "delete its file), never by an agent")
    gone = m.forget(id)
    if not gone:  # an id nothing has is echoed at most QUERY_ECHO characters long (a pasted log is not sent back)
        shown = id if len(id) <= QUERY_ECHO else id[:QUERY_ECHO] + "…"
        return {"id": shown, "forgotten": False,
                "message": f"nothing has the id {shown!r}; see memory_recall or memory_inspect for ids"}
    return {"id": id, "forgotten": True, "message": f"forgot {name}" + (f" ({id})" if name != id else "")}


#: characters of a summary or a problem's detail a ``memory_inspect`` reply shows (a longer one is cut with ``…``)
INSPECT_TEXT_CHARS = 200


def do_inspect(m: "Memdir") -> dict[str, Any]:
    """``{"ok", "counts", "problems", "notes": [{id, scope, kind, summary, pinned, superseded_by}],
    "notes_total", "notes_listed", "proposals", "problems_total", "proposals_total"}`` — at most 200 notes, problems
    and proposals listed, each summary and
    detail cut at :data:`INSPECT_TEXT_CHARS`, and fewer notes listed when the reply would pass
    :data:`MAX_RECALL_CHARS` characters or :data:`MAX_REPLY_TOKENS` tokens (as ``memory_recall``); counts are
    complete."""
    rep = m.inspect()

    def short(text: Any) -> str:  # a summary is one line: a long one is cut, so the listing stays a listing
        text = "" if text is None else " ".join(str(text).split())
        return text if len(text) <= INSPECT_TEXT_CHARS else text[:INSPECT_TEXT_CHARS - 1] + "…"

    notes = [{"id": n.id, "scope": n.scope, "kind": n.kind, "summary": short(n.summary), "pinned": bool(n.pinned),
              "superseded_by": n.superseded_by} for n in rep.notes]
    problems = [{str(k): short(v) if k == "detail" else ("" if v is None else str(v)) for k, v in p.items()}
                for p in rep.problems]
    counts = json.loads(json.dumps(rep.counts, ensure_ascii=False, default=str))
    pending = [{k: short(p.get(k)) if k == "summary" else ("" if p.get(k) is None else str(p.get(k)))
                for k in ("id", "scope", "source", "summary", "proposed")} for p in m.proposals()]
    listed, shown = min(len(notes), MAX_INSPECT_NOTES), MAX_INSPECT_NOTES
    while True:  # within memory_recall's bound: fewer notes listed (notes_listed says how many), counts complete
        out = {"ok": not rep.problems, "counts": counts, "problems": problems[:shown], "notes": notes[:listed],
               "notes_total": len(notes), "notes_listed": listed, "proposals": pending[:shown],
               "problems_total": len(problems), "proposals_total": len(pending)}
        chars, tokens = reply_size(out)
        if chars <= MAX_RECALL_CHARS and tokens <= MAX_REPLY_TOKENS or not (listed or shown):
            return out
        listed, shown = listed // 2, shown // 2


def as_dict(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    elif hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        value = asdict(value)
    if not isinstance(value, dict):
        value = {"result": value}
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def do_prune(m: "Memdir", days: float = 90, confirm_token: str | None = None, force: bool = False) -> dict[str, Any]:
    """Preview (no token) or act (the token from a preview) via ``Memdir.prune(days, token=…)``, which
    previews ``{"deleted": False, "count", "bytes", "samples", "token", "cutoff"}`` and deletes
    ``{"deleted": True, "count", "bytes"}`` (cold, unpinned, low-importance items idle ``days`` days; the
    token is quantised to the hour — seed 001).

    Returns ``{"available", "acted", "days", "count", "deleted", "bytes", "confirm_token", "samples",
    "message", "detail"}`` (``detail`` = what ``Memdir.prune`` returned). A memdir without ``prune`` answers
    ``available: false`` with a message rather than an error. ``UsageError`` for days < 0, and — raised by
    ``Memdir.prune`` — for a wrong or expired token; nothing is deleted without the right token.

    ``force`` (the CLI's ``--force``, seed 001's "token or force") never skips the preview over MCP: without a
    token it previews like any first call and the message asks for a second call with ``confirm_token`` and
    ``force=true``; with the token it deletes (checked as without ``force``). ``Memdir.prune(force=True)``, which
    computes the token itself, is never called from here.
    """
    try:
        days = float(days)
    except (TypeError, ValueError):
        raise UsageError(f"days must be a number, not {days!r}") from None
    from memdir.engine.tiers import MAX_PRUNE_DAYS

    if not (0 <= days <= MAX_PRUNE_DAYS):  # said with the tool's own argument name, not the CLI's --days
        raise UsageError(f"days must be a number from 0 to {MAX_PRUNE_DAYS:,} (got {days:g})")
    token = clean_text(confirm_token).strip() if confirm_token else None
    base = {"available": False, "acted": False, "days": days, "count": None, "deleted": None, "bytes": None,
            "confirm_token": None, "samples": [], "detail": {}}
    prune = getattr(m, "prune", None)
    if not callable(prune):
        return base | {"message": "memory_prune is not available in this version of memdir (it needs the "
                                  "hot/warm/cold tiers); nothing was changed"}
    try:
        detail = as_dict(prune(days, token=token))
    except UsageError:  # the engine's words name the CLI's command; a model calls this tool again instead
        if not token:
            raise
        raise UsageError(f"confirm_token is wrong, expired (tokens change every hour) or for other memories than match "
                         f"now: call memory_prune with days={days:g} and no confirm_token for a new preview and token"
                         ) from None
    flag = detail.get("deleted")
    acted = flag if isinstance(flag, bool) else bool(token) and detail.get("mode") != "preview"
    count = detail.get("count")
    count = int(count) if isinstance(count, (int, float)) and not isinstance(count, bool) else None
    n_deleted = (count if isinstance(flag, bool) else flag if isinstance(flag, int) else count) if acted else 0
    size = detail.get("bytes")
    out_token = None if acted else (detail.get("confirm_token") or detail.get("token"))
    samples = [s if isinstance(s, dict) else {"text": str(s)} for s in (detail.get("samples") or [])][:20]
    if acted:
        msg = f"deleted {n_deleted} cold memories idle for more than {days:g} days (tombstoned)"
    elif out_token:
        msg = (f"preview only, nothing deleted: {count} cold memories idle for more than {days:g} days would go. "
               f"To delete them call memory_prune again with days={days:g} and confirm_token={out_token!r}"
               + (" and force=true" if force else "") + " (the token changes every hour)."
               + (" force alone deletes nothing: it needs this preview's token." if force else ""))
    else:
        msg = f"preview only, nothing deleted: {count} cold memories idle for more than {days:g} days"
    return base | {"available": True, "acted": bool(acted), "count": count, "deleted": n_deleted,
                   "bytes": int(size) if isinstance(size, (int, float)) and not isinstance(size, bool) else None,
                   "confirm_token": str(out_token) if out_token else None, "samples": samples,
                   "message": msg, "detail": detail}
