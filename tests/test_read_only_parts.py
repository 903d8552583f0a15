"""A store only part of which cannot be written (case C36's siblings): the tombstone log or the event counter
read-only while the index is writable. A write that went ahead there stopped half way (a forget whose tombstone was
never logged came back after a rebuild); it is refused whole with the one read-only line instead, and reads work. A
read-only category directory (rules kept from edits) refuses only the writes of its notes, each in one line: the
other categories and the captured turns are still stored.

File modes do not stop root, so the CLI runs without capabilities (``setpriv``) when the tests run as root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memdir

SETPRIV = shutil.which("setpriv")


def _cli(proj: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMDIR_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    pre = [SETPRIV, "--bounding-set=-all", "--inh-caps=-all"] if os.geteuid() == 0 else []
    return subprocess.run([*pre, sys.executable, "-m", "memdir", "--dir", str(proj), *args], text=True,
                          capture_output=True, timeout=120, env=env, cwd=proj, stdin=subprocess.DEVNULL)


def _store(tmp_path: Path) -> tuple[Path, Path, str]:
    if os.geteuid() == 0 and not SETPRIV:
        pytest.skip("running as root without setpriv: file modes stop nothing")
    proj, home = tmp_path / "proj", tmp_path / "g"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=home) as m:
        nid = m.remember("deploy with make deploy from the main branch", category="decisions").id
        m.remember("the staging database lives in eu-west-3", category="facts")
        m.capture({"role": "user", "text": "how do we roll back a failed deploy quickly?", "session": "s1"})
        m.forget(m.remember("a temporary note about caching layers").id)
    r = _cli(proj, home, "status")
    if r.returncode != 0 or "read-only" in r.stdout:
        pytest.skip(f"cannot run the CLI as a process file modes apply to: {r.stderr[-300:]}")
    return proj, home, nid


def _files(d: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(d)): (p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(d.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


@pytest.mark.parametrize("part", [".memdir/tombstones.jsonl", ".memdir/events.json"])
def test_a_store_with_one_part_read_only_refuses_writes_whole_and_reads(tmp_path, part):
    proj, home, nid = _store(tmp_path)
    mem = proj / ".memory"
    target = mem / part
    target.chmod(target.stat().st_mode & ~0o222)
    try:
        before = _files(mem)
        for args in (["recall", "deploy"], ["context", "how do we deploy?"], ["status"], ["get", nid], ["recent"],
                     ["inspect"], ["export", str(tmp_path / f"dump-{len(before)}.jsonl")]):
            r = _cli(proj, home, *args)
            assert r.returncode == 0 and "Traceback" not in r.stderr, (part, args, r.stdout, r.stderr)
        for args in (["remember", "a brand new fact about caching layers"], ["forget", nid], ["pin", nid],
                     ["forget", "--query", "deploy", "--force"], ["remember", "--scope", "project", "x y z note", "-c", "decisions"]):
            r = _cli(proj, home, *args)
            lines = r.stderr.strip().splitlines()
            assert r.returncode == 1 and len(lines) == 1 and "read-only" in lines[0] and str(mem) in lines[0], (part, args, r.stderr)
        assert _files(mem) == before, part
    finally:
        target.chmod(target.stat().st_mode | 0o200)
    with memdir.open(proj, home=home) as m:  # nothing was lost or half done
        assert m.get(nid) is not None and any("roll back" in h.text for h in m.recall("roll back failed deploy"))


def test_a_read_only_category_refuses_its_own_notes_writes_and_nothing_else(tmp_path):
    proj, home, nid = _store(tmp_path)
    target = proj / ".memory" / "decisions"
    target.chmod(target.stat().st_mode & ~0o222)
    try:
        before = {p.name: p.read_bytes() for p in target.iterdir()}
        for args in (["pin", nid], ["forget", nid], ["remember", "ship on fridays only after review", "-c", "decisions"]):
            r = _cli(proj, home, *args)
            lines = r.stderr.strip().splitlines()
            assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, (args, r.stderr)
            assert str(target) in lines[0], (args, r.stderr)
        assert {p.name: p.read_bytes() for p in target.iterdir()} == before
        r = _cli(proj, home, "remember", "the cache warms up in ninety seconds", "-c", "facts")
        assert r.returncode == 0, r.stderr
        r = _cli(proj, home, "import", str(_jsonl(tmp_path)))  # a capture goes to the index, not to decisions/
        assert r.returncode == 0 and "1 event stored" in r.stdout, (r.stdout, r.stderr)
    finally:
        target.chmod(target.stat().st_mode | 0o200)
    with memdir.open(proj, home=home) as m:
        assert m.get(nid) is not None
        assert any("ninety seconds" in h.text for h in m.recall("cache warms up"))
        assert any("slow after a restart" in h.text for h in m.recall("cache slow after restart"))


def _jsonl(tmp_path: Path) -> Path:
    import json

    p = tmp_path / "turns.jsonl"
    p.write_text(json.dumps({"type": "event", "role": "user", "session": "s2", "key": "k-restart",
                             "ts": "2026-12-01T10:00:00Z", "text": "why is the cache so slow after a restart?"}) + "\n")
    return p
