"""The plain-text transcript importers: Claude Code ``/export`` text, SpecStory Markdown, Aider chat history.

Hand-written fixtures (tests/fixtures/importers/claude_export_2026-03-14.txt, specstory_*.md, aider_chat_history.md)
carry the exact expectations and run without ../shared; the real files of ../shared/data/transcripts are each read,
imported and imported again."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import memdir
from memdir.cli.main import cli
from memdir.portability.importers import iter_events, project_transcripts, resolve_paths
from memdir.portability.transcripts import import_host

from conftest import shared_path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importers"
EXPORT = FIXTURES / "claude_export_2026-03-14.txt"
SPEC_ZH = FIXTURES / "specstory_2026-04-02_08-15Z-部署失败.md"
SPEC_OLD = FIXTURES / "specstory_older_layout.md"
AIDER = FIXTURES / "aider_chat_history.md"
#: the secrets planted in the fixtures (redaction must remove each)
SECRETS = {"claude-export": "Hx7kq2Lm9wZpR4", "specstory": "Vq9mTz4kLw2Rx7", "aider": "Rk29xQv7Lm3Tz8Wn5Yp1"}

#: the real files of each format (../shared/data/transcripts), by the importer that reads them
REAL = {
    "claude-export": [("claude-code-export", "saross__trap-extraction", f) for f in
                      ("2025-11-23-n.txt", "2025-11-24-a.txt", "2025-11-25-a.txt")],
    "specstory": [("specstory", "BillWan-zzzyyy__alpamayo", f) for f in
                  ("2026-02-21_05-56Z-移除alpamayo-github库.md", "2026-03-02_01-05Z-file-path-explanation.md",
                   "2026-03-02_06-49Z-推理速度与论文不符.md")]
                 + [("specstory", "twardoch__twat-cache", f) for f in
                    ("2025-03-04_03-25-codebase-analysis-and-todo-md-update.md", "merging-files-from-wrong-location.md",
                     "running-lint-fix-command.md")],
    "aider": [("aider", "Aider-AI__aider", f) for f in ("add-test.md", "census.md", "chat-transcript-css.md",
                                                        "complex-change.md")]
             + [("aider", "Aquaticat__Monochromatic", ".aider.chat.history.md")],
}
REAL_CASES = [(source, parts) for source, files in REAL.items() for parts in files]


def _project(base: Path, name: str) -> Path:
    p = base / name
    (p / ".git").mkdir(parents=True)
    return p


def _texts(m) -> list[str]:
    return [e.text for e in m.recent(kinds=["event"], limit=10_000)]


# ---------------------------------------------------------------- the parsers, on hand-written fixtures

def test_export_fixture_events_roles_tools_and_times():
    stats = Counter()
    evs = list(iter_events("claude-export", EXPORT, stats=stats))
    assert [e["role"] for e in evs] == ["user", "assistant", "tool", "tool", "assistant", "user", "user", "tool",
                                        "assistant"]
    first = evs[0]["text"]  # the wrapped prompt joined back, its breaks kept as spaces
    assert first.startswith("The nightly build of demo-proj fails on the arm64 runner. The database password=")
    assert "\n" not in first and "linker step breaks." in first
    tools = [e for e in evs if e["role"] == "tool"]
    assert [e["meta"]["tool"] for e in tools] == ["Read", "Bash", "Edit"]  # display names mapped: Update -> Edit
    assert tools[1]["text"].startswith("Bash: make -C native link ARCH=arm64 → error:")
    assert "ld: cannot find -lzstd" in tools[1]["text"] and "6 more lines not exported" in tools[1]["text"]
    assert tools[1]["meta"]["is_error"] and tools[1]["input"] == {"command": "make -C native link ARCH=arm64"}
    # the terminal's wrap of a message is undone: one paragraph, one line
    assert evs[4]["text"].startswith("The linker cannot find libzstd for arm64: the runner image lacks the libzstd-dev")
    # no time in an export: the file name's date, one millisecond apart in file order
    assert evs[0]["ts"] == "2026-03-14T00:00:00+00:00" and evs[1]["ts"] == "2026-03-14T00:00:00.001000+00:00"
    assert len({e["key"] for e in evs}) == len(evs) and all(e["key"].startswith("import:claude-export:") for e in evs)
    assert [e["key"] for e in iter_events("claude-export", EXPORT)] == [e["key"] for e in evs]  # deterministic


def _export(tmp_path, body: str) -> list[dict]:
    box = "╭─── Claude Code v2.0.99 " + "─" * 54 + "╮"
    f = tmp_path / "2026-03-20-w.txt"
    f.write_text(box + "\n│ /…/x │\n╰" + "─" * 78 + "╯\n\n" + body, encoding="utf-8")
    return list(iter_events("claude-export", f))


def test_export_terminal_wraps_rejoined_structure_kept(tmp_path):
    """An export is the terminal's rendering at its width: a line the terminal broke (the next word would not fit)
    is joined back, with a space, or without one where a word longer than the line was cut (a path) or between two
    CJK characters; real breaks (short lines, list items, a numbered diff row, a line ending ':', boxes) stay."""
    path = "/media/user/0cf05d3d-8805-4d0d-0cf0-5d3d8468aa01/synology/projects/TRAP-WD-2020-04/out"
    para = ("The pre-commit hook keeps failing on the credo check because the nested modules could be aliased at "
            "the top of waiting_summary.ex, which is not our change.")
    zh = "然后我们检查一下虚拟环境里面的可执行文件是否存在以及它的解释器路径是不是已经失效了，再决定下一步怎么做。"
    wrapped = textwrap.wrap(para, 76)  # greedy, as the terminal wraps (76 columns after the two of "● ")
    assert len(wrapped) >= 2 and len(wrapped[-1]) < 50
    evs = _export(tmp_path, (
        "● " + "\n  ".join(wrapped) + "\n"
        "  Two options:\n"
        "  - fix the credo warnings in the file\n"
        "  - skip the hook\n"
        "  The last line is short.\n"
        "  " + zh[:37] + "\n  " + zh[37:] + "\n\n"  # 37 wide characters: 74 columns
        "● Bash(trap-extraction/venv/bin/pip install git-filter-repo)\n"
        "  ⎿  Error: Exit code 127\n"
        "     /bin/bash: line 1: trap-extraction/venv/bin/pip: cannot execute: required \n"
        "     file not found\n\n"
        "● Bash(pwd)\n"
        "  ⎿  Shell cwd was reset to " + path[:50] + "\n"
        "    " + path[50:] + "\n\n"
        "● Bash(ls -la venv/bin/)\n"
        "  ⎿  total 76\n"
        "     drwxrwxr-x 3 shawn shawn  4096 Nov 20 16:37 .\n"
        "     drwxrwxr-x 5 shawn shawn  4096 Nov 20 16:37 ..\n\n"
        "● Update(README.md)\n"
        "  ⎿  Updated README.md with 1 addition\n"
        "        3 -  **Completion Date:** November 2025, when the last of the walkers was\n"
        "        3 +  **Completion Date:** 22 November 2025\n"))
    said, pip, cwd, ls, diff = evs
    lines = said["text"].split("\n")
    assert lines[0] == para
    assert lines[1:5] == ["Two options:", "- fix the credo warnings in the file", "- skip the hook",
                          "The last line is short."]
    assert lines[5] == zh
    assert "cannot execute: required file not found" in pip["text"]
    assert cwd["text"].endswith("Shell cwd was reset to " + path)  # the cut path is one token again
    assert ls["text"].count("\n") == 2 and diff["text"].count("\n") == 2  # rows stay rows


def test_export_slash_command_output_is_a_tool_event(tmp_path):
    """What a slash command printed under the prompt (``/export`` failing) is a tool event naming the command as
    typed (the gate drops the prompt itself); its wrapped path is one token again; ``/compact``'s is not kept."""
    stats = Counter()
    f = tmp_path / "2026-03-22-s.txt"
    f.write_text("> /export archive/chat.txt \n"
                 "  ⎿ Failed to export conversation: ENOENT: no such file or directory, open \n"
                 "    '/media/dana/191c3b96-5fa5-4d0d-8805-0cf05d3d8468/synology/projects/TRAP-WD-20\n"
                 "    20-04/archive/chat.txt'\n\n"
                 "> /export chat.txt \n  ⎿  Conversation exported to: chat.txt\n\n"
                 "> /compact \n  ⎿  Compacted (ctrl+o to see full summary)\n", encoding="utf-8")
    evs = list(iter_events("claude-export", f, stats=stats))
    assert [e["role"] for e in evs] == ["user", "tool", "user", "tool", "user"]
    failed, done = evs[1], evs[3]
    assert failed["text"] == ("claude: /export archive/chat.txt → error: Failed to export conversation: ENOENT: no such "
                              "file or directory, open '/media/dana/191c3b96-5fa5-4d0d-8805-0cf05d3d8468/synology/"
                              "projects/TRAP-WD-2020-04/archive/chat.txt'")
    assert failed["meta"]["is_error"] and not done["meta"]["is_error"] and ":L2." in failed["key"]
    assert done["text"] == "claude: /export chat.txt → Conversation exported to: chat.txt"
    assert stats["skipped:command_output"] == 1  # /compact's


def test_export_unwrap_never_runs_rows_or_words_together():
    """What must stay apart: a listing's rows and a log's lines in a result (no break mark), two paths on a short
    line, Korean words (spaced), code indented under its line; what must join without a space: a word cut at the full
    width of a result; and with one: a prose line whose break kept its space."""
    from memdir.portability.importers.wraps import unwrap

    ls = ["total 76", "-rw-r--r-- 1 shawn shawn 10245 Nov 23 23:06 akb-submission-todo-with-a-long-name.md",
          "drwxrwxr-x 10 shawn shawn  4096 Nov 20 16:37 archive"]
    log = ["4bb043f aider: Added the census download script and its tests", "9ff3666 Fix the scatter plot axis",
           "a1b2c3d Initial commit"]
    assert unwrap(ls, 88, result=True) == ls and unwrap(log, 70, result=True) == log
    two = ["git add archive/cc-interactions/2025-11-23-m.txt", "archive/cc-interactions/2025-11-23-n.txt"]
    assert unwrap(two, 76) == [" ".join(two)]  # a break at a space on a short line, not a cut word
    full = "FAIR/FAIR4RS documentation for v1.0.0 release, with the compli"
    assert unwrap([full, "ance notes"], len(full), result=True) == [full + "ance notes"]
    spaced = ["See the notes in docs/design-of-the-store.md ", "docs/the-index-and-its-migrations.md too"]
    assert unwrap(spaced, 48) == ["See the notes in docs/design-of-the-store.md docs/the-index-and-its-migrations.md too"]
    assert unwrap(["데이터베이스 연결이 끊어져서 다시 시도한 뒤에 결과를 데이터베이스에", "저장합니다"], 60) == [
        "데이터베이스 연결이 끊어져서 다시 시도한 뒤에 결과를 데이터베이스에 저장합니다"]
    code = ["def extract(rows: list[dict], names: list[str], keep_order: bool = True) -> list[str]:",
            "    return [r['name'] for r in rows if r['name'] in names]"]
    assert unwrap(code, 86) == code
    assert unwrap(["- fix the credo warnings in waiting_summary.ex and the slice builder before", "  committing"],
                  76) == ["- fix the credo warnings in waiting_summary.ex and the slice builder before committing"]


def test_export_from_a_mac_reads_the_same(tmp_path, monkeypatch):
    """Claude Code on macOS marks a reply and a tool call with ``⏺``, not ``●``: the same file gives the same events;
    a file with neither a prompt nor a reply says it is not an export (one warning line), and ``memdir import FILE``
    of an export hints at ``claude-export``."""
    import logging

    mac = tmp_path / EXPORT.name
    mac.write_text(EXPORT.read_text(encoding="utf-8").replace("●", "⏺"), encoding="utf-8")
    strip = lambda evs: [(e["role"], e["text"], e["meta"].get("tool")) for e in evs]  # noqa: E731
    assert strip(iter_events("claude-export", mac)) == strip(iter_events("claude-export", EXPORT))
    other = tmp_path / "notes.txt"
    other.write_text("shopping list\n- milk\n", encoding="utf-8")
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("memdir")
    logger.addHandler(handler)
    try:
        assert list(iter_events("claude-export", other)) == []
    finally:
        logger.removeHandler(handler)
    assert any("not a Claude Code /export text" in r.getMessage() for r in records)
    monkeypatch.chdir(_project(tmp_path, "p"))
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "home"))
    res = CliRunner().invoke(cli, ["import", str(mac), "--json"])
    assert json.loads(res.stdout)["hint"].startswith(f"{mac} is a claude-export transcript") and res.exit_code == 1


def test_export_plan_the_user_rejected_is_kept_unboxed(tmp_path):
    """``⎿  User rejected Claude's plan:`` under a message is not a status line to skip: the boxed plan under it is
    what was decided (or turned down), kept as an ExitPlanMode tool event, box sides gone, its wraps undone."""
    inner = 73
    row = lambda t: "     │ " + t.ljust(inner - 2) + " │"  # noqa: E731
    stats = Counter()
    f = tmp_path / "2026-03-21-p.txt"
    f.write_text("> plan the walker clean-up\n\n● The plan is ready. Here's a summary.\n"
                 "  ⎿  User rejected Claude's plan:\n     ╭" + "─" * inner + "╮\n"
                 + row("Name Standardisation Plan") + "\n" + row("") + "\n"
                 + row("Action: convert every entry to pipes. Split on pipes first, then on commas") + "\n"
                 + row("within each part, and rejoin with a single pipe.") + "\n"
                 + row("- Dr. Ross training R. Lawrence: split into two names") + "\n"
                 + "     ╰" + "─" * inner + "╯\n", encoding="utf-8")
    evs = list(iter_events("claude-export", f, stats=stats))
    assert [e["role"] for e in evs] == ["user", "assistant", "tool"] and not stats["skipped:status"]
    plan = evs[2]
    assert plan["meta"]["tool"] == "ExitPlanMode" and ":L4." in plan["key"]
    assert plan["text"].split("\n") == [
        "ExitPlanMode → User rejected Claude's plan:", "Name Standardisation Plan",
        "Action: convert every entry to pipes. Split on pipes first, then on commas within each part, and rejoin "
        "with a single pipe.", "- Dr. Ross training R. Lawrence: split into two names"]


def test_export_shortened_cwd_found_among_the_files_ancestors(tmp_path):
    proj = _project(tmp_path / "work", "demo-proj")
    (proj / "exports").mkdir()
    shutil.copy(EXPORT, proj / "exports" / EXPORT.name)
    evs = list(iter_events("claude-export", proj / "exports" / EXPORT.name))
    assert {e["meta"].get("cwd") for e in evs} == {str(proj.resolve())}  # header "/…/work/demo-proj"
    assert all("cwd" not in e["meta"] for e in iter_events("claude-export", EXPORT))  # elsewhere: not known


def test_specstory_v2_fixture_chinese_tools_thinking():
    stats = Counter()
    evs = list(iter_events("specstory", SPEC_ZH, stats=stats))
    assert [e["role"] for e in evs] == ["user", "tool", "tool", "assistant", "user", "tool", "assistant"]
    assert evs[0]["session"] == "5b0c1d2e-7f3a-4a9b-8c6d-0e1f2a3b4c5d" and evs[0]["meta"]["host"] == "cursor"
    assert evs[0]["ts"] == "2026-04-02T08:15:00+00:00"
    assert evs[0]["text"].startswith("预发布环境部署一直失败，日志里说数据库连接被拒绝。")
    assert stats["skipped:thinking"] == 1 and not any("Thought Process" in e["text"] for e in evs)
    assert evs[1]["meta"] == {"line": 23, "host": "cursor", "tool": "Bash", "host_tool": "run_terminal_command_v2"}
    assert evs[1]["text"] == "Bash: ls deploy/ → staging.env\ndocker-compose.yml" and evs[1]["input"] == {"command": "ls deploy/"}
    assert evs[5]["text"].startswith("Edit: deploy/staging.env")


def test_specstory_older_layout_fixture():
    evs = list(iter_events("specstory", SPEC_OLD))
    assert [e["role"] for e in evs] == ["user", "assistant", "tool", "tool", "assistant"]
    assert evs[0]["session"] == "specstory_older_layout" and evs[0]["ts"] == "2025-05-12T14:03:09+00:00"  # DD/MM/YYYY
    assert [e["meta"]["tool"] for e in evs if e["role"] == "tool"] == ["LS", "Bash"]
    # no exit status in the file: the output's FAILED line says the run failed
    assert evs[3]["text"].startswith("Bash: pytest tests/test_cache.py -k expiry -x -q → error: F\nFAILED")


def test_aider_fixture_launches_prompts_edits_and_runs():
    stats = Counter()
    evs = list(iter_events("aider", AIDER, stats=stats))
    assert [(e["session"], e["role"]) for e in evs] == [
        ("aider-20260503-091244", "tool"), ("aider-20260503-091244", "user"), ("aider-20260503-091244", "assistant"),
        ("aider-20260503-091244", "tool"), ("aider-20260503-091244", "tool"), ("aider-20260503-091244", "user"),
        ("aider-20260503-091244", "tool"), ("aider-20260504-164002", "tool"), ("aider-20260504-164002", "user"),
        ("aider-20260504-164002", "assistant")]
    # each launch's banner is kept: the version, model and repository a later question asks about
    assert evs[0]["text"] == "aider → Aider v0.86.1\nModel: gpt-4.1 with diff edit format\nGit repo: .git with 31 files"
    assert evs[7]["text"] == "aider → Aider v0.86.1\nModel: gpt-4.1 with diff edit format"
    assert evs[2]["text"] == "I'll rename the function and its one caller."  # the edit block left the prose
    assert evs[3]["text"] == "Edit: settings.py (-1 +1 lines)\n- def parse_cfg(path):\n+ def load_settings(path):"
    assert evs[4]["text"] == "aider → Applied edit to settings.py\nCommit 4f2a9c1 refactor: rename parse_cfg to load_settings"
    assert evs[6]["text"] == "aider: /run pytest -q tests/test_settings.py → 3 passed in 0.41s"  # the command as typed
    assert evs[8]["text"].endswith("please keep it out of settings.py\nand read it from the environment instead")
    assert evs[0]["ts"] == "2026-05-03T09:12:44+00:00" and evs[7]["ts"] == "2026-05-04T16:40:02+00:00"
    assert stats["skipped:banner"] == 0 and stats["skipped:noise"] == 2  # token/cost lines


def test_aider_a_banner_repeated_by_a_later_launch_is_stored_once(tmp_path):
    text = AIDER.read_text(encoding="utf-8")
    again = text[text.index("# aider chat started at 2026-05-04"):].replace("2026-05-04 16:40:02", "2026-05-05 08:00:00")
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(text + "\n" + again.replace("the deploy token", "a later prompt about the token"), encoding="utf-8")
    stats = Counter()
    evs = list(iter_events("aider", path, stats=stats))
    banners = [e for e in evs if e["text"].startswith("aider → Aider v")]
    assert [e["session"] for e in banners] == ["aider-20260503-091244", "aider-20260504-164002"]
    assert stats["skipped:banner"] == 1 and evs[-2]["session"] == "aider-20260505-080000"


# ---------------------------------------------------------------- through the one gate and the one ingest loop

@pytest.mark.parametrize("source,fixture", [("claude-export", EXPORT), ("specstory", SPEC_ZH), ("aider", AIDER)])
def test_fixture_import_redacts_gates_and_reimports_nothing(tmp_path, source, fixture):
    proj = _project(tmp_path, "p")
    with memdir.open(proj, home=tmp_path / "home") as m:
        out = import_host(m, source, fixture, projects="here", progress=False)
        assert out["stored"] > 0 and out["read_by_role"]["user"] > 0 and out["read_by_role"]["assistant"] > 0
        texts = _texts(m)
        assert not any(SECRETS[source] in t for t in texts)
        assert any("[redacted:" in t for t in texts)
        again = import_host(m, source, fixture, projects="here", progress=False)
        assert again["stored"] == 0 and again["duplicate"] == out["stored"] + out["duplicate"]
    gated = out["skipped_by"]
    if source == "claude-export":
        assert gated == {"noisy_tool": 1, "trivial": 1}  # the Read call and "thanks"
    if source == "specstory":
        assert gated == {"noisy_tool": 1}  # `ls deploy/`: a shell read
    if source == "aider":
        assert gated == {"slash_command": 1}  # "/run …" itself (its output is kept)


def test_chinese_specstory_text_round_trips_and_is_recalled(tmp_path):
    proj = _project(tmp_path, "p")
    with memdir.open(proj, home=tmp_path / "home") as m:
        import_host(m, "specstory", SPEC_ZH, projects="here", progress=False)
        texts = _texts(m)
        assert "好的，改成 shop-db 并记下来：预发布数据库主机名是 shop-db" in texts
        assert "已把 `deploy/staging.env` 的数据库主机改为 `shop-db`。" in texts
        hits = m.recall("预发布数据库主机名", k=3)
        assert hits and "预发布数据库主机名是 shop-db" in hits[0].text


def test_sessions_without_a_directory_need_here_and_say_so(tmp_path, monkeypatch):
    proj = _project(tmp_path, "p")
    monkeypatch.chdir(proj)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "home"))
    r = CliRunner().invoke(cli, ["import", "claude-export", str(EXPORT)])
    assert r.exit_code == 1 and "no directory: use --here" in r.stdout  # nothing imported: exit 1
    r = CliRunner().invoke(cli, ["import", "claude-export", str(EXPORT), "--here", "--json"], catch_exceptions=False)
    assert json.loads(r.stdout)["stored"] == 7


def test_routing_by_the_project_the_file_lies_in(tmp_path, monkeypatch):
    a, b = _project(tmp_path, "alpha"), _project(tmp_path, "bravo")
    shutil.copy(AIDER, a / ".aider.chat.history.md")
    (a / ".specstory" / "history").mkdir(parents=True)
    shutil.copy(SPEC_ZH, a / ".specstory" / "history" / SPEC_ZH.name)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(b)
    runner = CliRunner()
    for source, path in (("aider", a / ".aider.chat.history.md"), ("specstory", a / ".specstory" / "history")):
        r = runner.invoke(cli, ["import", source, str(path), "--json"])
        out = json.loads(r.stdout)
        assert out["stored"] == 0 and out["sessions"]["other_project"] >= 1 and out["other_projects"] == [str(a)]
        assert r.exit_code == 1
        out = json.loads(runner.invoke(cli, ["import", source, str(path), "--all-projects", "--json"],
                                       catch_exceptions=False).stdout)
        assert out["stored"] > 0 and list(out["projects"]) == [str(a)]
    assert not (b / ".memory").exists()


def test_plain_import_discovers_the_projects_own_histories(tmp_path, monkeypatch):
    proj = _project(tmp_path, "p")
    (proj / "src").mkdir()
    (proj / ".specstory" / "history").mkdir(parents=True)
    shutil.copy(SPEC_ZH, proj / ".specstory" / "history" / SPEC_ZH.name)
    shutil.copy(SPEC_OLD, proj / ".specstory" / "history" / SPEC_OLD.name)
    shutil.copy(AIDER, proj / ".aider.chat.history.md")
    assert {h: len(f) for h, f in project_transcripts(proj).items()} == {"specstory": 2, "aider": 1}
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(proj / "src")
    runner = CliRunner()
    r = runner.invoke(cli, ["import"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "specstory: found 2 files in" in r.stdout and "aider: found 1 file in" in r.stdout
    out = json.loads(runner.invoke(cli, ["import", "--json"], catch_exceptions=False).stdout)
    assert set(out["found"]) == {"specstory", "aider"}
    assert all(res["stored"] == 0 and res["duplicate"] > 0 for res in out["imports"].values())  # second run
    # a source without PATH reads the project's own location too
    out = json.loads(runner.invoke(cli, ["import", "aider", "--json"], catch_exceptions=False).stdout)
    assert out["files"] == 1 and out["stored"] == 0 and out["sessions"]["imported"] == 2


def test_plain_import_without_histories_names_where_it_looked(tmp_path, monkeypatch):
    proj = _project(tmp_path, "p")
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(proj)
    r = CliRunner().invoke(cli, ["import"])
    assert isinstance(r.exception, memdir.UsageError)  # exit 2 from the command line
    assert ".specstory/history" in str(r.exception) and ".aider.chat.history.md not found" in str(r.exception)


def test_a_text_transcript_given_to_another_importer_gets_a_hint(tmp_path, monkeypatch):
    proj = _project(tmp_path, "p")
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(proj)
    r = CliRunner().invoke(cli, ["import", "claude-code", str(EXPORT), "--here", "--json"])
    assert json.loads(r.stdout)["hint"] == f"{EXPORT} is a claude-export transcript: memdir import claude-export {EXPORT} [--here]"
    assert r.exit_code == 1 and "nothing imported" in str(r.exception)  # a script must not read it as success


def test_directory_expansion(tmp_path):
    (tmp_path / "notes.md").write_text("# project notes\n", encoding="utf-8")
    shutil.copy(SPEC_OLD, tmp_path / SPEC_OLD.name)
    assert resolve_paths("specstory", tmp_path) == [tmp_path / SPEC_OLD.name]
    shutil.copy(EXPORT, tmp_path / EXPORT.name)
    assert resolve_paths("claude-export", tmp_path) == [tmp_path / EXPORT.name]


# ---------------------------------------------------------------- every real file of ../shared

@pytest.mark.shared
@pytest.mark.parametrize("source,parts", REAL_CASES, ids=[p[-1] for _, p in REAL_CASES])
def test_real_file_imports_and_reimports_nothing(tmp_path, source, parts):
    path = shared_path("data", "transcripts", *parts)
    evs = list(iter_events(source, path))
    roles = Counter(e["role"] for e in evs)
    assert roles["user"] > 0 and roles["assistant"] > 0
    assert len({e["key"] for e in evs}) == len(evs) and all(e["ts"] for e in evs)
    assert [(e["key"], e["ts"], e["text"]) for e in iter_events(source, path)] == \
        [(e["key"], e["ts"], e["text"]) for e in evs]  # nothing depends on the clock
    with memdir.open(_project(tmp_path, "p"), home=tmp_path / "home") as m:
        out = import_host(m, source, path, projects="here", progress=False)
        assert out["stored"] > 0 and out["kept_by_role"]["user"] > 0 and out["kept_by_role"]["assistant"] > 0
        assert import_host(m, source, path, projects="here", progress=False)["stored"] == 0


def test_aider_an_in_chat_command_is_kept_as_typed(tmp_path):
    """The gate drops a slash-command prompt, so its output's event carries the command as the user typed it."""
    path = tmp_path / "chat.md"
    path.write_text("# aider chat started at 2026-05-03 09:12:44\n\n#### /add aider/main.py  \n\n"
                    "> Added aider/main.py to the chat  \n\n#### /drop   aider/main.py\n\n"
                    "> Removed aider/main.py from the chat\n", encoding="utf-8")
    evs = [e for e in iter_events("aider", path) if e["role"] == "tool"]
    assert [e["text"] for e in evs] == ["aider: /add aider/main.py → Added aider/main.py to the chat",
                                        "aider: /drop aider/main.py → Removed aider/main.py from the chat"]
    assert all(e.get("input") is None for e in evs)  # not a shell command: nothing for the shell gate to judge


def test_aider_a_run_whose_tests_failed_reads_as_a_failure(tmp_path):
    """Aider writes no exit status: a /run output with a test runner's failure leads with why, like a failed shell
    call; a passing run does not."""
    path = tmp_path / "chat.md"
    path.write_text("# aider chat started at 2026-05-03 09:12:44\n\n#### /run pytest tests/test_commands.py\n\n"
                    "> tests/test_commands.py F\n> E       AttributeError: 'list' object has no attribute 'split'\n"
                    "> 1 failed in 0.05s\n\n#### /run pytest tests/test_commands.py\n\n> 1 passed in 0.04s\n",
                    encoding="utf-8")
    failed, passed = [e["text"] for e in iter_events("aider", path) if e["role"] == "tool"]
    assert failed.startswith("aider: /run pytest tests/test_commands.py → error") and "'split'" in failed
    assert passed == "aider: /run pytest tests/test_commands.py → 1 passed in 0.04s"


def test_specstory_terminal_output_cut_at_its_width_is_joined_back(tmp_path):
    """The earlier layout copies what Cursor's terminal drew: every row longer than the terminal is cut at its width,
    character by character (mid-word, mid-path); those rows are joined back, each block at its own width, and a
    listing whose rows merely tie in length, or a narrow block, stays as it is."""
    def wrap(text: str, width: int) -> list[str]:
        return [text[i:i + width] for i in range(0, len(text), width)]

    lint = ["tests/test_redis_cache.py:69:32: PLR2004 Magic value used in comparison, consider replacing 3 with a "
            f"constant variable number {i}" for i in range(3)]
    pip = "Requirement already satisfied: pydantic in /usr/local/lib/python3.10/site-packages (2.10.6)"
    listing = ["-rw-r--r-- 1 adam staff 1200 Mar  4 03:25 alpha.py", "-rw-r--r-- 1 adam staff 1200 Mar  4 03:25 gamma.py",
               "-rw-r--r-- 1 adam staff 1200 Mar  4 03:25 omega.py", "-rw-r--r-- 1 adam staff 1200 Mar  4 03:25 delta.py",
               "total 4"]
    rows74 = [r for line in lint for r in wrap(line, 74)]
    rows66 = wrap(pip, 66) + wrap(pip.replace("pydantic", "pytest12"), 66) + wrap(pip.replace("pydantic", "loguru99"), 66)
    doc = ["## SpecStory", "", "## Lint (16/02/2025, 05:40:26)", "", "_**User**_", "", "run the linters", "", "---", "",
           "_**Assistant**_", "", "Running them.", "", "---", ""]
    for cmd, rows in (("hatch run lint", rows74), ("pip install pydantic", rows66), ("ls -l", listing)):
        doc += ["_****_", "", "```bash", cmd, "```", "", "```", *rows, "```", "", "---", ""]
    path = tmp_path / "lint.md"
    path.write_text("\n".join(doc), encoding="utf-8")
    tools = [e["text"] for e in iter_events("specstory", path) if e["role"] == "tool"]
    assert tools[0] == "Bash: hatch run lint → " + "\n".join(lint)
    assert tools[1] == "Bash: pip install pydantic → " + "\n".join(
        [pip, pip.replace("pydantic", "pytest12"), pip.replace("pydantic", "loguru99")])
    assert tools[2] == "Bash: ls -l → " + "\n".join(listing)  # rows of one length, under the narrowest terminal


def test_hard_wrap_needs_full_rows_that_run_on():
    from memdir.portability.importers.wraps import hard_wrap_width, unhard_wrap

    row = "x" * 70
    assert hard_wrap_width([row, "a", row, "b", row, "c"]) == 70
    assert hard_wrap_width([row, "a", row, "b"]) is None  # two ties are not a terminal's width
    assert hard_wrap_width(["a", row, row, row]) is None  # the last full row runs on into nothing: two count
    assert unhard_wrap([row, "a", "b", row, row, "c"], 70) == [row + "a", "b", row + row + "c"]
    assert hard_wrap_width(["部署" * 35, "失败", "部署" * 35, "了", "部署" * 35, "!"]) == 140  # wide characters: columns


def test_hard_wrap_leaves_drawn_and_tabular_output_alone():
    """What a program draws at the terminal's width on purpose stays as it is: pytest's rules, a table, rows that all
    have one width (``sha256sum``); a wide character that could not take the last column still ends a cut row."""
    import hashlib

    from memdir.portability.importers.wraps import hard_wrap_width, unhard_wrap

    rule = "=" * 30 + " test session starts " + "=" * 29
    pytest_out = [rule, "platform linux -- Python 3.11.7, pytest-8.3.4", "=" * 35 + " FAILURES " + "=" * 35,
                  "_" * 35 + " test_bad " + "_" * 35, "E   assert 1 == 2", "=" * 30 + " 1 failed in 0.1s " + "=" * 32]
    assert hard_wrap_width(pytest_out) is None
    sums = [hashlib.sha256(str(i).encode()).hexdigest() + f"  file_{i:03d}.txt" for i in range(20)]
    assert hard_wrap_width(sums) is None
    table = ["+" + "-" * 68 + "+"] + [f"| {i:<66} |" for i in range(8)] + ["+" + "-" * 68 + "+"]
    assert hard_wrap_width(table) is None
    rows = ["A" * 69, "部署", "B" * 70, "x", "C" * 70, "y"]  # 69 + a wide character: 71 > 70, so it went on
    assert hard_wrap_width(rows) == 70 and unhard_wrap(rows, 70) == ["A" * 69 + "部署", "B" * 70 + "x", "C" * 70 + "y"]
    mixed = [rule, "C" * 80, "dd", "E" * 80, "ff", "G" * 80, "hh"]
    assert unhard_wrap(mixed, 80) == [rule, "C" * 80 + "dd", "E" * 80 + "ff", "G" * 80 + "hh"]


def test_a_turn_inserted_into_a_text_history_is_stored_on_the_next_import(project, tmp_path):
    """SpecStory, /export and Aider turns were keyed by their line alone: a turn inserted above others (or an edited
    one) took the key of the turn that used to start there and was skipped as already stored. Moved turns are
    recognised by their text and not stored twice."""
    import memdir
    from memdir.portability.transcripts import import_host

    history = tmp_path / ".aider.chat.history.md"
    history.write_text("# aider chat started at 2025-06-02 11:47:49\n\n#### how do we deploy the api?\n\n"
                       "Run `make deploy` from the repository root.\n\n#### and roll it back?\n\n"
                       "Run `make rollback` with the release tag.\n", encoding="utf-8")
    with memdir.open(project, home=tmp_path / "g") as m:
        first = import_host(m, "aider", history, projects="here", progress=False)
        assert first["stored"] == 4
        text = history.read_text(encoding="utf-8").replace(
            "#### how do we deploy the api?", "#### which region is the api in?\n\nIt runs in eu-west-3.\n\n"
            "#### how do we deploy the api?")
        history.write_text(text, encoding="utf-8")
        again = import_host(m, "aider", history, projects="here", progress=False)
        assert again["stored"] == 2, again  # the inserted question and answer; the four moved turns are known
        texts = [h.text for h in m.recent(kinds=["event"], limit=50)]
        assert len(texts) == 6 and any("eu-west-3" in t for t in texts)


def test_export_rows_that_carry_the_break_s_space_are_joined_back(tmp_path):
    """Claude Code's renderer sometimes moves the space it broke at to the start of the next row, one column deeper:
    "Let me analyze" / " the current plan first." stayed two lines (17 of 81 replies of the sample exports), and in a
    result a full row then lost the space between its words ("in thedataset")."""
    para = ("I'll review the documentation-update-plan.md against the FAIR and FAIR4RS principles and identify what "
            "needs to be added or modified. Let me analyze the current plan first.")
    rows = textwrap.wrap(para, 76)  # greedy, as the terminal wraps (76 columns after the two of "● ")
    assert len(rows) == 3
    evs = _export(tmp_path, "● " + rows[0] + "\n  " + rows[1] + "\n   " + rows[2] + "\n")  # the last row carries the space
    assert evs[0]["text"] == para
    evs = _export(tmp_path, "● " + rows[0] + "\n   " + rows[1] + "\n  " + rows[2] + "\n")  # a middle row carries it
    assert evs[0]["text"] == para


def test_specstory_tool_blocks_read_as_text_not_as_html_or_json(tmp_path):
    """A SpecStory tool block is HTML: the tool printed "HEAD -> main" and "`uv sync`", the block holds "HEAD -&gt;
    main" and "&#96;uv sync&#96;", which were stored so (and shown in blocks); a plan tool's argument is a JSON object
    whose plan was stored with its "\\n" escapes."""
    head = SPEC_ZH.read_text(encoding="utf-8").split("_**User**_", 1)[0]
    plan = json.dumps({"plan": "# Fix the build\n\n&#96;uv sync&#96; fails: install the CUDA toolkit first."},
                      ensure_ascii=False)
    doc = head + "\n".join([
        "_**User**_", "", "why does uv sync fail?", "", "---", "", "_**Agent (model default, mode Agent)**_", "",
        '<tool-use data-tool-type="shell" data-tool-name="run_terminal_command_v2">',
        "<details><summary>Tool use: **run_terminal_command_v2** • Run command: git log --oneline -1</summary>", "",
        "```bash", "git log --oneline -1", "```", "", "```", "e0e2ac3 (HEAD -&gt; main) docs: &#96;uv&#96; notes",
        "```", "</details>", "</tool-use>", "", "---", "",
        '<tool-use data-tool-type="unknown" data-tool-name="create_plan">',
        "<details><summary>Tool use: **create_plan**</summary>", "", "Parameters:", "", "```json", plan, "```",
        "</details>", "</tool-use>", ""])
    path = tmp_path / "2026-04-03_08-15Z-uv.md"
    path.write_text(doc, encoding="utf-8")
    tools = [e["text"] for e in iter_events("specstory", path) if e["role"] == "tool"]
    assert any("e0e2ac3 (HEAD -> main) docs: `uv` notes" in t for t in tools), tools
    [planned] = [t for t in tools if t.startswith("create_plan")]
    assert "# Fix the build" in planned and "`uv sync` fails" in planned and "\\n" not in planned and "&#96;" not in planned


def test_the_import_summary_counts_unreadable_lines(tmp_path):
    """The warnings name the first three unreadable lines and said the rest were "counted in the result": the count
    was in --json alone."""
    from memdir.portability.transcripts import summary

    base = {"files": 1, "read": 3, "read_by_role": {"user": 1, "assistant": 1, "tool": 1}, "stored": 3,
            "kept_by_role": {"user": 1, "assistant": 1, "tool": 1}, "duplicate": 0, "skipped": 0, "skipped_by": {},
            "sessions": {"other_project": 0, "cwd_missing": 0, "no_cwd": 0, "imported": 1}, "projects": {},
            "missing_dirs": [], "other_projects": []}
    assert "unreadable" not in summary({**base, "bad_lines": 0})
    assert summary({**base, "bad_lines": 112}).split("\n")[0].endswith("; 112 unreadable lines skipped")
    assert summary({**base, "bad_lines": 1}).split("\n")[0].endswith("; 1 unreadable line skipped")
    # every session of the file belongs elsewhere: not "0 events read" of a file full of them
    elsewhere = {**base, "read": 0, "stored": 0, "read_by_role": {"user": 0, "assistant": 0, "tool": 0},
                 "kept_by_role": {"user": 0, "assistant": 0, "tool": 0}, "bad_lines": 0,
                 "sessions": {**base["sessions"], "no_cwd": 1, "imported": 0}}
    first, second = summary(elsewhere).split("\n")[:2]
    # no directory recorded (or, with --all-projects, only directories gone): "of this project" was not why
    assert first == "1 file: no session in it names a directory that exists here, nothing imported"
    assert second.endswith("records no directory: use --here to import it into this project")  # one session: "it"
    other = {**elsewhere, "sessions": {**base["sessions"], "other_project": 1, "imported": 0}}
    assert summary(other).split("\n")[0] == "1 file: no session of this project in it, nothing imported"


def test_specstory_reads_a_plan_only_from_a_plan_tool(tmp_path):
    """A shell command printing a JSON object with a "plan" key is what it printed, not that key's value."""
    head = SPEC_ZH.read_text(encoding="utf-8").split("_**User**_", 1)[0]
    printed = '{"plan": "free", "seats": 3}'
    doc = head + "\n".join([
        "_**User**_", "", "which plan are we on?", "", "---", "", "_**Agent (model default, mode Agent)**_", "",
        '<tool-use data-tool-type="shell" data-tool-name="run_terminal_command_v2">',
        "<details><summary>Tool use: **run_terminal_command_v2** • Run command: cat billing.json</summary>", "",
        "```bash", "cat billing.json", "```", "", "```", printed, "```", "</details>", "</tool-use>", ""])
    path = tmp_path / "2026-04-03_09-15Z-plan.md"
    path.write_text(doc, encoding="utf-8")
    [tool] = [e["text"] for e in iter_events("specstory", path) if e["role"] == "tool"]
    assert printed in tool


def test_specstory_older_layout_read_file_line_is_a_read_call(tmp_path):
    """The earlier layout writes a file the model read as one line, "Read file: src/x.py", in the agent's turn: it was
    stored as something the model said; it is a Read call (which the capture gate then treats as any read)."""
    head = SPEC_OLD.read_text(encoding="utf-8").split("_**User**_", 1)[0]
    doc = head + "\n".join(["_**User**_", "", "check the sql engine", "", "---", "", "_**Assistant**_", "",
                            "Let me look at the engine.", "", "---", "", "_****_", "", "Read file: src/engines/sql.py",
                            "", "---", "", "_****_", "", "The engine pickles values; JSON would be safer.", ""])
    path = tmp_path / "older.md"
    path.write_text(doc, encoding="utf-8")
    evs = list(iter_events("specstory", path))
    reads = [e for e in evs if e["role"] == "tool"]
    assert [e["meta"]["tool"] for e in reads] == ["Read"] and reads[0]["input"] == {"file_path": "src/engines/sql.py"}
    assert not any(e["role"] == "assistant" and e["text"].startswith("Read file:") for e in evs)


def test_specstory_older_layout_diff_part_is_an_edit_with_every_changed_line(tmp_path):
    """The earlier layout records a file change as a part that is one fenced diff (Cursor's edit result): it was stored
    as something the model said; it is an Edit call holding every changed line (an import has no other record of
    the change, so the lines are not bounded as a capture's are), its file the one the diff names, if any."""
    head = SPEC_OLD.read_text(encoding="utf-8").split("_**User**_", 1)[0]
    added = [f"+ LIMIT_{i} = {i} * 1024" for i in range(30)]
    doc = head + "\n".join(["_**User**_", "", "raise the limits", "", "---", "", "_**Assistant**_", "",
                            "Let me change the limits.", "", "---", "", "_****_", "", "```diff",
                            "  # this_file: src/pkg/limits.py", "- LIMIT = 1", *added, "  ", "```", "", "---", "",
                            "_****_", "", "```diff", "- old_name()", "+ new_name()", "```", "", "---", "",
                            "_****_", "", "```diff", "diff --git a/src/config.py b/src/config.py", "--- a/src/config.py",
                            "+++ b/src/config.py", "@@ -1,2 +1,2 @@", " HOST = 'x'", "-PORT = 8080", "+PORT = 9090",
                            "```", "", "---", "",
                            "_****_", "", "Here is a diff you could apply:", "", "```diff", "- a", "+ b", "```", ""])
    path = tmp_path / "older.md"
    path.write_text(doc, encoding="utf-8")
    evs = list(iter_events("specstory", path))
    edits = [e for e in evs if e["role"] == "tool"]
    assert [e["meta"]["tool"] for e in edits] == ["Edit", "Edit", "Edit"]
    first, second, third = (e["text"] for e in edits)
    assert third == "Edit: src/config.py (-1 +1 lines)\n- PORT = 8080\n+ PORT = 9090"  # a unified diff: its header
    assert first.startswith("Edit: src/pkg/limits.py (-1 +30 lines)\n- LIMIT = 1\n")
    assert all(line in first for line in added)  # every changed line, past the capture's bound of 12
    assert edits[0]["input"]["file_path"] == "src/pkg/limits.py"
    assert second == "Edit: (file not named) (-1 +1 lines)\n- old_name()\n+ new_name()"
    # a diff the model wrote inside its own words stays its words
    assert any(e["role"] == "assistant" and "Here is a diff you could apply" in e["text"] and "+ b" in e["text"]
               for e in evs)


def test_specstory_older_layout_unnamed_diff_takes_the_file_its_announcement_names(tmp_path):
    """A diff that names no file follows the sentence that announces it ("Let's fix the pyproject.toml file by
    removing …:"): that file is the Edit's, when the sentence names exactly one (none for two names, a version
    number or "e.g."; a name said before a read or a command in between is not taken). The event's key is the one
    the unnamed form had, so a history imported before is not stored a second time."""
    from memdir.portability.importers.jsonl import text_line_id
    from memdir.capture.tools import whole_change

    head = SPEC_OLD.read_text(encoding="utf-8").split("_**User**_", 1)[0]

    def part(*lines):
        return ["", "---", "", "_****_", "", *lines]

    doc = head + "\n".join(["_**User**_", "", "fix the build", "", "---", "", "_**Assistant**_", "",
                            "I looked at it.", *part("Let's fix the `pyproject.toml` file by removing the old table:"),
                            *part("```diff", "- [project.license]", "+ license = 'MIT'", "```"),
                            *part("First update CHANGELOG.md with the items from PROGRESS.md:"),
                            *part("```diff", "- a", "+ b", "```"),
                            *part("Now bump it to v2.1.1, e.g. in the header:"),
                            *part("```diff", "- c", "+ d", "```"),
                            *part("Let me fix src/pkg/engine.py next."), *part("Read file: src/pkg/other.py"),
                            *part("```diff", "- e", "+ f", "```"), ""])
    path = tmp_path / "older.md"
    path.write_text(doc, encoding="utf-8")
    edits = [e for e in iter_events("specstory", path) if e["role"] == "tool" and e["meta"]["tool"] == "Edit"]
    assert [e["text"].split(" (")[0] for e in edits] == ["Edit: pyproject.toml"] + ["Edit:"] * 3
    assert edits[0]["input"]["file_path"] == "pyproject.toml"
    assert all("(file not named)" in e["text"] for e in edits[1:])
    unnamed = whole_change("Edit", "(file not named)", "[project.license]", "license = 'MIT'")
    assert edits[0]["key"].endswith(text_line_id(f"L{edits[0]['meta']['line']}", unnamed))


def test_aider_failed_edit_report_is_aiders_failed_output_not_an_edit_or_the_models_words(tmp_path):
    """After ``> # 1 SEARCH/REPLACE block failed to match!`` Aider prints its report without the ``> `` prefix: the
    failed block (which looked like an Edit of a file named "## SearchReplaceNoExactMatch: …"), "Did you mean …",
    "The SEARCH section must exactly match …" and, when other blocks were applied, three lines on them. All of it is
    Aider's failed output; the model's next reply is the model's."""
    doc = "\n".join([
        "# aider chat started at 2025-06-02 10:00:00", "", "#### rename the helper", "",
        "src/a.ts", "```ts", "<<<<<<< SEARCH", "old_helper()", "=======", "new_helper()", ">>>>>>> REPLACE", "```", "",
        "src/b.ts", "```ts", "<<<<<<< SEARCH", "missing_line()", "=======", "other_line()", ">>>>>>> REPLACE", "```", "",
        "> Applied edit to src/a.ts  ", "> # 1 SEARCH/REPLACE block failed to match!", "",
        "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/b.ts",
        "<<<<<<< SEARCH", "missing_line()", "=======", "other_line()", ">>>>>>> REPLACE", "",
        "Did you mean to match some of these actual lines from src/b.ts?", "", "```", "    missing_lines()", "```", "",
        "The SEARCH section must exactly match an existing block of lines including all white space, comments, "
        "indentation, docstrings, etc  ", "",
        "# The other 1 SEARCH/REPLACE block were applied successfully.", "Don't re-send them.",
        "Just reply with fixed versions of the block above that failed to match.  ",
        "> Commit 1234567 refactor: rename helper  ", "",
        "#### try b again", "", "> # 1 SEARCH/REPLACE block failed to match!", "",
        "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/b.ts",
        "<<<<<<< SEARCH", "missing_line()", "=======", "other_line()", ">>>>>>> REPLACE", "",
        "The SEARCH section must exactly match an existing block of lines including all white space, comments, "
        "indentation, docstrings, etc  ", "",
        "The line you want to change is not in src/b.ts; it calls missing_lines() instead.", ""])
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(doc, encoding="utf-8")
    evs = list(iter_events("aider", path))
    edits = [e for e in evs if e["meta"].get("tool") == "Edit"]
    assert [e["input"]["file_path"] for e in edits] == ["src/a.ts", "src/b.ts"]  # the two blocks the model wrote
    reports = [e for e in evs if e["role"] == "tool" and "failed to match" in e["text"]]
    assert len(reports) == 2 and all(e["text"].startswith("aider → error") for e in reports)
    assert "Did you mean to match" in reports[0]["text"] and "Just reply with fixed versions" in reports[0]["text"]
    assert "    missing_lines()" in reports[0]["text"]  # the report's code keeps its indentation
    said = [e["text"] for e in evs if e["role"] == "assistant"]
    assert not any("SEARCH section" in t or "Did you mean" in t or "Just reply" in t for t in said)
    assert said[-1] == "The line you want to change is not in src/b.ts; it calls missing_lines() instead."


def test_export_call_rows_broken_at_a_space_keep_it_and_a_time_limit_is_not_the_command(tmp_path):
    """A call's rows are the terminal's word wrap at 80 columns: a full row was cut inside a word only when that word
    is too long for a row (a path); a row broken at a space ("… && git" / "status --short") keeps the space, also
    when the next row starts with it (one column further in). ``Bash(git push) timeout: 1m 0s``: the command is
    ``git push``."""
    long = "/media/user/0cf05d3d-8805-4d0d-0cf0-5d3d8468aa01/synology/projects/TRAP-WD-2020-04/claude_extraction"
    first = '● Bash(cd /srv/app && git add log/ && echo "Staged the renamed log files" && git'
    assert len(first) == 80
    cut = "● Bash(ls " + long
    a, b = cut[:80], cut[80:]
    p1 = "archive/supersession-project/CLAUDE_CODE_INSTRUCTIONS_AND_NOTES_FOR_REVIEW.md"
    row = "      " + p1[: 74]
    assert len(row) == 80
    evs = _export(tmp_path, (
        first + "\n      status --short)\n  ⎿  M logs/a.log\n\n"
        + a + "\n      " + b + ")\n  ⎿  a.txt\n\n"
        + "● Bash(git rm --cached\n" + row + "\n       claude_extraction/x.md && git status)\n  ⎿  rm 'x.md'\n\n"
        + "● Bash(git push) timeout: 1m 0s\n  ⎿  Everything up-to-date\n"))
    cmds = [e["input"]["command"] for e in evs if e["role"] == "tool"]
    assert cmds[0].endswith('echo "Staged the renamed log files" && git status --short')
    assert cmds[1] == "ls " + long  # a path cut at the row's end is one word again
    assert cmds[2] == "git rm --cached " + p1[:74] + " claude_extraction/x.md && git status"
    assert cmds[3] == "git push"


def test_specstory_command_whose_output_says_it_failed_reads_as_failed(tmp_path):
    """SpecStory records no exit status: a command whose output holds a traceback (or a test runner's failures)
    failed, and its summary leads with why, as Aider's /run does; a kernel log line "0000:f1:00.0 failed" in a
    grep's output is no test count."""
    head = SPEC_OLD.read_text(encoding="utf-8").split("_**User**_", 1)[0]
    doc = head + "\n".join([
        "_**User**_", "", "run the linter", "", "---", "", "_**Assistant**_", "", "Running it.", "", "---", "",
        "_****_", "", "```bash", "hatch run lint:fix .", "```", "", "```",
        "Traceback (most recent call last):", '  File "x.py", line 3, in <module>',
        "IsADirectoryError: [Errno 21] Is a directory: '.'", "```", "", "---", "",
        "_****_", "", "```bash", "dmesg | grep nvidia", "```", "", "```",
        "kernel: nvidia: probe of 0000:f1:00.0 failed with error -1", "```", "", "---", "",
        "_****_", "", "```bash", "cargo test", "```", "", "```", "test result: ok. 12 passed; 0 failed", "```", ""])
    path = tmp_path / "older.md"
    path.write_text(doc, encoding="utf-8")
    lint, grep, cargo = [e for e in iter_events("specstory", path) if e["role"] == "tool"]
    assert "is_error" not in cargo["meta"] and "→ error" not in cargo["text"]  # "0 failed" is a pass
    assert lint["meta"]["is_error"] and lint["text"].startswith("Bash: hatch run lint:fix . → error")
    assert "IsADirectoryError" in lint["text"]
    assert "is_error" not in grep["meta"] and "→ error" not in grep["text"]


def test_text_histories_in_another_encoding_are_read_not_garbled(tmp_path, caplog):
    """A /export saved in an 8-bit code page reads its accents (Windows-1252, with a warning naming the file), one
    saved by Windows PowerShell's ``>`` (UTF-16 with its byte-order mark) reads as written, and a UTF-8 file with one
    damaged byte keeps every other character (the byte replaced, a warning)."""
    from memdir.portability.importers.textlog import read_text

    text = "● Good news - the file is there! Café déjà vu, naïve résumé.\n"
    latin = tmp_path / "latin.txt"
    latin.write_bytes(text.replace("●", "*").encode("cp1252"))
    with caplog.at_level("WARNING"):
        assert read_text(latin) == text.replace("●", "*")
    assert "latin.txt is not UTF-8" in caplog.text
    wide = tmp_path / "wide.txt"
    wide.write_bytes(text.encode("utf-16"))
    assert read_text(wide) == text
    damaged = tmp_path / "damaged.txt"
    damaged.write_bytes(text.encode("utf-8").replace(b"Caf", b"C\xffaf"))
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert read_text(damaged) == text.replace("Caf", "C\ufffdaf")
    assert "1 undecodable byte read" in caplog.text


def test_specstory_v2_tool_arguments_come_from_its_parameters_and_the_search_query_from_its_result(tmp_path):
    """A v2 tool block whose summary names no argument (``Tool use: **web_fetch**``) has it in its ``Parameters:``
    JSON (not repeated as its output); a web search the host recorded as
    ``undefined`` is named by the query its results table states."""
    head = SPEC_ZH.read_text(encoding="utf-8").split("_**User**_", 1)[0]
    doc = head + "\n".join([
        "_**User**_", "", "查一下论文里的延迟", "", "---", "", "_**Agent (model gpt-5)**_", "",
        '<tool-use data-tool-type="unknown" data-tool-name="web_fetch">', "<details>",
        "<summary>Tool use: **web_fetch**</summary>", "", "", "Parameters:", "", "```json",
        '{', '  "url": "https://arxiv.org/html/2511.00088v2"', '}', "```", "Additional data:", "", "```json",
        '{"reviewData": {"status": "Done"}}', "```", "Result:", "", "```json", '{"markdown": "99 ms on Thor"}', "```",
        "</details>", "</tool-use>", "",
        '<tool-use data-tool-type="search" data-tool-name="web_search">', "<details>",
        "<summary>Tool use: **web_search** • Searched web `undefined` • **1** results</summary>", "", "",
        "| Title | URL | Chunk |", "|-------|-----|-------|",
        "| Web search results for query: Alpamayo-R1 inference latency | | Links: x |", "", "</details>", "</tool-use>", ""])
    path = tmp_path / "v2.md"
    path.write_text(doc, encoding="utf-8")
    fetch, search = [e for e in iter_events("specstory", path) if e["role"] == "tool"]
    assert fetch["text"].startswith("WebFetch: https://arxiv.org/html/2511.00088v2 →") and "Parameters:" not in fetch["text"]
    assert fetch["input"] == {"url": "https://arxiv.org/html/2511.00088v2"}
    assert search["text"].startswith("WebSearch: Alpamayo-R1 inference latency →") and "undefined" not in search["text"]


def test_specstory_additional_data_keeps_a_status_not_the_host_s_conversation_state(tmp_path):
    """Cursor records a sub-agent task's ``Additional data`` with its whole conversation state as an escaped JSON
    string (``composerData``, 10-20 KB): stored as the task's output, it filled recall with JSON (a probe). Short
    fields stay."""
    head = SPEC_ZH.read_text(encoding="utf-8").split("_**User**_", 1)[0]
    state = json.dumps({"_v": 13, "composerId": "task-1", "text": "x" * 400})
    doc = head + "\n".join([
        "_**User**_", "", "看看推理流程", "", "---", "", "_**Agent (model composer-1.5)**_", "",
        '<tool-use data-tool-type="unknown" data-tool-name="task_v2">', "<details>",
        "<summary>Tool use: **task_v2** • 探索推理流程和依赖</summary>", "", "", "Parameters:", "", "```json",
        '{"description": "探索推理流程和依赖", "prompt": "find the VLM call chain"}', "```", "Additional data:", "",
        "```json", json.dumps({"status": "running", "composerData": state}, indent=2), "```", "Status: **loading**",
        "</details>", "</tool-use>", ""])
    path = tmp_path / "v2.md"
    path.write_text(doc, encoding="utf-8")
    [task] = [e for e in iter_events("specstory", path) if e["role"] == "tool"]
    assert '"status": "running"' in task["text"] and "composerData" not in task["text"] and len(task["text"]) < 300
