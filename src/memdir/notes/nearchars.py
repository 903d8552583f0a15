"""White space and punctuation left out of a text at C speed, for :func:`memdir.notes.markdown.near_key`.

A remember compares its text with every live note's (thousands after a year of use), so the per-character test
(``str.isspace``, Unicode category P*) runs once per distinct character a process meets, and the text itself goes
through ``str.translate`` with the table of those to drop.
"""

from __future__ import annotations

import unicodedata

#: characters people's keyboards and editors put where ``-`` was meant (after NFKC, which makes ``－`` a ``-``):
#: hyphen, non-breaking hyphen, figure dash, en dash, em dash, horizontal bar, minus sign, small em dash, small
#: hyphen-minus, two- and three-em dashes (autocorrect writes ``—force`` for ``--force``)
LONG_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\u2e3a\u2e3b"

_SEEN: set[str] = set()
_DROP: dict[int, None] = {}


def casefolded(text: str) -> str:
    """``text.casefold()``, with a Turkish dotted capital ``İ`` read as ``i``: it casefolds to ``i`` and a combining
    dot above, so ``İzmir`` and ``izmir`` (the same word, one typed on a Turkish keyboard) kept two keys. A dotless
    ``ı`` stays a letter of its own (``ılık`` is not ``ilik``)."""
    out = text.casefold()
    return out.replace("i\u0307", "i") if "\u0307" in out else out


def without_space_and_punctuation(text: str) -> str:
    """``text`` without its white space and Unicode punctuation (categories P*); every other character kept."""
    for ch in set(text).difference(_SEEN):
        _SEEN.add(ch)
        if ch.isspace() or unicodedata.category(ch).startswith("P"):
            _DROP[ord(ch)] = None
    return text.translate(_DROP)


#: the ASCII characters :func:`without_space_and_punctuation` leaves out, as bytes for ``bytes.translate``
_ASCII_DROP = bytes(c for c in range(128) if chr(c).isspace() or unicodedata.category(chr(c)).startswith("P"))


def ascii_key(text: str) -> str:
    """:func:`memdir.notes.markdown.near_key` of a text of ASCII alone, which is its own NFKC form, holds no invisible
    character and casefolds as it lower-cases: white space and punctuation dropped by ``bytes.translate``."""
    low = text.lower()
    return low.encode("ascii").translate(None, _ASCII_DROP).decode("ascii") or " ".join(low.split())
