"""Importer for claude-mem's SQLite store (issue 13 item 6: the older store seed 004 exports from).

Default location ``~/.claude-mem/claude-mem.db`` (``$CLAUDE_MEM_DATA_DIR`` replaces ``~/.claude-mem``). Tables
read (columns are looked up by name, missing ones are tolerated, so older schema versions work too):

* ``user_prompts`` (``prompt_text``, ``content_session_id`` / ``claude_session_id``, ``prompt_number``,
  ``created_at_epoch`` / ``created_at``) → ``user`` events;
* ``observations`` (``type``, ``title``, ``subtitle``, ``narrative``, ``text``, ``facts``, ``concepts``,
  ``files_read``, ``files_modified``, ``project``, ``memory_session_id`` / ``sdk_session_id``) → ``tool``
  events: the observation the agent made of its tool calls, title first;
* ``session_summaries`` (``request``, ``investigated``, ``learned``, ``completed``, ``next_steps``,
  ``notes``) → ``assistant`` events, one labelled paragraph per field;
* ``persona_memory`` (the text from ``content`` / ``memory`` / ``text`` / ``value`` / ``fact``, a label from
  ``title`` / ``key`` / ``name`` / ``category`` / ``type``) → **global notes** (:func:`iter_persona`), in
  ``preferences`` (``facts`` when that category is not configured): a persona row is an already-distilled,
  durable statement about the user that holds in every project (seed 000 keeps preferences in the global root),
  not a conversation turn to decay, tier and prune with the episodic events.

Keys ``import:claude-mem:<p|o|s>:<row id>`` (deterministic: a re-run stores nothing;
``memdir forget --prefix import:claude-mem`` undoes it); ``meta`` keeps the project, type, title and
concepts. Persona notes carry ``source: claude-mem`` in their frontmatter (a re-run finds the same text;
``memdir forget --source claude-mem`` undoes them). The database is opened read-only. Texts are not redacted
or gated here: the core does that.

**Which project a row goes to**: the project it names — its ``project`` column, or for a row without one
(``user_prompts``) the ``project`` of its session in ``sdk_sessions`` — resolved by
:mod:`memdir.portability.routing` (an absolute path, this project's directory name, or a directory of that name
beside this project). ``projects`` is the transcript importers' choice: ``"current"`` (default) imports this
project's rows (and rows naming none) and counts the others (``sessions.other_project``, ``other_projects``);
``"all"`` (``--all-projects``) stores each row in the project it names; ``"here"`` (``--here``) stores all of them
in this project.
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


_SESSION_COLS = ("content_session_id", "claude_session_id", "memory_session_id", "sdk_session_id")


def _projects(db: sqlite3.Connection) -> dict[str, str]:
    """``{session id (any of its names): project}`` from ``sdk_sessions``."""
    out: dict[str, str] = {}
    for r in _rows(db, "sdk_sessions"):
        if r.get("project"):
            for k in _SESSION_COLS:
                if r.get(k):
                    out.setdefault(str(r[k]), str(r["project"]))
    return out


def _project(row: dict[str, Any], by_session: dict[str, str]) -> str | None:
    if row.get("project"):
        return str(row["project"])
    return next((by_session[str(row[k])] for k in _SESSION_COLS if row.get(k) and str(row[k]) in by_session), None)


def open_db(path: str | Path) -> sqlite3.Connection:
    """claude-mem's database at ``path``, read-only, rows by name. Raises ``FileNotFoundError`` (no file) and
    :class:`~memdir.errors.UsageError` (not SQLite)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(str(path))
    db = connect_ro(path, expected="claude-mem's SQLite database (~/.claude-mem/claude-mem.db)")
    db.row_factory = sqlite3.Row
    return db


#: the tables of claude-mem's database this importer reads
TABLES = ("sdk_sessions", "user_prompts", "observations", "session_summaries", "persona_memory")


def iter_claude_mem(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Events of a claude-mem database (see the module docstring), oldest first per table. Raises
    ``FileNotFoundError`` when ``path`` does not exist and :class:`~memdir.errors.UsageError` when it is not SQLite or
    holds none of :data:`TABLES` (an empty file opens as an empty database)."""
    db = open_db(path)
    stats = stats if stats is not None else Counter()
    try:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not names & set(TABLES):  # an empty file opens as an empty database: nothing of claude-mem's in it
            from memdir.errors import UsageError

            raise UsageError(f"{path} is not claude-mem's database: it has none of its tables ({', '.join(TABLES)})")
        by_session = _projects(db)
        for r in _rows(db, "user_prompts"):
            text = (r.get("prompt_text") or r.get("text") or "").strip()
            if not text:
                stats["skipped:empty"] += 1
                continue
            stats["user_prompts"] += 1
            meta = {"table": "user_prompts", "prompt_number": r.get("prompt_number"), "project": _project(r, by_session)}
            yield {"key": f"import:{SOURCE}:p:{r['id']}", "role": "user", "text": text, "session": _session(r),
                   "ts": _ts(r), "source": SOURCE, "meta": {k: v for k, v in meta.items() if v is not None}}
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
            meta = {"table": "observations", "type": r.get("type"), "title": title or None, "project": _project(r, by_session),
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
                   "meta": {k: v for k, v in {"table": "session_summaries", "project": _project(r, by_session)}.items() if v}}
    finally:
        db.close()


_PERSONA_TEXT = ("content", "memory", "text", "value", "fact", "description")
_PERSONA_LABEL = ("title", "key", "name", "category", "type")


def iter_persona(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """The ``persona_memory`` rows of a claude-mem database as note dicts ``{"id", "text", "summary", "tags",
    "ts"}`` (``id`` = the row id), oldest first; none when the table is absent. Raises as :func:`iter_claude_mem`."""
    db = open_db(path)
    stats = stats if stats is not None else Counter()
    try:
        for r in _rows(db, "persona_memory"):
            text = next((str(r[k]).strip() for k in _PERSONA_TEXT if r.get(k) not in (None, "") and str(r[k]).strip()), "")
            if not text:
                stats["skipped:empty"] += 1
                continue
            stats["persona_memory"] += 1
            label = next((" ".join(str(r[k]).split()) for k in _PERSONA_LABEL if r.get(k) not in (None, "")
                          and str(r[k]).strip()), None)
            yield {"id": r.get("id"), "text": text, "summary": label if label and label not in text else None,
                   "tags": ["claude-mem", "persona"], "ts": _ts(r)}
    finally:
        db.close()


def import_claude_mem(m: Any, path: str | Path | None = None, *, projects: str = "current") -> dict[str, Any]:
    """Import claude-mem's database at ``path`` (:func:`default_path` when ``None``): each row into the project it
    names (``projects``: ``"current"``, ``"all"`` or ``"here"``, see the module docstring), ``persona_memory``
    rows as global notes.

    Every event passes the hooks' capture gate (:func:`memdir.capture.gates.gate_all`) and then
    :meth:`Memdir.import_events` (redaction, dedup by key and text, tombstones) of its project. Returns
    ``import_events``'s counts summed over the projects plus ``tables`` (rows read per table), ``skipped_by``
    (gate reasons and ``other_project`` / ``cwd_missing`` for rows of projects not imported; included in
    ``skipped``), ``projects`` (``{project root: events stored}``), ``other_projects`` (names not imported, with
    the reason), ``notes`` / ``notes_existing`` (persona notes written / already there) and ``persona_notes``
    (their ids). Raises ``NotFound`` when there is no file at the path, ``UsageError`` when it is not a
    claude-mem SQLite database or for an unknown ``projects``."""
    from memdir.capture.gates import gate_all
    from memdir.errors import NotFound
    from memdir.portability.routing import ProjectRouter

    db = Path(path) if path else default_path()
    if not db.is_file():
        raise NotFound(f"no claude-mem database at {db}: pass its path (memdir import claude-mem PATH)")
    router = ProjectRouter(m, projects)
    stats: Counter = Counter()
    out: dict[str, Any] = {"read": 0, "stored": 0, "duplicate": 0, "skipped": 0}
    gated: Counter = Counter()
    per_project: Counter = Counter()
    try:
        batches: dict[int, tuple[Any, list[dict]]] = {}
        for ev in iter_claude_mem(db, stats=stats):
            target, why = router.target(ev["meta"].get("project"))
            if why:
                out["read"] += 1
                out["skipped"] += 1
                gated[why] += 1
                continue
            batches.setdefault(id(target), (target, []))[1].append(ev)
        for target, evs in batches.values():
            gone: list[dict] = []
            kept, g = gate_all(evs, target.config, gone)
            c = target.import_events(kept)
            target.log_skips([{**x, "source": "import:claude-mem"} for x in gone])  # the timeline shows them
            for k in ("read", "stored", "duplicate", "skipped"):
                out[k] += c.get(k, 0)
            out["read"] += sum(g.values())
            out["skipped"] += sum(g.values())
            gated.update(g)
            per_project[str(target.project_root)] += c.get("stored", 0)
    finally:
        router.close()
    category = "preferences" if "preferences" in m.config.get("categories") else "facts"
    notes: list[str] = []
    existing = 0
    for row in iter_persona(db, stats=stats):
        prov = {"source": SOURCE, "claude_mem_table": "persona_memory", "claude_mem_id": row["id"]}
        note = m.remember(row["text"], category=category, summary=row["summary"], tags=row["tags"], scope="global",
                          provenance={k: v for k, v in prov.items() if v is not None})
        existing += bool(note.existed)
        notes.append(note.id)
    out["tables"] = dict(stats)
    out["skipped_by"] = dict(gated)
    out["projects"] = dict(sorted(per_project.items()))
    out["other_projects"] = dict(sorted(router.skipped.items()))
    out["notes"] = len(notes) - existing
    out["notes_existing"] = existing
    out["persona_notes"] = notes
    return out
