"""Tests for memdir.capture.redact (case C15, issue 6 "Secrets").

Fake secrets are assembled at run time from a seeded generator, never written as literals, so no
string in this repository looks like a live provider key.
"""

from __future__ import annotations

import random
import signal
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdir.capture.redact import DIGEST_WORDS, KINDS, MARKER_RE, find_secrets, redact, redact_with_kinds

CORPUS = Path(__file__).resolve().parent / "corpus"

_rng = random.Random(20240601)
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
HEXL = "0123456789abcdef"
B64 = ALNUM + "+/"


def rnd(n: int, alphabet: str = ALNUM) -> str:
    """n random chars, always with at least one digit, one lower and one upper where possible."""
    s = "".join(_rng.choice(alphabet) for _ in range(n))
    if n >= 3 and alphabet in (ALNUM, URLSAFE, B64):
        s = "a7Q" + s[3:]
    return s


def jwt() -> str:
    import base64
    import json

    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': '1234567890', 'iat': 1700000000})}.{rnd(43, URLSAFE)}"


def pem(label: str, lines: int = 12) -> tuple[str, str]:
    body = "\n".join(rnd(64, B64) for _ in range(lines)) + "\n" + rnd(20, B64) + "=="
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----", body


def _cases() -> list[tuple[str, str, str]]:
    """(expected kind, text containing the secret, the secret itself)."""
    c: list[tuple[str, str, str]] = []

    def add(kind: str, template: str, secret: str) -> None:
        c.append((kind, template.format(s=secret), secret))

    add("openai_key", "OPENAI_API_KEY={s}", "sk-" + rnd(48))
    add("openai_key", "client = OpenAI(api_key='{s}')", "sk-proj-" + rnd(156, URLSAFE))
    add("openai_key", "use {s} for the batch job", "sk-svcacct-" + rnd(120, URLSAFE))
    add("anthropic_key", "export ANTHROPIC_API_KEY={s}", "sk-ant-api03-" + rnd(93, URLSAFE) + "AA")
    for p in ("ghp", "gho", "ghu", "ghs", "ghr"):
        add("github_token", "git remote set-url origin https://{s}@github.com/o/r.git", f"{p}_" + rnd(36))
    add("github_token", "GH_TOKEN: {s}", "github_pat_" + rnd(22) + "_" + rnd(59))
    add("gitlab_token", "PRIVATE-TOKEN: {s}", "glpat-" + rnd(20, URLSAFE))
    add("slack_token", "bot token {s}", "xoxb-" + "".join(_rng.choice(string.digits) for _ in range(12)) + "-" + rnd(24))
    add("slack_token", "user token: {s}", "xoxp-" + "123456789012-123456789012-1234567890123-" + rnd(32, HEXL))
    add("slack_token", "app {s}", "xoxa-2-" + rnd(40))
    add("slack_webhook", "post to {s} on failure", "https://hooks.slack.com/services/T" + rnd(8).upper() + "/B" + rnd(8).upper() + "/" + rnd(24))
    add("discord_webhook", "hook={s}", "https://discord.com/api/webhooks/123456789012345678/" + rnd(68, URLSAFE))
    add("aws_access_key", "aws_access_key_id = {s}", "AKIA" + rnd(16, string.ascii_uppercase + string.digits))
    add("aws_access_key", "temporary id {s} expires soon", "ASIA" + rnd(16, string.ascii_uppercase + string.digits))
    add("aws_secret_key", "aws_secret_access_key = {s}", rnd(40, B64))
    add("aws_secret_key", "AWS_SECRET_ACCESS_KEY=\"{s}\"", rnd(40, B64))
    add("google_api_key", "maps key {s}", "AIza" + rnd(35, URLSAFE))
    add("google_oauth_token", "access token {s}", "ya29." + rnd(120, URLSAFE))
    add("google_client_secret", "client secret is {s}", "GOCSPX-" + rnd(28, URLSAFE))
    add("stripe_key", "stripe.api_key = '{s}'", "sk_" + "live_" + rnd(99))
    add("stripe_key", "restricted {s}", "rk_" + "live_" + rnd(99))
    add("stripe_webhook_secret", "STRIPE_WEBHOOK_SECRET={s}", "whsec_" + rnd(32))
    add("twilio_key", "twilio api key {s}", "SK" + rnd(32, HEXL))
    add("sendgrid_key", "SENDGRID_API_KEY={s}", "SG." + rnd(22, URLSAFE) + "." + rnd(43, URLSAFE))
    add("npm_token", "//registry.npmjs.org/:_authToken={s}", "npm_" + rnd(36))
    add("pypi_token", "password = {s}", "pypi-AgEIcHlwaS5vcmc" + rnd(120, URLSAFE))
    add("huggingface_token", "HF_TOKEN={s}", "hf_" + rnd(34))
    add("discord_token", "bot.run({s!r})".replace("{s!r}", "'{s}'"), "M" + rnd(23) + "." + rnd(6, URLSAFE) + "." + rnd(27, URLSAFE))
    add("telegram_bot_token", "TELEGRAM_BOT={s}", "123456789:AA" + rnd(33, URLSAFE))
    add("jwt", "cookie session={s}; Path=/", jwt())
    add("digitalocean_token", "do token {s}", "dop_v1_" + rnd(64, HEXL))
    add("databricks_token", "DATABRICKS_TOKEN={s}", "dapi" + rnd(32, HEXL))
    add("vault_token", "VAULT_TOKEN={s}", "hvs." + rnd(90, URLSAFE))
    add("shopify_token", "shop token {s}", "shpat_" + rnd(32, HEXL))
    add("groq_key", "groq {s}", "gsk_" + rnd(52))
    add("age_secret_key", "# age key\n{s}", "AGE-SECRET-KEY-1" + rnd(58, string.ascii_uppercase + string.digits))
    for label in ("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"):
        block, body = pem(label)
        c.append(("private_key", f"here is the key:\n{block}\nkeep it safe", body))
    block, body = pem("PRIVATE KEY", 4)
    c.append(("private_key", '{"type": "service_account", "private_key": "' + block.replace("\n", "\\n") + '\\n"}', body.split("\n")[1]))
    block, body = pem("RSA PRIVATE KEY", 6)
    c.append(("private_key", "truncated log:\n" + block.rsplit("\n", 1)[0], body.split("\n")[2]))
    pw = "p4" + rnd(14)
    for scheme in ("postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp", "mssql"):
        add("db_uri", scheme + "://app_user:{s}@db.internal:5432/prod", pw)
    add("db_uri", "jdbc:postgresql://admin:{s}@10.0.0.7/app", pw)
    add("db_uri", "redis://:{s}@cache:6379/0", pw)
    add("db_uri", "postgres://u:{s}@h/db", "p@ss:w0rd!")
    add("uri_password", "clone https://deploy:{s}@git.example.com/repo.git", pw)
    add("uri_password", "ftp://anon:{s}@ftp.example.org/", pw)
    add("bearer_token", "curl -H 'Authorization: Bearer {s}' https://api.example.com", rnd(40, URLSAFE))
    add("auth_header", "Authorization: Basic {s}", rnd(28, B64) + "==")
    add("bearer_token", "send it as Bearer {s} in the header", rnd(32, URLSAFE))
    add("password", "password=hunter2{s}", "x9Q")  # secret is the tail; whole value redacted
    add("password", "login with password={s} then", "hunter2")
    add("password", "passwd: {s}", "S3cure!pass")
    add("password", "DB_PASSWORD = '{s}'", "correct horse battery staple")
    add("password", '{{"user": "admin", "password": "{s}"}}', "Tr0ub4dor&3")
    add("password", "database:\n  password: {s}\n  host: x", "zq8Kp2Lm")
    add("password", "pwd={s}", "letmein")
    add("password", "mysql --password={s} db", "s3cr3tPW")
    add("password", "mysqldump -u root -p{s} memdir", "s3cr3tPW")
    add("password", "psql --password {s}", "Xy7-pass")
    add("password", "the password is {s}", "hunter22")
    add("password", "the password was `{s}`", "horse battery")
    add("password", "the admin password for prod is {s}", "Tr0ub4dor3")  # words between the label and "is"
    add("password", "I set password {s} for admin", "hunter2hunter2")  # the password right after the word
    add("password", "the login failed with password {s} and", "Zq8!vvTT99")
    add("password", "set the db password to {s}", "S3cure!pass")
    add("password", "pw={s}", "Xk9mQ2pL7z")
    add("secret", "secret={s}", "abcDEF123")
    add("secret", "CLIENT_SECRET: \"{s}\"", rnd(30))
    add("api_key", "api_key={s}", rnd(32))
    add("api_key", "X-API-Key: {s}", rnd(32))
    add("api_key", "apiKey: '{s}'", rnd(24))
    add("token", "token={s}", rnd(24))
    add("token", "https://example.com/cb?code=1&access_token={s}&state=2", rnd(30, URLSAFE))
    add("token", "refreshToken = \"{s}\"", rnd(30, URLSAFE))
    add("private", "note: <private>{s}</private> end", "my home address is 1 Main St")
    add("private", "<PRIVATE>\nline one\n{s}\n</Private>", "bank pin 4321")
    add("private", "<private>a <private>nested</private> {s}</private>", "still private")
    add("password", "密码：{s}", "hunter2")
    add("password", "数据库密码: {s}", "Pg-2024!x")
    add("password", "口令: {s}", "abc123xyz")
    add("password", "登录密码是 {s}，别告诉别人", "Qw3rty!!")
    add("secret", "密钥={s}", rnd(32))
    add("token", "令牌：{s}", rnd(40, URLSAFE))
    add("azure_key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net", rnd(86, B64) + "==")
    add("azure_key", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={s}", rnd(43, B64) + "=")
    add("azure_sas", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2030&sp=r&sig={s}", rnd(40, B64).replace("/", "%2F") + "%3D")
    add("password", "<settings><server><password>{s}</password></server></settings>", "s3cr3t!PW")
    add("password", "machine api.example.com login bob password {s}", "s3cr3tPW")
    add("password", "curl -u admin:{s} https://api.example.com/v1", "s3cr3tPW")
    add("password", "docker login -u bob -p {s} registry.example.com", "s3cr3tPW")
    add("secret_key", "PRIVATE_KEY=0x{s}", rnd(64, HEXL))
    add("password", "PGPASSWORD={s} psql -h db", "s3cr3t")
    add("password", '{{"command": "export DB_PASSWORD=\\"{s}\\" && make migrate"}}', "s3cr3t-Db")
    # cases C26 and C44: any provider's prefix-<random tail> key with no label; long hex/base64 after a key label
    add("api_key", "remember {s} for the memory service", "m0-" + rnd(40))
    add("api_key", "TAVILY={s}", "tvly-" + rnd(32))
    add("hex_secret", "KEY={s}", rnd(64, HEXL))
    add("base64_secret", "key={s}", rnd(43, B64) + "=")
    add("base64_secret", "blob: {s}", rnd(43, B64) + "=")
    # Last, so that in test_whole_corpus_in_one_text it swallows nothing else.
    add("private", "unclosed <private> {s}", "everything after")
    return c


CASES = _cases()
FORMAT_KINDS = sorted({k for k, _, _ in CASES})


def _chunks(secret: str, n: int = 8) -> list[str]:
    return [secret[i : i + n] for i in range(0, max(1, len(secret) - n + 1), 4)]


def test_corpus_size() -> None:
    assert len(CASES) >= 30
    assert len(FORMAT_KINDS) >= 30, FORMAT_KINDS
    assert set(FORMAT_KINDS) <= KINDS


@pytest.mark.parametrize(("kind", "text", "secret"), CASES, ids=[f"{i:03d}-{k}" for i, (k, _, _) in enumerate(CASES)])
def test_secret_fully_redacted(kind: str, text: str, secret: str) -> None:
    out, kinds = redact_with_kinds(text)
    assert secret not in out
    for chunk in _chunks(secret):
        if chunk.strip() and chunk not in text.replace(secret, ""):
            assert chunk not in out, f"fragment {chunk!r} of the secret survived: {out!r}"
    assert kind in kinds, (kinds, out)
    assert f"[redacted:{kind}]" in out
    assert redact(out) == out


WRAPPERS = ['"{}"', "`{}`", "({})", "{}.", "{},", "<{}>", "x?q={}&y=1", "'{}'", "[{}]", "{{{}}}", "\t{}\n",
            "：{}。", "「{}」", "**{}**", "{};", "| {} |", "说{}的", "- {}", "> {}"]


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_secret_redacted_in_any_wrapper(wrapper: str) -> None:
    """Quotes, backticks, brackets, trailing punctuation (ASCII and CJK) around every corpus line."""
    leaks = []
    for kind, text, secret in CASES:
        out = redact(wrapper.format(text))
        if secret in out:
            leaks.append((kind, out))
    assert leaks == []


def test_whole_corpus_in_one_text() -> None:
    text = "\n\n".join(t for _, t, _ in CASES)
    out, kinds = redact_with_kinds(text)
    for _, _, secret in CASES:
        assert secret not in out
    assert set(kinds) >= set(FORMAT_KINDS)
    assert redact(out) == out


def _prose_lines() -> list[str]:
    lines = []
    for path in sorted(CORPUS.glob("prose*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line and not line.startswith("# "):
                lines.append(line)
    return lines


def test_no_false_positives_on_ordinary_lines() -> None:
    lines = _prose_lines()
    assert len(lines) >= 200
    flagged = [(line, [(k, line[s:e]) for k, s, e in find_secrets(line)]) for line in lines]
    flagged = [f for f in flagged if f[1]]
    assert flagged == [], f"{len(flagged)} false positives in {len(lines)} lines"
    whole = "\n".join(lines)
    assert redact(whole) == whole


# ------------------------------------------------------------------ specific behaviour


def test_password_named_in_prose_is_redacted_a_word_about_passwords_is_not() -> None:
    """Prose names a password without ``=`` or ``:``: "the admin password for prod is X", "set password X", "changed
    the password to X". A word after "password" that is its subject (reset, field2 as a form name is rare; hashing,
    policy) and sentences about passwords stay as written."""
    assert redact("the admin password for prod is Tr0ub4dor3") == "the admin password for prod is [redacted:password]"
    assert redact("I set password hunter2hunter2 for admin") == "I set password [redacted:password] for admin"
    assert redact("pw=Xk9mQ2pL7z") == "pw=[redacted:password]"
    for line in ("the password reset flow is broken", "password hashing uses bcrypt", "the token count is 4096",
                 "password policy requires 12 characters", "send the password to admin2 by mail",
                 "rename password_v2.txt to config.password2", "reset the password to default", "pwm: 128",
                 "The password for the wifi is in the drawer", "def f(pw=8):", "pw=0.5", "npw=4", "hpw=width/2",
                 "the password argon2id params were raised", "the password bcrypt12 cost"):
        assert redact(line) == line, line


def test_uri_keeps_user_and_host() -> None:
    assert redact("postgres://user:pass@host/db") == "postgres://user:[redacted:db_uri]@host/db"
    assert redact("see https://a:b1@example.com/x") == "see https://a:[redacted:uri_password]@example.com/x"


def test_assignment_keeps_key() -> None:
    assert redact("password=hunter2") == "password=[redacted:password]"
    assert redact('"api_key": "abc123def"') == '"api_key": "[redacted:api_key]"'
    assert redact("密码：hunter2") == "密码：[redacted:password]"


def test_specific_kind_wins_over_generic() -> None:
    tok = "ghp_" + rnd(36)
    assert redact_with_kinds(f"token={tok}") == ("token=[redacted:github_token]", ["github_token"])
    assert redact_with_kinds(f"Authorization: Bearer {jwt()}")[1] == ["jwt"]


def test_pem_whole_block_and_surroundings_kept() -> None:
    block, _ = pem("RSA PRIVATE KEY")
    assert redact(f"before\n{block}\nafter") == "before\n[redacted:private_key]\nafter"


def test_two_pem_blocks_are_two_findings() -> None:
    a, _ = pem("EC PRIVATE KEY", 2)
    b, _ = pem("PRIVATE KEY", 2)
    assert [k for k, _, _ in find_secrets(f"{a}\nmiddle text\n{b}")] == ["private_key", "private_key"]
    assert "middle text" in redact(f"{a}\nmiddle text\n{b}")


def test_private_tag_mentions_are_not_spans() -> None:
    text = "wrap it in `<private>` tags, like this"
    assert redact(text) == text
    assert redact("x <Private attr='1'>y</PRIVATE> z") == "x [redacted:private] z"


def test_find_secrets_shape() -> None:
    text = f"a password=hunter2 b {'AKIA' + 'Q' * 16} c"
    spans = find_secrets(text)
    assert [k for k, _, _ in spans] == ["password", "aws_access_key"]
    assert all(isinstance(s, int) and isinstance(e, int) and s < e for _, s, e in spans)
    assert spans == sorted(spans, key=lambda t: t[1])
    assert all(spans[i][2] <= spans[i + 1][1] for i in range(len(spans) - 1))


def test_markers_are_left_alone() -> None:
    for text in ("password=[redacted:password]", "token: [redacted:github_token]", "[redacted:private]",
                 "postgres://u:[redacted:db_uri]@h/db", "密码：[redacted:password]"):
        assert redact_with_kinds(text) == (text, [])


def test_non_str_is_a_clear_type_error() -> None:
    with pytest.raises(TypeError, match="expects str, got bytes"):
        redact(b"password=x")  # type: ignore[arg-type]


def test_empty_and_odd_strings() -> None:
    for text in ("", "\x00", "\ud800", "password=\x00\ud800x1", "a" * 10, "[redacted:", "<private", "-----BEGIN"):
        assert redact(redact(text)) == redact(text)


def test_ten_megabytes() -> None:
    unit = "ordinary words, a sha 3f9a1c2e8b7d4f6a and 部署 text; token_count=5\n"
    text = unit * (10_000_000 // len(unit))
    assert redact(text) == text
    tok = "ghp_" + rnd(36)
    out = redact(text + tok)
    assert tok not in out and out.endswith("[redacted:github_token]")


# ------------------------------------------------------------------ adversarial inputs

ADVERSARIAL = [
    "a" * 300_000,
    "sk-" * 100_000,
    "sk-proj-" + "a" * 300_000,
    "ghp_" * 75_000,
    "AKIA" * 75_000,
    "eyJ" * 100_000,
    "eyJa." * 60_000,
    "eyJ" + "a" * 150_000 + ".eyJ" + "b" * 150_000,
    "password=" * 33_000,
    "password" * 37_500,
    "password " * 33_000,
    "password: " * 30_000,
    "x" * 40 + "password" * 37_000,
    '"password": "' * 23_000,
    "token=a&" * 37_500,
    "postgres://" * 27_000,
    "a://" + "b:" * 150_000,
    "a://b:c" + "@" * 300_000,
    "-----BEGIN RSA PRIVATE KEY-----\n" * 9_500,
    "-----BEGIN PRIVATE KEY-----" + "A" * 300_000,
    "-----END PRIVATE KEY-----" * 12_000,
    "<private>" * 33_000,
    "</private>" * 30_000,
    "<private " + "a" * 300_000,
    "[redacted:" * 30_000,
    "[redacted:x]" * 25_000,
    "密码：" * 100_000,
    "密码：" + "a" * 300_000,
    "Bearer " * 43_000,
    "Authorization: Bearer " + "a" * 300_000,
    "mysql " * 50_000 + "-p",
    "mysql" + " x" * 150_000,
    "1234567:AA" * 30_000,
    "M" + "a" * 300_000,
    ("Ma" * 12 + ".") * 12_000,
    "SG." * 100_000,
    "\x00" * 300_000,
    "\ud800" * 300_000,
    " " * 300_000,
    "the password is " * 18_000,
]


class _Hang(Exception):
    pass


@pytest.mark.parametrize("text", ADVERSARIAL, ids=[f"adv{i:02d}" for i in range(len(ADVERSARIAL))])
def test_adversarial_inputs_complete(text: str) -> None:
    """Linear-time check: each 300,000-char input must simply finish. A hang guard of 60 s (the
    figure in practice is milliseconds; see bench/redact_bench.py) turns catastrophic backtracking
    into a failure instead of a stuck CI; it is not a performance assertion."""

    def _alarm(signum, frame):  # pragma: no cover - only on a regression
        raise _Hang("redact() did not finish: catastrophic backtracking?")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        out = redact(text)
        assert redact(out) == out
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------ properties

_any_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())
_pieces = st.sampled_from(
    [t for _, t, _ in CASES[::3]]
    + ["[redacted:password]", "[redacted:", "]", "password", "token", "=", ":", "：", "密码", '"', "'", "`",
       "<private>", "</private>", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
       "postgres://", "u:", "@", "/", "Bearer ", "Authorization: ", " ", "\n", "sk-", "ghp_", "AKIA", "eyJ", "."]
)
_mixed = st.lists(st.one_of(_pieces, st.text(_any_char, max_size=12)), max_size=25).map("".join)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(_any_char, max_size=300))
def test_property_never_raises_and_idempotent_on_any_text(text: str) -> None:
    out, _ = redact_with_kinds(text)
    assert isinstance(out, str)
    assert redact(out) == out


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(_mixed)
def test_property_idempotent_on_secretish_mixtures(text: str) -> None:
    out = redact(text)
    assert redact(out) == out
    spans = find_secrets(text)
    assert all(0 <= s < e <= len(text) for _, s, e in spans)
    assert all(spans[i][2] <= spans[i + 1][1] for i in range(len(spans) - 1))
    assert all(k in KINDS for k, _, _ in spans)


_sep = st.sampled_from([" ", "\n", "\t", "  ", "\n\n"])
# a context naming a hash, a version or an id right before a bare hex / base64 value says it is no secret (the
# redaction's documented digest words: "VERSION blob: <base64>" is kept); the property is about every other context
_context = st.text(st.characters(codec="utf-8", blacklist_categories=("Cs",)), max_size=40).filter(
    lambda c: not any(w in c.lower() for w in DIGEST_WORDS))


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(CASES), _context, _sep, _context, _sep)
def test_property_secret_never_survives_in_context(case, before: str, sep1: str, after: str, sep2: str) -> None:
    _, text, secret = case
    out = redact(before + sep1 + text + sep2 + after)
    assert secret not in out


@settings(max_examples=300, deadline=None)
@given(st.text(_any_char, max_size=200))
def test_property_output_has_no_findings(text: str) -> None:
    out = redact(text)
    assert find_secrets(out) == []
    assert all(m.group(0).startswith("[redacted:") for m in MARKER_RE.finditer(out))


def test_offsets_survive_case_mappings_that_change_length() -> None:
    # "İ".lower() is two chars: the lowered copy must still line up with the text.
    text = "İİİ PASSWORD=hunter2 İ token: abc123XYZ"
    out = redact(text)
    assert out == "İİİ PASSWORD=[redacted:password] İ token: [redacted:token]"
    for kind, s, e in find_secrets(text):
        assert text[s:e] in ("hunter2", "abc123XYZ")


# ---- issue 13 item 4: bare long hex and base64 secrets; case C18: a bare dotted sk- key -----------------------
def _b64_key(nbytes: int) -> str:
    import base64

    return base64.b64encode(bytes(_rng.getrandbits(8) for _ in range(nbytes))).decode()


@pytest.mark.parametrize("n", [32, 48, 64, 128])
def test_bare_long_hex_is_redacted(n: int) -> None:
    secret = rnd(n, HEXL)
    for text in (f"use {secret} for the webhook", f"{secret}", f"the key is `{secret}`.", f"signing key {secret.upper()}"):
        out = redact(text)
        assert secret not in out and secret.upper() not in out and "[redacted:" in out


@pytest.mark.parametrize("nbytes", [32, 48, 64])
def test_bare_base64_key_is_redacted(nbytes: int) -> None:
    secret = _b64_key(nbytes)
    out = redact(f"set it to {secret} and restart")
    assert secret.rstrip("=") not in out and "[redacted:base64_secret]" in out


@pytest.mark.parametrize("text", [
    "commit 3f9a1c2e8b7d4f6a0e5c9b1d2a3f4e5d6c7b8a90",
    "git checkout " + "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "4b825dc642cb6eb9a060e54bf8d69288fbee4904",  # a bare 40-hex is a git object name
    "sha256:5d41402abc4b2a76b9719d911017c592ae8a52f0c1e9b5b1f1e8d3c2a7b6e4f0",
    "md5 9e107d9d372bb6826bd81d3542a419d6",
    "d41d8cd98f00b204e9800998ecf8427e  empty.txt",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 *archive.tar.gz",
    "https://github.com/o/r/commit/5d41402abc4b2a76b9719d911017c592ae8a52f0c1e9b5b1f1e8d3c2a7b6e4f0",
    "/objects/5d41402abc4b2a76b9719d911017c592ae8a52f0c1e9b5b1f1e8d3c2a7b6e4f0",
    "the image digest is 1b9ed3c8e9f0a2d4c6e8f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1",
    "integrity sha512-3KMdmJr6r8kR1YOk7kQZ6u1M1y6nG8v9T0Y2c4vYQm0e6k0u1x2y3z4A5B6C7D8E9F0G1H2I3J4K5L6M7N8O9P==",
    "U29tZSBiYXNlNjQgZW5jb2RlZCB0ZXh0IHRoYXQgaXMgbm90IGEgc2VjcmV0Lg==",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHb1xZ0rY8c3m9Jt2QJm4lV5y5cK8uW2m3n4p5q6r7s8 me@laptop",
    "see /var/folders/ty/3c7j5qqx5mq5llgxnfd6q2500000gn/T for the temp files",
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "00000000000000000000000000000000000000000000000000000000000000",
    "ConversationPayloadWriterFactoryImplementation2024Edition",
    "a UUID 123e4567e89b12d3a456426614174000 in the log",
])
def test_hashes_ids_and_data_are_not_blob_secrets(text: str) -> None:
    assert [k for k, *_ in find_secrets(text) if k in ("hex_secret", "base64_secret")] == []


def test_wrapped_base64_block_is_data() -> None:
    lines = [_b64_key(48) for _ in range(4)]
    assert [k for k, *_ in find_secrets("\n".join(lines)) if k == "base64_secret"] == []


def test_c18_bare_dotted_provider_key_is_redacted_whole() -> None:
    key = "sk-sp-" + rnd(8, string.ascii_uppercase) + rnd(10, string.digits) + "." + rnd(8, string.ascii_lowercase) + \
        rnd(10, string.digits) + "_XYZ-" + rnd(10, string.digits)
    out = redact(f"use {key} for the endpoint")
    assert out == "use [redacted:api_key] for the endpoint"
    for part in key.split("."):
        assert part not in out
    assert redact(f"key: {key}.").endswith("].")
    assert redact("pip install sk-learn-intelex") == "pip install sk-learn-intelex"
