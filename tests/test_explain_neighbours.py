"""`recall --explain` says why a turn ranks when it matched through its neighbouring turns alone (recall's context
weight): its reasons name those terms under ``fields["context"]``; before, a reply found through the question before
it showed no term and no field at all."""

from __future__ import annotations

import memdir


def _turns(m):
    m.capture({"role": "user", "session": "s1", "key": "u1", "ts": "2026-12-01T10:00:00Z",
               "text": "should we squash the commits before merging the feature branch?"})
    m.capture({"role": "assistant", "session": "s1", "key": "a1", "ts": "2026-12-01T10:00:05Z",
               "text": "Yes: keep one commit per feature on main, it reads better in the log."})


def test_a_turn_found_through_its_neighbour_names_the_terms_it_matched_there(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        _turns(m)
        for warm in (False, True):  # the SQL path, then the postings held in memory
            if warm:
                m.keep_warm(build=True)
            reply = next(h for h in m.recall("squash", k=5) if h.kind == "assistant")
            assert reply.reasons["fields"] == {"context": ["squash"]}, warm
            assert reply.reasons["terms"] == []  # the reply itself holds none of the query's words
            own = next(h for h in m.recall("squash", k=5) if h.kind == "user")
            assert "context" not in own.reasons["fields"] and own.reasons["terms"] == ["squash"]


def test_the_model_s_recall_reply_leaves_the_neighbour_terms_out(tmp_path):
    """memory_recall's reply shares one bound between its hits' texts and their fields: the neighbour terms, for a
    person's --explain, would take room from the texts (block-QA: one validation answer cut out of the reply)."""
    from memdir.server.tools import hit_out

    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        _turns(m)
        reply = next(h for h in m.recall("squash", k=5) if h.kind == "assistant")
    assert reply.reasons["fields"] == {"context": ["squash"]}
    assert hit_out(reply)["reasons"]["fields"] == {}


def test_a_long_query_s_terms_past_the_index_mask_are_not_called_neighbour_matches(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        _turns(m)
        q = "squash " + " ".join(f"w{i}x" for i in range(70)) + " production"
        for h in m.recall(q, k=5):
            assert not any(t.startswith("w") or t.startswith("product") for t in h.reasons["fields"].get("context", ())), h.reasons
