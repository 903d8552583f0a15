"""Team recall counts each event once and every hit shape it returns renders in the viewer (issue 25 item 1).

The fusion of the local hits with a team server's is tested here without a server (its answer is given), and on real
PostgreSQL through ``memdir serve --store`` in tests/test_team_lifecycle.py."""

from __future__ import annotations

import pytest

import memdir
from memdir.engine import remote


class _Answer:
    """What :func:`memdir.engine.remote.ask` returns, with the server's answer already there."""

    def __init__(self, rows):
        self.rows, self.error = rows, None

    def result(self):
        return self.rows


def _row(ref: str, text: str, score: float, **kw) -> dict:
    return {"ref": ref, "kind": "event", "role": "user", "session": "t", "ts": "2026-09-21T00:00:00Z", "text": text,
            "score": score, "bm25": score, "prior": 1.0, "decay": 1.0, "rehearsal": 1.0, "subject": None, "date": None,
            "session_bonus": None, "handle": None, "span": None, "summary": None, **kw}


@pytest.fixture
def team_member(project, tmp_path, monkeypatch):
    """A member's clone with their own question stored locally and a server that answers with that question (their
    own event, sent from this clone) first and a teammate's answer second."""
    monkeypatch.setenv("MEMDIR_REMOTE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": "mine:q", "role": "user", "text": "why does the nightly import of invoices time out?",
                          "session": "s", "ts": 1_790_000_000}])
        own = m.get("mine:q")
        rows = [_row("mine:q", own.text, 9.0),
                _row("tom:a", "the nightly import of invoices times out because the ledger lock is held", 7.0)]
        monkeypatch.setattr(remote, "ask", lambda *a, **kw: _Answer(rows))
        yield m


def test_a_members_own_event_is_counted_once(team_member):
    """The asker's own event came back from both lists and was counted twice (1/61 + 1/61 = 0.0328), outranking the
    teammate's answer (1/62 = 0.0161); the server's copy is dropped before fusion, so each counts once."""
    hits = team_member.recall("nightly import invoices time out", k=5)
    assert [h.id for h in hits] == ["mine:q", "tom:a"]
    mine, tom = hits
    assert mine.reasons["rrf"] == {"local": 1} and tom.reasons["rrf"] == {"team": 1}
    assert mine.score == pytest.approx(1 / 61) and tom.score == pytest.approx(1 / 61)
    assert mine.scope == "project" and tom.scope == "team"


def test_the_servers_copy_of_an_event_held_locally_but_ranked_lower_is_not_a_team_hit(team_member, monkeypatch):
    """An own event the local list did not rank (held locally all the same) is still the asker's: the server's copy
    is never shown as a teammate's (``team``) hit."""
    team_member.import_events([{"key": "mine:old", "role": "user", "text": "an older turn about the ledger",
                                "session": "other", "ts": 1_780_000_000}])
    rows = [_row("mine:old", "nightly import invoices time out (the server's words)", 9.5),
            _row("tom:a", "the nightly import of invoices times out because the ledger lock is held", 7.0)]
    monkeypatch.setattr(remote, "ask", lambda *a, **kw: _Answer(rows))
    hits = team_member.recall("nightly import invoices time out", k=5)
    assert [(h.id, h.scope) for h in hits] == [("mine:q", "project"), ("tom:a", "team")]


def test_the_viewer_search_renders_team_hits(team_member):
    """The viewer's Search crashed (HTTP 500, ``'dict object' has no attribute 'bm25'``) on any hit only the team
    server had; each hit shape recall returns renders, a team hit with its server's factors and its fused ranks."""
    pytest.importorskip("starlette")
    from memdir.ui import missing_deps

    if missing_deps():
        pytest.skip(f"the ui extra is not installed: {missing_deps()}")
    from starlette.testclient import TestClient

    from memdir.ui import build

    c = TestClient(build(get=lambda: team_member, host="127.0.0.1"), base_url="http://127.0.0.1:8766",
                   raise_server_exceptions=True, follow_redirects=False)
    r = c.get("/search", params={"q": "nightly import invoices time out", "k": 5})
    assert r.status_code == 200, r.text[:500]
    assert 'data-id="tom:a"' in r.text and 'data-id="mine:q"' in r.text
    tom = r.text.split('data-id="tom:a"')[1].split("</li>")[0]
    assert "team" in tom and "BM25 7" in tom and "team #1" in tom


def test_the_viewer_renders_every_hit_shape(tmp_path):
    """Local (lexical factors), fused with embeddings (channel ranks, RRF score, similarity), a local hit fused with
    the team's list (rrf: ranks per list) and a team hit (factors under reasons.team): each renders."""
    from memdir.ui import missing_deps

    if missing_deps():
        pytest.skip(f"the ui extra is not installed: {missing_deps()}")
    from starlette.testclient import TestClient

    from memdir.types import Hit
    from memdir.ui import build

    lexical = {"terms": ["deploy"], "fields": {"body": ["deploy"]}, "scope": "project", "bm25": 2.5, "prior": 1.0,
               "decay": 0.9, "rehearsal": 1.0}
    hits = [Hit(id="e:1", key="e:1", kind="user", scope="project", score=2.2, text="deploy one", reasons=lexical),
            Hit(id="e:2", key="e:2", kind="user", scope="project", score=0.03, text="deploy two",
                reasons={**lexical, "ranks": {"lexical": 2, "vector": 1}, "rrf": 0.0325, "similarity": 0.81}),
            Hit(id="e:3", key="e:3", kind="user", scope="project", score=0.016, text="deploy three",
                reasons={**lexical, "ranks": {"lexical": 1}, "rrf": {"local": 3}}),
            Hit(id="t:4", key="t:4", kind="user", scope="team", score=0.016, text="deploy four",
                reasons={"team": {"bm25": 3.5, "prior": 1.0, "decay": 1.0, "rehearsal": 1.0}, "rrf": {"team": 1}}),
            Hit(id="t:5", key="t:5", kind="event", scope="team", score=0.0, text="deploy five", reasons={})]

    class Fake:
        config = {"categories": ["facts"]}

        def recall(self, q, **kw):
            return hits

    c = TestClient(build(get=lambda: Fake(), host="127.0.0.1"), base_url="http://127.0.0.1:8766",
                   raise_server_exceptions=True, follow_redirects=False)
    r = c.get("/search", params={"q": "deploy", "k": 10})
    assert r.status_code == 200, r.text[:500]
    for h in hits:
        assert f'data-id="{h.id}"' in r.text
    assert "similarity 0.810" in r.text and "local #3" in r.text and "BM25 3.5" in r.text


def test_a_teammate_s_memory_is_marked_team_in_the_block():
    """The <memory> block marks a teammate's memory as recall's output does ("team"), so the model can tell it
    from the user's own; a local hit's header is unchanged."""
    from datetime import datetime, timezone

    from memdir.inject import block, entries
    from memdir.types import Hit

    now = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
    mine = Hit(id="e:1", key="e:1", kind="user", scope="project", score=2.0, text="deploy with the blue pipeline",
               reasons={}, handle="abc123", ts=now)
    theirs = Hit(id="t:4", key="t:4", kind="user", scope="team", score=1.0, text="staging migrations run with flyway",
                 reasons={}, handle="ahgqr5", ts=now)
    out = block.build(rules=[], outline=[], entries=[entries.entry(h, now) for h in (mine, theirs)], max_chars=1200,
                      max_entries=4)
    assert "[ahgqr5 team user] staging migrations run with flyway" in out
    assert "[abc123 user 11-02] deploy with the blue pipeline" in out


def test_a_silent_server_costs_the_block_one_recall_budget(project, tmp_path, monkeypatch):
    """A prompt asked again and again makes the block ask recall twice (a wider second look, past the echoes of the
    prompt); with a team server that accepts and never answers, the block still waits for it one
    ``remote.recall_budget_ms`` in all, not once per look (a prompt hook took 2 x 300 ms more, past a second)."""
    import socket
    import time

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    try:
        monkeypatch.setenv("MEMDIR_REMOTE_URL", f"http://127.0.0.1:{srv.getsockname()[1]}/v1")
        monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
        monkeypatch.setenv("MEMDIR_REMOTE_PUSH_BUDGET_MS", "0")
        prompt = "how do we tune the flux capacitor before the deploy"
        with memdir.open(project, home=tmp_path / "g", config={"remote.recall_budget_ms": 1500}) as m:
            m.import_events([{"key": f"q{i}", "role": "user", "text": prompt, "session": f"s{i}", "ts": 1_790_000_000 + i}
                             for i in range(6)])
            waited: list[float] = []
            result = remote.Recall.result

            def timed(self):
                t = time.monotonic()
                try:
                    return result(self)
                finally:
                    waited.append(time.monotonic() - t)

            monkeypatch.setattr(remote.Recall, "result", timed)
            m.context(prompt)
        assert len(waited) >= 1 and sum(waited) < 1.5 + 0.4, waited
    finally:
        srv.close()
