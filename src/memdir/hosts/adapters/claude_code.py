"""Claude Code hooks (and the hosts that reuse its format: Codex hooks, DSH's Claude-Code-hooks bridge).

stdin fields read (HOSTS.md): ``session_id``, ``cwd``, ``hook_event_name``; ``prompt`` (UserPromptSubmit);
``tool_name``, ``tool_input``, ``tool_response``, ``tool_use_id`` (PostToolUse); ``last_assistant_message``
(Stop; when it is missing, as from DSH's bridge or older Claude Code, the reply is read from ``transcript_path``). Output: the JSON
``{"hookSpecificOutput": {"hookEventName": <event>, "additionalContext": <block>}}``, which every one of these
hosts reads for SessionStart and UserPromptSubmit.
"""

from __future__ import annotations

import json
from typing import Any

from memdir.hosts.adapters import HookCall, text_of

#: the host's spelling of our normalised events, echoed back as hookEventName
HOST_EVENT_NAMES = {"session-start": "SessionStart", "user-prompt": "UserPromptSubmit", "context": "UserPromptSubmit",
                    "post-tool-use": "PostToolUse", "stop": "Stop"}


def parse_payload(host: str, event: str, raw_event: str, p: dict[str, Any]) -> HookCall:
    """``HookCall`` from a Claude-Code-style payload ``p`` (see the module docstring)."""
    host_event = text_of(p.get("hook_event_name")) or HOST_EVENT_NAMES.get(event, raw_event)
    call = HookCall(host=host, event=event, host_event=host_event,
                    session=text_of(p.get("session_id") or p.get("sessionId") or p.get("thread_id")),
                    cwd=text_of(p.get("cwd")))
    if event in ("user-prompt", "context"):
        call.prompt = text_of(p.get("prompt") if p.get("prompt") is not None else p.get("user_prompt"))
    elif event == "post-tool-use":
        call.tool = text_of(p.get("tool_name") or p.get("tool"))
        call.tool_input = p.get("tool_input")
        resp = p.get("tool_response", p.get("tool_output"))
        call.tool_output = resp
        call.is_error = bool(isinstance(resp, dict) and (resp.get("is_error") or resp.get("isError")
                                                         or resp.get("success") is False or resp.get("interrupted")))
        call.call_id = text_of(p.get("tool_use_id") or p.get("call_id") or p.get("tool_call_id"))
    elif event == "stop":
        call.assistant = text_of(p.get("last_assistant_message"))
        call.transcript_path = text_of(p.get("transcript_path"))
    return call


#: most bytes read from the end of a transcript to find the last reply
TRANSCRIPT_TAIL_BYTES = 4 * 1024 * 1024


def last_assistant_text(path: str) -> str | None:
    """The text of the last assistant reply in a Claude Code transcript (JSONL lines ``{"type": "assistant",
    "message": {"content": str | [{"type": "text", "text"}…]}}``): the text blocks of the assistant entries
    after the last user prompt (tool results do not count as prompts), joined by blank lines. Reads at most
    :data:`TRANSCRIPT_TAIL_BYTES` from the end; ``None`` when there is no such text or the file is unreadable or no
    regular file (a FIFO would wait for a writer, a device never end)."""
    from memdir.fileio import open_regular

    try:
        with open_regular(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - TRANSCRIPT_TAIL_BYTES))
            raw = f.read()
    except OSError:
        return None
    texts: list[str] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("isSidechain"):
            continue
        msg = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
        if entry.get("type") == "user":
            if any(isinstance(b, dict) and b.get("type") == "text" for b in blocks):
                texts = []  # a new prompt: the reply we want comes after it
        elif entry.get("type") == "assistant":
            texts += [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"
                      and isinstance(b.get("text"), str) and b["text"].strip()]
    return "\n\n".join(texts) or None


def render_json(call: HookCall, block: str) -> str:
    """The ``hookSpecificOutput`` JSON line for ``block`` (ASCII-escaped, so any console encoding is safe)."""
    name = call.host_event if call.host_event in ("SessionStart", "UserPromptSubmit") else \
        HOST_EVENT_NAMES.get(call.event, "UserPromptSubmit")
    return json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": block}})
