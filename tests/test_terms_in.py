"""``tokenize.terms_in(text, terms)`` is ``terms & set(tokenize(text))`` exactly, though it skips the ASCII lines where
no term's first two characters occur: checked on this repository's own docs and sources (English, Chinese, code),
with every token of a line as the terms, and with terms drawn from other lines."""

from __future__ import annotations

import random
from pathlib import Path

from memdir.recall.tokenize import stem, terms_in, tokenize

ROOT = Path(__file__).resolve().parents[1]


def _corpus() -> list[str]:
    files = sorted(ROOT.glob("docs/*.md")) + sorted(ROOT.glob("src/memdir/**/*.py"))[:60] + [ROOT / "README.md"]
    return [f.read_text(encoding="utf-8") for f in files]


def test_a_word_holds_the_probe_of_its_stem():
    words = {w for text in _corpus() for w in text.lower().split() if w.isascii() and w.isalpha() and len(w) >= 4}
    words |= set("skies dying lying tying idly gently ugly early only singly news howe atlas cosmos bias".split())
    assert len(words) > 2000
    from memdir.recall.tokenize import _probes

    words |= {"trying", "flying", "using", "being", "tidy", "ties", "dies", "died", "dying", "skies", "vying", "hying"}
    assert [w for w in words if not any(p in w for p in _probes(stem(w)))] == []


def test_terms_in_equals_intersecting_every_token():
    rng = random.Random(5)
    texts = _corpus()
    vocab = sorted({t for text in texts for t in tokenize(text)})
    checked = 0
    for text in texts:
        lines = text.split("\n")
        for _ in range(20):
            a = rng.randrange(len(lines))
            chunk = "\n".join(lines[a:a + rng.randint(1, 40)])
            own = set(tokenize(chunk))
            for terms in (set(rng.sample(sorted(own), min(5, len(own)))) if own else set(),
                          set(rng.sample(vocab, 8)),
                          {"dont", "oneil", "c++", "node.js", "部署", "café", "cafe", "a", "7", "tie", "lie", "sky", "tri", "use", "vie"}):
                assert terms_in(chunk, terms) == terms & own, (chunk[:200], terms)
                checked += 1
    assert checked > 1000
    assert terms_in("O'Neil won't ship\nthe café", {"oneil", "wont", "cafe", "ship"}) == {"oneil", "wont", "cafe", "ship"}
    assert terms_in("tying the knot\nblue skies\ntrying it using\nvying", {"tie", "knot", "sky", "tri", "use", "vie"}) == {
        "tie", "knot", "sky", "tri", "use", "vie"}
