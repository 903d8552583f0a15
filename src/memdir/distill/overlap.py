"""Whether a distilled item repeats a note that exists: content tokens and their Jaccard overlap, lexically and,
with a provider, by embedding (:class:`Overlap`)."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("memdir")


def content_tokens(text: str) -> set[str]:
    """Distinct recall tokens of ``text`` without English stopwords (memdir.recall.tokenize)."""
    from memdir.recall.tokenize import STOPWORDS, tokenize

    return {t for t in tokenize(text) if t not in STOPWORDS}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


class Overlap:
    """Finds the note (or earlier candidate of this run, or proposal) a candidate would duplicate."""

    def __init__(self, m: Any, proposals: list[dict[str, Any]]):
        self.m = m
        self.lex = float(m.config.get("distill.overlap_lexical"))
        self.vec = float(m.config.get("distill.overlap_vector"))
        self.batch: list[tuple[str, set[str], Any]] = []  # (id, tokens, vector) of earlier candidates
        for p in proposals:
            self.batch.append((f"proposal {p['id']}", content_tokens(f"{p.get('summary') or ''}\n{p.get('text') or ''}"), None))
        self.provider = None
        if m.config.get("recall.channel") != "lexical":
            from memdir.engine import hybrid as vectors

            self.provider = vectors.provider_for(m)

    def _embed(self, text: str) -> Any:
        if self.provider is None:
            return None
        try:
            return self.provider.embed([text])[0]
        except Exception as exc:  # noqa: BLE001 — embeddings are an extra check, never a failure
            log.debug("distill: overlap embedding failed: %s", exc)
            return None

    def _stored_vector(self, ref: str) -> Any:
        import numpy as np

        for root in self.m.stores.live():
            blob = root.store.vector_of(ref, getattr(self.provider, "model", None))
            if blob:
                return np.frombuffer(blob, dtype=np.float32)
        return None

    def check(self, cand: dict[str, Any]) -> tuple[str | None, float, str, Any]:
        """``(id, similarity, channel, vector)`` of the most similar existing note above a threshold, else
        ``(None, best lexical similarity, "", vector)``."""
        text = f"{cand['summary']}\n{cand['body']}"
        toks = content_tokens(text)
        vec = self._embed(text)
        best: tuple[str | None, float, str] = (None, 0.0, "")
        seen = 0.0
        for h in self.m.recall(text, k=5, kinds=["note"]):
            sim = jaccard(toks, content_tokens(f"{h.summary or ''}\n{h.text}"))
            seen = max(seen, sim)
            if sim >= self.lex and sim > best[1]:
                best = (h.id, sim, "lexical")
            elif vec is not None and best[0] is None:
                other = self._stored_vector(h.id)
                if other is not None and other.shape == vec.shape:
                    cos = float((vec * other).sum())
                    if cos >= self.vec:
                        best = (h.id, cos, "vector")
        for bid, btoks, bvec in self.batch:
            sim = jaccard(toks, btoks)
            seen = max(seen, sim)
            if sim >= self.lex and sim > best[1]:
                best = (bid, sim, "lexical")
            elif vec is not None and bvec is not None and best[0] is None and float((vec * bvec).sum()) >= self.vec:
                best = (bid, float((vec * bvec).sum()), "vector")
        return (best[0], round(best[1], 3), best[2], vec) if best[0] else (None, round(seen, 3), "", vec)

    def add(self, ident: str, cand: dict[str, Any], vec: Any) -> None:
        self.batch.append((ident, content_tokens(f"{cand['summary']}\n{cand['body']}"), vec))
