"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``.

Each line is ``{timestamp, type, payload}`` (HOSTS.md; checked against the real 0.125 rollout in
``shared/data/transcripts/codex``). The session id is ``session_meta.payload.id`` (else the file stem).

Which source for messages (to avoid double counting — Codex writes each message twice):

* **``event_msg`` ``user_message`` / ``agent_message`` are the source** (they hold what the user typed
  and what the agent said, without the host's injected context); the ``response_item`` ``message``
  copies are counted as ``skipped:response_item_message``.
* Fallback for rollouts that have no such ``event_msg`` at all (older builds): ``response_item``
  messages with role ``user``/``assistant`` are used instead (``developer``/``system`` are skipped).

In both cases host-injected user text (``<environment_context>``, ``<user_instructions>``,
``# AGENTS.md instructions``, ``<permissions instructions>``, ``<turn_aborted>`` …) is
``skipped:host_injected``. Message keys use the 1-based line number: ``import:codex:<session>:L<n>``.

Tool calls: ``function_call`` and ``custom_tool_call`` (e.g. ``apply_patch``) are joined with their
``*_output`` by ``call_id`` into ONE ``role="tool"`` event keyed by the call id; ``web_search_call``
(no call id) becomes a tool event keyed ``L<n>``. The exec output header (``Chunk ID``, ``Wall time``,
``Process exited with code N``, ``Output:``) is stripped, a non-zero exit code sets ``meta.is_error``.
Texts are bounded by :func:`~memdir.importers.jsonl.summarise_tool` (2,000 chars).

Skipped: ``reasoning`` (``skipped:reasoning``), ``session_meta``/``turn_context`` (read for the session
id and cwd), ``compacted``, other ``event_msg`` kinds (``token_count``, ``exec_command_end`` … which
repeat the tool calls) and any unknown type, each counted as ``skipped:<type>[:<payload type>]``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from .jsonl import count, iso, make_event, primary_arg, read_jsonl, summarise_tool

SOURCE = "codex"
HOST_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
                 "<permissions instructions>", "<turn_aborted>", "<collaboration_mode>",
                 "<skills_instructions>", "<plugins_instructions>", "<system-reminder>")
_CALL_TYPES = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}
_KNOWN_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_RUNNING_RE = re.compile(r"Process running with session ID\s*(\d+)")
_EXIT_RE = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")


def _parse_output(raw) -> tuple[str, int | None]:
    """``(output text, exit code or None)`` from a ``*_call_output.output`` value.

    Handles the plain exec form (a header ending in ``Output:``), the JSON form
    ``{"output": str, "metadata": {"exit_code": n}}`` and a list of ``{type, text}`` items.
    """
    exit_code = None
    if isinstance(raw, list):
        raw = "\n".join(str(i.get("text", "")) if isinstance(i, dict) else str(i) for i in raw)
    if isinstance(raw, dict):
        obj = raw
    elif isinstance(raw, str) and raw.lstrip().startswith("{"):
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            obj = None
    else:
        obj = None
    if isinstance(obj, dict) and "output" in obj:
        md = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        code = md.get("exit_code")
        return str(obj.get("output") or ""), code if isinstance(code, int) else None
    text = "" if raw is None else str(raw)
    head, sep, body = text.partition("\nOutput:\n")
    if sep and len(head) < 400:
        m = _EXIT_RE.search(head)
        exit_code = int(m.group(1)) if m else None
        running = _RUNNING_RE.search(head)
        if running and not body.strip():
            body = f"(still running in session {running.group(1)})"
        return body, exit_code
    return text, exit_code


def _tool_arg(name: str, arguments) -> str:
    """The telling argument of a Codex call (``cmd``, shell ``command``, patch files, query …)."""
    args = arguments
    if isinstance(arguments, str):
        if "*** Begin Patch" in arguments:
            files = re.findall(r"^\*\*\* (Add|Update|Delete) File: (.+)$", arguments, re.M)
            return ", ".join(f"{op} {p.strip()}" for op, p in files) or arguments
        try:
            args = json.loads(arguments)
        except json.JSONDecodeError:
            return arguments
    if name == "write_stdin" and isinstance(args, dict) and "session_id" in args:
        chars = args.get("chars")
        return f"session {args['session_id']}" + (f" input {chars!r}" if chars else "")
    return primary_arg(args)


def _collect_outputs(path: Path) -> tuple[dict[str, object], bool, str | None]:
    """First pass: ``call_id -> raw output``, whether the file has event_msg user/agent messages,
    and the session id of the first ``session_meta`` line (``None`` when there is none)."""
    outputs: dict[str, object] = {}
    has_events = False
    session = None
    for _, obj in read_jsonl(path, None, label=SOURCE, warn=False):
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            continue
        ptype = payload.get("type") if isinstance(payload.get("type"), str) else None
        if obj.get("type") == "session_meta" and session is None and payload.get("id"):
            session = str(payload["id"])
        elif obj.get("type") == "response_item" and ptype in _CALL_TYPES.values() and payload.get("call_id"):
            outputs[str(payload["call_id"])] = payload.get("output")
        elif obj.get("type") == "event_msg" and ptype in ("user_message", "agent_message"):
            has_events = True
    return outputs, has_events, session


def _message_text(payload: dict) -> str:
    content = payload.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict) and item.get("type") in ("input_text", "output_text", "text"):
            parts.append(str(item.get("text") or ""))
    return "\n".join(p for p in parts if p.strip())


def iter_codex(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of one Codex rollout file, in file order (see the module docstring).

    path: a ``rollout-*.jsonl`` file. stats: optional Counter incremented with ``lines``,
    ``bad_json``, ``bad_ts``, ``skipped:<reason>`` and ``info:tool_without_result``. Each event is
    ``{key, role, text, session, ts, source="codex", meta={line, cwd?, via?, tool?, call_id?,
    is_error?, exit_code?}}``. The file is read twice (call outputs first). Raises
    ``FileNotFoundError`` for a missing file; bad or truncated lines are counted and skipped.
    """
    path = Path(path)
    outputs, has_events, session_id = _collect_outputs(path)
    session = session_id or path.stem
    cwd = None
    for lineno, obj in read_jsonl(path, stats, label=SOURCE):
        typ = obj.get("type") if isinstance(obj.get("type"), str) else None
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            count(stats, f"skipped:{typ}" if typ in _KNOWN_TYPES else "skipped:unknown")
            continue
        ptype = payload.get("type") if isinstance(payload.get("type"), str) else None
        ts = iso(obj.get("timestamp"), stats)
        meta: dict = {"line": lineno}
        if typ not in _KNOWN_TYPES:
            count(stats, "skipped:unknown")
            continue
        if typ in ("session_meta", "turn_context"):
            cwd = payload.get("cwd") or cwd
            count(stats, f"skipped:{typ}")
            continue
        if cwd:
            meta["cwd"] = cwd
        if typ == "event_msg" and ptype in ("user_message", "agent_message"):
            role = "user" if ptype == "user_message" else "assistant"
            text = payload.get("message")
            ev = _message(session, lineno, role, text if isinstance(text, str) else "", ts,
                          {**meta, "via": "event_msg"}, stats)
            if ev:
                yield ev
        elif typ == "response_item" and ptype == "message":
            role = payload.get("role")
            if has_events:
                count(stats, "skipped:response_item_message")
            elif role in ("user", "assistant"):
                ev = _message(session, lineno, role, _message_text(payload), ts,
                              {**meta, "via": "response_item"}, stats)
                if ev:
                    yield ev
            else:
                count(stats, f"skipped:{role or 'unknown'}_message")
        elif typ == "response_item" and ptype in _CALL_TYPES:
            call_id = str(payload.get("call_id") or f"L{lineno}")
            name = str(payload.get("name") or "tool")
            raw = payload.get("arguments", payload.get("input"))
            if call_id in outputs:
                out, code = _parse_output(outputs[call_id])
            else:
                count(stats, "info:tool_without_result")
                out, code = None, None
            is_error = code not in (None, 0)
            text = summarise_tool(name, _tool_arg(name, raw), out, is_error=is_error)
            meta.update({"tool": name, "call_id": call_id, "is_error": is_error})
            if code is not None:
                meta["exit_code"] = code
            yield make_event(SOURCE, session, call_id, "tool", text, ts, meta)
        elif typ == "response_item" and ptype == "web_search_call":
            action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
            arg = action.get("query") or primary_arg(action)
            text = summarise_tool("web_search", str(arg), str(payload.get("status") or ""))
            yield make_event(SOURCE, session, f"L{lineno}", "tool", text, ts, {**meta, "tool": "web_search"})
        elif typ == "response_item" and ptype in _CALL_TYPES.values():
            count(stats, "skipped:tool_output_folded")
        else:
            count(stats, f"skipped:{typ}:{ptype}" if typ in ("event_msg", "response_item") and ptype
                  else f"skipped:{typ}")


def _message(session: str, lineno: int, role: str, text: str, ts, meta: dict, stats) -> dict | None:
    if not text.strip():
        count(stats, "skipped:empty")
        return None
    if role == "user" and text.lstrip().startswith(HOST_PREFIXES):
        count(stats, "skipped:host_injected")
        return None
    return make_event(SOURCE, session, f"L{lineno}", role, text, ts, meta)
