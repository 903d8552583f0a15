"""A secret found by its lines (a Markdown table's row, a YAML value on the next line, a name/value pair, a .pgpass
line) in a tool call's argument is redacted before the argument is collapsed onto the stored call line."""

import pytest

from memdir.capture.redact import redact
from memdir.capture.tools import tool_summary

PW = "Sommer2024!Pw"


@pytest.mark.parametrize("command", [
    f"cat > notes.md <<'EOF'\n| Variable | Value |\n| --- | --- |\n| DB_PASSWORD | {PW} |\nEOF",
    f"cat > deploy.yaml <<'EOF'\nenv:\n  - name: DB_PASSWORD\n    value: {PW}\nEOF",
    f"cat > config.yml <<'EOF'\ndb:\n  password:\n    {PW}\nEOF",
    f"cat >> ~/.pgpass <<'EOF'\ndb.internal:5432:app:app:{PW}\nEOF",
])
def test_a_multi_line_command_keeps_its_secret_out_of_the_stored_text(command):
    text = redact(tool_summary("Bash", {"command": command}, "ok"))
    assert PW not in text and "[redacted:" in text, text


# A file change is stored as ``+ ``/``- `` lines each cut at CHANGE_LINE_MAX_CHARS, and a long output is cut in its
# middle: a secret read by its lines, or one a cut would halve, is redacted before either happens.
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6ImFiY2RlZiIsInJvbGUiOiJzZXJ2aWNlX3JvbGUi"
       "LCJpYXQiOjE3MDAwMDAwMDAsImV4cCI6MjAwMDAwMDAwMH0.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFG")
PPK_LINE = "AAAAIBqw9secretprivatebytesxyzABCDEF"
FILES = {
    "putty": ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 1\n"
              f"AAAAC3NzaC1lZDI1NTE5AAAAIFq\nPrivate-Lines: 1\n{PPK_LINE}\nPrivate-MAC: 6c9d1a2b3c4d5e6f", PPK_LINE),
    "table": (f"| Variable | Value |\n| --- | --- |\n| DB_PASSWORD | {PW} |", PW),
    "pgpass": (f"db.internal:5432:app:app:{PW}", PW),
    "long_line": (f"SUPABASE_SERVICE_ROLE_KEY={JWT}", JWT[:60]),
}


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("call", ["Write", "Edit", "MultiEdit"])
def test_a_file_changes_secret_is_redacted_before_its_lines_are_marked_and_cut(name, call):
    content, secret = FILES[name]
    if call == "Write":
        args = {"file_path": "/p/.env", "content": content}
    elif call == "Edit":
        args = {"file_path": "/p/.env", "old_string": "x = 1", "new_string": content}
    else:
        args = {"file_path": "/p/.env", "edits": [{"old_string": "x = 1", "new_string": content}]}
    text = redact(tool_summary(call, args, "ok", cwd="/p"))
    assert secret not in text and "[redacted:" in text, text
    for piece in (JWT.split(".")[1][:24], JWT.split(".")[0]):
        assert piece not in text, text


def test_an_edit_still_counts_its_lines_when_a_secret_spans_several():
    text = tool_summary("Edit", {"file_path": "/p/k.ppk", "old_string": "x = 1", "new_string": FILES["putty"][0]},
                        "ok", cwd="/p")
    assert text.startswith("Edit: k.ppk (-1 +8 lines)"), text


@pytest.mark.parametrize("pad", range(13_780, 14_000, 15))
def test_a_key_across_a_long_outputs_cut_is_never_halved(pad):
    out = "a" * pad + f"\nSUPABASE_KEY={JWT}\n" + ("# lorem ipsum dolor sit amet " * 3 + "\n") * 300
    text = redact(tool_summary("Bash", {"command": "cat .env"}, out))
    assert "elided" in text
    for piece in (JWT.split(".")[0], JWT.split(".")[1][:24], JWT.split(".")[2][:20]):
        assert piece not in text, text


def test_a_one_line_change_in_a_large_file_redacts_the_change_and_its_context_not_the_whole_file(monkeypatch):
    """A hook's Edit of one line in a 60 KB file redacted both whole texts (0.3-0.9 s more on the hook's path): only
    the changed part and the lines around it are redacted before the diff, and the changed line's key still goes."""
    import memdir.capture.redact as redact_mod
    from memdir.capture.tools import CHANGE_CONTEXT_LINES, diff_lines

    seen: list[int] = []
    real = redact_mod.redact
    monkeypatch.setattr(redact_mod, "redact", lambda text: seen.append(len(text)) or real(text))
    body = [f"line {i} = compute_value({i})  # an ordinary line of code" for i in range(1500)]
    old = "\n".join(body)
    changed = list(body)
    changed[700] = "API_TOKEN = 'ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "'"
    lines, removed, added = diff_lines(old, "\n".join(changed))
    assert (removed, added) == (1, 1) and any(x.startswith("+ ") and "[redacted" in x for x in lines), lines
    assert not any("a1B2c3D4e5F6" in x for x in lines)
    assert seen and max(seen) < 60 * (2 * CHANGE_CONTEXT_LINES + 1), seen  # the window, not the 80 KB file
