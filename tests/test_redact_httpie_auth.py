"""Siblings of C15 on the command line: HTTPie's and xh's ``-a`` / ``--auth`` option takes ``user:password`` (as
curl's ``-u``) or, with ``-A bearer``, a token alone; the password or the token is redacted, the user and the URL stay."""

import pytest

from memdir.capture.redact import redact

PW = "s3cr3tPa55"
TOKEN = "C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcM"


@pytest.mark.parametrize("text,secret", [
    (f"http -a bob:{PW} https://api.example.com/me", PW),
    (f"http --auth bob:{PW} GET https://api.example.com/me", PW),
    (f"http --auth=bob:{PW} GET https://api.example.com/me", PW),
    (f"https -a 'bob:{PW}' pie.dev/basic-auth/bob/x", PW),
    (f'http --form POST example.org/login -a "bob:{PW}" name=x', PW),
    (f"xh -a bob:{PW} https://x.example.com", PW),
    (f"xhs --auth bob:{PW} x.example.com", PW),
    (f"http -A bearer -a {TOKEN} https://api.example.com", TOKEN),
    (f"http --auth-type=bearer --auth {TOKEN} https://api.example.com", TOKEN),
    (f"$ http -a bob:{PW} :8080/api && echo ok", PW),
])
def test_httpie_credentials_are_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out
    assert text.split(" -")[0] in out  # the command stays


def test_the_user_stays():
    assert redact(f"http -a bob:{PW} https://api.example.com") == "http -a bob:[redacted:password] https://api.example.com"


@pytest.mark.parametrize("text", [
    "http -a bob https://api.example.com",  # httpie asks for the password
    "http -a $USER:$PASSWORD https://api.example.com",
    "http -a user:<password> https://api.example.com",
    "http -A digest https://api.example.com",
    "use http -a to pass the credentials",
    "curl http://example.com -a -o out.txt",
    "the http -a flag takes user:pass",
])
def test_httpie_without_a_secret_is_left_alone(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    "npm run http -- -a 127.0.0.1:8080", "yarn http -a 10.0.0.1:3000", "caddy run http -a localhost:2019",
    "check the http server then rsync -a deploy@web1:/srv/www ./backup", "http -a admin: localhost:8080",
    "http -a localhost:8080 :3000/health",
])
def test_an_address_or_a_user_alone_after_dash_a_is_no_password(text):
    """``-a`` is an address flag of many tools started by a script named http; HTTPie's own ``-a`` is read only where
    http is the command, and never takes a port or a user without a password."""
    assert redact(text) == text
