"""memdir's tokenizer for recall (ours; seed 000 explains why FTS5's built-in ones fail on Chinese).

Pipeline: NFKC + casefold, then

* runs of Han / kana / hangul (and of Thai, Lao, Myanmar, Khmer: no spaces between words) become overlapping character **bigrams** (``部署脚本`` → ``部署 署脚 脚本``);
  a lone CJK character stays a unigram. Documents also index every character of a run as a **unigram**, so a
  one-character query finds the character inside a longer run (case C17: ``锁`` finds ``…表加锁…``, as ``lock``
  finds "lock"); queries use unigrams only for a lone character, so longer queries still score bigrams only;
* Latin letters and digits become **words**, English words of 4+ letters reduced to their Snowball stem
  (``running`` → ``run``; PyStemmer); an identifier joined by ``. - _ / : @`` or ending in ``+``/``#``
  (``node.js``, ``pre-edit``, ``C++``, ``a:b``) is kept whole *and* split into its parts, so both
  ``node.js`` and ``node`` find it; a word with an apostrophe is kept joined and split without its clitic
  (``don't`` → ``dont``, ``don``; ``Caroline's`` → ``carolines``, ``caroline``);
* a word with accented Latin letters also gives the tokens of its **folded** spelling, after its own (case C31:
  ``café`` → ``café``, ``cafe``; ``Zeitüberschreitung`` → ``zeitüberschreitung``, ``zeituberschreit``): the combining
  marks on a Latin base letter are dropped (:func:`fold`, what FTS5's ``remove_diacritics`` does) and a Turkish
  dotless ``ı`` becomes ``i`` (``ILIK``, its capital, casefolds to ``ilik``), other scripts' marks (Cyrillic, Greek,
  Devanagari) are kept. Documents and queries both get the pair, so ``cafe`` finds
  ``café``, and a query spelled ``café`` matches an accented memory on two terms and an unaccented one on one: the
  exact spelling ranks first.
* a pictograph (an emoji: ``🚀``, ``✅``, ``⚠``) is a token of its own, ``u+`` and its code point (``u+1f680``: the
  FTS5 column would read the character as a separator); what only modifies one (a variation selector, a skin tone, a
  zero-width joiner) is left out, so ``⚠️`` and ``⚠`` are one token and a ZWJ family is its members' tokens
  (:data:`PICTO_RANGES`, :func:`pictograph_token`). ``memdir recall 🚀`` found nothing before: the emoji had no token.
* a combining mark or an invisible format character between two letters (Arabic harakat, Hebrew points, a Devanagari
  vowel sign, a zero-width space, joiner or soft hyphen inside ``kuber\\u200bnetes``) is left out, so the word stays
  one token (:func:`mend_words`): FTS5 reads such a character as a separator, and a query typed without it (as
  people type ``مرحبا`` for ``مَرْحَبًا``) must find the word.

Tokens only ever contain word characters and ``. - _ / : @ + #``, which the FTS5 column is told to treat as
token characters (:data:`FTS_TOKENCHARS`), and queries are built from tokens, never raw text, so no input can
raise an FTS5 syntax error.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import chain

_chain = chain.from_iterable

# Han (incl. ext. A, compatibility, ext. B+), Hiragana, Katakana (+ phonetic ext.), Hangul syllables/jamo, CJK symbols.
_CJK = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"  # kana without ・ ゠ and sound marks
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
)
#: Thai, Lao, Myanmar and Khmer: scripts written without spaces between words, cut into character bigrams (and
#: unigrams) as the CJK runs are, so a word inside a run is found (``สำรอง`` in ``ต้องสำรองฐานข้อมูล``, as C17's
#: ``锁`` in a longer Han run); they are not CJK to :func:`is_cjk_char` (the glossary, the hybrid channel's CJK share)
_UNSPACED = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
_JOIN = r"[.\-_/:@'\u2019]"
#: a word: letters/digits (``[^\W_]``), joined by ``. - _ / : @ '`` and ending in ``+``/``#``. It is only ever run on
#: text without CJK characters (ASCII text, or the stretches between CJK runs), so it needs no CJK class: compiling
#: one costs milliseconds (``re`` walks every code point of its ranges), paid by every hook process (issue 12).
_WORD = re.compile(rf"[^\W_]+(?:{_JOIN}+[^\W_]+)*[+#]*")
#: :data:`_WORD` for lower-case ASCII text (every ASCII text after :func:`normalize`): the same matches there, a
#: fifth faster without the Unicode class lookups (issue 26)
_WORD_ASCII = re.compile(rf"[a-z0-9]+(?:{_JOIN}+[a-z0-9]+)*[+#]*")
_SPLIT = re.compile(r"[.\-_/:@'\u2019]+")
#: pictographs (emoji): the emoji of Misc Technical, Misc Symbols and Dingbats (without the ornamental brackets and
#: circled digits), Misc Symbols and Arrows, and the emoji planes U+1F000-1FAFF without the skin-tone modifiers
#: (U+1F3FB-1F3FF). Ranges, not a Unicode category, so an emoji newer than Python's Unicode tables is one too
PICTO_RANGES = ("\u231a\u231b\u2328\u23cf\u23e9-\u23fa\u2600-\u2767\u2794-\u27bf\u2b00-\u2bff"
                "\U0001f000-\U0001f3fa\U0001f400-\U0001faff")
#: :data:`_WORD` or one pictograph, for non-ASCII text; compiled on first use (its ranges cost about a millisecond)
_word_picto: re.Pattern[str] | None = None
_cjk_runs = None  # compiled on first use: ``re.compile(f"([{_CJK}]+)")``
_bigrams = re.compile(r"(?=(..))", re.S).findall  # every overlapping pair of characters of a CJK run
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

#: Chinese function characters (pronouns, prepositions, conjunctions, auxiliaries, adverbs, particles, 是/有, 一/年),
#: derived from jieba's dictionary by part of speech and frequency — bench/derive_zh_function_chars.py documents
#: the method; no benchmark text was read. A query bigram of two of them (我在, 了一, 我们, 就是) is a *stop
#: bigram*: dropped from queries, like an English stopword, unless nothing else is left.
ZH_FUNCTION_CHARS = frozenset(
    "了是在和有他不我的也为就这年你一都等着对与地还又而之以得她将那但从把被于只过并或由用所向已其给却它最更再才便及各至本们"
    "正同比自跟则因曾呢该约谁先吧太者共另吗按均"
)

#: Chinese closed-class words of two characters, dropped from lexical recall's queries (not beside a vector channel;
#: :func:`memdir.recall.glossary.query_terms`) unless nothing else is left: the two-character
#: entries of jieba's dictionary tagged pronoun, preposition, conjunction, auxiliary, modal particle, interjection
#: or plural suffix with frequency >= 5,000 that are not already stop bigrams (bench/derive_zh_function_chars.py
#: --words; no benchmark text was read). Adverbs (an open class in two-character words: 进步, 正常) are left out.
ZH_STOP_WORDS = frozenset(
    "自己 可以 这个 什么 这样 这些 这种 如果 通过 其中 同时 这里 怎么 虽然 根据 因此 而且 一样 各种 我国 如何 各级 那么 这么 "
    "如此 一切 那些 然后 经过 有些 有人 咱们 可是 任何 那个 关于 那里 不仅 甚么 这时 按照 每年 本级 只要 随着 之中 来说 另外 "
    "这次 此外 那样 并且 此时 然而 别人 除了 哪里 某些 怎样 尽管 有时 还要 每个 每天 即使 接着 总是 各个 各国 本报 本身 既然 "
    "从此 的话".split()
)

MAX_TOKEN_CHARS = 64

#: bump when the token stream changes; an index built with another version re-tokenizes itself on open (a change that
#: touches only texts holding some characters is named in :func:`memdir.store.sqlite.opening.index_version` instead,
#: so that only the stores holding them are re-tokenized: the dotted capital I, the unspaced scripts, pictographs)
TOKENIZER_VERSION = "5+snowball-en+cjk-unigrams+fold-latin"

_ALPHA = re.compile(r"[a-z]{4,}")


#: English words whose stems fingerprint the Snowball stemmer in use (plural, -ed/-ing, -ly, -ness, -ation, -ize,
#: -ful, -ous, -ive, exceptions): :func:`tokenizer_id`
_STEM_PROBE = ("caresses ponies ties cats feed agreed plastered motoring sing conflated troubled sized hopping "
               "tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci "
               "hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization "
               "predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti "
               "sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival "
               "allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment "
               "dependent adoption homologou communism activate angulariti homologous effective bowdlerize "
               "probate rate cease controll roll skis skies dying lying tying idly gently ugly early only singly "
               "news howe atlas cosmos bias andes inning outing canning herring earring proceed exceed succeed "
               "generate generously communication arsenal deployed deploying configuration configured "
               "migrations rotated tokens caching cached timeouts retries retried building builds tested testing "
               "dependencies installation requirements authentication authorized")


def tokenizer_id() -> str:
    """:data:`TOKENIZER_VERSION` plus a fingerprint of the stemmer's behaviour (the stems of :data:`_STEM_PROBE`):
    the index stores it (``meta.tokenizer``) and a store whose id differs is re-tokenized at open
    (:func:`memdir.store.sqlite.opening.check_tokenizer`). The full-text index keeps no copy of its tokens (m009): a row is
    removed by recomputing them, so a PyStemmer (Snowball) release that stems differently must not meet an index
    written by the old one. Two installs whose stemmers agree share a store without re-tokenizing it."""
    import zlib

    global _stemmer, _tokenizer_id
    if _stemmer is None:
        import Stemmer

        _stemmer = Stemmer.Stemmer("english")
    if _tokenizer_id[0] is not _stemmer:  # once per stemmer (each index open asks; tests swap the stemmer)
        stems = " ".join(_stemmer.stemWord(w) for w in _STEM_PROBE.split())
        _tokenizer_id = (_stemmer, f"{TOKENIZER_VERSION}+stem{zlib.crc32(stems.encode('utf-8')):08x}")
    return _tokenizer_id[1]


_tokenizer_id: tuple = (None, "")


_stem_cache: dict[str, str] = {}
_stemmer = None


def stem(word: str) -> str:
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
    """NFKC + casefold, with lone surrogates replaced (they cannot be encoded as UTF-8), a Turkish dotted capital
    I read as ``i`` and the marks and invisible characters inside words left out (:func:`mend_words`)."""
    if not isinstance(text, str):
        text = str(text)
    if text.isascii():  # fast path: NFKC leaves ASCII alone and casefold is lower() there
        return text.lower()
    return mend_words(_normalize_chars(text))


def _normalize_chars(text: str) -> str:
    text = text.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(text) else text
    out = nfkc(text).casefold()
    # a dotted capital I (Turkish İ) lower-cases to i + a combining dot, which would cut the word in two ("i",
    # "stanbul"): it is an i, as FTS5's remove_diacritics reads it (case C31)
    return out.replace("i\u0307", "i") if "\u0307" in out else out


#: a character that may be a mark or a format character: not a word character, not white space, not in a block of
#: punctuation alone (ASCII and Latin-1 but the soft hyphen, general punctuation, CJK punctuation, fullwidth forms)
_MAYBE_INNER = (r"[^\w\s\x00-\xac\xae-\xbf\u2010-\u2027\u2030-\u205f\u3000-\u3029\u3030-\u303f"
                r"\uff00-\uffef]")
_maybe_inner = re.compile(_MAYBE_INNER).search  # one quick pass: most texts hold none
#: a run of those between two word characters: :func:`_inner` keeps it unless it is all marks and format characters
_INNER = re.compile(rf"(?<=\w){_MAYBE_INNER}+(?=\w)")


def _inner(mo: re.Match) -> str:
    run = mo.group()
    return "" if all(unicodedata.category(c)[0] == "M" or unicodedata.category(c) == "Cf" for c in run) else run


def mend_words(text: str) -> str:
    """``text`` (normalized) without the combining marks (``M*``) and invisible format characters (``Cf``: zero-width
    space and joiners, soft hyphen, word joiner, bidi marks, BOM) that stand between two word characters. Python's
    ``\\w`` and FTS5's ``unicode61`` both cut a word at them, so ``مَرْحَبًا`` was six one-letter tokens and
    ``kuber\\u200bnetes`` two; without them the word is one token, the one a query typed without them gives."""
    return text if text.isascii() or _maybe_inner(text) is None else _INNER.sub(_inner, text)


def marks_inside_words(text: str) -> bool:
    """True when :func:`mend_words` changes ``text``'s tokens: an index written before it must re-tokenize it."""
    if not isinstance(text, str) or text.isascii():
        return False
    n = _normalize_chars(text)
    return mend_words(n) != n


#: fullwidth punctuation common in Chinese text and the ideographic space, each with its NFKC form (one ASCII char)
_WIDE = (("\uff0c", ","), ("\uff1a", ":"), ("\uff1b", ";"), ("\uff01", "!"), ("\uff1f", "?"), ("\uff08", "("),
         ("\uff09", ")"), ("\u3000", " "), ("\uff5e", "~"))


def nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``, faster on typical Chinese text (issue 12: 14 -> 2 us per captured
    turn). Most such text is NFKC already but for its fullwidth punctuation, which makes the library normalize the
    whole string. Replacing those characters by their NFKC forms first changes nothing in the result (NFKC is
    NFC of the compatibility decomposition, and each is replaced by its full decomposition), so when the rest is
    normalized (``is_normalized``, a quick check) that is the answer; otherwise the library normalizes ``text``."""
    if unicodedata.is_normalized("NFKC", text):
        return text
    t = text
    for a, b in _WIDE:
        if a in t:
            t = t.replace(a, b)
    if t is not text and unicodedata.is_normalized("NFKC", t):
        return t
    return unicodedata.normalize("NFKC", text)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _cjk_re() -> re.Pattern[str]:
    """``([CJK]+)``, compiled on first use (an ASCII-only process never pays for it)."""
    global _cjk_runs
    if _cjk_runs is None:
        _cjk_runs = re.compile(f"([{_CJK}{_UNSPACED}]+)")
    return _cjk_runs


def _cjk_split(text: str) -> list[str]:
    """``text`` cut at its CJK runs: ``[other, run, other, run, …, other]`` (runs at the odd indexes)."""
    return _cjk_re().split(text)


#: tokens of each word (a match of :data:`_WORD`) seen lately; valid for the stemmer cache it was filled with
_word_cache: dict[str, tuple[str, ...]] = {}
_word_cache_of: dict[str, str] | None = None
_WORD_CACHE_MAX = 50_000


def fold(word: str) -> str:
    """``word`` without the combining marks of its Latin letters (``café`` → ``cafe``, ``réunion`` → ``reunion``,
    ``ễ`` → ``e``) and with a dotless ``ı`` read as ``i`` (``ılık`` → ``ilik``); marks on other scripts' letters stay,
    and other letters that do not decompose (``ø``, ``đ``, ``æ``) are kept as they are. An ASCII word is returned unchanged (the same object). Expects NFKC (composed) text."""
    if word.isascii():
        return word
    out = []
    latin = False
    for ch in unicodedata.normalize("NFD", word):
        if unicodedata.combining(ch):
            if latin:
                continue
        else:
            ch = "i" if ch == "\u0131" else ch  # Turkish dotless ı: ILIK (its capital) reads ilik, so ılık must give it
            latin = ch.isascii() and ch.isalpha()
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _word_tokens(raw: str) -> tuple[str, ...]:
    """The tokens of one word (see the module doc), cached: its own, then those of its folded spelling
    (:func:`fold`) that it does not have already; a pictograph's is its ``u+`` name (:func:`pictograph_token`)."""
    if not raw.isascii():
        if len(raw) == 1 and not raw.isalnum():  # a word starts with a letter or digit: this is a pictograph
            if len(_word_cache) >= _WORD_CACHE_MAX:
                _word_cache.clear()
            _word_cache[raw] = out = (pictograph_token(raw),)
            return out
        folded = fold(raw[:MAX_TOKEN_CHARS])
        if folded != raw[:MAX_TOKEN_CHARS]:
            own = _plain_word_tokens(raw)
            seen = set(own)
            out = own + tuple(t for t in _plain_word_tokens(folded) if not (t in seen or seen.add(t)))
            if len(_word_cache) >= _WORD_CACHE_MAX:
                _word_cache.clear()
            _word_cache[raw] = out
            return out
    return _plain_word_tokens(raw)


def _plain_word_tokens(raw: str) -> tuple[str, ...]:
    word = raw[:MAX_TOKEN_CHARS]
    if word.isalnum():  # most words: no joiner, apostrophe or trailing +/#, so nothing to split
        out: tuple[str, ...] = (stem(word) if len(word) >= 4 and word.isascii() and word.isalpha() else word,)
    else:
        toks: list[str] = []
        joined = word.replace("'", "").replace("\u2019", "")
        whole = stem(joined) if _ALPHA.fullmatch(joined) else joined
        toks.append(whole)
        core = word.rstrip("+#")
        parts = [p for p in _SPLIT.split(core) if p]
        if len(parts) > 1 or core != word:
            apostrophe = "'" in word or "\u2019" in word
            for p in parts:
                if p == joined or (apostrophe and p in _CLITICS):
                    continue
                sp = stem(p) if _ALPHA.fullmatch(p) else p
                if sp != whole:  # "Caroline's" → carolin once, not twice (its stem equals the joined word's)
                    toks.append(sp)
        out = tuple(toks)
    if len(_word_cache) >= _WORD_CACHE_MAX:
        _word_cache.clear()
    _word_cache[raw] = out
    return out


def _add_words(out: list[str], text: str, findall=_WORD.findall) -> None:
    """Append the tokens of every word of ``text`` (no CJK in it) to ``out``: one C-level pass when every word is in
    the cache (most words of most texts), else the missing ones are made first."""
    raws = findall(text)
    n = len(out)
    try:
        out += _chain(map(_word_cache.__getitem__, raws))
    except KeyError:
        del out[n:]
        get = _word_cache.get
        for raw in raws:  # not through the cache alone: filling it may clear it (it is bounded)
            out += get(raw) or _word_tokens(raw)


def tokenize(text: str, *, unigrams: bool = True) -> list[str]:
    """Split ``text`` into recall tokens, in order, with repeats (for BM25 term frequency).

    ``unigrams`` (documents): each character of a CJK run of 2+ also becomes a token, after the run's bigrams.

    >>> tokenize("部署脚本用 pnpm", unigrams=False)
    ['部署', '署脚', '脚本', '本用', 'pnpm']
    >>> tokenize("加锁")
    ['加锁', '加', '锁']
    """
    global _word_cache_of
    if _word_cache_of is not _stem_cache:  # the stemmer's cache was replaced (tests swap the stemmer): start over
        _word_cache.clear()
        _word_cache_of = _stem_cache
    text = normalize(text)
    out: list[str] = []
    if text.isascii():  # no CJK run possible: one pass of the word pattern (lower case: normalize)
        _add_words(out, text, _WORD_ASCII.findall)
        return out
    for i, piece in enumerate(_cjk_split(text)):
        if i & 1:  # a CJK run
            if not piece.isalnum():  # Thai, Lao, Myanmar, Khmer: their vowel signs and tone marks (Mn/Mc) and symbols,
                # which FTS5's unicode61 reads as separators, are left out (a token holds letters and digits only)
                piece = "".join(c for c in piece if c.isalnum() or not "\u0e00" <= c <= "\u17ff")
                if not piece:
                    continue
            if len(piece) == 1:
                out.append(piece)
            else:
                out += _bigrams(piece)
                if unigrams:
                    out += piece
        elif piece:
            _add_words(out, piece, _WORD.findall if piece.isascii() else _word_picto_re().findall)
    return out


def _word_picto_re() -> re.Pattern[str]:
    """:data:`_WORD` or one pictograph (:data:`PICTO_RANGES`), compiled on first use."""
    global _word_picto
    if _word_picto is None:
        _word_picto = re.compile(f"{_WORD.pattern}|[{PICTO_RANGES}]")
    return _word_picto


def pictograph_token(ch: str) -> str:
    """The token of a pictograph: ``u+`` and its code point in hex (``🚀`` → ``u+1f680``). FTS5's ``unicode61`` reads
    the character itself as a separator, while ``u``, ``+`` and hex digits are token characters to it; no word gives
    this token (``U+1F680`` typed in a text is ``u+``, ``1f680``)."""
    return f"u+{ord(ch):x}"


def pictograph(token: str) -> str:
    """The character a :func:`pictograph_token` stands for (``u+1f680`` → ``🚀``), else ``""``."""
    if token.startswith("u+") and 6 <= len(token) <= 7:
        try:
            return chr(int(token[2:], 16))
        except ValueError:
            return ""
    return ""




def _probes(term: str) -> tuple[str, ...]:
    """What a line must hold one of (lower case, apostrophes aside) to give ``term``: its first three characters, or
    for a term of three or fewer its first two, since a Snowball stem changes only the end of a word and a stem of
    three letters may end in a letter the word lacks there (``trying`` -> ``tri``, ``using`` -> ``use``); and for a
    stem of three letters ending in ``ie`` the consonant and ``y`` too (Snowball turns any consonant + ``ying`` into
    consonant + ``ie``: ``tying``, ``vying`` -> ``tie``, ``vie``)."""
    base = term[:3] if len(term) > 3 else term[:2]
    return (base, term[0] + "y") if len(term) == 3 and term.endswith("ie") else (base,)


#: above this many terms :func:`terms_in` tokenizes the whole text (a random 8,000-character Han query has 16,000:
#: their probes, made for each of its hits, took 25 ms a hit)
TERMS_IN_PROBED = 512


def terms_in(text: str, terms: set[str] | frozenset[str]) -> set[str]:
    """``terms & set(tokenize(text))``, without tokenizing the lines that cannot hold any of ``terms``: an ASCII line
    where none of the terms' :func:`_probes` occurs yields none of them, since every token of an ASCII word starts as
    the word or the part it comes from does (a Snowball stem changes a word's ending: ``tidy`` -> ``tidi``; ``don't``
    gives ``dont``). Other lines are tokenized whole. A word never spans lines, so the answer is the same as
    tokenizing all of ``text``; a recall's hits are read this way (stemming every word of every hit cost ~15-35 us a
    hit of a one-shot recall at 10k turns). Above :data:`TERMS_IN_PROBED` terms the whole text is tokenized."""
    if not terms or not text:
        return set()
    if len(terms) > TERMS_IN_PROBED:  # a pasted log's query: its probes would cost more than the tokens they save
        return set(terms).intersection(tokenize(text))
    probes = None
    found: set[str] = set()
    for line in text.split("\n"):
        if line.isascii():
            probes = probes or {p for t in terms for p in _probes(t)}  # made at the first ASCII line only
            low = line.lower().replace("'", "")
            if not any(p in low for p in probes):
                continue
        found.update(t for t in tokenize(line) if t in terms)
        if len(found) == len(terms):
            break
    return found


#: characters of a query recall reads: a prompt longer than this (a pasted log, a whole file) is read as its first and
#: last halves of it, where the question usually is. Recall looks up every distinct word of its query (~8 ms per
#: 1,000 characters of distinct words), so a 1 MB prompt took the prompt hook past its time budget and showed nothing
QUERY_MAX_CHARS = 8000


def bounded_query(text: str) -> str:
    """``text`` when it has at most :data:`QUERY_MAX_CHARS` characters, else its first and last
    ``QUERY_MAX_CHARS // 2`` (each cut at a whitespace when one is near, so no word is cut in two) joined by a line
    break."""
    if not isinstance(text, str) or len(text) <= QUERY_MAX_CHARS:
        return text
    half = QUERY_MAX_CHARS // 2
    head, tail = text[:half], text[-half:]
    cut = max(head.rfind(" "), head.rfind("\n"))
    head = head[:cut] if cut > half - 200 else head
    cut = min((i for i in (tail.find(" "), tail.find("\n")) if i >= 0), default=-1)
    tail = tail[cut + 1:] if 0 <= cut < 200 else tail
    return head + "\n" + tail


def query_tokens(text: str, *, repeats: bool = False) -> list[str]:
    """Tokens of a query, in first-seen order, with stopwords dropped unless nothing else is left.

    Distinct by default; with ``repeats`` every occurrence is kept (BM25 counts a term the user repeats,
    :func:`memdir.recall.bm25.score`)."""
    toks = tokenize(text, unigrams=False)
    content = [t for t in toks if not is_stop(t)] or toks
    return content if repeats else list(dict.fromkeys(content))


_han_runs: re.Pattern[str] | None = None


def han_unigrams(text: str) -> list[str]:
    """The characters of a query's Han runs of two or more, in order, with repeats, Chinese function characters
    (:data:`ZH_FUNCTION_CHARS`) left out: ``跑来跑去`` → ``跑 来 跑 去``. Recall adds them to the query's bigrams at a
    reduced weight (``recall.cjk_unigram_weight``), so ``赛跑`` meets ``跑步`` and ``绘画`` meets ``画画``; documents
    index these unigrams already (case C17). The pattern is compiled on first use."""
    global _han_runs
    if not isinstance(text, str) or text.isascii():
        return []
    if _han_runs is None:
        _han_runs = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]{2,}")
    return [c for run in _han_runs.findall(nfkc(text)) for c in run if c not in ZH_FUNCTION_CHARS]


def is_cjk_char(ch: str) -> bool:
    """A Han, kana or hangul character."""
    return _cjk_re().match(ch) is not None and not ("\u0e00" <= ch[:1] <= "\u0eff" or "\u1000" <= ch[:1] <= "\u109f"
                                                    or "\u1780" <= ch[:1] <= "\u17ff")


def is_function_bigram(token: str) -> bool:
    """A two-character Han token with exactly one Chinese function character (:data:`ZH_FUNCTION_CHARS`): ``我要``,
    ``的魔``, ``比赛``. Half of a stop bigram: it often spans a word boundary, and where it is a word its function
    character makes it a common one. Recall weighs it by ``recall.cjk_function_bigram_weight``."""
    return (len(token) == 2 and (token[0] in ZH_FUNCTION_CHARS) != (token[1] in ZH_FUNCTION_CHARS)
            and all("\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" for c in token))


def is_stop(token: str) -> bool:
    """An English stopword, or a CJK token made only of Chinese function characters (a stop bigram)."""
    if token in STOPWORDS:
        return True
    return len(token) <= 2 and all(c in ZH_FUNCTION_CHARS for c in token)


def fts_query(tokens: list[str]) -> str:
    """Build an FTS5 MATCH expression: the OR of quoted tokens (a document matching any term is a candidate).

    Returns ``""`` for no tokens. Quoting makes every token a literal, so operators in user text are inert.
    """
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)
