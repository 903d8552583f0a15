"""One memory root (global or project): its Markdown files and the derived index that mirrors them.

Layout (seed 000)::

    <root>/ROOT.md                 compiled registry + routing (auto blocks), hand-written elsewhere: its goals
                                   and hard rules are indexed as notes ``ROOT.md/goal-01``, ``ROOT.md/rule-01``…
    <root>/<category>/index.md     compiled, one line per note
    <root>/<category>/<slug>.md    the notes (frontmatter + body)
    <root>/config.toml             optional settings for this root
    <root>/.memdir/                derived: index.sqlite3 (WAL), write.lock, debug.log — git-ignored
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from memdir.lazylog import getLogger
from memdir.notes import compile as compiler
from memdir.engine import notecache, notescan, notesecrets, pagetimes, rootlinks, sparse, writelock
from memdir.store.sqlite import opening, readonly, txn
from memdir.notes import markdown as notes
from memdir.notes import broken, conflicts, rootmd
from memdir.errors import LockBusy, MemdirError, ReadOnlyStore, UsageError
from memdir.fileio import read_or_none
from memdir.roots import DERIVED_DIRNAME, ROOT_PAGE, inside, not_linked_out, private_dir
from memdir.timeutil import iso, parse_ts
from memdir.types import Note

log = getLogger("memdir")  # imports logging only when a record can go somewhere
LOCK_TIMEOUT_S = 60
LOCK_SAY_S = 1.0  # seconds a write waits for the lock before it says why it waits
#: what a problem report of a note with broken frontmatter adds (the note is indexed by its body meanwhile)
BROKEN_HINT = "indexed by its body alone until fixed: memdir edit {id}"
#: what inspect says of a note file with no text (emptied, or its frontmatter alone): not indexed until it has some
EMPTY_NOTE = "the note is empty (no text after its frontmatter): give it its text (memdir edit {id}) or delete the file"
#: what a write to a read-only root says (one line; :meth:`Root.refuse_write`)
READ_ONLY = ("the memory store {path} is read-only ({why}): recall, context, get, recent and status work; remember, "
             "forget, edit and capture need it writable")
#: what a write to a root on a full disk says (one line; :meth:`Root.refuse_write`)
DISK_FULL = ("the disk holding the memory store {path} is full ({why}): free some space and run the command again; "
             "nothing stored was lost, and recall, context, get, recent and status work meanwhile")
#: errno values of a write refused by the file system or a sandbox (EPERM, EACCES, EROFS)
WRITE_REFUSED = (1, 13, 30)


#: compile problems already logged by this process
_WARNED: set[str] = set()

class Root:
    """A memory root at ``path`` with ``scope`` ``"project"`` or ``"global"``. The index opens lazily."""

    def __init__(self, path: Path, scope: str, *, categories: list[str], clock: Callable[[], datetime],
                 store: str | None = None, project: str | None = None, token: str | None = None):
        self.path = path
        self.scope = scope
        self.categories = categories
        # the project directory this root lives in was there when it was opened: a write after it is gone (deleted or
        # moved while a long-lived process, the MCP server, ran) is refused rather than made to recreate it
        self._home_dir_seen = scope == "project" and path.parent.is_dir()
        self.clock = clock
        self.derived = path / DERIVED_DIRNAME
        self.db_path = self.derived / "index.sqlite3"
        self._db: sqlite3.Connection | None = None
        self.problems: list[dict[str, str]] = []
        self.secrets: dict[str, list[str]] = {}  # note id -> kinds of secret its file holds (notesecrets.shown)
        self._parsed = notecache.Parsed()
        self._lock = None  # _FlockLock (or a filelock.FileLock where fcntl is missing), created on first write
        self._synced_on_open = False  # the open just mirrored the Markdown: the next resync() may skip
        #: where the index lives (:mod:`memdir.store.sqlite.store`): ``None`` = this root's SQLite file, else a
        #: ``postgresql://`` URL shared by several projects, this root's rows under ``project`` (``token`` for RLS)
        self.store_spec = store or None
        self.project = project
        self.token = token
        self._store: Any = None
        # what the last full sync saw (directory and note file stats), for resync()'s quick "nothing changed" test
        self._seen: tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int, int], ...]] | None = None
        self._page: tuple[int, int, rootmd.RootPage] | None = None  # ROOT.md parsed, with its (mtime_ns, size)
        self._read_only: str | None = None  # why this process cannot write the root ("" = it can); looked at once
        #: how the SQLite index was opened: ``"rw"``, or :data:`memdir.store.sqlite.readonly.HOW` for a read-only root
        self.db_mode = ""
        self._full = False  # read_only because the disk had no room: looked at again before each write

    # ---- lifecycle -------------------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.path.is_dir()

    def make_derived(self) -> None:
        """Create the derived directory open to the owner alone (:func:`memdir.roots.private_dir`), the global root
        too. Raises ``OSError``, ``PathError`` (linked out of the root, C14), ``MemdirError`` (:mod:`engine.sparse`)."""
        sparse.refuse_left_out(self.path, self.scope)
        not_linked_out(self.path, self.derived)
        if self.scope == "global":
            # a folder --home named that holds other files (or /tmp) is not closed: only what a root holds
            private_dir(self.path, own=rootlinks.OWN)
        private_dir(self.derived)

    def ensure(self) -> None:
        """Create the root (directories, ``.gitignore`` for derived files, ROOT.md) if missing."""
        if self.path.exists() and not self.path.is_dir():
            raise MemdirError(f"{self.path} exists and is not a directory; move it away or pick another root")
        if self._home_dir_seen and not self.path.parent.is_dir():
            raise MemdirError(f"the project directory {self.path.parent} no longer exists (deleted or moved while memdir "
                              "ran): nothing was written; start the agent again in the project")
        self.refuse_write()
        try:
            self.make_derived()
        except OSError as exc:
            self.refuse_write(exc)
            raise
        self.ignore_private()

    @property
    def read_only(self) -> str | None:
        """Why this process cannot write the root, in a few words (``"read-only file system"``, ``"no write
        permission"``, a sandbox's refusal), else ``None``. Looked at once per process (case C36)."""
        if self._read_only is None:
            why = readonly.cannot_write(self.derived)
            if why is None and self.db_path.exists() and not os.access(self.db_path, os.W_OK):
                why = "the index file is not writable"
            if why is None:  # a file a write appends to: it would stop half way (forgotten, no tombstone)
                why = readonly.unwritable_part(self.derived)
            self._read_only = why or ""
        return self._read_only or None

    @property
    def disk_full(self) -> bool:
        """True when :attr:`read_only` is a full disk's: reads answer from what is on disk, each write looks again."""
        return self._full

    def refuse_write(self, exc: OSError | None = None) -> None:
        """Raise :class:`memdir.errors.ReadOnlyStore` (one line, :data:`READ_ONLY`) when the root is read-only, or
        when ``exc`` is a write the file system or a sandbox refused (the root is then read-only from now on)."""
        if exc is not None and getattr(exc, "errno", None) in WRITE_REFUSED and not self._read_only:
            self._read_only = (exc.strerror or "writes refused").lower()
        self._room_again()
        if self.read_only:
            raise ReadOnlyStore((DISK_FULL if self._full else READ_ONLY).format(path=self.path, why=self.read_only))

    def _no_room(self) -> bool:
        """True, the root read-only from now on, when its disk is full (a failed write's cause; :meth:`_room_again`
        looks again)."""
        why = readonly.no_room(self.derived)
        if why:
            self._read_only, self._full = why, True
        return bool(why)

    def _room_again(self) -> None:
        """A root read-only for a full disk whose disk has room again is writable again: its read-only index is
        closed, the next use opens it for writing (a long-lived process need not be restarted)."""
        if self._full and readonly.no_room(self.derived) is None:
            self._full, self._read_only = False, None
            self.close()

    def ignore_private(self) -> None:
        """Git-ignore the derived files and the secrets file, union-merge the compiled pages: ``rootlinks.git_files``."""
        rootlinks.git_files(self.path)

    @property
    def db(self) -> sqlite3.Connection:
        """This root's own SQLite file: the index itself with the default store; with a PostgreSQL store, the
        host-local bookkeeping alone (injection and skip logs, distillation marks)."""
        if self._db is None:
            self._db, self.db_mode = self._open_db()
            if not self.store_spec:
                from memdir.store.sqlite.store import SqliteStore

                self._store = SqliteStore(self._db, self.db_path)
                try:
                    self.sync()
                except (sqlite3.OperationalError, OSError):
                    if self.db_mode != "rw" or not self._no_room():
                        raise
                    # the disk filled before the open's sync could write: read what is on disk, as a read-only root
                    self.close()
                    self._db, self.db_mode = readonly.open_readonly(self.db_path)
                    self._store = SqliteStore(self._db, self.db_path)
                    self.sync()
                self._synced_on_open = True
        return self._db

    def _open_db(self) -> tuple[sqlite3.Connection, str]:
        """The SQLite file opened for writing, or read-only (:mod:`memdir.store.sqlite.readonly`) when the root
        cannot be written, found before or by the attempt (a sandbox may say so only when a file is created)."""
        not_linked_out(self.path, self.derived)
        if self.db_path.exists() and not self.db_path.is_file():  # a folder where the index file goes: not read-only
            raise MemdirError(f"{self.db_path} is not a file: move it aside (memdir builds the index again from the notes)")
        if not self.read_only:
            try:
                self.make_derived()
                if not self.db_path.exists():
                    self.ignore_private()  # before the first index file: a root made by another tool gets it here
                return opening.open_index(self.db_path)[0], "rw"
            except OSError as exc:
                if exc.errno in WRITE_REFUSED:
                    self._read_only = (exc.strerror or "writes refused").lower()
                elif not self._no_room():
                    raise
            except MemdirError as exc:
                if any(w in str(exc) for w in ("unable to open", "readonly database")):
                    self._read_only = "the index cannot be opened for writing"
                elif not self._no_room():  # a full disk: SQLite could not make its -wal/-shm, or the open wrote
                    raise
        log.debug("memdir: %s is read-only (%s): index opened read-only", self.path, self.read_only)
        return readonly.open_readonly(self.db_path)

    @property
    def store(self) -> Any:
        """The index (:class:`memdir.store.protocol.Store`): :class:`memdir.store.sqlite.store.SqliteStore` over :attr:`db`, or
        :class:`memdir.store.postgres.store.PgStore` when the root has a ``postgresql://`` store. Opening it mirrors the
        Markdown notes into it once."""
        if self._store is None:
            if not self.store_spec:
                _ = self.db
            else:
                from memdir.store import open_store

                self._store = open_store(self.store_spec, project=self.project or self.path.parent.name, token=self.token)
                self.sync()
                self._synced_on_open = True
        return self._store

    @property
    def remote(self) -> bool:
        """True when the index is a shared PostgreSQL store."""
        return bool(self.store_spec)

    def resync(self) -> int:
        """Mirror hand edits made since the last look (case C20: a long-lived process — the MCP server, one
        ``Memdir`` — must answer as a fresh process would after a note is edited or deleted in an editor).
        One ``scandir`` per category and one ``stat`` per note; skipped right after the open's own sync.
        Returns the number of notes re-read."""
        self._room_again()
        if self._store is None:
            _ = self.store
        if self._synced_on_open:
            self._synced_on_open = False
            return 0
        if self._unchanged():
            return 0
        if self.read_only:  # nobody writes here through this process; the sync writes to memory at most
            return self.sync()
        try:
            with self.locked(timeout=0):  # a memdir writer at work keeps the mirror current itself: never race it
                return self.sync()
        except MemdirError:
            return 0

    #: a stat this recent (ns) may hide a change made in the same clock tick: such a snapshot is not trusted
    RACY_NS = 2_000_000_000

    def _snapshot(self, found: dict[str, tuple[str, int, int]], dirs: list[tuple[str, int]], taken_ns: int) -> None:
        """Remember the stats of a full scan (the root and category directories, each note file) for
        :meth:`_unchanged`; nothing is remembered when a stat is within :data:`RACY_NS` of the scan (a change in the
        same clock tick would not show) or the scan found problems (those are re-read every time)."""
        files = tuple((str(p), m, s) for p, m, s in found.values())
        recent = taken_ns - self.RACY_NS
        if self.problems or any(m >= recent for _, m in dirs) or any(m >= recent for _, m, _ in files):
            self._seen = None
        else:
            self._seen = (tuple(dirs), files)

    def _unchanged(self) -> bool:
        """True when no category directory (files added, removed, renamed — atomic writes rename) and no note file
        (edited in place) changed since the last full sync, and no writer left the compiled indexes stale: one
        ``stat`` per directory and note, no directory listing (issue 12: a full scan was half of a 10k recall)."""
        seen = self._seen
        st_ = self._store
        if seen is None or st_ is None:
            return False
        stat = os.stat
        try:
            for p, m in seen[0]:
                if stat(p).st_mtime_ns != m:
                    return False
            for p, m, s in seen[1]:
                st = stat(p)
                if st.st_mtime_ns != m or st.st_size != s or notescan.denied_by_mode(st):  # chmod 000: said
                    return False
        except OSError:
            return False
        return st_.meta_int("notes_gen") == st_.meta_int("compiled_gen")

    def close(self) -> None:
        self._seen = None
        if self._store is not None and self.store_spec:
            self._store.close()
        self._store = None
        if self._db is not None:
            self._db.close()
            self._db = None

    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        """Hold this root's inter-process write lock (``.memdir/write.lock``; re-entrant within a thread, exclusive
        between threads and processes). Raises ``MemdirError`` after ``timeout`` seconds (default 60), and
        :class:`memdir.errors.ReadOnlyStore` at once on a root this process cannot write (every write holds it)."""
        self.refuse_write()
        if not self.store_spec and self._db is None and self.db_path.is_file():
            _ = self.db  # its open finds a full disk (no room for the -wal/-shm): refused before anything is written
            self.refuse_write()
        wait = LOCK_TIMEOUT_S if timeout is None else timeout
        try:
            self.make_derived()
            if self._lock is None:
                self._lock = writelock.new_lock(str(self.derived / "write.lock"))
            got = self._lock.acquire(min(wait, LOCK_SAY_S))
            if not got and wait > LOCK_SAY_S:  # a person waiting at a prompt is told why (a hook's log is silent)
                log.warning("memdir: waiting up to %gs for the write lock (another memdir process holds it)", wait)
                got = self._lock.acquire(wait - LOCK_SAY_S)
        except OSError as exc:
            self.refuse_write(exc)
            raise
        if not got:
            raise LockBusy(f"another memdir process holds {self.derived / 'write.lock'} for over {wait}s; retry")
        try:
            yield
        finally:
            self._lock.release()

    def lock_waited(self) -> bool:
        """True when another process or thread is waiting for this root's write lock (a long import pauses between
        its batches for it); True too when that cannot be told."""
        return self._lock is None or self._lock.waiting()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``) on this root's SQLite file (:attr:`db`; the index's own
        transaction is ``root.store.transaction()``)."""
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except BaseException:
            txn.rollback(db)
            raise

    # ---- files -----------------------------------------------------------------------------------------
    def inside(self, p: Path) -> bool:
        """True when ``p``, its links followed, lies inside this root (case C14: a link out of it is never used)."""
        return inside(self.path, p)

    def scan(self) -> tuple[dict[str, tuple[str, int, int]], list[dict[str, str]]]:
        """Every note file: ``{id: (path, mtime_ns, size)}`` and problems (symlinks out, bad names):
        :func:`memdir.engine.notescan.scan`."""
        return notescan.scan(self)

    def page(self) -> rootmd.RootPage:
        """ROOT.md's hand-written goals, rules and routes (parsed once per change of the file; empty when it is
        missing or unreadable)."""
        path = self.path / ROOT_PAGE
        try:
            st = path.stat()
            if self._page is not None and self._page[:2] == (st.st_mtime_ns, st.st_size):
                return self._page[2]
            page = rootmd.parse(notes.read_text(path))
        except (OSError, UsageError):
            return rootmd.RootPage()
        self._page = (st.st_mtime_ns, st.st_size, page)
        return page

    def page_items(self) -> dict[str, tuple[str, int, int]]:
        """``{id: (ROOT.md path, mtime_ns, size)}`` of each goal and rule of ROOT.md (ids of :func:`rootmd.slugs`)."""
        path = self.path / ROOT_PAGE
        slugs = rootmd.slugs(self.page())
        try:
            st = path.stat() if slugs else None
        except OSError:
            return {}
        return {f"{ROOT_PAGE}/{slug}": (str(path), st.st_mtime_ns, st.st_size) for slug in slugs} if st else {}

    def page_note(self, note_id: str) -> Note:
        """The goal or rule ``ROOT.md/goal-NN`` / ``ROOT.md/rule-NN`` as a pinned note of kind ``goal`` / ``rule``;
        raises ``UsageError`` when ROOT.md has no such item (any more)."""
        kind, text = rootmd.item(self.page(), note_id.split("/", 1)[1])
        path = self.path / ROOT_PAGE
        when = parse_ts(path.stat().st_mtime)
        summary = text if len(text) <= 120 else text[:119] + "…"
        return Note(id=note_id, category=ROOT_PAGE, kind=kind, summary=summary, text=text, scope=self.scope, path=path,
                    pinned=True, created=when, updated=when)

    def _dir_stats(self) -> list[tuple[str, int]] | None:
        """``[(path, mtime_ns)]`` of the root and each category directory (``None`` when one cannot be read)."""
        try:
            out = [(str(self.path), os.stat(self.path).st_mtime_ns)]
            try:  # ROOT.md edited in place changes no directory's mtime; its own does
                out.append((str(self.path / ROOT_PAGE), os.stat(self.path / ROOT_PAGE).st_mtime_ns))
            except FileNotFoundError:
                pass
            with os.scandir(self.path) as it:
                for e in it:
                    if not e.name.startswith(".") and e.is_dir():
                        out.append((e.path, e.stat().st_mtime_ns))
            return out
        except OSError:
            return None

    @property
    def opened(self) -> Any:
        """The store when this process has opened it already, else ``None`` (asking :attr:`store` would open it)."""
        return self._store

    def problem(self, kind: str, path: str | Path, detail: str) -> dict[str, str]:
        """One problem of this root for ``inspect``/``doctor``: ``detail`` is redacted, since it may quote what a note
        file says (a YAML line that does not parse, a field's value) and a key typed there must not be shown."""
        from memdir.capture.redact import redact

        return {"kind": kind, "scope": self.scope, "path": str(path), "detail": redact(detail)}

    def read_note(self, note_id: str, path: Path) -> tuple[Note, dict[str, Any]]:
        """Parse one note file (or one item of ROOT.md, see :meth:`page_note`); raises ``UsageError``
        (unreadable) with a one-line reason."""
        if note_id.startswith(ROOT_PAGE + "/"):
            return notesecrets.shown(self.page_note(note_id), self.secrets), {}
        return self._parsed.read(self, note_id, path)  # parsed once per version of the file (engine.notecache)

    def read_broken_note(self, note_id: str, path: Path) -> Note | None:
        """A note whose frontmatter cannot be read (broken YAML, never closed, not a mapping) as its body alone:
        default fields (kind from the category, summary its first line or a never-closed frontmatter's own, never one
        of its field lines: :func:`memdir.notes.broken.parts`; times from the file), so it stays
        findable while it waits to be repaired; a file with merge-conflict markers as both sides' text without them,
        with its first side's fields (:func:`memdir.notes.conflicts.parts`). ``None`` when the file itself cannot
        be read (binary, not UTF-8, too large, gone)."""
        try:
            raw = notes.read_text(path)
            st = path.stat()
        except (UsageError, OSError):
            return None
        found = conflicts.hunks(raw)  # a conflicted note: its own side's fields, both sides' text, no markers
        meta, body = conflicts.parts(raw, found) if found else broken.parts(raw)
        body = body.replace("\x00", "")
        if not body.strip():
            return None
        category = note_id.split("/", 1)[0]
        f = notes.fields(meta, body, category=category, fallback_time=parse_ts(st.st_mtime))
        return notesecrets.shown(Note(id=note_id, category=category, kind=f["kind"], summary=f["summary"], text=body.strip(),
                               scope=self.scope, path=path, tags=f["tags"], load_when=f["load_when"], pinned=f["pinned"],
                               supersedes=f["supersedes"], superseded_by=f["superseded_by"], created=f["created"],
                               updated=f["updated"], highlight=f["highlight"]), self.secrets)

    def note_row(self, note: Note, mtime_ns: int, size: int) -> dict[str, Any]:
        return {
            "kind": "note", "ref": note.id, "content_sha256": notes.content_hash(note.text), "category": note.category,
            "note_kind": note.kind, "ts": iso(note.updated), "ts_epoch": note.updated.timestamp(), "summary": note.summary,
            "highlight": note.highlight, "text": note.text, "tags": json.dumps(list(note.tags), ensure_ascii=False),
            "load_when": json.dumps(list(note.load_when), ensure_ascii=False), "pinned": int(note.pinned),
            "supersedes": note.supersedes, "superseded_by": note.superseded_by,
            "path": os.path.relpath(note.path, self.path) if note.path else None, "mtime_ns": mtime_ns, "size": size,
            "meta": json.dumps({"created": iso(note.created)}),
        }

    def sync(self) -> int:
        """Mirror hand edits of the Markdown into the index (new, changed, deleted files); recompile the
        indexes when anything changed. Returns the number of notes re-read. Unreadable files are reported in
        ``self.problems`` and skipped (never deleted)."""
        st = self._store
        assert st is not None
        # the index first, then the files: a note another process writes in between is then re-read (harmless),
        # never taken for deleted
        known = st.note_states()
        taken = time.time_ns()
        self._seen = None
        dirs = self._dir_stats()  # before the listing: a change made during the scan shows at the next look
        found, problems = self.scan()
        changed = [nid for nid, (_, m, s) in found.items() if known.get(nid) != (m, s)
                   and not notes.being_saved((0, s, m))]  # emptied a moment ago: an editor mid-save, read next time
        gone = [nid for nid in known if nid not in found]
        bad: list[str] = []
        # a note whose frontmatter is broken is indexed by its body with the size stored as -(size + 1): it is
        # re-read (and re-reported) on every open until fixed, and rewritten only when the file changes
        same_broken = [nid for nid in changed if known.get(nid) == (found[nid][1], -found[nid][2] - 1)]
        for nid in same_broken:
            try:
                self.read_note(nid, Path(found[nid][0]))
            except (UsageError, OSError) as exc:
                problems.append(self.problem("unreadable", found[nid][0], f"{exc}; {getattr(exc, 'hint', BROKEN_HINT).format(id=nid)}"))
                changed.remove(nid)
        if (changed or gone) and self.db_mode in ("ro", "immutable") and not self.store_spec:
            self._db = st.db = readonly.to_memory(st.db)  # a stale read-only index: the notes go to a copy in memory
            self.db_mode = "memory"
        if changed or gone:
            with st.transaction():
                for nid in changed:
                    path, m, s = found[nid]
                    try:
                        note, _ = self.read_note(nid, Path(path))
                    except (UsageError, OSError) as exc:
                        whole = self.read_broken_note(nid, Path(path))
                        if whole is None:  # not a text file: nothing to index (re-read on every open until fixed)
                            problems.append(self.problem("unreadable", path, str(exc)))
                            st.delete_doc(nid)
                            bad.append(nid)
                        else:
                            problems.append(self.problem("unreadable", path, f"{exc}; {getattr(exc, 'hint', BROKEN_HINT).format(id=nid)}"))
                            st.upsert_doc(self.note_row(whole, m, -s - 1))
                        continue
                    if not note.text:  # an emptied file (or frontmatter alone) is no note: said, left as it is
                        problems.append(self.problem("unreadable", path, EMPTY_NOTE.format(id=nid)))
                        st.delete_doc(nid)
                        bad.append(nid)
                        continue
                    st.upsert_doc(pagetimes.kept(st, self.note_row(note, m, s)))
                for nid in gone:
                    st.delete_doc(nid)
        self.problems = problems
        if dirs is not None:
            self._snapshot(found, dirs, taken)
        stale = st.meta_int("notes_gen") != st.meta_int("compiled_gen")  # e.g. a writer killed mid-way
        # ROOT.md's goals and rules (re-read whenever a compile rewrites its tables) are lines of no index.md: a change
        # of them alone compiles ROOT.md only (a hand edit of its tables), not every category's index.md again
        page_only = not gone and not stale and all(n.startswith(ROOT_PAGE + "/") for n in changed if n not in bad)
        if ((len(changed) - len(bad)) or gone or stale) and not self.read_only:
            try:
                with self.locked(timeout=0):  # a writer holding the lock compiles itself; never wait on a read path
                    self.compile([] if page_only else None)
            except MemdirError:
                log.debug("compile skipped: another process holds the write lock")
            except OSError as exc:
                log.warning("memdir: could not recompile indexes in %s: %s", self.path, exc)
        return len(changed)

    def refresh(self, note_id: str) -> None:
        """Re-read one note file into the index (after memdir itself wrote it); a missing file is removed."""
        path = self.path / (note_id + ".md")
        with self.store.transaction() as store:
            try:
                st = path.stat()
            except FileNotFoundError:
                store.delete_doc(note_id)
                return
            note, _ = self.read_note(note_id, path)
            store.upsert_doc(pagetimes.kept(store, self.note_row(note, st.st_mtime_ns, st.st_size)))
        self.problems = [p for p in self.problems if p["path"] != str(path)]  # repaired (memdir edit)

    # ---- compiled indexes -------------------------------------------------------------------------------
    def entries(self) -> list[compiler.Entry]:
        rows = [r for r in self.store.note_entries() if r["category"] != ROOT_PAGE]  # ROOT.md's own lines
        return [compiler.Entry(id=r["ref"], category=r["category"], slug=r["ref"].split("/", 1)[1], kind=r["note_kind"],
                               summary=r["summary"] or "", load_when=tuple(json.loads(r["load_when"] or "[]")),
                               pinned=bool(r["pinned"]), superseded_by=r["superseded_by"], updated_epoch=r["ts_epoch"])
                for r in rows]

    def gens(self) -> tuple[int, int]:
        """``(notes_gen, compiled_gen)``: equal when index.md/ROOT.md reflect every note row."""
        return self.store.meta_int("notes_gen"), self.store.meta_int("compiled_gen")

    def compile(self, categories: list[str] | None = None, *, was_clean: bool = False) -> list[str]:
        """Rewrite ``<category>/index.md`` (all, or just ``categories``) and ``ROOT.md`` from the index, writing
        only files whose text changes. A full compile — or a partial one after a write to a store whose compiled
        files were current (``was_clean``) — records ``compiled_gen``, so a compile cut short by a crash is
        redone on the next open. Returns problems found in existing files' markers."""
        gen = self.store.meta_int("notes_gen")
        entries = self.entries()
        problems: list[str] = []
        cats = sorted({e.category for e in entries} | {c for c in self.categories if (self.path / c).is_dir()})
        if categories is not None:
            cats = [c for c in cats if c in categories]
        jobs = [(self.path / cat / "index.md", lambda old, cat=cat: compiler.index_md(
            cat, [e for e in entries if e.category == cat], old)) for cat in cats]
        jobs.append((self.path / "ROOT.md", lambda old: compiler.root_md(self.scope, entries, self.categories, old)))
        skipped = False
        for path, make in jobs:
            # a link into the root is written through (it stays a link); one out of it, or a category dir linked out
            # of the root, is never written (case C14; inspect says so of ROOT.md)
            where = rootlinks.write_path(self.path, path)
            if where is None:
                rootlinks.said_once(path, "not compiled")
                continue
            try:
                done, p = notes.rewrite_compiled(where, make, read_or_none)
            except OSError as exc:  # the notes were written: the file waits (ROOT.md's goals are the user's own
                problems.append(f"{exc}; it is not rewritten until then")  # words: never overwritten unread)
                skipped = True
                continue
            problems += [f"{path}: {x}" for x in p]
            skipped = skipped or not done  # an editor mid-save, or saving it again and again: the next open compiles
        for x in problems:
            if x not in _WARNED:  # once per process: a command compiles more than once
                _WARNED.add(x)
                log.warning("memdir: %s", x)
        if (categories is None or was_clean) and not skipped:  # else the next open compiles again
            with self.store.transaction() as store:
                store.set_meta("compiled_gen", str(gen))
        return problems
