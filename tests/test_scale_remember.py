"""At the size a year of use reaches (thousands of notes), one more `remember` must not redo per-character Python work
over every stored note: the near-duplicate check (same words, other case, spacing or punctuation) keyed each live
note's whole text one character at a time through ``unicodedata.category``, so a remember into 1,000 notes spent
0.4 s there and one into 5,000 over 2 s. The check still finds the same near-duplicates."""

from __future__ import annotations

import os
import unicodedata

import memdir
from memdir.notes import markdown


def _counting(monkeypatch) -> list[int]:
    calls = [0]
    real = unicodedata.category

    def category(ch):
        calls[0] += 1
        return real(ch)

    monkeypatch.setattr(unicodedata, "category", category)
    return calls


def test_remember_does_not_classify_every_character_of_every_note(tmp_path, project, monkeypatch):
    body = "The deploy script uses pnpm, not npm: lockfiles differ (see #42). 部署脚本用 pnpm，因为 lockfile 不兼容。 " * 20
    with memdir.open(project, home=tmp_path / "g") as m:
        for i in range(40):
            m.remember(f"{i} {body} tail{i}", category="decisions")
        calls = _counting(monkeypatch)
        note = m.remember("one more note about caching: the build cache is keyed by the lockfile hash", category="facts")
        assert not note.existed
        stored = 40 * len(body)
        assert calls[0] < stored // 10, calls[0]  # a few per distinct character, not one per character stored
        # the same near-duplicates are still found: case, spacing and punctuation
        again = m.remember("ONE more note about caching  the build-cache is keyed by the lockfile hash!!",
                           category="facts")
        assert again.existed and again.id == note.id
        assert not m.remember("one more note about caching: the build cache is keyed by the lockfile hash2").existed


def test_near_key_is_unchanged_on_mixed_text():
    samples = ["C++ vs C", "Hello,   World!", "部署脚本：用 pnpm。", "a\u200bb\u00adc", "‘quoted’ — dash… «x»", "!!!", "  ",
               "Ｆｕｌｌ－ｗｉｄｔｈ　ＡＢＣ", "straße STRASSE", "tab\tnew\nline\u3000x", "$5 + 3 = 8 ^ ~ |"]
    for s in samples:
        t = markdown.INVISIBLE.sub("", unicodedata.normalize("NFKC", s)).casefold()
        slow = "".join(ch for ch in t if not ch.isspace() and not unicodedata.category(ch).startswith("P"))
        assert markdown.near_key(s) == (slow or markdown.normalize_text(t)), s


def _unpacked(monkeypatch) -> list[int]:
    """Count the texts the index decompresses (each row's compressed tail, through ``memdir_unz``)."""
    from memdir.store.sqlite import codec

    calls = [0]
    real = codec.unz

    def unz(db, blob):
        calls[0] += 1
        return real(db, blob)

    monkeypatch.setattr(codec, "unz", unz)
    return calls


def test_recent_unpacks_only_the_rows_it_returns(tmp_path, project, monkeypatch):
    """`memdir recent` on 200,000 events took 3.5 s: the sort for its newest 20 carried every row's whole text, so
    SQLite decompressed them all first."""
    long = " ".join(f"word{j} lockfile deploy" for j in range(120))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": f"k{i}", "role": "user", "session": f"s{i // 50}", "ts": 1_700_000_000 + i,
                          "text": f"event {i} {long}"} for i in range(400)])
        m.remember("a note about the cache " + long, category="facts")
        want = [(h.id, h.text) for h in m.recent(limit=5)]
        calls = _unpacked(monkeypatch)
        got = [(h.id, h.text) for h in m.recent(limit=5)]
        assert got == want
        assert calls[0] <= 10, calls[0]  # the texts of the rows shown, not of the 400 sorted
        calls[0] = 0
        assert [h.id for h in m.recent(kinds=["event"], limit=3)] == ["k399", "k398", "k397"]
        assert calls[0] <= 6, calls[0]


def test_export_writes_as_it_reads_not_all_at_the_end(tmp_path, project, monkeypatch):
    """`memdir export` of 200,000 events held every line in memory before writing (724 MB resident): lines go to
    the file's temporary part as the events are read, and the file appears whole, as before, at the end."""
    import glob
    import json

    long = " ".join(f"word{j} lockfile deploy" for j in range(40))
    out = tmp_path / "out"
    out.mkdir()
    with memdir.open(project, home=tmp_path / "g") as m:
        m.import_events([{"key": f"k{i}", "role": "user", "session": "s", "ts": 1_700_000_000 + i,
                          "text": f"event {i} {long}"} for i in range(400)])
        m.remember("a note about the cache", category="facts")
        store = m.roots["project"].store
        real = type(store).events
        seen: list[int] = []

        def events(self):
            for i, r in enumerate(real(self)):
                if i == 399:  # the last event: what came before is on disk already
                    seen.append(sum(os.path.getsize(p) for p in glob.glob(str(out / ".tmp-*.part"))))
                yield r

        monkeypatch.setattr(type(store), "events", events)
        counts = m.export(out / "x.jsonl")
    assert counts["events"] == 400 and counts["notes"] == 1
    assert seen and seen[0] > 100_000, seen
    lines = (out / "x.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["note"] + ["event"] * 400
    assert glob.glob(str(out / ".tmp-*")) == []
    assert os.stat(out / "x.jsonl").st_mode & 0o077 == 0


def test_an_english_note_is_keyed_without_unicode_normalization(tmp_path, project, monkeypatch):
    """The near-duplicate pass still normalized (NFKC) every live note's text at each remember: 3,400 notes cost
    0.3 s of it. A text of ASCII alone is its own NFKC form; its key is read without that step, and is the same."""
    with memdir.open(project, home=tmp_path / "g") as m:
        for i in range(40):
            m.remember(f"note {i}: the Deploy script uses pnpm, not npm -- lockfiles differ (see #42 & PR-{i}).",
                       category="decisions")
        calls = [0]
        real = unicodedata.normalize

        def normalize(form, s):
            calls[0] += 1
            return real(form, s)

        monkeypatch.setattr(unicodedata, "normalize", normalize)
        assert not m.remember("An English note about the build cache, keyed by the lockfile hash.").existed
        assert calls[0] < 10, calls[0]
        again = m.remember("NOTE 7 -- the deploy script uses PNPM; not npm: lockfiles differ (see 42 & PR 7)",
                           category="facts")
        assert again.existed and again.id.startswith("decisions/note-7")
    for s in ["Hello,   World!", "C++ vs C", "tab\tnew\nline\x1fx", "!!!", "a_b-c.d", "$5 + 3 = 8 ^ ~ | `x`", "   "]:
        t = s.casefold()
        slow = "".join(ch for ch in t if not ch.isspace() and not unicodedata.category(ch).startswith("P"))
        assert markdown.near_key(s) == (slow or markdown.normalize_text(t)), s


def test_a_long_lived_process_parses_an_unchanged_note_file_once(tmp_path, project, monkeypatch):
    """The viewer's notes pages and Health run `inspect`, which parsed and redacted all 5,000 note files on every
    request (2.4-2.9 s a page under `memdir serve`). A process reads a file again only when it changed (its
    modification time or size, as the index's own sync tells a hand edit); the notes and problems are the same."""
    from memdir.notes import markdown as md

    with memdir.open(project, home=tmp_path / "g") as m:
        for i in range(30):
            m.remember(f"note {i} about the deploy pipeline", category="decisions", tags=[f"t{i}"])
        secret = m.remember("the staging token lives in the vault", category="facts")
        path = m.roots["project"].path / (secret.id + ".md")
        first = m.inspect()
        reads = [0]
        real = md.split

        def split(raw):
            reads[0] += 1
            return real(raw)

        monkeypatch.setattr(md, "split", split)
        again = m.inspect()
        assert reads[0] <= 2, reads[0]  # not one parse per note
        assert [(n.id, n.text, n.summary, n.tags, n.updated) for n in again.notes] == \
            [(n.id, n.text, n.summary, n.tags, n.updated) for n in first.notes]
        assert again.problems == first.problems
        # a file changed by hand is read again, its secret found and shown redacted
        key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
        path.write_text(path.read_text(encoding="utf-8").replace("in the vault", f"in the vault: {key}"),
                        encoding="utf-8")
        third = m.inspect()
        note = next(n for n in third.notes if n.id == secret.id)
        assert key not in note.text and "[redacted:" in note.text
        assert any(p["kind"] == "secret" and secret.id in p["detail"] for p in third.problems)


def test_remember_beside_a_root_page_with_goals_compiles_only_its_category(tmp_path, project, monkeypatch):
    """With goals written in ROOT.md, each remember compiled every category's index.md a second time: its own compile
    rewrote ROOT.md's tables, the next look saw the page's goals as changed (their file's time) and recompiled all
    (5,000 notes in 40 categories: 43 pages written per remember instead of 2). ROOT.md's own goals and rules are no
    lines of any index.md, so a change of them alone compiles ROOT.md only (a hand edit of its tables is mended)."""
    from memdir.notes import markdown as md

    with memdir.open(project, home=tmp_path / "g") as m:
        for cat in ("facts", "decisions", "pitfalls", "preferences"):
            m.remember(f"first note of {cat}", category=cat)
        page = m.roots["project"].path / "ROOT.md"
        text = page.read_text(encoding="utf-8")
        goals = "".join(f"- [ ] goal {i}: ship milestone {i}\n" for i in range(10))
        page.write_text(text.replace("## Current goals\n\n", "## Current goals\n\n" + goals, 1), encoding="utf-8")
        assert len(m.recall("milestone", k=20)) == 10  # the goals are read
        written: list[str] = []
        real = md.rewrite_compiled

        def rewrite(path, make, read, tries=3):
            written.append(f"{path.parent.name}/{path.name}")
            return real(path, make, read, tries)

        monkeypatch.setattr(md, "rewrite_compiled", rewrite)
        for i in range(3):
            m.remember(f"decision {i}: keep the lockfile", category="decisions")
        assert set(written) == {"decisions/index.md", f"{page.parent.name}/ROOT.md"}, written
        assert len(written) <= 9, written  # its index.md and ROOT.md (looked at again by the next read: unchanged)
        assert "decision-2" in (page.parent / "decisions" / "index.md").read_text(encoding="utf-8")
        assert "| decisions/ |" in page.read_text(encoding="utf-8")
        assert m.inspect().problems == []
        assert len(m.recall("milestone", k=20)) == 10
