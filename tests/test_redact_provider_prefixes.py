"""Provider prefixes documented since the last table: Dropbox's short-lived access tokens (``sl.`` and a long
base64url tail; long-lived ones carry no prefix) and NuGet.org API keys (``oy2`` and 43 lower-case letters and digits):
redacted bare, with no label; words, module paths and short ids beginning the same way are left alone."""

import pytest

from memdir.capture.redact import redact

DROPBOX = "sl.BqZx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-Qw8Er7Ty6Ui5Op4_As3Df2Gh1Jk0LzXcVbNm9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz"
DROPBOX_DOTTED = "sl.u.AFZx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm-Qw8Er7Ty6Ui5Op4_As3Df2Gh1Jk0LzXcVbNm9Qw8Er7Ty6"
NUGET = "oy2kx9qw8lm22xr8sq1w2e3r4zx9qw8lm22xr8sq1w2e3r"


@pytest.mark.parametrize("text,secret,kind", [
    (f"use {DROPBOX} to call the API", DROPBOX[3:], "dropbox_token"),
    (f"dbx = dropbox.Dropbox('{DROPBOX}')", DROPBOX[3:], "dropbox_token"),
    (f"curl -X POST https://api.dropboxapi.com/2/files/list_folder -H 'Authorization: Bearer {DROPBOX}'", DROPBOX[3:],
     "dropbox_token"),
    (f"the token {DROPBOX_DOTTED} expired", DROPBOX_DOTTED[5:], "dropbox_token"),
    (f"dotnet nuget push pkg.nupkg -k {NUGET} -s https://api.nuget.org/v3/index.json", NUGET[3:], "nuget_key"),
    (f"the key {NUGET} was revoked", NUGET[3:], "nuget_key"),
    (f"nuget setapikey {NUGET}", NUGET[3:], "nuget_key"),
])
def test_a_documented_provider_prefix_is_redacted(text, secret, kind):
    out = redact(text)
    assert secret not in out and f"[redacted:{kind}]" in out, out


@pytest.mark.parametrize("text", [
    "ssl.SSLContext.load_default_certs_and_verify_everything_properly_now",
    "x.sl.some_module_name.with_long_attribute_chain_here",
    "sl.deploymentTemplateResourceGroupNameForTheEnvironment",
    "import sl.utils.helpers",
    "oy2" + "a" * 43,
    "the oy2 rating",
    "oy2abc is a short id",
])
def test_lookalikes_stay(text):
    assert redact(text) == text
