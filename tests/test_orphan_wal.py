"""An index's ``-wal`` found without the index beside it: the user deleted ``index.sqlite3`` after a writer was killed
(its last commits were still only in the ``-wal``), or a move-aside of a corrupt index was killed between moving the
file and its ``-wal``. SQLite deletes such a ``-wal`` when it creates the new file, so those commits were gone without a
word; the ``-wal`` is now set aside as ``index.sqlite3.corrupt-<epoch>-wal`` (never deleted), said in one line, and
``memdir doctor`` lists it with the other set-aside files."""

from __future__ import annotations

import logging
import sqlite3

from click.testing import CliRunner

import memdir
from memdir.cli.main import cli
from memdir.store.sqlite import salvage


def _orphan_wal(project, home):
    """A store whose ``index.sqlite3`` was deleted while its ``-wal`` held commits; returns the ``-wal``'s bytes."""
    derived = project / ".memory" / ".memdir"
    with memdir.open(project, home=home) as m:
        m.remember("the deploy goes through the staging cluster first", category="facts")
        keep = sqlite3.connect(derived / "index.sqlite3")  # a reader still open: the last commits stay in the -wal
        keep.execute("SELECT count(*) FROM sqlite_master").fetchone()
        m.import_events([{"key": f"k{i}", "role": "user", "text": f"why does node {i} of the helm release hang",
                          "session": "s1"} for i in range(20)])
        wal = (derived / "index.sqlite3-wal").read_bytes()
    keep.close()
    for suffix in ("", "-wal", "-shm"):
        (derived / f"index.sqlite3{suffix}").unlink(missing_ok=True)
    (derived / "index.sqlite3-wal").write_bytes(wal)  # as a killed writer left it
    assert len(wal) > 0
    return wal


def test_a_wal_left_without_its_index_is_set_aside_not_deleted(project, tmp_path, caplog):
    home = tmp_path / "g"
    wal = _orphan_wal(project, home)
    derived = project / ".memory" / ".memdir"
    with caplog.at_level(logging.WARNING, logger="memdir"):
        with memdir.open(project, home=home) as m:
            assert [h.id for h in m.recall("staging cluster")]  # rebuilt from the notes
    kept = [p for p in derived.glob("index.sqlite3.corrupt-*-wal")]
    assert len(kept) == 1 and kept[0].read_bytes() == wal
    lines = [r.getMessage() for r in caplog.records if "-wal" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0] and kept[0].name in lines[0]
    assert salvage.set_aside(derived)  # doctor's salvage sees it with the other set-aside files


def test_doctor_after_an_orphan_wal_exits_0_and_names_the_set_aside_file(project, tmp_path):
    home = tmp_path / "g"
    _orphan_wal(project, home)
    r = CliRunner().invoke(cli, ["--dir", str(project), "--home", str(home), "doctor"])
    assert r.exit_code == 0, r.output
    assert "set-aside index" in r.output and "Traceback" not in r.output
