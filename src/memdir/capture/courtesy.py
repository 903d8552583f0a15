"""An assistant turn that is only a closing courtesy ("Glad that worked! Let me know if you need anything else.",
"很高兴能帮到你，如有其他问题随时告诉我"): it answers nothing a later question could ask, and a single common word of
it ("need", "changes") would pull it into a block. :func:`is_courtesy` is the capture gate's test (reason
``trivial``), for hooks and importers alike."""

from __future__ import annotations

import re

#: one sentence of courtesy, English: glad it helped, you're welcome, let me know / feel free / don't hesitate to ask,
#: if you have any other questions, happy coding
_EN = re.compile(
    r"^(?:(?:i'?m |i am |so )?(?:glad|happy|pleased)(?: to hear)?(?: (?:that|the|it|this|those|everything)\b[^.!?]*)?"
    r"|you'?re (?:very )?welcome|no problem|my pleasure|any ?time|happy (?:coding|hacking)|good luck|cheers|have a (?:great|nice|good) \w+"
    r"|(?:please )?(?:(?:let me know|feel free to let me know)(?: if| whether| when)? (?:you|there|anything)"
    r"|feel free to (?:ask|reach out)|don'?t hesitate to (?:ask|reach out))[^.!?:]*"
    r"|if (?:you )?(?:have|need|run into|want)(?: any)? (?:more|other|further|additional)?\s*(?:questions?|requests?|help"
    r"|assistance|changes?|issues?|problems?)[^.!?]*|is there anything else[^.!?]*|anything else (?:i can|you need)[^.!?]*)"
    r"[.!?…]*$", re.I)
#: the same in Chinese: 很高兴能帮到你 / 不客气 / 如有其他问题随时告诉我 / 祝顺利
_ZH = re.compile(r"^(?:很?高兴(?:能|可以)?(?:帮到|帮上|帮助)[^。！？]*|不客气|不用谢|祝(?:你)?[^。！？]{0,8}顺利[^。！？]*"
                 r"|(?:如果|如)(?:你)?(?:还)?有(?:任何|其他|其它|别的|更多)?(?:问题|需要|需求)[^。！？]*"
                 r"|(?:有问题)?随时(?:告诉|联系|找)我[^。！？]*)[。！？!.…~～]*$")
#: a sentence's end: . ! ? (and the full-width forms) followed by a space or the end
_SENTENCES = re.compile(r"(?<=[.!?。！？])\s*")
COURTESY_MAX_CHARS = 300  # longer turns say more than courtesy


def is_courtesy(text: str) -> bool:
    """True when every sentence of ``text`` (at most :data:`COURTESY_MAX_CHARS` characters, no code, no question to
    the user about the work) is a closing courtesy."""
    t = " ".join(text.split())
    if not t or len(t) > COURTESY_MAX_CHARS or "`" in t:
        return False
    parts = [p.strip() for p in _SENTENCES.split(t) if p.strip()]
    return bool(parts) and all(_EN.match(p) or _ZH.match(p) for p in parts)
