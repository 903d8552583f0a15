"""A note whose frontmatter a hand edit broke can be repaired with `edit`; short handles name notes for
`edit` and `pin` as they do for `get` and `forget` (README: a handle is accepted wherever an id is)."""

from __future__ import annotations

import pytest

import memdir
from memdir.errors import MemdirError, UsageError


def test_edit_repairs_a_note_whose_frontmatter_is_broken(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        n = m.remember("the cluster runs on kubernetes 1.29", category="facts")
        n.path.write_text("---\nsummary: \"unclosed\ntags: [k8s\n---\nthe cluster runs on kubernetes 1.29\n", encoding="utf-8")
        with pytest.raises(MemdirError, match="repair it first") as got:
            m.pin(n.id)  # still refused: pin keeps the frontmatter it cannot read
        assert not isinstance(got.value, UsageError)  # the file is at fault, not the call: the CLI exits 1
        fixed = m.edit(n.id, "---\nsummary: kubernetes version\ntags: [k8s]\n---\nthe cluster runs on kubernetes 1.29\n")
        assert fixed.summary == "kubernetes version" and fixed.tags == ("k8s",)
        assert [h.id for h in m.recall("kubernetes")] == [n.id]


def test_edit_and_pin_accept_a_short_handle(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        n = m.remember("deploys go through the release train on tuesdays", category="decisions")
        handle = m.recall("release train")[0].handle
        assert handle and "/" not in handle
        assert m.pin(handle).pinned is True
        assert m.get(n.id).pinned is True
        edited = m.edit(handle, "---\nsummary: release train\n---\ndeploys go through the release train on thursdays\n")
        assert edited.id == n.id and "thursdays" in m.get(n.id).text


def test_recent_refuses_an_unknown_kind_or_category_instead_of_saying_nothing_is_stored(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through the release train", category="decisions")
        with pytest.raises(UsageError, match="unknown kind 'decisoin'"):
            m.recent(kinds=["decisoin"])
        with pytest.raises(UsageError, match="unknown category 'decision'"):
            m.recent(category="decision")
        assert [h.kind for h in m.recent(kinds=["decision"])] == ["decision"]
        assert len(m.recent(category="decisions")) == 1 and m.recent(kinds=["user"]) == []
