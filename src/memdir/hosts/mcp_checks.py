"""``memdir doctor``'s MCP checks: a ``memdir`` MCP server registered with a host (``~/.claude.json``, a project's
``.mcp.json``, Codex's ``config.toml``, OpenCode's ``opencode.json``) whose command is not found, so the host cannot
start it (the venv an older install named was deleted, memdir moved or is not on a teammate's PATH)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memdir.errors import UsageError
from memdir.fileio import open_regular
from memdir.hosts.host_checks import not_found_fix, why_not_runnable
from memdir.hosts.install import join_argv
from memdir.hosts.install_codex import codex_home
from memdir.hosts.install_opencode import opencode_config_dir, strip_jsonc


def _read(path: Path, parse) -> Any:
    """``parse`` of ``path``'s text; ``None`` when it is missing or does not parse (the hook checks and install say
    what is wrong with such a file)."""
    try:
        with open_regular(path, "r", encoding="utf-8-sig") as f:
            return parse(f.read())
    except (OSError, ValueError, UsageError):
        return None


def _toml(text: str) -> Any:
    import tomllib

    return tomllib.loads(text)


def _server(data: Any, *keys: str) -> Any:
    for k in keys:
        data = data.get(k) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


def _argv(entry: dict[str, Any] | None, host: str) -> list[str]:
    """The command line of a local ``memdir`` server entry, ``[]`` for a remote one (a URL) or a malformed one."""
    if entry is None or entry.get("url") or entry.get("type") in ("remote", "http", "sse"):
        return []
    command = entry.get("command")
    words = command if host == "opencode" else [command, *(entry.get("args") or [])]
    return [str(w) for w in words] if isinstance(words, list) and words and isinstance(words[0], str) else []


def mcp_checks(project: Path | None = None) -> list[dict[str, str]]:
    """A failed check (:func:`memdir.hosts.host_checks.host_checks`' shape) for each host's ``memdir`` MCP server
    whose command is not found; nothing for one that runs, a remote one, or a host where none is registered."""
    files: list[tuple[str, Path | None, Path, Any]] = []  # host, project (None: the user's), file, its server entry
    for proj in (None, *([project] if project is not None else [])):
        claude = (proj / ".mcp.json") if proj else Path.home() / ".claude.json"
        files.append(("claude-code", proj, claude, _server(_read(claude, json.loads), "mcpServers", "memdir")))
        codex = (proj / ".codex" / "config.toml") if proj else codex_home() / "config.toml"
        files.append(("codex", proj, codex, _server(_read(codex, _toml), "mcp_servers", "memdir")))
        folder = proj if proj else opencode_config_dir()
        opencode = next((p for p in (folder / "opencode.json", folder / "opencode.jsonc") if p.exists()),
                        folder / "opencode.json")
        files.append(("opencode", proj, opencode,
                      _server(_read(opencode, lambda t: json.loads(strip_jsonc(t))), "mcp", "memdir")))
    checks = []
    for host, proj, path, entry in files:
        argv = _argv(entry, host)
        why = why_not_runnable(join_argv(argv[:1])) if argv else ""
        if why:
            checks.append({"check": f"{host} {'project' if proj else 'user'} MCP", "ok": "fail",
                           "detail": f"{path}: the memdir MCP server's command {argv[0]!r} {why}, so {host} "
                                     "cannot start it", "remedy": not_found_fix(host, proj)})
    return checks
