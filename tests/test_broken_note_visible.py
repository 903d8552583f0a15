"""A note whose frontmatter a hand edit broke stays visible (hnewuser3 findings 1-2): it is recalled and shown by its
body alone, `get` reads it, status counts it, CLI commands say so in one stderr line, `pin` names the file and the
repair, and `edit` repairs it (the warning then stops)."""

from __future__ import annotations

import json
import os
import time

import pytest

import memdir
from conftest import run_cli

BROKEN = '---\nsummary: "unterminated\ntags: [a, b\nkind: decision\n---\nThe payments cluster runs kubernetes 1.29.\n'


def main(capsys, project, *args, stdin=None, monkeypatch=None):
    return run_cli(capsys, "--dir", str(project), *args, stdin=stdin, monkeypatch=monkeypatch)


@pytest.fixture
def broken(project, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    path = project / ".memory" / "decisions" / "broken.md"
    path.write_text(BROKEN, encoding="utf-8")
    return path


def test_a_note_with_broken_yaml_is_recalled_and_read_by_its_body(broken, project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        hits = m.recall("kubernetes payments")
        assert [h.id for h in hits] == ["decisions/broken"]
        assert "kubernetes 1.29" in hits[0].text
        assert "kubernetes 1.29" in m.context("kubernetes payments cluster")
        note = m.get("decisions/broken")
        assert note is not None and note.text == "The payments cluster runs kubernetes 1.29."
        [p] = m.note_problems()
        assert p["path"] == str(broken) and "invalid YAML" in p["detail"] and "memdir edit decisions/broken" in p["detail"]
        assert m.status()["project"]["unreadable_notes"] == 1
        rep = m.inspect()
        assert [x["path"] for x in rep.problems if x["kind"] == "unreadable"] == [str(broken)]  # once, not twice
        assert "decisions/broken" in [n.id for n in rep.notes]  # the viewer's Notes page lists it
    assert broken.read_text(encoding="utf-8") == BROKEN  # the file is never rewritten by memdir


def test_an_unchanged_broken_note_is_not_rewritten_at_each_open(broken, project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.recall("kubernetes")
        gen = m.roots["project"].store.meta_int("notes_gen")
    for _ in range(2):
        with memdir.open(project, home=tmp_path / "g") as m:
            assert m.recall("kubernetes")[0].id == "decisions/broken"
            assert m.note_problems()  # reported at every open until fixed
            assert m.roots["project"].store.meta_int("notes_gen") == gen


def test_cli_commands_warn_in_one_line(broken, project, capsys):
    code, out, err = main(capsys, project, "recall", "kubernetes")
    assert code == 0 and "decisions/broken" in out
    assert err.count("\n") == 1 and err.startswith(f"memdir: warning: {broken}: invalid YAML frontmatter")
    code, out, err = main(capsys, project, "--json", "status")
    assert code == 0 and json.loads(out)["project"]["unreadable_notes"] == 1 and err.count("\n") == 1
    code, out, err = main(capsys, project, "inspect")
    assert code == 0 and "memdir: warning" not in err and str(broken) in out


def test_pin_names_the_file_and_the_repair_in_one_line(broken, project, capsys):
    code, out, err = main(capsys, project, "pin", "decisions/broken")
    assert code == 1 and err.count("\n") == 1  # the file's state failed the command; 2 is for a bad command line
    assert err.startswith("memdir: error: cannot pin decisions/broken") and "memdir edit decisions/broken" in err


def test_edit_repairs_it_and_the_warning_stops(broken, project, capsys, monkeypatch):
    fixed = "---\nsummary: cluster version\ntags: [k8s]\n---\nThe payments cluster runs kubernetes 1.30.\n"
    code, out, err = main(capsys, project, "edit", "decisions/broken", "-", stdin=fixed, monkeypatch=monkeypatch)
    assert code == 0 and err == ""
    code, out, err = main(capsys, project, "recall", "kubernetes")
    assert code == 0 and "1.30" in out and err == ""


def test_export_keeps_the_body_of_a_broken_note(broken, project, tmp_path, caplog):
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.export(tmp_path / "d.jsonl")["notes"] == 2
    lines = [json.loads(x) for x in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert any(x.get("id") == "decisions/broken" and "kubernetes 1.29" in x["text"] for x in lines)
    assert "exported by its body alone" in caplog.text


def test_a_body_alone_is_refused_rather_than_drop_a_broken_frontmatter(broken, project, capsys, monkeypatch):
    """`echo body | memdir edit ID -` keeps a note's frontmatter; when that frontmatter is broken it cannot be kept,
    and writing the body alone dropped its summary, tags and times without a word."""
    code, out, err = main(capsys, project, "edit", "decisions/broken", "-", stdin="kubernetes 1.31 now\n",
                          monkeypatch=monkeypatch)
    assert code == 1 and err.count("\n") == 1 and "edit refused" in err and "frontmatter" in err
    assert broken.read_text(encoding="utf-8") == BROKEN


@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-01T99:00:00", "2026-11-31 10:00:00"])
def test_a_date_that_is_no_date_breaks_only_its_own_note(project, tmp_path, capsys, monkeypatch, value):
    """YAML reads ``2026-02-30`` as a date and fails with ValueError, not a YAML error: every command of the store
    (and of every project, for a note in the global root) ended in "internal error"."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    bad = project / ".memory" / "decisions" / "dated.md"
    bad.write_text(f"---\ncreated: {value}\n---\nThe payments cluster runs kubernetes 1.29.\n", encoding="utf-8")
    gbad = tmp_path / "g" / "facts" / "gdated.md"
    gbad.parent.mkdir(parents=True, exist_ok=True)
    gbad.write_text(f"---\nupdated: {value}\n---\nThe global cluster runs helm 3.\n", encoding="utf-8")
    code, out, err = main(capsys, project, "recall", "helm charts")
    assert code == 0 and "decisions/" in out and "internal error" not in err
    assert "invalid YAML frontmatter" in err
    for args in (("doctor",), ("inspect",), ("reindex",), ("context", "kubernetes")):
        code, out, err = main(capsys, project, *args)
        assert code == 0 and "internal error" not in err, (args, err)
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.recall("kubernetes payments")[0].id == "decisions/dated"
        assert {p["path"] for p in m.note_problems()} == {str(bad), str(gbad)}


def test_an_unreadable_compiled_index_md_warns_without_failing_the_write(project, tmp_path, capsys, monkeypatch,
                                                                        caplog):
    """`remember` wrote its note and `forget` deleted one, then both exited 1 because facts/index.md (hand-saved in
    another encoding) could not be read for the recompile: a failed command that had done its work."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("haproxy reloads with SIGUSR2", category="facts")
    index_md = project / ".memory" / "facts" / "index.md"
    with open(index_md, "ab") as f:
        f.write(b"x\xff")
    before = index_md.read_bytes()
    code, out, err = main(capsys, project, "remember", "haproxy timeouts are 30 s", "--category", "facts")
    assert code == 0 and "index.md is unreadable" in err + caplog.text  # (pytest holds the log handlers)
    assert (project / ".memory" / "facts" / "haproxy-timeouts-are-30-s.md").exists()
    code, out, err = main(capsys, project, "forget", "facts/haproxy-timeouts-are-30-s")
    assert code == 0 and not (project / ".memory" / "facts" / "haproxy-timeouts-are-30-s.md").exists()
    assert index_md.read_bytes() == before  # not overwritten unread: whatever the user wrote in it is still there
    index_md.unlink()
    code, out, err = main(capsys, project, "remember", "haproxy logs go to syslog", "--category", "facts")
    assert code == 0 and "unreadable" not in err and "haproxy logs go to syslog" in index_md.read_text(encoding="utf-8")


@pytest.mark.parametrize("page", ["ROOT.md", "facts/index.md"])
@pytest.mark.parametrize("data", [b"\x00\x01", b"## Goals\x00\nship it\n", b"\x7fELF\x02\x01\x01\x00\x00\x00" * 40])
def test_a_binary_compiled_page_is_named_and_left_byte_for_byte(project, tmp_path, capsys, monkeypatch, page, data):
    """A ROOT.md or index.md overwritten by binary data (valid UTF-8 when it is NULs and ASCII) was taken for text:
    the next write compiled memdir's tables into it around those bytes. It is reported as unreadable instead, by the
    write and by inspect, and left as it is, as one that is not UTF-8 is."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("haproxy reloads with SIGUSR2", category="facts")
    path = project / ".memory" / page
    path.write_bytes(data)
    code, out, err = main(capsys, project, "remember", "haproxy timeouts are 30 s", "--category", "facts")
    assert code == 0 and "internal error" not in err
    assert path.read_bytes() == data
    with memdir.open(project, home=tmp_path / "g") as m:
        problems = [p for p in m.inspect().problems if p["path"] == str(path)]
    assert len(problems) == 1 and "binary" in problems[0]["detail"], problems


@pytest.mark.parametrize("data", [b"\x00\x01 binary", b"caf\xe9 latin-1", b"---\n: [\n---\nbroken frontmatter\n"])
def test_an_unreadable_proposal_is_named_never_called_already_none(project, tmp_path, capsys, monkeypatch, caplog,
                                                                   data):
    """A proposal file that cannot be read (binary, not UTF-8, broken frontmatter) was left out of `memdir proposals`
    without a word, and `proposals accept`/`reject` answered "proposal p-… is already None". It is named in one line
    with its reason, refused with exit 1 (the file is at fault, not the call), and left byte for byte."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("haproxy reloads with SIGUSR2", category="facts")
    path = project / ".memory" / ".proposals" / "p-0123456789ab.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    code, out, err = main(capsys, project, "proposals")
    assert code == 0 and "p-0123456789ab.md is unreadable" in err + caplog.text
    for verb in ("accept", "reject"):
        code, out, err = main(capsys, project, "proposals", verb, "p-0123456789ab")
        lines = [ln for ln in err.splitlines() if ln.startswith("memdir: error")]
        assert code == 1 and len(lines) == 1 and "cannot be read" in lines[0] and "None" not in err, err
    assert path.read_bytes() == data


@pytest.mark.parametrize("data", [b"", b"\n  \n", b"---\nsummary: hello\npinned: true\n---\n\n"])
def test_an_empty_note_file_is_named_and_left_as_it_is(project, tmp_path, monkeypatch, data):
    """A note file emptied (a failed save, `> file`) or left with its frontmatter alone was indexed as a note with no
    text: an outline line of nothing, and inspect said "problems: none". It is reported as a problem in one line, not
    recalled nor outlined, and the file is left byte for byte."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("haproxy reloads with SIGUSR2", category="facts")
        m.remember("nginx reloads with SIGHUP", category="facts")
    path = project / ".memory" / "facts" / "haproxy-reloads-with-sigusr2.md"
    path.write_bytes(data)
    old = time.time() - 60  # emptied a minute ago: no editor saving it in place any more (that one is read later)
    os.utime(path, (old, old))
    with memdir.open(project, home=tmp_path / "g") as m:
        problems = [p for p in m.inspect().problems if p["path"] == str(path)]
        assert len(problems) == 1 and "empty" in problems[0]["detail"], problems
        assert [h.id for h in m.recall("reloads")] == ["facts/nginx-reloads-with-sighup"]
        assert "hello" not in m.context("reloads") and ": ;" not in m.context("reloads")
    assert path.read_bytes() == data
    with memdir.open(project, home=tmp_path / "g") as m, pytest.raises(memdir.MemdirError, match="is empty|unreadable"):
        m.pin("facts/haproxy-reloads-with-sigusr2")  # said to be empty, not "gone"
    assert path.read_bytes() == data


@pytest.mark.parametrize("text,summary", [
    ("---\nsummary: no close\ntags: [a]\n\nThe body about caching layers.\n", "no close"),
    ("---\nsummary: no close\ntags:\n  - a\n  - b\nThe body about caching layers.\n", "no close"),
    ("---\r\nsummary: no close\r\nkind: fact\r\n\r\nThe body about caching layers.\r\n", "no close"),
    ("---\ntags: [a]\npinned: true\n\nThe body about caching layers.\n", "The body about caching layers."),
    ('---\nsummary: "no close\ntags: [a\n\nThe body about caching layers.\n', "The body about caching layers."),
    ("---\nsummary: no close about caching layers\n", "no close about caching layers"),
    ("---\ntags: [caching, layers]\n", "[caching, layers]"),
])
def test_a_frontmatter_never_closed_gives_no_yaml_line_as_summary(project, tmp_path, monkeypatch, capsys, text,
                                                                     summary):
    """A hand-edited note whose frontmatter opens with ``---`` and never closes was indexed with its first field line
    (``summary: no close``) as its summary: its fields are not its words; it is still reported and left as written."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    path = project / ".memory" / "facts" / "open.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.get("facts/open")
        assert note is not None and note.summary == summary, note
        assert [h.id for h in m.recall("caching layers")] == ["facts/open"]
        [hit] = m.recall("caching layers")
        assert hit.summary == summary
        rep = m.inspect()
        assert [n.summary for n in rep.notes if n.id == "facts/open"] == [summary]
        [p] = [x for x in rep.problems if x["path"] == str(path)]
        assert "never closed" in p["detail"]
    code, out, err = main(capsys, project, "inspect")
    assert "facts/open: " + summary in out and "never closed" in out
    assert path.read_bytes() == text.encode("utf-8")


@pytest.mark.parametrize("text,field", [
    ("---\nsummary: a\nsummary: b\n---\nbody of dup about caching\n", "summary"),
    ("---\ntags: [x]\nkind: fact\ntags: [y]\n---\nbody of dup about caching\n", "tags"),
    ("---\npinned: true\n'pinned': false\n---\nbody of dup about caching\n", "pinned"),
])
def test_a_field_given_twice_is_named_by_inspect_and_the_file_left_as_written(project, tmp_path, monkeypatch, capsys,
                                                                              text, field):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    path = project / ".memory" / "facts" / "dup.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    (project / ".memory" / "facts" / "fine.md").write_text("---\nsummary: s\n---\nsummary: in the body\nsummary: again\n",
                                                          encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        problems = [x for x in m.inspect().problems if x["path"] == str(path)]
        assert len(problems) == 1 and f"{field} given 2 times" in problems[0]["detail"], problems
        assert not [x for x in m.inspect().problems if x["path"].endswith("fine.md")]
    code, out, err = main(capsys, project, "inspect")
    assert [ln for ln in out.splitlines() if f"{field} given 2 times" in ln and "dup.md" in ln]
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("text", [
    "summary: lost fence\nkind: fact\n---\nThe body about widgets.\n",
    "id: facts/lost\nsummary: lost fence\ntags: [widgets]\n---\nThe body about widgets.\n",
    "\ufeffsummary: lost fence\r\nkind: fact\r\n---\r\nThe body about widgets.\r\n",
])
def test_a_frontmatter_that_lost_its_opening_line_is_read_as_one_and_named(project, tmp_path, monkeypatch, capsys, text):
    """A hand edit that deleted a note's opening ``---`` left its fields as the body: the summary was the raw line
    ``summary: lost fence`` and inspect said nothing. Its fields are read as fields now, and inspect names it."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    path = project / ".memory" / "facts" / "lost.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.get("facts/lost")
        assert note.summary == "lost fence" and note.text == "The body about widgets.", note
        [p] = [x for x in m.inspect().problems if x["path"] == str(path)]
        assert "opening '---'" in p["detail"]
    code, out, err = main(capsys, project, "inspect")
    assert "facts/lost: lost fence" in out
    assert path.read_bytes() == text.encode("utf-8")


def test_a_body_that_only_mentions_fields_stays_a_body(project, tmp_path):
    path = project / ".memory" / "facts" / "plain.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "Deploy notes: the summary: line of a note is its title.\n---\nMore text about widgets.\n"
    path.write_text(text, encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        assert m.get("facts/plain").text == text.strip() and m.inspect().problems == []
