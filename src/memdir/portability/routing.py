"""Which project an imported record belongs to, when the record *names* its project (claude-mem's ``project``
column, a drop-file record's ``project``/``cwd``/``directory``) rather than recording a session directory the way
host transcripts do (:mod:`memdir.portability.transcripts` routes those).

A name is resolved to a project root (:func:`memdir.roots.project_root`, the rule :func:`memdir.open` uses):

* an absolute path (``~`` expanded) that is a directory, or lay in a project that still exists
  (:func:`memdir.roots.surviving_project`) → its project; one that does not exist → unresolved (``cwd_missing``);
* a bare name (claude-mem stores the project directory's base name) → this project when it is this project's
  directory name, else ``<parent of this project>/<name>`` when that is a directory (projects kept side by
  side, ``~/code/a`` and ``~/code/b``), else unresolved (``other_project``);
* no name at all → this project (there is nowhere else to put it).

:class:`ProjectRouter` opens the other projects' facades on demand (with this one's home, config overrides and
clock) and closes them at the end.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memdir.roots import project_root, surviving_project
from memdir.samedir import same_dir

PROJECT_MODES = ("current", "all", "here")
#: record fields that name a project, first found wins
PROJECT_FIELDS = ("project", "project_dir", "cwd", "directory")


def open_like(m: Any, root: Path, opened: dict[str, Any]) -> Any:
    """The store of project ``root`` opened as ``m`` is (the same facade class, global root, settings and clock; no
    import of the facade from here), once per real path in ``opened``."""
    real = os.path.realpath(root)
    if real not in opened:
        opened[real] = type(m)(root, home=m.home, config=dict(m.config.overrides), clock=m.clock)
    return opened[real]


def close_all(opened: dict[str, Any]) -> None:
    """Close and forget the stores :func:`open_like` opened."""
    for other in opened.values():
        other.close()
    opened.clear()


def named_project(obj: dict[str, Any]) -> str | None:
    """The project a record names (the first non-empty string of :data:`PROJECT_FIELDS`, also inside its
    ``meta``), or ``None``."""
    meta = obj.get("meta") if isinstance(obj.get("meta"), dict) else {}
    for src in (obj, meta):
        for k in PROJECT_FIELDS:
            v = src.get(k)
            if isinstance(v, str) and v.strip():
                return v.strip()
    return None


def resolve(name: str | None, here: Path) -> tuple[Path | None, str | None]:
    """``(project root, None)`` for the project ``name`` designates, seen from the project ``here``, or
    ``(None, reason)`` with reason ``cwd_missing`` (a path that is not a directory) or ``other_project`` (a
    bare name that is not found). Never raises."""
    if not name:
        return here, None
    try:
        p = Path(name).expanduser()
    except RuntimeError:  # ``~olduser/…``: a home this machine does not have
        return None, "cwd_missing"
    if p.is_absolute():
        alive = p if p.is_dir() else surviving_project(p)  # a subdirectory removed since: its project's
        return (project_root(alive), None) if alive is not None else (None, "cwd_missing")
    if "/" in name or "\\" in name or name in (".", ".."):
        return None, "other_project"
    if name == here.name:
        return here, None
    sibling = here.parent / name
    if sibling.is_dir():
        return project_root(sibling), None
    return None, "other_project"


class ProjectRouter:
    """Per project name: the facade to store into, or the reason to skip. ``mode``: ``"current"`` (only records
    of ``m``'s project and those naming none; others skipped, ``other_project``), ``"all"`` (each into the
    project it names; names that resolve nowhere skipped) or ``"here"`` (every record into ``m``'s project)."""

    def __init__(self, m: Any, mode: str = "current"):
        from memdir.errors import UsageError

        if mode not in PROJECT_MODES:
            raise UsageError(f"unknown projects mode {mode!r}: use one of {', '.join(PROJECT_MODES)}")
        self.m, self.mode = m, mode
        self.here = Path(m.project_root)
        self.decided: dict[str | None, tuple[Any, str | None]] = {}
        self.opened: dict[str, Any] = {}
        self.skipped: dict[str, str] = {}  # name -> reason

    def target(self, name: str | None) -> tuple[Any, str | None]:
        if name not in self.decided:
            self.decided[name] = self._decide(name)
            if self.decided[name][1] and name:
                self.skipped[name] = self.decided[name][1]
        return self.decided[name]

    def _decide(self, name: str | None) -> tuple[Any, str | None]:
        if self.mode == "here":
            return self.m, None
        root, why = resolve(name, self.here)
        if root is None:
            return None, why
        if same_dir(root, self.here):  # one folder under two spellings on macOS (case, NFD) is this project
            return self.m, None
        if self.mode == "current":
            return None, "other_project"
        return open_like(self.m, root, self.opened), None

    def close(self) -> None:
        close_all(self.opened)
