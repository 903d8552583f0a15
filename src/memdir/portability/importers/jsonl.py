"""Generic JSONL import (seed 004's one-shot import) and the line reader every JSONL importer shares.

Input: one JSON object per line with at least ``text`` (``content`` is accepted as an alias) and
optionally ``key``, ``role``, ``session``, ``ts`` and ``source``. Output: event dicts (the shape is
documented in :mod:`memdir.portability.importers`), **ordered by ts** (lines without ts come last, in file order;
ties keep file order), because seed 004 writes imports in ascending ts so the newest stay newest.

Policies:

* ``key`` given → used verbatim (the caller owns idempotency). Otherwise
  ``import:<source>:<session>:<h>`` with ``h`` the first 16 hex digits of SHA-256 over
  ``role, text, ts`` — so re-importing the file, even reordered, yields the same keys.
* ``role`` defaults to ``"user"``; ``human``→user, ``ai``/``model``/``agent``→assistant; any other
  value makes the line bad.
* ``title`` and ``tags`` (a list of strings or one comma-separated string) are kept in ``meta``, where recall
  searches them as the event's title and tags fields (the text and the key are as without them).
* ``session`` defaults to the file name without suffix; ``source`` to ``"jsonl"`` (it is sanitised to
  ``[A-Za-z0-9._-]`` for the key and kept in ``meta["origin"]``).
* An unreadable ``ts`` keeps the line with ``ts=None`` and counts ``bad_ts`` (a warning is logged).
* A bad line (not JSON, not an object, no text, bad role) is logged as a warning with its line number,
  counted (``bad_json`` / ``skipped:bad_line``) and skipped; it never aborts the import.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdir.capture.tools import TOOL_SUMMARY_MAX_CHARS  # noqa: F401 (memdir.portability.importers names it here)
from memdir.lazylog import getLogger
from memdir.timeutil import parse_ts

log = getLogger("memdir.portability.importers")  # imports logging only when a record can go somewhere

_ROLE_ALIASES = {
    "user": "user", "human": "user",
    "assistant": "assistant", "ai": "assistant", "model": "assistant", "agent": "assistant",
    "tool": "tool",
}


def count(stats: Counter | None, reason: str, n: int = 1) -> None:
    """Add ``n`` to ``stats[reason]`` when a Counter was given."""
    if stats is not None:
        stats[reason] += n


def iso(value: Any, stats: Counter | None = None) -> str | None:
    """Normalise a timestamp (ISO 8601 string, epoch s/ms, datetime) to an ISO 8601 UTC string.

    ``None``/``""`` → ``None``. Unreadable → ``None`` and ``stats["bad_ts"] += 1``. Never raises.
    Parsing is :func:`memdir.timeutil.parse_ts` (ms when ``abs(value) >= 1e11``).
    """
    if value is None or value == "":
        return None
    try:
        return parse_ts(value).isoformat()
    except Exception:  # noqa: BLE001 - a bad timestamp must not abort an import
        count(stats, "bad_ts")
        return None


def make_event(source: str, session: str, line_id: str, role: str, text: str, ts: str | None,
               meta: dict | None = None, *, tool_input: Any = None) -> dict:
    """Build one importer event; ``key = import:<source>:<session>:<line_id>`` (seed 004). ``tool_input``: a tool
    call's arguments, for the capture gate (:func:`memdir.capture.gates.gate` reads a shell tool's command from it, as
    from a hook's ``tool_input``); never stored."""
    ev = {
        "key": f"import:{source}:{session}:{line_id}",
        "role": role,
        "text": text,
        "session": session,
        "ts": ts,
        "source": source,
        "meta": meta or {},
    }
    if tool_input is not None:
        ev["input"] = tool_input
    return ev


def text_line_id(line_id: str, text: str) -> str:
    """The id of a turn read from a text history (SpecStory markdown, a Claude Code ``/export``, an Aider history):
    where it starts (``L12``) and the first 8 hex digits of its text's SHA-256. A line number alone gave a turn
    inserted above others, or an edited one, the key of the turn that used to start there: skipped as already stored
    on the next import. Unchanged turns that moved get new keys and are recognised by their text (import_events
    deduplicates by text too)."""
    import hashlib

    return f"{line_id}.{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


#: bad lines of one file each logged with why; the rest are counted only (a damaged file must not flood the terminal)
BAD_LINES_SHOWN = 3


def _lines(fh) -> Iterator[Any]:
    """The lines of ``fh``, a CR alone ending one too (a file saved with classic Mac line ends): JSON writes a CR
    inside a string as ``\\r``, so a bare one is never part of a record."""
    for raw in fh:
        if isinstance(raw, bytes) and b"\r" in raw.rstrip(b"\r\n"):
            yield from raw.splitlines(keepends=True)
        else:
            yield raw


def read_jsonl(path: Path, stats: Counter | None = None, *, label: str = "jsonl",
               warn: bool = True) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each JSON-object line of ``path`` (1-based line numbers).

    Lines end with LF, CRLF or a CR alone. Blank lines are ignored (``skipped:blank``). A line that is not valid
    UTF-8 JSON (for instance a half-written last line) or not an object is logged at warning level (unless
    ``warn=False``, used by importers' first pass) and counted as ``bad_json``.
    Raises ``FileNotFoundError``/``IsADirectoryError``/``PermissionError`` only for the file itself.
    """
    bad = 0

    def warn_bad(lineno: int, why: str) -> None:  # the first few each say why; the rest are counted, not listed
        nonlocal bad
        bad += 1
        if not warn or bad > BAD_LINES_SHOWN + 1:
            return
        if bad <= BAD_LINES_SHOWN:
            log.warning("%s:%d: skipped %s", path, lineno, why)
        else:
            log.warning("%s: more bad %s lines skipped (counted in the result, not listed)", path, label)

    from memdir.fileio import text_encoding

    enc = text_encoding(path)  # a transcript or export re-saved by PowerShell 5's > (UTF-16), or as UTF-32
    utf16 = enc != "utf-8-sig"
    with (open(path, encoding=enc, errors="replace", newline="") if utf16 else open(path, "rb")) as fh:
        for lineno, raw in enumerate(_lines(fh), 1):
            if utf16:
                raw = raw.encode("utf-8", "surrogatepass")
            count(stats, "lines")
            if not raw.strip():
                count(stats, "skipped:blank")
                continue
            try:
                # a byte-order mark (Windows editors) is not part of line 1, nor one that files joined left mid-file
                obj = json.loads(raw.decode("utf-8-sig").lstrip("\ufeff"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                count(stats, "bad_json")
                warn_bad(lineno, f"unreadable {label} line ({exc})")
                continue
            if not isinstance(obj, dict):
                count(stats, "bad_json")
                warn_bad(lineno, f"{label} line that is not a JSON object")
                continue
            yield lineno, obj


def _source_slug(value: Any) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", str(value)).strip("-")
    return s or "jsonl"


def iter_jsonl(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Import a generic JSONL file (seed 004): yield events ordered by ts (see the module docstring).

    path: a ``.jsonl`` file. stats: optional Counter incremented with ``lines``, ``bad_json``,
    ``bad_ts``, ``skipped:bad_line``, ``skipped:blank``. Reads the whole file before yielding (it has
    to sort). Raises ``FileNotFoundError`` when the file does not exist; never raises for its content.
    """
    path = Path(path)
    default_session = path.stem
    items: list[tuple[bool, float, int, dict]] = []
    for lineno, obj in read_jsonl(path, stats, label="jsonl"):
        text = obj.get("text", obj.get("content"))
        if not isinstance(text, str) or not text.strip():
            count(stats, "skipped:bad_line")
            log.warning("%s:%d: skipped line without a non-empty string 'text'", path, lineno)
            continue
        raw_role = obj.get("role", "user")
        role = _ROLE_ALIASES.get(str(raw_role).lower()) if isinstance(raw_role, str) else None
        if role is None:
            count(stats, "skipped:bad_line")
            log.warning("%s:%d: skipped line with unknown role %r (use user, assistant or tool)",
                        path, lineno, raw_role)
            continue
        ts = iso(obj.get("ts"), stats)
        if ts is None and obj.get("ts") not in (None, ""):
            log.warning("%s:%d: unreadable ts %r, imported without a timestamp", path, lineno, obj.get("ts"))
        session = obj.get("session")
        session = str(session) if session not in (None, "") else default_session
        origin = obj.get("source") or "jsonl"
        key = obj.get("key")
        if not (isinstance(key, str) and key.strip()):
            h = hashlib.sha256(f"{role}\0{text}\0{ts or ''}".encode()).hexdigest()[:16]
            key = f"import:{_source_slug(origin)}:{session}:{h}"
        meta: dict[str, Any] = {"line": lineno, "origin": str(origin)}
        if isinstance(obj.get("title"), str) and obj["title"].strip():  # searched as the event's title and tags
            meta["title"] = obj["title"].strip()                         # (memdir.store.rows.event_labels)
        if isinstance(obj.get("tags"), (list, str)) and obj["tags"]:
            meta["tags"] = obj["tags"]
        ev = {"key": key, "role": role, "text": text, "session": session, "ts": ts, "source": "jsonl", "meta": meta}
        items.append((ts is None, parse_ts(ts).timestamp() if ts else 0.0, lineno, ev))
    items.sort(key=lambda t: t[:3])
    for *_, ev in items:
        yield ev
