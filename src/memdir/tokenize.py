"""memdir's tokenizer for recall (ours; seed 000 explains why FTS5's built-in ones fail on Chinese).

Pipeline: NFKC + casefold, then

* runs of Han / kana / hangul become overlapping character **bigrams** (``部署脚本`` → ``部署 署脚 脚本``);
  a lone CJK character stays a unigram;
* Latin letters and digits become **words**, English words of 4+ letters reduced to their Snowball stem
  (``running`` → ``run``; PyStemmer); an identifier joined by ``. - _ / : @`` or ending in ``+``/``#``
  (``node.js``, ``pre-edit``, ``C++``, ``a:b``) is kept whole *and* split into its parts, so both
  ``node.js`` and ``node`` find it; a word with an apostrophe is kept joined and split without its clitic
  (``don't`` → ``dont``, ``don``; ``Caroline's`` → ``carolines``, ``caroline``).

Tokens only ever contain word characters and ``. - _ / : @ + #``, which the FTS5 column is told to treat as
token characters (:data:`FTS_TOKENCHARS`), and queries are built from tokens, never raw text, so no input can
raise an FTS5 syntax error.
"""

from __future__ import annotations

import re
import unicodedata

# Han (incl. ext. A, compatibility, ext. B+), Hiragana, Katakana (+ phonetic ext.), Hangul syllables/jamo, CJK symbols.
_CJK = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"  # kana without ・ ゠ and sound marks
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
)
_ALNUM = rf"[^\W_{_CJK}]"
_JOIN = r"[.\-_/:@'\u2019]"
_PATTERN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>{_ALNUM}+(?:{_JOIN}+{_ALNUM}+)*[+#]*)")
_SPLIT = re.compile(r"[.\-_/:@'\u2019]+")
_CLITICS = frozenset({"s", "t", "re", "ll", "ve", "d", "m"})  # caroline's → caroline, don't → don

#: characters (besides letters and digits) that the FTS5 ``unicode61`` tokenizer must keep inside a token
FTS_TOKENCHARS = ".-_/:@+#"

#: very common English function words, dropped from *queries* only (documents keep every token) unless a
#: query has nothing else — so ``NOT`` or ``AND OR`` still find notes containing those words (case C3).
STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have he her his how i if in into is it its
    me my of on or our she so that the their them then there these they this to was we were what when where
    which who whom why will with you your""".split()
)

MAX_TOKEN_CHARS = 64

#: bump when the token stream changes; an index built with another version re-tokenizes itself on open
TOKENIZER_VERSION = "3+snowball-en"

_ALPHA = re.compile(r"[a-z]{4,}")
_stem_cache: dict[str, str] = {}
_stemmer = None


def _stem(word: str) -> str:
    """English Snowball stem of an ASCII word of 4+ letters (PyStemmer); other tokens pass through.
    Measured on LoCoMo dev turn recall@5/@10: 0.512/0.585 → 0.529/0.615; MADial-en recall@5 0.446 → 0.457."""
    global _stemmer
    s = _stem_cache.get(word)
    if s is None:
        if _stemmer is None:
            import Stemmer

            _stemmer = Stemmer.Stemmer("english")
        s = _stemmer.stemWord(word)
        if len(_stem_cache) < 200_000:
            _stem_cache[word] = s
    return s


def normalize(text: str) -> str:
    """NFKC + casefold, with lone surrogates replaced (they cannot be encoded as UTF-8)."""
    if not isinstance(text, str):
        text = str(text)
    if text.isascii():  # fast path: NFKC leaves ASCII alone and casefold is lower() there
        return text.lower()
    text = text.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(text) else text
    return unicodedata.normalize("NFKC", text).casefold()


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def tokenize(text: str) -> list[str]:
    """Split ``text`` into recall tokens, in order, with repeats (for BM25 term frequency).

    >>> tokenize("部署脚本用 pnpm")
    ['部署', '署脚', '脚本', '本用', 'pnpm']
    """
    out: list[str] = []
    append, extend = out.append, out.extend
    cache = _stem_cache
    for run, raw in _PATTERN.findall(normalize(text)):
        if run:
            if len(run) == 1:
                append(run)
            else:
                extend([run[i : i + 2] for i in range(len(run) - 1)])
            continue
        raw = raw[:MAX_TOKEN_CHARS]
        if raw.isalnum():  # fast path (most words): no joiner, apostrophe or trailing +/#, so nothing to split
            if len(raw) >= 4 and raw.isascii() and raw.isalpha():
                append(cache.get(raw) or _stem(raw))
            else:
                append(raw)
            continue
        word = raw.replace("'", "").replace("\u2019", "")
        append(_stem(word) if _ALPHA.fullmatch(word) else word)
        core = raw.rstrip("+#")
        parts = [p for p in _SPLIT.split(core) if p]
        if len(parts) > 1 or core != raw:
            apostrophe = "'" in raw or "\u2019" in raw
            extend(_stem(p) if _ALPHA.fullmatch(p) else p for p in parts if p != word and not (apostrophe and p in _CLITICS))
    return out


def query_tokens(text: str) -> list[str]:
    """Distinct tokens of a query, in first-seen order, with stopwords dropped unless nothing else is left."""
    seen: dict[str, None] = {}
    for t in tokenize(text):
        seen.setdefault(t, None)
    toks = list(seen)
    content = [t for t in toks if t not in STOPWORDS]
    return content or toks


def fts_query(tokens: list[str]) -> str:
    """Build an FTS5 MATCH expression: the OR of quoted tokens (a document matching any term is a candidate).

    Returns ``""`` for no tokens. Quoting makes every token a literal, so operators in user text are inert.
    """
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)
