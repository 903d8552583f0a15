"""A project's ``.memory/`` committed and shared through Git by a team: two people remembering at once and merging
meet no conflict in the compiled pages (``ROOT.md``'s tables, each category's ``index.md``), which the next run
compiles again from the notes. git is a prerequisite of the test suite (.ci/run installs it)."""

import os
import subprocess

import memdir
from memdir.roots import project_root

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(cwd, *args, check=True):
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True, check=check)


def _two_clones(tmp_path):
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    git(tmp_path, "clone", "-q", "origin.git", "a")
    a = tmp_path / "a"
    (a / "README").write_text("hi\n", encoding="utf-8")
    with memdir.open(a, home=tmp_path / "g") as m:
        m.remember("We deploy with pnpm because lockfiles differ", category="decisions")
    git(a, "add", "-A")
    git(a, "commit", "-qm", "init")
    git(a, "push", "-q", "origin", "HEAD:main")
    git(tmp_path, "clone", "-q", "-b", "main", "origin.git", "b")
    return a, tmp_path / "b"


def test_two_people_remembering_at_once_merge_without_conflicts(tmp_path):
    a, b = _two_clones(tmp_path)
    with memdir.open(a, home=tmp_path / "ga") as m:
        m.remember("Use ruff for linting, not flake8", category="decisions")
    git(a, "add", "-A")
    git(a, "commit", "-qm", "a1")
    git(a, "push", "-q", "origin", "HEAD:main")
    with memdir.open(b, home=tmp_path / "gb") as m:
        m.remember("Postgres migrations must run before deploy", category="pitfalls")
        m.remember("Use uv for the virtualenv", category="decisions")
    git(b, "add", "-A")
    git(b, "commit", "-qm", "b1")
    r = git(b, "pull", "-q", "--no-rebase", "origin", "main", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert git(b, "diff", "--name-only", "--diff-filter=U").stdout == ""
    with memdir.open(b, home=tmp_path / "gb") as m:
        assert len(m.recall("ruff")) == 1
        m.inspect()
    index = (b / ".memory" / "decisions" / "index.md").read_text(encoding="utf-8")
    assert index.count("use-ruff-for-linting") == 2 and index.count("use-uv-for-the-virtualenv") == 2  # link + file
    page = (b / ".memory" / "ROOT.md").read_text(encoding="utf-8")
    assert page.count("| decisions/ |") == 1 and "| 3 |" in page and "| pitfalls/ |" in page
    assert "<<<<<<<" not in page + index


def test_a_root_made_before_gets_the_merge_setting_and_keeps_the_users_lines(tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    git(proj, "init", "-q")
    mem = proj / ".memory"
    (mem / "facts").mkdir(parents=True)
    (mem / ".gitattributes").write_text("*.png binary\n", encoding="utf-8")
    with memdir.open(proj, home=tmp_path / "g") as m:
        m.remember("the database is pg-2", category="facts")
        m.remember("the cache is redis", category="facts")
    lines = (mem / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "*.png binary"
    for rel in (".memory/ROOT.md", ".memory/facts/index.md"):
        out = git(proj, "check-attr", "merge", "--", rel).stdout
        assert out.strip().endswith("merge: union"), out
    out = git(proj, "check-attr", "merge", "--", ".memory/facts/the-database-is-pg-2.md").stdout
    assert "union" not in out  # a note's own conflict is shown, never merged line by line
    assert sum(ln.startswith("/ROOT.md") for ln in lines) == 1


def test_a_work_tree_named_by_git_work_tree_is_the_project_from_any_subdirectory(tmp_path, monkeypatch):
    """``GIT_DIR``/``GIT_WORK_TREE`` (a repository kept apart from its files): git's top-level is the work tree, so
    every subdirectory is one project, as with a ``.git`` there; a repository nested inside it still wins."""
    work, repo = tmp_path / "work", tmp_path / "repo.git"
    (work / "src" / "deep").mkdir(parents=True)
    git(tmp_path, "init", "-q", "--bare", str(repo))
    monkeypatch.setenv("GIT_DIR", str(repo))
    monkeypatch.setenv("GIT_WORK_TREE", str(work))
    assert project_root(work / "src" / "deep") == work
    (work / "vendor" / "lib" / ".git").mkdir(parents=True)
    assert project_root(work / "vendor" / "lib") == work / "vendor" / "lib"
    assert project_root(tmp_path / "elsewhere") == tmp_path / "elsewhere"  # outside it: as before
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_WORK_TREE", "work")  # relative to the working directory, as git reads it
    assert project_root(work / "src" / "deep") == work
    monkeypatch.delenv("GIT_DIR")  # a work tree without GIT_DIR means nothing to git
    assert project_root(work / "src" / "deep") == work / "src" / "deep"


def test_a_sparse_checkout_that_leaves_the_memory_out_is_said_and_never_overwritten(tmp_path):
    a, _ = _two_clones(tmp_path)
    git(tmp_path, "clone", "-q", "-b", "main", "origin.git", "s")
    s = tmp_path / "s"
    (s / "src").mkdir()
    (s / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    git(s, "add", "src")
    git(s, "commit", "-qm", "src")
    git(s, "sparse-checkout", "set", "src")
    assert not (s / ".memory").exists()
    env = {**ENV, "MEMDIR_HOME": str(tmp_path / "gs")}
    for args, code in ((["recall", "pnpm"], 0), (["remember", "a note about caching", "-c", "facts"], 2)):
        r = subprocess.run([os.path.join(os.path.dirname(os.sys.executable), "memdir"), *args], cwd=s, env=env,
                           capture_output=True, text=True)
        assert r.returncode == code and "Traceback" not in r.stderr, r.stderr
        said = [ln for ln in r.stderr.splitlines() if "sparse-checkout add .memory" in ln]
        assert len(said) == 1, r.stderr  # a read: one warning (then "no memories yet"); a write: its one error
    assert not (s / ".memory").exists()
    assert git(s, "status", "--short").stdout == ""
    git(s, "sparse-checkout", "add", ".memory")
    with memdir.open(s, home=tmp_path / "gs") as m:
        assert [h.id for h in m.recall("pnpm")] == ["decisions/we-deploy-with-pnpm-because-lockfiles-differ"]
