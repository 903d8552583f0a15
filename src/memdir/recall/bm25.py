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

Long queries are cut to the ``max_terms`` rarest terms (:data:`MAX_TERMS`; :data:`MAX_TERMS_SMALL` in stores below
2,000 documents, where each term is one cheap scan — MADial zh R@5 0.522 → 0.529 at 48 or more, other rows unchanged,
since their questions have fewer than 32 terms). In large stores (``N >= 2,000``) terms found in more than
``COMMON_FRACTION`` of the documents are skipped unless nothing else is left, and terms are taken rarest first until
``POSTINGS_BUDGET`` postings have been scored, and a term in more than ``PER_TERM_CAP`` documents adds its newest
``PER_TERM_CAP`` postings only — the top-k is then an approximation that favours the rare, telling terms and the
recent end of the common ones (measured in bench/results/speed.md). Stores below 2,000 documents are scored exactly.
All of it is one SQL statement (:func:`score`): FTS5 reads the postings, SQLite sums and cuts them.
"""

from __future__ import annotations

import math
import sqlite3

#: FTS5's BM25 constants (sqlite/ext/fts5/fts5_aux.c): the SQLite path uses them through ``bm25()``, the postings held in
#: memory (memdir.store.sqlite.postings) and the PostgreSQL store score with these
K1, B = 1.2, 0.75
MAX_TERMS = 32
MAX_TERMS_SMALL = 64  # stores below LARGE_STORE documents (a long prompt or dialogue keeps more of its terms)
COMMON_FRACTION = 0.25
LARGE_STORE = 2000
PER_TERM_CAP = 2000  # postings read per term in large stores; beyond it, the newest (FTS5 stops early)
POSTINGS_BUDGET = 10_000  # postings scored per query in large stores; rarer terms are taken first
#: large stores: an added term (weighed below 1: a Han unigram, a glossary word of the other language) is scored
#: only when at most this share of the documents holds it, and the added terms together read at most
#: ADDED_POSTINGS postings — frequent added terms cost the most postings and, with their low idf, move the least
ADDED_COMMON_FRACTION = 0.02
ADDED_POSTINGS = 2_000


def idf_lucene(N: int, n: int) -> float:
    """``ln(1 + (N - n + 0.5) / (n + 0.5))`` — positive for every n ≤ N."""
    return math.log(1.0 + (N - n + 0.5) / (n + 0.5))


def collection_idf(N: int, n: int, term: str, collection: tuple[int, dict[str, int]] | None) -> float:
    """:func:`idf_lucene` of ``term`` from ``collection`` — ``(rows, {token: rows holding it})`` of every index one
    ranking spans, this one included (the project's and the global root's) — else from this index's own ``N`` and
    ``n``. Scores of two indexes are comparable only with the same statistics: a global root of a few notes gave its
    words an idf near ``ln 2`` against the project's hundreds of events, so a curated preference ranked below any
    event sharing a word (the "global term statistics" of a distributed search, as Elasticsearch's
    ``dfs_query_then_fetch``)."""
    if collection is None:
        return idf_lucene(N, n)
    rows, df = collection
    return idf_lucene(max(rows, N), max(df.get(term, 0), n))


def idf_fts5(N: int, n: int) -> float:
    """FTS5's idf: ``ln((N - n + 0.5) / (n + 0.5))``, clamped to 1e-6 (sqlite/ext/fts5/fts5_aux.c). Also 1e-6 when
    ``n`` exceeds ``N`` by more than a half: a concurrent writer can add documents between the two counts (C40),
    and the logarithm of a non-positive number must not fail a recall."""
    x = (N - n + 0.5) / (n + 0.5)
    if x <= 0:
        return 1e-6
    v = math.log(x)
    return v if v > 0 else 1e-6


def doc_freqs(db: sqlite3.Connection, tokens: list[str]) -> dict[str, int]:
    """Documents containing each token (from the ``fts_vocab`` table); tokens found nowhere are left out."""
    out = {}
    for t in tokens:
        row = db.execute("SELECT doc FROM fts_vocab WHERE term = ?", (t,)).fetchone()
        if row and row[0]:
            out[t] = row[0]
    return out


def query_doc_freqs(db: sqlite3.Connection, tokens: list[str], N: int, *,
                    term_weights: dict[str, float] | None = None) -> dict[str, int]:
    """:func:`doc_freqs` as :func:`select_terms` needs them: the same terms chosen, for less. In large stores an
    added term (weighed below 1) is looked up only after the query's own words are chosen, and only as far as it
    could still be taken: its documents are counted up to the bound :func:`select_terms` applies to it
    (:data:`ADDED_COMMON_FRACTION` of the documents, or the postings left of :data:`ADDED_POSTINGS` when fewer),
    by a ``LIMIT``-ed FTS5 match that stops there, and a term above it is left out (it could not be chosen; its
    exact count, from ``fts_vocab``, walks its whole postings list: most Han unigrams are in thousands of
    documents at 100k items). A term under the bound gets its exact count. When none of the query's own words
    is in the index every term is counted exactly (the rarest added term is taken then, whatever its count)."""
    low = [t for t in tokens if term_weights and term_weights.get(t, 1.0) < 1.0]
    if N < LARGE_STORE or not low:
        return doc_freqs(db, tokens)
    lows = set(low)
    df = doc_freqs(db, [t for t in tokens if t not in lows])
    own = select_terms(df, N, term_weights=term_weights)
    if not own:
        df.update(doc_freqs(db, low))
        return df
    budget = sum(min(df[t], PER_TERM_CAP) for t in own)
    room = min(POSTINGS_BUDGET, budget + ADDED_POSTINGS) - budget  # what the added terms may still read
    bound = math.floor(ADDED_COMMON_FRACTION * N)
    if room < min(bound, PER_TERM_CAP):  # a term in more than ``room`` documents would not fit
        bound = room
    if bound < 1:
        return df
    for t in low:
        n = db.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                       ('"' + t.replace('"', '""') + '"', bound + 1)).fetchone()[0]
        if 0 < n <= bound:
            df.update(doc_freqs(db, [t]))  # exact, as fts_vocab counts it (cheap: few postings)
    return df


def select_terms(df: dict[str, int], N: int, *, max_terms: int | None = None,
                 term_weights: dict[str, float] | None = None) -> list[str]:
    """The query terms worth scoring: rarest first, at most ``max_terms`` (default :data:`MAX_TERMS`, or
    :data:`MAX_TERMS_SMALL` below :data:`LARGE_STORE` documents), common ones dropped in large stores.

    Terms that ``term_weights`` weighs below 1 (a query's Han unigrams, the glossary's cross-language terms, its Han
    bigrams with one function character) are
    chosen after the full-weight ones, by the same rules with their own ``max_terms`` and what is left of the
    postings budget: they add to the query's own words and never take their place. In large stores they are
    held to a stricter cut (:data:`ADDED_COMMON_FRACTION` of the documents, :data:`ADDED_POSTINGS` postings in
    all): measured in ``bench/speed.py``, unbounded they made recall at 10k items 1.7x slower."""
    if max_terms is None:
        max_terms = MAX_TERMS if N >= LARGE_STORE else MAX_TERMS_SMALL
    low = {t for t in df if term_weights and term_weights.get(t, 1.0) < 1.0}
    out: list[str] = []
    budget = 0
    for added, group in ((False, [t for t in df if t not in low]), (True, [t for t in df if t in low])):
        ranked = sorted(group, key=lambda t: (df[t], t))
        if N < LARGE_STORE:
            out += ranked[:max_terms]
            continue
        kept = [t for t in ranked if df[t] <= (ADDED_COMMON_FRACTION if added else COMMON_FRACTION) * N]
        ranked = kept or (ranked[:1] if not out else [])
        cap = min(POSTINGS_BUDGET, budget + ADDED_POSTINGS) if added else POSTINGS_BUDGET
        for t in ranked[:max_terms]:
            if out and budget + min(df[t], PER_TERM_CAP) > cap:
                break
            out.append(t)
            budget += min(df[t], PER_TERM_CAP)
    return out


def _varint(b: bytes) -> int:
    """An SQLite varint (big-endian 7-bit groups, a ninth byte of 8 bits) at the start of ``b``."""
    v = 0
    for i, byte in enumerate(b[:9]):
        if i == 8:
            return (v << 8) | byte
        v = (v << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return v
    raise ValueError("truncated varint")


def total_docs(db: sqlite3.Connection) -> int:
    """Rows in the FTS index, read from FTS5's "averages" record (``fts_data`` id 1, a varint row count then the
    per-column token totals; sqlite/ext/fts5/fts5_index.c): constant time, where ``count(*)`` over
    ``fts_docsize`` reads a row per document (tens of ms at 1M). Falls back to that count."""
    row = db.execute("SELECT block FROM fts_data WHERE id = 1").fetchone()
    if row is not None and isinstance(row[0], bytes) and row[0]:
        try:
            return _varint(row[0])
        except ValueError:
            pass
    return db.execute("SELECT count(*) FROM fts_docsize").fetchone()[0]


#: query terms a hit's match mask has a bit for (the rest count as matched wherever the mask is read)
MASK_TERMS = 62


def score(db: sqlite3.Connection, tokens: list[str], *, weights: tuple[float, ...], limit: int,
          with_terms: bool = False, term_weights: dict[str, float] | None = None,
          collection: tuple[int, dict[str, int]] | None = None) -> list[tuple]:
    """``[(rowid, score)]`` best first, at most ``limit``; empty when no token occurs in the index. With
    ``with_terms``, ``[(rowid, score, mask)]`` where bit ``i`` of ``mask`` is set when the document matched
    ``tokens[i]`` (in any column).

    One SQL statement: a ``UNION ALL`` of one FTS5 query per selected term (``bm25()`` × the Lucene/FTS5 idf
    ratio), summed per document by ``GROUP BY`` and cut by ``ORDER BY … LIMIT`` inside SQLite — no Python loop
    over postings. In large stores a term in more than :data:`PER_TERM_CAP` documents contributes its newest
    ``PER_TERM_CAP`` postings (``ORDER BY rowid DESC LIMIT``, which FTS5 stops early), the recent end of its
    postings, as recall's decay prefers anyway; smaller stores are scored exactly. ``term_weights`` multiplies a
    term's weight (``{token: factor}``, 1 for a term not in it): the glossary's cross-language terms
    (:func:`memdir.recall.glossary.bridge`) count less than the query's own words. ``collection``: the statistics
    idf is taken from when several indexes are ranked together (:func:`collection_idf`).
    """
    N = total_docs(db)
    if not N:
        return []
    qtf: dict[str, int] = {}
    for t in tokens:
        qtf[t] = qtf.get(t, 0) + 1
    df = query_doc_freqs(db, list(qtf), N, term_weights=term_weights)
    terms = select_terms(df, N, term_weights=term_weights)
    if not terms:
        return []
    w = ",".join(repr(float(x)) for x in weights)
    bit: dict[str, int] = {}
    for i, t in enumerate(tokens[:MASK_TERMS]):  # a repeated term keeps the bit of its first place
        bit.setdefault(t, 1 << i)
    parts: list[str] = []
    args: list[object] = []
    for t in terms:
        n = df[t]
        sel = f"SELECT rowid AS id, bm25(fts, {w}) * ? AS s, {bit.get(t, 0)} AS b FROM fts WHERE fts MATCH ?"
        if N >= LARGE_STORE and n > PER_TERM_CAP:
            sel = f"SELECT * FROM ({sel} ORDER BY rowid DESC LIMIT {PER_TERM_CAP})"
        parts.append(sel)
        tw = term_weights.get(t, 1.0) if term_weights else 1.0
        args += [-tw * math.sqrt(qtf[t]) * collection_idf(N, n, t, collection) / idf_fts5(N, n),
                 '"' + t.replace('"', '""') + '"']
    if len(parts) == 1:  # one term: a row occurs once, nothing to sum
        sql = f"SELECT id, s AS score, b FROM ({parts[0]}) ORDER BY score DESC, id LIMIT ?"
    else:
        # a compound sub-select is never flattened into an aggregate (SQLite's flattening rule 17), so bm25() runs in
        # its own FTS5 scan as a co-routine; a MATERIALIZED CTE gives the same rows ~0.7 ms slower at 3,600 postings
        sql = (f"SELECT id, sum(s) AS score, sum(b) FROM ({' UNION ALL '.join(parts)}) "
               "GROUP BY id ORDER BY score DESC, id LIMIT ?")
    cur = db.cursor()
    cur.row_factory = None  # tuples, not sqlite3.Row objects made and copied again
    rows = cur.execute(sql, (*args, int(limit))).fetchall()
    return rows if with_terms else [(r[0], r[1]) for r in rows]
