"""Sibling of C31: a Turkish dotted capital I (İ) lower-cases to ``i`` plus a combining dot, which cut the word in two
(``i`` + ``stanbul``): no query without the dot found the note. It reads as ``i`` now, and an index built before is
re-tokenized at its next open only when one of its texts holds an İ."""

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
        dropped = opening.DOTTED_I + opening.UNSPACED + opening.MARKS
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
