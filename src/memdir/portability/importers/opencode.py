"""OpenCode sessions: the SQLite ``opencode.db`` (1.2+) and the older ``storage/`` JSON tree.

Checked against a database written by OpenCode 1.18.33 itself (``tests/fixtures/importers/opencode_1_18.sql``,
from the issue-9 end-to-end run against a stub model); the older ``storage/`` tree is read from the format
descriptions in HOSTS.md and public docs only (hand-written fixtures).

* SQLite (``~/.local/share/opencode/opencode.db``, WAL): tables ``message(id, session_id, data)`` and
  ``part(id, message_id, session_id, data)`` with ``data`` a JSON text; ``session(id, directory, …)`` is
  read for the cwd when present. The file is opened read-only (``file:…?mode=ro`` URI; if that fails,
  e.g. on a read-only directory without the ``-shm`` file, ``immutable=1`` is tried with a warning).
* ``storage/`` tree: ``session/<project>/<session>.json``, ``message/<session>/<message>.json``,
  ``part/<message>/<part>.json`` (very old messages that embed ``parts`` are read too).

Message JSON gives ``role`` (``user``/``assistant``) and ``time.created`` (epoch ms); part JSON gives
``type``: ``text`` → a user or assistant event (``synthetic``/``ignored`` parts are host-made and
skipped), ``tool`` → one tool event from ``tool``, ``callID`` and ``state{status, input, output, error,
time}`` (text from :func:`~memdir.capture.tools.tool_summary`: ``edit``/``write`` as file + what changed) (``status == "error"`` sets ``meta.is_error``; ``pending``/``running`` read ``→ (no result)``),
``reasoning`` → skipped (``skipped:reasoning``); ``step-start``, ``step-finish``, ``snapshot``,
``patch``, ``file``, ``agent``, ``compaction``, ``subtask``, ``retry`` and unknown types → skipped by
type. Keys: ``import:opencode:<sessionID>:<part id>`` — the same from the database and from the tree,
because OpenCode's migration keeps the ids, so importing both stores each part once.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from memdir.errors import NotFound, UsageError
from memdir.capture.tools import tool_summary
from memdir.portability.importers.jsonl import count, iso, make_event
from memdir.portability.importers.sqlite import connect_ro

log = logging.getLogger("memdir.portability.importers")
SOURCE = "opencode"


def iter_opencode(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of an OpenCode database or storage tree.

    path: ``opencode.db``; a ``storage/`` directory (holding ``message/``); or the OpenCode data
    directory holding either or both (the database first, then the tree — keys are shared, see the
    module docstring). stats: optional Counter incremented with ``parts``, ``bad_json``, ``bad_ts``,
    ``skipped:<reason>``. Events: ``{key, role, text, session, ts, source="opencode", meta={message,
    cwd?, tool?, call_id?, is_error?}}`` ordered by session, message, part id (OpenCode ids sort by
    time). Raises ``FileNotFoundError`` for a missing path and ``memdir.errors.UsageError`` for a file
    that is not an OpenCode database or a directory holding neither format.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no OpenCode data at {path}")
    if path.is_file():
        yield from iter_opencode_db(path, stats=stats)
        return
    if (path / "message").is_dir() or (path / "part").is_dir():
        yield from iter_opencode_storage(path, stats=stats)
        return
    found = False
    if (path / "opencode.db").is_file():
        found = True
        yield from iter_opencode_db(path / "opencode.db", stats=stats)
    if (path / "storage" / "message").is_dir():
        found = True
        yield from iter_opencode_storage(path / "storage", stats=stats)
    if not found:
        # nothing found, as the other sources say it (exit 1), with where OpenCode keeps its sessions
        raise NotFound(f"no opencode sessions found in {path}: it holds neither opencode.db nor storage/message/; "
                       "pass the OpenCode data directory")


# ---------------------------------------------------------------- shared part → event


def _part_events(session: str, message: dict, part: dict, part_id: str, cwd: str | None,
                 stats: Counter | None) -> Iterator[dict]:
    count(stats, "parts")
    role = message.get("role")
    ptype = part.get("type") if isinstance(part.get("type"), str) else None
    msg_time = (message.get("time") or {}).get("created") if isinstance(message.get("time"), dict) else None
    meta: dict = {"message": message.get("id")}
    if cwd:
        meta["cwd"] = cwd
    if ptype == "text":
        text = part.get("text")
        if part.get("synthetic"):
            count(stats, "skipped:synthetic")
        elif part.get("ignored"):
            count(stats, "skipped:ignored")
        elif role not in ("user", "assistant"):
            count(stats, "skipped:unknown_role")
        elif not isinstance(text, str) or not text.strip():
            count(stats, "skipped:empty")
        else:
            ptime = part.get("time") if isinstance(part.get("time"), dict) else {}
            ts = iso(ptime.get("start") or msg_time, stats)
            yield make_event(SOURCE, session, part_id, role, text, ts, meta)
    elif ptype == "tool":
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        name = str(part.get("tool") or "tool")
        status = state.get("status")
        is_error = status == "error"
        if status == "completed":
            output = state.get("output")
            output = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
        elif is_error:
            output = str(state.get("error") or "")
        else:
            count(stats, "info:tool_without_result")
            output = None
        stime = state.get("time") if isinstance(state.get("time"), dict) else {}
        ts = iso(stime.get("start") or msg_time, stats)
        md = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        code = md.get("exit") if isinstance(md.get("exit"), int) and not isinstance(md.get("exit"), bool) else None
        text = tool_summary(name, state.get("input"), output, is_error=is_error, cwd=cwd, exit_code=code)
        meta.update({"tool": name, "call_id": part.get("callID"), "is_error": is_error})
        yield make_event(SOURCE, session, part_id, "tool", text, ts, meta, tool_input=state.get("input"))
    else:
        count(stats, f"skipped:{ptype or 'unknown'}")


# ---------------------------------------------------------------- SQLite (1.2+)


def _connect_ro(db: Path) -> sqlite3.Connection:
    return connect_ro(db, expected="OpenCode's opencode.db")


def _load(raw, stats: Counter | None, where: str) -> dict | None:
    try:
        obj = json.loads(raw) if isinstance(raw, (str, bytes)) else None
    except json.JSONDecodeError:
        obj = None
    if not isinstance(obj, dict):
        count(stats, "bad_json")
        log.warning("%s: skipped unreadable JSON data", where)
        return None
    return obj


def iter_opencode_db(db: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of an ``opencode.db`` opened read-only (see :func:`iter_opencode`).

    Raises ``FileNotFoundError`` (missing file) or ``memdir.errors.UsageError`` (not an SQLite file,
    or no ``message``/``part`` tables). Rows with unreadable JSON are counted ``bad_json`` and skipped.
    """
    db = Path(db)
    if not db.is_file():
        raise FileNotFoundError(f"no OpenCode database at {db}")
    con = _connect_ro(db)
    try:
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError:
            raise UsageError(f"{db} is not an SQLite database: pass OpenCode's opencode.db") from None
        if not {"message", "part"} <= tables:
            raise UsageError(f"{db} has no message/part tables: it is not an OpenCode 1.2+ database")
        cwd_by_session: dict[str, str] = {}
        if "session" in tables:
            cols = {r[1] for r in con.execute("PRAGMA table_info(session)")}
            if "directory" in cols:
                cwd_by_session = {str(s): d for s, d in con.execute("SELECT id, directory FROM session") if d}
        rows = con.execute(
            "SELECT p.id, p.session_id, p.data, m.id, m.data FROM part p JOIN message m ON m.id = p.message_id "
            "ORDER BY p.session_id, m.id, p.id")
        last_mid, message = None, None
        for part_id, session_id, pdata, mid, mdata in rows:
            if mid != last_mid:
                last_mid = mid
                message = _load(mdata, stats, f"{db}: message {mid}")
                if message is not None:
                    message.setdefault("id", mid)
            if message is None:
                count(stats, "skipped:bad_message")
                continue
            part = _load(pdata, stats, f"{db}: part {part_id}")
            if part is None:
                continue
            yield from _part_events(str(session_id), message, part, str(part_id),
                                    cwd_by_session.get(str(session_id)) or _msg_cwd(message), stats)
    finally:
        con.close()


def _msg_cwd(message: dict) -> str | None:
    p = message.get("path")
    return p.get("cwd") if isinstance(p, dict) else None


# ---------------------------------------------------------------- storage/ tree (before 1.2)


def _read_json(path: Path, stats: Counter | None) -> dict | None:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        count(stats, "bad_json")
        log.warning("%s: unreadable (%s)", path, exc)
        return None
    try:
        return _load(raw.decode("utf-8-sig"), stats, str(path))
    except UnicodeDecodeError:
        count(stats, "bad_json")
        log.warning("%s: not UTF-8, skipped", path)
        return None


def _sorted_json(dir_: Path) -> list[Path]:
    return sorted(dir_.glob("*.json")) if dir_.is_dir() else []


def iter_opencode_storage(root: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of an OpenCode ``storage/`` tree (see :func:`iter_opencode`).

    root: the ``storage`` directory. Files with unreadable JSON are counted ``bad_json`` and skipped.
    Messages of a session are ordered by ``(time.created, id)``, parts by id.
    """
    root = Path(root)
    if not (root / "message").is_dir():
        raise UsageError(f"{root} has no message/ directory: pass OpenCode's storage/ directory")
    cwd_by_session: dict[str, str] = {}
    for f in sorted((root / "session").glob("*/*.json")) if (root / "session").is_dir() else []:
        info = _read_json(f, stats)
        if info and info.get("directory"):
            cwd_by_session[str(info.get("id") or f.stem)] = info["directory"]
    for sdir in sorted(p for p in (root / "message").iterdir() if p.is_dir()):
        session = sdir.name
        messages: list[dict] = []
        for f in _sorted_json(sdir):
            msg = _read_json(f, stats)
            if msg is not None:
                msg.setdefault("id", f.stem)
                messages.append(msg)
        messages.sort(key=_message_order)
        for msg in messages:
            parts = _message_parts(root, msg, stats)
            cwd = cwd_by_session.get(session) or _msg_cwd(msg)
            for part_id, part in parts:
                yield from _part_events(str(msg.get("sessionID") or session), msg, part, part_id, cwd, stats)


def _message_order(msg: dict) -> tuple:
    t = msg.get("time") if isinstance(msg.get("time"), dict) else {}
    created = t.get("created")
    return (0 if isinstance(created, (int, float)) else 1, created if isinstance(created, (int, float)) else 0,
            str(msg.get("id")))


def _message_parts(root: Path, msg: dict, stats: Counter | None) -> Iterable[tuple[str, dict]]:
    files = _sorted_json(root / "part" / str(msg["id"]))
    if files:
        out = []
        for f in files:
            part = _read_json(f, stats)
            if part is not None:
                out.append((str(part.get("id") or f.stem), part))
        return out
    embedded = msg.get("parts")
    if isinstance(embedded, list):  # very old layout: parts inside the message file
        return [(str(p.get("id") or f"{msg['id']}:{i}"), p) for i, p in enumerate(embedded) if isinstance(p, dict)]
    return []
