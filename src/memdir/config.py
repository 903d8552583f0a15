"""Configuration: ``config.toml`` in each root plus ``MEMDIR_*`` environment variables.

Precedence (highest first): explicit overrides passed to :func:`memdir.open` > environment > project
``config.toml`` > global ``config.toml`` > defaults (seed 001 documents the same layering).

Keys are dotted (``inject.max_chars``); in TOML they are tables (``[inject]`` / ``max_chars = 1200``) and in the
environment ``MEMDIR_`` + the key upper-cased with dots as underscores (``MEMDIR_INJECT_MAX_CHARS``).
Lists in the environment are comma-separated. An unknown key or a bad value is a one-line warning and the
next layer's value is used; it never raises.

Other modules add their keys with :func:`register` at import time (one place per feature, as simonw/llm
registers plugins), so ``memdir config`` lists everything.
"""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("memdir")


@dataclass(frozen=True)
class Key:
    name: str
    default: Any
    type: type
    doc: str
    check: Callable[[Any], bool] | None = None


REGISTRY: dict[str, Key] = {}


def register(name: str, default: Any, doc: str, *, type_: type | None = None, check: Callable[[Any], bool] | None = None) -> None:
    """Declare a configuration key with its default, type and one-line doc (idempotent)."""
    REGISTRY[name] = Key(name, default, type_ or type(default), doc, check)


_pos = lambda v: v > 0  # noqa: E731
_nonneg = lambda v: v >= 0  # noqa: E731
register("inject.max_chars", 1200, "hard cap on the <memory> block, in characters (seed 000 maxInjectChars)", check=_pos)
register("inject.max_entries", 4, "bodies inlined per block (seed 000 maxInjectEntries)", check=_pos)
register("recall.k", 8, "default number of hits", check=_pos)
register("recall.half_life_days", 14.0, "decay half-life in days; 0 turns decay off (seed 000 halfLifeDays)", type_=float, check=_nonneg)
register("recall.decay_floor", 0.3, "lowest decay multiplier: old memories are down-weighted, never erased", type_=float, check=lambda v: 0 <= v <= 1)
register("recall.scope_prior_project", 1.0, "score multiplier for project memories (seed 000)", type_=float, check=_nonneg)
register("recall.scope_prior_global", 0.5, "score multiplier for global memories (seed 000)", type_=float, check=_nonneg)
register("recall.weight_tags", 4.0, "BM25 field weight of tags + load_when (seed 004: tags x4)", type_=float, check=_nonneg)
register("recall.weight_title", 3.0, "BM25 field weight of summary/highlight (seed 004: title x3)", type_=float, check=_nonneg)
register("recall.weight_body", 1.0, "BM25 field weight of the body (seed 004: body x1)", type_=float, check=_nonneg)
register("recall.weight_context", 0.3, "BM25 field weight of an event's neighbouring turns (0 turns the context off)", type_=float, check=_nonneg)
register("recall.rehearsal_weight", 0.1, "boost = 1 + weight * ln(1 + times recalled/injected)", type_=float, check=_nonneg)
register("recall.candidates", 200, "BM25 candidates fetched per root before priors are applied", check=_pos)
register("recall.channel", "lexical", "lexical | vector | hybrid (vector needs an embedding provider)", check=lambda v: v in ("lexical", "vector", "hybrid"))
register("recall.rerank", False, "rerank the top candidates with a cross-encoder (needs rerank.model; memdir.rerank)", type_=bool)
register("recall.rerank_top", 20, "candidates passed to the cross-encoder", check=_pos)
register("rerank.model", "", "cross-encoder for recall.rerank: a local path or a sentence-transformers model name")
register("rerank.max_chars", 2000, "characters of each memory given to the cross-encoder", check=_pos)
register("categories", ["rules", "preferences", "decisions", "pitfalls", "facts"], "category directories (seed 000)", type_=list)
register("debug", False, "write a debug log explaining ranking and skip decisions (also MEMDIR_DEBUG=1)", type_=bool)


#: modules that register their keys at import time (imported only when a key is not yet known)
FEATURE_MODULES = ("memdir.capture", "memdir.hooks", "memdir.vectors", "memdir.tiers", "memdir.embed", "memdir.distill")
_features_loaded = False


def _load_feature_keys() -> bool:
    """Import the feature modules once so their keys are known; returns True if that was done now."""
    global _features_loaded
    if _features_loaded:
        return False
    _features_loaded = True
    import importlib

    for mod in FEATURE_MODULES:
        importlib.import_module(mod)  # our own modules: a failing import is a defect to surface, never skip
    return True


def _coerce(key: Key, value: Any) -> Any:
    t = key.type
    if t is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off", ""):
            return False
        raise ValueError("expected true/false")
    if t is list:
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("expected a list of strings")
        return value
    if t is int:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError("expected an integer")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValueError("expected an integer") from None
    if t is float:
        if isinstance(value, bool):
            raise ValueError("expected a number")
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise ValueError("expected a number") from None
        if f != f or f in (float("inf"), float("-inf")):
            raise ValueError("expected a finite number")
        return f
    if t is str:
        if not isinstance(value, str):
            raise ValueError("expected a string")
        return value
    return t(value)


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def read_toml(path: Path) -> dict[str, Any]:
    """Read a ``config.toml`` as flat dotted keys; a missing file is ``{}``, a broken one warns and is ``{}``."""
    try:
        with open(path, "rb") as f:
            return _flatten(tomllib.load(f))
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        log.warning("memdir: ignoring %s: %s", path, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        return {}


_MISSING = object()


class Config:
    """Effective configuration: ``get(key)`` and ``source(key)`` ("default", "global", "project", "env", "override")."""

    def __init__(self, *, global_file: Path | None = None, project_file: Path | None = None,
                 env: dict[str, str] | None = None, overrides: dict[str, Any] | None = None):
        self._values: dict[str, Any] = {}
        self._sources: dict[str, str] = {}
        self.warnings: list[str] = []
        env = os.environ if env is None else env
        layers: list[tuple[str, dict[str, Any]]] = []
        if global_file is not None:
            layers.append((f"global ({global_file})", read_toml(global_file)))
        if project_file is not None:
            layers.append((f"project ({project_file})", read_toml(project_file)))
        env_layer = {}
        for name in REGISTRY:
            var = "MEMDIR_" + name.replace(".", "_").upper()
            if var in env:
                env_layer[name] = env[var]
        layers.append(("env", env_layer))
        layers.append(("override", dict(overrides or {})))
        self.overrides: dict[str, Any] = dict(overrides or {})  # what the caller passed (to open a sibling store alike)
        self._layers, self._env = layers, env  # kept for keys registered after this Config was built
        for name, key in REGISTRY.items():
            self._values[name] = key.default
            self._sources[name] = "default"
        for source, layer in layers:
            for name, raw in layer.items():
                key = REGISTRY.get(name)
                if key is None and _load_feature_keys():
                    key = REGISTRY.get(name)
                if key is None:
                    self._warn(f"unknown config key {name!r} in {source}; see `memdir config` for the known keys")
                    continue
                value = self._checked(key, raw, source)
                if value is not _MISSING:
                    self._values[name], self._sources[name] = value, source
        if env.get("MEMDIR_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
            self._values["debug"] = True
            self._sources["debug"] = "env"

    def _checked(self, key: Key, raw: Any, source: str) -> Any:
        """``raw`` coerced and range-checked for ``key``, or ``_MISSING`` after a one-line warning."""
        try:
            value = _coerce(key, raw)
            if key.check is not None and not key.check(value):
                raise ValueError("out of range")
            return value
        except (ValueError, TypeError) as exc:
            self._warn(f"bad value {raw!r} for {key.name} in {source} ({exc}); keeping {self._values[key.name]!r}")
            return _MISSING

    def _warn(self, msg: str) -> None:
        self.warnings.append(msg)
        log.warning("memdir: %s", msg)

    def get(self, name: str) -> Any:
        """The effective value of ``name``; raises ``KeyError`` for an unregistered key."""
        if name not in self._values:
            if name not in REGISTRY:
                _load_feature_keys()
            key = REGISTRY[name]  # registered after this Config was built (e.g. on a lazy import): resolve it now
            self._values[name], self._sources[name] = key.default, "default"
            var = "MEMDIR_" + name.replace(".", "_").upper()
            for source, layer in self._layers:
                raw = self._env.get(var) if source == "env" and var in self._env else layer.get(name, _MISSING)
                if raw is _MISSING:
                    continue
                value = self._checked(key, raw, source)
                if value is not _MISSING:
                    self._values[name], self._sources[name] = value, source
        return self._values[name]

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def source(self, name: str) -> str:
        return self._sources.get(name, "default")

    def items(self) -> list[tuple[str, Any, str, str]]:
        """``(key, value, source, doc)`` for every registered key, sorted by key."""
        return [(n, self.get(n), self.source(n), REGISTRY[n].doc) for n in sorted(REGISTRY)]
