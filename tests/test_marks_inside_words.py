"""Siblings of C1/C31 in other scripts and of hidden characters: a word holding a combining mark that does not compose
(Arabic harakat, Hebrew points, a Devanagari vowel sign, a Russian stress accent) or an invisible format character
(zero-width space, zero-width non-joiner, word joiner, soft hyphen, a bidi mark) was cut at it into pieces, often
single letters: ``مرحبا`` typed without its vowel marks, or ``kubernetes`` typed plainly, did not find the note. Such a
character between two letters is left out now, and an index built before is re-tokenized at its next open only when
one of its texts holds one."""

from __future__ import annotations

import pytest

import memdir
from conftest import pg_fts_rows, reopened_as_older
from memdir.recall.tokenize import marks_inside_words, tokenize
from memdir.store.sqlite import opening

NOTES = {
    "ar": ("يجب نسخ قاعدةِ البياناتِ احتياطيًا قَبْلَ النَّشْرِ إلى الخادمِ", ["النشر", "قاعدة البيانات", "احتياطيا"]),
    "he": ("הַשְּׁרָת נָפַל בַּלַּיְלָה בִּגְלַל הַדִּיסְק", ["השרת", "הדיסק", "הַשְּׁרָת"]),
    "ru": ("Сервер падает при большой нагру́зке на ба́зу", ["нагрузке", "базу"]),
    "hi": ("डेटाबेस का बैकअप पहले लेना ज़रूरी है", ["बैकअप", "डेटाबेस"]),
    "zw": ("the kuber\u200bnetes cluster runs soft\u00adware on the net\u2060work of the lab", ["kubernetes", "software",
                                                                                          "network"]),
    "fa": ("برای استقرار می\u200cخواهم اول پشتیبان بگیرم", ["میخواهم", "می\u200cخواهم", "پشتیبان"]),
    "bidi": ("the \u200fbilling\u200e se\u200frvice restarts nightly", ["service", "billing"]),
    "cjk": ("部\u200b署前必须给数据库表加锁", ["部署", "数据库"]),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("marks")
    (d / "p" / ".git").mkdir(parents=True)
    m = memdir.open(d / "p", home=d / "g")
    m.remember("the deploy needs a database backup first; the server restarts", category="facts")
    for text, _ in NOTES.values():
        m.remember(text, category="facts")
    yield m
    m.close()


@pytest.mark.parametrize("lang, query", [(lang, q) for lang, (_, qs) in NOTES.items() for q in qs])
def test_a_word_with_marks_or_hidden_characters_finds_its_note(store, lang, query):
    hits = store.recall(query, k=3)
    assert hits and hits[0].text == NOTES[lang][0], [h.text for h in hits]


def test_the_word_is_one_token_with_or_without_the_marks():
    assert tokenize("مَرْحَبًا") == tokenize("مرحبا") == ["مرحبا"]
    assert tokenize("kuber\u200bnetes") == tokenize("kubernetes") == ["kubernet"]
    assert tokenize("部\u200b署", unigrams=False) == ["部署"]
    # a mark after a word, punctuation between words and emoji joiners change nothing
    assert tokenize("deploy, 部署，因为、x") == tokenize("deploy,\u200b 部署，因为、x")
    assert tokenize("family 👨\u200d👩\u200d👧 ok") == ["famili", "u+1f468", "u+1f469", "u+1f467", "ok"]  # joiners out
    assert tokenize("ต้องสำรองฐานข้อมูล") == tokenize("ตองสารองฐานขอมล")


def test_which_texts_an_older_index_must_re_tokenize():
    assert marks_inside_words("مَرْحَبًا") and marks_inside_words("kuber\u200bnetes") and marks_inside_words("x\u0304y")
    for text in ("deploy the database", "部署前必须给数据库表加锁", "café", "İstanbul", "emoji 👨\u200d👩\u200d👧",
                 "\u200bleading and trailing\u200b", "部署，因为"):
        assert not marks_inside_words(text), text


def test_an_older_index_is_rebuilt_only_when_a_text_holds_a_mark_inside_a_word(tmp_path, caplog):
    for name, text, query, rebuilt in (("ar", "قَبْلَ النَّشْرِ", "النشر", True),
                                       ("zw", "the kuber\u200bnetes cluster", "kubernetes", True),
                                       ("en", "the office moved to Leeds", "leeds", False),
                                       ("zh", "部署前必须给数据库表加锁", "加锁", False)):
        assert reopened_as_older(tmp_path / name, tmp_path / "g", text, opening.MARKS + opening.DOTLESS_I + opening.PICTOGRAPHS, caplog) is rebuilt, name
        with memdir.open(tmp_path / name, home=tmp_path / "g") as m:
            assert m.recall(query), name


def test_postgres_rows_written_before_are_retokenized_by_m016(project, tmp_path, monkeypatch, pg):
    """A team store whose rows hold marks inside words, tokenized the old way (cut at each mark): migration m016
    re-tokenizes them, so the store matches one written now."""
    import psycopg

    from memdir.recall import tokenize as T

    def write(url, home):
        with memdir.open(project, home=home, config={"store": url, "remote.project": "p"}) as m:
            m.remember("قَبْلَ النَّشْرِ إلى الخادمِ", summary="النَّشْر")
            m.import_events([{"key": f"e{i}", "role": "user", "session": "s", "ts": 1_700_000_000 + i, "text": t}
                             for i, t in enumerate(["restart the kuber\u200bnetes cluster", "raise the pool timeout"])])

    old, fresh = pg.new_database(), pg.new_database()
    monkeypatch.setattr(T, "mend_words", lambda text: text)  # the tokenizer before: a mark cut the word
    T._word_cache.clear()
    write(old, tmp_path / "g1")
    written_before = pg_fts_rows(old)
    with psycopg.connect(old, autocommit=True) as c:  # as before this memdir: schema v15
        c.execute("DELETE FROM memdir_schema WHERE version >= 16")
    monkeypatch.undo()
    T._word_cache.clear()
    (project / ".memory").rename(tmp_path / "old-memory")
    write(fresh, tmp_path / "g2")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:  # m016 runs
        assert m.recall("النشر") and m.recall("kubernetes")[0].id == "e0"
    assert pg_fts_rows(old) == pg_fts_rows(fresh) != written_before
