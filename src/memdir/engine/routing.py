"""ROOT.md's routing table at work (seeds 000 and 002): a prompt that names a trigger brings its note or category
forward in the block.

A row ``| FTS5 | pitfalls/sqlite-cjk-tokenizer.md | fact |`` routes a prompt naming "FTS5" to that note: the note
becomes the block's first hit (fetched when recall did not find it); a row whose target is a category
(``pitfalls/``) moves that category's hits ahead of the others, or, when recall found none, brings in its
:data:`CATEGORY_NOTES` pinned or newest notes. Rows come from the compiled routing block (the
notes' ``load_when``) and from any table a person writes in ROOT.md. A trigger made of Latin letters or digits
matches as a whole word, case-insensitively; one in Chinese (or any other script without spaces) as a substring.
"""

from __future__ import annotations

import dataclasses
import re

from memdir.engine import lexical
from memdir.recall.tokenize import query_tokens
from memdir.stores import Stores
from memdir.types import Hit

#: what a routed hit's score is over the best hit's, so it is shown first (the block orders by score)
LIFT = 1.001
#: notes of a routed category brought into the block when recall found none of them
CATEGORY_NOTES = 3
_EDGE = re.compile(r"[0-9a-z]")


def names(prompt: str, trigger: str) -> bool:
    """True when ``prompt`` names ``trigger`` (see the module's matching rule)."""
    t = trigger.casefold().strip()
    if not t:
        return False
    pat = re.escape(t)
    if _EDGE.match(t[0]):
        pat = r"(?<![0-9a-z])" + pat
    if _EDGE.match(t[-1]):
        pat += r"(?![0-9a-z])"
    return re.search(pat, prompt.casefold()) is not None


def forward(s: Stores, prompt: str, hits: list[Hit], *, skip: tuple[str, ...] = ()) -> list[Hit]:
    """``hits`` with the notes and categories that ROOT.md routes ``prompt`` to brought first (scores lifted above
    the best hit, ``reasons["route"]`` = the trigger); notes of a ``skip`` category (shown elsewhere) are left
    alone. Unchanged when no trigger is named."""
    if not prompt.strip():
        return hits
    targets: list[tuple[str, str, object]] = []
    for root in s.live(None):
        for trigger, target in root.page().routes:
            if names(prompt, trigger):
                targets.append((trigger, target, root))
    if not targets:
        return hits
    top = max((h.score for h in hits), default=1.0) or 1.0
    out = list(hits)
    lifted: set[str] = set()
    tokens = query_tokens(prompt, repeats=True)
    for n, (trigger, target, root) in enumerate(targets):
        base = top * LIFT ** (len(targets) - n)  # the first row named ends up first
        if target.endswith("/"):
            cat = target[:-1]
            if cat in skip:
                continue
            had = False
            for i, h in enumerate(out):
                if h.category == cat and h.id not in lifted:
                    out[i] = lift(h, base, trigger)
                    lifted.add(h.id)
                    had = True
            if not had:  # recall found none of it: the category's pinned, then newest, notes are brought in
                rows = sorted(root.store.live_notes(cat), key=lambda r: (-int(r["pinned"] or 0), -(r["ts_epoch"] or 0)))
                for r in rows[:CATEGORY_NOTES]:
                    row = root.store.get_doc(r["ref"])
                    if row is not None and r["ref"] not in lifted:
                        out.append(lift(lexical.hit(s, root, row, base, tokens, {}, row["note_kind"]), base, trigger))
                        lifted.add(r["ref"])
            continue
        nid = target[:-3]
        if nid.split("/", 1)[0] in skip or nid in lifted:
            continue
        found = [i for i, h in enumerate(out) if h.id == nid]
        if found:
            out[found[0]] = lift(out[found[0]], base, trigger)
        else:
            row = root.store.get_doc(nid)
            if row is None or row["kind"] != "note" or row["superseded_by"]:
                continue
            out.append(lift(lexical.hit(s, root, row, base, tokens, {}, row["note_kind"]), base, trigger))
        lifted.add(nid)
    return sorted(out, key=lambda h: -h.score)


def lift(h: Hit, score: float, trigger: str) -> Hit:
    """``h`` scored ``score`` (never lowered), its reasons naming the route."""
    return dataclasses.replace(h, score=max(h.score, score), reasons={**h.reasons, "route": trigger})
