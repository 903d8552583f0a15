"""Cases C17, C20 and C21 of ../shared/cases/cases.md (rewritten here so they run without it)."""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest

import memdir
from memdir.engine import hybrid as vectors
from memdir.embed.fake import FakeEmbedder

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
C17 = "部署前必须给数据库表加锁，否则迁移会超时"
OTHERS = ["前端构建使用 vite 并开启缓存", "日志统一输出到标准错误流", "接口超时设置为三十秒", "周报每周五下午发给团队"]


# ---- C17: one Han character inside a longer run is found, as an English word is -------------------------
def test_c17_single_cjk_character_matches_inside_a_run(m):
    for t in OTHERS:
        m.remember(t)
    m.remember(C17, category="decisions")
    m.remember("Take a lock on the table before a migration", category="decisions")
    for q in ("锁", "表", "迁"):
        hits = m.recall(q)
        assert hits and hits[0].text == C17, q
    assert m.recall("lock")[0].text.startswith("Take a lock")
    # longer queries still score bigrams: the note that holds the whole word comes first
    assert m.recall("加锁")[0].text == C17
    assert m.recall("超时")[0].text in (C17, "接口超时设置为三十秒")


def test_c17_old_index_is_retokenized(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember(C17)
        db = m.roots["project"].db
        db.execute("UPDATE meta SET value = 'old' WHERE key = 'tokenizer'")
        # what an index without unigrams held (the index keeps no copy of its rows: replace them all)
        db.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
        for (doc_id,) in db.execute("SELECT id FROM docs").fetchall():
            db.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, '', '', '部署 署前', '')", (doc_id,))
    with memdir.open(project, home=tmp_path / "g") as m:
        assert [h.text for h in m.recall("锁")] == [C17]


# ---- C20: a long-lived process sees notes edited and deleted on disk -------------------------------------
def test_c20_long_lived_process_sees_edits_and_deletions(project, tmp_path):
    home = tmp_path / "g"
    live = memdir.open(project, home=home)
    a = live.remember("the deploy target is the staging cluster in frankfurt", category="facts")
    b = live.remember("the deploy window is friday afternoon", category="facts")
    assert {h.id for h in live.recall("deploy")} == {a.id, b.id}
    assert "frankfurt" in live.context("where do we deploy")
    # an editor rewrites one note in place and deletes the other
    text = a.path.read_text(encoding="utf-8").replace("frankfurt", "helsinki")
    with open(a.path, "w", encoding="utf-8") as f:  # same size is not enough to hide it: mtime changes too
        f.write(text)
    st = a.path.stat()
    os.utime(a.path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    os.unlink(b.path)
    try:
        fresh = memdir.open(project, home=home)
        try:
            for q in ("deploy", "helsinki", "frankfurt", "friday"):
                got = [(h.id, h.text) for h in live.recall(q)]
                assert got == [(h.id, h.text) for h in fresh.recall(q)], q
            assert [h.text for h in live.recall("deploy")] == ["the deploy target is the staging cluster in helsinki"]
            assert live.recall("friday") == [] and live.recall("frankfurt") == []
            block = live.context("where do we deploy")
            assert "helsinki" in block and "frankfurt" not in block and "friday" not in block
            assert block == fresh.context("where do we deploy")
        finally:
            fresh.close()
    finally:
        live.close()


def test_c20_mcp_tool_sees_edits(project, tmp_path):
    from memdir.server.tools import do_recall

    store = memdir.open(project, home=tmp_path / "g")
    try:
        n = store.remember("the cache lives in redis", category="facts")
        assert do_recall(store, "redis")["count"] == 1
        n.path.write_text(n.path.read_text(encoding="utf-8").replace("redis", "memcached"), encoding="utf-8")
        st = n.path.stat()
        os.utime(n.path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert do_recall(store, "redis")["count"] == 0
        assert [h["id"] for h in do_recall(store, "memcached")["hits"]] == [n.id]
    finally:
        store.close()


# ---- C21: an endpoint changes its vector length under the same model name ---------------------------------
class ShiftingEmbedder(FakeEmbedder):
    """A fake 'openai' endpoint: same model name whatever length it returns."""

    name = "openai"

    def __init__(self, dim: int):
        super().__init__(dim=dim)
        self.model = "openai:text-embedding-x"


def _hybrid(project, tmp_path, **cfg):
    base = {"recall.channel": "hybrid", "recall.half_life_days": 0, "embed.provider": "fake"}
    base.update(cfg)
    return memdir.open(project, home=tmp_path / "g", config=base, clock=lambda: T0)


def test_c21_vector_length_change_never_raises(project, tmp_path):
    texts = ["the billing service runs on postgres", "deploys go out on friday", "the cache lives in redis"]
    with _hybrid(project, tmp_path, **{"embed.recall_backfill_ms": 0}) as m:
        prov = ShiftingEmbedder(8)
        vectors.set_provider(m, prov)
        for t in texts:
            m.remember(t)
        assert m.backfill()["embedded"] == 3
        assert m.recall("postgres billing")[0].text == texts[0]
        prov.dim = 10  # same model name, longer vectors
        hits = m.recall("postgres billing")  # must not raise; lexical still finds it
        assert hits and hits[0].text == texts[0]
        assert "postgres" in m.context("postgres billing")
        assert "vector" not in hits[0].reasons.get("ranks", {})  # no 8-dim vector was compared with a 10-dim query
        # the old-length vectors are stale: pending, re-embedded by backfill
        assert m.status()["project"]["vectors"]["pending"] == 3
        doc = {c["check"]: c for c in m.doctor()}
        assert doc["project vector length"]["ok"] == "warn"
        assert "10" in doc["project vector length"]["detail"] and "length 8" in doc["project vector length"]["detail"]
        assert m.backfill()["embedded"] == 3
        rows = m.roots["project"].db.execute("SELECT DISTINCT dim FROM vectors").fetchall()
        assert [r[0] for r in rows] == [10]
        assert m.recall("postgres billing")[0].reasons["ranks"].get("vector") == 1
        assert "project vector length" not in {c["check"] for c in m.doctor()}


def test_c21_mixed_lengths_in_store_never_raise(project, tmp_path):
    """Vectors of two lengths already stored (written before the length was recorded) are not mixed up."""
    with _hybrid(project, tmp_path, **{"embed.recall_backfill_ms": 0, "recall.cold_budget_ms": 100}) as m:
        prov = ShiftingEmbedder(8)
        vectors.set_provider(m, prov)
        for t in ("alpha beta", "gamma delta", "epsilon zeta"):
            m.remember(t)
        m.backfill()
        db = m.roots["project"].db
        db.execute("DELETE FROM meta WHERE key LIKE 'embed_dim:%'")
        ref = db.execute("SELECT ref FROM docs LIMIT 1").fetchone()[0]
        db.execute("UPDATE vectors SET vector = ?, dim = 10 WHERE ref = ?", (b"\0" * 40, ref))
        prov.dim = 10
        assert m.recall("gamma delta")[0].text == "gamma delta"


# ---- C20 siblings: every door of a long-lived process, after renames, moves and deletions in an editor ------
def test_c20_every_door_of_a_long_lived_process_sees_the_disk(project, tmp_path):
    home = tmp_path / "g"
    live = memdir.open(project, home=home)
    try:
        a = live.remember("the deploy target is the staging cluster in frankfurt", category="facts")
        b = live.remember("the database is postgres sixteen with pgvector", category="facts")
        r = live.remember("never force push to main", category="rules")
        live.recall("deploy")
        renamed = a.path.with_name("deploy-target.md")
        os.rename(a.path, renamed)  # renamed in an editor: its id is now facts/deploy-target
        (project / ".memory" / "decisions").mkdir(exist_ok=True)
        os.rename(b.path, project / ".memory" / "decisions" / b.path.name)  # moved to another category
        os.unlink(r.path)
        fresh = memdir.open(project, home=home)
        try:
            for m in (live, fresh):
                assert sorted(h.id for h in m.recent()) == ["decisions/" + b.path.stem, "facts/deploy-target"]
                assert m.outline() == fresh.outline() and not any("force push" in x for x in m.outline())
                assert [n.id for n in m.rules()] == []
                assert m.get("facts/deploy-target").text.endswith("frankfurt")
                assert m.get(a.id) is None and m.get(b.id) is None
                assert m.forget_matching(query="force push")["count"] == 0
                assert m.status()["project"]["notes"] == 2
        finally:
            fresh.close()
        # forgetting an id the note no longer has forgets nothing, and says so, as a fresh process does
        assert live.forget(a.id) is False
        assert [h.id for h in live.recall("frankfurt")] == ["facts/deploy-target"]
        assert live.pin("facts/deploy-target").pinned
        out = tmp_path / "export.jsonl"
        assert live.export(out)["notes"] == 2
        assert live.forget("facts/deploy-target") and not renamed.exists()
        assert live.recall("frankfurt") == [] and "frankfurt" not in live.context("where do we deploy")
    finally:
        live.close()


def test_c20_a_bulk_forget_or_import_looks_at_the_disk_once(project, tmp_path, monkeypatch):
    """forget_matching and import_jsonl look at the disk once, not once per note (each look after a write scans
    every note file: a bulk operation of n notes paid n full scans)."""
    from memdir.engine.root import Root

    m = memdir.open(project, home=tmp_path / "g")
    try:
        for i in range(12):
            m.remember(f"zebra note number {i} about stripes {i * 7919}", category="facts")
        out = tmp_path / "export.jsonl"
        m.export(out)
        looks = []
        real = Root.resync
        monkeypatch.setattr(Root, "resync", lambda self: looks.append(self.scope) or real(self))
        preview = m.forget_matching(query="zebra")
        assert m.forget_matching(query="zebra", token=preview["token"])["count"] == 12
        assert len(looks) <= 2 * len(m.stores.live()), looks  # the preview's look and the delete's
        looks.clear()
        assert m.import_jsonl(out)["notes"] == 0  # forgotten after the export: not brought back
        with memdir.open(tmp_path / "other", home=tmp_path / "g2") as other:
            (tmp_path / "other" / ".memory").mkdir(parents=True, exist_ok=True)
            looks.clear()
            assert other.import_jsonl(out)["notes"] == 12
            assert len(looks) <= 2 * len(other.stores.live()), looks
    finally:
        m.close()
