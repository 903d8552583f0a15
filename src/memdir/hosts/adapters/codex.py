"""Codex CLI: its hooks use Claude Code's payload and output format (plus ``turn_id``, ``model``; the
``transcript_path`` may be null), and the legacy ``notify`` program receives one JSON argument
``{"type": "agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages", "last-assistant-message"}``.
"""

from __future__ import annotations

from typing import Any

from memdir.hosts.adapters import HookCall, text_of
from memdir.hosts.adapters.claude_code import parse_payload as _claude_parse


def parse_payload(host: str, event: str, raw_event: str, p: dict[str, Any]) -> HookCall:
    """``HookCall`` for a Codex hook payload, or for the ``notify`` JSON (user messages + last reply)."""
    if event != "notify":
        return _claude_parse(host, event, raw_event, p)  # no tool_use_id → capture keys by text hash
    call = HookCall(host=host, event="notify", host_event="notify",
                    session=text_of(p.get("thread-id") or p.get("thread_id") or p.get("session_id")),
                    cwd=text_of(p.get("cwd")))
    if p.get("type") not in (None, "agent-turn-complete"):
        call.event = "ignore"
        return call
    msgs = p.get("input-messages") or p.get("input_messages") or []
    if isinstance(msgs, str):
        msgs = [msgs]
    call.messages = [m for m in (text_of(x) for x in msgs if x is not None) if m]
    call.assistant = text_of(p.get("last-assistant-message") or p.get("last_assistant_message"))
    return call
