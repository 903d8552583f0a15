"""A note as memdir indexes and shows it: what a person typed into a note file by hand passes the same redaction as
everything memdir writes itself (``memdir remember``, hooks, imports), so a token pasted into a note never reaches the
index, the compiled ``index.md`` files, the ``<memory>`` block, recall, the viewer or an export. The file is the
person's own and is never rewritten for it: ``memdir doctor`` and ``inspect`` say which notes hold one
(:func:`memdir.engine.health.check`), so it can be taken out before the root is committed.
"""

from __future__ import annotations

from dataclasses import replace

from memdir.capture.redact import redact_with_kinds
from memdir.types import Note


def redacted(note: Note) -> tuple[Note, list[str]]:
    """``(note, kinds)``: ``note`` with every secret in its text, summary, highlight, kind, tags, load-when phrases and
    supersede links replaced by ``[redacted:<kind>]`` (:func:`memdir.capture.redact.redact_with_kinds`), and the kinds of secret found
    (empty when there was none: the same ``note`` object comes back)."""
    found: list[str] = []

    def clean(value: str | None) -> str | None:
        if not value:
            return value
        out, kinds = redact_with_kinds(value)
        found.extend(kinds)
        return out

    # every field a person types and memdir shows (get, recall, recent, export): ``kind`` and the links are free text too
    changes = {"text": clean(note.text), "summary": clean(note.summary), "highlight": clean(note.highlight),
               "kind": clean(note.kind) or note.kind, "supersedes": clean(note.supersedes),
               "superseded_by": clean(note.superseded_by),
               "tags": tuple(clean(t) or t for t in note.tags), "load_when": tuple(clean(w) or w for w in note.load_when)}
    if not found:
        return note, []
    return replace(note, **changes), sorted(set(found))


def shown(note: Note, secrets: dict[str, list[str]]) -> Note:
    """``note`` as it is indexed and shown (:func:`redacted`); ``secrets`` (note id -> kinds, a root's record for
    doctor and inspect) gains the note's id when its file holds a secret and loses it when it no longer does."""
    note, kinds = redacted(note)
    if kinds:
        secrets[note.id] = kinds
    else:
        secrets.pop(note.id, None)
    return note
