"""A message that names a host's or memdir's tag in a sentence (`<memory>`, `<system-reminder>`) is prose, kept
whole: the gate took an unclosed tag anywhere as an injected block and cut the message there, so "Why does the hook
print a `<memory>` block before my prompt?" was stored as "Why does the hook print a", and a reply explaining the tags
lost its last paragraphs. Blocks that hosts and memdir inject open at the start of a line, and those still go."""

from __future__ import annotations

import memdir
from memdir.capture.gates import strip_injected

MENTIONS = [
    "Why does the hook print a `<memory>` block before my prompt? It should only show rules.",
    "They appear as `<system-reminder>` tags in the transcript; Claude Code adds them, not the model.",
    "Use the <available_skills> list only when the user asks for a skill by name.",
    "text <system-reminder>named inline twice</system-reminder> stays",
]


def test_a_tag_named_in_a_sentence_is_kept():
    for text in MENTIONS:
        assert strip_injected(text) == (text, set()), text


def test_injected_blocks_at_a_line_start_still_go():
    assert strip_injected("<memory>\n- rules\n</memory>\nhow do I deploy?") == ("how do I deploy?", {"memory"})
    assert strip_injected("how do I deploy?\n<memory>\n- cut off") == ("how do I deploy?", {"memory"})
    got = strip_injected("fix the test\n  <system-reminder>\nThe user opened a.py\n</system-reminder>\nthanks")
    assert got == ("fix the test\n\nthanks", {"host"})
    # a second block right after the first one's close tag, on the same line
    got = strip_injected("<system-reminder>a</system-reminder><system-reminder>b</system-reminder>hello there friend")
    assert got == ("hello there friend", {"host"})
    assert strip_injected("q\n<system-reminder>a</system-reminder><memory>\nx\n</memory>tail") == ("q\ntail",
                                                                                                {"memory", "host"})


def test_a_captured_turn_mentioning_a_tag_is_stored_whole(project, tmp_path):
    with memdir.open(project, home=tmp_path / "g") as m:
        for i, text in enumerate(MENTIONS[:3]):
            r = m.capture({"role": "user" if i % 2 == 0 else "assistant", "text": text, "session": "s"})
            assert r.stored and r.text == text, (r.reason, r.text)


def test_a_slash_command_with_a_request_in_its_arguments_is_kept(project, tmp_path):
    """`/handgemacht:create-beads websearch to learn how to set up credo …` was a session's only statement of its task,
    dropped whole as a slash command; `/model opus` and `/clear` still say nothing to recall."""
    echo = ("<command-message>handgemacht:create-beads</command-message>\n"
            "<command-name>/handgemacht:create-beads</command-name>\n"
            "<command-args>websearch to learn how to set up credo, dialyzer and mix_audit fastest</command-args>")
    with memdir.open(project, home=tmp_path / "g") as m:
        r = m.capture({"role": "user", "text": echo, "session": "s"})
        assert r.stored and r.text.startswith("/handgemacht:create-beads websearch to learn"), (r.reason, r.text)
        r = m.capture({"role": "user", "text": "/review the auth module for the token leak", "session": "s"})
        assert r.stored
        for noise in ("/model opus", "/compact", "<command-name>/clear</command-name>\n<command-args></command-args>"):
            r = m.capture({"role": "user", "text": noise, "session": "s"})
            assert not r.stored and r.reason == "slash_command", noise
