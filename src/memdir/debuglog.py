"""The opt-in debug log (``MEMDIR_DEBUG=1`` or the ``debug`` config key): ``<global root>/.memdir/debug.log``.

Used by the facade (:class:`memdir.Memdir`) and by the hook entry point (:mod:`memdir.hosts.hooks`), which turns it on
before any store is opened. The file is on disk, so every record, its traceback included, goes through
:func:`memdir.capture.redact.redact` before it is written.
"""

from __future__ import annotations

import logging
from pathlib import Path

from memdir.roots import owner_only, private_derived

log = logging.getLogger("memdir")


class RedactingFormatter(logging.Formatter):
    """A formatter whose whole output (message and traceback: an error can quote a prompt) is redacted."""

    def format(self, record: logging.LogRecord) -> str:
        from memdir.capture.redact import redact  # only when a record is written: the hook path stays lean

        return redact(super().format(record))


def enable_debug_log(home: Path) -> None:
    """Append the ``memdir`` logger's records at DEBUG level to ``<home>/.memdir/debug.log`` (once per process;
    nothing happens when the directory cannot be created)."""
    if any(getattr(h, "_memdir_debug", False) for h in log.handlers):
        return
    try:
        d = Path(home) / ".memdir"
        private_derived(d)
        owner_only(d / "debug.log", create=True)  # queries and prompts go in it (redacted)
        h = logging.FileHandler(d / "debug.log", encoding="utf-8")
    except OSError:
        return
    h.setFormatter(RedactingFormatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
    h._memdir_debug = True  # type: ignore[attr-defined]
    log.addHandler(h)
    log.setLevel(logging.DEBUG)
