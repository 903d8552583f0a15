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
    ("암호: hunter2x", "hunter2x"),
    ("トークン: Qm7Rt2Xw9Lp4Zk8Vn3Bc6", "Qm7Rt2Xw9Lp4Zk8Vn3Bc6"),
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
])
def test_words_about_secrets_and_names_are_left_alone(text):
    assert redact(text) == text
