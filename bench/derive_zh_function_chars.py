"""Derive memdir's Chinese function characters (``memdir.recall.tokenize.ZH_FUNCTION_CHARS``) from a published lexicon.

Method (run once; the output is pasted into src/memdir/tokenize.py, nothing here runs at recall time):

1. Read the single-character entries of jieba's dictionary (``jieba/dict.txt``: word, corpus frequency,
   part-of-speech tag; MIT licence; ``pip install jieba``). No benchmark text is read.
2. Keep a character when its tag is a function class and it is frequent (frequency >= 20,000):
   pronouns ``r``, prepositions ``p``, conjunctions ``c``, auxiliaries ``u*`` (的 了 着 过 地 得 …), adverbs ``d``,
   modal particles ``y``, interjections ``e``, the plural suffix ``k`` (们); plus the two most frequent verbs,
   the copula 是 and 有 (frequency >= 400,000), and the most frequent numerals 一 and 年 (>= 200,000).
3. A CJK bigram made of two such characters (我在, 了一, 我们, 就是, 还有 …) is a *stop bigram*: it is dropped
   from queries (never from documents) unless nothing else is left, as English stopwords are.

4. Two-character words (``memdir.recall.tokenize.ZH_STOP_WORDS``, ``--words``): the dictionary's two-character entries
   tagged with a closed function class (``r p c y e k u*``; adverbs ``d`` are left out: as two-character words they
   are often content, 进步 正常 高速) with frequency >= 5,000, minus those that are stop bigrams already. The
   frequency cut 5,000 and leaving out adverbs were chosen on the even-position half of MADial-Bench zh dev and
   checked on the other half (docs/devlog/2026-12-01/h10zh.md).

Usage: ``python bench/derive_zh_function_chars.py [--words]`` prints the characters (or the words), most frequent
first.
"""

from __future__ import annotations

import os


def _dictionary():
    """``(word, frequency, part-of-speech tag)`` for each line of jieba's bundled dictionary."""
    import jieba

    path = os.path.join(os.path.dirname(jieba.__file__), "dict.txt")
    with open(path, encoding="utf-8") as f:
        for line in f:
            word, n, tag = line.split()
            yield word, int(n), tag


def derive(min_freq: int = 20_000) -> str:
    freq: dict[str, int] = {}
    for word, n, tag in _dictionary():
        if len(word) != 1:
            continue
        function = tag in ("r", "p", "c", "d", "y", "e", "k") or tag.startswith("u")
        if (function and n >= min_freq) or (tag == "v" and n >= 400_000) or (tag == "m" and n >= 200_000):
            freq[word] = max(freq.get(word, 0), n)
    return "".join(sorted(freq, key=lambda w: -freq[w]))


def derive_words(min_freq: int = 5_000) -> list[str]:
    from memdir.recall.tokenize import ZH_FUNCTION_CHARS

    freq: dict[str, int] = {}
    for word, n, tag in _dictionary():
        closed = tag in ("r", "p", "c", "y", "e", "k") or tag.startswith("u")
        if len(word) == 2 and closed and n >= min_freq and not all(c in ZH_FUNCTION_CHARS for c in word):
            freq[word] = max(freq.get(word, 0), n)
    return sorted(freq, key=lambda w: -freq[w])


if __name__ == "__main__":
    import sys

    print(" ".join(derive_words()) if "--words" in sys.argv[1:] else derive())
