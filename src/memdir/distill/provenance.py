"""Whose words a distilled rule holds: a rule (or an item superseding one) whose words a tool returned (an issue
thread, a web page, an install log) and the developer never typed is third-party text, and is not proposed as the
developer's (case C37's kind). Other categories may come from what tools showed (a pitfall, a fact found in an error
output, a decision the agent's findings led to): they are not judged here."""

from __future__ import annotations

from typing import Any

from memdir.distill.overlap import content_tokens

#: categories whose notes say what the developer wants always or never done
VOICE = frozenset({"rules"})
#: at most this share of the item's words in the developer's turns, ...
FROM_DEVELOPER = 0.25
#: ... while at least this share is in what the chunk's tools returned: the item is the tools' words
FROM_TOOLS = 0.4


def third_party(cand: dict[str, Any], rows: list[Any]) -> str:
    """Why ``cand`` (a checked distill item) is not the developer's, or ``""``: it would be a rule (:data:`VOICE`,
    or it supersedes a ``rules/`` note) while its content tokens are mostly found in the tool turns of
    ``rows`` (the chunk it came from) and hardly in the user turns."""
    sup = str(cand.get("supersedes") or "")
    if cand.get("category") not in VOICE and not sup.startswith("rules/"):
        return ""
    words = content_tokens(f"{cand.get('summary') or ''}\n{cand.get('body') or ''}")
    if not words:
        return ""
    said: set[str] = set()
    returned: set[str] = set()
    for r in rows:
        if r["role"] == "user":
            said |= content_tokens(r["text"] or "")
        elif r["role"] == "tool":
            returned |= content_tokens(r["text"] or "")
    if len(words & said) <= FROM_DEVELOPER * len(words) and len(words & returned) >= FROM_TOOLS * len(words):
        return "its words come from a tool's output (third-party text), not from anything the developer said"
    return ""
