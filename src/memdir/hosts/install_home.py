"""The ``--home`` an earlier install wrote into a host's memdir hooks, so a reinstall without it does not drop it
unsaid: the hooks would then read the default global root and the memories under the old one seem gone."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from memdir.hosts.install import Plan, handlers, is_ours, join_argv

#: the memdir command the OpenCode plugin file runs (``const MEMDIR = [...];``)
_PLUGIN_COMMAND = re.compile(r"^const MEMDIR = (\[.*\]);$", re.M)


def home_in(words: list[str]) -> str | None:
    """The value of ``--home DIR`` / ``--home=DIR`` among a memdir command's words before its subcommand."""
    for i, w in enumerate(words):
        if w in ("hook", "mcp"):
            break
        if w == "--home" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--home="):
            return w[len("--home="):]
    return None


def hook_home(settings: dict[str, Any], host: str) -> str | None:
    """The ``--home`` of memdir's hooks for ``host`` in Claude-style hook settings (Claude Code, Codex, DSH)."""
    for *_, h in handlers(settings):
        command = h.get("command")
        if is_ours(command, host):
            try:
                found = home_in(shlex.split(command))
            except ValueError:
                continue
            if found:
                return found
    return None


def plugin_home(text: str | None) -> str | None:
    """The ``--home`` of the memdir command in an OpenCode plugin file's text."""
    m = _PLUGIN_COMMAND.search(text or "")
    try:
        words = json.loads(m.group(1)) if m else []
    except ValueError:
        return None
    return home_in([str(w) for w in words]) if isinstance(words, list) else None


def warn_dropped(plan: Plan, host: str, old: str | None, argv: list[str]) -> None:
    """One warning when the installed hooks carried ``--home old`` and the command being installed (``argv``)
    carries none."""
    if not old or home_in(argv) is not None:
        return
    keep = join_argv(["memdir", "--home", old, "install", host])
    plan.warnings.append(f"the installed {host} hooks used --home {old}; this install drops it, so {host} will use "
                         f"the default global root (the memories under {old} seem gone); to keep it run: {keep}")
