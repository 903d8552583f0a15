"""Where text may be cut without splitting a character a person sees: a ZWJ emoji (a family, a profession), a flag
(two regional indicators), a letter with its combining accents, an emoji with its skin tone or variation selector.
An approximation of Unicode's extended grapheme clusters (UAX #29) that needs no table beyond :mod:`unicodedata`;
used to cut previews (:func:`memdir.capture.events.head`) and the CLI's lines (:mod:`memdir.cli.cells`)."""

from __future__ import annotations

import unicodedata

ZWJ = "\u200d"


def _regional(c: str) -> bool:
    return 0x1F1E6 <= ord(c) <= 0x1F1FF


def joins(prev: str, c: str) -> bool:
    """Whether ``c`` belongs to the character a terminal draws with the ``prev`` before it (no cut between them);
    a flag's pair of regional indicators is told apart by :func:`clusters`, not here."""
    o = ord(c)
    return (prev == ZWJ or c == ZWJ or unicodedata.category(c) in ("Mn", "Me", "Mc")
            or 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF  # variation selectors
            or 0x1F3FB <= o <= 0x1F3FF  # skin tones
            or 0xE0020 <= o <= 0xE007F)  # tag characters (a subdivision flag)


def clusters(text: str) -> list[str]:
    """``text`` as the characters a person sees, in order (joined again they are ``text``)."""
    out: list[str] = []
    pairing = False  # a regional indicator waiting for the second of its flag
    for c in text:
        regional = _regional(c)
        if out and (joins(out[-1][-1], c) or (regional and pairing)):
            out[-1] += c
            pairing = False
        else:
            out.append(c)
            pairing = regional
    return out


def boundary(text: str, i: int) -> int:
    """The largest ``j <= i`` where ``text[:j]`` ends between two characters a person sees (``i`` itself when it
    does); ``len(text)`` when ``i`` is past the end."""
    if i >= len(text):
        return len(text)
    j = max(0, i)
    while 0 < j and joins(text[j - 1], text[j]):
        j -= 1
    if j and _regional(text[j]):
        run = 0
        while j - run > 0 and _regional(text[j - run - 1]):
            run += 1
        j -= run % 2  # an odd run before it: text[j] is the second of a flag
    return j
