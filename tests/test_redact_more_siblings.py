"""More siblings of cases C15, C18, C26 and C44: secrets in forms a coding session really holds (a token as a URL's
user, …) are redacted; the ordinary text around them is left alone."""

import pytest

from memdir.capture.redact import redact

KEY = "Xk9mQ2vR7tLp4wZs8Nb3Yc6Hd1Fj5Ga0"
HEX = "9f86d081884c7d659a2feaa0c55ad015"


@pytest.mark.parametrize("text,secret", [
    (f"git remote set-url origin https://{KEY}@github.com/org/repo.git", KEY),
    (f"git clone https://{KEY}:x-oauth-basic@github.com/org/repo", KEY),
    (f"SENTRY_DSN=https://{HEX}@o123456.ingest.sentry.io/4504", HEX),
    (f'"dsn": "https://{HEX}@o1.ingest.us.sentry.io/2"', HEX),
    (f"pip install --index-url https://{KEY.lower()}wxyz@pkgs.example.com/simple/ app", KEY.lower()),
])
def test_a_token_given_as_a_urls_user_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "git clone https://git@github.com/org/repo.git", "ssh://git@gitlab.example.com:2222/group/project.git",
    "https://bob.smith@example.com/login", "see https://user@host/path and mailto:someone@example.com",
    "https://registry.npmjs.org/@scope/package-name@1.2.3",
])
def test_a_urls_ordinary_user_is_kept(text):
    assert redact(text) == text
