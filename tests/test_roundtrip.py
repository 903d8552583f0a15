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


def _block(text: str, name: str) -> list[str]:
    blocks, _ = compiler.find_blocks(text)
    a, b = blocks[name]
    return text.splitlines()[a:b]


def test_hand_written_lines_inside_a_compiled_block_are_kept_below_it_and_said(tmp_path, caplog):
    """Lines a person added between ``auto:begin`` and ``auto:end`` (a note to self in a category's index.md, a remark
    or a two-column routing row in ROOT.md's routing table) were deleted without a word by the next compile (any
    remember, ``memdir reindex``). They are moved just below the block's end marker, a warning line names the file
    and how many, and a compile that then finds only its own lines writes nothing (no churn in git)."""
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    root = proj / ".memory"
    with memdir.open(proj, home=tmp_path / "g") as m:
        m.remember("we deploy with pnpm", category="decisions", load_when=["deploy"])
        idx, page = root / "decisions" / "index.md", root / "ROOT.md"
        idx.write_text(idx.read_text(encoding="utf-8").replace(
            "<!-- auto:end -->", "NOTE TO SELF: ask Li about the lockfile\n- [Deploy guide](guide.md) — by hand\n"
                                 "<!-- auto:end -->"), encoding="utf-8")
        text = page.read_text(encoding="utf-8")
        routing_end = text.rindex("<!-- auto:end -->")
        page.write_text(text[:routing_end] + "| 上线 | decisions/ |\nkeep this remark\n" + text[routing_end:],
                        encoding="utf-8")
        caplog.clear()
        m.remember("we release on tuesdays", category="decisions")  # any remember compiles the pages
        m.reindex()
        new_idx, new_page = idx.read_text(encoding="utf-8"), page.read_text(encoding="utf-8")
        for line in ("NOTE TO SELF: ask Li about the lockfile", "- [Deploy guide](guide.md) — by hand"):
            assert line in new_idx.splitlines() and line not in _block(new_idx, "index"), new_idx
        assert new_idx.index("NOTE TO SELF") > new_idx.index("<!-- auto:end -->")
        assert any("we-release-on-tuesdays" in ln for ln in _block(new_idx, "index"))
        for line in ("| 上线 | decisions/ |", "keep this remark"):
            assert line in new_page.splitlines() and line not in _block(new_page, "routing"), new_page
        said = [r.getMessage() for r in caplog.records if "hand-written" in r.getMessage()]
        assert len(said) == 2 and all("\n" not in s for s in said), said
        assert any(str(idx) in s and "2 hand-written lines" in s for s in said), said
        assert any(str(page) in s for s in said), said
        m.remember("the cache warms at nine", category="facts")
        m.reindex()
        assert idx.read_text(encoding="utf-8") == new_idx  # only its own lines now: byte for byte
        assert page.read_text(encoding="utf-8").count("keep this remark") == 1


def test_a_compile_that_finds_only_its_own_lines_drops_stale_ones_and_says_nothing(tmp_path, caplog):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    root = proj / ".memory"
    with memdir.open(proj, home=tmp_path / "g") as m:
        a = m.remember("we deploy with pnpm", category="decisions", load_when=["deploy"])
        m.remember("we release on tuesdays", category="decisions")
        a.path.unlink()  # deleted by hand: its compiled lines are stale, not hand-written
        caplog.clear()
        m.reindex()
        idx = (root / "decisions" / "index.md").read_text(encoding="utf-8")
        assert "we-deploy-with-pnpm" not in idx and "we-deploy-with-pnpm" not in (root / "ROOT.md").read_text("utf-8")
        assert not [r for r in caplog.records if "hand-written" in r.getMessage()]
        before = {p: p.read_bytes() for p in root.rglob("*.md")}
        m.reindex()
        assert {p: p.read_bytes() for p in root.rglob("*.md")} == before


def test_the_cli_says_in_one_line_where_hand_written_lines_went(tmp_path):
    import os
    import subprocess
    import sys

    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    env = {**os.environ, "HOME": str(tmp_path), "MEMDIR_HOME": str(tmp_path / "g")}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "memdir", "--dir", str(proj), *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120)

    assert run("remember", "we deploy with pnpm").returncode == 0
    idx = proj / ".memory" / "facts" / "index.md"
    idx.write_text(idx.read_text(encoding="utf-8").replace("<!-- auto:end -->", "mine\n<!-- auto:end -->"),
                   encoding="utf-8")
    r = run("reindex")
    assert r.returncode == 0 and "mine\n" in idx.read_text(encoding="utf-8")
    lines = [ln for ln in r.stderr.splitlines() if "hand-written" in ln]
    assert len(lines) == 1 and str(idx) in lines[0] and "auto:end" in lines[0], r.stderr
    assert "Traceback" not in r.stderr and "hand-written" not in run("reindex").stderr
