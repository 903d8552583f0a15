"""A password fed to a command on its standard input other than by ``echo X |``: a here-string to ``sudo -S`` (or
``--stdin``), to a registry login's ``--password-stdin``, to ``passwd --stdin`` or ``chpasswd``; ``printf`` with a
format string; ``sudo`` with other options before ``-S``; an expect script's or pexpect's answer to a password prompt.
Redacted; a here-string to another command, a shell variable and the answer to another prompt are left alone."""

import pytest

from memdir.capture.redact import redact


@pytest.mark.parametrize("text,secret", [
    ("sudo -S <<< hunter2xyz apt update", "hunter2xyz"),
    ("sudo -S <<<'hunter2xyz' apt update", "hunter2xyz"),
    ('sudo -S apt update <<< "hunter2xyz"', "hunter2xyz"),
    ("sudo -kS -p '' make install <<< hunter2xyz", "hunter2xyz"),
    ("sudo --stdin systemctl restart nginx <<< hunter2xyz", "hunter2xyz"),
    ("sudo -S <<< $'hunter2xyz\\n' apt update", "hunter2xyz"),
    ("docker login -u bob --password-stdin <<< 'hunter2xyz'", "hunter2xyz"),
    ("passwd --stdin bob <<< hunter2xyz", "hunter2xyz"),
    ("chpasswd <<< 'bob:hunter2xyz'", "hunter2xyz"),
    ("printf 'hunter2xyz\\n' | sudo -S apt update", "hunter2xyz"),
    ("printf '%s\\n' 'hunter2xyz' | sudo -S apt update", "hunter2xyz"),
    ("echo hunter2xyz | sudo -p '' -S apt update", "hunter2xyz"),
    ("echo hunter2xyz | sudo -u postgres -S psql", "hunter2xyz"),
    ("echo hunter2xyz | passwd --stdin bob", "hunter2xyz"),
    ('expect "*assword*"\nsend "hunter2xyz\\r"', "hunter2xyz"),
    ('spawn ssh admin@host\nexpect "password:"\nsend -- "hunter2xyz\\r"\nexpect "$ "\nsend "ls\\r"', "hunter2xyz"),
    ('expect "Password: " { send "hunter2xyz\\r" }', "hunter2xyz"),
    ('expect {\n  "*assword*" { send "hunter2xyz\\n" }\n}', "hunter2xyz"),
    ("child.expect('[Pp]assword:')\nchild.sendline('hunter2xyz')", "hunter2xyz"),
    ('child.expect("Enter passphrase")\nchild.sendline("correct horse battery")', "correct horse battery"),
])
def test_a_password_fed_on_stdin_is_redacted(text, secret):
    out = redact(text)
    assert secret not in out and "[redacted:password]" in out, out


def test_only_the_password_goes():
    assert redact("chpasswd <<< 'bob:hunter2xyz'") == "chpasswd <<< 'bob:[redacted:password]'"
    assert redact("sudo -S <<< hunter2xyz apt update") == "sudo -S <<< [redacted:password] apt update"
    script = 'expect "password:"\nsend "hunter2xyz\\r"\nexpect "$ "\nsend "ls -la\\r"'
    assert redact(script) == 'expect "password:"\nsend "[redacted:password]\\r"\nexpect "$ "\nsend "ls -la\\r"'


@pytest.mark.parametrize("text", [
    'sudo -S <<< "$PW" apt update',
    "sudo -S <<< $PW apt update",
    'grep foo <<< "hunter2xyz"',
    "sudo apt update <<< yes",
    'cat <<< "$(sudo -S ls)"',
    'printf \'%s\\n\' "$PW" | sudo -S apt update',
    'read -r line <<< "hello world"; sudo -S ls',
    'wc -l <<< "abc def" && sudo -S ls',
    'chpasswd <<< "$USER:$PASS"',
    'expect "*assword*"\nsend "$env(PW)\\r"\nexpect "$ "\nsend "ls\\r"',
    'expect "*assword*"\nsend $pw\nexpect "$ "\nsend "ls -la\\r"',
    'expect "login:"\nsend "admin\\r"',
    "I expect the password prompt, then send 'yes'",
    "child.expect('Password:')\nchild.sendline(password)",
])
def test_other_input_stays(text):
    assert redact(text) == text
