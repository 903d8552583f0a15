"""A note file, ROOT.md or an index.md saved by another program (an editor) while memdir rewrites it: the other
program's text is never thrown away. memdir compares the file with the one it read just before it replaces it and
reads again when it changed; an empty file saved a moment ago is an editor mid-save (truncated, not yet written)."""

from __future__ import annotations

import os
import time

import pytest

import memdir
from memdir.errors import MemdirError
from memdir.notes import compile as compiler
from memdir.notes import markdown as notes


def test_root_md_saved_while_compiled_keeps_the_editors_text(project, tmp_path, monkeypatch):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("the staging database listens on port 5433", category="facts")
        root_md = project / ".memory" / "ROOT.md"
        made = compiler.root_md
        saved = []

        def make_while_an_editor_saves(*a, **kw):
            out = made(*a, **kw)
            if not saved:  # the editor's save lands between memdir's read and its rename, once
                text = root_md.read_text(encoding="utf-8")
                root_md.write_text(text.replace("# Memory root", "# Memory root\n\nMy own line, saved meanwhile.", 1),
                                   encoding="utf-8")
                os.utime(root_md, ns=(time.time_ns(), time.time_ns() + 1_000_000))
                saved.append(True)
            return out

        monkeypatch.setattr(compiler, "root_md", make_while_an_editor_saves)
        m.remember("deploys go through the staging cluster first", category="decisions")
        text = root_md.read_text(encoding="utf-8")
        assert saved and "My own line, saved meanwhile." in text
        assert "decisions" in text  # and the compiled tables are there too (made again from the saved file)


def test_an_index_md_or_root_md_emptied_a_moment_ago_is_not_rewritten(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("the staging database listens on port 5433", category="facts")
        root_md = project / ".memory" / "ROOT.md"
        root_md.write_text("", encoding="utf-8")  # an editor saving in place: truncated, its text not yet written
        m.remember("deploys go through the staging cluster first", category="decisions")
        assert root_md.read_text(encoding="utf-8") == ""
        old = time.time() - 60  # long emptied: a person's choice, compiled again
        os.utime(root_md, (old, old))
        m.remember("the CI cache lives in /tmp/npm-cache", category="facts")
        assert "facts" in root_md.read_text(encoding="utf-8")


def test_pin_of_an_empty_note_file_writes_nothing(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember("the staging database listens on port 5433", category="facts")
        path = project / ".memory" / f"{note.id}.md"
        path.write_text("", encoding="utf-8")
        with pytest.raises(MemdirError, match="is empty"):
            m.pin(note.id)
        assert path.read_text(encoding="utf-8") == ""


def test_a_rewrite_made_from_an_older_read_is_refused(tmp_path):
    f = tmp_path / "x.md"
    f.write_text("one", encoding="utf-8")
    state = notes.file_state(f)
    f.write_text("two, saved by another program", encoding="utf-8")
    os.utime(f, ns=(time.time_ns(), time.time_ns() + 5_000_000))
    with pytest.raises(notes.FileChanged):
        notes.atomic_write(f, "three", expect=state)
    assert f.read_text(encoding="utf-8") == "two, saved by another program"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_pin_and_edit_of_a_note_whose_file_went_away_say_so(project, tmp_path):
    """A forget (or a hand delete) between a command's start and its write: "no note has the id", exit 1 — not a raw
    "No such file or directory" nor an internal error."""
    from memdir.errors import NotFound

    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember("the staging database listens on port 5433", category="facts")
        (project / ".memory" / f"{note.id}.md").unlink()
        with pytest.raises(NotFound):
            m.pin(note.id)
        with pytest.raises(NotFound):
            m.edit(note.id, "the staging database listens on port 5434\n")


def test_a_note_gone_right_after_its_write_is_not_an_internal_error(project, tmp_path, monkeypatch):
    """The note is read back under the write lock; should it be gone even so, the caller gets NotFound (exit 1), not
    an AssertionError ("internal error")."""
    from memdir.engine import curated
    from memdir.errors import NotFound

    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember("the staging database listens on port 5433", category="facts")
        monkeypatch.setattr(curated, "get", lambda *a, **kw: None)
        with pytest.raises(NotFound):
            m.pin(note.id)
        with pytest.raises(NotFound):
            m.remember("the CI cache lives in /tmp/npm-cache", category="facts")


def test_a_supersede_whose_old_note_is_empty_writes_no_new_note(project, tmp_path):
    """The old note's file must take the link before the new note is written: refused first, nothing is left
    behind for a retry to copy (a new note's file written, then the link refused, made a second file on the retry)."""
    with memdir.open(project, home=tmp_path / "g") as m:
        old = m.remember("the API listens on port 8080", category="facts")
        (project / ".memory" / f"{old.id}.md").write_text("", encoding="utf-8")
        for _ in range(2):
            with pytest.raises(MemdirError, match="is empty"):
                m.remember("the API listens on port 9090 now", category="facts", supersedes=old.id)
        assert sorted(p.name for p in (project / ".memory" / "facts").glob("*.md") if p.name != "index.md") == \
            [f"{old.id.split('/')[1]}.md"]
