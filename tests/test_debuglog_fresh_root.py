"""The first run in a new root wrote "orphan -wal of …/index.sqlite3 not set aside: [Errno 2] No such file or
directory" to the debug log (the first line a user reading debug.log met): a missing -wal is the usual case, not a
failure to set one aside."""

import logging

import memdir


def test_a_new_root_logs_no_orphan_wal_line(tmp_path, caplog):
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    with caplog.at_level(logging.DEBUG, logger="memdir"), memdir.open(project, home=tmp_path / "g") as m:
        m.remember("the deploy script uses pnpm", category="decisions")
    assert not [r.getMessage() for r in caplog.records if "orphan -wal" in r.getMessage()]
