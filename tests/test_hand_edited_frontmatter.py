"""Frontmatter and folders a person edits by hand: a ``pinned`` written as ``1``/``0``, ``"yes"`` or ``on`` reads as
the person meant it (without a warning), and notes put in a folder inside a category are named by ``inspect``, never
skipped silently."""

from __future__ import annotations

import pytest

import memdir


@pytest.mark.parametrize("written,pinned", [("1", True), ("0", False), ('"yes"', True), ("yes", True), ('"1"', True),
                                            ("on", True), ('"off"', False), ("false", False), ("true", True)])
def test_a_hand_written_pinned_reads_as_meant(project, tmp_path, written, pinned):
    facts = project / ".memory" / "facts"
    facts.mkdir(parents=True)
    (facts / "flag.md").write_text(f"---\npinned: {written}\n---\nThe staging database is read only.\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.get("facts/flag").pinned is pinned
        assert not [p for p in m.inspect().problems if "pinned" in p["detail"]]


def test_pinned_that_is_no_flag_is_still_said(project, tmp_path):
    facts = project / ".memory" / "facts"
    facts.mkdir(parents=True)
    (facts / "flag.md").write_text("---\npinned: 2\n---\nThe staging database is read only.\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.get("facts/flag").pinned is False
        assert any("pinned '2' is not true/false" in p["detail"] for p in m.inspect().problems)


def test_notes_in_a_folder_inside_a_category_are_named_not_skipped_silently(project, tmp_path):
    facts = project / ".memory" / "facts"
    (facts / "infra" / "db").mkdir(parents=True)
    (facts / "infra" / "db" / "pg.md").write_text("Postgres runs version 16.\n", encoding="utf-8")
    (facts / "assets").mkdir()
    (facts / "assets" / "diagram.png").write_bytes(b"\x89PNG")  # no Markdown inside: not a problem
    (facts / "top.md").write_text("Redis runs on port 6379.\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert [h.id for h in m.recall("redis")] == ["facts/top"]
        named = [p for p in m.inspect().problems if p["path"].startswith(str(facts))]
        assert [p["path"] for p in named] == [str(facts / "infra")]
        assert "not read as notes" in named[0]["detail"] and "facts/" in named[0]["detail"]
        assert [p["path"] for p in m.note_problems()] == [str(facts / "infra")]  # the CLI's one warning line
    assert (facts / "infra" / "db" / "pg.md").read_text(encoding="utf-8") == "Postgres runs version 16.\n"
