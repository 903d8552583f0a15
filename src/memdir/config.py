"""Configuration: ``config.toml`` in each root plus ``MEMDIR_*`` environment variables.

Precedence (highest first): explicit overrides passed to :func:`memdir.open` > environment > project
``config.toml`` > global ``config.toml`` > defaults (seed 001 documents the same layering).

Keys are dotted (``inject.max_chars``); in TOML they are tables (``[inject]`` / ``max_chars = 1200``) and in the
environment ``MEMDIR_`` + the key upper-cased with dots as underscores (``MEMDIR_INJECT_MAX_CHARS``).
Lists in the environment are comma-separated. An unknown key or a bad value is a one-line warning and the
next layer's value is used; it never raises.

Every key is declared in one static table, :data:`SETTINGS`, so reading the configuration never imports a
feature module and ``memdir config`` lists everything. :func:`register` stays for keys added at run time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from memdir.lazylog import getLogger
from memdir.urlmask import masked, safe_url, scrub

log = getLogger("memdir")  # imports logging only when a record can go somewhere


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


_pos = lambda v: 0 < v <= 1e9  # noqa: E731  (a huge count overflowed SQLite, a huge time the clock)
_nonneg = lambda v: 0 <= v <= 1e9  # noqa: E731  (no upper bound let 1e308 print "Infinity" in --json)


def _http_url_ok(v: str) -> bool:
    """``v`` is an ``http://`` or ``https://`` URL with a host (no space or control character in it) and, if it names
    one, a port from 1 to 65535. Raises ``ValueError`` (shown in the warning) for a URL that does not parse."""
    from urllib.parse import urlsplit

    p = urlsplit(v)  # ValueError: an unclosed IPv6 bracket
    return (p.scheme in ("http", "https") and bool(p.hostname) and not any(c.isspace() or ord(c) < 32 for c in v)
            and (p.port is None or p.port > 0))  # .port: ValueError above 65535


def _categories_ok(v: list[str]) -> bool:
    """At least one category, each a plain directory name (``../x`` would leave the root); raises ``ValueError``
    naming the first bad one."""
    from memdir.errors import PathError
    from memdir.roots import check_segment

    if not v:
        raise ValueError("needs at least one category")
    for c in v:
        try:
            check_segment(c, "category")
        except PathError as exc:
            raise ValueError(str(exc)) from None
    return True


def _embed_provider_ok(v: str) -> bool:
    if v in ("none", "auto"):
        return True
    import sys

    from memdir.registry import EMBED  # names only: checking a setting imports no provider

    embed = sys.modules.get("memdir.embed")  # providers registered at run time, once the package is loaded
    return v in EMBED or (embed is not None and v in embed.PROVIDERS)


#: Every setting memdir has, in one static table: ``(name, default, doc, type or None, check or None)``. Feature
#: modules (capture, hooks, vectors, tiers, embed, rerank) read their keys from here and are imported only when
#: used, so reading a setting never imports a feature and ``memdir config`` lists every key.
SETTINGS: tuple[tuple[str, Any, str, type | None, Callable[[Any], bool] | None], ...] = (
    # the <memory> block (memdir.inject.block)
    ("inject.max_chars", 1200, "hard cap on the <memory> block, in characters (0 = no block, at session start too)", None, _nonneg),
    ("inject.max_entries", 4, "bodies inlined per block (0 = none)", None, _nonneg),
    # the doors a person or the agent saves through (memdir remember, MCP memory_remember)
    ("remember.pinned", False, "a note saved with remember (CLI or MCP) is pinned unless the call says otherwise",
     bool, None),
    # lexical recall (memdir.core, memdir.recall.bm25, memdir.recall.rank)
    ("recall.k", 8, "default number of hits", None, _pos),
    ("recall.half_life_days", 14.0, "decay half-life in days; 0 turns decay off", float, _nonneg),
    ("recall.decay_curve", "exponential", "exponential: 0.5^(age/half-life) | hyperbolic: 1/(1 + age/half-life); both "
                                          "0.5 at one half-life", None, lambda v: v in ("exponential", "hyperbolic")),
    ("recall.decay_floor", 0.3, "lowest decay multiplier: old memories are down-weighted, never erased", float, lambda v: 0 <= v <= 1),
    ("recall.scope_prior_project", 1.0, "score multiplier for project memories", float, _nonneg),
    ("recall.scope_prior_global", 0.5, "score multiplier for global memories", float, _nonneg),
    ("recall.weight_tags", 4.0, "BM25 field weight of tags + load_when", float, _nonneg),
    ("recall.weight_title", 3.0, "BM25 field weight of summary/highlight", float, _nonneg),
    ("recall.weight_body", 1.0, "BM25 field weight of the body", float, _nonneg),
    ("recall.weight_context", 0.3, "BM25 field weight of an event's neighbouring turns (0 turns the context off)", float, _nonneg),
    ("recall.rehearsal_weight", 0.1, "boost = 1 + weight * ln(1 + times recalled/injected)", float, _nonneg),
    ("recall.memory_index", "auto", "BM25 postings held in memory (same scores, no FTS5 bm25() per posting): auto = in "
                                    "processes that ask for it (memdir serve and its hook listener, Memdir.keep_warm();"
                                    " not memdir mcp) | on = in every process (built at its first recall) | off", None, lambda v: v in ("auto", "on", "off")),
    ("recall.memory_index_max_rows", 200_000, "full-text rows above which recall keeps the SQL path (held postings: "
     "~3-5 MB of RSS and ~0.15-0.2 s of CPU to build per 1,000 rows in the synthetic bench)", None, _pos),
    ("recall.candidates", 200, "BM25 candidates fetched per root before priors are applied", None, _pos),
    ("recall.subject_boost", 1.0, "score multiplier - 1 for a memory whose speaker/subject the query names (0 = off).", float, _nonneg),
    ("recall.session_bonus", 0.0, "an event's score gains this share of the best other candidate of its session (0 = "
                                  "off).", float, _nonneg),
    ("recall.cjk_unigram_weight", 0.3, "weight of the single characters of a query's Han runs, added to its bigrams (0 "
                                       "= bigrams only).", float, _nonneg),
    ("recall.cjk_function_bigram_weight", 0.5, "weight of a query's Han bigrams that hold one Chinese function "
                                               "character (我要, 的魔), against 1 for its other terms (1 = as any term).", float, lambda v: 0 <= v <= 1),
    ("recall.date_boost", 0.5, "score multiplier - 1 for a memory whose time falls in a date the query names ('10 days "
                               "ago', 'last Saturday', '昨天'), resolved against the clock (0 = off).", float, _nonneg),
    ("recall.fail_prior", 1.5, "score multiplier of a failed tool call (its summary reads '→ error') or a user turn "
     "pasting a failure among the lexical top candidates of a question asking why something failed (memdir.inject.kinds.question_kind); 1 = off", float, _nonneg),
    ("recall.bridge_weight", 0.5, "weight of the other language's words for a query's glossary words (deploy <-> 部署), "
                                  "against 1 for the query's own words (0 = off).", float, _nonneg),
    ("recall.channel", "lexical", "lexical | vector | hybrid (vector needs an embedding provider)", None,
     lambda v: v in ("lexical", "vector", "hybrid")),
    # cross-encoder rerank (memdir.engine.rerank)
    ("recall.rerank", False, "rerank the top candidates with a cross-encoder (needs rerank.model)", bool, None),
    ("recall.rerank_top", 20, "candidates passed to the cross-encoder", None, _pos),
    ("rerank.model", "", "cross-encoder for recall.rerank: a local path or a sentence-transformers model name", None, None),
    ("rerank.max_chars", 2000, "characters of each memory given to the cross-encoder", None, _pos),
    # vector / hybrid recall (memdir.engine.hybrid)
    ("recall.rrf_k", 60, "RRF constant k (Cormack et al. 2009)", None, _nonneg),
    ("recall.weight_vector", 1.0, "RRF weight of the vector channel", float, _nonneg),
    ("recall.weight_lexical", 4.0, "RRF weight of the lexical channel, vector = 1.", float, _nonneg),
    ("recall.weight_lexical_cjk", 1.0, "RRF weight of the lexical channel when the query is mostly "
                                       "Chinese/Japanese/Korean script and the provider is multilingual (e5, use; "
                                       "vector = 1).", float, _nonneg),
    ("recall.fusion", "auto", "how the hybrid channel fuses lexical and vector candidates: rrf (ranks, recall.weight_*), "
     "convex (normalised scores: BM25 / best, cosine min-max; recall.vector_share*) or auto (convex with a multilingual "
     "provider, e5 or use, rrf otherwise)", None, lambda v: v in ("auto", "rrf", "convex")),
    ("recall.vector_share", 0.35, "convex fusion: the vector channel's share (lexical 1 - share) for a short query "
                                  "(fewer than recall.long_query_terms distinct terms) not mostly CJK. Blended with RRF"
                                  " by recall.rank_share.", float, lambda v: 0 <= v <= 1),
    ("recall.context_share", 0.2, "hybrid channel: a turn's fused score gains this share of the fused score of its "
                                  "better session neighbour (the turn just before or after it, when also a candidate); "
                                  "0 = off.", float, lambda v: 0 <= v <= 1),
    ("recall.rank_share", 0.7, "convex fusion, short query not mostly CJK: share of the RRF score (recall.weight_*, "
                               "rrf_k; divided by its best) in (1 - share) x convex / best + share x RRF / best (0 = "
                               "convex only).", float, lambda v: 0 <= v <= 1),
    ("recall.vector_share_long", 0.65, "convex fusion: the vector channel's share for a long query not mostly CJK (a "
                                       "dialogue or pasted passage).", float, lambda v: 0 <= v <= 1),
    ("recall.vector_share_cjk", 0.6, "convex fusion: the vector channel's share for a mostly-CJK query with a "
                                     "multilingual provider.", float,
     lambda v: 0 <= v <= 1),
    ("recall.vector_share_bridged", 0.3, "convex fusion: the vector channel's share for a mostly-CJK query whose "
                                         "lexical top 10 holds a hit reached through the glossary bridge (a question "
                                         "asked across languages: the bridge's match is more precise than a small "
                                         "model's cross-language similarity).", float, lambda v: 0 <= v <= 1),
    ("recall.query_last_line", True, "vector channel: a query of two or more lines (a dialogue, a prompt after pasted "
                                     "context) is embedded whole and by its last line, and memories are scored by the "
                                     "mean of the two similarities (the latest turn says what is asked now).", bool, None),
    ("recall.long_query_terms", 20, "distinct query terms from which a query counts as long for recall.vector_share_long "
     "(a question has fewer; a pasted dialogue more)", None, _pos),
    ("recall.weight_cold", 0.8, "RRF weight of the cold-tier vector channel", float, _nonneg),
    ("recall.min_similarity", 0.2, "cosine threshold on the vector channels only", float, lambda v: -1 <= v <= 1),
    ("recall.vector_candidates", 100, "vector candidates per root before fusion", None, _pos),
    ("recall.cold_budget_ms", 900.0, "time budget of the cold-tier scan in ms", float, _nonneg),
    ("recall.cold_max", 200_000, "most cold vectors scanned per recall", None, _nonneg),
    ("recall.ann_threshold", 200_000, "above this many hot+warm vectors use an HNSW index (usearch) if installed", None, _pos),
    ("recall.pg_hnsw_threshold", 10_000, "PostgreSQL store with pgvector: above this many vectors of the model in the "
     "project, search its HNSW index (candidates with exact similarity); at or below, pgvector scores every vector "
     "(exact, the in-memory scan's top k)", None, _nonneg),
    # embedding providers (memdir.embed)
    ("embed.provider", "none", "none | auto | fake | e5 | use | sentence-transformers | model2vec | openai", None, _embed_provider_ok),
    ("embed.model", "", "model name or local path (provider default when empty)", str, None),
    ("embed.url", "http://127.0.0.1:11434/v1/embeddings", "openai provider: the /v1/embeddings endpoint", str, None),
    ("embed.api_key_env", "OPENAI_API_KEY", "openai provider: environment variable holding the API key", str, None),
    ("embed.dim", 0, "requested dimensions (openai `dimensions`; fake: vector size); 0 = model default", None, _nonneg),
    ("embed.timeout_s", 6.0, "openai provider: per-request timeout in seconds", float, _pos),
    ("embed.batch", 64, "texts per provider call", None, _pos),
    ("embed.retries", 2, "openai provider: retries after a timeout, 429 or 5xx (exponential back-off)", None, _nonneg),
    ("embed.max_chars", 2000, "texts are cut to this many characters before embedding", None, _pos),
    ("embed.device", "cpu", "sentence-transformers device (cpu, cuda, mps)", str, None),
    ("embed.threads", 0, "CPU threads of the packaged models (e5, use); 0 = min(4, cores)", None, _nonneg),
    ("embed.recall_backfill_ms", 1500.0, "recall embeds pending memories first, for at most this long (ms)", float, _nonneg),
    ("embed.recall_deadline_ms", 1200.0, "openai provider: all of one recall's embedding calls (pending memories, the "
                                         "query) end within this many ms; then recall is lexical", float, _pos),
    # heat tiers and prune (memdir.engine.tiers)
    ("tiers.half_life_days", 45.0, "heat half-life in days; 0 = no decay", float, _nonneg),
    ("tiers.hot_max", 3000, "hard cap on hot memories", None, _nonneg),
    ("tiers.warm_max", 12000, "hard cap on warm memories", None, _nonneg),
    ("tiers.hot_enter", 0.6, "heat to enter hot", float, _nonneg),
    ("tiers.hot_exit", 0.4, "heat below which hot is left", float, _nonneg),
    ("tiers.warm_enter", 0.3, "heat to enter warm", float, _nonneg),
    ("tiers.warm_exit", 0.15, "heat below which warm is left", float, _nonneg),
    ("tiers.archive_days", 365.0, "cold memories idle this long become archive; 0 = never", float, _nonneg),
    # host capture (memdir.capture.gates) and hooks (memdir.hosts.hooks)
    ("capture.min_chars", 10, "captured user/assistant text shorter than this is skipped (a CJK character counts 2)", None, _nonneg),
    ("capture.daily_cap", 5000, "most events captured per local day and project (0 = no cap): a guard against a "
                                "runaway loop, above a busy day of agent work", None, _nonneg),
    ("capture.skip_tools", [], "extra tool names/patterns never captured (added to read, grep, glob, ls, memory_* …)", list, None),
    ("capture.enabled", True, "capture events from host hooks at all", bool, None),
    ("capture.lock_wait_ms", 500.0, "a capture waits this long for the write lock (a long import holds it), then "
                                    "queues the event for the next writer (never lost)", float, _nonneg),
    ("capture.web_content", False, "capture what web tools returned (WebFetch, WebSearch, webfetch, web_search, fetch and "
     "browser MCP tools, curl/wget in a shell): third-party text that may carry instructions; off = only the call is kept",
     bool, None),
    ("capture.read_facts", False, "keep a read, search or listing (Read/Grep/Glob/LS, sed -n/cat/rg/ls in a shell) as one "
     "line, 'read <path>' / 'searched \"<pattern>\" in <dir>', instead of dropping it (its output is never kept)", bool, None),
    ("capture.web_tools", [], "extra tool names/patterns that fetch third-party content (added to memdir.capture.gates.WEB_TOOLS)",
     list, None),
    ("hook.budget_ms", 3000, "wall-time budget of one `memdir hook` call; past it the hook prints nothing and exits 0", None, _pos),
    ("hook.session_max_chars", 4000, "size cap of the SessionStart block (rules + outline), in characters (0 = none)",
     None, _nonneg),
    ("hook.warm", True, "a hook asks a running `memdir serve` over its local socket first (in-process when none answers)", bool, None),
    # distillation of sessions into notes (memdir.distill.flow)
    ("distill.auto", False, "distil a session in a detached process when the host's Stop/SessionEnd/session.idle fires;"
                            " needs distill.provider", bool, None),
    ("distill.provider", "", "openai | anthropic | claude | codex | opencode; empty = off", None,
     lambda v: v in ("", "openai", "anthropic", "claude", "codex", "opencode")),
    ("distill.model", "", "model name; empty = the provider's cheap default (anthropic claude-haiku-4-5, "
     "claude haiku, codex/opencode their configured model)", None, None),
    ("distill.url", "", "openai/anthropic base URL, e.g. http://127.0.0.1:11434/v1 (empty = the vendor's)", None, None),
    ("distill.api_key_env", "", "name of the environment variable holding the key (empty = OPENAI_API_KEY / "
     "ANTHROPIC_API_KEY); the key itself is never stored", None, None),
    ("distill.command", "", "host CLI program (and leading arguments) for claude/codex/opencode; empty = on PATH", None, None),
    ("distill.min_turns", 4, "a session is distilled once it has this many new turns", None, _pos),
    ("distill.daily_cap", 20, "most model calls per UTC day and project root", None, _nonneg),
    ("distill.timeout_s", 120.0, "time limit of one model call, in seconds", float, _pos),
    ("distill.max_input_chars", 24000, "transcript characters per model call (longer sessions take several calls)", None,
     lambda v: v >= 1000),
    ("distill.max_turn_chars", 2000, "characters kept of each turn in the prompt", None, lambda v: v >= 100),
    ("distill.max_items", 8, "most memories accepted from one reply (the rest are rejected)", None, _pos),
    ("distill.max_body_chars", 2000, "a candidate's body above this is rejected as oversized", None, _pos),
    ("distill.overlap_lexical", 0.5, "token-set Jaccard (summary + body) at or above which a candidate duplicates "
     "a note", float, lambda v: 0 < v <= 1),
    ("distill.overlap_vector", 0.9, "cosine at or above which a candidate duplicates a note (embeddings on)", float,
     lambda v: 0 < v <= 1),
    ("distill.delay_s", 2.0, "the detached distiller (distill.auto) sleeps this long at low priority before it works, "
     "so the host and its hook finish first", float, _nonneg),
    # drop-file import (memdir.portability.dropimport)
    ("import.workers", 2, "worker processes that redact and tokenize a long import (2,000+ events) ahead of its "
                          "writes, at most one per core; 0 = all in the importing process", None, _nonneg),
    ("import.max_items", 1500, "drop-file import (<global root>/import/*.jsonl): newest records taken per file", None, _pos),
    # where the index lives (memdir.store.sqlite.store): the embedded SQLite file, or a PostgreSQL database shared by projects
    ("store", "", "empty = the SQLite index in <root>/.memdir; postgresql://user@host/db = a team store (extra "
                  "'postgres')", str, lambda v: v == "" or v.startswith(("postgresql://", "postgres://"))),
    # a team server (memdir.engine.remote): events stored here are queued and sent to it, never blocking a hook
    ("remote.url", "", "team server's API, e.g. http://host:8765/v1 (memdir serve --store); empty = none", str,
     lambda v: v == "" or _http_url_ok(v)),
    ("remote.project", "", "project name on the team server (empty = the project directory's name)", str, None),
    ("remote.token_env", "MEMDIR_REMOTE_TOKEN", "environment variable holding your token for the team server", str, None),
    ("remote.push_budget_ms", 250, "most time a write spends sending queued events to the server; the rest waits", None,
     _nonneg),
    ("remote.timeout_s", 30.0, "time limit of `memdir push`", float, _pos),
    ("remote.recall_budget_ms", 300, "most time a recall (hooks, CLI, MCP) waits for the team server's hits, asked "
     "while the local search runs; past it the local hits alone are shown (0 = never ask)", None, _nonneg),
    # general
    ("categories", ["rules", "preferences", "decisions", "pitfalls", "facts"], "category directories; a directory "
                                                                               "already in the root is a category too", list, _categories_ok),
    ("debug", False, "write a debug log explaining ranking and skip decisions (also MEMDIR_DEBUG=1)", bool, None),
)
for _name, _default, _doc, _type, _check in SETTINGS:
    register(_name, _default, _doc, type_=_type, check=_check)
del _name, _default, _doc, _type, _check

#: modules that may still register keys of their own at import time (imported only when a key is not in the table)
FEATURE_MODULES = ("memdir.capture.gates", "memdir.hosts.hooks", "memdir.engine.hybrid", "memdir.engine.tiers", "memdir.embed", "memdir.distill.flow")
_features_loaded = False


#: ``MEMDIR_…`` environment variables that are not settings (``memdir config`` lists those): read by memdir itself
#: or by its tests and benchmarks; :meth:`Config._check_env_names` never warns about them
ENV_NAMES = frozenset({
    "MEMDIR_HOME", "MEMDIR_DEBUG", "MEMDIR_PROJECT_DIR", "MEMDIR_HOOK_WARM", "MEMDIR_DISTILLING",
    "MEMDIR_WORKTREE_MEMORY", "MEMDIR_IMPORT_WORKERS", "MEMDIR_CHROMIUM", "MEMDIR_BENCH_CACHE", "MEMDIR_E2E",
    "MEMDIR_E2E_BIN", "MEMDIR_E2E_CACHE", "MEMDIR_E2E_REPORT", "MEMDIR_E2E_CLAUDE", "MEMDIR_E2E_CODEX",
    "MEMDIR_E2E_OPENCODE", "MEMDIR_REQUIRE_POSTGRES", "MEMDIR_REQUIRE_PGVECTOR", "MEMDIR_REQUIRE_BROWSER",
    "MEMDIR_REQUIRE_MULTILINGUAL", "MEMDIR_STORE_ADMIN", "MEMDIR_TEST_LATE_ENV",
})


#: settings a project's ``config.toml`` may not set (a cloned repository's file is someone else's): the program memdir
#: runs, the environment variable whose secret it sends, and where keys and texts go. Read from the user's global
#: ``config.toml``, the environment and the caller's overrides only.
PERSONAL = frozenset({"distill.command", "distill.api_key_env", "distill.url", "embed.url", "embed.api_key_env",
                      "remote.token_env"})


def _load_feature_keys() -> bool:
    """Import the feature modules once so keys they register themselves are known; returns True if that was
    done now. Every key of memdir's own is in :data:`SETTINGS`, so this runs only for a key nobody knows."""
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
        # a URL pasted with a space or a line break around it (an env var, a config line) means that URL
        return value.strip() if key.name in _URL_KEYS else value
    return t(value)


#: settings holding a URL: white space around the value is not part of it
_URL_KEYS = ("remote.url", "store")


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
    from memdir.fileio import open_regular

    try:
        f = open_regular(path)  # a FIFO named config.toml would block every command
    except (FileNotFoundError, NotADirectoryError):  # no file; a file where the root should be: doctor and status say so
        try:  # a dotfiles link to a checkout moved or not yet made: its settings would be missed without a word
            _warn_once(f"memdir: ignoring {path}: it is a link to {os.readlink(path)}, which does not exist")
        except OSError:  # not a link: there is simply no file
            pass
        return {}
    except OSError as exc:
        _warn_once(f"memdir: ignoring {path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        return {}
    import tomllib  # here: most stores have no config.toml, and a hook need not import the parser (issue 12)

    try:
        with f:
            data = f.read()
        # a byte-order mark (Windows Notepad's "UTF-8 with BOM") is no TOML statement: read past it; a UTF-16 one
        # (PowerShell 5's `>` and Out-File) says how the rest is written
        utf16 = data[:2] in (b"\xff\xfe", b"\xfe\xff")
        return _flatten(tomllib.loads(data.decode("utf-16" if utf16 else "utf-8-sig")))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        # a table declared twice (two snippets pasted one after the other): every setting is lost, so say the fix
        fix = "; put its keys under one [table] heading" if said.startswith("Cannot declare") else ""
        _warn_once(f"memdir: ignoring {path} (every setting in it): {said}{fix}")
        return {}


_SAID: set[str] = set()


def _warn_once(line: str) -> None:
    """``line`` as a warning once per process (a command reads the settings more than once)."""
    if line not in _SAID:
        _SAID.add(line)
        log.warning("%s", line)


_MISSING = object()


class Config:
    """Effective configuration: ``get(key)`` and ``source(key)`` ("default", "global", "project", "env", "override")."""

    def __init__(self, *, global_file: Path | None = None, project_file: Path | None = None,
                 env: dict[str, str] | None = None, overrides: dict[str, Any] | None = None):
        self._values: dict[str, Any] = {}
        self._sources: dict[str, str] = {}
        self.warnings: list[str] = []
        #: settings whose value was refused (``{name: raw value}``); the default stands in for them
        self.rejected: dict[str, Any] = {}
        self.home = global_file.parent if global_file is not None else None  # the global root (its .env: memdir.envfile)
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
                    import difflib

                    close = difflib.get_close_matches(name, list(REGISTRY), 1, 0.8)
                    hint = f"did you mean {close[0]!r}? " if close else ""
                    self._warn(f"unknown config key {name!r} in {source}; {hint}see `memdir config` for the known keys")
                    continue
                if name in PERSONAL and source.startswith("project"):
                    self._warn(f"{name} in {source} is ignored: a project's config.toml may not choose a program to run,"
                               f" a secret's variable or where keys and texts go; set it in the global config.toml"
                               + (f" ({self.home / 'config.toml'})" if self.home else ""))
                    continue
                value = self._checked(key, raw, source)
                if value is not _MISSING:
                    self._values[name], self._sources[name] = value, source
                    self.rejected.pop(name, None)  # a later layer's good value decides (MEMDIR_REMOTE_URL="" turns it off)
        if env.get("MEMDIR_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
            self._values["debug"] = True
            self._sources["debug"] = "env"
        self._check_env_names(env)

    def _checked(self, key: Key, raw: Any, source: str) -> Any:
        """``raw`` coerced and range-checked for ``key``, or ``_MISSING`` after a one-line warning."""
        try:
            value = _coerce(key, raw)
            if key.check is not None and not key.check(value):
                raise ValueError(_why_refused(key, value))
            return value
        except (ValueError, TypeError) as exc:
            shown = masked(raw) if isinstance(raw, str) else raw  # a URL may carry a password, with a scheme or without
            kept = self._values[key.name]
            kept = safe_url(kept) if isinstance(kept, str) and "://" in kept else kept
            self.rejected[key.name] = raw
            if key.name == "store":  # memdir.open refuses it in one line (a fallback would misplace writes)
                return _MISSING
            why = scrub(str(exc), raw) if isinstance(raw, str) else exc  # a parser's words may hold part of a password
            self._warn(f"bad value {shown!r} for {key.name} in {source} ({why}); keeping {kept!r}")
            return _MISSING

    def _check_env_names(self, env: Any) -> None:
        """Warn about a ``MEMDIR_…`` variable that is no setting but nearly spells one (``MEMDIR_INJECT_MAXCHARS``):
        a typo in a config file is said, one in the environment was ignored without a word. Other ``MEMDIR_…``
        variables (:data:`ENV_NAMES`, a token's variable named by a ``*_env`` setting) are left alone."""
        odd = [v for v in env if v.startswith("MEMDIR_") and v not in ENV_NAMES and not v.endswith(("_TOKEN", "_KEY"))]
        if not odd:
            return
        import difflib

        names = {"MEMDIR_" + n.replace(".", "_").upper() for n in REGISTRY}
        named = {str(self._values.get(n)) for n in REGISTRY if n.endswith("_env")}  # remote.token_env's variable …
        for var in sorted(v for v in odd if v not in names and v not in named):
            close = difflib.get_close_matches(var, sorted(names), 1, 0.85)
            if close and _load_feature_keys():  # the feature modules only for a near miss (a hook reads this too)
                names |= {"MEMDIR_" + n.replace(".", "_").upper() for n in REGISTRY}
            if close and var not in names:
                self._warn(f"environment variable {var} is not a memdir setting and is ignored; did you mean "
                           f"{close[0]}? (`memdir config` lists the settings)")

    def _warn(self, msg: str) -> None:
        self.warnings.append(msg)
        log.warning("memdir: %s", msg)

    def get(self, name: str) -> Any:
        """The effective value of ``name``; raises :class:`memdir.errors.UnknownSetting` (a ``UsageError`` and a
        ``KeyError``, one line naming the key) for an unregistered key."""
        if not isinstance(name, str) or name not in self._values:
            if not isinstance(name, str) or name not in REGISTRY and not (_load_feature_keys() and name in REGISTRY):
                raise _unknown(name)
            key = REGISTRY[name]  # registered after this Config was built (e.g. on a lazy import): resolve it now
            self._values[name], self._sources[name] = key.default, "default"
            var = "MEMDIR_" + name.replace(".", "_").upper()
            for source, layer in self._layers:
                raw = self._env.get(var) if source == "env" and var in self._env else layer.get(name, _MISSING)
                if raw is _MISSING or (name in PERSONAL and source.startswith("project")):
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


def _unknown(name: object) -> Exception:
    """The one-line error for ``Config.get`` of a key no setting has, with the nearest key when one is close."""
    import difflib

    from memdir.errors import UnknownSetting

    close = difflib.get_close_matches(name.lower(), list(REGISTRY), 1, 0.6) if isinstance(name, str) else []
    return UnknownSetting(f"unknown config key {name!r}" + (f": did you mean {close[0]!r}?" if close else "")
                          + " (`memdir config` lists every key)")


def _why_refused(key: Key, value: Any) -> str:
    """What a value refused by ``key``'s check should have been: the choices when the key's doc starts with them
    (``a | b | c``), else "out of range"."""
    import re

    if isinstance(value, str):
        m = re.match(r"\s*([\w.-]+(?:\s*\|\s*[\w.-]+)+)", key.doc)
        if m:
            choices = [c.strip() for c in m.group(1).split("|")]
            if key.default == "" and "" not in choices:
                choices.append("'' (off)")
            return "not one of " + ", ".join(choices)
        if key.name == "store":
            return "not a postgresql:// URL"
    return "out of range"


def team_wanted(config: "Config") -> bool:
    """True when ``remote.url`` is set, or was set to a value the settings refused (a typo: no scheme, ``htp://``, a
    bad port): the user asked for a team server, so events are queued and sent once the URL is fixed, not kept local
    for good."""
    return bool(config.get("remote.url")) or bool(str(config.rejected.get("remote.url") or "").strip())


def refused_url_line(config: "Config") -> str | None:
    """One line naming a ``remote.url`` the settings refused, with the fix; ``None`` when none was refused."""
    raw = config.rejected.get("remote.url")
    if not str(raw or "").strip():
        return None
    raw = str(raw)
    shown = masked(raw)  # user:password@
    return (f"remote.url {shown!r} is not a usable team server URL (http:// or https://, a host, a port "
            "from 1 to 65535, no spaces): fix it in config.toml, e.g. http://host:8765/v1; events wait in the queue")
