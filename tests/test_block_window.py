"""The window of an entry shows what matched the question (memdir.inject.block.best_line / focus), for one-line
(brief) entries too: the error line or changed line that carries the question's rare term, not the opening."""

from __future__ import annotations

from memdir.inject import block as inject

BUILD = "\n".join(["> web@1.4.0 test", "> vitest run"] + [f" ✓ src/mod{i}.test.ts (3 tests)" for i in range(40)]
                  + [" × src/upload.test.ts > retries the chunk upload when the lockfile is stale",
                     "Test Files  1 failed | 40 passed (41)"])


def test_a_one_line_tool_entry_shows_the_line_with_the_rare_term():
    e = inject.Entry(id="k", handle="abc123", kind="tool", date="05-11", text=BUILD, lead="Bash: npm test →", brief=True)
    weights = {"lockfil": 6.0, "lockfile": 6.0, "test": 0.3, "upload": 2.0}
    out = inject.render(e, 400, weights)
    assert "lockfile is stale" in out and "web@1.4.0" not in out


def test_a_one_line_edit_entry_shows_the_changed_line_that_matches():
    text = "\n".join(["- import os", "+ import os, sys"] + [f"+ # note {i}" for i in range(8)]
                     + ["- RETRY_LIMIT = 3", "+ RETRY_LIMIT = 5  # raised after the flaky CDN"])
    e = inject.Entry(id="k", handle="abc123", kind="tool", date="05-11", text=text,
                     lead="Edit: src/upload.py (-2 +10 lines)", brief=True)
    out = inject.render(e, 300, {"retry_limit": 5.0, "retri": 1.0, "limit": 1.0})
    assert "RETRY_LIMIT = 5" in out and "import os" not in out


def test_with_no_matching_line_a_one_line_entry_shows_its_opening():
    e = inject.Entry(id="k", handle="abc123", kind="tool", date="05-11", text=BUILD, lead="Bash: npm test →", brief=True)
    assert "web@1.4.0 test" in inject.render(e, 400, {"zzz": 3.0})


def test_a_long_reply_is_shown_from_the_paragraph_naming_the_path_the_question_asks_for():
    opening = "I looked at how the login page is wired and what the spec says about the flow. " * 6
    text = opening + "\n\n" + "Other notes about the layout.\n" * 10 + \
        "The spec I wrote is docs/specs/session-refresh.md; the dev server is at http://localhost:5173/login.\n"
    weights = {"spec": 0.8, "login": 0.7, "flow": 0.9, "session-refresh": 5.0, "refresh": 3.0, "session": 1.0}
    e = inject.Entry(id="k", handle="abc123", kind="assistant", date="05-11", text=text)
    out = inject.render(e, 260, weights)
    assert "docs/specs/session-refresh.md" in out
