"""Frontmatter and folders a person edits by hand: a ``pinned`` written as ``1``/``0``, ``"yes"`` or ``on`` reads as
the person meant it (without a warning)."""

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

