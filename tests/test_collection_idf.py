"""Recall ranks the project's and the global root's candidates together, so both are scored with the idf of the two
indexes together (memdir.recall.bm25.collection_idf): a global root of a few curated notes gave its words an idf near
ln 2 against a project's hundreds of events, and a preference the user saved globally ranked below any event that
shared one of its words."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

import memdir
from memdir.engine.lexical import collection_stats
from memdir.recall import bm25
from test_layout_props import WORDS, _event, _text

NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


def _open(tmp_path, **cfg):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    return memdir.open(project, home=tmp_path / "g", clock=lambda: NOW, config=cfg or None)


def _busy_project(m, n=200):
    """``n`` recent events, many of them about documentation (none about spelling)."""
    m.import_events([{"key": f"e{i}", "role": "assistant", "session": f"s{i // 20}", "ts": "2026-11-29T10:00:00Z",
                      "text": f"updated the documentation page {i} for the release notes"} for i in range(n)])


def test_a_global_preference_outranks_project_events_sharing_one_of_its_words(tmp_path):
    with _open(tmp_path) as m:
        _busy_project(m)
        note = m.remember("The user prefers British spelling in documentation", scope="global")
        m.remember("Indent with tabs, never spaces", scope="global")
        hits = m.recall("spelling in documentation", k=5)
        assert hits[0].id == note.id, [(h.id, h.score) for h in hits]
        assert hits[0].reasons["prior"] == 0.5  # the scope prior is untouched: only the statistics are shared


def test_the_statistics_are_the_two_roots_summed_and_none_for_one_root(tmp_path):
    with _open(tmp_path) as m:
        _busy_project(m, 30)
        roots = m.stores.live()
        assert collection_stats(roots, ["document", "spell"]) is None  # the global root is empty: its own, as before
        m.remember("The user prefers British spelling in documentation", scope="global")
        rows, df = collection_stats(m.stores.live(), ["document", "spell", "nowhere"])
        assert rows == sum(r.store.doc_freqs(["x"])[0] for r in m.stores.live())
        assert df == {"document": 31, "spell": 1}
        assert collection_stats(m.stores.live("project"), ["document"]) is None  # one scope asked: one index


def test_collection_idf_is_lucene_idf_of_the_summed_counts():
    assert bm25.collection_idf(10, 3, "t", None) == bm25.idf_lucene(10, 3)
    assert bm25.collection_idf(10, 3, "t", (210, {"t": 4})) == bm25.idf_lucene(210, 4)
    # a count taken a moment before a write to this index cannot fall below this index's own
    assert bm25.collection_idf(10, 3, "t", (5, {"t": 1})) == bm25.idf_lucene(10, 3)


def test_held_postings_score_with_the_collection_exactly_as_fts5(tmp_path):
    pytest.importorskip("numpy")
    from memdir.store.sqlite.postings import MemIndex

    rng = random.Random(11)
    with _open(tmp_path) as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(150)])
        store = m.roots["project"].store
        mem = MemIndex(store.db)
        with mem.lock:
            assert mem.refresh(), mem.disabled
            for q in range(15):
                toks = [rng.choice(WORDS + ["nowhere"]) for _ in range(rng.randint(1, 5))]
                coll = (5000, {t: rng.randint(300, 900) for t in toks})  # more than this index holds
                want = bm25.score(store.db, toks, weights=(4.0, 3.0, 1.0, 0.3), limit=40, with_terms=True,
                                  collection=coll)
                got = mem.score(toks, weights=(4.0, 3.0, 1.0, 0.3), limit=40, collection=coll)
                assert got == [tuple(r) for r in want], toks
                assert got != mem.score(toks, weights=(4.0, 3.0, 1.0, 0.3), limit=40) or not got


def test_two_roots_rank_the_same_with_and_without_held_postings(tmp_path):
    pytest.importorskip("numpy")
    rng = random.Random(4)
    with _open(tmp_path) as m:
        m.import_events([_event(rng, f"e{i}", 1_790_000_000) for i in range(200)])
        for i in range(6):
            m.remember(f"global note {i} " + _text(rng, 10), scope="global")
        qs = [_text(rng, rng.randint(1, 4)) for _ in range(15)]
        cold = [[(h.id, h.score, h.scope) for h in m.recall(q, k=8)] for q in qs]
        assert any(h[2] == "global" for hits in cold for h in hits)
        m.keep_warm(build=True)
        warm = [[(h.id, h.score, h.scope) for h in m.recall(q, k=8)] for q in qs]
        assert warm == cold
