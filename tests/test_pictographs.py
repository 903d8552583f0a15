"""Siblings of C3 / C17 for what developers put in notes and search by: emoji. ``memdir recall 🚀`` found nothing
(and exited 1) although a note held 🚀: the tokenizer read every pictograph as a separator, so a note's emoji were
not indexed and a query of emoji alone had no token. A pictograph is a token of its own now (``u+1f680``), its
variation selector, skin tone and zero-width joiners left out (``⚠️`` and ``⚠`` are one token; a ZWJ family is its
members), and an index built before is re-tokenized at its next open only when a text holds one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import memdir
from conftest import pg_fts_rows, reopened_as_older
from memdir.recall.tokenize import tokenize

FILLER = ["We use PostgreSQL 15 for the main database", "The CI pipeline runs on GitHub Actions every push",
          "Alice prefers tabs over spaces in Makefiles", "部署流程需要先跑测试再合并", "The cache expires after one hour",
          "Release notes are written by hand", "The deploy checklist lives in the wiki"]
NOTES = {  # a note, and the queries that must find it first
    "rocket": ("Release shipped 🚀 after the canary looked good", ["🚀", "🚀 release"]),
    "check": ("Migration checklist ✅ verified by ops", ["✅"]),
    "warn": ("⚠️ Never run the seed script against prod", ["⚠️", "⚠"]),  # with and without its variation selector
    "family": ("Team photo caption 👨\u200d👩\u200d👧 for the offsite", ["👨\u200d👩\u200d👧"]),
    "thumb": ("Reviewer left 👍🏽 on the retry patch", ["👍", "👍🏽"]),  # a skin tone is a modifier, not the symbol
    "flag": ("The 🇯🇵 region needs its own bucket", ["🇯🇵"]),
    "glued": ("部署完成🎉然后通知大家", ["🎉"]),  # inside a Han run, no spaces
    "bug": ("fix(🐛):the parser drops trailing commas", ["🐛"]),
}


def test_a_pictograph_is_a_token_without_its_modifiers():
    assert tokenize("ship 🚀 now") == ["ship", "u+1f680", "now"]
    assert tokenize("⚠️") == tokenize("⚠") == ["u+26a0"]
    assert tokenize("👍🏽") == tokenize("👍")
    assert tokenize("👨\u200d👩\u200d👧") == ["u+1f468", "u+1f469", "u+1f467"]
    assert tokenize("a🚀b") == ["a", "u+1f680", "b"]
    # what is not a pictograph stays as it was: box drawing, arrows, math, plain words
    assert tokenize("├── src → x ≤ y") == ["src", "x", "y"]


@pytest.fixture(scope="module", params=["off", "on"])  # FTS5 scoring, and postings held in memory
def store(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("picto")
    (d / "p" / ".git").mkdir(parents=True)
    m = memdir.open(d / "p", home=d / "g", config={"recall.memory_index": request.param})
    for f in FILLER:
        m.remember(f)
    ids = {name: m.remember(text).id for name, (text, _) in NOTES.items()}
    yield m, ids
    m.close()


@pytest.mark.parametrize("name, query", [(n, q) for n, (_, qs) in NOTES.items() for q in qs])
def test_an_emoji_finds_its_note_first(store, name, query):
    m, ids = store
    hits = m.recall(query, k=5)
    assert hits and hits[0].id == ids[name], (query, [h.text for h in hits])


def test_the_cli_finds_the_note_of_an_emoji(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True)
    env = {**os.environ, "HOME": str(tmp_path / "h"), "MEMDIR_HOME": str(tmp_path / "g")}

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "memdir.cli", *args], cwd=tmp_path / "p", env=env,
                              capture_output=True, text=True, timeout=120)

    assert cli("remember", "Release shipped 🚀 after the canary looked good").returncode == 0
    assert cli("remember", "The cache expires after one hour").returncode == 0
    out = cli("recall", "--explain", "🚀")
    assert out.returncode == 0 and "Release shipped" in out.stdout and "cache" not in out.stdout, out
    assert "u+1f680" in out.stdout  # --explain names the term that matched


def test_an_older_index_is_rebuilt_only_when_a_text_holds_a_pictograph(tmp_path, caplog):
    from memdir.store.sqlite import opening

    for name, text, query, rebuilt in (("emoji", "Release shipped 🚀 after the canary", "🚀", True),
                                       ("en", "the office moved to Leeds → York", "leeds", False),
                                       ("zh", "部署前必须给数据库表加锁", "加锁", False)):
        assert reopened_as_older(tmp_path / name, tmp_path / "g", text, opening.PICTOGRAPHS, caplog) is rebuilt, name
        with memdir.open(tmp_path / name, home=tmp_path / "g") as m:
            assert m.recall(query), name


def test_postgres_rows_written_before_are_retokenized_by_m018(project, tmp_path, monkeypatch, pg):
    """A team store whose rows holding emoji were tokenized without them: migration m018 re-tokenizes them."""
    import psycopg

    from memdir.recall import tokenize as T

    def write(url, home):
        with memdir.open(project, home=home, config={"store": url, "remote.project": "p"}) as m:
            m.remember("Release shipped 🚀 after the canary", summary="🚀 release")
            m.import_events([{"key": f"e{i}", "role": "user", "session": "s", "ts": 1_700_000_000 + i, "text": t}
                             for i, t in enumerate(["⚠️ never seed prod", "raise the pool timeout"])])

    old, fresh = pg.new_database(), pg.new_database()
    monkeypatch.setattr(T, "_word_picto", T._WORD)  # the tokenizer before: a pictograph was a separator
    T._word_cache.clear()
    write(old, tmp_path / "g1")
    written_before = pg_fts_rows(old)
    with psycopg.connect(old, autocommit=True) as c:  # as before this memdir: schema v17
        c.execute("DELETE FROM memdir_schema WHERE version >= 18")
    monkeypatch.undo()
    T._word_cache.clear()
    (project / ".memory").rename(tmp_path / "old-memory")
    write(fresh, tmp_path / "g2")
    with memdir.open(project, home=tmp_path / "g1", config={"store": old, "remote.project": "p"}) as m:  # m018 runs
        assert m.recall("🚀") and m.recall("⚠")[0].id == "e0"
    assert pg_fts_rows(old) == pg_fts_rows(fresh) != written_before
