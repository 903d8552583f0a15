"""Copies of a note that sync and merge tools leave beside it under a ``.md`` name of their own.

Dropbox, Nextcloud and ownCloud keep both versions of a file two machines changed as ``note (conflicted copy
2026-12-01).md`` (``(Ann's conflicted copy …)``, ``(Case Conflict)``, ``(Selective Sync Conflict)``), Syncthing as
``note.sync-conflict-20261201-123456-ABCDEFG.md``, and an aborted ``git mergetool`` leaves ``note_BASE_1234.md``,
``note_LOCAL_…``, ``note_REMOTE_…``, ``note_BACKUP_…``. Such a file is no memory of its own (read as one, the note
would count twice): the scan names it as a conflict copy of its note and reads it no further, leaving it in place.
A name memdir writes (lower-case words joined by ``-``) never matches.
"""

from __future__ import annotations

import os
import re

_DROPBOX = re.compile(r"(?P<base>.+?) \((?:[^()]*conflicted copy[^()]*(?:\(\d+\))?|Case Conflict|Selective Sync Conflict)"
                      r"\)(?: ?\(\d+\))?", re.IGNORECASE)
_SYNCTHING = re.compile(r"(?P<base>.+?)\.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]{7})?")
_MERGETOOL = re.compile(r"(?P<base>.+?)_(?:BASE|LOCAL|REMOTE|BACKUP)_\d+")

_TOOLS = ((_DROPBOX, "a sync tool's conflict copy"), (_SYNCTHING, "a Syncthing conflict copy"),
          (_MERGETOOL, "a copy git mergetool left from a merge conflict"))


def original(stem: str) -> tuple[str, str] | None:
    """``(the note's own file stem, what made the copy)`` when ``stem`` (a file name without ``.md``) is such a copy,
    else ``None``."""
    for pattern, what in _TOOLS:
        got = pattern.fullmatch(stem)
        if got:
            return got.group("base"), what
    return None


def problem_detail(folder: str, category: str, stem: str) -> str | None:
    """The one-line problem for the file ``<folder>/<stem>.md`` of ``category`` when it is such a copy, else ``None``:
    what made it and how to mend it (merge it into its note, or rename it to the note's name when the note is gone)."""
    found = original(stem)
    if found is None:
        return None
    base, what = found
    note = f"{category}/{base}.md"
    if base.casefold() == "index":  # the compiled index: nothing to merge, memdir writes it from the notes
        return (f"{what} of {category}/index.md, which memdir compiles from the notes: not read; delete it (copy any "
                "line you wrote below its auto markers into index.md first)")
    if os.path.exists(os.path.join(folder, base + ".md")):
        fix = f"merge what it adds into {note}, then delete it"
    else:
        fix = f"{note} is gone: rename this file to {note} to keep it as that note"
    return f"{what} of {category}/{base}: not read as a note, so it does not count twice; {fix}"


def page_copy_detail(stem: str, page: str = "ROOT.md") -> str | None:
    """The one-line problem for a file ``<stem>.md`` at a root's top when it is such a copy of ``page`` (the
    root's page of goals and hard rules), else ``None``: it is read as nothing, so what was written by hand in it is
    shown nowhere until merged."""
    found = original(stem)
    if found is None or found[0].casefold() + ".md" != page.casefold():
        return None
    return (f"{found[1]} of {page}: not read, so the goals and hard rules written in it are not shown; merge what "
            f"you wrote by hand there into {page} (its routing tables are compiled), then delete this copy")
