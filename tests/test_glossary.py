"""The Chinese-English lexical bridge (memdir.recall.glossary): a Chinese question finds an English memory and an English
question a Chinese one, through a hand-written glossary of software-development words, at a reduced weight."""

from __future__ import annotations

import math
import sqlite3

import memdir
from hypothesis import given, settings
from hypothesis import strategies as st

from memdir.recall import glossary
from memdir.recall.bm25 import score
from memdir.recall.tokenize import normalize, query_tokens, tokenize


def test_every_glossary_line_parses_and_matches_the_tokenizer():
    lines = glossary.GLOSSARY.strip().splitlines()
    assert len(lines) >= 300
    for line in lines:
        en, sep, zh = line.partition("=")
        assert sep and en.strip() and zh.strip(), line
        for w in (x.strip() for x in en.split(",")):
            assert w and w.isascii() and w == w.lower(), line
            assert glossary._en_tokens(w) == tuple(tokenize(w, unigrams=False)), line  # the query's own tokens
        for w in (x.strip() for x in zh.split(",")):
            assert len(w) >= 2 and normalize(w) == w, line  # one character is too ambiguous
            assert all(glossary.is_cjk_char(c) for c in w), line
            assert glossary._bigrams(w) == tokenize(w, unigrams=False), line


def test_chinese_words_bridge_to_english_tokens_and_back():
    got = glossary.bridge("我们怎么部署的？", query_tokens("我们怎么部署的？"), 0.5)
    assert got["deploy"] == 0.5
    q = "how do we deploy the database?"
    got = glossary.bridge(q, query_tokens(q), 0.5)
    assert got["部署"] == 0.5 and got["数据"] == 0.5 and got["据库"] == 0.5
    assert glossary.bridge(q, query_tokens(q), 0.0) == {}  # 0 turns it off
    assert glossary.bridge("", [], 0.5) == {}


def test_general_words_of_a_page_a_tool_and_a_table_bridge():
    q = "引用框顶部的标签靠哪个开关，汇总条目的写法合法吗？"
    got = glossary.bridge(q, query_tokens(q), 0.5)
    for tok in ("blockquot", "switch", "toggl", "summari", "aggreg", "entri", "syntax", "valid"):
        assert got.get(tok) == 0.5, tok


def test_longest_chinese_word_wins_and_query_tokens_are_not_repeated():
    assert glossary.zh_words("数据库迁移") == ["数据库", "迁移"]  # database, not data + 库
    got = glossary.bridge("数据库", query_tokens("数据库"), 0.5)
    assert "databas" in got and "data" not in got
    q = "部署 deploy"  # already in both languages: nothing to add for either word
    got = glossary.bridge(q, query_tokens(q), 0.5)
    assert "deploy" not in got and "部署" not in got


def test_an_english_phrase_needs_all_its_words():
    q = "open a pull request"
    assert "合并" in glossary.bridge(q, query_tokens(q), 0.5)  # pull request → 合并请求
    q = "pull the changes"
    assert "合并" not in glossary.bridge(q, query_tokens(q), 0.5)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_bridge_never_raises_and_gives_the_weight(text):
    got = glossary.bridge(text, query_tokens(text), 0.4)
    assert all(w == 0.4 for w in got.values())
    assert not set(got) & set(query_tokens(text))


def test_term_weights_scale_a_terms_bm25_contribution():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(tags, title, body, ctx)")
    db.execute("CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, row)")
    for i, body in enumerate(["deploy the service", "test the service", "write docs", "review code"], 1):
        db.execute("INSERT INTO fts(rowid, tags, title, body, ctx) VALUES (?, '', '', ?, '')", (i, body))
    w = (4.0, 3.0, 1.0, 0.3)
    full = dict(score(db, ["deploy"], weights=w, limit=5))
    half = dict(score(db, ["deploy"], weights=w, limit=5, term_weights={"deploy": 0.5}))
    assert math.isclose(half[1], full[1] * 0.5, rel_tol=1e-9)


def test_a_chinese_question_finds_the_english_memory_and_the_own_language_note_ranks_first(m):
    m.remember("We deploy with ./scripts/release.sh after the smoke tests pass", category="decisions")
    m.remember("The cache is warmed at start-up", category="facts")
    hits = m.recall("我们是怎么部署的？")
    assert hits and "release.sh" in hits[0].text
    assert "deploy" in hits[0].reasons["terms"]
    # a memory in the question's own language outranks one reached through the glossary
    m.remember("部署流程：先跑冒烟测试，再执行发布脚本", category="decisions")
    hits = m.recall("我们是怎么部署的？")
    assert hits[0].text.startswith("部署流程") and "release.sh" in hits[1].text


def test_readme_example_how_do_we_deploy_finds_the_chinese_note(m):
    m.remember("部署前必须先跑数据库迁移", category="decisions")
    m.remember("The weekly report goes out on Fridays", category="facts")
    block = m.context("how do we deploy?")
    assert "部署前必须先跑数据库迁移" in block



def test_without_the_bridge_the_languages_share_no_word(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"recall.bridge_weight": 0}) as m:
        m.remember("部署前必须先跑数据库迁移", category="decisions")
        assert m.recall("how do we deploy?") == []


def test_general_words_beyond_building_and_deploying_bridge_too(m):
    """Git's staging area, a page's look (colours, borders), a data script's arithmetic, a terminal's interrupt: a
    Chinese question about an English session of any of these finds it (before, these words had no entry)."""
    m.remember("Unstaged the Docs folder so the staging area only holds the sync log", category="facts")
    m.remember("Blockquotes get a light green background and a rounded border", category="decisions")
    m.remember("The script prints the correlation between population density and rent", category="facts")
    m.remember("Pressing Ctrl-C twice interrupts the running import", category="pitfalls")
    for question, want in (("暂存区里最后留下了什么？", "staging area"), ("引用块的背景是什么颜色？", "green background"),
                           ("脚本打印的相关系数是什么的？", "correlation"), ("怎么中断正在运行的导入？", "interrupts")):
        hits = m.recall(question)
        assert hits and want in hits[0].text, question
    m.remember("论文里的推理延迟是 99ms，我们测到 943ms", category="facts")
    hits = m.recall("why is our inference slower than the paper?")
    assert hits and "943ms" in hits[0].text
