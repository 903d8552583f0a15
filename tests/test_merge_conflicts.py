"""Merge-conflict markers a `git pull` left in the curated Markdown (a note, ROOT.md, an index.md): recall, the block,
get and export read both sides without the markers (never a `<<<<<<<` line as a memory, never a side lost), the
files are never rewritten or deleted, and `inspect`/`doctor` name each conflicted file."""

from __future__ import annotations

import pytest

import memdir
from conftest import run_cli

MARKS = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")

BODY = ("---\nsummary: cache policy\ntags: [cache]\npinned: true\n---\nThe cache lives in redis.\n<<<<<<< HEAD\n"
        "Entries expire after ten minutes.\n=======\nEntries expire after one hour.\n>>>>>>> origin/main\n")
FRONT = ("---\n<<<<<<< HEAD\nsummary: queue ours\n||||||| base\nsummary: queue\n=======\nsummary: queue theirs\n"
         ">>>>>>> feature\n---\nThe job queue is rabbitmq.\n")
WHOLE = ("<<<<<<< HEAD\n---\nsummary: lint ours\n---\nLinting runs ruff.\n=======\n---\nsummary: lint theirs\n---\n"
         "Linting runs flake8.\n>>>>>>> feature\n")
CRLF = BODY.replace("\n", "\r\n")
#: not conflicts: a note about aider's edit blocks, a Setext heading, a conflict shown inside a code fence
AIDER = "Aider edits look like this:\n<<<<<<< SEARCH\nold_helper()\n=======\nnew_helper()\n>>>>>>> REPLACE\n"
FENCED = "How a conflict looks:\n```\n<<<<<<< HEAD\nmine\n=======\nyours\n>>>>>>> main\n```\n"


@pytest.fixture
def store(project, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    facts = project / ".memory" / "facts"
    facts.mkdir(parents=True, exist_ok=True)
    files = {"body": BODY, "front": FRONT, "whole": WHOLE, "crlf": CRLF, "aider": AIDER, "fenced": FENCED}
    for name, text in files.items():
        (facts / f"{name}.md").write_bytes(text.encode("utf-8"))
    return facts, files


def test_a_conflicted_note_is_read_as_both_sides_without_the_markers(store, project, tmp_path):
    facts, files = store
    with memdir.open(project, home=tmp_path / "g") as m:
        for nid, words in (("facts/body", ("ten minutes", "one hour", "redis")), ("facts/front", ("rabbitmq",)),
                           ("facts/whole", ("ruff", "flake8")), ("facts/crlf", ("ten minutes", "one hour"))):
            note = m.get(nid)
            assert note is not None and all(w in note.text for w in words), (nid, note)
            assert not any(mark in note.text for mark in MARKS), note.text
            hit = m.recall(words[-1], k=20)
            assert nid in [h.id for h in hit]
            assert not any(mark in h.text for h in hit for mark in MARKS)
            block = m.context(" ".join(words))
            assert not any(mark in block for mark in MARKS), block
        body = m.get("facts/body")
        assert body.pinned and body.tags == ("cache",) and body.summary == "cache policy"  # its own side's fields
        assert m.get("facts/front").summary == "queue ours"
        assert m.get("facts/whole").summary == "lint ours" and "summary:" not in m.get("facts/whole").text
        # text that only looks like a conflict is a note's words, kept as written
        assert "<<<<<<< SEARCH" in m.get("facts/aider").text and "<<<<<<< HEAD" in m.get("facts/fenced").text
        named = {p["path"] for p in m.inspect().problems if "git merge conflict" in p["detail"]}
        assert named == {str(facts / f"{n}.md") for n in ("body", "front", "whole", "crlf")}
        assert any("merge conflict" in p["detail"] and "memdir edit facts/body" in p["detail"] for p in m.note_problems())
    for name, text in files.items():  # never rewritten, never deleted
        assert (facts / f"{name}.md").read_bytes() == text.encode("utf-8")


def test_doctor_names_each_conflicted_file(store, project, capsys):
    facts, _ = store
    code, out, err = run_cli(capsys, "--dir", str(project), "doctor")
    assert "Traceback" not in out + err
    for name in ("body", "front", "whole", "crlf"):
        assert any(str(facts / f"{name}.md") in ln and "merge conflict" in ln for ln in out.splitlines()), out
    assert str(facts / "aider.md") not in out


ROOT = """# Memory root (project)

## Current goals

<<<<<<< HEAD
- ship the login page
=======
- ship the signup page
>>>>>>> origin/main

## Hard rules

- always run tests before push
<<<<<<< HEAD
- deploy with pnpm
=======
- deploy with yarn
>>>>>>> origin/main

## Registry

<!-- auto:begin registry -->
<<<<<<< HEAD
| dir | summary | entries |
|---|---|---|
| facts/ | old | 1 |
=======
| dir | summary | entries |
|---|---|---|
| facts/ | other | 2 |
>>>>>>> origin/main
<!-- auto:end -->
"""


def test_root_md_conflict_markers_are_no_rules_and_the_hand_written_part_is_kept(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("redis runs on port 6379 in dev", category="facts")
    page = project / ".memory" / "ROOT.md"
    page.write_text(ROOT, encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        block = m.context("redis port")
        assert not any(mark in block for mark in MARKS) and "origin/main" not in block, block
        for item in ("ship the login page", "ship the signup page", "deploy with pnpm", "deploy with yarn",
                     "always run tests before push"):
            assert f"- {item}\n" in block
        problems = [p for p in m.inspect().problems if p["path"] == str(page)]
        assert [p["kind"] for p in problems] == ["conflict"] and "git merge conflict" in problems[0]["detail"]
    text = page.read_text(encoding="utf-8")
    assert text.split("## Registry")[0] == ROOT.split("## Registry")[0]  # the person's part, byte for byte
    registry = text.split("<!-- auto:begin registry -->")[1]
    assert "<<<<<<<" not in registry and "| facts/ | redis runs on port 6379 in dev | 1 |" in registry


def test_a_page_whose_auto_markers_lie_in_a_conflict_is_left_alone_and_named(project, tmp_path, capsys):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("redis runs on port 6379 in dev", category="facts")
    page = project / ".memory" / "ROOT.md"
    torn = ("# Root\n\n## Hard rules\n\n- keep it short\n\n<<<<<<< HEAD\n<!-- auto:begin registry -->\n"
            "| dir | summary | entries |\n|---|---|---|\n<!-- auto:end -->\n=======\n>>>>>>> other\n")
    page.write_text(torn, encoding="utf-8")
    index = project / ".memory" / "facts" / "index.md"
    both = ("# facts\n\n<<<<<<< HEAD\n<!-- auto:begin index -->\n- [a](a.md) — a\n<!-- auto:end -->\n=======\n"
            "<!-- auto:begin index -->\n- [b](b.md) — b\n<!-- auto:end -->\n>>>>>>> other\n")
    index.write_text(both, encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("another fact about caching layers", category="facts")
        m.reindex()
        assert "keep it short" in m.context("caching layers")
        named = {p["path"] for p in m.inspect().problems if "git merge conflict" in p["detail"]}
        assert named == {str(page), str(index)}
    assert page.read_text(encoding="utf-8") == torn and index.read_text(encoding="utf-8") == both  # no block doubled
    code, out, _ = run_cli(capsys, "--dir", str(project), "doctor")
    assert str(page) in out and str(index) in out


def test_a_conflict_between_an_index_md_s_markers_is_compiled_away(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("redis runs on port 6379 in dev", category="facts")
    index = project / ".memory" / "facts" / "index.md"
    index.write_text("# facts\n\nMy own intro.\n\n<!-- auto:begin index -->\n<<<<<<< HEAD\n- [a](a.md) — a\n=======\n"
                     "- [b](b.md) — b\n>>>>>>> origin/main\n<!-- auto:end -->\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        [p] = [p for p in m.inspect().problems if p["path"] == str(index) and p["kind"] == "conflict"]
        assert "memdir reindex" in p["detail"]
        m.reindex()
        assert not [p for p in m.inspect().problems if p["path"] == str(index)]
    text = index.read_text(encoding="utf-8")
    assert text.startswith("# facts\n\nMy own intro.\n") and "<<<<<<<" not in text and "redis-runs-on-port" in text


CONFLICTED_TEXTS = [
    "<<<<<<< HEAD\nuse pnpm\n=======\nuse npm\n>>>>>>> branch\n",
    "The installer:\n<<<<<<< HEAD\nuse pnpm\n||||||| base\nuse yarn\n=======\nuse npm\n>>>>>>> feature/x\n",
    "---\nsummary: installs\n---\n<<<<<<< ours\nuse pnpm\n=======\nuse npm\n>>>>>>> theirs\n",
    "<<<<<<< HEAD\n---\nsummary: a\n---\nuse pnpm\n=======\n---\nsummary: b\n---\nuse npm\n>>>>>>> b\n",
    "<<<<<<< HEAD\r\nuse pnpm\r\n=======\r\nuse npm\r\n>>>>>>> branch\r\n",
]


@pytest.mark.parametrize("text", CONFLICTED_TEXTS)
def test_an_edit_or_a_remember_holding_conflict_markers_is_refused_and_writes_nothing(project, tmp_path, monkeypatch,
                                                                                       capsys, text):
    """`memdir edit ID -` (and `Memdir.edit`, `remember`) took a text still holding a conflict's markers, wrote it,
    then failed to read it back: the note became a conflicted file. Refused in one line now, nothing written."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        note = m.remember("use pnpm for installs", category="decisions", tags=["pnpm"])
    path = project / ".memory" / "decisions" / (note.id.split("/")[1] + ".md")
    before = path.read_bytes()
    listing = sorted(p.name for p in path.parent.iterdir())
    code, out, err = run_cli(capsys, "--dir", str(project), "edit", note.id, "-", stdin=text, monkeypatch=monkeypatch)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "conflict" in err and "Traceback" not in err, err
    with memdir.open(project, home=tmp_path / "g") as m:
        with pytest.raises(memdir.UsageError, match="conflict"):
            m.edit(note.id, text)
        with pytest.raises(memdir.UsageError, match="conflict"):
            m.remember(text, category="decisions")
        assert m.inspect().problems == []
    code, out, err = run_cli(capsys, "--dir", str(project), "remember", "-", stdin=text, monkeypatch=monkeypatch)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "conflict" in err, err
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) == listing


def test_a_note_showing_markers_in_a_fence_or_aider_blocks_is_still_remembered(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        for text in (AIDER, FENCED):
            assert m.remember(text, category="facts").text.strip() == text.strip()
        assert m.inspect().problems == []
