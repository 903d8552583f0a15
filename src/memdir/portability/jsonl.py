"""Export and import of both roots as JSONL (notes, events, tombstones).
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from memdir.capture import events as cevents
from memdir.engine import curated, restore
from memdir.engine import events as event_ops
from memdir.engine import forget as forgetting
from memdir.errors import Interrupted, MemdirError, NotFound, ReadOnlyStore, UsageError, path_arg
from memdir.fileio import write_into
from memdir.lazylog import getLogger
from memdir.notes import markdown as notes
from memdir.roots import ROOT_PAGE
from memdir.stores import SCOPES, Stores
from memdir.stopsignals import STOPS, stopped
from memdir.timeutil import parse_ts

log = getLogger("memdir")  # imports logging only when a record can go somewhere


BAD_LINES_SHOWN = 3


def sort_ts(ts: Any) -> float:
    try:
        return parse_ts(ts).timestamp()
    except UsageError:
        return math.inf


def export(s: Stores, path: str | os.PathLike) -> dict[str, int]:
    """The body of :meth:`memdir.Memdir.export`, whose docstring is the contract."""
    path = path_arg(path, "export path")
    if path.is_symlink():  # a link to a backup kept elsewhere: its target is written, the link stays
        path = Path(os.path.realpath(path))
    if path.is_dir():  # was IsADirectoryError from the rename, after every line was written
        raise UsageError(f"{path} is a directory: give the file to export to")
    if path.exists() and not path.is_file():  # a named pipe, a device: written into, never replaced by a file
        return write_into(path, lambda tmp: export(s, tmp))
    check_folder(path)
    s.look()  # a long-lived process exports the notes on disk now, not those of its last look (C20)
    counts = {"notes": 0, "events": 0, "tombstones": 0}
    # every captured turn: owner-only; written line by line as read (a year's events held in memory took 724 MB)
    notes.atomic_write(Path(path), (x + "\n" for x in _lines(s, counts)), private=True)
    return counts


def check_folder(path: Path) -> None:
    """Raise ``UsageError`` when the folder ``path`` goes in does not exist (or is a file): an export never makes
    folders (a typo in the path would hide the dump where nobody looks), in the API as in the CLI."""
    parent = Path(path).absolute().parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise UsageError(f"directory {str(parent)!r} {what}: create it first or export elsewhere")


def _lines(s: Stores, counts: dict[str, int]) -> Iterator[str]:
    """The export's lines, root by root: notes, events, tombstones; ``counts`` counts them as they go."""
    for root in s.live():
        refs = root.store.note_refs()
        for p in root.problems:  # a note file the index could not take (not UTF-8, binary): said, never silently left
            if p.get("kind") == "unreadable" and str(p.get("path", "")).endswith(".md") and not any(
                    str(p["path"]).endswith("/" + r + ".md") for r in refs):
                log.warning("memdir: %s not exported: %s", p["path"], p.get("detail", "unreadable"))
                counts["notes_not_exported"] = counts.get("notes_not_exported", 0) + 1
        for nid in sorted(refs):
            if nid.startswith(ROOT_PAGE + "/"):
                continue  # a line of ROOT.md, which travels as that file (git, a copy of the root)
            try:
                note, _ = root.read_note(nid, root.path / (nid + ".md"))
            except (UsageError, OSError) as exc:
                whole = root.read_broken_note(nid, root.path / (nid + ".md"))
                if whole is None:
                    log.warning("memdir: %s not exported: %s", root.path / (nid + ".md"), exc)
                    counts["notes_not_exported"] = counts.get("notes_not_exported", 0) + 1
                    continue
                log.warning("memdir: %s exported by its body alone: its frontmatter is unreadable (%s)",
                            root.path / (nid + ".md"), exc)
                note = whole
            d = note.to_dict()
            d.pop("path", None)
            d.pop("existed", None)
            d["text"] = cevents.redact_text(d["text"])
            yield json.dumps(d, ensure_ascii=False)
            counts["notes"] += 1
        for r in root.store.events():
            r = cevents.outbound({k: r[k] for k in ("ref", "role", "text", "session", "ts", "meta")})
            d = {"type": "event", "key": r["ref"], "role": r["role"], "text": r["text"], "session": r["session"],
                 "ts": r["ts"], "scope": root.scope}
            if r["meta"]:
                d["meta"] = json.loads(r["meta"])
            yield json.dumps(d, ensure_ascii=False)
            counts["events"] += 1
        for t in root.store.tombstone_rows():
            yield json.dumps({"type": "tombstone", **{k: t[k] for k in ("ref", "content_sha256", "kind", "deleted_at")},
                              "scope": root.scope}, ensure_ascii=False)
            counts["tombstones"] += 1


EXPORT_TYPES = ("note", "event", "tombstone")


def is_export(path: str | os.PathLike) -> bool:
    """True when ``path`` is empty or its first non-blank line is a JSON object whose ``type`` is a line type
    :func:`export` writes (:data:`EXPORT_TYPES`): what an earlier export looks like. Reads at most 1 MB; an
    unreadable file is not an export."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 20)
    except OSError:
        return False
    for line in head.splitlines():
        if line.strip():
            try:
                obj = json.loads(line)
            except ValueError:  # cut at the 1 MB read (a long note's escaped text): its opening says what it is
                return bool(_EXPORT_START.match(line.lstrip(b"\xef\xbb\xbf \t")))
            return isinstance(obj, dict) and obj.get("type") in EXPORT_TYPES
    return not head.strip()


#: how every line :func:`export` writes begins (``json.dumps`` of a dict whose first key is its type)
_EXPORT_START = re.compile(rb'\{"type": "(?:note|event|tombstone)", ')


def import_jsonl(s: Stores, path: str | os.PathLike) -> dict[str, int]:
    """The body of :meth:`memdir.Memdir.import_jsonl`, whose docstring is the contract."""
    p = path_arg(path, "import path")
    if not p.is_file():
        if p.exists():  # a FIFO, a device (/dev/zero): never read to an end that may not come
            raise UsageError(f"{p} is not a regular file: give an export's JSONL file")
        raise NotFound(f"no such file: {p}")
    counts = {"lines": 0, "notes": 0, "notes_existing": 0, "notes_forgotten": 0, "read": 0, "stored": 0,
              "duplicate": 0, "skipped": 0, "bad_lines": 0, "tombstones": 0}
    events: list[dict[str, Any]] = []
    tombs: dict[str, list[dict[str, Any]]] = {}
    notes_in: list[tuple[int, dict[str, Any]]] = []

    def bad(n: int, why: Any) -> None:  # the first few each say why; the count is in the result
        counts["bad_lines"] += 1
        if counts["bad_lines"] <= BAD_LINES_SHOWN:
            log.warning("memdir: %s line %d skipped: %s", p.name, n, str(why)[:120])
        elif counts["bad_lines"] == BAD_LINES_SHOWN + 1:
            log.warning("memdir: %s: more bad lines skipped (counted in the result, not listed)", p.name)

    try:
        _read_export(p, counts, events, tombs, notes_in, bad)
        live = _live_notes(notes_in)
        for scope, rows in tombs.items():  # first: a forgotten note or event in the same file is not stored again
            # a note tombstone the file's own live note contradicts (forgotten, then brought back: a `git checkout`,
            # a remember) is not taken: the source holds that note
            rows = [t for t in rows if t.get("kind") != "note" or t.get("content_sha256") not in live]
            counts["tombstones"] += forgetting.import_tombstones(s, rows, scope=scope)
        with s.looked():  # once, not once per note restored
            _restore_notes(s, notes_in, counts, bad)
    except STOPS as exc:  # before any event was stored (notes already restored stay: each is its own file)
        if not stopped(exc):
            raise
        raise Interrupted(0, None, counts) from None
    events.sort(key=lambda e: sort_ts(e.get("ts")))
    by_scope: dict[str, list] = {}
    for e in events:
        by_scope.setdefault(e.get("scope") if e.get("scope") in SCOPES else "project", []).append(e)
    try:
        for scope, evs in by_scope.items():
            c = event_ops.import_events(s, evs, scope=scope)
            for key, v in c.items():
                counts[key] += v
    except STOPS as exc:  # Ctrl-C: the batches committed so far stay; say how far it got, of the file
        if not stopped(exc):
            raise
        for key, v in (exc.counts if isinstance(exc, Interrupted) else {}).items():
            counts[key] += v
        raise Interrupted(counts["read"], len(events), counts) from None
    event_ops.restored(s, set(by_scope) or {"project"})  # an index rebuilt earlier: the user has restored what they had
    return counts


def survey(path: str | os.PathLike) -> dict[str, int]:
    """What :func:`import_jsonl` would read from the export at ``path`` (a dry run; nothing is written): ``notes``,
    ``events``, ``bad_lines`` (each named in a warning, as the import names it) and ``tombstones`` when there are
    some."""
    p = Path(path)
    counts = {"lines": 0, "bad_lines": 0}
    events: list[dict[str, Any]] = []
    tombs: dict[str, list[dict[str, Any]]] = {}
    notes_in: list[tuple[int, dict[str, Any]]] = []

    def bad(n: int, why: Any) -> None:
        counts["bad_lines"] += 1
        if counts["bad_lines"] <= BAD_LINES_SHOWN:
            log.warning("memdir: %s line %d would be skipped: %s", p.name, n, str(why)[:120])

    _read_export(p, counts, events, tombs, notes_in, bad)
    out = {"notes": len(notes_in), "events": len(events), "bad_lines": counts["bad_lines"]}
    n = sum(len(v) for v in tombs.values())
    return {**out, "tombstones": n} if n else out


def forgotten_note(s: Stores, obj: dict[str, Any], seen: dict[str, Any] | None = None) -> bool:
    """True when the root an exported note ``obj`` goes to holds a note tombstone for its text (its content hash)
    made at or after the note's ``updated`` (else ``created``) time, or when either time is missing or unreadable:
    that text was forgotten after this copy was made, so an import does not bring it back. A note remembered again
    after a ``forget`` is newer than the tombstone and is restored; another text under the same id (slugs are cut
    short) is another note and is restored too. ``seen`` caches each root's note tombstones across calls
    (``{scope: {content hash: [deleted_at or None]}}``)."""
    scope = obj.get("scope") if obj.get("scope") in SCOPES else "project"
    cache = {} if seen is None else seen
    if scope not in cache:
        root = s.root(scope)
        by: dict[str, list[datetime | None]] = {}
        for t in root.store.tombstone_rows() if root.exists() else ():
            if t.get("kind") == "note" and isinstance(t.get("content_sha256"), str) and t["content_sha256"]:
                by.setdefault(t["content_sha256"], []).append(_time_or_none(t.get("deleted_at")))
        cache[scope] = by
    by = cache[scope]
    text = obj.get("text")
    sha = notes.content_hash(curated.stored_text(text)) if by and isinstance(text, str) else None
    hits = by.get(sha, []) if sha else []
    if not hits or s.root(scope).store.live_note_with_sha(sha):  # here again: "already there"
        return False
    written = _time_or_none(obj.get("updated")) or _time_or_none(obj.get("created"))
    return written is None or any(w is None or w >= written for w in hits)


def _live_notes(notes_in: list[tuple[int, dict[str, Any]]]) -> set[str]:
    """The content hashes of the notes an export holds (as :func:`memdir.engine.curated.remember` hashes them): an id
    alone may be another text's (slugs are cut short)."""
    return {notes.content_hash(curated.stored_text(obj["text"])) for _, obj in notes_in
            if isinstance(obj.get("text"), str)}


def _time_or_none(value: Any) -> datetime | None:
    try:
        return parse_ts(value)
    except UsageError:
        return None


def _restore_notes(s: Stores, notes_in: list[tuple[int, dict[str, Any]]], counts: dict[str, int], bad: Any) -> None:
    """Restore the export's notes (``(line number, object)``), each unless its root forgot it after it was last
    written (:func:`forgotten_note`: an export made before a ``forget`` does not bring the
    note back; one remembered again after it does)."""
    seen: dict[str, Any] = {}
    from collections import Counter

    def text_of(obj: dict[str, Any]) -> str | None:
        return notes.content_hash(curated.stored_text(obj["text"])) if isinstance(obj.get("text"), str) else None

    twice = {h for h, c in Counter((obj.get("scope"), text_of(obj)) for _, obj in notes_in).items() if c > 1}
    for n, obj in notes_in:
        try:
            if forgotten_note(s, obj, seen):
                counts["notes_forgotten"] += 1
                continue
            note = restore.restore_note(s, obj, shared_text=(obj.get("scope"), text_of(obj)) in twice)
            counts["notes_existing" if note.existed else "notes"] += 1
        except ReadOnlyStore:  # no line can be stored: one line says so, not one per line
            raise
        except MemdirError as exc:
            bad(n, exc)


#: the bytes a UTF-8 decode could not read, kept by the ``surrogateescape`` handler as lone surrogates
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def _read_export(p: Path, counts: dict[str, int], events: list[dict[str, Any]],
                 tombs: dict[str, list[dict[str, Any]]], notes_in: list[tuple[int, dict[str, Any]]], bad: Any) -> None:
    """Read the export ``p`` into ``events``, ``tombs`` (by scope) and ``notes_in`` (``(line number, object)``)."""
    from memdir.fileio import text_encoding

    # a byte-order mark is not part of line 1; a file re-saved as UTF-16 (PowerShell's >) is read as such, and a mark
    # left at a line's start by files joined together is not part of that line either
    enc = text_encoding(p)
    with open(p, encoding=enc, errors="surrogateescape" if enc == "utf-8-sig" else "replace") as f:
        for n, line in enumerate(f, 1):
            line = line.lstrip("\ufeff")
            if not line.strip():
                continue
            counts["lines"] += 1
            if _NOT_UTF8.search(line):  # never stored with its letters replaced by U+FFFD
                bad(n, "not UTF-8 text (a copy re-saved in another encoding, such as GBK or Windows-1252? save it "
                       "as UTF-8 and import it again)")
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
            except ValueError as exc:
                bad(n, str(exc)[:80])
                continue
            if obj.get("type") == "tombstone":
                if not isinstance(obj.get("ref"), str) or not obj["ref"].strip():
                    bad(n, "a tombstone line needs a ref")
                    continue
                tombs.setdefault(obj.get("scope") if obj.get("scope") in SCOPES else "project", []).append(obj)
            elif obj.get("type") == "note":
                if obj.get("scope") not in SCOPES:  # another value (a list, a typo) goes where a note without one goes
                    obj["scope"] = "project"
                for why in notes.field_problems(obj):  # restored all the same; what was left out is said
                    log.warning("memdir: %s line %d: %s", p.name, n, why)
                notes_in.append((n, obj))
            else:
                why = _not_an_event(obj)  # said here with its line number, not counted as skipped without a word
                if why:
                    bad(n, why)
                    continue
                obj.setdefault("source", p.stem)
                events.append(obj)


def _not_an_event(obj: dict[str, Any]) -> str | None:
    """Why an event line (``type`` event, or none: any JSONL record) of an export cannot be stored, or None."""
    from memdir.capture.events import ROLES

    if obj.get("type") not in (None, "event"):  # a newer memdir's line type: never taken for a user's prompt
        return f"unknown line type {str(obj['type'])[:40]!r} (this memdir reads {', '.join(EXPORT_TYPES)})"
    if not isinstance(obj.get("text"), str) or not obj["text"].strip():
        return "an event line needs a non-empty text"
    if str(obj.get("role") or "user").strip().lower() not in ROLES:
        return f"unknown role {str(obj['role'])[:40]!r} (one of {', '.join(ROLES)})"
    if isinstance(obj.get("key"), (dict, list)) or isinstance(obj.get("session"), (dict, list)):
        return "an event's key and session are text"
    if obj.get("ts") not in (None, ""):
        try:
            parse_ts(obj["ts"])
        except (UsageError, ValueError, TypeError, OverflowError) as exc:
            return str(exc)
    return None
