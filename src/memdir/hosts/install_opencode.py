"""``memdir install opencode``: the plugin file and the MCP entry in ``opencode.json`` (JSON with comments kept)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from memdir.errors import UsageError
from memdir.hosts.install import (Plan, kept_note, mcp_entry_ours, read_settings_text, remove_empty_dirs, write_json,
                                  write_text)
from memdir.hosts.install_home import plugin_home, warn_dropped
from memdir.roots import expand_user

# ---- OpenCode ------------------------------------------------------------------------------------------------
OPENCODE_SCHEMA = "https://opencode.ai/config.json"


def opencode_config_dir() -> Path:
    """``$XDG_CONFIG_HOME/opencode`` or ``~/.config/opencode``."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (expand_user(xdg) if xdg else Path.home() / ".config") / "opencode"


def strip_jsonc(text: str) -> str:
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


def install(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str], legacy: bool) -> None:
    from memdir.hosts.adapters.opencode import PLUGIN_MARK, render_plugin

    base = project / ".opencode" if project else opencode_config_dir()
    plugin = base / "plugins" / "memdir.js"
    cfg_dir = project if project else opencode_config_dir()
    cfg_path = next((p for p in (cfg_dir / "opencode.json", cfg_dir / "opencode.jsonc") if p.exists()), cfg_dir / "opencode.json")
    old_plugin = read_settings_text(plugin, "utf-8") if plugin.exists() else None
    if old_plugin is not None and PLUGIN_MARK not in old_plugin:
        raise UsageError(f"{plugin} exists and was not written by memdir; move it away first — nothing was changed")
    yours = opencode_config_dir() / "plugins" / "memdir.js"
    if project is not None and not uninstall and yours.exists():  # OpenCode loads your plugins and the project's
        plan.notes.append(f"{yours} is memdir's plugin too: OpenCode loads both, so each hook runs twice "
                          "(memdir answers once); keep one (memdir install opencode --uninstall removes yours)")
    entry = {"type": "local", "command": [*argv, "mcp"], "enabled": True, "timeout": 5000}
    raw = read_settings_text(cfg_path) if cfg_path.exists() else None
    data: dict[str, Any] | None = None
    manual = False
    if raw is not None and raw.strip():
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            try:
                json.loads(strip_jsonc(raw))
            except json.JSONDecodeError as exc:
                raise UsageError(f"cannot parse {cfg_path} ({exc.msg} at line {exc.lineno}); nothing was changed") from None
            manual = True
        if data is not None and not isinstance(data, dict):
            raise UsageError(f"{cfg_path} does not hold a JSON object; nothing was changed")
    mine = isinstance(data, dict) and isinstance(data.get("mcp"), dict) and "memdir" in data["mcp"] \
        and not mcp_entry_ours(data["mcp"]["memdir"], frozenset(entry), argv)  # a "memdir" server the person wrote
    if not uninstall and data is not None and "mcp" in data and not isinstance(data["mcp"], dict):
        raise UsageError(f"{cfg_path}: \"mcp\" is not an object; fix it by hand — nothing was changed")
    if uninstall:
        if old_plugin is not None:
            if not plan.dry_run:
                plugin.unlink()
            plan.add(plugin, "removed")
        if manual:
            loose = json.loads(strip_jsonc(raw))  # parsed above; said only when it holds memdir's entry
            if isinstance(loose, dict) and isinstance(loose.get("mcp"), dict) and "memdir" in loose["mcp"]:
                plan.add(cfg_path, "manual", detail="is JSONC (comments or trailing commas): remove the \"memdir\" "
                         "entry under \"mcp\" by hand")
        elif mine:
            kept_note(plan, cfg_path, 'the "memdir" MCP server')
        elif data is not None and isinstance(data.get("mcp"), dict) and "memdir" in data["mcp"]:
            del data["mcp"]["memdir"]
            if not data["mcp"]:
                del data["mcp"]
            write_json(plan, cfg_path, data, empty=({}, {"$schema": OPENCODE_SCHEMA}), remove_if_empty=True)
        remove_empty_dirs(plan, base / "plugins", base)  # the folders install made, when nothing else is left
        return
    warn_dropped(plan, "opencode", project is None and plugin_home(old_plugin), argv)
    write_text(plan, plugin, render_plugin(argv, legacy=legacy), old=old_plugin)
    if manual:
        plan.add(cfg_path, "manual", detail="is JSONC (comments or trailing commas), so memdir did not rewrite it; add under \"mcp\": "
                 + json.dumps({"memdir": entry}, ensure_ascii=False))
        return
    data = data if data is not None else {"$schema": OPENCODE_SCHEMA}
    mcp = data.setdefault("mcp", {})
    if mine:
        kept_note(plan, cfg_path, 'the "memdir" MCP server')
    else:
        mcp["memdir"] = entry
    write_json(plan, cfg_path, data)
