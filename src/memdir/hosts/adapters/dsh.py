"""DSH (DeepSeek Harness): its ``@deepseek-ai/dsh-hooks-claude-code`` bridge runs Claude-Code-style hooks from
``./.claude/hooks.json`` and uses only the JSON ``additionalContext`` output, so ``memdir hook dsh <event>`` is
parsed and rendered exactly like Claude Code (:mod:`memdir.hosts.adapters.claude_code`). Its Stop payload has no
``last_assistant_message``: nothing is captured there. MCP goes through its ``dsh-mcp-client`` bridge
(``memdir mcp`` over stdio).
"""

from memdir.hosts.adapters.claude_code import parse_payload, render_json

__all__ = ["parse_payload", "render_json"]
