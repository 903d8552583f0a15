"""Siblings of C15 in code and tool files: basic-auth credentials passed to an HTTP client (requests' ``auth=('u',
'X')``, ``HTTPBasicAuth``, aiohttp's ``BasicAuth``), a JavaScript object's ``pass:`` field, a basic-auth header
built by joining strings, ``net use … /user:NAME X`` and a PuTTY ``.ppk`` key's private lines were kept as written."""

import pytest

from memdir.capture.redact import redact

PW = "Sommer2024!Pw"


@pytest.mark.parametrize("text, secret", [
    (f"requests.get(url, auth=('admin', '{PW}'))", PW),
    (f'session.auth = ("deploy", "{PW}")', PW),
    (f"HTTPBasicAuth('admin', '{PW}')", PW),
    (f"httpx.DigestAuth('admin', '{PW}')", PW),
    (f"aiohttp.BasicAuth(login='admin', password='{PW}')", PW),
    (f"nodemailer.createTransport({{ auth: {{ user: 'a@b.c', pass: '{PW}' }} }})", PW),
    ("headers = {'Authorization': 'Basic ' + 'dXNlcjpUcjB1YjRkb3ImM3g='}", "dXNlcjpUcjB1YjRkb3ImM3g="),
    (f"net use Z: \\\\fileserver\\share /user:CORP\\bob {PW} /persistent:no", PW),
    ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 1\n"
     "AAAAC3NzaC1lZDI1NTE5AAAAIBxq\nPrivate-Lines: 1\nAAAAIGxXk9mQ2vR7tLp4wZs8Nb3Yc6Hd1Fj5Ga0\nPrivate-MAC: 8e0a9b7c6d5e4f3a",
     "AAAAIGxXk9mQ2vR7tLp4wZs8Nb3Yc6Hd1Fj5Ga0"),
])
def test_the_credential_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out


@pytest.mark.parametrize("text", [
    "auth=('user', 'password')", "auth=(user, pw)", "auth=('user', os.environ['PW'])", "PASS: test_login",
    "expect(result).toEqual({ pass: true })", "{ name: 'x', pass: '${PASS}' }", "{ pass: 'ok', fail: 'no' }",
    "'Basic ' + btoa(user + ':' + pw)", "net use Z: \\\\srv\\share /user:bob *",
    "net use Z: \\\\srv\\share /user:bob /persistent:no", "assert r.auth == ('user', 'secret')",
    "Public-Lines: 2 (the public half is fine to share)",
])
def test_code_that_names_no_credential_stays(text):
    assert redact(text) == text
