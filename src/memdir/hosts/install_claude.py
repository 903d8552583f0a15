"""``memdir install claude-code``: the hooks in ``settings.json`` and the MCP server in ``~/.claude.json`` or the
project's ``.mcp.json``."""

from __future__ import annotations

from pathlib import Path

from memdir.errors import UsageError
from memdir.hosts.install_home import hook_home, warn_dropped
from memdir.hosts.install import (
    created_by_install,
    kept_note,
    Plan,
    mcp_entry_ours,
    read_json,
    remove_empty_dirs,
    set_hooks,
    strip_hooks,
    twice_note,
    write_json,
)


#: the keys of the "memdir" MCP server memdir writes
CLAUDE_ENTRY = frozenset({"type", "command", "args"})


# ---- Claude Code ---------------------------------------------------------------------------------------------
def install(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str], legacy: bool = False) -> None:
    home = Path.home()
    settings_path = (project / ".claude" / "settings.json") if project else home / ".claude" / "settings.json"
    mcp_path = (project / ".mcp.json") if project else home / ".claude.json"
    settings = read_json(settings_path) or {}
    mcp = read_json(mcp_path)
    servers = (mcp or {}).get("mcpServers")
    if not uninstall and "mcpServers" in (mcp or {}) and not isinstance(servers, dict):  # before anything is written
        raise UsageError(f"{mcp_path}: \"mcpServers\" is not an object; fix it by hand — nothing was changed")
    if uninstall:
        strip_hooks(settings, "claude-code")
    else:
        warn_dropped(plan, "claude-code", project is None and hook_home(settings, "claude-code"), argv)
        set_hooks(settings, "claude-code", argv)
        other = (home / ".claude" / "settings.json") if project else None
        if other is not None:
            twice_note(plan, other, "claude-code", "user")
    if settings or settings_path.exists():
        write_json(plan, settings_path, settings, remove_if_empty=uninstall)
    if uninstall:
        listed = mcp is not None and isinstance(servers, dict) and "memdir" in servers
        if listed and not mcp_entry_ours(servers["memdir"], CLAUDE_ENTRY, argv):  # the person's own: theirs to remove
            kept_note(plan, mcp_path, 'the "memdir" MCP server')
        elif listed:
            del servers["memdir"]
            # an empty "mcpServers" stays when the user may have had it (their settings come back exactly as they
            # were; tests/e2e: config_preserved); a project's .mcp.json left as {"mcpServers": {}} was made by
            # install and goes, and so does a ~/.claude.json none of whose backups ever held anything but memdir's
            # entry: install created it, and no host wrote to it since
            made = project is not None or created_by_install(mcp_path, project, CLAUDE_ENTRY, argv)
            write_json(plan, mcp_path, mcp, empty=({}, {"mcpServers": {}}), remove_if_empty=made)
        remove_empty_dirs(plan, (project if project is not None else home) / ".claude")  # when nothing else is in it
    else:
        mcp = mcp or {}
        servers = mcp.setdefault("mcpServers", {})
        if "memdir" in servers and not mcp_entry_ours(servers["memdir"], CLAUDE_ENTRY, argv):  # the person's own
            kept_note(plan, mcp_path, 'the "memdir" MCP server')
        else:
            servers["memdir"] = {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"]}
        write_json(plan, mcp_path, mcp)
