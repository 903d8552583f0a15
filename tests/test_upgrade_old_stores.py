"""Stores written by an earlier memdir, opened by this one: nothing lost, nothing refused that this memdir can read."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import memdir
from memdir.store.sqlite.migrations import MIGRATIONS


def _store(project, home):
    with memdir.open(project, home=home) as m:
        m.remember("the CI cache key is the sha256 of the lockfile", category="facts")
        m.import_events([{"key": f"e:{i}", "role": "user", "text": f"redis runs on port {7000 + i} in prod",
                          "session": "s", "ts": "2026-11-20T08:00:00Z"} for i in range(5)])
        return m.roots["project"].db_path


def _set(path, version, automerge=None):
    db = sqlite3.connect(path, isolation_level=None)
    if automerge is not None:  # what the retired m016 did: a setting in the FTS table's own config
        db.execute("INSERT INTO fts(fts, rank) VALUES ('automerge', ?)", (automerge,))
    db.execute(f"PRAGMA user_version = {version}")
    db.close()


def _cli(project, home, *args):
    env = {"MEMDIR_HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_a_store_from_the_memdir_that_had_the_retired_fts_automerge_migration_opens(project, tmp_path):
    """memdir of 2026-12-04 wrote schema v16 (FTS5 automerge 8); the next day took that migration back, and from then
    on every command refused such a store as "written by a newer memdir: upgrade memdir", with no newer one to
    upgrade to. It is stepped back to v15 (FTS5's default merge width again) with every row kept."""
    home = tmp_path / "g"
    path = _store(project, home)
    _set(path, len(MIGRATIONS) + 1, automerge=8)
    r = _cli(project, home, "recall", "redis port")
    assert r.returncode == 0 and "newer memdir" not in r.stderr, r.stderr
    assert "e:4" in r.stdout
    with memdir.open(project, home=home) as m:
        assert len(m.recent(limit=20)) == 6
        db = m.roots["project"].db
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("SELECT count(*) FROM fts_config WHERE k = 'automerge'").fetchone()[0] == 0


def test_a_store_of_a_really_newer_schema_is_still_refused_and_left_as_it_was(project, tmp_path):
    home = tmp_path / "g"
    path = _store(project, home)
    for version, automerge in ((len(MIGRATIONS) + 1, None), (len(MIGRATIONS) + 1, 16), (len(MIGRATIONS) + 2, 8)):
        _set(path, version, automerge=automerge)
        before = path.read_bytes()
        r = _cli(project, home, "recall", "redis")
        err = r.stderr.strip()
        assert r.returncode == 1 and len(err.splitlines()) == 1 and "newer memdir" in err, (version, automerge, err)
        assert path.read_bytes() == before


def test_a_hook_beside_an_index_a_newer_memdir_wrote_queues_its_turns_for_it(project, tmp_path):
    """A hook run by an older memdir (a second install on PATH, or a roll-back) next to an index a newer one wrote
    cannot store into it: the prompt and the tool output it was handed were dropped without a word. They are queued
    in the root's spool, which the newer memdir stores at its next write; the hook still exits 0 at once."""
    import json

    home = tmp_path / "g"
    path = _store(project, home)
    _set(path, len(MIGRATIONS) + 1)
    before = path.read_bytes()
    env = {"MEMDIR_HOME": str(home), "PATH": "/usr/bin:/bin"}
    calls = [("user-prompt", {"session_id": "s9", "cwd": str(project), "prompt": "how do we rotate the kafka certs"}),
             ("post-tool-use", {"session_id": "s9", "cwd": str(project), "tool_name": "Bash",
                                "tool_input": {"command": "make rotate-certs"},
                                "tool_response": {"stdout": "rotated kafka broker certificates on 3 nodes"}})]
    for event, payload in calls:
        r = subprocess.run([sys.executable, "-m", "memdir", "hook", "claude-code", event], input=json.dumps(payload),
                           capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode == 0 and "Traceback" not in r.stderr
    assert path.read_bytes() == before
    _set(path, len(MIGRATIONS))  # the newer memdir, as far as this one can play it
    with memdir.open(project, home=home) as m:
        m.capture({"role": "user", "text": "the next prompt after the upgrade", "session": "s10"})
        texts = [h.text for h in m.recent(kinds=["event"], limit=20)]
    assert any("rotate the kafka certs" in t for t in texts), texts
    assert any("rotated kafka broker certificates" in t for t in texts), texts


def test_a_hook_while_a_detached_process_upgrades_the_index_does_not_wait_for_it(project, tmp_path):
    """The first hook after an update hands a long migration to a detached process (its marker beside the index).
    Every hook after it waited on that process's write lock for its whole budget (3 s a prompt, for as long as the
    upgrade of a large store ran) and then left without a block anyway. It now sees the upgrade under way, queues
    its turns for the next writer and answers at once."""
    import json
    import time

    from memdir.store.sqlite.migrations import migrate
    from memdir.store.sqlite.opening import add_functions

    home = tmp_path / "g"
    path = project / ".memory" / ".memdir" / "index.sqlite3"
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    add_functions(db)
    migrate(db, upto=len(MIGRATIONS) - 1)  # a store of the memdir before
    (path.parent / "index.sqlite3.upgrading").write_text("1")
    db.execute("BEGIN IMMEDIATE")  # the detached upgrade holds the write lock
    env = {"MEMDIR_HOME": str(home), "PATH": "/usr/bin:/bin", "MEMDIR_HOOK_BUDGET_MS": "20000"}
    payload = {"session_id": "s1", "cwd": str(project), "prompt": "how do we rotate the kafka certs"}
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "memdir", "hook", "claude-code", "user-prompt"],
                       input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=120)
    took = time.monotonic() - t0
    db.execute("ROLLBACK")
    db.close()
    assert r.returncode == 0 and took < 8, took  # 20 s (its whole budget) before
    (path.parent / "index.sqlite3.upgrading").unlink()
    with memdir.open(project, home=home) as m:
        m.capture({"role": "user", "text": "the next prompt after the upgrade", "session": "s2"})
        texts = [h.text for h in m.recent(kinds=["event"], limit=20)]
    assert any("rotate the kafka certs" in t for t in texts), texts


def test_the_one_time_re_tokenizing_line_names_the_index_it_is_about(project, tmp_path):
    """After an update both roots were re-tokenized and the same "(one-time)" line came twice, naming neither: it
    read as one step done twice. Each line now names its index."""
    home = tmp_path / "g"
    _store(project, home)
    with memdir.open(project, home=home) as m:
        m.remember("a global note", scope="global")
        paths = [m.roots[s].db_path for s in ("project", "global")]
    for path in paths:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("UPDATE meta SET value = 'an-older-tokenizer' WHERE key = 'tokenizer'")
        db.close()
    r = _cli(project, home, "status")
    lines = [ln for ln in r.stderr.splitlines() if "re-tokenizing" in ln]
    assert r.returncode == 0 and len(lines) == 2, r.stderr
    assert str(paths[0]) in lines[0] + lines[1] and str(paths[1]) in lines[0] + lines[1]
