"""A tool's login given its token as an argument (``cargo login``, ``wandb login``, ``ngrok config add-authtoken``) is
redacted when options or a shell comment follow the token, not only when it ends the command."""

import pytest

from memdir.capture.redact import redact

NGROK = "2AbCdEfGhIjKlMnOpQrStUvWxYz_1a2B3c4D5e6F7g8H9i"
CARGO = "cio1a2B3c4D5e6F7g8H9i0JkLmNoPqRsT"


@pytest.mark.parametrize("text,secret", [
    (f"ngrok config add-authtoken {NGROK} --config ~/ngrok.yml", NGROK),
    (f"ngrok authtoken {NGROK} --log stdout", NGROK),
    (f"cargo login {CARGO} # my token", CARGO),
    (f"cargo login {CARGO}  #my token", CARGO),
    (f"cargo login --registry my-reg {CARGO} --quiet", CARGO),
    (f"cargo login {CARGO} --registry my-reg", CARGO),
    (f"wandb login --relogin {CARGO} --host https://wandb.example.com", CARGO),
])
def test_a_login_token_followed_by_options_or_a_comment_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:token]" in out


@pytest.mark.parametrize("text", [
    "cargo login --registry my-registry --quiet",
    "cargo login my-token-here # paste yours",
    "ngrok config add-authtoken $NGROK_AUTHTOKEN --config ~/ngrok.yml",
    "wandb login --relogin --host https://wandb.example.com",
    "run cargo login with your token # see the docs",
    "ngrok config add-authtoken <token> --config ~/ngrok.yml",
])
def test_options_placeholders_and_prose_stay(text):
    assert redact(text) == text


def test_a_switch_before_the_token_is_no_option_value():
    out = redact(f"wandb login --relogin {CARGO} --host https://wandb.example.com")
    assert out == "wandb login --relogin [redacted:token] --host https://wandb.example.com"
