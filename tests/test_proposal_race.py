"""A proposal is decided once: an accept and a reject (or two accepts) at the same moment never both succeed."""

from __future__ import annotations

import threading

import pytest

import memdir
from memdir.engine import curated
from memdir.errors import UsageError


def test_a_reject_while_an_accept_writes_the_note_waits_and_is_refused(tmp_path, monkeypatch):
    (tmp_path / "p").mkdir()
    m = memdir.Memdir(tmp_path / "p", home=tmp_path / "g")
    other = memdir.Memdir(tmp_path / "p", home=tmp_path / "g")  # another process's view of the same store
    try:
        pid = m.propose("always run the linter before pushing")["id"]
        outcome: dict[str, object] = {}

        def reject() -> None:
            try:
                outcome["reject"] = other.reject_proposal(pid)
            except UsageError as exc:
                outcome["reject"] = exc

        real = curated.remember

        def remember_while_rejecting(*a, **kw):  # the reject arrives while the accept is writing its note
            t = threading.Thread(target=reject)
            t.start()
            t.join(0.5)
            outcome["thread"] = t
            return real(*a, **kw)

        monkeypatch.setattr(curated, "remember", remember_while_rejecting)
        note = m.accept_proposal(pid)
        outcome["thread"].join(10)
        assert isinstance(outcome["reject"], UsageError) and "already accepted" in str(outcome["reject"])
        decided = {p["id"]: p["status"] for p in m.proposals(status=None)}
        assert decided[pid] == "accepted" and m.get(note.id) is not None
    finally:
        other.close()
        m.close()


def test_a_second_accept_of_the_same_proposal_is_refused(tmp_path):
    (tmp_path / "p").mkdir()
    m = memdir.Memdir(tmp_path / "p", home=tmp_path / "g")
    try:
        pid = m.propose("never commit generated files")["id"]
        m.accept_proposal(pid)
        with pytest.raises(UsageError, match="already accepted"):
            m.accept_proposal(pid)
    finally:
        m.close()
