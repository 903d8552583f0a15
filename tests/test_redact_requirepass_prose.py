"""Redis's ``requirepass`` / ``masterauth``: the password on a config line (``requirepass foobared``, commented out
too), after ``CONFIG SET`` or ``--requirepass`` is redacted whatever it is; in a sentence only a secret-looking value
is (``the requirepass directive`` is prose)."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text", [
    "the requirepass directive",
    "Configure masterauth correctly\nthen restart",
    "`requirepass` and `masterauth` are both needed; see requirepass docs",
    "set the masterauth option on replicas",
    "Redis reads requirepass settings from redis.conf",
    "I checked requirepass again",
])
def test_prose_about_the_setting_stays(text):
    assert redact(text) == text


@pytest.mark.parametrize("text,secret", [
    ("requirepass foobared", "foobared"),
    ("  # requirepass foobared", "foobared"),
    ("port 6379\nmasterauth sunshine\n", "sunshine"),
    ("redis-cli CONFIG SET requirepass sunshine", "sunshine"),
    ("127.0.0.1:6379> config set masterauth sunshine", "sunshine"),
    ("redis-server --requirepass sunshine --port 6380", "sunshine"),
    ("on prod we set requirepass Tr0ub4dor3x", "Tr0ub4dor3x"),
])
def test_the_password_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:password]" in out


@pytest.mark.parametrize("line", ["     1→requirepass mypassword", "   12\trequirepass mypassword",
                                  "+requirepass mypassword", "redis.conf:requirepass mypassword",
                                  "1 masterauth mypassword"])
def test_a_config_line_as_a_tool_shows_it_is_the_setting(line):
    out = redact(line)
    assert "mypassword" not in out and "[redacted:" in out
