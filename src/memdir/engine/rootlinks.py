"""A root's own files that a person may keep as links (``ROOT.md``, ``.gitignore``, a category's ``index.md``, often
into a dotfiles folder): where memdir writes them, and what ``inspect`` and ``doctor`` say about them.

The rule (case C14, docs/GUARANTEES.md): memdir writes such a file through a link whose target lies inside the root
(the link stays a link); a link out of the root is never written through nor replaced — a link a clone carries must
not make memdir write elsewhere. It is still read (ROOT.md's goals and hard rules, the ignore lines). What that leaves
undone is said in one line by inspect and doctor: ROOT.md's tables not compiled, memdir's files not git-ignored.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from memdir.fileio import read_or_none
from memdir.lazylog import getLogger
from memdir.notes import markdown as notes
from memdir.roots import DERIVED_DIRNAME, ROOT_PAGE, inside

log = getLogger("memdir")  # imports logging only when a record can go somewhere
#: what a root's ``.gitignore`` must hold before memdir writes anything there: the derived files (the index, its
#: logs) and the secrets file (the embedding API key, :mod:`memdir.envfile`)
IGNORED = (f"{DERIVED_DIRNAME}/", ".env")
#: what a root's ``.gitattributes`` holds so two people remembering at once merge without a conflict: the compiled
#: pages are merged line by line from both sides (git's built-in ``union`` driver), then compiled again from the notes
#: by the next run; a note itself is merged as usual (a conflict there is shown, :mod:`memdir.notes.conflicts`)
UNION = (f"/{ROOT_PAGE}", "*/index.md")
#: the files a global root holds beside its folders (``memdir.roots.private_dir``'s ``own``)
OWN = frozenset((ROOT_PAGE, ".gitignore", ".gitattributes", "config.toml", ".env", "README.md"))
#: links already said in the debug log by this process (a command compiles more than once)
_SAID: set[str] = set()




def write_path(root: Path, p: Path) -> Path | None:
    """Where memdir writes the root's file ``p``: ``p`` itself, the target of a link to a place inside ``root`` (so
    the rename lands on the target and the link stays), or ``None`` when ``p`` or its link leads out of ``root``."""
    if not inside(root, p):
        return None
    return Path(os.path.realpath(p)) if os.path.islink(p) else p


def said_once(p: Path, what: str) -> None:
    """A debug line (``--debug``) that ``p`` leads out of the root (a link) and ``what`` memdir left undone, once."""
    if str(p) not in _SAID:
        _SAID.add(str(p))
        log.debug("memdir: %s leads out of the root (to %s): %s", p, os.path.realpath(p), what)


def git_files(root: Path) -> None:
    """The root's own Git settings: :func:`ignore_private`, then :func:`merge_by_union`."""
    ignore_private(root)
    merge_by_union(root)


def ignore_private(root: Path) -> None:
    """Make ``root``'s ``.gitignore`` ignore :data:`IGNORED`: created when missing, the lines missing (or undone by a
    later ``!`` line) appended, the user's lines, line ends and mode kept; a link out of the root is left as it is
    (:func:`link_problems` says what that leaves unignored); one that cannot be read or written is left (logged)."""
    def missing(old: str) -> list[str]:
        have: dict[str, bool] = {}  # the last line naming a pattern decides: a later "!.env" un-ignores it
        for ln in old.splitlines():
            have[ln.strip().lstrip("!").strip().strip("/")] = not ln.strip().startswith("!")
        return [x for x in IGNORED if not have.get(x.strip("/"))]

    _append(root, ".gitignore", IGNORED, missing, "{}\n".format,
            comment="# memdir: derived files and secrets, never committed\n",
            first="# derived by memdir (rebuilt from the Markdown) and secrets: never committed\n",
            linked=lambda path, absent: said_once(path, f"{', '.join(absent)} not added (see `memdir inspect`)"))


def merge_by_union(root: Path) -> None:
    """Give ``root``'s compiled pages (:data:`UNION`) git's ``union`` merge in its ``.gitattributes``: created when
    missing, a pattern the file does not name yet appended (one it names, whatever the setting, is the user's choice);
    a link out of the root, or a file that cannot be read or written, is left as it is (logged)."""
    def missing(old: str) -> list[str]:
        named = {ln.split()[0] for ln in old.splitlines() if ln.strip() and not ln.lstrip().startswith("#")}
        return [x for x in UNION if x not in named]

    _append(root, ".gitattributes", UNION, missing, "{} merge=union\n".format,
            comment="# memdir: compiled pages, merged from both sides and compiled again on the next run\n")


def _append(root: Path, name: str, wanted: Any, missing: Any, line: Any, *, comment: str, first: str | None = None,
            linked: Any = None) -> None:
    """Append to ``root/name`` the ``line(x)`` of each pattern ``missing(old text)`` returns, under ``comment`` (a new
    file starts with ``first`` instead, when given); the user's own lines, line ends and mode are kept. A file that
    cannot be read or written is left (logged); one linked out of the root is left, ``linked(path, missing)`` told."""
    path = root / name
    try:
        old = read_or_none(path)
    except OSError as exc:
        log.warning("memdir: %s is unreadable (%s); not checked for %s", path, exc, ", ".join(wanted))
        return
    absent = missing(old or "")
    if not absent:
        return
    where = write_path(root, path)
    if where is None:
        if linked is not None:
            linked(path, absent)
        return
    head = (first or comment) if old is None else old + ("" if old.endswith("\n") or not old else "\n") + comment
    try:
        notes.atomic_write(where, head + "".join(line(x) for x in absent))
    except OSError as exc:  # a read-only root: reads go on; a write fails later with its own message
        log.warning("memdir: could not add %s to %s: %s", ", ".join(absent), path, exc)


def link_problems(root: Any) -> list[dict[str, str]]:
    """``inspect``'s problems (kind ``link``, :meth:`Root.problem`) for ``root``'s ``ROOT.md`` and ``.gitignore``
    when they are links that leave something undone: ROOT.md out of the root (its tables are not compiled), a
    ``.gitignore`` link while git does not ignore memdir's files (git reads no ``.gitignore`` that is a link). Each
    ``detail`` is ``"<what it is and leaves undone>; <what to do>"``: doctor shows the two parts as its check's
    detail and remedy."""
    out: list[dict[str, str]] = []
    page = root.path / ROOT_PAGE
    if os.path.islink(page) and write_path(root.path, page) is None:
        out.append(root.problem("link", page, (
            f"a link out of the root (to {os.path.realpath(page)}): its goals and hard rules are read, its compiled "
            "tables are not updated (memdir writes only inside the root); move the file into the root in its place "
            "(link your copy to it instead) to have them compiled")))
    gi = root.path / ".gitignore"
    if os.path.islink(gi):
        loose = not_ignored(root.path, [f"{DERIVED_DIRNAME}/index.sqlite3", ".env"])
        if loose:
            out.append(root.problem("link", gi, (
                f"a link (to {os.path.realpath(gi)}), which git does not read and memdir does not replace: "
                f"{' and '.join(loose)} can be committed; make it a regular file (memdir adds its lines), or "
                f"ignore them in the repository's own .gitignore")))
    return out


def not_ignored(root: Path, rels: list[str]) -> list[str]:
    """Which of ``rels`` (paths under ``root``) git would not ignore there, asked of ``git check-ignore``; ``[]``
    when ``root`` is not in a git checkout, ``rels`` all when git cannot be asked (not installed, too slow)."""
    try:
        r = subprocess.run(["git", "-C", str(root), "check-ignore", "--", *rels], capture_output=True, text=True,
                           timeout=10)
    except (OSError, subprocess.SubprocessError):
        return rels
    if r.returncode not in (0, 1):  # 128: not a git checkout, nothing can be committed
        return []
    ignored = set(r.stdout.splitlines())
    return [x for x in rels if x not in ignored]


def link_on_the_way(root: Path, path: str | os.PathLike) -> str:
    """The first link met going from ``root`` down to ``path`` (a note file that is a link, or the category folder
    that is one), ``""`` when there is none: a note reached through it is the same file as the one it leads to."""
    try:
        parts = Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).parts
    except ValueError:
        return ""
    here = Path(os.path.abspath(root))
    for part in parts:
        here = here / part
        if here.is_symlink():
            return str(here)
    return ""


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True when ``a`` and ``b`` lead to one file (``False`` when either is gone)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
