"""Sibling of C31: a Turkish dotted capital I (İ) lower-cases to ``i`` plus a combining dot, which cut the word in two
(``i`` + ``stanbul``): no query without the dot found the note. It reads as ``i`` now, and an index built before is
re-tokenized at its next open only when one of its texts holds an İ.

The dotless ``ı`` is its other half: ``ILIK``, the capital of ``ılık``, casefolds to ``ilik``, and ``ıstanbul`` typed on a
Turkish keyboard is ``istanbul``; neither found the other. A word with ``ı`` also gives its ``i`` spelling now (as an
accented word gives its folded one), and an index built before is re-tokenized only when a text holds an ``ı``."""

import memdir
from conftest import pg_fts_rows, reopened_as_older
from memdir.recall.tokenize import tokenize
from memdir.store.sqlite import opening


def test_a_dotted_capital_i_is_an_i(tmp_path):
    assert tokenize("İstanbul") == tokenize("istanbul") == tokenize("ISTANBUL") == ["istanbul"]
    assert "izmir" in tokenize("Deploy to the İZMİR region first")
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        n = m.remember("İstanbul ofisindeki VPN bağlantısı kopuyor")
        for q in ("istanbul", "Istanbul", "ISTANBUL", "İstanbul"):
            assert [h.id for h in m.recall(q)][:1] == [n.id], q


def test_an_older_index_is_rebuilt_only_when_a_text_holds_a_dotted_i(tmp_path, caplog):
    for name, text, rebuilt in (("tr", "İzmir ofisi taşındı", True), ("en", "the office moved to Leeds", False),
                                ("nfd", "VPN in I\u0307zmir drops every hour", True)):
        dropped = opening.DOTTED_I + opening.UNSPACED + opening.MARKS + opening.DOTLESS_I + opening.PICTOGRAPHS
        said = reopened_as_older(tmp_path / name, tmp_path / "g", text, dropped, caplog)
        assert said is rebuilt, name
        with memdir.open(tmp_path / name, home=tmp_path / "g") as m:
            assert m.recall("izmir" if rebuilt else "leeds")


def test_postgres_rows_written_before_are_retokenized_by_m014(project, tmp_path, monkeypatch, pg):
    """A team store whose rows hold ``İ`` tokenized the old way (``i`` + ``stanbul``): migration m014 re-tokenizes
    those rows (and only those), so the store matches one written now."""
    import psycopg

    from memdir.recall import tokenize as T

    def write(url, home):
        with memdir.open(project, home=home, config={"store": url, "remote.project": "p"}) as m:
            m.remember("İstanbul ofisindeki VPN bağlantısı kopuyor", summary="İstanbul VPN")
            m.import_events([{"key": f"e{i}", "role": "user", "session": "s", "ts": 1_700_000_000 + i, "text": t}
                             for i, t in enumerate(["Deploy to the İZMİR region first", "raise the pool timeout"])])

    def before(text):  # the normalisation of the memdir before: NFKC + casefold, the combining dot kept
        text = str(text)
        return text.lower() if text.isascii() else T.nfkc(text).casefold()

    old, fresh = pg.new_database(), pg.new_database()
    monkeypatch.setattr(T, "normalize", before)
    T._word_cache.clear()
    write(old, tmp_path / "g1")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:
        assert not m.recall("istanbul")
    with psycopg.connect(old, autocommit=True) as c:  # as before this memdir: schema v13
        c.execute("DELETE FROM memdir_schema WHERE version >= 14")
    monkeypatch.undo()
    T._word_cache.clear()
    (project / ".memory").rename(tmp_path / "old-memory")
    write(fresh, tmp_path / "g2")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:  # m014 runs
        assert m.recall("istanbul") and m.recall("izmir")[0].id == "e0"
    assert pg_fts_rows(old) == pg_fts_rows(fresh)


def test_a_dotless_i_also_reads_as_i(tmp_path):
    assert tokenize("ılık") == ["ılık", "ilik"] and tokenize("ILIK") == ["ilik"]
    (tmp_path / "p" / ".git").mkdir(parents=True)
    with memdir.open(tmp_path / "p", home=tmp_path / "g") as m:
        warm = m.remember("Sunucuyu ılık bir odada tutun, KIRMIZI kablo topraklama")
        plain = m.remember("ilik kemik iligi degil")
        city = m.remember("İstanbul ofisindeki VPN bağlantısı kopuyor")
        for q in ("ILIK", "Ilık", "kırmızı", "kirmizi", "KIRMIZI"):
            assert warm.id in [h.id for h in m.recall(q)], q
        assert [h.id for h in m.recall("ılık")][:2] == [warm.id, plain.id]  # the exact spelling first
        assert [h.id for h in m.recall("ıstanbul")][:1] == [city.id]


def test_an_older_index_is_rebuilt_only_when_a_text_holds_a_dotless_i(tmp_path, caplog):
    for name, text, query, rebuilt in (("tr", "ılık su ile yıkayın", "ILIK", True),
                                       ("en", "the office moved to Leeds", "leeds", False)):
        assert reopened_as_older(tmp_path / name, tmp_path / "g", text, opening.DOTLESS_I + opening.PICTOGRAPHS, caplog) is rebuilt, name
        with memdir.open(tmp_path / name, home=tmp_path / "g") as m:
            assert m.recall(query), name


def test_postgres_rows_written_before_are_retokenized_by_m017(project, tmp_path, monkeypatch, pg):
    """A team store whose rows hold ``ı`` tokenized without its ``i`` spelling: migration m017 re-tokenizes them."""
    import psycopg

    from memdir.recall import tokenize as T

    def write(url, home):
        with memdir.open(project, home=home, config={"store": url, "remote.project": "p"}) as m:
            m.remember("Sunucuyu ılık bir odada tutun", summary="ılık oda")
            m.import_events([{"key": f"e{i}", "role": "user", "session": "s", "ts": 1_700_000_000 + i, "text": t}
                             for i, t in enumerate(["KIRMIZI kablo: kırmızı olan topraklama", "raise the pool timeout"])])

    fold = T.fold
    old, fresh = pg.new_database(), pg.new_database()
    monkeypatch.setattr(T, "fold", lambda w: fold(w.replace("\u0131", "\x00")).replace("\x00", "\u0131"))  # as before
    T._word_cache.clear()
    write(old, tmp_path / "g1")
    written_before = pg_fts_rows(old)
    with psycopg.connect(old, autocommit=True) as c:  # as before this memdir: schema v16
        c.execute("DELETE FROM memdir_schema WHERE version >= 17")
    monkeypatch.undo()
    T._word_cache.clear()
    (project / ".memory").rename(tmp_path / "old-memory")
    write(fresh, tmp_path / "g2")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:  # m017 runs
        assert m.recall("ILIK") and m.recall("kirmizi")[0].id == "e0"
    assert pg_fts_rows(old) == pg_fts_rows(fresh) != written_before
