"""An exported note brought back (``memdir import <export.jsonl>``, a migration from another tool): its id, times,
kind, highlight, pin and supersede links as they were, once however often the import runs (:func:`restore_note`).
"""

from __future__ import annotations

from typing import Any

from memdir.capture import events as cevents
from memdir.engine.curated import get, remember, replace_note, stored_text
from memdir.errors import PathError, UsageError
from memdir.notes import filenames, markdown as notes
from memdir.roots import check_segment, split_id
from memdir.stores import SCOPES, Stores
from memdir.timeutil import parse_ts
from memdir.types import Note

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from memdir.engine.root import Root


def restore_note(s: Stores, obj: dict[str, Any], *, shared_text: bool = False) -> Note:
    """Bring back an exported note as it was: same id when free, times, kind, highlight, pinned and the
    supersede links. Same text already in that root → the existing note (``existed``); a superseded copy of the
    same text counts too (a re-run of an import or a migration adds no ``…-2.md``, and an export made before a
    supersede does not bring the replaced text back as a live note). Raises like :meth:`remember`."""
    scope = obj.get("scope") if obj.get("scope") in SCOPES else "project"
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        raise UsageError("a note line needs a non-empty text")
    nid = obj.get("id")
    try:
        category, slug = split_id(nid) if isinstance(nid, str) else (None, None)
    except PathError:
        category, slug = None, None
    category = category or obj.get("category") or "facts"
    check_segment(category, "category")
    root = s.root(scope)
    if category not in s.config.get("categories"):  # a custom category the export came from: recreate it
        root.ensure()
        from memdir.roots import safe_join

        safe_join(root.path, category).mkdir(mode=0o755, exist_ok=True)  # never writable by others
    # the same text superseded here, and the export's copy too or older than its replacement: already there
    old = superseded_copy(s, root, text, nid)
    if old is not None and (obj.get("superseded_by") or not _written_after(s, obj, old)):
        return replace_note(old, existed=True)
    # the same text under another id, this id free, and the export itself holds that text twice (``shared_text``):
    # two notes of one text (two files, as memdir keeps them); else it is this note, already here
    apart = False
    if isinstance(nid, str) and root.exists():
        here = get(s, nid, scope=scope)
        if isinstance(here, Note):
            if notes.content_hash(stored_text(here.text)) == notes.content_hash(stored_text(text)):
                return replace_note(here, existed=True)
        else:
            same = root.store.live_note_with_sha(notes.content_hash(stored_text(text)))
            apart = shared_text and same is not None and same != nid
    f = typed_fields(obj, text, category)
    note = remember(s, text, category=category, summary=f["summary"], tags=f["tags"], load_when=f["load_when"],
                    pinned=f["pinned"], scope=scope, kind=f["kind"], highlight=f["highlight"], same_text_apart=apart)
    if note.existed:
        return note
    root = s.root(scope)
    changes: dict[str, Any] = {}
    for key in ("created", "updated"):
        try:
            changes[key] = parse_ts(obj[key])
        except (KeyError, UsageError):
            pass
    for key in ("supersedes", "superseded_by"):
        if isinstance(obj.get(key), str) and obj[key].strip():
            changes[key] = cevents.clean(obj[key]).strip()
    target = note.id
    with root.locked():
        path = note.path
        raw = notes.update_fields(notes.read_text(path), changes) if changes else notes.read_text(path)
        if slug and f"{category}/{slug}" != note.id and not filenames.taken_in(root.path / category)(slug):
            target = f"{category}/{slug}"
            raw = notes.update_fields(raw, {"id": target})
            notes.atomic_write(root.path / category / f"{slug}.md", raw)
            path.unlink()
            root.refresh(note.id)
        else:
            notes.atomic_write(path, raw)
        root.refresh(target)
        root.compile(categories=[category])
    got = get(s, target, scope=scope)
    return got if isinstance(got, Note) else note


def typed_fields(obj: dict[str, Any], text: str, category: str) -> dict[str, Any]:
    """An exported note's summary, kind, highlight, tags, load_when and pinned read as its frontmatter would be
    (:func:`memdir.notes.markdown.fields`): an export edited by hand may hold ``"tags": "pnpm"`` or ``"pinned": "false"``;
    a value that cannot be read (a mapping as tags, a list as summary) is ``None`` or empty, never a crash."""
    meta = {k: obj[k] for k in ("summary", "kind", "highlight", "tags", "load_when", "pinned") if k in obj}
    f = notes.fields(meta, text, category=category, fallback_time=parse_ts(0))
    f["summary"] = obj["summary"] if isinstance(obj.get("summary"), str) else None  # None: remember makes one
    return f


def _written_after(s: Stores, obj: dict[str, Any], old: Note) -> bool:
    """True when the exported note ``obj`` was last written after the note that superseded ``old`` here was made."""
    made = getattr(get(s, old.superseded_by, scope=old.scope) if old.superseded_by else None, "created", None)
    written = parse_ts(obj.get("updated") or obj.get("created") or "", default=made) if made else None
    return made is not None and written > made


def superseded_copy(s: Stores, root: Root, text: str, nid: Any) -> Note | None:
    """The note of ``root`` holding ``text`` (as :func:`remember` would store it) that is superseded — ``nid``
    first, then any superseded note — or ``None``."""
    if not root.exists():
        return None
    sha = notes.content_hash(stored_text(text))
    store = root.store
    if not store.has_text(sha, "note"):
        return None
    refs = [nid] if isinstance(nid, str) else []
    refs += sorted(r["ref"] for r in store.note_entries() if r["superseded_by"])
    for ref in refs:
        if store.ref_sha(ref) == sha:
            got = get(s, ref, scope=root.scope)
            if isinstance(got, Note) and got.superseded_by:
                return got
    return None
