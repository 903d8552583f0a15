"""C39 and its kind: an edit that brings a body alone keeps the note's frontmatter; what is not text is refused with
one line and nothing is written."""

import os
import subprocess
import sys

import pytest

import memdir


def run_cli(args, home, proj, input: bytes | str):
    """``memdir ARGS`` in a new process, ``input`` on stdin: ``(exit code, stdout + stderr)``."""
    data = input.encode() if isinstance(input, str) else input
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "--home", str(home), *args], input=data, cwd=proj,
                       capture_output=True, timeout=120, env={**os.environ, "MEMDIR_HOME": str(home)})
    return r.returncode, (r.stdout + r.stderr).decode("utf-8", "replace")


def _project(base):
    p = base / "proj"
    (p / ".git").mkdir(parents=True)
    return p


def test_a_body_alone_keeps_the_frontmatter(tmp_path):
    proj = _project(tmp_path)
    with memdir.open(proj, home=tmp_path / "g") as m:
        rule = m.remember("never force-push to main", category="rules", pinned=True, tags=["git", "推送"])
        before = m.get(rule.id)
        after = m.edit(rule.id, "never force-push to main or release branches\n")
        assert after.text.strip() == "never force-push to main or release branches"
        assert after.pinned and tuple(after.tags) == tuple(before.tags) == ("git", "推送") and after.kind == before.kind
        assert after.created == before.created and after.id == rule.id
        assert after.updated >= before.updated


def test_a_frontmatter_without_created_keeps_the_note_s_creation_time(tmp_path):
    proj = _project(tmp_path)
    with memdir.open(proj, home=tmp_path / "g") as m:
        note = m.remember("the staging database is rebuilt nightly", category="facts")
        before = m.get(note.id)
        after = m.edit(note.id, "---\nsummary: staging db rebuilt nightly at 02:00\ntags: [db]\n---\n"
                                "the staging database is rebuilt nightly at 02:00\n")
        assert after.created == before.created and after.updated >= after.created and tuple(after.tags) == ("db",)


def test_the_cli_edit_from_stdin_keeps_pinned_and_refuses_junk(tmp_path):
    proj = _project(tmp_path)
    home = tmp_path / "g"
    with memdir.open(proj, home=home) as m:
        rule = m.remember("deploys need two reviewers", category="rules", pinned=True, tags=["deploy"])
        original = m.note_source(rule.id)
    code, out = run_cli(["edit", rule.id, "-"], home, proj, input="deploys need two reviewers and a green build\n")
    assert code == 0, out
    with memdir.open(proj, home=home) as m:
        got = m.get(rule.id)
        assert got.pinned and tuple(got.tags) == ("deploy",) and "green build" in got.text
        kept = m.note_source(rule.id)
    for junk in (b"\x00\x01\x02binary\xff", b"\xff\xfe\xfa not utf-8"):
        code, out = run_cli(["edit", rule.id, "-"], home, proj, input=junk)
        assert code == 2 and "edit refused" in out and "Traceback" not in out, out
        assert len([x for x in out.splitlines() if x.strip()]) == 1
    with memdir.open(proj, home=home) as m:
        assert m.note_source(rule.id) == kept != original  # the junk wrote nothing


def test_a_note_remember_wrote_at_its_size_limit_can_be_saved_unchanged(tmp_path):
    """remember bounds the body (900,000 bytes), edit bounded the whole file (frontmatter included) by the same
    figure: the viewer's Supersede form made a note its Edit form then refused to save unchanged."""
    import memdir
    from memdir.errors import UsageError

    (tmp_path / "p").mkdir()
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        big = ("large note line with words " * 40 + "\n") * 900
        big = big[: 900_000 - 10]
        note = m.remember(big, category="facts")
        raw = m.note_source(note.id)
        assert len(raw.encode()) > 900_000  # frontmatter on top of the body
        m.edit(note.id, raw)  # saved unchanged
        with pytest.raises(UsageError, match="note too long"):
            m.edit(note.id, raw.replace("large note", "larger note!", 2000))


def test_an_edit_whose_frontmatter_lost_its_opening_line_is_refused(tmp_path):
    """An editor that changed the opening ``---`` (``sed -i 1s/^---/xx/``) leaves a text that reads as a body alone:
    saved, the note's id:, kind: … lines would become its text. Refused, the note unchanged; a body that only has a
    ``---`` rule in it is still a body."""
    proj = _project(tmp_path)
    with memdir.open(proj, home=tmp_path / "g") as m:
        note = m.remember("the staging database is rebuilt nightly", category="facts", tags=["db"])
        path = proj / ".memory" / f"{note.id}.md"
        whole = path.read_text(encoding="utf-8")
        damaged = "xx" + whole[3:]
        with pytest.raises(memdir.UsageError, match="opening '---'"):
            m.edit(note.id, damaged)
        both = whole.replace("---\n", "--\n")  # both fence lines broken (sed -i 's/^---$/--/')
        with pytest.raises(memdir.UsageError, match="opening '---'"):
            m.edit(note.id, both)
        assert path.read_text(encoding="utf-8") == whole
        after = m.edit(note.id, "the staging database is rebuilt nightly\n\n---\n\nkind: of a footnote\n")
        assert after.text.startswith("the staging database") and tuple(after.tags) == ("db",)
    code, out = run_cli(["edit", note.id, "-"], tmp_path / "g", proj, damaged)
    assert code == 2 and "opening '---'" in out and path.read_text(encoding="utf-8").startswith("---\nid: facts/")


def test_a_body_alone_moves_a_summary_that_was_the_old_bodys_first_line(tmp_path):
    """remember's default summary is the text's first line: a new body brings its own first line with it (recall,
    the outline and inspect showed the old words); a summary a person wrote stays."""
    proj = _project(tmp_path)
    with memdir.open(proj, home=tmp_path / "g") as m:
        note = m.remember("the staging database listens on port 5433", category="facts")
        after = m.edit(note.id, "the staging database listens on port 6543 since the move\n")
        assert after.summary == "the staging database listens on port 6543 since the move"
        own = m.remember("deploys wait for the canary", category="decisions", summary="canary first")
        after = m.edit(own.id, "deploys wait for the canary and a second approval\n")
        assert after.summary == "canary first"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_the_cli_edit_reads_utf16_with_its_byte_order_mark_as_remember_does(tmp_path, encoding):
    """A body saved by a Windows tool (UTF-16 led by its byte-order mark) was refused as binary by edit while
    remember stored the same bytes."""
    proj = _project(tmp_path)
    home = tmp_path / "g"
    with memdir.open(proj, home=home) as m:
        note = m.remember("the staging database is rebuilt nightly", category="facts", tags=["db"])
    body = "the staging database is rebuilt nightly at 02:00 · 每晚两点重建\n"
    data = body.encode(encoding)
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = "\ufeff".encode(encoding) + data  # utf-16-be writes no mark of its own
    code, out = run_cli(["edit", note.id, "-"], home, proj, input=data)
    assert code == 0, out
    with memdir.open(proj, home=home) as m:
        got = m.get(note.id)
        assert got.text.strip() == body.strip() and tuple(got.tags) == ("db",)


def test_a_partial_frontmatter_from_a_script_says_what_it_cleared(tmp_path):
    """``printf -- '---\\nsummary: x\\n---\\nbody' | memdir edit ID -`` unpinned the note and dropped its tags without
    a word ("saved")."""
    proj = _project(tmp_path)
    home = tmp_path / "g"
    with memdir.open(proj, home=home) as m:
        note = m.remember("deploys use pnpm", category="decisions", pinned=True, tags=["deploy"])
    code, out = run_cli(["edit", note.id, "-"], home, proj, input="---\nsummary: pnpm\n---\ndeploys use pnpm, always\n")
    assert code == 0 and "leaves out pinned, tags" in out and f"memdir pin {note.id}" in out, out
    with memdir.open(proj, home=home) as m:
        m.pin(note.id, True)
    code, out = run_cli(["edit", note.id, "-"], home, proj, input="deploys use pnpm, always and everywhere\n")
    assert code == 0 and "leaves out" not in out, out  # a body alone keeps the frontmatter: nothing to say
