"""Curated notes on the two roots: remember (redacted, deduplicated, superseding), get by id or handle, edit,
pin, recent, the rule proposals, and the restore of an exported note. Functions of a :class:`memdir.stores.Stores`;
:class:`memdir.core.Memdir` delegates to them.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, NoReturn

from memdir.capture import events as cevents
from memdir.engine import events as event_ops
from memdir.engine import idforms, lexical, noteargs
from memdir.errors import EditConflict, MemdirError, NotFound, PathError, UsageError, count_arg, items_arg, text_arg, version_arg
from memdir.lazylog import getLogger
from memdir.notes import filenames, markdown as notes
from memdir.roots import ROOT_PAGE, drop_folder, split_id
from memdir.stores import Stores
from memdir.timeutil import parse_ts
from memdir.types import Event, Hit, Note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.engine.root import Root

log = getLogger("memdir")  # imports logging only when a record can go somewhere


def replace_note(note: Note, **changes: Any) -> Note:
    from dataclasses import replace

    return replace(note, **changes)


def summary_of(text: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line if len(line) <= 100 else cevents.whole_head(line, 99).rstrip() + "…"
    return cevents.whole_head(text, 100)


def near_duplicate(store, text: str) -> str | None:
    """The ref of the first live note whose text differs from ``text`` only by case, spacing or punctuation
    (:func:`memdir.notes.markdown.near_key`), or ``None``. Notes are curated and few: one pass over their texts."""
    key = notes.near_key(text)
    for row in store.live_notes():
        if notes.near_key(row["text"]) == key:
            return row["ref"]
    return None


def stored_text(text: str) -> str:
    """``text`` as a note stores it: control characters left out (:func:`memdir.notes.markdown.plain_text`), secrets
    redacted, white space at its ends stripped."""
    return cevents.redact_text(notes.plain_text(text)).strip()


def stored_items(items: Iterable[Any]) -> list[str]:
    """Tags or load_when as a note stores them: each :func:`stored_text`, those that show nothing left out."""
    return [stored_text(str(t)) for t in items if not notes.is_blank(str(t))]


def stored_summary(summary: str | None, text: str) -> str:
    """A summary as a note stores it: one line, cleaned and redacted; the stored ``text``'s first line when none."""
    return cevents.redact_text(" ".join(notes.plain_text(summary or "").split())) or summary_of(text)


#: bytes a note's summary, highlight, tags and load_when may take together: the body's bound (``MAX_NOTE_BYTES`` -
#: 100,000) plus these and the frontmatter's keys stay under ``MAX_NOTE_BYTES``, so the file written reads back
FIELDS_MAX_BYTES = 80_000


def remember(s: Stores, text: str, *, category: str = "facts", summary: str | None = None, tags: Iterable[str] = (),
             load_when: Iterable[str] = (), pinned: bool = False, supersedes: str | None = None,
             scope: str = "project", kind: str | None = None, highlight: str | None = None,
             provenance: dict[str, Any] | None = None, same_text_apart: bool = False) -> Note:
    """The body of :meth:`memdir.Memdir.remember`, whose docstring is the contract. ``same_text_apart``: write a
    new note even when the root holds this text under another id (:func:`memdir.engine.restore.restore_note`: an export's two notes of one
    text are two files, as they were)."""
    summary, tags, load_when, highlight, supersedes, provenance, pinned = noteargs.note_args(
        "remember", text, summary=summary, tags=tags, load_when=load_when, highlight=highlight, supersedes=supersedes,
        provenance=provenance, pinned=pinned)
    root = s.root(scope)
    noteargs.check_category(s, root, category)
    text = stored_text(text)
    refuse_markers(text, "remember")
    if len(text.encode("utf-8")) > notes.MAX_NOTE_BYTES - 100_000:  # refused before any file is written
        raise UsageError(f"note too long ({len(text.encode('utf-8')):,} bytes in UTF-8, {len(text):,} characters): a "
                         f"note holds at most {notes.MAX_NOTE_BYTES - 100_000:,} bytes; keep long material in a file and "
                         "remember a pointer to it")
    summary = stored_summary(summary, text)
    tags = tuple(dict.fromkeys(stored_items(tags)))
    load_when = tuple(dict.fromkeys(stored_items(load_when)))
    highlight = stored_text(highlight) if highlight else None
    fields = sum(len(x.encode("utf-8")) for x in (summary, highlight or "", *tags, *load_when))
    if fields > FIELDS_MAX_BYTES:  # with the body's bound, the file stays under what readers take: none is written
        raise UsageError(f"note too long: its summary, highlight, tags and load_when come to {fields:,} bytes "
                         f"(at most {FIELDS_MAX_BYTES:,} beside the text); shorten them")
    sha = notes.content_hash(text)
    root.ensure()
    with root.locked(), s.looked():  # a file left unindexed (Ctrl-C) or written by hand: found, not copied
        store = root.store
        clean = root.gens()[0] == root.gens()[1]
        ref = store.live_note_with_sha(sha)  # a superseded copy does not count: re-stating it revives the text
        if ref is None:  # a near-duplicate: same words, other case/spacing/punctuation (issue 13 item 10)
            ref = near_duplicate(store, text)
        existing = get(s, ref, scope=scope) if ref is not None and not same_text_apart else None
        if isinstance(existing, Note) and not supersedes:
            log.debug("remember: same text as %s; nothing written", existing.id)
            return replace_note(existing, existed=True)
        if not isinstance(existing, Note):
            existing = None
        old_root = None
        if supersedes:
            supersedes = resolve(s, supersedes.strip())  # the handle a block or recall shows works here too
            if "/" not in supersedes:  # no id, and no handle any root knows: say so, not "ids have the form …"
                raise UsageError(f"cannot supersede {supersedes!r}: no note has that id or handle (see `memdir recall` "
                                 "or `memdir inspect`)")
            split_id(supersedes)
            refuse_page_item(supersedes)  # a line of ROOT.md or a compiled index.md: no note to supersede
            old_root = next((r for r in (root, *s.live()) if r.exists() and r.store.has_ref(supersedes, "note")),
                            None)
            if old_root is None:
                raise UsageError(f"cannot supersede {supersedes!r}: no such note (see `memdir inspect`)")
            # the old note's file must take the link before the new note is written: a failure after it would leave
            # the new note's file unindexed, and the retry a second copy of it
            rewritable(old_root.path / (supersedes + ".md"), supersedes, "supersede")
            was = get(s, supersedes, scope=old_root.scope)
            by = getattr(was, "superseded_by", None)
            if by and by != getattr(existing, "id", None):  # a second link would leave the first one dangling
                # said the same way to the CLI, the API and an MCP model (whose argument is no --supersedes flag)
                raise UsageError(f"{supersedes} is superseded by {by} already: supersede {by} instead")
        if existing is not None and existing.supersedes == supersedes:
            return replace_note(existing, existed=True)  # linked so already: nothing to write
        if existing is not None:  # the text is stored already: that note takes the link (it was dropped unsaid)
            if supersedes == existing.id:
                raise UsageError(f"{existing.id} holds this text already: a note cannot supersede itself")
            if existing.supersedes:  # a second link would leave the first superseded note hidden for good
                raise UsageError(f"{existing.id} holds this text already and supersedes {existing.supersedes}: a "
                                 "note supersedes one other; remember a new text to supersede this one too")
            now = s.clock()
            rewrite_note(root.path / (existing.id + ".md"), existing.id, {"supersedes": supersedes, "updated": now},
                         "supersede")
            if old_root is root:
                mark_superseded(root, supersedes, existing.id, now)
            root.refresh(existing.id)
            root.compile(categories=sorted({existing.category, supersedes.split("/")[0]}), was_clean=clean)
            note_id = existing.id
            note = replace_note(written(s, existing.id, root.scope), existed=True)
        else:
            note_id, now, note = _write_new(s, root, text, category=category, summary=summary, tags=tags,
                                            load_when=load_when, pinned=pinned, supersedes=supersedes, kind=kind,
                                            highlight=highlight, provenance=provenance, old_root=old_root, clean=clean)
    if supersedes and old_root is not None and old_root is not root:
        # the other root's lock is taken only after this one is released: two writers superseding across the
        # roots in opposite directions can never wait on each other
        with old_root.locked():
            mark_superseded(old_root, supersedes, note_id, now, compile_=True)
    return note


def _write_new(s: Stores, root: Root, text: str, *, category: str, summary: str, tags: tuple, load_when: tuple,
               pinned: bool, supersedes: str | None, kind: str | None, highlight: str | None,
               provenance: dict[str, Any] | None, old_root: Any, clean: bool) -> tuple[str, datetime, Note]:
    """:func:`remember`'s new note file, its supersede link in the same root and the compiled indexes (the caller
    holds ``root``'s lock): ``(note id, time written, the note read back)``."""
    cat_dir = root.path / category
    from memdir.roots import safe_join

    safe_join(root.path, category)
    slug = notes.slugify(summary, exists=filenames.taken_in(cat_dir))  # Deploy.md or an NFD name counts as taken
    note_id = f"{category}/{slug}"
    now = s.clock()
    meta: dict[str, Any] = {"id": note_id, "kind": kind or notes.kind_for(category), "summary": summary}
    if highlight:
        meta["highlight"] = highlight
    meta.update({"created": now, "updated": now, "load_when": list(load_when), "tags": list(tags), "pinned": bool(pinned)})
    if supersedes:
        meta["supersedes"] = supersedes
    for key, val in (provenance or {}).items():
        if isinstance(key, str) and key not in meta and key not in ("superseded_by", "id"):
            meta[key] = cevents.redact_obj(val)
    path = safe_join(root.path, category, slug + ".md")
    notes.atomic_write(path, notes.render(meta, text + "\n"))
    if supersedes and old_root is root:
        mark_superseded(root, supersedes, note_id, now)
    root.refresh(note_id)
    root.compile(categories=sorted({category, (supersedes or category).split("/")[0]}), was_clean=clean)
    return note_id, now, written(s, note_id, root.scope)  # under the lock: a forget racing it cannot take it first


def mark_superseded(root: Root, old_id: str, new_id: str, now: datetime, *, compile_: bool = False) -> None:
    """Write ``superseded_by`` into the old note's file and refresh it (caller holds ``root``'s lock)."""
    old_path = root.path / (old_id + ".md")
    old_clean = root.gens()[0] == root.gens()[1]
    rewrite_note(old_path, old_id, {"superseded_by": new_id, "updated": now}, "supersede")
    root.refresh(old_id)
    if compile_:
        root.compile(categories=[old_id.split("/")[0]], was_clean=old_clean)


def resolve(s: Stores, id: str, scope: str | None = None) -> str:
    """``id`` itself when some root holds that note id or event key; else the id/key whose short handle (the
    ``[handle kind date]`` of the ``<memory>`` block, :mod:`memdir.recall.handles`) is ``id``, project first; a
    handle typed in capitals (``MHBSZG``) is that handle; an unknown ``id`` wrapped as a copy wraps it (quotes,
    brackets, ``#``: :func:`~memdir.recall.handles.unwrapped`) is what it wraps when a root holds that."""
    from memdir.recall import handles

    id = idforms.held(s.live(scope), id)  # a note named in the other Unicode spelling (macOS, NFD file names)
    bare = handles.unwrapped(id)  # '#k3f9qa', `facts/x`, a block's [k3f9qa fact 12-06]: asked when id itself is unknown
    if bare != id and not any(r.store.has_ref(id) for r in s.live(scope)):
        got = resolve(s, bare, scope)
        if any(r.store.has_ref(got) for r in s.live(scope)):
            return got
    if not handles.looks_like(id.lower()):
        return id
    roots = s.live(scope)
    if any(r.store.has_ref(id) for r in roots):
        return id
    for r in roots:
        ref = r.store.resolve_handle(id.lower())
        if ref is not None:
            return ref
    return id


def get(s: Stores, id: str, *, scope: str | None = None, remote: bool = False) -> Note | Event | None:
    """The body of :meth:`memdir.Memdir.get`, whose docstring is the contract."""
    if not isinstance(id, str):
        return None
    s.look()  # C20: what is on disk now
    event_ops.drain_pending(s)  # an event a hook queued while the lock was busy is readable at once
    id = resolve(s, cevents.clean(id).strip(), scope)
    for root in s.live(scope):
        row = root.store.get_doc(id)
        if row is None:
            continue
        if row["kind"] == "event":
            return Event(key=row["ref"], role=row["role"], text=row["text"], session=row["session"],
                         ts=parse_ts(row["ts"]), scope=root.scope)
        try:
            note, _ = root.read_note(row["ref"], root.path / (row["ref"] + ".md"))
            return note
        except (UsageError, OSError):
            whole = root.read_broken_note(row["ref"], root.path / (row["ref"] + ".md"))  # broken frontmatter
            if whole is not None:
                return whole
            continue
    # a team hit's handle or key: the server has it (asked only when a reader asks for one memory by id: the viewer and
    # the block look ids up in loops, and a round trip per miss would stall them)
    if remote and scope in (None, "project") and s.config.get("remote.url"):
        from memdir.engine import teamview

        got = teamview.read(s.config, s.project_root, id)
        if got is not None:
            return Event(key=got["ref"], role=str(got.get("role") or "event"), text=got["text"], session=got.get("session"),
                         ts=parse_ts(got["ts"]) if got.get("ts") else None, scope="team")
    return None


def note_problems(s: Stores) -> list[dict[str, str]]:
    """The body of :meth:`memdir.Memdir.note_problems`, whose docstring is the contract."""
    return [p for r in s.roots.values() if r.opened is not None for p in r.problems if p["kind"] == "unreadable"]


def categories(s: Stores, scope: str | None = None) -> list[str]:
    """The categories of the roots of ``scope``: configured, and the folders the roots hold, sorted."""
    return sorted({*s.config.get("categories"), *(p.name for r in s.live(scope) if r.path.is_dir()
                                                  for p in r.path.iterdir() if p.is_dir() and not p.name.startswith(".") and not drop_folder(r.scope, p.name))})


def note_kinds(s: Stores) -> list[str]:
    """The kinds a note can have: those of :func:`categories` (:func:`memdir.notes.markdown.kind_for`), sorted."""
    return sorted({notes.kind_for(c) for c in categories(s)})


def check_kinds(s: Stores, kinds: Iterable[str], scope: str | None = None) -> list[str]:
    """Raise ``UsageError`` naming the first of ``kinds`` that no memory can have (``note``, ``event``, an event's
    role, a category's note kind): a typo would read as "no memories". Returns the categories of the roots of
    ``scope`` (configured and present), sorted."""
    cats = categories(s, scope)
    known = ("note", "event", *cevents.ROLES, *sorted({notes.kind_for(c) for c in cats}))
    bad = [x for x in kinds if x not in known]
    if bad:
        raise UsageError(f"unknown kind {bad[0]!r}: use one of {', '.join(known)}")
    return cats


def recent(s: Stores, *, kinds: Iterable[str] | None = None, category: str | None = None, scope: str | None = None,
           limit: int = 20) -> list[Hit]:
    """The body of :meth:`memdir.Memdir.recent`, whose docstring is the contract."""
    limit = min(count_arg(limit, "limit", zero="0 lists none"), 500)
    if not limit:
        return []
    s.look()
    event_ops.drain_pending(s)  # what hooks queued while the lock was busy is listed too
    kinds = items_arg(kinds, "kinds")
    cats = check_kinds(s, kinds, scope)
    if category is not None and category not in cats:
        raise UsageError(f"unknown category {category!r}: use one of {', '.join(cats)}")
    doc_kinds = tuple(x for x in kinds if x in ("note", "event"))
    sub = tuple(x for x in kinds if x not in ("note", "event"))
    rows = []
    for root in s.live(scope):
        rows += [(r["ts_epoch"], root, r) for r in root.store.recent(doc_kinds=doc_kinds, sub_kinds=sub, category=category,
                                                                      limit=limit)]
    rows.sort(key=lambda x: -x[0])
    return [lexical.hit(s, root, r, 0.0, [], {}, r["note_kind"] if r["kind"] == "note" else r["role"])
            for _, root, r in rows[:limit]]


def note_root(s: Stores, id: str, scope: str | None) -> tuple[Root, str]:
    s.look()  # a long-lived process: a note renamed or deleted on disk since its last look (C20)
    if isinstance(id, str):  # a short handle, or an id wrapped as a copy wraps it, names the note as get finds it
        from memdir.recall.handles import unwrapped

        got = resolve(s, id.strip(), scope)
        id = unwrapped(got) if got == id.strip() else got  # unknown: said of the id it wraps, not of its quotes
        if "/" not in id:  # no note or event has that handle: say so, as get and forget do
            raise NotFound(f"no note has the handle or id {id!r}; the block, `memdir recall` and `memdir recent` show them")
    category, slug = split_id(id)
    nid = f"{category}/{slug}"
    refuse_page_item(nid)
    for root in s.live(scope):
        path = root.path / category / f"{slug}.md"
        if path.is_file():
            if not root.inside(path):  # a link a clone may carry: never read (an edit page) nor replaced
                raise PathError(f"{nid} is a symlink out of the memory root ({path}); memdir neither reads nor "
                                "writes it")
            return root, nid
    raise NotFound(f"no note has the id {nid!r}; see `memdir inspect` for ids")


def refuse_page_item(nid: str) -> None:
    """Raise ``UsageError`` when ``nid`` is a goal or rule of ROOT.md (``ROOT.md/rule-01``): those are lines a person
    wrote in that page, changed or removed by editing it, never through memdir; or when it names a category's
    compiled ``index.md`` (``facts/index``), which is no note: memdir rewrites it from the notes (a forget deleted
    and rewrote it and left a tombstone; a pin gave it frontmatter and listed it in itself)."""
    if nid.startswith(ROOT_PAGE + "/"):
        raise UsageError(f"{nid} is a line of {ROOT_PAGE}: edit {ROOT_PAGE} by hand to change or remove it")
    category, _, slug = nid.rpartition("/")
    if category and slug.casefold() == "index":  # INDEX.md is index.md on macOS and Windows file systems
        raise UsageError(f"{nid} is the compiled index of {category}/, not a note: memdir rewrites it from the notes; "
                         "forget, pin or edit one of the notes it lists instead")


def note_source(s: Stores, id: str, *, scope: str | None = None) -> str:
    """The body of :meth:`memdir.Memdir.note_source`, whose docstring is the contract."""
    root, nid = note_root(s, id, scope)
    return notes.read_text(root.path / (nid + ".md"))


def edit(s: Stores, id: str, text: str, *, scope: str | None = None, expect: str | None = None) -> Note:
    """The body of :meth:`memdir.Memdir.edit`, whose docstring is the contract."""
    expect = version_arg(expect)  # a number or a typo is a bad argument, not a change made on disk
    try:
        root, nid = note_root(s, id, scope)
    except NotFound:
        if expect is None or not isinstance(id, str) or "/" not in id:
            raise
        refuse_conflict(id.strip(), expect, None, text)  # deleted on disk since the editor read it
    with root.locked():  # the version is compared, and the file replaced, under the write lock: no edit slips between
        return edit_locked(s, root, nid, text, expect)


def refuse_markers(text: str, what: str) -> None:
    """Raise ``UsageError`` when ``text`` holds a git merge conflict's markers (:func:`memdir.notes.conflicts.hunks`):
    written, the note would be a conflicted file, read as both sides until a person resolves it."""
    from memdir.notes import conflicts

    found = conflicts.hunks(text)
    if found:
        raise UsageError(f"{what} refused: the text holds an unresolved git merge conflict ({conflicts.where(found)}): "
                         "keep the right side and delete the marker lines; nothing was written")


def refuse_conflict(nid: str, expect: str, theirs: str | None, yours: str) -> NoReturn:
    """Raise :class:`memdir.errors.EditConflict` for an edit of ``nid`` made from version ``expect``."""
    found = None if theirs is None else notes.version(theirs)
    now = "deleted it" if theirs is None else f"made version {found}"
    raise EditConflict(f"edit refused: {nid} changed on disk after version {expect} was opened (a change there "
                       f"{now}); nothing was written", id=nid, expected=expect, found=found, theirs=theirs, yours=yours)


def cur_body(root: Root, nid: str) -> str | None:
    """The body of note ``nid``'s file as it is now, or ``None`` when it cannot be read as a note."""
    try:
        return notes.split(notes.read_text(root.path / (nid + ".md")).replace("\r\n", "\n"))[1]
    except (UsageError, OSError):
        return None


def edit_locked(s: Stores, root: Root, nid: str, text: str, expect: str | None) -> Note:
    """:func:`edit` with the root's write lock held."""
    path = root.path / (nid + ".md")
    if expect is None and not path.exists():  # forgotten (or removed by hand) since the editor opened it
        raise NotFound(f"no note has the id {nid!r} (its file is gone: forgotten meanwhile?)")
    if expect is not None:
        try:
            theirs: str | None = notes.read_text(path)
        except FileNotFoundError:
            theirs = None
        if theirs is None or notes.version(theirs) != expect:
            refuse_conflict(nid, expect, theirs, text)
    if isinstance(text, str):
        refuse_markers(text, "edit")
    meta, body = notes.check_edit(text, note_id=nid, before=cur_body(root, nid))
    kind = meta.get("kind")
    if isinstance(kind, str) and kind.strip() and kind.strip() not in note_kinds(s):
        try:  # a kind the file had already (written by hand before) is not this edit's to refuse
            had = notes.split(notes.read_text(path))[0].get("kind")
        except (UsageError, OSError):
            had = None
        if had != kind:
            raise UsageError(f"edit refused: kind {kind.strip()!r} names no category: use one of "
                             f"{', '.join(note_kinds(s))}, or leave the field out (the category's kind is used); "
                             "nothing was written")
    body_alone = isinstance(text, str) and notes.split(text.replace("\r\n", "\n"))[2] is None
    if body_alone and notes.lost_opening(text, nid):  # its frontmatter would become the note's text
        raise UsageError("edit refused: the text holds the note's frontmatter (id:, kind: … then ---) without the "
                         "opening '---' line; put that line back first, or give the body alone; nothing was written")
    try:
        old_meta, old_body, _ = notes.split(notes.read_text(path))
    except UsageError as exc:
        if body_alone:  # its summary, tags, pinned and times would go with the broken lines, unseen
            raise MemdirError(f"edit refused: {path} has a broken frontmatter ({exc}) that a body alone would throw "
                              f"away; give the whole note with its frontmatter fixed (`memdir edit {nid}` opens it "
                              "in your editor); nothing was written") from None
        # the file's own frontmatter is broken (a hand edit): an edit is how it gets repaired, so it is not
        # compared; the supersede links it may have held are what the new text says
        old_meta = meta
    else:
        if body_alone:
            # a body alone (`echo "new body" | memdir edit ID -`): the note keeps its frontmatter (pinned, tags, times);
            # a summary that was the old body's first line (remember's default) follows the new body, one a person
            # wrote stays
            meta = {k: v for k, v in old_meta.items() if k != "updated"}
            was = meta.get("summary")
            if isinstance(was, str) and was.strip() in (summary_of(cevents.redact_text(old_body).strip()),
                                                        summary_of(stored_text(old_body))) and body.strip():
                meta["summary"] = summary_of(stored_text(body))
    for k in ("supersedes", "superseded_by"):
        if (meta.get(k) or None) != (old_meta.get(k) or None):
            raise UsageError(f"edit refused: {k} cannot be changed by an edit (it was {old_meta.get(k)!r}); "
                             "use supersede, or forget the newer note")
    if not meta.get("created") and old_meta.get("created"):  # a frontmatter written without it: the note was not made now
        meta["created"] = old_meta["created"]
    # every string of the frontmatter as remember writes it: control characters and escape sequences left out
    meta = {k: (cevents.redact_text(notes.plain_text(v)) if isinstance(v, str) else
                [cevents.redact_text(notes.plain_text(str(x))) for x in v] if isinstance(v, list) else v)
            for k, v in meta.items()}
    meta = {"id": nid, **{k: v for k, v in meta.items() if k != "id"}}
    meta["updated"] = s.clock()
    body = stored_text(body) + "\n"
    clean = root.gens()[0] == root.gens()[1]
    notes.atomic_write(path, notes.render(meta, body), within=root.path)  # a note kept as a link in the root
    root.refresh(nid)
    root.compile(categories=[nid.split("/")[0]], was_clean=clean)
    return written(s, nid, root.scope)


def written(s: Stores, nid: str, scope: str) -> Note:
    """The note just written, read back while the root's lock is still held; ``NotFound`` (not an internal error)
    should its file be gone even so (removed by hand)."""
    note = get(s, nid, scope=scope)
    if not isinstance(note, Note):
        raise NotFound(f"no note has the id {nid!r} (its file is gone)")
    return note


def _note_for_rewrite(path: Path, nid: str, what: str, changes: dict[str, Any]) -> tuple[Any, str]:
    """``(file state, new text)``: the note file ``path`` as read, with ``changes`` made to its frontmatter
    (:func:`memdir.notes.markdown.update_fields`). Raises ``NotFound`` when it is gone, ``MemdirError`` (exit 1: the
    file's state, not the command) when it is empty (an editor saving it, or a file emptied by hand: nothing of the
    note is left to keep) or unreadable."""
    state = notes.file_state(path)
    if state is None:
        raise NotFound(f"no note has the id {nid!r} (its file is gone)")
    try:
        raw = notes.read_text(path)
        if state[1] == 0 or not notes.split(raw)[1].strip():
            raise MemdirError(f"cannot {what} {nid}: {path} is empty (another program may be saving it); try again, "
                              f"or give the note its text with `memdir edit {nid}`")
        return state, notes.update_fields(raw, changes)
    except FileNotFoundError:
        raise NotFound(f"no note has the id {nid!r} (its file is gone)") from None
    except UsageError as exc:
        raise MemdirError(f"cannot {what} {nid}: {path} is unreadable ({exc}); repair it first with "
                          f"`memdir edit {nid}`") from None


def rewritable(path: Path, nid: str, what: str) -> None:
    """Raise as :func:`rewrite_note` would when the note file ``path`` cannot take a field change now (writes none)."""
    _note_for_rewrite(path, nid, what, {})


def rewrite_note(path: Path, nid: str, changes: dict[str, Any], what: str) -> None:
    """Change frontmatter fields of the note file ``path`` in place, read again when another program saves it
    meanwhile. Raises as :func:`_note_for_rewrite` does, and ``MemdirError`` when it keeps changing."""
    for _ in range(3):
        state, raw = _note_for_rewrite(path, nid, what, changes)
        try:
            notes.atomic_write(path, raw, expect=state, within=path.parents[nid.count("/")])  # <root>/<nid>.md
            return
        except notes.FileChanged:
            continue
    raise MemdirError(f"cannot {what} {nid}: {path} keeps changing on disk; try again")


def pin(s: Stores, id: str, pinned: bool = True, *, scope: str | None = None) -> Note:
    """The body of :meth:`memdir.Memdir.pin`, whose docstring is the contract."""
    root, nid = note_root(s, id, scope)
    path = root.path / (nid + ".md")
    with root.locked():
        rewritable(path, nid, "pin")  # an emptied file is said to be empty (it is no longer indexed), not "gone"
        now = written(s, nid, root.scope)
        if now.pinned == bool(pinned):  # so already: the file (and the person's git tree) is left as it is
            return now
        clean = root.gens()[0] == root.gens()[1]
        rewrite_note(path, nid, {"pinned": bool(pinned), "updated": s.clock()}, "pin")
        root.refresh(nid)
        root.compile(categories=[nid.split("/")[0]], was_clean=clean)
        return written(s, nid, root.scope)


def propose(s: Stores, text: str, *, category: str = "rules", summary: str | None = None, tags: Iterable[str] = (),
            load_when: Iterable[str] = (), supersedes: str | None = None, scope: str = "project",
            source: str = "mcp", provenance: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body of :meth:`memdir.Memdir.propose`, whose docstring is the contract."""
    from memdir.notes import proposals

    summary, tags, load_when, _, supersedes, provenance, _ = noteargs.note_args(
        "propose", text, summary=summary, tags=tags, load_when=load_when, supersedes=supersedes, provenance=provenance)
    text, root, source = stored_text(text), s.root(scope), text_arg(source, "source")
    noteargs.check_category(s, root, category)
    root.ensure()
    with root.locked():
        p, created = proposals.create(
            root.path, text=text, summary=stored_summary(summary, text), category=category, tags=stored_items(tags),
            load_when=stored_items(load_when), supersedes=supersedes,
            source=source, now=s.clock(), provenance=cevents.redact_obj(provenance or {}))
    return {**p, "scope": scope, "created": created}


def proposals(s: Stores, *, status: str | None = "pending") -> list[dict[str, Any]]:
    """The body of :meth:`memdir.Memdir.proposals`, whose docstring is the contract."""
    from memdir.notes import proposals

    # redacted: a proposal file an older memdir wrote (or one edited by hand) may hold a key as written
    return [{**cevents.redact_obj({k: v for k, v in p.items() if k != "path"}), "path": p.get("path"), "scope": r.scope}
            for r in s.live() for p in proposals.list_all(r.path, status=status)]


def proposal_path(s: Stores, pid: str) -> tuple[Root, Path]:
    from memdir.notes import proposals

    for r in s.live():
        path = proposals.find(r.path, pid)
        if path is not None:
            return r, path
    raise NotFound(f"no proposal {pid!r}: see `memdir proposals`")


def accept_proposal(s: Stores, pid: str) -> Note:
    """The body of :meth:`memdir.Memdir.accept_proposal`, whose docstring is the contract."""
    from memdir.notes import proposals

    root, path = proposal_path(s, pid)
    with root.locked():  # read, write and decide as one: two accepts, or an accept and a reject, decide once
        p = proposals.readable(pid, path)
        if p.get("status") != "pending":
            raise UsageError(f"proposal {pid} is already {p.get('status')}")
        prov = {"source": p.get("source") or "proposal", "proposal": p.get("id")}
        for key in ("sessions", "model"):
            if p.get(key):
                prov[key] = p[key]
        sup = p.get("supersedes") if isinstance(p.get("supersedes"), str) else None
        if sup and get(s, sup) is None:
            sup = None
        note = remember(s, p.get("text") or "", category=p.get("category") or "rules", summary=p.get("summary"),
                        tags=p.get("tags") or (), load_when=p.get("load_when") or (), supersedes=sup,
                        scope=root.scope, provenance=prov)
        proposals.decide(path, "accepted", s.clock(), note=note.id)
    return note


def reject_proposal(s: Stores, pid: str) -> dict[str, Any]:
    """The body of :meth:`memdir.Memdir.reject_proposal`, whose docstring is the contract."""
    from memdir.notes import proposals

    root, path = proposal_path(s, pid)
    with root.locked():  # the status read under the lock an accept holds while it writes the note
        p = proposals.readable(pid, path)
        if p.get("status") != "pending":
            raise UsageError(f"proposal {pid} is already {p.get('status')}")
        return {**proposals.decide(path, "rejected", s.clock()), "scope": root.scope}
