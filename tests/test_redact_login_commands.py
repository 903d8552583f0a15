"""A token or password handed to a tool's login or auth command, on its command line or on stdin: ``cargo login
TOKEN``, ``wandb login KEY``, ``ngrok config add-authtoken TOKEN``, ``echo TOKEN | gh auth login --with-token``,
``glab auth login --stdin <<< TOKEN``, Redis's ``AUTH [user] PASSWORD`` (redis-cli, its prompt, a script line),
``requirepass`` / ``masterauth`` in redis.conf or ``CONFIG SET``: redacted. The same commands without a value, and prose
about them, stay as written."""

import pytest

from memdir.capture.redact import redact

T = "cioZx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0"


@pytest.mark.parametrize("text,secret", [
    (f"cargo login {T}", T),
    (f"cargo login --registry my-reg {T}", T),
    ("wandb login 3f2a9c8e1b7d4f6a0c5e2b9d8f3a7c1e4b6d9f02", "3f2a9c8e1b7d4f6a0c5e2b9d8f3a7c1e4b6d9f02"),
    (f"wandb login --relogin {T}", T),
    (f"ngrok config add-authtoken {T}", T),
    (f"ngrok authtoken {T}", T),
    (f"echo {T} | gh auth login --with-token", T),
    (f"gh auth login --hostname ghe.io --with-token <<< {T}", T),
    (f"echo '{T}' | glab auth login --stdin", T),
    (f"printf %s {T} | cargo login", T),
    (f"echo {T} | az devops login --organization https://dev.azure.com/x", T),
    ("redis-cli -h cache.local AUTH default Tr0ub4dor3x", "Tr0ub4dor3x"),
    ("127.0.0.1:6379> AUTH Tr0ub4dor3x\nOK", "Tr0ub4dor3x"),
    ("127.0.0.1:6379> auth admin Tr0ub4dor3x", "Tr0ub4dor3x"),
    ("MULTI\nAUTH s3cr3tRedisPw\nPING", "s3cr3tRedisPw"),
    ("bind 0.0.0.0\nrequirepass Tr0ub4dor3x\nport 6379", "Tr0ub4dor3x"),
    ("masterauth \"Tr0ub4dor3x\"", "Tr0ub4dor3x"),
    ("redis-cli CONFIG SET requirepass Tr0ub4dor3x", "Tr0ub4dor3x"),
    ("redis-server --requirepass Tr0ub4dor3x --port 6380", "Tr0ub4dor3x"),
])
def test_a_credential_given_to_a_login_command_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


@pytest.mark.parametrize("text", [
    "cargo login",
    "run cargo login first, then cargo publish",
    "wandb login --relogin",
    "ngrok config add-authtoken $NGROK_AUTHTOKEN",
    "gh auth login --with-token < token.txt",
    "echo hello | gh auth status",
    "AUTH failed: invalid username-password pair",
    "the AUTH command takes a password",
    "auth required for this endpoint",
    "# requirepass foobared is commented out",
    "set requirepass in redis.conf",
    "requirepass <your-password>",
    "masterauth $REDIS_PASSWORD",
])
def test_login_commands_without_a_value_stay(text):
    assert redact(text) == text
