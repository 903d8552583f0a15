"""A root that is a link to nothing (``.memory`` linked to a folder since moved or not mounted; ``MEMDIR_HOME`` the
same): a write says so in one line, ``status`` and ``doctor`` name the link. Before, the error read
``.memory/.memdir is a file where memdir keeps a folder`` (there is no such file) and ``status`` said
``not created yet``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _cli(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMDIR_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "memdir", *args], text=True, capture_output=True, timeout=120,
                          env=env, cwd=cwd, stdin=subprocess.DEVNULL)


def test_a_project_memory_linked_to_nothing_is_named(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    os.symlink(tmp_path / "moved-away", proj / ".memory")
    home = tmp_path / "g"
    r = _cli(proj, home, "remember", "deploy with make deploy")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "is a link to" in r.stderr and "does not exist" in r.stderr and "is a file" not in r.stderr, r.stderr
    r = _cli(proj, home, "status")
    assert r.returncode == 0 and "does not exist" in r.stdout and "not created yet" not in r.stdout.splitlines()[1], r.stdout
    r = _cli(proj, home, "doctor")
    assert "[fail] project root" in r.stdout and "does not exist" in r.stdout, r.stdout
    assert os.path.islink(proj / ".memory") and not (tmp_path / "moved-away").exists()  # nothing made, nothing moved


def test_a_global_root_linked_to_nothing_is_named_and_the_project_still_works(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    home = tmp_path / "g"
    os.symlink(tmp_path / "unmounted", home)
    r = _cli(proj, home, "remember", "--scope", "global", "a global preference for tabs")
    assert r.returncode == 1 and "is a link to" in r.stderr and "does not exist" in r.stderr, r.stderr
    assert _cli(proj, home, "remember", "the project uses caddy as its proxy").returncode == 0
    r = _cli(proj, home, "recall", "caddy proxy")
    assert r.returncode == 0 and "caddy" in r.stdout, r.stderr
