"""Siblings of cases C15 and C44: a personal access token kept under a ``…_PAT`` name (GitHub's and Azure DevOps'
usual spelling), a registry token in composer's auth.json, and the user:password pair of a .yarnrc.yml's
``npmAuthIdent`` are redacted; names and words that only contain the letters ``pat`` are left alone."""

import pytest

from memdir.capture.redact import redact

TOKEN = "Xk9mQ2vR7tLp4wZs8Nb3Yc6Hd1Fj5Ga0Ue7Wq"
HEX40 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"


@pytest.mark.parametrize("text,secret", [
    (f"export GH_PAT={HEX40}", HEX40),
    (f"CR_PAT={TOKEN}", TOKEN),
    (f"AZURE_DEVOPS_EXT_PAT: {TOKEN}", TOKEN),
    (f'env:\n  ADO_PAT: "{TOKEN}"', TOKEN),
    (f"gh_pat = '{TOKEN}'", TOKEN),
    (f"PAT={TOKEN}", TOKEN),
    (f"set -x GITHUB_PAT {TOKEN}", TOKEN),
])
def test_a_token_under_a_pat_name_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "PATH=/usr/local/bin:/usr/bin", "spat = 3", "pattern: '^feat/[a-z0-9-]{3,40}$'",
    "patch = 0001-fix-the-parser-when-empty.patch", "the PAT: create one under Settings > Developer settings",
    "GH_PAT=${{ secrets.GH_PAT }}", "GH_PAT: $GH_PAT",
])
def test_names_that_only_contain_pat_are_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("text,secret", [
    (f'{{"github-oauth": {{"github.com": "{HEX40}"}}}}', HEX40),
    (f'{{\n    "gitlab-token": {{\n        "gitlab.example.com": "{TOKEN}"\n    }}\n}}', TOKEN),
    (f'"gitlab-oauth": {{"gitlab.com": "{TOKEN}"}}', TOKEN),
])
def test_composer_auth_tokens_are_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text,secret", [
    ('npmAuthIdent: "alice:Tr0ub4dor&3"', "Tr0ub4dor&3"),
    ("  npmAuthIdent: 'ci-bot:hunter2hunter2'", "hunter2hunter2"),
    ('npmScopes:\n  acme:\n    npmAuthIdent: "deploy:Zq8-Wx7_Ec6"', "Zq8-Wx7_Ec6"),
])
def test_a_yarnrc_auth_ident_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    # ``…_PAT`` is as often a pattern as a personal access token: one that holds spaces, ``*``, ``|``, ``:`` or ``/``
    "GLOB_PAT=**/node_modules/**/dist", "export GLOB_PAT='**/node_modules/**/dist'",
    'LOG_PAT = "ERROR|WARN|CRITICAL|FATAL_Exception"', 'export LOG_PAT="ERROR|WARN|CRITICAL|FATAL_Exception"',
    "HEADER_PAT = 'Content-Type: application/json'", 'LOG_PAT: "ERROR|WARN|CRITICAL|FATAL_Exception"',
])
def test_a_pattern_under_a_pat_name_is_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("text", [
    '{"github-oauth": {"github.com": "your-token-here"}}',
    '{"gitlab-token": {"gitlab.example.com": "https://gitlab.example.com/-/profile/personal_access_tokens"}}',
])
def test_a_composer_placeholder_or_link_is_kept(text):
    assert redact(text) == text
