"""Lexical recall over the two roots: query terms, BM25 candidates per root, the one ranking
(:func:`memdir.recall.rank.rank_candidates`), project wins over global, and the hits with their reasons.
"""

from __future__ import annotations

import json
from typing import Any

from memdir.capture import events as cevents
from memdir.capture.evidence import failure_lines
from memdir.errors import MemdirError
from memdir.inject import entries as inject_entries
from memdir.inject.kinds import answers, question_kind
from memdir.lazylog import DEBUG, getLogger
from memdir.recall import glossary, rank
from memdir.recall.bm25 import MASK_TERMS
from memdir.recall.tokenize import terms_in, tokenize
from memdir.store.rows import event_labels
from memdir.stores import Stores
from memdir.timeutil import iso, parse_ts
from memdir.types import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memdir.engine.root import Root

log = getLogger("memdir")  # imports logging only when a record can go somewhere


def resync(s: Stores) -> None:
    """Mirror notes edited or deleted on disk since this process last looked (case C20): :meth:`Stores.look`."""
    s.look()


def lexical(s: Stores, tokens: list[str], *, k: int, scope: str | None, kinds: tuple[str, ...] | None,
             query: str = "", unigrams: bool = True) -> list[Hit]:
    cfg = s.config
    weights = (cfg.get("recall.weight_tags"), cfg.get("recall.weight_title"), cfg.get("recall.weight_body"),
               cfg.get("recall.weight_context"))
    limit = max(cfg.get("recall.candidates"), k * 3)
    doc_kinds = tuple(x for x in (kinds or ()) if x in ("note", "event")) or None
    sub_kinds = set(x for x in (kinds or ()) if x not in ("note", "event"))
    # added at reduced weights (memdir.recall.glossary.query_terms): the characters of the query's Han runs (赛跑 meets
    # 跑步) and the other language's words for its glossary words; Chinese closed-class words left out and
    # half-function bigrams weighed down. The Han changes apply to lexical recall alone: beside a fused vector
    # channel (``unigrams=False``) the model does that matching (MADial zh hybrid e5 R@3 0.551 -> 0.507 with the
    # unigrams, 0.551 -> 0.531 with the closed-class words and half-function bigrams)
    tokens, bridged = glossary.query_terms(
        query, tokens, bridge_weight=float(cfg.get("recall.bridge_weight")),
        unigram_weight=float(cfg.get("recall.cjk_unigram_weight")) if unigrams else 0.0,
        function_weight=float(cfg.get("recall.cjk_function_bigram_weight")) if unigrams else 1.0,
        stop_words=unigrams)
    mem = cfg.get("recall.memory_index")
    hold = mem == "on" or (mem == "auto" and s.state.get("warm", False))
    roots = s.live(scope)
    collection = collection_stats(roots, tokens)
    groups = []
    for root in roots:
        if hold:  # a server builds them in a thread (the SQL path answers meanwhile); "on" builds them now
            root.store.hold_postings(int(cfg.get("recall.memory_index_max_rows")), background=mem != "on")
        groups.append((cfg.get(f"recall.scope_prior_{root.scope}"),
                       root.store.candidates(tokens, weights=weights, limit=limit, kinds=doc_kinds,
                                             term_weights=bridged or None, collection=collection), sub_kinds))
    # the one ranking code (memdir.recall.rank.rank_candidates): the team server ranks its rows with it too
    scored = [(s, ts, roots[g], info) for s, ts, g, info in rank.rank_candidates(groups, query=query, cfg=cfg,
                                                                                  now=s.clock())]
    fail = float(cfg.get("recall.fail_prior"))
    # a "why did it fail" question: the failed calls among a wider pool are weighed up (their text says so, the
    # 60-char head a candidate carries does not, so the pool's whole rows are read)
    pool = max(k, FAIL_POOL) if fail != 1.0 and query and question_kind(query) == "fail" else k
    top: list[tuple[float, Root, Any]] = []
    seen: set[str] = set()
    for s, _, root, info in scored:
        if info[0]["ref"] in seen:  # project wins: it is scored with prior 1.0 and so comes first on a tie
            continue
        seen.add(info[0]["ref"])
        top.append((s, root, info))
        if len(top) >= pool:
            break
    full: dict[tuple[str, int], Any] = {}
    for root in {id(r): r for _, r, _ in top}.values():  # whole rows for the hits only
        for i, r in root.store.hit_rows({info[0]["id"]: info[0]["span"] for _, rt, info in top if rt is root},
                                        terms=tokens).items():
            full[(root.scope, i)] = r
    if pool > k:
        top = failed_first(top, full, fail)[:k]
    hits: list[Hit] = []
    for s, root, (row, prior, d, b, kind, f) in top:
        whole = full.get((root.scope, row["id"]))
        if whole is None:  # deleted between the two reads
            continue
        hits.append(hit(s, root, whole, s, tokens, {"bm25": round(row["bm25"], 4), "prior": prior,
                                                       "decay": round(d, 4), "rehearsal": round(b, 4), **f}, kind,
                              mask=row.get("mask")))
    if log.isEnabledFor(DEBUG):
        for h in hits:
            log.debug("recall %r -> %s %.4f %s", cevents.redact_text(" ".join(tokens)[:200]), h.id, h.score,
                      {k: v for k, v in h.reasons.items() if k not in ("terms", "fields")})
    return hits


def collection_stats(roots: list["Root"], tokens: list[str]) -> tuple[int, dict[str, int]] | None:
    """``(rows, {token: rows holding it})`` of ``roots`` together when more than one holds rows, else ``None``: the
    project's and the global root's candidates are ranked together, so both are scored with the idf of the two
    together (:func:`memdir.recall.bm25.collection_idf`). Only the tokens the smaller index holds are counted in the
    larger one (a token absent from it adds nothing there, and :func:`~memdir.recall.bm25.collection_idf` takes a
    token the sum does not name from the index scoring it): a recall beside a global root of a few notes looks up a
    few words in the project's index, not every word of the query."""
    if len(roots) < 2:
        return None
    want = list(dict.fromkeys(tokens))
    sizes = [(root.store.doc_freqs([])[0], i) for i, root in enumerate(roots)]
    if sum(1 for n, _ in sizes if n) < 2:
        return None
    order = [i for _, i in sorted(sizes)]  # smallest index first
    total = sum(n for n, _ in sizes)
    df: dict[str, int] = {}
    for i in order:
        got = roots[i].store.doc_freqs(want)[1] if want else {}
        for t, c in got.items():
            df[t] = df.get(t, 0) + c
        want = [t for t in want if t in df]  # the larger ones: only what a smaller one holds
    return total, df


#: lexical candidates a "why did it fail" question reweighs (recall.fail_prior): block-QA tuning half, 20 against 12,
#: 24, 36 and 48 (docs/benchmarks.md)
FAIL_POOL = 20


#: lines of a user turn read for a pasted failure (:func:`failed`)
FAILURE_SCAN_LINES = 200


def failed(role: str, text: str) -> bool:
    """True for what a "why did it fail" question looks for: a failed tool call (its summary reads ``→ error``,
    :func:`memdir.inject.kinds.answers`) or a user turn with a line, among its first :data:`FAILURE_SCAN_LINES`, that
    reads as a failure (:func:`memdir.capture.evidence.failure_lines`: an error line, a failing test, a line saying
    something fails — a user asking why it fails matches too): Aider and pasted histories keep the error in the
    user's turn, not in a tool call."""
    if role == "tool":
        return answers("fail", text)
    if role == "user":
        return bool(failure_lines([x for x in text.splitlines()[:FAILURE_SCAN_LINES] if x.strip()]))
    return False


def failed_first(top: list[tuple[float, Any, Any]], full: dict[tuple[str, int], Any], weight: float):
    """``top`` (``[(score, root, (row, prior, decay, boost, kind, factors))]``) re-sorted with the score of each failed
    tool call or user turn pasting a failure (:func:`failed` on its whole row in ``full``, keyed ``(scope, id)``)
    times ``weight``, recorded as the ``fail`` factor; a stable sort, so the others keep their order."""
    out = []
    for s, root, info in top:
        whole = full.get((root.scope, info[0]["id"]))
        if whole is not None and failed(info[4], whole["text"]):
            info[5]["fail"] = weight
            s *= weight
        out.append((s, root, info))
    out.sort(key=lambda x: -x[0])
    return out


def hit(s: Stores, root: Root, row, score: float, tokens: list[str], factors: dict[str, float], kind: str,
         mask: int | None = None) -> Hit:
    # ``mask``: the query terms this row matched in the index (bit i = tokens[i]); only those are looked for
    qset = set(tokens) if mask is None else {t for i, t in enumerate(tokens) if i >= MASK_TERMS or mask >> i & 1}
    fields: dict[str, list[str]] = {}
    held = inject_entries.row_get(row, "fields")  # from the postings held in memory: which terms each column holds
    if qset and held is not None:
        fields = {f: sorted(qset & held[f]) for f in ("tags", "title", "body")}
        fields = {f: v for f, v in fields.items() if v}
        near = sorted((qset & held.get("context", set())) - {t for v in fields.values() for t in v})
        if near:  # matched in its neighbouring turns alone
            fields["context"] = near
    elif qset:
        if row["kind"] == "event":  # an imported record's own tags and title (memdir.store.rows.event_labels)
            tag_t, title_t = (x.split() for x in event_labels(inject_entries.row_get(row, "meta")))
        else:
            tags = json.loads(row["tags"] or "[]") + json.loads(row["load_when"] or "[]")
            tag_t = tokenize(" ".join(tags)) if tags else []
            title_t = tokenize(" ".join(x for x in (row["summary"], row["highlight"]) if x))
        fields = {
            "tags": sorted(qset & set(tag_t)),
            "title": sorted(qset & set(title_t)),
            "body": sorted(terms_in(inject_entries.matched_text(row), qset)),
        }
        fields = {f: v for f, v in fields.items() if v}
        if mask is not None and row["kind"] == "event":  # matched in the index, in none of its own fields: its neighbours
            known = {t for i, t in enumerate(tokens[:MASK_TERMS]) if mask >> i & 1}  # the mask's bits, not the terms past them
            near = sorted(known - {t for v in fields.values() for t in v})
            if near:
                fields["context"] = near
    # the terms the memory itself holds; ``fields["context"]``: those only its neighbouring turns hold (recall's
    # context weight), shown by --explain
    held_terms = {t for f, v in fields.items() if f != "context" for t in v}  # a set: a pasted log has 10k+ terms
    terms = [t for t in dict.fromkeys(tokens) if t in held_terms]
    reasons = {"terms": terms, "fields": fields, "scope": root.scope, **factors}
    ts = parse_ts(row["ts"])
    return Hit(id=row["ref"], key=row["ref"], kind=kind, scope=root.scope, score=score, text=row["text"],
               reasons=reasons, summary=row["summary"], ts=ts, pinned=bool(row["pinned"]), category=row["category"],
               session=row["session"], handle=inject_entries.row_get(row, "handle"), span=inject_entries.row_get(row, "span"))


def rehearse(s: Stores, hits: list[Hit]) -> None:
    """Count ``hits`` as shown (the rehearsal prior). Best effort and never waits: when another process holds a
    root's write lock (a long ``memdir import``) the count is skipped there, so a prompt hook's block is not held
    until its budget runs out (the hostile day, ``bench/hostile_day.py``)."""
    when = iso(s.clock())
    for root in s.live():
        refs = [h.id for h in hits if h.scope == root.scope]
        if refs:
            try:
                with root.locked(timeout=0), root.store.transaction() as st:
                    st.bump_rehearsal(refs, when)
            except Exception as exc:  # a busy store must not fail a recall
                log.debug("rehearsal not recorded: %s", exc)
