"""An id typed in one Unicode spelling for a note stored under the other (macOS): a file name read back decomposed
(NFD: an HFS+ volume, a clone made with ``core.precomposeunicode=false``) is indexed as it is spelled on disk, while a
keyboard types the composed (NFC) form. :func:`held` gives the spelling a root holds, so get, forget, pin, edit and
``supersedes`` find the note either way."""

from __future__ import annotations

import unicodedata
from typing import Any, Iterable


def held(roots: Iterable[Any], id: str) -> str:
    """``id`` when it is ASCII or some root holds it as given; else its NFC or NFD spelling that a root holds; else
    ``id`` unchanged (the caller's "no memory with id" names what was typed)."""
    if id.isascii():
        return id
    roots = list(roots)
    if any(r.store.has_ref(id) for r in roots):
        return id
    for form in ("NFC", "NFD"):
        other = unicodedata.normalize(form, id)
        if other != id and any(r.store.has_ref(other) for r in roots):
            return other
    return id
