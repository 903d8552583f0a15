"""A secret a person types into a note file by hand is redacted wherever memdir copies that note (the index, the
compiled index.md, recall, the block, get, export); the file itself is left as written and doctor / inspect name it.
Found by a new user's walkthrough: a `ghp_` token pasted into pitfalls/handmade.md came back in all of them."""

from __future__ import annotations

import json

import pytest

import memdir
from conftest import add_root_rule, run_cli

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
AWS = "AKIA" + "QWERTYUIOP123456"
NOTE = (f"---\nsummary: Hand pitfall, token {TOKEN}\ntags: [deploy]\nhighlight: password=Hunter2!x9\n---\n"
        f"The deploy bot logs in with {TOKEN} and the bucket key {AWS}.\n数据库密码是 Xy7!pq9Lm2\n")


@pytest.fixture
def hand(project, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    path = project / ".memory" / "pitfalls" / "handmade.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(NOTE, encoding="utf-8")
    return path


def _plain(text: str) -> list[str]:
    return [s for s in (TOKEN, AWS, "Hunter2!x9", "Xy7!pq9Lm2") if s in text]


def test_a_hand_written_secret_is_redacted_wherever_memdir_copies_the_note(hand, project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        hits = m.recall("deploy bot bucket key")
        assert hits and hits[0].id == "pitfalls/handmade"
        assert "[redacted:" in hits[0].text and not _plain(hits[0].text + (hits[0].summary or ""))
        assert not _plain(m.context("deploy bot bucket key"))
        note = m.get("pitfalls/handmade")
        assert not _plain(note.text + note.summary + (note.highlight or ""))
        m.export(tmp_path / "out.jsonl")
    assert not _plain((tmp_path / "out.jsonl").read_text(encoding="utf-8"))
    index_md = (project / ".memory" / "pitfalls" / "index.md").read_text(encoding="utf-8")
    assert "handmade" in index_md and not _plain(index_md)
    raw = b"".join(p.read_bytes() for p in (project / ".memory" / ".memdir").rglob("*") if p.is_file())
    assert not _plain(raw.decode("utf-8", "replace"))
    assert hand.read_text(encoding="utf-8") == NOTE  # the person's file is never rewritten for it


def test_doctor_and_inspect_name_the_note_until_the_secret_is_taken_out(hand, project, tmp_path, capsys):
    with memdir.open(project, home=tmp_path / "g") as m:
        [p] = [x for x in m.inspect().problems if x["kind"] == "secret"]
        assert p["path"] == str(hand) and "memdir edit pitfalls/handmade" in p["detail"] and "github" in p["detail"]
        assert not _plain(json.dumps(p))
    code, out, err = run_cli(capsys, "--dir", str(project), "doctor")
    assert "memdir edit pitfalls/handmade" in out + err and not _plain(out + err)  # doctor names the note
    hand.write_text("---\nsummary: Hand pitfall\n---\nThe deploy bot logs in with the vault's token.\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert not [x for x in m.inspect().problems if x["kind"] == "secret"]


def test_a_secret_in_a_hard_rule_of_root_md_is_redacted_and_named_with_that_file(hand, project, tmp_path):
    page = project / ".memory" / "ROOT.md"
    with memdir.open(project, home=tmp_path / "g") as m:
        m.context("x")  # ROOT.md compiled
    add_root_rule(project, f"Deploy with the bot token {TOKEN} only")
    with memdir.open(project, home=tmp_path / "g") as m:
        block = m.context("deploy bot")
        assert "Deploy with the bot token [redacted:" in block and TOKEN not in block
        [p] = [x for x in m.inspect().problems if x["kind"] == "secret" and x["path"] == str(page)]
        assert "edit ROOT.md" in p["detail"]


def test_a_goal_or_rule_in_root_md_is_no_problem_for_inspect(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    add_root_rule(project, "Never force-push to main")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert "Never force-push to main" in m.context("push")
        assert m.inspect().problems == []


def test_a_problem_quoting_a_hand_written_line_never_shows_its_secret(project, tmp_path, capsys, monkeypatch):
    """inspect, doctor and every command's warning quote what a note file says where it cannot be taken (a YAML line
    that does not parse, a field that is not a time, a kind naming no category, a link to no note): a key on that
    line was shown as typed, in the CLI, MCP's memory_inspect and the viewer's Health page."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    facts = project / ".memory" / "facts"
    facts.mkdir(parents=True, exist_ok=True)
    files = {"yaml": f"---\nsummary: s\ntoken: {TOKEN}: : [\n---\nbody one\n",
             "tab": f"---\nsummary: s\n\taws: {AWS}\n---\nbody two\n",
             "created": f"---\nsummary: s\ncreated: {TOKEN}\n---\nbody three\n",
             "pinned": f"---\nsummary: s\npinned: {AWS}\n---\nbody four\n",
             "kind": f"---\nsummary: s\nkind: {TOKEN}\n---\nbody five\n",
             "link": f"---\nsummary: s\nsupersedes: facts/{TOKEN}\n---\nbody six\n"}
    for name, text in files.items():
        (facts / f"{name}.md").write_text(text, encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        problems = m.inspect().problems
    assert {p["path"].rsplit("/", 1)[-1] for p in problems} >= {f"{n}.md" for n in files}, problems
    assert not _plain(json.dumps(problems)), problems
    assert "[redacted:" in json.dumps(problems)  # the line is still quoted, its key as a marker
    for args in (("inspect",), ("doctor",), ("recall", "helm")):
        code, out, err = run_cli(capsys, "--dir", str(project), *args)
        assert not _plain(out + err), (args, out + err)
    for name, text in files.items():  # the person's files are left as written
        assert (facts / f"{name}.md").read_text(encoding="utf-8") == text


def test_a_secret_in_any_field_of_a_note_never_reaches_get_recall_or_export(project, tmp_path, capsys, monkeypatch):
    """Every field of a note that memdir shows passes the redaction, not only its text and summary: a key typed as
    the note's ``kind`` or inside a ``supersedes``/``superseded_by`` link came back whole from ``get``, ``recall
    --json``, ``recent`` and ``export`` (the viewer and inspect already hid it)."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    facts = project / ".memory" / "facts"
    facts.mkdir(parents=True, exist_ok=True)
    text = (f"---\nsummary: deploy notes\nkind: {TOKEN}\nsupersedes: facts/{TOKEN}\nsuperseded_by: keys/{AWS}.md\n"
            "---\nthe deploy goes through helm\n")
    (facts / "x.md").write_text(text, encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.get("facts/x")
        assert not _plain(json.dumps(note.to_dict())), note
        assert not _plain(json.dumps([h.to_dict() for h in m.recall("deploy helm")], default=str))
        m.export(tmp_path / "out.jsonl")
    assert not _plain((tmp_path / "out.jsonl").read_text(encoding="utf-8"))
    for args in (("get", "facts/x"), ("get", "facts/x", "--json"), ("recall", "deploy", "--json"), ("recent", "--json"),
                 ("recent",), ("context", "deploy helm"), ("inspect", "--json")):
        code, out, err = run_cli(capsys, "--dir", str(project), *args)
        assert code == 0 and not _plain(out + err), (args, out + err)
    assert (facts / "x.md").read_text(encoding="utf-8") == text
