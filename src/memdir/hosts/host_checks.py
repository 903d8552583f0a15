"""``memdir doctor``'s host checks: every memdir hook a host will not run (async, untrusted or changed for Codex, hooks
turned off, an untrusted Codex project, a command not found)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

from memdir.errors import UsageError, install_hint
from memdir.fileio import open_regular
from memdir.hosts.install import handlers, is_ours, join_argv, memdir_argv, read_json
from memdir.hosts.install_codex import codex_home, codex_hook_hash, codex_hook_keys
from memdir.hosts.install_opencode import opencode_config_dir


# ---- doctor: memdir hooks a host will not run -------------------------------------------------------------
def not_found_fix(host: str, project: Path | None) -> str:
    """What to do when ``host``'s registered memdir command is not found: a project's settings name the bare
    ``memdir`` (a checkout shared by people whose memdir lives in different places), so installing again changes
    nothing there; the user's settings name this memdir's absolute path, so installing again fixes them."""
    if project is None:
        return f"run `memdir install {host}` again (it registers this memdir's absolute path)"
    return (f"put `memdir` on the PATH {host} runs with ({install_hint(tool='pipx')}, or start {host} from the activated "
            f"venv), or register this one: `memdir install {host} --project --command {join_argv(memdir_argv())}`")


def _text(path: Path, encoding: str, errors: str = "strict") -> str:
    """A host file's text; ``OSError`` for one that is not a regular file (a FIFO is never waited on)."""
    with open_regular(path, "r", encoding=encoding, errors=errors) as f:
        return f.read()


def runnable(command: str) -> bool:
    return not why_not_runnable(command)


def why_not_runnable(command: str) -> str:
    """Why a host cannot start ``command`` ("" when it can), ending a sentence that names it: ``is not found``, ``is
    not executable``, or, for a script whose ``#!`` interpreter is gone (the Python a venv was made from was removed
    or upgraded away, the venv moved), ``cannot start: its interpreter … is not found``."""
    try:
        exe = shlex.split(command, posix=os.name != "nt")[0]
    except (ValueError, IndexError):
        return "is not found"
    found = exe if os.path.isabs(exe) else shutil.which(exe)
    if not found or not Path(found).is_file():
        return "is not found"
    if os.name == "nt":
        return ""
    if not os.access(found, os.X_OK):
        return "is not executable (chmod +x it, or install memdir again)"
    try:
        with open(found, "rb") as f:
            first = f.readline(4096)
    except OSError:
        return ""
    words = first[2:].decode("utf-8", "replace").split() if first.startswith(b"#!") else []
    if words and os.path.isabs(words[0]) and not (Path(words[0]).is_file() and os.access(words[0], os.X_OK)):
        return (f"cannot start: its interpreter {words[0]} is not found (the Python its venv was made from was removed "
                "or moved)")
    return ""


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
            data = read_json(path) or {}
        except UsageError as exc:
            add(f"{host} hooks", "fail", str(exc), "fix the file by hand")
            return None, []
        return data, [(ev, g, h) for ev, _gi, _hi, g, h in handlers(data) if is_ours(h.get("command"), host)]

    scopes = [("user", None), *([("project", project)] if project is not None else [])]
    both: dict[str, list[str]] = {}  # host -> the scopes whose settings hold memdir hooks
    for scope, proj in scopes:
        path = (proj / ".claude" / "settings.json") if proj else Path.home() / ".claude" / "settings.json"
        _data, found = ours(path, "claude-code")
        if found:
            both.setdefault("claude-code", []).append(scope)
        n_before = len(checks)
        for ev, _g, h in found:
            if h.get("async"):
                add(f"claude-code {scope} {ev}", "warn", f"{path}: memdir's {ev} hook is \"async\": `claude -p` exits "
                    "before it finishes, so nothing is captured", "run `memdir install claude-code"
                    + (" --project" if proj else "") + "` again (hooks are synchronous now)")
            elif why := why_not_runnable(h.get("command", "")):
                add(f"claude-code {scope} {ev}", "fail", f"{path}: {h.get('command')!r} {why}",
                    not_found_fix("claude-code", proj))
        if found and len(checks) == n_before:
            add(f"claude-code {scope}", "ok", f"{len(found)} memdir hooks in {path}")
    ch = codex_home()
    cfg_path = ch / "config.toml"
    try:
        import tomllib

        cfg = tomllib.loads(_text(cfg_path, "utf-8-sig")) if cfg_path.exists() else {}
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
        both.setdefault("codex", []).append(scope)
        any_codex = True
        keys = codex_hook_keys(path, data or {})
        bad = 0
        for _hid, (key, ev, g, h) in keys.items():
            if not is_ours(h.get("command"), "codex"):
                continue
            trusted = (state.get(key) or {}).get("trusted_hash") if isinstance(state.get(key), dict) else None
            problem = ("is \"async\" (Codex never runs async hooks)" if h.get("async") else
                       "is not trusted (Codex skips it silently)" if trusted is None else
                       "changed since it was trusted (Codex skips it)" if trusted != codex_hook_hash(ev, g, h) else
                       f"runs a command that {why_not_runnable(h.get('command', ''))}"
                       if not runnable(h.get("command", "")) else "")
            if problem:
                bad += 1
                add(f"codex {scope} {ev}", "fail", f"{path}: memdir's {ev} hook {problem}",
                    not_found_fix("codex", proj) if problem.startswith("runs a command") else
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
            add(f"codex {scope}", "ok", f"{len([k for k in keys.values() if is_ours(k[3].get('command'), 'codex')])} "
                f"memdir hooks in {path}, trusted in {cfg_path}")
    for scope, proj in scopes:  # OpenCode loads the plugins of your config folder and of the project's alike
        if ((proj / ".opencode" if proj else opencode_config_dir()) / "plugins" / "memdir.js").exists():
            both.setdefault("opencode", []).append(scope)
    for host, where in both.items():
        if len(where) > 1:  # the host runs the hooks of both: every hook twice (one copy answers)
            add(f"{host} hooks", "warn", f"memdir's hooks are in both your {host} settings and this project's: "
                f"{host} runs both, so each hook runs twice (memdir answers once, the second process is wasted)",
                f"keep one: `memdir install {host} --uninstall` (yours) or `memdir install {host} --project --uninstall`")
    if any_codex and "codex_hooks" in feats:
        add("codex features", "warn", f"{cfg_path}: [features] codex_hooks is deprecated; Codex warns on every run",
            "delete that line (hooks are on by default)")
    for scope, proj in scopes:
        plugin = (proj / ".opencode" if proj else opencode_config_dir()) / "plugins" / "memdir.js"
        if not plugin.exists():
            continue
        try:
            text = _text(plugin, "utf-8", "replace")
        except OSError as exc:
            add(f"opencode {scope}", "fail", f"{plugin}: {exc.strerror or exc}", "remove it and run `memdir install "
                "opencode" + (" --project" if proj else "") + "` again")
            continue
        m = re.search(r"^const MEMDIR = (\[.*\]);$", text, re.M)
        argv = json.loads(m.group(1)) if m else []
        if not argv or not runnable(join_argv(argv)):
            add(f"opencode {scope}", "fail", f"{plugin}: the memdir command {argv!r} "
                f"{why_not_runnable(join_argv(argv)) if argv else 'is not found'}",
                not_found_fix("opencode", proj))
        elif "message.part.updated" not in text:
            add(f"opencode {scope}", "warn", f"{plugin} is from an older memdir (no reply capture, self-recall)",
                "run `memdir install opencode" + (" --project" if proj else "") + "` again")
        else:
            add(f"opencode {scope}", "ok", f"plugin {plugin}")
    from memdir.hosts.install_dsh import HOOKS_PLUGIN, dsh_home, profiles_without_hooks_plugin

    for scope, proj in scopes:
        path = (proj / ".claude" / "hooks.json") if proj else dsh_home() / "hooks.json"
        _data, found = ours(path, "dsh")
        if not found:
            continue
        bad = [h.get("command") for _ev, _g, h in found if not runnable(h.get("command", ""))]
        missing = profiles_without_hooks_plugin(dsh_home())
        import importlib.util

        if bad:
            add(f"dsh {scope}", "fail", f"{path}: {bad[0]!r} {why_not_runnable(bad[0])}", not_found_fix("dsh", proj))
        elif missing:
            add(f"dsh {scope}", "warn", f"DSH profiles without {HOOKS_PLUGIN} run no memdir hook: {', '.join(missing)}",
                f"dsh plugin --profile <name> add {HOOKS_PLUGIN}")
        elif importlib.util.find_spec("zstandard") is None and shutil.which("zstd") is None:
            add(f"dsh {scope}", "warn", "no zstd reader: DSH's replies (session.jsonl.zstd) are not captured",
                "pip install zstandard (a dependency of memdir; or install the zstd command)")
        else:
            add(f"dsh {scope}", "ok", f"{len(found)} memdir hooks in {path}")
    return checks
