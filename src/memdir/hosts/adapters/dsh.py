"""DSH (DeepSeek Harness): its ``@deepseek-ai/dsh-hooks-claude-code`` bridge runs Claude-Code-style hooks from a
``hooks.json`` and uses only the JSON ``additionalContext`` output, so ``memdir hook dsh <event>`` is parsed and
rendered like Claude Code (:mod:`memdir.hosts.adapters.claude_code`). MCP goes through its ``dsh-mcp-client``
bridge (``memdir mcp`` over stdio); ``memdir install dsh`` writes both (:mod:`memdir.hosts.install_dsh`).

Stop: the bridge's payload has no ``last_assistant_message`` (deepseek-harness ``dsh-0.1.1-rc.2``,
``packages/hooks/hooks-claude-code/README.md``), only ``session_id``, ``cwd`` and ``transcript_path`` — the
session's log, ``…/session.jsonl.zstd``, or ``""`` when DSH's persistence cannot say. :func:`stop_replies` reads
the replies from that log (or the log found from ``session_id`` and ``cwd`` under ``$DSH_HOME/sessions``) with
:func:`memdir.portability.importers.dsh.recent_replies`; the hook captures them as Claude Code replies are captured
(keys ``a:<session>:<text hash>``, so a reply read at two Stops is stored once).
"""

from __future__ import annotations

from memdir.hosts.adapters import HookCall
from memdir.hosts.adapters.claude_code import parse_payload, render_json

__all__ = ["parse_payload", "render_json", "stop_replies"]


def stop_replies(call: HookCall) -> list[str]:
    """The assistant replies of the newest turns of ``call``'s DSH session, oldest first (``[]`` when there is no
    readable log; never raises)."""
    from memdir.portability.importers.dsh import log_path, recent_replies

    try:
        path = call.transcript_path or log_path(call.session or "", call.cwd or None)
    except Exception:  # noqa: BLE001 — the hook fails open
        return []
    return recent_replies(path) if path else []
