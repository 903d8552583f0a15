"""A bulk delete (forget --query/--prefix, prune, an export's tombstones) reads each session it touches once, not once
per deleted event: deleting a third of one long session's turns read that whole session again for every turn, so
`memdir forget --prefix import:…` of a 20,000-turn import ran for minutes. The neighbours' context still loses the
deleted words, and the full-text index stays exact."""

from __future__ import annotations

import memdir
from memdir.store.sqlite.index import check_fts


def _events(n: int, session: str = "long") -> list[dict]:
    return [{"key": f"import:t:{session}:{i}", "role": "user" if i % 2 == 0 else "assistant", "session": session,
             "ts": 1_700_000_000 + i,
             "text": f"turn {i} of session {session}: {'zebracode' if i % 3 == 0 else 'plainline'} words w{i} rollout"}
            for i in range(n)]


def _session_reads(m, action) -> int:
    """Statements naming the session column that ``action`` runs on the project index."""
    db = m.roots["project"].store.db
    seen: list[str] = []
    db.set_trace_callback(seen.append)
    try:
        action()
    finally:
        db.set_trace_callback(None)
    return sum("session = " in s or "session=" in s for s in seen)


def _check(m, n: int, deleted: int) -> None:
    assert m.recall("zebracode", k=5) == []  # not by its own text, nor through a neighbour's context
    assert len(m.recall("plainline rollout", k=5)) == 5
    db = m.roots["project"].store.db
    assert db.execute("SELECT count(*) FROM docs WHERE kind = 'event'").fetchone()[0] == n - deleted
    assert check_fts(db) == []


def test_forget_query_reads_a_session_once_not_per_turn(tmp_path, project):
    n = 600
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(n))
        out: dict = {}
        reads = _session_reads(m, lambda: out.update(m.forget_matching(query="zebracode", force=True)))
        assert out["count"] == n // 3
        assert reads < 20, reads  # one pass per session (and a few lookups), not one per deleted turn
        _check(m, n, n // 3)


def test_forget_prefix_across_sessions_keeps_the_index_exact(tmp_path, project):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(_events(90, "a") + _events(90, "b"))
        out = m.forget_matching(prefix="import:t:a:", force=True)
        assert out["count"] == 90
        db = m.roots["project"].store.db
        assert db.execute("SELECT count(*) FROM docs WHERE kind = 'event'").fetchone()[0] == 90
        out = m.forget_matching(query="zebracode", force=True)
        assert out["count"] == 30
        _check(m, 180, 120)
