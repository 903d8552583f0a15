"""Timestamps: every stored time is an aware UTC ``datetime`` (case C13).

Accepted inputs for :func:`parse_ts`:

* ``datetime`` — aware ones are converted to UTC; a naive one is the machine's local time (the zone of ``TZ`` or
  the system's, as a person or a tool on this machine wrote it) and is converted to UTC (case C25);
* ``date`` — local midnight, converted to UTC;
* ``int``/``float`` epoch — seconds, or milliseconds when ``abs(value) >= 1e11`` (seed 000 writes ms epochs),
  microseconds from ``1e14`` (PostgreSQL, Chrome), nanoseconds from ``1e17`` (``time.time_ns()``, Go's ``UnixNano``,
  OpenTelemetry): each threshold is year 5138 in the unit below;
* ``str`` — ISO 8601 (``Z`` or offset, with or without time; without either, local time; eight digits that are a
  date, ``20261130``, are that date; four, ``2026``, that year's first day), a numeric epoch string (``1.5e12``, ``+1772359200`` as the numbers),
  an RFC 2822 date (an HTTP ``Date`` header, an e-mail's, ``git log --date=rfc``: ``Mon, 30 Nov 2026 09:15:00 +0800``),
  the forms with a month's name of ``date``, ``ctime``, ``git log`` and JavaScript's ``Date.toString()`` (a zone
  named by offset, ``UTC``/``GMT`` or the local zone's own name; none is local time), an ISO 8601 time whose zone
  follows a space or is named (``2026-11-30 09:15:00.123 +0800``, ``… 09:15:00 UTC``), or the LoCoMo form
  ``"1:56 pm on 8 May, 2023"`` (local time). A leap second (``23:59:60``) is the last instant of its minute.

Stored and machine-readable times (the index, note frontmatter, ``--json``, exports) are ISO 8601 UTC with ``Z``
(:func:`iso`); times shown to a person (CLI lines, the ``<memory>`` block's dates, the viewer) are local
(:func:`local`, :func:`local_text`).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from memdir.errors import UsageError

UTC = timezone.utc
_MS_THRESHOLD = 1e11  # 1e11 s is year 5138; anything larger is milliseconds
_US_THRESHOLD = 1e14  # 1e14 ms is year 5138 too: microseconds
_NS_THRESHOLD = 1e17  # and nanoseconds


def now_utc() -> datetime:
    """The current time as an aware UTC datetime."""
    return datetime.now(UTC)


def from_local(dt: datetime) -> datetime:
    """A naive ``dt`` read as the machine's local wall-clock time, as an aware UTC datetime (an aware one is only
    converted). A wall time the clock repeats (a DST overlap) is its first pass; one it skipped (a DST gap) is read
    with the offset before the change, as ``zoneinfo`` and PEP 495 do, so it lands just after the change on its own
    day. A time within a day of the calendar's ends whose UTC instant (or the platform's look-up of the local
    offset) leaves years 1..9999 is the calendar's nearest time: Go's zero time ``0001-01-01 00:00:00`` without a
    zone is a time, not unreadable."""
    try:
        if dt.tzinfo is not None:
            return dt.astimezone(UTC)
        # timestamp() follows PEP 495 on every Python (fold=0: a skipped time takes the offset before the change, a
        # repeated one its first pass); a naive astimezone() does not: up to 3.11 it took the offset after the change
        # in a gap, from 3.12 the one before, so no correction made on one version was right on the other
        return datetime.fromtimestamp(dt.timestamp(), UTC)
    except (OverflowError, ValueError, OSError):
        if dt.year not in (1, 9999):
            raise
    inward = timedelta(days=2) if dt.year == 1 else -timedelta(days=2)  # the offset looked up two days inside
    try:
        return (dt + inward).astimezone(UTC) - inward
    except OverflowError:
        return (datetime.min if dt.year == 1 else datetime.max).replace(tzinfo=UTC)


def local(dt: datetime) -> datetime:
    """An aware (or naive = local) ``dt`` as an aware datetime in the machine's local zone, for display. A time so near
    the calendar's ends (``0001-01-01`` west of Greenwich, ``9999-12-31`` east of it) that its local wall clock falls
    outside years 1..9999 is shown in UTC instead of raising ``OverflowError``."""
    try:
        return from_local(dt).astimezone()
    except (OverflowError, ValueError, OSError):
        return from_local(dt) if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def local_text(dt: datetime | None, *, minutes: bool = True) -> str:
    """``dt`` as a person reads it here: local ``YYYY-MM-DD HH:MM`` (``minutes=False``: ``YYYY-MM-DD``); ``None``
    gives ``""``."""
    if dt is None:
        return ""
    d = local(dt)
    return f"{d.year:04d}-{d:%m-%d %H:%M}" if minutes else f"{d.year:04d}-{d:%m-%d}"


def typed_time(value):
    """``value`` as a person typed it into a file (YAML frontmatter): a bare four-digit year there (``created: 2026``,
    which YAML reads as a number) is that year, as the string ``"2026"`` is, not 1970's 2,026th second."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999 else value


def parse_ts(value, *, default: datetime | None = None) -> datetime:
    """Parse ``value`` into an aware UTC datetime; a value without a zone is local time (see the module docstring).

    Raises ``UsageError`` for an unparseable value unless ``default`` is given (then it is returned).
    ``None`` and ``""`` return ``default`` (or raise when it is ``None``).
    """
    try:
        return _parse(value)
    except (UsageError, ValueError, OverflowError, OSError, TypeError) as exc:
        if default is not None:
            return default
        if isinstance(exc, UsageError):
            raise
        raise UsageError(f"unreadable timestamp {str(value)[:60]!r}: use ISO 8601 or an epoch number") from None


def _parse(value) -> datetime:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise UsageError("missing timestamp")
    if isinstance(value, bool):
        raise UsageError("a boolean is not a timestamp")
    if isinstance(value, datetime):
        if value.tzinfo is not None and value.tzinfo.utcoffset(value) is None:
            value = value.replace(tzinfo=None)
        return from_local(value)
    if isinstance(value, date):
        return from_local(datetime(value.year, value.month, value.day))
    if isinstance(value, (int, float)):
        v = float(value)
        if v != v:  # NaN
            raise UsageError("NaN is not a timestamp")
        if isinstance(value, int) and abs(value) >= _MS_THRESHOLD:  # exact: a float loses a ns epoch's digits
            unit = 10**9 if abs(value) >= _NS_THRESHOLD else 10**6 if abs(value) >= _US_THRESHOLD else 10**3
            whole, rest = divmod(value, unit)
            return datetime.fromtimestamp(whole, UTC) + timedelta(microseconds=rest * 10**6 // unit)
        if abs(v) >= _NS_THRESHOLD:
            v /= 1e9
        elif abs(v) >= _US_THRESHOLD:
            v /= 1e6
        elif abs(v) >= _MS_THRESHOLD:
            v /= 1000.0
        return datetime.fromtimestamp(v, UTC)
    if isinstance(value, str):
        s = value.strip()
        leap = _LEAP_SECOND.search(s) if len(s) <= 200 else None
        if leap:  # RFC 3339's second 60: the last instant of its minute, so it sorts between :59 and the next minute
            return _parse(s[:leap.start()] + ":59" + s[leap.end():]) + timedelta(microseconds=999_999)
        if len(s) == 8 and s.isdigit() and s[0] != "0":  # ISO 8601's basic date (date +%Y%m%d), not 1970's seconds
            try:
                return from_local(datetime.fromisoformat(s))
            except ValueError:
                pass
        if len(s) == 4 and s.isdecimal():  # ISO 8601's reduced form: that year's first local day, not 1970's
            return from_local(datetime(int(s), 1, 1))  # 2,026th second (other digit strings stay epoch seconds:
            # `distill --since 0` asks for every turn)
        if re.fullmatch(r"[+-]?\d+", s):
            return _parse(int(s))
        if re.fullmatch(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", s):  # as a JSON or Python number reads
            return _parse(float(s))
        m = _BRACKET_ZONE.fullmatch(s) if s.endswith("]") and len(s) <= 200 else None
        if m:  # RFC 9557: '2026-11-30T09:15:00+08:00[Asia/Shanghai]'; the offset decides, else the zone named
            dt = _parse(m[1])
            if _HAS_ZONE.search(m[1]) or "=" in m[2]:  # a zone or an epoch, or a tag such as [u-ca=gregory]: as read
                return dt
            try:  # the wall clock written (an ISO time read as such: no round trip through a local DST gap)
                wall = datetime.fromisoformat(m[1])
            except ValueError:
                wall = local(dt).replace(tzinfo=None)
            zoned = _in_zone(wall, m[2]) if wall.tzinfo is None else dt
            if zoned is None:
                raise UsageError(f"unreadable timestamp {s[:60]!r}: no time zone is named {m[2]!r}")
            return zoned
        m = _END_OF_DAY.fullmatch(s)
        if m:  # ISO 8601's 24:00 is the next day's 00:00
            return _parse(f"{m[1]}T00:00:00{m[2]}") + timedelta(days=1)
        iso = s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s
        if re.match(r"\d{1,3}-\d\d-\d\d(?:[Tt ]|$)", iso):  # a year below 1000 written unpadded (strftime's %Y on
            iso = iso.zfill(len(iso) + 4 - iso.index("-"))   # glibc, as memdir's own iso() did): 0001-01-01
        try:
            return _parse(datetime.fromisoformat(iso))
        except ValueError:
            pass
        m = re.fullmatch(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", s, re.I)
        if m:
            hh, mm, ap, dd, mon, yy = m.groups()
            dt = datetime.strptime(f"{dd} {mon[:3]} {yy} {int(hh) % 12 + (12 if ap.lower() == 'pm' else 0)}:{mm}", "%d %b %Y %H:%M")
            return from_local(dt)
        for fmt in ("%Y/%m/%d %H:%M:%S", "%Y/%m/%d %H:%M", "%Y/%m/%d", "%Y/%m/%d (%a) %H:%M"):
            try:
                return from_local(datetime.strptime(s, fmt))
            except ValueError:
                continue
        if re.match(r"(?:[A-Za-z]{3},?\s+)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}", s):
            from email.utils import parsedate_to_datetime  # here: email is kept off the hooks' cold path

            try:
                dt = parsedate_to_datetime(s)
            except (TypeError, ValueError, IndexError):
                dt = None
            if dt is not None and dt.tzinfo is not None:
                return dt.astimezone(UTC)
            if dt is not None:  # "-0000" or a zone's name is UTC by RFC 2822; no zone at all is local time, as above
                zoned = re.search(r"\d:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|(?![AaPp][Mm]\b)[A-Za-z]{1,5}\b)", s) is not None
                return dt.replace(tzinfo=UTC) if zoned else from_local(dt)
        m = _ISO_ZONED.fullmatch(s)
        if m:  # ISO 8601 with its zone after a space or by name: '… 09:15:00.123 +0800', `date -u '+%F %T %Z'`
            zone = m[2].upper()
            return _parse(datetime.fromisoformat(m[1] + ("+00:00" if zone in _UTC_NAMES else zone)))
        dt = _month_name_form(s)
        if dt is not None:
            return dt
        raise UsageError(f"unreadable timestamp {s[:60]!r}: use ISO 8601 or an epoch number")
    raise UsageError(f"unreadable timestamp of type {type(value).__name__}")


_UTC_NAMES = ("Z", "UTC", "GMT", "UT")
_LEAP_SECOND = re.compile(r"(?<=\d\d:\d\d):60(?:[.,]\d+)?(?!\d)")
# Go's time.String() adds the zone's name after the offset, and a monotonic reading: '… +0800 CST m=+0.000123'
_ISO_ZONED = re.compile(r"(\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?)\s*(Z|UTC|GMT|UT|[+-]\d\d(?::?\d\d)?)"
                        r"(?:(?<=\d)\s+(?-i:[A-Z]{2,5}))?(?:\s+m=[+-][\d.]+)?", re.I)
_BRACKET_ZONE = re.compile(r"(\S.*?)\s*\[!?([A-Za-z0-9_+/:=-]+)\]")
#: a time that names its zone (an offset, Z, UTC / GMT, GMT+0800, a zone's abbreviation after the time) or is an epoch
_HAS_ZONE = re.compile(r"\d[Zz]\b|\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?\s*[+-]\d\d(?::?\d\d)?\b|\b(?:UTC|GMT|UT)\b"
                       r"|\d\s+[+-]\d{4}\b|\d\d:\d\d(?::\d\d)?\s+[A-Z]{3,5}\b|^\s*-?\d+(?:\.\d+)?\s*$", re.I)
_END_OF_DAY = re.compile(r"(\d{4}-\d\d-\d\d)[Tt ]24:00(?::00(?:[.,]0+)?)?(\s*(?:[Zz]|[+-]\d\d(?::?\d\d)?|UTC|GMT)?)")


def _in_zone(wall: datetime, zone: str) -> datetime | None:
    """The naive wall-clock time ``wall`` read in the IANA zone ``zone``, or ``None`` when no such zone is known."""
    try:
        from zoneinfo import ZoneInfo

        return wall.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
    except (ValueError, KeyError, OSError):
        return None
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _month_name_form(s: str) -> datetime | None:
    """The forms with a month's name and the year after the day: ``date``/``ctime`` (``Mon Nov 30 09:15:00 CST 2026``),
    ``git log``'s default (``Mon Nov 30 09:15:00 2026 +0800``), JavaScript's ``Date.toString()`` (``Mon Nov 30 2026
    09:15:00 GMT+0800 (China Standard Time)``). A numeric offset, ``UTC``/``GMT`` or the local zone's own name
    (``time.tzname``) is kept; no zone is local time; another zone's name (``CST`` is three zones) gives ``None``."""
    import time as _time

    words = re.sub(r"\([^()]*\)\s*$", "", s).replace(",", " ").split()
    if not 3 <= len(words) <= 7:
        return None
    if words[0][:3].lower() in _DAYS and words[0].isalpha():
        words = words[1:]
    if len(words) < 4 or words[0][:3].lower() not in _MONTHS or not words[0].isalpha() or not words[1].isdigit():
        return None
    month, day, rest = _MONTHS.index(words[0][:3].lower()) + 1, int(words[1]), words[2:]
    year = clock = offset = None
    local_zone = False
    for w in rest:
        zoned = re.fullmatch(r"(?:GMT|UTC)?([+-]\d\d):?(\d\d)", w, re.I)
        if re.fullmatch(r"\d{4}", w) and year is None:
            year = int(w)
        elif re.fullmatch(r"\d{1,2}:\d\d(?::\d\d)?", w) and clock is None:
            clock = [int(x) for x in w.split(":")]
        elif zoned and offset is None and not local_zone:
            sign = -1 if zoned[1][0] == "-" else 1
            offset = timezone(sign * timedelta(hours=int(zoned[1][1:]), minutes=int(zoned[2])))
        elif w.upper() in _UTC_NAMES and offset is None and not local_zone:
            offset = UTC
        elif w in _time.tzname and offset is None and not local_zone:
            local_zone = True
        else:
            return None
    if year is None or clock is None:
        return None
    dt = datetime(year, month, day, clock[0], clock[1], clock[2] if len(clock) > 2 else 0)
    return dt.replace(tzinfo=offset).astimezone(UTC) if offset is not None else from_local(dt)


def iso(dt: datetime) -> str:
    """Format a datetime as ISO 8601 UTC with milliseconds and ``Z``, e.g. ``2026-11-30T03:25:11.123Z``; a naive
    one is local time (the same policy as :func:`parse_ts`, so a time read and written back does not move)."""
    dt = from_local(dt)
    # the year by hand: strftime's %Y leaves a year below 1000 unpadded on glibc ('1-01-01T…', Go's zero time), which no
    # ISO 8601 reader takes back, and one such stored time made every recall of its project fail
    return f"{dt.year:04d}-{dt:%m-%dT%H:%M:%S}.{dt.microsecond // 1000:03d}Z"
