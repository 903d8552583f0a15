"""Superseding with a text memdir already holds links that note (a probe: `remember X --supersedes OLD` printed
"already remembered" and dropped the link, in the CLI, MCP and the viewer, so OLD kept ranking first); superseding a
note another one superseded already is refused with the one to supersede instead (the first link was left dangling)."""

from __future__ import annotations

import pytest

import memdir
from memdir.errors import UsageError


@pytest.fixture
def m(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as store:
        yield store


def test_an_existing_text_takes_the_supersede_link(m):
    old = m.remember("Old: logs go to papertrail", category="facts")
    new = m.remember("Logs go to Loki via promtail", category="facts")
    again = m.remember("Logs go to Loki via promtail", category="facts", supersedes=old.id)
    assert again.existed and again.id == new.id and again.supersedes == old.id
    assert m.get(old.id).superseded_by == new.id
    assert old.id not in [h.id for h in m.recall("logs go")]
    assert m.inspect().problems == []
    path = m.roots["project"].path / (new.id + ".md")
    before = path.read_text(encoding="utf-8")
    once_more = m.remember("Logs go to Loki via promtail", category="facts", supersedes=old.id)
    assert once_more.existed and path.read_text(encoding="utf-8") == before  # linked so already: nothing written


def test_a_note_cannot_supersede_itself(m):
    note = m.remember("Logs go to Loki via promtail", category="facts")
    with pytest.raises(UsageError, match="itself"):
        m.remember("Logs go to Loki via promtail", category="facts", supersedes=note.id)


def test_superseding_a_superseded_note_names_the_one_to_supersede(m):
    a = m.remember("Use node 18 for the frontend", category="decisions")
    b = m.remember("Use node 20 for the frontend", category="decisions", supersedes=a.id)
    with pytest.raises(UsageError, match=f"superseded by {b.id} already"):
        m.remember("Use node 22 for the frontend", category="decisions", supersedes=a.id)
    c = m.remember("Use node 22 for the frontend", category="decisions", supersedes=b.id)
    assert m.get(b.id).superseded_by == c.id and m.get(a.id).superseded_by == b.id


def test_pinning_a_pinned_note_writes_nothing(m, project, capsys):
    from conftest import run_cli

    note = m.remember("deploys go through helm charts", category="decisions", pinned=True)
    path = m.roots["project"].path / (note.id + ".md")
    before = path.read_bytes()
    assert m.pin(note.id, True).pinned and path.read_bytes() == before
    code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(m.home), "pin", note.id)
    assert code == 0 and out.startswith("already pinned") and path.read_bytes() == before
    assert not m.pin(note.id, False).pinned and path.read_bytes() != before


def test_forgetting_the_older_note_leaves_no_dangling_link(m):
    a = m.remember("Use node 18 for the frontend", category="decisions")
    b = m.remember("Use node 20 for the frontend", category="decisions", supersedes=a.id)
    assert m.forget(a.id)
    assert m.get(b.id).supersedes is None and m.inspect().problems == []


def test_an_export_with_two_notes_of_one_text_brings_both_back(m, project, tmp_path):
    root = m.roots["project"].path
    m.remember("seed note so the root exists", category="facts")
    for cat, slug in (("facts", "dup-a"), ("decisions", "dup-b")):
        (root / cat).mkdir(exist_ok=True)
        (root / cat / f"{slug}.md").write_text("---\nsummary: same body\n---\nThe cache lives in redis db 3.\n",
                                               encoding="utf-8")
    out = tmp_path / "dump.jsonl"
    with memdir.open(project, home=m.home) as m1:  # a later command: it reads the hand-made files
        assert m1.export(out)["notes"] == 3
    other = tmp_path / "other"
    other.mkdir()
    with memdir.open(other, home=tmp_path / "g2") as m2:
        got = m2.import_jsonl(out)
        assert got["notes"] == 3 and got["notes_existing"] == 0
        assert {"facts/dup-a", "decisions/dup-b"} <= {n.id for n in m2.inspect().notes}
        again = m2.import_jsonl(out)
        assert again["notes"] == 0 and again["notes_existing"] == 3


def test_a_proposal_that_replaces_a_pinned_note_says_so_before_and_after(m, project, capsys):
    from conftest import run_cli
    from memdir.notes import proposals as props

    old = m.remember("deploy with npm", category="decisions", pinned=True)
    props.create(m.roots["project"].path, text="deploy with yarn now", summary="Deploy with yarn now",
                 category="decisions", supersedes=old.id, source="distill", now=m.clock())
    code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(m.home), "proposals")
    assert code == 0 and "decisions note: Deploy with yarn now" in out and f"(replaces {old.id})" in out
    pid = out.split()[0]
    code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(m.home), "proposals", "accept", pid)
    assert code == 0 and f"{old.id} is superseded by it" in out


def test_an_edit_whose_frontmatter_a_dash_line_closed_early_is_refused(m):
    from memdir.errors import UsageError

    note = m.remember("deploys go through helm charts", category="decisions", pinned=True)
    raw = (f"---\nid: {note.id}\nsummary: deploys go through helm\n---\npinned: true\nsource: distill\n---\n"
           "deploys go through helm charts\n")
    with pytest.raises(UsageError, match="closes the frontmatter early"):
        m.edit(note.id, raw)
    assert m.get(note.id).pinned


def test_an_export_s_note_whose_text_is_here_under_another_id_is_already_there(m, project, tmp_path):
    m.remember("the staging db is reset every sunday night", category="facts", summary="staging reset")
    out = tmp_path / "a.jsonl"
    m.export(out)
    other = tmp_path / "b"
    other.mkdir()
    with memdir.open(other, home=tmp_path / "g2") as m2:
        m2.remember("the staging db is reset every sunday night", category="facts")
        got = m2.import_jsonl(out)
        assert got["notes"] == 0 and got["notes_existing"] == 1 and len(m2.inspect().notes) == 1


def test_a_note_that_supersedes_one_already_is_not_relinked_to_another(m):
    x = m.remember("cache ttl is 5 minutes", category="facts")
    y = m.remember("deploys use helm", category="facts")
    e = m.remember("cache ttl is 10 minutes now", category="facts", supersedes=x.id)
    with pytest.raises(UsageError, match="supersedes one other"):
        m.remember("cache ttl is 10 minutes now", category="facts", supersedes=y.id)
    assert m.get(e.id).supersedes == x.id and m.get(y.id).superseded_by is None


def test_forgetting_a_note_keeps_links_to_a_note_of_that_id_in_the_other_root(m):
    g = m.remember("widgets ship on mondays", category="facts", scope="global", summary="widgets")
    t = m.remember("widgets ship on thursdays", category="facts", scope="global", supersedes=g.id)
    p = m.remember("widgets are blue in this project", category="facts", summary="widgets")
    assert p.id == g.id and m.forget(p.id, scope="project")
    assert m.get(t.id, scope="global").supersedes == g.id


def test_a_note_remembered_with_fields_and_a_dash_line_in_its_text_can_be_edited(m):
    note = m.remember("model: gpt-4o is what the summarizer uses\n---\nWe pinned it after the eval in March.",
                      category="decisions")
    raw = (m.roots["project"].path / (note.id + ".md")).read_text(encoding="utf-8")
    assert m.edit(note.id, raw.replace("March", "April")).text.endswith("April.")


def test_forgetting_the_middle_of_a_chain_keeps_the_oldest_superseded(m, project):
    """A→B→C, then B forgotten: A was replaced twice and stays hidden, now by C (it came back live beside C, two
    contradicting notes in recall, the block and the outline); forgetting C afterwards brings A back, as forgetting
    the newest note of a chain does."""
    a = m.remember("Use node 18 for the frontend", category="decisions")
    b = m.remember("Use node 20 for the frontend", category="decisions", supersedes=a.id)
    c = m.remember("Use node 22 for the frontend", category="decisions", supersedes=b.id)
    assert m.forget(b.id)
    assert m.get(a.id).superseded_by == c.id and m.get(c.id).supersedes == a.id
    assert [h.id for h in m.recall("node frontend")] == [c.id]
    assert "node 18" not in m.context("which node for the frontend?") and m.inspect().problems == []
    with memdir.open(project, home=m.home) as fresh:  # the files say so, not only this process's index
        assert [h.id for h in fresh.recall("node frontend")] == [c.id]
    assert m.forget(c.id)
    assert m.get(a.id).superseded_by is None and [h.id for h in m.recall("node frontend")] == [a.id]


def test_forgetting_the_middle_of_a_chain_across_the_roots(m):
    a = m.remember("widgets ship on mondays", category="facts", scope="global")
    b = m.remember("widgets ship on tuesdays", category="facts", supersedes=a.id)
    c = m.remember("widgets ship on fridays", category="facts", supersedes=b.id)
    assert m.forget(b.id)
    assert m.get(a.id, scope="global").superseded_by == c.id and m.get(c.id).supersedes == a.id
    assert [h.id for h in m.recall("widgets ship")] == [c.id] and m.inspect().problems == []


def test_the_model_is_told_which_note_to_supersede_without_a_cli_flag(m):
    """memory_remember's error named the CLI's --supersedes flag to a model, whose argument is `supersedes`."""
    from memdir.server.tools import do_remember

    a = m.remember("Use node 18 for the backend", category="decisions")
    b = m.remember("Use node 20 for the backend", category="decisions", supersedes=a.id)
    with pytest.raises(UsageError) as err:
        do_remember(m, "Use node 22 for the backend", category="decisions", supersedes=a.id)
    assert f"supersede {b.id} instead" in str(err.value) and "--" not in str(err.value)
