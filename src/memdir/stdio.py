"""The process's text edges, set once where a ``memdir`` process starts (standard library only): file names and
standard streams that carry any language, whatever the locale says."""

from __future__ import annotations

import codecs
import os
import sys


def _utf(encoding: str | None) -> bool:
    try:
        return codecs.lookup(encoding or "ascii").name in ("utf-8", "utf-16", "utf-32")
    except LookupError:
        return False


def utf8_mode(module: str) -> None:
    """Run ``python -m module`` again, same arguments, in Python's UTF-8 mode when the file system encoding is not
    UTF-8 (``LC_ALL=C`` with ``PYTHONUTF8=0``): note files are named in any language (``facts/部署.md``), and under
    ASCII their names could be neither listed nor opened, so every command failed. The working directory is not put
    on the module path (``-P``) unless it was on this process's. Returns when no new start is needed or possible."""
    if os.name != "posix" or sys.flags.utf8_mode or _utf(sys.getfilesystemencoding()):
        return
    args = [os.fsencode(a) for a in sys.argv[1:]]  # the bytes the shell gave, read again as UTF-8
    # -P: ``-m`` would put the working directory (any project a hook fires in) first on the module path, and a
    # project's own click.py or mcp/ would be imported; kept off unless this process had it there already
    safe = ["-P"] if sys.path[:1] != [os.getcwd()] else []
    try:
        os.execv(sys.executable, [sys.executable, "-X", "utf8", *safe, "-m", module, *args])
    except OSError:  # no interpreter to start again: carry on as this one is
        pass


def utf8_streams() -> None:
    """Stdout and stderr write UTF-8 when their encoding cannot carry every character (``PYTHONIOENCODING=ascii``
    or ``latin-1``, a C locale): a note in Chinese or with an emoji was an ``internal error: UnicodeEncodeError``.
    What UTF-8 cannot hold either (a lone surrogate from bytes that were not UTF-8) is written as its backslash
    escape, which inside ``--json`` output is still a valid JSON escape."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            if _utf(getattr(stream, "encoding", None)):
                reconfigure(errors="backslashreplace")
            else:
                reconfigure(encoding="utf-8", errors="backslashreplace")
        except (ValueError, OSError):  # a stream already closed or detached: left as it is
            pass
