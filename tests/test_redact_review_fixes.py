"""A review of the day's redaction rules: ordinary text they took for secrets (a table's "Key Type" column, a test
object's ``pass: 'through'``, 主キー "primary key", colon-joined log lines read as ~/.pgpass) and secrets they missed
(base64 right after ``NAME=``, base64 wrapped into lines). A false positive is written to disk when a note is saved,
so each is a lost word for good."""

import base64

import pytest

from memdir.capture.redact import redact

ENV = base64.b64encode(b"NODE_ENV=production\nDB_PASSWORD=Xk9mP2qL7vR4zT8w\nPORT=8080\nAPI_KEY=sk-proj-"
                       + b"Ab3" * 20 + b"\n").decode()
DB = base64.b64encode(b"postgres://app:s3cretPassw0rd@db:5432/app").decode()


@pytest.mark.parametrize("text", [
    "| Key Type | Algorithm |\n|---|---|\n| `'RSASSA-PKCS1-v1_5'` | RSA |",
    "| Auth method | Notes |\n|---|---|\n| 'oauth2-client-credentials' | default |",
    "| Hotkey | Action |\n|---|---|\n| Ctrl+Shift+P9x | palette |",
    "{ mode: 'proxy', pass: 'through' }", "{ name: 'lint', pass: 'success' }",
    "主キー: userAccountId2024", "Primärschlüssel: userAccountId2024",
    "sess:86400:web:cart:item42", "web-1:443:nginx:worker:pid4821",
])
def test_ordinary_text_stays(text):
    assert redact(text) == text


@pytest.mark.parametrize("text, secret", [
    (f"DATABASE_URL_B64={DB}", DB), (f"export ENV_FILE_B64={ENV}", ENV), (f"helm install --set-string db.url={DB}", DB),
    ("$ base64 .env\n" + "\n".join(ENV[i:i + 76] for i in range(0, len(ENV), 76)) + "\n$ echo done", ENV[76:152]),
    ("db.example.com:5432:app:app:Xk9mP2qL7vR4", "Xk9mP2qL7vR4"), ("APIキー：sk9Xq2Lm7Rt4Vb8Nc3Zw", "sk9Xq2Lm7Rt4Vb8Nc3Zw"),
    ("| service | password |\n|---|---|\n| pg | 'Xk9mP2qL7vR4!' |", "Xk9mP2qL7vR4!"),
])
def test_the_secret_is_redacted(text, secret):
    assert secret not in redact(text)
