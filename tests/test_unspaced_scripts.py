"""C1 / C17 for the other scripts written without spaces between words: Thai, Lao, Myanmar and Khmer. A word inside a
run (``สำรอง``, "back up", in ``การปรับใช้ต้องสำรองฐานข้อมูลก่อน``) found nothing: the whole run was one token. Such
runs are cut into character bigrams (and unigrams for a one-character query) as Han runs are."""

from __future__ import annotations

import pytest

import memdir
from conftest import pg_fts_rows, reopened_as_older
from memdir.recall.tokenize import is_cjk_char, tokenize

NOTES = {
    "th": ("การปรับใช้ต้องสำรองฐานข้อมูลก่อนเสมอ", ["สำรอง", "ฐานข้อมูล", "การปรับใช้"]),
    "lo": ("ກ່ອນການນຳໃຊ້ຕ້ອງສຳຮອງຖານຂໍ້ມູນ", ["ຖານຂໍ້ມູນ", "ສຳຮອງ"]),
    "my": ("ဒေတာဘေ့စ်ကိုအရန်ကူးထားရမည်", ["အရန်ကူး", "ဒေတာဘေ့စ်"]),
    "km": ("ត្រូវបម្រុងទុកមូលដ្ឋានទិន្នន័យជាមុន", ["មូលដ្ឋានទិន្នន័យ", "បម្រុងទុក"]),
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("unspaced")
    (d / "p").mkdir()
    m = memdir.open(d / "p", home=d / "g")
    m.remember("the deploy needs a database backup first", category="facts")
    for text, _ in NOTES.values():
        m.remember(text, category="facts")
    yield m
    m.close()


@pytest.mark.parametrize("lang, query", [(lang, q) for lang, (_, qs) in NOTES.items() for q in qs])
def test_a_word_inside_a_run_finds_its_note(store, lang, query):
    hits = store.recall(query, k=3)
    assert hits and hits[0].text == NOTES[lang][0]


def test_the_runs_are_not_cjk_to_the_glossary_and_english_is_unchanged():
    assert not is_cjk_char("ส") and is_cjk_char("部")
    assert tokenize("deploy the database") == ["deploy", "the", "databas"]
    assert len(tokenize("สำรอง", unigrams=False)) > 1


def test_an_older_index_is_rebuilt_only_when_a_text_holds_such_a_script(tmp_path, caplog):
    """An upgrade re-tokenizes a store (seconds for a large one) only when the change touches one of its rows."""
    from memdir.store.sqlite import opening

    for name, text, query, rebuilt in (("th", "การปรับใช้ต้องสำรองฐานข้อมูลก่อนเสมอ", "สำรอง", True),
                                       ("en", "the office moved to Leeds", "leeds", False),
                                       ("zh", "部署前必须给数据库表加锁", "加锁", False)):
        dropped = opening.UNSPACED + opening.MARKS + opening.DOTLESS_I + opening.PICTOGRAPHS
        assert reopened_as_older(tmp_path / name, tmp_path / "g", text, dropped, caplog) is rebuilt, name
        with memdir.open(tmp_path / name, home=tmp_path / "g") as m:
            assert m.recall(query), name


def test_postgres_rows_written_before_are_retokenized_by_m015(project, tmp_path, monkeypatch, pg):
    """A team store whose Thai rows were tokenized the old way (a run as one token): migration m015 re-tokenizes
    those rows (and only those), so the store matches one written now."""
    import psycopg

    from memdir.recall import tokenize as T

    def write(url, home):
        with memdir.open(project, home=home, config={"store": url, "remote.project": "p"}) as m:
            m.remember("การปรับใช้ต้องสำรองฐานข้อมูลก่อนเสมอ", summary="สำรองฐานข้อมูล")
            m.import_events([{"key": f"e{i}", "role": "user", "session": "s", "ts": 1_700_000_000 + i, "text": t}
                             for i, t in enumerate(["ต้องสำรองข้อมูลทุกคืน before the deploy", "raise the pool timeout"])])

    old, fresh = pg.new_database(), pg.new_database()
    monkeypatch.setattr(T, "_UNSPACED", "")  # the tokenizer before: such a run was one word
    monkeypatch.setattr(T, "_cjk_runs", None)
    T._word_cache.clear()
    write(old, tmp_path / "g1")
    written_before = pg_fts_rows(old)
    with psycopg.connect(old, autocommit=True) as c:  # as before this memdir: schema v14
        c.execute("DELETE FROM memdir_schema WHERE version >= 15")
    monkeypatch.undo()
    T._cjk_runs = None
    T._word_cache.clear()
    (project / ".memory").rename(tmp_path / "old-memory")
    write(fresh, tmp_path / "g2")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:  # m015 runs
        assert m.recall("สำรอง") and m.recall("timeout")[0].id == "e1"
    assert pg_fts_rows(old) == pg_fts_rows(fresh) != written_before
