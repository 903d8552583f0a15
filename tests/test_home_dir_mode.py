"""--home / MEMDIR_HOME may point at a directory memdir did not make: it is closed to others (0700, personal notes)
only when it is memdir's own (empty, or an older global root); a shared one like /tmp, or a folder of other files,
keeps its mode."""

import os
import stat

import memdir


def _mode(p):
    return stat.S_IMODE(os.stat(p).st_mode)


def test_a_shared_or_foreign_directory_given_as_home_keeps_its_mode(tmp_path, project):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "photo.jpg").write_bytes(b"x")
    os.chmod(folder, 0o755)
    for home, want in ((shared, 0o1777), (folder, 0o755)):
        with memdir.open(project, home=home) as m:
            m.remember("a personal fact", scope="global")
        assert _mode(home) == want


def test_an_older_global_root_or_a_new_one_is_closed_to_others(tmp_path, project):
    old = tmp_path / "old"
    old.mkdir()
    (old / "ROOT.md").write_text("# Root\n", encoding="utf-8")
    os.chmod(old, 0o755)
    with memdir.open(project, home=old) as m:
        m.remember("a personal fact", scope="global")
    assert _mode(old) == 0o700
    new = tmp_path / "new"
    with memdir.open(project, home=new) as m:
        m.remember("a personal fact", scope="global")
    assert _mode(new) == 0o700


def test_a_file_where_the_derived_folder_belongs_is_named_with_the_fix(tmp_path, project):
    import pytest

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a first note")
        derived = m.stores.root("project").derived
    import shutil

    shutil.rmtree(derived)
    derived.write_text("oops", encoding="utf-8")
    with pytest.raises(Exception, match="is a file where memdir keeps a folder: move it away"):
        with memdir.open(project, home=tmp_path / "g") as m:
            m.remember("a second note")
    assert derived.read_text(encoding="utf-8") == "oops"


def test_a_folder_where_the_index_file_goes_is_named_not_taken_for_read_only(tmp_path, project):
    import pytest

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a first note")
        db = m.stores.root("project").db_path
    for suffix in ("", "-wal", "-shm"):
        p = db.with_name(db.name + suffix)
        if p.exists():
            p.unlink()
    db.mkdir()
    with pytest.raises(Exception, match="is not a file: move it aside") as err:
        with memdir.open(project, home=tmp_path / "g") as m:
            m.recall("first")
    assert "read-only" not in str(err.value)


def test_a_global_root_kept_in_git_is_closed_to_others(tmp_path, project):
    g = tmp_path / "g"
    (g / ".git").mkdir(parents=True)
    (g / "handmade").mkdir()
    os.chmod(g, 0o755)
    with memdir.open(project, home=g) as m:
        m.remember("x fact about postgres sixteen", scope="global")
    assert _mode(g) == 0o700


def test_a_gitignore_that_unignores_memdirs_files_gets_them_again(tmp_path, project):
    gi = project / ".memory" / ".gitignore"
    gi.parent.mkdir(parents=True, exist_ok=True)
    gi.write_text(".env\n.memdir/\n!.env\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a first note")
    lines = [ln.strip() for ln in gi.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    assert lines[:3] == [".env", ".memdir/", "!.env"] and lines[-1] == ".env"
    assert lines.count(".memdir/") == 1


def test_a_team_folder_given_as_home_keeps_its_mode(tmp_path, project):
    s = tmp_path / "shared"
    (s / "teamA").mkdir(parents=True)
    os.chmod(s, 0o2775)
    with memdir.open(project, home=s) as m:
        m.remember("a personal fact", scope="global")
    assert _mode(s) == 0o2775


def test_a_global_root_made_under_a_002_umask_is_closed(tmp_path, project):
    old = os.umask(0o002)
    try:
        with memdir.open(project, home=tmp_path / "new002") as m:
            m.remember("a personal fact", scope="global")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new002") == 0o700


def test_a_dot_env_others_can_read_is_closed_to_them_when_read(tmp_path, monkeypatch):
    """The global root's ``.env`` holds API keys. In a root memdir does not close (a folder of the user's dotfiles,
    0755) a ``.env`` written under a 022 umask (0644) let everyone on the machine read the key; it is the owner's
    alone from the first time memdir reads it, as the index is."""
    from memdir import envfile

    home = tmp_path / "dotfiles"
    home.mkdir()
    os.chmod(home, 0o755)
    env = home / ".env"
    env.write_text("MY_EMBED_KEY=sk-" + "a" * 40 + "\n", encoding="utf-8")
    os.chmod(env, 0o644)
    monkeypatch.delenv("MY_EMBED_KEY", raising=False)
    assert envfile.describe("MY_EMBED_KEY", home)["set"] is True
    assert _mode(env) == 0o600 and _mode(home) == 0o755
