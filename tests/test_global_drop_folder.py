"""The global root's ``import/`` folder is where JSONL drop files wait (``memdir.portability.dropimport``): it is no
category. ``remember -c import`` wrote a note into it and it showed in outlines, indexes and the kinds recall takes."""

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
        mem.remember("the staging database is db-2", scope="global")
        (tmp_path / "home" / "import").mkdir()
        yield mem


@pytest.mark.parametrize("category", ["import", "Import"])
def test_remember_into_the_drop_folder_is_refused_and_writes_nothing(m, tmp_path, category):
    with pytest.raises(memdir.UsageError, match="(?i)import") as info:
        m.remember("a note for the drop folder", category=category, scope="global")
    assert "\n" not in str(info.value)
    assert not list((tmp_path / "home" / "import").iterdir())


def test_the_drop_folder_is_no_category_nor_kind(m, tmp_path):
    (tmp_path / "home" / "import" / "opencode.jsonl").write_text("")
    assert not any("import/" in line for line in m.outline())
    with pytest.raises(memdir.UsageError, match="unknown kind"):
        m.recent(kinds="import")


def test_a_note_file_left_in_the_drop_folder_is_named_not_read_as_a_note(m, tmp_path):
    stray = tmp_path / "home" / "import" / "old-note.md"
    stray.write_text("---\nsummary: old\n---\na note written there by an older memdir\n")
    m.reindex()
    report = m.inspect()
    assert not any(n.id.startswith("import/") for n in report.notes)
    assert not any("import/" in line for line in m.outline())
    assert any(str(stray) in p.get("path", "") and "import" in p.get("detail", "") for p in report.problems), report.problems
    assert stray.exists()  # left where it is, byte for byte
    assert not (tmp_path / "home" / "import" / "index.md").exists()


def test_a_project_folder_named_import_stays_a_category(m, tmp_path):
    (tmp_path / "proj" / ".memory" / "import").mkdir(parents=True)
    n = m.remember("we import invoices nightly", category="import")
    assert n.id.startswith("import/")
