"""Sibling of C28: an export or a transcript re-saved as UTF-16 with a byte-order mark (Windows PowerShell 5's ``>``),
and lines that begin with a mark left by files joined together, are read whole."""

from pathlib import Path

import memdir
from memdir.portability.transcripts import import_host

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "importers" / "claude_2_1_197.jsonl"


def test_an_export_saved_as_utf16_restores_every_record(tmp_path, project):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploy with pnpm, not npm")
        m.capture({"role": "user", "session": "s", "text": "the staging db is orca on port 5433"})
        out = tmp_path / "e.jsonl"
        m.export(out)
    raw = out.read_text(encoding="utf-8")
    for name, data in (("le.jsonl", ("\ufeff" + raw.replace("\n", "\r\n")).encode("utf-16-le")),
                       ("be.jsonl", ("\ufeff" + raw).encode("utf-16-be")),
                       ("joined.jsonl", ("\ufeff" + raw + "\ufeff\ufeff" + raw).encode("utf-8"))):
        f = tmp_path / name
        f.write_bytes(data)
        other = tmp_path / ("p-" + name)
        (other / ".git").mkdir(parents=True)
        with memdir.open(other, home=tmp_path / ("h-" + name)) as m2:
            got = m2.import_jsonl(f)
            assert got["bad_lines"] == 0 and got["notes"] == 1 and got["stored"] == 1, (name, got)


def test_a_claude_code_transcript_saved_as_utf16_is_read(tmp_path, project):
    f = tmp_path / "s.jsonl"
    f.write_bytes(("\ufeff" + FIXTURE.read_text(encoding="utf-8")).encode("utf-16-le"))
    with memdir.open(project, home=tmp_path / "g") as m:
        got = import_host(m, "claude-code", [f], projects="here")
    assert got["read"] > 0 and got["stored"] == got["read"] - got["skipped"] - got["duplicate"] and not got.get("bad_lines")
