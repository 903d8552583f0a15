"""Files that sync tools and merge tools leave beside a note: a Dropbox or Nextcloud "conflicted copy", a Syncthing
``.sync-conflict-…`` file, the ``_BASE_``/``_LOCAL_``/``_REMOTE_``/``_BACKUP_`` files of an aborted ``git mergetool``.
They end in ``.md`` but are no memory of their own: recall, recent, the outline and ``index.md`` count the note once;
``inspect`` and ``doctor`` name each copy as a conflict copy of its note, and nothing is deleted."""

from __future__ import annotations

import pytest

import memdir

COPIES = [
    "deploy-pnpm (conflicted copy 2026-12-01).md",
    "deploy-pnpm (Ann's conflicted copy 2026-12-01).md",
    "deploy-pnpm (conflicted copy 2026-12-01 123456).md",
    "deploy-pnpm (Case Conflict).md",
    "deploy-pnpm.sync-conflict-20261201-123456-ABCDEFG.md",
    "deploy-pnpm_BASE_12345.md",
    "deploy-pnpm_LOCAL_12345.md",
    "deploy-pnpm_REMOTE_12345.md",
    "deploy-pnpm_BACKUP_12345.md",
]


def _files(mem):
    return {str(p.relative_to(mem)): p.read_bytes() for p in sorted(mem.rglob("*.md"))}


@pytest.mark.parametrize("name", COPIES)
def test_a_sync_conflict_copy_is_no_second_memory_and_is_named(m, project, name):
    nid = m.remember("deploy with pnpm because the npm lockfile differs", category="decisions").id
    mem = project / ".memory"
    src = mem / f"{nid}.md"
    copy = mem / "decisions" / name.replace("deploy-pnpm", nid.split("/")[1])
    copy.write_text(src.read_text() + "\nThe other laptop added: pin pnpm 9 in CI.\n")
    m.recall("pnpm")  # the long-lived object sees the copy appear
    before = _files(mem)
    with memdir.open(project, home=project.parent / "g") as fresh:
        for store in (m, fresh):
            assert [h.id for h in store.recall("pnpm") if h.kind != "event"] == [nid]
            assert [h.id for h in store.recent()] == [nid]
            assert store.inspect().counts["project"]["notes"] == 1
            named = [p for p in store.inspect().problems if p["path"] == str(copy)]
            assert len(named) == 1 and "conflict" in named[0]["detail"] and nid in named[0]["detail"], named
            check = [c for c in store.doctor() if str(copy) in c["detail"]]
            assert check and check[0]["ok"] == "warn", store.doctor()
    index_md = (mem / "decisions" / "index.md").read_text()
    assert copy.name not in index_md and copy.stem not in (mem / "ROOT.md").read_text()
    assert _files(mem) == before  # nothing deleted or rewritten
    assert copy.exists()


def test_a_conflict_copy_whose_note_is_gone_says_how_to_keep_it(m, project):
    mem = project / ".memory"
    (mem / "facts").mkdir(parents=True)
    copy = mem / "facts" / "ports (conflicted copy 2026-12-01).md"
    copy.write_text("the dev server listens on 5173\n")
    assert m.recall("5173") == []
    named = [p for p in m.inspect().problems if p["path"] == str(copy)]
    assert len(named) == 1 and "facts/ports.md" in named[0]["detail"] and "rename" in named[0]["detail"]
    assert copy.exists()


def test_a_note_whose_own_name_looks_like_a_copy_word_is_still_a_note(m, project):
    mem = project / ".memory"
    (mem / "facts").mkdir(parents=True)
    for name in ("conflicted-copy-rules.md", "sync-conflict-handling.md", "db_BASE_url.md"):
        (mem / "facts" / name).write_text(f"{name[:-3]} keeps the word copyconflict in its text\n")
    assert len(m.recall("copyconflict")) == 3


def test_migrating_a_root_with_editor_and_sync_leftovers_brings_each_note_once(m, project, tmp_path, caplog):
    src = tmp_path / "other" / ".memory"
    (src / "decisions").mkdir(parents=True)
    (src / "ROOT.md").write_text("# Memory root\n")
    note = src / "decisions" / "deploy-pnpm.md"
    note.write_text("---\nsummary: deploy with pnpm\n---\ndeploy with pnpm because the npm lockfile differs\n")
    (src / "decisions" / "deploy-pnpm (conflicted copy 2026-12-01).md").write_text(note.read_text() + "and pin pnpm 9\n")
    (src / "decisions" / "._deploy-pnpm.md").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X")
    (src / "decisions" / ".#deploy-pnpm.md").symlink_to("ann@laptop.4242:1700000000")
    (src / "decisions" / ".deploy-pnpm.md.swp").write_bytes(b"b0VIM 9.0\x00")
    caplog.set_level("WARNING")
    got = m.migrate(from_path=src)
    assert got["sources"][0]["result"]["notes_new"] == 1, got
    assert [h.id for h in m.recent()] == ["decisions/deploy-pnpm"]
    said = [r.getMessage() for r in caplog.records]
    assert not any("._deploy" in s or ".#deploy" in s for s in said), said  # an editor's or Finder's file: no note
    assert any("conflicted copy" in s and "decisions/deploy-pnpm" in s for s in said), said  # named, not taken
    assert (src / "decisions" / "deploy-pnpm (conflicted copy 2026-12-01).md").exists()


@pytest.mark.parametrize("suffix", [" (conflicted copy 2026-12-01)", ".sync-conflict-20261201-123456-ABCDEFG"])
def test_a_sync_conflict_copy_of_a_proposal_is_not_a_second_pending_proposal(m, project, suffix, caplog):
    pid = m.propose("always run make lint before pushing")["id"]
    folder = project / ".memory" / ".proposals"
    copy = folder / f"{pid}{suffix}.md"
    copy.write_text((folder / f"{pid}.md").read_text())
    caplog.set_level("WARNING")
    assert [p["id"] for p in m.proposals()] == [pid]
    assert any(copy.name in r.getMessage() and pid in r.getMessage() for r in caplog.records)
    m.accept_proposal(pid)
    assert m.proposals() == [] and copy.exists()


@pytest.mark.parametrize("name", ["index (conflicted copy 2026-12-01).md", "index.sync-conflict-20261201-123456-ABCDEFG.md",
                                  "INDEX (Case Conflict).md"])
def test_a_conflict_copy_of_a_compiled_index_is_to_be_deleted_not_merged(m, project, name):
    m.remember("deploy with pnpm because the npm lockfile differs", category="decisions")
    mem = project / ".memory"
    copy = mem / "decisions" / name
    copy.write_text((mem / "decisions" / "index.md").read_text())
    m.recall("pnpm")
    named = [p for p in m.inspect().problems if p["path"] == str(copy)]
    assert len(named) == 1, m.inspect().problems
    detail = named[0]["detail"]
    assert "merge" not in detail and "rename" not in detail and "delete" in detail and "compile" in detail, detail
    assert copy.exists()  # named, never deleted by memdir
    (mem / "decisions" / "index.md").unlink()  # gone too: still not "rename this file to index.md"
    m.recall("pnpm")
    detail = [p for p in m.inspect().problems if p["path"] == str(copy)][0]["detail"]
    assert "rename" not in detail and "delete" in detail, detail


@pytest.mark.parametrize("name", ["ROOT (conflicted copy 2026-12-01).md", "ROOT.sync-conflict-20261201-123456-ABCDEFG.md",
                                  "ROOT (Ann's conflicted copy 2026-12-01).md", "ROOT_REMOTE_12345.md"])
def test_a_conflict_copy_of_root_md_is_no_page_nor_note_and_is_named(m, project, name):
    """A sync tool's copy of ROOT.md at the root's top was read as nothing and named by nobody: its hand-written goals
    and hard rules were silently not shown. It is named now, with what to do: merge the hand-written part into ROOT.md,
    then delete the copy; nothing is deleted by memdir."""
    m.remember("deploy with pnpm because the npm lockfile differs", category="decisions")
    mem = project / ".memory"
    copy = mem / name
    copy.write_text((mem / "ROOT.md").read_text() + "\n## Hard rules\n- never force-push the release branch\n")
    m.recall("pnpm")
    with memdir.open(project, home=project.parent / "g") as fresh:
        for store in (m, fresh):
            assert store.recall("force-push release branch") == []
            assert "force-push" not in store.context("may I force-push the release branch?")
            assert not [r for r in store.rules() if "force-push" in r.text]
            named = [p for p in store.inspect().problems if p["path"] == str(copy)]
            assert len(named) == 1, store.inspect().problems
            detail = named[0]["detail"]
            assert "ROOT.md" in detail and "merge" in detail and "delete" in detail, detail
            check = [c for c in store.doctor() if str(copy) in c["detail"]]
            assert check and check[0]["ok"] == "warn", store.doctor()
    assert copy.exists()
