"""Dates a question names, resolved against the question's own time (English and Chinese).

``"what did I buy 10 days ago?"`` asked on 2023-03-25 means 2023-03-15; ``"last Saturday"``, ``"a month ago"``,
``"yesterday"``, ``"昨天"``, ``"三天前"``, ``"上周六"``, ``"May 20, 2023"`` and ``"2023/05/20"`` likewise. Each
expression becomes a window ``(start, end)`` of epoch seconds — wider the vaguer the expression (a day for
"yesterday", ±2 days for "10 days ago", ±10 days for "two months ago") — and recall multiplies the score of a memory
whose time falls in a window by ``1 + recall.date_boost`` (:mod:`memdir.recall.rank`). Nothing here reads the clock: the
caller passes "now" (the ``Memdir`` clock, which a benchmark sets to each question's date).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from memdir.timeutil import local

DAY = 86400.0
_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3,
        "several": 4}
_UNIT = {"day": 1, "week": 7, "month": 30.44, "year": 365.25}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_ZH_NUM = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "半": 0.5}
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


def _compile() -> None:
    """Compile the expressions (~2 ms: case-insensitive alternations) on the first text that may name a date."""
    global _AGO, _LAST_WD, _LAST_UNIT, _PAST_UNIT, _YESTERDAY, _ISO, _MDY, _DMY, _ZH_AGO, _ZH_REL, _ZH_DATE
    _AGO = re.compile(r"\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a )?couple of|(?:a )?few|"
                      r"several)\s+(day|week|month|year)s?\s+ago\b", re.I)
    _LAST_WD = re.compile(r"\b(?:last|this past|past)\s+(" + "|".join(_WEEKDAYS) + r")\b", re.I)
    _LAST_UNIT = re.compile(r"\blast\s+(week|weekend|month|year)\b", re.I)
    _PAST_UNIT = re.compile(r"\b(?:in\s+)?the\s+(?:past|last)\s+(\d+|two|three|few|couple of)?\s*(day|week|month|year)s?\b", re.I)
    _YESTERDAY = re.compile(r"\b(?:the\s+day\s+before\s+)?yesterday\b", re.I)
    _ISO = re.compile(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b")
    _MDY = re.compile(r"\b(" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b", re.I)
    _DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.?(?:,?\s+(\d{4}))?\b", re.I)
    _ZH_AGO = re.compile(r"(\d+|[一两二三四五六七八九十半]+)\s*(?:个)?\s*(天|日|周|星期|礼拜|月|年)(?:之)?前")
    _ZH_REL = re.compile(r"(大前天|前天|昨天|昨日|上上周|上周|上星期|上礼拜|上个月|上月|去年|前年)([一二三四五六日天])?")
    _ZH_DATE = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")


_AGO = _LAST_WD = _LAST_UNIT = _PAST_UNIT = _YESTERDAY = _ISO = _MDY = _DMY = _ZH_AGO = _ZH_REL = _ZH_DATE = None
#: every expression needs one of these in the case-folded text (or a digit): a prompt without any skips them all
_HINTS = ("ago", "last", "past", "yesterday", "前", "昨", "上", "去", "月")
_DIGIT = re.compile(r"\d")


def _may_name_a_date(low: str) -> bool:
    return any(h in low for h in _HINTS) or _DIGIT.search(low) is not None


def _zh_num(s: str) -> float:
    if s.isdigit():
        return float(s)
    if s == "十":
        return 10
    if "十" in s:  # 十五, 二十, 二十三
        a, _, b = s.partition("十")
        return (_ZH_NUM.get(a, 1) if a else 1) * 10 + (_ZH_NUM.get(b, 0) if b else 0)
    return float(sum(_ZH_NUM.get(c, 0) for c in s)) or 1.0


def _around(center: datetime, days: float) -> tuple[float, float]:
    return center.timestamp() - days * DAY, center.timestamp() + days * DAY


def _day(d: datetime) -> tuple[float, float]:
    start = d.replace(hour=0, minute=0, second=0, microsecond=0)
    return start.timestamp() - 0.5 * DAY, start.timestamp() + 1.5 * DAY


def _ago(n: float, unit_days: float, now: datetime) -> tuple[float, float]:
    span = n * unit_days
    return _around(now - timedelta(days=span), max(1.0, 0.2 * span) if unit_days > 1 else max(0.6, 0.2 * span))


def _last_weekday(wd: int, now: datetime) -> datetime:
    back = (now.weekday() - wd) % 7 or 7
    return now - timedelta(days=back)


def windows(text: str, now: datetime) -> list[tuple[float, float]]:
    """The time windows ``[(start, end)]`` (epoch seconds) that ``text`` names relative to ``now``; ``[]`` when it
    names none. Days are the machine's local days (``2026-11-30`` under ``TZ=Asia/Shanghai`` is 11-29 16:00Z to
    11-30 16:00Z); a naive ``now`` is local time. Never raises on odd input."""
    if not text or not isinstance(text, str):
        return []
    now = local(now)  # the days a person names are the machine's local days (case C25; naive = local time)
    out: list[tuple[float, float]] = []
    low = text.casefold()
    if not _may_name_a_date(low):
        return out
    if _AGO is None:
        _compile()
    try:
        for m in _AGO.finditer(low):
            n = m.group(1)
            out.append(_ago(float(n) if n.isdigit() else _NUM.get(n, 1), _UNIT[m.group(2)], now))
        for m in _LAST_WD.finditer(low):
            out.append(_day(_last_weekday(_WEEKDAYS.index(m.group(1)), now)))
        for m in _LAST_UNIT.finditer(low):
            u = m.group(1)
            if u == "weekend":
                sat = _last_weekday(5, now)
                out.append((_day(sat)[0], _day(sat + timedelta(days=1))[1]))
            elif u == "week":
                out.append((now.timestamp() - 14 * DAY, now.timestamp() - 2 * DAY))
            elif u == "month":
                first = now.replace(day=1)
                prev = (first - timedelta(days=1)).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
                out.append((prev.timestamp() - 3 * DAY, first.timestamp() + 3 * DAY))
            else:
                out.append((datetime(now.year - 1, 1, 1, tzinfo=now.tzinfo).timestamp(),
                            datetime(now.year, 1, 1, tzinfo=now.tzinfo).timestamp()))
        for m in _PAST_UNIT.finditer(low):
            n = m.group(1)
            k = float(n) if n and n.isdigit() else float(_NUM.get(n, 1) if n else 1)
            out.append((now.timestamp() - k * _UNIT[m.group(2)] * DAY - DAY, now.timestamp() + DAY))
        for m in _YESTERDAY.finditer(low):
            out.append(_day(now - timedelta(days=2 if m.group(0).startswith("the") else 1)))
        for m in _ISO.finditer(low):
            y, mo, d = map(int, m.groups())
            out.append(_day(datetime(y, mo, d, tzinfo=now.tzinfo)))
        for rx, mi, di in ((_MDY, 1, 2), (_DMY, 2, 1)):
            for m in rx.finditer(low):
                mon = [x[:3] for x in _MONTHS].index(m.group(mi)[:3].lower()) + 1
                year = int(m.group(3)) if m.group(3) else now.year
                d = datetime(year, mon, int(m.group(di)), tzinfo=now.tzinfo)
                if not m.group(3) and d > now + timedelta(days=1):
                    d = d.replace(year=year - 1)
                out.append(_day(d))
        for m in _ZH_AGO.finditer(text):
            unit = {"天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7, "月": 30.44, "年": 365.25}[m.group(2)]
            out.append(_ago(_zh_num(m.group(1)), unit, now))
        for m in _ZH_REL.finditer(text):
            word, wd = m.groups()
            if word in ("昨天", "昨日", "前天", "大前天"):
                out.append(_day(now - timedelta(days={"昨天": 1, "昨日": 1, "前天": 2, "大前天": 3}[word])))
            elif word in ("上周", "上星期", "上礼拜", "上上周"):
                weeks = 2 if word == "上上周" else 1
                monday = (now - timedelta(days=now.weekday() + 7 * weeks)).replace(hour=0, minute=0, second=0, microsecond=0)
                if wd:
                    out.append(_day(monday + timedelta(days=_ZH_WEEKDAY[wd])))
                else:
                    out.append((monday.timestamp() - DAY, monday.timestamp() + 8 * DAY))
            elif word in ("上个月", "上月"):
                first = now.replace(day=1)
                prev = (first - timedelta(days=1)).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
                out.append((prev.timestamp() - 3 * DAY, first.timestamp() + 3 * DAY))
            else:
                y = now.year - (1 if word == "去年" else 2)
                out.append((datetime(y, 1, 1, tzinfo=now.tzinfo).timestamp(), datetime(y + 1, 1, 1, tzinfo=now.tzinfo).timestamp()))
        for m in _ZH_DATE.finditer(text):
            y = int(m.group(1)) if m.group(1) else now.year
            out.append(_day(datetime(y, int(m.group(2)), int(m.group(3)), tzinfo=now.tzinfo)))
    except (ValueError, OverflowError, KeyError):  # 2023-02-30, a year out of range: ignore the expression
        pass
    return out


def in_windows(ts_epoch: float | None, wins: list[tuple[float, float]]) -> bool:
    return ts_epoch is not None and any(a <= ts_epoch <= b for a, b in wins)
