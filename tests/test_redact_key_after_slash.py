"""A provider key that starts a path segment or a file name (``facts/AKIA…``, ``keys/AKIA….txt``, a URL's path
``/v1/AIza…/x``) is redacted as it is after a space: keys whose alphabet is base64's own (AWS, Google, Databricks,
Twilio) once refused a ``/`` on either side, since a base64 blob holds slashes; a whole segment of a blob matching
such a key's exact shape between two slashes is not a real risk, while a key in a path is."""

import base64
import random

import pytest

from memdir.capture.redact import find_secrets, redact

KEYS = {
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "google_api_key": "AIzaSyD3xQw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lzq",
    "databricks_token": "dapi0123456789abcdef0123456789abcdef",
    "twilio_key": "SK0123456789abcdef0123456789abcdef",
    "github_token": "ghp_" + "aB3" * 12,
    "gitlab_token": "glpat-" + "aB3xY7kL9" * 2 + "zz",
    "slack_token": "xoxb-123456789012-1234567890123-" + "AbCdEfGh1234" * 2,
}

FORMS = ["facts/{k}", "keys/{k}.txt", "https://h.example/v1/{k}/items", "https://h.example/{k}", "x={k}", "x:{k}",
         "({k})", '"{k}"', "`{k}`", "user@{k}", "#{k}", "C:\\keys\\{k}.pem", "see facts/{k}, then"]


@pytest.mark.parametrize("kind", sorted(KEYS))
@pytest.mark.parametrize("form", FORMS)
def test_a_key_after_a_separator_or_in_a_path_is_redacted(kind, form):
    key = KEYS[kind]
    out = redact(form.format(k=key))
    assert key not in out and key[-8:] not in out and "[redacted:" in out, out


def test_keys_inside_a_base64_blob_stay_data():
    rng = random.Random(7)
    blob = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(200_000))).decode()
    found = [k for k, *_ in find_secrets(f"data:image/png;base64,{blob}")
             if k in ("aws_access_key", "google_api_key", "databricks_token", "twilio_key")]
    assert found == []
    # a slash-bounded stretch of a blob that only looks like part of one of these keys stays too
    for text in ("iVBORw0KGgo/AKIAIOSFODNN7EXAMPLEq/AAAA", "iVBORw0KGgo+AKIAIOSFODNN7EXAMPLE/AAAA"):
        assert redact(text) == text
