"""`memdir doctor` names the files that only grow, one line each, only when large: the debug log, index files set aside
as unreadable, the tombstone log, and memdir install's backups of a host's settings file; each says what to do."""

from __future__ import annotations

import os

import pytest

import memdir
from memdir.engine import growth


def _sparse(path, size):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)


def _named(checks, word):
    return [c for c in checks if word in c["check"]]


def test_nothing_is_said_for_a_small_store(m):
    m.remember("deploy with pnpm", category="decisions")
    checks = m.doctor()
    for word in ("debug log", "set-aside files", "tombstone log", "install backups"):
        assert not _named(checks, word), checks


def test_a_large_debug_log_set_aside_files_and_tombstone_log_are_named_with_what_to_do(m, project, tmp_path):
    m.remember("deploy with pnpm", category="decisions")
    g = tmp_path / "g" / ".memdir"
    _sparse(g / "debug.log", 3 * growth.MB)
    _sparse(g / "debug.log.1", 2 * growth.MB)
    d = project / ".memory" / ".memdir"
    _sparse(d / "index.sqlite3.corrupt-1700000000", 80 * growth.MB)
    _sparse(d / "tombstones.jsonl.bad-20261201-000000", 30 * growth.MB)
    checks = m.doctor()
    debug = _named(checks, "debug log")
    assert len(debug) == 1 and debug[0]["ok"] == "warn" and "5 MB" in debug[0]["detail"], checks
    assert "delete" in debug[0]["remedy"] and "MEMDIR_DEBUG" in debug[0]["remedy"]
    aside = _named(checks, "project set-aside files")
    assert len(aside) == 1 and "2 files" in aside[0]["detail"] and "110 MB" in aside[0]["detail"], checks
    assert "rm " in aside[0]["remedy"] and "recovered" in aside[0]["remedy"]
    assert not _named(checks, "tombstone log") or "holds" not in _named(checks, "tombstone log")[0]["detail"]
    # the tombstone log itself past 50 MB: named, never to be deleted alone
    log = d / "tombstones.jsonl"
    with open(log, "ab") as f:
        f.truncate(os.path.getsize(log) + 51 * growth.MB)
    found = [c for c in growth.checks({"project": m.stores.roots["project"]}, g) if "tombstone" in c["check"]]
    assert len(found) == 1 and "never delete it" in found[0]["remedy"], found


def test_more_than_twenty_install_backups_of_one_settings_file_are_named(tmp_path, monkeypatch):
    from memdir.hosts.backup_checks import backup_checks

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for k in ("CODEX_HOME", "DSH_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(k, raising=False)
    (home / ".claude.json").write_text("{}")
    for i in range(20):
        (home / f".claude.json.memdir-backup-2026120{i % 10}T0000{i:02d}000000Z").write_text("{}")
    assert backup_checks(None) == []
    (home / ".claude.json.memdir-backup-20261231T000000000000Z").write_text("{}")
    for i in range(3):
        (home / ".claude" / f"settings.json.memdir-backup-2026120{i}T000000000000Z").write_text("{}")
    found = backup_checks(None)
    assert len(found) == 1 and found[0]["ok"] == "warn", found
    assert "21" in found[0]["detail"] and str(home / ".claude.json") in found[0]["detail"]
    assert "oldest" in found[0]["remedy"] and "delete" in found[0]["remedy"]
