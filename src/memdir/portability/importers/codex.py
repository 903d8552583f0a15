"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``.

Each line is ``{timestamp, type, payload}`` (HOSTS.md; checked against the real 0.125 rollout in
``shared/data/transcripts/codex`` and a 0.171 ``codex exec`` rollout recorded by the issue-9 end-to-end run,
``tests/fixtures/importers/codex_0_171.jsonl``, whose messages exist only as ``response_item`` s). The session id is ``session_meta.payload.id`` (else the file stem); the
``cwd`` of ``session_meta``/``turn_context`` goes into every event's ``meta.cwd`` (the project it belongs to).

Rollouts of the bare era (codex-rs before September 2025) have no envelope: line 1 is the session (``{id, timestamp,
instructions, git?}``), each later line a response item as it is, with ``{"record_type": "state"}`` markers between
them, no per-line time and no ``cwd`` but the ``<cwd>`` of the ``<environment_context>`` user message. They are read
as the later layout (:func:`_lines`): events at the session's time plus their line number in milliseconds.

Messages (Codex writes most of them twice, as an ``event_msg`` and as a ``response_item``):

* user: ``event_msg`` ``user_message`` is the source (what the user typed, without the host's injected
  context); the ``response_item`` user copies are ``skipped:response_item_message``. A rollout without any
  ``user_message`` event uses the ``response_item`` user messages.
* assistant: every ``event_msg`` ``agent_message``, plus every ``response_item`` assistant message whose text
  (whitespace collapsed) is not one of those (``skipped:response_item_message`` when it is). So a rollout
  whose replies are only ``response_item`` messages yields them all, and one with both forms yields each
  reply once.
* a sub-agent's rollout (``session_meta`` ``source: {"subagent": …}``: a spawned agent, ``/review``, Codex's own memory
  job; or ``thread_source: "subagent"``): its user messages are the task another model wrote for it, never the
  developer's words (``skipped:subagent_prompt``); its replies and tool calls are kept.
* ``developer``/``system`` messages are skipped. Host-injected text (``<environment_context>``, ``# AGENTS.md
  instructions`` …) is left to the capture gate (:func:`memdir.capture.gates.gate`), like everything else content.

Message keys use the 1-based line number: ``import:codex:<session>:L<n>``.

Tool calls: ``function_call`` and ``custom_tool_call`` are joined with their ``*_output`` by ``call_id`` into
ONE ``role="tool"`` event keyed by the call id, text from :func:`~memdir.capture.tools.tool_summary`
(``apply_patch`` as "file + what changed"). The exec output header (``Chunk ID``, ``Wall time``, ``Process
exited with code N``, ``Output:``) is stripped, a non-zero exit code sets ``meta.is_error``.

**Long-running commands** (unified exec, 0.12x+): an ``exec_command`` whose output reads ``Process running
with session ID N`` continues in later ``write_stdin`` calls on session ``N`` (polls with empty ``chars``, or
input) whose outputs carry the command's output and finally ``Process exited with code C``; they do not name
the command. They are paired by session id, in file order, into the ``exec_command`` event: its text is the
command plus all its output chunks, ``meta.exit_code`` the final code, ``meta.stdin_calls`` the number of
``write_stdin`` calls folded in (each counted ``skipped:write_stdin_folded``; input sent is kept as a
``> input …`` line, followed by the call's answer when the input could not be sent: ``write_stdin failed: stdin is
closed …``; such a refused call is also a tool event of its own, ``is_error``, naming the command it was for). When no chunk carries output, the ``exec_command_end`` event's ``aggregated_output`` is
used. A ``write_stdin`` on a session never opened in this file stays a tool event of its own.
``web_search_call`` (no call id) becomes a tool event keyed ``L<n>``.

Skipped: ``reasoning`` (``skipped:response_item:reasoning``), ``session_meta``/``turn_context`` (read for the
session id and cwd), ``state``, ``compacted``, ``world_state`` and ``token_usage_record`` (0.17x), other ``event_msg`` kinds (``token_count``, ``exec_command_end`` … which
repeat the tool calls) and any unknown type, each counted as ``skipped:<type>[:<payload type>]``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from memdir.capture.tools import tool_summary
from memdir.capture.tools import keys_text, primary_arg, summarise_tool
from memdir.portability.importers.jsonl import count, iso, make_event, read_jsonl
from memdir.timeutil import parse_ts

SOURCE = "codex"
_CALL_TYPES = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}
_KNOWN_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state",
                          "token_usage_record", "state"})
#: the response items a bare-era rollout writes as lines of their own
_BARE_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
                         "custom_tool_call_output", "local_shell_call", "web_search_call"})
_ENV_CWD = re.compile(r"<environment_context>.*?<cwd>([^<\n]+)</cwd>", re.S)
_RUNNING_RE = re.compile(r"Process running with session ID\s*(\d+)")
_EXIT_RE = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_EXEC_TOOLS = frozenset({"exec_command", "shell", "local_shell", "container.exec", "shell_command"})


@dataclass
class _Output:
    """One ``*_call_output`` value, parsed: the text, the exit code (``None`` = unknown), the exec session id
    when the command is still running, and whether the text had the exec header (``Output:``)."""

    text: str
    exit_code: int | None = None
    running: str | None = None
    exec_header: bool = False


def _parse_output(raw) -> _Output:
    """Parse a ``*_call_output.output`` value: the plain exec form (a header ending in ``Output:``), the JSON
    form ``{"output": str, "metadata": {"exit_code": n}}`` or a list of ``{type, text}`` items."""
    if isinstance(raw, list):
        raw = "\n".join(str(i.get("text", "")) if isinstance(i, dict) else str(i) for i in raw)
    obj = None
    if isinstance(raw, dict):
        obj = raw
    elif isinstance(raw, str) and raw.lstrip().startswith("{"):
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            obj = None
    if isinstance(obj, dict) and "output" in obj:
        md = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        code = md.get("exit_code")
        return _Output(str(obj.get("output") or ""), code if isinstance(code, int) else None)
    text = "" if raw is None else str(raw)
    head, sep, body = text.partition("\nOutput:\n")
    if not sep and text.endswith("\nOutput:"):
        head, sep, body = text[: -len("\nOutput:")], "x", ""
    if sep and len(head) < 400:
        m = _EXIT_RE.search(head)
        running = _RUNNING_RE.search(head)
        return _Output(body, int(m.group(1)) if m else None, running.group(1) if running and not m else None, True)
    return _Output(text)


def _args(raw):
    """Call arguments as a dict when they are JSON, else as they are (patch text, plain string)."""
    if isinstance(raw, str) and "*** Begin Patch" not in raw:
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


@dataclass
class _Exec:
    """A long-running ``exec_command`` and what later ``write_stdin`` calls brought back."""

    call_id: str
    chunks: list[str] = field(default_factory=list)
    exit_code: int | None = None
    running: str | None = None
    stdin_calls: int = 0


@dataclass
class _Scan:
    """First pass over a rollout."""

    outputs: dict[str, object] = field(default_factory=dict)
    execs: dict[str, _Exec] = field(default_factory=dict)      # exec call id -> its continuation
    folded: dict[str, str] = field(default_factory=dict)       # write_stdin call id -> exec call id
    ends: dict[str, dict] = field(default_factory=dict)        # call id -> exec_command_end payload
    refused: dict[str, str] = field(default_factory=dict)      # folded write_stdin call id -> why its input was refused
    has_user_events: bool = False
    agent_texts: set[str] = field(default_factory=set)
    session: str | None = None
    subagent: bool = False  # a sub-agent's thread: its user messages are what another model wrote for it


def _lines(path: Path, stats: Counter | None, **kw) -> Iterator[tuple[int, dict]]:
    """The rollout's ``(line number, object)`` pairs, a bare-era line (codex-rs before September 2025) in the
    envelope later versions write: line 1 ``{id, timestamp, instructions}`` as ``session_meta``, each bare response
    item as a ``response_item`` at the session's time plus its line number in milliseconds (the era records no
    per-line time), ``{"record_type": "state"}`` as ``state``; a user message's ``<environment_context>`` ``<cwd>``
    (the era's only record of the directory) as a ``turn_context`` just before it."""
    start = None
    for lineno, obj in read_jsonl(path, stats, label=SOURCE, **kw):
        item = isinstance(obj.get("type"), str) and obj["type"] in _BARE_ITEMS
        if "payload" in obj or not (obj.get("record_type") or item
                                    or (lineno == 1 and obj.get("id") and "type" not in obj)):
            yield lineno, obj
            continue
        if obj.get("record_type"):
            yield lineno, {"type": "state"}
        elif not item:  # the session line
            try:
                start = parse_ts(obj.get("timestamp"))
            except Exception:  # noqa: BLE001 - no time: the events keep none
                start = None
            yield lineno, {"type": "session_meta", "timestamp": obj.get("timestamp"), "payload": obj}
        else:
            when = (start + timedelta(milliseconds=lineno)).isoformat() if start else None
            cwd = _ENV_CWD.search(_message_text(obj)) if obj.get("type") == "message" else None
            if cwd:
                yield lineno, {"type": "turn_context", "timestamp": when, "payload": {"cwd": cwd.group(1).strip()}}
            yield lineno, {"type": "response_item", "timestamp": when, "payload": obj}


def _norm(text: str) -> str:
    return " ".join(text.split())


def _scan(path: Path) -> _Scan:
    """Outputs by call id, the pairing of ``write_stdin`` calls with their ``exec_command`` (by exec session id,
    in file order), ``exec_command_end`` payloads, which message forms exist, and the session id."""
    sc = _Scan()
    live: dict[str, _Exec] = {}        # exec session id -> running exec
    calls: dict[str, tuple[str, object]] = {}  # call id -> (tool name, args)
    for _, obj in _lines(path, None, warn=False):
        payload = obj.get("payload")
        if not isinstance(payload, dict):
            continue
        typ = obj.get("type")
        ptype = payload.get("type") if isinstance(payload.get("type"), str) else None
        if typ == "session_meta" and sc.session is None and payload.get("id"):
            sc.session = str(payload["id"])
        if typ == "session_meta":
            sc.subagent = sc.subagent or _is_subagent(payload)
        elif typ == "event_msg" and ptype == "user_message":
            sc.has_user_events = True
        elif typ == "event_msg" and ptype == "agent_message" and isinstance(payload.get("message"), str):
            sc.agent_texts.add(_norm(payload["message"]))
        elif typ == "event_msg" and ptype == "exec_command_end" and payload.get("call_id"):
            sc.ends[str(payload["call_id"])] = payload
        elif typ == "response_item" and ptype in _CALL_TYPES and payload.get("call_id"):
            call_id = str(payload["call_id"])
            name = str(payload.get("name") or "")
            args = _args(payload.get("arguments", payload.get("input")))
            calls[call_id] = (name, args)
            if name == "write_stdin" and isinstance(args, dict) and str(args.get("session_id")) in live:
                ex = live[str(args.get("session_id"))]
                sc.folded[call_id] = ex.call_id
                ex.stdin_calls += 1
                if args.get("chars"):
                    ex.chunks.append(f"> input {keys_text(args['chars'])}")
        elif typ == "response_item" and ptype in _CALL_TYPES.values() and payload.get("call_id"):
            call_id = str(payload["call_id"])
            sc.outputs[call_id] = payload.get("output")
            name = calls.get(call_id, ("", None))[0]
            if name in _EXEC_TOOLS:
                out = _parse_output(payload.get("output"))
                if out.running:
                    ex = _Exec(call_id, running=out.running)
                    sc.execs[call_id] = ex
                    live[out.running] = ex
            elif call_id in sc.folded:
                ex = sc.execs[sc.folded[call_id]]
                out = _parse_output(payload.get("output"))
                if not out.exec_header:
                    sent = calls[call_id][1]
                    if isinstance(sent, dict) and sent.get("chars") and out.text.strip():
                        # input that could not be sent (Ctrl-C to a closed stdin): why is part of the command's story,
                        # and a failed action of its own (a command that read a file is otherwise not kept)
                        ex.chunks.append(out.text.strip())
                        sc.refused[call_id] = out.text.strip()
                    continue  # a failed poll ("write_stdin failed: …") says nothing about the command's output
                if out.text.strip():
                    ex.chunks.append(out.text)
                if out.exit_code is not None:
                    ex.exit_code = out.exit_code
                    ex.running = None
                    live.pop(str(calls[call_id][1].get("session_id")), None)  # type: ignore[union-attr]
    return sc


def _is_subagent(meta: dict) -> bool:
    """Whether a ``session_meta`` payload is a sub-agent's thread: ``source`` ``{"subagent": …}`` (a spawned agent's
    ``thread_spawn``, ``review``, ``compact``, Codex's own ``memory_consolidation``), ``thread_source: "subagent"`` or a
    ``parent_thread_id``."""
    source = meta.get("source")
    if isinstance(source, dict) and any(str(k).replace("_", "").lower() == "subagent" for k in source):
        return True
    if isinstance(source, str) and source.replace("_", "").lower().startswith("subagent"):
        return True
    return str(meta.get("thread_source") or "").replace("_", "").lower() == "subagent" or bool(meta.get("parent_thread_id"))


def _message_text(payload: dict) -> str:
    content = payload.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict) and item.get("type") in ("input_text", "output_text", "text"):
            parts.append(str(item.get("text") or ""))
    return "\n".join(p for p in parts if p.strip())


def _exec_output(sc: _Scan, call_id: str, first: _Output) -> tuple[str | None, int | None, dict]:
    """The whole output of one exec call (its own output + paired ``write_stdin`` chunks), its exit code and
    extra meta."""
    ex = sc.execs.get(call_id)
    if ex is None:
        return first.text, first.exit_code, {}
    parts = [first.text] if first.text.strip() else []
    parts += ex.chunks
    code = ex.exit_code
    end = sc.ends.get(call_id) or {}
    if code is None and isinstance(end.get("exit_code"), int):
        code = end["exit_code"]
    has_output = any(p.strip() and not p.startswith("> input ") for p in parts)
    if not has_output and isinstance(end.get("aggregated_output"), str) and end["aggregated_output"].strip():
        parts.append(end["aggregated_output"])
    elif not has_output and code is None and ex.running:
        parts.append(f"(still running in session {ex.running})")
    return "\n".join(parts), code, {"stdin_calls": ex.stdin_calls}


def iter_codex(path: str | Path, *, stats: Counter | None = None) -> Iterator[dict]:
    """Yield the events of one Codex rollout file, in file order (see the module docstring).

    path: a ``rollout-*.jsonl`` file. stats: optional Counter incremented with ``lines``,
    ``bad_json``, ``bad_ts``, ``skipped:<reason>`` and ``info:tool_without_result``. Each event is
    ``{key, role, text, session, ts, source="codex", meta={line, cwd?, via?, tool?, call_id?,
    is_error?, exit_code?, stdin_calls?}}``. The file is read twice (call outputs and pairing first). Raises
    ``FileNotFoundError`` for a missing file; bad or truncated lines are counted and skipped.
    """
    path = Path(path)
    sc = _scan(path)
    session = sc.session or path.stem
    cwd = None
    commands: dict[str, str] = {}  # exec call id -> its command (a refused write_stdin names it)
    for lineno, obj in _lines(path, stats):
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
            cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and payload["cwd"] else cwd
            count(stats, f"skipped:{typ}")
            continue
        if cwd:
            meta["cwd"] = cwd
        if sc.subagent and ((typ == "event_msg" and ptype == "user_message") or (
                typ == "response_item" and ptype == "message" and payload.get("role") == "user" and not sc.has_user_events)):
            count(stats, "skipped:subagent_prompt")  # the parent model's task for it, not the developer's words
            continue
        if typ == "event_msg" and ptype in ("user_message", "agent_message"):
            role = "user" if ptype == "user_message" else "assistant"
            text = payload.get("message")
            ev = _message(session, lineno, role, text if isinstance(text, str) else "", ts,
                          {**meta, "via": "event_msg"}, stats)
            if ev:
                yield ev
        elif typ == "response_item" and ptype == "message":
            role = payload.get("role")
            text = _message_text(payload)
            if (role == "user" and sc.has_user_events) or (role == "assistant" and _norm(text) in sc.agent_texts):
                count(stats, "skipped:response_item_message")
            elif role in ("user", "assistant"):
                ev = _message(session, lineno, role, text, ts, {**meta, "via": "response_item"}, stats)
                if ev:
                    yield ev
            else:
                count(stats, f"skipped:{role or 'unknown'}_message")
        elif typ == "response_item" and ptype in _CALL_TYPES:
            call_id = str(payload.get("call_id") or f"L{lineno}")
            name = str(payload.get("name") or "tool")
            args = _args(payload.get("arguments", payload.get("input")))
            if call_id in sc.refused:  # input the command's stdin refused: a failed call, kept as one
                cmd = " ".join(commands.get(sc.folded[call_id], "").split())
                cmd = cmd if len(cmd) <= 100 else cmd[:99] + "…"
                text = tool_summary(name, f"input {keys_text(str(args.get('chars') or ''))} to `{cmd}`", sc.refused[call_id],
                                    is_error=True, cwd=cwd)
                yield make_event(SOURCE, session, call_id, "tool", text, ts,
                                 {**meta, "tool": name, "call_id": call_id, "is_error": True}, tool_input=args)
                continue
            if call_id in sc.folded:
                count(stats, "skipped:write_stdin_folded")
                continue
            extra: dict = {}
            if call_id in sc.outputs:
                first = _parse_output(sc.outputs[call_id])
                out, code, extra = _exec_output(sc, call_id, first) if name in _EXEC_TOOLS else (first.text, first.exit_code, {})
            else:
                count(stats, "info:tool_without_result")
                out, code = None, None
            is_error = code not in (None, 0)
            shown, shown_args = name, args
            cmd = primary_arg(args) if name in _EXEC_TOOLS else ""
            commands[call_id] = cmd
            if "*** Begin Patch" in cmd:  # apply_patch run through the shell (older Codex)
                shown, shown_args = "apply_patch", cmd[cmd.index("*** Begin Patch"):]
            if name == "write_stdin" and isinstance(args, dict) and "session_id" in args:
                chars = args.get("chars")
                shown_args = f"session {args['session_id']}" + (f" input {keys_text(str(chars))}" if chars else "")
            text = tool_summary(shown, shown_args, out, is_error=is_error, cwd=cwd, exit_code=code)
            meta.update({"tool": name, "call_id": call_id, "is_error": is_error, **extra})
            if code is not None:
                meta["exit_code"] = code
            yield make_event(SOURCE, session, call_id, "tool", text, ts, meta, tool_input=args)
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
    return make_event(SOURCE, session, f"L{lineno}", role, text, ts, meta)
