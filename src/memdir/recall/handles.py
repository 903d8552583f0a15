"""Short, stable handles for stored memories: what the ``<memory>`` block shows instead of 36-char session ids and
40-char slugs, and what ``get``/``forget`` (API, CLI, MCP) accept wherever a note id or event key is accepted.

A handle is the first :data:`LENGTH` characters of the Crockford base-32 encoding (lower case, no ``i l o u``) of
SHA-256 over the memory's id/key, so it never changes for the same memory (re-import, ``reindex``, export and import
all keep it). It is stored in ``docs.handle`` (migration ``m008``); when two ids of one root would share a handle, the
later one takes one more character (:func:`assign`), so a handle names one memory per root.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import unicodedata

LENGTH = 6
ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
PATTERN = re.compile(rf"^[{ALPHABET}]{{{LENGTH},16}}$")


def digest(ref: str, length: int = 26) -> str:
    """26 Crockford base-32 characters of SHA-256(``ref``) (130 bits), least significant first; ``length``: only
    the first that many (what :func:`assign` needs almost always)."""
    n = int.from_bytes(hashlib.sha256(ref.encode("utf-8", "replace")).digest(), "big")
    return "".join([ALPHABET[(n >> (5 * i)) & 31] for i in range(min(length, 26))])


def assign(db: sqlite3.Connection, ref: str) -> str:
    """The handle for ``ref`` in this index: the shortest prefix (>= :data:`LENGTH`) of :func:`digest` that no other
    ref of ``docs`` holds. Caller holds a transaction."""
    h = digest(ref, LENGTH)
    if db.execute("SELECT 1 FROM docs WHERE handle = ? AND ref != ? LIMIT 1", (h, ref)).fetchone() is None:
        return h
    d = digest(ref)
    for n in range(LENGTH + 1, len(d) + 1):
        h = d[:n]
        row = db.execute("SELECT ref FROM docs WHERE handle = ? AND ref != ? LIMIT 1", (h, ref)).fetchone()
        if row is None:
            return h
    return d


def looks_like(text: str) -> bool:
    """True when ``text`` has the shape of a handle (6-16 characters of the handle alphabet)."""
    return bool(PATTERN.match(text or ""))


#: what a copied id is wrapped in where a model or a person read it (quotes, backticks, brackets)
#: and Japanese/Chinese corner and lenticular brackets and guillemets (full-width ones are ASCII after NFKC)
_PAIRS = {"'": "'", '"': '"', "`": "`", "[": "]", "(": ")", "<": ">", "\u201c": "\u201d", "\u2018": "\u2019",
          "\u300c": "\u300d", "\u300e": "\u300f", "\u3010": "\u3011", "\u00ab": "\u00bb", "\u201e": "\u201c"}


def unwrapped(text: str) -> str:
    """``text`` without what a copy wraps an id or handle in: surrounding quotes, backticks or brackets, a leading
    ``#`` or ``@``, and of a block header (``[k3f9qa fact 12-06]``) the handle alone. Callers try ``text`` as it is
    first: an id may hold such characters. Letters, digits and brackets typed in full width (an IME left in full-width
    mode: ``ＮＱＤＣＱＣ``, ``ｆａｃｔｓ/ｘ``, ``［…］``) are read in their ASCII forms (NFKC)."""
    t = unicodedata.normalize("NFKC", text).strip() if not text.isascii() else text.strip()
    while True:
        was = t
        if len(t) >= 2 and _PAIRS.get(t[0]) == t[-1]:
            t = t[1:-1].strip()
        if t[:1] in ("#", "@"):
            t = t[1:].strip()
        if t == was:
            break
    first = t.split(None, 1)
    return first[0] if len(first) == 2 and looks_like(first[0].lower()) else t
