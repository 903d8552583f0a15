"""A key in a URL's query under the plain name ``key`` (``?key=…&token=…``, as Trello's or a maps API's URLs carry it)
and an Authorization header set in a web server's config with its value quoted after the name, no colon (nginx
``proxy_set_header Authorization "Basic …";``, Apache ``RequestHeader set Authorization "Bearer …"``): redacted. A
query's key that names an object (``?key=uploads/2024/a.png``, ``?key=user-42``) and prose stay."""

import pytest

from memdir.capture.redact import redact

K = "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm"


@pytest.mark.parametrize("text,secret", [
    (f"curl 'https://api.trello.com/1/members/me/boards?key={K}&token=abc'", K),
    (f"GET https://maps.example.com/api/geocode/json?address=x&key={K}", K),
    ("https://api.example.com/v2/items?key=3f2a9c8e1b7d4f6a0c5e2b9d8f3a7c1e", "3f2a9c8e1b7d4f6a0c5e2b9d8f3a7c1e"),
    ("https://api.example.com/v2/items?key=Xk9mQ2vLp7RtY4wZ8nB3&page=2", "Xk9mQ2vLp7RtY4wZ8nB3"),
    ('proxy_set_header Authorization "Basic dXNlcjpYazltUTJ2THA3UnRZNHdaOG5CMw==";',
     "dXNlcjpYazltUTJ2THA3UnRZNHdaOG5CMw=="),
    (f"RequestHeader set Authorization \"Bearer {K}\"", K),
    (f"add_header Authorization 'Token {K}';", K),
])
def test_a_key_in_a_query_or_a_server_config_header_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


@pytest.mark.parametrize("text", [
    "https://bucket.example.com/download?key=uploads/2024/a.png",
    "https://shop.example.com/item?key=user-42&page=2",
    "https://example.com/?key=ShoppingCartSummaryPage",
    "proxy_set_header Authorization $http_authorization;",
    'RequestHeader unset Authorization "Basic"',
    "the Authorization header carries a Basic credential",
])
def test_object_keys_and_header_prose_stay(text):
    assert redact(text) == text
