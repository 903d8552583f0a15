"""Siblings of C15 in shells: a credential variable set with its value after white space (fish ``set -x``, csh
``setenv``, ``launchctl setenv``, a Dockerfile's ``ENV NAME value``) whose name glues the credential word to another
(``PGPASSWORD``, ``GITHUBTOKEN``, ``CLIENTSECRET``) or names Rails' ``SECRET_KEY_BASE``: redacted as ``export NAME=value``
is; other variables with the same words inside are left alone."""

import pytest

from memdir.capture.redact import redact

PW = "s3cr3tPa55"
TOKEN = "C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcM"
FORMS = ["set -x {n} {v}", "set -gx {n} {v}", "set -Ux {n} '{v}'", "setenv {n} {v}", "launchctl setenv {n} {v}",
         "ENV {n} {v}"]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name,value", [
    ("PGPASSWORD", PW), ("PGPASSWORD", TOKEN), ("MYSQLPASSWORD", PW), ("GITHUBTOKEN", TOKEN), ("NPMTOKEN", TOKEN),
    ("CLIENTSECRET", TOKEN), ("SECRET_KEY_BASE", TOKEN), ("SECRET_KEY_BASE", PW),
])
def test_a_glued_credential_name_set_after_a_space_is_redacted(form, name, value):
    text = form.format(n=name, v=value)
    out = redact(text)
    assert value not in out and name in out and "[redacted:" in out, out
    assert redact(f"export {name}={value}") != f"export {name}={value}"  # as the = form is


@pytest.mark.parametrize("text", [
    "set -x OLDPWD /home/bob", "set -gx PGPASSFILE ~/.pgpass", "setenv PGPASSWORD $SECRET", "set -x TOKENIZERS_PARALLELISM false",
    "set -x SECRET_KEY_BASE_DUMMY 1", "ENV PGPASSWORD=", "set -x GITHUBTOKEN ${{ secrets.GH }}",
    "set -x DATABASE_BASE main", "setenv TOKEN_BASE tokens",
])
def test_other_variables_are_left_alone(text):
    assert redact(text) == text
