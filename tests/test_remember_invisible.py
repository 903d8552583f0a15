"""What a note is written with: a text of nothing but invisible characters (zero-width spaces, a BOM) is as empty as
one of spaces, and control characters (a bell, the escape sequences that recolour, retitle or clear a terminal) never reach
the Markdown a person reads with ``cat`` or the index.md compiled from it. Invisible joiners inside a text (an emoji
sequence, a Persian word) are kept: they are part of what was written."""

from __future__ import annotations

import pytest

import memdir
from memdir.errors import UsageError


@pytest.fixture
def m(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as mem:
        yield mem


@pytest.mark.parametrize("text", ["\u200b\u200b", "\ufeff \u200d\n", "\x07\x1b", "\u2060\t\u00ad"])
def test_a_text_of_invisible_characters_is_empty(m, text):
    with pytest.raises(UsageError, match="the text is empty"):
        m.remember(text)
    assert not m.recent(kinds=["note"])


def test_control_characters_never_reach_the_files(m):
    n = m.remember("deploy\x07 with \x1b[31mmake ship\x1b[0m\r\nthen tag it", summary="ship\x1b]0;pwned\x07 it",
                   tags=["ops\x1b[2J"], highlight="make\x08 ship")
    raw = n.path.read_text(encoding="utf-8")
    index = (n.path.parent / "index.md").read_text(encoding="utf-8")
    for blob in (raw, index):
        assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) <= 0x9F for c in blob), repr(blob)
    assert "deploy with make ship\nthen tag it" in n.text  # the escape sequences go whole, not only their ESC
    assert n.summary == "ship it" and n.tags == ("ops",)


def test_joiners_inside_a_text_are_kept(m):
    n = m.remember("family emoji 👨\u200d👩\u200d👧 and the word می\u200cخواهم")
    assert "👨\u200d👩\u200d👧" in n.text and "می\u200cخواهم" in n.text


def _clean(blob: str) -> bool:
    return not any(ord(c) < 32 and c not in "\n\t" or ord(c) == 0x7F for c in blob)


def test_a_proposal_is_written_as_a_note_is(m):
    p = m.propose("always run \x1b[1mmake lint\x1b[0m before pushing", summary="lint\x1b]0;pwned\x07 first",
                  tags=["ci\x1b[2J", "\u200b"], load_when=["push\x07"])
    got = next(x for x in m.proposals() if x["id"] == p["id"])
    assert got["summary"] == "lint first" and got["tags"] == ["ci"] and got["load_when"] == ["push"]
    assert "make lint before" in got["text"]
    from memdir.distill.flow import _existing_proposal  # distill's dry run finds the same proposal
    from memdir.notes import proposals as props

    root = m.stores.root("project")
    assert _existing_proposal(root, props, "always run \x1b[1mmake lint\x1b[0m before pushing")["id"] == p["id"]


def test_an_edit_is_written_as_a_note_is(m):
    n = m.remember("redeploy the canary first")
    with pytest.raises(UsageError, match="empty"):
        m.edit(n.id, "\u200b\u200b")
    e = m.edit(n.id, "\x1b[31mredeploy\x1b[0m the canary before the fleet")
    index = (e.path.parent / "index.md").read_text(encoding="utf-8")
    assert _clean(e.path.read_text(encoding="utf-8")) and _clean(index), index
    assert e.summary == "redeploy the canary before the fleet"
