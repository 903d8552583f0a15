"""Rule proposals: a ``rules`` note that a model suggested waits here for a person (seed 000: a model never
writes an iron rule; it becomes a ``rule-proposal`` someone confirms).

Where proposals come from: :mod:`memdir.distill.flow` (a distilled candidate in ``rules``, or one superseding a
rule) and the MCP ``memory_remember`` tool (any ``rules`` note an agent asks for). The CLI and hand edits
still write ``rules/`` directly: only people use them.

Storage: one Markdown file per proposal in ``<root>/.proposals/<id>.md`` (a dot directory, so it is never
read as a category), with the note's frontmatter plus ``status`` (``pending`` | ``accepted`` | ``rejected``),
``proposed``, ``source`` (``distill`` | ``mcp``) and the provenance (``sessions``, ``model``). Decided
proposals stay as records, so a rejected rule is not proposed again. Ids are ``p-<12 hex>`` from the text.
"""

from __future__ import annotations

import hashlib
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from memdir.notes import markdown as notes, synccopy
from memdir.errors import MemdirError, UsageError
from memdir.lazylog import getLogger
from memdir.timeutil import iso

DIRNAME = ".proposals"
STATUSES = ("pending", "accepted", "rejected")


def _dir(root_path: Path) -> Path:
    return root_path / DIRNAME


def proposal_id(text: str) -> str:
    return "p-" + notes.content_hash(text)[:12]


def check_id(pid: str) -> str:
    """``pid`` if it is a well-formed proposal id; ``UsageError`` otherwise (never a path)."""
    pid = str(pid or "").strip()
    if not (pid.startswith("p-") and len(pid) == 14 and all(c in "0123456789abcdef" for c in pid[2:])):
        raise UsageError(f"{pid!r} is not a proposal id (p- and 12 hex digits): see `memdir proposals`")
    return pid


def create(root_path: Path, *, text: str, summary: str, category: str = "rules", tags: Iterable[str] = (),
           load_when: Iterable[str] = (), supersedes: str | None = None, source: str, now: datetime,
           provenance: dict[str, Any] | None = None) -> tuple[dict[str, Any], bool]:
    """Write a pending proposal (text already redacted by the caller). Returns ``(proposal, created)``;
    the same text proposed before (pending or decided) returns the existing record and ``created=False``."""
    pid = proposal_id(text)
    path = _dir(root_path) / f"{pid}.md"
    if path.is_file():
        got = read(path)
        if got is not None:
            return got, False
    meta: dict[str, Any] = {"id": pid, "status": "pending", "category": category, "summary": summary,
                            "tags": list(tags), "load_when": list(load_when)}
    if supersedes:
        meta["supersedes"] = supersedes
    meta.update({"source": source, **(provenance or {}), "proposed": now})
    notes.atomic_write(path, notes.render(meta, text.strip() + "\n"))
    return read(path) or {}, True


def read(path: Path) -> dict[str, Any] | None:
    """One proposal file as a dict (``id, status, category, summary, text, tags, load_when, supersedes,
    source, sessions, model, proposed, path``), or ``None`` when unreadable (:func:`read_or_raise` says why)."""
    try:
        return read_or_raise(path)
    except (UsageError, OSError):
        return None


def read_or_raise(path: Path) -> dict[str, Any]:
    """:func:`read`, raising ``UsageError`` or ``OSError`` with the reason when the file cannot be read as a
    proposal (binary, not UTF-8, broken frontmatter)."""
    meta, body, _ = notes.split(notes.read_text(path))
    out = {str(k): (iso(v) if isinstance(v, datetime) else v) for k, v in meta.items()}
    out.setdefault("id", path.stem)
    out["status"] = out.get("status") if out.get("status") in STATUSES else "pending"
    out["text"] = body.strip()
    out["path"] = str(path)
    return out


def readable(pid: str, path: Path) -> dict[str, Any]:
    """The proposal ``pid`` at ``path``; ``MemdirError`` naming the file and why when it cannot be read (it was
    "already None"): the file is at fault, not the call, and it is left as it is."""
    try:
        return read_or_raise(path)
    except (UsageError, OSError) as exc:
        raise MemdirError(f"proposal {pid} cannot be read ({exc}): {path} is left as it is; repair or delete "
                          "it") from None


def list_all(root_path: Path, *, status: str | None = "pending") -> list[dict[str, Any]]:
    """Proposals of one root, oldest first; ``status=None`` lists decided ones too; another status than
    :data:`STATUSES` raises ``UsageError`` (a typo read as "no proposals")."""
    if status is not None and status not in STATUSES:
        raise UsageError(f"unknown proposal status {status!r}: use {', '.join(STATUSES)} or None (all)")
    d = _dir(root_path)
    if not d.is_dir():
        return []
    out = []
    for name in sorted(os.listdir(d)):
        if name.endswith(".md") and name.startswith("p-"):
            copied = synccopy.original(name[:-3])
            if copied:  # a sync tool's twin of a proposal would stay pending for ever: said, left as it is
                getLogger("memdir").warning("memdir: %s is %s of proposal %s, not a proposal; merge what it adds "
                                            "into %s.md, then delete it", d / name, copied[1], copied[0], copied[0])
                continue
            try:
                p = read_or_raise(d / name)
            except (UsageError, OSError) as exc:  # said, left as it is: it may be someone's half-saved work
                getLogger("memdir").warning("memdir: proposal %s is unreadable (%s); left as it is: repair or "
                                            "delete it", d / name, exc)
                continue
            if status is None or p["status"] == status:
                out.append(p)
    out.sort(key=lambda p: str(p.get("proposed") or ""))
    return out


def find(root_path: Path, pid: str) -> Path | None:
    path = _dir(root_path) / f"{check_id(pid)}.md"
    return path if path.is_file() else None


def decide(path: Path, status: str, now: datetime, **extra: Any) -> dict[str, Any]:
    """Mark a proposal ``accepted`` or ``rejected`` (the file stays as the record)."""
    if status not in ("accepted", "rejected"):
        raise UsageError(f"unknown decision {status!r}")
    notes.atomic_write(path, notes.update_fields(notes.read_text(path), {"status": status, "decided": now, **extra}))
    return read(path) or {}


def remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
