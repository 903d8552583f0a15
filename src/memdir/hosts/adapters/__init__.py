"""Host adapters: turn a host's hook payload into one :class:`HookCall` and the facade's answer into what the
host reads on stdout. Pure functions, no store access, no heavy imports (they run on the hook path).

Hosts: ``claude-code``, ``codex``, ``dsh`` (its Claude-Code-hooks bridge) and ``opencode`` (our plugin file,
see :mod:`memdir.hosts.adapters.opencode`). Events are normalised to:

* ``session-start`` — inject the full block (rules + outline);
* ``user-prompt`` — inject the block for the prompt, then capture the prompt;
* ``context`` — OpenCode's per-request system transform: inject for the last user text, and capture the
  recent user texts the host passed (the fallback path when a front end never fires the prompt hook; the
  deterministic ``u:`` key makes both paths store once);
* ``post-tool-use`` — capture a tool summary;
* ``stop`` — capture the last assistant message (prints nothing);
* ``notify`` — Codex's legacy ``notify`` program (payload as the last argv): capture the turn;
* ``session-end`` — the session ended (Claude Code SessionEnd): only the distillation trigger runs;
* ``ignore`` — an event we know and deliberately do nothing for (PreToolUse, PreCompact …).

Names are accepted in kebab-case or as the host spells them (``UserPromptSubmit``, ``tool.execute.after``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HOSTS = ("claude-code", "codex", "dsh", "opencode")  # the keys of memdir.registry.HOSTS (a test keeps them equal)
HOST_ALIASES = {"claude": "claude-code", "claudecode": "claude-code", "claude_code": "claude-code",
                "deepseek": "dsh", "deepseek-harness": "dsh", "open-code": "opencode"}

#: most characters of injected text we hand any host (Claude Code keeps only a preview above 10,000)
HOOK_MAX_CHARS = 9000

_EVENT_NAMES = {
    "session-start": ("sessionstart", "sessionstarted", "sessioncreated", "start"),
    "user-prompt": ("userprompt", "userpromptsubmit", "prompt", "chatmessage", "message", "beforesubmitprompt"),
    "context": ("context", "system", "experimentalchatsystemtransform", "chatsystemtransform", "systemtransform"),
    "post-tool-use": ("posttooluse", "tool", "toolexecuteafter", "executeafter", "toolafter", "aftertool"),
    "stop": ("stop", "sessionidle", "turncomplete", "agentturncomplete", "assistant"),
    "notify": ("notify",),
    "session-end": ("sessionend", "sessionended", "sessiondeleted"),
    "ignore": ("pretooluse", "precompact", "postcompact", "subagentstart", "subagentstop",
               "permissionrequest", "stopfailure", "notification", "toolexecutebefore"),
}
_BY_SQUASHED = {alias: ev for ev, names in _EVENT_NAMES.items() for alias in names}


def normalize_host(name: str) -> str | None:
    """``claude-code`` / ``codex`` / ``dsh`` / ``opencode`` for a host name or alias, else ``None``."""
    n = str(name or "").strip().lower()
    n = HOST_ALIASES.get(n, n)
    return n if n in HOSTS else None


def normalize_event(name: str) -> str | None:
    """The normalised event for a host's event name (case, ``-``, ``_``, ``.`` and spaces ignored), else None."""
    squashed = "".join(ch for ch in str(name or "").lower() if ch.isalnum())
    return _BY_SQUASHED.get(squashed)


@dataclass
class HookCall:
    """One hook invocation, host-independent.

    ``event``: a normalised event (see the module docstring). ``host_event``: the host's own event name to echo
    back (Claude Code's ``hookEventName``). ``cwd``: the project directory from the payload (or None).
    ``prompt``: the user's text (user-prompt, context). ``messages``: recent user texts to capture (context,
    notify). ``tool``/``tool_input``/``tool_output``/``call_id``/``is_error``: post-tool-use. ``assistant``:
    the assistant's last message (stop, notify). ``transcript_path``: where the host keeps the session (stop:
    the reply is read from it when the payload has none).
    """

    host: str
    event: str
    host_event: str
    session: str | None = None
    cwd: str | None = None
    prompt: str | None = None
    messages: list[str] = field(default_factory=list)
    tool: str | None = None
    tool_input: Any = None
    tool_output: Any = None
    call_id: str | None = None
    is_error: bool = False
    assistant: str | None = None
    transcript_path: str | None = None


def text_of(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    return None


def parse(host: str, event: str, payload: Any) -> HookCall:
    """Build the :class:`HookCall` for ``host``'s ``event`` and its decoded JSON ``payload``.

    Raises ``ValueError`` for an unknown host or event or a payload that is not a JSON object (the hook runner
    turns that into "print nothing, exit 0").
    """
    h = normalize_host(host)
    if h is None:
        raise ValueError(f"unknown host {host!r}: use one of {', '.join(HOSTS)}")
    ev = normalize_event(event) if event else None
    if not event and isinstance(payload, dict):  # no event argument: the payload's own event name decides
        ev = normalize_event(payload.get("hook_event_name") or payload.get("event") or payload.get("type") or "")
    if ev is None:
        raise ValueError(f"unknown event {event!r} for {h}")
    if not isinstance(payload, dict):
        raise ValueError("the hook payload is not a JSON object")
    import memdir.registry as registry

    return registry.resolve(registry.HOSTS[h]["parse"])(h, ev, event, payload)


def render(call: HookCall, block: str) -> str:
    """What the host reads on stdout for an injected ``block`` (``""`` → print nothing)."""
    if not block:
        return ""
    import memdir.registry as registry

    entry = registry.HOSTS[call.host]
    if entry["render"] is None:  # the host reads the block as plain text
        return block
    return registry.resolve(entry["render"])(call, block)
