"""``memdir install codex``: the hooks in ``hooks.json``, their trust hashes and ``[mcp_servers.memdir]`` in
``config.toml`` (``$CODEX_HOME``, or the project's ``.codex/``), kept in the user's own TOML formatting."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memdir.errors import UsageError
from memdir.hosts.install import (
    kept_note,
    Plan,
    handlers,
    is_ours,
    mcp_entry_ours,
    read_json,
    read_settings_text,
    remove_empty_dirs,
    users_own_text,
    remove_file,
    twice_note,
    set_hooks,
    strip_hooks,
    write_json,
    write_text,
)
from memdir.hosts.install_home import hook_home, warn_dropped
from memdir.roots import expand_user

#: Codex's label of each event in its hook-state keys (codex-rs/hooks: hook_event_key_label)
CODEX_EVENT_LABELS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit",
                      "PostToolUse": "post_tool_use", "Stop": "stop", "PreToolUse": "pre_tool_use",
                      "PermissionRequest": "permission_request", "PreCompact": "pre_compact",
                      "PostCompact": "post_compact", "SubagentStart": "subagent_start", "SubagentStop": "subagent_stop"}


#: events whose matcher Codex keeps in the hook identity (the others drop it)
CODEX_MATCHER_EVENTS = {"PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SessionStart",
                        "SubagentStart", "SubagentStop"}


#: the keys of the [mcp_servers.memdir] table memdir writes
CODEX_ENTRY = frozenset({"command", "args", "startup_timeout_sec"})


LEGACY_TOML_BEGIN = "# >>> memdir (written by `memdir install codex`; remove with --uninstall) >>>"


LEGACY_TOML_END = "# <<< memdir <<<"


LEGACY_TOML_LINE_MARK = "# memdir"


# ---- Codex ---------------------------------------------------------------------------------------------------
def codex_home() -> Path:
    """``$CODEX_HOME`` or ``~/.codex``."""
    env = os.environ.get("CODEX_HOME")
    return expand_user(env) if env else Path.home() / ".codex"


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
    for ev, gi, hi, g, h in handlers(settings):
        if ev in CODEX_EVENT_LABELS and h.get("type", "command") == "command":
            out[id(h)] = (f"{src}:{CODEX_EVENT_LABELS[ev]}:{gi}:{hi}", ev, g, h)
    return out


def read_config_text(path: Path) -> str:
    """A config.toml's text; ``UsageError`` (one line) when it is not UTF-8 text or cannot be read."""
    try:
        return read_settings_text(path)  # a byte-order mark (Notepad) is not part of the TOML
    except OSError as exc:
        raise UsageError(f"cannot read {path} ({exc}); fix it first — nothing was changed") from None


def toml_load(path: Path, text: str):
    import tomllib

    import tomlkit

    try:
        tomllib.loads(text)  # its messages say where (tomlkit's point at line 1 col 0 for an unclosed array)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"cannot parse {path} ({exc}); fix it first — nothing was changed") from None
    try:
        return tomlkit.parse(text)
    except Exception as exc:  # noqa: BLE001 - tomlkit raises several ParseError subclasses
        raise UsageError(f"cannot parse {path} ({exc}); fix it first — nothing was changed") from None


def toml_drop_legacy(doc, text: str) -> bool:
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


def toml_dump(doc, legacy: bool) -> str:
    import tomlkit

    text = tomlkit.dumps(doc)
    if legacy:
        marks = (LEGACY_TOML_BEGIN, LEGACY_TOML_END)
        text = "".join(l for l in text.splitlines(keepends=True) if l.strip() not in marks)
    text = text.strip("\n")
    return text + "\n" if text else ""


def super_table(parent, key: str, path: Path, *, within: str = ""):
    """The table ``key`` of ``parent`` (made when missing); ``within``: the dotted name of ``parent``, for messages.
    Raises ``UsageError`` when it is not a table or is an inline one."""
    import tomlkit

    name = f"{within}.{key}" if within else key

    t = parent.get(key)
    if t is None:
        t = tomlkit.table(is_super_table=True)
        try:
            parent[key] = t
        except ValueError:  # the parent is an inline table (`hooks = { … }`): no table can go inside it
            raise UsageError(f"{path}: an inline table holds `{name}`; write it as [table] sections, or add memdir's "
                             "entries by hand — nothing was changed") from None
    elif not isinstance(t, dict):
        raise UsageError(f"{path}: `{name}` is not a table; fix it by hand — nothing was changed")
    elif isinstance(t, tomlkit.items.InlineTable):
        raise UsageError(f"{path}: `{name}` is an inline table; write it as [{name}] sections, or add memdir's entries "
                         "by hand — nothing was changed")
    return t


def codex_config(plan: Plan, path: Path, *, argv: list[str] | None, trust: dict[str, str], untrust: dict[str, str],
                  uninstall: bool, remove_if_empty: bool = False) -> None:
    """Edit a Codex ``config.toml``: ``[mcp_servers.memdir]`` set (``argv``) or removed (``uninstall``), the trust
    entries ``trust`` (key → hash) added and ``untrust`` (old key → new key or "" to drop) moved or removed.
    ``remove_if_empty``: delete the file when nothing is left in it."""
    import tomlkit

    old = read_config_text(path) if path.exists() else None
    doc = toml_load(path, old or "")
    legacy = toml_drop_legacy(doc, old or "")
    add_entry = None
    if argv is not None or uninstall:
        servers = doc.get("mcp_servers")
        entry = servers.get("memdir") if isinstance(servers, Mapping) else None

        def ours(e) -> bool:  # what install writes; an older memdir's marker block held it without the timeout
            return mcp_entry_ours(e, CODEX_ENTRY, argv) or (legacy and mcp_entry_ours(e, frozenset({"command", "args"})))
        if uninstall:
            if entry is not None and ours(entry):
                del servers["memdir"]
                if not servers:
                    del doc["mcp_servers"]
            elif entry is not None:
                kept_note(plan, path, "[mcp_servers.memdir]")
        else:
            servers = super_table(doc, "mcp_servers", path)
            if entry is None:
                entry = tomlkit.table()
                entry["command"] = argv[0]
                entry["args"] = [*argv[1:], "mcp"]
                entry["startup_timeout_sec"] = 20
                add_entry = entry
                try:
                    servers["memdir"] = entry
                except ValueError:  # `mcp_servers = { … }`, an inline table: a table cannot go inside it
                    raise UsageError(f"{path}: `mcp_servers` is an inline table; write it as [mcp_servers.<name>] "
                                     "tables, or add [mcp_servers.memdir] by hand — nothing was changed") from None
            elif ours(entry):  # memdir's own, maybe from another install (another venv, --home): this one's
                for key, value in (("command", argv[0]), ("args", [*argv[1:], "mcp"]),
                                   ("startup_timeout_sec", entry.get("startup_timeout_sec", 20))):
                    if entry.get(key) != value:
                        entry[key] = value
            elif entry.get("command") != argv[0] or list(entry.get("args") or []) != [*argv[1:], "mcp"]:
                kept_note(plan, path, "[mcp_servers.memdir]")
    hooks = doc.get("hooks")
    if hooks is not None and not isinstance(hooks, Mapping):  # `hooks = 1`: not ours to rewrite
        raise UsageError(f"{path}: `hooks` is not a table; fix it by hand — nothing was changed")
    state = hooks.get("state") if hooks is not None else None
    if state is not None and not isinstance(state, Mapping):
        raise UsageError(f"{path}: `hooks.state` is not a table; fix it by hand — nothing was changed")
    if state is not None and untrust:
        moved = {new_k: state[k] for k, new_k in untrust.items() if k in state and new_k}
        for k in untrust:
            if k not in state:
                continue
            cur = state[k]
            if not untrust[k] and isinstance(cur, Mapping) and set(cur) - {"trusted_hash"}:
                # a line the user added below memdir's table is in that table (TOML has no end of a table): only
                # memdir's key goes, theirs stays where they wrote it
                if "trusted_hash" in cur:
                    del cur["trusted_hash"]
                plan.notes.append(f"{path}: {', '.join(sorted(cur))} below [hooks.state.\"{k}\"] belongs to that table "
                                  "(a TOML table runs to the next header); kept — move it above the first table if "
                                  "it is meant as a top-level setting")
                continue
            del state[k]
        for new_k, val in moved.items():
            state[new_k] = val
    if trust:
        state = super_table(super_table(doc, "hooks", path), "state", path, within="hooks")
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
    text = toml_dump(doc, legacy)
    if old is None and not text:
        return
    if (uninstall or remove_if_empty) and not text.strip():  # a link stays (a target install made goes)
        own = users_own_text(path, plan.project, lambda t: False)  # an empty config.toml the user had stays
        if own is None:
            remove_file(plan, path)
        else:
            write_text(plan, path, own, old=old)
        return
    if not same_settings(old or "", text) and add_entry is not None:
        # placed after a dotted `mcp_servers.x = …` line, the new table took the top-level keys below it: the table
        # goes at the end of the file instead (a [mcp_servers.memdir] header is valid there)
        del doc["mcp_servers"]["memdir"]
        if not doc["mcp_servers"]:
            del doc["mcp_servers"]
        text = toml_dump(doc, legacy) + "\n[mcp_servers.memdir]\n" + tomlkit.dumps(add_entry)
    if not same_settings(old or "", text):
        raise UsageError(f"editing {path} would change settings other than memdir's; add [mcp_servers.memdir] by "
                         "hand — nothing was changed")
    write_text(plan, path, text, old=old)


#: what memdir may change in a Codex config.toml; every other setting must read the same after an edit
OURS = (("mcp_servers", "memdir"), ("hooks", "state"), ("features", "codex_hooks"))


def same_settings(before: str, after: str) -> bool:
    """True when the TOML texts ``before`` and ``after`` hold the same settings apart from memdir's own
    (:data:`OURS`, and a table left empty by their removal); False when ``after`` does not parse."""
    import tomllib

    def others(text: str) -> dict[str, Any]:
        d = tomllib.loads(text)
        for top, key in OURS:
            if isinstance(d.get(top), dict):
                d[top].pop(key, None)
                if not d[top]:
                    del d[top]
        return d

    try:
        return others(before) == others(after)
    except tomllib.TOMLDecodeError:
        return False


def install(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str], legacy: bool = False) -> None:
    ch = codex_home()
    hooks_path = (project / ".codex" / "hooks.json") if project else ch / "hooks.json"
    config_path = ch / "config.toml"
    hooks = read_json(hooks_path) or {}
    before = codex_hook_keys(hooks_path, hooks)
    if uninstall:
        strip_hooks(hooks, "codex")
    else:
        warn_dropped(plan, "codex", project is None and hook_home(hooks, "codex"), argv)
        set_hooks(hooks, "codex", argv)
        if project is not None:  # your own install too: Codex would run both
            twice_note(plan, ch / "hooks.json", "codex", "user")
    after = codex_hook_keys(hooks_path, hooks)
    # trust: ours (re)recorded at their positions; keys of removed or moved handlers dropped or re-keyed
    trust = {k: codex_hook_hash(ev, g, h) for k, ev, g, h in after.values() if is_ours(h.get("command"), "codex")}
    untrust: dict[str, str] = {}
    for hid, (k, _ev, _g, h) in before.items():
        new = after.get(hid)
        if new is None:
            untrust[k] = ""
        elif new[0] != k and not is_ours(h.get("command"), "codex"):
            untrust[k] = new[0]
    untrust = {k: v for k, v in untrust.items() if k not in trust or v}

    def configs(p: Plan) -> None:
        # trust always lives in the user's config.toml (Codex reads hook state from the user layer only)
        codex_config(p, config_path, argv=None if project else argv, trust=trust, untrust=untrust,
                     uninstall=uninstall and project is None, remove_if_empty=uninstall)
        if project is not None:  # the MCP server in the project's own config.toml (loaded for trusted projects)
            codex_config(p, project / ".codex" / "config.toml", argv=argv, trust={}, untrust={}, uninstall=uninstall)

    # every config.toml edit is made once without writing first: one memdir cannot make (a file that does not
    # parse, a `mcp_servers` or `hooks` that is not a table) is refused before hooks.json is written
    configs(Plan(dry_run=True, project=plan.project))
    if hooks or hooks_path.exists():
        write_json(plan, hooks_path, hooks, remove_if_empty=uninstall)
    configs(plan)
    if uninstall:  # the folders install made (a project's trust went into ~/.codex too), when nothing else is left
        remove_empty_dirs(plan, *((project / ".codex", ch) if project is not None else (ch,)))
    if not uninstall and project is not None:
        plan.notes.append(f"Codex loads {hooks_path} only in a trusted project: trust {project} when Codex asks "
                          "(or see `memdir doctor`)")
