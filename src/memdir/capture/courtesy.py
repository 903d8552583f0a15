"""An assistant turn that is only a closing courtesy ("Glad that worked! Let me know if you need anything else.",
"很高兴能帮到你，如有其他问题随时告诉我"): it answers nothing a later question could ask, and a single common word of
it ("need", "changes") would pull it into a block. :func:`is_courtesy` is the capture gate's test (reason
``trivial``), for hooks and importers alike.

Each clause of the turn (split at sentence ends, commas, semicolons and dashes) must be one of a few closed forms,
whole: a clause that goes on ("Glad that worked, the culprit was the stale lock file") says something, and the turn
is kept."""

from __future__ import annotations

import re

_TAIL = r"(?: for you| for me| now| again| out| then)?"
#: one clause of courtesy, English, matched whole
_EN = re.compile(
    r"(?:(?:i'?m |i am |so |really )?(?:glad|happy|pleased)(?: (?:that|to hear|to see)(?: that)?)?"
    r" (?:it|that|this|everything|the (?:changes?|fix|fixes|update|solution|suggestion)s?) (?:worked|works|helped|helps"
    r"|is working|are working|did the trick|fixed it|sorted it)" + _TAIL +
    r"|(?:i'?m |i am )?(?:glad|happy) (?:i could|to|we could) help(?: you)?(?: out)?"
    r"|you'?re (?:very |most )?welcome|no problem(?: at all)?|my pleasure|any ?time|happy (?:coding|hacking)|good luck"
    r"|cheers|have a (?:great|nice|good|lovely) (?:day|evening|weekend|one)"
    r"|(?:please )?(?:feel free to|don'?t hesitate to) (?:ask|reach out|let me know|come back)"
    r"(?: (?:if|whenever|any ?time) (?:you (?:need|have) (?:anything(?: else)?|more help"
    r"|any (?:other|more|further) questions?)|anything (?:else )?comes up))?(?: (?:any ?time|again))?"
    r"|(?:please )?let me know if (?:you (?:need|have|want) (?:anything(?: else)?|more help"
    r"|any(?:thing)? (?:other|more|further)? ?(?:help|questions?|changes?|assistance))"
    r"|there(?:'s| is) anything(?: else)? (?:i can (?:do|help with)|you need)"
    r"|anything (?:else )?comes up|you run into (?:anything|any (?:other |more )?(?:issues?|problems?)))"
    r"|if you (?:have|need|run into) any (?:more |other |further |additional )?(?:questions?|requests?|help|assistance"
    r"|issues?|problems?)(?: (?:or|and) (?:need|have|want) (?:any |more |further )?(?:help|assistance|questions?))?"
    r"|(?:just )?(?:ask|let me know)(?: any ?time)?"
    r"|is there anything else(?: (?:i can (?:do|help with)|you need|you'?d like(?: me to (?:change|do|look at))?))?"
    r"|anything else(?: (?:i can (?:do|help with)|you need))?)"
    r"[.!?…]*", re.I)
#: the same in Chinese: 很高兴能帮到你 / 不客气 / 如有其他问题随时告诉我 / 祝顺利
_ZH = re.compile(r"(?:很?高兴(?:能|可以)?(?:帮到|帮上|帮助)(?:你|您)?(?:的忙)?|不客气|不用谢|祝(?:你|您)?(?:一切)?顺利|加油"
                 r"|(?:如果|如)(?:你|您)?(?:还)?有(?:任何|其他|其它|别的|更多)?(?:的)?(?:问题|需要|需求)"
                 r"(?:(?:请)?随时(?:告诉|联系|找|问)(?:我)?)?"
                 r"|(?:有问题)?(?:请)?随时(?:告诉|联系|找|问)(?:我)?)[。！？!.…~～]*")
#: clause ends: sentence ends, commas, semicolons, dashes (ASCII and full-width)
_CLAUSES = re.compile(r"(?<=[.!?。！？])\s*|\s*[,;，；、]\s*|\s+[—–-]+\s+|\s*——\s*")
COURTESY_MAX_CHARS = 300  # longer turns say more than courtesy


def is_courtesy(text: str) -> bool:
    """True when every clause of ``text`` (at most :data:`COURTESY_MAX_CHARS` characters, no code) is a closing
    courtesy, whole (:data:`_EN`, :data:`_ZH`)."""
    t = " ".join(text.split())
    if not t or len(t) > COURTESY_MAX_CHARS or "`" in t:
        return False
    parts = [p.strip() for p in _CLAUSES.split(t) if p and p.strip(" .!?。！？")]
    return bool(parts) and all(_EN.fullmatch(p) or _ZH.fullmatch(p) for p in parts)
