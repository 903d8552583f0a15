"""The opt-in debug log (``MEMDIR_DEBUG=1`` or the ``debug`` config key): ``<global root>/.memdir/debug.log``.

Used by the facade (:class:`memdir.Memdir`) and by the hook entry point (:mod:`memdir.hosts.hooks`), which turns it on
before any store is opened. The file is on disk, so every record, its traceback included, goes through
:func:`memdir.capture.redact.redact` before it is written. It is kept to :data:`MAX_LOG_BYTES` and one previous file,
``debug.log.1``.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from memdir.roots import owner_only, private_derived

log = logging.getLogger("memdir")

LOG_NAME = "debug.log"
#: past this many bytes ``debug.log`` becomes ``debug.log.1`` (the one before it goes) and a new one is started, when a
#: process opens it and as it writes: ``debug = true`` left on for months costs two files of this size, not a disk
MAX_LOG_BYTES = 5_000_000


class RedactingFormatter(logging.Formatter):
    """A formatter whose whole output (message and traceback: an error can quote a prompt) is redacted: its own
    ``fmt``'s, or with ``inner`` another formatter's (a handler memdir did not make keeps its format)."""

    def __init__(self, fmt: str | None = None, *, inner: logging.Formatter | None = None):
        super().__init__(fmt)
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        from memdir.capture.redact import redact  # only when a record is written: the hook path stays lean

        return redact(self.inner.format(record) if self.inner is not None else super().format(record))


class _DebugHandler(logging.StreamHandler):
    """The debug log's handler: a record the file cannot take (a full disk, a quota) is dropped. Logging's own report
    of the failure goes to stderr, which a hook sends back into this log (no end) and a host shows as a failure."""

    path: Path | None = None

    def handleError(self, record: logging.LogRecord) -> None:
        pass

    def emit(self, record: logging.LogRecord) -> None:
        super().emit(record)
        try:
            if self.path is not None and self.stream.tell() > MAX_LOG_BYTES:
                self._rotate()
        except (OSError, ValueError):
            pass

    def _rotate(self) -> None:
        """Start a new file at :attr:`path`: rotated unless another process did so since (then it is only reopened)."""
        assert self.path is not None
        self.stream.flush()
        mine = os.fstat(self.stream.fileno())
        try:
            there = os.stat(self.path)
        except FileNotFoundError:
            there = None
        if there is not None and (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino):
            rotate(self.path)
        stream = _open_regular(self.path)
        if stream is None:
            return
        owner_only(self.path)
        old, self.stream = self.stream, stream
        old.close()


def _open_regular(path: Path):
    """``path`` opened for appending text, or ``None`` when it is not a regular file: opening a named pipe for writing
    waits for a reader, so a FIFO there would hang every command and hook (opened non-blocking, it fails at once or
    is refused here)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "a", encoding="utf-8")  # the file object owns fd now: never closed twice


def rotate(path: Path) -> None:
    """Move ``path`` (a log past :data:`MAX_LOG_BYTES`) to ``<name>.1``, replacing the one before; never raises."""
    try:
        if stat.S_ISREG(os.lstat(path).st_mode) and os.path.getsize(path) > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
            owner_only(path.with_name(path.name + ".1"))  # one an older memdir left readable is closed too
    except OSError:
        pass


def enable_debug_log(home: Path) -> None:
    """Append the ``memdir`` logger's records at DEBUG level to ``<home>/.memdir/debug.log`` (once per process;
    nothing happens when the directory cannot be created or ``debug.log`` is not a regular file, a named pipe say)."""
    if any(getattr(h, "_memdir_debug", False) for h in log.handlers):
        return
    try:
        d = Path(home) / ".memdir"
        private_derived(d)
        rotate(d / LOG_NAME)
        owner_only(d / LOG_NAME, create=True)  # queries and prompts go in it (redacted)
        stream = _open_regular(d / LOG_NAME)
    except OSError:
        return
    if stream is None:
        return
    h = _DebugHandler(stream)
    h.path = d / LOG_NAME
    h.setFormatter(RedactingFormatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
    h._memdir_debug = True  # type: ignore[attr-defined]
    log.addHandler(h)
    log.setLevel(logging.DEBUG)
