"""Siblings of case C15's ``password=hunter2`` in other shells and files: a credential variable given its value after
white space (fish's ``set -gx``, csh's ``setenv``, Windows' ``setx``, ``launchctl setenv``, a Dockerfile's ``ENV``) and
``gh secret set NAME --body VALUE``: redacted; other variables, expansions, paths and prose are left alone."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("set -gx DB_PASSWORD hunter2xyz", "hunter2xyz"),
    ("set -Ux OPENAI_API_KEY Zk39vQp7Lm22xR8sQ1w2e3r4", "Zk39vQp7Lm22xR8sQ1w2e3r4"),
    ("set --export --global GITHUB_TOKEN Zk39vQp7Lm22xR8sQ1w2e3r4", "Zk39vQp7Lm22xR8sQ1w2e3r4"),
    ("set -gx DB_PASS 'my pass phrase'", "my pass phrase"),
    ("set DB_PASSWORD hunter2xyz", "hunter2xyz"),
    ("setenv DB_PASSWORD hunter2xyz", "hunter2xyz"),
    ("setenv MYSQL_PWD s3cr3t!", "s3cr3t"),
    ("setx DB_PASSWORD hunter2xyz", "hunter2xyz"),
    ("setx /M DB_PASSWORD hunter2xyz", "hunter2xyz"),
    ('setx DB_PASSWORD "hunter2 xyz"', "hunter2 xyz"),
    ("windows: setx API_SECRET Zk39vQp7Lm22xR8s", "Zk39vQp7Lm22xR8s"),
    ("launchctl setenv DB_PASSWORD hunter2xyz", "hunter2xyz"),
    ("FROM python:3.12\nENV DB_PASSWORD hunter2xyz\nRUN make", "hunter2xyz"),
    ("ENV API_SECRET_KEY Zk39vQp7Lm22xR8s", "Zk39vQp7Lm22xR8s"),
    ("gh secret set DB_PASSWORD --body hunter2xyz", "hunter2xyz"),
    ("gh secret set SLACK_WEBHOOK -b'Zk39vQp7Lm22xR8s'", "Zk39vQp7Lm22xR8s"),
    ("gh secret set API_TOKEN --repo o/r --body=Zk39vQp7Lm22xR8s", "Zk39vQp7Lm22xR8s"),
])
def test_a_credential_variable_set_with_white_space_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "set -x PATH /usr/local/bin $PATH",
    "set -gx GITHUB_TOKEN $GH_TOKEN",
    "set -gx GITHUB_TOKEN (pass show github)",
    "setenv DB_PASSWORD_FILE /run/secrets/db",
    "setx DB_PASSWORD %DB_PASSWORD%",
    "set token expiry to 3600",
    "set password policy strong",
    "Then set the token value in settings.",
    "ENV NODE_ENV production",
    "Dockerfile: ENV DB_PASSWORD is read at build time",
    "set -gx EDITOR vim",
    'gh secret set DB_PASSWORD --body "$DB_PASSWORD"',
    "gh secret set API_TOKEN < token.txt",
    "we set API_TOKEN later",
    "set -x SSH_AUTH_SOCK /tmp/agent.sock",
    "setx JAVA_HOME C:\\jdk",
    "set -gx GPG_KEY ABCDEF12",
    "set secret key rotation",
    "env PASSWORD foo",
])
def test_other_variables_and_prose_are_left_alone(text):
    assert redact(text) == text
