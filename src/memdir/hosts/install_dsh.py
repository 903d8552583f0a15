"""``memdir install dsh``: DeepSeek Harness (DSH) reads memdir through two of its plugins, both configured as rows
of a cordis patch layer (a YAML list of loader patches); the facts below are from deepseek-harness
``dsh-0.1.1-rc.2``.

* ``@deepseek-ai/dsh-mcp-client`` (``packages/mcp/mcp-client/src/index.ts``: ``serverName``, ``transport:
  stdio``, ``command``, ``args``, ``env``, ``cwd``; tools appear as ``mcp__memdir__…``) runs ``memdir mcp``. It is
  a dependency of the ``dsh`` CLI itself (``apps/cli/package.json``).
* ``@deepseek-ai/dsh-hooks-claude-code`` (``packages/hooks/hooks-claude-code/src/config.ts`` and its README)
  runs the Claude-Code-style hooks of the JSON file at ``configPath`` (a bare event map or ``{"hooks": …}``;
  ``type: command``, ``timeout`` in seconds); a relative ``configPath`` resolves against the directory ``dsh``
  was started in. It is not part of the CLI: ``dsh plugin --profile <name> add
  @deepseek-ai/dsh-hooks-claude-code`` installs it into a profile (``apps/cli/src/plugin.ts``); install says so.

Patch layers (``apps/cli/src/profile-boot.ts``, ``packages/boot/app-boot/src/profile.ts``,
``packages/util/home-paths/src/index.ts``): ``$DSH_HOME/cordis.patch.yml`` applies to every profile
(``$DSH_HOME`` defaults to ``~/.dsh``); ``--patch FILE`` adds an overlay for one run. DSH has no project layer.

================  ===================================================  =============================================
scope             rows (patch layer)                                   hooks file
================  ===================================================  =============================================
user (default)    ``$DSH_HOME/cordis.patch.yml``                       ``$DSH_HOME/hooks.json`` (absolute path)
``--project``     ``<project>/.dsh/memdir.cordis.yml``, an overlay     ``<project>/.claude/hooks.json``
                  for ``dsh --patch .dsh/memdir.cordis.yml``            (``configPath: ./.claude/hooks.json``)
================  ===================================================  =============================================

The rows are one marked block (``# >>> memdir …`` / ``# <<< memdir``) added to the YAML text, never a
re-serialisation, so comments, ``!!js`` tags and the user's rows stay as they were; ``--uninstall`` cuts the block
out and gives the file back byte for byte (DSH's own template ``[]`` line, which a block list cannot follow, is
replaced by the block and put back). A file whose YAML is not a list, or that would not parse with the block, is
never rewritten (one-line error).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from memdir.errors import UsageError
from memdir.fileio import open_regular
from memdir.hosts.install import (
    Plan,
    join_argv,
    read_json,
    read_settings_text,
    remove_empty_dirs,
    remove_file,
    set_hooks,
    strip_hooks,
    write_json,
    write_text,
)
from memdir.hosts.install_home import hook_home, warn_dropped
from memdir.roots import expand_user

HOST = "dsh"
HOOKS_PLUGIN = "@deepseek-ai/dsh-hooks-claude-code"
MCP_PLUGIN = "@deepseek-ai/dsh-mcp-client"
BLOCK_START = "# >>> memdir"
BLOCK_END = "# <<< memdir"
_BLOCK = re.compile(r"(?ms)^# >>> memdir(?P<meta>[^\n]*)\n.*?^# <<< memdir[^\n]*(?:\n|\Z)")


def dsh_home() -> Path:
    """``$DSH_HOME`` (a blank value counts as unset, as in DSH) or ``~/.dsh``."""
    env = os.environ.get("DSH_HOME", "")
    return expand_user(env) if env.strip() else Path.home() / ".dsh"


def _quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def render_block(argv: list[str], config_path: str, meta: dict[str, Any] | None = None) -> str:
    """The marked YAML block: one ``insert`` patch with the MCP row and the hooks-bridge row. ``meta`` (what
    uninstall needs to restore the file exactly) rides on the start line as JSON."""
    args = ", ".join(_quote(a) for a in [*argv[1:], "mcp"])
    head = BLOCK_START + (" " + json.dumps(meta, sort_keys=True) if meta else "")
    return "\n".join([
        head,
        "# added by `memdir install dsh`; `memdir install dsh --uninstall` removes it",
        "- insert:",
        "    - id: memdir-mcp",
        f"      name: '{MCP_PLUGIN}'",
        "      config:",
        "        serverName: memdir",
        "        transport: stdio",
        f"        command: {_quote(argv[0])}",
        f"        args: [{args}]",
        "        cwd: !!js process.cwd()",
        "    - id: memdir-hooks",
        f"      name: '{HOOKS_PLUGIN}'",
        "      config:",
        f"        configPath: {_quote(config_path)}",
        BLOCK_END,
        "",
    ])


class _Loader:  # built lazily: PyYAML is only imported by install
    cls = None

    @classmethod
    def get(cls):
        if cls.cls is None:
            import yaml

            class Loader(yaml.SafeLoader):
                pass

            # DSH's patch dialect: ``!!js <expression>`` scalars (the include's entryListSchema)
            Loader.add_multi_constructor("tag:yaml.org,2002:js", lambda loader, suffix, node: "<js>")
            cls.cls = Loader
        return cls.cls


def parse_patches(text: str, path: Path) -> list | None:
    """The patch list in ``text`` (``None`` for a file of comments only). Raises ``UsageError`` when it is not
    YAML or not a list."""
    import yaml

    try:
        data = yaml.load(text, Loader=_Loader.get())  # noqa: S506 — a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise UsageError(f"cannot parse {path} ({str(exc).splitlines()[0]}); fix it or edit it by hand — "
                         "nothing was changed") from None
    if data is not None and not isinstance(data, list):
        raise UsageError(f"{path} does not hold a YAML list of patches; nothing was changed")
    return data


def strip_block(text: str) -> tuple[str, dict[str, Any] | None]:
    """``text`` without memdir's block, restored as it was before install, and the block's meta (``None`` when
    there is no block; ``{"new": True}`` when install created the file)."""
    m = _BLOCK.search(text)
    if not m:
        return text, None
    try:
        meta = json.loads(m.group("meta").strip() or "{}")
    except ValueError:
        meta = {}
    meta = meta if isinstance(meta, dict) else {}
    keep = meta.get("was", "")
    before, after = text[:m.start()], text[m.end():]
    if meta.get("nl") is False and before.endswith("\n"):
        before = before[:-1]
    return before + (keep if isinstance(keep, str) else "") + after, meta


def add_block(text: str | None, argv: list[str], config_path: str, path: Path) -> str:
    """``text`` with memdir's block (an older one replaced)."""
    base, was = strip_block(text) if text is not None else ("", {"new": True})
    old = parse_patches(base, path) if base else None
    meta: dict[str, Any] = {"new": True} if (was or {}).get("new") else {}
    flow = re.search(r"(?m)^\[\s*\][ \t]*\n?", base)
    if old == [] and flow:  # DSH's template: a flow `[]` cannot be followed by block items; the block takes its place
        meta["was"] = flow.group(0)
        new = base[:flow.start()] + render_block(argv, config_path, meta) + base[flow.end():]
    else:
        if base and not base.endswith("\n"):
            meta["nl"] = False
            base += "\n"
        new = base + render_block(argv, config_path, meta or None)
    rows = parse_patches(new, path)
    if not isinstance(rows, list) or (old or []) != rows[:len(old or [])]:
        raise UsageError(f"{path}: memdir's rows cannot be appended to this YAML (a flow list?); add them by hand "
                         "— nothing was changed")
    return new


def edit_patch_file(plan: Plan, path: Path, *, uninstall: bool, argv: list[str], config_path: str) -> None:
    old = read_settings_text(path, "utf-8") if path.exists() else None
    if uninstall:
        if old is None:
            return
        new, meta = strip_block(old)
        if meta is None:
            plan.add(path, "unchanged")
        elif meta.get("new") and not new.strip():  # a link stays, its target goes
            remove_file(plan, path)  # install created it and nothing of the user's is in it
        else:
            write_text(plan, path, new, old=old)
        return
    write_text(plan, path, add_block(old, argv, config_path, path), old=old)


def profiles_without_hooks_plugin(home: Path) -> list[str] | None:
    """Profiles under ``$DSH_HOME/profiles`` whose ``package.json`` does not depend on the hooks bridge
    (``None`` when there is no profile yet)."""
    missing: list[str] = []
    if not any((home / "profiles").glob("*/package.json")):
        return None
    for manifest in sorted((home / "profiles").glob("*/package.json")):
        try:
            with open_regular(manifest, "r", encoding="utf-8") as f:  # a FIFO is never waited on
                deps = json.loads(f.read()).get("dependencies") or {}
        except (OSError, ValueError, AttributeError):
            continue
        if HOOKS_PLUGIN not in deps:
            missing.append(manifest.parent.name)
    return missing


def install(plan: Plan, *, project: Path | None, uninstall: bool, argv: list[str], legacy: bool = False) -> None:
    """Write (or remove) the hooks file and the patch rows for the scope (see the module docstring)."""
    home = dsh_home()
    if project is not None:
        hooks_path = project / ".claude" / "hooks.json"
        patch_path = project / ".dsh" / "memdir.cordis.yml"
        config_path = "./.claude/hooks.json"
    else:
        hooks_path = home / "hooks.json"
        patch_path = home / "cordis.patch.yml"
        config_path = str(hooks_path)
    settings = read_json(hooks_path) or {}
    if uninstall:
        strip_hooks(settings, HOST)
    else:
        warn_dropped(plan, HOST, project is None and hook_home(settings, HOST), argv)
        set_hooks(settings, HOST, argv)
    # the patch file first: a file memdir will not rewrite stops the install before anything is written
    if not uninstall and patch_path.exists():
        add_block(read_settings_text(patch_path, "utf-8"), argv, config_path, patch_path)
    if settings or hooks_path.exists():
        write_json(plan, hooks_path, settings, remove_if_empty=uninstall)  # an uninstall: a backup's bytes back
    edit_patch_file(plan, patch_path, uninstall=uninstall, argv=argv, config_path=config_path)
    if uninstall:  # the folders install made, when nothing else is left in them
        remove_empty_dirs(plan, *((project / ".claude", project / ".dsh") if project is not None else (home,)))
        return
    if project is not None:
        plan.notes.append(f"DSH has no project layer: start it from {project} with "
                          "`dsh --patch .dsh/memdir.cordis.yml …`, or copy that file's insert into "
                          "$DSH_HOME/cordis.patch.yml")
        user_layer = home / "cordis.patch.yml"
        if user_layer.is_file() and _BLOCK.search(user_layer.read_text(encoding="utf-8", errors="replace")):
            # patches insert rows, they never merge them: both would start a second `memdir` MCP server
            plan.notes.append(f"{user_layer} already has memdir's rows (a user install): use the overlay only "
                              "where that user install is removed")
    missing = profiles_without_hooks_plugin(home)
    if missing is None or missing:
        names = f" (not yet in: {', '.join(missing)})" if missing else ""
        plan.notes.append(f"the hooks need DSH's Claude Code hooks bridge in each profile you use{names}: "
                          f"`dsh plugin --profile <name> add {HOOKS_PLUGIN}`")
    plan.notes.append(f"hooks run `{join_argv([*argv, 'hook', HOST])} <event>`; replies are read from DSH's "
                      "session log (session.jsonl.zstd)")
    if importlib.util.find_spec("zstandard") is None and shutil.which("zstd") is None:  # a broken install
        from memdir.portability.importers.dsh import ZSTD_HINT

        plan.notes.append(f"no zstd reader here: {ZSTD_HINT}")
