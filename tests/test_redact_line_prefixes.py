"""Siblings of cases C15 and C44: a secret found by its line's layout (a Markdown table's row, a ``.pgpass`` line, a
YAML value on the next line, a PuTTY key's private lines) is redacted when a tool or a format put a prefix before the
line: a diff's ``+``/``-``, a quote's ``> ``, a line number as Claude Code's Read, ``cat -n``, ``nl``, grep and ``rg -n``
print it, a tree's, list's or comment's mark. The prefix stays; ordinary diffs and listings stay readable."""

import pytest

from memdir.capture.redact import redact

PW = "Sommer2024!Pw"
KEY = "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0L"
PPK_LINE = "AAAAIBqw9secretprivatebytesxyzABCDEF"

PREFIXES = ["+", "-", "+ ", "> ", ">> ", "  154→", "   12\t", "     3\t", "config/.env:3:", "config/.env-3-", "3:",
            "│ ", "- ", "* ", "1. ", "# ", "// ", "-- ", "; ", "+# "]

LAYOUTS = {
    "table": (f"| DB_PASSWORD | {PW} |", PW),
    "table_column": (f"| service | user | password |\n|---|---|---|\n| pg | app | {PW} |", PW),
    "pgpass": (f"db.internal:5432:app:app:{PW}", PW),
    "yaml_next_line": (f"db:\n  password:\n    {PW}\n  user: app", PW),
    "yaml_block": (f"api_key: |\n  {KEY}", KEY),
    "putty": ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 1\n"
              f"AAAAC3NzaC1lZDI1NTE5AAAAIFq\nPrivate-Lines: 1\n{PPK_LINE}\nPrivate-MAC: 6c9d1a2b3c4d5e6f", PPK_LINE),
}


def _prefixed(prefix: str, text: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_a_secret_read_by_its_lines_layout_is_redacted_behind_a_line_prefix(name, prefix):
    text, secret = LAYOUTS[name]
    for ctx in ("", "some output first\n"):
        out = redact(ctx + _prefixed(prefix, text))
        assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text,expected", [
    (f"+| DB_PASSWORD | {PW} |", "+| DB_PASSWORD | [redacted:password] |"),
    (f"> db.internal:5432:app:app:{PW}", "> db.internal:5432:app:app:[redacted:password]"),
    (f"  154→| DB_PASSWORD | {PW} |", "  154→| DB_PASSWORD | [redacted:password] |"),
    (f".pgpass:1:db.internal:5432:app:app:{PW}", ".pgpass:1:db.internal:5432:app:app:[redacted:password]"),
    (f"+db:\n+  password:\n+    {PW}", "+db:\n+  password:\n+    [redacted:password]"),
])
def test_the_prefix_and_the_rest_of_the_line_stay(text, expected):
    assert redact(text) == expected


def test_a_git_diff_and_an_apply_patch_body_keep_no_password():
    diff = ("diff --git a/docs/setup.md b/docs/setup.md\nindex 3b18e51..a9c2f04 100644\n--- a/docs/setup.md\n"
            "+++ b/docs/setup.md\n@@ -10,4 +10,5 @@\n | Variable | Value |\n |---|---|\n-| DB_PASSWORD | changeme |\n"
            f"+| DB_PASSWORD | {PW} |\n+| DB_HOST | db.internal |\n@@ -30,2 +31,3 @@ deploy:\n   password:\n-    old\n"
            "diff --git a/.pgpass b/.pgpass\nnew file mode 100600\n--- /dev/null\n+++ b/.pgpass\n@@ -0,0 +1 @@\n"
            f"+db.internal:5432:app:app:{PW}\n")
    patch = f"*** Begin Patch\n*** Add File: .pgpass\n+db.internal:5432:app:app:{PW}\n*** End Patch"
    for text in (diff, patch):
        out = redact(text)
        assert PW not in out and "[redacted:" in out, out
    assert "+| DB_HOST | db.internal |" in redact(diff)


@pytest.mark.parametrize("text", [
    "+    password = get_password()", "-  token: ${{ secrets.X }}", "+| Name | Type |",
    "+| password | string | the user's password |", "+| token | `${{ secrets.GITHUB_TOKEN }}` |",
    "+src/app.py:12:5:E501:line", "+10:20:30:40:50", "+x:8080:api:v1:users", "+localhost:8080:api:v2:health",
    "> host:5432:db:user:$PGPASSWORD", "app.log:12:time 12:30:45:00:frames",
    "  154→| Field | Type | Notes |\n  155→|---|---|---|\n  156→| password | string | hashed with bcrypt |",
    "+password:\n+  - one\n+  - two", "> password:\n>   required: true", "-api_key: |\n-  ${API_KEY}",
    "+        secret_key:\n+          description: the key", "    12\t| password | ******** |",
    "README.md:14:| `--password` | string | the password to use |",
    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-password: old_placeholder\n+password: ${DB_PASSWORD}",
])
def test_ordinary_prefixed_lines_stay(text):
    assert redact(text) == text


COMMANDS = [
    (f"AUTH {PW}", PW), (f"ENV DB_PASSWORD {PW}", PW), ("conn system/Sommer2024Pw@orcl", "Sommer2024Pw"),
    (f"http -a bob:{PW} https://api.example.com", PW), ("AKIAJ3K5L7M9N1P3Q5R7", "AKIAJ3K5L7M9N1P3Q5R7"),
    (f"PASSWORD {PW}", PW),
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,secret", COMMANDS)
def test_a_command_or_key_that_starts_its_line_is_redacted_behind_a_line_prefix(text, secret, prefix):
    for ctx in ("", "some output first\n"):
        out = redact(ctx + prefix + text)
        assert secret not in out and "[redacted:" in out, out


@pytest.mark.parametrize("text", [
    "+ENV NODE_ENV production", "-AUTH required", "+conn client/server apps", "-http -a bob https://api.example.com",
    "- password reset flow", "+the http server, then rsync -a deploy@web1:/srv", "  154→ENV PATH /usr/local/bin",
    "> I expect the password prompt to go away after login\n> send it again",
])
def test_ordinary_prefixed_commands_stay(text):
    assert redact(text) == text
