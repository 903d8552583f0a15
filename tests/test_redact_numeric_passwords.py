"""Sibling of C15: a password of digits alone after a password's own name (``password: 84736291``, "the password is
84736291") was kept, where ``password=84736291`` and ``密码：84736291`` were redacted: the rule for a value after ``:``
or "is" wanted letters in it. A count, a length, a date or a time after the name stays."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text, secret", [
    ("password: 84736291", "84736291"),
    ("db password: 19870412", "19870412"),
    ("Password:   8473629123 (rotate monthly)", "8473629123"),
    ("the password is 84736291", "84736291"),
    ("the admin password was 123456789.", "123456789"),
    ("password: 12345678!", "12345678!"),
])
def test_a_password_of_digits_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:password]" in out


@pytest.mark.parametrize("text", [
    "password: 8", "password: 12", "Password: 2024", "password: 8-16 characters", "password length: 12",
    "password: 2024-01-05", "password: 10:30:00", "password must be 123456 or longer", "PASSWORD: 3.14159",
    "password: +86-13800138000 is the support line",
])
def test_a_count_a_length_a_date_after_the_name_stays(text):
    assert redact(text) == text
