"""Opening the derived SQLite index of one memory root (``<root>/.memdir/index.sqlite3``): the connection and its
pragmas (WAL, a busy timeout, owner-only files), the numbered migrations and the one-time re-tokenizing they or a new
tokenizer ask for (:func:`check_tokenizer`), a corrupt file moved aside (never deleted) and a fresh one built, and the
checkpoint and vacuum after bulk writes (:func:`settle`). The rows and the full-text index themselves are
:mod:`memdir.store.sqlite.index`'s.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from memdir.lazylog import getLogger
from memdir.roots import owner_only
from memdir.recall import passages
import memdir.store.rows as rows
from memdir.store.sqlite import codec, index, ledger, tombstones, txn
from memdir.store.sqlite.migrations import migrate

log = getLogger("memdir")  # imports logging only when a record can go somewhere

BUSY_TIMEOUT_MS = 30_000


def add_functions(db: sqlite3.Connection) -> None:
    """Register what the schema calls on ``db``: ``docs.text`` is generated from ``text_head || text_tail``, the tail
    zlib-compressed when that is smaller (m009; since m011 with the store's preset dictionary), through
    ``memdir_unz``. A plain ``sqlite3`` shell without it reads every other column (and ``PRAGMA integrity_check``
    works), but not ``text``, and cannot ``VACUUM`` the file: use ``memdir export`` / ``memdir doctor``."""

    def unz(blob: bytes) -> str:
        return codec.unz(db, blob)

    db.create_function("memdir_unz", 1, unz, deterministic=True)
    db.execute("PRAGMA trusted_schema = ON")  # our own file; lets the generated column call memdir_unz


def _connect(path: Path) -> sqlite3.Connection:
    try:
        st: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise sqlite3.OperationalError(f"unable to open database file ({exc.strerror})") from None
    new = not (st and st.st_size > 0)
    # the index holds every captured prompt and reply: its owner's alone (SQLite gives its -wal and -shm the
    # database file's mode); one an earlier version made readable by others is closed to them
    if new or st.st_mode & 0o077:
        try:
            owner_only(path, create=True)
        except OSError as exc:  # as SQLite itself would say it: the callers turn this into one line
            raise sqlite3.OperationalError(f"unable to open database file ({exc.strerror})") from None
        owner_only(f"{path}-wal")
        owner_only(f"{path}-shm")
    db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False,
                         factory=codec.Connection)
    db.row_factory = sqlite3.Row
    add_functions(db)
    if new:
        # freed pages can be handed back with `PRAGMA incremental_vacuum` (takes effect on a new file, so before the
        # WAL switch writes its header; `memdir doctor` converts an older one): prune and forget give the space
        # back. Only on a new file: on an existing one this pragma is a write transaction and an fsync (it sets the
        # header's incremental-vacuum flag again) that every hook process paid at open (issue 12)
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        log.debug("journal_mode is %s (WAL unavailable on this filesystem)", mode)
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")
    # a WAL file left by a big transaction is cut back to this size at the next checkpoint (issue 12: a 300 MB WAL
    # stayed after a one-transaction import)
    db.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
    return db


def connect_reader(path: str | Path) -> sqlite3.Connection:
    """A second connection to an existing index, for reading only (no pragma that writes; the schema's functions
    registered): :mod:`memdir.store.sqlite.postings` builds on one in a background thread."""
    db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False,
                         factory=codec.Connection)
    db.row_factory = sqlite3.Row
    add_functions(db)
    return db


#: bytes a WAL file may keep after a checkpoint (SQLite ``journal_size_limit``)
JOURNAL_SIZE_LIMIT = 8 * 1024 * 1024


#: rows deleted at once after which the full-text index is merged into one segment (FTS5 ``optimize``): a contentless
#: FTS5 table keeps a deleted row's postings, with a delete marker, until a merge reaches them, so forgetting 88 % of
#: 10k real turns left the file at 10.4 of 18.5 MB; merged (0.08 s), 3.5 MB
OPTIMIZE_AFTER = 1000


def settle(db: sqlite3.Connection, *, freed: bool = False, deleted: int = 0) -> None:
    """After a bulk write: copy the WAL into the database and truncate it (``wal_checkpoint(TRUNCATE)``), and after
    deletions (``freed``) return free pages to the file system (``incremental_vacuum``); after ``deleted`` >=
    :data:`OPTIMIZE_AFTER` rows, first merge the full-text index so their postings go too. Waits at most 200 ms for
    readers; a busy store is left for SQLite's next automatic checkpoint. Never raises; does nothing inside a
    transaction."""
    if db.in_transaction:
        return
    try:
        if deleted >= OPTIMIZE_AFTER:
            db.execute("PRAGMA busy_timeout = 200")  # a writer at work: the merge waits for the next bulk delete
            try:
                try:
                    db.execute("BEGIN IMMEDIATE")
                    db.execute("INSERT INTO fts(fts) VALUES ('optimize')")
                    db.execute("COMMIT")
                except BaseException:
                    txn.rollback(db)
                    raise
            finally:
                db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if freed and db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2:
            db.executescript("PRAGMA incremental_vacuum;")  # sqlite3_exec steps it to the end (execute frees one page)
        db.execute("PRAGMA busy_timeout = 200")
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except sqlite3.Error as exc:
        log.debug("settle skipped: %s", exc)


def enable_incremental_vacuum(db: sqlite3.Connection) -> bool:
    """Switch an index made before incremental vacuum existed to ``auto_vacuum = INCREMENTAL`` (rewrites the
    file with ``VACUUM``; call with the write lock held). Returns True when it was converted now."""
    if db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2:
        return False
    db.execute("PRAGMA auto_vacuum = INCREMENTAL")
    db.execute("VACUUM")
    settle(db)
    return True


#: the index file this process is migrating or re-tokenizing right now, else None: a hook cut off by its time budget
#: meanwhile hands that work to a detached process (:func:`memdir.hosts.upgrading.hand_over_upgrade`)
upgrading: Path | None = None


def needs_upgrade(db: sqlite3.Connection) -> bool:
    """True when opening ``db`` migrates it or re-tokenizes its full-text index."""
    from memdir.store.sqlite.migrations import MIGRATIONS

    if db.execute("PRAGMA user_version").fetchone()[0] < len(MIGRATIONS):
        return True
    row = db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
    return row is not None and row[0] != index_version()


def upgrade(path: Path) -> None:
    """Open the index at ``path`` (migrating and re-tokenizing it as needed) and close it: the detached process of
    :func:`memdir.hosts.upgrading.hand_over_upgrade` runs this, then removes its marker."""
    db, _ = open_index(path)
    db.close()
    Path(str(path) + ".upgrading").unlink(missing_ok=True)


def open_index(path: Path) -> tuple[sqlite3.Connection, bool]:
    """Open (creating or migrating) the index at ``path``; returns ``(connection, created)``.

    A file that is not a usable SQLite database is renamed to ``<name>.corrupt-<epoch>`` beside it, with a
    warning, and a new one is created (``created`` is then True).
    """
    from memdir.store.sqlite.migrations import MIN_SQLITE

    if sqlite3.sqlite_version_info < MIN_SQLITE:
        from memdir.errors import MemdirError

        need = ".".join(map(str, MIN_SQLITE))
        raise MemdirError(f"memdir needs SQLite {need} or newer; this Python links SQLite {sqlite3.sqlite_version}"
                          " (use a Python built with a newer SQLite)")
    from memdir.fileio import make_folders

    make_folders(path.parent)  # the root made on the way is never writable by group or others
    _orphan_wal(path)
    existed = path.exists() and path.stat().st_size > 0
    try:
        db = _connect(path)
        if existed:
            # reading the schema fails fast on a file that is not a database; the full integrity check is
            # `memdir doctor`'s job (PRAGMA quick_check reads every page: too slow for each hook call)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        global upgrading
        if needs_upgrade(db):
            upgrading = path
        applied: list[int] = []
        try:
            was = db.execute("PRAGMA user_version").fetchone()[0]
            now = migrate(db, applied=applied)
            if now != was and existed:
                settle(db, freed=True)  # a migration that rewrote rows hands the freed pages back
                if was < 11 <= now:
                    _repack(db, path)
            check_tokenizer(db)
            if existed:
                if codec.maybe_compress_all(db):
                    settle(db, freed=True)
        finally:
            upgrading = None
        # created by this process (it made the schema), not only absent when it looked: two hooks of a new project
        # both find no index, and the second one's "new index" moved the first one's events into the lost count (a
        # false warning); and a file another process had only just opened is still new for the one that makes it
        created = 1 in applied
        tombstones.on_open(db, path, created=created)
        ledger.on_open(db, path, created=created, when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        return db, created
    except sqlite3.DatabaseError as exc:
        try:
            db.close()  # type: ignore[possibly-undefined]
        except Exception:
            pass
        if isinstance(exc, sqlite3.OperationalError):  # locked, busy, I/O: not corruption; never move it aside
            from memdir.errors import MemdirError

            transient = any(w in str(exc) for w in ("locked", "busy", "disk I/O", "unable to open"))
            raise MemdirError(f"could not open the index {path}: {exc}" + ("; retry" if transient else "")) from None
        import shutil

        aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(path) + suffix)
            if src.exists():
                shutil.move(str(src), str(aside) + suffix)
        db = _connect(path)
        migrate(db)
        kept = tombstones.on_open(db, path, created=True, aside=aside)
        ledger.on_open(db, path, created=True, when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        log.warning("memdir: index %s was unreadable (%s); moved aside to %s and rebuilt from the Markdown: its events "
                    "are not in the new index (%d forgotten items stay forgotten)", path, exc, aside.name, kept)
        return db, True


def _orphan_wal(path: Path) -> None:
    """Set aside a non-empty ``-wal`` (with its ``-shm``) found where the index file ``path`` is missing, as
    ``<name>.corrupt-<epoch>-wal`` beside an empty ``<name>.corrupt-<epoch>`` (so ``memdir doctor`` lists it): SQLite
    deletes such a ``-wal`` when it creates the new file, and it holds the last commits of a writer killed before the
    index was deleted, or of a move-aside killed between the file and its ``-wal``. Never raises."""
    wal = Path(f"{path}-wal")
    try:
        # a live index always has its file: every opener creates it before SQLite writes a -wal
        if path.exists() or not wal.exists() or wal.stat().st_size == 0:  # a new index: no -wal at all
            return
        stamp = int(time.time())
        while any(Path(f"{path}.corrupt-{stamp}{s}").exists() for s in ("", "-wal", "-shm")):
            stamp += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}")
        os.close(os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.replace(wal, f"{aside}-wal")
        if os.path.exists(f"{path}-shm"):
            os.replace(f"{path}-shm", f"{aside}-shm")
    except OSError as exc:  # gone meanwhile (another opener set it aside), or unmovable: SQLite decides as before
        log.debug("orphan -wal of %s not set aside: %s", path, exc)
        return
    log.warning("memdir: %s-wal was left without its index (the last commits of a writer killed before the index "
                "went); set aside as %s-wal, never deleted: `memdir doctor` reads what it can", path, aside.name)


#: a store up to this size is rewritten (``VACUUM``) once after m011: its recompressed texts leave half-empty pages
#: that SQLite does not merge on its own (100k synthetic items: 188.6 → 172.3 MB). A larger one keeps them (the
#: rewrite needs as much free disk as the file and minutes); ``VACUUM`` it by hand when convenient.
REPACK_MAX_BYTES = 1 << 30


def _repack(db: sqlite3.Connection, path: Path) -> None:
    try:
        if file_size(path) <= REPACK_MAX_BYTES:
            db.execute("VACUUM")
            settle(db)
    except sqlite3.Error as exc:  # busy readers, no disk space: the store works as it is
        log.debug("VACUUM after m011 skipped: %s", exc)


def check_tokenizer(db: sqlite3.Connection) -> int:
    """Re-tokenize every FTS row when the index was built by another tokenizer version (or a migration asked for
    a rebuild); returns rows rebuilt. The version is :func:`memdir.recall.tokenize.tokenizer_id` (the stemmer's behaviour
    included: the contentless index is cleaned by recomputing tokens, which must not change)."""
    version = index_version()
    row = db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
    if row is not None and row[0] == version:
        return 0
    try:
        db.execute("BEGIN IMMEDIATE")
        row = db.execute("SELECT value FROM meta WHERE key = 'tokenizer'").fetchone()
        if row is not None and row[0] == version:
            db.execute("COMMIT")
            return 0
        n = 0
        if row is not None and _untouched(db, row[0], version):
            pass  # a version before changes that touch only some texts, and no text is one: every row is as written now
        elif row is not None:  # an older index: rebuild its token streams from the stored texts
            log.warning("memdir: re-tokenizing the index %s (one-time: built by tokenizer %s, now %s)",
                        db.execute("PRAGMA database_list").fetchone()[2], row[0], version)
            n = index.rebuild_fts(db)
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('tokenizer', ?)", (version,))
        db.execute("COMMIT")
        if n:
            settle(db, freed=True)
        return n
    except BaseException:
        txn.rollback(db)
        raise


def dotted_i(db: sqlite3.Connection) -> bool:
    """True when a stored text holds a Turkish dotted capital I (U+0130) or a combining dot above (U+0307: the same
    letter decomposed, ``I`` + dot): only then does the tokenizer's reading of it change a row (one scan of the
    texts, once, at the first open after the change)."""
    return _texts_match(db, "instr(t, ?) > 0 OR instr(t, ?) > 0", ("\u0130", "\u0307"))


def index_version() -> str:
    """What decides every token the full-text index holds, as stored in ``meta.tokenizer``: the tokenizer
    (:func:`memdir.recall.tokenize.tokenizer_id`), the neighbour context's length (:data:`memdir.store.rows.CONTEXT_TOKENS`) and how a long
    event is cut into passages (passage 0's span is recomputed when its row is removed). Tuning any of them
    re-tokenizes a store at its next open instead of leaving rows that can no longer be removed exactly."""
    from memdir.recall.tokenize import tokenizer_id

    p = passages
    return (f"{tokenizer_id()}+ctx{rows.CONTEXT_TOKENS}{CONTEXT_RULE}+split{p.SPLIT_ABOVE}.{p.TARGET}.{p.SPLIT_ABOVE_TURN}{LABELS}"
            f"{DOTTED_I}{UNSPACED}{MARKS}{DOTLESS_I}{PICTOGRAPHS}")


#: the part of :func:`index_version` naming how a neighbour's tokens are chosen (:func:`memdir.store.rows.context_tokens`;
#: empty: its first tokens, as every index so far)
CONTEXT_RULE = ""

#: the part of :func:`index_version` saying events' own tags and title are indexed (:func:`memdir.store.rows.event_labels`);
#: an index of the version before it is rebuilt only when one of its events has labels (:func:`check_tokenizer`)
LABELS = "+labels1"

#: the part of :func:`index_version` saying a Turkish dotted capital I is read as ``i`` (:func:`memdir.recall.tokenize.normalize`);
#: an index of the version before it is rebuilt only when one of its texts holds one (:func:`check_tokenizer`)
DOTTED_I = "+dotted-i"


#: the part of :func:`index_version` saying Thai, Lao, Myanmar and Khmer runs are cut into character pairs
#: (:func:`memdir.recall.tokenize.tokenize`); an index of the version before it is rebuilt only when one of its texts
#: holds such a character (:func:`check_tokenizer`)
UNSPACED = "+unspaced"
#: a stored text holding a character of those scripts (SQLite's GLOB compares code points in a range)
_UNSPACED_GLOB = "*[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]*"


#: the part of :func:`index_version` saying a combining mark or invisible character between two letters no longer
#: cuts the word (:func:`memdir.recall.tokenize.mend_words`); an index of the version before it is rebuilt only when
#: one of its texts holds one (:func:`check_tokenizer`)
MARKS = "+inner-marks"

#: the part of :func:`index_version` saying a Turkish dotless ``ı`` also gives the tokens of its ``i`` spelling
#: (:func:`memdir.recall.tokenize.fold`); an index of the version before it is rebuilt only when one of its texts holds one
DOTLESS_I = "+dotless-i"

#: the part of :func:`index_version` saying a pictograph (an emoji) is a token (:func:`memdir.recall.tokenize.pictograph_token`);
#: an index of the version before it is rebuilt only when one of its texts holds one (:func:`check_tokenizer`)
PICTOGRAPHS = "+pictographs"

_TEXTS = ("SELECT text || ifnull(summary, '') || ifnull(highlight, '') || ifnull(tags, '') || ifnull(load_when, '') "
          "|| ifnull(meta, '') AS t FROM docs")


def _texts_match(db: sqlite3.Connection, where: str, args: tuple) -> bool:
    return db.execute("SELECT 1 FROM (" + _TEXTS + ") WHERE " + where + " LIMIT 1", args).fetchone() is not None


def dotless_i(db: sqlite3.Connection) -> bool:
    """True when a stored text holds a Turkish dotless ``ı`` (U+0131)."""
    return _texts_match(db, "instr(t, ?) > 0", ("\u0131",))


def marked_text(db: sqlite3.Connection) -> bool:
    """True when a stored text holds a mark or invisible character inside a word (only non-ASCII texts are read)."""
    from memdir.recall.tokenize import marks_inside_words

    return any(marks_inside_words(t) for (t,) in db.execute("SELECT t FROM (" + _TEXTS + ") WHERE t GLOB ?",
                                                            ("*[^\x01-\x7f]*",)))


def pictograph_text(db: sqlite3.Connection) -> bool:
    """True when a stored text holds a pictograph (:data:`memdir.recall.tokenize.PICTO_RANGES`; SQLite's GLOB takes the
    same ranges of code points)."""
    from memdir.recall.tokenize import PICTO_RANGES

    return _texts_match(db, "t GLOB ?", (f"*[{PICTO_RANGES}]*",))


def unspaced_text(db: sqlite3.Connection) -> bool:
    """True when a stored text holds a Thai, Lao, Myanmar or Khmer character: only then does the tokenizer's
    reading of it change a row."""
    return _texts_match(db, "t GLOB ?", (_UNSPACED_GLOB,))


def _untouched(db: sqlite3.Connection, stored: str, version: str) -> bool:
    """True when ``stored`` is ``version`` without some of its last parts (:data:`LABELS`, :data:`DOTTED_I`,
    :data:`UNSPACED`, :data:`MARKS`, :data:`DOTLESS_I`, :data:`PICTOGRAPHS`: each a change that touches only some rows) and the store holds none of the rows they touch."""
    tests = {LABELS: labeled_events, DOTTED_I: dotted_i, UNSPACED: unspaced_text, MARKS: marked_text,
             DOTLESS_I: dotless_i, PICTOGRAPHS: pictograph_text}
    tail = ""
    for part in (PICTOGRAPHS, DOTLESS_I, MARKS, UNSPACED, DOTTED_I, LABELS):  # newest first
        tail = part + tail
        if stored + tail == version:
            return not any(tests[p](db) for p in tests if p in tail)
    return False


def labeled_events(db: sqlite3.Connection) -> bool:
    """True when an event of ``db`` has tags or a title in its ``meta`` (one pass over the events' ``meta``)."""
    for (meta,) in db.execute("SELECT meta FROM docs WHERE kind = 'event' AND (meta LIKE '%\"title\"%' "
                              "OR meta LIKE '%\"tags\"%')"):
        if rows.event_labels(meta) != ("", ""):
            return True
    return False




def file_size(path: Path) -> int:
    """Bytes of the database plus its WAL (0 when missing)."""
    return sum(os.path.getsize(p) for p in (str(path), str(path) + "-wal") if os.path.exists(p))
