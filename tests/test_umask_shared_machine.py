"""A careless umask (000, 002) on a machine other accounts share: what memdir creates in a project (the ``.memory/``
folder, its category folders, notes, ``ROOT.md``, ``index.md``, ``.gitignore``) is never writable by group or others,
who could otherwise plant a rule the agent is shown as the user's own. Reading stays as the umask says (notes are
meant to be read and committed); a file the user gave another mode keeps it."""

import os
import stat

import pytest

import memdir


@pytest.mark.parametrize("mask", [0o000, 0o002])
def test_what_memdir_makes_in_a_project_is_never_writable_by_others(project, tmp_path, mask):
    old = os.umask(mask)
    try:
        with memdir.open(project, home=tmp_path / "g") as m:
            m.remember("we deploy with pnpm because npm's lockfile broke CI", category="facts")
            m.remember("a rule: run the tests before a push", category="rules", pinned=True)
    finally:
        os.umask(old)
    root = project / ".memory"
    seen = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".memdir"]
        for name in [".", *filenames]:
            p = os.path.join(dirpath, name)
            mode = stat.S_IMODE(os.lstat(p).st_mode)
            seen.append(p)
            assert not mode & 0o022, (oct(mode), p)
    assert len(seen) >= 6
    note = next(root.glob("facts/*.md"))
    assert stat.S_IMODE(note.stat().st_mode) & 0o044 == 0o044 & ~mask  # readable as the umask says


def test_a_note_the_user_made_group_writable_keeps_its_mode(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        ref = m.remember("we deploy with pnpm because npm's lockfile broke CI", category="facts")
    note = next((project / ".memory").glob("facts/*.md"))
    os.chmod(note, 0o664)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.pin(ref.id)
    assert stat.S_IMODE(note.stat().st_mode) == 0o664


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode"])
def test_project_settings_install_makes_are_never_writable_by_others(project, tmp_path, host):
    """The folders and files ``memdir install --project`` makes name commands the host runs (hooks, the MCP server):
    one another account may write to lets it run its own commands as the user."""
    import subprocess
    import sys

    env = {**os.environ, "HOME": str(tmp_path / "h"), "MEMDIR_HOME": str(tmp_path / "g"),
           "CODEX_HOME": str(tmp_path / "h" / ".codex")}
    (tmp_path / "h").mkdir()
    r = subprocess.run([sys.executable, "-c", "import os, sys; os.umask(0); from memdir.cli import main; main.main(sys.argv[1:])",
                        "install", host, "--project"], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    made = [p for p in project.rglob("*") if ".git" not in p.relative_to(project).parts[:1]]
    assert made
    for p in made:
        assert not stat.S_IMODE(os.lstat(p).st_mode) & 0o022, (oct(os.lstat(p).st_mode), p)
