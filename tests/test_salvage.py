"""An index set aside as unreadable: `memdir doctor` reads back the events its readable pages still hold (the
file is kept), a second doctor stores nothing twice, and the lost-events notice points at doctor until then."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner

import memdir
from memdir.cli.main import cli
from memdir.store.sqlite import salvage


def _events(n: int) -> list[dict]:
    long_tail = " and the rest of the reply explains why, with the port, the host and the retry policy." * 8
    return [{"key": f"import:test:s{i // 50}:m{i}", "role": "assistant" if i % 2 else "user",
             "text": f"turn {i}: the staging database listens on port {5400 + i}" + (long_tail if i % 3 == 0 else ""),
             "session": f"s{i // 50}", "ts": f"2026-11-{1 + i // 200:02d}T10:{(i // 60) % 60:02d}:{i % 60:02d}Z"}
            for i in range(n)]


def test_doctor_recovers_the_readable_events_of_a_truncated_index(project, tmp_path):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("the deploy goes through the staging cluster first", category="facts")
        assert m.import_events(_events(3000))["stored"] == 3000
    path = project / ".memory" / ".memdir" / "index.sqlite3"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a sync tool copied half the file
    for extra in ("-wal", "-shm"):
        (project / ".memory" / ".memdir" / f"index.sqlite3{extra}").unlink(missing_ok=True)

    with memdir.open(project, home=home) as m:
        m.recall("staging")  # opening finds the file unreadable: set aside, a new index from the notes
        aside = salvage.set_aside(path.parent)
        assert len(aside) == 1 and aside[0].stat().st_size == len(data) // 2
        assert m.status()["project"].get("events", 0) == 0
        [line] = m.notices()
        assert "memdir doctor" in line and "recovers" in line
        readable = 0  # every event row SQLite can still read, asked for one rowid at a time
        db = sqlite3.connect(f"file:{aside[0]}?mode=ro&immutable=1", uri=True)
        db.execute("PRAGMA writable_schema = ON")
        for i in range(1, 3100):
            try:
                row = db.execute("SELECT kind FROM docs WHERE id = ?", (i,)).fetchone()
            except sqlite3.DatabaseError:
                continue
            readable += bool(row and row[0] == "event")
        db.close()
        checks = [c for c in m.doctor() if c["check"] == "project set-aside index"]
        got = m.status()["project"]["events"]
        assert got == readable  # none left behind past an unreadable page
        assert 0 < got < 3000 and len(checks) == 1 and f"{got} of the 3000 events read back" in checks[0]["detail"]
        [line] = m.notices()  # what is still missing, and no more pointing at doctor
        assert f"{3000 - got} episodic events are gone" in line and "memdir doctor" not in line
        recovered = {e["key"]: e for s in range(60) for e in m.session_events(f"s{s}")}
        originals = {e["key"]: e for e in _events(3000)}
        assert all(e["text"] == originals[k]["text"] and e["role"] == originals[k]["role"] for k, e in recovered.items())
        assert any(len(e["text"]) > 500 for e in recovered.values())  # compressed tails read back whole
        assert aside[0].exists() and salvage.salvaged(aside[0])["recovered"] == got
        again = [c for c in m.doctor() if c["check"] == "project set-aside index"]
        assert "recovered on" in again[0]["detail"] and m.status()["project"]["events"] == got
        assert "set_aside" not in m.status()["project"]
    out = CliRunner().invoke(cli, ["--home", str(home), "-C", str(project), "status"])
    assert "set aside" not in out.output


def test_a_file_that_is_no_database_gives_nothing_and_no_error(tmp_path):
    f = tmp_path / "index.sqlite3.corrupt-1"
    f.write_bytes(b"not a database at all" * 300)
    assert salvage.read_events(f) == ([], 0)
    db = sqlite3.connect(tmp_path / "other.sqlite3")
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()
    assert salvage.read_events(tmp_path / "other.sqlite3") == ([], 0)


def test_the_set_aside_files_wal_and_an_older_layout_are_read_too(tmp_path):
    """The latest commits of a set-aside index may be only in its -wal (SQLite reads it from a copy, never from the
    original's directory); an index of an older layout (whole texts in ``text``, the time in ``ts``) reads too."""
    f = tmp_path / "index.sqlite3.corrupt-1"
    db = sqlite3.connect(f)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, kind TEXT, ref TEXT, role TEXT, session TEXT, ts TEXT, "
               "ts_epoch REAL, text TEXT, meta TEXT)")
    db.executemany("INSERT INTO docs(kind, ref, role, session, ts, ts_epoch, text) VALUES ('event', ?, 'user', 's', "
                   "'2026-11-30T10:00:00Z', 1764496800, ?)", [(f"import:x:s:{i}", f"turn {i} text") for i in range(50)])
    db.commit()
    assert Path(str(f) + "-wal").stat().st_size > 0
    before = sorted(p.name for p in tmp_path.iterdir())
    events, bad = salvage.read_events(f)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing made beside the original
    db.close()
    assert bad == 0 and len(events) == 50 and events[7] == {"key": "import:x:s:7", "role": "user", "text": "turn 7 text",
                                                            "session": "s", "ts": "2026-11-30T10:00:00Z", "meta": None}


def test_doctor_says_when_a_set_aside_file_cannot_be_read(project, tmp_path, monkeypatch):
    """An unreadable set-aside file (permissions, no room for its copy) is one doctor warning, not a traceback; a
    directory of that name is no set-aside index."""
    from memdir.engine import recovery

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("the staging database listens on port 5433", category="facts")
        derived = project / ".memory" / ".memdir"
        (derived / "index.sqlite3.corrupt-1").write_bytes(b"x" * 100)
        (derived / "index.sqlite3.corrupt-2").mkdir()

        def denied(path):
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(recovery.salvage, "read_events", denied)
        checks = [c for c in m.doctor() if c["check"] == "project set-aside index"]
        assert len(checks) == 1 and checks[0]["ok"] == "warn" and "could not be read" in checks[0]["detail"]


def test_doctor_reads_back_the_events_of_an_index_whose_first_bytes_were_overwritten(project, tmp_path):
    """The header's first 16 bytes zeroed (every data page intact): SQLite cannot open the file, and doctor read back
    none of its events. It mends the header of its temporary copy (never the set-aside file) and reads them all."""
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        assert m.import_events(_events(200))["stored"] == 200
    path = project / ".memory" / ".memdir" / "index.sqlite3"
    for extra in ("-wal", "-shm"):
        (project / ".memory" / ".memdir" / f"index.sqlite3{extra}").unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    data[0:40] = b"2025-01-01 12:00:00 INFO server started\n"  # a log line written over the header
    path.write_bytes(bytes(data))
    with memdir.open(project, home=home) as m:
        m.recall("staging")  # set aside, a new index from the notes
        [aside] = salvage.set_aside(path.parent)
        before = aside.read_bytes()
        checks = [c for c in m.doctor() if c["check"] == "project set-aside index"]
        assert "200 of the 200 events read back" in checks[0]["detail"], checks
        assert m.status()["project"]["events"] == 200
        assert aside.read_bytes() == before  # the set-aside file itself is never changed
