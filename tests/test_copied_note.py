"""A note file copied by hand (in an editor, ``cp``): the copy is a second note (a note's id is its path,
docs/GUARANTEES.md), so recall lists both; ``inspect`` and ``doctor`` name the second file holding the same text or
claiming the same ``id:``, and delete nothing."""

from __future__ import annotations

import shutil

import pytest



def _files(mem):
    return {str(p.relative_to(mem)): p.read_bytes() for p in sorted(mem.rglob("*.md"))}


def _dups(m) -> list[dict]:
    return [p for p in m.inspect().problems if p["kind"].startswith("duplicate")]


@pytest.mark.parametrize("where", ["preferences/copy.md", "facts/copy.md"])
def test_a_copied_note_file_is_named_by_inspect_and_doctor(m, project, where):
    nid = m.remember("always use pnpm, never npm, for installs", category="preferences", tags=["pnpm"]).id
    mem = project / ".memory"
    copy = mem / where
    copy.parent.mkdir(exist_ok=True)
    shutil.copyfile(mem / f"{nid}.md", copy)
    assert len([h for h in m.recall("pnpm") if h.kind != "event"]) == 2  # two files: two notes, as documented
    before = _files(mem)
    dups = _dups(m)
    assert len(dups) == 1, m.inspect().problems
    assert dups[0]["path"] == str(copy) and nid in dups[0]["detail"] and where[:-3] in dups[0]["detail"]
    md = next(c for c in m.doctor() if c["check"] == "markdown")
    assert md["ok"] == "warn" and "cop" in md["remedy"]
    assert _files(mem) == before  # nothing deleted or rewritten


def test_a_copy_with_other_spacing_or_an_edited_text_keeping_the_id_is_named_too(m, project):
    nid = m.remember("the staging cluster runs on spot instances", category="facts").id
    mem = project / ".memory"
    raw = (mem / f"{nid}.md").read_text(encoding="utf-8")
    (mem / "facts" / "respaced.md").write_text(raw.replace("runs on spot", "Runs  on SPOT"), encoding="utf-8")
    (mem / "decisions").mkdir()
    (mem / "decisions" / "edited.md").write_text(raw.replace("spot instances", "reserved nodes"), encoding="utf-8")
    dups = {p["path"].rsplit("/", 2)[-2] + "/" + p["path"].rsplit("/", 1)[-1]: p["detail"] for p in _dups(m)}
    assert set(dups) == {"facts/respaced.md", "decisions/edited.md"}, dups
    assert all(nid in d for d in dups.values())
    code, out, err = run_cli_inspect(project)
    assert "facts/respaced" in out and "decisions/edited" in out


def run_cli_inspect(project):
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "inspect"], capture_output=True,
                       text=True, timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, cwd=project)
    return r.returncode, r.stdout, r.stderr


def test_distinct_notes_a_supersede_and_the_same_text_in_both_roots_are_no_duplicates(m, project):
    m.remember("cache keys carry the schema version", category="decisions")
    old = m.remember("I love spicy food", category="preferences")
    m.remember("I no longer eat spicy food", category="preferences", supersedes=old.id)
    m.remember("cache keys carry the schema version", category="decisions", scope="global")
    m.remember("ROOT rule text stays apart", category="rules")
    assert _dups(m) == []
    assert next(c for c in m.doctor() if c["check"] == "markdown")["ok"] == "ok"


@pytest.mark.parametrize("how", ["file", "folder"])
def test_a_link_to_a_note_is_named_as_the_link_and_removing_the_link_is_advised(m, project, how):
    """A note file that is a symlink to another note of the root (or a category folder linked to another) was named
    as a copy with "delete one of A.md and B.md": deleting the link's target breaks the link and loses the note. The
    problem now names the link, says what it leads to, and advises removing the link, never the target."""
    import os

    nid = m.remember("always use pnpm, never npm, for installs", category="preferences").id
    mem = project / ".memory"
    target = mem / f"{nid}.md"
    if how == "file":
        link = mem / "preferences" / "aaa-link.md"  # sorts before the note: still the one named
        link.symlink_to(target.name)
        named, rm = link, link
    else:
        rm = mem / "aaa-prefs"
        rm.symlink_to("preferences")
        named = rm / target.name
    m.recall("pnpm")  # the long-lived object sees the link appear (index.md and ROOT.md compiled)
    before = _files(mem)
    dups = _dups(m)
    assert len(dups) == 1, m.inspect().problems
    detail = dups[0]["detail"]
    assert dups[0]["path"] == str(named), dups
    assert "link" in detail and f"rm {rm}" in detail and nid in detail, detail
    assert "delete one of" not in detail, detail
    md = next(c for c in m.doctor() if c["check"] == "markdown")
    assert md["ok"] == "warn" and "link" in md["remedy"], md
    assert _files(mem) == before and os.path.islink(rm) and target.is_file()
