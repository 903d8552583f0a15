"""Writes that meet a hostile world (cases C30, C41, C42, C43): an append-only log ending in a torn line, a model
reply that is not JSON, an index deleted under a store of episodic events, Ctrl-C in the middle of an import."""

from __future__ import annotations

import json
import logging

import pytest

import memdir
from memdir import jsonlog
from memdir.store.sqlite import tombstones

EVENTS = [
    {"key": f"import:t:s1:{i}", "role": "user", "text": f"deploy step number {i} of the payments service",
     "session": "s1", "ts": f"2026-10-01T10:00:{i:02d}Z"}
    for i in range(6)
]


def _drop_index(derived):
    for p in derived.glob("index.sqlite3*"):
        p.unlink()


# ---- C30: append-only logs with a torn tail -----------------------------------------------------------------
@pytest.mark.parametrize("torn", [
    b'{"ref": "import:t:s1:0", "content_sha256": "ab',     # cut mid-record
    b'{"ref": "import:t:s1:0", "content_sha256": null, "kind": "event", "deleted_at": "2026"}',  # whole, no newline
    b'\x00\x00\x00\x00',                                   # a power cut's zero-filled block
    b'{"ref": "x", "kind": "ev\xe2\x82',                   # cut inside a multi-byte character
])
def test_c30_a_torn_tombstone_log_keeps_the_next_forget(project, tmp_path, torn):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        assert m.import_events(EVENTS)["stored"] == 6
        assert m.forget("import:t:s1:1")
    derived = project / ".memory" / ".memdir"
    log = derived / tombstones.LOG_NAME
    log.write_bytes(log.read_bytes() + torn)  # the tail a full disk or a power cut leaves
    with memdir.open(project, home=home) as m:
        assert m.forget("import:t:s1:2")
    assert log.read_bytes().endswith(b"\n")
    _drop_index(derived)
    with memdir.open(project, home=home) as m:
        got = m.import_events(EVENTS)
        assert m.get("import:t:s1:2") is None and m.get("import:t:s1:1") is None
        assert got["skipped"] >= 2
        assert not [h for h in m.recall("deploy step number 2") if h.id == "import:t:s1:2"]


def test_c30_a_record_an_older_writer_glued_onto_a_torn_line_is_still_read(tmp_path, caplog):
    path = tmp_path / "log.jsonl"
    good = {"ref": "b", "content_sha256": None, "kind": "event", "deleted_at": "2026-11-01"}
    path.write_text('{"ref": "a"}\n{"ref": "torn", "ki' + json.dumps(good) + "\n" + "not json at all\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="memdir"):
        recs, bad = jsonlog.read(path)
        jsonlog.read(path)  # reported once per file and process
    assert [r["ref"] for r in recs] == ["a", "b"] and bad == 2
    assert len([r for r in caplog.records if "unreadable line" in r.getMessage()]) == 1
    assert "2 unreadable lines" in caplog.text


def test_c30_append_starts_a_new_line_after_a_torn_tail(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"ref": "a", "kin')
    assert jsonlog.append(path, [{"ref": "b"}, {"ref": "c"}]) == 2
    assert path.read_bytes() == b'{"ref": "a", "kin\n{"ref": "b"}\n{"ref": "c"}\n'
    assert [r["ref"] for r in jsonlog.read(path)[0]] == ["b", "c"]
    jsonlog.append(path, [{"ref": "d"}])  # a whole file: no blank line added
    assert path.read_bytes().endswith(b'"c"}\n{"ref": "d"}\n')
