"""``memdir install claude-code | codex | opencode [--project] [--uninstall]``: register memdir's hooks and MCP
server in a host's settings, idempotently, with a timestamped backup of every file it changes.

Files (``~`` is ``$HOME``; formats in HOSTS.md):

============  ===========================================  ===============================================
host          user scope (default)                         ``--project``
============  ===========================================  ===============================================
claude-code   hooks ``~/.claude/settings.json``,           hooks ``<project>/.claude/settings.json``,
              MCP ``~/.claude.json`` (``mcpServers``)      MCP ``<project>/.mcp.json``
codex         hooks ``$CODEX_HOME/hooks.json``;            hooks ``<project>/.codex/hooks.json``;
              ``$CODEX_HOME/config.toml``: ``[features]``  config.toml as for user scope
              ``codex_hooks = true`` + ``[mcp_servers.memdir]``
opencode      plugin ``$XDG_CONFIG_HOME/opencode/plugins/  plugin ``<project>/.opencode/plugins/memdir.js``,
              memdir.js``, MCP ``…/opencode/opencode.json`` MCP ``<project>/opencode.json``
============  ===========================================  ===============================================

Rules: our hook entries are recognised by their command (``… hook <host> …``) and replaced on every install,
so installing twice changes nothing; entries of other tools are never touched. A file that does not parse is
never rewritten (one-line error). A JSONC ``opencode.json`` with comments is not rewritten either: the MCP
snippet is printed to add by hand. ``--uninstall`` removes exactly what install adds (and the plugin file only
if memdir wrote it). Backups are ``<file>.memdir-backup-<UTC timestamp>`` beside the file.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from .errors import UsageError

HOST_NAMES = ("claude-code", "codex", "opencode")
CLAUDE_EVENTS = {  # host event -> (our event, extra entry fields)
    "SessionStart": ("session-start", {}),
    "UserPromptSubmit": ("user-prompt", {}),
    "PostToolUse": ("post-tool-use", {"async": True}),
    "Stop": ("stop", {"async": True}),
}
CODEX_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")
HOOK_TIMEOUT_S = 10
TOML_BEGIN = "# >>> memdir (written by `memdir install codex`; remove with --uninstall) >>>"
TOML_END = "# <<< memdir <<<"
TOML_LINE_MARK = "# memdir"


@dataclass
class Plan:
    """What an install/uninstall did (or would do with ``dry_run``): one ``{"file", "action", …}`` per file."""

    dry_run: bool = False
    changes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, path: Path, action: str, **extra: Any) -> None:
        self.changes.append({"file": str(path), "action": action, **extra})


# ---- the memdir command line to register ---------------------------------------------------------------------
def memdir_argv() -> list[str]:
    """argv prefix that runs this memdir: the ``memdir`` script on PATH or beside this Python, else
    ``<python> -m memdir.cli``."""
    beside = Path(sys.executable).with_name("memdir.exe" if os.name == "nt" else "memdir")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("memdir")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "memdir.cli"]


def _join(argv: list[str]) -> str:
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline(argv)
    return " ".join(shlex.quote(a) for a in argv)


# ---- file helpers --------------------------------------------------------------------------------------------
def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def _read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path`` (``None`` when missing or empty). Raises ``UsageError`` when unreadable."""
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8-sig")
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"cannot parse {path} ({exc.msg} at line {exc.lineno}); fix it or edit it by hand — nothing was changed") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object; nothing was changed")
    return data


def _write_text(plan: Plan, path: Path, text: str, *, old: str | None) -> None:
    if old is not None and old == text:
        plan.add(path, "unchanged")
        return
    backup = None
    if not plan.dry_run:
        path.parent.mkdir(parents=True, exist_ok=True)
        if old is not None:
            backup = path.with_name(f"{path.name}.memdir-backup-{_stamp()}")
            shutil.copy2(path, backup)
        tmp = path.with_name(f".{path.name}.memdir-tmp-{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    plan.add(path, "created" if old is None else "updated", **({"backup": str(backup)} if backup else {}))


def _write_json(plan: Plan, path: Path, data: dict[str, Any]) -> None:
    old = path.read_text(encoding="utf-8-sig") if path.exists() else None
    new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if old is not None:
        try:
            if json.loads(old) == data:
                plan.add(path, "unchanged")
                return
        except json.JSONDecodeError:
            pass
    _write_text(plan, path, new, old=old)


def _is_ours(command: Any, host: str) -> bool:
    return isinstance(command, str) and f" hook {host} " in f" {command} " and "memdir" in command


def _strip_hooks(settings: dict[str, Any], host: str) -> bool:
    """Remove our hook entries for ``host`` from a Claude-style ``{"hooks": {Event: [groups]}}``; True if any."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return False
    changed = False
    for ev in list(hooks):
        groups = hooks[ev]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                kept = [h for h in g["hooks"] if not (isinstance(h, dict) and _is_ours(h.get("command"), host))]
                if len(kept) != len(g["hooks"]):
                    changed = True
                    if not kept:
                        continue
                    g = {**g, "hooks": kept}
            kept_groups.append(g)
        if kept_groups:
            hooks[ev] = kept_groups
        else:
            del hooks[ev]
    if not hooks:
        settings.pop("hooks", None)
    return changed


def _add_hooks(settings: dict[str, Any], host: str, events: dict[str, tuple[str, dict[str, Any]]], argv: list[str]) -> None:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError("the settings' \"hooks\" value is not an object; fix it by hand — nothing was changed")
    for host_event, (ours, extra) in events.items():
        entry = {"type": "command", "command": _join([*argv, "hook", host, ours]), "timeout": HOOK_TIMEOUT_S, **extra}
        groups = hooks.setdefault(host_event, [])
        if not isinstance(groups, list):
            raise UsageError(f"the settings' hooks.{host_event} is not a list; fix it by hand — nothing was changed")
        groups.append({"hooks": [entry]})


# ---- Claude Code ---------------------------------------------------------------------------------------------
def _claude(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str]) -> None:
    home = Path.home()
    settings_path = (project / ".claude" / "settings.json") if project else home / ".claude" / "settings.json"
    mcp_path = (project / ".mcp.json") if project else home / ".claude.json"
    settings = _read_json(settings_path) or {}
    mcp = _read_json(mcp_path)
    _strip_hooks(settings, "claude-code")
    if not uninstall:
        _add_hooks(settings, "claude-code", CLAUDE_EVENTS, argv)
    if settings or settings_path.exists():
        _write_json(plan, settings_path, settings)
    servers = (mcp or {}).get("mcpServers")
    if uninstall:
        if mcp is not None and isinstance(servers, dict) and "memdir" in servers:
            del servers["memdir"]
            if not servers:
                mcp.pop("mcpServers")
            _write_json(plan, mcp_path, mcp)
    else:
        mcp = mcp or {}
        servers = mcp.setdefault("mcpServers", {})
        if not isinstance(servers, dict):
            raise UsageError(f"{mcp_path}: \"mcpServers\" is not an object; fix it by hand — nothing was changed")
        servers["memdir"] = {"type": "stdio", "command": argv[0], "args": [*argv[1:], "mcp"]}
        _write_json(plan, mcp_path, mcp)


# ---- Codex ---------------------------------------------------------------------------------------------------
def codex_home() -> Path:
    """``$CODEX_HOME`` or ``~/.codex``."""
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


def _toml_q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _toml_remove_ours(text: str) -> str:
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s == TOML_BEGIN:
            skipping = True
            continue
        if skipping:
            if s == TOML_END:
                skipping = False
            continue
        if s.endswith(TOML_LINE_MARK) and s.startswith("codex_hooks"):
            continue
        out.append(line)
    text = "".join(out)
    return text.rstrip("\n") + "\n" if text.strip() else ""


def _codex_toml(text: str, argv: list[str], plan: Plan, path: Path) -> str:
    """Add ``[features] codex_hooks = true`` and ``[mcp_servers.memdir]`` to config.toml text (already without
    our earlier block); verifies the result parses."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"cannot parse {path} ({exc}); fix it first — nothing was changed") from None
    block: list[str] = []
    features = data.get("features")
    if isinstance(features, dict) and features.get("codex_hooks") is True:
        pass
    elif isinstance(features, dict) and "codex_hooks" in features:
        plan.notes.append(f"{path}: features.codex_hooks is set to {features['codex_hooks']!r}; memdir left it alone "
                          "(Codex runs hooks only when it is true)")
    elif isinstance(features, dict):
        m = re.search(r"(?m)^[ \t]*\[features\][ \t]*(#.*)?$", text)
        if m is None:
            plan.notes.append(f"{path}: [features] is written in a form memdir does not edit; add codex_hooks = true by hand")
        else:
            text = text[: m.end()] + f"\ncodex_hooks = true  {TOML_LINE_MARK}" + text[m.end():]
    else:
        block += ["[features]", "codex_hooks = true", ""]
    servers = data.get("mcp_servers")
    if isinstance(servers, dict) and "memdir" in servers:
        plan.notes.append(f"{path}: [mcp_servers.memdir] already exists and was kept as it is")
    else:
        args = ", ".join(_toml_q(a) for a in [*argv[1:], "mcp"])
        block += ["[mcp_servers.memdir]", f"command = {_toml_q(argv[0])}", f"args = [{args}]", "startup_timeout_sec = 20"]
    if block:
        if text and not text.endswith("\n"):
            text += "\n"
        text += ("\n" if text.strip() else "") + "\n".join([TOML_BEGIN, *block, TOML_END]) + "\n"
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - guarded by construction
        raise UsageError(f"editing {path} would produce invalid TOML ({exc}); nothing was changed") from None
    return text


def _codex(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str]) -> None:
    ch = codex_home()
    hooks_path = (project / ".codex" / "hooks.json") if project else ch / "hooks.json"
    config_path = ch / "config.toml"
    hooks = _read_json(hooks_path) or {}
    _strip_hooks(hooks, "codex")
    if not uninstall:
        _add_hooks(hooks, "codex", {e: CLAUDE_EVENTS[e] for e in CODEX_EVENTS}, argv)
    if hooks or hooks_path.exists():
        _write_json(plan, hooks_path, hooks)
    old = config_path.read_text(encoding="utf-8") if config_path.exists() else None
    base = _toml_remove_ours(old or "")
    if uninstall:
        if old is not None:
            try:
                tomllib.loads(base)
            except tomllib.TOMLDecodeError as exc:
                raise UsageError(f"removing memdir from {config_path} would leave invalid TOML ({exc}); edit it by hand") from None
            _write_text(plan, config_path, base, old=old)
        return
    _write_text(plan, config_path, _codex_toml(base, argv, plan, config_path), old=old)


# ---- OpenCode ------------------------------------------------------------------------------------------------
def opencode_config_dir() -> Path:
    """``$XDG_CONFIG_HOME/opencode`` or ``~/.config/opencode``."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".config") / "opencode"


def _strip_jsonc(text: str) -> str:
    """JSON text from JSONC: comments outside strings removed, trailing commas dropped."""
    out, i, n, in_str = [], 0, len(text), False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        else:
            out.append(c)
        i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _opencode(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str], legacy: bool) -> None:
    from .adapters.opencode import PLUGIN_MARK, render_plugin

    base = project / ".opencode" if project else opencode_config_dir()
    plugin = base / "plugins" / "memdir.js"
    cfg_dir = project if project else opencode_config_dir()
    cfg_path = next((p for p in (cfg_dir / "opencode.json", cfg_dir / "opencode.jsonc") if p.exists()), cfg_dir / "opencode.json")
    old_plugin = plugin.read_text(encoding="utf-8", errors="replace") if plugin.exists() else None
    if old_plugin is not None and PLUGIN_MARK not in old_plugin:
        raise UsageError(f"{plugin} exists and was not written by memdir; move it away first — nothing was changed")
    entry = {"type": "local", "command": [*argv, "mcp"], "enabled": True, "timeout": 5000}
    raw = cfg_path.read_text(encoding="utf-8-sig") if cfg_path.exists() else None
    data: dict[str, Any] | None = None
    manual = False
    if raw is not None and raw.strip():
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            try:
                json.loads(_strip_jsonc(raw))
            except json.JSONDecodeError as exc:
                raise UsageError(f"cannot parse {cfg_path} ({exc.msg} at line {exc.lineno}); nothing was changed") from None
            manual = True
        if data is not None and not isinstance(data, dict):
            raise UsageError(f"{cfg_path} does not hold a JSON object; nothing was changed")
    if uninstall:
        if old_plugin is not None:
            if not plan.dry_run:
                plugin.unlink()
            plan.add(plugin, "removed")
        if manual:
            plan.add(cfg_path, "manual", detail="has comments: remove the \"memdir\" entry under \"mcp\" by hand")
        elif data is not None and isinstance(data.get("mcp"), dict) and "memdir" in data["mcp"]:
            del data["mcp"]["memdir"]
            if not data["mcp"]:
                del data["mcp"]
            _write_json(plan, cfg_path, data)
        return
    _write_text(plan, plugin, render_plugin(argv, legacy=legacy), old=old_plugin)
    if manual:
        plan.add(cfg_path, "manual", detail="has comments, so memdir did not rewrite it; add under \"mcp\": "
                 + json.dumps({"memdir": entry}, ensure_ascii=False))
        return
    data = data if data is not None else {"$schema": "https://opencode.ai/config.json"}
    mcp = data.setdefault("mcp", {})
    if not isinstance(mcp, dict):
        raise UsageError(f"{cfg_path}: \"mcp\" is not an object; fix it by hand — nothing was changed")
    mcp["memdir"] = entry
    _write_json(plan, cfg_path, data)


def install_host(host: str, *, project: Path | None = None, uninstall: bool = False, dry_run: bool = False,
                 argv: list[str] | None = None, legacy: bool = False) -> Plan:
    """Install (or with ``uninstall`` remove) memdir for ``host``; returns the :class:`Plan` of file changes.

    ``project``: the project root for ``--project`` (None = user scope). ``argv``: the memdir command to
    register (default :func:`memdir_argv`). ``legacy``: OpenCode v1-only plugin export. Raises ``UsageError``
    for an unknown host or a settings file it will not rewrite (nothing is written then).
    """
    argv = list(argv or memdir_argv())
    plan = Plan(dry_run=dry_run)
    if host == "claude-code":
        _claude(plan, project=project, uninstall=uninstall, argv=argv)
    elif host == "codex":
        _codex(plan, project=project, uninstall=uninstall, argv=argv)
    elif host == "opencode":
        _opencode(plan, project=project, uninstall=uninstall, argv=argv, legacy=legacy)
    else:
        raise UsageError(f"unknown host {host!r}: use one of {', '.join(HOST_NAMES)}")
    return plan


@click.command("install")
@click.argument("host", type=click.Choice(HOST_NAMES))
@click.option("--project", is_flag=True, help="Write the project's settings instead of the user's.")
@click.option("--uninstall", is_flag=True, help="Remove what install added.")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--command", "command", help="memdir command to register (default: this memdir's absolute path).")
@click.option("--legacy", is_flag=True, help="OpenCode: v1-only plugin export, for old OpenCode versions.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_context
def install(ctx, host, project, uninstall, dry_run, command, legacy, as_json):
    """Register memdir's hooks and MCP server with HOST (claude-code, codex, opencode)."""
    from .roots import project_root

    obj = ctx.find_root().obj or {}
    proj = project_root(obj.get("dir")) if project else None
    argv = shlex.split(command, posix=os.name != "nt") if command else None
    plan = install_host(host, project=proj, uninstall=uninstall, dry_run=dry_run, argv=argv, legacy=legacy)
    if as_json or obj.get("json"):
        click.echo(json.dumps({"host": host, "uninstall": uninstall, "dry_run": dry_run, "changes": plan.changes,
                               "notes": plan.notes}, ensure_ascii=False, indent=2))
        return
    verb = "would be" if dry_run else "was"
    for c in plan.changes:
        extra = f" (backup {c['backup']})" if c.get("backup") else ""
        detail = f": {c['detail']}" if c.get("detail") else ""
        action = f"would be {c['action']}" if dry_run else c["action"]
        click.echo(f"{action:<9} {c['file']}{extra}{detail}")
    for n in plan.notes:
        click.echo(f"note: {n}")
    if dry_run:
        click.echo("dry run: nothing was written (use --json to see each change)")
    import importlib.util

    if not uninstall and importlib.util.find_spec("mcp") is None:
        click.echo("warning: the MCP server needs the optional 'mcp' package, which is not installed: "
                   "pip install 'memdir[mcp]' (hooks work without it)", err=True)
    if not dry_run and not uninstall:
        click.echo(f"memdir {verb} installed for {host}; restart {host} to load it.")
    elif not dry_run:
        click.echo(f"memdir {verb} removed from {host}.")
