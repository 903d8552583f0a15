"""A key or a password glued to a CJK label with no separator (Chinese and Japanese write no space between words:
``用这个密钥Zx9Q…调用``, ``令牌Zx9Q…已过期``, ``密码Hunter2xyz!登录``, ``パスワードhunter2xyzを入力``), one written before
the label that names it (``Zx9Q…是令牌``, ``「Zx9Q…」是我的 API key``, ``hunter2xyz是我的密码``, ``Zx9Q… is my API key.``),
and one after an arrow (``TOKEN ⇒ Zx9Q…``): redacted. Ordinary text gluing ASCII words, paths, versions, commit ids and
identifiers to Han characters is left alone."""

import pytest

from memdir.capture.redact import redact

KEY = "Zx9Qw8Lm22xR8sQ1w2e3r4"


@pytest.mark.parametrize("text,secret", [
    (f"用这个密钥{KEY}调用", KEY),
    (f"令牌{KEY}已过期", KEY),
    ("密码Hunter2xyz!登录", "Hunter2xyz!"),
    ("口令hunter2xyz不要外传", "hunter2xyz"),
    (f"私鑰{KEY}請保管", KEY),
    ("パスワードhunter2xyzを入力", "hunter2xyz"),
    ("비밀번호Hunter2xyz!로 로그인", "Hunter2xyz!"),
    (f"{KEY}是令牌", KEY),
    (f"「{KEY}」是我的 API key", KEY),
    (f"“{KEY}”是新的密钥", KEY),
    ("hunter2xyz是我的密码", "hunter2xyz"),
    (f"{KEY}は秘密鍵です", KEY),
    (f"{KEY} is my API key.", KEY),
    ("Hunter2xyz! is the password", "Hunter2xyz!"),
    (f"TOKEN ⇒ {KEY}", KEY),
    (f"api key ➜ {KEY}", KEY),
    (f"token ==> {KEY}", KEY),
])
def test_a_glued_or_preceding_secret_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


def test_the_label_and_the_words_around_stay():
    assert redact(f"用这个密钥{KEY}调用") == "用这个密钥[redacted:secret]调用"
    assert redact(f"{KEY}是令牌") == "[redacted:token]是令牌"
    assert redact(f"「{KEY}」是我的 API key") == "「[redacted:api_key]」是我的 API key"


@pytest.mark.parametrize("text", [
    "用pytest跑测试",
    "在src/memdir/core.py里",
    "版本v2.3.1发布",
    "提交4bb043f修复了",
    "函数parseConfigFile返回",
    "密钥ID是多少",
    "密码md5加密",
    "私钥id_ed25519放在这里",
    "令牌bucket算法",
    "密钥AES256",
    "密钥长度2048位",
    "密码reset2页面",
    "OAuth2是令牌协议",
    "SHA256是密码哈希",
    "parseConfigFile是令牌解析函数",
    "用户名admin123密码",
    "Python3 is a password manager",
    "bcrypt is the password hashing function we use",
    "TokenRefresher is the token class",
    "token ⇒ refresh flow",
    "token ==> refresh",
    "password ⇒ see vault",
    # a word with a version after it, glued (a review found these redacted)
    "密码Reset2流程优化",
    "密码policyV2上线",
    "パスワードhashV2を追加",
])
def test_ordinary_text_stays(text):
    assert redact(text) == text
