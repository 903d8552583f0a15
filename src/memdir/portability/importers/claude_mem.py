"""Importer for claude-mem's SQLite store (issue 13 item 6: the older store seed 004 exports from).

Default location ``~/.claude-mem/claude-mem.db`` (``$CLAUDE_MEM_DATA_DIR`` replaces ``~/.claude-mem``). Tables
read (columns are looked up by name, missing ones are tolerated, so older schema versions work too):

* ``user_prompts`` (``prompt_text``, ``content_session_id`` / ``claude_session_id``, ``prompt_number``,
  ``created_at_epoch`` / ``created_at``) → ``user`` events;
* ``observations`` (``type``, ``title``, ``subtitle``, ``narrative``, ``text``, ``facts``, ``concepts``,
  ``files_read``, ``files_modified``, ``project``, ``memory_session_id`` / ``sdk_session_id``) → ``tool``
  events: the observation the agent made of its tool calls, title first;
* ``session_summaries`` (``request``, ``investigated``, ``learned``, ``completed``, ``next_steps``,
  ``notes``) → ``assistant`` events, one labelled paragraph per field.

Keys ``import:claude-mem:<p|o|s>:<row id>`` (deterministic: a re-run stores nothing;
``memdir forget --prefix import:claude-mem`` undoes it); ``meta`` keeps the project, type, title and
concepts. The database is opened read-only. Texts are not redacted or gated here: the core does that.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdir.timeutil import iso, parse_ts
from memdir.portability.importers.sqlite import connect_ro

SOURCE = "claude-mem"


def default_path(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    base = Path(env["CLAUDE_MEM_DATA_DIR"]) if env.get("CLAUDE_MEM_DATA_DIR") else Path.home() / ".claude-mem"
    return base / "claude-mem.db"


def _ts(row: dict[str, Any]) -> str | None:
    for k in ("created_at_epoch", "created_at"):
        v = row.get(k)
        if v not in (None, ""):
            try:
                return iso(parse_ts(v))
            except Exception:  # noqa: BLE001 — an unreadable time imports without one
                continue
    return None


def _list(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [value]
    if isinstance(value, list):
        return [str(x) for x in value if str(x).strip()]
    return [str(value)]


def _rows(db: sqlite3.Connection, table: str) -> Iterator[dict[str, Any]]:
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is None:
        return
    for r in db.execute(f"SELECT * FROM {table} ORDER BY id"):
        yield dict(r)


def _session(row: dict[str, Any]) -> str:
    for k in ("content_session_id", "claude_session_id", "memory_session_id", "sdk_session_id", "session_id"):
        if row.get(k):
            return f"{SOURCE}:{row[k]}"
    return SOURCE


def iter_claude_mem(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Events of a claude-mem database (see the module docstring), oldest first per table. Raises
    ``FileNotFoundError`` when ``path`` does not exist and :class:`~memdir.errors.UsageError` when it is not SQLite."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(str(path))
    db = connect_ro(path, expected="claude-mem's SQLite database (~/.claude-mem/claude-mem.db)")
    db.row_factory = sqlite3.Row
    stats = stats if stats is not None else Counter()
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        for r in _rows(db, "user_prompts"):
            text = (r.get("prompt_text") or r.get("text") or "").strip()
            if not text:
                stats["skipped:empty"] += 1
                continue
            stats["user_prompts"] += 1
            yield {"key": f"import:{SOURCE}:p:{r['id']}", "role": "user", "text": text, "session": _session(r),
                   "ts": _ts(r), "source": SOURCE, "meta": {"table": "user_prompts", "prompt_number": r.get("prompt_number")}}
        for r in _rows(db, "observations"):
            title = (r.get("title") or "").strip()
            parts = [title, (r.get("subtitle") or "").strip(), (r.get("narrative") or r.get("text") or "").strip()]
            facts = _list(r.get("facts"))
            if facts:
                parts.append("\n".join(f"- {f}" for f in facts))
            files = _list(r.get("files_modified")) or _list(r.get("files_read"))
            if files:
                parts.append("files: " + ", ".join(files[:20]))
            text = "\n".join(p for p in parts if p)
            if not text:
                stats["skipped:empty"] += 1
                continue
            stats["observations"] += 1
            meta = {"table": "observations", "type": r.get("type"), "title": title or None, "project": r.get("project"),
                    "concepts": _list(r.get("concepts")) or None}
            yield {"key": f"import:{SOURCE}:o:{r['id']}", "role": "tool", "text": text, "session": _session(r),
                   "ts": _ts(r), "source": SOURCE, "meta": {k: v for k, v in meta.items() if v}}
        labels = (("request", "Request"), ("investigated", "Investigated"), ("learned", "Learned"),
                  ("completed", "Completed"), ("next_steps", "Next steps"), ("notes", "Notes"))
        for r in _rows(db, "session_summaries"):
            text = "\n".join(f"{label}: {str(r[k]).strip()}" for k, label in labels if r.get(k) and str(r[k]).strip())
            if not text:
                stats["skipped:empty"] += 1
                continue
            stats["session_summaries"] += 1
            yield {"key": f"import:{SOURCE}:s:{r['id']}", "role": "assistant", "text": text, "session": _session(r),
                   "ts": _ts(r), "source": SOURCE,
                   "meta": {k: v for k, v in {"table": "session_summaries", "project": r.get("project")}.items() if v}}
    finally:
        db.close()


def import_claude_mem(m: Any, path: str | Path | None = None) -> dict[str, Any]:
    """Import claude-mem's database at ``path`` (:func:`default_path` when ``None``) into ``m``'s project.

    Every row passes the hooks' capture gate (:func:`memdir.capture.gates.gate_all`) and then
    :meth:`Memdir.import_events` (redaction, dedup by key and text, tombstones). Returns
    ``import_events``'s counts plus ``tables`` (rows read per table) and ``skipped_by`` (gate reasons;
    included in ``skipped``). Raises ``NotFound`` when there is no file at the path and ``UsageError`` when
    it is not a claude-mem SQLite database."""
    from memdir.capture.gates import gate_all
    from memdir.errors import NotFound

    db = Path(path) if path else default_path()
    if not db.is_file():
        raise NotFound(f"no claude-mem database at {db}: pass its path (memdir import claude-mem PATH)")
    stats: Counter = Counter()
    kept, gated = gate_all(list(iter_claude_mem(db, stats=stats)), m.config)
    out: dict[str, Any] = dict(m.import_events(kept))
    out["skipped"] += sum(gated.values())
    out["tables"] = dict(stats)
    out["skipped_by"] = dict(gated)
    return out
