"""An expect script's or pexpect's send is a password only when it answers the password prompt: not the send after
another expect (or ``interact``) came between, not after a message that merely names the password ("Password changed
successfully", "password updated"), and not after the word "expect" in a comment or a sentence."""

from __future__ import annotations

import pytest

from memdir.capture.redact import redact

KEPT = [
    'expect "Password changed successfully"\nsend "exit\\r"',
    'expect "passwd: password updated successfully"\nsend "logout\\r"',
    "child.expect('password updated')\nchild.sendline('logout')",
    'expect "Enter passphrase for key"\ninteract\nexpect "$ "\nsend "ls -la\\r"',
    'expect "Password:"\nexpect "$ "\nsend "uptime\\r"',
    '# expect the password prompt to go away after login\nsend "uptime\\r"',
    'We expect the password dialog to close; then send "quit" to the REPL.',
]


@pytest.mark.parametrize("text", KEPT)
def test_a_send_that_answers_no_password_prompt_is_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("text, secret", [
    ('expect "password:"\nsend "hunter2xyz\\r"', "hunter2xyz"),
    ('spawn ssh a@h\nexpect "yes/no"\nsend "yes\\r"\nexpect "*assword*"\nsend "hunter2xyz\\r"', "hunter2xyz"),
    ('expect -c \'spawn ssh a@h; expect "password:"; send "hunter2xyz\\r"; interact\'', "hunter2xyz"),
    ("child.expect('Enter passphrase for key')\nchild.sendline('hunter2xyz')", "hunter2xyz"),
    ('expect {\n  "*assword*" { send "hunter2xyz\\n" }\n}', "hunter2xyz"),
])
def test_the_answer_to_a_password_prompt_still_goes(text, secret):
    assert secret not in redact(text)
