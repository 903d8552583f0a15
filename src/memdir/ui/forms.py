"""How the viewer reads a submitted form: the raw body read with a bound, decoded as strict UTF-8, parsed as
``application/x-www-form-urlencoded`` (what every form of the viewer sends).

Starlette's own parser never refuses text: a byte that is not UTF-8 became U+FFFD (``%FF``) or Latin-1 mojibake (a
raw byte, or a multipart part), and a file part became its Python ``repr``. Saved, that text replaced a note's body
with junk the user never typed, where ``memdir edit`` refuses the same bytes in one line (case C39). Here any such
form is refused before anything is read from it, with the reason, and nothing is written.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from starlette.exceptions import HTTPException

from memdir.errors import UsageError

#: a field's encoded size the viewer takes (as Starlette's parser did); the page over it says so (413)
MAX_FIELD_BYTES = 1024 * 1024
#: the whole body: a few fields of that size
MAX_BODY_BYTES = 4 * MAX_FIELD_BYTES
MAX_FIELDS = 100
URLENCODED = "application/x-www-form-urlencoded"


class TooLarge(HTTPException):
    """A form over :data:`MAX_FIELD_BYTES` / :data:`MAX_BODY_BYTES` (the app answers 413 with its page)."""

    def __init__(self) -> None:
        super().__init__(413, "the form is over its maximum size")


async def read_form(request: Any) -> dict[str, str]:
    """The fields of ``request``'s form, ``{name: first value}``. Raises :class:`TooLarge`, or ``UsageError`` for
    a body that is not a URL-encoded form of UTF-8 text (multipart, a file, JSON, bytes that are not UTF-8)."""
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY_BYTES:
            raise TooLarge()
    if not data:
        return {}
    if ctype != URLENCODED:
        raise UsageError(f"not saved: the form came as {ctype or 'no content type'}, not {URLENCODED} "
                         f"(the viewer's forms send text only)")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"not saved: the form's text is not UTF-8 (byte {exc.start})") from None
    out: dict[str, str] = {}
    for part in text.split("&")[: MAX_FIELDS + 1]:
        if len(part) > MAX_FIELD_BYTES:
            raise TooLarge()
    try:
        pairs = parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict", max_num_fields=MAX_FIELDS)
    except UnicodeDecodeError as exc:
        raise UsageError(f"not saved: the form's text is not UTF-8 (an escaped byte {exc.object[exc.start:exc.start + 1]!r})") from None
    except ValueError as exc:  # more fields than any form of the viewer has
        raise UsageError(f"not saved: {exc}") from None
    for k, v in pairs:
        out.setdefault(k, v)
    return out
