"""A heredoc assigned to a variable named PW (``PW=$(cat <<EOF``, ``read -r PW <<EOF``: the forms the heredoc rule names)
gives a password, as ``PW=hunter2xyz`` does; a heredoc assigned to another short name stays."""

from __future__ import annotations

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text", [
    "PW=$(cat <<EOF\nS3cretPw1\nEOF\n)",
    "read -r PW <<EOF\nS3cretPw1\nEOF",
    "DB_PW=$(cat <<'EOF'\nS3cretPw1\nEOF\n)",
    "read -r -s ROOT_PW <<EOF\nS3cretPw1\nEOF",
])
def test_a_heredoc_given_to_pw_is_a_password(text):
    out = redact(text)
    assert "S3cretPw1" not in out and "[redacted:password]" in out


@pytest.mark.parametrize("text", [
    "PWD_LIST=$(cat <<EOF\nsrc\nEOF\n)",
    "read -r NEW_PATH <<EOF\n/usr/local/bin\nEOF",
    "read -r PW <<EOF\n$SECRET_FROM_VAULT\nEOF",
])
def test_other_heredocs_stay(text):
    assert redact(text) == text
