"""The Python API's calls given arguments of the wrong type or an unknown value: a one-line ``UsageError`` (or the
documented default for ``None``), nothing written; never a ``TypeError``/``AttributeError`` from deep inside, and
never a silently wrong result (a string of tags split into letters, a proposal no accept can file)."""

from __future__ import annotations

import subprocess

import pytest

import memdir


@pytest.fixture()
def m(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    with memdir.open(proj, home=tmp_path / "home") as mem:
        yield mem


def note_files(m) -> list[str]:
    root = m.status()["project"]["path"]
    from pathlib import Path

    return sorted(str(p) for p in Path(root).rglob("*.md") if p.name not in ("index.md", "ROOT.md"))


def test_remember_takes_none_and_one_string_for_tags_and_load_when(m):
    n = m.remember("deploy uses pnpm not npm", tags=None, load_when=None)
    assert n.tags == () and n.load_when == ()
    n = m.remember("the staging server is db-2", tags="infra", load_when="staging")
    assert n.tags == ("infra",) and n.load_when == ("staging",)  # one tag, not i, n, f, r, a
    assert m.get(n.id).tags == ("infra",)


@pytest.mark.parametrize("field, value", [
    ("summary", 5), ("highlight", 3), ("supersedes", 7), ("provenance", [1]), ("pinned", "no"),
    ("tags", 5), ("tags", [None]), ("load_when", {"a": 1}), ("tags", b"abc"), ("kind", ["decision"]),
])
def test_remember_with_a_field_of_the_wrong_type_is_a_usage_error_and_writes_nothing(m, field, value):
    m.remember("an earlier note so the root exists")
    before = note_files(m)
    with pytest.raises(memdir.UsageError) as err:
        m.remember("a note with one bad field", **{field: value})
    assert field in str(err.value) and "\n" not in str(err.value)
    assert note_files(m) == before


@pytest.mark.parametrize("field, value", [
    ("summary", 5), ("supersedes", 7), ("provenance", [1]), ("tags", 5), ("source", 3),
    ("category", "nope"), ("category", "../x"),
])
def test_propose_with_a_bad_field_is_a_usage_error_and_proposes_nothing(m, field, value):
    with pytest.raises(memdir.UsageError):
        m.propose("always run the tests before a push", **{field: value})
    assert m.proposals(status=None) == []


def test_a_proposal_takes_none_and_one_string_for_tags(m):
    p = m.propose("always run the tests before a push", tags=None, load_when="push")
    assert p["tags"] == [] and p["load_when"] == ["push"]
    assert m.accept_proposal(p["id"]).load_when == ("push",)


def test_explain_refuses_a_kind_no_memory_can_have_as_recall_does(m):
    m.remember("deploy uses pnpm not npm", category="decisions")
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.recall("deploy", kinds=["bogus"])
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.explain("deploy", kinds=["bogus"])  # was {"hits": []}: a typo read as "nothing found"


def test_one_kind_given_as_a_string_is_that_kind(m):
    m.remember("deploy uses pnpm not npm", category="decisions")
    assert [h.kind for h in m.recall("deploy", kinds="decision")] == ["decision"]  # was "unknown kind 'd'"
    assert [h.kind for h in m.recent(kinds="decision")] == ["decision"]
    assert [h["kind"] for h in m.explain("deploy", kinds="decision")["hits"]] == ["decision"]


def test_context_refuses_an_unknown_section_and_takes_one_as_a_string(m):
    m.remember("deploy uses pnpm not npm", category="decisions")
    assert "pnpm" in m.context("how do we deploy", sections="hits")  # was "" (the letters h, i, t, s)
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.context("how do we deploy", sections=("hits", "bogus"))  # was "" or a block without it, unsaid


def test_proposals_refuses_an_unknown_status(m):
    m.propose("always run the tests before a push")
    assert len(m.proposals(status="pending")) == 1
    with pytest.raises(memdir.UsageError, match="bogus"):
        m.proposals(status="bogus")  # was [] as if none were there
