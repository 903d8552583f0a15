"""The block-QA question set (bench/data/block_qa/*.jsonl) obeys its rules: schema, every answer string occurs in its
repository's raw transcripts and never in its question, the halves are split by repository, and (once the set is
complete, >= 200 questions) the size, language and kind balance the benchmark reports on."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import shared_path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import block_qa  # noqa: E402
from bench.session_qa import norm  # noqa: E402

FIELDS = {"id", "repo", "lang", "kind", "q", "a", "session"}
QUESTIONS = block_qa.load_questions()


@pytest.fixture(scope="module")
def raw():
    data = shared_path("data")
    return {repo: norm(block_qa.raw_text(data, repo)) for repo in block_qa.REPOS}


def test_schema():
    assert QUESTIONS, "no question files under bench/data/block_qa"
    ids = Counter(q["id"] for q in QUESTIONS)
    assert not [i for i, n in ids.items() if n > 1], "duplicate ids"
    keys = {block_qa.file_key(r) for r in block_qa.REPOS}
    for f in block_qa.QUESTIONS_DIR.glob("*.jsonl"):
        assert f.stem in keys, f"{f.name} names no repository of REPOS"
    for q in QUESTIONS:
        assert set(q) == FIELDS, (q["id"], set(q) ^ FIELDS)
        assert q["repo"] in block_qa.REPOS, q["id"]
        assert q["lang"] in block_qa.LANGS and q["kind"] in block_qa.KINDS, q["id"]
        assert q["a"] and all(isinstance(a, str) and len(a.strip()) >= 2 for a in q["a"]), q["id"]
        stems = {block_qa.session_stem(rel) for _, rel in block_qa.REPOS[q["repo"]]}
        assert q["session"] in stems, (q["id"], q["session"])
        if q["lang"] == "zh":
            assert any("\u4e00" <= ch <= "\u9fff" for ch in q["q"]), q["id"]


def test_each_file_holds_its_own_repo():
    for f in block_qa.QUESTIONS_DIR.glob("*.jsonl"):
        qs = block_qa.load_questions(block_qa.QUESTIONS_DIR, None)
        mine = [q for q in qs if block_qa.file_key(q["repo"]) == f.stem]
        lines = [ln for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip()]
        assert len(mine) == len(lines), f"{f.name} holds questions of another repository"


def test_answer_never_in_question():
    bad = [(q["id"], a) for q in QUESTIONS for a in q["a"] if norm(a) in norm(q["q"])]
    assert not bad, bad


def test_answer_occurs_in_raw_transcript(raw):
    bad = [(q["id"], a) for q in QUESTIONS for a in q["a"] if norm(a) not in raw[q["repo"]]]
    assert not bad, bad


def test_halves_split_by_repository():
    assert not set(block_qa.TUNING) & set(block_qa.VALIDATION)
    assert set(block_qa.TUNING) | set(block_qa.VALIDATION) == set(block_qa.REPOS)
    assert {block_qa.half_of(q["repo"]) for q in QUESTIONS} <= {"tuning", "validation"}


def test_balance_once_complete():
    if len(QUESTIONS) < 200:
        pytest.skip(f"the set holds {len(QUESTIONS)} questions: the balance rules apply from 200")
    repos = Counter(q["repo"] for q in QUESTIONS)
    assert len(repos) >= 8, repos
    langs = Counter(q["lang"] for q in QUESTIONS)
    assert langs["zh"] / len(QUESTIONS) >= 0.30, langs
    kinds = Counter(q["kind"] for q in QUESTIONS)
    assert all(kinds[k] / len(QUESTIONS) >= 0.12 for k in block_qa.KINDS), kinds


def test_summary_keeps_the_halves_apart():
    rows = [{"half": "tuning", "kind": "fix", "lang": "en", "in_block": True, "reachable": True, "stored": True,
             "recall8": True, "recall4": True, "chars": 100, "markup": 10},
            {"half": "validation", "kind": "fail", "lang": "zh", "in_block": False, "reachable": True, "stored": True,
             "recall8": False, "recall4": False, "chars": 300, "markup": 15}]
    s = block_qa.summarise(rows)
    assert s["tuning"]["all"]["n"] == 1 and s["tuning"]["all"]["in_block"] == 1.0
    assert s["validation"]["all"]["in_block"] == 0.0 and s["validation"]["zh"]["reachable"] == 1.0
    assert s["validation"]["fix"]["n"] == 0 and s["validation"]["fix"]["in_block"] is None
    assert s["both"]["all"]["markup"] == round(25 / 400, 3)
    assert s["tuning"]["all"]["recall4"] == 1.0 and s["validation"]["all"]["recall4"] == 0.0
    assert "| fail |" in block_qa.table(s, "t", None)
