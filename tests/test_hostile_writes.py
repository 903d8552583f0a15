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


# ---- C41: a model reply that is not JSON ---------------------------------------------------------------------
def _distill_store(project, tmp_path, stub):
    (project / ".memory").mkdir(exist_ok=True)
    (project / ".memory" / "config.toml").write_text(
        f'[distill]\nprovider = "openai"\nurl = "{stub.url}"\nmodel = "stub-1"\ntimeout_s = 5.0\n', encoding="utf-8")
    m = memdir.open(project, home=tmp_path / "g")
    evs = []
    for i in range(4):
        evs.append({"key": f"u:s1:{i}", "role": "user", "text": f"turn {i}: we deploy with pnpm since npm broke CI ({i})",
                    "session": "s1", "ts": f"2026-10-01T10:{i:02d}:00Z"})
        evs.append({"key": f"a:s1:{i}", "role": "assistant", "text": f"Noted point {i} about pnpm and the lockfile.",
                    "session": "s1", "ts": f"2026-10-01T10:{i:02d}:30Z"})
    m.import_events(evs)
    return m


BAD_REPLIES = [
    "Sure! Here are the memories I found: the team deploys with pnpm because npm broke CI.",   # prose
    '{"version": 1, "memories": [{"category": "facts", "summary": "pnpm", "body": "We dep',     # cut in half
    '```json\n{"version": 1, "memories": [{"category": "facts", "summary": "pnpm"}\n```',       # cut, fenced
    '{"version": 1, "memories": [{"category": "facts"}]} and {"memories": [',                    # two halves
    '',                                                                                          # nothing
    '["just", "strings"',                                                                        # a list cut short
]


@pytest.mark.parametrize("reply", BAD_REPLIES)
def test_c41_a_reply_that_is_not_json_leaves_the_turns_pending(project, tmp_path, reply):
    from stub_model import StubModel, memories

    from memdir.distill import flow

    good = {"category": "decisions", "summary": "Deploy with pnpm", "body": "We deploy with pnpm: npm's lockfile broke CI."}
    with StubModel([reply, memories(good)]) as stub:
        m = _distill_store(project, tmp_path, stub)
        try:
            out = m.distill()
            assert out["sessions"][0]["status"] == "error" and out["marked"] == 0 and not out["notes"]
            assert out["errors"] and "stay pending" in out["errors"][0]["reason"]
            assert len(flow.pending_turns(m.roots["project"])["s1"]) == 8      # nothing marked distilled
            again = m.distill()                                                 # retried next run
            assert len(stub.requests) == 2 and stub.requests[0]["messages"] == stub.requests[1]["messages"]
            assert [n["summary"] for n in again["notes"]] == ["Deploy with pnpm"] and again["marked"] == 8
            assert not flow.pending_turns(m.roots["project"])
        finally:
            m.close()


def test_c41_the_cli_exits_1_with_one_error_line(project, tmp_path, capsys):
    from conftest import run_cli
    from stub_model import StubModel

    with StubModel(["I could not find anything worth remembering, sorry!"]) as stub:
        _distill_store(project, tmp_path, stub).close()
        code, out, err = run_cli(capsys, "--dir", str(project), "--home", str(tmp_path / "g"), "distill")
    assert code == 1, (out, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("memdir: error: distill: session s1:") and "invalid JSON" in lines[0]
    assert "distilled" not in out and "error: s1:" in out


def test_c41_dry_run_names_an_accept_command_only_for_a_proposal_that_exists(project, tmp_path, capsys):
    from conftest import run_cli
    from stub_model import StubModel, memories

    rule = {"category": "rules", "summary": "Never force-push to main", "body": "Never force-push to main; open a PR."}
    with StubModel([memories(rule), memories(rule), memories(rule)]) as stub:
        _distill_store(project, tmp_path, stub).close()
        args = ("--dir", str(project), "--home", str(tmp_path / "g"), "distill")
        code, out, _ = run_cli(capsys, *args, "--dry-run")
        assert code == 0 and "proposals accept" not in out and "would propose a rule: Never force-push" in out
        assert not (project / ".memory" / ".proposals").exists()
        code, out, _ = run_cli(capsys, *args)                                  # the real run writes it
        pid = out.split("proposals accept ")[1].split(")")[0]
        assert code == 0 and (project / ".memory" / ".proposals" / f"{pid}.md").is_file()
