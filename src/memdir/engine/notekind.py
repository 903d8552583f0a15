"""A note kind given to ``remember`` (the API, and what the CLI and MCP pass on): one word naming a category's kind.

A kind is written into the note's frontmatter and shown in the block's entry header; text that is no plain word
(a newline, a bracket, a tag) is shown there as ``note`` and a word no category has is found by no kind filter, so
both are refused before anything is written, as ``edit`` refuses the latter.
"""

from __future__ import annotations

from typing import Any

from memdir.errors import UsageError
from memdir.inject.block import KIND_WORD
from memdir.stores import Stores


def checked_kind(s: Stores, kind: Any) -> str | None:
    """``kind`` stripped and in lower case, ``None`` when none is given (the category's kind is used); else
    ``UsageError`` in one line unless it is one word of letters, digits, ``_`` or ``-`` that a category's notes have
    (in any case)."""
    from memdir.engine.curated import note_kinds

    if kind is None or isinstance(kind, str) and not kind.strip():
        return None
    known = note_kinds(s)
    word = kind.strip().lower() if isinstance(kind, str) else None  # "Decision" is the kind decision
    if word is None or not KIND_WORD.fullmatch(word) or word not in known:
        shown = repr(kind if not isinstance(kind, str) else kind.strip())[:60]
        raise UsageError(f"kind {shown} is not a note kind: use one word of {', '.join(known)}, or leave it out "
                         "(the category's kind is used); nothing was written")
    return word
