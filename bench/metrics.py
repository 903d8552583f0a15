"""Retrieval metrics for the quality benchmarks.

Every function takes a *ranked* list of ids (best first, as a retriever returned them) and the set of
relevant ids for one query, and returns a float in [0, 1]. Averaging over queries is done by
:func:`mean` / :func:`aggregate`. Duplicate ids in a ranking count once, at their first position.

Definitions (the usual IR ones; MADial-Bench's own evaluation script uses the same recall@k and
reciprocal-rank@k formulas):

* recall@k      = |top_k ∩ relevant| / |relevant|              (fraction of the evidence found)
* recall_any@k  = 1 if top_k ∩ relevant else 0                 (LongMemEval's ``recall_any``)
* MRR@k         = 1 / rank of the first relevant id in top_k, 0 when none is there
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Hashable, Iterable, Mapping, Sequence

__all__ = [
    "dedupe",
    "recall_at_k",
    "recall_any_at_k",
    "mrr_at_k",
    "group_ranking",
    "mean",
    "aggregate",
]


def dedupe(ranked: Iterable[Hashable]) -> list:
    """Return ``ranked`` without repeats, keeping each id at its first position.

    Shapes: sequence of n ids -> list of m <= n ids, order preserved.
    """
    seen: set = set()
    out = []
    for x in ranked:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _check(relevant, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not relevant:
        raise ValueError("relevant set is empty: the query has no gold ids and cannot be scored")


def recall_at_k(ranked: Sequence[Hashable], relevant: Iterable[Hashable], k: int) -> float:
    """Fraction of the relevant ids that appear among the first ``k`` distinct ids of ``ranked``.

    Args:
        ranked: retrieved ids, best first (may be shorter than k, may repeat).
        relevant: the gold ids (non-empty).
        k: cut-off, >= 1.
    Returns: float in [0, 1], e.g. gold {a, b}, ranked [a, x, b], k=2 -> 0.5.
    Raises: ValueError when ``relevant`` is empty or k < 1.
    """
    rel = set(relevant)
    _check(rel, k)
    top = dedupe(ranked)[:k]
    return sum(1 for x in top if x in rel) / len(rel)


def recall_any_at_k(ranked: Sequence[Hashable], relevant: Iterable[Hashable], k: int) -> float:
    """1.0 when at least one relevant id is among the first ``k`` distinct ids, else 0.0.

    This is LongMemEval's ``recall_any@k`` (Wu et al., ICLR 2025, retrieval evaluation).
    Raises: ValueError when ``relevant`` is empty or k < 1.
    """
    rel = set(relevant)
    _check(rel, k)
    return 1.0 if any(x in rel for x in dedupe(ranked)[:k]) else 0.0


def mrr_at_k(ranked: Sequence[Hashable], relevant: Iterable[Hashable], k: int) -> float:
    """Reciprocal rank (1-based) of the first relevant id within the first ``k`` distinct ids; 0.0 if none.

    Raises: ValueError when ``relevant`` is empty or k < 1.
    """
    rel = set(relevant)
    _check(rel, k)
    for i, x in enumerate(dedupe(ranked)[:k]):
        if x in rel:
            return 1.0 / (i + 1)
    return 0.0


def group_ranking(ranked: Sequence[Hashable], group_of: Mapping | Callable) -> list:
    """Rank groups (e.g. sessions) by their best-ranked member.

    ``ranked`` are item ids best first; ``group_of`` maps an item id to its group (a dict or a callable).
    A group's rank is the rank of its first member in ``ranked``. Items with no group raise KeyError
    (a retriever returning an id we never indexed is a bug, not something to drop silently).

    Shapes: n item ids -> m <= n distinct group ids, best first.
    """
    get = group_of if callable(group_of) else group_of.__getitem__
    return dedupe(get(x) for x in ranked)


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, ``None`` for an empty sequence (so "no query" is not reported as 0)."""
    return sum(values) / len(values) if values else None


def aggregate(rows: Iterable[tuple[str, Mapping[str, float]]]) -> dict:
    """Average per-query metric dicts overall and per group.

    Args:
        rows: ``(group_label, {metric_name: value})`` per query; a metric absent from a row is not
            averaged for that row (e.g. turn-level recall where no turn is marked as evidence).
    Returns:
        ``{"all": {metric: mean, ..., "n": count}, "by": {group_label: {metric: mean, "n": count}}}``;
        ``n`` is the number of queries; ``n_<metric>`` is given where it differs from ``n``.
    """
    overall: dict[str, list[float]] = defaultdict(list)
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, int] = defaultdict(int)
    total = 0
    for label, metrics in rows:
        total += 1
        counts[label] += 1
        for name, v in metrics.items():
            overall[name].append(v)
            per[label][name].append(v)

    def summarise(d: Mapping[str, list[float]], n: int) -> dict:
        out: dict = {name: mean(vs) for name, vs in d.items()}
        out["n"] = n
        for name, vs in d.items():
            if len(vs) != n:
                out[f"n_{name}"] = len(vs)
        return out

    return {
        "all": summarise(overall, total),
        "by": {label: summarise(per[label], counts[label]) for label in sorted(per, key=str)},
    }
