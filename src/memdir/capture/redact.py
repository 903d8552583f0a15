"""Secret redaction: every secret in a text becomes ``[redacted:<kind>]`` before it is stored.

Public API (what the core calls)::

    redact(text) -> str
    find_secrets(text) -> list[tuple[kind, start, end]]
    redact_with_kinds(text) -> tuple[str, list[kind]]
    KINDS  # frozenset of every kind name this module can report

Why our own regex table and not a detector library
--------------------------------------------------
``detect-secrets`` 1.5.0 (PyPI) was evaluated on this machine (Python 3.11, 2 cores):

* importing its scanner costs about 90-100 ms, paid on every hook invocation (this module: ~6 ms);
* it reports the *value* of a finding, never its offsets, and for some plugins the value is only a
  capture group (``GitHub Token`` reports ``"ghp"``), so it cannot drive a replacement;
* it scans line by line, so a multi-line PEM block is only flagged on its BEGIN line;
* it misses ``sk-proj-`` keys, Chinese labels (``密码：``), ``<private>`` spans, and its entropy
  plugins flag ordinary words (``password=hunter2`` came back as "Base64 High Entropy String");
* a 10 KB plain-text scan took ~36 ms (this module: ~0.5-1 ms).

So memdir keeps a small table of anchored regular expressions (prefix formats of providers are
facts published by each provider) plus two hand-written scanners (PEM blocks, ``<private>`` spans).
No entropy-only detection: it produces false positives on git SHAs, UUIDs and base64 data. Bare long hex and
base64 keys (seed 001) are found by :func:`_scan_blobs`, which needs more than entropy: a standalone token of a
key-like length, no hash/id/encoding word before it on its line, base64 decoding to binary, no file magic, not
a wrapped block (``bench/redact_fp.py`` measures the findings on the prose corpus and real transcripts).

Choices
-------
* URIs with credentials (``postgres://user:pass@host/db``, any ``scheme://user:pass@``): only the
  password is replaced, ``postgres://user:[redacted:db_uri]@host/db``, so the memory still says
  which database and user were meant. Kind ``db_uri`` for database/broker schemes, ``uri_password``
  for any other scheme. A token given as the user (``https://<token>@github.com``, a Sentry DSN's key) is
  replaced whole, kind ``uri_token``.
* ``key = value`` assignments (``password=``, ``"api_key": "…"``, ``token:``, ``密码：``): only the
  value is replaced; the key stays readable. Obvious placeholders (``$VAR``, ``${…}``, ``<…>``,
  ``{{…}}``, ``***``, ``None``, ``str``, dotted code expressions, calls) are not secrets.
* Base64 that decodes to text holding a secret (a Kubernetes Secret's ``data``, a docker config's ``auth``): the
  whole value (:func:`_scan_encoded`).
* PEM / PGP private key blocks: the whole block including BEGIN/END lines, over any number of
  lines (also with literal ``\\n`` escapes, as in JSON service-account files). A BEGIN line with
  no END is redacted through the base64 body that follows it.
* ``<private>…</private>`` (case-insensitive, nested, multi-line): the whole span including the
  tags. An unclosed ``<private>`` redacts to the end of the text (fail closed) unless it is quoted
  like ```<private>``` or ``"<private>"``, which reads as a mention of the tag.
* Invisible characters (zero-width, joiners, BOM, soft hyphen, bidi marks, variation selectors…) and URL escapes
  (``%2E``) inside a key do not hide it: keys are also looked for with them taken out and the finding covers them
  (:func:`_unhidden_spans`); a provider's key glued to more base64 (``…+XYZ/09==``) is taken through it. The same
  second look reads JSON held in a string (``{\\"password\\": \\"x\\"}``, ``\\u5bc6\\u7801``, a key before ``\\n``) and JSON
  or a config line URL-encoded whole (``%22password%22%3A%22x%22``) as the text they encode.
* ``config set KEY VALUE`` commands (``npm config set //…/:_authToken X``, ``git config github.token X``): the value
  when the setting's last word names a credential. Cookies, in real cookie forms only (a ``Cookie:``/
  ``Set-Cookie:`` header at a line start or in ``-H``/a header list, ``--cookie``/curl ``-b``, ``document.cookie = "…"``, a
  cookie dict or jar call whose value is a string literal): the values of session or credential cookies (by the whole
  name or its last part: ``sessionid``, ``connect.sid``; not ``sidebar``) and of random-looking ones; the names stay.
* Providers whose prefix is a common word (Mailgun ``key-``, Octopus ``API-``) only with the provider named nearby.
* A secret read by its line's layout (a table's row, a ``.pgpass`` line, YAML's value on the next line, a PuTTY key's
  lines) is read behind a prefix a tool or a format put before the line (a diff's ``+``/``-``, ``> ``, a line number
  as Claude Code's Read, ``cat -n``, grep or ``rg -n`` print it, a list's or a comment's mark: :data:`_LINE_PREFIX`);
  the prefix stays. So does a command a check wants at its line's start (``AUTH x``, a Dockerfile's ``ENV``, ``conn``,
  ``http -a``: :func:`_line_lead`), and a ``-``/``+`` ending such a prefix is no word a key is glued to (``-AKIA…``).
* Overlapping findings are merged into one span (nothing of either leaks); its kind is the most
  specific one (e.g. ``token=ghp_…`` reports ``github_token``, not ``token``).
* Idempotent: existing ``[redacted:…]`` markers are never re-redacted, and :func:`redact` repeats
  its pass until nothing is found, so ``redact(redact(x)) == redact(x)``.

Any provider's key shape (case C26) is found by :func:`_scan_prefixed` (a short prefix, ``-``/``_``, a random tail of
24+ chars; ids by their prefix are not findings), long hex/base64 (either alphabet, URL-safe ``-_`` too) after a key
label (``KEY=``, ``token:``, ``key = Fernet(b'…')``; case C44) by
:func:`_scan_labelled`. Both wake on a run of 22 ``[A-Za-z0-9+/]`` (:func:`_has_key_run`), the pre-filter's third
trigger.

Not covered (documented limits): a secret split across lines or messages; bare values with no
label and no prefix other than long hex/base64 (a 40-hex token reads as a git SHA; a random password
alone on a line); a prefixed key whose tail is single-case or lower-case hex; an
unquoted password containing spaces after ``:``. Values inside JSON-escaped text are ended at an
escaped newline by the second look (:func:`_unhidden_spans`); the first may take one a little too far (through a
literal ``\\n``), never too short.

Performance: patterns start with a literal (found with ``str.find``, then ``re.match`` there), the
word boundary before a match is checked in Python, and every repeat is possessive (Python >= 3.11)
and bounded, so no pattern backtracks over a run it has already consumed: time is linear in the
input. Figures (``bench/redact_bench.py``): this module imports in ~6 ms; ``redact()`` of 10,000
chars of prose or code takes ~0.5-1 ms, of real agent transcripts ~2 ms.
"""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Callable, Iterator

__all__ = ["KINDS", "MARKER_RE", "find_secrets", "redact", "redact_span", "redact_with_kinds"]

#: A redaction marker as produced by this module.
MARKER_RE = re.compile(r"\[redacted:[a-z0-9_]{1,40}\]")

_MAX_PASSES = 8

# Boundaries. A rule with ``pre=_W`` refuses a match preceded by a word or base64url char, so a
# key-like substring inside a longer token is never reported. Formats made of plain alphanumerics
# (``AIza…``, ``SK`` + hex) could occur inside a standard base64 blob (an image's data URI), so they
# use ``_W64`` / ``_B64_END``, which also refuse ``+`` and ``/`` (not ``=``: it precedes the value in
# ``KEY=value``). Checking the char before a match in Python, rather than with a leading
# look-behind, lets every pattern start with a literal, which CPython's ``re`` searches for fast.
# A key of a fixed shape (``AKIA`` + 16, ``AIza`` + 35) may still stand between slashes (``facts/AKIA…``,
# ``keys/AKIA….txt``, a URL's path): ``_SEG``/``_SEG_END`` allow that, since a blob's run of base64 matching the
# exact shape with a slash on both sides is far rarer than a key pasted into a path.
_W = frozenset(string.ascii_letters + string.digits + "_-")
_W64 = _W | {"+", "/"}
_SEG = _W | {"+"}
_W_GLUED = _W - {"_", "-"}  # see _tok: a self-separating prefix may follow a dash or an underscore
#: word pieces that make a prefix an ordinary identifier's part, not a provider's mark: ``key-`` (``cache-key-<md5>``),
#: ``API-`` (``ORDER-API-<ulid>``); a prefix shorter than 4 (``hf_``: ``test_hf_Tokenizer``) is no mark glued either
_COMMON_PIECES = frozenset(("key", "api", "pat", "sat", "tok", "token", "auth", "pass", "id", "sk", "pk"))
_KEYCHARS = frozenset(string.ascii_lowercase + string.digits + "_.-")
_B_END = r"(?![A-Za-z0-9_-])"
_B64_END = r"(?![A-Za-z0-9_+/-])"
_SEG_END = r"(?![A-Za-z0-9_+-])"

# Priorities: a merged cluster of overlapping findings takes the kind of its highest priority member.
_P_PRIVATE = 100
_P_PEM = 90
_P_PROVIDER = 50
_P_JWT = 40
_P_URI = 30
_P_HEADER = 20
_P_ASSIGN = 10

_Check = Callable[[re.Match[str], str, str], bool]  # (match, value from the original text, text)


_ALL_LAZY: list["_Lazy"] = []  # every lazily compiled pattern of this module, for compile_all


def compile_all() -> int:
    """Compile every detector's pattern now (a process that answers many calls, such as ``memdir mcp``, does it in a
    background thread at start, so its first reply does not pay for them); returns how many were compiled."""
    n = 0
    for lazy in list(_ALL_LAZY):
        if lazy._compiled is None:
            lazy.get()
            n += 1
    return n


class _Lazy:
    """A regular expression compiled on first use: a hook process pays only for the rules whose
    literals occur in its text (compiling the whole table costs several ms per process)."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None
        _ALL_LAZY.append(self)

    def get(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled


class _Rule:
    """One detector: ``regex`` (lazily compiled) and how to read and vet its matches."""

    __slots__ = ("kind", "_regex", "hints", "priority", "group", "check", "pre", "lowered", "trim", "anchors", "whole")

    def __init__(self, kind: str, regex: _Lazy, hints: tuple[str, ...], *, priority: int = _P_PROVIDER,
                 group: str | int = 0, check: _Check | None = None, pre: frozenset[str] = _W,
                 lowered: bool = False, trim: str = "", anchors: tuple[str, ...] = (), whole: str = "") -> None:
        self.kind = kind
        self._regex = regex
        self.hints = hints  # the rule runs only when one of these occurs in the text it scans
        self.priority = priority
        self.group = group  # the secret's part: "qval" when it matched, else this ("val" if 0 and present)
        self.check = check
        self.pre = pre  # chars that may not stand right before the match
        self.lowered = lowered  # pattern and hints are lower case and run on the lowered text
        self.trim = trim  # chars dropped from the end of the value (closing quotes, punctuation)
        self.anchors = anchors  # literals every match starts with: found by str.find, then matched
        # an unquoted value runs on to the end of its word (:func:`_word_end`): "before" the check reads it (prose,
        # where a password is a word), "after" it passed (assignments: the check's rules read the value as matched)
        self.whole = whole

    @property
    def regex(self) -> re.Pattern[str]:
        return self._regex.get()


def _r(pattern: str) -> _Lazy:
    return _Lazy(pattern)


#: what a tool or a format puts before a file's line: a diff's ``+``/``-`` (not ``+++``/``---``) or grep's ``file:12:`` /
#: ``file-12-`` first, then up to four marks: a line number (``  154→``, ``cat -n``'s ``   12<tab>``, ``rg -n``'s ``12:``),
#: a quote (``> ``), a tree's, list's or box's mark, a comment's (``# ``, ``// ``, ``-- ``, ``; ``). The indentation after
#: them is the line's own (YAML reads it). A pattern string: the rules that read a line's layout (a table row, a
#: ``.pgpass`` line, YAML's value on the next line, a PuTTY key's lines) take it, optional, where their line starts.
_PREFIX_MARK = (r"(?:[ \t]{0,16}+(?:[0-9]{1,7}[→\t:-]|>{1,8}|[│┃║⎿](?![─━═])|[-*+](?=[ \t])"
                r"|[0-9]{1,3}[.)](?=[ \t])|#{1,4}|//|--(?=[ \t])|;{1,2})[ \t]?)")
_LINE_PREFIX = (r"(?:(?:[+-](?![+-])|[\w./~@+]{0,200}+(?:-(?![0-9]{1,7}-)[\w./~@+]{0,200}+){0,8}+[:-][0-9]{1,7}[:-])"
                + _PREFIX_MARK + "{0,4}|" + _PREFIX_MARK + "{1,4})")
_LINE_PREFIX_RE = _Lazy(_LINE_PREFIX)


def _line_lead(text: str, i: int) -> str:
    """What stands before ``i`` on its line (at most 300 characters back), the line's prefix (:data:`_LINE_PREFIX`: a
    diff's ``+``, ``> ``, a line number) left out: blank when ``i`` starts the line's own text."""
    lo = max(0, i - 300)
    nl = text.rfind("\n", lo, i)
    start = nl + 1 if nl >= 0 else lo
    if nl >= 0 or lo == 0:  # a line's start, not the middle of a long line
        m = _LINE_PREFIX_RE.get().match(text, start)
        if m is not None:
            start = min(m.end(), i)
    return text[start:i]


# ---------------------------------------------------------------------------------------------
# Value filters for the generic rules
# ---------------------------------------------------------------------------------------------

_PLACEHOLDER_WORDS = frozenset(
    """
    none null nil true false undefined required optional empty unset default yes no
    str string bytes int integer bool boolean secretstr secretbytes any object dict list
    password passwd pwd pw token secret key value xxx xxxx xxxxx redacted hidden masked
    your_password your_token your_api_key yourpassword placeholder dummy example
    env environ getenv getpass input prompt os process config settings self this
    """.split()
)

_PLACEHOLDER_RE = _Lazy(
    r"""(?x)
    \$\{?[A-Za-z_]                       # $VAR, ${VAR}, ${{ secrets.X }}
    | \{\{ | \{[A-Za-z_][\w.]*\}          # {{ jinja }}, {name}
    | <[^>]*>                           # <your-token>
    | %\(\w+\)[sdr]\Z | %[sdr]\Z           # %s, %(name)s, %(DB_PASS)s
    | ![A-Za-z_]+\Z                      # a YAML tag: !vault, !Ref, !ENV
    | (?:required|nullable|sometimes|confirmed)(?:\|[\w:,.-]+)+\Z  # validation rules: required|min:8
    | \*{3,} | x{4,} | X{4,} | \.{3} | …  # masks and ellipses
    | \[redacted                           # our own marker
    | (?i:redacted|placeholder)
    | [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z        # ENV_VAR_NAME, REDACTED_API_KEY
    """
)

_STRING_PREFIXES = frozenset({"f", "r", "b", "u", "rb", "br", "fr", "rf"})
_WORDY = _Lazy(r"[A-Za-z][a-z]*(?:[-_ ][A-Za-z][a-z]*)+")  # not-needed-for-local, Use Your Own Key
_DOTTED_EXPR_RE = _Lazy(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


#: a variable read with TypeScript's non-null ``!`` (``process.env.API_KEY!``, ``this.config.token!``): a reference to
#: a secret, not one (the ``!`` made it read as a symbol-mixing password)
_NON_NULL_REF = re.compile(r"(?:process\.env|import\.meta\.env|Deno\.env|env|config|settings|options|opts|secrets"
                           r"|this(?:\.[A-Za-z_$][\w$]*)?)\.[A-Za-z_$][\w$]*!")


def _is_placeholder(value: str) -> bool:
    v = value.strip()
    if not any(c.isalnum() for c in v):  # "", "\\", "-", "***"
        return True
    if _NON_NULL_REF.fullmatch(v):
        return True
    if v.lower().strip("_-") in _PLACEHOLDER_WORDS:
        return True
    return _PLACEHOLDER_RE.get().match(v) is not None


#: a passphrase of words: three or more runs of letters joined by ``-`` or ``_`` (``correct-horse-battery-staple``)
_PASSPHRASE = re.compile(r"[^\W\d_]{3,}(?:[-_][^\W\d_]{3,}){2,}")


#: words that make a hyphenated value read as prose or a setting, not a passphrase (``not-required-locally``,
#: ``from-secrets-manager``, ``rotate-every-ninety-days``)
_PROSE_WORDS = frozenset("""not none from into via per every must should will can may use see ask never always default
required optional locally env environment manager configured disabled enabled same empty blank""".split())
#: the key a passphrase follows: its last word names a password (``db_password``, ``passphrase``), not a reference to
#: one (``passwordSecret``, ``admin_password_ref``)
_PASSWORD_KEY_END = re.compile(r"(?:password|passwd|passphrase|pwd)$", re.I)


#: the same words run together, each capitalised (``CorrectHorseBatteryStaple``)
_CAMEL_PASSPHRASE = re.compile(r"(?:[A-Z][a-z]{2,}){3,}")
_CAMEL_WORD = re.compile(r"[A-Z][a-z]+")


def _is_passphrase(value: str) -> bool:
    """A value of letters alone that is still a secret after a password's name: three or more words of three letters
    or more joined by ``-`` or ``_`` or run together capitalised, 15 characters or more, none of them
    :data:`_PROSE_WORDS` (``correct-horse-battery-staple``, ``CorrectHorseBatteryStaple``; ``see-the-docs``,
    ``not-required-locally`` are prose)."""
    if len(value) < 15:
        return False
    if _PASSPHRASE.fullmatch(value) is not None:
        words = re.split(r"[-_]", value.lower())
    elif _CAMEL_PASSPHRASE.fullmatch(value) is not None:
        words = [w.lower() for w in _CAMEL_WORD.findall(value)]
        if any(w in _PLACEHOLDER_WORDS or w in _VALUE_WORDS for w in words):  # a type's name: SecurePasswordInput
            return False
    else:
        return False
    return not any(w in _PROSE_WORDS for w in words)


def _numeric_password(value: str) -> bool:
    """A password of digits (and symbols) alone, after a password's own name: six characters or more, digits mostly
    (``84736291``, ``19870412!``; a PIN-like code). Shorter ones read as a count or a length (``password: 8``)."""
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 6 and not any(c.isalpha() for c in value) and digits * 2 > len(value) \
        and not any(c in value for c in "/.:-,")


def _looks_secretish(value: str) -> bool:
    """A bare word after a weak separator (``:``, `` = ``, ``is``) counts only when it mixes letters
    with digits or with symbols other than ``-'.`` (so ``token: the``, ``Token is one-time`` and
    ``Password: Enter`` in prose are not findings, ``hunter2`` and ``p@ss!word`` are)."""
    if len(value) < 6:
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_sym = any(not c.isalnum() and c not in "-'._" for c in value)
    return has_alpha and (has_digit or has_sym)


_LABEL_RE = re.compile(r"[A-Za-z_][\w.-]{0,40}[:=]?")
_LABEL_WORDS = ("pass", "pwd", "token", "secret", "key", "auth", "cred")


#: digits inside a word, between its letters (``Tig3r``, ``Adm1n``, ``P4ss``): a password's spelling, not a name's
_DIGITS_IN_WORD = re.compile(r"[A-Za-z][0-9]+[a-z]")
_ASCII_LOWER_LETTERS = frozenset(string.ascii_lowercase)


def _numbered_credential_word(value: str) -> bool:
    """Digits ending a word that is itself a credential's word in lower case (``mypassword123``, ``Password1``,
    ``mytoken2024``, ``MySecret99``): a common password's spelling. A name's number follows a separator
    (``DB_PASSWORD_2``, ``password_v2``) or another word (``passwordHash2``)."""
    head = value.rstrip(string.digits)
    i = len(head)
    if i == len(value):
        return False
    while i > 0 and head[i - 1] in _ASCII_LOWER_LETTERS:
        i -= 1
    if i == len(head):
        return False
    if i > 0 and head[i - 1].isupper():
        i -= 1
    word = head[i:].lower()
    return any(w in word for w in _LABEL_WORDS)


def _is_label(value: str) -> bool:
    """Does ``value`` read as another credential label (``passwd:``, ``refreshToken``) rather than a secret? A value
    with digits inside its words (``Tig3rPass99``, ``Adm1nToken77``) or after a credential's word ending it
    (``mypassword123``, ``Password1``) is a password holding the word, unless it ends in a label's ``:`` or ``=``."""
    if not (_LABEL_RE.fullmatch(value) and any(w in value.lower() for w in _LABEL_WORDS)):
        return False
    return value.endswith((":", "=")) or (_DIGITS_IN_WORD.search(value) is None
                                          and not _numbered_credential_word(value))


#: ``pw`` as a credential name: the whole key, or its last word (``db_pw``, ``admin-pw``), not ``npw`` or ``hpw``
_PW_KEY = re.compile(r"(?:^|[_\-.])pw$", re.I)
#: ``pass`` as the last word of a longer key (``DB_PASS``, ``smtp.pass``): a password's name, not a test's verdict
_PASS_KEY = re.compile(r"[a-z0-9][_\-.]pass$", re.I)
#: hash, key-derivation, cipher and curve names: what follows "password" or 密钥 in prose about how secrets are kept
#: (``password hashing algorithm is argon2id``, ``密钥 ed25519``)
_KDF = re.compile(r"^(?:argon2(?:id|i|d)?|bcrypt\d*|scrypt|yescrypt|pbkdf2(?:[-_]?sha\d+)?|sha-?\d+|md5|hmac[-_]?\w*"
                  r"|blake2\w*|sha3[-_]?\d+|aes-?\d+(?:[-_]\w+)?|rsa-?\d+|(?:ed|x|curve)25519|ed448|secp\d+[rk]1"
                  r"|p-?(?:256|384|521)|[hre]s(?:256|384|512)|chacha20(?:-?poly1305)?)$", re.I)


def _algorithm(value: str) -> bool:
    """An algorithm's name, alone or with a word after it (``argon2id``, ``SHA256-hashed``, ``AES-256``)."""
    head, _, rest = value.partition("-")
    return _KDF.match(value) is not None or (_KDF.match(head) is not None and rest.isalpha())


#: a dash or an arrow between a name and its value, with spaces around (``Token - X``, ``TOKEN ⇒ X``, ``token ==> X``):
#: prose as often as an assignment, so its value must look random (:func:`_check_assignment`)
_ARROW_SEPS = ("-", "–", "—", "→", "->", "⇒", "⟹", "⟶", "➜", "➔", "➡", "↦", "==>", "-->")
_ARROWS = "(?:" + "|".join(re.escape(a) for a in sorted(_ARROW_SEPS, key=len, reverse=True)) + ")"


#: a personal access token: one run of letters, digits, ``_`` and ``-`` (GitHub's ``ghp_…``/``github_pat_…`` and hex
#: ones, GitLab's ``glpat-…``, Azure DevOps' base32); under a ``…_PAT`` name a value with other characters is a
#: pattern (``GLOB_PAT=**/dist``, ``LOG_PAT = "ERROR|WARN"``, ``HEADER_PAT = 'Content-Type: …'``)
_PAT_VALUE = re.compile(r"[A-Za-z0-9_-]{20,256}")


def _pat_shaped(value: str) -> bool:
    return _PAT_VALUE.fullmatch(value) is not None and _looks_secretish(value)


def _check_assignment(m: re.Match[str], value: str, text: str) -> bool:
    kw = m.start("kw")
    hay = m.string
    i = kw
    while i > 0 and hay[i - 1] in _KEYCHARS and kw - i <= 40:
        i -= 1
    if i > 0 and hay[i - 1] in _KEYCHARS:  # key longer than 40 chars: not a credential name
        return False
    key = hay[i : m.end("kw")]
    if _is_placeholder(value) or value.startswith("="):
        return False
    if " " in m.group("kw") or m.group("sep").strip() in _ARROW_SEPS:
        # "api key: …" in prose, "pwd -> /home/dev", "Token - v2.3.1", "password -> passwordHash2": a key's random
        # string (not a word, a path, a version, another label or "OAuth2")
        if m.group("q") is None and (any(c in value for c in "/.~\\") or _is_label(value)):
            return False
        if _shell_expansion(value) or _WORDY.get().fullmatch(value) or "/" in value:
            return False
        if ("pass" in key or "pwd" in key) and " " not in m.group("kw"):  # password - Qz8Wx7Ec6Rv: mixed case or a symbol
            return len(value) >= 8 and _looks_secretish(value) and (
                (any(c.isupper() for c in value) and any(c.islower() for c in value)) or not value.replace("_", "").isalnum())
        return len(value) >= 16 and _looks_secretish(value)
    # yarn's npmAuthIdent holds "user:password"
    is_password = "pass" in key or "pwd" in key or _PW_KEY.search(key) is not None or key.lower().endswith("authident")
    if m.group("kw") == "pw":  # a short name: a credential only as a word ("pw", "db_pw") holding a secret-like value
        if _PW_KEY.search(key) is None or not _looks_secretish(value):
            return False
    if m.group("kw") == "pass":  # DB_PASS=sunshine, smtp.pass: x; a bare "pass" is a test runner's verdict (PASS: …)
        if _PASS_KEY.search(key) is None or len(value) < 4:
            return False
    after = m.end("val") if m.group("val") is not None else -1
    if _is_label(value) and (value.endswith((":", "=")) or (0 <= after < len(hay) and hay[after:after + 4].lstrip(" \t").startswith((":", "=")))):
        return False  # 'password: passwd: X', 'token: refreshToken = X': the "value" is the next label; its own rule redacts X
    if 0 <= after < len(hay) and hay[after] in "\"'" and value.lower() in _STRING_PREFIXES:
        return False  # password = f"{x}", token=b'...': a string literal's prefix, not a value
    if m.group("q") is not None:
        # A quoted literal: any password counts (short ones exist); a token or key is a long random
        # string, so ``apiKey: 'ollama'`` or ``'proxy-handled'`` (dummy values) are not findings.
        return is_password or _looks_secretish(value) or (len(value) >= 20 and not _WORDY.get().fullmatch(value))
    if _DOTTED_EXPR_RE.get().fullmatch(value):  # self.password, os.environ, settings.API_KEY
        return False
    if value.isdigit() and not is_password:  # token: 42, auth=1
        return False
    if m.group("sep") == "=":  # PASSWORD=hunter2, ?token=abc, --password=x: beyond doubt
        return True
    if _looks_secretish(value) or (is_password and _numeric_password(value)):
        return True
    if _PASSWORD_KEY_END.search(key) is None or not _is_passphrase(value):
        return False
    # words run together followed by ``;``, ``,``, a bracket or ``=`` are a type in a signature, not a passphrase
    return not (0 <= after < len(hay) and hay[after:after + 1] in ";,)]}>=(<")


def _check_is_phrase(m: re.Match[str], value: str, text: str) -> bool:
    if _is_placeholder(value):
        return False
    # "the wifi passphrase is correct-horse-battery-staple": the password's own name right before "is", not a
    # policy's or a flag's ("the password policy is …", "the token bypass flag is …")
    if "://" in value or _algorithm(value):  # "the password reset link is https://…", "… is argon2id"
        return False
    if m.group("q") is not None or _looks_secretish(value):
        return True
    if _PASSWORD_IS.match(m.group(0)) is None:
        return False
    if _numeric_password(value):  # "the password is 84736291"
        return True
    # "set the password to sunshine": letters alone, ending where the letters rule's value ends
    end = _VALUE_END_RE.get().match(text, m.end())
    return _is_passphrase(value) or (value.isalpha() and end is not None and end.group("eol") is not None
                                     and _check_letters_password(m, value, text))


#: "password is" / "passphrase was" ("the password for prod is …"), and the set-the-password-to rule (its password name stands right before "to")
_PASSWORD_IS = re.compile(r"(?:password|passwd|passphrase|pwd)(?:[ \t]{1,4}(?:for|at|on|of|in)[ \t]{1,4}[\w.-]{1,40})?"
                          r"[ \t]{1,4}(?:is|was):?[ \t]"
                          r"|(?:set|sets|setting|change|changed|changes|changing|reset|update|updated)[ \t]", re.I)


def _check_bare_password(m: re.Match[str], value: str, text: str) -> bool:
    """A value right after "password" (no ``is``/``:``/``=``): letters and digits both, not a path, a file name, an
    identifier with dots or a URL (``password_v2.txt``, ``config.password2``). In quotes (``password 'N3wPass!'``) it
    is never another label, and one of lower-case letters, digits and ``_`` shorter than 8 is an identifier
    (``password "column1"``, ``'field_1'``, ``"utf8mb4"``)."""
    quoted = "q" in m.re.groupindex and m.group("q") is not None
    if _is_placeholder(value) or (not quoted and _is_label(value)) or "/" in value or "." in value.strip(".!?:") \
            or _algorithm(value) or _shell_expansion(value):
        return False
    if quoted and (re.fullmatch(r"[a-z0-9]*_[a-z0-9_]*", value) or (re.fullmatch(r"[a-z0-9]+", value) and len(value) < 8)):
        return False
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


#: words that make a value of letters after a password's name read as a sentence about it, not a password ("password:
#: see the vault for details", "the password is stored securely in keychain", "the password was incorrect"):
#: :data:`_PROSE_WORDS`, :data:`_PLACEHOLDER_WORDS` and these
_SENTENCE_WORDS = _PROSE_WORDS | _PLACEHOLDER_WORDS | frozenset("""the and for with your our their this that these those
you they them its are was were been being have has had but than then when where what which while would could might
just only also very some any all each other such more most less much many few both here there now once again still
yet even back out off too used using set get got make made enter type click press check try leave keep stored saved
kept sent read found missing wrong invalid expired incorrect changed reset updated rotated generated hashed encrypted
salted length characters letters digits symbols contain contains field account user login please before after
""".split())
#: words that read as what a password is like or what became of it, not what it is ("the password is weak",
#: "password: unchanged"): a one-word value that is one of them is not a password
_PASSWORD_ADJECTIVES = frozenset("""weak strong valid secure insecure correct visible mandatory unknown lost forgotten
temporary short simple complex good fine okay different current right sensitive plaintext cleartext unchanged accepted
rejected ignored needed shown correctly unused necessary important somewhere elsewhere nowhere unique identical similar
useful useless public private personal common obvious known shared separate specific global local long empty
blank""".split())
#: a setting's or a status's word, or a type's, where a value stands (``password: keyring``, ``Reset password:
#: success``, ``password: Buffer``): not a password either
_VALUE_WORDS = frozenset("""success failure fail failed pending unavailable available error errors timeout denied done
random keyring keychain interactive vault prompt file files plain auto manual buffer column bytearray constr field text
varchar blob binary digest ciphertext hash hashes passphrase uuid stdin stdout stderr store storage manager
provider expire expires change rotate lock unlock match nothing something anything irrelevant overwritten rewritten
configurable mismatch external inline given readonly writeonly nullable varbinary opaque confidential exclude partial
forbidden credential credentials argon zeroize sorry""".split())
#: a word that starts what is said after a password ("ssh password: letmein on the jump host", "… is sunshine and the
#: user is bob"): the password's words end before it
_CONNECTOR = r"(?:and|for|on|at|to|from|with|but|so|of)"
#: where a password of letters ends: its line, or a sentence's end before the next one's word (``eol``); a passphrase
#: of words may also end before a connecting word or a CJK character (``more``: a single word there is too often
#: prose). One run of blanks at a time, so a long run of them costs linear time.
_VALUE_END = (r"(?:(?P<eol>[.!?]?[ \t]*(?:\r?\n|\Z)|[.!?][ \t]+(?=[^\W\d_]))"
              r"|(?P<more>[ \t]+" + _CONNECTOR + r"[ \t]|[ \t]?(?=[\u3000-\u9fff])))")
_VALUE_END_RE = _Lazy(_VALUE_END)
#: what may not stand right before a password's name for the letters rule: a word or a path's part (``/etc/passwd:``)
_KEY_BEFORE = frozenset(string.ascii_letters + string.digits + "/.\\")
#: endings of a past participle or a gerund: "the password was compromised / expiring", never the password
_STATE_ENDING = re.compile(r"(?:ed|ing)$")


def _check_letters_password(m: re.Match[str], value: str, text: str) -> bool:
    """A value of letters alone after a password's name (:data:`_KEYWORD_RULES`): one word, or four or more spaced
    words (18 characters or more), is a password unless it reads as words about one: a sentence's word
    (:data:`_SENTENCE_WORDS`), and for one word also a state (:data:`_PASSWORD_ADJECTIVES`, a participle's or
    gerund's ending), a setting's, status's or type's word (:data:`_VALUE_WORDS`), a hash function's name, or an
    identifier made of such words (``hashedPassword``, ``NotRequiredLocally``)."""
    words = value.lower().split()
    if len(words) > 1:
        return len(value) >= 18 and not any(w in _SENTENCE_WORDS for w in words)
    if "eol" in m.re.groupindex and m.group("eol") is None:  # one word before more words: too often prose
        return False
    word = words[0]
    if _KDF.match(value) or _is_placeholder(value) or word in _PASSWORD_ADJECTIVES or word in _VALUE_WORDS:
        return False
    if _STATE_ENDING.search(word):
        return False
    if value.isupper() and any(x in value for x in ("PASS", "PWD", "SECRET", "TOKEN", "KEY")):
        return False  # an environment variable's name: password: PGPASSWORD
    parts = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", value)]
    return not any(w in _SENTENCE_WORDS or w in _VALUE_WORDS or w in _PASSWORD_ADJECTIVES for w in parts)


def _check_cli_flag(m: re.Match[str], value: str, text: str) -> bool:
    return not _is_placeholder(value) and not value.startswith("-")


#: the words before a last word ``key`` that make an option name a credential (``--account-key``, ``--secret-key``;
#: not ``--sort-key``, ``--ssh-key``, ``--cache-key``)
_FLAG_KEY_QUALIFIERS = frozenset("""api secret access private license encryption master client auth account storage
subscription shared sas app admin""".split())


def _compound_flag_kind(name: str) -> str | None:
    """The kind a compound credential option's name says (``admin-password``: password, ``bot-token``: token,
    ``webhook-secret``: secret, ``account-key``: api_key), or None when its last word ``key`` names no credential."""
    words = [w for w in re.split(r"[-_]", name) if w]
    last = words[-1]
    if last in ("password", "passwd", "pass", "pwd"):
        return "password"
    if last in ("token", "authtoken", "authkey") or (last == "key" and len(words) > 1 and words[-2] == "auth"):
        return "token"
    if last == "secret":
        return "secret"
    if last == "key" and len(words) > 1 and words[-2] in _FLAG_KEY_QUALIFIERS:
        return "secret" if words[-2] in ("secret", "private", "encryption", "master") else "api_key"
    return None


def _named_in_prose(m: re.Match[str], value: str) -> bool:
    """True when an option is named in a sentence, not given a value: after white space (not ``=``) an unquoted word
    of a sentence or one that opens a parenthesis ("needs --token (or $MEMDIR_TOKEN)", "--token must be …", "use
    --password when asked", "the --password flag")."""
    if "q" in m.re.groupindex and m.group("q") is not None:
        return False
    start = m.start("val") if m.group("val") is not None else m.end()
    if start > 0 and m.string[start - 1] == "=":
        return False
    # "(or $MEMDIR_TOKEN)" opens an aside; "(hunter2)" is a value in parentheses
    return value.lower().lstrip("(").rstrip(",.;:!?)") in _OPTION_PROSE


def _check_token_flag(m: re.Match[str], value: str, text: str) -> bool:
    """``--token X``, ``--api-key X``, ``--secret X``: any value but a placeholder, a shell expansion or a word of the
    sentence the option is named in (:func:`_named_in_prose`); one in quotes holding spaces unless it reads as a
    sentence (``"see the vault"``: a word such as the, see, in): a passphrase (``"correct horse battery staple"``) is
    a secret."""
    if not _check_flag_value(m, value, text) or _named_in_prose(m, value):
        return False
    words = value.lower().split()
    return len(words) <= 1 or not any(w.strip(",.;:!?") in _FLAG_PROSE for w in words)


def _check_compound_flag(m: re.Match[str], value: str, text: str) -> bool:
    """A compound credential option's value (:func:`_compound_flag_kind`): a password's any value no word of a sentence
    (:func:`_check_cli_password`); a token's, secret's or key's a random-looking one of 8+ characters. Never a path, a
    placeholder, another option or a shell expansion."""
    kind = _compound_flag_kind(m.group("name"))
    if kind is None or not _check_cli_password(m, value, text):
        return False
    if value.startswith(("/", "~", "./", "../", "<", "@")) or "{" in value:
        return False
    if kind == "password":
        return len(value) >= 4 and not _is_label(value)
    # a token, a secret or a key in quotes is one string: its words joined must look random ("see the vault" is a
    # sentence; a space is no symbol of a key)
    joined = value.replace(" ", "")
    return (len(joined) >= 8 and "/" not in value and not _is_label(value)
            and (_looks_secretish(joined) or (len(joined) >= 16 and _random_tail(joined.replace("-", "").replace("_", "")))))


#: what follows ``sshpass -p VALUE``: the command it runs and that command's argument
_SSHPASS_NEXT = re.compile(r"[ \t]+(?:ssh|scp|sftp|rsync|ssh-copy-id)(?![\w-])[ \t]+[^\s]", re.I)


def _shell_expansion(value: str) -> bool:
    """``$(cat ~/.pw)``, `` `pass show x` ``, ``$PW``: the shell supplies the value; nothing secret is written."""
    return value.startswith(("$", "`"))


def _check_sshpass(m: re.Match[str], value: str, text: str) -> bool:
    """``sshpass -p VALUE``: a quoted value, a secret-like one, or a value that is no word of a sentence followed by the
    command sshpass runs and its argument (``use sshpass -p with ssh but …``, ``sshpass -p or -f`` are prose)."""
    if not _check_cli_flag(m, value, text) or _shell_expansion(value) or text[m.start("flag") + 1] != "p":
        return False  # -P is the prompt to answer
    if m.group("q") is not None or _looks_secretish(value):
        return True
    return value.lower() not in _SENTENCE_WORDS and _SSHPASS_NEXT.match(text, m.end("val")) is not None


#: a setting's last word that names a credential (``_authToken``, ``github.token``, ``smtp.password``, ``SecretKey``)
_SETTING_SECRET_WORDS = frozenset("token authtoken auth password passwd pass pwd secret apikey credentials".split())
#: the words before a last word ``key`` that make it a credential's name (``api_key``, ``Stripe:SecretKey``; not
#: git's ``user.signingKey``, a key's id)
_SETTING_KEY_QUALIFIERS = frozenset("api secret access private license encryption master client auth".split())


def _check_config_set(m: re.Match[str], value: str, text: str) -> bool:
    """A ``config set KEY VALUE`` command's value when KEY's last word names a credential (or ``oauth`` is among its
    words: composer's ``github-oauth.github.com``) and VALUE is no placeholder, path, flag or shell expansion."""
    key = text[m.start("key"):m.end("key")]
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower()) if w]
    if not words:
        return False
    last = words[-1]
    named = (last in _SETTING_SECRET_WORDS or "oauth" in words
             or (last == "key" and len(words) > 1 and words[-2] in _SETTING_KEY_QUALIFIERS))
    if not named or m.group("qval") is None and value.startswith("-"):
        return False
    if m.group("set") is None and not any(c in key for c in "._:/") and key.islower():
        return False  # "configure password complexity": a sentence, not a setting (git's are dotted: github.token)
    if m.group("qval") is None and not (_looks_secretish(value) or (len(value) >= 8 and not value.islower())):
        return False
    return (len(value) >= 4 and not _is_placeholder(value) and not _shell_expansion(value)
            and not value.startswith(("/", "~", "./")) and value.lower() not in _SENTENCE_WORDS)


#: the last word of a variable's name that says it holds a password (its value may be a word: ``hunter2``, ``sunshine``)
_ENV_PASSWORD_WORDS = frozenset("password passwd passphrase pass pwd pw".split())
#: the last word of a variable's name that says it holds another credential (its value must look like one)
_ENV_SECRET_WORDS = frozenset("token authtoken auth secret apikey credentials credential pat".split())
#: the same words glued after another in one word of a name (``PGPASSWORD``, ``GITHUBTOKEN``, ``CLIENTSECRET``): the
#: long ones only (``OLDPWD`` is a directory, ``…PASS`` begins ``PGPASSFILE``)
_ENV_GLUED_PASSWORD = ("password", "passwd", "passphrase")
_ENV_GLUED_SECRET = ("token", "secret", "apikey", "credentials")


def _check_env_set(m: re.Match[str], value: str, text: str) -> bool:
    """``set -gx DB_PASSWORD hunter2`` (fish), ``setenv DB_PASSWORD hunter2`` (csh), ``setx API_SECRET …`` (Windows),
    ``launchctl setenv …``, a Dockerfile's ``ENV DB_PASSWORD hunter2``: a credential variable given its value after
    white space. The variable's last word names a credential (``…_PASSWORD``, ``…_TOKEN``, ``…_API_KEY``); a plain
    ``set`` (fish without flags) needs the name spelled as an environment variable (capitals), ``ENV`` a Dockerfile's
    line; the value is no placeholder, flag, path, shell expansion or word of a sentence ("set token expiry to …")."""
    cmd = text[m.start("cmd"):m.end("cmd")]
    key = text[m.start("key"):m.end("key")]
    low = cmd.lower()
    if low == "env":
        if cmd != "ENV" or _line_lead(text, m.start()).strip():  # bounded: a run of "ENV …" stays linear
            return False
    elif low == "set" and not (key.isupper() and "_" in key):
        return False
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower()) if w]
    if not words:
        return False
    if words[-2:] == ["key", "base"]:  # Rails' SECRET_KEY_BASE: the key is named before "base"
        words = words[:-1]
    last = words[-1]
    quoted = m.group("qval") is not None
    if (_is_placeholder(value) or _shell_expansion(value) or value.startswith(("-", "%", "(", "/", "~", "./"))
            or value.lower().rstrip(",.;:") in _SENTENCE_WORDS or _is_label(value)):
        return False
    if last in _ENV_PASSWORD_WORDS or last.endswith(_ENV_GLUED_PASSWORD):  # PGPASSWORD: the word glued to another
        return len(value) >= 4
    named = (last in _ENV_SECRET_WORDS or last.endswith(_ENV_GLUED_SECRET)
             or (last == "key" and len(words) > 1 and words[-2] in _SETTING_KEY_QUALIFIERS))
    if not named:
        return False
    if last == "pat" and not _pat_shaped(value):  # GLOB_PAT='**/dist', LOG_PAT="ERROR|WARN": a pattern
        return False
    return (quoted and len(value) >= 8) or (_looks_secretish(value) and len(value) >= 8 and "/" not in value)


def _check_secret_body(m: re.Match[str], value: str, text: str) -> bool:
    """``gh secret set NAME --body VALUE``: whatever is stored as a secret is one (not a placeholder or an expansion)."""
    return _check_flag_value(m, value, text) and (m.group("q") is not None or value.lower() not in _FLAG_PROSE)


def _check_sql_password(m: re.Match[str], value: str, text: str) -> bool:
    """``IDENTIFIED BY 'x'``: a quoted value; a bare one (Oracle's ``IDENTIFIED BY tiger2``) that mixes letters with
    digits or symbols ("identified by the team", "identified by name" are prose)."""
    if not _check_cli_flag(m, value, text) or _shell_expansion(value):
        return False
    return m.group("q") is not None or (_looks_secretish(value) and value.lower() != "values")


#: per tool, its password options (``openssl enc -k``; ``zip -P``; 7-Zip's glued ``-pX``; ldap tools' ``-w``;
#: ssh-keygen's new ``-N`` and old ``-P`` passphrase; ``az login -p``)
_TOOL_PASSWORD_FLAGS = {"openssl": ("-k",), "zip": ("-P",), "unzip": ("-P",), "7z": ("-p",), "7za": ("-p",),
                        "7zz": ("-p",), "7zr": ("-p",), "unrar": ("-p",), "rar": ("-p", "-hp"),
                        "ssh-keygen": ("-N", "-P"), "az": ("-p",), "rdesktop": ("-p",),
                        # database and broker clients and uploaders whose short password option takes a value: cqlsh
                        # -p, the mosquitto clients' -P, twine -p, rabbitmqadmin -p, bcp / osql -P, Vertica's vsql -w
                        "cqlsh": ("-p",), "mosquitto_pub": ("-P",), "mosquitto_sub": ("-P",), "mosquitto_rr": ("-P",),
                        "twine": ("-p",), "rabbitmqadmin": ("-p",), "bcp": ("-P",), "osql": ("-P",), "vsql": ("-w",)}


def _check_tool_flag(m: re.Match[str], value: str, text: str) -> bool:
    """A known tool's password option (:data:`_TOOL_PASSWORD_FLAGS`; ``-w`` of the ldap tools), read as written
    (``zip -p`` keeps paths, ``ssh-keygen -n`` names principals); 7-Zip's ``-p`` takes its value glued, the others
    after a space."""
    tool, flag = m.group("tool"), m.group("flag")
    start = m.start("val") if m.group("val") is not None else m.start("q")
    glued = start == m.end("flag")
    if tool.startswith("ldap"):
        ok = flag == "-w"
    elif tool == "az":
        ok = flag in ("-p", "--password") and " login" in text[m.start("tool"):m.start("flag")]
    else:
        ok = flag in _TOOL_PASSWORD_FLAGS.get(tool, ())
    if not ok or (tool in ("7z", "7za", "7zz", "7zr", "unrar", "rar")) != glued:
        return False
    return _check_cli_password(m, value, text)


#: where Redis reads an AUTH command: redis-cli's (or valkey-cli's, keydb-cli's) arguments, its prompt (``host:6379>``)
_REDIS_AUTH_BEFORE = re.compile(r"(?:redis|valkey|keydb)-cli(?![\w-])|(?::\d{2,5}(?:\[\d{1,2}\])?|^redis)>[ \t]{0,2}\Z",
                                re.I)


def _check_redis_auth(m: re.Match[str], value: str, text: str) -> bool:
    """Redis's ``AUTH [user] PASSWORD``: after redis-cli on its line or at its prompt, any value no word of a sentence;
    alone on its line (a script, a MULTI block), written ``AUTH`` and a value that mixes letters with digits or
    symbols."""
    line = text[text.rfind("\n", max(0, m.start() - 300), m.start()) + 1:m.start()]
    if not _check_cli_password(m, value, text) or _is_label(value):
        return False
    if _REDIS_AUTH_BEFORE.search(line) is not None:
        return True
    return not _line_lead(text, m.start()).strip() and text.startswith("AUTH", m.start()) and _looks_secretish(value)


#: where Redis reads ``requirepass`` / ``masterauth`` as a setting: a config line's start (commented out too), after
#: ``CONFIG SET`` or as redis-server's ``--requirepass`` option
_REDIS_SETTING_BEFORE = re.compile(r"(?:^|\n)[ \t]{0,40}(?:#[ \t]{0,8})?\Z|config[ \t]{1,4}set[ \t]{1,4}\Z|--\Z", re.I)


def _check_requirepass(m: re.Match[str], value: str, text: str) -> bool:
    """Redis's ``requirepass`` / ``masterauth`` value: any password of 4+ characters where Redis reads the setting
    (:data:`_REDIS_SETTING_BEFORE`); in a sentence a secret-looking one (``the requirepass directive`` is prose)."""
    if not _check_cli_password(m, value, text) or len(value) < 4:
        return False
    start = m.start()
    if _REDIS_SETTING_BEFORE.search(text, max(0, start - 60), start) is not None or _looks_secretish(value):
        return True
    # a line of a file as a tool shows it (a line number, a diff's +/-, grep's "redis.conf:") is the setting too; a
    # word of a sentence right before it ("the requirepass directive") is prose
    line = text[text.rfind("\n", max(0, start - 200), start) + 1:start].rstrip(" \t#")
    return _PROSE_BEFORE.search(line) is None


#: a line that ends on a word of a sentence (letters, maybe an apostrophe), not on a number, an arrow or ``file:``
_PROSE_BEFORE = re.compile(r"(?<![\w./:-])[A-Za-z][A-Za-z']{0,30}[,;]?\Z")


#: an app password as Google shows it: four groups of four letters (``abcd efgh ijkl mnop``)
_APP_PASSWORD = re.compile(r"[a-z]{4}(?: [a-z]{4}){3}")


def _spaced_password(value: str) -> bool:
    """A quoted password holding spaces where words would be a label (``.login("title", "Sign in")``): an app password's
    groups, or words that joined mix letters with digits or symbols (``"Xk9m Q2vL 7!"``)."""
    return _APP_PASSWORD.fullmatch(value) is not None or _looks_secretish(value.replace(" ", ""))


def _check_positional_password(m: re.Match[str], value: str, text: str) -> bool:
    """``net user NAME PASSWORD`` / ``rabbitmqctl add_user NAME PASSWORD``: not ``*`` (asks for it), a ``/add``-style
    switch or a word of a sentence."""
    name = text[m.start("name"):m.end("name")].lower()
    return (not value.startswith(("*", "/")) and name not in _FLAG_PROSE and not name.startswith("-")
            and _check_cli_password(m, value, text))


def _check_piped_password(m: re.Match[str], value: str, text: str) -> bool:
    """``echo X | sudo -S``: X is no shell expansion, placeholder or prose word; for ``chpasswd`` the part after
    ``user:`` is the password (a bare ``user:X`` word or a quoted one)."""
    return _check_cli_password(m, value, text)


#: the database of an Oracle ``user/password@db`` login: what may follow the password (nothing, for a login to the local
#: database: ``sqlplus scott/tiger``)
_ORACLE_AFTER = re.compile(r"@|[ \t]|[\"']|\r?\n|\Z")
#: a SQL*Plus ``conn`` / ``connect`` command's place: a line's start, after the ``SQL>`` prompt, a quote or a ``;``
_ORACLE_CONN_BEFORE = re.compile(r"(?:^|\n|[\"';>])[ \t]{0,8}\Z")
#: what may follow a ``conn`` command's login without a database: the end of its line, or ``AS SYSDBA``-style roles
_ORACLE_CONN_ROLE = re.compile(r"[\"']?[ \t]{0,4}(?:\r?\n|\Z|as[ \t]{1,4}sys[a-z]{2,6}(?![\w]))", re.I)


def _check_oracle_login(m: re.Match[str], value: str, text: str) -> bool:
    """An Oracle ``user/password[@db]`` login given to a tool, a SQL*Plus ``conn`` command, a JDBC URL or a driver's
    ``connect()``: the password is no placeholder, shell or ``%VAR%`` expansion, nor a word of a sentence
    (``and/or``); for ``conn`` / ``connect`` the command stands where SQL*Plus reads one and names a database or a
    role (``Connect client/server apps`` is prose), for ``catalog`` / ``auxiliary`` an ``rman`` command runs on
    the line."""
    if _is_placeholder(value) or _shell_expansion(value) or value.startswith("%") or value.lower() in _FLAG_PROSE:
        return False
    groups = m.re.groupindex
    if "conn" in groups and m.group("conn") is not None:
        start = m.start()
        if _ORACLE_CONN_BEFORE.search(text, max(0, start - 12), start) is None and not text[
                max(0, start - 12):start].rstrip().endswith("SQL>") and _line_lead(text, start).strip():
            return False
        end = m.end("qval") + 1 if m.group("qval") is not None else m.end("val")
        if text.startswith("@", end):
            return True
        role = _ORACLE_CONN_ROLE.match(text, end)
        # a bare "connect client/server" at a line's end is prose: a role or a password that is not a plain word
        return role is not None and (bool(role.group(0).strip(" \t\"'\r\n")) or not value.isalpha())
    if m.group(0)[:3].lower() in ("exp", "imp") and m.group(0)[3:5].lower() != "dp":
        # exp / imp are words too ("see imp docs/images", "exp user/123 files"): a command where a shell reads one,
        # naming a database or with a password that is not a plain word
        start = m.start()
        if _ORACLE_CONN_BEFORE.search(text, max(0, start - 12), start) is None and not re.search(
                r"(?:\$|>|%)[ \t]{0,4}\Z", text[max(0, start - 12):start]) and _line_lead(text, start).strip():
            return False
        end = m.end("qval") + 1 if m.group("qval") is not None else m.end("val")
        return text.startswith("@", end) or not value.isalpha()
    if "sub" in groups and m.group("sub") is not None:
        line = text.rfind("\n", max(0, m.start() - 300), m.start())
        return re.search(r"(?<![\w-])rman(?![\w-])", text[max(line + 1, m.start() - 300):m.start()], re.I) is not None
    return True


#: ``sudo`` reading its password on stdin: ``-S`` (alone or among other letters: ``-kS``) or ``--stdin``, after other
#: options (``-p ''``, ``-u postgres``, ``-k``)
_SUDO_STDIN = (r"sudo(?:[ \t]{1,4}(?:-[pu][ \t]{1,4}(?:''|\"\"|'[^'\n]{0,40}'|\"[^\"\n]{0,40}\"|[^\s'\"]{1,40})"
               r"|-[A-Za-z]{1,8}|--[a-z-]{2,20}(?:=[^\s]{1,40})?)){0,5}?[ \t]{1,4}(?:-[A-Za-z]{0,4}S|--stdin)(?![\w-])")
_SUDO_STDIN_RE = re.compile(r"(?<![\w-])" + _SUDO_STDIN)
#: a command reading a password on stdin besides sudo: a registry login's ``--password-stdin``, ``passwd --stdin``
_STDIN_PASSWORD_RE = re.compile(r"--password-stdin(?![\w-])|(?<![\w-])passwd(?![\w-])[^\n|&;]{0,100}?[ \t]--stdin(?![\w-])")
_CHPASSWD_RE = re.compile(r"(?<![\w-])chpasswd(?![\w-])")
#: a command that stores what it reads on stdin as a secret: gh secret set NAME, vercel env add NAME, wrangler secret put
#: NAME, gcloud secrets create|versions add … --data-file=-, docker / podman secret create NAME -, pass insert, secret-tool
#: store, doppler secrets set NAME, firebase functions:secrets:set NAME, keyring set, kubectl … --from-file=…/dev/stdin;
#: a login that reads its token there
_SECRET_STDIN = (r"(?:(?:npx|pnpx|bunx|yarn|pnpm(?:[ \t]{1,4}(?:dlx|exec))?)[ \t]{1,4})?"
                 r"(?:gh[ \t]{1,4}secret[ \t]{1,4}set|vercel[ \t]{1,4}env[ \t]{1,4}add|wrangler(?:[ \t]{1,4}pages)?[ \t]{1,4}secret"
                 r"[ \t]{1,4}put|gcloud[ \t]{1,4}secrets[ \t]{1,4}(?:create|versions[ \t]{1,4}add)[^\n|&;]{0,200}?--data-file[ \t=]{1,4}-"
                 r"(?![\w./-])|(?:docker|podman)[ \t]{1,4}secret[ \t]{1,4}create[ \t]{1,4}[^\s|&;]{1,100}[ \t]{1,4}-(?![\w./-])"
                 r"|pass[ \t]{1,4}(?:insert|add)|secret-tool[ \t]{1,4}store|doppler[ \t]{1,4}secrets[ \t]{1,4}set"
                 r"|firebase[ \t]{1,4}functions:secrets:set|keyring[ \t]{1,4}set|kubectl[^\n|&;]{0,200}?=/dev/stdin"
                 # a tool's login reading its token on stdin: gh auth login --with-token, glab auth login --stdin, cargo
                 # login, az devops login
                 r"|gh[ \t]{1,4}auth[ \t]{1,4}login[^\n|&;]{0,200}?--with-token(?![\w-])"
                 r"|glab[ \t]{1,4}auth[ \t]{1,4}login[^\n|&;]{0,200}?--stdin(?![\w-])"
                 r"|cargo[ \t]{1,4}login|az[ \t]{1,4}devops[ \t]{1,4}login)")
_SECRET_STDIN_RE = re.compile(r"(?<![\w-])" + _SECRET_STDIN, re.I)


def _command_around(text: str, s: int, e: int) -> str:
    """The shell command holding ``text[s:e]``: from the last ``|``, ``;``, ``&`` or line break before it to the next
    after it, each looked for within 300 characters (a long line costs no more)."""
    lo = max(0, s - 300)
    a = max(text.rfind(c, lo, s) for c in "\n|;&") + 1
    stop = [i for i in (text.find(c, e, e + 300) for c in "\n|;&") if i >= 0]
    return text[max(a, lo):min(stop) if stop else min(len(text), e + 300)]


def _check_here_string(m: re.Match[str], value: str, text: str, chpasswd: bool = False) -> bool:
    """A here-string (``<<< X``) fed to a command that reads a password on stdin (:data:`_SUDO_STDIN`,
    ``--password-stdin``, ``passwd --stdin``; ``chpasswd``'s ``user:X``): X is no shell expansion, placeholder or prose
    word (``sudo -S <<< "$PW"`` writes nothing secret)."""
    cmd = _command_around(text, m.start(), m.end())
    if chpasswd:  # (the plain words looked for first: a regex costs more on a long command)
        if "chpasswd" not in cmd or _CHPASSWD_RE.search(cmd) is None:
            return False
    elif not (("sudo" in cmd and _SUDO_STDIN_RE.search(cmd) is not None)
              or ("passw" in cmd and _STDIN_PASSWORD_RE.search(cmd) is not None)
              or _SECRET_STDIN_RE.search(cmd) is not None):
        return False
    return _check_cli_password(m, value, text)


#: what an expect script waits for that tells an outcome, not a prompt asking for the password ("Password changed
#: successfully", "passwd: password updated", "Sorry, try again"): the send after it answers something else
_EXPECT_OUTCOME = re.compile(r"chang|updat|success|accepted|expired|saved|incorrect|invalid|wrong|fail|denied"
                             r"|mismatch|sorry|not match", re.I)


def _check_expect_answer(m: re.Match[str], value: str, text: str) -> bool:
    """The send answering an expect script's (or pexpect's) password prompt: ``expect`` stands where a command or a
    method call does (a line's start, after ``;``, ``{``, ``[``, ``(``, a quote or ``child.``; not "I expect the
    password …" in a sentence or a comment), waits for a prompt rather than an outcome (:data:`_EXPECT_OUTCOME`), and
    no other expect or ``interact`` comes before the send (the rule's regex); a value of 4+ characters that is no
    prose word, placeholder or expansion."""
    before = text[max(0, m.start() - 40):m.start()].rstrip(" \t")
    if before and before[-1] not in "\n;{[(.\"'":
        return False
    if _EXPECT_OUTCOME.search(text, m.start("prompt"), m.end("prompt")) is not None:
        return False
    return _check_cli_password(m, value, text) and len(value) >= 4


def _check_eu_label(m: re.Match[str], value: str, text: str) -> bool:
    """After a European language's word for password: a quoted value, or one that mixes letters with digits or symbols
    and is no placeholder, path, URL or shell expansion (``Passwort: vergessen`` is a word about it)."""
    if _is_placeholder(value) or _shell_expansion(value) or "://" in value or value.startswith(("/", "~", "./")):
        return False
    if m.group("key") in _WEAK_EU_LABELS and (_CODE_LIKE.fullmatch(value) or _algorithm(value) or " " in value):
        return False  # "κωδικός: 0x80070005", "Sandi: JIRA-1234", "parola: x86_64": a code, an id, a version, a name
    return m.group("q") is not None or (_looks_secretish(value) and not _is_label(value))


#: labels that name a password in one use only (Italian "parola" is "word", Greek "κωδικός" alone "code", Indonesian
#: "Sandi" a given name): their value must not read as a code, an id, a version or a name
_WEAK_EU_LABELS = frozenset(("parola", "κωδικός", "sandi"))
#: a code, an id, a version or a runtime's / an architecture's name: hex (``0x80070005``), a tracker's key
#: (``ERR-4042``, ``JIRA-1234``), a runtime, system, architecture or algorithm with its version (``python3``,
#: ``node18``, ``x86_64``, ``ubuntu22.04``, ``sha256``); not any letters then digits (``admin123`` is a password)
_CODE_LIKE = re.compile(r"(?i:0x[0-9a-f]{1,64}+)|[A-Z][A-Z0-9]{1,15}+-[0-9]{1,10}+"
                        r"|(?i:(?:python|node|nodejs|java|jdk|go|ruby|php|perl|ubuntu|debian|alpine|centos|fedora|rhel"
                        r"|windows|win|macos|ios|android|x86|amd|arm|aarch|i386|i686|sha|md|aes|rsa|ecdsa|ed|utf|iso"
                        r"|rfc|http|tls|ssl|v)[-_.]?[0-9]{1,40}+(?:[-_.][0-9a-z]{1,40}+){0,8}+)")


#: an XML namespace prefix right before a tag's ``:`` (``<db:password>``)
_XML_PREFIX = re.compile(r"<[A-Za-z][\w.-]{0,40}\Z")


def _check_named_literal(m: re.Match[str], value: str, text: str) -> bool:
    """A string literal naming a credential (its whole text: ``'DB_PASSWORD'``, ``"--api-key"``, ``"ApiKey"``, whose
    last word is a credential's, as :func:`_check_config_set` reads a setting's name) and its value in the next literal
    or as the element's text: a password any value but a placeholder, a label or a word of a sentence; a token or key
    a random-looking one (``("token", "Token")``, ``define('API_KEY', API_KEY_FROM_ENV)`` are not values)."""
    q = m.group("nq")
    start = text.rfind(q, max(0, m.start() - 64), m.start())
    if start < 0:
        return False
    name = text[start + 1:m.end("kw")]
    if not re.fullmatch(r"-{0,2}[A-Za-z0-9_.:/-]{0,60}", name) or (start and text[start - 1] in _W):
        return False
    if m.group("elem") is not None and re.search(r"(?:key|name)[ \t]{0,4}=[ \t]{0,4}\Z", text[max(0, start - 12):start],
                                                 re.I) is None:
        return False  # element text only after key="…" / name="…"
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()) if w]
    if not words:
        return False
    last = words[-1]
    named = (last in _SETTING_SECRET_WORDS or last == "passphrase"
             or (last == "key" and len(words) > 1 and words[-2] in _SETTING_KEY_QUALIFIERS))
    if not named or _is_placeholder(value) or _shell_expansion(value) or _is_label(value):
        return False
    if value.lower() in _SENTENCE_WORDS or value.startswith(("/", "~", "./", "%", "<", "@")) or "{" in value:
        return False  # a path, a resource reference, a template's ${x} / #{x}# / {{x}}
    if last in ("password", "passwd", "passphrase", "pass", "pwd"):  # not a list of names ("password", "email")
        return len(value) >= 4 and ((" " not in value and _looks_secretish(value)) or _is_passphrase(value))
    return len(value) >= 8 and _looks_secretish(value) and " " not in value and "/" not in value


def _check_yaml_next_line(m: re.Match[str], value: str, text: str) -> bool:
    """A YAML credential key whose value stands alone on the next line (or behind a ``!!str`` tag): the key is a
    credential's whole name (``db_password``, ``apiKey``; not ``password_policy``), the value no label, placeholder,
    path or expansion; a token's or key's random-looking, a password's any of 4+ characters."""
    i = m.start("kw")
    while i > 0 and text[i - 1] in _KEYCHARS or (i > 0 and text[i - 1].isalpha() and text[i - 1].isascii()):
        i -= 1
    if i > 0 and text[i - 1] not in " \t\n\"'-{," and _line_lead(text, i).strip():
        return False
    if (_is_placeholder(value) or _shell_expansion(value) or _is_label(value) or value.endswith(":")
            or value.startswith(("/", "~", "./", "%", "<")) or value.lower() in _SENTENCE_WORDS):
        return False
    if m.group("q") is not None:
        return True
    if _assignment_kind(text.lower(), m.start("kw"), m.end("kw")) == "password":
        return len(value) >= 4 and not value.isdigit() and (_looks_secretish(value) or _is_passphrase(value))
    return len(value) >= 8 and _looks_secretish(value) and "/" not in value


def _check_cjk_label(m: re.Match[str], value: str, text: str) -> bool:
    """After ``密码：`` / ``口令是`` any value; after the label and a space alone (``密码 Abc!2345678 用于跳板机``) one that
    mixes letters with digits or symbols (``密码 reset`` is a word about it)."""
    if m.group("glued") is not None:
        return _glued_cjk_value(value.rstrip(_WORD_TRAIL), _cjk_kind(m.group("key")) == "password")
    if m.group("bare") is not None or m.group("key") == "암호":  # 암호: AES-256-GCM names a cipher
        v = value.rstrip(_WORD_TRAIL)
        if any(c in v for c in "/.:") or _algorithm(v) or _STANDARD_NAME.fullmatch(v) or _is_label(v):
            return False  # a path, a URL, a version, an ARN, an algorithm (私钥 ~/.ssh/id_ed25519, 密钥 AES-256-GCM)
        return _check_plain(m, value, text) and _looks_secretish(v)
    return _check_plain(m, value, text)


def _glued_cjk_value(v: str, password: bool) -> bool:
    """A value glued to a CJK label or word with no separator (``密钥Zx9Qw8…调用``, ``密码Hunter2xyz!登录``,
    ``Zx9Qw8…是令牌``): Chinese and Japanese put no space between words, so ``用pytest跑``, ``版本v2.3.1``,
    ``提交4bb043f``, ``函数parseConfigFile`` glue the same way. A key's value reads as random (:func:`_random_tail`, 16+
    characters; or 32+ hex); a password's mixes letters with digits or symbols, 8+ characters or mixed case, and is
    no word with a number after it (``policyV2``). Never a
    path, a URL, a version, an algorithm's or a standard's name, or another label."""
    if any(c in v for c in "/.:\\") or _algorithm(v) or _STANDARD_NAME.fullmatch(v) or _is_label(v) or _is_placeholder(v):
        return False
    core = v.strip("-_")
    if password:
        # a word with a version or a number after it is a name glued the same way (密码Reset2流程, 密码policyV2上线,
        # パスワードhashV2を追加), not a password
        return (len(v) >= 6 and _looks_secretish(v) and not re.fullmatch(r"[A-Za-z]+[Vv]?[0-9]{1,3}|[a-z]+_[a-z0-9_]+", v)
                and (len(v) >= 8 or not (v.islower() or v.isupper()) or not v.replace("_", "").isalnum()))
    if len(core) >= 32 and all(c in "0123456789abcdefABCDEF" for c in core):
        return core.islower() or core.isupper()
    return len(core) >= 16 and _random_tail(re.sub(r"[-_+/=]", "", core))


#: what may stand between a copula and the label after it: a few words, no clause's end (``是我的 API key``, ``是
#: GitHub 的令牌``)
_COPULA_GAP = 14
#: the copulas after which a label names what went before (``X是令牌``, ``X为密码``, ``X는 비밀번호``, ``X is my API key``)
_COPULAS = ("是", "为", "為", "は", "는", "은", " is ", " was ")
#: labels that may follow, lower case (the text is looked at lowered): a key's, or a password's (the second tuple)
_AFTER_KEY_LABELS = ("密钥", "密鑰", "金鑰", "秘钥", "秘鑰", "私钥", "私鑰", "令牌", "權杖", "授权码", "授權碼", "通行码",
                     "通行碼", "秘密鍵", "비밀키", "api key", "api-key", "api_key", "apikey", "access key", "secret key",
                     "access token", "api token", "auth token", "token", "secret")
_AFTER_PASSWORD_LABELS = ("密码", "密碼", "口令", "パスワード", "暗証番号", "パスコード", "비밀번호", "비번", "패스워드",
                          "password", "passwd", "passphrase")
#: brackets and quotes a value may stand in before its copula (``「X」是…``, ``"X" is …``)
_VALUE_CLOSERS = "」』”’\"'`)]）】"
_CLAUSE_END = frozenset("\n。，,.;；!?！？:：")


def _scan_key_before_label(text: str, lowered: str) -> Iterator[tuple[str, int, int, int]]:
    """A key or a password written before the label that names it: ``Zx9Qw8…是令牌``, ``「Zx9Qw8…」是我的 API key``,
    ``hunter2xyz为密码``, ``X is my API key``. The value is the run of ASCII key characters right before the copula (or
    its closing bracket or quote), vetted as a value glued to a label is (:func:`_glued_cjk_value`)."""
    for cop in _COPULAS:
        i = lowered.find(cop)
        while i >= 0:
            nxt = i + len(cop)
            j = i
            if j and text[j - 1] == " " and cop[0] != " ":
                j -= 1
            if j and text[j - 1] in _VALUE_CLOSERS:
                j -= 1
            e = j
            while j > 0 and e - j < 200 and text[j - 1] in _KEY_VALUE_CHARS:
                j -= 1
            if e - j >= 6 and not (j and (text[j - 1] in _KEY_VALUE_CHARS or text[j - 1].isalnum() and text[j - 1].isascii())):
                gap_end = min(len(text), nxt + _COPULA_GAP + 12)
                k = nxt
                while k < gap_end and lowered[k] not in _CLAUSE_END:
                    k += 1
                window = lowered[nxt:k]
                label = next(((lab, False) for lab in _AFTER_PASSWORD_LABELS if lab in window[:_COPULA_GAP + len(lab)]), None)
                if label is None:
                    label = next(((lab, True) for lab in _AFTER_KEY_LABELS if lab in window[:_COPULA_GAP + len(lab)]), None)
                if label is not None:
                    lab, is_key = label
                    at = window.find(lab)
                    after = window[at + len(lab):]
                    # after an English copula the label ends its clause ("X is my password."; not "X is a password
                    # manager"), after a CJK one it ends its word
                    ends_word = (not after.strip(" \t\"'`)」』”’*")) if cop[0] == " " else (
                        not after or not after[0].isascii() or not after[0].isalpha())
                    v = text[j:e]
                    if ends_word and (not lab.isascii() or at == 0 or not window[at - 1].isalpha()) \
                            and _glued_cjk_value(v.rstrip(_WORD_TRAIL), not is_key):
                        kind = ("password" if not is_key else "token" if "token" in lab or lab in ("令牌", "權杖")
                                else "api_key" if lab.isascii() and "key" in lab else "secret")
                        yield kind, j, j + len(v.rstrip(_WORD_TRAIL)), _P_ASSIGN
            i = lowered.find(cop, nxt)


_KEY_VALUE_CHARS = frozenset(string.ascii_letters + string.digits + "-_+/=!@#$%^&*~")


#: an algorithm's or a standard's name: capitals with a number (``AES-256-GCM``, ``RSA-4096``, ``HS256``, ``P-384``)
_STANDARD_NAME = re.compile(r"[A-Z]+[-_]?\d+(?:[-_][A-Z0-9]+)*|[A-Z]+(?:[-_][A-Z0-9]+)+")


def _check_quoted_after_label(m: re.Match[str], value: str, text: str) -> bool:
    """A quoted value right after a token's, key's or secret's name: a random-looking string (letters with digits or
    symbols, 8+), not a placeholder, a shell expansion, a path, a dotted name or another label."""
    return (_looks_secretish(value) and not _is_placeholder(value) and not _shell_expansion(value)
            and "/" not in value and "\\" not in value and not _DOTTED_EXPR_RE.get().fullmatch(value)
            and not _is_label(value) and not _RESOURCE_NAME.fullmatch(value))


#: a resource's name in lower case with hyphens (``tls-cert-2024``, ``db-creds-v2``): what ``kubectl … secret 'x'``
#: names, not a secret's value
_RESOURCE_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


#: words that follow a command's password option in prose about it (``use redis-cli -a to pass it``)
_FLAG_PROSE = _SENTENCE_WORDS | frozenset(("is", "to", "or"))
#: what follows an option named in a sentence: a word of it, or the option's own kind ("the --password flag")
_OPTION_PROSE = _FLAG_PROSE | frozenset("flag flags option options argument arguments parameter switch value".split())


def _check_cli_password(m: re.Match[str], value: str, text: str) -> bool:
    """A command's password option's value: a quoted one, or a bare one that is no word of a sentence (``use redis-cli
    -a to pass it`` is prose), nor a placeholder or a shell expansion."""
    if not _check_flag_value(m, value, text):
        return False
    quoted = "q" in m.re.groupindex and m.group("q") is not None
    return quoted or value.lower().rstrip(",.;:") not in _FLAG_PROSE


def _check_flag_value(m: re.Match[str], value: str, text: str) -> bool:
    """A flag's value that is not a placeholder nor a shell expansion (``-p"$(cat ~/.pw)"``)."""
    return _check_cli_flag(m, value, text) and not _shell_expansion(value)


def _check_plain(m: re.Match[str], value: str, text: str) -> bool:
    return not _is_placeholder(value)


#: what may stand before a command on its line: nothing, a prompt, a pipe or list operator, a subshell, sudo
_COMMAND_LEAD = re.compile(r"(?:^|[|;&`(>$]|\bsudo|\bthen|\bdo|\bexec)[ \t]*$")


def _check_httpie_auth(m: re.Match[str], value: str, text: str) -> bool:
    """HTTPie's ``-a``: the password after ``user:``, or a token alone (``-A bearer``), never a user alone (HTTPie
    asks for the password then: ``http -a bob URL``, ``-a admin:``). Only where ``http`` / ``xh`` is the command (at
    a line's start, after a prompt, a pipe, ``;``, ``&&`` or ``sudo``): ``npm run http -- -a 127.0.0.1:8080`` and "the
    http server, then rsync -a deploy@web1:/srv" pass an address; a port after ``host:`` is no password either."""
    if _is_placeholder(value) or _shell_expansion(value) or value.endswith(":"):
        return False
    if not _COMMAND_LEAD.search(_line_lead(text, m.start())):
        return False
    user = m.group("user")
    if user is not None and value.isdigit() and len(value) <= 5:  # host:port
        return False
    return user is not None or _looks_secretish(value)


#: a key prefix's tail that is words joined by - or _ (``sk-proj-keys-are-redacted``, ``xoxb-token-refresh-bug``): a
#: file, branch or test name about keys, not a key
_WORDS_TAIL = re.compile(r"(?:sk-(?:proj|svcacct|admin|None)-|xox[abposre]-)[a-z]+(?:[-_][a-z]+)*")


def _check_not_words(m: re.Match[str], value: str, text: str) -> bool:
    """A provider key whose prefix is followed by more than lower-case words (:data:`_WORDS_TAIL`)."""
    return not _WORDS_TAIL.fullmatch(value)


def _check_sk_key(m: re.Match[str], value: str, text: str) -> bool:
    """An ``sk-`` key of another provider: 20+ chars with at least 6 digits (``sk-learn-…`` is a word)."""
    return len(value) >= 20 and sum(c.isdigit() for c in value) >= 6


def _check_sk_two_part(m: re.Match[str], value: str, text: str) -> bool:
    """:func:`_check_sk_key` for a key going on past ``:`` / ``/`` / ``+`` / ``=`` / ``~``, whose first part mixes
    capitals and digits."""
    head = re.split(r"[:/+=~]", value, maxsplit=1)[0]
    return any(c.isupper() for c in head) and any(c.isdigit() for c in head) and _check_sk_key(m, value, text)


def _check_bearer(m: re.Match[str], value: str, text: str) -> bool:
    return not _is_placeholder(value) and any(c.isdigit() for c in value)


# ---------------------------------------------------------------------------------------------
# The rule table (provider formats: the prefixes each provider documents for its credentials)
# ---------------------------------------------------------------------------------------------


def _near(context: str) -> _Check:
    """A check for a provider whose prefix is a common word (``key-``, ``API-``): the key counts only when the
    provider is named nearby (``context``, a regex on the lowered text within 200 characters either side: its name, an
    assignment to a name holding it, its CLI); ``cache-key-<md5>`` or ``ORDER-API-<ULID>`` are ids, not keys."""
    rx = re.compile(context)

    def check(m: re.Match[str], value: str, text: str) -> bool:
        return rx.search(text[max(0, m.start() - 200):m.end() + 200].lower()) is not None

    return check


def _glued_ok(hint: str) -> bool:
    """True for a prefix distinctive enough to be a key even glued after ``-`` / ``_`` (``ghp_``, ``sk_live_``,
    ``glpat-``): four characters or more, a separator of its own, and not just an ordinary word piece
    (:data:`_COMMON_PIECES`)."""
    word = re.sub(r"[_.-]+", "", hint).lower()
    return len(hint) >= 4 and ("_" in hint or "-" in hint) and word not in _COMMON_PIECES


def _tok(kind: str, pattern: str, *hints: str, pre: frozenset[str] = _W, end: str = _B_END,
         anchors: tuple[str, ...] | None = None, check: _Check | None = None) -> _Rule:
    """A provider token rule; by default its hints are also the literals every match starts with. A prefix that
    carries its own separator (``ghp_``, ``glpat-``, ``sk-ant-``: :func:`_glued_ok`) is found glued after
    ``-`` or ``_`` too (``sess-ghp_…``, ``x_sk-ant-…``); after a letter or digit it is part of another word."""
    if pre is _W and hints and all(_glued_ok(h) for h in hints):
        pre = _W_GLUED
    return _Rule(kind, _r(pattern + end), hints, pre=pre, anchors=hints if anchors is None else anchors, check=check)


#: what fills a connection string's braces in code, not a password: a format index ({0}), an interpolated name or
#: expression with no digit in it ({db_pass}, {self.password}), an index or a call ({env["PW"]}, {get_pw()})
_ODBC_CODE = re.compile(r"\d{1,2}|[A-Za-z_][A-Za-z_.]*|.*[\[(].*", re.S)
#: a bare value; one right before a bracket is a call or an index (``password=get_pw()``, ``token=env[k]``), unless a
#: short bracketed part inside a word continues it (``pa(ss)w0rd9``: its word is judged whole, see ``whole``)
_UNQUOTED = r"(?P<val>[^\s\"'`,;&<>()\[\]{}]{1,512}+)(?!\((?![^()\s]{1,40}\)\w))(?![\[{])"
# A quote may be backslash-escaped (``TOKEN=\\"x\\"`` inside a JSON string); a backslash may stand in a
# quoted value unless it escapes a quote.
_QUOTED_OR_BARE = (
    r"(?:(?P<q>\\?[\"'])(?P<qval>(?:[^\"'\\\r\n]|\\[^\"'\r\n]){1,512}+)(?P=q)|" + _UNQUOTED + ")"
)
#: Chinese credential labels, simplified and traditional
_CJK_LABELS = ("密码", "密碼", "口令", "密钥", "密鑰", "金鑰", "秘钥", "秘鑰", "私钥", "私鑰", "令牌", "權杖", "授权码", "授權碼",
               "通行码", "通行碼",
               # Japanese and Korean: password, PIN, passcode, secret key (not トークン / 토큰, "token", which counts a
               # model's input as often as it names a credential)
               "パスワード", "暗証番号", "パスコード", "秘密鍵", "비밀번호", "비번", "패스워드", "비밀키",
               # 암호 ("password", and "cipher" too): its value is vetted as after a bare label (:func:`_check_cjk_label`)
               "암호")
#: "password" in other European languages (lower case: the keyword rules read the lowered text)
_EU_LABELS = ("passwort", "kennwort", "contraseña", "contrasena", "mot de passe", "senha", "wachtwoord", "hasło", "haslo",
              "lösenord", "losenord", "passord", "adgangskode", "salasana", "heslo", "şifre", "пароль", "парол", "mật khẩu",
              "kata sandi", "jelszó", "parola d'ordine", "palavra-passe", "पासवर्ड", "कूटशब्द", "كلمة المرور", "كلمة السر",
              "סיסמה", "סיסמא", "รหัสผ่าน", "κωδικός πρόσβασης", "гасло",
              # Italian / Turkish / Romanian "parola", Greek, Indonesian "sandi" (alone: its value must mix letters with
              # digits or symbols, so "la parola è ciao" is a word about a word)
              "parola", "κωδικός", "συνθηματικό", "sandi")
#: a key's or a token's name in other languages (lower case), and the kind it reports: a value after one is redacted when it
#: reads as key material (:func:`_glued_cjk_value`: random, 16+ characters, or 32+ hex), so ``入力トークン: 1500`` and
#: ``clé API : voir le coffre`` stay
_INTL_KEY_LABELS = {
    # Japanese, Korean, Chinese
    "トークン": "token", "アクセストークン": "token", "認証トークン": "token", "apiキー": "api_key", "api キー": "api_key",
    "キー": "api_key", "アクセスキー": "api_key", "シークレット": "secret", "シークレットキー": "secret", "秘密キー": "secret",
    "토큰": "token", "액세스 토큰": "token", "인증 토큰": "token", "api 키": "api_key", "api키": "api_key", "키": "api_key",
    "액세스 키": "api_key", "시크릿": "secret", "시크릿 키": "secret", "비밀 키": "secret", "密匙": "secret",
    "秘密": "secret", "凭证": "credentials", "憑證": "credentials", "凭据": "credentials", "憑據": "credentials",
    # Spanish, Portuguese, French, Italian, German, Dutch, Russian / Ukrainian
    "clave de api": "api_key", "clave api": "api_key", "clave de la api": "api_key", "clave secreta": "secret",
    "clave de acceso": "api_key", "clave privada": "secret", "token de acceso": "token", "chave de api": "api_key",
    "chave api": "api_key", "chave da api": "api_key", "chave secreta": "secret", "chave de acesso": "api_key",
    "chave privada": "secret", "clé api": "api_key", "clé d'api": "api_key", "clé de l'api": "api_key",
    "clé secrète": "secret", "clé d'accès": "api_key", "clé privée": "secret", "jeton": "token",
    "jeton d'accès": "token", "chiave api": "api_key", "chiave dell'api": "api_key", "chiave segreta": "secret",
    "chiave di accesso": "api_key", "chiave privata": "secret", "api-schlüssel": "api_key", "api-schluessel": "api_key",
    "schlüssel": "api_key", "geheimer schlüssel": "secret", "zugangstoken": "token", "zugriffstoken": "token",
    "api-sleutel": "api_key", "geheime sleutel": "secret", "ключ api": "api_key", "api-ключ": "api_key",
    "api ключ": "api_key", "ключ": "api_key", "секретный ключ": "secret", "ключ доступа": "api_key", "токен": "token",
    "токен доступа": "token", "секрет": "secret", "ключ апі": "api_key", "секретний ключ": "secret",
}


def _label_starts_word(m: re.Match[str]) -> bool:
    """The label starts a word: not the tail of a longer one (主キー "primary key", Primärschlüssel, первичный…)."""
    at = m.start("key")
    return at == 0 or not m.string[at - 1].isalnum()


#: an option's value: in quotes, whole to its closing quote (``--app-password "abcd efgh ijkl mnop"``: spaces and all),
#: else a word (after a quote that is not closed on its line, its first word)
_FLAG_VALUE = (r"(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)"
               r"|[\"']?(?P<val>[^\s\"'`<>|;&-][^\s\"'`<>|;&]{0,511}+))")
#: a flag's value in quotes, whole to its closing quote (``sshpass -p "my long phrase"``), else bare
_FLAG_QUOTED_OR_BARE = (r"(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)"
                        r"|(?P<val>[^\s\"'`<>|;&-][^\s\"'`<>|;&]{0,511}+))")

#: the tools of each password option (:data:`_TOOL_PASSWORD_FLAGS`): (tools, options, anchors, taken glued)
_TOOL_FLAG_GROUPS = (
    (r"openssl", r"-k", ("openssl",), False),
    (r"zip|unzip|ssh-keygen|mosquitto_(?:pub|sub|rr)|bcp|osql", r"-P",
     ("zip", "unzip", "ssh-keygen", "mosquitto_", "bcp", "osql"), False),
    (r"ssh-keygen", r"-N", ("ssh-keygen",), False),
    (r"az|rdesktop|cqlsh|twine|rabbitmqadmin", r"-p|--password", ("az ", "rdesktop", "cqlsh", "twine", "rabbitmqadmin"),
     False),
    (r"ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn)|vsql", r"-w", ("ldap", "vsql"), False),
    (r"7z|7za|7zz|7zr|unrar|rar", r"-hp|-p", ("7z", "unrar", "rar "), True),
)


def _tool_flag_rule(tools: str, flags: str, anchors: tuple[str, ...], glued: bool) -> _Rule:
    """The rule of one password option of a few tools (:data:`_TOOL_FLAG_GROUPS`): from the tool's name, on its own
    command, to the first place that option stands (the lazy run passes over the tool's other options)."""
    return _Rule(
        "password",
        _r(r"(?P<tool>" + tools + r")(?![a-z0-9_.-])[^\n|&;]{0,300}?[ \t](?P<flag>" + flags + r")"
           + ("" if glued else r"[ \t]{1,4}") + _FLAG_QUOTED_OR_BARE),
        anchors, priority=_P_ASSIGN, group="val", check=lambda m, v, t: _check_tool_flag(m, v, t), anchors=anchors,
    )


#: the options of ``cargo login`` / ``wandb login`` / ``ngrok`` that take no value: the word after one is the token
#: (``wandb login --relogin KEY --host URL``), after any other option its value (``cargo login --registry NAME KEY``)
_LOGIN_SWITCHES = "relogin|cloud|anonymously|verify|quiet|q|verbose|v|frozen|locked|offline"

_PROVIDER_RULES: list[_Rule] = [
    # --- AI providers
    _tok("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,400}+", "sk-ant-"),
    # a project / service-account / admin key's prefix is distinctive enough to be found glued after - or _ too
    _tok("openai_key", r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,400}+", "sk-proj-", "sk-svcacct-",
         "sk-admin-", "sk-None-", check=_check_not_words),
    _tok("openai_key", r"sk-[A-Za-z0-9]{32,400}+", "sk-"),
    # any other sk- key (sk-sp-…, sk-or-v1-…, DashScope, DeepSeek…), dots included: whole, never cut at a '.' (C18)
    _Rule("api_key", _r(r"sk-[A-Za-z0-9][A-Za-z0-9._-]{18,400}+" + _B_END), ("sk-",), check=_check_sk_key,
          priority=_P_PROVIDER - 5, trim=".-", anchors=("sk-",)),
    # the same key in two parts (C18's siblings: ``sk-sp-ABCD1234…:abcd…``), taken whole when its first part mixes
    # capitals and digits (a git refspec ``sk-1234-fix-login:sk-1234-fix-login`` is two branch names)
    # (pieces bounded: keys glued to each other by "+" would otherwise make every "sk-" match run to the end)
    _Rule("api_key", _r(r"sk-[A-Za-z0-9][A-Za-z0-9._-]{18,400}+(?:[:/+=~][A-Za-z0-9._-]{4,400}+){1,16}" + _B_END),
          ("sk-",),
          check=_check_sk_two_part,
          priority=_P_PROVIDER - 5, trim=".-", anchors=("sk-",)),  # a known provider's own rule names the kind
    _tok("huggingface_token", r"hf_[A-Za-z0-9]{30,100}+", "hf_"),
    _tok("groq_key", r"gsk_[A-Za-z0-9]{40,100}+", "gsk_"),
    _tok("xai_key", r"xai-[A-Za-z0-9]{50,120}+", "xai-"),
    _tok("replicate_token", r"r8_[A-Za-z0-9]{30,60}+", "r8_"),
    _tok("perplexity_key", r"pplx-[A-Za-z0-9]{40,80}+", "pplx-"),
    _tok("langsmith_key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", "lsv2_"),
    # --- VCS, registries, CI
    _tok("github_token", r"gh[pousr]_[A-Za-z0-9]{36,255}+", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    _tok("github_token", r"github_pat_[A-Za-z0-9_]{22,255}+", "github_pat_"),
    _tok("gitlab_token", r"gl(?:pat|ptt|dt|rt|soat|oas|cbt|ft|imt|agent|ffct)-[A-Za-z0-9_-]{20,255}+",
         *(f"gl{p}-" for p in ("pat", "ptt", "dt", "rt", "soat", "oas", "cbt", "ft", "imt", "agent", "ffct"))),
    _tok("atlassian_token", r"AT[ACS]TT3[A-Za-z0-9_=+/-]{40,400}+", "ATATT3", "ATCTT3", "ATSTT3"),
    _tok("buildkite_token", r"bkua_[a-f0-9]{40}", "bkua_"),
    _tok("circleci_token", r"CCIPAT_[A-Za-z0-9]{20,30}_[a-f0-9]{40}", "CCIPAT_"),
    _tok("clojars_token", r"CLOJARS_[a-f0-9]{60}", "CLOJARS_"),
    _tok("rubygems_key", r"rubygems_[a-f0-9]{48}", "rubygems_"),
    _tok("postman_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", "PMAK-"),
    # NuGet.org API keys: "oy2" and 43 lower-case letters and digits (46 in all), no separator
    _tok("nuget_key", r"oy2[a-z0-9]{43}", "oy2", check=lambda m, v, t: any(c.isdigit() for c in v[3:])
         and sum(c.isalpha() for c in v[3:]) >= 10),
    _tok("npm_token", r"npm_[A-Za-z0-9]{36,64}+", "npm_"),
    _tok("pypi_token", r"pypi-Ag[A-Za-z0-9_-]{50,400}+", "pypi-Ag"),
    # --- chat
    _tok("slack_token", r"xox[abposre]-[A-Za-z0-9-]{10,250}+", *(f"xox{c}-" for c in "abposre"),
         check=_check_not_words),
    _tok("slack_token", r"xapp-[0-9]-[A-Za-z0-9-]{10,250}+", "xapp-"),
    _tok("slack_webhook", r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,300}+",
         "hooks.slack.com", end="", anchors=("https://hooks.slack.com/", "http://hooks.slack.com/")),
    _tok("discord_webhook",
         r"https?://(?:[a-z]+\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{20,200}+",
         "/api/webhooks/", end="", anchors=()),
    _tok("discord_token", r"[MNO][A-Za-z0-9_-]{23,27}+\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}+", ".", anchors=()),
    # (the gate below checks the discord rule with _DOTTED6 rather than its "." hint)
    _tok("telegram_bot_token", r"[0-9]{6,12}:AA[A-Za-z0-9_-]{30,40}+", ":AA", pre=_W | {":"}, anchors=()),
    # --- cloud
    _tok("aws_access_key", r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}", "AKIA", "ASIA", "ABIA", "ACCA", "A3T",
         pre=_SEG, end=_SEG_END),
    _tok("google_api_key", r"AIza[0-9A-Za-z_-]{35}", "AIza", pre=_SEG, end=_SEG_END),
    _tok("google_oauth_token", r"ya29\.[0-9A-Za-z_-]{20,2048}+", "ya29.", end=""),
    # a Google OAuth refresh token (gcloud's authorized_user JSON, the OAuth playground): "1//0" and a random base64url
    # tail; the tail must read as key material, so a path or a floor division (1//0) stays
    _tok("google_oauth_token", r"1//0[0-9A-Za-z_-]{30,1024}+", "1//0", pre=_W64 | {":", "."},
         check=lambda m, v, t: _random_tail(re.sub(r"[^A-Za-z0-9]", "", v[4:]))),
    # Dropbox short-lived access tokens: "sl." and a long random base64url tail (long-lived ones have no prefix)
    _tok("dropbox_token", r"sl\.[A-Za-z0-9_.=-]{40,2048}+", "sl.", pre=_W | {"."},
         check=lambda m, v, t: _random_tail(re.sub(r"[^A-Za-z0-9]", "", v[3:]))),
    _tok("google_client_secret", r"GOCSPX-[0-9A-Za-z_-]{24,40}+", "GOCSPX-"),
    # an Azure AD (Entra ID) application's client secret: 3 characters, a digit, "Q~" and 31-34 of [A-Za-z0-9_~.-] (40
    # in all); its tail must read as key material (a path or dotted words with "Q~" in them stay)
    _Rule("azure_client_secret",
          _r(r"[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~-])"), ("Q~",),
          pre=_W | {"~", ".", "+", "/"}, trim=".",
          check=lambda m, v, t: _random_tail(re.sub(r"[^A-Za-z0-9]", "", v[6:]))),
    _tok("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}", "doo_v1_", "dop_v1_", "dor_v1_"),
    _tok("databricks_token", r"dapi[a-f0-9]{32}(?:-[0-9])?", "dapi", pre=_SEG, end=_SEG_END),
    _tok("vault_token", r"hv[sb]\.[A-Za-z0-9_-]{24,200}+", "hvs.", "hvb."),
    # a service token of Vault before 1.10: "s." and 24 base62 characters (".<5>" after it names a namespace); not one
    # that ends an identifier (this.s.…, users.…), a call (s.X(…)) or a name that is not random (s.ReplaceAllString…)
    _tok("vault_token", r"s\.[A-Za-z0-9]{24}(?:\.[A-Za-z0-9]{5})?(?![A-Za-z0-9_(-])", "s.", pre=_W64 | {"."}, end="",
         check=lambda m, v, t: _random_tail(v[2:26])),
    # a service token may name its config between the kind and the key (dp.st.prd.<key>)
    _tok("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}+\.)?[A-Za-z0-9]{40,60}+", "dp."),
    _tok("supabase_token", r"(?:sbp_(?:oauth_)?[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,100}+)", "sbp_", "sb_secret_"),
    _tok("pulumi_token", r"pul-[a-f0-9]{40}", "pul-"),
    _tok("heroku_key", r"HRKU-[A-Za-z0-9_-]{30,80}+", "HRKU-"),
    _tok("newrelic_key", r"NR(?:AK|II|AA)-[A-Z0-9]{27}", "NRAK-", "NRII-", "NRAA-"),
    _tok("dynatrace_token", r"dt0[a-z][0-9]{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}", "dt0"),
    _tok("terraform_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,100}+", ".atlasv1.", anchors=()),
    _tok("cloudflare_origin_ca_key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", "v1.0-"),
    _tok("mapbox_token", r"sk\.eyJ[A-Za-z0-9_-]{20,400}+\.[A-Za-z0-9_-]{20,100}+", "sk.eyJ"),
    _tok("harness_token", r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}", "pat.", "sat."),
    _tok("vercel_token", r"vercel_blob_rw_[A-Za-z0-9]{16}_[A-Za-z0-9]{30}", "vercel_blob_rw_"),
    # --- payments and SaaS
    _tok("stripe_key", r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,250}+", "sk_live_", "rk_live_", "sk_test_", "rk_test_"),
    _tok("stripe_webhook_secret", r"whsec_[A-Za-z0-9+/=]{24,100}+", "whsec_", end=""),
    _tok("twilio_key", r"SK[0-9a-f]{32}", "SK", pre=_SEG, end=_SEG_END),
    _tok("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,32}+\.[A-Za-z0-9_-]{30,64}+", "SG."),
    _tok("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "shp"),
    _tok("square_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,60}+", "sq0"),
    _tok("linear_key", r"lin_api_[A-Za-z0-9]{40}", "lin_api_"),
    _tok("notion_token", r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,60}+)", "secret_", "ntn_"),
    _tok("sentry_token", r"sntry[su]_[A-Za-z0-9+/=_]{40,300}+", "sntry", end=""),
    _tok("age_secret_key", r"AGE-(?:SECRET-KEY|PLUGIN-[A-Z0-9]{1,40}+)-1[0-9A-Za-z]{40,100}+", "AGE-SECRET-KEY-1",
         "AGE-PLUGIN-"),
    # "key-" and "API-" are words: an md5 / uuid.hex after "key-" and a ULID after "API-" are ids unless the provider
    # is named nearby (MAILGUN_API_KEY=key-…, api.mailgun.net, X-Octopus-ApiKey: API-…, octo push --apiKey API-…)
    _tok("mailgun_key", r"key-[a-f0-9]{32}", "key-", pre=_W,
         check=_near(r"mailgun|(?<![a-z0-9])mg[_-]?(?:api[_-]?)?(?:key|secret)")),
    _tok("sendinblue_key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", "xkeysib-"),
    _tok("shippo_token", r"shippo_(?:live|test)_[a-f0-9]{40}", "shippo_"),
    _tok("duffel_token", r"duffel_(?:live|test)_[A-Za-z0-9_-]{43}", "duffel_"),
    _tok("flutterwave_key", r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X", "FLWSECK"),
    _tok("octopus_key", r"API-[A-Z0-9]{26}", "API-", pre=_W, check=_near(r"octopus|(?<![a-z0-9])octo(?![a-z0-9])")),
    _tok("defined_networking_key", r"dnkey-[A-Z0-9]{26}-[A-Z0-9]{52}", "dnkey-"),
    # --- JWT: three base64url parts, the first two JSON objects ("eyJ" = base64 of '{"')
    _Rule(
        "jwt",
        _r(r"eyJ[A-Za-z0-9_-]{5,4096}+\.eyJ[A-Za-z0-9_-]{5,8192}+\.[A-Za-z0-9_-]{0,4096}+" + _B_END),
        ("eyJ",),
        priority=_P_JWT,
        anchors=("eyJ",),
    ),
    # a known tool's password option, read as written (zip -P, ssh-keygen -N; see _TOOL_PASSWORD_FLAGS): one rule per
    # option, so the search for a tool's password option passes over its other options (mosquitto_pub -p 1883 … -P X,
    # vsql -p 5433 … -w X, rabbitmqadmin -P 15672 … -p X: a port before the password)
    *(_tool_flag_rule(tools, flags, anchors, glued) for tools, flags, anchors, glued in _TOOL_FLAG_GROUPS),
    # echo X | sudo -S …, printf '%s\n' X | sudo -p '' -S …, echo X | docker login … --password-stdin, echo X | passwd
    # --stdin bob: a password piped in (-S read as written)
    _Rule(
        "password",
        _r(r"(?:echo|printf)[ \t]{1,4}(?:-[a-z]{1,3}[ \t]{1,4})?(?:(?P<fq>[\"']?)%s(?:\\[rn])*(?P=fq)[ \t]{1,4})?"
           r"(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)"
           r"|(?P<val>[^\s\"'`<>|;&-][^\s\"'`<>|;&]{0,511}+))[ \t]{0,4}\|[ \t]{0,4}"
           r"(?=" + _SUDO_STDIN + r"|[^\n|&;]{0,300}?--password-stdin|passwd[^\n|&;]{0,100}?[ \t]--stdin(?![\w-])"
           r"|(?i:" + _SECRET_STDIN + r")(?![\w-]))"),
        ("sudo", "password-stdin", "passwd"), priority=_P_ASSIGN, check=_check_piped_password,
        anchors=("echo", "printf"),
    ),
    # sudo -S <<< X …, cmd <<< 'X' with sudo -S / --password-stdin / passwd --stdin on its command; chpasswd <<< 'u:X'
    _Rule(
        "password",
        _r(r"<<<[ \t]{0,4}(?:\$?(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)|(?P<val>[^\s\"'`<>|;&(][^\s\"'`<>|;&]{0,511}+))"),
        ("<<<",), priority=_P_ASSIGN, check=lambda m, v, t: _check_here_string(m, v, t), pre=frozenset(), anchors=("<<<",),
    ),
    _Rule(
        "password",
        _r(r"<<<[ \t]{0,4}[\"']?[^\s:\"'|;&<>$]{1,64}+:(?P<val>[^\s\"'|;&]{1,512}+)"),
        ("<<<",), priority=_P_ASSIGN, group="val", check=lambda m, v, t: _check_here_string(m, v, t, chpasswd=True),
        pre=frozenset(), anchors=("<<<",),
    ),
    # sqlcmd -P hunter2 (upper case, so read as written: sqlcmd's -p prints statistics), on its own command
    _Rule(
        "password",
        _r(r"sqlcmd(?![A-Za-z0-9_-])[^\n|&;]{0,300}?[ \t]-P[ \t]*" + _FLAG_QUOTED_OR_BARE),
        ("sqlcmd",), priority=_P_ASSIGN, group="val", check=_check_cli_password, anchors=("sqlcmd",),
    ),
    # poetry config http-basic.<repository> USER PASSWORD: the password, its third argument
    _Rule(
        "password",
        _r(r"poetry[ \t]{1,4}config[ \t]{1,4}(?:--[a-z-]{1,20}+[ \t]{1,4}){0,3}+http-basic\.[\w.-]{1,100}+[ \t]{1,4}"
           r"[^\s|&;]{1,200}+[ \t]{1,4}" + _FLAG_QUOTED_OR_BARE),
        ("http-basic",), priority=_P_ASSIGN, group="val", check=_check_cli_password, anchors=("poetry",),
    ),
    # MinIO's client: mc alias set ALIAS URL ACCESS_KEY SECRET_KEY (mc config host add, its older name): the secret key
    _Rule(
        "secret",
        _r(r"mc[ \t]{1,4}(?:alias[ \t]{1,4}set|config[ \t]{1,4}host[ \t]{1,4}add)(?:[ \t]{1,4}[^\s|&;]{1,500}+){3}+[ \t]{1,4}"
           + _FLAG_QUOTED_OR_BARE),
        ("mc alias", "mc config"), priority=_P_ASSIGN, group="val", check=_check_cli_password, anchors=("mc",),
    ),
    # rclone config create|update NAME TYPE … then a credential's name and its value (``secret_access_key X``,
    # ``pass X``, ``token=X``): the first such value of the command
    _Rule(
        "secret",
        _r(r"rclone[ \t]{1,4}config[ \t]{1,4}(?:create|update)(?:[ \t]{1,4}[^\s|&;]{1,200}+){0,16}?[ \t]{1,4}"
           r"(?:secret_access_key|client_secret|account_key|pass|password|token|key|sas_url|bearer_token)(?:[ \t]{1,4}|=)"
           + _FLAG_QUOTED_OR_BARE),
        ("rclone",), priority=_P_ASSIGN, group="val", check=_check_cli_password, anchors=("rclone",),
    ),
]

def _check_securestring(m: re.Match[str], value: str, text: str) -> bool:
    """PowerShell's ``ConvertTo-SecureString``: its string is a password typed in plain text only with ``-AsPlainText``
    on the same command; a variable, an expression or (bare) a word of a sentence is none."""
    at = m.end("cmd")
    end = min(len(text), at + 400)  # bounded: a long line of commands stays linear
    for stop in ("\n", "|"):
        k = text.find(stop, at, end)
        if k >= 0:
            end = k
    if "-asplaintext" not in text[m.start():end].lower() or _shell_expansion(value) or _is_placeholder(value):
        return False
    return m.group("q") is not None or _looks_secretish(value)


# Rules on the lowered text: credential words are matched in any case.
_KEYWORD_RULES: list[_Rule] = [
    # PowerShell: ConvertTo-SecureString 'X' -AsPlainText (positional or -String), 'X' | ConvertTo-SecureString -AsPlainText
    _Rule(
        "password",
        _r(r"(?P<cmd>convertto-securestring)(?:[^\n|;]{0,200}?[ \t]-string)?[ \t]{1,4}"
           r"(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)|(?P<val>[^\s\"'`$(|;&-][^\s\"'`|;&()]{0,511}+))"),
        ("convertto-securestring",), group="val", priority=_P_ASSIGN, lowered=True, pre=_W, check=_check_securestring,
        anchors=("convertto-securestring",),
    ),
    _Rule(
        "password",
        _r(r"(?P<q>[\"'])(?P<qval>[^\"'\r\n|]{1,512}+)(?P=q)[ \t]{0,4}\|[ \t]{0,4}(?P<cmd>convertto-securestring)"),
        ("convertto-securestring",), group="val", priority=_P_ASSIGN, lowered=True, pre=frozenset(),
        check=_check_securestring,
    ),
    _Rule(
        "aws_secret_key",
        _r(r"aws_?(?:secret_?access_?key|secret_?key|session_?token)[\"']?[ \t]{0,8}(?:=|:|=>)[ \t]{0,8}[\"']?"
           r"(?P<val>[a-z0-9/+=]{20,1024}+)"),
        ("aws",), group="val", pre=_W.difference("_") | {"."}, lowered=True, anchors=("aws",),
    ),
    _Rule(
        "azure_key",
        _r(r"(?:accountkey|sharedaccesskey)=(?P<val>[a-z0-9+/]{20,200}+={0,2})"),
        ("accountkey=", "sharedaccesskey="), group="val", lowered=True, anchors=("accountkey=", "sharedaccesskey="),
    ),
    _Rule("azure_sas", _r(r"[?&;]sig=(?P<val>[a-z0-9%+/=]{16,300}+)"), ("sig=",), group="val", pre=frozenset(),
          lowered=True),
    # a URL query's plain "key" parameter (?key=…&token=…): a random-looking value of 16+ characters, not an object's
    # name or path (?key=uploads/a.png, ?key=user-42)
    # (and "code": an Azure Functions key, an OAuth authorization code in a callback URL)
    _Rule("api_key", _r(r"[?&;](?:key|code)=(?P<val>[a-z0-9_.~%+-]{16,512}+)(?![a-z0-9_.~%+/-])"), ("key=", "code="),
          group="val", pre=frozenset(), lowered=True, anchors=("?key=", "&key=", ";key=", "?code=", "&code=", ";code="),
          check=lambda m, v, t: _glued_cjk_value(v, False)),
    # a signed URL's base64 signature (CloudFront's URL-safe ~ - _, GCS V2's percent-escaped +/=), random-looking
    _Rule("signature", _r(r"[?&;]signature=(?P<val>[a-z0-9_~%+-]{24,2048}+)(?![a-z0-9_.~%+/-])"), ("signature=",),
          group="val", pre=frozenset(), lowered=True, anchors=("?signature=", "&signature=", ";signature="),
          check=lambda m, v, t: _glued_cjk_value(re.sub(r"%[0-9A-Fa-f]{2}", "", v).replace("~", ""), False)),
    _Rule(
        "auth_header",
        _r(r"authorization[\"']?(?:[ \t]{0,8}[:=][ \t]{0,8}[\"']?|[ \t]{1,8}[\"'])(?:bearer|basic|token|bot|apikey|sso-key)"
           r"(?:[ \t]{1,8}|[ \t]{0,8}\\?\r?\n[ \t]{1,40})(?P<val>[a-z0-9._~+/=:-]{6,8192}+)"),
        ("authorization",), priority=_P_HEADER, group="val", check=_check_plain,
        pre=_W.difference("-"), lowered=True, anchors=("authorization",),
    ),
    # (a web server's config sets it with the value quoted after the name: proxy_set_header Authorization "Basic …")
    # any other scheme (Authorization: SSWS …, Splunk …, Negotiate …, GenieKey …, Klaviyo-API-Key …, Zoho-oauthtoken …):
    # a value that reads as key material
    _Rule(
        "auth_header",
        _r(r"authorization[\"']?(?:[ \t]{0,8}[:=][ \t]{0,8}[\"']?|[ \t]{1,8}[\"'])(?!(?:bearer|basic|token|bot|digest|apikey|sso-key)(?![\w-]))"
           r"[a-z][a-z0-9_.-]{1,40}+(?:[ \t]{1,8}|[ \t]{0,8}\\?\r?\n[ \t]{1,40})(?P<val>[a-z0-9._~+/=:-]{16,8192}+)"),
        ("authorization",), priority=_P_HEADER, group="val", pre=_W.difference("-"), lowered=True,
        check=lambda m, v, t: _check_plain(m, v, t) and (_glued_cjk_value(v.rstrip("=."), False) or (
            len(v) >= 20 and _looks_secretish(v) and not _WORDY.get().fullmatch(v))),
        anchors=("authorization",),
    ),
    # Digest: the response (a hash of the password) and an AWS Signature Version 4 / GCS V4 signature (a presigned
    # URL's X-Amz-Signature / X-Goog-Signature, an Authorization header's Signature=): what grants the access
    _Rule(
        "auth_header",
        _r(r"digest[ \t]{1,8}[^\n]{0,600}?(?<![a-z0-9_-])response[ \t]{0,4}=[ \t]{0,4}\"?(?P<val>[a-f0-9]{32,128}+)(?![a-z0-9])"),
        ("digest",), priority=_P_HEADER, group="val", lowered=True, anchors=("digest",),
    ),
    _Rule(
        "signature",
        _r(r"(?:x-amz-|x-goog-)?signature=(?P<val>[a-f0-9]{64,2048}+)(?![a-z0-9])"),
        ("signature=",), priority=_P_HEADER, group="val", pre=_W.difference("-"), lowered=True,
        anchors=("x-amz-signature=", "x-goog-signature=", "signature="),
    ),
    _Rule(
        "bearer_token",
        _r(r"bearer(?:[ \t]{1,8}|[ \t]{0,8}\\?\r?\n[ \t]{1,40})(?P<val>[a-z0-9._~+/-]{16,8192}+=*)"),
        ("bearer",), priority=_P_HEADER, group="val", check=_check_bearer, lowered=True, anchors=("bearer",),
    ),
    # CLI flags: --password hunter2, --passphrase x (gpg, duplicity), --token=abc, mysql -phunter2
    _Rule(
        "password",
        _r(r"--?(?:password|passwd|passphrase|db-password|pass)(?:[ \t]{1,4}|=)" + _FLAG_VALUE),
        ("pass",), priority=_P_ASSIGN, group="val",
        check=lambda m, v, t: _check_flag_value(m, v, t) and not _named_in_prose(m, v), lowered=True,
        anchors=("--pass", "-pass", "--db-password", "-db-password"),
    ),
    _Rule(
        "token",
        _r(r"--(?:token|api-key|apikey|secret|auth-token|access-token)(?:[ \t]{1,4}|=)" + _FLAG_VALUE),
        ("--",), priority=_P_ASSIGN, group="val", check=lambda m, v, t: _check_token_flag(m, v, t), lowered=True,
        anchors=("--token", "--api-key", "--apikey", "--secret", "--auth-token", "--access-token"),
    ),
    # a credential option named with a qualifier: --admin-password X, --client-secret X, --bot-token X,
    # --secret-access-key X, --auth-key=X, Go's single-dash -db-password X (the kind and the value's test by its last word)
    _Rule(
        "compound_flag",  # the kind: by the option's last word, _compound_flag_kind
        _r(r"--?(?P<name>(?:[a-z0-9]{1,20}+[-_]){1,4}+(?:password|passwd|pass|pwd|secret|token|key|authkey|authtoken)"
           r"|authkey|authtoken)(?:[ \t]{1,4}|=)" + _FLAG_VALUE),
        ("--", "-"), priority=_P_ASSIGN, group="val", check=lambda m, v, t: _check_compound_flag(m, v, t), lowered=True,
        anchors=("-",),
    ),
    _Rule(
        "password",
        _r(r"(?:mysql|mysqldump|mysqladmin|mariadb)(?![a-z0-9_-])[^\n]{0,300}?[ \t]-p"
           + _FLAG_QUOTED_OR_BARE),
        ("mysql", "mariadb"), priority=_P_ASSIGN, group="val", check=_check_flag_value, lowered=True,
        anchors=("mysql", "mariadb"),
    ),
    # "the password is hunter2", "token was `abc123`", "the admin password for prod is Tr0ub4dor3" (up to three
    # words between the label and its verb)
    _Rule(
        "password",
        _r(r"(?:password|passwd|passphrase|pwd|pw|secret|token|api key)(?:[ \t]{1,4}[a-z][a-z0-9_-]{0,15}){0,3}?"
           r"[ \t]{1,4}(?:is|was):?[ \t]{1,4}"
           r"(?:(?P<q>[`\"'])(?P<qval>[^`\"'\r\n]{1,512}+)(?P=q)|"
           r"(?P<val>[^\s\"'`,;&<>()\[\]{}]{1,512}+))"),
        (" is ", " was "), priority=_P_ASSIGN, check=_check_is_phrase, lowered=True, trim=".!?:",
        anchors=("pass", "pw", "secret", "token", "api key"), whole="before",
    ),
    # "set the password to hunter2", "changed my db password to `x`"
    _Rule(
        "password",
        _r(r"(?:set|sets|setting|change|changed|changes|changing|reset|update|updated)[ \t]{1,4}"
           r"(?:[a-z][a-z0-9_-]{0,15}[ \t]{1,4}){0,3}?(?:password|passwd|passphrase|pwd)[ \t]{1,4}to[ \t]{1,4}"
           r"(?:(?P<q>[`\"'])(?P<qval>[^`\"'\r\n]{1,512}+)(?P=q)|"
           r"(?P<val>[^\s\"'`,;&<>()\[\]{}]{1,512}+))"),
        (" to ",), priority=_P_ASSIGN, check=_check_is_phrase, lowered=True, trim=".!?:",
        anchors=("set", "chang", "reset", "updat"), whole="before",
    ),
    # "I set password hunter2hunter2", "login with password Zq8!vvTT99": a password named right after the word, when
    # it mixes letters and digits (a word after "password" is its subject: "password reset", "password field")
    _Rule(
        "password",
        _r(r"(?:password|passwd|passphrase)[ \t]{1,4}(?:(?P<q>[`\"'])(?P<qval>[^`\"'\s]{6,512}+)(?P=q)"
           r"|(?P<val>[^\s\"'`,;&<>()\[\]{}]{8,512}+))"),
        ("pass",), priority=_P_ASSIGN - 1, check=_check_bare_password, lowered=True, trim=".!?:",
        anchors=("pass",), whole="before",
    ),
    # "password: correct horse battery staple", "the vpn password is sunshine", "密码：correct horse battery staple": a
    # value of letters alone after a password's own name, ending its line, sentence or field (a comment, a comma
    # before the next one may follow) — one word, or a
    # passphrase of four words or more (the rules above want digits or symbols in a word, and took one word of a
    # spaced passphrase: "DB_PASSWORD=[redacted] horse battery staple")
    _Rule(
        "password",
        _r(r"(?:password|passwd|passphrase|pwd|密码|密碼|口令)\*{0,2}[\"']?(?:[ \t]{0,8}(?::=|=|:|：)[ \t]{0,8}"
           r"|(?:[ \t]{1,4}(?:for|at|on|of|in|to)[ \t]{1,4}(?:the[ \t]{1,4})?[\w.-]{1,40}(?:[ \t]{1,4}[\w.-]{1,40})?)?"
           r"(?:[ \t]{1,4}(?:is|was)[ \t]*:?[ \t]{1,4}|[ \t]*:[ \t]{1,4})"
           r"|[ \t]{0,4}(?:是|为|改成了?|改为|设为|设置为|设成)[ \t]{0,4})"
           r"[\"'`*]?(?P<val>[a-zA-Z\u00c0-\u024f]{3,16}(?:[ \t](?!" + _CONNECTOR + r"[ \t])[a-zA-Z\u00c0-\u024f]{3,16}){3,7}"
           r"|[a-zA-Z\u00c0-\u024f]{5,40})[\"'`*]{0,2}"
           + _VALUE_END),
        ("pass", "pwd", "密码", "密碼", "口令"), priority=_P_ASSIGN, group="val", check=_check_letters_password,
        pre=_KEY_BEFORE, lowered=True, anchors=("pass", "pwd", "密码", "密碼", "口令"),
    ),
    # Chinese labels: 密码：hunter2, 口令是 abc, 密钥=xyz, 令牌：…
    _Rule(
        "cjk_label",
        _r(r"(?P<key>" + "|".join(_CJK_LABELS) + r")"
           r"(?:[ \t\u3000]{0,4}(?:(?:是|为|為|は|는|은)[ \t\u3000]{0,2}[:：]?|[:：=＝])[ \t\u3000]{0,4}"
           r"|(?P<bare>[ \t\u3000]{1,4})|(?P<glued>))[\"'“‘「『`]?"
           r"(?P<val>[\x21-\x7e]{1,512}+)"),
        _CJK_LABELS, priority=_P_ASSIGN, group="val", check=_check_cjk_label, pre=frozenset(), lowered=True,
        trim="\"'`.,;:?)]}>", anchors=_CJK_LABELS,
    ),
    # an English credential name with a CJK copula (token 是 X, API Key 为 X, password は X): a value that reads as a
    # password or key material (:func:`_glued_cjk_value`), so "token 是按字数计费的" and "token 是 4096" stay
    _Rule(
        "password",  # the kind: per name, _assignment_kind (the empty "kq" group asks for it)
        _r(r"(?P<key>password|passwd|passphrase|pwd|(?:api|access|secret|private)[ _-]?(?:key|token)|token|secret)"
           r"(?P<kq>)[ \t]{0,2}(?:是|为|為|は|는|은)[ \t\u3000]{0,2}[:：]?[ \t\u3000]{0,4}[\"'“‘「『`]?"
           r"(?P<val>[\x21-\x7e]{1,512}+)"),
        ("pass", "pwd", "key", "token", "secret"), priority=_P_ASSIGN, group="val", pre=_W, lowered=True,
        trim="\"'`.,;:?)]}>", check=lambda m, v, t: _glued_cjk_value(v.rstrip("\"'`.,;:?)]}>”’」』"),
                                                          m.group("key").startswith("pass") or m.group("key") == "pwd"),
        anchors=("pass", "pwd", "api", "access", "secret", "private", "token"),
    ),
    # a key or a token named in another language: APIキー：…, 액세스 토큰: …, clave de API: …, clé secrète : …, ключ API: …
    _Rule(
        "intl_key_label",  # the kind: per label, _INTL_KEY_LABELS
        _r(r"(?P<key>" + "|".join(re.escape(k) for k in sorted(_INTL_KEY_LABELS, key=len, reverse=True)) + r")(?=[^\w]|は|는|은|是|为|為)[ \t\u3000]{0,4}"
           r"(?:[:：=＝—–-]|是|为|為|は|는|은|(?<=[ \t])(?:es|est|é|è|ist|это|is)(?=[ \t]))?[ \t\u3000]{0,4}"
           r"(?:(?:es|est|é|è|ist|это|is)[ \t]{1,4})?[:：]?[ \t\u3000]{0,4}[\"'“‘「『`«]?[ \t\u00a0]{0,2}(?P<val>[A-Za-z0-9+/_.=~-]{16,512}+)"),
        tuple(_INTL_KEY_LABELS), priority=_P_ASSIGN, group="val", pre=frozenset(), lowered=True, trim="\"'`.,;:?)]}>",
        check=lambda m, v, t: _glued_cjk_value(v.rstrip(_WORD_TRAIL), False) and _label_starts_word(m),
        anchors=tuple(_INTL_KEY_LABELS),
    ),
    # a password named in another European language: Passwort / Kennwort: x, contraseña: x, mot de passe : x, senha: x,
    # пароль: x, hasło: x, wachtwoord = x, lösenord: x, şifre: x, "Passwort ist x" (the value mixes letters with digits
    # or symbols, or is quoted: "Passwort: vergessen", "contraseña incorrecta" are words about it)
    _Rule(
        "password",
        _r(r"(?P<key>" + "|".join(_EU_LABELS) + r")(?![\w])"
           r"(?:[ \t]{1,4}(?:für|fuer|von|zum|zur|de|del|du|da|do|dla|för|til|van|voor|от|для|к)"
           r"(?:[ \t]{1,4}[\w.-]{1,40}){1,2}?)?"
           r"(?:[ \t]{0,4}(?::=|=|:|：)[ \t]{0,4}|[ \t]{1,4}(?:-|–|—)[ \t]{1,4}"
           r"|[ \t]{1,4}(?:ist|war|lautet|es|era|est|était|é|è|is|är|jest|je|on|er|ise|это|là|adalah|είναι)[ \t]{1,4}:?[ \t]{0,4})"
           r"(?:(?P<q>[`\"'«“„])(?P<qval>[^`\"'«»“”„\r\n]{1,512}+)[`\"'»”“]|(?P<val>[^\s\"'`,;<>()\[\]{}«»“”„]{1,512}+))"),
        _EU_LABELS, priority=_P_ASSIGN, check=_check_eu_label, lowered=True, trim=".!?:", anchors=_EU_LABELS,
        pre=frozenset(),  # a compound ends in the word: Datenbankpasswort, WLAN-Passwort, Root-Kennwort
        whole="before",
    ),
    # <password>hunter2</password> (XML configs: Maven settings, .NET, Ant)
    # a credential named by a string literal and given in the next one, or as its element's text: define('DB_PASSWORD',
    # 'x'), os.Setenv("API_KEY", "x"), System.setProperty("db.password", "x"), an argument list's ["--api-key", "x"],
    # .NET's <add key="ApiKey" value="x"/>, Spring's <property name="password" value="x"/>, Android's
    # <string name="api_key">x</string>, <entry key="password">x</entry>, a namespaced <db:password>x</db:password>
    _Rule(
        "password",  # refined per name by _assignment_kind
        _r(r"(?P<kw>password|passwd|passphrase|pwd|secret|token|key|credentials?)(?P<nq>[\"'])"
           r"(?:[ \t]{0,4},[ \t]{0,4}(?:\r?\n[ \t]{0,40})?|[ \t]{1,8}value[ \t]{0,4}=[ \t]{0,4}|(?P<elem>[^<>\n\"']{0,200}>))"
           r"(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)|(?<=>)(?P<val>[^<\s][^<\r\n]{0,511}+)(?=</))"),
        ("pass", "pwd", "secret", "token", "key", "credential"), priority=_P_ASSIGN, check=_check_named_literal,
        pre=frozenset(), lowered=True, anchors=("password", "passwd", "passphrase", "pwd", "secret", "token", "key", "credential"),
    ),
    _Rule(
        "password",
        _r(r":(?P<tag>password|passwd|passphrase|secret|token|apikey|api_key|accesskey|access_key|secretkey"
           r"|secret_key|privatekey|private_key|clientsecret|client_secret)>(?P<val>[^<]{1,512}+)</[a-z][\w.-]{0,40}:(?P=tag)>"),
        (":pass", ":secret", ":token", ":api", ":access", ":private", ":client"),
        priority=_P_ASSIGN, group="val", check=lambda m, v, t: _check_plain(m, v, t) and _XML_PREFIX.search(
            t, max(0, m.start() - 41), m.start()) is not None, pre=frozenset(), lowered=True,
        anchors=(":pass", ":secret", ":token", ":api", ":access", ":private", ":client"),
    ),
    _Rule(
        "password",
        _r(r"<(?P<tag>password|passwd|passphrase|secret|token|apikey|api_key|accesskey|access_key|secretkey"
           r"|secret_key|privatekey|private_key|clientsecret|client_secret)>(?P<val>[^<]{1,512}+)</(?P=tag)>"),
        ("<pass", "<secret", "<token", "<api", "<access", "<private", "<client"),
        priority=_P_ASSIGN, group="val", check=_check_plain, pre=frozenset(), lowered=True,
        anchors=("<pass", "<secret", "<token", "<api", "<access", "<private", "<client"),
    ),
    # .netrc: machine host login user password s3cret
    _Rule(
        "password",
        _r(r"machine[ \t]+\S{1,256}+[ \t]+login[ \t]+\S{1,256}+[ \t]+password[ \t]+(?P<val>\S{1,512}+)"),
        ("machine",), priority=_P_ASSIGN, group="val", check=_check_plain, lowered=True, anchors=("machine",),
    ),
    # curl -u user:pass, curl --user user:pass, docker login -p pass
    _Rule(
        "password",
        _r(r"(?:curl|wget)(?![a-z0-9_-])[^\n]{0,300}?[ \t](?:-u|--user)[ =]?[\"']?"
           r"[^\s:\"']{1,256}+:(?P<val>[^\s\"']{1,512}+)"),
        ("curl", "wget"), priority=_P_ASSIGN, group="val", check=_check_plain, lowered=True,
        anchors=("curl", "wget"),
    ),
    # HTTPie / xh: http -a user:pass, --auth=user:pass, -A bearer -a TOKEN (read as written: -A names the auth type),
    # on its own command
    _Rule(
        "password",
        _r(r"(?:https?|xhs?)[ \t](?:[^\n|;&]{0,200}?[ \t])?(?:-a|--auth)(?:[ \t]{1,4}|=)[\"']?"
           r"(?P<user>[^\s:\"']{1,256}+:)?(?P<val>[^\s\"']{1,512}+)"),
        ("http", "xh"), priority=_P_ASSIGN, group="val", check=lambda m, v, t: _check_httpie_auth(m, v, t),
        anchors=("http ", "https ", "xh ", "xhs ", "http\t", "https\t", "xh\t", "xhs\t"),
    ),
    _Rule(
        "password",
        _r(r"(?:docker|podman|helm|oras|buildah)[ \t]+(?:registry[ \t]+)?login(?![a-z0-9_-])[^\n]{0,300}?"
           r"[ \t]-p[ \t]{1,8}" + _FLAG_QUOTED_OR_BARE),
        ("login",), priority=_P_ASSIGN, group="val", check=_check_flag_value, lowered=True,
        anchors=("docker", "podman", "helm", "oras", "buildah"),
    ),
    # token 'x', api key "x", client secret `x`, pwd 'x': a quoted secret right after its label, no separator
    _Rule(
        "secret",
        _r(r"(?P<kw>(?:api|access)[ _-]?token|token|api[ _-]?key|apikey|client[ _-]secret|secret(?:[ _-]key)?"
           r"|access[ _-]?key|private[ _-]?key|pwd)[ \t]{1,4}"
           r"(?P<q>[`\"'])(?P<qval>[^`\"'\s]{8,512}+)(?P=q)"),
        ("token", "key", "secret", "pwd"), priority=_P_ASSIGN - 1, check=_check_quoted_after_label, lowered=True,
        anchors=("token", "api", "key", "secret", "pwd", "client", "access", "private"),
    ),
    # redis-cli -a hunter2 (its own command only: not past a pipe, && or ;)
    _Rule(
        "password",
        _r(r"redis-cli(?![a-z0-9_-])[^\n|&;]{0,200}?[ \t]-a[ \t]+" + _FLAG_QUOTED_OR_BARE),
        ("redis-cli",), priority=_P_ASSIGN, group="val", check=_check_cli_password, lowered=True, anchors=("redis-cli",),
    ),
    # npm config set //registry/:_authToken X, git config --global github.token X, aws configure set
    # aws_secret_access_key X, dotnet user-secrets set "Stripe:SecretKey" X: a tool's setting named and valued by
    # words (the KEY=value form is the assignment rule's)
    _Rule(
        "token",  # refined per setting by _check_config_set
        _r(r"(?:config(?:ure)?|user-secrets|npm|pnpm)(?:[ \t]{1,4}--?[a-z][a-z0-9=._-]{0,60}+){0,4}+[ \t]{1,4}"
           r"(?:(?P<set>set)[ \t]{1,4})?"
           r"(?:--?[a-z][a-z0-9=._-]{0,60}+[ \t]{1,4}){0,4}+(?P<kq>[\"']?)(?P<key>[^\s\"'=]{1,200}+)(?P=kq)[ \t]{1,4}"
           + _FLAG_QUOTED_OR_BARE),
        ("config", "user-secrets", "npm", "pnpm"), priority=_P_ASSIGN, check=lambda m, v, t: _check_config_set(m, v, t),
        lowered=True, anchors=("config", "user-secrets", "npm set", "pnpm set"),
    ),
    # a tool's login given its token as an argument: cargo login TOKEN, wandb login [--relogin] KEY, ngrok authtoken
    # TOKEN, ngrok config add-authtoken TOKEN (the token ends the command, or options or a comment follow it:
    # "… add-authtoken TOKEN --config ~/ngrok.yml", "cargo login TOKEN # mine"); a token holds no "/" (a URL is an
    # option's value: --host https://…)
    _Rule(
        "token",
        _r(r"(?:cargo[ \t]{1,4}login|wandb[ \t]{1,4}login|ngrok[ \t]{1,4}(?:config[ \t]{1,4}add-authtoken|authtoken))"
           r"(?:[ \t]{1,4}(?:--?(?:" + _LOGIN_SWITCHES + r")(?![a-z0-9-])"
           r"|--?[a-z][a-z0-9-]{0,30}+(?:[ \t]{1,4}(?![-\"'])[^\s|&;]{1,200}+)?)){0,4}?[ \t]{1,4}"
           + _FLAG_QUOTED_OR_BARE + r"(?=[ \t]*(?:\r?\n|\Z|[|&;#])|[ \t]{1,4}--?[a-z])"),
        ("login", "authtoken"), priority=_P_ASSIGN, group="val", lowered=True, anchors=("cargo", "wandb", "ngrok"),
        check=lambda m, v, t: _check_cli_password(m, v, t) and len(v) >= 8 and "/" not in v and not _is_label(v) and (
            _looks_secretish(v) or _random_tail(v)),
    ),
    # Redis: AUTH [user] PASSWORD (redis-cli's argument, its prompt "host:6379> ", a script's line), requirepass /
    # masterauth PASSWORD (redis.conf, CONFIG SET, redis-server --requirepass)
    _Rule(
        "password",
        _r(r"auth[ \t]{1,4}(?:[a-z0-9_.@-]{1,64}+[ \t]{1,4})?" + _FLAG_QUOTED_OR_BARE + r"[ \t]*(?=\r?\n|\Z)"),
        ("auth",), priority=_P_ASSIGN, group="val", lowered=True, anchors=("auth",),
        check=lambda m, v, t: _check_redis_auth(m, v, t),
    ),
    _Rule(
        "password",
        _r(r"(?:requirepass|masterauth)[ \t]{1,4}" + _FLAG_QUOTED_OR_BARE + r"(?=[ \t]*(?:\r?\n|\Z|--|[|&;#]))"),
        ("requirepass", "masterauth"), priority=_P_ASSIGN, group="val", lowered=True,
        anchors=("requirepass", "masterauth"), pre=_W.difference("-"), check=lambda m, v, t: _check_requirepass(m, v, t),
    ),
    # mongosh / mongo / mongodump … -p hunter2 (the MongoDB tools' short password option; --password is the
    # assignment rule's), on its own command (sqlcmd -P: with the provider rules, which read the case)
    _Rule(
        "password",
        _r(r"(?:mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop|mongofiles)"
           r"(?![a-z0-9_-])[^\n|&;]{0,300}?[ \t]-p[ \t]+" + _FLAG_QUOTED_OR_BARE),
        ("mongo",), priority=_P_ASSIGN, group="val", check=_check_cli_password, lowered=True, anchors=("mongo",),
    ),
    # htpasswd -b FILE USER PASSWORD, htpasswd -nb USER PASSWORD (-b: the password is the last argument)
    _Rule(
        "password",
        _r(r"htpasswd(?P<flags>(?:[ \t]{1,4}-[a-z]{1,8}){1,6}+)(?:[ \t]{1,4}[^\s|&;-][^\s|&;]{0,255}+){1,2}?[ \t]{1,4}"
           + _FLAG_QUOTED_OR_BARE + r"(?=[ \t]*(?:$|[\n|&;]))"),
        ("htpasswd",), priority=_P_ASSIGN, group="val", anchors=("htpasswd",),
        check=lambda m, v, t: "b" in m.group("flags") and _check_cli_password(m, v, t),
    ),
    # sshpass -p hunter2 ssh host, sshpass -p 'x' (sshpass -f FILE and -e read it from elsewhere)
    _Rule(
        "password",
        _r(r"sshpass(?![a-z0-9_-])(?:[ \t]+-[a-oq-z][^\s]{0,64}){0,3}[ \t]+(?P<flag>-p)[ \t]*" + _FLAG_QUOTED_OR_BARE),
        ("sshpass",), priority=_P_ASSIGN, group="val", check=_check_sshpass, anchors=("sshpass",),
    ),
    # SQL: CREATE USER … IDENTIFIED BY 'x' (MySQL, Oracle), IDENTIFIED WITH plugin BY 'x', SET PASSWORD [FOR u] = 'x'
    _Rule(
        "password",
        _r(r"identified(?:[ \t]{1,4}with[ \t]{1,4}[\w'\"`]{1,64}+)?[ \t]{1,4}by[ \t]{1,4}(?:password[ \t]{0,4}\([ \t]{0,4})?"
           + _FLAG_QUOTED_OR_BARE),
        ("identified",), priority=_P_ASSIGN, group="val", check=_check_sql_password, lowered=True,
        anchors=("identified",), trim=";),",
    ),
    _Rule(
        "password",
        _r(r"set[ \t]{1,4}password(?:[ \t]{1,4}for[ \t]{1,4}[^\s=;]{1,200}+)?[ \t]{0,4}=[ \t]{0,4}"
           r"(?:password[ \t]{0,4}\([ \t]{0,4})?(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)"),
        ("set password",), priority=_P_ASSIGN, check=_check_plain, lowered=True, anchors=("set password",),
    ),
    # a command's password option: openssl -passin/-passout pass:X and enc -k X, keytool / jarsigner -storepass X
    # -keypass X, apksigner --ks-pass pass:X, zip/unzip -P X, 7z/unrar -pX, ldapsearch … -w X, ssh-keygen -N/-P X,
    # az login -p X, rdesktop -p X, xfreerdp /p:X, smbclient -U user%X, lftp -u user,X, net user NAME X,
    # rabbitmqctl add_user|change_password NAME X, vault login X
    _Rule(
        "password",
        _r(r"(?:-(?:passin|passout|pass|kpass)|--(?:ks|key)-pass)[ \t=]{1,4}pass:" + _FLAG_QUOTED_OR_BARE),
        ("pass:",), priority=_P_ASSIGN, group="val", check=_check_cli_password, lowered=True, anchors=("-pass", "-kpass", "--ks-pass", "--key-pass"),
    ),
    _Rule(
        "password",
        _r(r"-(?:src|dest|new)?(?:storepass|keypass)(?!:)[ \t]{1,4}" + _FLAG_QUOTED_OR_BARE),
        ("storepass", "keypass"), priority=_P_ASSIGN, group="val", check=_check_cli_password, lowered=True,
        anchors=("-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass", "-newstorepass"),
    ),
    _Rule(
        "password",
        _r(r"(?:xfreerdp|wlfreerdp|sdl-freerdp)(?![a-z0-9_-])[^\n|&;]{0,300}?[ \t]/p:" + _FLAG_QUOTED_OR_BARE),
        ("freerdp",), priority=_P_ASSIGN, group="val", check=_check_cli_password, lowered=True, anchors=("xfreerdp", "wlfreerdp", "sdl-freerdp"),
    ),
    _Rule(
        "password",
        _r(r"(?:smbclient|rpcclient|smbmap|smbget|crackmapexec|netexec|nxc)(?![a-z0-9_-])[^\n|&;]{0,300}?[ \t](?:-u|--user)[ \t=]{1,4}"
           r"[\"']?[^\s%\"']{1,256}+%(?P<val>[^\s\"']{1,512}+)"),
        ("smb", "rpcclient", "crackmapexec", "netexec", "nxc"), priority=_P_ASSIGN, group="val", check=_check_cli_password,
        lowered=True, anchors=("smbclient", "rpcclient", "smbmap", "smbget", "crackmapexec", "netexec", "nxc"),
    ),
    _Rule(
        "password",
        _r(r"lftp(?![a-z0-9_-])[^\n|&;]{0,300}?[ \t]-u[ \t]{1,4}[\"']?[^\s,\"']{1,256}+,(?P<val>[^\s\"']{1,512}+)"),
        ("lftp",), priority=_P_ASSIGN, group="val", check=_check_cli_password, lowered=True, anchors=("lftp",),
    ),
    _Rule(
        "password",
        _r(r"(?:net[ \t]{1,4}user|rabbitmqctl[ \t]{1,4}(?:add_user|change_password))[ \t]{1,4}[\"']?(?P<name>[^\s\"'/]{1,256}+)[\"']?"
           r"[ \t]{1,4}" + _FLAG_QUOTED_OR_BARE),
        ("net user", "rabbitmqctl"), priority=_P_ASSIGN, group="val", check=_check_positional_password, lowered=True,
        anchors=("net user", "rabbitmqctl"),
    ),
    # net use Z: \\srv\share /user:bob X: the password after the user switch (* asks for it; /persistent:no is a switch)
    _Rule(
        "password",
        _r(r"net[ \t]{1,4}use(?![a-z0-9_-])[^\n|&;]{0,300}?[ \t]/u(?:ser)?:[^\s]{1,256}+[ \t]{1,4}" + _FLAG_QUOTED_OR_BARE),
        ("net use",), priority=_P_ASSIGN, group="val", lowered=True, anchors=("net use",),
        check=lambda m, v, t: not v.startswith(("*", "/")) and _check_cli_password(m, v, t),
    ),
    # HTTP basic / digest auth in code: requests' auth=('user', 'X'), HTTPBasicAuth('user', 'X'), aiohttp's
    # BasicAuth('user', 'X'): the second string literal is the password
    _Rule(
        "password",
        _r(r"(?:auth[ \t]{0,4}=[ \t]{0,4}[(\[]|(?:httpbasicauth|httpdigestauth|basicauth|digestauth|basic_auth)"
           r"[ \t]{0,4}\()[ \t]{0,4}(?:(?:login|username|user)[ \t]{0,4}=[ \t]{0,4})?[\"'][^\"'\r\n]{1,256}+[\"']"
           r"[ \t]{0,4},[ \t]{0,4}(?:password[ \t]{0,4}=[ \t]{0,4})?(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)"),
        ("auth",), priority=_P_ASSIGN, check=_check_plain, lowered=True,
        anchors=("auth", "httpbasicauth", "httpdigestauth", "basicauth", "digestauth", "basic_auth"),
    ),
    # a client's login(user, 'X') call (Python's smtplib, imaplib, ftplib, poplib; many SDKs): the quoted second argument
    _Rule(
        "password",
        _r(r"\.login\([ \t]{0,4}(?:(?P<uq>[\"'])[^\"'\r\n]{1,256}+(?P=uq)|[a-z_][\w.]{0,60}+(?:\[[^\]\r\n]{1,60}+\])?)"
           r"[ \t]{0,4},[ \t]{0,4}(?:password[ \t]{0,4}=[ \t]{0,4})?(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)[ \t]{0,4}[,)]"),
        (".login(",), priority=_P_ASSIGN, lowered=True, anchors=(".login(",), pre=frozenset(),
        check=lambda m, v, t: _check_plain(m, v, t) and not _shell_expansion(v) and "{" not in v and len(v) >= 4
        and v.lower() not in _SENTENCE_WORDS and (" " not in v or _spaced_password(v)),
    ),
    # a JavaScript object's pass field: { user: 'a', pass: 'X' } (nodemailer, ftp clients); a bare PASS: is a verdict
    _Rule(
        "password",
        _r(r"[{,][ \t\r\n]{0,40}pass[ \t]{0,4}:[ \t]{0,4}(?P<q>[\"'`])(?P<qval>[^\"'`\r\n]{1,512}+)(?P=q)"),
        ("pass",), priority=_P_ASSIGN, lowered=True,
        check=lambda m, v, t: _looks_secretish(v) and _check_plain(m, v, t) and not _shell_expansion(v) and "${" not in v,
    ),
    # 'Basic ' + 'dXNlcjpw…': a basic-auth header's credentials given as a string joined to the scheme
    _Rule(
        "token",
        _r(r"[\"'`]basic[ \t]{1,4}[\"'`][ \t]{0,4}\+[ \t]{0,4}(?P<q>[\"'`])(?P<qval>[a-z0-9+/=_-]{8,512}+)(?P=q)"),
        ("basic",), priority=_P_ASSIGN, lowered=True, check=_check_plain,
    ),
    # echo 'user:X' | chpasswd: a password piped in (echo X | sudo -S …: with the provider rules, -S read as written)
    _Rule(
        "password",
        _r(r"(?:echo|printf)[ \t]{1,4}(?:-[a-z]{1,3}[ \t]{1,4})?[\"']?[^\s:\"'|]{1,64}+:(?P<val>[^\s\"'|]{1,512}+)[\"']?"
           r"[ \t]{0,4}\|[ \t]{0,4}(?:sudo[ \t]{1,4})?chpasswd"),
        ("chpasswd",), priority=_P_ASSIGN, group="val", check=_check_piped_password,
        anchors=("echo", "printf"),
    ),
    _Rule(
        "token",
        _r(r"vault[ \t]{1,4}login(?:[ \t]{1,4}-[a-z-]{1,30}(?:=[^\s]{1,100})?)*[ \t]{1,4}(?:token=)?" + _FLAG_QUOTED_OR_BARE),
        ("vault login",), priority=_P_ASSIGN, group="val", check=lambda m, v, t: _check_cli_password(m, v, t)
        and "=" not in v and len(v) >= 16 and _looks_secretish(v), lowered=True, anchors=("vault login",),
    ),
    # fish's set -gx NAME VALUE, csh's setenv NAME VALUE, Windows' setx NAME VALUE, launchctl setenv NAME VALUE, a
    # Dockerfile's ENV NAME VALUE: a credential variable's value after white space (the NAME=VALUE forms are the
    # assignment rule's)
    _Rule(
        "password",  # refined per variable by _assignment_kind
        _r(r"(?P<cmd>set(?:[ \t]{1,4}--?[a-z]{1,12}){0,4}+|setenv|setx(?:[ \t]{1,4}/m)?|launchctl[ \t]{1,4}setenv|env)[ \t]{1,4}"
           r"(?P<kq>)(?P<key>[a-z_][a-z0-9_]{0,80}+)[ \t]{1,4}" + _FLAG_QUOTED_OR_BARE),
        ("set", "env"), priority=_P_ASSIGN, check=_check_env_set, lowered=True, anchors=("set", "env"),
        whole="before",
    ),
    # expect "*assword*" then send "X\r" (an expect script), child.expect('Password:') then child.sendline('X')
    # (pexpect): the first send after a password prompt is expected (a later one answers something else)
    _Rule(
        "password",
        _r(r"expect(?:[ \t]{0,4}\(|[ \t]{1,4})(?P<prompt>(?:(?!send|expect|interact)[\s\S]){0,80}?"
           r"(?:assword|asswd|assphrase|asscode|密码|口令)(?:(?!send|expect|interact)[\s\S]){0,200}?)"
           r"(?<![\w])send(?:line)?(?:[ \t]{1,4}--)?(?:[ \t]{0,4}\(|[ \t]{1,4})[ \t]{0,4}"
           r"(?P<q>[\"'])(?P<val>[^\"'\r\n\\]{1,512}+)(?:\\[rn]){0,2}(?P=q)"),
        ("expect",), priority=_P_ASSIGN, group="val", check=_check_expect_answer, lowered=True, anchors=("expect",),
    ),
    # az keyvault secret set --value X, aws secretsmanager create-secret|put-secret-value|update-secret --secret-string X,
    # aws ssm put-parameter --value X, security add-generic-password|add-internet-password -w X (macOS keychain),
    # netlify env:set NAME X: the value a secret store keeps
    _Rule(
        "secret",
        _r(r"(?:az[ \t]{1,4}keyvault[ \t]{1,4}secret[ \t]{1,4}set|aws[ \t]{1,4}secretsmanager[ \t]{1,4}"
           r"(?:create-secret|put-secret-value|update-secret)|aws[ \t]{1,4}ssm[ \t]{1,4}put-parameter"
           r"|security[ \t]{1,4}add-(?:generic|internet)-password)(?![a-z0-9_-])[^\n|&;]{0,300}?[ \t]"
           r"(?:--value|--secret-string|-w)(?:=|[ \t]{1,4})" + _FLAG_QUOTED_OR_BARE),
        ("keyvault", "secretsmanager", "ssm", "security"), priority=_P_ASSIGN, lowered=True,
        check=lambda m, v, t: _check_secret_body(m, v, t) and not v.startswith(("file://", "fileb://", "@")),
        anchors=("az ", "aws ", "security "),
    ),
    # gh secret set NAME --body VALUE (-b VALUE): the value stored as a secret
    _Rule(
        "secret",
        _r(r"gh[ \t]{1,4}secret[ \t]{1,4}set(?![a-z0-9_-])[^\n|&;]{0,300}?[ \t](?:--body(?:=|[ \t]{1,4})|-b[ \t]{0,4})"
           + _FLAG_QUOTED_OR_BARE),
        ("gh secret",), priority=_P_ASSIGN, check=_check_secret_body, lowered=True, anchors=("gh secret",),
    ),
    # Oracle's user/password[@db] logins: sqlplus scott/tiger@orcl, sqlplus -s system/x@//host:1521/XE, expdp / impdp /
    # exp / imp / sqlldr / dgmgrl / rman target sys/x@db (and rman's catalog / auxiliary logins), userid=scott/x@db, a
    # SQL*Plus conn / connect command, jdbc:oracle:thin:scott/x@host:1521/ORCL, cx_Oracle / oracledb .connect("u/x@db")
    # (not a path, a ref's reflog "main@{1}", a package's "@scope/pkg@1.2.3" or a workflow's "actions/checkout@v4": a
    # login only after these)
    _Rule(
        "password",
        _r(r"(?:(?:sqlplus|sqlcl|expdp|impdp|sqlldr|dgmgrl|rman|exp|imp)(?:\.exe)?"
           r"(?:[ \t]{1,4}(?:-[a-z]{1,12}+|target|/(?:nolog)?)(?=[ \t])){0,6}+[ \t]{1,4}"
           r"(?:(?:target|userid)[ \t]{0,2}=[ \t]{0,2})?"
           r"|(?P<sub>catalog|auxiliary)[ \t]{1,4}(?:=[ \t]{0,2})?"
           r"|(?P<conn>conn|connect)[ \t]{1,4}"
           r"|userid[ \t]{0,2}=[ \t]{0,2}"
           r"|jdbc:oracle:(?:thin|oci8?|kprb):"
           r"|(?:cx_oracle|oracledb)\.connect(?:_async)?\([ \t]{0,4}(?:dsn[ \t]{0,2}=[ \t]{0,2})?)"
           r"[\"']?[a-z][a-z0-9_$#]{0,127}+/(?:\"(?P<qval>[^\"\r\n]{1,512}+)\"|(?P<val>[^\s/@\"'`|;&<>()]{1,512}+))"
           r"(?=@|[ \t\"']|\r?\n|\Z)"),
        ("sqlplus", "sqlcl", "expdp", "impdp", "sqlldr", "dgmgrl", "rman", "exp", "imp", "catalog", "auxiliary", "conn",
         "userid", "jdbc:oracle:", "oracle", "oracledb"),
        priority=_P_ASSIGN, check=_check_oracle_login, pre=_W | {"?", "&"}, lowered=True,
        anchors=("sqlplus", "sqlcl", "expdp", "impdp", "sqlldr", "dgmgrl", "rman", "exp ", "imp ", "exp.exe", "imp.exe",
                 "catalog", "auxiliary", "conn", "userid", "jdbc:oracle:", "cx_oracle.", "oracledb."),
    ),
    # cx_Oracle.connect("scott", "tiger", "orcl"): the password as the second positional string
    _Rule(
        "password",
        _r(r"(?:cx_oracle|oracledb)\.connect(?:_async)?\([ \t]{0,4}(?P<uq>[\"'])[^\"'\s]{1,128}+(?P=uq)[ \t]{0,4},[ \t]{0,4}"
           r"(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)"),
        ("cx_oracle", "oracledb"), priority=_P_ASSIGN, check=_check_plain, lowered=True,
        anchors=("cx_oracle.", "oracledb."),
    ),
    # YAML: a credential's value on the next line (password:\n  x, api_key: |\n  x, token: >-\n  x) or after a tag
    # (password: !!str x)
    _Rule(
        "password",  # refined per key by _assignment_kind
        _r(r"(?P<kw>password|passwd|passphrase|pwd|secret|apikey|api[_-]key|access[_-]?key|secret[_-]?key"
           r"|private[_-]?key|token|credentials?)[\"']?:[ \t]{0,4}"
           r"(?:(?:[|>][+-]?[0-9]?[ \t]{0,4})?\r?\n" + _LINE_PREFIX + r"?[ \t]{1,40}|!!?[a-z]{1,12}[ \t]{1,4})"
           r"(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)|(?P<val>[^\s#\"'&*!|>{\[-][^\s]{0,511}+))[ \t]*(?=\r?\n|\Z)"),
        ("pass", "pwd", "secret", "key", "token", "credential"), priority=_P_ASSIGN, check=_check_yaml_next_line,
        pre=frozenset(), lowered=True, anchors=("pass", "pwd", "secret", "api", "access", "private", "token", "credential"),
    ),
    # a personal access token under its usual name (GH_PAT=, CR_PAT:, "AZURE_DEVOPS_EXT_PAT": "…"): "pat" as a name's
    # last word only, a long random value; a rule of its own, looked for only where the name meets its "=" or ":"
    # (an anchor on "pat" would try every path and pattern of a text)
    _Rule(
        "token",
        _r(r"(?<![a-z0-9])(?:[a-z0-9]{1,20}[_-]){0,4}pat[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?(?P<val>[a-z0-9_\-]{20,512})"),
        ("pat=", "pat:", "pat =", "pat :", "pat\"", "pat'"), priority=_P_ASSIGN, group="val",
        check=lambda m, v, t: _pat_shaped(v) and not _is_placeholder(v), pre=frozenset(), lowered=True,
    ),
    # composer's auth.json (or a composer.json's config): {"github-oauth": {"github.com": "TOKEN"}}, gitlab-token,
    # gitlab-oauth; the host names the token's server, the value is the token
    _Rule(
        "token",
        _r(r"\"(?:github-oauth|gitlab-oauth|gitlab-token)\"[ \t]{0,4}:[ \t\r\n]{0,40}\{[ \t\r\n]{0,40}\"[^\"\r\n]{1,100}\""
           r"[ \t]{0,4}:[ \t]{0,4}\"(?P<val>[^\"\\\s]{8,256})\""),
        ("oauth", "gitlab-token"), priority=_P_ASSIGN, group="val",
        check=lambda m, v, t: not _is_placeholder(v) and "://" not in v and _looks_secretish(v),
        pre=frozenset(), lowered=True, anchors=('"github-oauth"', '"gitlab-oauth"', '"gitlab-token"'),
    ),
    # an ODBC connection string quotes a value holding ';' or '}' in braces ('}}' is a '}'): Pwd={a;b}; JSX's
    # password={pw} is no such string (a space before it, none of ';' or a quote after it)
    _Rule(
        "password",
        _r(r"(?:pwd|password)[ \t]{0,4}=[ \t]{0,4}\{(?P<val>(?:[^}\r\n\"']|\}\}){1,512}+)\}(?=[ \t]{0,4}(?:;|[\"']|\r?\n|$))"),
        ("pwd", "password"), priority=_P_ASSIGN, group="val", lowered=True, anchors=("pwd", "password"),
        check=lambda m, v, t: (m.string[:m.start()].rstrip(" \t")[-1:] in ("", ";", '"', "'", "\n")
                               and not _is_placeholder(v) and not _ODBC_CODE.fullmatch(v)),
    ),
    # key = value, "key": "value", key: value, for credential-like key names
    _Rule(
        "password",  # refined per key by _assignment_kind
        _r(r"(?P<kw>password|passwd|passphrase|pass(?![a-z])|pwd|pw|secret|apikey|api[_ -]key|access[_ -]?key|secret[_ -]?key"
           r"|private[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|secret[_-]?key[_-]?base"
           # a key that signs or seals: a web framework's session / cookie key, an HMAC or JWT key
           r"|(?:session|cookie|hmac|jwt)[_-]?(?:secret[_-]?)?key|token|auth(?:ident)?|credentials?)"
           # the name may close a subscript (os.environ['API_KEY'] = …, settings[:token] = …) or carry a type
           # (PASSWORD: &str = …, apiKey: string = …); Makefile's ?=, += and ::= assign too
           r"(?:[\"']?\]|[\"'])?(?::[ \t]{0,4}&?(?:'static[ \t]{1,4})?[a-z_][\w.<>\[\]]{0,40}+\??(?=[ \t]{0,8}=[^=>]))?"
           # Markdown: a bold name (**Password**: x, **Password:** x) and a value in inline code (password: `x`)
           r"(?:\*\*(?=[ \t]{0,8}:))?"
           r"(?P<sep>[ \t]{1,8}(?:==>|-->)[ \t]{1,8}|[ \t]{0,8}(?:::=|\?=|\+=|:=|=>|=|:(?:\*\*)?)[ \t]{0,8}|[ \t]{1,8}"
           + _ARROWS + r"[ \t]{1,8})" + _QUOTED_OR_BARE.replace("|" + _UNQUOTED, "|`?" + _UNQUOTED)),
        ("pass", "pw", "secret", "key", "token", "auth", "credential"),
        priority=_P_ASSIGN, check=_check_assignment, pre=frozenset(), lowered=True,
        anchors=("pass", "pw", "secret", "api", "access", "private", "signing", "encryption", "master",
                 "session", "cookie", "hmac", "jwt", "token", "auth", "credential"), whole="password",
    ),
]
_ASSIGN_RULE = _KEYWORD_RULES[-1]


# ---------------------------------------------------------------------------------------------
# URIs with credentials
# ---------------------------------------------------------------------------------------------

_DB_SCHEMES = frozenset(
    """
    postgres postgresql postgis psql mysql mysqlx mariadb mongodb mongodb+srv redis rediss
    amqp amqps mssql sqlserver oracle cockroachdb clickhouse cassandra couchdb neo4j neo4j+s
    bolt memcached elasticsearch influxdb nats kafka mqtt mqtts rabbitmq snowflake db2 sqlite
    """.split()
)
_SCHEME_CHARS = frozenset(string.ascii_letters + string.digits + "+.-")
_AUTHORITY = _Lazy(r"[^\s/?#\"'<>`]{3,1024}+")


def _scan_uris(text: str) -> Iterator[tuple[str, int, int, int]]:
    """``scheme://user:password@host``: the password (text between the first ``:`` of the userinfo
    and the last ``@`` of the authority, so passwords holding ``@`` or ``:`` are covered whole)."""
    i = text.find("://")
    while i >= 0:
        j = i
        while j > 0 and i - j <= 31 and text[j - 1] in _SCHEME_CHARS:
            j -= 1
        m = _AUTHORITY.get().match(text, i + 3)
        nxt = text.find("://", m.end() if m else i + 3)
        if m is None or j == i or not text[j].isalpha() or (j and text[j - 1] in _SCHEME_CHARS):
            i = nxt
            continue
        auth = m.group()
        at = auth.rfind("@")
        colon = auth.find(":", 0, at) if at > 0 else -1
        if colon >= 0 and not _is_placeholder(auth[colon + 1 : at]):
            scheme = text[j:i].lower()
            kind = "db_uri" if scheme in _DB_SCHEMES else "uri_password"
            start = m.start() + colon + 1
            yield kind, start, m.start() + at, _P_URI
        # a token given as the user, alone or beside a stand-in password: https://<token>@github.com,
        # https://<token>:x-oauth-basic@github.com, a Sentry DSN https://<key>@o1.ingest.sentry.io/2
        if at > 0 and _user_token(auth[: colon if colon >= 0 else at]):
            yield "uri_token", m.start(), m.start() + at, _P_URI
        i = nxt


def _user_token(user: str) -> bool:
    """Is a URI's user a key rather than a name: 32+ hex digits (a Sentry DSN's key) or 20+ characters of
    random-looking key material (:func:`_random_tail`, :func:`_random_lower`)?"""
    core = re.sub(r"[-_.~%]", "", user)
    if len(core) < 20 or not core.isalnum() or not core.isascii():
        return False
    if all(c in "0123456789abcdefABCDEF" for c in core):
        return len(core) >= 32 and (core.islower() or core.isupper()) and len(set(core.lower())) >= 8
    return _random_tail(core) or _random_lower(core)


# ---------------------------------------------------------------------------------------------
# PEM / PGP private key blocks
# ---------------------------------------------------------------------------------------------

_PEM_BEGIN = _Lazy(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = _Lazy(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = _Lazy(r"(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\[nr])*+")


def _scan_pem(text: str) -> Iterator[tuple[str, int, int, int]]:
    if "PRIVATE KEY" not in text:
        return
    begins = list(_PEM_BEGIN.get().finditer(text))
    begin_starts = [m.start() for m in begins]
    ends = list(_PEM_END.get().finditer(text))
    end_starts = [m.start() for m in ends]
    pos = 0
    for m in begins:
        if m.start() < pos:  # inside the previous block
            continue
        i = bisect.bisect_left(end_starts, m.end())
        j = bisect.bisect_left(begin_starts, m.end())
        next_begin = begin_starts[j] if j < len(begin_starts) else len(text)
        if i < len(ends) and end_starts[i] < next_begin:
            end = ends[i].end()
        else:  # unterminated: take the base64 body that follows the BEGIN line
            body = _PEM_BODY.get().match(text, m.end())
            end = body.end() if body else m.end()
            while end > m.end() and text[end - 1] in " \t\r\n":
                end -= 1
        pos = end
        yield "private_key", m.start(), end, _P_PEM


#: a PuTTY key file's private part: ``Private-Lines: N`` and its base64 lines, then ``Private-MAC: <hex>``
_PPK_PRIVATE = _Lazy(r"Private-Lines:[ \t]{0,8}\d{1,4}[ \t]{0,8}(?:\r?\n|\\n)"
                     r"(?:" + _LINE_PREFIX + r"?[ \t]{0,16}+[A-Za-z0-9+/=]{1,256}+(?:\r?\n|\\n|$))+"
                     r"(?:Private-MAC:[ \t]{0,8}[0-9a-fA-F]{1,128}+)?")


def _scan_ppk(text: str) -> Iterator[tuple[str, int, int, int]]:
    """A PuTTY ``.ppk`` key's private lines (an unencrypted key is the private key itself)."""
    for m in _PPK_PRIVATE.get().finditer(text):
        yield "private_key", m.start(), m.end(), _P_PEM


# ---------------------------------------------------------------------------------------------
# <private>...</private>
# ---------------------------------------------------------------------------------------------

_PRIVATE_TAG = _Lazy(r"(?i)<(?P<close>/)?private(?:\s[^<>]{0,200})?>")


def _is_mention(text: str, m: re.Match[str]) -> bool:
    """```<private>``` or ``"<private>"``: the tag named in prose, not used."""
    s, e = m.span()
    return 0 < s and e < len(text) and text[s - 1] in "`\"'" and text[e] == text[s - 1]


# ---------------------------------------------------------------------------------------------
# Cookies: Cookie: a=b; sessionid=…, Set-Cookie: sid=…; HttpOnly, --cookie "…", document.cookie = "…"
# ---------------------------------------------------------------------------------------------

#: where a cookie list starts, at the ``cookie`` word: an HTTP header's name and colon, an option's value, a
#: ``document.cookie`` assignment, a header list's entry (``{"Cookie": "``, ``("Set-Cookie", "``, ``headers["cookie"] = "``)
_COOKIE_AT = _Lazy(r"(?i)(?:set-)?cookie(?:(?P<header>[ \t]{0,4}:[ \t]{0,4}[\"'`]?)"
                   r"|(?P<listed>[\"']\]?[ \t]{0,4}(?:[:,=]|=>)[ \t]{0,4}(?:\[[ \t]{0,4})?[\"'`])"
                   r"|(?P<doc>[ \t]{0,4}=[ \t]{0,4}[\"'`])"
                   r"|(?P<option>[ \t]{1,4}[\"']?|=[\"']?))")
#: curl's ``-b "a=b; c=d"`` (on a curl command's line; ``-b FILE`` holds no pair)
_COOKIE_OPTION = _Lazy(r"(?<![\w-])-b[ \t]{1,4}[\"']?")
#: one ``name=value`` pair and the separator after it
_COOKIE_PAIR = _Lazy(r"(?P<name>[A-Za-z0-9_.$!#%&*+^|~-]{1,100}+)=(?P<val>[^;,\s\"'`\\]{0,4096}+)"
                     r"(?P<sep>[ \t]{0,4}[;,][ \t]{0,4})?")
#: a cookie dict's or jar's ``cookies = {"name": "value", …}`` / ``cookies.set("name", "value")`` /
#: ``set_cookie("name", "value")``: the value a string literal (``request.COOKIES["sid"]`` is code, not a value)
_COOKIE_DICT_AT = _Lazy(r"(?i)cookies?(?:_?jar)?[\"']?[ \t]{0,4}(?:=|:|\(|=>)[ \t]{0,4}(?:dict\(|\{)")
_COOKIE_CALL_AT = _Lazy(r"(?i)(?:set_?cookie|cookies?(?:_?jar)?\.(?:set|add)|\.cookie)\([ \t]{0,4}"
                        r"(?P<q1>[\"'])(?P<name>[A-Za-z0-9_.$!#%&*+^|~-]{1,100}+)(?P=q1)[ \t]{0,4},[ \t]{0,4}"
                        r"(?P<q2>[\"'])(?P<val>[^\"'\\\n]{1,4096}+)(?P=q2)")
_COOKIE_DICT_PAIR = _Lazy(r"(?P<q1>[\"'])(?P<name>[A-Za-z0-9_.$!#%&*+^|~-]{1,100}+)(?P=q1)[ \t]{0,4}:[ \t]{0,4}"
                          r"(?P<q2>[\"'])(?P<val>[^\"'\\\n]{1,4096}+)(?P=q2)")
#: a cookie's name that says it holds a session or a credential, as the whole name or its last ``_``/``-``/``.`` part
#: (or its last two run together: ``session_id``): ``sessionid``, ``PHPSESSID``, ``connect.sid``, ``laravel_session``,
#: ``remember_token``, ``__Secure-next-auth.session-token``, ``csrftoken``, ``ASP.NET_SessionId``; not ``sidebar_state``
#: or ``keyboard_layout``
_SESSION_NAMES = frozenset("""session sessionid sessid sess sid phpsessid jsessionid sessiontoken token authtoken
accesstoken refreshtoken csrftoken xsrftoken csrf xsrf jwt auth secret credential credentials apikey key pass password
remember""".split())
_COOKIE_ATTRS = frozenset("path domain expires max-age samesite secure httponly priority partitioned version comment"
                          .split())


def _session_cookie(name: str) -> bool:
    parts = [p for p in re.split(r"[_.-]+", name.lower()) if p]
    if not parts:
        return False
    return (any(p in _SESSION_NAMES for p in parts)  # token_v2, remember_web_<hash>, sessionid
            or any(a + b in _SESSION_NAMES for a, b in zip(parts, parts[1:]))  # session_id, Session-Token
            or (parts[-1].startswith("aspsessionid") and len(parts) == 1))


def _cookie_secret(name: str, val: str) -> bool:
    """A session or credential cookie's value (6+ characters, no placeholder) or any cookie's random 20+ one."""
    return (name.lower() not in _COOKIE_ATTRS and bool(val) and not _is_placeholder(val) and val.lower() != "deleted"
            and ((_session_cookie(name) and len(val) >= 6)
                 or (len(val) >= 20 and _random_tail(re.sub(r"[^A-Za-z0-9]", "", val)))))


def _cookie_list_at(text: str, lowered: str, i: int) -> int:
    """Where the ``name=value`` list of a real cookie form at ``cookie`` (``lowered[i:]``) starts, or -1: a
    ``Cookie:``/``Set-Cookie:`` header (anywhere: the pairs that must follow it are what tells it from prose) or a
    header list's entry, ``document.cookie = "…"`` (or
    another ``cookie`` name given a string), ``--cookie "…"``. Prose ("the cookie login: …") and code are none of them."""
    j = i - 4 if lowered.startswith("set-", max(0, i - 4)) else i
    m = _COOKIE_AT.get().match(text, j)
    if m is None:
        return -1
    if m.group("header") is not None:
        # a header anywhere (a debug dump's "send: b'…\r\nCookie: …'", "Response headers: Set-Cookie: …", a JS
        # object's key): what follows must read as name=value pairs, which prose ("the cookie login: …") does not
        ok = True
    elif m.group("listed") is not None:
        ok = j > 0 and text[j - 1] in "\"'"
    elif m.group("doc") is not None:  # document.cookie = "…", cookie = 'a=b; …' (a string of pairs)
        ok = j == i
    else:  # --cookie "a=b" (not --cookie-jar FILE)
        ok = j == i and lowered.endswith("--", 0, i) and not lowered.startswith("-jar", i + 6)
    return m.end() if ok else -1


def _cookie_pairs(text: str, start: int, hits: list[tuple[str, int, int, int]]) -> int:
    """Read a ``name=value; …`` list from ``start`` into ``hits``; where it ends."""
    for _ in range(64):  # pairs, up to the one no separator follows
        p = _COOKIE_PAIR.get().match(text, start)
        if p is None:
            break
        if _cookie_secret(p.group("name"), p.group("val")):
            hits.append(("cookie", p.start("val"), p.end("val"), _P_HEADER))
        if p.group("sep") is None or p.end() == start:
            return p.end()
        start = p.end()
    return start


def _scan_cookies(text: str, lowered: str) -> list[tuple[str, int, int, int]]:
    """The secret values (:func:`_cookie_secret`) of real cookie forms: a header's, an option's or a
    ``document.cookie``'s ``name=value`` list (:func:`_cookie_list_at`), curl's ``-b "a=b"``, a cookie dict's or jar
    call's string literals. The cookie names stay readable."""
    hits: list[tuple[str, int, int, int]] = []
    i = lowered.find("cookie")
    while i >= 0:
        pos = i + 6
        start = _cookie_list_at(text, lowered, i)
        if start >= 0:
            pos = max(pos, _cookie_pairs(text, start, hits))
        d = _COOKIE_DICT_AT.get().match(text, i)
        if d is not None:
            close = text.find("}" if d.group().endswith("{") else ")", d.end(), d.end() + 4096)
            end = close if close >= 0 else min(len(text), d.end() + 4096)
            hits.extend(("cookie", p.start("val"), p.end("val"), _P_HEADER)
                        for p in _COOKIE_DICT_PAIR.get().finditer(text, d.end(), end)
                        if _cookie_secret(p.group("name"), p.group("val")))
            pos = max(pos, end)
        for k in (i - 4, i - 3, i - 1, i):  # set_cookie( / setcookie( / .cookie( / cookies.set(
            c = _COOKIE_CALL_AT.get().match(text, k) if k >= 0 else None
            if c is not None:
                if _cookie_secret(c.group("name"), c.group("val")):
                    hits.append(("cookie", c.start("val"), c.end("val"), _P_HEADER))
                pos = max(pos, c.end())
                break
        i = lowered.find("cookie", pos)
    if "curl" in lowered and "-b" in text:
        for m in _COOKIE_OPTION.get().finditer(text):
            line = lowered.rfind("\n", max(0, m.start() - 2000), m.start())
            if "curl" in lowered[max(line + 1, m.start() - 2000):m.start()]:
                _cookie_pairs(text, m.end(), hits)
    return hits


# ---------------------------------------------------------------------------------------------
# A credential given in a heredoc or a multi-line string: password = <<EOT … EOT, sudo -S cmd <<EOF … EOF
# ---------------------------------------------------------------------------------------------

#: a heredoc's opening: ``<<EOT``, ``<<-EOT``, ``<<~EOS``, ``<<'EOF'``, PHP's ``<<<EOT`` (alone on its line); a
#: multi-line string literal's triple quotes (Python, Kotlin, TOML)
_HEREDOC_AT = _Lazy(r"(?:<<(?P<op><|[-~])?[ \t]{0,2}(?P<dq>[\"']?)(?P<delim>[A-Za-z_][A-Za-z0-9_]{0,30}+)(?P=dq)"
                    r"|(?P<tq>\"\"\"|\'\'\'))(?P<rest>[^\n]{0,200}+)\n")
#: a line that may close a heredoc: a word alone (indented for ``<<-`` / ``<<~``; PHP's ``EOT;``, a shell's ``EOF)``)
_HEREDOC_END_LINE = _Lazy(r"(?m)^[ \t]{0,40}+([A-Za-z_][A-Za-z0-9_]{0,30}+)[ \t;,)]{0,8}+\r?$")
#: the longest body looked at: a heredoc holding a credential is short (a value, a key file, a JSON credential)
_HEREDOC_MAX = 8192
_HEREDOC_OPENERS = ("<<", '"""', "'''")
_HEREDOC_SEPS = ("::=", ":=", "?=", "=>", "=", ":")
_HEREDOC_READ = re.compile(r"(?:^|[\s;&|(])read(?:[ \t]{1,4}-[A-Za-z]{1,4}(?:[ \t]{1,4}(?:''|\"\"))?){0,4}[ \t]{1,4}"
                           r"(?P<key>[A-Za-z_][A-Za-z0-9_]{0,60})\Z")
_PASSWD_CMD = re.compile(r"(?<![\w-])passwd(?![\w-])")


def _heredoc_key(text: str, i: int) -> tuple[int, int] | None:
    """The span of the credential name a heredoc opening at ``i`` is assigned to (``password = <<EOT``,
    ``DB_PASSWORD=$(cat <<EOF``, ``"token":`` and a triple quote, ``read -r -d '' PASSWORD <<EOF``), or None."""
    line = text.rfind("\n", max(0, i - 160), i) + 1
    lo = max(line, i - 160)
    head = text[lo:i].rstrip(" \t")
    r = _HEREDOC_READ.search(head)
    if r is not None:
        return lo + r.start("key"), lo + r.end("key")
    if head.endswith("cat") and head[:-3].rstrip(" \t").endswith("$("):  # NAME=$(cat <<EOF
        head = head[:-3].rstrip(" \t")[:-2].rstrip(" \t")
    sep = next((x for x in _HEREDOC_SEPS if head.endswith(x)), None)
    if sep is None:
        return None
    head = head[:-len(sep)].rstrip(" \t").rstrip("\"'`]")
    end = lo + len(head)
    j = end
    while j > lo and (text[j - 1] in _LABEL_CHARS):
        j -= 1
    return (j, end) if j < end and (text[j].isalpha() or text[j] == "_") else None


def _heredoc_named(text: str, s: int, e: int) -> bool:
    """A name whose last word names a credential (as :func:`_check_config_set` reads a setting's name, and ``PW``:
    ``PW=$(cat <<EOF``, ``read -r DB_PW <<EOF``)."""
    key = text[s:e]
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower()) if w]
    if not words:
        return False
    last = words[-1]
    return (last in _SETTING_SECRET_WORDS or last in ("passphrase", "credential", "pw")
            or (last == "key" and len(words) > 1 and words[-2] in _SETTING_KEY_QUALIFIERS))


def _scan_heredocs(text: str, lowered: str) -> Iterator[tuple[str, int, int, int]]:
    """A credential given in a heredoc or a multi-line string: its body after a credential's name (``password =
    <<EOT`` in HCL, Ruby, Perl, PHP's ``<<<``, a shell's ``PW=$(cat <<EOF`` or ``read -r PW <<EOF``, Python's
    ``token =`` and a triple quote), or the lines a command reading a password on stdin is fed (``sudo -S cmd <<EOF``: the first line;
    ``docker login --password-stdin <<EOF``: the first; ``passwd <<EOF``: all; ``chpasswd <<EOF``: each line's part after
    ``user:``). The body ends at its closing line, or (unclosed) after its first line."""
    pos = 0
    n = len(text)
    rx = _HEREDOC_AT.get()
    ends: dict[str, list[int]] | None = None  # a closing line's word -> where such lines start (built once)
    next_tq: dict[str, int] = {}  # a triple quote -> its next place found (each search goes on from the last)
    at = dict.fromkeys(_HEREDOC_OPENERS, -1)
    while True:
        for lit in _HEREDOC_OPENERS:  # each literal's next place, looked for again only once passed (linear)
            if at[lit] < pos:
                k = text.find(lit, pos)
                at[lit] = k if k >= 0 else n
        i = min(at.values())
        if i >= n:
            return
        m = rx.match(text, i)
        if m is None or (m.group("op") == "<" and m.group("rest").strip(" \t\r;")):
            pos = i + 2  # a here-string (<<< word) or no heredoc
            continue
        body = m.end()
        tq = m.group("tq")
        if tq is not None:
            if m.group("rest").strip(" \t\r"):  # text on the opening line: a docstring or a text, not a value
                pos = i + 3
                continue
            close = next_tq.get(tq, -1)
            if close < body and close != n:
                close = text.find(tq, body)
                next_tq[tq] = close if close >= 0 else n
            stop = close if 0 <= close < min(n, body + _HEREDOC_MAX) else -1
        else:
            if ends is None:
                ends = {}
                for e_m in _HEREDOC_END_LINE.get().finditer(text):
                    ends.setdefault(e_m.group(1), []).append(e_m.start())
            starts = ends.get(m.group("delim"), ())
            k = bisect.bisect_left(starts, body)
            stop = starts[k] if k < len(starts) and starts[k] < body + _HEREDOC_MAX else -1
        first_end = text.find("\n", body, body + _HEREDOC_MAX)
        first_end = first_end if first_end >= 0 else min(n, body + _HEREDOC_MAX)
        if stop < 0:  # unclosed: its first line (fail closed for that much)
            stop = first_end
        pos = max(i + 2, stop + (3 if tq is not None and stop >= 0 else 0))
        lines_end = stop
        key = _heredoc_key(text, i)
        hits: list[tuple[str, int, int]] = []
        if key is not None and _heredoc_named(text, *key):
            kind = _assignment_kind(lowered, key[0], key[1])
            hits.append((kind, body, lines_end))
        elif tq is None:
            cmd = _command_around(text, i, i)
            if ("sudo" in cmd and _SUDO_STDIN_RE.search(cmd)) or ("passw" in cmd and _STDIN_PASSWORD_RE.search(cmd)):
                hits.append(("password", body, min(first_end, lines_end)))
            elif "chpasswd" in cmd and _CHPASSWD_RE.search(cmd):
                k = body
                while k < lines_end:
                    e = text.find("\n", k, lines_end)
                    e = lines_end if e < 0 else e
                    colon = text.find(":", k, e)
                    if colon > k:
                        hits.append(("password", colon + 1, e))
                    k = e + 1
            elif "passwd" in cmd and _PASSWD_CMD.search(cmd):
                hits.append(("password", body, lines_end))
        for kind, s, e in hits:
            while s < e and text[s] in " \t\r\n":
                s += 1
            while e > s and text[e - 1] in " \t\r\n":
                e -= 1
            value = text[s:e]
            if not value or _is_placeholder(value) or _shell_expansion(value) or value.lower() in _FLAG_PROSE:
                continue
            if kind != "password" and "\n" not in value and not (len(value) >= 8 and _looks_secretish(value)):
                continue
            if kind == "password" and len(value) < 4:
                continue
            yield kind, s, e, _P_ASSIGN


def _scan_private(text: str, lowered: str) -> Iterator[tuple[str, int, int, int]]:
    if "<private" not in lowered:
        return
    depth = 0
    start = 0
    for m in _PRIVATE_TAG.get().finditer(text):
        if m.group("close"):
            if depth:
                depth -= 1
                if depth == 0:
                    yield "private", start, m.end(), _P_PRIVATE
            continue
        if depth == 0:
            if _is_mention(text, m):
                continue
            start = m.start()
        depth += 1
    if depth:  # unclosed: fail closed, to the end of the text
        yield "private", start, len(text), _P_PRIVATE


# ---------------------------------------------------------------------------------------------
# Assembly
# ---------------------------------------------------------------------------------------------


def _assignment_kind(hay: str, kw_start: int, kw_end: int) -> str:
    i = kw_start
    while i > 0 and hay[i - 1] in _KEYCHARS and kw_start - i <= 40:
        i -= 1
    k = hay[i:kw_end].lower()
    if "aws" in k and ("secret" in k or "session" in k):
        return "aws_secret_key"
    if "pass" in k or "pwd" in k or _PW_KEY.search(k) or k.endswith("authident"):
        return "password"
    if "token" in k or k.endswith("auth"):
        return "token"
    if "private" in k or "signing" in k or "encryption" in k or "master" in k:
        return "secret_key"
    if "secret" in k:
        return "secret"
    if "key" in k:
        return "api_key"
    if "credential" in k:
        return "credentials"
    return "secret"


def _cjk_kind(key: str) -> str:
    if key in ("令牌", "權杖", "授权码", "授權碼", "通行码", "通行碼"):
        return "token"
    if key in ("密钥", "密鑰", "金鑰", "秘钥", "秘鑰", "私钥", "私鑰", "秘密鍵", "비밀키"):
        return "secret"
    return "password"


def _matches(rule: _Rule, hay: str) -> Iterator[re.Match[str]]:
    """Like ``rule.regex.finditer(hay)``; with anchors, the regex is only tried where one occurs
    (``str.find`` is many times faster than a regex scan; ``match`` at a position still sees the
    text before it, so boundary look-behinds keep working)."""
    if not rule.anchors:
        yield from rule.regex.finditer(hay)
        return
    positions: list[int] = []
    for a in rule.anchors:
        i = hay.find(a)
        while i >= 0:
            positions.append(i)
            i = hay.find(a, i + 1)
    positions.sort()
    match = rule.regex.match
    last = 0
    for p in positions:
        if p < last:
            continue
        m = match(hay, p)
        if m is not None:
            # the next anchor may sit inside this match: still try it, in case the rule's check rejects this
            # one ('password: passwd: X' — the first "value" is the next label); overlapping spans are merged
            last = p + 1
            yield m


#: the rest of a value's word: up to white space, a quote or markup (a symbol inside a password does not end it), at
#: most as long as a value may be (a run of ``password=password=…`` stays linear)
_WORD_REST = re.compile(r"[^\s\"'`<>]{0,512}")
#: where a value's word ends although no space follows: a separator before the next ``key=`` / ``key:`` pair (a query
#: string's ``&page=2``, a connection string's ``;User Id=``, ``{password:x,user:bob}``), an HTML-escaped ``&amp;``,
#: a shell operator (``&&``, ``||``, ``|``, ``;./run.sh``), or ``;`` / ``,`` before a lower-case word that ends the
#: run (``hunter22;then we deploy``)
_WORD_STOP = re.compile(r"[&;,](?=[A-Za-z_][\w. -]{0,40}[=:])|&amp;|&&|\|\|?|;(?=[./~])"
                        r"|[;,](?=[a-z]+(?:[\s.,;:!?]|$))")
#: sentence punctuation left after a value's word, not part of it (``!`` is not: a password ends in one often enough,
#: ``p@ssw0rd!``, that leaving it after the marker would leave the password's tail)
_WORD_TRAIL = ".,;:?"
_OPEN, _CLOSE = "([{", ")]}"


def _word_end(text: str, e: int) -> int:
    """The end of the word a value found at ``…e`` belongs to: a password holds ``&``, ``;``, ``,`` or brackets
    (``Tr0ub4dor&3horse``), and a value cut at one left its tail in the memory. Stops at white space, a quote or
    markup, at :data:`_WORD_STOP`, and at a closing bracket the word did not open (``f(password=x).strip()``,
    ``[password=x](url)``); sentence punctuation at its end stays outside."""
    i = _WORD_REST.match(text, e).end()
    stop = _WORD_STOP.search(text, e, i + 44)  # the next key may hold a space (``User Id=``) past the word's end
    if stop is not None and stop.start() < i:
        i = stop.start()
    depth = 0
    for j in range(e, i):
        c = text[j]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                i = j
                break
            depth -= 1
    while i > e and text[i - 1] in _WORD_TRAIL:
        i -= 1
    if i < len(text) and text[i] in "\"'":  # the backslashes of an escaped closing quote (JSON in a string)
        while i > e and text[i - 1] == "\\":
            i -= 1
    return i


def _run_rule(rule: _Rule, hay: str, text: str) -> Iterator[tuple[str, int, int, int]]:
    """Matches of ``rule`` in ``hay`` (``text`` or its same-length lowered copy); values and kinds
    are read from ``text`` at the same offsets."""
    pre = rule.pre
    qval = "qval" in rule.regex.groupindex
    group = "val" if rule.group == 0 and "val" in rule.regex.groupindex else rule.group
    for m in _matches(rule, hay):
        start = m.start()
        # a diff's "-"/"+" or grep's "file-12-" before a line is no word the match is glued to
        if start and hay[start - 1] in pre and (hay[start - 1] not in "+-" or _line_lead(hay, start).strip()):
            continue
        grp = "qval" if qval and m.group("qval") is not None else group
        s, e = m.span(grp)
        whole = rule.whole if grp != "qval" else ""
        if rule.trim and grp != "qval":  # a quoted value is exact: its closing "!" is its own
            while e > s and text[e - 1] in rule.trim:
                e -= 1
        if grp != "qval" and e < len(text) and text[e] in "\"'":  # an escaped quote (JSON in a string) ends a bare value
            while e > s and text[e - 1] == "\\":
                e -= 1
        if s >= e:
            continue
        if whole:
            w = _word_end(text, e)
            # "before": the whole word may pass where its start did not ("Tr0ub&dor": 5 characters matched); either
            # passing redacts the whole word ("password Zq8vvTT99;v1.2": the matched part passes, its tail must go too)
            # "password": the whole word is judged only after a password's key ("password: Tr0ub&3horse"); after a
            # token's or a secret's, a list of words ("auth: Basic,Bearer") is no value
            wide = whole == "before" or (whole == "password" and _assignment_kind(hay, m.start("kw"), m.end("kw")) == "password")
            ok = rule.check is None or rule.check(m, text[s:e], text) or (
                wide and w > e and rule.check(m, text[s:w], text))
            if not ok:
                continue
            e = w
        elif rule.check is not None and not rule.check(m, text[s:e], text):
            continue
        kind = rule.kind
        if rule is _ASSIGN_RULE:
            kind = _assignment_kind(hay, m.start("kw"), m.end("kw"))
        elif kind == "cjk_label":
            kind = _cjk_kind(m.group("key"))
        elif kind == "intl_key_label":
            kind = _INTL_KEY_LABELS.get(m.group("key"), "api_key")
        elif kind == "compound_flag":
            kind = _compound_flag_kind(m.group("name")) or "token"
        elif "nq" in m.re.groupindex:  # a credential named by a string literal: its name says which kind
            kind = _assignment_kind(hay, m.start("kw"), m.end("kw"))
        elif "kq" in m.re.groupindex:  # a config setting: its name says which kind
            kind = _assignment_kind(hay, m.start("key"), m.end("key"))
        yield kind, s, e, rule.priority


_AIRTABLE = _Lazy(r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _B_END)
_MAILCHIMP = _Lazy(r"-us[0-9]{1,2}" + _B_END)
_HEX = frozenset("0123456789abcdef")


def _scan_mailchimp(text: str) -> Iterator[tuple[str, int, int, int]]:
    """Mailchimp API keys: 32 lower-case hex digits, ``-us`` and a data-centre number."""
    if "-us" not in text:
        return
    for m in _MAILCHIMP.get().finditer(text):
        s = m.start() - 32
        if s >= 0 and all(c in _HEX for c in text[s : m.start()]) and not (s and text[s - 1] in _W):
            yield "mailchimp_key", s, m.end(), _P_PROVIDER


# ---------------------------------------------------------------------------------------------
# Bare long hex and base64 secrets (seed 001: "长 hex、base64 块"), without git SHAs, digests or data
# ---------------------------------------------------------------------------------------------

_P_BLOB = 5  # below every labelled rule: a label's kind wins a merged cluster
_BLOB_EDGE = frozenset(string.ascii_letters + string.digits + "_+/=.-")  # part of a longer token, path or URL
#: the trigger of _scan_blobs: a run of 32 ``[A-Za-z0-9+/]`` (no bare hex/base64 secret is shorter), found on the UTF-8
#: bytes mapped to b"1" (those ASCII characters) or b"0" (any other byte, so any non-ASCII character): a regular
#: expression spent ~9 us per 1,000 characters entering every word, this ~1 us
_RUN_BYTES = bytes(b"1"[0] if chr(i).isascii() and (chr(i).isalnum() or chr(i) in "+/") else b"0"[0] for i in range(256))
_RUN32 = b"1" * 32


_RUN22 = b"1" * 22
#: a key whose tail a dot or a dash cuts into pieces (``m0-Zx9Qw8Er7Ty.6Ui5Op4As3D.f2Gh…``): a ``-`` or ``_`` and 10
#: letters or digits after it (on :func:`_seg_runs`' map) — rare in prose, so most texts skip the scan
_SEGMENTED = b"2" + b"1" * 10
_SEG_BYTES = bytes(b"1"[0] if chr(i).isascii() and chr(i).isalnum() else b"2"[0] if chr(i) in "-_" else b"0"[0]
                   for i in range(256))


#: the lower-case literals (:func:`_literals_in`) of which a key label holds one
_LABEL_LITERALS = frozenset(("key", "token", "secret", "pass", "pwd", "auth", "credential"))
#: the lower-case literals (:func:`_literals_in`) of which a label after a copula holds one
_AFTER_LABEL_LITERALS = frozenset((*_CJK_LABELS, "token", "secret", "pass", "api", "access"))
_SEG_AS_RUN = bytes.maketrans(b"2", b"1")  # on _SEG_BYTES' map: "-" and "_" as letters (a URL-safe base64 run)


def _seg_runs(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass").translate(_SEG_BYTES)


def _runs(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass").translate(_RUN_BYTES)


def _has_long_run(text: str) -> bool:
    """Does ``text`` hold 32 characters of ``[A-Za-z0-9+/]`` in a row?"""
    return _RUN32 in _runs(text)


def _has_key_run(text: str) -> bool:
    """Does ``text`` hold 22 characters of ``[A-Za-z0-9+/]`` in a row (the shortest labelled base64 value, and less
    than the tail of a prefixed key)? The trigger of :func:`_scan_prefixed` and :func:`_scan_labelled`."""
    return _RUN22 in _runs(text)


_HEX_RUN = _Lazy(r"[0-9a-fA-F]{32,4096}+")
_B64_RUN = _Lazy(r"[A-Za-z0-9+/]{40,4096}+={0,2}")
#: words that say a hex or base64 string nearby is a hash, an id or encoded data, not a secret. ``blob``, ``base64``
#: and ``encoded`` are not among them (case C44): a line saying ``blob:`` or ``base64 key`` is as likely to hold a key,
#: and encoded data is told apart by its own signs (decoding to text, file magic, wrapped lines, length)
_DIGEST_WORDS = (
    "sha", "hash", "digest", "checksum", "md5", "crc", "commit", "git", "rev", "merge", "parent", "tree",
    "object", "head", "etag", "integrity", "fingerprint", "image", "container", "layer", "build", "uuid", "id",
    "signature", "nonce", "salt", "iv", "cid", "ipfs", "torrent", "magnet", "hmac", "cache",
    "version", "tx", "block", "address", "wallet", "key id", "keyid", "session", "trace", "span", "request",
    "ssh", "ecdsa", "public",
)
DIGEST_WORDS = _DIGEST_WORDS  # public: what the tests leave out of the contexts they try
_DIGEST_WORD_RE = _Lazy(r"(?<![a-z])(?:" + "|".join(re.escape(w) for w in _DIGEST_WORDS) + r")(?:e?s|ed)?(?![a-z])")
#: base64 that starts like a file or a length-prefixed binary record (SSH public keys: AAAAB3…, AAAAC3…; PNG, GIF, JPEG, PDF, zip, gzip, WOFF, WebP/RIFF, ELF, class, wasm): data
_FILE_MAGIC = ("AAAA", "iVBORw0KGgo", "R0lGOD", "/9j/", "JVBERi", "UEsDB", "H4sI", "d09GR", "UklGR", "f0VMR", "yv66v", "AGFzbQ")


def _digest_context(text: str, s: int, e: int) -> bool:
    """Does the same line, up to 48 chars before ``s`` (or ``sha256sum``-style output after ``e``), say this is
    a hash, an object id or encoded data? Git ranges (``a..b``) count too."""
    line_start = text.rfind("\n", max(0, s - 48), s) + 1
    before = text[max(line_start, s - 48):s].lower()
    if _DIGEST_WORD_RE.get().search(before):
        return True
    after = text[e:e + 3]
    # ``sha256sum`` output is ``HASH  file`` / ``HASH *file`` with the hash opening its line: a labelled value
    # followed by two spaces (``blob: KEY  ``) is not that
    opens_line = not text[text.rfind("\n", 0, s) + 1:s].strip()
    return (opens_line and after.startswith(("  ", " *"))) or after.startswith("..") or before.endswith("..")


def _entropy(value: str) -> float:
    """Shannon entropy in bits per char."""
    import math
    from collections import Counter

    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _decodes_to_text(value: str) -> bool:
    """Base64 that decodes to mostly printable UTF-8 text is encoded data ("Some base64 encoded text"), not a
    random key; random key bytes decode to binary."""
    import base64
    import binascii

    v = value.rstrip("=").replace("-", "+").replace("_", "/")  # the URL-safe alphabet as the standard one
    try:
        raw = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in decoded)
    return printable >= 0.9 * max(1, len(decoded))


def _glued_after(text: str, e: int) -> bool:
    """Does the run ending at ``e`` go on into a longer token, path or URL? A ``.``/``,`` that ends a sentence
    (before a space, a closing quote or bracket, or the end) does not glue."""
    if e >= len(text) or text[e] not in _BLOB_EDGE:
        return False
    return not (text[e] in ".," and (e + 1 == len(text) or text[e + 1].isspace() or text[e + 1] in "\"'`)]}*|"))


def _edge_before(text: str, s: int, *, hex_run: bool = False) -> bool:
    """Is the run starting at ``s`` glued to what comes before it? Not when that is a name's ``=`` outside a URL
    (``blob=KEY``, ``cookie=KEY``: an assignment, as ``blob: KEY`` is) — for a hex run, only after a blob's name
    (``md5sum=``, ``color=`` hex is a hash or a colour)."""
    if not s or text[s - 1] not in _BLOB_EDGE:
        return False
    if text[s - 1] == "=" and s >= 2 and (text[s - 2].isalnum() or text[s - 2] in "_-"):
        lo = max(0, s - 64)  # a name's own characters: looked at within a bounded reach (time stays linear)
        start = max(max(text.rfind(c, lo, s) for c in " \t\n\"'`;,") + 1, lo)
        name = text[start:s - 1]
        if any(x in name for x in ("://", "?", "&")):
            return True
        return bool(hex_run and not _BLOB_NAME.search(name))
    return True


#: the names whose ``=`` value is a blob as much as a ``blob:`` line's is (case C44); other ``name=`` hex is a hash,
#: a colour or an id more often (``md5sum=``, ``color=``), and a key's own name has :func:`_scan_labelled`
_BLOB_NAME = re.compile(r"blob|base64|b64|encoded", re.I)


def _scan_blobs(text: str) -> Iterator[tuple[str, int, int, int]]:
    """Bare long hex (32-128 digits of one case, not 40) and base64 (40-100 chars mixing upper, lower and
    digits, high entropy, decoding to binary) standing alone as a token. Not findings: a run inside a longer
    token, path, URL or dotted value; 40-hex (a git SHA-1) and hex over 128 digits (data); anything with a hash/id/encoding word shortly before it
    on its line (``commit``, ``sha256:``, ``md5``, ``digest``, ``image``, ``base64,``, …) or ``sha256sum``-style
    output after it; low-variety runs (``AAAA…``, ``0000…``); base64 decoding to text; file data by its magic
    prefix; base64 lines wrapped into a block (the next line continues the run)."""
    n = len(text)
    for m in _HEX_RUN.get().finditer(text):
        s, e = m.span()
        v = m.group()
        if (len(v) == 40 or len(v) > 128 or _edge_before(text, s, hex_run=True) or _glued_after(text, e)
                or not (v.islower() or v.isupper() or v.isdigit()) or v.isdigit() or len(set(v.lower())) < 10
                or _digest_context(text, s, e)):
            continue
        yield "hex_secret", s, e, _P_BLOB
    for m in _B64_RUN.get().finditer(text):
        s, e = m.span()
        v = m.group()
        core = v.rstrip("=")
        if (not 40 <= len(core) <= 100 or _edge_before(text, s) or _glued_after(text, e)
                or all(c in "0123456789abcdefABCDEF" for c in core)):
            continue
        if not (any(c.isupper() for c in core) and any(c.islower() for c in core) and any(c.isdigit() for c in core)):
            continue
        if core.startswith(_FILE_MAGIC) or _entropy(core) < 4.3 or _decodes_to_text(v):
            continue
        parts = core.split("/")
        first = core[1:].split("/", 1)[0]
        # a path (/var/folders/ty/3c7j5qqx…/T, src/app/x9…), not a key; base64 has "/" too (a key may start with
        # one), but no path part is a long run mixing upper case, lower case and digits, and a path has no "+"
        if "+" not in core and not any(len(p) >= 16 and not (p.islower() or p.isupper()) and any(c.isdigit() for c in p)
                                       for p in parts) and (
                (core.startswith("/") and first.isalpha() and 2 <= len(first) <= 24)
                or (core.count("/") >= 2 and any(len(p) >= 3 and p.isalpha() and p.islower() for p in parts))):
            continue
        if e + 1 < n and text[e] == "\n" and _B64_RUN.get().match(text, e + 1):
            continue  # wrapped base64 data (MIME, certificates): the run goes on on the next line
        if s >= 2 and text[s - 1] == "\n" and text[s - 2] in _BLOB_EDGE:
            line_start = text.rfind("\n", 0, s - 1) + 1
            if _B64_RUN.get().fullmatch(text, line_start, s - 1):
                continue  # the last line of such a block
        if _digest_context(text, s, e):
            continue
        yield "base64_secret", s, e, _P_BLOB


# ---------------------------------------------------------------------------------------------
# Bare keys of any provider: a short prefix, a separator, a long random tail (case C26: mem0's ``m0-…``)
# ---------------------------------------------------------------------------------------------

_P_PREFIXED = _P_PROVIDER - 6  # a known provider's own rule names the kind of a merged cluster
#: from the separator: a base64 blob's runs are not tried. A tail may hold inner ``-``/``_`` segments and ``.`` ones of
#: 8+ characters (``m0-Zx9Q….As3D…``: C18's dotted keys, any prefix); a file name's ``.min.js`` is no such segment
_KEY_TAIL = _Lazy(r"[-_](?P<tail>[A-Za-z0-9]{8,256}+(?:(?:[-_][A-Za-z0-9]{2,256}+|\.[A-Za-z0-9]{6,256}+)(?![A-Za-z0-9]))*)")
#: the prefix before a tail: one to three short segments (``m0-``, ``lsv2_pt_``, ``sk-or-v1-``) ending in ``-``/``_``
_KEY_PREFIX = _Lazy(r"[A-Za-z][A-Za-z0-9]{0,9}(?:[-_.][A-Za-z0-9]{1,10}){0,2}[-_]\Z")
#: chars that may not stand before a prefixed key: it would be part of a longer word, path, URL, address or expression
_PREFIX_EDGE = _W | frozenset("/.\\@%+$~#")
#: prefix segments of identifiers that are not credentials: message, request, tool-call, object and record ids of the
#: APIs and tools agents read (``toolu_01…``, ``msg_01…``, ``chatcmpl-…``, ``file-…``, ``cus_…``) and names of data
_ID_PREFIXES = frozenset(
    """
    toolu srvtoolu msg req call chatcmpl cmpl file asst thread run step resp item batch evt event ch cus sub pi pm py
    in ii txn tx seti si src prod price inv acct org user usr sess session conv chat job task span trace log obj id
    uid uuid ref node commit build cache chunk img image layer blob sha hash md5 tmp temp test tests mock fake example
    dummy sample demo doc docs page post video audio track album playlist channel order cart workspace project proj
    """.split()
)
_WORDLIKE = _Lazy(r"[A-Z]?[a-z]{3,}")
#: the ids a coding agent's host writes for its own sessions, messages and parts, found whole: OpenCode's
#: ``ses_``/``msg_``/``prt_``/``per_``/``usr_``/``pty_``/``dbg_``/``wrk_``… (a short lower-case prefix, ``_``, 12 hex
#: digits of time, 14 base62), an id a user quotes to find or reopen a session, never a key (a random base62 tail opens
#: with 12 lower-case hex digits about once in 10^7); a key glued after one makes the match longer than an id. Codex's
#: and Claude Code's ids are UUIDs, which no rule takes for a key (tests/test_redact_host_ids.py).
_HOST_ID = _Lazy(r"[a-z]{2,4}_[0-9a-f]{12}[0-9A-Za-z]{14}")


def _random_tail(t: str) -> bool:
    """Does ``t`` read as random key material rather than a word, a name, a counter or a hex id? Upper and lower case (and a digit, below 32 chars), entropy at least 0.78 of
    ``log2(len)`` bits/char, and at most 70% of it in word-like runs (``Payload``, ``writer``). On random base62
    strings of 24 / 32 / 40 chars it says yes to 98.4% / 99.8% / 99.9%."""
    if not any(c.isupper() for c in t) or not any(c.islower() for c in t):
        return False
    if len(t) < 32 and not any(c.isdigit() for c in t):
        return False
    import math

    if _entropy(t) < 0.78 * math.log2(min(len(t), 62)):
        return False
    return sum(m.end() - m.start() for m in _WORDLIKE.get().finditer(t)) <= 0.7 * len(t)


def _random_lower(t: str) -> bool:
    """A lower-case tail that reads as random key material, not an id: 32+ characters mixing digits with letters
    beyond hex and base32 (``zx9qw8er…``; a hex id has none past ``f``, RFC 4648 base32 none past ``v``, Nix's no
    ``e o u t``), at :func:`_random_tail`'s entropy."""
    import math

    # and a vowel or t: Nix's base32 store hashes (0-9a-z without e o u t) are ids
    return (len(t) >= 32 and t.islower() and any(c.isdigit() for c in t) and sum(c in "wxyz" for c in t) >= 2
            and any(c in "eout" for c in t)
            and _entropy(t) >= 0.78 * math.log2(min(len(t), 36))
            and sum(m.end() - m.start() for m in _WORDLIKE.get().finditer(t)) <= 0.5 * len(t))


def _is_id_prefix(prefix: str) -> bool:
    return any(seg.rstrip("0123456789") in _ID_PREFIXES or seg in _ID_PREFIXES
               for seg in re.split(r"[-_.]", prefix.lower()) if seg)


def _scan_prefixed(text: str) -> Iterator[tuple[str, int, int, int]]:
    """Bare ``<prefix><-|_><24+ random chars>`` keys of any provider, no label needed (``m0-Zx9Q…``,
    ``tvly-…``, ``fc-…``): a prefix of one to three short segments starting with a letter and standing
    alone (not inside a word, path, URL or address), a tail that reads as random (:func:`_random_tail`), nothing
    word-like glued after it. Not findings: ids by their prefix (``toolu_``, ``msg_``, ``chatcmpl-``, ``file-``,
    :data:`_ID_PREFIXES`), a host's own ids by their shape (OpenCode's ``ses_<12 hex><14 base62>``, :data:`_HOST_ID`),
    file names (``main-<hex>.js``), and every single-case tail: a lower-case hex tail after a short prefix is an id far
    more often than a key (``ws_023b…``, ``rs_…``); keys of that shape have their own rule."""
    n = len(text)
    for m in _KEY_TAIL.get().finditer(text):
        s, e = m.span("tail")
        if e - s < 24 or s < 2 or not text[s - 2].isalnum():  # too short a tail; the prefix ends in a letter or digit
            continue
        p = _KEY_PREFIX.get().search(text, max(0, s - 34), s)
        if p is None or (p.start() and text[p.start() - 1] in _PREFIX_EDGE):
            continue
        tail = re.sub(r"[-_.]", "", m.group("tail"))
        if len(tail) < 24 or _is_id_prefix(text[p.start():s - 1]) or not (_random_tail(tail) or _random_lower(tail)):
            continue
        while e + 1 < n and text[e] in "-_" and text[e + 1].isascii() and text[e + 1].isalnum():
            k = e + 1  # a trailing segment of the same key (lsv2_pt_<hex>_<hex>)
            while k < n and k - e <= 64 and text[k].isascii() and text[k].isalnum():
                k += 1
            e = k
        if e < n and text[e] in "+%=":  # base64's "+" and padding, a URL-escaped char: the key goes on (fail closed)
            e = _glued_end(text, e)
        if e < n and (text[e] in _W or text[e] in "/\\@+=" or (text[e] == "." and e + 1 < n and text[e + 1].isalnum())):
            continue
        if e - p.start() <= 31 and _HOST_ID.get().fullmatch(text, p.start(), e):  # a host's own session/message id
            continue
        yield "api_key", p.start(), e, _P_PREFIXED


#: what a key's tail may go on with past its rule's alphabet: base64's ``+``/``/`` and ``=`` padding, URL escapes
#: (``%2E``), ``~``; each piece after one of those characters (a bounded number: a run of keys glued to each other
#: costs linear time)
_GLUED_ON = _Lazy(r"(?:[+/=%~][A-Za-z0-9_.~-]{0,400}+){1,16}+")


def _glued_end(text: str, e: int) -> int:
    """Where a key found to end at ``e`` really ends when base64 or URL-escaped characters follow it glued
    (``sk-proj-…+XYZ/09…==``, ``…%2Eabc…``): past them, a trailing ``.``/``-``/``/`` (punctuation, a path's end)
    left out. ``e`` when nothing of a key's alphabet follows."""
    m = _GLUED_ON.get().match(text, e)
    if m is None:
        return e
    end = m.end()
    while end > e and text[end - 1] in "._~-/+%":
        end -= 1
    return end if any(c.isalnum() or c == "=" for c in text[e:end]) else e


# ---------------------------------------------------------------------------------------------
# Long hex or base64 after a key label: KEY=…, key=…, token:…, "apiKey":"…" (case C44)
# ---------------------------------------------------------------------------------------------

_P_LABELLED = _P_BLOB + 1
#: from the separator: maybe a call and a string literal's prefix around it (``key = Fernet(b'…')``), a quote, then
#: base64 of either alphabet (``+/`` or the URL-safe ``-_`` of Fernet keys and ``token_urlsafe``)
#: (a value may name its encoding first: Laravel's ``APP_KEY=base64:…``)
_VALUE_RUN = _Lazy(r"[=:][>=]?[ \t]{0,4}(?:[A-Za-z_][\w.]{0,40}+\([ \t]{0,2})?(?:[bBrRuU]{0,2}[\"'`]{1,3})?(?:base64:)?"
                   r"(?P<val>[A-Za-z0-9+/_-]{22,4096}+={0,2})")
_LABEL_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_KEY_LABEL_ENDS = ("key", "token", "secret", "password", "passwd", "pwd", "pass", "auth", "credential", "credentials")
_LABEL_HINTS = ("key", "token", "secret", "pass", "pwd", "auth", "cred")
#: label words saying the value is an id, a hash or a public value, not a secret (``cache_key``, ``key_id``)
_NOT_SECRET_LABEL = frozenset(
    """
    id ids hash sha sha1 sha256 digest checksum etag uuid commit cache fingerprint nonce salt iv sig signature public
    pub pubkey publickey idempotency sort partition primary foreign row object s3 map dict lookup index cursor page
    """.split()
)


def _is_key_label(label: str) -> bool:
    """``KEY``, ``api.key``, ``MEM0_API_KEY``, ``accessToken``, ``client_secret``: a name whose last word (or any word)
    ends in a credential word, with no word saying the value is an id, hash or public value."""
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", label).lower()) if w]
    if not words or any(w in _NOT_SECRET_LABEL for w in words):
        return False
    return any(w.endswith(_KEY_LABEL_ENDS) for w in words)


def _scan_labelled(text: str) -> Iterator[tuple[str, int, int, int]]:
    """Long hex (32+ digits, any length up to 4,096, 40 included) or base64 (22+ chars, random by
    :func:`_random_tail`'s test, decoding to binary) right after a key label and ``=``/``:``, glued or spaced,
    quoted or not (``KEY=…``, ``key=…``, ``token:…``): the label decides, not the words around it (a bare
    run stays with :func:`_scan_blobs`' stricter rules)."""
    n = len(text)
    for m in _VALUE_RUN.get().finditer(text):
        s, e = m.span("val")
        near = text[max(0, m.start() - 66):m.start()].lower()
        if not any(w in near for w in _LABEL_HINTS):  # cheap: most "x": "<long value>" pairs name no credential
            continue
        j = m.start()  # the label: a name right before the separator, maybe quoted, maybe spaced
        while j > 0 and j > m.start() - 4 and text[j - 1] in " \t":
            j -= 1
        if j > 0 and text[j - 1] in "\"'":
            j -= 1
        i = j
        while i > 0 and j - i <= 60 and text[i - 1] in _LABEL_CHARS:
            i -= 1
        if i == j or (i > 0 and text[i - 1] in _LABEL_CHARS):
            continue
        while i < j and text[i] == "-":  # a diff's removed line (-APP_KEY=…) or an option's dashes start no label
            i += 1
        if i == j or not (text[i].isalpha() or text[i] == "_"):
            continue
        if not _is_key_label(text[i:j]):
            continue
        before = text[max(text.rfind("\n", 0, i) + 1, i - 24):i].split()
        if before and before[-1].lower().strip("\"'`([{") in _NOT_SECRET_LABEL:  # "public key: …", "cache key=…"
            continue
        if e < n and (text[e] in _W or text[e] in "/\\@+" or (text[e] == "." and e + 1 < n and text[e + 1].isalnum())):
            continue
        v = m.group("val")
        core = v.rstrip("=")
        if all(c in "0123456789abcdefABCDEF" for c in core):
            if len(core) >= 32 and len(set(core.lower())) >= 8 and (core.islower() or core.isupper() or core.isdigit()):
                yield "hex_secret", s, e, _P_LABELLED
            continue
        if core.strip("-_") != core:  # a flag or a name's part (--x, _x), not base64
            continue
        if core.startswith(_FILE_MAGIC) or not _random_tail(core.translate(_B64_SYMBOLS)) or _decodes_to_text(v):
            continue
        yield "base64_secret", s, e, _P_LABELLED


_B64_SYMBOLS = str.maketrans("", "", "+/-_")


# ---------------------------------------------------------------------------------------------
# A credential named in one place and valued in another: name/value pairs, Markdown tables
# ---------------------------------------------------------------------------------------------

#: ``name: DB_PASSWORD`` / ``value: x`` (a Kubernetes or ECS env entry, YAML or JSON), Postman's ``{"key": "api_key",
#: "value": "x"}``, CloudFormation's ``ParameterKey`` / ``ParameterValue``, Terraform's ``name = "…"`` / ``value = "…"``,
#: ``--form key=API_TOKEN --form value=x``: the name field, then (no other name field between) the value field
_NAME_FIELD = _Lazy(r"(?i)(?<![\w-])[\"']?(?P<f>name|key|parameterkey|parameter_key|variable|envname)[\"']?[ \t]{0,4}[:=]"
                    r"[ \t]{0,4}[\"']?(?P<label>[A-Za-z_][\w.-]{0,80}+)[\"']?(?![\w.-])")
_VALUE_FIELD = _Lazy(r"(?i)(?<![\w-])[\"']?(?:value|parametervalue|parameter_value|envvalue)[\"']?[ \t]{0,4}[:=](?![=>])"
                     r"[ \t]{0,4}(?:(?P<q>[\"'])(?P<qval>[^\"'\r\n]{1,512}+)(?P=q)|(?P<val>[^\s\"',;}\]|&]{1,512}+))")
_NAME_VALUE_GAP = 240


#: words that make a field's or a column's name describe a key rather than hold one (``Key Type``, ``Key Usage``,
#: ``Token length``, ``Auth method``), or name another sort of key (``Hotkey``, ``Primary key``, ``Sort key``)
_NOT_CREDENTIAL_WORDS = frozenset("""type types usage usages size length bits binding bindings method methods format
algorithm algorithms algo name names field fields column columns policy rotation expiry expires expiration ttl scope
scopes mode source location path file store hint kind purpose count limit hotkey hotkeys shortcut shortcuts primary
foreign sort partition cache composite unique index""".split())


def _credential_name(label: str) -> str | None:
    """The kind a field's or a column's name gives its value (``DB_PASSWORD`` → ``password``, ``API key`` → ``api_key``),
    or ``None`` when it names no credential (``Key`` alone, ``cache_key``, ``Primary key``)."""
    cjk = "".join(label.split())
    for w in _CJK_LABELS:  # 密码, 数据库密码, API 密钥, 访问令牌 (it ends the name: 密码强度, 密钥类型 describe one)
        if cjk.endswith(w):
            return _cjk_kind(w)
    words = [w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", label).lower()) if w]
    if not words or words in (["key"], ["auth"], ["keys"]) or not _is_key_label(label):
        return None
    if not _NOT_CREDENTIAL_WORDS.isdisjoint(words):  # Key Type, Key Usage, Hotkey, Primary key, Auth method
        return None
    return _assignment_kind(label.lower(), 0, len(label))


_STD_B64_RE = _Lazy(r"[A-Za-z0-9+/]{14,4096}+={0,2}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _structured_value(kind: str, value: str) -> bool:
    """Is ``value``, given to a credential's name in a structure (a name/value pair, a table's cell), a secret? A
    password's: a word mixing letters with digits or symbols (:func:`_glued_cjk_value`); any other credential's: key
    material (random, 16+ characters, or 32+ hex). Never a placeholder, a reference, a path or a URL."""
    v = value.strip().strip("`*").strip().strip("'\"").strip()
    v = v[7:] if v.startswith("base64:") else v  # a value naming its encoding first (Laravel's APP_KEY)
    if not v or any(c.isspace() for c in v) or _shell_expansion(v) or _DOTTED_EXPR_RE.get().fullmatch(v):
        return False
    if any("\u2e80" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af" or "\uff00" <= c <= "\uffef" for c in v):
        return False  # CJK words in a cell describe the value (至少8位，含数字), they are not it
    # standard base64 (its "/" is no path's): random, a whole number of quads, decoding to binary
    if (len(v) >= 16 and len(v) % 4 == 0 and _STD_B64_RE.get().fullmatch(v) and not v.startswith("/")
            and _random_tail(v.rstrip("=").translate(_B64_SYMBOLS)) and not _decodes_to_text(v)):
        return True
    if kind != "password" and _UUID.fullmatch(v):  # npm's and Heroku's tokens are UUIDs: an "id" names none
        return True
    return _glued_cjk_value(v, kind == "password")


def _scan_name_value(text: str) -> Iterator[tuple[str, int, int, int]]:
    """``name: DB_PASSWORD`` … ``value: x`` (:data:`_NAME_FIELD`): the value, when the name names a credential."""
    vf = _VALUE_FIELD.get()
    for m in _NAME_FIELD.get().finditer(text):
        kind = _credential_name(m.group("label"))
        if kind is None:
            continue
        limit = min(len(text), m.end() + _NAME_VALUE_GAP)
        v = vf.search(text, m.end(), limit)
        if v is None:
            continue
        nxt = _NAME_FIELD.get().search(text, m.end(), v.start())
        if nxt is not None:  # another entry's name first: this value is not this name's
            continue
        g = "qval" if v.group("qval") is not None else "val"
        if _structured_value(kind, v.group(g)):
            yield kind, v.start(g), v.end(g), _P_ASSIGN


#: a standard base64 value standing alone (a Kubernetes Secret's data, a docker config's auth, an env var holding a
#: base64-encoded config)
_B64_VALUE = _Lazy(r"(?:(?<=\w=)|(?<![A-Za-z0-9+/=_-]))(?P<b>[A-Za-z0-9+/]{22,65536}+={0,2})(?![A-Za-z0-9+/=_-])")
#: base64 wrapped into lines of one width (``base64`` and ``openssl base64`` write 76 and 64 columns): a secret the
#: wrap cut in two is whole only in the lines joined
_B64_WRAPPED = _Lazy(r"(?m)^[ \t]{0,16}(?P<w>[A-Za-z0-9+/]{48,76})[ \t]*\r?\n(?:[ \t]{0,16}[A-Za-z0-9+/]{48,76}[ \t]*\r?\n){0,4096}+"
                     r"[ \t]{0,16}[A-Za-z0-9+/]{0,76}={0,2}[ \t]*(?:\r?$|$)")
_ENCODED_DEPTH = 3


def _scan_encoded(text: str, depth: int = 0) -> Iterator[tuple[str, int, int, int]]:
    """Base64 that decodes to text holding a secret (``kubectl get secret -o yaml``'s ``tls.key``, ``.dockerconfigjson``,
    ``DATABASE_URL``; a base64-encoded ``.env``): the whole value. The decoded text is searched as any text is (a few
    levels deep: a docker config's base64 inside a Secret's base64)."""
    import base64
    import binascii

    if depth >= _ENCODED_DEPTH:
        return
    for m in _B64_VALUE.get().finditer(text):
        b = m.group("b")
        if len(b) % 4:  # a value cut short (a truncated output): its whole quanta
            if "=" in b:
                continue
            b = b[: len(b) - len(b) % 4]
        try:
            dec = base64.b64decode(b, validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            continue
        if dec.count("\ufffd") > 1:  # binary, not text
            continue
        if not dec.isprintable() and not all(c.isprintable() or c in "\r\n\t" for c in dec):
            continue
        if "PRIVATE KEY" in dec or any(True for _ in _encoded_findings(dec, depth + 1)):
            yield "base64_secret", m.start("b"), m.end("b"), _P_LABELLED
    if "\n" in text:
        for m in _B64_WRAPPED.get().finditer(text):
            block = m.group(0)
            lines = [ln.strip() for ln in block.splitlines() if ln.strip()]
            if len(lines) < 2 or len({len(ln) for ln in lines[:-1]}) != 1:  # one width, the last line shorter
                continue
            joined = "".join(lines)
            if len(joined) % 4:
                joined = joined[: len(joined) - len(joined) % 4]
            try:
                dec = base64.b64decode(joined, validate=True).decode("utf-8", "replace")
            except (binascii.Error, ValueError):
                continue
            if dec.count("\ufffd") > 1 or not all(c.isprintable() or c in "\r\n\t" for c in dec):
                continue
            if "PRIVATE KEY" in dec or any(True for _ in _encoded_findings(dec, depth + 1)):
                yield "base64_secret", m.start("w"), m.end(), _P_LABELLED


def _encoded_findings(dec: str, depth: int) -> Iterator[tuple[str, int, int, int]]:
    """The findings of a decoded text (:func:`_candidates`), at most :data:`_ENCODED_DEPTH` decodings deep."""
    yield from _candidates(dec, depth)


#: a ~/.pgpass line, ``hostname:port:database:username:password`` (``*`` for any field but the password)
_PGPASS_LINE = _Lazy(r"(?m)^" + _LINE_PREFIX + r"?[ \t]{0,8}(?:(?:echo|printf)[ \t]{1,4}(?:-[a-z]{1,3}[ \t]{1,4})?[\"']?)?"
                     r"(?:[A-Za-z0-9._-]{1,253}+|\*):(?P<port>[0-9]{1,5}+|\*):(?P<db>[^:\s\"']{1,63}+):(?P<user>[^:\s\"']{1,63}+):"
                     r"(?P<val>[^\s\"']{1,512}+)[\"']?(?:[ \t]{0,4}>>?[ \t]{0,4}[^\s]{1,200}+)?[ \t]*\r?$")


_PG_PORTS = frozenset({"*", "5432", "5433", "5434", "5431", "6432", "26257"})
#: a ``.pgpass`` line's fields after its host: searched first (it starts with a literal), so a text without one is not
#: read line by line
_PGPASS_FIELDS = _Lazy(r":(?:[0-9]{1,5}+|\*):[^:\s\"']{1,63}+:[^:\s\"']{1,63}+:[^\s\"']")


def _scan_pgpass(text: str) -> Iterator[tuple[str, int, int, int]]:
    """``~/.pgpass`` lines (``db.example.com:5432:app:app:X``, ``*:*:*:postgres:X``): the password, when the database and
    user fields are names or ``*`` (not a tool's ``file:12:5:…`` position) and it mixes letters with digits or symbols
    (or the text names the file). A line may have a prefix (:data:`_LINE_PREFIX`: ``+`` in a diff, grep's ``.pgpass:3:``)."""
    if _PGPASS_FIELDS.get().search(text) is None:
        return
    named = "pgpass" in text.lower()
    for m in _PGPASS_LINE.get().finditer(text):
        db, user, v = m.group("db"), m.group("user"), m.group("val")
        if db.isdigit() or user.isdigit() or v.isdigit() or _is_placeholder(v) or _shell_expansion(v):
            continue
        port = m.group("port")  # PostgreSQL's (5432, a pooler's 6432) or any: a colon-joined log line is no such line
        if named or (port in _PG_PORTS and _looks_secretish(v) and not _is_label(v)):
            yield "password", m.start("val"), m.end("val"), _P_ASSIGN


#: a Markdown table's row: ``| a | b |`` (the outer pipes optional only where a separator row shows a table)
_TABLE_ROW = _Lazy(r"(?m)^[ \t]{0,8}\|(?P<cells>[^\n]{1,4000}+)$")
#: the same behind a line's prefix (``+| a | b |``, ``> | a |``): read only where a prefix's last character stands
#: before a bar (:data:`_PREFIX_BAR`), since trying a prefix at every line costs
_PREFIXED_ROW = _Lazy(r"(?m)^(?=[^\n|]{0,300}\|)" + _LINE_PREFIX + r"?[ \t]{0,8}\|(?P<cells>[^\n]{1,4000}+)$")
_PREFIX_BAR = _Lazy(r"\|(?:" + "|".join(f"(?<={end}{gap}\\|)" for end in (r"[>→\t⎿#/;]", r"[0-9][:.)-]", r"\n[-+*]", r"\n--")
                                        for gap in ("", r"[ \t]", r"[ \t]{2}")) + ")")
_TABLE_SEP_CELL = _Lazy(r"[ \t]*:?-{2,}:?[ \t]*")


#: a table a terminal draws (``npm token create``, ``mysql``): its bars and borders read as a Markdown table's, one
#: character for one, so offsets stay
_BOX = "│┃║├┤┼┌┐└┘┬┴╠╣╬╔╗╚╝╦╩╞╡╪╟╢╫"
_BOX_AS_PIPES = str.maketrans(_BOX + "─━═", "|" * len(_BOX) + "---")
_PLUS_BORDER = _Lazy(r"(?m)^[ \t]{0,8}\+(?:[-=]{1,400}\+){1,64}[ \t]*\r?$")


def _table_view(text: str) -> str:
    if any(c in text for c in "│┃║"):
        text = text.translate(_BOX_AS_PIPES)
    if "+-" in text or "+=" in text:
        text = _PLUS_BORDER.get().sub(lambda m: m.group().replace("+", "|"), text)
    return text


def _cells(line: str, offset: int) -> list[tuple[str, int, int]]:
    """The cells of a table row (its text after the first ``|``), each ``(stripped text, start, end)`` in the text."""
    out: list[tuple[str, int, int]] = []
    i = 0
    for part in line.split("|"):
        a = i + len(part) - len(part.lstrip())
        b = i + len(part.rstrip())
        out.append((line[a:b], offset + a, offset + b))
        i += len(part) + 1
    if out and not out[-1][0]:
        out.pop()  # the closing pipe
    return out


def _scan_tables(text: str) -> Iterator[tuple[str, int, int, int]]:
    """Markdown tables and tables a terminal draws (:func:`_table_view`), also behind a line's prefix (a diff's ``+``, a
    quote, a line number: :data:`_LINE_PREFIX`): a cell naming a credential and the cell after
    it (``| DB_PASSWORD | x |``), or a column whose header names one (``| service | user | password |`` … ``| pg | app | x |``): the value, vetted as a structure's
    (:func:`_structured_value`)."""
    columns: dict[int, str] = {}
    prev_end = -2
    header: list[tuple[str, int, int]] | None = None
    view = _table_view(text)
    prefixed = view.startswith(("+", "-", "*")) or _PREFIX_BAR.get().search(view) is not None
    rows = (_PREFIXED_ROW if prefixed else _TABLE_ROW).get()
    for m in rows.finditer(view):
        cells = _cells(m.group("cells"), m.start("cells"))
        if m.start() != prev_end + 1:  # a new table
            columns, header = {}, None
        prev_end = m.end()
        # an empty cell beside the dashes: a terminal's bar before the row read as one more (``│ |---|---|``)
        if any(c[0] for c in cells) and all(not c[0] or _TABLE_SEP_CELL.get().fullmatch(c[0]) for c in cells):
            if header is not None:
                columns = {n: k for n, (c, _, _) in enumerate(header)
                           if (k := _credential_name(c.strip("`*_ "))) is not None}
            continue
        header = cells if header is None else header
        for n, (c, s, e) in enumerate(cells):
            kind = columns.get(n)
            if kind is not None and _structured_value(kind, c):
                a = s + (len(c) - len(c.lstrip("`*")))
                yield kind, a, a + len(c.strip("`*")), _P_ASSIGN
            if n + 1 < len(cells):
                kind = _credential_name(c.strip("`*_ "))
                v, vs, ve = cells[n + 1]
                if kind is not None and _structured_value(kind, v):
                    a = vs + (len(v) - len(v.lstrip("`*")))
                    yield kind, a, a + len(v.strip("`*")), _P_ASSIGN


#: Every kind name :func:`find_secrets` can report.
KINDS = frozenset(
    {r.kind for r in (*_PROVIDER_RULES, *_KEYWORD_RULES) if r.kind not in ("cjk_label", "intl_key_label", "compound_flag")}
    | {"password", "token", "secret", "secret_key", "api_key", "credentials", "aws_secret_key"}
    | {"db_uri", "uri_password", "private_key", "private", "mailchimp_key", "hex_secret", "base64_secret"}
    | {"airtable_token", "cookie", "uri_token"}
)


def _lower_same_length(text: str) -> str:
    lowered = text.lower()
    if len(lowered) == len(text):  # every char mapped to one char: offsets line up
        return lowered
    return text.translate(_ASCII_LOWER)  # rare (e.g. "İ" lowers to two chars)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _literal_index(rules: list[_Rule]) -> tuple[tuple[str, tuple[_Rule, ...]], ...]:
    """``((literal, rules needing it), …)``: each rule's anchors (or, without anchors, its hints)."""
    index: dict[str, list[_Rule]] = {}
    for rule in rules:
        if rule.kind == "discord_token":  # its hint "." is in most texts: _DOTTED6 stands in for it
            continue
        for lit in rule.anchors or rule.hints:
            index.setdefault(lit, []).append(rule)
    return tuple((lit, tuple(rs)) for lit, rs in sorted(index.items()))


#: The combined pre-filter (issue 12): one Aho-Corasick pass (``pyahocorasick``) over every detector's literals picks
#: the detectors a text can trigger (provider formats on the text as is, keyword rules on the lower-cased text) and
#: tells which scanners can find something. A text holding none of them (most captured turns) costs that pass, the
#: long-run search and a lower-casing. Before: one ``in`` per literal (117 scans of the text): 3-4x slower on
#: captured turns, and the ~2 ms a combined regular expression takes to compile would be paid by every hook.
_EXACT_INDEX = _literal_index(_PROVIDER_RULES)
_LOWER_INDEX = _literal_index(_KEYWORD_RULES)
#: literals that wake the scanners (not rules): Mailchimp keys, URIs with credentials, PEM blocks, <private> spans
_SCAN_EXACT = ("-us", "://", "PRIVATE KEY", "<<", '"""', "'''", "Private-Lines:")
_SCAN_LOWER = ("<private", "cookie")
_DISCORD = next(r for r in _PROVIDER_RULES if r.kind == "discord_token")
_DOTTED6 = _Lazy(r"\.[A-Za-z0-9_-]{6}\.")
_ORDER = {id(r): n for n, r in enumerate((*_PROVIDER_RULES, *_KEYWORD_RULES))}
#: per automaton (a literal may wake rules of both lists: ``echo`` starts a provider rule and a keyword rule)
_EXACT_RULES_OF = dict(_EXACT_INDEX)
_LOWER_RULES_OF = dict(_LOWER_INDEX)
_automata: tuple = ()


def _literal_automata() -> tuple:
    """The two automata (exact literals, lower-case literals), built on first use (~0.1 ms)."""
    global _automata
    if not _automata:
        import ahocorasick

        built = []
        for literals in ((*(lit for lit, _ in _EXACT_INDEX), *_SCAN_EXACT), (*(lit for lit, _ in _LOWER_INDEX), *_SCAN_LOWER)):
            a = ahocorasick.Automaton()
            for lit in literals:
                a.add_word(lit, lit)
            a.make_automaton()
            built.append(a)
        _automata = tuple(built)
    return _automata


def _literals_in(text: str, lowered: str) -> tuple[set[str], set[str]]:
    """Which literals (rules' and scanners') occur in ``text`` / in ``lowered``: every occurrence, overlapping ones too."""
    exact, lower = _literal_automata()
    return {lit for _, lit in exact.iter(text)}, {lit for _, lit in lower.iter(lowered)}


def _rules_for(text: str, found: tuple[set[str], set[str]]) -> tuple[list[_Rule], list[_Rule]]:
    """The provider rules and keyword rules whose literals were found (:func:`_literals_in`), in table order."""
    exact = {id(r): r for lit in found[0] for r in _EXACT_RULES_OF.get(lit, ())}
    if "." in text and _DOTTED6.get().search(text) is not None:
        exact[id(_DISCORD)] = _DISCORD
    lower = {id(r): r for lit in found[1] for r in _LOWER_RULES_OF.get(lit, ())}
    key = _ORDER.__getitem__
    return [exact[k] for k in sorted(exact, key=key)], [lower[k] for k in sorted(lower, key=key)]


def _may_hold_secret(text: str, lowered: str) -> bool:
    """False when no detector can report anything in ``text`` (its literals and the scanners' triggers are absent)."""
    found = _literals_in(text, lowered)
    exact, lower = _rules_for(text, found)
    if exact or lower or found[0] or found[1]:
        return True
    runs = _runs(text)
    return _RUN22 in runs or _SEGMENTED in _seg_runs(text)


def _candidates(text: str, depth: int = 0) -> list[tuple[str, int, int, int]]:
    lowered = _lower_same_length(text)
    found = _literals_in(text, lowered)
    exact, lower = _rules_for(text, found)
    hits: list[tuple[str, int, int, int]] = []
    n = len(text)
    for rule in exact:
        for kind, s, e, prio in _run_rule(rule, text, text):
            if e < n and text[e] in "+/=%~":  # a provider's key glued to more of a key's characters: all of it goes
                e = _glued_end(text, e)
            hits.append((kind, s, e, prio))
    for rule in lower:
        hits.extend(_run_rule(rule, lowered, text))
    if "-us" in found[0]:
        hits.extend(_scan_mailchimp(text))
    raw = text.encode("utf-8", "surrogatepass")
    runs = raw.translate(_RUN_BYTES)
    if _RUN32 in runs:
        hits.extend(_scan_blobs(text))
        if "pat" in text:  # Airtable's pat<14>.<64 hex>: "pat" alone is in too many words to wake a rule
            # its 14 characters mix both cases: "patchdiff20240105.<sha256>" is a file named by its hash
            hits.extend(("airtable_token", m.start(), m.end(), _P_PROVIDER) for m in _AIRTABLE.get().finditer(text)
                        if not (m.start() and text[m.start() - 1] in _W) and not (v := text[m.start() + 3:m.start() + 17]).islower()
                        and not v.isupper())
    if _RUN22 in runs:
        hits.extend(_scan_encoded(text, depth))
        hits.extend(_scan_prefixed(text))
        if "=" in text or ":" in text:
            hits.extend(_scan_labelled(text))
    else:
        seg = raw.translate(_SEG_BYTES)
        if _SEGMENTED in seg:  # a key whose tail a dot or a dash cuts into shorter runs
            hits.extend(_scan_prefixed(text))
        # a URL-safe base64 value (``-``/``_`` cut it into runs shorter than 22) after a key label
        if (("=" in text or ":" in text) and not found[1].isdisjoint(_LABEL_LITERALS)
                and _RUN22 in seg.translate(_SEG_AS_RUN)):
            hits.extend(_scan_labelled(text))
    if "://" in found[0]:
        hits.extend(_scan_uris(text))
    if "PRIVATE KEY" in found[0]:
        hits.extend(_scan_pem(text))
    if "Private-Lines:" in found[0]:
        hits.extend(_scan_ppk(text))
    if "cookie" in found[1] or ("-b" in text and "curl" in lowered):
        hits.extend(_scan_cookies(text, lowered))
    if "<private" in found[1]:
        hits.extend(_scan_private(text, lowered))
    if "<<" in found[0] or '"""' in found[0] or "'''" in found[0]:
        hits.extend(_scan_heredocs(text, lowered))
    if not found[1].isdisjoint(_AFTER_LABEL_LITERALS):
        hits.extend(_scan_key_before_label(text, lowered))
    if found[1]:
        if "value" in lowered:
            hits.extend(_scan_name_value(text))
        if "|" in text or "│" in text or "┃" in text or "║" in text:
            hits.extend(_scan_tables(text))
    if text.count(":") >= 4:
        hits.extend(_scan_pgpass(text))
    return hits


def _spans(text: str) -> list[tuple[str, int, int]]:
    """Merged, sorted, non-overlapping (kind, start, end) findings, markers left alone."""
    if not isinstance(text, str):
        raise TypeError(f"memdir.capture.redact expects str, got {type(text).__name__}")
    if not text:
        return []
    cands = _candidates(text)
    if not cands:
        return []
    markers = [(m.start(), m.end()) for m in MARKER_RE.finditer(text)] if "[redacted:" in text else []
    mstarts = [s for s, _ in markers]

    def widen(s: int, e: int) -> tuple[int, int]:
        # A finding that cuts into a marker takes the whole marker.
        i = bisect.bisect_right(mstarts, s) - 1
        if i >= 0 and markers[i][0] < s < markers[i][1]:
            s = markers[i][0]
        j = bisect.bisect_left(mstarts, e) - 1
        if j >= 0 and markers[j][0] < e < markers[j][1]:
            e = markers[j][1]
        return s, e

    def only_markers(s: int, e: int) -> bool:
        if not markers:
            return False
        rest = MARKER_RE.sub("", text[s:e])
        return not any(c.isalnum() for c in rest)

    items = []
    for kind, s, e, prio in cands:
        s, e = widen(s, e)
        if only_markers(s, e):
            continue
        items.append((s, e, kind, prio))
    items.sort(key=lambda t: (t[0], -t[1]))

    out: list[tuple[str, int, int]] = []
    cur_s = cur_e = -1
    best: tuple[int, int, str] = (0, 0, "")
    for s, e, kind, prio in items:
        if s < cur_e:  # overlaps the current cluster: merge
            cur_e = max(cur_e, e)
            best = max(best, (prio, e - s, kind))
            continue
        if cur_e >= 0:
            out.append((best[2], cur_s, cur_e))
        cur_s, cur_e, best = s, e, (prio, e - s, kind)
    if cur_e >= 0:
        out.append((best[2], cur_s, cur_e))
    return out


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """Locate secrets in ``text``.

    Returns a list of ``(kind, start, end)`` tuples: ``start``/``end`` are str indexes (code points,
    end exclusive), sorted by ``start`` and non-overlapping (overlapping findings are merged, the
    kind of the most specific one kept). ``kind`` is one of :data:`KINDS`. Existing
    ``[redacted:…]`` markers are never reported. This is the first pass of :func:`redact`; in rare
    cases a redaction exposes a new boundary and :func:`redact` finds more in a second pass.

    Raises ``TypeError`` (one line) when ``text`` is not a ``str``; never raises on any ``str``
    (NUL, lone surrogates, any size: time is linear in ``len(text)``).
    """
    spans = _spans(text)
    if isinstance(text, str) and not text.isascii() and _HAS_FULLWIDTH.search(text):
        # full-width forms (ｐａｓｓｗｏｒｄ＝…, ｓｋ－ｐｒｏｊ－…) are found as their ASCII, one character for one, so the
        # offsets are the original's; what the text finds as written is kept too (a full-width letter folded before
        # a key would glue onto it)
        spans = _union(spans, _spans(text.translate(_FULLWIDTH)))
    if isinstance(text, str) and (("%" in text and _ESCAPE_IN_KEY.search(text)) or (
            not text.isascii() and _INVISIBLE.search(text) and _INVISIBLE_IN_KEY.search(text)) or (
            "\\" in text and _JSON_ESCAPE_IN_KEY.search(text))):
        spans = _union(spans, _unhidden_spans(text))
    return spans


#: full-width forms (U+FF01-FF5E) and the ideographic space, each to its one ASCII character, but the punctuation of
#: Chinese prose (，（）；！？), so a value still ends where the text says
_PROSE_MARKS = "，（）；！？"
_FULLWIDTH = {**{c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if chr(c) not in _PROSE_MARKS}, 0x3000: 0x20}
_HAS_FULLWIDTH = re.compile("[\uff02-\uff07\uff0a\uff0b\uff0d-\uff1a\uff1c-\uff1e\uff20-\uff5e\u3000]")


def _union(a: list[tuple[str, int, int]], b: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Two sorted, non-overlapping finding lists as one: overlapping findings merged, the first one's kind kept."""
    out: list[tuple[str, int, int]] = []
    for kind, s, e in sorted(a + b, key=lambda t: (t[1], -t[2])):
        if out and s < out[-1][2]:
            k, s0, e0 = out[-1]
            out[-1] = (k, s0, max(e0, e))
        else:
            out.append((kind, s, e))
    return out


#: characters that show as nothing: Unicode's format controls (zero-width space, non-joiner and joiner, word joiner,
#: BOM, bidi marks, soft hyphen, tags…), the combining grapheme joiner, variation selectors, Mongolian ones, Khmer's
#: invisible vowels and the Hangul fillers; and a URL escape (``%2E``). Inside a key they cut it for a scanner, not for
#: whoever reads or pastes it, so keys are looked for again with them taken out (escapes decoded).
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e0fff]")
_ESCAPE = re.compile("%[0-9A-Fa-f]{2}")
#: JSON text held in a string (a tool's output, a logged request body): the backslashes before a quote
#: (``{\\"password\\": \\"x\\"}``, escaped once or more) are left out, and a ``\\uXXXX`` escape (``json.dumps``
#: writes one for every non-ASCII character: ``\\u5bc6\\u7801`` is 密码) and ``\\n``, ``\\r``, ``\\t`` are read as
#: their character, so a secret in it is found as in the JSON itself (a key right before ``\\n`` ends its line)
_JSON_ESCAPE = re.compile(r"\\{1,16}+(?=[\"'])|\\u[0-9A-Fa-f]{4}|\\[nrt]")
_HIDDEN = re.compile(_INVISIBLE.pattern + "|" + _ESCAPE.pattern + "|" + _JSON_ESCAPE.pattern)
#: the JSON escapes worth a second pass: an escaped quote, a ``\\uXXXX`` escape, or a ``\\n`` / ``\\r`` / ``\\t`` right
#: after a run of key characters (a key before it); a ``\\n`` after a word, as in every string literal of source code
#: (``"done\\n"``), is no reason to scan the whole text again
_JSON_ESCAPE_IN_KEY = re.compile(r"\\{1,16}+(?=[\"'])|\\u[0-9A-Fa-f]{4}|(?<=[A-Za-z0-9+/=_-]{16})\\[nrt]")
_CONTROL_ESCAPES = {"\\n": "\n", "\\r": "\r", "\\t": "\t"}
#: the ones worth a second pass: between two characters a key or its label holds (an emoji's joiner or variation
#: selector, common in chat, is not), an escape of such a character after one
_KEY_SIDE = "[A-Za-z0-9_=:.+/\\-\uff01-\uff5e]"
_INVISIBLE_IN_KEY = re.compile("(?<=" + _KEY_SIDE + ")" + _INVISIBLE.pattern + "+(?=" + _KEY_SIDE + ")")
_ESCAPE_IN_KEY = re.compile("%(?<=[A-Za-z0-9_-]%)(?:2[BbDdEeFf]|3[0-9AaDd]|[4-6][0-9A-Fa-f]|7[0-9AaEe])"
                            # a quote, a space or a bracket around a key or its label: JSON or a config line encoded whole
                            "|%(?:2[027]|7[BbDd])(?=[A-Za-z0-9_-])")
#: what a URL escape may stand for inside a key: letters, digits and a key's own punctuation; and the quotes, spaces,
#: commas and brackets that mark where a label or a value starts or ends
_ESCAPED_KEY_CHARS = frozenset(string.ascii_letters + string.digits + "+-./:=_~" + "\"' ,{}[]")


def _fold_one(m: re.Match[str]) -> str:
    """What one :data:`_HIDDEN` match reads as: nothing (an invisible character, the backslashes before a quote), the
    character an escape stands for, or the match itself (a URL escape of a character no key holds: ``%26``)."""
    c = m.group()
    if c[0] == "%":
        d = chr(int(c[1:], 16))
        return d if d in _ESCAPED_KEY_CHARS else c
    if c.startswith("\\u"):
        return chr(int(c[2:], 16))
    return _CONTROL_ESCAPES.get(c, "")


def _unhidden_spans(text: str) -> list[tuple[str, int, int]]:
    """The findings of ``text`` with :data:`_INVISIBLE` characters and the backslashes of escaped quotes left out, URL
    escapes and ``\\uXXXX`` escapes decoded (:data:`_JSON_ESCAPE`, :func:`_fold_one`), as ``[(kind, start, end)]``
    spans of ``text`` itself: each covers the hidden characters inside it and every escape it touches whole. ``[]``
    when ``text`` holds none of them."""
    folded = _HIDDEN.sub(_fold_one, text)
    if folded == text:
        return []
    found = _spans(folded)
    if not folded.isascii() and _HAS_FULLWIDTH.search(folded):
        found = _union(found, _spans(folded.translate(_FULLWIDTH)))
    if not found:
        return []
    # where each piece of the folded text came from (built only when something was found: one step per escape)
    f_at: list[int] = []  # where each piece starts in the folded text
    o_at: list[int] = []  # and in ``text``
    o_len: list[int] = []  # 0 for a verbatim run, else the length in ``text`` of the one escape it decodes
    last = f = 0
    for m in _HIDDEN.finditer(text):
        c = _fold_one(m)
        if c == m.group():
            continue
        if m.start() > last:
            f_at.append(f), o_at.append(last), o_len.append(0)
            f += m.start() - last
        if c:
            f_at.append(f), o_at.append(m.start()), o_len.append(len(m.group()))
            f += 1
        last = m.end()
    if last < len(text):
        f_at.append(f), o_at.append(last), o_len.append(0)

    def at(i: int, end: bool) -> int:  # folded offset -> offset in text (``end``: of the char at i, exclusive)
        k = bisect.bisect_right(f_at, i) - 1
        if o_len[k]:
            return o_at[k] + (o_len[k] if end else 0)
        return o_at[k] + i - f_at[k] + (1 if end else 0)

    return [(kind, at(s, False), at(e - 1, True)) for kind, s, e in found]


def redact_with_kinds(text: str) -> tuple[str, list[str]]:
    """Replace every secret in ``text`` by ``[redacted:<kind>]``.

    Returns ``(redacted_text, kinds)`` where ``kinds`` lists the kind of each replacement in the
    order made (text order within a pass; passes repeat until nothing is found, at most 8).
    Idempotent: ``redact_with_kinds(out)[0] == out`` and its kinds are ``[]``.

    Raises ``TypeError`` when ``text`` is not a ``str``; never raises on any ``str``.
    """
    kinds: list[str] = []
    for _ in range(_MAX_PASSES):
        spans = find_secrets(text)  # full-width forms folded too
        if not spans:
            break
        parts: list[str] = []
        last = 0
        for kind, s, e in spans:
            parts.append(text[last:s])
            parts.append(f"[redacted:{kind}]")
            kinds.append(kind)
            last = e
        parts.append(text[last:])
        text = "".join(parts)
    return text, kinds


def redact(text: str) -> str:
    """Return ``text`` with every secret replaced by ``[redacted:<kind>]`` (see module docstring
    for what counts and how URIs, assignments, PEM blocks and ``<private>`` spans are cut).

    Idempotent: ``redact(redact(x)) == redact(x)``. Raises ``TypeError`` when ``text`` is not a
    ``str``; never raises on any ``str``.
    """
    return redact_with_kinds(text)[0]


def redact_span(text: str, span: tuple[int, int] | None) -> tuple[str, tuple[int, int] | None]:
    """:func:`redact` of ``text`` and ``span`` (a ``(start, end)`` range of ``text``, or ``None``) moved by what the
    markers before it changed: a text shown whole before a window is cut from it near the passage that matched.
    ``text`` and ``span`` themselves when nothing was redacted."""
    out = redact(text)
    if out == text or span is None:
        return out, span
    shift = len(redact(text[:span[0]])) - span[0]
    return out, (max(0, span[0] + shift), max(0, min(len(out), span[1] + shift)))
