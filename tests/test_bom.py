"""C28 and its kind: a file re-saved by a Windows editor starts with a UTF-8 byte-order mark (and may have CRLF line
ends). Line 1 of such a file is an ordinary line: an export's first record and a transcript's first turn are read,
not dropped (note files with a byte-order mark were read correctly already)."""

import json

import memdir
from memdir.portability.importers.jsonl import read_jsonl
from memdir.portability.transcripts import import_host

BOM = "\ufeff"


def _project(base, name):
    p = base / name
    (p / ".git").mkdir(parents=True)
    return p


def _windows(path):
    """Re-save ``path`` as a Windows editor does: a byte-order mark first, CRLF line ends."""
    text = path.read_text(encoding="utf-8")
    path.write_bytes((BOM + text.replace("\n", "\r\n")).encode("utf-8"))


def test_an_export_resaved_with_a_bom_and_crlf_restores_every_record(tmp_path):
    a, b = _project(tmp_path, "a"), _project(tmp_path, "b")
    out = tmp_path / "export.jsonl"
    with memdir.open(a, home=tmp_path / "ha") as m:
        m.remember("the staging database is pg-staging-2", category="facts", pinned=True)
        m.import_events([{"key": f"e{i}", "role": "user", "text": f"event number {i} about the deploy window",
                          "session": "s1", "ts": 1_790_000_000 + i} for i in range(3)])
        m.forget("e1")
        counts = m.export(out)
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    _windows(out)
    with memdir.open(b, home=tmp_path / "hb") as m:
        got = m.import_jsonl(out)
        assert got["bad_lines"] == 0, got
        assert got["notes"] == counts["notes"] and got["stored"] == counts["events"] == 2
        assert got["tombstones"] == counts["tombstones"] == 1
        assert m.get(first.get("id") or first.get("key") or first["ref"]) is not None or first["type"] == "tombstone"
        note = next(n for n in m.inspect().notes)
        assert note.pinned and "pg-staging-2" in note.text
        assert m.get("e1") is None  # the tombstone came across too


def test_a_transcript_whose_first_line_has_a_bom_keeps_that_line(tmp_path):
    proj = _project(tmp_path, "proj")
    line = {"type": "user", "message": {"role": "user", "content": "How do we roll back the payments service?"},
            "uuid": "u-1", "timestamp": "2026-11-30T16:10:11.381Z", "cwd": str(proj), "sessionId": "sess-bom",
            "version": "2.1.197"}
    reply = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "Roll back with the release tool: release rollback payments --to previous."}]},
             "uuid": "u-2", "parentUuid": "u-1", "timestamp": "2026-11-30T16:10:20.000Z", "cwd": str(proj),
             "sessionId": "sess-bom", "version": "2.1.197"}
    src = tmp_path / "transcripts" / "sess-bom.jsonl"
    src.parent.mkdir()
    src.write_text(json.dumps(line) + "\n" + json.dumps(reply) + "\n", encoding="utf-8")
    _windows(src)
    assert [n for n, _ in read_jsonl(src)] == [1, 2]
    with memdir.open(proj, home=tmp_path / "home") as m:
        import_host(m, "claude-code", src, progress=False)
        texts = [e["text"] for e in m.session_events("sess-bom")]
    assert any("roll back the payments service" in t for t in texts), texts
