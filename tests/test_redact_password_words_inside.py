"""A password that holds a credential's word among its letters and digits (``Tig3rPass99``, ``Adm1nToken77``,
``Secret123abc``) is a password, not another label: redacted glued between CJK words (``密码Tig3rPass99登录``), after
``password`` and a space, after 암호 (Korean "password", which also means "cipher": a value that mixes letters with
digits, never an algorithm's name), 秘密 ("secret") and the Italian / Turkish ``parola``, Greek ``κωδικός``, Indonesian
``sandi``, with a copula (``la parola è …``, ``Mật khẩu là …``). Labels and names stay: ``passwordHash2``,
``k8s_token:``, ``암호: AES-256-GCM``, ``암호화 알고리즘``, ``la parola è ciao``."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("密码Tig3rPass99登录", "Tig3rPass99"),
    ("密碼Tig3rPass99登入", "Tig3rPass99"),
    ("密码 Tig3rPass99 登录", "Tig3rPass99"),
    ("密码Secret123abc登录", "Secret123abc"),
    ("密码Adm1nToken77登录", "Adm1nToken77"),
    ("口令Tig3rKey99登录", "Tig3rKey99"),
    ("パスワードTig3rPass99を入力", "Tig3rPass99"),
    ("비밀번호Tig3rPass99로 로그인", "Tig3rPass99"),
    ("Tig3rPass99是我的密码", "Tig3rPass99"),
    ("login with password Tig3rPass99", "Tig3rPass99"),
    ("암호는 Tig3rPass99 입니다", "Tig3rPass99"),
    ("DB 암호: Xk9mQ2vLp7RtY4wZ8nB3", "Xk9mQ2vLp7RtY4wZ8nB3"),
    ("관리자 암호 Tig3rPass99", "Tig3rPass99"),
    ("秘密: Xk9mQ2vLp7RtY4wZ8nB3", "Xk9mQ2vLp7RtY4wZ8nB3"),
    ("parola: Tig3rPass99", "Tig3rPass99"),
    ("la parola è Tig3rPass99", "Tig3rPass99"),
    ("κωδικός: Tig3rPass99", "Tig3rPass99"),
    ("συνθηματικό: Tig3rPass99", "Tig3rPass99"),
    ("Mật khẩu là Tig3rPass99", "Tig3rPass99"),
    ("sandi: Tig3rPass99", "Tig3rPass99"),
])
def test_a_password_holding_a_credential_word_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


@pytest.mark.parametrize("text", [
    "密码passwordHash2字段",
    "密码policyV2上线",
    "password: k8s_token: see below",
    "password reset flow",
    "암호: AES-256-GCM",
    "암호화 알고리즘을 바꿨다",
    "암호 알고리즘은 RSA-4096",
    "la parola è ciao",
    "parola chiave: sicurezza",
    "秘密: 不要告诉别人",
    "κωδικός: 404",
    "the key is in the cache",
    "token count: 2048",
])
def test_names_and_prose_stay(text):
    assert redact(text) == text
