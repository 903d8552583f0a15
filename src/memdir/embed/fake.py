"""A deterministic hashing embedder for tests and offline runs (seed 001's FakeEmbedder idea).

Each token of :func:`memdir.recall.tokenize.tokenize` (words; CJK bigrams) is hashed (BLAKE2b) to one of ``dim``
buckets with a ±1 sign (the "hashing trick", Weinberger et al. 2009); the vector is L2-normalised. Texts
sharing tokens get positive cosine similarity; the same text always gets the same vector.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from memdir.embed import cap, normalize

DEFAULT_DIM = 64


class FakeEmbedder:
    name = "fake"

    def __init__(self, dim: int = DEFAULT_DIM, max_chars: int = 2000, fail: bool = False):
        self.dim = int(dim)
        self.max_chars = max_chars
        self.fail = fail  # tests: simulate a provider outage
        self.model = f"fake-hash-{self.dim}"
        self.calls = 0

    @classmethod
    def from_config(cls, config: Any) -> "FakeEmbedder":
        return cls(dim=config.get("embed.dim") or DEFAULT_DIM, max_chars=config.get("embed.max_chars"))

    def embed(self, texts: Sequence[str]):
        """``texts`` (n) -> float32 ``(n, dim)``, unit rows (all-zero for a text without tokens)."""
        import numpy as np

        from memdir.recall.tokenize import tokenize
        from memdir.embed import EmbedError

        self.calls += 1
        if self.fail:
            raise EmbedError("fake provider set to fail")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(cap(texts, self.max_chars)):
            for tok in tokenize(t, unigrams=False):
                h = hashlib.blake2b(tok.encode("utf-8"), digest_size=8).digest()
                v = int.from_bytes(h, "little")
                out[i, v % self.dim] += 1.0 if (v >> 63) & 1 else -1.0
        return normalize(out)
