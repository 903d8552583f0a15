"""C45 and its kind: a root that existed before memdir (made by another tool, or by hand) has its index and its
secrets file git-ignored before memdir writes its first index file there; the user's own ignore lines stay.
git is a prerequisite of the test suite (.ci/run installs it)."""

import os
import stat
import subprocess

import memdir


def _ignored(repo, rel) -> bool:
    return subprocess.run(["git", "-C", str(repo), "check-ignore", "-q", rel]).returncode == 0


def test_a_pre_existing_project_root_is_ignored_before_the_first_index_file(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    mem = proj / ".memory"
    (mem / "facts").mkdir(parents=True)
    (mem / "facts" / "db.md").write_text("---\nid: facts/db\nsummary: the database\n---\nThe database is pg-2.\n",
                                         encoding="utf-8")
    (mem / ".gitignore").write_text("drafts/\n", encoding="utf-8")  # the user's own line, no memdir lines
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert m.recall("database")  # opening the root writes its index
    lines = (mem / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "drafts/" and ".memdir/" in lines and ".env" in lines
    assert _ignored(proj, ".memory/.memdir/index.sqlite3") and _ignored(proj, ".memory/.env")
    assert not _ignored(proj, ".memory/facts/db.md")


def test_a_pre_existing_global_root_ignores_its_env_file(tmp_path):
    home = tmp_path / "g"
    home.mkdir()
    (home / ".gitignore").write_text(".memdir/\n", encoding="utf-8")  # an earlier memdir wrote this one line
    (home / ".env").write_text("OPENAI_API_KEY=sk-test\n", encoding="utf-8")
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        m.remember("the global rule", category="facts", scope="global")
    assert (home / ".gitignore").read_text(encoding="utf-8").splitlines().count(".memdir/") == 1
    assert ".env" in (home / ".gitignore").read_text(encoding="utf-8").splitlines()


def _linked_root(tmp_path, target):
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    mem = proj / ".memory"
    (mem / "facts").mkdir(parents=True)
    (mem / "facts" / "db.md").write_text("---\nid: facts/db\nsummary: the database\n---\nThe database is pg-2.\n",
                                         encoding="utf-8")
    (mem / ".gitignore").symlink_to(target)
    return proj, mem


def test_a_gitignore_linked_out_of_the_root_is_never_replaced_and_inspect_says_what_it_leaves(tmp_path):
    dot = tmp_path / "dotfiles" / "gi"
    dot.parent.mkdir()
    dot.write_text("drafts/\n", encoding="utf-8")
    proj, mem = _linked_root(tmp_path, dot)
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert m.recall("database")
        m.remember("the cache is redis", category="facts")
        said = [p for p in m.inspect().problems if p["kind"] == "link"]
    assert (mem / ".gitignore").is_symlink() and dot.read_text(encoding="utf-8") == "drafts/\n"
    assert len(said) == 1 and said[0]["path"] == str(mem / ".gitignore") and ".env" in said[0]["detail"]
    (proj / ".gitignore").write_text(".memory/.memdir/\n.memory/.env\n", encoding="utf-8")  # ignored another way
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert not [p for p in m.inspect().problems if p["kind"] == "link"]


def test_a_gitignore_linked_inside_the_root_gets_the_lines_in_its_target(tmp_path):
    proj, mem = _linked_root(tmp_path, "shared-ignore")
    (mem / "shared-ignore").write_text("drafts/\r\n", encoding="utf-8", newline="")
    os.chmod(mem / "shared-ignore", 0o640)
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert m.recall("database")
    assert (mem / ".gitignore").is_symlink()
    data = (mem / "shared-ignore").read_bytes()
    assert data.startswith(b"drafts/\r\n") and b".memdir/\r\n" in data and b".env\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n") and stat.S_IMODE(os.stat(mem / "shared-ignore").st_mode) == 0o640
