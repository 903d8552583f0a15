"""A project's ``.memory/`` that git tracks but a sparse checkout left out of the working tree.

Such a root is missing on disk while its notes are in the repository: made again there, it would answer "no memories
yet" while the team's notes exist, and its fresh ``ROOT.md`` and ``.gitignore`` would stand in place of the committed
ones (``git status`` shows them modified, so the next ``git add`` commits a blank page over the team's goals and
rules). So memdir never makes such a root (a write is one error line), and a read says in one warning line why it
finds nothing; both say how to bring the notes in.

Looked at only when the root folder is missing and the repository has a sparse-checkout file, so an ordinary
checkout never spawns git for it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from memdir.errors import UsageError


def git_dir(top: Path) -> Path | None:
    """``top``'s git directory: ``top/.git``, or the one a ``.git`` file names (a worktree, a submodule)."""
    dotgit = top / ".git"
    if dotgit.is_dir():
        return dotgit
    try:
        first = dotgit.read_text(encoding="utf-8", errors="replace").splitlines()[0].strip()
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    p = Path(first[len("gitdir:"):].strip())
    return p if p.is_absolute() else top / p


def left_out(root: Path) -> bool:
    """True when ``root`` (a project's ``.memory/``) is missing on disk and git marks files under it skip-worktree
    (``git ls-files -t`` says ``S``): a sparse checkout left them out."""
    top = root.parent
    if root.exists() or root.is_symlink():
        return False
    gd = git_dir(top)
    if gd is None or not (gd / "info" / "sparse-checkout").is_file():
        return False
    try:
        r = subprocess.run(["git", "-C", str(top), "ls-files", "-t", "--", root.name], capture_output=True, text=True,
                           timeout=5)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0 and any(line.startswith("S ") for line in r.stdout.splitlines())


def said(root: Path) -> str:
    """The line that says ``root`` is :func:`left_out` and how to bring it in."""
    return (f"{root} is left out of this sparse checkout while git holds notes there: run `git sparse-checkout add "
            f"{root.name}` in {root.parent} to bring them in")


def refuse_left_out(root: Path, scope: str) -> None:
    """Raise ``UsageError`` (one line, nothing made: the checkout must change) when the project root ``root`` is
    :func:`left_out`. A read of such a root finds nothing and says why in a notice (``memdir.engine.events``)."""
    if scope == "project" and left_out(root):
        raise UsageError(said(root) + " (nothing was written)")
