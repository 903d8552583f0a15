"""BM25 over the FTS5 index, with Lucene's always-positive idf.

FTS5's built-in ``bm25()`` uses ``idf = ln((N - n + 0.5) / (n + 0.5))`` clamped to 1e-6, so any term in more than
half of the documents counts for nothing — in a small store (tens of notes) that is most terms, and ranking collapses
into ties. We keep FTS5 for what it does well (postings, per-column term frequencies, length normalisation, the
column weights) and swap the idf:

    score(d, q) = Σ_{t ∈ q} √qtf(t) · idf(t) · tf_part(t, d)
    idf(t)      = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))                 (Lucene's BM25 idf; Robertson & Zaragoza 2009)
    tf_part     = f(t,d)·(k1 + 1) / (f(t,d) + k1·(1 - b + b·|d|/avgdl)), k1 = 1.2, b = 0.75 (FTS5's constants),

where ``qtf(t)`` counts ``t`` in the query (``tokens`` may repeat a term: a term the user says again weighs more,
damped by the square root — measured with the subject boost on: raw / √ / once, LoCoMo turn R@10 0.741 / 0.752 / –,
MADial zh R@5 0.502 / 0.522 / 0.520, en 0.506 / 0.503 / 0.475, MRR@10 en 0.549 / 0.579 / 0.515), ``f(t,d)`` is the column-weighted count of ``t`` in ``d``. ``tf_part`` is recovered exactly from a one-term FTS5
query: ``-bm25() / idf_fts5(t)``. Measured on MADial-Bench (dev, recall@5): zh 0.437 → 0.451, en 0.405 → 0.472 in a
plain-Python replica of both formulas.

Long queries are cut to the ``max_terms`` rarest terms. In large stores (``N >= 2,000``) terms found in more than
``COMMON_FRACTION`` of the documents are skipped unless nothing else is left, and terms are taken rarest first until
``POSTINGS_BUDGET`` postings have been scored — the top-k is then an approximation that favours the rare, telling
terms (measured in bench/results/speed.md). Stores below 2,000 documents are scored exactly.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections import defaultdict

MAX_TERMS = 32
COMMON_FRACTION = 0.25
LARGE_STORE = 2000
PER_TERM_CAP = 5000  # postings read per term; beyond it, the top by tf_part
POSTINGS_BUDGET = 40_000  # postings scored per query in large stores; rarer terms are taken first


def idf_lucene(N: int, n: int) -> float:
    """``ln(1 + (N - n + 0.5) / (n + 0.5))`` — positive for every n ≤ N."""
    return math.log(1.0 + (N - n + 0.5) / (n + 0.5))


def idf_fts5(N: int, n: int) -> float:
    """FTS5's idf: ``ln((N - n + 0.5) / (n + 0.5))``, clamped to 1e-6 (sqlite/ext/fts5/fts5_aux.c)."""
    v = math.log((N - n + 0.5) / (n + 0.5))
    return v if v > 0 else 1e-6


def doc_freqs(db: sqlite3.Connection, tokens: list[str]) -> dict[str, int]:
    """Documents containing each token (from the ``fts_vocab`` table); tokens found nowhere are left out."""
    out = {}
    for t in tokens:
        row = db.execute("SELECT doc FROM fts_vocab WHERE term = ?", (t,)).fetchone()
        if row and row[0]:
            out[t] = row[0]
    return out


def select_terms(df: dict[str, int], N: int, *, max_terms: int = MAX_TERMS) -> list[str]:
    """The query terms worth scoring: rarest first, at most ``max_terms``, common ones dropped in large stores."""
    ranked = sorted(df, key=lambda t: (df[t], t))
    if N >= LARGE_STORE:
        kept = [t for t in ranked if df[t] <= COMMON_FRACTION * N]
        ranked = kept or ranked[:1]
        budget, out = 0, []
        for t in ranked[:max_terms]:
            if out and budget + min(df[t], PER_TERM_CAP) > POSTINGS_BUDGET:
                break
            out.append(t)
            budget += min(df[t], PER_TERM_CAP)
        return out
    return ranked[:max_terms]


def score(db: sqlite3.Connection, tokens: list[str], *, weights: tuple[float, ...], limit: int) -> list[tuple[int, float]]:
    """``[(rowid, score)]`` best first, at most ``limit``; empty when no token occurs in the index."""
    N = db.execute("SELECT count(*) FROM fts_docsize").fetchone()[0]  # FTS5 shadow table: one small row per doc
    if not N:
        return []
    qtf: dict[str, int] = {}
    for t in tokens:
        qtf[t] = qtf.get(t, 0) + 1
    df = doc_freqs(db, list(qtf))
    terms = select_terms(df, N)
    w = ",".join(repr(float(x)) for x in weights)
    acc: dict[int, float] = defaultdict(float)
    for t in terms:
        n = df[t]
        phrase = '"' + t.replace('"', '""') + '"'
        scale = math.sqrt(qtf[t]) * idf_lucene(N, n) / idf_fts5(N, n)
        if n <= PER_TERM_CAP:
            rows = db.execute(f"SELECT rowid, bm25(fts, {w}) FROM fts WHERE fts MATCH ?", (phrase,))
        else:
            rows = db.execute(f"SELECT rowid, bm25(fts, {w}) AS r FROM fts WHERE fts MATCH ? ORDER BY r LIMIT {PER_TERM_CAP}", (phrase,))
        for rowid, raw in rows:
            acc[rowid] += -raw * scale
    return heapq.nlargest(limit, acc.items(), key=lambda kv: kv[1])
