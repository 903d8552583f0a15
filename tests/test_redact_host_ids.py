"""The ids a host writes for its own sessions, messages and parts are no secrets: OpenCode's ``ses_``/``msg_``/``prt_``
(and its other prefixes: a short lower-case prefix, ``_``, 12 hex digits of time and 14 base62 characters), Codex's
and Claude Code's UUIDs. They pass redaction in any context (a prompt, an event key, a command line, JSON), so a user
can still find and open the session a memory names. Real keys of a similar shape (Stripe, Slack, GitHub, any
provider's ``<prefix>_<long random>``, a key glued to or right after such an id) stay redacted."""

import pytest

from memdir.capture.redact import find_secrets, redact

# the shapes OpenCode 1.18 writes (tests/fixtures/importers/opencode_1_18.sql and the hook fixtures)
OPENCODE_IDS = [
    "ses_4f2a9c1b7e3dFfq1XyZ8aBcDeF",
    "ses_52b1f0a6dffeUaXe6n2Y8ZQhb2",
    "ses_dd2c0f1a6ffeGOoHB7LxUajm4v",
    "ses_5c2f1a9e8ffeQk3Lr7Tn2Wb4Yd",
    "msg_22d3f1011001eFUiImo3xykeg0",
    "prt_22d3f1109001Z1USKl5pKN0jAC",
    "prt_22d3f3f54001xmtmm3Fq2Z4hOo",
    "per_52b1f0a6dffeUaXe6n2Y8ZQhb2",
    "usr_52b1f0a6dffeUaXe6n2Y8ZQhb2",
    "pty_52b1f0a6dffeUaXe6n2Y8ZQhb2",
    "dbg_52b1f0a6dffeUaXe6n2Y8ZQhb2",
    "wrk_52b1f0a6dffeUaXe6n2Y8ZQhb2",
    "evt_52b1f0a6dffeUaXe6n2Y8ZQhb2",
]
UUIDS = ["019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "258c7280-ae70-4798-800f-63464d01a85d"]

CONTEXTS = [
    "session {} opened",
    "u:{}:3",
    "a:{}:12",
    '{{"sessionID":"{}","type":"text"}}',
    "opencode run --session {} 'go on'",
    "opencode export {}",
    "see ({}) for the fix",
    "{}",
    "resume {}, then check prt_22d3f41fc001T9Nd6BLcOzyad2",
]


@pytest.mark.parametrize("ident", OPENCODE_IDS + UUIDS)
@pytest.mark.parametrize("ctx", CONTEXTS)
def test_a_host_id_passes(ident, ctx):
    text = ctx.format(ident)
    assert redact(text) == text
    assert find_secrets(text) == []


def test_the_reported_strings():
    assert redact("session ses_4f2a9c1b7e3dFfq1XyZ8aBcDeF opened") == "session ses_4f2a9c1b7e3dFfq1XyZ8aBcDeF opened"
    assert redact("u:ses_52b1f0a6dffeUaXe6n2Y8ZQhb2:3") == "u:ses_52b1f0a6dffeUaXe6n2Y8ZQhb2:3"


STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc9Qw8Er7Ty6Ui"
STRIPE_RK = "rk_live_" + "51H8zXq2eZvKYlo2C0ab12Cd34Ef56Gh78Ij"
GITHUB = "ghp_" + "Zx9Qw8Lm22xR8sQ1w2e3r4T5y6U7i8O9p0Aa"
SLACK = "xoxb-" + "1234567890-1234567890123-Zx9Qw8Lm22xR8sQ1w2e3r4T5"
# a provider key whose tail is 26 random base62 characters, like an OpenCode id's length but not its shape
PROVIDER26 = "abc_" + "Zx9Qw8Lm22xR8sQ1w2e3r4T5y6"
# a provider's key that begins with 12 hex digits but runs on past an OpenCode id's 26 characters
LONGER = "ses_52b1f0a6dffeUaXe6n2Y8ZQhb2" + "Zx9Qw8Lm22xR8sQ"


@pytest.mark.parametrize("text,secret", [
    (f"key {STRIPE} here", STRIPE[8:]),
    (f"key {STRIPE_RK} here", STRIPE_RK[8:]),
    (f"token {GITHUB}", GITHUB[4:]),
    (f"SLACK {SLACK}", SLACK[5:]),
    (f"use {PROVIDER26} now", PROVIDER26[4:]),
    (f"use {LONGER} now", LONGER[4:]),
    # a real key right after an id: glued with _ or -, after a colon, after a space
    (f"ses_52b1f0a6dffeUaXe6n2Y8ZQhb2_{STRIPE}", STRIPE[8:]),
    (f"ses_52b1f0a6dffeUaXe6n2Y8ZQhb2-{GITHUB}", GITHUB[4:]),
    (f"u:ses_52b1f0a6dffeUaXe6n2Y8ZQhb2:{STRIPE}", STRIPE[8:]),
    (f"ses_52b1f0a6dffeUaXe6n2Y8ZQhb2 {PROVIDER26}", PROVIDER26[4:]),
    (f"ses_52b1f0a6dffeUaXe6n2Y8ZQhb2_Zx9Qw8Lm22xR8sQ1w2e3r4T5y6U7", "Zx9Qw8Lm22xR8sQ1w2e3r4T5y6U7"),
    # a labelled credential keeps its label's verdict even in an id's shape
    ("password=ses_52b1f0a6dffeUaXe6n2Y8ZQhb2", "52b1f0a6dffeUaXe6n2Y8ZQhb2"),
])
def test_real_keys_of_a_similar_shape_stay_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


def test_the_id_next_to_a_key_survives():
    out = redact(f"session ses_52b1f0a6dffeUaXe6n2Y8ZQhb2 used {STRIPE}")
    assert "ses_52b1f0a6dffeUaXe6n2Y8ZQhb2" in out and STRIPE[8:] not in out


@pytest.mark.parametrize("fixture", ["hooks/opencode_context.json", "hooks/opencode_tool.json",
                                     "importers/opencode_1_18.sql", "importers/codex_0_171.jsonl",
                                     "importers/claude_2_1_197.jsonl"])
def test_the_hosts_own_fixtures_have_no_findings(fixture):
    from pathlib import Path

    text = (Path(__file__).parent / "fixtures" / fixture).read_text(encoding="utf-8")
    assert [text[s:e] for _, s, e in find_secrets(text)] == []
