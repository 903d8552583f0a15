"""Exceptions raised by memdir's public API.

The CLI maps them to exit codes: ``UsageError`` → 2, ``NotFound`` → 1, any other ``MemdirError`` → 1, ``Interrupted``
(Ctrl-C during an import) → 130.
Each message is one sentence that says what to do.
"""


class MemdirError(Exception):
    """Base class of every error memdir raises on purpose."""

    exit_code = 1


class UsageError(MemdirError, ValueError):
    """Bad input from the caller: empty text, unknown category, malformed id, bad option value."""

    exit_code = 2


class UnknownSetting(UsageError, KeyError):
    """``Config.get(key)`` of a key no setting has: a ``UsageError`` naming it (and the nearest key), still a
    ``KeyError`` for code that caught one."""

    def __str__(self) -> str:  # KeyError's own shows the message quoted
        return str(self.args[0]) if self.args else ""


class PathError(UsageError):
    """An id or path would leave its memory root (traversal, absolute path, symlink out, reserved name)."""


class LockBusy(MemdirError):
    """Another memdir process held a root's write lock for longer than the caller would wait."""


class StoreUnreachable(MemdirError):
    """The team store (PostgreSQL) could not be connected to: down, a wrong address or login. ``memdir doctor``
    reports it as a failed check and runs the checks that need no store."""


class NotFound(MemdirError, LookupError):
    """The named memory does not exist."""

    exit_code = 1


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a long import part-way (case C43). Everything committed before it stays: imports
    commit in short batches, and a batch cut short is rolled back whole. A ``KeyboardInterrupt``, so code that
    stops on Ctrl-C still stops.

    ``done``: items of the committed batches (stored, duplicates and skipped alike); ``total``: items there were
    (``None`` when unknown); ``counts``: the import's counts for the committed batches; ``what``: the unit
    (``"events"``); ``verb``: what running it again does with the rest (``"import"``, ``"distil"``). ``str()`` is the
    one line the CLI prints before exiting 130."""

    def __init__(self, done: int, total: int | None = None, counts: dict | None = None, what: str = "events",
                 verb: str = "import"):
        super().__init__(done, total)
        self.done, self.total, self.counts, self.what, self.verb = int(done), total, dict(counts or {}), what, verb

    def __str__(self) -> str:
        of = f" of {self.total}" if self.total is not None else ""
        return f"interrupted after {self.done}{of} {self.what}; run the same command again to {self.verb} the rest"


class ReadOnlyStore(MemdirError):
    """A write (remember, forget, edit, capture, import…) to a memory root this process cannot write: a read-only
    mount, a sandbox that forbids writes, or a full disk (the message then says so; the next write looks again).
    Reads (recall, context, get, recent, status, doctor) still work."""

    exit_code = 1


class EditConflict(MemdirError):
    """An edit made from an older version of a note (``Memdir.edit(..., expect=)``): the file changed on disk (another
    tool, ``git pull``, a second editor) after the editor read it. Nothing was written. ``id``; ``expected`` (the
    version the editor started from) and ``found`` (the file's version now, ``None`` when it was deleted); ``theirs``
    (the text on disk now, ``None`` when deleted) and ``yours`` (the refused text), so a caller can show both."""

    exit_code = 1

    def __init__(self, message: str, *, id: str, expected: str, found: str | None, theirs: str | None, yours: str):
        super().__init__(message)
        self.id, self.expected, self.found, self.theirs, self.yours = id, expected, found, theirs, yours


def damaged_index(exc: BaseException, path: object = None) -> str | None:
    """The one line to show for an index found damaged after it opened (``sqlite3.DatabaseError`` "malformed", "not
    a database", "corrupt", FTS5's "vtable constructor failed"; the open itself reads only the schema): what happened
    and how to get a working index back, keeping the file so its readable rows can be salvaged; ``path`` names the
    index file (default: the project's). ``None`` for any other error (a locked or unwritable database is an
    ``OperationalError``, not damage)."""
    import sqlite3

    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(exc, sqlite3.OperationalError) \
            or not any(w in msg for w in ("malformed", "not a database", "corrupt", "vtable constructor failed")):
        return None
    return f"the index is damaged ({msg}): {index_recovery(path)}"


def disk_full(exc: BaseException) -> str | None:
    """The one line for a write the disk had no room for (SQLite's "database or disk is full", an ``OSError``
    ENOSPC or EDQUOT; the disk of the file it names, else the store's): the user's disk, not a bug; ``None`` for any
    other error. SQLite rolls the failed transaction
    back; a rerun stores what is missing once (texts and keys are deduplicated)."""
    import errno
    import sqlite3

    full = (isinstance(exc, sqlite3.DatabaseError) and (getattr(exc, "sqlite_errorcode", None) == 13  # SQLITE_FULL
                                                        or "database or disk is full" in str(exc))) \
        or (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)))
    if not full:
        return None
    where = getattr(exc, "filename", None)  # a file written elsewhere (an export) may be on another disk
    return (f"the disk holding {where or 'the memory store'} is full (or over its quota): free some space and run the "
            "command again (what was stored is kept, and nothing is stored twice)")


def index_recovery(path: object = None) -> str:
    """How to get a working index back from a damaged one at ``path`` (default: the project's), keeping the file so
    its readable rows can be salvaged: what :func:`damaged_index` and ``memdir doctor``'s failed integrity check say."""
    where = str(path) if path else ".memory/.memdir/index.sqlite3"
    return (f"stop memdir processes (memdir serve, hooks), then move {where} aside as {where}.corrupt-1 (its "
            "-wal/-shm beside it as .corrupt-1-wal/-shm): notes are rebuilt from the Markdown and forgotten items stay "
            "forgotten (.memdir/tombstones.jsonl); `memdir doctor` then reads back the events the moved file still "
            "holds; the rest come back from an earlier memdir export or by importing the transcripts again")


#: the largest count a size argument keeps (``k``, ``limit``, ``max_entries``, ``max_chars``): more is "all there is"
MOST = 1 << 31


def count_arg(value: object, name: str, *, zero: str) -> int:
    """``value`` as a count of 0 or more, at most :data:`MOST` (a larger one asks for all there is, never an
    ``OverflowError`` from SQLite): a float is cut to its whole part; ``True``, a string, NaN and infinity raise
    ``UsageError`` naming ``name``, as a negative value does (``zero``: what 0 gives, said in that message)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
        raise UsageError(f"{name} must be a whole number of 0 or more, not {value!r}")
    if value < 0:
        raise UsageError(f"{name} must be 0 or more ({zero}), not {value}")
    return int(min(value, MOST))


def text_arg(value: object, name: str) -> str | None:
    """``value`` when it is text or ``None``; anything else raises ``UsageError`` naming ``name`` (a summary of ``5``
    was a ``TypeError`` from deep inside the write)."""
    if value is None or isinstance(value, str):
        return value
    raise UsageError(f"{name} must be text, not {type(value).__name__} {value!r:.60}")


def items_arg(value: object, name: str) -> tuple[str, ...]:
    """Tags, load_when, kinds or sections as given: ``None`` is none, one string is one item (``tags="infra"`` was
    five one-letter tags), a list, tuple or set of texts (or numbers) is those; anything else (a number, bytes, a
    mapping, an item that is no text) raises ``UsageError`` naming ``name``."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, bytearray, dict)) or not hasattr(value, "__iter__"):
        raise UsageError(f"{name} must be a list of texts, not {type(value).__name__} {value!r:.60}")
    items = tuple(value)
    for x in items:
        if isinstance(x, bool) or not isinstance(x, (str, int, float)):
            raise UsageError(f"{name} must be a list of texts, not one holding {x!r:.60}")
    return tuple(str(x) for x in items)


def choice_args(value: object, name: str, choices: tuple[str, ...]) -> tuple[str, ...]:
    """:func:`items_arg`, each item one of ``choices``: another raises ``UsageError`` naming it and them (an
    unknown section or status was read as "nothing to show")."""
    items = items_arg(value, name)
    bad = [x for x in items if x not in choices]
    if bad:
        raise UsageError(f"unknown {name} value {bad[0]!r}: use {', '.join(choices)}")
    return items


def path_arg(value: object, name: str):
    """``value`` as a ``pathlib.Path`` (a ``str`` or ``os.PathLike``); anything else raises ``UsageError`` naming
    ``name`` (``export(None)`` was a ``TypeError``)."""
    import os
    from pathlib import Path

    if isinstance(value, (str, os.PathLike)) and str(value).strip():
        return Path(value)
    raise UsageError(f"{name} must be a file path, not {value!r:.60}")


def flag_arg(value: object, name: str) -> bool:
    """``True``/``False`` (or 1/0); anything else raises ``UsageError`` naming ``name`` (``pinned="no"`` pinned)."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise UsageError(f"{name} must be True or False, not {value!r:.60}")


def mapping_arg(value: object, name: str) -> dict:
    """A dict as given (``None``: an empty one); anything else raises ``UsageError`` naming ``name``."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    raise UsageError(f"{name} must be a dict of fields, not {type(value).__name__} {value!r:.60}")


def install_hint(extra: str = "", tool: str = "pip") -> str:
    """The command that adds memdir's optional dependency group ``extra`` (``"ui"``, ``"mcp"``…; ``""``: memdir
    itself) with ``tool`` (``pip``, ``pipx``): for a memdir installed from a folder (a clone, ``pip install -e .``)
    that folder (``pip install -e '/src/memdir[ui]'``), as the README installs it; else the package's name
    (``pip install 'memdir[ui]'``). A clone's user told to ``pip install 'memdir[ui]'`` asks the package index for a
    project of that name instead."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlsplit

    try:
        raw = metadata.distribution("memdir").read_text("direct_url.json")
        info = json.loads(raw) if raw else {}
    except (metadata.PackageNotFoundError, ValueError, OSError):
        info = {}
    url = info.get("url") if isinstance(info, dict) else None
    if isinstance(url, str) and url.startswith("file://") and isinstance(info.get("dir_info"), dict):
        folder = unquote(urlsplit(url).path)
        editable = "-e " if info["dir_info"].get("editable") else ""
        return f"{tool} install {editable}'{folder}{f'[{extra}]' if extra else ''}'"
    return f"{tool} install " + (f"'memdir[{extra}]'" if extra else "memdir")


def version_arg(value: object, name: str = "expect") -> str | None:
    """A note version as ``memdir.notes.markdown.version`` gives it (12 hex digits; spaces around and capitals
    taken), or ``None``; anything else raises ``UsageError`` naming ``name`` (``expect=5`` was reported as the file
    having changed on disk)."""
    if value is None:
        return None
    import re

    if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{12}", value.strip().lower()):
        return value.strip().lower()
    raise UsageError(f"{name} must be a note version (12 hex digits, as memdir.notes.markdown.version gives), "
                     f"not {value!r:.60}")


def session_arg(value: object, name: str = "session") -> str | None:
    """``None`` (no session named), or a session id: text that is not blank. An empty or blank one (``memdir distill
    --session ""`` ran every session) or another type raises ``UsageError`` naming ``name``."""
    if value is None or (isinstance(value, str) and value.strip()):
        return value
    raise UsageError(f"{name} must name a session (a non-empty id; leave it out for every session), not {value!r:.60}")
