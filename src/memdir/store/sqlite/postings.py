"""BM25 postings held in memory by a long-lived process (issue 12): the same scores as :func:`memdir.recall.bm25.score`,
without FTS5's ``bm25()`` per posting.

At 10k items ~80 % of a recall's scoring statement is FTS5's ``bm25()`` (a ``fts_docsize`` read and a position-
list walk per posting, plus a pass over each term's whole posting list to count it). A process that answers many
queries on one store (``memdir serve``, the MCP server, the warm hook listener) can instead keep each term's
postings in numpy arrays — row, and the term's count in each of the four FTS columns — with each row's length,
and score a query with a few vectorised operations.

**Exact.** The arithmetic is FTS5's own (sqlite/ext/fts5/fts5_aux.c, ``fts5Bm25Function``) done in the same
order on the same IEEE doubles: the column-weighted frequency is the weight added once per instance, column by
column (so a 0.3 context weight gives FTS5's sum, not ``0.3 * count``); ``tf_part = f·(k1+1) / (f + k1·(1 − b +
b·|d|/avgdl))`` with ``|d|`` the row's tokens in all columns and ``avgdl`` FTS5's total tokens / rows; the result
is multiplied by the same per-term factor (``−√qtf · idf_lucene / idf_fts5``) and summed per row in the order of
the terms, then cut with the same ``ORDER BY score DESC, id`` and the same large-store rules (rarest terms first,
the postings budget, the newest :data:`memdir.recall.bm25.PER_TERM_CAP` postings of a frequent term).
``tests/test_postings.py`` checks that both paths return the same rows, scores and masks over random stores.

**Where the postings come from.** FTS5 keeps no copy of its token streams (contentless table, m009), so the index
is built by tokenizing what ``docs`` says each FTS row holds (:func:`memdir.store.sqlite.index.fts_row_values`, the function
the writers and ``check_fts`` use); each row's length is then checked against FTS5's own ``fts_docsize`` record,
and the totals against FTS5's averages record, so a row FTS5 tokenized differently (a character the FTS5
tokenizer does not class as ours) turns the memory path off for that store instead of scoring it differently.

**Kept current.** Every query first reads FTS5's structure and averages records (two small blobs). When another
connection or this one wrote, the index catches up: rows above the highest doc and passage ids it knows are added,
rows gone from ``docs`` (forget, prune, supersede with replace, note edits) are dropped with their passages, and
events of the sessions touched whose neighbour ids changed (their ``context`` column was rewritten) are indexed
anew; ``meta.fts_epoch`` (bumped by :func:`memdir.store.sqlite.index.rebuild_fts`) or totals that disagree with FTS5 after the
catch-up mean a full rebuild. Dropped rows are tombstones (their postings are skipped) until a compaction.

Built lazily at the first query (``build_s`` and the arrays' bytes are reported by :meth:`MemIndex.stats`). Stores
with more than ``recall.memory_index_max_rows`` FTS rows keep the SQL path (at 1M items it meets its goal, and the
arrays would take ~1.5 GB). numpy is imported only by the postings modules.

**Where each part is.** This module holds :class:`MemIndex`: its build from ``docs`` and its catch-up with every
write. :mod:`memdir.store.sqlite.postings_rows` counts FTS rows into postings arrays and decodes FTS5's records;
:mod:`memdir.store.sqlite.postings_query` scores and reads (:class:`MemIndex` inherits its ``Queries``).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from typing import Any

import numpy as np

import memdir.foreground as foreground
from memdir.store.sqlite import index
from memdir.store.sqlite.postings_query import Queries
from memdir.store.sqlite.postings_rows import MAX_COUNT, NCOL, Rows, Unsupported, averages, docsize_total, intern, trim
from memdir.recall.tokenize import tokenize

log = logging.getLogger("memdir")


class MemIndex(Queries):
    """The in-memory postings of one SQLite index (see the module's doc). One per connection; :meth:`search` holds
    a lock, so threads sharing the connection take turns."""

    def __init__(self, db: sqlite3.Connection, *, max_rows: int | None = None) -> None:
        import threading

        self.db = db
        self.rdb = db  # the connection a build reads (its own one in a background build)
        self.max_rows = max_rows
        self.building: Any = None  # the background build's thread
        self.background = False  # build in a thread at the first refresh (search.search passes it on)
        self.ready = False
        self.disabled: str | None = None  # why the memory path is off for this store (the SQL path answers)
        self.build_s = 0.0
        self.builds = 0
        self.catch_ups = 0
        self.lock = threading.RLock()
        self._tables: dict[float, np.ndarray] = {}

    # ---- building ---------------------------------------------------------------------------------------------
    def _marks(self) -> tuple[bytes | None, bytes | None]:
        """FTS5's averages (id 1) and structure (id 10) records: any write to the index changes one of them."""
        got = dict(self.rdb.execute("SELECT id, block FROM fts_data WHERE id IN (1, 10)").fetchall())
        return got.get(1), got.get(10)

    def build(self, db: sqlite3.Connection | None = None) -> None:
        """(Re)build everything from ``docs`` in one read transaction of ``db`` (default: the store's connection);
        raises :class:`Unsupported`."""
        t0 = time.perf_counter()
        db = self.rdb = db or self.db
        own = not db.in_transaction
        if own:
            db.execute("BEGIN")
        try:
            avg, struct = self._marks()
            rows_fts, _ = averages(avg)
            if self.max_rows is not None and rows_fts > self.max_rows:
                raise Unsupported(f"{rows_fts} full-text rows, above recall.memory_index_max_rows = {self.max_rows}")
            self.epoch = index.meta_int(db, "fts_epoch")
            self.removed_seq = db.execute("SELECT coalesce(max(seq), 0) FROM removed").fetchone()[0]
            self.vocab: dict[str, int] = {}
            self.doc_info: dict[int, tuple[str | None, int | None, int | None]] = {}  # events: session, ctx ids
            self.doc_passages: dict[int, list[int]] = {}
            self.pid_span: dict[int, tuple[int, int, int]] = {}  # passage id -> (doc id, start, end)
            self.slim: dict[int, tuple] = {}  # live doc id -> its ranking columns (search._SLIM; immutable per id)
            self.max_doc = self.max_pid = 0
            acc = Rows(self.vocab)
            self._read_all(acc)
            self._read_passages(acc, "")
            self._arrays(acc)
            self._check_lengths()
            self._verify(avg)
            self.avg_blob, self.struct_blob = avg, struct
        finally:
            if own:
                db.execute("COMMIT")
            self.rdb = self.db
        self.data_version = None  # rehearsal counts are read from the store's connection at the next refresh
        trim()
        self.build_s = time.perf_counter() - t0
        self.builds += 1
        log.debug("memory index: %d rows, %d terms, %d postings in %.2f s", self.n_live, len(self.vocab),
                  len(self.p_slot), self.build_s)

    def _keep(self, r: Any) -> None:
        """What the index keeps of docs row ``r`` besides its postings."""
        foreground.pause()
        self.max_doc = max(self.max_doc, r["id"])
        kind, sess = intern(r["kind"]), intern(r["session"])  # one copy of each repeated string
        if r["superseded_by"] is None:
            self.slim[r["id"]] = (r["id"], r["ref"], kind, intern(r["note_kind"]), intern(r["role"]), sess,
                                  r["ts_epoch"], r["pinned"], r["text_head"], r["text_len"])
        if kind == "event":
            self.doc_info[r["id"]] = (sess, r["ctx_prev"], r["ctx_next"])

    def _read_all(self, acc: Rows) -> None:
        """Every docs row, read once as a stream (a whole-table fetch held every text at once)."""
        body0: dict[int, str] = {}
        rows: list[Any] = []
        for r in self.rdb.execute("SELECT * FROM docs ORDER BY id"):
            self._keep(r)
            if r["kind"] == "event":
                body0[r["id"]] = index.body0(r["text"], r["role"])
                rows.append({"id": r["id"], "kind": "event", "ctx_prev": r["ctx_prev"], "ctx_next": r["ctx_next"],
                             "meta": r["meta"]})
            else:
                rows.append(r)
        tokens_of = index.Tokens(self.rdb, body0)
        for r in rows:
            acc.add(r["id"], index.note_values(r) if r["kind"] == "note" else index.event_values(r, tokens_of))

    def _read_docs(self, acc: Rows, docs: list[Any]) -> None:
        body0 = {r["id"]: index.body0(r["text"], r["role"]) for r in docs if r["kind"] == "event"}
        tokens_of = index.Tokens(self.rdb, body0)
        for r in docs:
            self._keep(r)
            acc.add(r["id"], index.note_values(r) if r["kind"] == "note" else index.event_values(r, tokens_of))

    def _read_passages(self, acc: Rows, where: str, args: tuple = ()) -> None:
        rows = self.rdb.execute("SELECT p.id, p.doc_id, p.start, p.end, d.text FROM passages p JOIN docs d ON d.id = p.doc_id "
                               f"{where} ORDER BY p.id", args).fetchall()
        for pid, doc_id, a, b, text in rows:
            self.max_pid = max(self.max_pid, pid)
            self.doc_passages.setdefault(doc_id, []).append(pid)
            self.pid_span[pid] = (doc_id, a, b)
            acc.add(-pid, ("", "", " ".join(tokenize(text[a:b])), ""))

    def _csr(self, term: np.ndarray, slot: np.ndarray, counts: list[np.ndarray], rowid: np.ndarray) -> None:
        """Main postings from flat (term, slot, counts), grouped by term (in no particular order within a term:
        the newest-postings cut picks by rowid)."""
        if any(len(c) and int(c.max()) > MAX_COUNT for c in counts):
            raise Unsupported("a term occurs more than 65,535 times in one column of one row")
        order = np.argsort(term, kind="stable")
        self.p_slot = slot[order].astype(np.int32)
        # a byte per count where every count fits (most columns: a term rarely occurs 256 times in one row)
        self.p_counts = [c[order].astype(np.uint8 if not len(c) or int(c.max()) < 256 else np.uint16) for c in counts]
        self.indptr = np.zeros(len(self.vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(term, minlength=len(self.vocab)), out=self.indptr[1:])
        self.delta: dict[int, list[tuple[int, ...]]] = {}  # term id -> [(slot, c0, c1, c2, c3)] added since
        self.delta_n = 0

    def _arrays(self, acc: Rows) -> None:
        n = len(acc.rowids)
        self.rowid = np.array(acc.rowids, dtype=np.int64)
        self.csize = acc.size_matrix()
        self.dlen = self.csize.sum(axis=1).astype(np.float64)
        self.alive = np.ones(n, dtype=np.bool_)
        self.slot_of: dict[int, int] = {r: i for i, r in enumerate(acc.rowids)}
        self.n_live = n
        self.n_docs = sum(1 for r in acc.rowids if r > 0)
        self.col_totals = [int(x) for x in self.csize.sum(axis=0)] if n else [0] * NCOL
        self.indptr, self.p_slot, self.p_counts = acc.csr()
        self.delta: dict[int, list[tuple[int, ...]]] = {}  # term id -> [(slot, c0, c1, c2, c3)] added since
        self.delta_n = 0
        self.acc = np.zeros(n, dtype=np.float64)
        self.bits = np.zeros(n, dtype=np.int64)

    def _check_lengths(self) -> None:
        """Every row's length equals FTS5's ``fts_docsize`` record of it (else FTS5 tokenized it differently)."""
        got = {r[0]: docsize_total(r[1]) for r in self.rdb.execute("SELECT id, sz FROM fts_docsize")}
        if len(got) != len(self.slot_of):
            raise Unsupported(f"{len(got)} full-text rows, {len(self.slot_of)} from docs")
        for rid, s in self.slot_of.items():
            foreground.pause()
            if got.get(rid) != int(self.dlen[s]):
                raise Unsupported(f"row {rid}: {int(self.dlen[s])} tokens here, {got.get(rid)} in FTS5")

    def _verify(self, avg: bytes | None) -> None:
        rows, cols = averages(avg)
        if rows != self.n_live or tuple(cols) != tuple(self.col_totals):
            raise Unsupported(f"FTS5 holds {rows} rows / {cols} tokens, the memory index {self.n_live} / "
                              f"{tuple(self.col_totals)}")

    # ---- keeping current --------------------------------------------------------------------------------------
    def refresh(self, *, background: bool = False) -> bool:
        """Build, or catch up with the store when FTS5's averages or structure record changed since the last look.
        Returns True when the memory path can answer. With ``background`` the first build runs in a thread on its
        own connection (a server keeps answering from the SQL path meanwhile) and this returns False until it is
        done. Call with :attr:`lock` held."""
        if self.disabled:
            return False
        if not self.ready:
            if self.building is not None and self.building.is_alive():
                # never a second build beside it: both would fill the same attributes, and the one in this thread
                # would point the other at this thread's connection (closed under it on close: a crash). A caller
                # that must have the index waits with :meth:`wait_built` before taking the lock.
                return False
            if not background:
                if not self._safe_build():
                    return False
            elif self.building is None or not self.building.is_alive():
                import threading

                from memdir.store.sqlite import readonly

                # the second connection is made here, not in the thread: the store may close self.db while the thread
                # starts, and SQLite's backup (an index in memory) of a connection closed under it crashes the process
                try:
                    conn = readonly.second_connection(self.db)  # read-only stores too (C36)
                except sqlite3.Error as exc:
                    self.disabled = f"could not open a second connection: {exc}"
                    return False
                self.building = threading.Thread(target=self._build_aside, args=(conn,), name="memdir-postings",
                                                 daemon=True)
                self.building.start()
                return False
            else:
                return False
        dv = self.db.execute("PRAGMA data_version").fetchone()[0]
        if dv != self.data_version or self.db.total_changes != self.total_changes or self.rehearsals_stale:
            self._load_rehearsals()  # another connection committed, or this one wrote (a hit counted, a capture)
        avg, struct = self._marks()
        # a rebuild of the same rows can leave both records byte for byte as they were while the passage ids
        # changed (DELETE + re-insert hands ids out again): the epoch rebuild_fts bumps says so
        if avg == self.avg_blob and struct == self.struct_blob and index.meta_int(self.db, "fts_epoch") == self.epoch:
            return True
        try:
            self._catch_up()
        except Unsupported as exc:
            log.debug("memory index rebuilt: %s", exc)
            return self._safe_build()
        except sqlite3.Error as exc:  # busy, I/O: half caught up is no state to score from; rebuilt at the next look
            log.debug("memory index dropped: %s", exc)
            self.ready = False
            return False
        return True

    def wait_built(self, timeout: float | None = None) -> None:
        """Wait (at most ``timeout`` seconds; ``None``: until it ends) for a background build in progress, if any.
        Call without :attr:`lock` held: the build takes it to hand its index over."""
        thread = self.building
        if thread is not None and thread.is_alive():
            thread.join(timeout)

    def _build_aside(self, conn: sqlite3.Connection) -> None:
        """The background build on its own read connection ``conn`` (closed here), then the index is handed over under
        the lock."""
        try:
            try:
                with foreground.background():
                    self.build(conn)
                with self.lock:
                    self.ready = True
            except Unsupported as exc:
                with self.lock:
                    self._off(str(exc))
            except Exception as exc:  # never take the server down: the SQL path answers
                log.warning("memdir: building the in-memory postings failed (%s); recall keeps the SQL path", exc)
                with self.lock:
                    self._off(str(exc))
        finally:
            conn.close()

    def _load_rehearsals(self) -> None:
        self.data_version = self.db.execute("PRAGMA data_version").fetchone()[0]
        self.rehearsals: dict[str, int] = dict(self.db.execute("SELECT ref, count FROM rehearsal").fetchall())
        self.rehearsals_stale = False
        self.total_changes = self.db.total_changes

    def _safe_build(self) -> bool:
        try:
            self.build()
            self.ready = True
            return True
        except Unsupported as exc:
            self._off(str(exc))
            return False

    def _off(self, why: str) -> None:
        self.disabled = why
        self.ready = False
        for name in ("rowid", "dlen", "csize", "alive", "p_slot", "p_counts", "indptr", "acc", "bits", "delta",
                     "vocab", "slot_of", "doc_info", "doc_passages", "pid_span", "slim", "rehearsals"):
            self.__dict__.pop(name, None)
        log.debug("memory index off for this store: %s", why)

    def _kill(self, slot: int) -> None:
        """Tombstone a slot: its postings are skipped, its sizes leave the totals."""
        if not self.alive[slot]:
            return
        self.alive[slot] = False
        self.n_live -= 1
        for c in range(NCOL):
            self.col_totals[c] -= int(self.csize[slot, c])

    def _drop_doc(self, doc_id: int, sessions: set[str]) -> None:
        """Drop a deleted doc's row and its passages' rows."""
        s = self.slot_of.pop(doc_id, None)
        if s is not None:
            self._kill(s)
            self.n_docs -= 1
        self.slim.pop(doc_id, None)
        info = self.doc_info.pop(doc_id, None)
        if info is not None and info[0] is not None:
            sessions.add(info[0])
        for pid in self.doc_passages.pop(doc_id, []):
            self.pid_span.pop(pid, None)
            ps = self.slot_of.pop(-pid, None)
            if ps is not None:
                self._kill(ps)

    def _append(self, acc: Rows) -> None:
        """Add the rows gathered in ``acc`` (its vocab is ours) as new slots with delta postings; a row already
        held under the same rowid is tombstoned."""
        if not acc.rowids:
            return
        base, k = len(self.rowid), len(acc.rowids)
        for rid in acc.rowids:
            old = self.slot_of.get(rid)
            if old is not None:
                self._kill(old)
            elif rid > 0:
                self.n_docs += 1
        sizes = acc.size_matrix()
        self.rowid = np.concatenate([self.rowid, np.array(acc.rowids, dtype=np.int64)])
        self.csize = np.concatenate([self.csize, sizes])
        self.dlen = np.concatenate([self.dlen, sizes.sum(axis=1).astype(np.float64)])
        self.alive = np.concatenate([self.alive, np.ones(k, dtype=np.bool_)])
        for i, rid in enumerate(acc.rowids):
            self.slot_of[rid] = base + i
        self.n_live += k
        for c in range(NCOL):
            self.col_totals[c] += int(sizes[:, c].sum())
        if len(self.acc) < len(self.rowid):
            cap = max(len(self.rowid), int(len(self.acc) * 1.5) + 16)
            for name in ("acc", "bits"):
                a = getattr(self, name)
                b = np.zeros(cap, dtype=a.dtype)
                b[:len(a)] = a
                setattr(self, name, b)
        term, row, counts = acc.postings()
        if any(len(c) and int(c.max()) > MAX_COUNT for c in counts):
            raise Unsupported("a term occurs more than 65,535 times in one column of one row")
        if len(self.indptr) <= len(self.vocab):  # new terms: no main postings
            self.indptr = np.concatenate([self.indptr, np.full(len(self.vocab) + 1 - len(self.indptr), self.indptr[-1])])
        cols = [c.tolist() for c in counts]
        for j, (tid, r) in enumerate(zip(term.tolist(), row.tolist())):
            self.delta.setdefault(tid, []).append((base + r, cols[0][j], cols[1][j], cols[2][j], cols[3][j]))
        self.delta_n += len(term)

    def _catch_up(self) -> None:
        db = self.db
        own = not db.in_transaction
        if own:
            db.execute("BEGIN")
        try:
            avg, struct = self._marks()
            if index.meta_int(db, "fts_epoch") != self.epoch:
                raise Unsupported("the full-text index was rebuilt")
            rows_fts, _ = averages(avg)
            if self.max_rows is not None and rows_fts > self.max_rows:
                raise Unsupported("above recall.memory_index_max_rows")
            sessions: set[str] = set()
            gone = db.execute("SELECT seq, doc_id FROM removed WHERE seq > ? ORDER BY seq", (self.removed_seq,)).fetchall()
            if gone:
                if gone[0][0] != self.removed_seq + 1:
                    raise Unsupported("more docs removed than the removed log keeps")
                for _, d in gone:
                    self._drop_doc(d, sessions)
                self.removed_seq = gone[-1][0]
                # SQLite hands the highest ids out again after a delete: read from what is still held
                self.max_doc = max((r for r in self.slot_of if r > 0), default=0)
                self.max_pid = max((p for ps in self.doc_passages.values() for p in ps), default=0)
            new = db.execute("SELECT * FROM docs WHERE id > ? ORDER BY id", (self.max_doc,)).fetchall()
            acc = Rows(self.vocab)
            self._read_docs(acc, new)
            self._read_passages(acc, "WHERE p.id > ?", (self.max_pid,))
            sessions |= {r["session"] for r in new if r["kind"] == "event" and r["session"] is not None}
            # older events of those sessions whose neighbour ids changed: their context column was rewritten
            new_ids = {r["id"] for r in new}
            changed = []
            for sess in sessions:
                for r in db.execute("SELECT * FROM docs WHERE kind = 'event' AND session = ?", (sess,)).fetchall():
                    info = self.doc_info.get(r["id"])
                    if r["id"] not in new_ids and info is not None and (info[1], info[2]) != (r["ctx_prev"], r["ctx_next"]):
                        changed.append(r)
            if changed:
                tokens_of = index.Tokens(db)
                tokens_of.prime([x for r in changed for x in (r["id"], r["ctx_prev"], r["ctx_next"])])
                for r in changed:
                    acc.add(r["id"], index.event_values(r, tokens_of))
                    self.doc_info[r["id"]] = (r["session"], r["ctx_prev"], r["ctx_next"])
            self._append(acc)
            if self.n_docs != db.execute("SELECT count(*) FROM docs").fetchone()[0]:
                raise Unsupported("docs and the memory index disagree")
            self._verify(avg)
            self.avg_blob, self.struct_blob = avg, struct
        finally:
            if own:
                db.execute("COMMIT")
        self.catch_ups += 1
        if self.delta_n > max(50_000, len(self.p_slot) // 4) or self.n_live * 2 < len(self.rowid):
            self.compact()

    def compact(self) -> None:
        """Fold the delta postings into the main arrays and drop tombstoned slots."""
        keep = np.nonzero(self.alive)[0]
        newslot = np.full(len(self.rowid), -1, dtype=np.int64)
        newslot[keep] = np.arange(len(keep))
        terms = [np.repeat(np.arange(len(self.indptr) - 1), np.diff(self.indptr))]
        slots = [self.p_slot.astype(np.int64)]
        counts = [[c.astype(np.int64)] for c in self.p_counts]
        if self.delta:
            flat = [(tid, *x) for tid, lst in self.delta.items() for x in lst]
            arr = np.array(flat, dtype=np.int64)
            terms.append(arr[:, 0])
            slots.append(arr[:, 1])
            for c in range(NCOL):
                counts[c].append(arr[:, 2 + c])
        term = np.concatenate(terms)
        slot = newslot[np.concatenate(slots)]
        ok = slot >= 0
        rowid = self.rowid[keep]
        self._csr(term[ok], slot[ok], [np.concatenate(c)[ok] for c in counts], rowid)
        self.rowid, self.dlen, self.csize = rowid, self.dlen[keep], self.csize[keep]
        self.alive = np.ones(len(keep), dtype=np.bool_)
        self.slot_of = {int(r): i for i, r in enumerate(rowid.tolist())}
        self.acc = np.zeros(len(keep), dtype=np.float64)
        self.bits = np.zeros(len(keep), dtype=np.int64)
