"""Cases C1-C6, C10-C12, C14, C15 of ../shared/cases/cases.md (rewritten here so they run without it)."""

import os
import re
import sqlite3
from pathlib import Path

import pytest

import memdir
from memdir import PathError, UsageError

C1 = "部署脚本用 pnpm 而不是 npm，因为 lockfile 不兼容"
FILLER = [
    "数据库迁移需要先备份生产环境", "前端构建使用 vite 并开启缓存", "日志统一输出到标准错误流", "接口超时设置为三十秒",
    "周报每周五下午发给团队", "测试覆盖率要求不低于八成", "缓存键需要带上租户编号", "容器镜像基于精简版系统",
    "The CI pipeline runs lint before tests", "Use UTC everywhere in the billing service",
]


def test_c1_cjk_two_char_word_ranks_first(m):
    for t in FILLER:
        m.remember(t)
    m.remember(C1, category="decisions")
    for q in ("部署", "lockfile", "pnpm", "脚本"):
        hits = m.recall(q)
        assert hits and hits[0].text == C1, q


def test_c2_quoted_and_unquoted_chinese_query(m):
    topics = ["订单", "支付", "库存", "物流", "报表", "权限", "通知", "搜索", "推荐", "评论"]
    for i in range(49):
        m.remember(f"{topics[i % 10]}模块第{i}号说明：处理{topics[(i + 3) % 10]}相关的请求并记录日志")
    m.remember("用户身份校验在网关做")
    for q in ("用户身份", '"用户身份"'):
        hits = m.recall(q)
        assert hits[0].text == "用户身份校验在网关做", q


@pytest.mark.parametrize("q", ["don't", "pre-edit", "C++", '"unbalanced', "NOT", "AND OR", "*", "a:b",
                               "DO NOT USE FIND /", "(", "^", "NEAR(a b)", "col:term", "-x", "'", '""', "\\", "部署 OR"])
def test_c3_query_syntax_never_errors(m, q):
    m.remember("don't run the pre-edit hook on C++ files; NOT AND OR are words here, see a:b unbalanced")
    hits = m.recall(q)  # must not raise
    if any(c.isalnum() for c in q) and q not in ("NEAR(a b)", "col:term", "-x", "部署 OR"):
        assert hits, q


def test_c3_words_are_found(m):
    note = m.remember("don't run the pre-edit hook on C++ files; see a:b for node.js")
    for q in ("don't", "pre-edit", "C++", "a:b", "node.js", "node", "edit"):
        assert [h.id for h in m.recall(q)] == [note.id], q


def test_c4_empty_store_and_empty_query(m, project):
    assert m.recall("anything") == []
    assert m.recall("") == []
    assert m.recall("   \t\n") == []
    assert not (project / ".memory").exists(), "recall must not create the store"


def test_c5_same_text_twice_is_one_memory(m):
    a = m.remember("Prefer small pull requests")
    b = m.remember("  Prefer   small\npull requests  ")
    assert not a.existed and b.existed and a.id == b.id
    assert a.path.exists()
    assert len(m.inspect().notes) == 1


def test_c6_supersede(m):
    old = m.remember("I love spicy food", category="preferences")
    new = m.remember("I no longer eat spicy food", category="preferences", supersedes=old.id)
    assert [h.id for h in m.recall("spicy food")] == [new.id]
    rep = m.inspect()
    olds = [n for n in rep.notes if n.id == old.id]
    assert olds and olds[0].superseded_by == new.id and old.path.exists()
    assert rep.ok, rep.problems


def test_c6_unknown_supersedes_is_usage_error(m):
    with pytest.raises(UsageError):
        m.remember("x y z", supersedes="facts/nope")


@pytest.mark.slow  # over 7 s: CI runs it in `make test-slow`
def test_c10_budget_with_200_long_notes(m):
    for i in range(200):
        m.remember(f"deploy note {i}: " + ("the deploy script pushes images and restarts workers. " * 8) + f"\nline two {i}")
    block = m.context("deploy script", max_chars=1200)
    assert 0 < len(block) <= 1200
    assert block.startswith("<memory>") and block.endswith("</memory>")
    assert block.count("<memory>") == 1 and block.count("</memory>") == 1
    assert re.search(r"(?m)^\[[0-9a-z]{6,16} fact \d\d-\d\d\] deploy note", block), block  # entries under compact headers


def test_c10_single_long_note_is_truncated_not_dropped(m):
    body = "\n".join(f"step {i}: run the migration for tenant {i} and verify the invoice totals" for i in range(80))
    assert len(body) > 5000
    m.remember(body, summary="migration runbook")
    block = m.context("migration invoice", max_chars=1200)
    assert len(block) <= 1200
    assert "step 0: run the migration" in block and "…" in block
    last = block.split("</memory>")[0].rstrip().splitlines()[-1]
    assert last.endswith("…")


def test_c11_subdirectory_uses_the_same_project(tmp_path):
    for with_git in (True, False):
        proj = tmp_path / f"p{with_git}"
        (proj / "sub" / "dir").mkdir(parents=True)
        if with_git:
            (proj / ".git").mkdir()
        with memdir.open(proj, home=tmp_path / "g") as a:
            a.remember("the staging database is called orca")
        with memdir.open(proj / "sub" / "dir", home=tmp_path / "g") as b:
            assert b.project_root == proj
            assert [h.text for h in b.recall("orca")] == ["the staging database is called orca"]


def test_c12_forgotten_never_appears(m):
    a = m.remember("alpha service owns billing")
    b = m.remember("beta service owns billing exports")
    assert m.forget(a.id) is True
    hits = m.recall("alpha beta billing service", k=10)
    assert [h.id for h in hits] == [b.id]
    assert m.forget(a.id) is False
    assert not a.path.exists()


@pytest.mark.parametrize("bad", ["../../etc/passwd", "/etc/passwd", "a/../../b", "..\\..\\x", "C:/x/y", "facts/../../x",
                                 "facts/CON", "facts/.hidden", "~/x", "facts/a\x00b"])
def test_c14_ids_cannot_leave_the_root(m, bad):
    m.remember("something to keep")
    with pytest.raises(PathError):
        m.forget(bad)


@pytest.mark.parametrize("cat", ["../x", "/etc", "a/b", "..", ".memdir", "CON"])
def test_c14_categories_cannot_leave_the_root(m, cat):
    with pytest.raises(UsageError):
        m.remember("text", category=cat)


def test_c14_symlinked_category_outside_is_refused(m, tmp_path):
    m.remember("inside note")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\nsummary: outside\n---\nOUTSIDE_TOKEN body\n")
    link = m.roots["project"].path / "facts2"
    os.symlink(outside, link)
    m.close()
    m2 = memdir.open(m.project_root, home=tmp_path / "g")
    assert m2.recall("OUTSIDE_TOKEN") == []
    assert any(p["kind"] == "outside_root" for p in m2.inspect().problems)
    with pytest.raises(UsageError):
        m2.remember("write through the link", category="facts2")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


SECRETS = {
    "openai": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2,
    "ghp": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github_pat": "github_pat_11ABCDEFG0" + "x1Y2z3" * 12,
    "slack": "xoxb-123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    "aws": "AKIA" + "IOSFODNN7EXAMPLE",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x8f9Q2kZ\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END RSA PRIVATE KEY-----",
    "db": "postgres://app:Sup3rS3cretPw@db.internal:5432/app",
    "password": "password=hunter2",
    "private": "<private>my home address is 1 Main St</private>",
}
NEEDLES = {"openai": "Ab3dEf6hIj9k", "ghp": "a1B2c3D4e5F6", "github_pat": "x1Y2z3x1Y2z3", "slack": "AbCdEfGhIjKl",
           "aws": "IOSFODNN7EXAMPLE", "jwt": "SflKxwRJSMeKKF2QT4fw", "pem": "MIIEowIBAAKCAQEA7x8f9Q2kZ",
           "db": "Sup3rS3cretPw", "password": "hunter2", "private": "1 Main St"}


def _all_bytes(root: Path) -> bytes:
    out = b""
    for p in root.rglob("*"):
        if p.is_file():
            out += p.read_bytes()
    return out


def test_c15_no_secret_reaches_disk_or_output(m, tmp_path, project):
    for name, secret in SECRETS.items():
        m.remember(f"config for {name} is {secret} ok", category="facts", tags=[name])
    m.import_events([{"key": f"e{i}", "role": "user", "text": f"event {name}: {s}", "session": "s"} for i, (name, s) in enumerate(SECRETS.items())])
    m.export(tmp_path / "dump.jsonl")
    m.close()
    # checkpoint the WAL so the bytes are in the main file too, then scan everything on disk
    db = sqlite3.connect(project / ".memory" / ".memdir" / "index.sqlite3")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    disk = _all_bytes(project / ".memory") + (tmp_path / "dump.jsonl").read_bytes()
    m2 = memdir.open(project, home=tmp_path / "g")
    outputs = " ".join(h.text for name in SECRETS for h in m2.recall(f"config {name} event", k=50))
    outputs += m2.context("config for password jwt aws", max_chars=5000)
    for name, needle in NEEDLES.items():
        assert needle.encode() not in disk, f"{name} reached disk"
        assert needle not in outputs, f"{name} reached output"
    assert "[redacted:" in outputs
