"""A note file kept as a link to a file inside the root (case C39's sibling, as C32 for a host's settings): an edit,
a pin or a supersede writes the target and leaves the link a link. Before, the rename replaced the link with a
regular file, so the file it pointed at (the copy the person keeps, shares or commits) kept the old text."""

from __future__ import annotations

import os
from pathlib import Path

import memdir


def _linked(tmp_path: Path):
    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    m = memdir.open(proj, home=home)
    note = m.remember("install packages with yarn berry", category="facts", tags=["yarn"], pinned=True)
    mem = proj / ".memory"
    shared = mem / ".shared"
    shared.mkdir()
    target = shared / "yarn.md"
    os.replace(note.path, target)
    os.symlink("../.shared/yarn.md", note.path)
    m.close()
    return proj, home, note.id, Path(note.path), target


def test_edit_and_pin_of_a_linked_note_write_its_target(tmp_path):
    proj, home, nid, link, target = _linked(tmp_path)
    with memdir.open(proj, home=home) as m:
        assert m.get(nid).text.startswith("install packages with yarn")
        m.edit(nid, "install packages with pnpm now")
        assert link.is_symlink() and "install packages with pnpm now" in target.read_text(encoding="utf-8")
        m.pin(nid, False)
        assert link.is_symlink() and "pinned: false" in target.read_text(encoding="utf-8")
        new = m.remember("install packages with bun", category="facts", supersedes=nid)
        assert link.is_symlink() and f"superseded_by: {new.id}" in target.read_text(encoding="utf-8")
        assert m.get(nid).text.startswith("install packages with pnpm now")


def test_an_edit_of_a_linked_note_changed_on_disk_is_a_conflict(tmp_path):
    from memdir.notes.markdown import version

    proj, home, nid, link, target = _linked(tmp_path)
    with memdir.open(proj, home=home) as m:
        seen = version(m.note_source(nid))
        target.write_text(target.read_text(encoding="utf-8").replace("yarn berry", "yarn classic"), encoding="utf-8")
        try:
            m.edit(nid, "my edit made from the older text", expect=seen)
        except memdir.EditConflict:
            pass
        else:
            raise AssertionError("the edit overwrote a change made on disk")
        assert link.is_symlink() and "yarn classic" in target.read_text(encoding="utf-8")


def test_a_link_to_a_file_outside_the_root_is_replaced_never_written_through(tmp_path):
    """A link a cloned repository carries (a proposal file pointing out of the root) never gets the file it points at
    rewritten: the write replaces the link, as it did before links in the root were written through."""
    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    outside = tmp_path / "outside.md"
    with memdir.open(proj, home=home) as m:
        pid = m.propose("run the migrations before the deploy", category="rules")["id"]
        path = next((proj / ".memory" / ".proposals").glob(f"{pid}*.md"))
        original = path.read_text(encoding="utf-8")
        outside.write_text(original, encoding="utf-8")
        path.unlink()
        os.symlink(outside, path)
        m.reject_proposal(pid)
    assert outside.read_text(encoding="utf-8") == original
    assert not path.is_symlink() and "rejected" in path.read_text(encoding="utf-8")


def test_a_note_linked_to_a_file_that_is_no_note_is_replaced(tmp_path):
    """A note kept as a link to the root's .env or its index folder (a cloned repository can carry one) never gets
    that file rewritten by a pin: only a link to another note file is written through."""
    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        note = m.remember("rotate the staging keys every month", category="facts")
        env = proj / ".memory" / ".env"
        env.write_text(Path(note.path).read_text(encoding="utf-8"), encoding="utf-8")
        before = env.read_text(encoding="utf-8")
        os.remove(note.path)
        os.symlink("../.env", note.path)
        m.pin(note.id)
    assert env.read_text(encoding="utf-8") == before and not Path(note.path).is_symlink()
