"""Sibling of C14: a link inside ``.memdir/`` (the tombstone log, the event ledger) pointing outside the root is not
written through: the link is removed, memdir's own file made in its place, the outside file left as it was."""

import os

import memdir


def test_the_tombstone_log_and_the_ledger_are_not_written_through_a_link(tmp_path, project):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("a first note")
        derived = m.stores.root("project").derived
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("tombstones.jsonl", "events.json"):
        target = outside / name
        target.write_text("ORIGINAL\n", encoding="utf-8")
        link = derived / name
        if link.exists() or link.is_symlink():
            link.unlink()
        os.symlink(target, link)
    with memdir.open(project, home=home) as m:
        n = m.remember("a second note")
        m.forget(n.id)
        m.capture({"role": "user", "session": "s", "text": "the deploy window is friday afternoon"})
    for name in ("tombstones.jsonl", "events.json"):
        assert (outside / name).read_text(encoding="utf-8") == "ORIGINAL\n"
    assert (derived / "tombstones.jsonl").is_file() and not (derived / "tombstones.jsonl").is_symlink()


def test_the_write_lock_is_not_made_through_a_link(tmp_path, project):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("a first note")
        derived = m.stores.root("project").derived
    outside = tmp_path / "outside_lock"
    lock = derived / "write.lock"
    if lock.exists() or lock.is_symlink():
        lock.unlink()
    os.symlink(outside, lock)
    with memdir.open(project, home=home) as m:
        m.remember("a second note")
    assert not outside.exists() and not lock.is_symlink()


def test_a_derived_folder_linked_out_of_the_root_is_refused(tmp_path, project):
    """The whole ``.memdir/`` a link to a folder outside the root: the index, the tombstone log and the lock would be
    read and written there. Refused with a one-line error naming the fix; nothing is made outside."""
    import pytest

    from memdir.errors import MemdirError

    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".memory").mkdir()
    os.symlink(outside, project / ".memory" / ".memdir")
    with pytest.raises(MemdirError, match="outside the memory root"):
        with memdir.open(project, home=tmp_path / "g") as m:
            m.remember("a note")
    with pytest.raises(MemdirError, match="outside the memory root"):
        with memdir.open(project, home=tmp_path / "g") as m:
            m.recall("note")
    assert list(outside.iterdir()) == []
    # a link that stays inside the root (a folder moved within it) is used as before
    os.unlink(project / ".memory" / ".memdir")
    (project / ".memory" / "derived-here").mkdir()
    os.symlink(project / ".memory" / "derived-here", project / ".memory" / ".memdir")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a note kept inside")
        assert m.recall("kept")


def test_a_hook_makes_nothing_in_a_derived_folder_linked_out_of_the_root(tmp_path, project):
    """The hooks' claim of a call (memdir.hosts.once: ``hook-once/`` markers) is not made through such a link."""
    import json

    from memdir.hosts.hooks import run_hook

    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".memory").mkdir()
    os.symlink(outside, project / ".memory" / ".memdir")
    for event, payload in (("session-start", {"source": "startup"}), ("user-prompt", {"prompt": "staging port?"})):
        try:  # the store refuses the link (execute answers nothing then)
            run_hook("claude-code", event, json.dumps({"session_id": "s1", "cwd": str(project), **payload}),
                     project_dir=str(project), home=str(tmp_path / "g"))
        except Exception:  # noqa: BLE001
            pass
    assert list(outside.iterdir()) == []
