"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009), with per-channel weights.

``score(d) = Σ_c  w_c / (k + rank_c(d))`` over the channels ``c`` that ranked ``d`` (ranks from 1). The paper
uses k = 60 and equal weights; seed 001 weights vector 1.0 / lexical 0.35 / cold ×0.8. Our defaults are
set by measurement on LoCoMo dev with all-MiniLM-L6-v2: turn recall@10 rises monotonically with the lexical
weight (0.35 → 0.552, 1.0 → 0.574, 1.5 → 0.575), so vector 1.0 / lexical 1.0 (the paper's equal weights).
"""

from __future__ import annotations

from typing import Hashable, Mapping, Sequence

K = 60


def fuse(channels: Mapping[str, Sequence[Hashable]], weights: Mapping[str, float] | None = None, *,
         k: int = K) -> list[tuple[Hashable, float, dict[str, int]]]:
    """Fuse ranked lists.

    ``channels``: ``{name: [item, …]}`` best first (an item repeated within a channel counts at its first
    rank). ``weights``: ``{name: w}`` (missing → 1.0; 0 ignores the channel's score but keeps its ranks).
    Returns ``[(item, score, {channel: rank})]`` sorted by score descending; ties keep the order in which the
    items were first seen, channels in the order given. Raises ``ValueError`` when ``k`` < 0.
    """
    if k < 0:
        raise ValueError("RRF k must be >= 0")
    weights = weights or {}
    scores: dict[Hashable, float] = {}
    ranks: dict[Hashable, dict[str, int]] = {}
    for name, items in channels.items():
        w = float(weights.get(name, 1.0))
        seen: set = set()
        for r, item in enumerate(items, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + w / (k + r)
            ranks.setdefault(item, {})[name] = r
    order = {item: i for i, item in enumerate(scores)}
    return sorted(((it, s, ranks[it]) for it, s in scores.items()), key=lambda x: (-x[1], order[x[0]]))


def convex(channels: Mapping[str, Sequence[tuple[Hashable, float]]], weights: Mapping[str, float] | None = None, *,
           minmax: Sequence[str] = ()) -> list[tuple[Hashable, float, dict[str, int]]]:
    """Fuse scored lists by a convex combination of normalised scores (Bruch, Gai & Ingber, "An Analysis of
    Fusion Functions for Hybrid Retrieval", TOIS 2023: it beats RRF when one channel's scores carry more than
    its ranks).

    ``channels``: ``{name: [(item, score), …]}`` best first. Each channel's scores are divided by its best score
    (BM25: 0 stays 0), or, for the names in ``minmax``, mapped to ``[0, 1]`` between the list's lowest and highest
    score (cosine similarities, which crowd a narrow band). ``score(d) = Σ_c w_c · norm_c(d)`` over the channels
    that listed ``d`` (missing → 0). Same return shape and tie order as :func:`fuse` (ranks from 1).
    """
    weights = weights or {}
    scores: dict[Hashable, float] = {}
    ranks: dict[Hashable, dict[str, int]] = {}
    for name, items in channels.items():
        if not items:
            continue
        w = float(weights.get(name, 1.0))
        vals = [float(s) for _, s in items]
        hi = max(vals)
        lo = min(vals) if name in minmax else 0.0
        span = hi - lo
        seen: set = set()
        for r, (item, s) in enumerate(items, start=1):
            if item in seen:
                continue
            seen.add(item)
            norm = (float(s) - lo) / span if span > 0 else 1.0
            scores[item] = scores.get(item, 0.0) + w * norm
            ranks.setdefault(item, {})[name] = r
    order = {item: i for i, item in enumerate(scores)}
    return sorted(((it, s, ranks[it]) for it, s in scores.items()), key=lambda x: (-x[1], order[x[0]]))


def blend(ranked: Sequence[tuple[Hashable, float, dict[str, int]]],
          scored: Sequence[tuple[Hashable, float, dict[str, int]]], share: float
          ) -> list[tuple[Hashable, float, dict[str, int]]]:
    """``(1 - share) · rank/best + share · score/best`` over two fused lists of the same candidates (:func:`fuse`'s
    and :func:`convex`'s output): the rank fusion sets the order, the score fusion separates what it leaves close.
    Each list is divided by its best score (missing → 0). Same return shape and tie order as :func:`fuse`, ranks
    per channel from whichever list had them."""
    a = {it: (s, r) for it, s, r in ranked}
    b = {it: (s, r) for it, s, r in scored}
    top_a = max((s for s, _ in a.values()), default=0.0) or 1.0
    top_b = max((s for s, _ in b.values()), default=0.0) or 1.0
    out: dict[Hashable, float] = {}
    ranks: dict[Hashable, dict[str, int]] = {}
    for it in [*a, *(x for x in b if x not in a)]:
        out[it] = (1.0 - share) * a.get(it, (0.0, None))[0] / top_a + share * b.get(it, (0.0, None))[0] / top_b
        ranks[it] = (a.get(it) or b.get(it))[1]
    order = {item: i for i, item in enumerate(out)}
    return sorted(((it, s, ranks[it]) for it, s in out.items()), key=lambda x: (-x[1], order[x[0]]))
