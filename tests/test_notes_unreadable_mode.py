"""A note made unreadable after it was indexed (``chmod 000``, a file another user owns): every process, fresh or
long-lived, treats it as a fresh index does: one warning naming it, the other notes found, the file left as it is;
readable again, it is a note again.

File modes do not stop root, so the processes run without capabilities (``setpriv``) when the tests run as root."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import memdir

SETPRIV = shutil.which("setpriv")
PRE = [SETPRIV, "--bounding-set=-all", "--inh-caps=-all"] if os.geteuid() == 0 else []


def _run(proj: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMDIR_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([*PRE, sys.executable, *args], text=True, capture_output=True, timeout=120, env=env,
                          cwd=proj, stdin=subprocess.DEVNULL)


def _store(tmp_path: Path) -> tuple[Path, Path, str, str]:
    if os.geteuid() == 0 and not SETPRIV:
        pytest.skip("running as root without setpriv: file modes stop nothing")
    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        locked = m.remember("database migrations need a table lock first", category="pitfalls").id
        other = m.remember("the migration runner retries a lock timeout twice", category="decisions").id
    probe = _run(proj, home, "-c", f"open({str(proj / '.memory' / (locked + '.md'))!r}).read()")
    if probe.returncode != 0:
        pytest.skip(f"cannot run a process file modes apply to: {probe.stderr[-200:]}")
    return proj, home, locked, other


def test_a_note_made_unreadable_after_indexing_is_said_once_and_hides_nothing(tmp_path):
    proj, home, locked, other = _store(tmp_path)
    path = proj / ".memory" / (locked + ".md")
    before = path.read_bytes()
    path.chmod(0)
    try:
        r = _run(proj, home, "-m", "memdir", "--json", "recall", "migration lock")
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        assert [h["id"] for h in json.loads(r.stdout)] == [other]
        warn = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(warn) == 1 and str(path) in warn[0] and "warning" in warn[0], r.stderr
        r = _run(proj, home, "-m", "memdir", "--json", "recent")
        assert [h["id"] for h in json.loads(r.stdout)] == [other]
        assert f"({locked.split('/')[1]}.md)" not in (proj / ".memory" / "pitfalls" / "index.md").read_text()
        for args in (["get", locked], ["pin", locked], ["edit", locked, "-"]):
            r = _run(proj, home, "-m", "memdir", *args)
            lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
            assert r.returncode in (1, 2) and "Traceback" not in r.stderr and len(lines) <= 2, (args, r.stderr)
    finally:
        path.chmod(0o644)
    assert path.read_bytes() == before
    with memdir.open(proj, home=home) as m:
        assert sorted(h.id for h in m.recall("migration lock")) == sorted([locked, other])


def test_a_long_lived_process_sees_the_chmod_as_a_fresh_one_does(tmp_path):
    proj, home, locked, other = _store(tmp_path)
    path = proj / ".memory" / (locked + ".md")
    script = textwrap.dedent(f"""
        import json, os, time, memdir
        m = memdir.open({str(proj)!r})
        first = sorted(h.id for h in m.recall("migration lock"))
        time.sleep(2.1)  # past the racy window: the long-lived process trusts its snapshot
        m.recall("migration lock")
        os.chmod({str(path)!r}, 0)
        after = sorted(h.id for h in m.recall("migration lock"))
        said = [p["path"] for p in m.note_problems()]
        block = m.context("migration lock")
        os.chmod({str(path)!r}, 0o644)
        back = sorted(h.id for h in m.recall("migration lock"))
        print(json.dumps([first, after, said, "table lock first" in block, back]))
    """)
    r = _run(proj, home, "-c", script)
    assert r.returncode == 0, r.stderr
    first, after, said, shown, back = json.loads(r.stdout)
    assert first == sorted([locked, other]) and after == [other] and said == [str(path)] and not shown
    assert back == sorted([locked, other])
