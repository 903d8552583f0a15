"""The process's text edges, set once where a ``memdir`` process starts (standard library only): standard streams
that carry any language, whatever the locale says."""

from __future__ import annotations

import codecs
import sys


def _utf(encoding: str | None) -> bool:
    try:
        return codecs.lookup(encoding or "ascii").name in ("utf-8", "utf-16", "utf-32")
    except LookupError:
        return False


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
