"""A turn imported while its session was still being written, completed by a later import.

An import of a live session stores what the file holds at that moment: a tool call whose result is not written yet
(``→ (no result)``), a reply cut in the middle of its text. The complete session, imported again, brought the same
turn under the same key (Claude Code, Codex, OpenCode: ids from the host) and was taken for a duplicate, so the result
never came in; a text history (SpecStory, Aider, ``/export``: keys of a line and a text hash) brought it under a new
key and the cut reply stayed beside the whole one. :func:`completed` finds the stored turn a new one completes, and
the import replaces it (:func:`memdir.engine.events.import_events`).
"""

from __future__ import annotations

import re
from typing import Any

from memdir.capture.gates import CAPTURE_PREFIXES

#: what a tool call recorded before its result reads (memdir.capture.tools.tool_summary)
PENDING = "→ (no result)"
#: a text history's key: ``import:<source>:<session>:L<line>[:e<n>].<8 hex of the text's hash>``
_POSITIONAL = re.compile(r"^(import:[^:]+:.+:L\d+(?::e\d+)?)\.[0-9a-f]{8}$")


#: how a reply that was written to its end usually ends: a cut one stops mid-sentence
_ENDED = tuple(".!?。！？…:：)]）】`\"'*|>")


def partial_of(old: str, new: str, role: str | None = None) -> bool:
    """True when the stored text ``old`` is ``new`` cut short: a tool call recorded before its result (``role``
    ``tool``, any other role too), now with one; or a reply (``role`` ``assistant``) that stopped mid-sentence and
    ``new`` goes on from (``old`` a proper prefix of it, not ending as a finished sentence does). A person's prompt is
    never written half-way: a longer prompt beginning with an earlier one is another prompt."""
    if not isinstance(old, str) or not isinstance(new, str) or old == new:
        return False
    o = old.rstrip()
    if o.endswith(PENDING):
        head = o[:-len(PENDING)].rstrip()
        return bool(head) and new.startswith(head) and not new.rstrip().endswith(PENDING)
    if role != "assistant" or not o or o.endswith(_ENDED):
        return False
    return len(new.rstrip()) > len(o) and new.startswith(o)


def completed(st: Any, row: dict[str, Any]) -> str | None:
    """The ref of the stored event that ``row`` (an event row about to be imported) completes: the same key with a
    text :func:`partial_of` the new one, or, for a text history's key, the same session's turn that starts on the same
    line with such a text. ``None`` when there is none (one indexed lookup; a text history's key, two)."""
    ref, text = row.get("ref"), row.get("text")
    if not isinstance(ref, str) or not isinstance(text, str) or ref.startswith(CAPTURE_PREFIXES):
        return None  # a hook's capture is whole (a tool's result comes with its call): no lookup on the hook's path
    role = row.get("role")
    old = st.get_doc(ref)
    if old is not None:
        same = old.get("kind") == "event" and old.get("role") == role
        return ref if same and partial_of(old.get("text"), text, role) else None
    m = _POSITIONAL.match(ref)
    if m is None:
        return None
    for other in st.event_refs_from(m.group(1) + "."):
        o = st.get_doc(other)
        if o is not None and o.get("session") == row.get("session") and o.get("role") == role \
                and partial_of(o.get("text"), text, role):
            return other
    return None


def _copied_turns(st: Any, row: dict[str, Any], copies: Any) -> Any:
    """The stored turns of the sessions ``row``'s session copies (:func:`memdir.engine.events.copied_from`: a fork
    repeats them under its own session id) with ``row``'s key in their session and its role."""
    ref, sess = row.get("ref"), row.get("session")
    mark = f":{sess}:"
    if not copies or not isinstance(ref, str) or not sess or mark not in ref or ref.startswith(CAPTURE_PREFIXES):
        return
    head, tail = ref.split(mark, 1)  # a host's key: import:<host>:<session>:<call or message id>
    for other in copies:
        o = st.get_doc(f"{head}:{other}:{tail}")
        if o is not None and o.get("kind") == "event" and o.get("role") == row.get("role"):
            yield o


def completes_copy(st: Any, row: dict[str, Any], copies: Any) -> dict[str, Any] | None:
    """The stored turn of a session ``row``'s session copies that ``row`` completes (:func:`partial_of`), or ``None``:
    the import stores ``row`` in its place, under its key and session, so a re-import of either file finds it."""
    return next((o for o in _copied_turns(st, row, copies) if partial_of(o.get("text"), row.get("text"), row.get("role"))),
                None)


def cut_of_copy(st: Any, row: dict[str, Any], copies: Any) -> bool:
    """True when ``row`` is a turn stored whole from a session its session copies, cut short (a duplicate)."""
    return any(partial_of(row.get("text"), o.get("text"), row.get("role")) for o in _copied_turns(st, row, copies))
