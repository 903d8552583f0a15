"""``memdir install claude-code | codex | opencode [--project] [--uninstall]``: register memdir's hooks and MCP
server in a host's settings, idempotently, with a timestamped backup of every file it changes.

Files (``~`` is ``$HOME``; formats in HOSTS.md):

============  ===========================================  ===============================================
host          user scope (default)                         ``--project``
============  ===========================================  ===============================================
claude-code   hooks ``~/.claude/settings.json``,           hooks ``<project>/.claude/settings.json``,
              MCP ``~/.claude.json`` (``mcpServers``)      MCP ``<project>/.mcp.json``
codex         hooks ``$CODEX_HOME/hooks.json``;            hooks ``<project>/.codex/hooks.json``, MCP
              ``$CODEX_HOME/config.toml``: hook trust      ``<project>/.codex/config.toml``; trust in
              (``[hooks.state."<key>"]``) + ``[mcp_servers.memdir]``  ``$CODEX_HOME/config.toml``
opencode      plugin ``$XDG_CONFIG_HOME/opencode/plugins/  plugin ``<project>/.opencode/plugins/memdir.js``,
              memdir.js``, MCP ``…/opencode/opencode.json`` MCP ``<project>/opencode.json``
============  ===========================================  ===============================================

Rules:

* Every settings file is edited through a parser (``json``; ``tomlkit`` for TOML, which keeps comments and
  layout) and only memdir's own keys are touched: our hook entries (recognised by their command,
  ``… hook <host> …``), ``mcpServers.memdir`` / ``mcp.memdir`` / ``[mcp_servers.memdir]`` and the Codex trust
  entries of our hooks. Installing twice changes nothing; entries of the user or other tools are never touched
  (a Codex trust entry of another tool's hook is re-keyed when removing ours shifts its position).
* Hooks run synchronously (never ``"async": true``: Claude Code abandons async hooks when ``-p`` exits and
  Codex never runs them), within memdir's own time budget (``hook.budget_ms``).
* Codex runs only hooks whose hash the user has trusted (its TUI asks once). ``memdir install codex`` is that
  consent: it records ``trusted_hash`` for each memdir hook under ``[hooks.state."<hooks.json path>:<event>:
  <group>:<handler>"]`` in ``$CODEX_HOME/config.toml``, computed as Codex does (SHA-256 of the canonical JSON
  of the hook's normalized identity), and ``--uninstall`` removes it. Project hooks also need the project to be
  trusted in Codex (``[projects."<path>"] trust_level = "trusted"``), which only the user grants (Codex asks
  on first run); ``memdir doctor`` says when it is missing. No ``[features]`` key is written: hooks are on by
  default in current Codex (``codex_hooks`` is deprecated); a ``[features].hooks = false`` is reported.
* User-scope installs register this memdir's absolute path; ``--project`` installs (files meant to be
  committed) register the bare command ``memdir``, found on each machine's PATH.
* A file that does not parse is never rewritten (one-line error). A JSONC ``opencode.json`` with comments is
  not rewritten either: the MCP snippet is printed to add by hand.
* ``--uninstall`` removes exactly what install adds, and deletes a file (and an emptied ``.claude``/``.codex``/
  ``.opencode`` project folder) when nothing else is left in it. Older memdir installs (a ``# >>> memdir``
  marker block in config.toml, ``codex_hooks``) are migrated: memdir's keys are removed, everything Codex or
  the user wrote inside the old block is kept.

Backups are ``<file>.memdir-backup-<UTC timestamp>`` beside the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from memdir.errors import UsageError

HOST_NAMES = ("claude-code", "codex", "opencode")
#: host event -> our event, for Claude Code and Codex (same hooks.json format)
HOOK_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt", "PostToolUse": "post-tool-use",
               "Stop": "stop"}
#: Codex's label of each event in its hook-state keys (codex-rs/hooks: hook_event_key_label)
CODEX_EVENT_LABELS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit",
                      "PostToolUse": "post_tool_use", "Stop": "stop", "PreToolUse": "pre_tool_use",
                      "PermissionRequest": "permission_request", "PreCompact": "pre_compact",
                      "PostCompact": "post_compact", "SubagentStart": "subagent_start", "SubagentStop": "subagent_stop"}
#: events whose matcher Codex keeps in the hook identity (the others drop it)
CODEX_MATCHER_EVENTS = {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SessionStart",
                        "SubagentStart", "SubagentStop"}
HOOK_TIMEOUT_S = 10
PROJECT_COMMAND = ["memdir"]
LEGACY_TOML_BEGIN = "# >>> memdir (written by `memdir install codex`; remove with --uninstall) >>>"
LEGACY_TOML_END = "# <<< memdir <<<"
LEGACY_TOML_LINE_MARK = "# memdir"


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


def _backup(plan: Plan, path: Path) -> Path | None:
    if plan.dry_run or not path.exists():
        return None
    backup = path.with_name(f"{path.name}.memdir-backup-{_stamp()}")
    shutil.copy2(path, backup)
    return backup


def _write_text(plan: Plan, path: Path, text: str, *, old: str | None) -> None:
    if old is not None and old == text:
        plan.add(path, "unchanged")
        return
    backup = None
    if not plan.dry_run:
        path.parent.mkdir(parents=True, exist_ok=True)
        if old is not None:
            backup = _backup(plan, path)
        tmp = path.with_name(f".{path.name}.memdir-tmp-{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    plan.add(path, "created" if old is None else "updated", **({"backup": str(backup)} if backup else {}))


def _remove_file(plan: Plan, path: Path) -> None:
    """Delete ``path``, which an uninstall left with nothing but memdir's entries removed (so no backup)."""
    if not plan.dry_run:
        path.unlink()
    plan.add(path, "removed")


def _write_json(plan: Plan, path: Path, data: dict[str, Any], *, empty: tuple[dict[str, Any], ...] = ({},),
                remove_if_empty: bool = False) -> None:
    """Write ``data`` to ``path`` (``unchanged`` when equal to what is there). With ``remove_if_empty`` a ``data``
    equal to one of ``empty`` deletes the file instead (an uninstall leaving nothing of the user's)."""
    old = path.read_text(encoding="utf-8-sig") if path.exists() else None
    if remove_if_empty and data in empty:
        if old is not None:
            _remove_file(plan, path)
        return
    new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if old is not None:
        try:
            if json.loads(old) == data:
                plan.add(path, "unchanged")
                return
        except json.JSONDecodeError:
            pass
    _write_text(plan, path, new, old=old)


def _remove_empty_dirs(plan: Plan, *dirs: Path) -> None:
    for d in dirs:
        try:
            if d.is_dir() and not any(d.iterdir()):
                if not plan.dry_run:
                    d.rmdir()
                plan.add(d, "removed")
        except OSError:
            pass


def _is_ours(command: Any, host: str) -> bool:
    return isinstance(command, str) and f" hook {host} " in f" {command} " and "memdir" in command


def _handlers(settings: dict[str, Any]):
    """``(event, group_index, handler_index, group, handler)`` for every command handler of a Claude-style
    ``{"hooks": {Event: [{"matcher"?, "hooks": [handler]}]}}``."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return
    for ev, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for gi, g in enumerate(groups):
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                for hi, h in enumerate(g["hooks"]):
                    if isinstance(h, dict):
                        yield ev, gi, hi, g, h


def _strip_hooks(settings: dict[str, Any], host: str) -> bool:
    """Remove our hook entries for ``host`` from a Claude-style ``{"hooks": {Event: [groups]}}``; True if any.
    Other entries keep their dict objects (their identity is used to re-key Codex trust)."""
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
                    g["hooks"] = kept
            kept_groups.append(g)
        if kept_groups:
            hooks[ev] = kept_groups
        else:
            del hooks[ev]
    if not hooks:
        settings.pop("hooks", None)
    return changed


def _set_hooks(settings: dict[str, Any], host: str, argv: list[str]) -> None:
    """Make our hook entries exactly one synchronous entry per event, in place when one exists (so the other
    entries keep their positions), appended otherwise."""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError("the settings' \"hooks\" value is not an object; fix it by hand — nothing was changed")
    for host_event, ours in HOOK_EVENTS.items():
        entry = {"type": "command", "command": _join([*argv, "hook", host, ours]), "timeout": HOOK_TIMEOUT_S}
        groups = hooks.setdefault(host_event, [])
        if not isinstance(groups, list):
            raise UsageError(f"the settings' hooks.{host_event} is not a list; fix it by hand — nothing was changed")
        placed = False
        for g in list(groups):
            if not (isinstance(g, dict) and isinstance(g.get("hooks"), list)):
                continue
            for i, h in enumerate(list(g["hooks"])):
                if isinstance(h, dict) and _is_ours(h.get("command"), host):
                    if not placed and "matcher" not in g:
                        g["hooks"][i] = entry
                        placed = True
                    else:
                        g["hooks"].remove(h)
            if not g["hooks"]:
                groups.remove(g)
        if not placed:
            groups.append({"hooks": [entry]})


# ---- Claude Code ---------------------------------------------------------------------------------------------
def _claude(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str]) -> None:
    home = Path.home()
    settings_path = (project / ".claude" / "settings.json") if project else home / ".claude" / "settings.json"
    mcp_path = (project / ".mcp.json") if project else home / ".claude.json"
    settings = _read_json(settings_path) or {}
    mcp = _read_json(mcp_path)
    if uninstall:
        _strip_hooks(settings, "claude-code")
    else:
        _set_hooks(settings, "claude-code", argv)
    if settings or settings_path.exists():
        _write_json(plan, settings_path, settings, remove_if_empty=uninstall)
    servers = (mcp or {}).get("mcpServers")
    if uninstall:
        if mcp is not None and isinstance(servers, dict) and "memdir" in servers:
            del servers["memdir"]
            # an empty "mcpServers" stays: memdir cannot tell whether install added it or the user had it, and the
            # user's settings must come back exactly as they were (tests/e2e: config_preserved); a project's
            # .mcp.json left as {"mcpServers": {}} was made by install and goes
            _write_json(plan, mcp_path, mcp, empty=({}, {"mcpServers": {}}), remove_if_empty=project is not None)
        if project is not None:
            _remove_empty_dirs(plan, project / ".claude")
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


def codex_hook_hash(event: str, group: dict[str, Any], handler: dict[str, Any]) -> str:
    """The hash Codex records as ``trusted_hash`` for one command ``handler`` of ``group`` under ``event``
    (``SessionStart``…): ``"sha256:" + hex(SHA-256(canonical JSON))`` of the normalized identity
    ``{"event_name": <label>, "matcher"?: …, "hooks": [{"type": "command", "command", "timeout" (s, default 600),
    "async", "statusMessage"?}]}`` with sorted keys and no spaces (codex-rs/hooks discovery, Codex 0.171)."""
    h: dict[str, Any] = {"type": "command", "command": handler.get("command", ""),
                         "timeout": max(1, int(handler.get("timeout") or handler.get("timeout_sec") or 600)),
                         "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        h["statusMessage"] = handler["statusMessage"]
    ident: dict[str, Any] = {"event_name": CODEX_EVENT_LABELS.get(event, event), "hooks": [h]}
    if event in CODEX_MATCHER_EVENTS and group.get("matcher") is not None:
        ident["matcher"] = group["matcher"]
    data = json.dumps(ident, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def codex_hook_keys(hooks_path: Path, settings: dict[str, Any]) -> dict[int, tuple[str, str, dict, dict]]:
    """``id(handler) -> (state key, event, group, handler)`` for every command handler of a hooks.json, keyed as
    Codex keys its hook state: ``<absolute hooks.json path>:<event label>:<group index>:<handler index>``."""
    src = os.path.abspath(hooks_path)
    out = {}
    for ev, gi, hi, g, h in _handlers(settings):
        if ev in CODEX_EVENT_LABELS and h.get("type", "command") == "command":
            out[id(h)] = (f"{src}:{CODEX_EVENT_LABELS[ev]}:{gi}:{hi}", ev, g, h)
    return out


def _toml_load(path: Path, text: str):
    import tomlkit
    import tomllib

    try:
        tomllib.loads(text)  # its messages say where (tomlkit's point at line 1 col 0 for an unclosed array)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"cannot parse {path} ({exc}); fix it first — nothing was changed") from None
    try:
        return tomlkit.parse(text)
    except Exception as exc:  # noqa: BLE001 - tomlkit raises several ParseError subclasses
        raise UsageError(f"cannot parse {path} ({exc}); fix it first — nothing was changed") from None


def _toml_drop_legacy(doc, text: str) -> bool:
    """Remove what an older memdir wrote inside its ``# >>> memdir`` marker block (``[features] codex_hooks``);
    everything else in or around the block stays. True when a legacy install was found."""
    legacy = LEGACY_TOML_BEGIN in text or any(l.strip().startswith("codex_hooks") and l.strip().endswith(LEGACY_TOML_LINE_MARK)
                                               for l in text.splitlines())
    if not legacy:
        return False
    feats = doc.get("features")
    if feats is not None and feats.get("codex_hooks") is True:
        del feats["codex_hooks"]
        if not feats:
            del doc["features"]
    return True


def _toml_dump(doc, legacy: bool) -> str:
    import tomlkit

    text = tomlkit.dumps(doc)
    if legacy:
        marks = (LEGACY_TOML_BEGIN, LEGACY_TOML_END)
        text = "".join(l for l in text.splitlines(keepends=True) if l.strip() not in marks)
    text = text.strip("\n")
    return text + "\n" if text else ""


def _super_table(parent, key: str, path: Path):
    import tomlkit

    t = parent.get(key)
    if t is None:
        t = tomlkit.table(is_super_table=True)
        parent[key] = t
    elif not isinstance(t, dict):
        raise UsageError(f"{path}: `{key}` is not a table; fix it by hand — nothing was changed")
    return t


def _codex_config(plan: Plan, path: Path, *, argv: list[str] | None, trust: dict[str, str], untrust: dict[str, str],
                  uninstall: bool, remove_if_empty: bool = False) -> None:
    """Edit a Codex ``config.toml``: ``[mcp_servers.memdir]`` set (``argv``) or removed (``uninstall``), the trust
    entries ``trust`` (key → hash) added and ``untrust`` (old key → new key or "" to drop) moved or removed.
    ``remove_if_empty``: delete the file when nothing is left in it."""
    import tomlkit

    old = path.read_text(encoding="utf-8") if path.exists() else None
    doc = _toml_load(path, old or "")
    legacy = _toml_drop_legacy(doc, old or "")
    if argv is not None or uninstall:
        servers = doc.get("mcp_servers")
        if uninstall:
            if servers is not None and "memdir" in servers:
                del servers["memdir"]
                if not servers:
                    del doc["mcp_servers"]
        else:
            servers = _super_table(doc, "mcp_servers", path)
            entry = servers.get("memdir")
            if entry is None:
                entry = tomlkit.table()
                entry["command"] = argv[0]
                entry["args"] = [*argv[1:], "mcp"]
                entry["startup_timeout_sec"] = 20
                servers["memdir"] = entry
            elif entry.get("command") != argv[0] or list(entry.get("args") or []) != [*argv[1:], "mcp"]:
                plan.notes.append(f"{path}: [mcp_servers.memdir] already exists and was kept as it is")
    hooks = doc.get("hooks")
    state = hooks.get("state") if hooks is not None else None
    if state is not None and untrust:
        moved = {new_k: state[k] for k, new_k in untrust.items() if k in state and new_k}
        for k in untrust:
            if k in state:
                del state[k]
        for new_k, val in moved.items():
            state[new_k] = val
    if trust:
        state = _super_table(_super_table(doc, "hooks", path), "state", path)
        for k, h in trust.items():
            cur = state.get(k)
            if cur is None:
                t = tomlkit.table()
                t["trusted_hash"] = h
                state[k] = t
            elif cur.get("trusted_hash") != h:
                cur["trusted_hash"] = h
    hooks = doc.get("hooks")
    if hooks is not None and "state" in hooks and not hooks["state"]:
        del hooks["state"]
    if hooks is not None and not hooks:
        del doc["hooks"]
    feats = doc.get("features")
    if not uninstall and feats is not None and feats.get("hooks") is False:
        plan.notes.append(f"{path}: [features] hooks = false turns every Codex hook off; memdir left it alone, "
                          "so only its MCP tools will work")
    if not uninstall and feats is not None and "codex_hooks" in feats:
        plan.notes.append(f"{path}: [features] codex_hooks is deprecated in current Codex (hooks are on by default); "
                          "remove it by hand to silence Codex's warning")
    text = _toml_dump(doc, legacy)
    if old is None and not text:
        return
    if (uninstall or remove_if_empty) and not text.strip():
        _remove_file(plan, path)
        return
    try:
        import tomllib

        tomllib.loads(text)
    except Exception as exc:  # pragma: no cover - guarded by construction
        raise UsageError(f"editing {path} would produce invalid TOML ({exc}); nothing was changed") from None
    _write_text(plan, path, text, old=old)


def _codex(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str]) -> None:
    ch = codex_home()
    hooks_path = (project / ".codex" / "hooks.json") if project else ch / "hooks.json"
    config_path = ch / "config.toml"
    hooks = _read_json(hooks_path) or {}
    before = codex_hook_keys(hooks_path, hooks)
    if uninstall:
        _strip_hooks(hooks, "codex")
    else:
        _set_hooks(hooks, "codex", argv)
    after = codex_hook_keys(hooks_path, hooks)
    # trust: ours (re)recorded at their positions; keys of removed or moved handlers dropped or re-keyed
    trust = {k: codex_hook_hash(ev, g, h) for k, ev, g, h in after.values() if _is_ours(h.get("command"), "codex")}
    untrust: dict[str, str] = {}
    for hid, (k, _ev, _g, h) in before.items():
        new = after.get(hid)
        if new is None:
            untrust[k] = ""
        elif new[0] != k and not _is_ours(h.get("command"), "codex"):
            untrust[k] = new[0]
    untrust = {k: v for k, v in untrust.items() if k not in trust or v}
    if hooks or hooks_path.exists():
        _write_json(plan, hooks_path, hooks, remove_if_empty=uninstall)
    # trust always lives in the user's config.toml (Codex reads hook state from the user layer only)
    _codex_config(plan, config_path, argv=None if project else argv, trust=trust, untrust=untrust,
                  uninstall=uninstall and project is None, remove_if_empty=uninstall)
    if project is not None:  # the MCP server in the project's own config.toml (loaded for trusted projects)
        _codex_config(plan, project / ".codex" / "config.toml", argv=argv, trust={}, untrust={}, uninstall=uninstall)
    if uninstall and project is not None:
        _remove_empty_dirs(plan, project / ".codex")
    if not uninstall and project is not None:
        plan.notes.append(f"Codex loads {hooks_path} only in a trusted project: trust {project} when Codex asks "
                          "(or see `memdir doctor`)")


# ---- OpenCode ------------------------------------------------------------------------------------------------
OPENCODE_SCHEMA = "https://opencode.ai/config.json"


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
    from memdir.hosts.adapters.opencode import PLUGIN_MARK, render_plugin

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
            _write_json(plan, cfg_path, data, empty=({}, {"$schema": OPENCODE_SCHEMA}), remove_if_empty=True)
        if project is not None:
            _remove_empty_dirs(plan, base / "plugins", base)
        return
    _write_text(plan, plugin, render_plugin(argv, legacy=legacy), old=old_plugin)
    if manual:
        plan.add(cfg_path, "manual", detail="has comments, so memdir did not rewrite it; add under \"mcp\": "
                 + json.dumps({"memdir": entry}, ensure_ascii=False))
        return
    data = data if data is not None else {"$schema": OPENCODE_SCHEMA}
    mcp = data.setdefault("mcp", {})
    if not isinstance(mcp, dict):
        raise UsageError(f"{cfg_path}: \"mcp\" is not an object; fix it by hand — nothing was changed")
    mcp["memdir"] = entry
    _write_json(plan, cfg_path, data)


# ---- doctor: memdir hooks a host will not run -------------------------------------------------------------
def _runnable(command: str) -> bool:
    try:
        exe = shlex.split(command, posix=os.name != "nt")[0]
    except (ValueError, IndexError):
        return False
    return Path(exe).is_file() if os.path.isabs(exe) else shutil.which(exe) is not None


def host_checks(project: Path | None = None) -> list[dict[str, str]]:
    """Checks of memdir's host registrations, in :meth:`memdir.Memdir.doctor`'s shape (``{"check", "ok",
    "detail", "remedy"}``): every memdir hook a host will not run (``"async"`` hooks, which headless Claude Code
    abandons and Codex never runs; Codex hooks without a matching ``trusted_hash``, hooks turned off by
    ``[features].hooks = false``, project hooks of an untrusted project; a command not found), plus Codex's
    deprecated ``codex_hooks`` flag. Hosts where memdir is not installed are not reported."""
    checks: list[dict[str, str]] = []

    def add(check, ok, detail, remedy=""):
        checks.append({"check": check, "ok": ok, "detail": detail, "remedy": remedy})

    def ours(path: Path, host: str):
        try:
            data = _read_json(path) or {}
        except UsageError as exc:
            add(f"{host} hooks", "fail", str(exc), "fix the file by hand")
            return None, []
        return data, [(ev, g, h) for ev, _gi, _hi, g, h in _handlers(data) if _is_ours(h.get("command"), host)]

    scopes = [("user", None), *([("project", project)] if project is not None else [])]
    for scope, proj in scopes:
        path = (proj / ".claude" / "settings.json") if proj else Path.home() / ".claude" / "settings.json"
        _data, found = ours(path, "claude-code")
        n_before = len(checks)
        for ev, _g, h in found:
            if h.get("async"):
                add(f"claude-code {scope} {ev}", "warn", f"{path}: memdir's {ev} hook is \"async\": `claude -p` exits "
                    "before it finishes, so nothing is captured", "run `memdir install claude-code"
                    + (" --project" if proj else "") + "` again (hooks are synchronous now)")
            elif not _runnable(h.get("command", "")):
                add(f"claude-code {scope} {ev}", "fail", f"{path}: {h.get('command')!r} is not found", "install memdir "
                    "where the host finds it, or run `memdir install` again")
        if found and len(checks) == n_before:
            add(f"claude-code {scope}", "ok", f"{len(found)} memdir hooks in {path}")
    ch = codex_home()
    cfg_path = ch / "config.toml"
    try:
        import tomllib

        cfg = tomllib.loads(cfg_path.read_text(encoding="utf-8")) if cfg_path.exists() else {}
    except (OSError, ValueError) as exc:
        cfg = {}
        add("codex config", "fail", f"{cfg_path}: {exc}", "fix the file by hand")
    state = ((cfg.get("hooks") or {}).get("state") or {}) if isinstance(cfg.get("hooks"), dict) else {}
    feats = cfg.get("features") if isinstance(cfg.get("features"), dict) else {}
    any_codex = False
    for scope, proj in scopes:
        path = (proj / ".codex" / "hooks.json") if proj else ch / "hooks.json"
        data, found = ours(path, "codex")
        if not found:
            continue
        any_codex = True
        keys = codex_hook_keys(path, data or {})
        bad = 0
        for _hid, (key, ev, g, h) in keys.items():
            if not _is_ours(h.get("command"), "codex"):
                continue
            trusted = (state.get(key) or {}).get("trusted_hash") if isinstance(state.get(key), dict) else None
            problem = ("is \"async\" (Codex never runs async hooks)" if h.get("async") else
                       "is not trusted (Codex skips it silently)" if trusted is None else
                       "changed since it was trusted (Codex skips it)" if trusted != codex_hook_hash(ev, g, h) else
                       "runs a command that is not found" if not _runnable(h.get("command", "")) else "")
            if problem:
                bad += 1
                add(f"codex {scope} {ev}", "fail", f"{path}: memdir's {ev} hook {problem}",
                    "run `memdir install codex" + (" --project" if proj else "") + "` again")
        if feats.get("hooks") is False:
            bad += 1
            add(f"codex {scope}", "fail", f"{cfg_path}: [features] hooks = false: Codex runs no hooks",
                "remove that line (hooks are on by default)")
        if proj is not None:
            trust = ((cfg.get("projects") or {}).get(str(proj)) or {}).get("trust_level")
            if trust != "trusted":
                bad += 1
                add(f"codex {scope}", "warn", f"{proj} is not a trusted Codex project: Codex ignores {path}",
                    "run codex in the project once and trust it (memdir does not grant that for you)")
        if not bad:
            add(f"codex {scope}", "ok", f"{len([k for k in keys.values() if _is_ours(k[3].get('command'), 'codex')])} "
                f"memdir hooks in {path}, trusted in {cfg_path}")
    if any_codex and "codex_hooks" in feats:
        add("codex features", "warn", f"{cfg_path}: [features] codex_hooks is deprecated; Codex warns on every run",
            "delete that line (hooks are on by default)")
    for scope, proj in scopes:
        plugin = (proj / ".opencode" if proj else opencode_config_dir()) / "plugins" / "memdir.js"
        if not plugin.exists():
            continue
        text = plugin.read_text(encoding="utf-8", errors="replace")
        m = re.search(r"^const MEMDIR = (\[.*\]);$", text, re.M)
        argv = json.loads(m.group(1)) if m else []
        if not argv or not _runnable(_join(argv)):
            add(f"opencode {scope}", "fail", f"{plugin}: the memdir command {argv!r} is not found",
                "run `memdir install opencode" + (" --project" if proj else "") + "` again")
        elif "message.part.updated" not in text:
            add(f"opencode {scope}", "warn", f"{plugin} is from an older memdir (no reply capture, self-recall)",
                "run `memdir install opencode" + (" --project" if proj else "") + "` again")
        else:
            add(f"opencode {scope}", "ok", f"plugin {plugin}")
    return checks


def install_host(host: str, *, project: Path | None = None, uninstall: bool = False, dry_run: bool = False,
                 argv: list[str] | None = None, legacy: bool = False) -> Plan:
    """Install (or with ``uninstall`` remove) memdir for ``host``; returns the :class:`Plan` of file changes.

    ``project``: the project root for ``--project`` (None = user scope). ``argv``: the memdir command to
    register (default: :func:`memdir_argv` for user scope, the bare ``memdir`` found on PATH for a project). ``legacy``: OpenCode v1-only plugin export. Raises ``UsageError``
    for an unknown host or a settings file it will not rewrite (nothing is written then).
    """
    argv = list(argv or (PROJECT_COMMAND if project is not None else memdir_argv()))
    plan = Plan(dry_run=dry_run)
    if project is not None and not uninstall and argv == PROJECT_COMMAND and shutil.which("memdir") is None:
        plan.notes.append("the project's settings run `memdir` from PATH, and it is not on this PATH yet: "
                          "install memdir where the host finds it (pipx install memdir, or activate its venv)")
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
@click.option("--command", "command", help="memdir command to register (default: this memdir's absolute path; "
              "`memdir` from PATH with --project).")
@click.option("--legacy", is_flag=True, help="OpenCode: v1-only plugin export, for old OpenCode versions.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_context
def install(ctx, host, project, uninstall, dry_run, command, legacy, as_json):
    """Register memdir's hooks and MCP server with HOST (claude-code, codex, opencode)."""
    from memdir.roots import project_root

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
