"""Siblings of C15 and C44 inside JSON-escaped text: a tool's output that carries JSON as a string (``{\\"password\\":
\\"x\\"}``), escaped twice, or written with ``\\uXXXX`` escapes for every non-ASCII character (Python's
``json.dumps`` default) holds its secrets as the unescaped text does: they are redacted all the same, the key names stay."""

import json

import pytest

from memdir.capture.redact import find_secrets, redact

PW = "s3cr3tPa55"
TOKEN = "C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcM"
DOCKER_AUTH = "Ym9iOlRyMHViNGRvciYzeA=="  # base64 of "bob:Tr0ub4dor&3x"


def escaped(text: str, times: int = 1) -> str:
    for _ in range(times):
        text = json.dumps(text)[1:-1]
    return text


@pytest.mark.parametrize("plain,secret", [
    ('{"password": "' + PW + '"}', PW),
    ('{"password":"' + PW + '"}', PW),
    ('{"token": "' + TOKEN + '"}', TOKEN),
    ('{"apiKey":"' + TOKEN + '"}', TOKEN),
    ('"client_secret": "' + TOKEN + '"', TOKEN),
    ('"env": {"DB_PASSWORD": "' + PW + '"}', PW),
    ('{"http-basic": {"repo.example.org": {"username": "bob", "password": "' + PW + '"}}}', PW),
    ('{"auths":{"https://index.docker.io/v1/":{"auth":"' + DOCKER_AUTH + '"}}}', DOCKER_AUTH),
    ('<add key="ClearTextPassword" value="' + PW + '" />', PW),
    ("{'password': '" + PW + "'}", PW),
])
@pytest.mark.parametrize("times", [1, 2])
def test_a_secret_in_json_escaped_text_is_redacted(plain, secret, times):
    assert secret in plain and find_secrets(plain), plain  # found unescaped
    text = escaped(plain, times)
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("plain,secret", [
    ("数据库密码是 " + PW, PW),
    ("密码: " + PW, PW),
    ("API密钥：" + TOKEN, TOKEN),
    ("パスワードは" + PW + "です", PW),
    ("アクセストークン：" + TOKEN, TOKEN),
    ("비밀번호: " + PW, PW),
    ("用户名 bob 密码 " + PW, PW),
])
def test_a_secret_after_a_unicode_escaped_label_is_redacted(plain, secret):
    assert find_secrets(plain), plain
    text = json.dumps(plain)[1:-1]  # ensure_ascii: \uXXXX for every CJK character
    assert "\\u" in text
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


def test_the_key_names_and_the_escapes_around_the_value_stay():
    out = redact('{\\"user\\": \\"bob\\", \\"password\\": \\"' + PW + '\\"}')
    assert out.startswith('{\\"user\\": \\"bob\\", \\"password\\": \\"[redacted:')
    assert out.endswith('\\"}')
    out = redact("\\u5bc6\\u7801: " + PW + " \\u8c22\\u8c22")
    assert out.startswith("\\u5bc6\\u7801: [redacted:") and out.endswith(" \\u8c22\\u8c22"), out


@pytest.mark.parametrize("text", [
    '{\\"password\\": \\"\\"}',
    '{\\"password\\": \\"<your password>\\"}',
    '{\\"token_count\\": 1234, \\"prompt_tokens\\": 88}',
    '{\\"password\\": null, \\"user\\": \\"bob\\"}',
    "\\u5bc6\\u7801\\u9519\\u8bef\\uff0c\\u8bf7\\u91cd\\u8bd5",  # 密码错误，请重试 ("wrong password, try again")
    'print(\\"hello world\\")',
    '{\\"message\\": \\"the password was reset\\"}',
])
def test_escaped_text_without_a_secret_is_left_alone(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    "use m0-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm\\nthen restart",
    "[\\\"m0-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm\\\", \\\"b\\\"]",
    "key:\\tm0-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm\\r\\n",
])
def test_a_bare_prefixed_key_before_an_escape_is_redacted(text):
    out = redact(text)
    assert "Zx9Qw8Er7Ty6Ui5Op4" not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    'print("processing the items\\n")\nlog.write("done\\t" + name + "\\r\\n")\n' * 50,
    "C:\\new\\table\\readme.txt",
])
def test_a_newline_escape_after_a_word_does_not_cost_a_second_look(text, monkeypatch):
    """Source code's string literals hold ``\\n`` after words everywhere: only an escape after a key's run of
    characters (or an escaped quote, a ``\\uXXXX``) makes the whole text worth scanning again (the second look
    doubled redact()'s time on a source file)."""
    import memdir.capture.redact as r

    calls = []
    real = r._unhidden_spans
    monkeypatch.setattr(r, "_unhidden_spans", lambda t: calls.append(t) or real(t))
    assert redact(text) == text
    assert calls == []
