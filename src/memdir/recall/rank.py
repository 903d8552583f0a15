"""Ranking: score = BM25 × scope prior × decay × rehearsal boost (seed 000's formula, with FTS5 BM25 in place
of its term-overlap × idf).

* BM25: FTS5 ``bm25()`` with field weights tags/load_when > summary > body (seed 004: ×4 / ×3 / ×1).
* Scope prior: project 1.0, global 0.5 (seed 000) — on a tie the more specific memory wins.
* Decay: ``max(floor, 0.5 ** (age_days / half_life_days))`` — an exponential half-life that means what it says
  (seed 000: 14 days, 0 turns it off; a 14-day-old note scores 0.5 of a new one, issue 13 item 11); pinned
  memories are exempt; the floor (default 0.3) applies only where the curve falls below it (after ~24 days at
  14) and keeps old memories findable, down-weighted, never erased (seed 000: "不删除，只降权").
* Rehearsal: ``1 + w · ln(1 + n)`` where n counts recalls and injections (seed 000 复述加成; log-damped so
  popular memories cannot grow without bound).
* Date: ``1 + recall.date_boost`` when the memory's time falls in a date the query names, resolved against the
  query's time (:mod:`memdir.recall.dates`), else 1.
* Subject: ``1 + recall.subject_boost`` when the question names the memory's speaker (an event ``Name: …``) or
  its named subject (the first name in a note), else 1 (:func:`query_names`, :func:`subject_of`).
"""

from __future__ import annotations

import math
import re

#: capitalised words that are never names: weekdays, months, roles, and what starts a question
NOT_NAMES = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december today yesterday tomorrow assistant user system human ai bot
    i what when where who whom whose why how which did does do is are was were can could would should will
    the a an in on at for to of and or but if then this that these those my your his her our their its""".split()
)
_LABEL = re.compile(r"^[ \t]*([A-Z][A-Za-z0-9.'\-]{1,30})[ \t]*:", re.M)
_CAP = re.compile(r"(?<![A-Za-z0-9'\u2019])([A-Z][a-z][A-Za-z\-]{0,30})(?:['\u2019]s)?(?![A-Za-z0-9])")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:：\n])[\s\"'“‘(（]*$")


def _name(word: str) -> str | None:
    w = word.casefold()
    return None if w in NOT_NAMES else w


def query_names(text: str) -> frozenset[str]:
    """Names the query mentions (casefolded): speaker labels (``Bart: …`` at a line start) and capitalised
    words that do not open a sentence, minus :data:`NOT_NAMES` (weekday and month words are not names)."""
    if not text or not any(c.isupper() for c in text):
        return frozenset()
    out: set[str] = set()
    for m in _LABEL.finditer(text):
        n = _name(m.group(1))
        if n:
            out.add(n)
    for m in _CAP.finditer(text):
        if _SENTENCE_START.search(text[max(0, m.start() - 4):m.start()]):
            continue
        n = _name(m.group(1))
        if n:
            out.add(n)
    return frozenset(out)


def subject_of(text: str, *, event: bool) -> str | None:
    """The speaker of an event (``Name: …``) or the named subject of a note (its first capitalised word that is
    a name, within the first 60 characters), casefolded; None when there is none."""
    if not text:
        return None
    head = text[:60]
    if event:
        m = _LABEL.match(head)
        return _name(m.group(1)) if m else None
    for m in _CAP.finditer(head):
        n = _name(m.group(1))
        if n:
            return n
    return None


def decay(age_days: float, half_life_days: float, floor: float, pinned: bool = False, curve: str = "exponential") -> float:
    """Decay multiplier ``max(floor, 0.5 ** (age_days / half_life_days))`` in ``[floor, 1]``: 0.5 at one
    half-life, 0.25 at two (unless the floor is higher); 1 when pinned or when ``half_life_days <= 0``. A time
    ahead of the clock (negative ``age_days``) counts by its distance, as one as far behind: a machine whose clock
    ran ahead does not outrank every memory until then. ``curve="hyperbolic"`` is seed 004's ``1 / (1 + age_days /
    half_life_days)`` (also 0.5 at one half-life, but 0.33 at two and 0.2 at four: old memories fall more slowly),
    floored the same way."""
    age_days = abs(age_days)
    if pinned or half_life_days <= 0 or age_days == 0:
        return 1.0
    if curve == "hyperbolic":
        return max(floor, 1.0 / (1.0 + age_days / half_life_days))
    return max(floor, 0.5 ** (age_days / half_life_days))


def rehearsal_boost(count: int, weight: float) -> float:
    """``1 + weight · ln(1 + count)``; 1 for a never-rehearsed memory."""
    return 1.0 + weight * math.log1p(max(0, count))


def score(bm25: float, *, prior: float, decay_mult: float, boost: float, subject: float = 1.0,
          date: float = 1.0) -> float:
    """The final lexical score (all factors are multiplicative, so each one's effect reads off ``reasons``)."""
    return bm25 * prior * decay_mult * boost * subject * date


def rank_candidates(groups, *, query: str, cfg, now) -> list[tuple[float, float, int, tuple]]:
    """The lexical channel's final scores, the one ranking code for every store and for the team server.

    ``groups`` is ``[(prior, rows, sub_kinds)]``, one per root searched (project, global) or one for the team server:
    ``rows`` are candidate rows (``Store.candidates``/``Store.search``: ``bm25``, ``ts_epoch``, ``pinned``,
    ``rehearsals``, ``kind``, ``note_kind``, ``role``, ``session``, ``head`` or ``text``); ``sub_kinds`` (a set,
    empty for all) keeps only note kinds / event roles it names. ``cfg`` answers ``cfg.get("recall.…")``;
    ``now`` is the query's time (an aware ``datetime``: the clock, or the question's date in a benchmark).

    Each row's score is BM25 × scope prior × decay × rehearsal boost × subject boost × date boost (:func:`score`),
    plus the session bonus: with ``recall.session_bonus`` = w > 0, an event gains w × the best score of another
    candidate of its session (in its group). Returns ``[(score, ts_epoch, group index, (row, prior, decay,
    rehearsal boost, kind, factors))]`` best first (ties: newer first); ``factors`` holds the ``subject``,
    ``date`` and ``session`` multipliers that applied."""
    from memdir.recall import dates

    sb = float(cfg.get("recall.subject_boost"))
    names = query_names(query) if sb > 0 and query else frozenset()
    db_ = float(cfg.get("recall.date_boost"))
    wins = dates.windows(query, now) if db_ > 0 and query else []
    hl, floor, curve = cfg.get("recall.half_life_days"), cfg.get("recall.decay_floor"), cfg.get("recall.decay_curve")
    rw = cfg.get("recall.rehearsal_weight")
    t = now.timestamp()
    scored: list[tuple[float, float, int, tuple]] = []
    boosts: dict[int, float] = {}  # rehearsal boost by count: most candidates share a few counts
    for g, (prior, rows, sub_kinds) in enumerate(groups):
        for row in rows:
            kind = row["note_kind"] if row["kind"] == "note" else row["role"]
            if sub_kinds and kind not in sub_kinds:
                continue
            ts = row["ts_epoch"]
            d = decay((t - ts) / 86400.0, hl, floor, bool(row["pinned"]), curve)
            n = row["rehearsals"] or 0
            b = boosts.get(n)
            if b is None:
                b = boosts[n] = rehearsal_boost(n, rw)
            f = {"subject": 1.0 + sb} if names and subject_of(row.get("head") or row.get("text") or "",
                                                                event=row["kind"] == "event") in names else {}
            if wins and dates.in_windows(ts, wins):
                f["date"] = 1.0 + db_
            s = score(row["bm25"], prior=prior, decay_mult=d, boost=b, **f)
            scored.append((s, ts, g, (row, prior, d, b, kind, f)))
    sess_w = float(cfg.get("recall.session_bonus"))
    if sess_w > 0:  # a turn gains a share of the best other candidate of its session (the session is on topic)
        best: dict[tuple[int, str], list[float]] = {}
        for x in scored:
            row = x[3][0]
            if row["kind"] == "event" and row["session"]:
                top = best.setdefault((x[2], row["session"]), [0.0, 0.0])
                if x[0] > top[0]:
                    top[0], top[1] = x[0], top[0]
                elif x[0] > top[1]:
                    top[1] = x[0]
        for i, x in enumerate(scored):
            row = x[3][0]
            top = best.get((x[2], row["session"])) if row["kind"] == "event" and row["session"] else None
            if top:
                other = top[1] if x[0] >= top[0] else top[0]
                if other > 0:
                    x[3][5]["session"] = round(1.0 + sess_w * other / x[0], 4) if x[0] else 1.0
                    scored[i] = (x[0] + sess_w * other, *x[1:])
    scored.sort(key=lambda x: (-x[0], -x[1]))
    return scored
