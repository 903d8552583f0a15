"""A common password holds a credential word and ends in digits (``mypassword123``, ``Password1``, ``mytoken2024``): it
is a password's spelling, not another credential's label, wherever a rule asks whether its value is a label (a compound
option, Redis's AUTH, a fish ``set``, a password named right before it). Real labels stay labels: an environment
variable's name with a numbered suffix (``DB_PASSWORD_2``), camel case with a digit inside (``oauth2Token``), a name
ending in ``:`` (``passwd:``), a name without digits (``refreshToken``)."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("--admin-password mypassword123", "mypassword123"),
    ("--admin-password Password1", "Password1"),
    ("az vm create -n vm1 --admin-password Secret2024", "Secret2024"),
    ("--client-secret mysecret20240101", "mysecret20240101"),
    ("redis-cli -h host AUTH mypassword123", "mypassword123"),
    ("127.0.0.1:6379> AUTH mytoken2024", "mytoken2024"),
    ("set -gx DB_PASSWORD mypassword123", "mypassword123"),
    ("login with password mypassword123 today", "mypassword123"),
])
def test_a_password_ending_in_digits_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


@pytest.mark.parametrize("text", [
    "--admin-password DB_PASSWORD_2",
    "--admin-password oauth2Token",
    "--admin-password refreshToken",
    "password: passwd: ",
    "token: refreshToken",
    "rename the column password to password_v2 later",
    "the Password1 field of the form",
])
def test_labels_and_ordinary_text_stay(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    "renamed password -> passwordHash2",
    "--admin-password passwordHash2",
    "--admin-password password_v2",
])
def test_a_name_numbered_after_another_word_stays_a_label(text):
    assert redact(text) == text
