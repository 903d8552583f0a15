"""Siblings of C15 and C44 URL-encoded whole (a logged request's query or form body that carries JSON or a config
line: ``data=%7B%22password%22%3A%22x%22%7D``): the quotes, spaces and brackets around a secret are escapes too, and
the secret is redacted as in the decoded text; encoded text without one is left alone."""

from urllib.parse import quote

import pytest

from memdir.capture.redact import find_secrets, redact

PW = "s3cr3tPa55"
TOKEN = "C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcM"


@pytest.mark.parametrize("plain,secret", [
    ('{"password": "' + PW + '"}', PW),
    ('{"client_secret":"' + TOKEN + '"}', TOKEN),
    ('db_password = "' + PW + '"', PW),
    ("Authorization: Basic Ym9iOnMzY3IzdFBhNTU=", "Ym9iOnMzY3IzdFBhNTU"),
    ("{'api_key': '" + TOKEN + "'}", TOKEN),
])
def test_a_secret_in_url_encoded_structure_is_redacted(plain, secret):
    assert find_secrets(plain)
    text = "https://example.com/hook?data=" + quote(plain, safe="") + "&v=2"
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out
    assert out.startswith("https://example.com/hook?data=") and out.endswith("&v=2")


@pytest.mark.parametrize("text", [
    "https://www.google.com/search?q=how%20to%20reset%20a%20password%20in%20postgres",
    "https://example.com/?q=%7B%22user%22%3A%22bob%22%7D",
    "https://example.com/?filter=%5B%22token%22%2C%22count%22%5D",
    "file%20name%20with%20spaces.txt",
])
def test_url_encoded_text_without_a_secret_is_left_alone(text):
    assert redact(text) == text
