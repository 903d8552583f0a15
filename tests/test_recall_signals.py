"""The lexical signals added for issue 10: query term frequency, Chinese stop bigrams, the speaker/subject field,
dates resolved against the question's time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

import memdir
from memdir.engine import lexical
from memdir.recall import dates, rank
from memdir.recall.tokenize import is_stop, query_tokens, tokenize

NOW = datetime(2023, 3, 25, 18, 0, tzinfo=timezone.utc)  # a Saturday


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d")


def test_query_repeats_are_kept_and_possessive_counts_once():
    assert query_tokens("deploy deploy cache", repeats=True) == ["deploy", "deploy", "cach"]
    assert query_tokens("deploy deploy cache") == ["deploy", "cach"]
    assert tokenize("Caroline's").count("carolin") == 1


def test_chinese_stop_bigrams_dropped_from_queries_only():
    assert is_stop("我在") and is_stop("了一") and is_stop("我们") and not is_stop("部署") and not is_stop("锁")
    assert "我在" not in query_tokens("我在学校部署") and "部署" in query_tokens("我在学校部署")
    assert query_tokens("我们") == ["我们"]  # nothing else left: kept
    assert "我在" in tokenize("我在学校")  # documents keep every token


def test_query_names_and_subjects():
    assert rank.query_names("What did Caroline research on Monday in May?") == {"caroline"}
    assert rank.query_names("Bart: 我要表演魔术\nAssistant: 太棒了") == {"bart"}
    assert rank.query_names("你还记得Lisa的画吗") == {"lisa"}
    assert rank.query_names("When is Melanie's daughter's birthday?") == {"melanie"}
    assert rank.subject_of("Caroline: I went to a support group", event=True) == "caroline"
    assert rank.subject_of("Bart在圣诞节晚会上跳舞", event=False) == "bart"
    assert rank.subject_of("no speaker here", event=True) is None


def test_subject_boost_prefers_the_named_speaker(tmp_path):
    (tmp_path / "p").mkdir()
    with memdir.open(tmp_path / "p", home=tmp_path / "h", config={"recall.half_life_days": 0}) as m:
        m.import_events([
            {"key": "a", "role": "user", "session": "s", "text": "Melanie: I painted a lake sunrise last week", "ts": NOW},
            {"key": "b", "role": "user", "session": "s", "text": "Caroline: I painted a sunrise too", "ts": NOW},
        ])
        assert m.recall("What did Caroline paint?", k=1)[0].id == "b"
        assert m.recall("What did Melanie paint?", k=1)[0].id == "a"
        assert m.recall("What did Caroline paint?", k=1)[0].reasons["subject"] == 2.0


def test_date_windows_resolve_against_now():
    def days(text):
        return [(_day(a), _day(b)) for a, b in dates.windows(text, NOW)]

    a, b = days("What kitchen appliance did I buy 10 days ago?")[0]
    assert a <= "2023-03-15" <= b and b < "2023-03-20"
    assert days("I got it last Saturday") == [("2023-03-17", "2023-03-19")]  # the 18th, never today
    a, b = days("昨天我们部署了什么")[0]
    assert a <= "2023-03-24" <= b and b <= "2023-03-25"
    a, b = days("上周六")[0]
    assert a <= "2023-03-18" <= b
    assert days("on May 20, 2023")[0][0] <= "2023-05-20" <= days("on May 20, 2023")[0][1]
    assert dates.windows("nothing dated here", NOW) == [] and dates.windows("2023/02/30", NOW) == []


def test_date_boost_uses_the_clock(tmp_path):
    (tmp_path / "p").mkdir()
    clock = [NOW]
    with memdir.open(tmp_path / "p", home=tmp_path / "h", clock=lambda: clock[0],
                     config={"recall.half_life_days": 0, "recall.date_boost": 1.0}) as m:
        m.import_events([
            {"key": "old", "role": "user", "session": "s1", "text": "I will buy a new blender", "ts": NOW - timedelta(days=10)},
            {"key": "new", "role": "user", "session": "s2", "text": "I will buy a new blender, a red one", "ts": NOW - timedelta(days=1)},
        ])
        assert m.recall("what did I buy 10 days ago?", k=1)[0].id == "old"
        assert m.recall("what did I buy yesterday?", k=1)[0].id == "new"
        clock[0] = NOW + timedelta(days=9)  # the same words asked later mean another day
        assert m.recall("what did I buy 10 days ago?", k=1)[0].id == "new"


def test_fusion_weight_follows_the_query_script(tmp_path):
    from memdir.engine import hybrid as vectors
    from memdir.embed.fake import FakeEmbedder

    assert vectors.cjk_share("部署前先加锁 Bart") > 0.5 and vectors.cjk_share("how do we deploy?") == 0.0
    (tmp_path / "p").mkdir()
    cfg = {"embed.provider": "fake", "recall.channel": "hybrid", "recall.half_life_days": 0}
    with memdir.open(tmp_path / "p", home=tmp_path / "h", config=cfg) as m:
        m.remember("部署前必须给数据库表加锁")
        m.remember("deploys need a table lock first")
        prov = FakeEmbedder(dim=64)
        vectors.set_provider(m, prov)
        m.backfill()
        assert vectors.explain(m, "部署加锁")["script"] == "latin"  # an English-only model keeps the lexical weight
        prov.multilingual = True
        assert vectors.explain(m, "部署加锁")["script"] == "cjk"
        assert vectors.explain(m, "deploy lock")["script"] == "latin"


def test_session_bonus_is_off_by_default_and_lifts_on_topic_sessions(tmp_path):
    (tmp_path / "p").mkdir()
    evs = [
        {"key": "a1", "role": "user", "session": "A", "text": "the cache warms up at noon", "ts": NOW},
        {"key": "a2", "role": "user", "session": "A", "text": "cache eviction uses lru policy", "ts": NOW},
        {"key": "b1", "role": "user", "session": "B", "text": "lru policy for the parking lot", "ts": NOW},
    ]
    for bonus, first in ((0.0, None), (1.0, "a2")):
        with memdir.open(tmp_path / "p", home=tmp_path / "h", config={"recall.half_life_days": 0,
                                                                       "recall.session_bonus": bonus}) as m:
            m.import_events(evs)
            hits = m.recall("cache lru policy", k=3)
            if bonus:
                assert hits[0].id == first and hits[0].reasons["session"] > 1
            else:
                assert all("session" not in h.reasons for h in hits)


def test_long_queries_keep_more_terms_in_small_stores():
    from memdir.recall import bm25

    df = {f"t{i:03d}": i + 1 for i in range(100)}
    small = bm25.select_terms(df, 500)
    assert len(small) == bm25.MAX_TERMS_SMALL and small[0] == "t000"  # rarest first
    large = bm25.select_terms({t: 1 for t in df}, bm25.LARGE_STORE)
    assert len(large) == bm25.MAX_TERMS
    assert len(bm25.select_terms(df, 500, max_terms=5)) == 5


def test_han_unigrams_of_runs_without_function_characters():
    from memdir.recall.tokenize import han_unigrams

    assert han_unigrams("我们跑来跑去，赛跑") == ["跑", "来", "跑", "去", "赛", "跑"]  # 我/们 are function characters
    assert han_unigrams("锁") == [] and han_unigrams("deploy 锁 lock") == []  # a lone character is a query token already
    assert han_unigrams("カタカナ와한글") == []  # Han only: a kana or hangul letter alone means little
    assert han_unigrams(None) == []


def test_reduced_weight_terms_never_displace_full_weight_ones():
    from memdir.recall import bm25

    df = {f"b{i:03d}": i + 10 for i in range(80)} | {f"u{i:03d}": i + 1 for i in range(80)}  # unigrams are rarer here
    tw = {f"u{i:03d}": 0.3 for i in range(80)}
    got = bm25.select_terms(df, 500, term_weights=tw)
    assert got[:bm25.MAX_TERMS_SMALL] == [f"b{i:03d}" for i in range(bm25.MAX_TERMS_SMALL)]  # the query's own first
    assert got[bm25.MAX_TERMS_SMALL:] == [f"u{i:03d}" for i in range(bm25.MAX_TERMS_SMALL)]  # then their own cut
    big = bm25.select_terms({t: 300 for t in df}, bm25.LARGE_STORE * 10, term_weights=tw)
    assert big[:1] == ["b000"] and all(t.startswith("b") for t in big[:bm25.MAX_TERMS])
    assert len(big) * 300 <= bm25.POSTINGS_BUDGET  # both groups share the postings budget
    assert bm25.select_terms(df, 500) == sorted(df, key=lambda t: (df[t], t))[:bm25.MAX_TERMS_SMALL]  # no weights: as before


def test_a_chinese_query_finds_a_memory_sharing_single_characters(m):
    run = m.remember("Bart在学校的运动会上赛跑得了第一名", category="facts")
    wait = m.remember("Lisa在学校门口等妈妈", category="facts")
    q = "下课大家都喜欢跑来跑去"  # no bigram in common with either note; 跑 with the first
    assert [h.id for h in m.recall(q)] == [run.id]
    assert [h.id for h in m.recall("学校赛跑")][:2] == [run.id, wait.id]  # bigrams first: 学校 + 赛跑 beat 学校


def test_han_unigrams_off_at_weight_0_and_beside_a_vector_channel(tmp_path):
    q = "下课大家都喜欢跑来跑去"
    for name, cfg in (("a", {}), ("b", {"recall.cjk_unigram_weight": 0})):
        (tmp_path / name).mkdir()
        with memdir.open(tmp_path / name, home=tmp_path / f"h{name}", config=cfg) as m:
            m.remember("Bart在学校的运动会上赛跑得了第一名", category="facts")
            assert len(m.recall(q)) == (0 if cfg else 1)
            # what the hybrid channel asks for when it fuses a vector channel: bigrams only
            assert lexical.lexical(m.stores, query_tokens(q, repeats=True), k=5, scope=None, kinds=None, query=q,
                                   unigrams=False) == []


def test_added_terms_are_held_to_a_stricter_cut_in_large_stores():
    """A Han unigram or a glossary word of the other language (weight < 1) is scored in a large store only when it
    is rare (≤ 2% of the documents) and within its own postings budget; a query word of the same frequency stays."""
    from memdir.recall import bm25

    N = 10_000
    df = {"deploy": 50, "部署": 50, "布": 600, "署": 150, "部": 120, "发布": 900, "rollback": 900}
    weights = {"部署": 0.5, "布": 0.3, "署": 0.3, "部": 0.3, "发布": 0.5}
    got = bm25.select_terms(df, N, term_weights=weights)
    assert got[:2] == ["deploy", "rollback"]  # the query's own words first, the common one kept (≤ 25%)
    assert set(got[2:]) == {"部署", "部", "署"}  # added: 900 and 600 documents are above 2% of 10,000
    assert bm25.select_terms(df, 1_000, term_weights=weights)[:2] == ["deploy", "rollback"]
    assert set(bm25.select_terms(df, 1_000, term_weights=weights)) == set(df)  # small stores keep every term
    many = {f"u{i}": 150 for i in range(40)}
    picked = bm25.select_terms({"deploy": 50, **many}, N, term_weights={t: 0.3 for t in many})
    assert len(picked) == 1 + bm25.ADDED_POSTINGS // 150  # the added terms' own postings budget


@pytest.mark.parametrize("cap,budget,added,fraction", [(2000, 10_000, 2000, 0.02), (6, 40, 12, 0.1), (3, 9, 5, 0.3),
                                                       (50, 60, 2, 0.05)])
def test_added_terms_counted_only_as_far_as_they_could_be_taken(tmp_path, monkeypatch, cap, budget, added, fraction):
    """bm25.query_doc_freqs counts an added term's documents only up to the bound select_terms would hold it to: the
    terms chosen, and their counts, are those of the exact counts, for any budget (large-store rules on small data)."""
    import random

    from memdir.recall import bm25

    for name, v in (("LARGE_STORE", 10), ("PER_TERM_CAP", cap), ("POSTINGS_BUDGET", budget), ("ADDED_POSTINGS", added),
                    ("ADDED_COMMON_FRACTION", fraction)):
        monkeypatch.setattr(bm25, name, v)
    rng = random.Random(cap)
    words = [f"w{i}" for i in range(60)] + ["部署", "署", "部", "发布"]
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        # word i in about 1 of i + 1 events: counts from a handful to nearly all of the store
        m.import_events([{"key": f"e{n}", "role": "user", "session": "s", "ts": 1_790_000_000 + n,
                          "text": " ".join(w for i, w in enumerate(words) if rng.random() < 1 / (1 + i % 20))
                                  or "empty"} for n in range(160)])
        db = m.roots["project"].store.db
        N = bm25.total_docs(db)
        assert N >= bm25.LARGE_STORE
        for _ in range(300):
            toks = list(dict.fromkeys(rng.sample(words + ["nowhere"], rng.randint(1, 14))))
            tw = {t: rng.choice((0.3, 0.5, 0.99)) for t in toks if rng.random() < 0.6} or None
            _same_choice(bm25, db, N, toks, tw)
            w = (4.0, 3.0, 1.0, 0.3)
            rows = bm25.score(db, toks, weights=w, limit=50, with_terms=True, term_weights=tw)
            with monkeypatch.context() as mp:  # the same rows and scores as with every term counted exactly
                mp.setattr(bm25, "query_doc_freqs", lambda db, t, N, term_weights=None: bm25.doc_freqs(db, t))
                assert bm25.score(db, toks, weights=w, limit=50, with_terms=True, term_weights=tw) == rows
        for t, d in bm25.doc_freqs(db, words).items():  # an added term exactly at the bound is still taken
            monkeypatch.setattr(bm25, "ADDED_COMMON_FRACTION", d / N)
            assert t in _same_choice(bm25, db, N, ["w0", t], {t: 0.3}) or d > cap or bm25.doc_freqs(db, ["w0"])["w0"] >= budget


def _same_choice(bm25, db, N, toks, tw):
    exact = bm25.doc_freqs(db, toks)
    got = bm25.query_doc_freqs(db, toks, N, term_weights=tw)
    chosen = bm25.select_terms(exact, N, term_weights=tw)
    assert bm25.select_terms(got, N, term_weights=tw) == chosen, (toks, tw)
    assert {t: got[t] for t in chosen} == {t: exact[t] for t in chosen}
    return chosen


def test_chinese_closed_class_words_are_stop_words_and_half_function_bigrams_are_marked():
    from memdir.recall.tokenize import ZH_STOP_WORDS, ZH_FUNCTION_CHARS, is_function_bigram

    assert {"什么", "自己", "如果", "怎么"} <= ZH_STOP_WORDS and not ZH_STOP_WORDS & {"部署", "进步", "比赛"}
    assert all(len(w) == 2 and not all(c in ZH_FUNCTION_CHARS for c in w) for w in ZH_STOP_WORDS)  # not stop bigrams
    from memdir.recall.glossary import query_terms

    def terms(q, stop_words=True):
        return query_terms(q, query_tokens(q, repeats=True), bridge_weight=0.0, unigram_weight=0.0,
                           stop_words=stop_words)[0]

    assert terms("为什么部署失败") == ["为什", "么部", "部署", "署失", "失败"]  # 什么 dropped
    assert "什么" in terms("为什么部署失败", stop_words=False)  # beside a vector channel: kept
    assert terms("什么") == ["什么"]  # nothing else left: kept
    assert "什么" in tokenize("什么时候部署")  # documents keep every token
    assert is_function_bigram("我要") and is_function_bigram("比赛") and is_function_bigram("的魔")
    assert not is_function_bigram("部署") and not is_function_bigram("我们")  # none / both function characters
    assert not is_function_bigram("我a") and not is_function_bigram("我") and not is_function_bigram("我要去")


def test_a_half_function_bigram_weighs_recall_cjk_function_bigram_weight(tmp_path):
    from memdir.recall import glossary

    toks, w = glossary.query_terms("我要表演", query_tokens("我要表演", repeats=True), bridge_weight=0.5,
                                   unigram_weight=0.0, function_weight=0.5, stop_words=True)
    assert toks == ["我要", "要表", "表演"] and w == {"我要": 0.5}
    assert glossary.query_terms("deploy it", ["deploy"], bridge_weight=0.0, unigram_weight=0.0,
                                function_weight=0.5) == (["deploy"], {})
    scores = {}
    for name, weight in (("full", 1.0), ("half", 0.5)):
        (tmp_path / name).mkdir()
        with memdir.open(tmp_path / name, home=tmp_path / f"h{name}",
                         config={"recall.cjk_function_bigram_weight": weight, "recall.cjk_unigram_weight": 0}) as m:
            assert m.config.get("recall.cjk_function_bigram_weight") == weight
            only = m.remember("Bart说我要回家", category="facts")  # shares only the function bigram 我要
            show = m.remember("Lisa去看表演", category="facts")  # shares only 表演
            hits = {h.id: h.score for h in m.recall("我要表演")}
            scores[name] = hits[only.id] / hits[show.id]
    assert abs(scores["half"] / scores["full"] - 0.5) < 1e-6
    with memdir.open(tmp_path / "half", home=tmp_path / "hhalf") as m:
        assert m.config.get("recall.cjk_function_bigram_weight") == 0.5  # the default
        q = "我要表演"  # beside a vector channel the bigram keeps its full weight (the model does that matching)
        got = {h.id: h.score for h in lexical.lexical(m.stores, query_tokens(q, repeats=True), k=5, scope=None,
                                                      kinds=None, query=q, unigrams=False)}
        only_id = next(h.id for h in m.recall("回家"))
        show_id = next(h.id for h in m.recall("看表演"))
        assert got[only_id] / got[show_id] > 0.8
