"""Siblings of C22/C23/C28: every transcript format read the same whatever encoding and line ends a re-save gave it
(UTF-16 or UTF-32 with or without a byte-order mark, a UTF-8 mark, a classic-Mac CR alone), and records whose fields
have unexpected types (a ``cwd`` that is a list or a number) skipped or read, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memdir
from memdir.portability.importers import iter_events
from memdir.portability.transcripts import import_host

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: one sample of each format, and the name its importer expects
SAMPLES = {
    "claude-code": (FIXTURES / "importers" / "claude_2_1_197.jsonl", "s.jsonl"),
    "codex": (FIXTURES / "importers" / "codex_0_171.jsonl", "rollout-2026-01-01T00-00-00-x.jsonl"),
    "claude-export": (FIXTURES / "importers" / "claude_export_2026-03-14.txt", "e.txt"),
    "specstory": (FIXTURES / "importers" / "specstory_2026-04-02_08-15Z-部署失败.md", "2026-04-02_08-15Z-x.md"),
    "aider": (FIXTURES / "importers" / "aider_chat_history.md", ".aider.chat.history.md"),
    "dsh": (FIXTURES / "dsh" / "session.jsonl", "session.jsonl"),
    "jsonl": (FIXTURES / "importers" / "generic.jsonl", "g.jsonl"),
}
#: how a file can come back from an editor or a Windows shell
RESAVED = {
    "utf-8 with a mark": lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),
    "utf-16-le, no mark": lambda t: t.encode("utf-16-le"),
    "utf-16-be, no mark": lambda t: t.encode("utf-16-be"),
    "utf-32 with a mark": lambda t: t.encode("utf-32"),
    "utf-32-le, no mark": lambda t: t.encode("utf-32-le"),
    "utf-32-be, no mark": lambda t: t.encode("utf-32-be"),
    "CR line ends": lambda t: t.replace("\n", "\r").encode("utf-8"),
    "CRLF in utf-16": lambda t: ("\ufeff" + t.replace("\n", "\r\n")).encode("utf-16-le"),
}


def _events(source: str, path: Path) -> list[tuple]:
    return [(e["key"], e["role"], e["text"]) for e in iter_events(source, path)]


@pytest.mark.parametrize("how", list(RESAVED))
@pytest.mark.parametrize("source", list(SAMPLES))
def test_a_resaved_transcript_gives_the_same_events(tmp_path, source, how):
    fixture, name = SAMPLES[source]
    text = fixture.read_text(encoding="utf-8").replace("__CWD__", str(tmp_path))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain, resaved = tmp_path / "a" / name, tmp_path / "b" / name
    plain.write_text(text, encoding="utf-8", newline="")
    resaved.write_bytes(RESAVED[how](text))
    want = _events(source, plain)
    assert want, source
    assert _events(source, resaved) == want


def test_a_memdir_export_resaved_as_utf32_without_a_mark_restores_every_record(tmp_path, project):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploy with pnpm, not npm")
        m.capture({"role": "user", "session": "s", "text": "the staging db is orca on port 5433"})
        out = tmp_path / "e.jsonl"
        m.export(out)
    for enc in ("utf-32-le", "utf-32-be", "utf-16-le"):
        f = tmp_path / f"{enc}.jsonl"
        f.write_bytes(out.read_text(encoding="utf-8").replace("\n", "\r").encode(enc))
        other = tmp_path / f"p-{enc}"
        (other / ".git").mkdir(parents=True)
        with memdir.open(other, home=tmp_path / f"h-{enc}") as m2:
            got = m2.import_jsonl(f)
        assert got["bad_lines"] == 0 and got["notes"] == 1 and got["stored"] == 1, (enc, got)


def test_a_dsh_message_holding_a_line_separator_is_read_whole(tmp_path):
    text = SAMPLES["dsh"][0].read_text(encoding="utf-8")
    lines = text.splitlines()
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if obj.get("type") == "user/message":  # Node's JSON.stringify leaves U+2028 and U+0085 unescaped
            msg = obj["data"].get("message", obj["data"])
            msg["content"] = [{"type": "text", "text": "deploy with pnpm\u2028not npm\x85ever"}]
            lines[i] = json.dumps(obj, ensure_ascii=False)
            break
    f = tmp_path / "session.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    texts = [e["text"] for e in iter_events("dsh", f) if e["role"] == "user"]
    assert "deploy with pnpm\u2028not npm\x85ever" in texts


@pytest.mark.parametrize("data", [
    bytes(range(256)) * 16,                      # binary
    b"\x00" * 4096,                              # zeros
    "部署脚本用 pnpm\n".encode("utf-8") * 200,    # UTF-8 without a mark
    b"{\"a\": 1}\n" * 100 + b"\x00" * 40,        # UTF-8 JSON with a few stray zero bytes
])
def test_text_that_is_not_utf16_or_utf32_is_not_taken_for_it(data):
    from memdir.fileio import sniff_encoding

    assert sniff_encoding(data) == "utf-8-sig"
@pytest.mark.parametrize("cwd", [["/tmp"], 42, {"path": "/tmp"}, True])
@pytest.mark.parametrize("source", ["claude-code", "codex"])
def test_a_cwd_that_is_not_a_string_is_no_directory(tmp_path, project, source, cwd):
    fixture, name = SAMPLES[source]
    lines = []
    for line in fixture.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line) if line.strip() else None
        if isinstance(obj, dict):
            where = obj.get("payload") if source == "codex" and isinstance(obj.get("payload"), dict) else obj
            if "cwd" in where:
                where["cwd"] = cwd
            line = json.dumps(obj)
        lines.append(line)
    f = tmp_path / name
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        for mode in ("current", "all"):
            got = import_host(m, source, [f], projects=mode, progress=False)
            assert got["sessions"]["no_cwd"] == 1 and got["stored"] == 0, (mode, got)
        got = import_host(m, source, [f], projects="here", progress=False)
        assert got["stored"] > 0


def test_a_folder_of_dsh_logs_holding_one_that_is_not_dsh_imports_the_others(tmp_path, project, caplog):
    logs = tmp_path / "sessions" / "proj"
    for name, data in (("a", SAMPLES["dsh"][0].read_bytes()), ("b", b'{"hello": 1}\n'), ("c", b"")):
        (logs / name).mkdir(parents=True)
        (logs / name / "session.jsonl").write_bytes(data)
    with memdir.open(project, home=tmp_path / "g") as m:
        got = import_host(m, "dsh", [tmp_path / "sessions"], projects="here", progress=False)
    assert got["files"] == 3 and got["stored"] > 0
    assert "b/session.jsonl is not a DSH session log" in caplog.text


def test_dsh_records_whose_fields_have_other_types_are_skipped(tmp_path):
    text = SAMPLES["dsh"][0].read_text(encoding="utf-8")
    odd = []
    for line in text.splitlines():
        obj = json.loads(line)
        if obj.get("type") == "tool/result":
            for content in (True, 1.5, {"a": 1}, [{"type": "tool-result", "toolCallId": ["x"], "content": None}],
                            [{"type": "tool-result", "toolCallId": {"x": 1}, "content": 7}]):
                copy = json.loads(line)
                (copy["data"].get("message") or copy["data"])["content"] = content
                odd.append(json.dumps(copy))
    assert odd
    f = tmp_path / "session.jsonl"
    f.write_text(text + "\n".join(odd) + "\n", encoding="utf-8")
    want = [e["key"] for e in iter_events("dsh", SAMPLES["dsh"][0])]
    assert [e["key"] for e in iter_events("dsh", f)][:len(want)] == want


def test_a_transcript_of_one_huge_line_is_not_gated_char_by_char(tmp_path, project, monkeypatch):
    import unicodedata

    import memdir.capture.gates as gates

    looked = []

    class Counting:  # the gate's per-character look-ups, counted (a 60 MB line took half a minute in them)
        def __getattr__(self, name):
            looked.append(name)
            return getattr(unicodedata, name)

    monkeypatch.setattr(gates, "unicodedata", Counting())
    text = "remember: deploy with pnpm, not npm. " + "log line " * 600_000  # one 5.4 MB message
    assert gates.gate({"role": "user", "text": text, "session": "s"}, {"capture.min_chars": 8}).keep
    assert len(looked) < 5000
    assert gates.is_trivial("ok!!! " + "!" * 5000 + " thanks") and not gates.is_trivial("ok " + "x" * 5000)
    rec = {"type": "user", "sessionId": "s1", "uuid": "u1", "cwd": str(project), "timestamp": "2026-01-01T00:00:00Z",
           "message": {"role": "user", "content": text}}
    f = tmp_path / "big.jsonl"
    f.write_text(json.dumps(rec), encoding="utf-8")  # no final newline either
    with memdir.open(project, home=tmp_path / "g") as m:
        assert import_host(m, "claude-code", [f], progress=False)["stored"] == 1
        assert m.recall("pnpm")


def test_transcripts_in_linked_folders_are_found_once(tmp_path, project, monkeypatch):
    from memdir.portability.importers import default_paths, resolve_paths

    home = tmp_path / "home"
    moved = tmp_path / "disk2" / "-proj"  # a project's folder moved to another disk and linked back
    moved.mkdir(parents=True)
    (moved / "a.jsonl").write_bytes(SAMPLES["claude-code"][0].read_bytes())
    (moved / "loop").symlink_to(moved)  # a link loop ends
    projects = home / ".claude" / "projects"
    projects.mkdir(parents=True)
    (projects / "-proj").symlink_to(moved)
    (projects / "-again").symlink_to(moved)  # the same folder under two names: its files once
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    found = default_paths("claude-code", home=home, env={})
    assert [f.resolve() for f in found] == [(moved / "a.jsonl").resolve()]
    assert resolve_paths("claude-code", projects) == found
    with memdir.open(project, home=tmp_path / "g") as m:
        got = import_host(m, "claude-code", [projects], projects="here", progress=False)
    assert got["files"] == 1 and got["stored"] > 0  # the one real file is read once


@pytest.mark.parametrize("source", ["claude-export", "specstory", "aider"])
def test_a_text_history_with_a_zero_filled_hole_keeps_the_rest(tmp_path, source):
    """A block of a text history zero-filled by a crash (a run of NUL bytes in its first 8 KB) made the whole file
    "binary data": nothing imported. The text around the hole is read; the hole is left out with one warning."""
    fixture, name = SAMPLES[source]
    text = fixture.read_text(encoding="utf-8").replace("__CWD__", str(tmp_path))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain, holed = tmp_path / "a" / name, tmp_path / "b" / name
    plain.write_text(text, encoding="utf-8", newline="")
    raw = text.encode("utf-8")
    cut = raw.index(b"\n", len(raw) * 2 // 3) + 1  # at a line's start, after most of the turns
    holed.write_bytes(raw[:cut] + b"\x00" * 300 + b"\n" + raw[cut:])
    want = _events(source, plain)
    got = _events(source, holed)
    assert want and [t for _, _, t in got] == [t for _, _, t in want]


def test_binary_data_is_still_skipped_by_a_text_importer(tmp_path):
    import random

    rnd = random.Random(3)
    f = tmp_path / ".aider.chat.history.md"
    f.write_bytes(b"# aider chat started at 2026-01-01 10:00:00\n\n#### hi\n" + bytes(rnd.randrange(256) for _ in range(20_000)))
    assert _events("aider", f) == []
