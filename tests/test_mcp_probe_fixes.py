"""Faults an MCP probe found: forget by text never takes the lines of ROOT.md (a person's hard rules and goals, edited
by hand), so a confirmed delete neither fails half-way nor touches ROOT.md; a remember too large for its note file
writes nothing."""

from __future__ import annotations

import memdir


def test_a_root_md_rule_matching_the_query_is_left_out_and_the_notes_go(tmp_path, project):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        a = m.remember("we run the test suite before every push on CI too", category="facts")
        b = m.remember("the test suite before every push takes 4 minutes", category="facts")
    root_md = project / ".memory" / "ROOT.md"
    root_md.write_text(root_md.read_text(encoding="utf-8").replace(
        "<!-- notes in rules/ are injected into every prompt -->\n",
        "<!-- notes in rules/ are injected into every prompt -->\n\n- run the test suite before every push\n", 1),
        encoding="utf-8")
    with memdir.open(project, home=home) as m:
        assert [r.id for r in m.rules()] == ["ROOT.md/rule-01"]
        preview = m.forget_matching(query="test suite before every push")
        assert preview["count"] == 2 and not any(x["id"].startswith("ROOT.md/") for x in preview["samples"])
        done = m.forget_matching(query="test suite before every push", token=preview["token"])
        assert done["deleted"] and done["count"] == 2
        assert m.get(a.id) is None and m.get(b.id) is None
        assert "run the test suite before every push" in root_md.read_text(encoding="utf-8")
        assert [r.id for r in m.rules()] == ["ROOT.md/rule-01"]


def test_a_remember_too_large_for_its_file_writes_nothing(tmp_path, project):
    """A 1 MB summary (or highlight, tags, load_when) made a note file readers refuse: the remember failed after
    writing it, and each retry left another. Refused before any file is written now."""
    import pytest

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a small note first", category="facts")
        before = sorted(p.name for p in (project / ".memory" / "facts").iterdir())
        for kw in ({"summary": "S" * 1_000_000}, {"highlight": "H" * 1_000_000},
                   {"load_when": [f"w{i} " + "x" * 1000 for i in range(1000)]}):
            with pytest.raises(memdir.UsageError, match="note too long"):
                m.remember("big summary note", category="facts", **kw)
        assert sorted(p.name for p in (project / ".memory" / "facts").iterdir()) == before
        assert m.inspect().problems == []


def test_odd_prune_days_and_superseding_a_root_md_line_are_one_line_errors(tmp_path, project):
    import pytest

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a small note first", category="facts")
        for days in (1e308, 1e20):
            with pytest.raises(memdir.UsageError, match="from 0 to"):
                m.prune(days)
        for sup in ("ROOT.md/rule-01", "facts/index"):
            with pytest.raises(memdir.UsageError, match="ROOT.md|compiled index"):
                m.remember("secrets in the repo are fine", category="facts", supersedes=sup)
        assert [n.id for n in m.inspect().notes] == ["facts/a-small-note-first"]
