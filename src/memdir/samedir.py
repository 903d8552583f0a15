"""Whether two paths name one folder, where a file system has two spellings for it (macOS: case-insensitive and
blind to Unicode normalisation, while ``realpath`` keeps the spelling it was given, so ``/Users/ann/Proj`` and
``/users/ann/proj`` or a composed and a decomposed ``café`` are one folder under two strings)."""

from __future__ import annotations

import os
import unicodedata


def _fold(path: str) -> str:
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def same_dir(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True when ``a`` and ``b``, links followed, are one folder: their real paths are equal, or they differ only in
    case or Unicode normalisation and the file system says they are the same folder (two folders of a case-sensitive
    disk stay two; a path that does not exist is no match)."""
    ra, rb = os.path.realpath(a), os.path.realpath(b)
    if ra == rb:
        return True
    if _fold(ra) != _fold(rb):
        return False
    try:
        return os.path.samefile(ra, rb)
    except OSError:
        return False
