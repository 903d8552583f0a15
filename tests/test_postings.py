"""Recall's postings held in memory (memdir.store.sqlite.postings) rank exactly as the FTS5 path: the same rows, the same
scores to the last bit, the same matched-term masks — over random stores, after every kind of write (this
process's or another's), with the large-store cuts on — and writes are seen by the next recall."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

np = pytest.importorskip("numpy")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings, strategies as st  # noqa: E402

import memdir  # noqa: E402
from memdir.recall import bm25  # noqa: E402
from memdir.store.sqlite import index, search
from memdir.store.sqlite.postings import MemIndex  # noqa: E402
from memdir.recall.tokenize import query_tokens  # noqa: E402
from test_layout_props import OPS, QUERIES, WORDS, _event, _run, _text  # noqa: E402

W = (4.0, 3.0, 1.0, 0.3)
ON = {"recall.memory_index": "on"}


def _queries(rng: random.Random, n: int = 6) -> list[list[str]]:
    out = [query_tokens(q, repeats=True) for q in QUERIES]
    for _ in range(n):  # repeated words (qtf), words found nowhere, one-word queries
        out.append([rng.choice(WORDS + ["nowhere"]) for _ in range(rng.randint(1, 6))])
    return out


def _same(store, mem: MemIndex, queries, *, weights=W, limit=50) -> None:
    db = store.db
    with mem.lock:
        assert mem.refresh(), mem.disabled
        for i, toks in enumerate(queries):
            want = [tuple(r) for r in bm25.score(db, toks, weights=weights, limit=limit, with_terms=True)]
            assert mem.score(toks, weights=weights, limit=limit) == want, toks
            tw = {toks[-1]: 0.5} if i % 2 else None  # the glossary's bridged terms count less (memdir.recall.glossary)
            want = [tuple(r) for r in bm25.score(db, toks, weights=weights, limit=limit, with_terms=True, term_weights=tw)]
            assert mem.score(toks, weights=weights, limit=limit, term_weights=tw) == want, (toks, tw)
            assert mem.doc_freqs(list(dict.fromkeys(toks))) == bm25.doc_freqs(db, list(dict.fromkeys(toks)))
    for toks in queries[:4]:  # the candidate rows too (passages, slim columns, rehearsal counts)
        assert search.search(db, toks, weights=weights, limit=limit, mem=mem) == search.search(db, toks, weights=weights, limit=limit)


def _project(base):
    project = base / "proj"
    (project / ".git").mkdir(parents=True)
    return project


@pytest.mark.slow  # over 7 s: CI runs it in `make test-slow`
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=OPS, seed=st.integers(0, 2**16), large=st.booleans())
# found by hypothesis: a second reindex left FTS5's records byte-identical while the passage ids changed
@example(ops=[("reindex", 0), ("import", 1), ("remember", 0), ("reindex", 0)], seed=0, large=False)
def test_memory_postings_rank_exactly_as_fts5_after_random_writes(tmp_path_factory, monkeypatch, ops, seed, large):
    if large:  # the large-store rules (rarest first, postings budget, newest postings of a frequent term) on small data
        monkeypatch.setattr(bm25, "LARGE_STORE", 5)
        monkeypatch.setattr(bm25, "PER_TERM_CAP", 4)
        monkeypatch.setattr(bm25, "POSTINGS_BUDGET", 12)
    base = tmp_path_factory.mktemp("mem")
    rng = random.Random(seed)
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)  # decay: the same moment for both paths
    with memdir.open(_project(base), home=base / "g", config=ON, clock=lambda: now) as m:
        m.import_events([_event(rng, f"seed{i}", 1_790_000_000) for i in range(12)])
        m.recall("deploy")  # builds the held postings
        store = m.roots["project"].store
        mem = store.mem
        assert mem is not None and mem.ready
        _same(store, mem, _queries(rng))

        def after(op, s):
            _same(store, mem, _queries(random.Random(s), 2))

        _run(m, ops, seed, after=after)
        for w in ((4.0, 3.0, 1.0, 0.0), (1.5, 2.0, 1.0, 0.7)):  # other column weights, fractional ones first
            _same(store, mem, _queries(rng), weights=w)
        for q in QUERIES:  # whole hits: order, scores, reasons (fields from the postings), spans
            got = [(h.id, h.score, h.reasons, h.span) for h in m.recall(q, k=10)]
            assert got == [(h.id, h.score, h.reasons, h.span) for h in _sql_recall(m, q)], q


def _sql_recall(m, q):
    store = m.roots["project"].store
    held, store.mem = store.mem, None
    m.config.overrides["recall.memory_index"] = "off"
    try:
        return m.recall(q, k=10)
    finally:
        m.config.overrides["recall.memory_index"] = "on"
        store.mem = held


def test_recall_is_the_same_with_and_without_held_postings(tmp_path):
    rng = random.Random(5)
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)  # decay: the same moment for both
    with memdir.open(_project(tmp_path), home=tmp_path / "g", clock=lambda: now) as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(300)])
        for i in range(20):
            m.remember(f"note {i} " + _text(rng, 12), tags=[rng.choice(WORDS)])
        qs = QUERIES + [_text(rng, rng.randint(1, 5)) for _ in range(20)]
        cold = [[(h.id, h.score, h.reasons, h.span) for h in m.recall(q, k=8)] for q in qs]
        assert m.roots["project"].store.mem is None  # a one-shot process keeps the SQL path
        stats = m.keep_warm(build=True)
        assert stats["project"]["ready"] and stats["project"]["rows"] >= 320
        store = m.roots["project"].store
        hit = m.recall("needle", k=1)[0]
        assert "fields" in store.hit_rows({store.get_doc(hit.id)["id"]: hit.span}, terms=["needle"]).popitem()[1]
        warm = [[(h.id, h.score, h.reasons, h.span) for h in m.recall(q, k=8)] for q in qs]
        assert m.keep_warm()["project"]["catch_ups"] == 0  # recall without rehearsal writes nothing
        assert warm == cold


def _rows(m, q):
    return [h.id for h in m.recall(q, k=20)]


def test_writes_are_seen_at_once_and_caught_up_without_a_rebuild(tmp_path):
    """capture, import, forget, supersede, a note edited on disk (SQLite gives the new row the old highest id),
    prune: each is seen by the next recall through the incremental catch-up; reindex rebuilds."""
    rng = random.Random(9)
    proj = _project(tmp_path)
    with memdir.open(proj, home=tmp_path / "g", config=ON) as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(40)])
        note = m.remember("the zebracorn deploy runbook lives in helsinki", tags=["deploy"])
        assert note.id in _rows(m, "zebracorn")
        store = m.roots["project"].store
        mem = store.mem
        assert mem.builds == 1

        m.capture({"role": "user", "text": "quokka in the staging cluster", "session": "s1"})
        assert any("quokka" in h.text for h in m.recall("quokka", k=5))

        m.forget(note.id)
        assert note.id not in _rows(m, "zebracorn")

        n2 = m.remember("quokka runbook v1 frankfurt")
        n3 = m.remember("quokka runbook v2 helsinki", supersedes=n2.id)
        assert n3.id in _rows(m, "quokka runbook") and n2.id not in _rows(m, "quokka runbook")

        # the newest note edited in place: its row is replaced under the same (highest) id
        n3.path.write_text(n3.path.read_text(encoding="utf-8").replace("helsinki", "tallinn"), encoding="utf-8")
        assert n3.id in _rows(m, "tallinn") and n3.id not in _rows(m, "helsinki")
        _same(store, mem, [["tallinn"], ["helsinki"], ["quokka", "runbook"]])

        ev = [r[0] for r in store.db.execute("SELECT ref FROM docs WHERE kind = 'event' ORDER BY id LIMIT 3")]
        for ref in ev:
            m.forget(ref)
        assert not set(ev) & set(_rows(m, "deploy staging cluster"))
        assert mem.builds == 1 and mem.catch_ups >= 5
        _same(store, mem, _queries(rng))

        m.reindex()
        _same(store, mem, _queries(rng))
        assert mem.builds == 2


def test_another_process_writing_is_seen(tmp_path):
    rng = random.Random(3)
    proj = _project(tmp_path)
    with memdir.open(proj, home=tmp_path / "g") as server:
        server.keep_warm()
        server.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(30)])
        assert server.keep_warm(build=True)["project"]["ready"]  # held now: the recalls below are the memory path's
        assert not any("ate the cache" in h.text for h in server.recall("quokka zebracorn", k=5))  # not yet written
        server.recall("deploy")
        with memdir.open(proj, home=tmp_path / "g") as other:  # its own connection, as a hook process has
            other.capture({"role": "user", "text": "the quokka zebracorn ate the cache", "session": "s0"})
            n = other.remember("needle note about quokka zebracorn")
        hits = server.recall("quokka zebracorn", k=5)
        assert n.id in [h.id for h in hits]
        assert any("ate the cache" in h.text for h in hits)
        with memdir.open(proj, home=tmp_path / "g") as other:
            other.forget(n.id)
        assert n.id not in [h.id for h in server.recall("quokka zebracorn", k=5)]
        store = server.roots["project"].store
        _same(store, store.mem, _queries(rng))
        assert store.mem.builds == 1


def test_above_the_row_limit_recall_keeps_the_sql_path(tmp_path):
    rng = random.Random(1)
    with memdir.open(_project(tmp_path), home=tmp_path / "g", config={**ON, "recall.memory_index_max_rows": 10}) as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(30)])
        assert m.recall("deploy staging")
        mem = m.roots["project"].store.mem
        assert not mem.ready and "max_rows" in mem.disabled


def test_a_row_fts5_tokenized_differently_turns_the_memory_path_off(tmp_path, monkeypatch):
    """The lengths are checked against FTS5's own record of each row: a mismatch means the SQL path, never a
    different score."""
    rng = random.Random(2)
    with memdir.open(_project(tmp_path), home=tmp_path / "g") as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(10)])
        store = m.roots["project"].store
        monkeypatch.setattr(index, "body0", lambda text, role: "extra " + " ".join(text.split()[:3]))
        mem = MemIndex(store.db)
        assert not mem.refresh() and "tokens" in mem.disabled


def test_a_server_builds_in_a_thread_and_answers_from_sql_meanwhile(tmp_path):
    rng = random.Random(4)
    with memdir.open(_project(tmp_path), home=tmp_path / "g") as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(50)])
        m.keep_warm()
        first = [h.id for h in m.recall("deploy staging", k=8)]  # starts the build; answered by the SQL path
        mem = m.roots["project"].store.mem
        mem.building.join(60)
        assert mem.ready and mem.builds == 1
        assert [h.id for h in m.recall("deploy staging", k=8)] == first
        m.capture({"role": "user", "text": "zebracorn quokka", "session": "s2"})
        assert m.recall("zebracorn quokka", k=1)[0].text == "zebracorn quokka"
        assert mem.builds == 1 and mem.catch_ups == 1


def test_only_the_per_person_server_holds_postings_not_each_sessions_stdio_server(tmp_path):
    """`memdir mcp` runs once per agent session: holding postings there would multiply their RSS by the number of
    sessions; `memdir serve` (one per person) holds them."""
    from memdir.server.mcp import MemoryStore

    for warm in (False, True):
        store = MemoryStore(_project(tmp_path / str(warm)), home=tmp_path / "g", keep_warm=warm)
        try:
            assert store.memdir.stores.state.get("warm", False) is warm
        finally:
            store.close()
