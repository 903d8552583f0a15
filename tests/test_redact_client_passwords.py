"""A password given to a database or broker client's short option (``cqlsh -p``, ``mosquitto_pub -P``, ``twine -p``,
``rabbitmqadmin -p``, ``bcp -P``, ``vsql -w``) or as the quoted second argument of a client's ``login()`` (smtplib,
imaplib, ftplib): redacted. Options that mean something else (``mosquitto_pub -p 1883`` is a port), a variable's
name as the argument and prose stay."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("cqlsh -u cassandra -p Tr0ub4dor3x db.local", "Tr0ub4dor3x"),
    ("mosquitto_pub -h broker -u dev -P Tr0ub4dor3x -t a -m b", "Tr0ub4dor3x"),
    ("mosquitto_sub -h broker -u dev -P 'hunter2 xyz' -t a", "hunter2 xyz"),
    ("twine upload -u __token__ -p Tr0ub4dor3x dist/*", "Tr0ub4dor3x"),
    ("rabbitmqadmin -u admin -p Tr0ub4dor3x list queues", "Tr0ub4dor3x"),
    ("bcp db.dbo.t out t.dat -S srv -U sa -P Tr0ub4dor3x -c", "Tr0ub4dor3x"),
    ("vsql -h db -U dbadmin -w Tr0ub4dor3x", "Tr0ub4dor3x"),
    ("server.login('me@example.com', 'Tr0ub4dor3x')", "Tr0ub4dor3x"),
    ("smtp.login(user, \"hunter2xyz\")", "hunter2xyz"),
    ("imap.login(cfg['user'], 'abcd efgh ijkl mnop')", "abcd efgh ijkl mnop"),
    ("ftp.login('anonymous', password='Tr0ub4dor3x')", "Tr0ub4dor3x"),
])
def test_a_client_password_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[redacted:" in out


@pytest.mark.parametrize("text", [
    "mosquitto_pub -h broker -p 1883 -t a -m hello",
    "cqlsh -u cassandra -p $CASSANDRA_PASSWORD",
    "twine upload -p",
    "server.login(user, password)",
    "smtp.login(user, os.environ['SMTP_PASSWORD'])",
    "client.login('user', '{password}')",
    "call .login(user, 'the') after connecting",
])
def test_other_options_and_variables_stay(text):
    assert redact(text) == text
