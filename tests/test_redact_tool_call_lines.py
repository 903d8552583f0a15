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
