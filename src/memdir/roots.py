"""Where memories live: the global and project roots, and ids that may never leave them (case C14).

* Global root: ``$MEMDIR_HOME``, else the platform's user data folder (:mod:`memdir.datadir`; ``platformdirs`` on Windows).
* Project root: for a working directory, its git top-level (the nearest ancestor holding ``.git``, a
  directory or a worktree file, or the one ``GIT_WORK_TREE`` names with ``GIT_DIR`` set; a linked worktree maps to its main repository's top-level, so every worktree
  of a repository shares one ``.memory/`` — seed 000, issue 13 item 9), else the nearest ancestor holding ``.memory/``, else the directory itself;
  the memory root is ``<project root>/.memory/`` (seed 000).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memdir.errors import PathError

PROJECT_DIRNAME = ".memory"
DERIVED_DIRNAME = ".memdir"  # derived files (index, lock, quarantine) inside each root; git-ignored
#: a root's page, and the category its hand-written goals and rules are indexed under (``ROOT.md/rule-01``; never a
#: directory: the file of that name is there)
ROOT_PAGE = "ROOT.md"
#: the global root's folder of JSONL drop files (memdir.portability.dropimport): never a category
DROP_DIR = "import"

RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
_SEGMENT = re.compile(r"^[^\x00-\x1f<>:\"|?*\\/]{1,120}$")


def expand_user(path: str | os.PathLike) -> Path:
    """``path`` with a leading ``~`` or ``~user`` expanded. Raises ``PathError`` (one line) for ``~user`` of a user
    this machine does not have, where :meth:`pathlib.Path.expanduser` raises ``RuntimeError``."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        head = str(path).split("/", 1)[0]
        raise PathError(f"{str(path)!r}: {head} is no user's home on this machine") from None


def global_root(home: str | os.PathLike | None = None) -> Path:
    """The global memory root (not created here): ``home`` (``--home``, relative to the working directory as typed),
    else ``$MEMDIR_HOME`` — a relative one is taken under the home directory (``~/<it>``), so the root does not move
    with the working directory into whatever checkout a command runs in — else the platform's user data directory.
    A blank ``home`` or ``$MEMDIR_HOME`` counts as unset."""
    if home and str(home).strip():  # blank is unset: never a folder named " "
        return expand_user(home).absolute()
    env = os.environ.get("MEMDIR_HOME")
    if env and env.strip():
        p = expand_user(env)
        return p if p.is_absolute() else (Path.home() / p).absolute()
    from memdir.datadir import user_data_dir  # one rule with the hook client's (macOS, Linux, BSD)

    found = user_data_dir()
    if found is None:
        import platformdirs

        found = platformdirs.user_data_dir("memdir", appauthor=False)
    return Path(found).absolute()


def project_root(start: str | os.PathLike | None = None, *, home: str | os.PathLike | None = None) -> Path:
    """The project root for ``start`` (default: the working directory). Same answer from any subdirectory, and
    through any link: the start's links are followed first, so a project reached by two paths is one project (a
    start inside a ``.memory/`` folder, itself maybe a link, is that folder's project). A ``.memory/`` found above
    the start marks a project unless it lies in the home directory, at ``/`` or in a shared folder like ``/tmp``
    (world-writable and sticky: a hook fired there leaves one, and it may be another user's), or is the global root
    ``home``."""
    start_path = expand_user(start if start is not None else os.getcwd()).absolute()
    if PROJECT_DIRNAME in start_path.parts:  # resolved from the project's side: .memory may link elsewhere
        start_path = Path(*start_path.parts[:start_path.parts.index(PROJECT_DIRNAME)])
    start_path = Path(os.path.realpath(start_path))
    named = env_work_tree()
    for d in (start_path, *start_path.parents):
        if (d / ".git").exists():
            return main_worktree(d)
        if d == named:
            return d
    for d in (start_path, *start_path.parents):
        if _marks_project(d, home, above=d != start_path):
            return d
    return start_path


def env_work_tree() -> Path | None:
    """The work tree ``GIT_WORK_TREE`` names when ``GIT_DIR`` is set too (a repository kept apart from its files:
    git's top-level is then that folder, as it would be with a ``.git`` in it), its links followed; a relative one is
    read from the working directory, as git does. ``None`` when unset, or when it is the home directory or ``/``
    (a dotfiles repository's work tree is no project of every folder under it)."""
    tree = os.environ.get("GIT_WORK_TREE", "").strip()
    if not tree or not os.environ.get("GIT_DIR", "").strip():
        return None
    p = Path(os.path.realpath(expand_user(tree)))
    return None if p in (Path(p.anchor), Path(os.path.realpath(Path.home()))) else p


def surviving_project(gone: str | os.PathLike, *, home: str | os.PathLike | None = None) -> Path | None:
    """The nearest directory above ``gone`` (a working directory that no longer exists: ``make clean`` under the
    project) when it lies in a project that still does (a ``.git`` at or above it, or a ``.memory/`` there as
    :func:`project_root` would take it, never one at or above the home directory), else ``None``."""
    p = Path(gone).absolute()
    up = next((a for a in p.parents if a.is_dir()), None)
    if up is None:
        return None
    up = Path(os.path.realpath(up))
    me = Path(os.path.realpath(Path.home()))
    for a in (up, *up.parents):
        if a == me:  # a dotfiles repository at ~ is no project of a deleted worktree under it
            break
        if (a / ".git").exists() or _marks_project(a, home, above=True):
            return up
    return None


def _marks_project(d: Path, home: str | os.PathLike | None, *, above: bool) -> bool:
    """True when ``d/.memory/`` makes ``d`` the project of a start at or (``above``) below ``d``."""
    import stat

    mem = d / PROJECT_DIRNAME
    if not mem.is_dir() or (home is not None and os.path.realpath(mem) == os.path.realpath(home)):
        return False
    if not above:
        return True
    if d == Path(d.anchor) or d == Path(os.path.realpath(Path.home())):
        return False
    try:  # a shared folder like /tmp (world-writable and sticky): its .memory/ may be anyone's; a project folder a
        mode = d.stat().st_mode  # container made world-writable, without the sticky bit, still marks its project
        return not (mode & stat.S_ISVTX and mode & stat.S_IWOTH)
    except OSError:
        return False


def main_worktree(top: Path) -> Path:
    """The main working tree of the repository whose top-level is ``top``: ``top`` itself unless ``top/.git`` is
    a linked worktree's file (``gitdir: <main>/.git/worktrees/<name>``) whose ``commondir`` names the main
    repository's ``.git``; then that directory's parent — what ``git rev-parse --git-common-dir`` gives, read
    from the files instead of spawning git (the hooks run on every prompt). A submodule (no ``commondir``),
    a bare main repository or anything unreadable keeps ``top``."""
    dotgit = top / ".git"
    if not dotgit.is_file() or os.environ.get("MEMDIR_WORKTREE_MEMORY", "").strip().lower() == "own":
        return top  # MEMDIR_WORKTREE_MEMORY=own: each worktree keeps its own .memory/ (the pre-issue-13 behaviour)
    try:
        first = dotgit.read_text(encoding="utf-8", errors="replace").splitlines()[0].strip()
        if not first.startswith("gitdir:"):
            return top
        gitdir = Path(first[len("gitdir:"):].strip())
        gitdir = gitdir if gitdir.is_absolute() else (top / gitdir)
        common_file = gitdir / "commondir"
        if not common_file.is_file():
            return top
        common = Path(common_file.read_text(encoding="utf-8", errors="replace").strip())
        common = (common if common.is_absolute() else gitdir / common).resolve()
    except (OSError, IndexError):
        return top
    main = common.parent
    if common.name != ".git" or not main.is_dir():
        return top  # a bare repository has no main working tree: the worktree keeps its own memory
    return main


def check_segment(seg: str, what: str = "name") -> str:
    """Validate one path segment (a category or a slug); raises ``PathError``."""
    if not isinstance(seg, str) or not seg or seg in (".", "..") or seg.startswith(".") or not _SEGMENT.match(seg):
        raise PathError(f"invalid {what} {seg!r}: use letters, digits, '-' or '_' without '/', '..' or a leading '.'")
    if seg.split(".")[0].lower() in RESERVED:
        raise PathError(f"invalid {what} {seg!r}: it is a reserved device name on Windows")
    return seg


def split_id(note_id: str) -> tuple[str, str]:
    """Split ``"category/slug"`` (an optional ``.md`` suffix is dropped); raises ``PathError`` on anything else."""
    if not isinstance(note_id, str) or not note_id.strip():
        raise PathError("empty id: give an id such as 'decisions/use-pnpm' (see `memdir inspect`)")
    raw = note_id.strip()
    if raw.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", raw) or "\\" in raw or "\x00" in raw:
        raise PathError(f"invalid id {raw[:80]!r}: ids are relative, like 'decisions/use-pnpm'")
    if raw.endswith(".md"):
        raw = raw[:-3]
    parts = raw.split("/")
    if len(parts) != 2:
        raise PathError(f"invalid id {raw[:80]!r}: ids have the form 'category/slug'")
    return check_segment(parts[0], "category"), check_segment(parts[1], "slug")


def inside(root: str | os.PathLike, p: str | os.PathLike) -> bool:
    """True when ``p``, its links followed, lies inside ``root`` (itself maybe a link: a root kept in dotfiles)."""
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(p)]) == real_root


def safe_join(root: Path, *segments: str) -> Path:
    """Join validated segments under ``root`` and refuse the result if it resolves outside ``root``
    (symlinked directories or files pointing elsewhere). Raises ``PathError``."""
    path = root.joinpath(*segments)
    if not inside(root, path):
        raise PathError(f"refused: {'/'.join(segments)!r} resolves outside the memory root {root}")
    return path


def not_linked_out(root: str | os.PathLike, path: str | os.PathLike) -> None:
    """Refuse ``path`` (a root's ``.memdir/``) when it is a link that leads out of ``root``: the index, the tombstone
    log and the write lock would be read and written elsewhere. Raises ``PathError``."""
    if os.path.islink(path) and not inside(root, path):
        raise PathError(f"{path} is a link to {os.path.realpath(path)}, outside the memory root: memdir keeps its "
                        "index and logs inside the root; remove the link (memdir makes the folder again)")


def in_the_way(path: str | os.PathLike) -> str | None:
    """What stands where folder ``path`` (or one above it) belongs, as one line, or ``None``: a file, or a link to
    nothing (a ``.memory`` linked to a folder since moved or not mounted), which no folder can be made through."""
    for q in (Path(path), *Path(path).parents):
        if os.path.islink(q) and not q.exists():
            return (f"{q} is a link to {os.readlink(q)}, which does not exist: make that folder (or mount it), or "
                    "remove the link (memdir makes the folder again)")
        if q.exists() and not q.is_dir():
            return f"{q} is a file where memdir keeps a folder: move it away (memdir makes the folder again)"
    return None


def private_dir(path: str | os.PathLike, *, own: frozenset[str] | None = None) -> None:
    """Create directory ``path`` (and missing parents) open to its owner alone (mode 0700) whatever the umask, and
    close an existing one to group and others: the derived directory of a root (the index, its lock, the debug log)
    and the global root (personal notes). With ``own`` (the global root, which ``--home`` / ``MEMDIR_HOME`` may
    point anywhere: the files a root holds) an existing directory is closed only when it holds no other file (folders
    are a root's categories, or its git repository); a shared one (sticky, setgid, or writable by its group or by all,
    like /tmp or a team's folder) is never changed. Raises ``OSError`` when it cannot be created; one this process
    cannot change (a read-only mount, another user's) is left as it is."""
    import stat

    p = Path(path)
    made = not p.is_dir()  # made here: closed whatever the umask gave it (a 002 umask makes it group-writable)
    try:
        from memdir.fileio import make_folders

        make_folders(p.parent)  # a project's .memory/ made on the way: never writable by group or others
        p.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # a file where the folder (or one above it) belongs
        raise FileExistsError(in_the_way(p) or f"{p} is a file where memdir keeps a folder: move it away (memdir "
                              "makes the folder again)") from None
    try:
        mode = p.stat().st_mode
        if not mode & 0o077:
            return
        shared = mode & (stat.S_ISVTX | stat.S_ISGID | stat.S_IWOTH | stat.S_IWGRP)
        if own is not None and not made and (shared or any(e.name not in own and not e.is_dir() for e in p.iterdir())):
            return
        os.chmod(p, mode & 0o700 | 0o700)
    except OSError:
        pass


def private_derived(derived: str | os.PathLike) -> None:
    """:func:`private_dir` for a root's ``.memdir/`` made by a side path (the warm socket, the embedding breaker, the
    distillation log) before the root itself may exist: a root created here is made 0700 too."""
    d = Path(derived)
    if not d.parent.exists():
        private_dir(d.parent)
    private_dir(d)


def owner_only(path: str | os.PathLike, *, create: bool = False) -> None:
    """Make ``path`` readable and writable by its owner alone (mode 0600) whatever the umask: created empty that way
    when ``create`` and it is missing, closed to group and others when it is not. Captured turns live in such files
    (the index, the debug log). Raises ``OSError`` only when ``create`` cannot create it; a file this process cannot
    change (a read-only mount, another user's) is left as it is."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not create:
            return
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
        mode = 0o600
    if mode & 0o077:
        try:
            os.chmod(path, 0o600)
        except OSError:
            pass


def drop_folder(scope: str, name: str) -> bool:
    """True when the folder ``name`` of the ``scope`` root is the global root's :data:`DROP_DIR` (any case: one
    folder on macOS and Windows), which holds drop files, never notes."""
    return scope == "global" and str(name).casefold() == DROP_DIR


DROP_NOTE = ("a Markdown file in the global root's import/ folder, which holds JSONL drop files, not notes: it is not "
             "read as a note; move it into a category (e.g. facts/) to keep it")
