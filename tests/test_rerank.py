"""Cross-encoder rerank (off by default) with a deterministic fake scorer; real models are not packaged offline."""

import memdir
from memdir.engine.rerank import set_reranker


def _store(tmp_path, **cfg):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True, exist_ok=True)
    return memdir.open(proj, home=tmp_path / "g", config={"recall.half_life_days": 0, **cfg})


def _fill(m):
    m.remember("deploy deploy deploy the api with the script", summary="deploy api")
    m.remember("roll back a bad deploy with --rollback", summary="rollback")
    m.remember("the deploy window is friday afternoon", summary="deploy window")


def test_rerank_is_off_by_default(tmp_path):
    with _store(tmp_path) as m:
        _fill(m)
        set_reranker(m, lambda q, texts: [0.0] * len(texts))
        assert all("rerank" not in h.reasons for h in m.recall("deploy"))


def test_rerank_reorders_by_the_cross_encoder(tmp_path):
    with _store(tmp_path, **{"recall.rerank": True, "recall.rerank_top": 10}) as m:
        _fill(m)
        first = [h.id for h in _store(tmp_path).recall("deploy")]
        set_reranker(m, lambda q, texts: [1.0 if "rollback" in t else 0.0 for t in texts])
        hits = m.recall("deploy", k=2)
        assert len(hits) == 2 and "rollback" in hits[0].text
        assert hits[0].reasons["rerank"] == 1.0 and hits[0].reasons["first_rank"] == first.index(hits[0].id) + 1


def test_a_failing_or_missing_reranker_keeps_first_stage_order(tmp_path, caplog):
    with _store(tmp_path, **{"recall.rerank": True}) as m:
        _fill(m)
        plain = [h.id for h in _store(tmp_path).recall("deploy")]

        def boom(q, texts):
            raise RuntimeError("model exploded")

        set_reranker(m, boom)
        assert [h.id for h in m.recall("deploy")] == plain
        set_reranker(m, None)  # no rerank.model configured: warns, keeps order
        assert [h.id for h in m.recall("deploy")] == plain
