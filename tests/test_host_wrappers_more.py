"""Other host-injected wrappers (case C16/C22's siblings): Claude Code's ``!`` shell command and its output
(``<bash-input>``, ``<bash-stdout>``/``<bash-stderr>``), a background shell's ``<bash-notification>``, the IDE's
``<ide_opened_file>``/``<ide_selection>``/``<ide_diagnostics>``, a hook's output under its own ``<…-hook>`` tag, and
Codex's ``<user_shell_command>``: cut out of a prompt (the request around them kept), never stored alone, through a
hook and a transcript import alike. Before, each was stored as the user's words."""

from __future__ import annotations

import json

import pytest

import memdir
from memdir.capture.gates import strip_injected

WRAPPED = [
    "<bash-input>git log --oneline -5</bash-input>",
    "<bash-stdout>a1b2c3 fix the flaky kafka test\nd4e5f6 bump deps</bash-stdout><bash-stderr></bash-stderr>",
    "<bash-notification>\n<shell-id>bash_3</shell-id>\n<status>completed</status>\n</bash-notification>",
    "<ide_opened_file>The user opened the file /work/app/src/deploy.py in the IDE. This may or may not be related "
    "to the current task.</ide_opened_file>",
    "<ide_selection>The user selected the lines 3 to 9 from /work/app/src/deploy.py:\nimport os\n\nThis may or may "
    "not be related to the current task.</ide_selection>",
    "<ide_diagnostics>[{\"file\": \"deploy.py\", \"message\": \"unused import\"}]</ide_diagnostics>",
    "<session-start-hook>rules and an outline</session-start-hook>",
    "<pre-compact-hook>a summary of the session</pre-compact-hook>",
    "<user_shell_command>\n<command>ls -la</command>\n<result>\ntotal 0\n</result>\n</user_shell_command>",
]


@pytest.mark.parametrize("text", WRAPPED)
def test_a_wrapper_alone_is_not_captured_and_a_request_after_it_is(tmp_path, text):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    with memdir.open(proj, home=tmp_path / "g") as m:
        r = m.capture({"role": "user", "text": text, "session": "s1"})
        assert not r.stored and r.reason == "host_injected", r
        ask = "why does the deploy script fail on the staging cluster?"
        r = m.capture({"role": "user", "text": f"{text}\n{ask}", "session": "s2"})
        assert r.stored and r.text == ask, r


def test_a_tag_named_inside_a_sentence_or_another_tag_is_kept():
    for text in ("they showed up as <bash-stdout> tags in the transcript, why?",
                 "<my-webhook-notes>the deploy needs approval</my-webhook-notes>"):
        assert strip_injected(text)[0] == text


def test_an_import_of_a_claude_code_transcript_skips_them(tmp_path):
    from memdir.portability.transcripts import import_host

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    lines = []
    for i, text in enumerate(WRAPPED + ["how do we roll the canary back when the error budget burns?"]):
        lines.append({"type": "user", "sessionId": "s-imp", "uuid": f"u{i}", "cwd": str(proj),
                      "timestamp": f"2026-11-30T09:{i:02d}:00.000Z", "message": {"role": "user", "content": text}})
    path = tmp_path / "s-imp.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with memdir.open(proj, home=tmp_path / "g") as m:
        import_host(m, "claude-code", path, projects="here", progress=False)
        texts = [h.text for h in m.recent(kinds=["user"], limit=50)]
        assert texts == ["how do we roll the canary back when the error budget burns?"], texts


@pytest.mark.parametrize("text,kept", [
    ('I wrote a React hook:\n<use-fetch-hook url="/api">\nhow do I test it?', "how do I test it?"),
    ("<pre-commit-hook>\nmy config question: why does ruff fail?", "why does ruff fail?"),
    ("Explain the tags:\n<bash-input> is what Claude Code wraps a typed command in", "is what Claude Code wraps"),
    ("<ide_selection> is the tag name I saw in the log, what writes it?", "what writes it?"),
])
def test_a_tag_a_person_types_is_kept_unless_its_host_block_is_closed(text, kept):
    from memdir.capture.gates import strip_injected

    assert kept in strip_injected(text)[0]
