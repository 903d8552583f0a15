"""A credential option's quoted value is redacted whole, to its closing quote, spaces and all (an app password
``"abcd efgh ijkl mnop"``, a passphrase ``'my secret phrase'``): before, only its first word was, and the rest of the
password stayed in the memory. Placeholders, shell expansions and a sentence in quotes after a token's option stay."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ('--app-password "abcd efgh ijkl mnop"', "efgh ijkl mnop"),
    ("--db-password 'my secret phrase'", "secret phrase"),
    ('--client-secret "Xk9mQ2vLp7 RtY4wZ8nB3"', "RtY4wZ8nB3"),
    ("gcloud sql users set-password root --instance=db --admin-password 'two words here' --quiet", "words here"),
    ("--password 'my secret phrase'", "secret phrase"),
    ('mycli --password "correct horse battery" --host db', "horse battery"),
    ('--pass "my long pass phrase"', "long pass phrase"),
    ('--token "Xk9mQ2vLp7 RtY4wZ8nB3"', "RtY4wZ8nB3"),
    ('--api-key "Xk9mQ2vLp7 RtY4wZ8nB3"', "RtY4wZ8nB3"),
])
def test_the_whole_quoted_value_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


@pytest.mark.parametrize("text", [
    '--admin-password "<your password>"',
    '--password "${DB_PASSWORD}"',
    "--db-password '$(cat ~/.pw)'",
    '--client-secret "see the vault"',
    '--bot-token "the one from the dashboard"',
    "--password ''",
    "--password '$(cat ~/.pw)'",
    'pass --admin-password "" to leave it unset',
])
def test_placeholders_and_sentences_stay(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    '--token "see the docs"',
    '--secret "the one in the vault"',
    '--api-key "ask the admin"',
])
def test_a_sentence_in_quotes_after_a_token_option_stays(text):
    assert redact(text) == text


@pytest.mark.parametrize("text,secret", [
    ('docker login -u me -p "my secret phrase" registry.io', "my secret phrase"),
    ("podman login -u me -p 'Xk9mQ2vLp7' quay.io", "Xk9mQ2vLp7"),
])
def test_a_registry_login_quoted_password_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:password]" in out


def test_a_registry_login_password_from_the_shell_stays():
    text = 'docker login -u me -p "$(cat ~/.pw)" registry.io'
    assert redact(text) == text


def test_a_passphrase_after_a_secret_option_is_redacted_and_a_sentence_stays():
    out = redact('deploy --secret "correct horse battery staple"')
    assert "horse" not in out and "[redacted:" in out
    for text in ('deploy --token "see the docs"', 'app --secret "ask the team lead"'):
        assert redact(text) == text
