"""An import stored in batches holds exactly what the same events stored one call each hold: the same docs rows,
the same neighbour links, the same full-text index term by term, the same recall. Real LongMemEval turns when
../shared/data is there (redaction and the compression dictionary at work), else generated ones."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

import memdir

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _events(n: int) -> list[dict]:
    if (DATA / "longmemeval").is_dir():
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from bench import speed

        got = speed._real_items(n)
        if got is not None:
            evs = got[0]
            evs[3] = {**evs[3], "text": evs[3]["text"] + " token=8f3a9c1d2b7e4f60a1b2c3d4"}  # redacted on the way in
            return evs + [dict(evs[5])]  # a duplicate, counted as such either way
    rng = random.Random(5)
    words = "deploy cache migration pnpm staging token retry index batch session lock hook".split()
    evs = [{"key": f"k{i}", "role": rng.choice(["user", "assistant"]), "session": f"s{i // 9}",
            "ts": 1_790_000_000 + i * 30, "text": " ".join(rng.choice(words) for _ in range(rng.randint(5, 400)))}
           for i in range(n)]
    return evs + [dict(evs[5])]  # a duplicate here too (without ../shared the test must still hold)


def _state(project: Path) -> dict:
    db = sqlite3.connect(next(project.glob(".memory/.memdir/index.sqlite3")))
    ids = dict(db.execute("SELECT id, ref FROM docs"))
    rows = sorted(db.execute("SELECT ref, content_sha256, role, session, ts, ts_epoch, meta, handle, text_len, "
                             "text_head, CAST(text_tail AS BLOB), ctx_prev, ctx_next FROM docs"))
    rows = [(*r[:-2], ids.get(r[-2]), ids.get(r[-1])) for r in rows]  # neighbours by key, not by id
    db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, fts, instance)")
    by_id = {i: r for i, r in ids.items()}
    terms = sorted((t, by_id.get(d, d), c, o) for t, d, c, o in db.execute("SELECT term, doc, col, offset FROM temp.v"))
    db.close()
    return {"rows": rows, "terms": terms}


def test_a_batched_import_stores_exactly_what_one_event_at_a_time_stores(tmp_path, monkeypatch):
    from memdir.engine import events as event_ops
    from memdir.store.sqlite import index

    evs = _events(400)
    monkeypatch.setattr(event_ops, "BATCH_SECONDS", 1e9)
    monkeypatch.setattr(event_ops, "BATCH_EVENTS", 64)  # several batches, sessions cut across them
    got = {}
    for mode in ("batched", "one by one"):
        project = tmp_path / mode.replace(" ", "_")
        (project / ".git").mkdir(parents=True)
        with memdir.open(project, home=tmp_path / f"g-{mode}") as m:
            if mode == "batched":
                counts = m.import_events(evs)
            else:
                counts = {"stored": 0, "duplicate": 0}
                for ev in evs:
                    c = m.import_events([ev])
                    counts = {k: counts[k] + c[k] for k in counts}
            assert index.check_fts(m.roots["project"].db) == []
            hits = [(h.id, h.score) for h in m.recall("what did I say about the deploy and the cache", k=10)]
            texts = [r[0] for r in m.roots["project"].db.execute("SELECT text FROM docs")]
        got[mode] = (counts["stored"], counts["duplicate"], hits, _state(project), texts)
    assert got["batched"][:2] == got["one by one"][:2] and got["batched"][1] >= 1
    assert got["batched"][3]["rows"] == got["one by one"][3]["rows"]
    assert got["batched"][3]["terms"] == got["one by one"][3]["terms"]
    assert got["batched"][2] == got["one by one"][2]
    assert got["batched"][4] == got["one by one"][4]
    assert not any("8f3a9c1d2b7e4f60a1b2c3d4" in t for t in got["batched"][4])
