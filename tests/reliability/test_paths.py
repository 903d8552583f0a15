"""Paths (issue 6, case C14): ids and categories can never make memdir read or write outside its root.

Every hostile id/category goes through remember / forget / get / supersedes / import, and a sibling directory
(plus files the symlinks point at) is snapshotted before and after: nothing outside the root changes.
"""

from __future__ import annotations

import json
import os

import pytest

import memdir
from memdir import MemdirError, PathError, UsageError

from .helpers import check_store, snapshot

BAD_IDS = ["../../etc/passwd", "/etc/passwd", "a/../../b", "../outside/x", "facts/../../outside/x", "facts/../x",
           "~/x", "~root/x", "C:\\Windows\\x", "C:/Windows/x", "facts\\..\\..\\outside", "\\\\server\\share\\x",
           "facts/con", "con/x", "facts/nul.md", "aux/x", "facts/com1", "lpt9/x", "facts/.hidden", ".memdir/index",
           "facts/a\x00b", "facts/x/y", "facts/", "/", "facts/" + "a" * 300, "facts/a:b", "facts/a|b", "facts/a*b",
           "facts/\u202e", "facts/..", "./facts/x"]
BAD_CATEGORIES = ["..", "../outside", "/tmp", "a/b", "a\\b", "con", "NUL", ".memdir", ".git", "", "C:", "x" * 300, "a\x00"]


@pytest.fixture
def world(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    outside = tmp_path / "outside"
    (outside / "x").mkdir(parents=True)
    (outside / "secret.md").write_text("---\nsummary: outside\n---\nnever read me\n")
    (outside / "x" / "y.md").write_text("outside note\n")
    m = memdir.open(proj, home=tmp_path / "home")
    m.remember("a legitimate note inside the root", category="facts")
    yield m, proj, outside
    m.close()


def _refused(fn, *a, **kw):
    try:
        r = fn(*a, **kw)
    except (PathError, UsageError) as exc:
        assert len(str(exc).splitlines()) == 1
        return True
    return r in (False, None)  # forget/get of an id that cannot exist: "not found" is also a refusal


@pytest.mark.parametrize("bad", BAD_IDS)
def test_hostile_ids_are_refused_and_touch_nothing_outside(world, bad):
    m, proj, outside = world
    before = snapshot(outside)
    assert _refused(m.forget, bad)
    assert _refused(m.get, bad)
    with pytest.raises(MemdirError):
        m.remember("superseding text", supersedes=bad)
    assert snapshot(outside) == before
    check_store(proj, m.home)


@pytest.mark.parametrize("cat", BAD_CATEGORIES)
def test_hostile_categories_are_refused(world, cat):
    m, proj, outside = world
    before = snapshot(outside)
    with pytest.raises((PathError, UsageError)):
        m.remember("text in a hostile category", category=cat)
    assert snapshot(outside) == before
    assert not (proj / "outside").exists() and not (proj.parent / "con").exists()


def test_symlinks_out_of_the_root(world, tmp_path):
    m, proj, outside = world
    root = proj / ".memory"
    os.symlink(outside, root / "linked")                              # a category dir pointing outside
    os.symlink(outside / "secret.md", root / "facts" / "leak.md")      # a note file pointing outside
    os.symlink(outside / "x", root / "pitfalls", target_is_directory=True)  # a known category pointing outside
    before = snapshot(outside)
    rep = m.inspect()
    kinds = {(p["kind"], os.path.basename(p["path"])) for p in rep.problems}
    assert ("outside_root", "linked") in kinds and ("outside_root", "leak.md") in kinds
    assert all("never read me" not in n.text for n in rep.notes)
    assert not m.recall("never read me") and "never read" not in m.context("never read me")
    for bad in ("linked/secret", "facts/leak", "pitfalls/y"):
        assert _refused(m.forget, bad)
    for cat in ("linked", "pitfalls"):
        with pytest.raises(PathError):
            m.remember(f"writing through the {cat} symlink", category=cat)
    m.reindex()
    m.remember("another legitimate note", category="facts")
    assert snapshot(outside) == before
    assert os.path.islink(root / "facts" / "leak.md"), "memdir must not delete a user's symlink either"


def test_import_jsonl_cannot_escape(world, tmp_path):
    m, proj, outside = world
    before = snapshot(outside)
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in [
        {"type": "note", "category": "../outside", "text": "escape one"},
        {"type": "note", "category": "/tmp", "text": "escape two"},
        {"type": "note", "category": "con", "text": "escape three"},
        {"type": "event", "key": "../../etc/passwd", "text": "an event key is only a key, never a path"},
    ]) + "\n")
    c = m.import_jsonl(f)
    assert c["bad_lines"] == 3 and c["stored"] == 1
    assert m.get("../../etc/passwd").text.startswith("an event key")
    assert snapshot(outside) == before
