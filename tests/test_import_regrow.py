"""A session imported while it was still being written, imported again once complete (a probe of the importers): the
tool call recorded before its result was taken for a duplicate and its result never came in (Claude Code, Codex,
OpenCode: the same key), and a reply cut mid-text stayed beside the whole one (SpecStory, Aider: a new key)."""

from __future__ import annotations

import json

import pytest

import memdir
from conftest import run_cli
from memdir.engine.regrow import partial_of


def cc_lines(cwd: str) -> list[dict]:
    base = {"sessionId": "S1", "cwd": cwd}
    return [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-12-01T10:00:00Z",
         "message": {"role": "user", "content": "run the test suite please"}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-12-01T10:00:01Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Running it now."},
                                                       {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                                        "input": {"command": "make test-4"}}]}},
        {**base, "type": "user", "uuid": "u2", "timestamp": "2026-12-01T10:00:05Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                  "content": "3 passed toolwordfour in 0.4s"}]}},
    ]


def test_a_tool_result_written_after_the_first_import_comes_in_with_the_next(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    f = tmp_path / "live.jsonl"
    lines = cc_lines(str(project))
    f.write_text("".join(json.dumps(x) + "\n" for x in lines[:2]), encoding="utf-8")
    assert run_cli(capsys, "--dir", str(project), "import", "claude-code", str(f), "--here")[0] == 0
    f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    assert run_cli(capsys, "--dir", str(project), "import", "claude-code", str(f), "--here")[0] == 0
    with memdir.open(project, home=tmp_path / "g") as m:
        tools = m.recent(kinds=["tool"])
        assert len(tools) == 1 and "toolwordfour" in tools[0].text and "(no result)" not in tools[0].text
        assert m.status()["project"]["events"] == 3


SPEC = "## SpecStory\n\n## Staging deploy (01/12/2026, 10:00:00)\n\n_**User**_\n\nwhy does the staging deploy fail\n\n---\n\n"


def test_a_reply_cut_mid_text_is_replaced_by_the_whole_one(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    f = tmp_path / "x.md"
    f.write_text(SPEC + "_**Assistant**_\n\nThe staging deploy fails because the container", encoding="utf-8")
    assert run_cli(capsys, "--dir", str(project), "import", "specstory", str(f), "--here")[0] == 0
    f.write_text(SPEC + "_**Assistant**_\n\nThe staging deploy fails because the container image tag is missing.\n\n"
                 "---\n\n_**User**_\n\nthen fix the manifest for staging\n\n---\n", encoding="utf-8")
    assert run_cli(capsys, "--dir", str(project), "import", "specstory", str(f), "--here")[0] == 0
    with memdir.open(project, home=tmp_path / "g") as m:
        replies = m.recent(kinds=["assistant"])
        assert [r.text for r in replies] == ["The staging deploy fails because the container image tag is missing."]


@pytest.mark.parametrize("old, new, role, want", [
    ("Bash: make test → (no result)", "Bash: make test → 3 passed", "tool", True),
    ("Bash: make test → (no result)", "Bash: make test → (no result)", "tool", False),
    ("The deploy fails because", "The deploy fails because the tag is missing", "assistant", True),
    ("The deploy fails because the tag is missing", "The deploy fails because", "assistant", False),
    ("The deploy fails.", "The deploy fails. Then I fixed the tag.", "assistant", False),  # ended: another reply
    ("fix the flaky login test", "fix the flaky login test and the signup page", "user", False),  # another prompt
    ("Bash: ls → (no result)", "Bash: make test → 3 passed", "tool", False),
])
def test_what_counts_as_a_turn_cut_short(old, new, role, want):
    assert partial_of(old, new, role) is want


def test_one_import_holding_a_cut_turn_and_then_the_whole_one_stores_the_whole(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    rows = [{"type": "event", "key": "import:claude-code:S1:toolu_1", "role": "tool", "session": "S1",
             "ts": "2026-12-01T10:00:0%dZ" % i, "text": text}
            for i, text in enumerate(["Bash: make test → (no result)", "Bash: make test → 3 passed in 0.4s"])]
    f = tmp_path / "ev.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run_cli(capsys, "--dir", str(project), "import", str(f), "--here")
    assert code == 0, err
    with memdir.open(project, home=tmp_path / "g") as m:
        assert [t.text for t in m.recent(kinds=["tool"])] == ["Bash: make test → 3 passed in 0.4s"]


def test_two_conversations_whose_prompts_share_a_beginning_keep_both(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    for d, prompt in (("a", "fix the flaky login test on the checkout page"),
                      ("b", "fix the flaky login test on the checkout page and the signup page as well")):
        (tmp_path / d).mkdir()
        (tmp_path / d / "chat.txt").write_text(f"> {prompt}\n\n⏺ Looking at the test now.\n", encoding="utf-8")
        assert run_cli(capsys, "--dir", str(project), "import", "claude-export", str(tmp_path / d / "chat.txt"),
                       "--here")[0] == 0
    with memdir.open(project, home=tmp_path / "g") as m:
        assert len(m.recent(kinds=["user"])) == 2


def test_a_long_tool_result_keeps_its_end_as_a_hook_s_capture_does(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    out = "\n".join(f"tests/test_{i}.py::test_case PASSED" for i in range(3000)) + "\n=== 3 failed, 2997 passed: tailmarker ==="
    lines = cc_lines(str(project))
    lines[2]["message"]["content"][0].update(content=out, is_error=True)
    f = tmp_path / "tail.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    assert run_cli(capsys, "--dir", str(project), "import", "claude-code", str(f), "--here")[0] == 0
    with memdir.open(project, home=tmp_path / "g") as m:
        [tool] = m.recent(kinds=["tool"])
        assert "tailmarker" in tool.text and "tests/test_0.py" in tool.text
        assert m.recall("tailmarker")


@pytest.mark.parametrize("name", ["mcp__claude-in-chrome__get_page_text", "mcp__claude-in-chrome__read_page",
                                  "mcp__chrome-devtools__take_snapshot", "mcp__selenium__get_source"])
def test_a_page_a_model_driven_browser_read_is_web_content(name):
    from memdir.capture.gates import is_web_tool

    assert is_web_tool(name)


@pytest.mark.parametrize("name", ["Bash", "Edit", "mcp__github__get_issue", "apply_patch", "exec_command"])
def test_other_tools_are_not_web_content(name):
    from memdir.capture.gates import is_web_tool

    assert not is_web_tool(name)


def test_base64_in_a_tool_output_is_said_not_stored():
    import base64

    from memdir.capture.tools import tool_summary, without_base64

    block = base64.encodebytes(bytes(range(256)) * 60).decode()  # wrapped at 76, as `base64 FILE` prints it
    text = tool_summary("Bash", {"command": "base64 logo.png"}, block + "done\n")
    assert text == "Bash: base64 logo.png → [20,480 characters of base64]\ndone"
    one = base64.b64encode(bytes(range(256)) * 10).decode()
    assert without_base64(f"src: data:image/png;base64,{one} end") == "src: data:image/png;base64,[3,416 characters of base64] end"
    kept = "commit 418d9c9e1b2c3d4e5f60718293a4b5c6d7e8f901 " + "sha256:" + "ab12" * 16 + " " + "word " * 100
    assert without_base64(kept) == kept


def test_a_question_put_to_the_user_reads_as_its_questions_not_json():
    from memdir.capture.tools import tool_summary

    asked = {"questions": [{"question": "Which database should the cache use?", "options": [{"label": "sqlite"}]},
                           {"question": "Keep the old key format?", "options": []}]}
    text = tool_summary("AskUserQuestion", asked, 'User has answered your questions: "Which database…"="sqlite"')
    assert text.startswith("AskUserQuestion: Which database should the cache use? / Keep the old key format? → ")
    assert tool_summary("KillShell", {"shell_id": "bash_3"}, "killed").startswith("KillShell: bash_3 → ")


def test_paths_and_hashes_that_look_like_base64_characters_are_kept():
    from memdir.capture.tools import without_base64

    paths = "\n".join(f"/home/alice/Work/Billing{i}/src/main/java/com/acme/billing/api/v{i}" for i in range(12))
    hashes = "\n".join("%064X" % (i * 0x9E3779B97F4A7C15 ** 3) for i in range(1, 10))
    assert without_base64(paths) == paths and without_base64(hashes) == hashes


def _cc_file(path, lines, session):
    path.write_text("".join(json.dumps({**x, "sessionId": session}) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("order", ["cut first", "whole first"])
@pytest.mark.parametrize("cut_in", ["original", "fork"])
def test_a_fork_of_a_session_cut_after_a_tool_call_stores_the_call_once(project, tmp_path, capsys, monkeypatch, order,
                                                                        cut_in):
    """Session A's transcript ends right after a ``tool_use`` (stored ``… → (no result)``); a fork B (a new session
    id repeating A's turns with their times and the same ``toolu_…`` id) holds its result. Imported in either order,
    and either one the cut file, the call was stored twice, the cut one beside the whole one: the import replacing a
    cut turn looked at the same key alone. The fork's link to its original (``events.COPY_WINDOW_S``) finds it now."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    lines = cc_lines(str(project))
    a = _cc_file(tmp_path / "A.jsonl", lines[:2] if cut_in == "original" else lines, "SA")
    b = _cc_file(tmp_path / "B.jsonl", lines[:2] if cut_in == "fork" else lines, "SB")
    cut, whole = (a, b) if cut_in == "original" else (b, a)
    files = [cut, whole] if order == "cut first" else [whole, cut]
    for f in (*files, *files):  # and again: re-running an import stores nothing twice
        assert run_cli(capsys, "--dir", str(project), "import", "claude-code", str(f), "--here")[0] == 0
    with memdir.open(project, home=tmp_path / "g") as m:
        tools = m.recent(kinds=["tool"])
        assert [t.text for t in tools] == ["Bash: make test-4 → 3 passed toolwordfour in 0.4s"], [(t.key, t.text) for t in tools]
        assert m.status()["project"]["events"] == 3


def test_the_same_call_id_in_an_unrelated_session_is_left_alone(project, tmp_path, capsys, monkeypatch):
    """Only a session that copies another (its prompt repeated within COPY_WINDOW_S) is compared with it."""
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    lines = cc_lines(str(project))
    other = [dict(x) for x in lines]
    other[0] = {**other[0], "timestamp": "2026-12-03T10:00:00Z", "message": {"role": "user", "content": "lint it"}}
    _cc_file(tmp_path / "A.jsonl", lines[:2], "SA")
    _cc_file(tmp_path / "B.jsonl", other, "SB")
    for f in ("A.jsonl", "B.jsonl"):
        assert run_cli(capsys, "--dir", str(project), "import", "claude-code", str(tmp_path / f), "--here")[0] == 0
    with memdir.open(project, home=tmp_path / "g") as m:
        assert len(m.recent(kinds=["tool"])) == 2
