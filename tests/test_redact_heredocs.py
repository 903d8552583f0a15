"""A credential given in a heredoc or a multi-line string after its name (HCL's and Ruby's ``password = <<EOT``,
PHP's ``<<<EOT``, Perl's ``<<"END"``, a shell's ``PW=$(cat <<EOF`` and ``read -r PW <<EOF``, Python's triple quotes),
and the lines a heredoc feeds a command reading a password on stdin (``sudo -S``, ``--password-stdin``, ``passwd``,
``chpasswd``): redacted, the heredoc's markers kept. Heredocs of other things, template references and prose about
heredocs are left alone."""

import pytest

from memdir.capture.redact import redact

KEY = "Zx9Qw8Lm22xR8sQ1w2e3r4"


@pytest.mark.parametrize("text,secret", [
    ("password = <<EOT\nhunter2xyz\nEOT", "hunter2xyz"),
    ('resource "x" "y" {\n  password = <<-EOT\n    hunter2xyz\n  EOT\n}', "hunter2xyz"),
    (f"api_key = <<~KEY\n  {KEY}\nKEY", KEY),
    ("$password = <<<EOT\nhunter2xyz\nEOT;", "hunter2xyz"),
    (f'my $token = <<"END";\n{KEY}\nEND', KEY),
    ("DB_PASSWORD=$(cat <<EOF\nhunter2xyz\nEOF\n)", "hunter2xyz"),
    ("read -r -d '' DB_PASSWORD <<'EOF'\nhunter2xyz\nEOF", "hunter2xyz"),
    ('password = """\nhunter2xyz\n"""', "hunter2xyz"),
    (f"client_secret = '''\n{KEY}\n'''", KEY),
    ('credentials = <<EOF\n{"type": "service_account", "client_id": "1234"}\nEOF', "service_account"),
    ("password = <<EOT\nhunter2xyz\n", "hunter2xyz"),  # unclosed: its first line
    ("sudo -S apt update <<EOF\nhunter2xyz\nEOF", "hunter2xyz"),
    ("docker login -u bob --password-stdin <<EOF\nhunter2xyz\nEOF", "hunter2xyz"),
    ("passwd <<EOF\n0ldPass9\nn3wPass9\nn3wPass9\nEOF", "Pass9"),
    ("chpasswd <<EOF\nbob:hunter2xyz\nalice:s3cretPass\nEOF", "s3cretPass"),
])
def test_a_credential_in_a_heredoc_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:" in out, out


def test_the_markers_and_the_names_stay():
    assert redact("password = <<EOT\nhunter2xyz\nEOT") == "password = <<EOT\n[redacted:password]\nEOT"
    assert (redact("chpasswd <<EOF\nbob:hunter2xyz\nalice:s3cretPass\nEOF")
            == "chpasswd <<EOF\nbob:[redacted:password]\nalice:[redacted:password]\nEOF")
    assert redact("sudo -S apt update <<EOF\nhunter2xyz\nEOF") == "sudo -S apt update <<EOF\n[redacted:password]\nEOF"


def test_a_file_written_by_a_heredoc_is_read_line_by_line():
    assert redact("cat <<EOF > .env\nDB_PASSWORD=hunter2xyz\nEOF") == "cat <<EOF > .env\nDB_PASSWORD=[redacted:password]\nEOF"


@pytest.mark.parametrize("text", [
    'policy = <<EOF\n{"Version": "2012-10-17"}\nEOF',
    "password = <<EOT\n${var.db_password}\nEOT",
    "token = <<EOT\n$GITHUB_TOKEN\nEOT",
    "cat <<EOF\npassword: see the vault\nEOF",
    'description = """\nThe token is stored in the keychain.\n"""',
    'def f():\n    """password = <<EOT is a heredoc"""',
    'def login(password):\n    """\n    Check the password.\n    """',
    "std::cout << token << std::endl;",
    "x = 1 << 4; token_bits = y << 2",
    "git diff <<EOF\nx\nEOF",
    "token = <<EOT\nshort\nEOT",
    "sudo apt update <<EOF\nyes\nEOF",
    "cat <<EOF | sudo tee /etc/motd\nwelcome home\nEOF",
])
def test_other_heredocs_stay(text):
    assert redact(text) == text
