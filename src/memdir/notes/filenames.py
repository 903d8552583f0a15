"""Which note file names a folder already holds, as the file systems a store is cloned to compare them: macOS and
Windows do not tell ``Deploy.md`` from ``deploy.md``, and macOS does not tell a decomposed (NFD) name from its
composed form. A new note's slug must differ from every name there under that comparison, else a clone keeps one
of the two files."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Callable


def fold(name: str) -> str:
    """``name`` as a case- and normalization-insensitive file system compares it."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def taken_in(folder: Path, *, reserved: tuple[str, ...] = ("index",)) -> Callable[[str], bool]:
    """A test ``slug -> bool``: true when ``<slug>.md`` would share its name with a file or folder in ``folder``
    (or with one of ``reserved``) under :func:`fold`. The folder is listed once, at the first test."""
    names: set[str] | None = None

    def taken(slug: str) -> bool:
        nonlocal names
        if names is None:
            try:
                listed = os.listdir(folder)
            except OSError:
                listed = []
            names = {fold(n) for n in listed} | {fold(r + ".md") for r in reserved}
        return fold(slug + ".md") in names

    return taken
