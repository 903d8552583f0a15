"""Public data classes returned by the facade (all immutable)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Note:
    """A curated memory: one Markdown file ``<root>/<category>/<slug>.md``.

    ``id`` is ``"<category>/<slug>"``; ``scope`` is ``"project"`` or ``"global"``; times are aware UTC;
    ``existed`` is True when :meth:`Memdir.remember` found the same text already stored (case C5).
    """

    id: str
    category: str
    kind: str
    summary: str
    text: str
    scope: str
    path: Path | None = None
    tags: tuple[str, ...] = ()
    load_when: tuple[str, ...] = ()
    pinned: bool = False
    supersedes: str | None = None
    superseded_by: str | None = None
    created: datetime | None = None
    updated: datetime | None = None
    highlight: str | None = None
    existed: bool = False

    def to_dict(self) -> dict[str, Any]:
        from memdir.timeutil import iso

        return {
            "type": "note", "id": self.id, "category": self.category, "kind": self.kind, "summary": self.summary,
            "text": self.text, "scope": self.scope, "tags": list(self.tags), "load_when": list(self.load_when),
            "pinned": self.pinned, "supersedes": self.supersedes, "superseded_by": self.superseded_by,
            "created": iso(self.created) if self.created else None, "updated": iso(self.updated) if self.updated else None,
            "highlight": self.highlight, "path": str(self.path) if self.path else None, "existed": self.existed,
        }


@dataclass(frozen=True)
class Event:
    """An episodic memory: a captured user prompt, assistant reply or tool-call summary (SQLite only)."""

    key: str
    role: str
    text: str
    session: str | None
    ts: datetime
    scope: str = "project"

    def to_dict(self) -> dict[str, Any]:
        from memdir.timeutil import iso

        return {"type": "event", "key": self.key, "role": self.role, "text": self.text, "session": self.session,
                "ts": iso(self.ts), "scope": self.scope}


@dataclass(frozen=True)
class Hit:
    """One recall result. ``score`` is the final score (BM25 × scope prior × decay × rehearsal boost, or the
    fused score with embeddings); ``reasons`` says why (terms, fields, scope, each factor)."""

    id: str
    key: str
    kind: str
    scope: str
    score: float
    text: str
    reasons: dict[str, Any] = field(default_factory=dict)
    summary: str | None = None
    ts: datetime | None = None
    pinned: bool = False
    category: str | None = None
    session: str | None = None
    handle: str | None = None
    span: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        from memdir.timeutil import iso

        return {"id": self.id, "key": self.key, "kind": self.kind, "scope": self.scope, "score": round(self.score, 6),
                "summary": self.summary, "text": self.text, "ts": iso(self.ts) if self.ts else None,
                "pinned": self.pinned, "category": self.category, "session": self.session, "reasons": self.reasons,
                "handle": self.handle, "span": list(self.span) if self.span else None}


@dataclass(frozen=True)
class Report:
    """What :meth:`Memdir.inspect` found: ``counts`` per scope/category, ``problems`` as
    ``{"kind", "scope", "path", "detail"}`` dicts, and every note (``superseded_by`` shows replaced ones)."""

    counts: dict[str, Any]
    problems: list[dict[str, str]]
    notes: list[Note]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "counts": self.counts, "problems": self.problems, "notes": [n.to_dict() for n in self.notes]}
