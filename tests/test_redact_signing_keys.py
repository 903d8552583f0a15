"""A web framework's session or cookie key, an HMAC or JWT key and Rails' SECRET_KEY_BASE set to a value shorter
than the 22 characters the generic key scan needs (``SESSION_KEY=Xk9mQ2vLp7RtY4wZ8nB3``) were kept in plain text
beside ``STRIPE_SECRET=…``, which was redacted; code reading such a key and prose about it stay."""

from __future__ import annotations

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,value", [
    ("fly secrets set SESSION_KEY=Xk9mQ2vLp7RtY4wZ8nB3", "Xk9mQ2vLp7RtY4wZ8nB3"),
    ("HMAC_KEY=Xk9mQ2vLp7RtY4wZ", "Xk9mQ2vLp7RtY4wZ"),
    ("heroku config:set SECRET_KEY_BASE=Xk9mQ2vLp7RtY4wZ8n", "Xk9mQ2vLp7RtY4wZ8n"),
    ("JWT_SECRET_KEY: 'f8Kq2LmZ9xWp4Rt7'", "f8Kq2LmZ9xWp4Rt7"),
    ("cookie_key = \"Qp7Lm2Zx9Wk4Rt8v\"", "Qp7Lm2Zx9Wk4Rt8v"),
])
def test_a_signing_key_set_to_a_short_value_is_redacted(text, value):
    out = redact(text)
    assert value not in out and "[redacted:" in out


@pytest.mark.parametrize("text", [
    "session_key = request.cookies.get('sid')",
    "the session key is stored in redis",
    "hmac_key = os.environ['HMAC_KEY']",
    "SESSION_KEY=${SESSION_KEY}",
    "jwt_key: <your-key-here>",
    "cache key: user_profile_v2",
])
def test_code_and_prose_about_a_signing_key_stay(text):
    assert redact(text) == text
