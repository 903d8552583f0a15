"""One damaged vector (cut, or text written over it) made every hybrid recall, the block and the viewer's search fail
with an internal error while doctor said all was well (a probe). Recall leaves it out now, status and doctor count
it, and a backfill embeds it again."""

from __future__ import annotations

import memdir


def test_a_damaged_vector_is_left_out_said_and_embedded_again(project, tmp_path):
    cfg = {"recall.channel": "hybrid", "embed.provider": "fake", "embed.recall_backfill_ms": 0}
    with memdir.open(project, home=tmp_path / "g", config=cfg) as m:
        m.remember("the kube api pitfall: use server-side apply for CRDs", category="pitfalls")
        m.remember("redis listens on port 6380 in staging", category="facts")
        m.backfill()
        db = m.roots["project"].db
        db.execute("UPDATE vectors SET vector = substr(vector, 1, 101) WHERE ref LIKE 'pitfalls/%'")
        db.commit()
        hits = m.recall("which port does redis use in staging")
        assert hits and hits[0].id.startswith("facts/")
        assert "redis" in m.context("which port does redis use in staging")
        assert m.status()["project"]["vectors"]["damaged"] == 1
        checks = {c["check"]: c for c in m.doctor()}
        assert checks["project vectors"]["ok"] == "warn" and "backfill" in checks["project vectors"]["remedy"]
        m.backfill()
        assert m.status()["project"]["vectors"].get("damaged", 0) == 0
        assert m.recall("kube api server-side apply")[0].id.startswith("pitfalls/")


def test_status_asks_for_no_api_key_for_a_packaged_model(project, tmp_path, capsys, monkeypatch):
    from conftest import run_cli

    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    monkeypatch.setenv("MEMDIR_EMBED_PROVIDER", "fake")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, out, err = run_cli(capsys, "--dir", str(project), "status")
    assert code == 0 and "embedding: provider=fake" in out and "OPENAI_API_KEY" not in out
