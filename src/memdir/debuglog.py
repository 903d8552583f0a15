"""The opt-in debug log (``MEMDIR_DEBUG=1`` or the ``debug`` config key): ``<global root>/.memdir/debug.log``.

Used by the facade (:class:`memdir.Memdir`) and by the hook entry point (:mod:`memdir.hosts.hooks`), which turns it on
before any store is opened. The file is on disk, so every record, its traceback included, goes through
:func:`memdir.capture.redact.redact` before it is written.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from memdir.roots import owner_only, private_derived

log = logging.getLogger("memdir")


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

    def handleError(self, record: logging.LogRecord) -> None:
        pass


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
        return os.fdopen(fd, "a", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def enable_debug_log(home: Path) -> None:
    """Append the ``memdir`` logger's records at DEBUG level to ``<home>/.memdir/debug.log`` (once per process;
    nothing happens when the directory cannot be created or ``debug.log`` is not a regular file, a named pipe say)."""
    if any(getattr(h, "_memdir_debug", False) for h in log.handlers):
        return
    try:
        d = Path(home) / ".memdir"
        private_derived(d)
        owner_only(d / "debug.log", create=True)  # queries and prompts go in it (redacted)
        stream = _open_regular(d / "debug.log")
    except OSError:
        return
    if stream is None:
        return
    h = _DebugHandler(stream)
    h.setFormatter(RedactingFormatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
    h._memdir_debug = True  # type: ignore[attr-defined]
    log.addHandler(h)
    log.setLevel(logging.DEBUG)
