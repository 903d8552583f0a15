"""What a tool call leaves as evidence: a failed command's exit status and error lines, an edit's changed lines
(memdir.capture.evidence, memdir.capture.tools)."""

from __future__ import annotations

import json

import pytest

import memdir

from memdir.capture.gates import gate
from memdir.capture.tools import tool_summary
from memdir.config import Config

BUILD = "\n".join(["> web@1.4.0 build", "> tsc -p . && vite build"] + [f"transforming module {i}" for i in range(60)]
                  + ["src/auth/session.ts(41,7): error TS2322: Type 'string' is not assignable to type 'Duration'.",
                     "Found 1 error in src/auth/session.ts:41"])


def test_a_failed_claude_code_command_leads_with_its_exit_status_and_error_line():
    text = tool_summary("Bash", {"command": "npm run build"}, "Exit code 2\n" + BUILD, is_error=True)
    call, _, out = text.partition(" → ")
    first = out.split("\n", 1)[0]
    assert call == "Bash: npm run build"
    assert first.startswith("error (exit 2): ") and "TS2322" in first  # the one line a brief entry shows
    assert "transforming module 59" in text  # the whole output stays after it


def test_a_codex_exit_code_recorded_apart_from_the_output_is_shown():
    out = "collected 4 items\n" + "\n".join(f"tests/test_{i}.py ." for i in range(20)) + \
        "\nFAILED tests/test_lock.py::test_stale - TimeoutError: lock held by pid 42\n1 failed, 3 passed in 0.81s"
    text = tool_summary("exec_command", {"cmd": "pytest -q"}, out, exit_code=1)
    head = text.split(" → ", 1)[1].split("\n")
    assert head[0] == "error (exit 1): FAILED tests/test_lock.py::test_stale - TimeoutError: lock held by pid 42"
    assert head[1] == "1 failed, 3 passed in 0.81s"


def test_a_successful_command_reads_as_before():
    assert tool_summary("Bash", {"command": "make"}, "built 3 targets\nok", exit_code=0) == "Bash: make → built 3 targets\nok"


def test_failure_lines_are_found_by_pattern_and_bounded():
    from memdir.capture.evidence import exit_status, failure_lines

    lines = ["ok"] * 10 + [f"error[E0308]: mismatched types in f{i}" for i in range(20)] + ["0 errors in docs", "done"]
    got = failure_lines(lines)
    assert len(got) == 6 and got[0].endswith("f0") and got[-1].endswith("f19")
    assert "0 errors in docs" not in got
    assert len(failure_lines(["E: " + "x" * 1000 + " failed"])[0]) <= 200
    assert exit_status("stuff\nProcess exited with code 127\n") == 127 and exit_status("fine") is None


def test_a_live_hook_failure_stores_the_error_line_and_status_redacted(project, tmp_path):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    out = "\n".join(["step"] * 30 + [f"fatal: Authentication failed for https://{token}@github.com/o/r.git"])
    with memdir.open(project, home=tmp_path / "g") as m:
        r = m.capture({"role": "tool", "tool": "Bash", "session": "s1", "call_id": "toolu_9",
                       "input": {"command": "git push"}, "output": {"stdout": out, "exit_code": 128}})
        stored = m.get(r.key).text
    assert r.stored and stored.startswith("Bash: git push → error (exit 128): fatal: Authentication failed")
    assert token not in stored


def test_the_key_of_a_failed_call_is_deterministic():
    ev = {"role": "tool", "tool": "Bash", "session": "s", "input": {"command": "npm run build"},
          "output": "Exit code 2\n" + BUILD, "is_error": True}
    assert gate(ev, Config()).key == gate(json.loads(json.dumps(ev)), Config()).key


PATCH = "*** Begin Patch\n*** Update File: src/lock.rs\n@@\n-    let ttl = 30;\n+    let ttl = Duration::from_secs(90);\n*** End Patch\n"


@pytest.mark.parametrize("name, tool_input", [
    ("Edit", {"file_path": "/p/src/lock.rs", "old_string": "    let ttl = 30;", "new_string": "    let ttl = Duration::from_secs(90);"}),
    ("edit", {"filePath": "/p/src/lock.rs", "oldString": "    let ttl = 30;", "newString": "    let ttl = Duration::from_secs(90);"}),
    ("edit_file", {"path": "/p/src/lock.rs", "old_str": "    let ttl = 30;", "new_str": "    let ttl = Duration::from_secs(90);"}),
    ("replace", {"file_path": "/p/src/lock.rs", "old_string": "    let ttl = 30;", "new_string": "    let ttl = Duration::from_secs(90);"}),
    ("apply_patch", {"input": PATCH}),
    ("exec_command", {"cmd": "apply_patch <<'EOF'\n" + PATCH + "EOF"}),
    ("Bash", {"command": "apply_patch <<'EOF'\n" + PATCH + "EOF"}),
])
def test_an_edit_is_stored_as_its_file_and_old_to_new_lines(name, tool_input):
    d = gate({"role": "tool", "tool": name, "input": tool_input, "output": "ok", "session": "s", "cwd": "/p"}, Config())
    assert d.keep
    assert "src/lock.rs" in d.text.split("\n", 1)[0]
    flat = [" ".join(ln.split()) for ln in d.text.split("\n")]
    assert "- let ttl = 30;" in flat and "+ let ttl = Duration::from_secs(90);" in flat


def test_the_line_naming_the_error_and_its_location_lead_over_a_runners_summary_lines():
    from memdir.capture.evidence import failure_lines

    out = [" ❯ src/a.test.ts (16 tests | 1 failed | 15 skipped) 1316ms", "   × sets the default threshold 1312ms",
           "⎯⎯⎯ Failed Tests 1 ⎯⎯⎯", " FAIL  src/a.test.ts > Config > sets the default threshold",
           "AssertionError: expected undefined to deeply equal { auto: true }", "- Expected:", "+ Received:",
           " ❯ src/a.test.ts:253:33", " Test Files  1 failed (1)", "      Tests  1 failed | 15 skipped (16)"]
    got = failure_lines(out)
    assert got[:2] == ["AssertionError: expected undefined to deeply equal { auto: true }", "❯ src/a.test.ts:253:33"]
    assert len(got) == 6 and got[-1] == "Tests 1 failed | 15 skipped (16)"


def test_shell_words_fast_path_splits_as_shlex_does():
    """A command without quotes or backslashes skips shlex; its words must be shlex's own, punctuation runs
    (``|``, ``&&``, ``;``, ``2>``) as words, on commands and on random strings of the characters that matter."""
    import random
    import shlex

    from memdir.capture.evidence import shell_words

    def by_shlex(c):
        lex = shlex.shlex(c, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        lex.commenters = ""
        return list(lex)

    cmds = ["rg -n foo src|head -3", "cd a && make test 2>&1 | tail -20; echo done", "ls -la\t~/x(1)", "",
            "find . -name *.py -exec wc -l {} +", "sed -n 1,40p a.py>out.txt", "a&&b||c;;d", "# not a comment"]
    rnd = random.Random(7)
    alphabet = " \t\n\r\x0b|&;()<>ab-./*?=~#$!{}[]`,:@%é中\u00a0"
    cmds += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14))) for _ in range(5000)]
    for c in cmds:
        assert shell_words(c) == by_shlex(c), repr(c)
    assert shell_words("grep 'a b' x") == ["grep", "a b", "x"]  # quoted: shlex itself
    assert shell_words("echo 'open") is None
