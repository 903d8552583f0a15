"""A secret stored before redaction knew its shape (a store written by an older memdir, a key pattern added since)
or typed by hand into a note file never reaches the model or a person in plain text: the ``<memory>`` block, the MCP
tools' replies (recall with the turns around a hit, read, list) and the CLI's recall / get / recent show it as its
``[redacted:kind]`` marker, as a capture today would have stored it."""

from __future__ import annotations

import json
from unittest import mock

import memdir
from conftest import run_cli

ANTHROPIC = "sk-ant-api03-" + "Qx7" * 30
AWS = "AKIAIOSFODNN7EXAMPLE"
SECRETS = (ANTHROPIC, AWS, ANTHROPIC[:24])


def _plant(m) -> str:
    """Events stored with their texts as given (no redaction), and a note whose file a person edited; returns its id."""
    import memdir.capture.events as cevents

    rows = [{"key": "u:s1:a", "role": "user", "text": f"rotate the deploy key {ANTHROPIC} before friday",
             "session": "s1", "ts": "2026-11-01T10:00:00Z"},
            {"key": "t:s1:b", "role": "tool", "text": f"Bash: env | grep AWS → deploy AWS_ACCESS_KEY_ID={AWS}",
             "session": "s1", "ts": "2026-11-01T10:00:05Z"},
            {"key": "a:s1:c", "role": "assistant", "text": "The deploy key is rotated; the old one is revoked.",
             "session": "s1", "ts": "2026-11-01T10:00:09Z"}]
    with mock.patch.object(cevents, "redact_text", lambda t: t), mock.patch.object(cevents, "redact_obj", lambda o: o):
        assert m.import_events(rows)["stored"] == len(rows)
    note = m.remember("the deploy key lives in the vault", category="facts")
    path = m.roots["project"].path / (note.id + ".md")
    path.write_text(path.read_text(encoding="utf-8") + f"\nold deploy key {ANTHROPIC}\n", encoding="utf-8")
    return note.id


def _clean(text: str, where: str) -> None:
    for s in SECRETS:
        assert s not in text, (where, s)


def test_the_block_and_the_tools_show_no_stored_secret(project, tmp_path):
    from memdir.server.tools import do_list, do_read, do_recall

    with memdir.open(project, home=tmp_path / "g") as m:
        note_id = _plant(m)
    m = memdir.open(project, home=tmp_path / "g")  # a fresh process's view: the note file as edited
    try:
        block = m.context("rotate the deploy key")
        assert "[redacted:" in block
        _clean(block, "block")
        _clean(m.context("deploy key", max_chars=300), "small block")
        assert len(m.context("deploy key", max_chars=300)) <= 300
        reply = do_recall(m, "rotate the deploy key AWS")
        assert reply["hits"]
        _clean(json.dumps(reply, ensure_ascii=False), "memory_recall")
        for h in reply["hits"]:
            _clean(json.dumps(do_read(m, h["handle"]), ensure_ascii=False), "memory_read " + h["id"])
        _clean(json.dumps(do_read(m, note_id), ensure_ascii=False), "memory_read note")
        _clean(json.dumps(do_list(m), ensure_ascii=False), "memory_list")
    finally:
        m.close()


def test_the_cli_shows_no_stored_secret(project, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        note_id = _plant(m)
    for args in (["recall", "deploy key"], ["--json", "recall", "deploy key"], ["get", "u:s1:a"],
                 ["--json", "get", "t:s1:b"], ["get", note_id], ["recent"], ["--json", "recent"],
                 ["context", "rotate the deploy key"]):
        code, out, err = run_cli(capsys, *args)
        assert code == 0, (args, err)
        _clean(out + err, " ".join(args))


def test_no_cut_splits_a_stored_key_into_halves_that_pass(project, tmp_path):
    """A page of ``memory_read``, a hit's cut and a block's window each ended inside the key: each half looked like
    nothing, so the two pages together gave the whole key, and a cut hit or window its first part."""
    from memdir.server.tools import do_read, hit_out

    with memdir.open(project, home=tmp_path / "g") as m:
        _plant(m)
        whole = ""
        offset = 0
        while offset is not None:  # pages of 20 characters: every key crosses a page break
            page = do_read(m, "u:s1:a", offset, 20)
            whole += page["text"]
            offset = page["next_offset"]
        _clean(whole, "memory_read pages")
        assert "[redacted:" in whole
        [hit] = [h for h in m.recall("rotate the deploy key", k=5) if h.id == "u:s1:a"]
        for limit in range(30, 90, 7):
            _clean(hit_out(hit, limit)["text"], f"hit cut at {limit}")
            assert "sk-ant-api03-Qx7" not in hit_out(hit, limit)["text"]
        for budget in range(120, 400, 23):
            block = m.context("rotate the deploy key before friday", max_chars=budget)
            assert "sk-ant-api03-Qx7" not in block and "AKIAIOSF" not in block, budget
