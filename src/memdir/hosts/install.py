"""``memdir install claude-code | codex | opencode | dsh [--project] [--uninstall]``: register memdir's hooks and MCP
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
dsh           rows in ``$DSH_HOME/cordis.patch.yml``, hooks    overlay ``<project>/.dsh/memdir.cordis.yml``,
              ``$DSH_HOME/hooks.json`` (:mod:`.install_dsh`)   hooks ``<project>/.claude/hooks.json``
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
  ``.opencode`` project folder) when nothing else is left in it; behind a link (a dotfiles folder's file that install
  created for a dangling link) the target goes and the link stays. Older memdir installs (a ``# >>> memdir``
  marker block in config.toml, ``codex_hooks``) are migrated: memdir's keys are removed, everything Codex or
  the user wrote inside the old block is kept.

Backups are ``<file>.memdir-backup-<UTC timestamp>`` beside the file: the first one (the file before memdir wrote it)
and the newest :data:`KEEP_BACKUPS`.
"""

from __future__ import annotations

from collections.abc import Mapping

import errno
import json
import os
import shlex
import shutil
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memdir.errors import UsageError, install_hint
from memdir.fileio import make_folders, open_regular, same_style
from memdir.roots import expand_user
from memdir.hosts.whichmemdir import memdir_argv  # noqa: F401 — host_checks and the tests import it from here

HOST_NAMES = ("claude-code", "codex", "opencode", "dsh")
#: host event -> our event, for Claude Code and Codex (same hooks.json format)
HOOK_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt", "PostToolUse": "post-tool-use",
               "Stop": "stop"}
HOOK_TIMEOUT_S = 10
PROJECT_COMMAND = ["memdir"]


@dataclass
class Plan:
    """What an install/uninstall did (or would do with ``dry_run``): one ``{"file", "action", …}`` per file."""

    dry_run: bool = False
    changes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what the person may not want (a dropped --home)
    project: Path | None = None  # --project: its files are shared (committed), never made private

    def add(self, path: Path, action: str, **extra: Any) -> None:
        self.changes.append({"file": str(path), "action": action, **extra})


# ---- the memdir command line to register ---------------------------------------------------------------------
def join_argv(argv: list[str]) -> str:
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline(argv)
    return " ".join(shlex.quote(a) for a in argv)


# ---- file helpers --------------------------------------------------------------------------------------------
#: backups of one file kept besides its first (the file as the user had it before memdir first wrote it)
KEEP_BACKUPS = 5


def stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def read_settings_text(path: Path, encoding: str = "utf-8-sig") -> str:
    """The text of a host's settings file. Raises ``UsageError`` (one line, nothing changed) when it is not UTF-8
    text (saved in another encoding, or damaged) or cannot be read (a folder, a FIFO in its place, no read permission);
    a FIFO is never waited on."""
    try:
        with open_regular(path, "r", encoding=encoding) as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {path}: it is not UTF-8 text (byte {exc.start}); save it as UTF-8 or fix it by "
                         "hand — nothing was changed") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path} ({exc.strerror or exc}); fix it first — nothing was changed") from None


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path`` (``None`` when missing or empty). Raises ``UsageError`` when unreadable."""
    if not path.exists():
        return None
    text = read_settings_text(path)
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"cannot parse {path} ({exc.msg} at line {exc.lineno}); fix it or edit it by hand — nothing was changed") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object; nothing was changed")
    return data


def backup_dir(path: Path, project: Path | None) -> Path:
    """Where the backup of ``path`` goes: beside it, or, for a file of a git checkout's project settings
    (``--project``), under ``<project>/.git/memdir-backups/`` (a backup beside it showed in ``git status`` and could
    be committed)."""
    if project is not None:
        git = Path(project) / ".git"
        try:
            rel = path.absolute().relative_to(Path(project).absolute())
        except ValueError:
            rel = None
        if rel is not None and git.is_dir():
            return git / "memdir-backups" / rel.parent
    return path.parent


def backups_of(path: Path, project: Path | None) -> list[Path]:
    """The backups install made of ``path`` (the file itself, a link's target), newest first."""
    found: list[Path] = []
    for d in {path.parent, backup_dir(path, project)}:
        found += d.glob(f"{path.name}.memdir-backup-*")
    return sorted(found, key=lambda b: b.name, reverse=True)


def created_by_install(path: Path, project: Path | None, keys: frozenset[str], argv: list[str] | None = None) -> bool:
    """True when ``path``'s backups (:func:`backups_of`) show install made the file: there is none (install backs up
    a file that exists before it writes it), or each is a reinstall's copy of install's own file — memdir's entry
    (:func:`mcp_entry_ours` with ``keys``) in an otherwise empty ``mcpServers`` and nothing else. A backup without
    that entry is the file as the user had it; an unreadable one counts as the user's too."""
    for b in backups_of(link_target(path), project):
        try:
            data = json.loads(b.read_text(encoding="utf-8-sig"))
        except (OSError, ValueError):
            return False
        servers = data.get("mcpServers") if isinstance(data, dict) else None
        if not (isinstance(servers, dict) and set(data) == {"mcpServers"} and set(servers) == {"memdir"}
                and mcp_entry_ours(servers["memdir"], keys, argv)):
            return False
    return True


def link_target(path: Path) -> Path:
    """``path``, or for a link (a dotfiles folder's file) the file it leads to. Raises ``UsageError`` for a link
    that leads back to itself."""
    if not path.is_symlink():
        return path
    try:
        # a loop: resolve() raises RuntimeError up to Python 3.12 and returns the link itself from 3.13 (only a strict
        # resolve raises there), so the loop is asked of stat(), which says ELOOP on every version
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UsageError(f"{path} is a link that leads back to itself (a loop); fix the link or remove it — "
                             "nothing was changed") from None
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        raise UsageError(f"{path} is a link that leads back to itself (a loop); fix the link or remove it — nothing "
                         "was changed") from None


def backup_file(plan: Plan, path: Path) -> Path | None:
    """A copy of ``path`` beside it (or under the project's ``.git/``) before install writes it; an existing backup
    holding the same bytes when there is one (install and uninstall run again and again do not pile up copies of the
    same two files)."""
    if plan.dry_run or not path.exists():
        return None
    where = backup_dir(path, plan.project)
    make_dirs(where, private=user_config(where, plan.project))
    try:
        now = path.read_bytes()
        same = next((b for b in backups_of(path, plan.project)[:20] if b.stat().st_size == len(now)
                     and b.read_bytes() == now), None)
    except OSError:
        same = None
    if same is not None:
        return same
    backup = where / f"{path.name}.memdir-backup-{stamp()}"
    shutil.copy2(path, backup)
    older = backups_of(path, plan.project)[KEEP_BACKUPS:-1]  # a host that rewrites its file at each start (Claude
    for b in older:  # Code's ~/.claude.json) gave each reinstall one more full copy; the first backup stays
        try:
            b.unlink()
        except OSError:
            pass
    return backup


def make_dirs(folder: Path, *, private: bool) -> None:
    """Create ``folder`` and its missing parents. With ``private`` (a folder of the user's own host config) each one
    made here is the owner's alone (0700) whatever the umask: a host runs the hooks it finds there, so one others
    may write to lets them run commands as the user. A folder that was there keeps its mode."""
    made = []
    p = folder
    while not os.path.lexists(p) and p != p.parent:
        made.append(p)
        p = p.parent
    make_folders(folder)  # never writable by group or others, whatever the umask
    for d in made if private else ():
        try:
            os.chmod(d, 0o700)
        except OSError:
            pass


def user_config(path: Path, project: Path | None = None) -> bool:
    """True for a file of the user's own host configuration: under the home directory, in a dot-file or dot-folder
    of it (``~/.claude.json``, ``~/.codex/``, ``~/.config/opencode/``), and not in ``project`` (a checkout kept in
    ``~/.dotfiles/`` is still shared)."""
    p = path.absolute()
    if project is not None:
        try:
            p.relative_to(Path(project).absolute())
            return False
        except ValueError:
            pass
    try:
        rel = p.relative_to(Path.home().absolute())
    except ValueError:
        return False
    return bool(rel.parts) and rel.parts[0].startswith(".")


def write_text(plan: Plan, path: Path, text: str, *, old: str | None) -> None:
    """Write ``text`` (``\n`` line ends, or a backup's own) to ``path`` whose current text is ``old`` (``None``: none
    yet), recorded in ``plan``: a link's target is written (the link stays), backed up first, in the file's own
    style (:func:`memdir.fileio.same_style`) and mode, so an install and its uninstall give it back byte for byte."""
    if old is not None and old == text:
        plan.add(path, "unchanged")
        return
    if plan.dry_run:  # what would change, line by line (`install --dry-run` prints it)
        import difflib

        lines = difflib.unified_diff((old or "").splitlines(), text.splitlines(), "before", "after", lineterm="", n=1)
        plan.add(path, "created" if old is None else "updated", diff="\n".join(list(lines)[2:]))
        return
    backup = None
    if not plan.dry_run:
        # a settings file linked from a dotfiles folder: write the target, keep the link (and back up beside it)
        target = link_target(path)
        make_dirs(target.parent, private=user_config(target, plan.project) or user_config(path, plan.project))
        if old is not None:
            backup = backup_file(plan, target)
        # the file keeps its permissions: ~/.claude.json may hold an API key and be 0600; one memdir creates in the
        # user's own config (the host writes its login into ~/.claude.json later, keeping the mode) is 0600 too
        # (a link's own place counts: ~/.claude.json linked into a dotfiles folder is the user's config too)
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o600 if (
            user_config(target, plan.project) or user_config(path, plan.project)) else None
        if old is not None:  # the file keeps its line ends, byte-order mark and final newline (or the lack of one)
            text = same_style(target, text, line_ends="\r" not in text, final_newline=True)  # "\r": a backup's own
        tmp = target.with_name(f".{target.name}.memdir-tmp-{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644 if mode is None else mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        if mode is not None:
            os.chmod(tmp, mode)  # os.open's mode is filtered by the umask
        os.replace(tmp, target)
    plan.add(path, "created" if old is None else "updated", **({"backup": str(backup)} if backup else {}))


def bare(x: Any) -> Any:
    """JSON ``x`` with empty objects and lists left out: an uninstall drops the ``"hooks": {}`` it emptied."""
    if isinstance(x, dict):
        x = {k: bare(v) for k, v in x.items()}
        return {k: v for k, v in x.items() if v not in ({}, [])}
    return [bare(v) for v in x] if isinstance(x, list) else x


def users_own_text(path: Path, project: Path | None, holds) -> str | None:
    """The text of the newest backup of ``path`` (:func:`backups_of`: the file as it was before an install wrote it)
    that is blank or of which ``holds(text)`` is true, with its own line ends; ``None`` when there is none (install
    created the file, or every backup holds more). An uninstall that would leave nothing of the user's writes this
    back instead of deleting a file the user had (``{}``, an empty one, opencode.json's ``$schema`` alone)."""
    for b in backups_of(link_target(path), project)[:20]:
        try:
            with open(b, encoding="utf-8-sig", newline="") as f:
                text = f.read()
            if not text.strip() or holds(text):
                return text
        except (OSError, ValueError):
            continue
    return None


def remove_file(plan: Plan, path: Path) -> None:
    """Delete ``path``, which an uninstall left with nothing but memdir's entries removed (so no backup); for a link
    (a dotfiles folder's file install created behind a dangling link), its target, the link staying as it was."""
    if not plan.dry_run:
        link_target(path).unlink()
    plan.add(path, "removed")


def write_json(plan: Plan, path: Path, data: dict[str, Any], *, empty: tuple[dict[str, Any], ...] = ({},),
                remove_if_empty: bool = False) -> None:
    """Write ``data`` to ``path`` (``unchanged`` when equal to what is there). With ``remove_if_empty`` a ``data``
    equal to one of ``empty`` deletes the file instead (an uninstall leaving nothing of the user's)."""
    old = read_settings_text(path) if path.exists() else None
    if remove_if_empty and data in empty:
        own = users_own_text(path, plan.project, lambda text: bare(json.loads(text)) == bare(data))
        if own is not None and old is not None:  # the user's file before install held no more than this: it stays
            write_text(plan, path, own, old=old)
        elif old is not None:  # install made it (a link's target too: the link stays, dangling as it was)
            remove_file(plan, path)
        return
    if old is not None:
        try:
            if json.loads(old) == data:
                plan.add(path, "unchanged")
                return
        except json.JSONDecodeError:
            pass
    write_text(plan, path, as_written(path, data, old, plan.project), old=old)


def as_written(path: Path, data: dict[str, Any], old: str | None, project: Path | None = None) -> str:
    """``data`` as the text to write at ``path``: a backup's own text when it holds the same settings, empty objects
    and lists aside (an uninstall gives the file back byte for byte: indentation, escapes, key order, the person's
    empty ``"hooks": {}``), else JSON indented as ``old`` is."""
    target = link_target(path)
    want = bare(data)
    for b in backups_of(target, project)[:20]:
        try:
            with open(b, encoding="utf-8-sig", newline="") as f:  # its line ends as they were, CRLF or mixed
                text = f.read()
            if bare(json.loads(text) if text.strip() else {}) == want:  # a blank file held no settings
                return text
        except (OSError, ValueError):
            continue
    indent: int | str = 2
    for line in (old or "").splitlines()[1:]:  # the first indented line says how the file is indented
        pad = line[:len(line) - len(line.lstrip())]
        if pad and line.lstrip()[:1] in '"}]':
            indent = len(pad) if set(pad) == {" "} else pad
            break
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def remove_empty_dirs(plan: Plan, *dirs: Path) -> None:
    for d in dirs:
        try:
            if d.is_dir() and not any(d.iterdir()):
                if not plan.dry_run:
                    d.rmdir()
                plan.add(d, "removed")
        except OSError:
            pass


def mcp_entry_ours(entry: Any, keys: frozenset[str], argv: list[str] | None = None) -> bool:
    """True when a host's ``memdir`` MCP server entry has exactly the shape ``memdir install`` writes for that host
    (``keys``, and a memdir command whose last word is ``mcp``): it may be updated and removed. One a person wrote (an
    ``env``, a ``--home`` after ``mcp``, another key) is left as it is by install and by uninstall. ``argv``: the
    command being installed, which counts as memdir's whatever its name (``--command /opt/md/bin/md``)."""
    if not isinstance(entry, Mapping) or set(entry) != set(keys):
        return False
    words = entry.get("command") if "args" not in keys else [entry.get("command"), *(entry.get("args") or [])]
    words = [str(x) for x in words] if isinstance(words, (list, tuple)) else []
    return bool(words) and words[-1] == "mcp" and ("memdir" in " ".join(words) or words == [*(argv or ()), "mcp"])


def is_ours(command: Any, host: str) -> bool:
    """True for a hook command memdir install writes: ``… hook <host> …`` naming memdir, or of exactly install's
    shape, ``<command> hook <host> <event>`` (``--command`` naming memdir by another name)."""
    if not isinstance(command, str) or f" hook {host} " not in f" {command} ":
        return False
    return "memdir" in command or command.rstrip().endswith(tuple(f" hook {host} {e}" for e in HOOK_EVENTS.values()))


def handlers(settings: dict[str, Any]):
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


def strip_hooks(settings: dict[str, Any], host: str) -> bool:
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
                kept = [h for h in g["hooks"] if not (isinstance(h, dict) and is_ours(h.get("command"), host))]
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


def set_hooks(settings: dict[str, Any], host: str, argv: list[str]) -> None:
    """Make our hook entries exactly one synchronous entry per event, in place when one exists (so the other
    entries keep their positions), appended otherwise."""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError("the settings' \"hooks\" value is not an object; fix it by hand — nothing was changed")
    for host_event, ours in HOOK_EVENTS.items():
        entry = {"type": "command", "command": join_argv([*argv, "hook", host, ours]), "timeout": HOOK_TIMEOUT_S}
        groups = hooks.setdefault(host_event, [])
        if not isinstance(groups, list):
            raise UsageError(f"the settings' hooks.{host_event} is not a list; fix it by hand — nothing was changed")
        placed = False
        for g in list(groups):
            if not (isinstance(g, dict) and isinstance(g.get("hooks"), list)):
                continue
            removed = False
            for i, h in enumerate(list(g["hooks"])):
                if isinstance(h, dict) and is_ours(h.get("command"), host):
                    if not placed and "matcher" not in g:
                        g["hooks"][i] = entry
                        placed = True
                    else:
                        g["hooks"].remove(h)
                        removed = True
            if removed and not g["hooks"]:  # a group the person left empty is theirs, kept as it is
                groups.remove(g)
        if not placed:
            groups.append({"hooks": [entry]})


def kept_note(plan: Plan, path: Path, what: str) -> None:
    """Say that ``what`` in ``path`` (a ``memdir`` MCP server the person wrote) was left as it is."""
    plan.notes.append(f"{path}: {what} was not written by memdir install and was kept")


def twice_note(plan: Plan, other: Path, host: str, scope: str) -> None:
    """A note when the settings file ``other`` of the other scope (``scope``: ``user`` or ``project``) holds memdir's
    hooks for ``host`` too: the host would run both, each hook twice (one copy answers; ``memdir doctor``)."""
    try:
        settings = read_json(other) or {}
    except UsageError:
        return
    if any(is_ours(h.get("command"), host) for *_, h in handlers(settings)):
        flag = "" if scope == "user" else " --project"
        plan.notes.append(f"{other} has memdir's hooks for {host} too: the host runs each hook twice (memdir "
                          f"answers once); keep one (memdir install {host}{flag} --uninstall removes the {scope} one)")


def install_host(host: str, *, project: Path | None = None, uninstall: bool = False, dry_run: bool = False,
                 argv: list[str] | None = None, legacy: bool = False, home: str | Path | None = None) -> Plan:
    """Install (or with ``uninstall`` remove) memdir for ``host``; returns the :class:`Plan` of file changes.

    ``project``: the project root for ``--project`` (None = user scope). ``argv``: the memdir command to
    register (default: :func:`memdir_argv` for user scope, the bare ``memdir`` found on PATH for a project). ``home``:
    the global root the hooks and the MCP server use (``--home``, absolute), when not the default one. ``legacy``: OpenCode v1-only plugin export. Raises ``UsageError``
    for an unknown host or a settings file it will not rewrite (nothing is written then).
    """
    if not str(os.environ.get("HOME") or os.environ.get("USERPROFILE") or "").strip():
        raise UsageError("HOME is not set: memdir install writes the host's settings under your home directory; "
                         "run it from your own shell — nothing was changed")
    argv = list(argv or (PROJECT_COMMAND if project is not None else memdir_argv()))
    plan = Plan(dry_run=dry_run, project=project)
    if project is not None and not uninstall and argv == PROJECT_COMMAND and shutil.which("memdir") is None:
        plan.notes.append("the project's settings run `memdir` from PATH, and it is not on this PATH yet: "
                          f"install memdir where the host finds it ({install_hint(tool='pipx')}, or activate its venv)")
    if home is not None and project is None:  # a global root given at install time is the one the host's calls use
        argv = [*argv, "--home", str(expand_user(home).absolute())]
    elif home is not None and not uninstall:  # a project's settings are shared: a path of this machine is no use there
        plan.notes.append("the project's settings do not carry --home (teammates share them): set MEMDIR_HOME in the "
                          "environment the host runs in to use that global root")
    import memdir.registry as registry

    target = registry.HOSTS.get(host, {}).get("install")
    if not target:
        raise UsageError(f"unknown host {host!r}: use one of {', '.join(HOST_NAMES)}")
    run = registry.resolve(target)
    if not dry_run:  # a file the person made read-only is theirs to open up: found before anything is written
        probe = Plan(dry_run=True, project=project)
        run(probe, project=project, uninstall=uninstall, argv=argv, legacy=legacy)
        for c in probe.changes:
            why = c["action"] in ("created", "updated", "removed") and cannot_write(Path(c["file"]))
            if why:
                raise UsageError(f"{c['file']} {why} — nothing was changed")
    run(plan, project=project, uninstall=uninstall, argv=argv, legacy=legacy)
    return plan


def cannot_write(path: Path) -> str:
    """Why install cannot write (or remove) ``path``, "" when it can: a file made read-only, or a link leading under
    something that is not a folder (found before anything is written: no half install)."""
    target = link_target(path).absolute()
    if read_only(target):
        return "is read-only: memdir leaves it alone; make it writable (chmod u+w) or change it by hand"
    up = target.parent
    while not os.path.lexists(up) and up != up.parent:
        up = up.parent
    if not up.is_dir():
        return f"cannot be written: {up} is not a folder; fix the path by hand"
    return ""


def read_only(path: Path) -> bool:
    """True when ``path`` (a link's target) exists with no write permission for its owner (``chmod a-w``)."""
    try:
        return not stat.S_IMODE(os.stat(path).st_mode) & stat.S_IWUSR
    except OSError:
        return False


