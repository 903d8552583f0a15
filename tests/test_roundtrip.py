"""Seed 000's ROOT.md and frontmatter file round-trip byte for byte outside the auto markers."""

import re

import memdir
from memdir.notes import compile as compiler
from memdir.notes import markdown as notes

from conftest import shared_path


def _seed_root_md() -> str:
    raw = shared_path("seeds", "002_47a5d2d0a3a99282.txt").read_text(encoding="utf-8")
    return raw[raw.index("# 记忆总纲"):]


def _seed_note() -> str:
    raw = shared_path("seeds", "000_638b3f165c6f4f7c.txt").read_text(encoding="utf-8")
    start = raw.index("---\nid: pitfalls/sqlite-cjk-tokenizer")
    end = raw.index("\n", raw.index("正文", start)) + 1
    return raw[start:end]


def _outside(text: str) -> list[str]:
    """Lines outside auto blocks (marker lines included: they are kept as they were)."""
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        if re.match(r"\s*<!--\s*auto:begin", line):
            inside = True
            out.append(line)
            continue
        if re.match(r"\s*<!--\s*auto:end", line):
            inside = False
        if not inside:
            out.append(line)
    return out


def test_seed_root_md_parses_with_unclosed_markers():
    text = _seed_root_md()
    blocks, problems = compiler.find_blocks(text)
    assert set(blocks) == {"registry", "routing"} and problems == []


def test_seed_root_md_round_trips_outside_markers(tmp_path):
    text = _seed_root_md()
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    root = proj / ".memory"
    (root / "pitfalls").mkdir(parents=True)
    (root / "ROOT.md").write_text(text, encoding="utf-8")
    (root / "pitfalls" / "sqlite-cjk-tokenizer.md").write_text(_seed_note(), encoding="utf-8")
    with memdir.open(proj, home=tmp_path / "g") as m:
        m.reindex()
        new = (root / "ROOT.md").read_text(encoding="utf-8")
        assert _outside(new) == _outside(text)
        assert new != text  # the tables were recompiled from the one note present
        assert "| 分词 | pitfalls/sqlite-cjk-tokenizer.md | pitfall |" in new
        assert "| 目录 | 概述 | 条目 |" in new  # the hand-written Chinese header is kept
        # compiling again changes nothing
        m.reindex()
        assert (root / "ROOT.md").read_text(encoding="utf-8") == new
        assert m.inspect().ok, m.inspect().problems


def test_seed_frontmatter_is_read_as_is_and_kept_on_rewrite(tmp_path):
    raw = _seed_note()
    meta, body, _ = notes.split(raw)
    f = notes.fields(meta, body, category="pitfalls", fallback_time=None)
    assert f["pinned"] is True and f["load_when"] == ("SQLite", "FTS5", "分词")
    assert f["created"].year == 2026 and f["created"].tzinfo is not None  # millisecond epoch
    meta["extra_field"] = {"kept": [1, 2]}
    raw2 = notes.render(meta, body)
    changed = notes.update_fields(raw2, {"superseded_by": "pitfalls/newer"})
    meta2, body2, _ = notes.split(changed)
    assert body2 == body and meta2["extra_field"] == {"kept": [1, 2]} and meta2["superseded_by"] == "pitfalls/newer"
    back = notes.update_fields(changed, {"superseded_by": None})
    assert notes.split(back)[1] == body


def test_note_files_are_never_rewritten_by_compiling(tmp_path):
    raw = _seed_note()
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    path = proj / ".memory" / "pitfalls" / "sqlite-cjk-tokenizer.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(raw.encode("utf-8"))
    with memdir.open(proj, home=tmp_path / "g") as m:
        m.reindex()
        m.remember("another note", category="pitfalls")
        hits = m.recall("分词")
        assert hits and hits[0].id == "pitfalls/sqlite-cjk-tokenizer"
    assert path.read_bytes() == raw.encode("utf-8")


OWN_ROOT = """# My root

Hand-written intro.

<!-- auto:begin registry
| old | table | here |
|---|---|---|
| x | y | z |
<!-- auto:end

Between the blocks: keep me.

<!-- auto:begin routing -->
<!-- auto:end -->
trailing text without newline"""


def test_unclosed_markers_without_shared(tmp_path):
    out, problems = compiler.root_md("project", [], ["facts"], OWN_ROOT)
    assert problems == []
    assert _outside(out) == _outside(OWN_ROOT)


def test_broken_markers_are_left_untouched():
    broken = "# r\n<!-- auto:begin registry\n| a |\n"
    out, problems = compiler.root_md("project", [], ["facts"], broken)
    assert out.startswith(broken) and problems
