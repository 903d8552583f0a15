"""Note files as a root reads them (:meth:`memdir.engine.root.Root.read_note`), parsed once per version of the file.

A long-lived process (the viewer under ``memdir serve`` or ``memdir ui``, the MCP server) runs ``inspect`` for its
notes pages, Health and ``memory_inspect``; that parsed the YAML of every note file and redacted every field each
time (5,000 notes: 2.4-2.9 s a page). A file is parsed again only when its modification time, size or inode changed
(how the index's own sync tells a hand edit, :meth:`memdir.engine.root.Root.sync`); the stat is taken before the
read, so a change made meanwhile shows at the next look. At most :data:`MAX_BYTES` of note files are kept.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from memdir.engine import notesecrets
from memdir.notes import broken, conflicts
from memdir.notes import markdown as notes
from memdir.timeutil import parse_ts
from memdir.types import Note

MAX_BYTES = 64 << 20  # the note files' sizes kept parsed, per root


class Parsed:
    """One root's parsed note files: ``{note id: ((path, mtime_ns, size, inode), note, meta, secret kinds)}``."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[tuple[str, int, int, int], Note, dict[str, Any], list[str]]] = {}
        self.size = 0

    def read(self, root: Any, note_id: str, path: Path) -> tuple[Note, dict[str, Any]]:
        """``(note as shown, frontmatter)``, as :meth:`Root.read_note` gives it; raises what it raises."""
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size, st.st_ino)
        hit = self.rows.get(note_id)
        if hit is not None and hit[0] == key:
            _, note, meta, kinds = hit
        else:
            note, meta, kinds = _parse(root, note_id, path, st)
            old = self.rows.pop(note_id, None)
            self.size -= old[0][2] if old else 0
            if self.size + st.st_size <= MAX_BYTES:
                self.rows[note_id] = (key, note, meta, kinds)
                self.size += st.st_size
        if kinds:  # the root's record of notes whose file holds a secret, as notesecrets.shown keeps it
            root.secrets[note_id] = kinds
        else:
            root.secrets.pop(note_id, None)
        return note, copy.deepcopy(meta)


def _parse(root: Any, note_id: str, path: Path, st: Any) -> tuple[Note, dict[str, Any], list[str]]:
    raw = notes.read_text(path)
    found = conflicts.hunks(raw)
    if found:  # a `git pull` left markers: never indexed or shown as the note's own words
        raise conflicts.Conflicted(conflicts.problem(found))
    meta, body, _ = broken.split(raw)  # a frontmatter that lost its opening line is still read as one
    category = note_id.split("/", 1)[0]
    f = notes.fields(meta, body, category=category, fallback_time=parse_ts(st.st_mtime))
    note = Note(id=note_id, category=category, kind=f["kind"], summary=f["summary"], text=body.strip(),
                scope=root.scope, path=path, tags=f["tags"], load_when=f["load_when"], pinned=f["pinned"],
                supersedes=f["supersedes"], superseded_by=f["superseded_by"], created=f["created"],
                updated=f["updated"], highlight=f["highlight"])
    note, kinds = notesecrets.redacted(note)
    return note, meta, kinds
