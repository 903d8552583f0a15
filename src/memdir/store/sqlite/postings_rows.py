"""FTS rows on their way to the held postings (:mod:`memdir.store.sqlite.postings`): each row's token stream per
column counted per (term, row, column) into numpy arrays grouped by term, and FTS5's own ``fts_docsize`` and averages
records decoded, so the build can check its row lengths and totals against them. No SQL and no index state here:
:class:`memdir.store.sqlite.postings.MemIndex` reads the rows and keeps the arrays.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

import memdir.foreground as foreground

#: columns of the FTS table, in FTS5's order (tags, title, body, context)
NCOL = 4
#: largest count per (term, row, column) the arrays hold (uint16); a row above it keeps the SQL path
MAX_COUNT = 65_535


class Unsupported(Exception):
    """The store cannot be mirrored exactly (a row FTS5 tokenized differently, a count out of range)."""


def docsize_total(blob: bytes) -> int:
    """Sum of the varints in an ``fts_docsize`` record (one column size per column)."""
    total, v, i, n = 0, 0, 0, len(blob)
    while i < n:
        byte = blob[i]
        i += 1
        v = (v << 7) | (byte & 0x7F)
        if not byte & 0x80:
            total += v
            v = 0
    return total


def averages(blob: bytes | None) -> tuple[int, tuple[int, ...]]:
    """FTS5's averages record: ``(rows, per-column token totals)``."""
    if not blob:
        return 0, (0,) * NCOL
    vals, v = [], 0
    for byte in blob:
        v = (v << 7) | (byte & 0x7F)
        if not byte & 0x80:
            vals.append(v)
            v = 0
    rows = vals[0] if vals else 0
    cols = tuple(vals[1:1 + NCOL]) + (0,) * max(0, NCOL - len(vals[1:1 + NCOL]))
    return rows, cols


def intern(x: Any) -> Any:
    return sys.intern(x) if isinstance(x, str) else x


def trim() -> None:
    """Hand the memory the build let go back to the system (glibc keeps freed heap otherwise: ~40 MB at 10k
    items). A no-op where there is no ``malloc_trim``."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class Rows:
    """FTS rows (rowid, token stream per column) on their way to postings: tokens are counted with numpy every
    :data:`CHUNK` tokens (a Python step per token made building slow; holding every token string made it big)."""

    CHUNK = 250_000

    def __init__(self, vocab: dict[str, int]) -> None:
        self.vocab = vocab
        self.rowids: list[int] = []
        self.sizes: list[list[int]] = [[] for _ in range(NCOL)]  # tokens per row, per column
        self.toks: list[list[str]] = [[] for _ in range(NCOL)]  # of the rows since the last count
        self.pending = 0
        self.first = 0  # row number of the first row not counted yet
        self.parts: list[tuple[np.ndarray, np.ndarray, list[np.ndarray]]] = []  # (terms, rows, counts) per count

    def add(self, rowid: int, values: tuple[str, ...]) -> None:
        foreground.pause()  # a background build steps aside for a hook call (memdir.foreground)
        self.rowids.append(rowid)
        for c in range(NCOL):
            text = values[c] if c < len(values) else ""
            if text:
                t = text.split()
                self.toks[c].extend(t)
                self.sizes[c].append(len(t))
                self.pending += len(t)
            else:
                self.sizes[c].append(0)
        if self.pending >= self.CHUNK:
            self._count()

    def _count(self) -> None:
        """Count the gathered tokens per (term, row, column) and let their strings go."""
        n0, m = self.first, len(self.rowids) - self.first
        vocab, keys = self.vocab, []
        for c in range(NCOL):
            toks = self.toks[c]
            if not toks:
                continue
            fresh = set(toks).difference(vocab)
            if fresh:
                vocab.update(zip(sorted(fresh), range(len(vocab), len(vocab) + len(fresh))))
            foreground.pause()
            ids = np.fromiter(map(vocab.__getitem__, toks), dtype=np.int64, count=len(toks))
            rows = np.repeat(np.arange(m, dtype=np.int64), np.array(self.sizes[c][n0:], dtype=np.int64))
            keys.append((ids * m + rows) * NCOL + c)
            self.toks[c] = []
        if keys:
            foreground.pause()
            uk, cnt = np.unique(np.concatenate(keys), return_counts=True)
            if int(cnt.max()) > MAX_COUNT:
                raise Unsupported("a term occurs more than 65,535 times in one column of one row")
            pair, col = uk // NCOL, uk % NCOL
            up, inv = np.unique(pair, return_inverse=True)
            counts = np.zeros((len(up), NCOL), dtype=np.uint16)
            counts[inv, col] = cnt
            cols = [counts[:, c].astype(np.uint8) if int(counts[:, c].max()) < 256 else counts[:, c].copy() for c in range(NCOL)]
            self.parts.append(((up // m).astype(np.int32), (up % m + n0).astype(np.int32), cols))
        self.first, self.pending = len(self.rowids), 0

    def size_matrix(self) -> np.ndarray:
        return np.array(self.sizes, dtype=np.int64).T.reshape(len(self.rowids), NCOL)

    def postings(self) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """``(term ids, row numbers, [count per column])``, one entry per (term, row), new terms added to the
        vocabulary (for a catch-up's few rows)."""
        self._count()
        parts, self.parts = self.parts, []
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), [np.zeros(0, np.uint16) for _ in range(NCOL)]
        return (np.concatenate([p[0] for p in parts]).astype(np.int64), np.concatenate([p[1] for p in parts]).astype(np.int64),
                [np.concatenate([p[2][c] for p in parts]) for c in range(NCOL)])

    def csr(self) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """``(indptr, rows, [counts per column])`` grouped by term, placed chunk by chunk (a counting sort: each
        chunk is already in term order), each chunk let go once placed — no sort of every posting at once."""
        self._count()
        parts, self.parts, nterms = self.parts, [], len(self.vocab)
        per = np.zeros(nterms, dtype=np.int64)
        for t, _, _ in parts:
            per += np.bincount(t, minlength=nterms)
        indptr = np.zeros(nterms + 1, dtype=np.int64)
        np.cumsum(per, out=indptr[1:])
        total = int(indptr[-1])
        wide = [any(p[2][c].dtype != np.uint8 for p in parts) for c in range(NCOL)]
        rows = np.empty(total, dtype=np.int32)
        counts = [np.empty(total, dtype=np.uint16 if wide[c] else np.uint8) for c in range(NCOL)]
        cursor = indptr[:-1].copy()
        while parts:
            foreground.pause()
            t, r, cs = parts.pop(0)
            n = np.bincount(t, minlength=nterms)
            first = np.cumsum(n) - n  # where each term starts inside this chunk (the chunk is in term order)
            pos = cursor[t] + (np.arange(len(t), dtype=np.int64) - first[t])
            rows[pos] = r
            for c in range(NCOL):
                counts[c][pos] = cs[c]
            cursor += n
        return indptr, rows, counts
