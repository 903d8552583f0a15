"""Tags hosts speak through (Claude Code's ``<system-reminder>``, Codex's ``<user_instructions>`` and
``<environment_context>`` …), shown as text inside the ``<memory>`` block: stored text quoting one (an issue thread,
an install log, a page an agent quoted) can then never pass for a message of the host (case C37's kind)."""

from __future__ import annotations

import re

#: tags a host wraps its own instructions or context in (Claude Code, Codex, Claude Code's hooks)
HOST_TAGS = ("system-reminder", "user_instructions", "environment_context", "permissions instructions",
             "skills_instructions", "plugins_instructions", "collaboration_mode", "available_skills",
             "user-prompt-submit-hook", "session-start-hook", "task-notification", "local-command-caveat",
             "system_prompt", "system-prompt")
#: the ``<`` of such a tag, opening or closing, with blanks anywhere a reader skips them
_HOST_TAG = re.compile(r"<(?=\s*/?\s*(?:%s)\s*(?:>|\s[^<>\n]*>))" % "|".join(
    re.escape(t).replace(r"\ ", r"\s+").replace(r"\-", r"\s*-\s*").replace("_", r"\s*_\s*") for t in HOST_TAGS), re.I)


def defuse(text: str) -> str:
    """``text`` with the ``<`` of each host tag (:data:`HOST_TAGS`, any case and spacing: ``< System-Reminder >``,
    ``</ user_instructions>``) written ``&lt;``. Expects the compatibility forms and invisible characters already
    folded and dropped (:func:`memdir.inject.block.escape` does so first)."""
    return _HOST_TAG.sub("&lt;", text) if "<" in text else text
