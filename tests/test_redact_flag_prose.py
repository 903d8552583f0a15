"""A credential option named in a sentence (an error message, a README: "needs --token (or $MEMDIR_TOKEN)",
"--token must be at least 16 characters", "use --password when asked") is prose, not an option given a secret:
the words after it are kept. An option given a value, in a command or after ``=``, is still redacted."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text", [
    "a non-loopback host needs --token (or $MEMDIR_TOKEN)",
    "--token must be at least 16 characters",
    "pass --token or set MEMDIR_TOKEN",
    "use --password when asked",
    "--api-key is required for the openai provider",
    "--secret must not be empty",
    "the --password flag is deprecated; use --password-file",
    "set the --token option in the config",
    "--apikey and --token are both accepted",
])
def test_an_option_named_in_a_sentence_keeps_the_sentence(text):
    assert redact(text) == text


@pytest.mark.parametrize("text,secret", [
    ("memdir ui --host 0.0.0.0 --token Zq8Wx7Ec6Rv5Tb4Yn3", "Zq8Wx7Ec6Rv5Tb4Yn3"),
    ("mysql --password sunshine -u root", "sunshine"),
    ("curl --api-key abcdEFGH12345678ijkl https://x", "abcdEFGH12345678ijkl"),
    ("--token=mustangSally2024", "mustangSally2024"),
    ('--secret "correct horse battery staple"', "correct horse battery staple"),
    ("app --password (hunter2)", "hunter2"),
    ("app --token (abc123def456)", "abc123def456"),
])
def test_an_option_given_a_value_is_still_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out
