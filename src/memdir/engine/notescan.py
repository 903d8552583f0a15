"""Listing a root's note files for its sync (:meth:`memdir.engine.root.Root.scan`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from memdir.errors import UsageError
from memdir.fileio import drop_stale_temp
from memdir.notes import markdown as notes, synccopy
from memdir.roots import DROP_NOTE, ROOT_PAGE, check_segment, drop_folder


#: a folder of notes inside a category: memdir reads ``<category>/<slug>.md`` alone, so it is said, never skipped silently
NESTED = ("a folder inside the category {cat}/ holding Markdown files: they are not read as notes (a note is "
          "{cat}/<name>.md); move them up into {cat}/ or into a category of their own")


def holds_notes(path: str, depth: int = 4) -> bool:
    """True when the folder ``path`` holds a ``.md`` file within ``depth`` levels (links are not followed)."""
    try:
        with os.scandir(path) as it:
            for e in it:
                if e.name.endswith(".md") and e.is_file(follow_symlinks=False):
                    return True
                if depth > 1 and e.is_dir(follow_symlinks=False) and holds_notes(e.path, depth - 1):
                    return True
    except OSError:
        return False
    return False


def denied_by_mode(st: os.stat_result) -> bool:
    """True when the mode bits of a file whose stat is ``st`` deny this process reading it (no system call; a
    privileged process may read it all the same)."""
    if st.st_mode & 0o444 == 0o444:  # readable by all: the usual note, settled without asking whose it is
        return False
    if st.st_uid == os.geteuid():
        bit = stat.S_IRUSR
    elif st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        bit = stat.S_IRGRP
    else:
        bit = stat.S_IROTH
    return not st.st_mode & bit


def unreadable(path: str, st: os.stat_result) -> str:
    """Why this process may not read the note file ``path`` (``st`` its stat), ``""`` when it may. Its mode bits
    are looked at first; only a file they deny is opened, since a privileged process reads it anyway."""
    if not denied_by_mode(st):
        return ""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
    except PermissionError as exc:
        return f"{exc.strerror or exc}: this note is left out until it can be read again (chmod u+r {path}); the other notes are read"
    except OSError:
        return ""  # gone meanwhile, or another fault the reader of the file reports itself
    return ""


def scan(root: Any) -> tuple[dict[str, tuple[str, int, int]], list[dict[str, str]]]:
    """Every note file of ``root`` (a :class:`memdir.engine.root.Root`): ``{id: (path, mtime_ns, size)}`` and problems
    (symlinks out, bad names). Paths are ``str`` (a ``Path`` per note cost every hook's open-time sync ~10 us a
    note)."""
    found: dict[str, tuple[str, int, int]] = {}
    problems: list[dict[str, str]] = []
    if not root.path.is_dir():
        return found, problems
    for cat in sorted(os.scandir(root.path), key=lambda e: e.name):
        copied = cat.name.endswith(".md") and synccopy.page_copy_detail(cat.name[:-3], ROOT_PAGE)
        if copied:  # "ROOT (conflicted copy …).md": the page's twin, named, never read
            problems.append(root.problem("conflict", cat.path, copied))
        if cat.name.startswith(".") or not cat.is_dir():
            continue
        if drop_folder(root.scope, cat.name):  # drop files wait there; a note file in it is named, never read
            problems += [root.problem("unreadable", f.path, DROP_NOTE) for f in sorted(os.scandir(cat.path), key=lambda e: e.name)
                         if f.name.endswith(".md") and f.name != "index.md" and f.is_file(follow_symlinks=False)]
            continue
        if not root.inside(Path(cat.path)):
            problems.append(root.problem("outside_root", cat.path, "category directory is a symlink out of the root; skipped"))
            continue
        try:
            check_segment(cat.name, "category")
            bad_category = ""
        except UsageError as exc:
            bad_category = str(exc)
        for f in sorted(os.scandir(cat.path), key=lambda e: e.name):
            if f.name.startswith(".tmp-") and f.name.endswith(".part"):
                drop_stale_temp(f)
                continue
            if f.is_dir(follow_symlinks=False) and not f.name.startswith(".") and holds_notes(f.path):
                problems.append(root.problem("unreadable", f.path, NESTED.format(cat=cat.name)))
                continue
            if not f.name.endswith(".md") or f.name == "index.md" or f.name.startswith("."):
                continue
            copied = synccopy.problem_detail(cat.path, cat.name, f.name[:-3])
            if copied:  # Dropbox's "(conflicted copy …)", Syncthing's ".sync-conflict-…": its note's twin, named
                problems.append(root.problem("conflict", f.path, copied))
                continue
            if f.is_symlink() and not root.inside(Path(f.path)):  # the category dir is already checked
                problems.append(root.problem("outside_root", f.path, "note is a symlink out of the root; skipped"))
                continue
            if bad_category:
                problems.append(root.problem("unreadable", f.path, bad_category))
                continue
            try:
                check_segment(f.name[:-3], "slug")
                st = f.stat()
            except (UsageError, OSError) as exc:
                problems.append(root.problem("unreadable", f.path, str(exc)))
                continue
            if not stat.S_ISREG(st.st_mode):  # a FIFO would block the reader of every command
                problems.append(root.problem("unreadable", f.path, notes.NOT_REGULAR + "; skipped"))
                continue
            denied = unreadable(f.path, st)
            if denied:  # chmod 000 after it was indexed: left out as a fresh index leaves it, said once
                problems.append(root.problem("unreadable", f.path, denied))
                continue
            found[f"{cat.name}/{f.name[:-3]}"] = (f.path, st.st_mtime_ns, st.st_size)
    found.update(root.page_items())
    return found, problems

