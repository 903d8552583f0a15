"""Cursor pages over the viewer's lists: every list is shown a page at a time with its position and total
("51–100 of 3,450") and links to the first, previous, next and last page, so no page cuts a list silently.

A cursor is the sort key of a row (encoded for the URL), not a row number: ``after=<cursor>`` is the page that
starts just after that row, ``before=<cursor>`` the page that ends just before it, ``at=<cursor>`` the page that
holds it (a link to one turn of a long session), ``end=1`` the last page. Rows added or forgotten between two clicks
do not shift the page a cursor names. A cursor whose row was forgotten still works: the page starts at the next key.
"""

from __future__ import annotations

import base64
import bisect
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence
from urllib.parse import urlencode

DEFAULT_SIZE = 50
MAX_SIZE = 200


def encode(key: Sequence[Any]) -> str:
    """A sort key (a tuple of str / int / float) as a URL-safe cursor."""
    raw = json.dumps(list(key), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode(cursor: str | None) -> tuple | None:
    """The sort key of ``cursor``, or ``None`` for a missing or malformed one (then the first page is shown)."""
    if not cursor:
        return None
    try:
        got = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, TypeError):
        return None
    if not isinstance(got, list) or not all(isinstance(x, (str, int, float)) for x in got):
        return None
    return tuple(got)


def size_of(value: str | None, default: int = DEFAULT_SIZE) -> int:
    """The page size asked for (``n=``), within 1..:data:`MAX_SIZE`."""
    try:
        return max(1, min(int(value or default), MAX_SIZE))
    except ValueError:
        return default


@dataclass
class Page:
    """One page: ``items``, their 1-based position ``start``..``stop`` in ``total``, and the cursors of its
    neighbours (``None`` at either end). ``cut`` is set when the list itself was bounded before paging (e.g. a
    bounded log, or recall's best hits), with the reason to show."""

    items: list
    start: int
    stop: int
    total: int
    size: int
    next: str | None = None
    prev: str | None = None
    cut: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    size_key: str = "n"
    default_size: int = DEFAULT_SIZE

    def href(self, path: str, **cursor: Any) -> str:
        """``path`` with this page's other parameters and ``cursor`` (``after=``, ``before=``, ``end=``)."""
        q = {**self.params, **({self.size_key: str(self.size)} if self.size != self.default_size else {}),
             **{k: str(v) for k, v in cursor.items()}}
        return f"{path}?{urlencode(q)}" if q else path


def paginate(rows: Sequence[Any], key: Callable[[Any], tuple], query: Any, *, size: int | None = None,
             params: dict[str, str] | None = None, cut: str | None = None, default_end: bool = False,
             size_key: str = "n", default_size: int = DEFAULT_SIZE) -> Page:
    """The page of ``rows`` (already sorted by ``key``, ascending) that ``query`` (the request's query parameters:
    ``after``, ``before``, ``at``, ``end``, and the page size ``size_key``) names. ``default_end``: without a cursor
    show the last page."""
    n = size or size_of(query.get(size_key), default_size)
    keys = [tuple(key(r)) for r in rows]
    total = len(rows)
    after, before, at = decode(query.get("after")), decode(query.get("before")), decode(query.get("at"))
    try:
        if after is not None:
            lo = bisect.bisect_right(keys, after)
        elif before is not None:
            lo = max(0, bisect.bisect_left(keys, before) - n)
        elif at is not None:
            i = min(bisect.bisect_left(keys, at), max(total - 1, 0))
            lo = (i // n) * n
        elif query.get("end") == "1" or default_end:
            lo = max(0, total - n)
        else:
            lo = 0
    except TypeError:  # a cursor of another list's shape
        lo = 0
    hi = min(total, lo + n)
    return Page(items=list(rows[lo:hi]), start=lo + 1 if hi > lo else 0, stop=hi, total=total, size=n,
                next=encode(keys[hi - 1]) if hi < total else None, prev=encode(keys[lo]) if lo > 0 else None,
                cut=cut, params={k: v for k, v in (params or {}).items() if v}, size_key=size_key,
                default_size=default_size)
