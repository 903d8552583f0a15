"""The tokenizer's faster form (issue 12: no CJK character class in the word pattern, ASCII texts in one pass, a
per-word cache) must give exactly the tokens of the form the indexes were written with: the index keeps no copy of
its tokens (m009), so a different token stream would corrupt every later delete. ``_reference_tokenize`` is that
earlier form, kept here verbatim as the oracle; it shares the stemmer (``tokenize.stem``)."""

from __future__ import annotations

import gzip
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from memdir.recall import tokenize as T
from conftest import shared_path

# ---- the oracle: the tokenizer as it was (memdir main 781d6aa) ------------------------------------------------
_CJK = T._CJK + T._UNSPACED  # v6: Thai, Lao, Myanmar, Khmer runs as CJK runs, their letters and digits only
_ALNUM = rf"[^\W_{_CJK}]"
_JOIN = r"[.\-_/:@'\u2019]"
_PATTERN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_ALNUM}+(?:{_JOIN}+{_ALNUM}+)*[+#]*)|(?P<sym>[^\w\s])")
#: v9: the code points read as pictographs (emoji), each a token ``u+<hex>``; a skin tone (U+1F3FB-1F3FF) is not one
_PICTO_SPANS = ((0x231A, 0x231B), (0x2328, 0x2328), (0x23CF, 0x23CF), (0x23E9, 0x23FA), (0x2600, 0x2767),
                (0x2794, 0x27BF), (0x2B00, 0x2BFF), (0x1F000, 0x1F3FA), (0x1F400, 0x1FAFF))
_SPLIT = re.compile(r"[.\-_/:@'\u2019]+")
_ALPHA = re.compile(r"[a-z]{4,}")


def _reference_normalize(text: str) -> str:
    if not isinstance(text, str):
        text = str(text)
    if text.isascii():
        return text.lower()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    # a Turkish dotted capital I reads as i (its lower case is i + a combining dot; sibling of C31)
    text = unicodedata.normalize("NFKC", text).casefold().replace("i\u0307", "i")
    # v7: marks and format characters between two word characters are left out (a word is not cut at them)
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and unicodedata.category(text[j])[0] in "MC" and text[j] not in "\x00\n\t\x1f\x85":
            j += 1
        run = text[i:j]
        inner = (run and i and j < len(text) and re.match(r"\w", text[i - 1]) and re.match(r"\w", text[j])
                 and all(unicodedata.category(c) in ("Mn", "Mc", "Me", "Cf") for c in run))
        if j > i:
            out.append("" if inner else run)
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _reference_fold(word: str) -> str:
    """Case C31 (tokenizer v5): drop each combining mark that follows a Latin letter (or another such mark)."""
    out, base = [], ""
    for ch in unicodedata.normalize("NFD", word):
        if unicodedata.combining(ch) and base.isascii() and base.isalpha():
            continue
        if not unicodedata.combining(ch):
            ch = "i" if ch == "ı" else ch  # v8: a dotless i folds to i
            base = ch
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _reference_tokenize(text: str, *, unigrams: bool = True) -> list[str]:
    out: list[str] = []
    append, extend = out.append, out.extend
    for run, raw, sym in _PATTERN.findall(_reference_normalize(text)):
        if sym:
            if any(a <= ord(sym) <= b for a, b in _PICTO_SPANS):
                append("u+%x" % ord(sym))
            continue
        if run:
            run = "".join(c for c in run if c.isalnum() or not "\u0e00" <= c <= "\u17ff")
            if not run:
                continue
            if len(run) == 1:
                append(run)
            else:
                extend([run[i : i + 2] for i in range(len(run) - 1)])
                if unigrams:
                    extend(run)
            continue
        raw = raw[: T.MAX_TOKEN_CHARS]
        folded = _reference_fold(raw)
        if folded != raw:  # v5: the word's own tokens, then its folded spelling's that are new
            own = _word_ref(raw)
            extend(own)
            extend(dict.fromkeys(t for t in _word_ref(folded) if t not in own))
            continue
        extend(_word_ref(raw))
    return out


def _word_ref(raw: str) -> list[str]:
    """The tokens of one word, as the tokenizer made them before v5."""
    out: list[str] = []
    append = out.append
    if raw.isalnum():
        if len(raw) >= 4 and raw.isascii() and raw.isalpha():
            append(T.stem(raw))
        else:
            append(raw)
        return out
    word = raw.replace("'", "").replace("\u2019", "")
    whole = T.stem(word) if _ALPHA.fullmatch(word) else word
    append(whole)
    core = raw.rstrip("+#")
    parts = [p for p in _SPLIT.split(core) if p]
    if len(parts) > 1 or core != raw:
        apostrophe = "'" in raw or "\u2019" in raw
        for p in parts:
            if p == word or (apostrophe and p in T._CLITICS):
                continue
            sp = T.stem(p) if _ALPHA.fullmatch(p) else p
            if sp != whole:
                append(sp)
    return out


def _same(text: str) -> None:
    assert T.nfkc(text) == unicodedata.normalize("NFKC", text), text
    for uni in (True, False):
        assert T.tokenize(text, unigrams=uni) == _reference_tokenize(text, unigrams=uni), (text, uni)


# ---- random strings built from the characters that matter ------------------------------------------------------
_PIECES = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") * 3
    + list(".-_/:@'\u2019+#") * 2
    + [" ", " ", "\n", "\t", ",", "!", "?", "(", ")", '"', "$", "%", "&", "*", "=", "[", "]", "{", "}", "\\", "|", "~", "`"]
    + list("éüñçâÉẞøễ\u0301\u0308й")  # accented Latin (folded, C31), a bare combining mark, Cyrillic (kept)
    + list("部署脚本用锁加的了是我们中文测试数据库")  # Han (incl. Chinese function chars)
    + list("ひらがなカタカナー゠・") + list("한국어가") + ["\u3400", "\u4dbf", "\uf900", "\ufaff", "\U00020000", "\U0003134f"]
    + list("éüßİıÅǅﬁﬃ①²½ⅷＡＢ１２０ｱｶﾞ，：；！？（）～　。、「」") + ["\u0301", "\u0308", "\u3099", "\u309a", "\u0338"] * 2 + ["\u0301", "\u0307", "\u200b", "\u00a0", "\u3000", "\ufeff"]
    + list("αβγДЖЩ١٢३४") + list("🚀⚠✅👨👍🏽🇯⭐⌚❧❨➔├→≤") + ["\ufe0f", "\u200d", "\U0001f3fa", "\U0001faff", "\U0001fb00"]
    + ["\U0001f600", "\ud800", "\udfff", "\x00", "\u2018", "\uff07"]
    + ["running", "caresses", "don't", "node.js", "c++", "c#", "pre-edit", "a:b", "user@host", "x_y", "Caroline's",
       "Don\u2019t", "deploying", "configurations", "a" * 70, "b1" * 40, "e.g.", "...", "--", "__init__", "v1.2.3"]
)


def _random_text(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 40)))


def test_same_tokens_on_random_strings():
    rng = random.Random(12)
    for _ in range(5_000):
        _same(_random_text(rng))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_same_tokens_on_any_text(text):
    _same(text)


def test_same_tokens_on_synthetic_bench_items():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import synth

    for ev in synth.events(800, 7):
        _same(ev["text"])
    for kw in synth.notes(200, 7):
        _same(" ".join(str(v) for v in kw.values()))
    for q in synth.queries(200, 7):
        _same(q)


def _strings(obj, out: list[str], limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out, limit)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out, limit)


@pytest.mark.parametrize("rel", ["locomo/locomo_dev.json", "longmemeval/longmemeval_s_dev.json.gz",
                                 "cjk/madial/MADial-Bench-zh-dialogue-dev.jsonl",
                                 "cjk/madial/MADial-Bench-en-dialogue-dev.jsonl", "transcripts"])
def test_same_tokens_on_benchmark_data(rel):
    path = shared_path("data", *rel.split("/"))
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    texts: list[str] = []
    for f in files:
        raw = gzip.open(f, "rt", encoding="utf-8").read() if f.suffix == ".gz" else f.read_text(encoding="utf-8", errors="replace")
        try:
            docs = [json.loads(raw)]
        except ValueError:  # JSON lines (a bad line is read as text)
            docs = []
            for line in raw.splitlines():
                try:
                    docs.append(json.loads(line))
                except ValueError:
                    docs.append(line)
        _strings(docs, texts, 1500 * len(files))
    assert texts
    for t in texts[:: max(1, len(texts) // 1500)]:
        _same(t)


def test_cache_follows_a_replaced_stemmer(monkeypatch):
    """The per-word cache is only valid for the stemmer cache it was filled with (tests swap the stemmer)."""
    assert T.tokenize("deploying configurations") == ["deploy", "configur"]

    class Five:
        def stemWord(self, w: str) -> str:
            return w[:5]

    monkeypatch.setattr(T, "_stemmer", Five())
    monkeypatch.setattr(T, "_stem_cache", {})
    assert T.tokenize("deploying configurations") == ["deplo", "confi"]
    monkeypatch.undo()
    assert T.tokenize("deploying configurations") == ["deploy", "configur"]


def test_word_cache_is_bounded():
    for i in range(T._WORD_CACHE_MAX + 10):
        T.tokenize(f"w{i}x")
    assert len(T._word_cache) <= T._WORD_CACHE_MAX


def test_a_text_that_fills_the_word_cache_keeps_all_its_tokens(monkeypatch):
    monkeypatch.setattr(T, "_WORD_CACHE_MAX", 7)
    text = " ".join(f"deploying{i}x running w{i}" for i in range(40)) + " 部署 " + " ".join(f"z{i}" for i in range(30))
    assert T.tokenize(text) == _reference_tokenize(text)
    assert len(T._word_cache) <= 7


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("，：；！？（）～　,:!a e<=>ｶ部\u0301\u0338\u3099\u309a\u0300ﬁ①")), max_size=24))
def test_nfkc_is_the_library_s_on_fullwidth_punctuation_and_combining_marks(text):
    assert T.nfkc(text) == unicodedata.normalize("NFKC", text)
