"""Transcript importers: real Claude Code / Codex files from ../shared, hand-written OpenCode and JSONL fixtures."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from memdir.errors import NotFound, UsageError
from memdir.portability.importers import (
    TOOL_SUMMARY_MAX_CHARS,
    default_paths,
    iter_claude_code,
    iter_codex,
    iter_events,
    iter_jsonl,
    iter_opencode,
    resolve_paths,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importers"
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TRANSCRIPTS = SHARED / "data" / "transcripts"

_skip_without_shared = pytest.mark.skipif(
    not TRANSCRIPTS.is_dir(),
    reason=f"real transcripts not found at {TRANSCRIPTS} (the ../shared checkout beside the repo is absent)",
)


def needs_shared(fn):
    """Mark a test as reading ../shared (marker ``shared``) and skip it when that directory is absent."""
    return pytest.mark.shared(_skip_without_shared(fn))

# Expected (user, assistant, tool) events per real file, counted by hand with jq and grep, NOT with the parser:
#
# user: `jq -r 'select(.type=="user") | select((.message.content|type)=="string" or .message.content[0].type=="text")
#        | [(.isMeta|tostring), (.message.content | if type=="string" then . else .[0].text end)[:160]] | @json'`
#        lists every user line with text; we read the list and dropped isMeta lines and the isCompactSummary
#        "This session is being continued…" summaries (the parser's structural skips). Cross-check: `grep -o
#        '"type":"user","message":{"role":"user","content":"[^<\[]'` (string contents not starting with < or [)
#        minus `grep -c '"isCompactSummary":true'` gives (258c: 3-1, 4d56: 3-1, 9eda: 3, short: 1, subagent: 1,
#        tool_heavy: 2); the rest are host lines the capture gate drops, not the parser (GATE_KEPT below):
#        `<command-…>` / `<local-command-…>` echoes, "[Request interrupted by user…]" markers and
#        `<task-notification>` (258c: +1 interrupted +2 notifications, 4d56: +1 notification, 9eda: +1, short: +1,
#        subagent: +1 command +1 interrupted, tool_heavy: +1 command +1 command output +2 interrupted).
# assistant: `jq -c 'select(.type=="assistant") | select([.message.content[] | select(.type=="text") | .text |
#        test("\\S")] | any)' | wc -l`; cross-check: assistant lines whose blocks are `text` (from
#        `jq '[.message.content[].type]'`: 94, 90, 5, 2, 8, 2) minus `grep -c '"content":\[{"type":"text","text":"\\n\\n"}\]'`
#        (9, 6, 0, 1, 1, 1) — whitespace-only text blocks.
# tool:  distinct tool_use ids of top-level assistant lines (`jq -r 'select(.type=="assistant") | .message.content[] |
#        select(.type=="tool_use") | .id' | sort -u | wc -l`); `comm -12` with the tool_result ids showed every
#        call has its result in the same file. (A plain grep for tool_use over-counts: subagent turns are nested
#        inside `progress` lines, which are skipped.)
CLAUDE_COUNTS = {
    "258c7280-ae70-4798-800f-63464d01a85d.jsonl": (5, 85, 186),
    "4d5611e5-241a-462a-8d15-5122611a9569.jsonl": (3, 84, 150),
    "session-9eda1058.jsonl": (4, 5, 3),
    "short.jsonl": (2, 1, 2),
    "subagent.jsonl": (3, 7, 16),
    "tool_heavy.jsonl": (6, 1, 6),
}
# What the capture gate keeps of them (case C22): the user lines of the hand count above minus `continue` (4d56,
# trivial) and `what else?` (9eda, 9 chars < capture.min_chars); tools minus Read/Grep/Glob calls (`jq -r
# 'select(.type=="assistant") | .message.content[]? | select(.type=="tool_use") | "\(.id) \(.name)"' | sort -u |
# grep -cE ' (Read|Grep|Glob)$'` = 55, 41, 0, 1, 2, 2) and minus the Bash calls that only list files, the shell form
# of Glob/LS (2026-12-01: `ls` 3 in 258c; `ls` 1 and `git ls-files` 1 in 4d56 — memdir.capture.gates.is_shell_read).
GATE_KEPT = {
    "258c7280-ae70-4798-800f-63464d01a85d.jsonl": (2, 85, 128),
    "4d5611e5-241a-462a-8d15-5122611a9569.jsonl": (1, 84, 107),
    "session-9eda1058.jsonl": (2, 5, 3),
    "short.jsonl": (1, 1, 1),
    "subagent.jsonl": (1, 7, 14),
    "tool_heavy.jsonl": (2, 1, 4),
}
# Codex: `grep -c '"type":"event_msg","payload":{"type":"user_message"'` = 2, `…"agent_message"` = 13;
# tools = `grep -c '"type":"response_item","payload":{"type":"function_call"'` 99 + `custom_tool_call` 3 +
# `web_search_call` 3 = 105, minus the 54 `write_stdin` calls (`jq -r 'select(.payload.name=="write_stdin")
# | .payload.arguments | fromjson | .session_id'`: every one polls a session opened by an earlier exec_command of
# the file), folded into their command = 51, plus the one whose input (Ctrl-C) the command's closed stdin refused,
# a failed call of its own = 52. `jq -r '.type, .payload.type'` confirms 99/99 function_call/_output.
CODEX_COUNTS = {"rollout-2026-05-11T11-26-55.jsonl": (2, 13, 52)}


def roles(events) -> tuple[int, int, int]:
    c = Counter(e["role"] for e in events)
    return c["user"], c["assistant"], c["tool"]


def check_shape(ev: dict, source: str) -> None:
    assert set(ev) - {"input"} == {"key", "role", "text", "session", "ts", "source", "meta"}
    assert ev["role"] in ("user", "assistant", "tool")
    assert "input" not in ev or ev["role"] == "tool"  # a call's arguments, for the capture gate
    assert ev["source"] == source
    assert isinstance(ev["text"], str) and ev["text"].strip()
    assert ev["ts"] is None or (isinstance(ev["ts"], str) and ev["ts"].endswith("+00:00"))
    assert isinstance(ev["meta"], dict)
    if source != "jsonl":
        assert ev["key"].startswith(f"import:{source}:{ev['session']}:")
    if ev["role"] == "tool":
        assert len(ev["text"]) <= TOOL_SUMMARY_MAX_CHARS


# ---------------------------------------------------------------- real Claude Code files


@needs_shared
@pytest.mark.parametrize("name", sorted(CLAUDE_COUNTS))
def test_claude_code_counts_match_hand_count(name):
    path = TRANSCRIPTS / "claude-code" / name
    stats = Counter()
    events = list(iter_claude_code(path, stats=stats))
    assert roles(events) == CLAUDE_COUNTS[name]
    for ev in events:
        check_shape(ev, "claude-code")
    assert len({e["key"] for e in events}) == len(events)
    assert stats["bad_json"] == 0
    # every line is accounted for: yielded, skipped by a reason, or a user line folded into its tool event
    assert stats["lines"] == sum(1 for _ in path.open("rb"))
    again = list(iter_claude_code(path))
    assert [e["key"] for e in again] == [e["key"] for e in events]
    assert again == events


@needs_shared
def test_claude_code_skips_structural_lines_and_thinking():
    stats = Counter()
    events = list(iter_claude_code(TRANSCRIPTS / "claude-code" / "tool_heavy.jsonl", stats=stats))
    texts = [e["text"] for e in events if e["role"] == "user"]
    # host lines are yielded as they are; the capture gate (not the parser) drops them (test_gate_on_real_files)
    assert sum(t.lstrip().startswith(("<command-", "<local-command", "[Request interrupted")) for t in texts) == 4
    assert stats["skipped:meta"] == 1 and "skipped:command" not in stats
    assert stats["skipped:progress"] == 10 and stats["skipped:file-history-snapshot"] == 3
    assert stats["skipped:thinking"] == 1 and stats["skipped:tool_result_only"] == 6
    bash = [e for e in events if e["meta"].get("tool") == "Bash"]
    assert bash[0]["text"].startswith("Bash: mix phx.server → ")


@needs_shared
def test_claude_code_compact_summary_and_is_error():
    stats = Counter()
    events = list(iter_claude_code(TRANSCRIPTS / "claude-code" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
                                   stats=stats))
    assert stats["skipped:compact_summary"] == 1
    assert not any(e["text"].startswith("This session is being continued") for e in events)
    # `jq 'select(.type=="user") | .message.content[]? | select(.is_error==true)' | grep -c tool_use_id` over all files = 15
    errors = sum(e["meta"].get("is_error", False)
                 for f in CLAUDE_COUNTS for e in iter_claude_code(TRANSCRIPTS / "claude-code" / f))
    assert errors == 15


@needs_shared
def test_claude_code_truncated_file_yields_a_prefix_of_keys(tmp_path):
    src = TRANSCRIPTS / "claude-code" / "subagent.jsonl"
    full = list(iter_claude_code(src))
    data = src.read_bytes()
    cut = data[: len(data) * 2 // 3]
    cut = cut[: cut.rfind(b"\n") + 40]  # end in the middle of a line
    part = tmp_path / "subagent.jsonl"
    part.write_bytes(cut)
    stats = Counter()
    events = list(iter_claude_code(part, stats=stats))
    assert stats["bad_json"] == 1
    assert 0 < len(events) < len(full)
    keys = [e["key"] for e in events]
    assert keys == [e["key"] for e in full][: len(keys)]  # grown file = old keys + new ones
    # the file grows back: same keys as a fresh import of the full file
    part.write_bytes(data)
    assert [e["key"] for e in iter_claude_code(part)] == [e["key"] for e in full]


@needs_shared
def test_second_import_through_the_facade_adds_nothing(tmp_path):
    import memdir

    events = [ev for f in sorted(CLAUDE_COUNTS) for ev in iter_claude_code(TRANSCRIPTS / "claude-code" / f)]
    events += [ev for f in sorted(CODEX_COUNTS) for ev in iter_codex(TRANSCRIPTS / "codex" / f)]
    with memdir.open(project_dir=tmp_path / "proj", home=tmp_path / "home") as m:
        first = m.import_events(events)
        second = m.import_events(
            [ev for f in sorted(CLAUDE_COUNTS) for ev in iter_claude_code(TRANSCRIPTS / "claude-code" / f)]
            + [ev for f in sorted(CODEX_COUNTS) for ev in iter_codex(TRANSCRIPTS / "codex" / f)])
    assert first["read"] == len(events) == sum(map(sum, CLAUDE_COUNTS.values())) + sum(map(sum, CODEX_COUNTS.values()))
    assert first["stored"] > 0 and first["skipped"] == 0
    assert second["stored"] == 0 and second["duplicate"] == len(events)


# ---------------------------------------------------------------- real Codex rollout


@needs_shared
@pytest.mark.parametrize("name", sorted(CODEX_COUNTS))
def test_codex_counts_match_hand_count(name):
    path = TRANSCRIPTS / "codex" / name
    stats = Counter()
    events = list(iter_codex(path, stats=stats))
    assert roles(events) == CODEX_COUNTS[name]
    for ev in events:
        check_shape(ev, "codex")
    assert {e["session"] for e in events} == {"019e1625-789d-76c0-80ab-3724b5ddb799"}
    assert len({e["key"] for e in events}) == len(events)
    assert stats["skipped:response_item_message"] == 16  # the duplicate copies (13 assistant, 3 user)
    assert stats["skipped:developer_message"] == 1 and stats["skipped:write_stdin_folded"] == 53
    refused = [e for e in events if e["meta"].get("tool") == "write_stdin"]
    assert len(refused) == 1 and refused[0]["meta"]["is_error"]
    # the key sent, by its name: a question says "Ctrl-C", never "\x03"
    assert refused[0]["text"].startswith("write_stdin: input Ctrl-C to `sed -n '1,220p' ")
    assert "→ error: write_stdin failed: stdin is closed for this session" in refused[0]["text"]
    assert stats["skipped:response_item:reasoning"] == 25
    assert not any("<environment_context>" in e["text"] for e in events if e["role"] == "user")
    assert list(iter_codex(path)) == events
    patch = [e for e in events if e["meta"].get("tool") == "apply_patch"]
    assert len(patch) == 3 and patch[0]["text"].startswith("apply_patch: Update src/")


@needs_shared
def test_codex_truncated_file(tmp_path):
    src = TRANSCRIPTS / "codex" / "rollout-2026-05-11T11-26-55.jsonl"
    full = [e["key"] for e in iter_codex(src)]
    data = src.read_bytes()
    cut = data[: len(data) // 2]
    part = tmp_path / src.name
    part.write_bytes(cut[: cut.rfind(b"\n") + 25])
    stats = Counter()
    keys = [e["key"] for e in iter_codex(part, stats=stats)]
    assert stats["bad_json"] == 1
    assert 0 < len(keys) < len(full) and keys == full[: len(keys)]


def _codex_line(typ, payload, ts="2026-05-01T10:00:00.000Z"):
    return json.dumps({"timestamp": ts, "type": typ, "payload": payload})


def test_codex_falls_back_to_response_items_without_event_msgs(tmp_path):
    lines = [
        _codex_line("session_meta", {"id": "sess-1", "cwd": "/w"}),
        _codex_line("response_item", {"type": "message", "role": "user",
                                      "content": [{"type": "input_text", "text": "<environment_context>x</environment_context>"}]}),
        _codex_line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the build"}]}),
        _codex_line("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                      "arguments": json.dumps({"command": ["bash", "-lc", "make"]})}),
        _codex_line("response_item", {"type": "function_call_output", "call_id": "c1",
                                      "output": json.dumps({"output": "make: *** [all] Error 1", "metadata": {"exit_code": 2}})}),
        _codex_line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The build fails."}]}),
        _codex_line("brand_new_type", {"x": 1}),
    ]
    f = tmp_path / "rollout-old.jsonl"
    f.write_text("\n".join(lines) + "\n")
    stats = Counter()
    events = list(iter_codex(f, stats=stats))
    assert [(e["role"], e["key"]) for e in events] == [
        ("user", "import:codex:sess-1:L2"), ("user", "import:codex:sess-1:L3"), ("tool", "import:codex:sess-1:c1"),
        ("assistant", "import:codex:sess-1:L6")]
    assert events[2]["text"] == "shell: make → error (exit 2): make: *** [all] Error 1"
    assert events[2]["meta"]["exit_code"] == 2 and events[2]["meta"]["is_error"] is True
    assert stats["skipped:unknown"] == 1
    # the injected context is judged by the capture gate, like a hook would see it
    from memdir.capture.gates import gate
    from memdir.config import Config

    assert [gate(e, Config()).reason for e in events] == ["host_injected", None, None, None]


# ---------------------------------------------------------------- Claude Code subagent fixture


def test_claude_subagent_fixture(tmp_path):
    stats = Counter()
    events = list(iter_claude_code(FIXTURES / "claude_subagent.jsonl", stats=stats))
    assert roles(events) == (0, 2, 3)  # its user line is the main agent's prompt for it, not the user's words
    assert stats["skipped:sidechain_prompt"] == 1
    for ev in events:
        check_shape(ev, "claude-code")
        assert ev["meta"]["agent"] == "a1b2c3d"
    by_key = {e["key"].rsplit(":", 1)[1]: e for e in events}
    assert by_key["toolu_A"]["text"] == "Bash: ls scripts/ → deploy.sh\nbuild.sh"
    err = by_key["toolu_B"]
    assert err["meta"]["is_error"] is True and err["text"].startswith("Bash: ./scripts/deploy.sh --dry-run → error (exit 2): ")
    assert len(err["text"]) <= TOOL_SUMMARY_MAX_CHARS and err["text"].endswith("x" * 100)  # the output is kept whole
    assert by_key["toolu_C"]["text"].endswith("→ (no result)")
    assert "secret plan" not in json.dumps(events, ensure_ascii=False)  # thinking is never imported
    assert stats["skipped:unknown"] == 1 and stats["bad_json"] == 1 and stats["info:tool_without_result"] == 1


# ---------------------------------------------------------------- OpenCode (fixtures; format from docs)


def _opencode_db(tmp_path: Path) -> Path:
    db = tmp_path / "opencode.db"
    con = sqlite3.connect(db)
    con.executescript((FIXTURES / "opencode.sql").read_text())
    con.commit()
    con.close()
    return db


def test_opencode_db(tmp_path):
    db = _opencode_db(tmp_path)
    before = db.read_bytes()
    stats = Counter()
    events = list(iter_opencode(db, stats=stats))
    assert db.read_bytes() == before  # opened read-only
    assert [(e["role"], e["key"]) for e in events] == [
        ("user", "import:opencode:ses_A:prt_001"),
        ("tool", "import:opencode:ses_A:prt_005"),
        ("tool", "import:opencode:ses_A:prt_006"),
        ("tool", "import:opencode:ses_A:prt_007"),
        ("assistant", "import:opencode:ses_A:prt_008"),
        ("user", "import:opencode:ses_A:prt_010"),
    ]
    for ev in events:
        check_shape(ev, "opencode")
        assert ev["meta"]["cwd"] == "/home/u/proj"
    assert events[0]["ts"] == "2026-01-01T10:00:00+00:00"
    assert events[1]["text"] == "bash: pytest -q → ...\n3 passed in 0.12s"
    assert events[2]["meta"]["is_error"] is True and "error: File not found" in events[2]["text"]
    assert events[3]["text"] == "bash: sleep 100 → (no result)"
    assert events[5]["text"] == "用中文回答：部署脚本在哪里？"
    assert stats["skipped:synthetic"] == 1 and stats["skipped:reasoning"] == 1 and stats["bad_json"] == 1
    assert stats["skipped:step-start"] == 1 and stats["skipped:step-finish"] == 1
    assert list(iter_opencode(db)) == events


def test_opencode_storage_tree_and_data_dir(tmp_path):
    stats = Counter()
    events = list(iter_opencode(FIXTURES / "opencode_storage", stats=stats))
    assert [(e["role"], e["key"]) for e in events] == [
        ("user", "import:opencode:ses_B:prt_b1"),
        ("tool", "import:opencode:ses_B:prt_b2"),
        ("assistant", "import:opencode:ses_B:prt_b3"),
    ]
    assert events[1]["text"] == "grep: PORT in config → config/dev.exs:  port: 4001"
    assert all(e["meta"]["cwd"] == "/home/u/old" for e in events)
    assert stats["bad_json"] == 1  # the truncated prt_b4.json
    # a data dir holding both formats: database first, then the tree
    data = tmp_path / "opencode"
    data.mkdir()
    _opencode_db(data)
    shutil.copytree(FIXTURES / "opencode_storage", data / "storage")
    both = list(iter_opencode(data))
    assert roles(both) == (3, 2, 4)
    assert both[-3:] == events


def test_opencode_bad_inputs(tmp_path):
    bogus = tmp_path / "x.db"
    bogus.write_text("not a database at all, just text " * 10)
    with pytest.raises(UsageError):
        list(iter_opencode(bogus))
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(UsageError, match="message/part"):
        list(iter_opencode(other))
    with pytest.raises(NotFound, match="no opencode sessions found"):  # nothing found: exit 1, as the other sources
        list(iter_opencode(tmp_path))
    with pytest.raises(FileNotFoundError):
        list(iter_opencode(tmp_path / "missing"))


# ---------------------------------------------------------------- generic JSONL


def test_generic_jsonl(caplog):
    path = FIXTURES / "generic.jsonl"
    stats = Counter()
    with caplog.at_level("WARNING", logger="memdir.portability.importers"):
        events = list(iter_jsonl(path, stats=stats))
    assert [e["text"] for e in events] == [
        "Tool output summary from the old store.",       # 1736000000 s = 2025-01-04
        "用户偏好：回答用中文。",                          # 1736900000000 ms = 2025-01-15 00:13
        "Always run migrations before deploying.",       # 2025-01-15 08:30+08:00 = 00:30Z
        "The staging database lives on db-stage-2.",     # 2025-03-02
        "No timestamp on this one.",                     # no ts: last, in file order
        "Bad timestamp kept without ts.",
    ]
    for ev in events:
        check_shape(ev, "jsonl")
    assert events[1]["key"] == "import:manual:note-1"
    assert events[2]["key"].startswith("import:old-sqlite:old-store:")
    assert events[4]["key"].startswith("import:jsonl:generic:") and events[4]["role"] == "user"
    assert events[3]["role"] == "assistant" and events[0]["role"] == "tool"
    assert stats["bad_json"] == 2 and stats["skipped:bad_line"] == 2 and stats["bad_ts"] == 1
    assert any(":6:" in r.getMessage() for r in caplog.records)  # the warning names the line
    assert [e["key"] for e in iter_jsonl(path)] == [e["key"] for e in events]


def test_generic_jsonl_keys_survive_reordering(tmp_path):
    lines = (FIXTURES / "generic.jsonl").read_text().splitlines()
    f = tmp_path / "generic.jsonl"
    f.write_text("\n".join(reversed(lines)) + "\n")
    assert sorted(e["key"] for e in iter_jsonl(f)) == sorted(e["key"] for e in iter_jsonl(FIXTURES / "generic.jsonl"))


# ---------------------------------------------------------------- discovery and dispatch


def test_default_paths(tmp_path):
    home = tmp_path / "home"
    sess = home / ".claude" / "projects" / "-home-u-proj"
    (sess / "abc" / "subagents").mkdir(parents=True)
    (sess / "abc.jsonl").write_text("")
    (sess / "abc" / "subagents" / "agent-1.jsonl").write_text("")
    codex = tmp_path / "codexhome" / "sessions" / "2026" / "05" / "11"
    codex.mkdir(parents=True)
    (codex / "rollout-2026-05-11T11-26-55-x.jsonl").write_text("")
    (codex / "notes.jsonl").write_text("")
    oc = home / ".local" / "share" / "opencode"
    (oc / "storage" / "message").mkdir(parents=True)
    (oc / "opencode.db").write_bytes(b"")
    env = {"CODEX_HOME": str(tmp_path / "codexhome")}
    assert default_paths("claude-code", env=env, home=home) == [sess / "abc" / "subagents" / "agent-1.jsonl",
                                                                 sess / "abc.jsonl"]
    assert default_paths("codex", env=env, home=home) == [codex / "rollout-2026-05-11T11-26-55-x.jsonl"]
    assert default_paths("codex", env={}, home=home) == []
    assert default_paths("opencode", env=env, home=home) == [oc / "opencode.db", oc / "storage"]
    assert default_paths("jsonl", env=env, home=home) == []
    with pytest.raises(UsageError):
        default_paths("cursor", env=env, home=home)
    assert resolve_paths("codex", tmp_path / "codexhome") == [codex / "rollout-2026-05-11T11-26-55-x.jsonl"]
    with pytest.raises(UsageError):
        resolve_paths("codex", tmp_path / "nope")


def test_iter_events_dispatch():
    assert roles(iter_events("jsonl", FIXTURES / "generic.jsonl")) == (4, 1, 1)
    assert len(list(iter_events("claude-code", FIXTURES / "claude_subagent.jsonl"))) == 5
    with pytest.raises(UsageError, match="unknown transcript source"):
        iter_events("cursor", FIXTURES / "generic.jsonl")


# ---------------------------------------------------------------- robustness (property-based)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "message", "content", "text", "role", "payload", "uuid", "timestamp", "ts",
                         "tool_use_id", "call_id", "output", "name", "input", "key", "session"]), inner, max_size=5),
    max_leaves=12)
_lines = st.lists(st.one_of(_json_values.map(json.dumps), st.binary(max_size=30).map(lambda b: b.decode("latin-1"))),
                  max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=_lines)
def test_line_importers_never_raise_on_garbage(tmp_path, lines):
    f = tmp_path / "garbage.jsonl"
    f.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    for fn, source in ((iter_claude_code, "claude-code"), (iter_codex, "codex"), (iter_jsonl, "jsonl")):
        stats = Counter()
        for ev in fn(f, stats=stats):
            check_shape(ev, source)
