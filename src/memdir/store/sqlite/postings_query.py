"""Answering from the held postings (:class:`memdir.store.sqlite.postings.MemIndex`): BM25 scores equal to FTS5's to
the last bit, each term's document frequency, the hits' ranking columns, passages and matched fields, and the arrays'
figures. :class:`Queries` only reads the arrays :class:`~memdir.store.sqlite.postings.MemIndex` builds and keeps
current (its one state of its own is the ``_tables`` cache of weighted sums); ``MemIndex`` inherits it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from memdir.recall import bm25
from memdir.store.sqlite.postings_rows import NCOL

K1, B = bm25.K1, bm25.B  # FTS5's constants (memdir.recall.bm25)
_K1P1 = K1 + 1.0
_OMB = 1 - B


class Queries:
    """The reading half of :class:`memdir.store.sqlite.postings.MemIndex` (see this module's doc); call its
    :meth:`~memdir.store.sqlite.postings.MemIndex.refresh` first, with its lock held."""

    _tables: dict[float, np.ndarray]  # t[f0, n] per column weight (:meth:`_table`); MemIndex.__init__ starts it empty

    # ---- scoring ----------------------------------------------------------------------------------------------
    def _postings(self, tid: int) -> tuple[np.ndarray, list[np.ndarray]]:
        """Live ``(slots, [counts per column])`` of a term."""
        a, b = self.indptr[tid], self.indptr[tid + 1]
        slots = self.p_slot[a:b]
        counts = [c[a:b] for c in self.p_counts]
        d = self.delta.get(tid)
        if d:
            arr = np.array(d, dtype=np.int64)
            slots = np.concatenate([slots, arr[:, 0].astype(np.int32)])
            counts = [np.concatenate([counts[c], arr[:, 1 + c].astype(np.uint16)]) for c in range(NCOL)]
        if self.n_live != len(self.rowid):
            ok = self.alive[slots]
            if not ok.all():
                slots = slots[ok]
                counts = [c[ok] for c in counts]
        return slots, counts

    def _freq(self, counts: list[np.ndarray], weights: tuple[float, ...]) -> np.ndarray:
        """FTS5's column-weighted frequency: each instance adds its column's weight, column by column."""
        f = np.zeros(len(counts[0]), dtype=np.float64)
        integral = True  # f holds integers so far (exact whatever the order of the additions)
        for c in range(NCOL):
            w = float(weights[c]) if c < len(weights) else 1.0
            cnt = counts[c]
            if not cnt.any():
                continue
            if integral and w == int(w):
                f = f + w * cnt
                continue
            hi_f, hi_n = int(f.max()), int(cnt.max())
            if integral and (hi_f + 1) * (hi_n + 1) <= 1 << 20:
                f = self._table(w, hi_f, hi_n)[f.astype(np.int64), cnt]
            else:
                for i in range(hi_n):
                    f = np.where(cnt > i, f + w, f)
            integral = False
        return f

    def _table(self, w: float, hi_f: int, hi_n: int) -> np.ndarray:
        """``t[f0, n]`` = ``f0`` plus ``w`` added ``n`` times, one addition after the other (as FTS5 does)."""
        t = self._tables.get(w)
        if t is None or t.shape[0] <= hi_f or t.shape[1] <= hi_n:
            rows = max(hi_f + 1, t.shape[0] if t is not None else 0, 64)
            cols = max(hi_n + 1, t.shape[1] if t is not None else 0, 64)
            t = np.empty((rows, cols), dtype=np.float64)
            t[:, 0] = np.arange(rows, dtype=np.float64)
            for j in range(1, cols):
                t[:, j] = t[:, j - 1] + w
            self._tables[w] = t
        return t

    def doc_freqs(self, tokens: list[str]) -> dict[str, int]:
        """Live rows holding each token (as ``fts_vocab``'s ``doc``); tokens found nowhere are left out."""
        out = {}
        whole = self.n_live == len(self.rowid)
        for t in tokens:
            tid = self.vocab.get(t)
            if tid is None:
                continue
            a, b = self.indptr[tid], self.indptr[tid + 1]
            n = int(b - a) if whole else int(self.alive[self.p_slot[a:b]].sum())
            d = self.delta.get(tid)
            if d:
                n += sum(1 for x in d if self.alive[x[0]])
            if n:
                out[t] = n
        return out

    def score(self, tokens: list[str], *, weights: tuple[float, ...], limit: int,
              term_weights: dict[str, float] | None = None,
              collection: tuple[int, dict[str, int]] | None = None) -> list[tuple[int, float, int]]:
        """:func:`memdir.recall.bm25.score` with ``with_terms=True``, from memory (call :meth:`refresh` first)."""
        N = self.n_live
        if not N:
            return []
        qtf: dict[str, int] = {}
        for t in tokens:
            qtf[t] = qtf.get(t, 0) + 1
        df = self.doc_freqs(list(qtf))
        terms = bm25.select_terms(df, N, term_weights=term_weights)
        if not terms:
            return []
        bit: dict[str, int] = {}
        for i, t in enumerate(tokens[:bm25.MASK_TERMS]):
            bit.setdefault(t, 1 << i)
        avgdl = float(sum(self.col_totals)) / float(N)
        acc, bits = self.acc, self.bits
        touched = []
        for t in terms:
            n = df[t]
            slots, counts = self._postings(self.vocab[t])
            if N >= bm25.LARGE_STORE and n > bm25.PER_TERM_CAP:  # its newest postings (ORDER BY rowid DESC LIMIT)
                keep = np.argpartition(-self.rowid[slots], bm25.PER_TERM_CAP - 1)[:bm25.PER_TERM_CAP]
                slots = slots[keep]
                counts = [c[keep] for c in counts]
            f = self._freq(counts, weights)
            idf = bm25.idf_fts5(N, n)
            x = idf * ((f * _K1P1) / (f + K1 * (_OMB + (B * self.dlen[slots]) / avgdl)))
            tw = term_weights.get(t, 1.0) if term_weights else 1.0
            acc[slots] += (-x) * (-tw * math.sqrt(qtf[t]) * bm25.collection_idf(N, n, t, collection) / idf)
            b = bit.get(t, 0)
            if b:
                bits[slots] += b
            touched.append(slots)
        if len(touched) > 1:  # the rows touched, ascending (np.unique's answer; a mark per row is ~10x faster at 10k)
            seen = np.zeros(len(acc), dtype=bool)
            for x in touched:
                seen[x] = True
            hit = np.flatnonzero(seen)
        else:
            hit = touched[0]
        sc, ids, mk = acc[hit], self.rowid[hit], bits[hit]
        acc[hit] = 0.0
        bits[hit] = 0
        if len(hit) > limit:  # a partial cut first (ties at the cut kept), then the exact order of what is left
            cut = np.partition(-sc, limit - 1)[limit - 1]
            sel = -sc <= cut
            sc, ids, mk = sc[sel], ids[sel], mk[sel]
        order = np.lexsort((ids, -sc))[:limit]
        return list(zip(ids[order].tolist(), sc[order].tolist(), mk[order].tolist()))

    def passage(self, pids: list[int]) -> dict[int, tuple[int, int, int]]:
        """``{passage id: (doc id, start, end)}`` (as the ``passages`` table)."""
        got = self.pid_span
        return {p: got[p] for p in pids if p in got}

    def slim_rows(self, ids: list[int]) -> list[dict[str, Any]]:
        """The ranking columns of the live docs among ``ids`` (as :func:`memdir.store.sqlite.search.search` reads them: chunks of
        500 in the order given, ascending ids within a chunk, superseded notes left out)."""
        out = []
        keys = ("id", "ref", "kind", "note_kind", "role", "session", "ts_epoch", "pinned", "head", "text_len")
        reh, slim = self.rehearsals, self.slim
        for i in range(0, len(ids), 500):
            for x in sorted(ids[i:i + 500]):
                t = slim.get(x)
                if t is not None:
                    d = dict(zip(keys, t))
                    d["rehearsals"] = reh.get(t[1], 0)
                    out.append(d)
        return out

    def fields(self, rows: list[tuple[int, str, tuple[int, int] | None]], terms: list[str]) -> list[dict[str, set[str]] | None]:
        """For each hit ``(doc id, ref, span)`` of ``rows``: which of ``terms`` the FTS row it matched in holds in its
        tags, title, body and context (an event's neighbouring turns) columns (what :meth:`memdir.core.Memdir._hit` would find by tokenizing them again) — the
        doc's own row, or the passage ``span`` names — or ``None`` when that row is not held as ``ref`` (changed
        since; the caller tokenizes). Each term's postings are searched once for all the hits."""
        out: list[dict[str, set[str]] | None] = []
        slots: list[tuple[int, int]] = []  # (place in out, slot)
        for doc_id, ref, span in rows:
            out.append(None)
            t = self.slim.get(doc_id)
            if t is None or t[1] != ref:
                continue
            rowid = doc_id
            if span is not None and span[0] > 0:  # a passage after the first: its own row
                rowid = next((-p for p in self.doc_passages.get(doc_id, ()) if self.pid_span[p][1:] == tuple(span)), None)
                if rowid is None:
                    continue
            slot = self.slot_of.get(rowid)
            if slot is None or not self.alive[slot]:
                continue
            out[-1] = {"tags": set(), "title": set(), "body": set(), "context": set()}
            slots.append((len(out) - 1, slot))
        if not slots:
            return out
        names = ("tags", "title", "body", "context")
        want = np.array([s for _, s in slots], dtype=self.p_slot.dtype)
        for term in terms:
            tid = self.vocab.get(term)
            if tid is None:
                continue
            a, b = int(self.indptr[tid]), int(self.indptr[tid + 1])
            js = a + np.searchsorted(self.p_slot[a:b], want)  # a term's postings are in slot order
            delta = self.delta.get(tid, ())
            for (i, slot), j in zip(slots, js.tolist()):
                if j < b and self.p_slot[j] == slot:
                    counts = [int(self.p_counts[c][j]) for c in range(4)]
                else:
                    hit = next((x for x in delta if x[0] == slot), None)
                    if hit is None:
                        continue
                    counts = list(hit[1:5])
                for c in range(4):
                    if counts[c]:
                        out[i][names[c]].add(term)  # type: ignore[index]
        return out

    def stats(self) -> dict[str, Any]:
        """Size and history of the index (the bench reports them)."""
        if not self.ready:
            return {"ready": False, "disabled": self.disabled}
        arrays = (self.rowid, self.dlen, self.csize, self.alive, self.p_slot, self.indptr, self.acc, self.bits, *self.p_counts)
        return {"ready": True, "rows": self.n_live, "terms": len(self.vocab), "postings": int(len(self.p_slot)) + self.delta_n,
                "array_mb": round(sum(a.nbytes for a in arrays) / 2**20, 1), "build_s": round(self.build_s, 3),
                "builds": self.builds, "catch_ups": self.catch_ups}
