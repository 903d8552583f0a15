"""Words that are a password's name only in some uses: Greek κωδικός alone means "code" (κωδικός πρόσβασης is the
password), Indonesian Sandi is a given name (kata sandi is the password), Italian parola is "word" (a version, an
architecture or a runtime's name after it is no password); a client's ``.login(a, "b")`` call whose second argument is
words (``i18n.login("title", "Sign in")``) is no login."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text", [
    "κωδικός: 0x80070005", "Κωδικός: ERR-4042", "κωδικός: python3",
    "Sandi: JIRA-1234",
    "parola: x86_64", "parola: node18", "parola: sha256", "parola: ubuntu22.04",
    'i18n.login("title", "Sign in")', "t.login('button', 'Log in now')",
])
def test_ordinary_text_stays(text):
    assert redact(text) == text


@pytest.mark.parametrize("text,secret", [
    ("κωδικός πρόσβασης: Xk9mQ2vL7", "Xk9mQ2vL7"),
    ("kata sandi: Xk9mQ2vL7", "Xk9mQ2vL7"),
    ("parola: Xk9mQ2vL7!", "Xk9mQ2vL7!"),
    ("parola d'ordine: Xk9mQ2vL7", "Xk9mQ2vL7"),
    ("Sandi: admin123", "admin123"), ("Sandi: rahasia2024", "rahasia2024"), ("parola: ciao2024", "ciao2024"),
    ("κωδικός: qwerty123", "qwerty123"),
    ("imap.login(cfg['user'], 'abcd efgh ijkl mnop')", "abcd efgh ijkl mnop"),
    ("smtp.login('me', 'Xk9m Q2vL 7!')", "Xk9m Q2vL 7!"),
])
def test_the_password_is_still_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
