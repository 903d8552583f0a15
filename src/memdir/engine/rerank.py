"""Optional cross-encoder rerank of the top recall candidates (off by default).

With ``recall.rerank = true``, :meth:`Memdir.recall` fetches ``recall.rerank_top`` candidates (lexical or fused),
scores each ``(query, text)`` pair with a cross-encoder (sentence-transformers ``CrossEncoder``; ``rerank.model`` is
a local path or model name, loaded lazily and offline-friendly) and returns the best ``k`` by that score. The
cross-encoder's score goes to ``reasons["rerank"]``; the first-stage rank stays in ``reasons["first_rank"]``.
A reranker that fails to load or raises leaves the first-stage order untouched (with a warning): recall never fails
because of it. Tests and benchmarks can install any callable with :func:`set_reranker`.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Callable, Sequence

import memdir.registry as registry
from memdir.stores import stores_of

log = logging.getLogger("memdir")

# keys recall.rerank, recall.rerank_top, rerank.model, rerank.max_chars are registered in memdir.config

Scorer = Callable[[str, Sequence[str]], Sequence[float]]


def set_reranker(m: Any, scorer: Scorer | None) -> None:
    """Use ``scorer(query, texts) -> scores`` (higher is better) for this Memdir (or :class:`memdir.stores.Stores`);
    ``None`` restores the default."""
    stores_of(m).state["reranker"] = scorer


def cross_encoder(name: str) -> Scorer:
    """A sentence-transformers ``CrossEncoder`` loaded from ``name`` (a local path or model name) on the CPU, as a
    scorer. Raises whatever loading raises (missing package, bad path, offline miss)."""
    from sentence_transformers import CrossEncoder

    model = CrossEncoder(name, device="cpu")

    def scorer(query: str, texts: Sequence[str]) -> Sequence[float]:
        return [float(x) for x in model.predict([(query, t) for t in texts], show_progress_bar=False)]

    return scorer


def _load(m: Any) -> Scorer | None:
    state = stores_of(m).state
    if "reranker" in state:
        return state["reranker"]
    name = m.config.get("rerank.model")
    scorer: Scorer | None = None
    if not name:
        log.warning("memdir: recall.rerank is on but rerank.model is empty; first-stage order kept")
    else:
        try:
            scorer = registry.resolve(registry.RERANKERS["cross-encoder"])(name)
        except Exception as exc:  # missing package, bad path, offline miss
            log.warning("memdir: cross-encoder %r could not load (%s); first-stage order kept", name, str(exc).splitlines()[0] if str(exc) else exc)
    state["reranker"] = scorer
    return scorer


def rerank(m: Any, query: str, hits: list, k: int) -> list:
    """Reorder ``hits`` (first-stage, best first) by the cross-encoder and keep ``k``. Never raises."""
    scorer = _load(m)
    if scorer is None or len(hits) < 2:
        return hits[:k]
    limit = int(m.config.get("rerank.max_chars"))
    try:
        scores = list(scorer(query, [h.text[:limit] for h in hits]))
        if len(scores) != len(hits):
            raise ValueError(f"{len(scores)} scores for {len(hits)} texts")
    except Exception as exc:
        log.warning("memdir: rerank failed (%s); first-stage order kept", exc)
        return hits[:k]
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
    out = []
    for i in order[:k]:
        h = hits[i]
        reasons = dict(h.reasons, rerank=round(scores[i], 6), first_rank=i + 1)
        out.append(dataclasses.replace(h, reasons=reasons))
    return out
