"""Siblings of cases C15, C18, C26 and C44: a secret after a Japanese or Korean label, in full-width forms, after
``blob=`` / ``base64=``, a bare key with a dot or a dash inside its tail under any prefix, a lower-case random tail,
and an ``sk-`` key with a ``:`` or ``/`` inside: redacted whole; words about secrets left alone."""

import base64
import secrets

import pytest

from memdir.capture.redact import redact

KEY = "Zx9Qw8Er7Ty6Ui5Op4"


@pytest.mark.parametrize("text,secret", [
    ("パスワード：hunter2x", "hunter2x"),
    ("パスワードは hunter2x です", "hunter2x"),
    ("DBのパスワード=hunter2x", "hunter2x"),
    ("비밀번호: hunter2x", "hunter2x"),
    ("비밀번호는 hunter2x 입니다", "hunter2x"),
    ("패스워드: hunter2x", "hunter2x"),
    ("password：hunter2x", "hunter2x"),
    ("password＝hunter2x", "hunter2x"),
    ("ｐａｓｓｗｏｒｄ＝ｈｕｎｔｅｒ２ｘ", "ｈｕｎｔｅｒ２ｘ"),
    ("ｓｋ－ｐｒｏｊ－Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
    ("ｇｈｐ＿a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    (f"use m0-{KEY}.As3Df2Gh1Jk0LzXcVbNm for x", "As3Df2Gh1Jk0LzXcVbNm"),
    (f"use m0-{KEY}_As3Df2Gh1Jk0LzXcVbNm for x", "As3Df2Gh1Jk0LzXcVbNm"),
    ("use xx-ABCDEFGH1234567890.abcdefgh1234567890_XYZ-0987654321 for the endpoint", "0987654321"),
    ("use m0-zx9qw8er7ty6ui5op4as3df2gh1jk0lzxcvbnm for x", "zx9qw8er7ty6ui5op4"),
    ("sk-sp-ABCDEFGH1234567890:abcdefgh1234567890_XYZ-0987654321", "abcdefgh1234567890"),
    ("sk-sp-ABCDEFGH1234567890/abcdefgh1234567890_XYZ-0987654321", "abcdefgh1234567890"),
    ("鍵＿ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVb12", "Zx9Qw8Er7Ty6Ui5Op4"),
    ("鍵ＡAKIAIOSFODNN7EXAMPLF", "AKIAIOSFODNN7EXAMPLF"),
    ("m0-Zx9Qw8Er7Ty.6Ui5Op4As3D.f2Gh1Jk0LzXcVb", "6Ui5Op4As3D"),
    ("myapp-Zx9Qw8Er-7Ty6Ui5Op-4As3Df2Gh1Jk0", "7Ty6Ui5Op"),
])
def test_the_secret_is_redacted_whole(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("label", ["blob=", "base64=", "b64=", "BLOB_DATA=", "--blob=", "encoded="])
def test_a_random_value_assigned_to_a_blob_name_is_redacted(label):
    for value in (base64.b64encode(secrets.token_bytes(32)).decode(), secrets.token_hex(32)):
        assert value not in redact(label + value)


@pytest.mark.parametrize("text", [
    "パスワードを忘れた", "암호화 알고리즘을 바꿨다", "토큰 만료 시간은 1시간", "暗号 AES-256-GCM",
    "see app-Ab3dEf6hIj9kLm2nOpQr.bundle.min.js", "file main-a1b2c3d4e5f6a7b8c9d0.js",
    "toolu_01ABCdefGHIjklMNOpqrSTUvwx ok", "use sk-abc: it works", "my-component_name-with-many-parts here",
    "refs/heads/feature_AbCdEfGhIjKlMnOp12-fix", "Ｈｅｌｌｏ ｗｏｒｌｄ、パスワードの長さは8文字以上",
    "入力トークン: 1500、出力トークン: 800", "토큰: 2048", "암호: AES-256-GCM", 'トークン = os.environ["GH_TOKEN"]',
    "md5sum=d41d8cd98f00b204e9800998ecf8427e", "color=d41d8cd98f00b204e9800998ecf8427e",
    "derivation hello-0c0v2x8k5yhgw4wq7xzqp1n9f3lmd6rj",
    "git push origin sk-1234-add-login-page-for-admins:sk-1234-add-login-page-for-admins",
])


def test_words_about_secrets_and_names_are_left_alone(text):
    assert redact(text) == text


def test_full_width_prose_punctuation_ends_a_value():
    assert redact("密码：hunter2，admin（测试账号）") == "密码：[redacted:password]，admin（测试账号）"


def test_find_secrets_sees_full_width_forms_as_redact_does():
    from memdir.capture.redact import find_secrets

    assert find_secrets("ｐａｓｓｗｏｒｄ＝hunter2xyz")


def test_blob_assignments_stay_linear():
    import time

    t = ";".join("x=" + "0123456789abcdef" * 2 for _ in range(4000))
    a = time.perf_counter()
    redact(t)
    small = time.perf_counter() - a
    a = time.perf_counter()
    redact(t * 4)
    assert time.perf_counter() - a < 12 * max(small, 0.005)


@pytest.mark.parametrize("text,secret", [
    ("see 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/chat", "0f1e2d3c4b5a6978"),
    ("password\u3000=\u3000hunter2abcXYZ9", "hunter2abcXYZ9"),
    ("password:\u3000hunter2abcXYZ9", "hunter2abcXYZ9"),
    ("postgres://admin:Hunter2abcXYZ＠db.example.com/app", "Hunter2abcXYZ"),
    ("sshpass -p ＂my long phrase here＂ ssh host", "my long phrase"),
    ("cookie=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY9q8z", "wJalrXUtnFEMI"),
    ("key m0-Zx9Qw8Er7Ty6Ui5Op4As-3D-f2Gh1jK0", "Zx9Qw8Er7Ty6"),
    ("key pk_Zx9Qw8Er7Ty6Ui5Op-4As3-Df2G-h1jK", "Zx9Qw8Er7Ty6"),
])
def test_what_the_first_sibling_fixes_must_still_redact(text, secret):
    # the review's regressions of the first version: a lower-case sk- key before '/', the ideographic space, a
    # full-width @ or quote, base64 after any name's '=', a long run followed by short pieces
    assert secret not in redact(text)
