"""The ``model2vec`` provider: static embeddings (a token-vector lookup and mean, no neural net at query
time; milliseconds on CPU). ``embed.model`` is a local path or a model name already in the local Hugging
Face cache (e.g. a multilingual potion model); loading is offline (``HF_HUB_OFFLINE=1`` unless set)."""

from __future__ import annotations

import os
from typing import Any, Sequence

from memdir.embed import EmbedError, cap, normalize

DEFAULT_MODEL = "minishlab/potion-multilingual-128M"
_CACHE: dict[str, Any] = {}


class Model2VecProvider:
    name = "model2vec"

    def __init__(self, model: str = "", max_chars: int = 2000):
        self.path = model or DEFAULT_MODEL
        self.max_chars = max_chars
        self.model = f"m2v:{self.path.rstrip('/').split('/')[-1]}"

    @classmethod
    def from_config(cls, config: Any) -> "Model2VecProvider":
        return cls(config.get("embed.model"), config.get("embed.max_chars"))

    def loaded(self) -> bool:
        """Whether the model is in this process's memory (memdir.engine.modelwait)."""
        return self.path in _CACHE

    def load(self) -> None:
        self._load()

    def _load(self):
        if self.path not in _CACHE:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            try:
                from model2vec import StaticModel

                _CACHE[self.path] = StaticModel.from_pretrained(self.path)
            except ImportError as exc:
                raise EmbedError(f"model2vec does not import ({exc}); pip install model2vec") from None
            except Exception as exc:
                raise EmbedError(f"cannot load model2vec model {self.path!r}: {str(exc).splitlines()[0][:200]}") from None
        return _CACHE[self.path]

    def embed(self, texts: Sequence[str]):
        """``texts`` (n) -> float32 ``(n, dim)`` unit rows. Raises ``EmbedError``."""
        m = self._load()
        try:
            return normalize(m.encode(cap(texts, self.max_chars)))
        except Exception as exc:
            raise EmbedError(f"model2vec failed: {str(exc).splitlines()[0][:200]}") from None
