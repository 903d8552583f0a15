"""``memdir doctor``'s line for a host settings file with many of memdir install's backups beside it
(``<file>.memdir-backup-<time>``): one directory listing per folder that may hold them, a line only past
:data:`MAX_BACKUPS` of one file."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from memdir.errors import UsageError
from memdir.hosts.install import backup_dir, link_target
from memdir.hosts.install_codex import codex_home
from memdir.hosts.install_dsh import dsh_home
from memdir.hosts.install_opencode import opencode_config_dir

#: backups of one settings file past this: install keeps the first and the newest few, so these were left over
MAX_BACKUPS = 20
_MARK = ".memdir-backup-"


def settings_files(project: Path | None) -> list[Path]:
    """Every settings file ``memdir install`` may write, the user's and (with ``project``) the project's."""
    home, oc = Path.home(), opencode_config_dir()
    files = [home / ".claude" / "settings.json", home / ".claude.json", codex_home() / "hooks.json",
             codex_home() / "config.toml", oc / "opencode.json", oc / "opencode.jsonc", oc / "plugins" / "memdir.js",
             dsh_home() / "hooks.json", dsh_home() / "cordis.patch.yml"]
    if project is not None:
        p = Path(project)
        files += [p / ".claude" / "settings.json", p / ".mcp.json", p / ".codex" / "hooks.json",
                  p / ".codex" / "config.toml", p / "opencode.json", p / "opencode.jsonc",
                  p / ".opencode" / "plugins" / "memdir.js", p / ".claude" / "hooks.json", p / ".dsh" / "memdir.cordis.yml"]
    return files


def backup_checks(project: Path | None) -> list[dict[str, str]]:
    """One ``warn`` check per settings file with more than :data:`MAX_BACKUPS` backups, ``[]`` otherwise."""
    wanted: dict[Path, set[str]] = defaultdict(set)  # folder -> settings file names whose backups may lie there
    for f in settings_files(project):
        try:
            target = link_target(f)
        except UsageError:  # a link loop: nothing of memdir's lies behind it
            continue
        for d in {target.parent, backup_dir(target, project)}:
            wanted[d].add(target.name)
    out = []
    for folder, names in sorted(wanted.items()):
        found: dict[str, list[str]] = defaultdict(list)
        try:
            with os.scandir(folder) as it:
                for e in it:
                    base, mark, _ = e.name.partition(_MARK)
                    if mark and base in names:
                        found[base].append(e.name)
        except OSError:
            continue
        for base, backups in sorted(found.items()):
            if len(backups) > MAX_BACKUPS:
                backups.sort()
                out.append({"check": "install backups", "ok": "warn",
                            "detail": f"{len(backups)} backups of {folder / base} made by memdir install "
                                      f"({base}{_MARK}*) in {folder}",
                            "remedy": f"keep the oldest ({backups[0]}: the file before memdir first wrote it); the "
                                      "others are safe to delete"})
    return out
