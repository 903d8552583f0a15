"""ROOT.md is read (seeds 000 and 002): the goals and hard rules a person writes in it reach every block, survive a
tiny budget visibly, are searchable, cannot be forgotten or edited through memdir (they are the page's lines), and
the routing table's triggers bring their note or category forward when a prompt names them."""

from __future__ import annotations

import os
import re

import pytest

import memdir
from memdir.notes import rootmd
from memdir.errors import UsageError

from conftest import shared_path

PAGE = """# Memory root (project)

> A page of my own.

## Current goals

- Ship the importer for chat histories
- [x] Move the store to WAL (done)
<!-- a comment is not a goal -->

## Hard rules (always)

- Never push to main without a green review
- 提交前必须运行 make test，包括慢测试
1. Secrets live in the vault,
   never in the repository

## Notes

This paragraph is not a rule.
"""


def write_page(m, text: str) -> None:
    root = m.roots["project"]
    root.ensure()
    (root.path / "ROOT.md").write_text(text, encoding="utf-8")


def reopen(m, project, tmp_path, clock):
    m.close()
    return memdir.open(project, home=tmp_path / "g", clock=clock)


def test_the_page_parser_finds_goals_rules_and_routes():
    page = rootmd.parse(PAGE + "\n| when | file |\n|---|---|\n| 上线, deploy | decisions/deploy.md |\n| lunch | facts/ |\n")
    assert page.goals == ["Ship the importer for chat histories"]  # the checked goal is done
    assert page.rules == ["Never push to main without a green review", "提交前必须运行 make test，包括慢测试",
                          "Secrets live in the vault, never in the repository"]
    assert ("上线", "decisions/deploy.md") in page.routes and ("deploy", "decisions/deploy.md") in page.routes
    assert ("lunch", "facts/") in page.routes
    assert rootmd.section_kind("铁规则（常驻，永不衰减）") == "rules" and rootmd.section_kind("当前目标") == "goals"
    assert rootmd.section_kind("Registry") is None


@pytest.mark.parametrize("prompt", ["", "what is the weather like", "部署脚本怎么写"])
def test_goals_and_rules_are_in_every_block(m, project, tmp_path, clock, prompt):
    m.remember("the weather service lives in svc/weather", category="facts")
    write_page(m, PAGE)
    m = reopen(m, project, tmp_path, clock)
    block = m.context(prompt)
    assert "## Rules (always apply)" in block and "Never push to main without a green review" in block
    assert "Secrets live in the vault, never in the repository" in block
    assert "## Current goals" in block and "Ship the importer for chat histories" in block
    assert "Move the store to WAL" not in block and "This paragraph is not a rule" not in block
    assert "ROOT.md/" not in block  # the outline does not list the page's lines as a category
    assert [n.id for n in m.rules()][:3] == ["ROOT.md/rule-01", "ROOT.md/rule-02", "ROOT.md/rule-03"]
    assert [n.kind for n in m.goals()] == ["goal"]


def test_a_tiny_budget_keeps_a_visible_count_of_rules_and_goals(m, project, tmp_path, clock):
    m.remember("the weather service lives in svc/weather", category="facts")
    write_page(m, PAGE)
    m = reopen(m, project, tmp_path, clock)
    for limit in (100, 120, 160, 240):
        block = m.context("weather service", max_chars=limit)
        assert len(block) <= limit
        shown = block.count("\n- ")
        if "more" not in block:
            assert shown >= 4, block
        else:
            assert re.search(r"- …\+\d+ more", block), block


def test_the_page_is_searchable_and_its_lines_are_refused_to_forget_and_edit(m, project, tmp_path, clock):
    write_page(m, PAGE)
    m = reopen(m, project, tmp_path, clock)
    hits = m.recall("vault secrets")
    assert hits and hits[0].id == "ROOT.md/rule-03" and hits[0].pinned
    assert m.get(hits[0].handle).text == "Secrets live in the vault, never in the repository"
    for act in (lambda: m.forget("ROOT.md/rule-03"), lambda: m.forget(hits[0].handle),
                lambda: m.edit("ROOT.md/rule-03", "x"), lambda: m.pin("ROOT.md/rule-03", False)):
        with pytest.raises(UsageError, match="edit ROOT.md by hand"):
            act()
    assert "vault" in (m.roots["project"].path / "ROOT.md").read_text(encoding="utf-8")
    out = tmp_path / "x.jsonl"
    m.export(out)
    assert "ROOT.md/" not in out.read_text(encoding="utf-8")  # the page travels as its file


def test_compiling_keeps_the_page_and_lists_no_page_category(m, project, tmp_path, clock):
    write_page(m, PAGE)
    m = reopen(m, project, tmp_path, clock)
    m.remember("use pnpm, not npm", category="decisions")
    text = (m.roots["project"].path / "ROOT.md").read_text(encoding="utf-8")
    assert text.startswith(PAGE)  # every hand-written byte kept
    assert "| decisions/ |" in text and "ROOT.md/" not in text


def test_an_edit_of_the_page_in_place_reaches_a_long_lived_store(m, project, tmp_path, clock):
    write_page(m, PAGE)
    m = reopen(m, project, tmp_path, clock)
    root = m.roots["project"].path
    old = 1_700_000_000
    for p in (root, root / "ROOT.md"):  # stats older than the racy window, so the quick check is trusted
        os.utime(p, (old, old))
    m = reopen(m, project, tmp_path, clock)
    assert "Deploy only on Tuesdays" not in m.context("")
    assert "Deploy only on Tuesdays" not in m.context("")  # the snapshot is taken and trusted now
    with open(root / "ROOT.md", "r+", encoding="utf-8") as f:  # in place: the directory does not change
        text = f.read()
        f.seek(0)
        f.write(text.replace("## Notes", "- Deploy only on Tuesdays\n\n## Notes"))
    os.utime(root / "ROOT.md", (old + 10, old + 10))
    os.utime(root, (old, old))
    assert "Deploy only on Tuesdays" in m.context("")


def test_routing_rows_bring_their_note_or_category_forward(m, project, tmp_path, clock):
    m.remember("blue-green script in ops/, then wait for the health checks", category="decisions",
               summary="deploy procedure")
    for i in range(6):
        m.remember(f"cafeteria menu number {i}: soup and bread", category="facts")
    m.remember("the staging database is pg-stage-2", category="pitfalls")
    write_page(m, PAGE + "\n## 路由（手写）\n\n| 触发 | 文件 | 类型 |\n|---|---|---|\n"
               "| 上线 | decisions/deploy-procedure.md | fact |\n| staging | pitfalls/ | fact |\n")
    m = reopen(m, project, tmp_path, clock)
    block = m.context("今天怎么上线？", sections=("hits",))
    assert "blue-green script" in block  # no word of the note is in the prompt: the route found it
    block = m.context("menu for staging lunch with soup", sections=("hits",))
    first = block.splitlines()[1] if block.startswith("<memory>") else ""
    assert "pg-stage-2" in first, block
    assert not m.context("unstaging nothing here zzz", sections=("hits",))  # whole words for Latin triggers


def test_the_seed_sample_page_works_as_written(m, project, tmp_path, clock):
    raw = shared_path("seeds", "002_47a5d2d0a3a99282.txt").read_text(encoding="utf-8")
    page = raw[raw.index("# 记忆总纲"):]
    head, rules_head, rest = page.partition("## 铁规则")
    goals_done = head.replace("插件不会碰这里。 -->", "插件不会碰这里。 -->\n- 把检索迁到混合召回\n")
    page = goals_done + rules_head + rest.replace("常驻注入。 -->", "常驻注入。 -->\n- 生产库只读，任何写操作先开工单\n- 回复用中文\n", 1)
    write_page(m, page)
    m = reopen(m, project, tmp_path, clock)
    block = m.context("随便问一句")
    for line in ("生产库只读，任何写操作先开工单", "回复用中文", "把检索迁到混合召回"):
        assert line in block, block
    tiny = m.context("随便问一句", max_chars=70)
    assert len(tiny) <= 70 and re.search(r"- …\+\d+ more", tiny), tiny
    text = (m.roots["project"].path / "ROOT.md").read_text(encoding="utf-8")
    assert "生产库只读" in text and "| 目录 | 概述 | 条目 |" in text  # the page and its Chinese header are kept


def test_a_category_route_brings_its_notes_when_recall_found_none(m, project, tmp_path, clock):
    m.remember("the staging database is pg-stage-2", category="pitfalls")
    m.remember("never run migrations on a friday", category="pitfalls", pinned=True)
    m.remember("cafeteria menu: soup and bread", category="facts")
    write_page(m, PAGE + "\n## 路由（手写）\n\n| 触发 | 文件 | 类型 |\n|---|---|---|\n| 上线 | pitfalls/ | fact |\n")
    m = reopen(m, project, tmp_path, clock)
    block = m.context("准备上线了", sections=("hits",))  # no word of either pitfall is in the prompt
    assert "pg-stage-2" in block and "friday" in block and "cafeteria" not in block, block
    assert block.index("friday") < block.index("pg-stage-2")  # the pinned one first


def test_a_page_linked_to_a_file_inside_the_root_is_compiled_through_the_link(m, project, tmp_path, clock):
    root = m.roots["project"]
    root.ensure()
    (root.path / "root-page.md").write_text(PAGE, encoding="utf-8")
    (root.path / "ROOT.md").symlink_to("root-page.md")
    m = reopen(m, project, tmp_path, clock)
    m.remember("use pnpm, not npm", category="decisions")
    assert (root.path / "ROOT.md").is_symlink()  # the link stays; its target holds the tables
    text = (root.path / "root-page.md").read_text(encoding="utf-8")
    assert text.startswith(PAGE) and "| decisions/ |" in text
    assert "vault" in m.context("")
    assert not [p for p in m.inspect().problems if p["kind"] == "link"]


def test_a_page_linked_out_of_the_root_is_read_never_written_and_said(m, project, tmp_path, clock):
    dot = tmp_path / "dotfiles" / "root.md"
    dot.parent.mkdir()
    dot.write_text(PAGE, encoding="utf-8")
    root = m.roots["project"]
    root.ensure()
    (root.path / "ROOT.md").symlink_to(dot)
    m = reopen(m, project, tmp_path, clock)
    m.remember("use pnpm, not npm", category="decisions")
    assert (root.path / "ROOT.md").is_symlink() and dot.read_text(encoding="utf-8") == PAGE  # never written there
    assert "vault" in m.context("")  # its hard rules still work
    said = [p for p in m.inspect().problems if p["kind"] == "link"]
    assert len(said) == 1 and said[0]["path"] == str(root.path / "ROOT.md")
    assert "tables are not updated" in said[0]["detail"] and "move the file into the root" in said[0]["detail"]
    check = [c for c in m.doctor() if c["check"] == "project ROOT.md"]
    assert check and check[0]["ok"] == "warn" and "not updated" in check[0]["detail"] and check[0]["remedy"]


def test_a_goal_or_rule_keeps_its_time_when_a_compile_rewrites_the_page(m, project, tmp_path, clock):
    """Every compile rewrites ROOT.md (its tables), and its items were read with the page's file time: each remember
    re-dated every goal and rule to that moment, so `memdir recent` listed them first for ever."""
    m.remember("the weather service lives in svc/weather", category="facts")
    write_page(m, PAGE)
    m = reopen(m, project, tmp_path, clock)

    def times(m):
        return {h.id: h.ts for h in m.recent(limit=50) if h.id.startswith("ROOT.md/")}

    before = times(m)
    assert before and set(before) >= {"ROOT.md/rule-01", "ROOT.md/goal-01"}
    page = project / ".memory" / "ROOT.md"
    old = page.stat().st_mtime_ns
    os.utime(page, ns=(old - 3_600 * 10**9, old - 3_600 * 10**9))  # the page's file time an hour back ...
    m = reopen(m, project, tmp_path, clock)
    before = times(m)
    m.remember("the billing service lives in svc/billing", category="facts")  # ... then a compile rewrites it
    m = reopen(m, project, tmp_path, clock)
    assert page.stat().st_mtime_ns > old - 3_600 * 10**9
    assert times(m) == before
    # an item whose text changes takes the page's new time
    write_page(m, page.read_text(encoding="utf-8").replace("Ship the importer", "Ship the new importer"))
    m = reopen(m, project, tmp_path, clock)
    after = times(m)
    assert after["ROOT.md/goal-01"] != before["ROOT.md/goal-01"] and after["ROOT.md/rule-01"] == before["ROOT.md/rule-01"]
