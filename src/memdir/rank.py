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
"""

from __future__ import annotations

import math


def decay(age_days: float, half_life_days: float, floor: float, pinned: bool = False) -> float:
    """Decay multiplier ``max(floor, 0.5 ** (age_days / half_life_days))`` in ``[floor, 1]``: 0.5 at one
    half-life, 0.25 at two (unless the floor is higher); 1 when pinned, when ``half_life_days <= 0`` or for
    future times."""
    if pinned or half_life_days <= 0 or age_days <= 0:
        return 1.0
    return max(floor, 0.5 ** (age_days / half_life_days))


def rehearsal_boost(count: int, weight: float) -> float:
    """``1 + weight · ln(1 + count)``; 1 for a never-rehearsed memory."""
    return 1.0 + weight * math.log1p(max(0, count))


def score(bm25: float, *, prior: float, decay_mult: float, boost: float) -> float:
    """The final lexical score (all factors are multiplicative, so each one's effect reads off ``reasons``)."""
    return bm25 * prior * decay_mult * boost
