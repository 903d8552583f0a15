"""A prompt of a megabyte (a pasted log, a whole file) is read by recall as its head and tail
(memdir.recall.tokenize.bounded_query): recall looked up every distinct word of it, so the prompt hook ran past its
time budget, showed no block and stored no prompt."""

from __future__ import annotations

import random

import memdir
from memdir.recall import bm25
from memdir.recall.tokenize import QUERY_MAX_CHARS, bounded_query


def _noise(n_chars: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 9))) for _ in range(20000)]
    out, size = [], 0
    while size < n_chars:
        w = rng.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def test_bounded_query_keeps_short_text_and_the_two_ends_of_long_text():
    assert bounded_query("why did the deploy fail?") == "why did the deploy fail?"
    text = "QUESTION_AT_START " + _noise(200_000) + " QUESTION_AT_END"
    got = bounded_query(text)
    assert len(got) <= QUERY_MAX_CHARS + 1
    assert got.startswith("QUESTION_AT_START ") and got.endswith(" QUESTION_AT_END")
    assert all(w in text.split() for w in got.split())  # no word cut in two
    assert bounded_query(None) is None


def test_a_megabyte_prompt_finds_the_note_its_last_line_asks_about_looking_up_few_words(project, tmp_path,
                                                                                          monkeypatch):
    asked: list[int] = []
    real = bm25.doc_freqs

    def counting(db, tokens):
        asked.append(len(tokens))
        return real(db, tokens)

    monkeypatch.setattr(bm25, "doc_freqs", counting)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("The zebracorn cluster is drained with `kubectl drain --grace 90`", category="facts")
        prompt = _noise(1_000_000) + "\nhow do we drain the zebracorn cluster?"
        block = m.context(prompt, reinforce=False)
        assert "kubectl drain --grace 90" in block
        assert m.recall(prompt, k=3)[0].text.startswith("The zebracorn cluster")
    assert asked and max(asked) < 2 * QUERY_MAX_CHARS // 4  # words of the bounded query, not of the megabyte


def test_a_long_prompt_asked_again_is_still_its_own_echo(project, tmp_path):
    """The block reads a long prompt as its head and tail; the stored earlier asking was compared whole, so it no
    longer read as the same prompt and the block showed the user's own question back (case C24's kind)."""
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("The zebracorn cluster is drained with `kubectl drain --grace 90`", category="facts")
        for size in (16_000, 60_000):
            prompt = _noise(size, seed=size) + "\nhow do we drain the zebracorn cluster?"
            m.capture({"role": "user", "text": prompt, "session": f"s{size}"})
            block = m.context(prompt, reinforce=False)
            assert "kubectl drain --grace 90" in block
            assert " user " not in block and "user 1" not in block, block[:600]


def test_a_long_han_prompt_reads_its_hits_without_probing_every_term(project, tmp_path, monkeypatch):
    """A pasted Chinese text of 8,000 characters is 16,000 query terms: each hit's matched terms were found by making
    a probe per term for that hit and testing each term against each field's list (1.3 s for 8 hits on a store of
    200 notes, past a hook's budget). The hit's terms are the same; the probes are no longer made."""
    from memdir.recall import tokenize as T

    rng = random.Random(7)
    made: list[int] = []
    real = T._probes
    monkeypatch.setattr(T, "_probes", lambda term: made.append(1) or real(term))
    with memdir.open(project, home=tmp_path / "g") as m:
        for i in range(12):
            m.remember(f"deploy step {i} needs the pnpm lockfile " + "".join(chr(rng.randint(0x4E00, 0x9FFF))
                                                                            for _ in range(30)), category="facts")
        note = m.remember("部署脚本用 pnpm 而不是 npm, because the lockfile differs", category="decisions")
        prompt = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(QUERY_MAX_CHARS)) + " 部署脚本 lockfile"
        hits = m.recall(prompt, k=8)
    assert note.id in [h.id for h in hits]
    got = next(h for h in hits if h.id == note.id).reasons["terms"]
    assert {"部署", "脚本", "lockfil"} <= set(got) and len(got) == len(set(got))
    assert len(made) < 100, len(made)
