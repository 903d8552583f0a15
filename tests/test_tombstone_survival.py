"""Forgetting survives the loss of the index and a backup round trip (hnewuser3 finding 3): tombstones are kept in
``.memdir/tombstones.jsonl`` beside the index, recovered from a moved-aside corrupt index where readable, and carried
by ``memdir export`` / ``memdir import``."""

from __future__ import annotations

import json
import shutil
import sqlite3

from click.testing import CliRunner

import memdir
from memdir.store.sqlite import tombstones
from memdir.cli.main import cli

EVENTS = [
    {"key": "import:test:s1:u1", "role": "user", "text": "how do we roll back the payments deploy", "session": "s1",
     "ts": "2026-10-01T10:00:00Z"},
    {"key": "import:test:s1:a1", "role": "assistant", "text": "my home address is 12 quiet lane, do not keep it",
     "session": "s1", "ts": "2026-10-01T10:00:05Z"},
    {"key": "import:test:s1:u2", "role": "user", "text": "thanks, the rollback script worked fine", "session": "s1",
     "ts": "2026-10-01T10:00:09Z"},
]
SECRET = "import:test:s1:a1"


def _store_and_forget(project, home):
    with memdir.open(project, home=home) as m:
        assert m.import_events(EVENTS)["stored"] == 3
        assert m.forget(SECRET)
    return project / ".memory" / ".memdir"


def _reimport(project, home):
    with memdir.open(project, home=home) as m:
        got = m.import_events(EVENTS)
        return got, m.get(SECRET), m.recall("home address quiet lane")


def test_a_corrupt_index_moved_aside_keeps_what_was_forgotten(project, tmp_path, caplog):
    derived = _store_and_forget(project, tmp_path / "g")
    for p in derived.glob("index.sqlite3-*"):
        p.unlink()
    (derived / "index.sqlite3").write_bytes(b"garbage, not a database" * 500)  # nothing of the old file readable
    got, back, hits = _reimport(project, tmp_path / "g")
    assert back is None and not [h for h in hits if h.id == SECRET]
    assert got["stored"] == 2 and got["skipped"] == 1
    assert list(derived.glob("index.sqlite3.corrupt-*"))
    assert "forgotten items stay forgotten" in caplog.text


def test_a_deleted_index_keeps_what_was_forgotten(project, tmp_path):
    derived = _store_and_forget(project, tmp_path / "g")
    for p in derived.glob("index.sqlite3*"):
        p.unlink()
    got, back, _ = _reimport(project, tmp_path / "g")
    assert back is None and got["skipped"] == 1


def test_tombstones_readable_in_the_moved_aside_file_are_recovered(project, tmp_path):
    """An index made by an older memdir has no log: a rebuild takes what SQLite can still read from the old file."""
    derived = _store_and_forget(project, tmp_path / "g")
    (derived / tombstones.LOG_NAME).unlink()
    aside = derived / "old.sqlite3"
    shutil.copy(derived / "index.sqlite3", aside)
    for p in derived.glob("index.sqlite3*"):
        p.unlink()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE tombstones(ref TEXT PRIMARY KEY, content_sha256 TEXT, kind TEXT, deleted_at TEXT NOT NULL)")
    assert tombstones.on_open(db, derived / "index.sqlite3", created=True, aside=aside) == 1
    assert [r[0] for r in db.execute("SELECT ref FROM tombstones")] == [SECRET]
    assert [r["ref"] for r in tombstones.read(derived / tombstones.LOG_NAME)] == [SECRET]  # logged from now on


def test_an_index_without_a_log_writes_its_tombstones_to_one_at_open(project, tmp_path):
    derived = _store_and_forget(project, tmp_path / "g")
    log = derived / tombstones.LOG_NAME
    log.unlink()
    with memdir.open(project, home=tmp_path / "g") as m:
        m.status()
    assert [r["ref"] for r in tombstones.read(log)] == [SECRET]


def test_a_rolled_back_forget_writes_no_log_line(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events(EVENTS)
        root = m.roots["project"]
        try:
            with root.store.transaction() as st:
                st.tombstone("import:test:s1:u1", None, "event", "2026-11-01T00:00:00Z")
                raise RuntimeError("cut")
        except RuntimeError:
            pass
    assert tombstones.read(project / ".memory" / ".memdir" / tombstones.LOG_NAME) == []


def test_export_and_import_carry_tombstones(project, tmp_path):
    _store_and_forget(project, tmp_path / "g")
    dump = tmp_path / "dump.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.export(dump)["tombstones"] == 1
    lines = [json.loads(x) for x in dump.read_text(encoding="utf-8").splitlines()]
    tomb = [x for x in lines if x["type"] == "tombstone"]
    assert [x["ref"] for x in tomb] == [SECRET] and "text" not in tomb[0] and tomb[0]["content_sha256"]
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    with memdir.open(other, home=tmp_path / "g2") as m2:
        got = m2.import_jsonl(dump)
        assert got["tombstones"] == 1 and got["stored"] == 2
        again = m2.import_events(EVENTS)  # the transcript imported again in the restored project
        assert again["skipped"] == 1 and m2.get(SECRET) is None


def test_importing_a_tombstone_forgets_the_event_already_stored(project, tmp_path):
    _store_and_forget(project, tmp_path / "g")
    dump = tmp_path / "dump.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        m.export(dump)
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    with memdir.open(other, home=tmp_path / "g2") as m2:
        m2.import_events(EVENTS)  # the transcript came back before the backup was restored
        assert m2.get(SECRET) is not None
        assert m2.import_jsonl(dump)["tombstones"] == 1
        assert m2.get(SECRET) is None and not m2.recall("home address quiet lane")
        assert m2.import_jsonl(dump)["tombstones"] == 0  # re-run: nothing new


def test_cli_export_says_how_many_tombstones(project, tmp_path, monkeypatch):
    _store_and_forget(project, tmp_path / "g")
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    r = CliRunner().invoke(cli, ["--dir", str(project), "export", str(tmp_path / "d.jsonl")])
    assert r.exit_code == 0 and "1 tombstone to" in r.output


NOTE = "the build cache lives in /var/cache/build on ci runners"


def _other(tmp_path, name):
    other = tmp_path / name
    (other / ".git").mkdir(parents=True)
    return other


def test_an_export_made_before_a_forget_does_not_bring_the_note_back(project, tmp_path):
    old = tmp_path / "old.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        nid = m.remember(NOTE, category="facts").id
        m.export(old)
        assert m.forget(nid)
        after = tmp_path / "after.jsonl"
        m.export(after)  # the tombstone alone
        got = m.import_jsonl(old)
        assert got["notes"] == 0 and got["notes_forgotten"] == 1
        assert m.get(nid) is None and not (project / ".memory" / f"{nid}.md").exists()
        assert not m.recall("build cache")
    with memdir.open(_other(tmp_path, "other"), home=tmp_path / "g2") as m2:  # a restore elsewhere, newest first
        assert m2.import_jsonl(after)["tombstones"] == 1
        assert m2.import_jsonl(old)["notes_forgotten"] == 1 and m2.get(nid) is None


def test_a_note_remembered_again_after_a_forget_is_restored_with_its_tombstone(project, tmp_path):
    dump = tmp_path / "dump.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        nid = m.remember(NOTE, category="facts").id
        assert m.forget(nid)
        again = m.remember(NOTE, category="facts")
        m.export(dump)
    kinds = [json.loads(x)["type"] for x in dump.read_text(encoding="utf-8").splitlines()]
    assert sorted(kinds) == ["note", "tombstone"]
    with memdir.open(_other(tmp_path, "other"), home=tmp_path / "g2") as m2:
        got = m2.import_jsonl(dump)
        assert got["notes"] == 1 and got["notes_forgotten"] == 0 and m2.get(again.id) is not None
        assert m2.import_jsonl(dump)["notes_existing"] == 1  # a re-run: already there, not forgotten


def test_cli_import_says_a_note_was_forgotten_earlier(project, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    old = tmp_path / "old.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        nid = m.remember(NOTE, category="facts").id
        m.export(old)
        m.forget(nid)
    r = CliRunner().invoke(cli, ["--dir", str(project), "import", str(old)])
    assert r.exit_code == 0 and "1 forgotten earlier" in r.output, r.output  # a backup restore run again: handled


def test_a_note_brought_back_by_hand_after_a_forget_is_restored_from_its_export(project, tmp_path):
    """Forgotten, then its file put back (``git checkout``): the export holds the live note and its old tombstone."""
    dump = tmp_path / "dump.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember(NOTE, category="facts")
        saved = note.path.read_bytes()
        assert m.forget(note.id)
    note.path.write_bytes(saved)
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.get(note.id) is not None
        m.export(dump)
    with memdir.open(_other(tmp_path, "other"), home=tmp_path / "g2") as m2:
        got = m2.import_jsonl(dump)
        assert got["notes"] == 1 and got["notes_forgotten"] == 0 and m2.get(note.id) is not None


def test_another_text_under_a_forgotten_notes_id_is_another_note(project, tmp_path):
    """Slugs are cut short: two texts can share an id; forgetting one here does not keep the other out."""
    a_text = "release builds must be signed with the hsm module on the CI runner"
    b_text = "release builds must be signed with the hsm key from vault"
    dump = tmp_path / "a.jsonl"
    with memdir.open(_other(tmp_path, "a"), home=tmp_path / "ga") as ma:
        a = ma.remember(a_text, category="facts")
        ma.export(dump)
    with memdir.open(project, home=tmp_path / "g") as m:
        b = m.remember(b_text, category="facts")
        assert b.id == a.id
        assert m.forget(b.id)
        got = m.import_jsonl(dump)
        assert got["notes"] == 1 and got["notes_forgotten"] == 0
        assert m.get(a.id) is not None and m.get(a.id).text.strip() == a_text


def test_an_export_made_before_a_supersede_does_not_bring_the_replaced_note_back_live(project, tmp_path):
    dump = tmp_path / "before.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        old = m.remember("we use node 18 in CI", category="decisions")
        m.export(dump)
        new = m.remember("we use node 22 in CI", category="decisions", supersedes=old.id)
        got = m.import_jsonl(dump)
        assert got["notes"] == 0 and got["notes_existing"] == 1
        live = [n for n in m.inspect().notes if not n.superseded_by]
        assert [n.id for n in live] == [new.id]


def test_a_text_remembered_again_after_its_supersede_is_restored_live(project, tmp_path):
    b1, b2 = tmp_path / "b1.jsonl", tmp_path / "b2.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        x = m.remember("we use node 18 in CI", category="decisions")
        m.remember("we use node 22 in CI", category="decisions", supersedes=x.id)
        m.export(b1)
    with memdir.open(_other(tmp_path, "target"), home=tmp_path / "g2") as t:
        t.import_jsonl(b1)
    with memdir.open(project, home=tmp_path / "g") as m:
        again = m.remember("we use node 18 in CI", category="decisions")  # a person states it again: live
        assert again.id != x.id and not again.existed
        m.export(b2)
    with memdir.open(tmp_path / "target", home=tmp_path / "g2") as t:
        got = t.import_jsonl(b2)
        assert got["notes"] == 1, got
        assert sum(1 for n in t.inspect().notes if not n.superseded_by and "node 18" in n.text) == 1


def test_a_tombstone_is_kept_when_the_export_holds_another_text_under_the_same_id(project, tmp_path):
    a_text = "release builds must be signed with the hsm module on the CI runner"
    b_text = "release builds must be signed with the hsm key from vault"
    c1, c2 = tmp_path / "c1.jsonl", tmp_path / "c2.jsonl"
    with memdir.open(project, home=tmp_path / "g") as m:
        a = m.remember(a_text, category="facts")
        m.export(c1)
        assert m.forget(a.id)
        b = m.remember(b_text, category="facts")
        assert b.id == a.id
        m.export(c2)
    with memdir.open(_other(tmp_path, "fresh"), home=tmp_path / "g2") as f:
        assert f.import_jsonl(c2)["tombstones"] == 1  # newest first
        got = f.import_jsonl(c1)
        assert got["notes_forgotten"] == 1 and got["notes"] == 0
        assert [n.text.strip() for n in f.inspect().notes] == [b_text]


def test_tombstone_times_of_every_form_are_stored_as_utc(tmp_path, monkeypatch):
    """C13 / C25 for tombstones: the time an imported tombstone says it was made in, naive (the machine's local time),
    with an offset or as an epoch in seconds or milliseconds, is stored and exported as UTC, as an event's is (a naive
    time was kept as written, read in whatever zone a later reader had, and an epoch number became the import's own
    time)."""
    import time

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        project = tmp_path / "proj"
        (project / ".git").mkdir(parents=True)
        src = tmp_path / "in.jsonl"
        tombs = {"t-naive": "2026-11-30 09:15", "t-offset": "2026-11-30T09:15:00+08:00", "t-epoch-s": 1796001300,
                 "t-epoch-ms": 1796001300000, "t-epoch-text": "1796001300"}
        lines = [{"type": "tombstone", "ref": ref, "content_sha256": "0" * 64, "kind": "event", "deleted_at": when}
                 for ref, when in tombs.items()]
        src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        with memdir.open(project, home=tmp_path / "home") as m:
            m.import_jsonl(str(src))
            out = tmp_path / "out.jsonl"
            m.export(str(out))
        got = {r["ref"]: r["deleted_at"] for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())
               if r["type"] == "tombstone"}
        assert {got[ref] for ref in tombs} == {"2026-11-30T01:15:00.000Z"}, got
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
