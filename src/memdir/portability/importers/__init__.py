"""Transcript importers: turn a host's session files into plain event dicts, without touching a database.

Every importer is a generator of::

    {"key": str, "role": "user" | "assistant" | "tool", "text": str, "session": str,
     "ts": "<ISO 8601 UTC>" | None, "source": "claude-code" | "codex" | "opencode" | "dsh" | "jsonl" | "claude-export"
               | "specstory" | "aider",
     "meta": {...},   # optional extras: line, cwd, tool, call id, is_error …
     "input": ...}    # tool events: the call's arguments, read by the capture gate (a shell command), never stored

Keys are deterministic (seed 004): ``import:<source>:<session>:<line id>``, with the transcript's own
stable id as line id (Claude Code message ``uuid`` / ``tool_use`` id, Codex ``L<line>`` / ``call_id``,
OpenCode part id, ``L<line>`` of the plain-text formats: ``/export`` text, SpecStory, Aider), so importing a file twice yields identical keys and a grown file yields the old
keys plus new ones. Each importer takes an optional ``stats: collections.Counter`` that it increments
with ``skipped:<reason>``, ``bad_json``, ``bad_ts`` … (bad or truncated lines never raise). Tool
calls become one event each, bounded to ``TOOL_SUMMARY_MAX_CHARS`` (20,000) chars. Texts are not
redacted or gated here: the core's capture does that.

Usage::

    from collections import Counter
    from memdir.portability.importers import iter_events, resolve_paths
    stats = Counter()
    for path in resolve_paths("codex"):            # default locations
        for ev in iter_events("codex", path, stats=stats):
            ...
"""

from __future__ import annotations

from pathlib import Path

import memdir.registry as _registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable, Iterator

#: where each public name lives. The submodules are imported on first use (PEP 562): a hook that only needs
#: ``memdir.capture.tools`` (the tool summary, the edit tools) must not pay for every importer — the
#: claude-mem one alone pulls in ``urllib.request``, ``http.client``, ``email`` and ``ssl`` (~20 ms, issue 12).
_NAMES = {
    "iter_claude_code": "claude_code",
    "iter_claude_mem": "claude_mem",
    "iter_codex": "codex",
    "iter_dsh": "dsh",
    "iter_opencode": "opencode",
    "iter_jsonl": "jsonl",
    "iter_claude_export": "claude_export",
    "iter_specstory": "specstory",
    "iter_aider": "aider",
    "TOOL_SUMMARY_MAX_CHARS": "jsonl",
    "HOSTS": "discover",
    "default_paths": "discover",
    "resolve_paths": "discover",
    "project_transcripts": "discover",
}
#: the importer of each source: the reader's name, from its declaration in :data:`memdir.registry.IMPORTERS`
_SOURCES = {source: target.rpartition(":")[2] for source, target in _registry.IMPORTERS.items()}


def __getattr__(name: str):
    if name == "IMPORTERS":
        value = {source: __getattr__(fn) for source, fn in _SOURCES.items()}
    elif name in _NAMES:
        from importlib import import_module

        value = getattr(import_module(f"{__name__}.{_NAMES[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def iter_events(source: str, path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Events of one transcript ``path`` read by the importer of ``source`` (a key of ``IMPORTERS``), in file order.
    An event without a time (none written, or one the importer could not read) takes the time of the event before
    it in its session, or the session's first time when none came before (:func:`_times_filled`), so it is not
    stored at the import's own time, apart from its conversation. The ``jsonl`` source sorts by time itself.

    Raises ``memdir.errors.UsageError`` for an unknown source; the importer's own errors otherwise.
    """
    from memdir.errors import UsageError

    if source not in _SOURCES:
        raise UsageError(f"unknown transcript source {source!r}: use one of {', '.join(_SOURCES)}")
    events = __getattr__(_SOURCES[source])(path, stats=stats)
    return events if source == "jsonl" else _times_filled(events)


#: untimed events held back while their session has shown no time yet; past this they go on without one
_HELD_MAX = 10_000


def _times_filled(events: "Iterator[dict]") -> "Iterator[dict]":
    """``events`` with each missing ``ts`` filled from its session's previous time (or its next one, for the events
    before the session's first time); closing this closes ``events``."""
    last: dict = {}
    held: dict = {}
    try:
        for ev in events:
            session = ev.get("session")
            if ev.get("ts") not in (None, ""):
                last[session] = ev["ts"]
                yield from ({**h, "ts": ev["ts"]} for h in held.pop(session, ()))
            elif session in last:
                ev = {**ev, "ts": last[session]}
            elif sum(map(len, held.values())) < _HELD_MAX:
                held.setdefault(session, []).append(ev)
                continue
            else:  # too many to hold: what is held goes first, in its order
                yield from (h for rest in held.values() for h in rest)
                held.clear()
            yield ev
        for rest in held.values():  # sessions that never had a time: as read (the import's clock)
            yield from rest
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()


def peek_session(source: str, path: str | Path, *, max_lines: int = 200) -> tuple[str | None, str | None]:
    """``(session id, cwd)`` of a one-session transcript file (``claude-code``, ``codex``), read from its first
    ``max_lines`` lines without parsing the rest; ``(None, None)`` for other sources or when not found there. Lets
    an import decide where a session goes (or skip it) before reading the whole file. Never raises for content."""
    from memdir.portability.importers.jsonl import read_jsonl

    if source not in ("claude-code", "codex"):
        return None, None
    session = cwd = None
    try:
        for lineno, obj in read_jsonl(Path(path), None, label=source, warn=False):
            if source == "claude-code":
                session = session or (str(obj["sessionId"]) if obj.get("sessionId") else None)
                cwd = cwd or (obj.get("cwd") if isinstance(obj.get("cwd"), str) else None)
            else:
                payload = obj.get("payload") if isinstance(obj.get("payload"), dict) else {}
                if obj.get("type") in ("session_meta", "turn_context"):
                    if obj.get("type") == "session_meta" and payload.get("id"):
                        session = session or str(payload["id"])
                    cwd = cwd or (payload.get("cwd") if isinstance(payload.get("cwd"), str) else None)
            if (session and cwd) or lineno >= max_lines:
                break
    except OSError:
        return None, None
    if source == "codex" and session is None and cwd is not None:
        session = Path(path).stem  # iter_codex's fallback session id
    return session, cwd


__all__ = ["HOSTS", "IMPORTERS", "TOOL_SUMMARY_MAX_CHARS", "default_paths", "iter_aider", "iter_claude_code",
           "iter_claude_export", "iter_codex", "iter_events", "iter_jsonl", "iter_opencode", "iter_specstory",
           "peek_session", "project_transcripts", "resolve_paths"]
