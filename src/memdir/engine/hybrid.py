"""Vectors and hybrid recall (seed 001's recall flow): store, pending/backfill, in-memory search, RRF fusion.

Storage (migration ``m002``): ``vectors(ref, content_sha256, model, dim, status, vector)`` — one L2-normalised
float32 blob per doc, tagged with the provider's ``model`` (provider + model + dim) and the text hash it was
computed from. A doc is *pending* when it has no ``ok`` vector for the current model and its current text:
new rows, failed calls, edited notes and a model or dimension change all become pending, and
:func:`backfill` (``memdir backfill``) re-embeds them. An embedding failure never loses a memory: the doc is
stored first, its vector later.

Recall (``recall.channel`` = ``vector`` or ``hybrid``):

1. embed the query (the provider's cost; reported separately by :func:`explain`); a query of several lines also by its
   last line, the mean of the two vectors (``recall.query_last_line``, :func:`last_line`);
2. lexical BM25 candidates from the core (hybrid only; always run, it is cheap);
3. exact cosine scan (one matrix–vector product) over a contiguous in-memory float32 matrix of the hot and warm
   vectors of each root, rebuilt only when the stored vectors or tiers change; above ``recall.ann_threshold``
   vectors an HNSW index (usearch) replaces the scan;
4. when fewer than ``k`` vector hits pass ``recall.min_similarity``, cold vectors are scanned from SQLite in
   chunks within ``recall.cold_budget_ms`` (seed 001: 900 ms) — a third channel;
5. fusion (:mod:`memdir.recall.rrf`): with a multilingual provider (``recall.fusion = "auto"``) a convex combination of the
   normalised scores, the vector share by the query's script and length, lower for a CJK query the glossary answered
   across languages (``recall.vector_share_bridged``, :func:`bridged_hits`; measured in bench/results/fusion-sweep-e5.md);
   otherwise RRF (k = 60) with per-channel weights. The similarity threshold applies to the vector channels only (a
   literal match needs no score threshold);
6. session context (hybrid): a turn gains ``recall.context_share`` x the fused score of its better neighbour in its
   session among the candidates (:func:`with_context`).

Superseded notes, forgotten/pruned items (tombstones) and stale vectors never appear (case C12): every
candidate is re-checked against ``docs`` before it becomes a hit. numpy is imported only here, lazily.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable

import memdir.embed as embed
from memdir.engine import lexical, modelwait
from memdir.recall import rank, rrf
from memdir.stores import Stores, stores_of
from memdir.timeutil import iso
from memdir.types import Hit

if TYPE_CHECKING:
    from memdir.engine.root import Root

log = logging.getLogger("memdir")

# settings: the recall.*/embed.* keys of memdir.config.SETTINGS

COLD_CHUNK = 4096


# ---- per-Memdir state (provider, matrices) ---------------------------------------------------------------
def vector_state(m: Stores | Any) -> dict[str, Any]:
    """The vector state of a store (``m``: :class:`memdir.stores.Stores` or a facade holding one)."""
    state = stores_of(m).state
    st = state.get("vectors")
    if st is None:
        st = state["vectors"] = {"provider": None, "provider_error": None, "built": False, "index": {}}
    return st


def provider_for(m: "Stores | Any", *, strict: bool = False):
    """The configured provider (built once per ``Memdir``), or ``None`` for ``none``.

    A provider that cannot be built is logged once and treated as ``None`` (recall falls back to lexical), or
    raises ``EmbedError``/``UsageError`` when ``strict``."""
    m = stores_of(m)
    st = vector_state(m)
    if not st["built"]:
        try:
            st["provider"] = embed.get_provider(m.config)
        except Exception as exc:  # said once a process (recall's fallback too); a strict caller raises it instead
            st["provider_error"] = str(exc)
            if not strict and str(exc) not in _SAID:
                _SAID.add(str(exc))
                log.warning("memdir: embeddings off: %s", exc)
        st["built"] = True
    if strict and st["provider_error"]:
        raise embed.EmbedError(st["provider_error"])
    return st["provider"]


def set_provider(m: "Stores | Any", provider) -> None:
    """Use ``provider`` (any object with ``name``, ``model``, ``embed``) for ``m`` — tests and embedders."""
    m = stores_of(m)
    st = vector_state(m)
    st.update(provider=provider, provider_error=None, built=True, index={})


def _np():
    import numpy as np

    return np


# ---- backfill ---------------------------------------------------------------------------------------------


def sendable(text: str) -> str:
    """``text`` as a provider may be given it: redacted (:func:`memdir.capture.redact.redact`). A provider may be a
    server elsewhere (``embed.provider = "openai"``), and a stored text may hold a secret stored before redaction knew
    its shape (an older memdir's store, a key pattern added since), or a query one typed in."""
    from memdir.capture.redact import redact

    return redact(text or "")


def embed_text(row) -> str:
    """What is embedded for a doc: a note's summary line then its body; an event's text; redacted (:func:`sendable`)."""
    if row["kind"] == "note" and row["summary"] and not row["text"].startswith(row["summary"]):
        return sendable(f"{row['summary']}\n{row['text']}")
    return sendable(row["text"])


def backfill(m: "Stores | Any", *, budget_ms: float | None = None, limit: int | None = None,
             progress: Callable[[int], None] | None = None, provider=None,
             lock_timeout: float | None = None) -> dict[str, Any]:
    """Embed pending docs of every root (batches of ``embed.batch``), newest first.

    ``budget_ms``: stop after this long (None = no limit); ``limit``: at most this many docs; ``progress(n)``
    is called after each batch with the number just handled. ``lock_timeout``: seconds to wait for a root's write
    lock to store the vectors or the failure (default 60; recall passes 0: a long import holding the lock must not
    hold a hook, the memories then stay pending and ``LockBusy`` is raised). Returns ``{"embedded", "failed", "pending"
    (left), "provider", "model"}``. Raises ``EmbedError`` when no provider is configured or it cannot be built.
    A failed batch is recorded as ``failed`` and the run stops (the memories themselves are untouched). A read-only
    root (:attr:`memdir.engine.root.Root.read_only`) is left out: its pending memories stay in ``pending``.
    """
    m = stores_of(m)
    prov = provider or provider_for(m, strict=True)
    if prov is None:
        raise embed.EmbedError("no embedding provider: set embed.provider (e.g. `auto`, `sentence-transformers`)")
    t0 = time.perf_counter()
    batch = int(m.config.get("embed.batch"))
    out: dict[str, Any] = {"embedded": 0, "failed": 0, "pending": 0, "provider": prov.name, "model": prov.model}
    for root in m.live():
        if root.read_only:  # C36: nothing can be stored there; its pending memories stay pending (counted below)
            continue
        # one query for the whole root (newest first), then batches: re-querying per batch was quadratic
        todo = root.store.vector_pending(prov.model, -1 if limit is None else limit)
        pos = 0
        while True:
            if budget_ms is not None and (time.perf_counter() - t0) * 1000 >= budget_ms:
                break
            if limit is not None and out["embedded"] + out["failed"] >= limit:
                break
            n = batch if limit is None else min(batch, limit - out["embedded"] - out["failed"])
            rows = todo[pos:pos + n]
            pos += n
            if not rows:
                break
            items = [(r["ref"], r["content_sha256"]) for r in rows]
            when = iso(m.clock())
            try:
                mat = prov.embed([embed_text(r) for r in rows])
                if len(mat) != len(rows):
                    raise embed.EmbedError(f"provider returned {len(mat)} vectors for {len(rows)} texts")
            except Exception as exc:
                with root.locked(lock_timeout), root.store.transaction() as st:
                    st.vector_failed(items, prov.model, str(exc), when)
                out["failed"] += len(items)
                out["error"] = str(exc)
                embed.say_failure(prov.model, "memdir: embedding failed (%s); %d memories stay pending", exc, len(items))
                break
            with root.locked(lock_timeout), root.store.transaction() as st:
                out["embedded"] += st.vector_put(items, mat, prov.model, when)
            embed.worked(prov.model)
            if progress:
                progress(len(rows))
        if out.get("error"):
            break
    out["pending"] = 0
    for r in m.live():
        left = r.store.vector_pending_count(prov.model)
        out["pending"] += left
        if not left and not out.get("error") and not r.read_only:
            with r.store.transaction() as st:
                st.vector_watermark(prov.model)
    return out


# ---- in-memory search ---------------------------------------------------------------------------------------
class VectorIndex:
    """The hot + warm vectors of one root as one contiguous float32 matrix ``(n, dim)`` plus their refs and text
    hashes; reloaded when the stored vectors, docs or tiers change (a cheap stamp query), else reused."""

    def __init__(self):
        self.stamp: tuple | None = None
        self.refs: list[str] = []
        self.shas: list[str] = []
        self.mat = None
        self.ann = None

    def refresh(self, store, model: str, ann_threshold: int) -> None:
        """Reload from ``store`` (a :class:`memdir.store.protocol.Store`) when its stamp changed (shape ``(n, dim)``,
        n = hot + warm + unswept vectors)."""
        stamp = store.vector_stamp(model)
        if stamp == self.stamp:
            return
        np = _np()
        dim = stamp[-1]
        rows = store.vector_rows(model, dim)
        if dim is None and rows:  # vectors from before the length was recorded: keep the most common length
            from collections import Counter

            common = Counter(len(r[2]) for r in rows).most_common(1)[0][0]
            rows = [r for r in rows if len(r[2]) == common]
        self.refs = [r[0] for r in rows]
        self.shas = [r[1] for r in rows]
        if rows:
            self.mat = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1).copy()
        else:
            self.mat = None
        self.ann = None
        if self.mat is not None and len(rows) > ann_threshold:
            self.ann = _build_ann(self.mat)
        self.stamp = stamp

    def search(self, q, k: int) -> list[tuple[int, float]]:
        """Top ``k`` ``(row, cosine)`` for unit query ``q`` (dim,), best first; exact unless the ANN is built."""
        if self.mat is None or k <= 0 or q.shape[0] != self.mat.shape[1]:
            return []
        if self.ann is not None:
            res = self.ann.search(q, k)
            return [(int(i), 1.0 - float(d)) for i, d in zip(res.keys, res.distances)]
        return top_k(self.mat @ q, k)


def top_k(sims, k: int) -> list[tuple[int, float]]:
    """Indices and values of the ``k`` largest of ``sims`` (n,), best first (argpartition: O(n))."""
    np = _np()
    n = sims.shape[0]
    if n == 0:
        return []
    if k < n:
        idx = np.argpartition(-sims, k - 1)[:k]
    else:
        idx = np.arange(n)
    idx = idx[np.argsort(-sims[idx], kind="stable")]
    return [(int(i), float(sims[i])) for i in idx]


class _HnswlibIndex:
    """hnswlib behind the same ``search(q, k)`` shape as usearch (``keys``, ``distances`` = 1 - cosine)."""

    def __init__(self, mat):
        import hnswlib

        np = _np()
        self.ix = hnswlib.Index(space="ip", dim=int(mat.shape[1]))
        self.ix.init_index(max_elements=len(mat), ef_construction=128, M=16)
        self.ix.add_items(mat, np.arange(len(mat)))
        self.ix.set_ef(64)

    def search(self, q, k: int):
        import types

        labels, dists = self.ix.knn_query(q.reshape(1, -1), k=min(k, self.ix.get_current_count()))
        return types.SimpleNamespace(keys=labels[0], distances=dists[0])


def _build_ann(mat):
    """An HNSW index over ``mat`` (inner product on unit rows = cosine), M = 16, ef_construction = 128, ef = 64.

    hnswlib when installed, else usearch, else None (exact scan). Measured at 200,000 × 384 synthetic vectors
    (bench/results/vector-ann.md): hnswlib build 122 s, p50 0.14 ms, recall@10 0.9995 vs exact; usearch build
    395 s, p50 0.38 ms, recall@10 0.994. usearch ships wheels everywhere; hnswlib builds from source."""
    if embed.has_module("hnswlib"):
        return _HnswlibIndex(mat)
    if not embed.has_module("usearch"):
        log.warning("memdir: %d vectors exceed recall.ann_threshold but neither hnswlib nor usearch is installed; exact scan", len(mat))
        return None
    np = _np()
    from usearch.index import Index

    ix = Index(ndim=mat.shape[1], metric="ip", dtype="f32", connectivity=16, expansion_add=128, expansion_search=64)
    ix.add(np.arange(len(mat), dtype=np.uint64), mat)
    return ix


def cold_scan(store, model: str, q, k: int, budget_ms: float, max_rows: int) -> tuple[list[tuple[str, str, float]], dict]:
    """Scan the cold vectors of ``store`` (a :class:`memdir.store.protocol.Store`) in chunks of 4,096 until ``budget_ms`` or
    ``max_rows``; returns the top ``k`` ``(ref, sha, cosine)`` and ``{"scanned", "truncated"}``."""
    np = _np()
    t0 = time.perf_counter()
    best: list[tuple[str, str, float]] = []
    scanned, truncated = 0, False
    cur = store.vector_cold(model, int(q.shape[0]))
    while True:
        if (time.perf_counter() - t0) * 1000 >= budget_ms or scanned >= max_rows:
            truncated = cur.fetchone() is not None
            break
        rows = cur.fetchmany(COLD_CHUNK)
        if not rows:
            break
        mat = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        if mat.shape[1] != q.shape[0]:
            break
        best += [(rows[i][0], rows[i][1], s) for i, s in top_k(mat @ q, k)]
        best = sorted(best, key=lambda x: -x[2])[:k]
        scanned += len(rows)
    return best, {"scanned": scanned, "truncated": truncated}


# ---- recall -------------------------------------------------------------------------------------------------
def _kind_filters(kinds: tuple[str, ...] | None) -> tuple[tuple[str, ...] | None, set[str]]:
    doc_kinds = tuple(x for x in (kinds or ()) if x in ("note", "event")) or None
    return doc_kinds, {x for x in (kinds or ()) if x not in ("note", "event")}


_SAID: set[str] = set()


def _vector_channel(m: "Stores | Any", prov, q, *, k: int, scope: str | None, kinds, info: dict) -> tuple[list, list, dict]:
    """Hot/warm and cold candidates as ``[(key, root, row, sim, factors)]`` lists, ranked by similarity × scope
    prior × decay × rehearsal (as the lexical channel); threshold on raw similarity."""
    m = stores_of(m)
    cfg = m.config
    cand = max(int(cfg.get("recall.vector_candidates")), k)
    thr = float(cfg.get("recall.min_similarity"))
    hl, floor, rw = cfg.get("recall.half_life_days"), cfg.get("recall.decay_floor"), cfg.get("recall.rehearsal_weight")
    now = m.clock().timestamp()
    doc_kinds, sub_kinds = _kind_filters(kinds)
    st = vector_state(m)
    out: dict[str, list] = {"vector": [], "cold": []}
    info.setdefault("cold", {"scanned": 0, "truncated": False})
    for root in m.live(scope):
        served = root.store.vector_search(prov.model, q, cand, hnsw_above=int(cfg.get("recall.pg_hnsw_threshold")))
        if served is None:  # scored here: the in-memory matrix (or its ANN index)
            vi = st["index"].setdefault(root.scope, VectorIndex())
            vi.refresh(root.store, prov.model, int(cfg.get("recall.ann_threshold")))
            served = [(vi.refs[i], vi.shas[i], s) for i, s in vi.search(q, cand)]
        found = {"vector": [f for f in served if f[2] >= thr]}
        if len(found["vector"]) < k and cfg.get("recall.cold_budget_ms") > 0:
            cold, ci = cold_scan(root.store, prov.model, q, cand, cfg.get("recall.cold_budget_ms"), cfg.get("recall.cold_max"))
            found["cold"] = [c for c in cold if c[2] >= thr]
            info["cold"]["scanned"] += ci["scanned"]
            info["cold"]["truncated"] |= ci["truncated"]
        refs = [f[0] for lst in found.values() for f in lst]
        if not refs:
            continue
        prior = cfg.get(f"recall.scope_prior_{root.scope}")
        rows = root.store.vector_docs(refs)
        for ch, lst in found.items():
            for ref, sha, sim in lst:
                row = rows.get(ref)
                if row is None or row["content_sha256"] != sha:  # gone, superseded, forgotten or stale
                    continue
                kind = row["note_kind"] if row["kind"] == "note" else row["role"]
                if (doc_kinds and row["kind"] not in doc_kinds) or (sub_kinds and kind not in sub_kinds):
                    continue
                d = rank.decay((now - row["ts_epoch"]) / 86400.0, hl, floor, bool(row["pinned"]), cfg.get("recall.decay_curve"))
                b = rank.rehearsal_boost(row["rehearsals"], rw)
                out[ch].append((sim * prior * d * b, row["ts_epoch"], root, row, sim,
                                {"similarity": round(sim, 4), "prior": prior, "decay": round(d, 4), "rehearsal": round(b, 4)}, kind))
    ranked = {}
    for ch, lst in out.items():
        lst.sort(key=lambda x: (-x[0], -x[1]))
        seen: set[str] = set()
        ranked[ch] = []
        for s, _, root, row, sim, factors, kind in lst:
            if row["ref"] in seen:  # project first on a tie (prior 1.0 vs 0.5)
                continue
            seen.add(row["ref"])
            ranked[ch].append((row["ref"], root, row, s, factors, kind))
    return ranked["vector"], ranked["cold"], {}


def cjk_share(text: str) -> float:
    """Share of CJK characters among the letters of ``text`` (0 when it has none)."""
    from memdir.recall.tokenize import is_cjk_char

    cjk = latin = 0
    for ch in text[:4000]:
        if is_cjk_char(ch):
            cjk += 1
        elif ch.isalpha():
            latin += 1
    return cjk / (cjk + latin) if cjk + latin else 0.0


def _rrf(cfg, lex: list[Hit], vec: list, cold: list, cjk: bool) -> list[tuple[str, float, dict[str, int]]]:
    """RRF over the lexical, vector and cold lists with the configured weights (``recall.weight_*``, ``rrf_k``)."""
    channels = {"vector": [v[0] for v in vec], "lexical": [h.id for h in lex], "cold": [c[0] for c in cold]}
    weights = {"vector": cfg.get("recall.weight_vector"),
               "lexical": cfg.get("recall.weight_lexical_cjk" if cjk else "recall.weight_lexical"),
               "cold": cfg.get("recall.weight_cold")}
    return rrf.fuse(channels, weights, k=int(cfg.get("recall.rrf_k")))


def last_line(query: str) -> str | None:
    """The last non-empty line of a query of two or more such lines (the latest turn of a dialogue, the question
    after pasted context), else None."""
    if not isinstance(query, str) or "\n" not in query:
        return None
    lines = [x.strip() for x in query.splitlines() if x.strip()]
    return lines[-1] if len(lines) >= 2 else None


def bridged_hits(query: str, tokens: list[str], hits: list[Hit], weight: float) -> int:
    """How many of ``hits`` (lexical hits) matched a term the glossary bridged the query to
    (:func:`memdir.recall.glossary.bridge`): a question asked in one language that found memories in the other."""
    if weight <= 0 or not hits:
        return 0
    from memdir.recall import glossary

    bridged = set(glossary.bridge(query, tokens, weight))
    return sum(1 for h in hits if bridged & set(h.reasons.get("terms", ()))) if bridged else 0


def with_context(m: Stores, fused: list, share: float, scope: str | None) -> tuple[list, dict[str, float]]:
    """Fused candidates ``[(ref, score, ranks)]`` re-scored with their session context: a turn gains ``share`` x the
    fused score of its better neighbour (the turn just before or after it in its session) among the candidates, so
    the answer right after a matching question, or the turn around a matching one, rises (bench/results/
    fusion-sweep-e5.md, "session context"). Notes, and turns whose neighbours were not candidates, keep their score.
    Returns the list re-sorted (ties keep their order) and ``{ref: bonus}`` of the turns that gained."""
    score = {ref: s for ref, s, _ in fused}
    nb: dict[str, tuple[str | None, str | None]] = {}
    for root in m.live(scope):
        for ref, pair in root.store.event_neighbours(list(score)).items():
            nb.setdefault(ref, pair)
    bonus: dict[str, float] = {}
    if not nb:
        return fused, bonus
    order = {ref: i for i, (ref, _, _) in enumerate(fused)}
    out = []
    for ref, s, ranks in fused:
        best = max((score.get(x, 0.0) for x in nb.get(ref, ()) if x is not None), default=0.0)
        if best > 0:
            bonus[ref] = share * best
        out.append((ref, s + share * best, ranks))
    out.sort(key=lambda x: (-x[1], order[x[0]]))
    return out, bonus


def recall_fused(m: "Stores | Any", query: str, tokens: list[str], *, k: int, scope: str | None = None,
                 kinds: tuple[str, ...] | None = None, channel: str | None = None) -> tuple[list[Hit], dict[str, Any]]:
    """Recall through ``channel`` (``lexical``, ``vector`` or ``hybrid``; default ``recall.channel``).

    Returns ``(hits, info)``: hits best first (``score`` = RRF score; ``reasons`` gain ``ranks`` per channel and
    ``similarity``), ``info`` = ``{"channel", "provider", "model", "latency_ms": {"backfill", "embed", "lexical",
    "vector", "fuse", "total"}, "cold", "fallback"?}``. Without a usable provider, or when embedding the query
    fails, it falls back to lexical (``info["fallback"]`` says why) — recall never fails for lack of vectors.
    """
    m = stores_of(m)
    cfg = m.config
    channel = channel or cfg.get("recall.channel")
    lat = {"backfill": 0.0, "embed": 0.0, "lexical": 0.0, "vector": 0.0, "fuse": 0.0}
    info: dict[str, Any] = {"channel": channel, "provider": "none", "model": None, "latency_ms": lat}
    t_all = time.perf_counter()
    prov = provider_for(m) if channel != "lexical" else None
    if prov is not None and not modelwait.ready(prov, m, info):  # a hook: a model still loading
        prov = None
    q = None
    if prov is not None:
        info.update(provider=prov.name, model=prov.model)
        t = time.perf_counter()
        budget = float(cfg.get("embed.recall_backfill_ms"))
        # a network provider gets one deadline for all of recall's embedding work (a hanging endpoint must not
        # hold a hook past its budget); the pending memories may use half of it, the query the rest
        limit_s = float(cfg.get("embed.recall_deadline_ms")) / 1000
        if hasattr(prov, "deadline"):
            budget = min(budget, limit_s * 500)
        if budget > 0 and any(r.store.vector_pending_exists(prov.model) for r in m.live(scope)):
            try:
                with embed.deadline(prov, budget / 1000):
                    info["backfill"] = backfill(m, budget_ms=budget, provider=prov, lock_timeout=0)
            except Exception as exc:
                info["backfill"] = {"error": str(exc)}
        lat["backfill"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        try:
            last = last_line(query) if cfg.get("recall.query_last_line") else None
            with embed.deadline(prov, max(0.0, limit_s - lat["backfill"] / 1000)):
                if last is None:
                    q = _np().asarray(embed.embed_query(prov, sendable(query)), dtype="float32").reshape(-1)
                else:  # the mean of the two query vectors: a memory's similarity is the mean of its two similarities
                    fn = getattr(prov, "embed_query", None) or prov.embed
                    both = _np().asarray(fn([sendable(query), sendable(last)]), dtype="float32")
                    q = both.mean(axis=0)
                    info["query_lines"] = "whole + last line"
            embed.worked(prov.model)
        except Exception as exc:
            info["fallback"] = f"query embedding failed: {exc}"
            embed.say_failure(prov.model, "memdir: %s; lexical recall only", info["fallback"])
        lat["embed"] = (time.perf_counter() - t) * 1000
        if q is not None:
            for r in m.live(scope):  # a new vector length makes the stored ones stale (case C21)
                try:
                    if r.store.vector_dim(prov.model) not in (None, q.shape[0]):
                        with r.locked(timeout=1):
                            r.store.vector_note_dim(prov.model, int(q.shape[0]))
                        info["dim_changed"] = int(q.shape[0])
                except Exception as exc:  # a busy store: the old-length vectors are skipped by the search anyway
                    log.debug("vector length change not recorded: %s", exc)
    elif channel != "lexical" and "fallback" not in info:
        info["fallback"] = vector_state(m)["provider_error"] or "embed.provider is none"
        if info["fallback"] not in _SAID:  # once a process: a setting that does nothing is said, not repeated
            _SAID.add(info["fallback"])
            log.warning("memdir: recall.channel is %s but %s; lexical recall only (memdir doctor says how to set a "
                        "provider)", channel, info["fallback"])
    use_vec = q is not None
    t = time.perf_counter()
    lex: list[Hit] = []
    if channel == "lexical" or channel == "hybrid" or not use_vec:
        cand = max(int(cfg.get("recall.vector_candidates")), k) if use_vec else k
        # fused with a vector channel, the lexical one leaves out the query's Han unigrams (memdir.core: MADial zh
        # hybrid R@3 / MRR@10 0.551 / 0.678 without, 0.507 / 0.677 with; lexical alone they gain R@5 0.529 -> 0.548)
        lex = lexical.lexical(m, tokens, k=cand, scope=scope, kinds=kinds, query=query, unigrams=not use_vec) if tokens else []
    lat["lexical"] = (time.perf_counter() - t) * 1000
    if not use_vec:
        lat["total"] = (time.perf_counter() - t_all) * 1000
        for i, h in enumerate(lex[:k], 1):
            h.reasons["ranks"] = {"lexical": i}
        return lex[:k], info
    t = time.perf_counter()
    vec, cold, _ = _vector_channel(m, prov, q, k=k, scope=scope, kinds=kinds, info=info)
    lat["vector"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    # fuse by script: a mostly-CJK query leans more on a multilingual model (an English-only model, e.g. MiniLM, keeps
    # the lexical weight: it hurt Chinese at any weight)
    cjk = bool(getattr(prov, "multilingual", False)) and cjk_share(query) >= 0.5
    info["script"] = "cjk" if cjk else "latin"
    fusion = cfg.get("recall.fusion")
    if fusion == "auto":  # convex where it was measured better (multilingual models), RRF elsewhere (MiniLM's tables)
        fusion = "convex" if getattr(prov, "multilingual", False) else "rrf"
    info["fusion"] = fusion
    if fusion == "convex":  # normalised scores: lexical score / its best, vector score (cosine x priors) min-max
        long_q = len(set(tokens)) >= int(cfg.get("recall.long_query_terms"))
        info["query_length"] = "long" if long_q else "short"
        share = float(cfg.get("recall.vector_share_cjk" if cjk else
                              "recall.vector_share_long" if long_q else "recall.vector_share"))
        if cjk and bridged_hits(query, tokens, lex[:10], float(cfg.get("recall.bridge_weight"))):
            # asked across languages: the glossary's match leads (recall.vector_share_bridged)
            info["bridged"] = True
            share = min(share, float(cfg.get("recall.vector_share_bridged")))
        fused = rrf.convex({"lexical": [(h.id, h.score) for h in lex], "vector": [(v[0], v[3]) for v in vec],
                            "cold": [(c[0], c[3]) for c in cold]},
                           {"lexical": 1.0 - share, "vector": share, "cold": share * cfg.get("recall.weight_cold")},
                           minmax=("vector", "cold"))
        mix = 0.0 if cjk or long_q else float(cfg.get("recall.rank_share"))
        if mix > 0:  # short Latin-script query: the rank fusion leads, the scores separate near-ties
            info["rank_share"] = mix
            fused = rrf.blend(_rrf(cfg, lex, vec, cold, cjk), fused, 1.0 - mix)
    else:
        fused = _rrf(cfg, lex, vec, cold, cjk)
    share = float(cfg.get("recall.context_share"))
    context: dict[str, float] = {}
    if share > 0 and fused and channel == "hybrid":  # vector alone: turn R@10 up, session R@10 down (not measured better)
        fused, context = with_context(m, fused, share, scope)
    by_lex = {h.id: h for h in lex}
    by_vec = {v[0]: v for v in (*cold, *vec)}  # vec wins over cold for the same ref
    hits: list[Hit] = []
    for ref, score, ranks in fused[:k]:
        v = by_vec.get(ref)
        if ref in by_lex:
            h = by_lex[ref]
            reasons = dict(h.reasons)
            if v is not None:
                reasons["similarity"] = v[4]["similarity"]
        else:
            _, root, row, _s, factors, kind = v
            h = lexical.hit(m, root, row, score, tokens, factors, kind)
            reasons = dict(h.reasons)
        reasons.update(ranks=ranks, **{"rrf" if fusion == "rrf" else "fused": round(score, 6)})
        if ref in context:
            reasons["context"] = round(context[ref], 6)
        hits.append(dataclasses.replace(h, score=score, reasons=reasons))
    lat["fuse"] = (time.perf_counter() - t) * 1000
    lat["total"] = (time.perf_counter() - t_all) * 1000
    return hits, info


def explain(m: "Stores | Any", query: str, *, k: int | None = None, scope: str | None = None,
            kinds: Iterable[str] | None = None, channel: str | None = None) -> dict[str, Any]:
    """Recall with the working shown: ``{"query", "channel", "provider", "model", "latency_ms" (backfill, embed,
    lexical, vector, fuse, total — ms), "cold", "hits": [{"id", "scope", "kind", "score", "ranks",
    "similarity", "bm25"}]}``. Never rehearses."""
    m = stores_of(m)
    from memdir.recall.tokenize import query_tokens

    from memdir.engine.curated import check_kinds
    from memdir.errors import count_arg, items_arg

    k = int(m.config.get("recall.k")) if k is None else count_arg(k, "k", zero="0 gives no hits")  # as recall reads it
    if kinds := items_arg(kinds, "kinds"):
        check_kinds(m, kinds, scope)  # a typo would read as "nothing found", as in recall
    tokens = query_tokens(query, repeats=True) if isinstance(query, str) else []
    hits, info = recall_fused(m, query if isinstance(query, str) else "", tokens, k=k, scope=scope,
                              kinds=tuple(kinds) if kinds else None, channel=channel)
    info["latency_ms"] = {key: round(v, 3) for key, v in info["latency_ms"].items()}
    info["query"] = query
    info["hits"] = [{"id": h.id, "scope": h.scope, "kind": h.kind, "score": round(h.score, 6),
                     "ranks": h.reasons.get("ranks", {}), "similarity": h.reasons.get("similarity"),
                     "bm25": h.reasons.get("bm25")} for h in hits]
    return info
