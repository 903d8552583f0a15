"""Capture gates, deterministic keys and the daily cap (seeds 001, 004; cases C13, C16)."""

import logging
from datetime import datetime, timedelta, timezone

import pytest

import memdir
from memdir.capture import gates as cap
from memdir.capture.gates import gate
from memdir.config import Config


def user(text, session="s1", **kw):
    return {"role": "user", "text": text, "session": session, **kw}


# ---- C16 ---------------------------------------------------------------------------------------------------
C16_NOISE = [
    "ok",
    "好的",
    "继续",
    "/compact",
    "<system-reminder>\nThe user opened scripts/migrate.sh in the IDE.\n</system-reminder>",
    "Instructions from: /work/shop/AGENTS.md\nUse pnpm. Run the tests before committing.",
    "<memory>\n## Rules (always apply)\n- Always run pnpm\n</memory>",
]


def test_c16_none_of_the_seven_is_captured(m):
    reasons = [m.capture(user(t)).reason for t in C16_NOISE]
    assert reasons == ["trivial", "trivial", "trivial", "slash_command", "host_injected", "host_injected", "memory_block"]
    assert m.status()["project"].get("events", 0) == 0


def test_c16_same_fact_nine_times_stored_once_injected_once(m):
    fact = "The staging database listens on port 5433, not the default 5432."
    results = [m.capture(user(fact, session=f"s{i % 3}")) for i in range(9)]
    assert [r.stored for r in results].count(True) == 1
    assert {r.reason for r in results[1:]} == {"duplicate"}
    assert m.status()["project"]["events"] == 1
    block = m.context("staging database port")
    assert block.count("5433") == 1


# ---- C13 ---------------------------------------------------------------------------------------------------
def test_c13_naive_aware_and_epoch_ms_are_stored_as_utc_in_order(m):
    naive = datetime(2026, 3, 1, 8, 0, 0)  # naive = local time (UTC on the test machine; C25 in test_hostile_text)
    aware = datetime(2026, 3, 1, 17, 30, 0, tzinfo=timezone(timedelta(hours=8)))  # 09:30 UTC
    epoch_ms = int(datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc).timestamp() * 1000)
    keys = []
    for text, ts in [("first: the naive timestamp event", naive), ("second: the +08:00 timestamp event", aware),
                     ("third: the epoch milliseconds event", epoch_ms)]:
        r = m.capture(user(text, ts=ts))
        assert r.stored, r
        keys.append(r.key)
    evs = [m.get(k) for k in keys]
    assert all(e.ts.utcoffset() == timedelta(0) for e in evs)
    assert [e.ts.hour for e in evs] == [8, 9, 10]
    assert [e.ts for e in evs] == sorted(e.ts for e in evs)


def test_bad_ts_is_invalid_not_raised(m):
    r = m.capture(user("an event with an unreadable timestamp", ts="yesterday-ish"))
    assert (r.stored, r.reason) == (False, "invalid")


# ---- gates ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["OK!", "thanks 🙏", "好的，继续", "ok thanks", "Continue.", "嗯嗯", "谢谢！", "👍", "LGTM"])
def test_trivial(text):
    assert cap.is_trivial(text)


@pytest.mark.parametrize("text", ["ok so the deploy failed again", "继续上次的迁移脚本", "thanks, now switch to pnpm", "no way"])
def test_not_trivial(text):
    assert not cap.is_trivial(text)


@pytest.mark.parametrize("text,expected", [("/compact", True), ("/model opus", True), ("  /review:pr 12", True),
                                           ("<command-name>/clear</command-name>", True),
                                           ("/usr/bin/env is missing on the deploy host", False),
                                           ("use /tmp for scratch files", False)])
def test_slash_commands(text, expected):
    assert cap.is_slash_command(text) is expected


def test_host_blocks_are_cut_and_the_rest_kept(m):
    text = ("<system-reminder>todo list is empty</system-reminder>\nPlease move the cron job to 02:30 UTC.\n"
            "<memory>\n- old stuff\n</memory>")
    r = m.capture(user(text))
    assert r.stored and r.text == "Please move the cron job to 02:30 UTC."
    assert "system-reminder" not in m.get(r.key).text


@pytest.mark.parametrize("text", ["<environment_context>\n  <cwd>/work/shop</cwd>\n</environment_context>",
                                  "<available_skills>pdf, xlsx</available_skills>",
                                  "# Code Mode\nYou are running in code mode with these tools…",
                                  "<system-reminder>never closed, the rest is host text"])
def test_host_injected(m, text):
    assert m.capture(user(text)).reason == "host_injected"


def test_min_chars_counts_cjk_double(m):
    assert cap.weighted_len("继续执行") == 8
    assert m.capture(user("继续执行")).reason == "too_short"
    assert m.capture(user("部署用 pnpm")).stored  # 2*3 + 4 = 10
    assert m.capture(user("run tests")).reason == "too_short"


def test_min_chars_configurable(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.min_chars": 40}) as m2:
        assert m2.capture(user("a sentence of medium length here")).reason == "too_short"


def test_assistant_gated_too(m):
    assert m.capture({"role": "assistant", "text": "Done.", "session": "s"}).reason == "trivial"
    r = m.capture({"role": "assistant", "text": "Renamed the job to nightly-backup; schedule unchanged.", "session": "s"})
    assert r.stored and r.key.startswith("a:s:")


# ---- tools ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["memory_recall", "mcp__memdir__memory_recall", "TodoWrite"])
def test_noisy_tools_skipped(m, name):
    r = m.capture({"role": "tool", "tool": name, "input": {"path": "x"}, "output": "y", "session": "s", "call_id": "c"})
    assert r.reason == "noisy_tool"


@pytest.mark.parametrize("name, tool_input, fact", [
    ("Read", {"file_path": "/p/src/auth/session.ts", "offset": 40, "limit": 80}, "read src/auth/session.ts (lines 40-119)"),
    ("read", {"filePath": "/p/docs/spec.md"}, "read docs/spec.md"),
    ("Grep", {"pattern": "refreshToken", "path": "/p/src", "glob": "*.ts"}, 'searched "refreshToken" (*.ts) in src'),
    ("Glob", {"pattern": "**/*.spec.ts"}, 'searched files "**/*.spec.ts" in .'),
    ("LS", {"path": "/p/migrations"}, "listed migrations"),
    ("Bash", {"command": "cd web && rg -n 'useAuth' src | head -20"}, 'searched "useAuth" in web/src'),
    ("exec_command", {"cmd": "sed -n '1,160p' /p/src/server.rs"}, "read src/server.rs"),
])
def test_a_read_or_search_keeps_a_one_line_fact_not_its_output(project, tmp_path, clock, name, tool_input, fact):
    m = memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.read_facts": True})
    r = m.capture({"role": "tool", "tool": name, "input": tool_input, "output": "export const SECRET_DUMP = 1\n" * 50,
                   "session": "s", "call_id": "c-" + name, "cwd": "/p"})
    assert r.stored and r.text == fact
    assert "SECRET_DUMP" not in m.get(r.key).text
    m.close()


def test_reads_are_dropped_whole_by_default(m):
    r = m.capture({"role": "tool", "tool": "Read", "input": {"file_path": "a.py"}, "output": "x", "session": "s"})
    assert r.reason == "noisy_tool"
    r = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "sed -n 1,80p a.py"}, "output": "x", "session": "s"})
    assert r.reason == "noisy_tool"


def test_a_read_fact_is_redacted_and_its_key_is_stable(project, tmp_path, clock):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    ev = {"role": "tool", "tool": "Bash", "input": {"command": f"rg -n '{token}' src"}, "output": "x", "session": "s"}
    on = Config(overrides={"capture.read_facts": True})
    d1, d2 = gate(ev, on), gate(dict(ev), on)
    assert d1.key == d2.key and d1.key.startswith("t:s:")
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.read_facts": True}) as m:
        r = m.capture(ev)
        assert r.stored and token not in m.get(r.key).text and "searched" in m.get(r.key).text


def test_a_read_tool_the_config_skips_is_dropped_whole(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock,
                     config={"capture.skip_tools": ["Read"], "capture.read_facts": True}) as m2:
        r = m2.capture({"role": "tool", "tool": "Read", "input": {"file_path": "a.py"}, "output": "x", "session": "s"})
        assert r.reason == "noisy_tool"


def test_extra_skip_tools_from_config(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.skip_tools": ["webfetch", "mcp__github__*"]}) as m2:
        for name in ("WebFetch", "mcp__github__list_issues"):
            assert m2.capture({"role": "tool", "tool": name, "input": {}, "output": "", "session": "s"}).reason == "noisy_tool"
        assert m2.capture({"role": "tool", "tool": "Bash", "input": {"command": "make"}, "output": "ok", "session": "s"}).stored


def test_tool_summary_and_key(m):
    r = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "pytest -q"},
                   "output": {"stdout": "3 passed\n1 failed", "stderr": ""}, "session": "s9", "call_id": "toolu_1"})
    assert r.stored and r.key == "t:s9:toolu_1"
    assert r.text.startswith("Bash: pytest -q → 3 passed")
    again = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "pytest -q"}, "output": "other output",
                       "session": "s9", "call_id": "toolu_1"})
    assert again.reason == "duplicate"


# ---- keys ----------------------------------------------------------------------------------------------------
def test_deterministic_user_key_two_hook_copies_store_once(m, project, tmp_path, clock):
    text = "Rename the cron job to nightly-backup and keep the 02:30 schedule."
    r1 = m.capture(user(text, session="abc"))
    with memdir.open(project, home=tmp_path / "g", clock=clock) as other:  # a second copy of the hook
        r2 = other.capture(user(text, session="abc"))
    assert r1.key == r2.key == f"u:abc:{cap.text_hash(text)}"
    assert (r1.stored, r2.stored, r2.reason) == (True, False, "duplicate")


def test_forgotten_event_is_not_recaptured(m):
    r = m.capture(user("The release branch is cut every second Tuesday."))
    assert m.forget(r.key)
    assert m.capture(user("The release branch is cut every second Tuesday.")).reason in ("tombstoned", "duplicate")
    assert m.get(r.key) is None


def test_secrets_are_redacted_on_capture(m):
    r = m.capture(user("deploy token is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + " keep it safe"))
    assert r.stored
    assert "ghp_a1B2" not in m.get(r.key).text


# ---- daily cap -----------------------------------------------------------------------------------------------
def test_daily_cap_per_local_day(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.daily_cap": 3}) as m2:
        got = [m2.capture(user(f"distinct fact number {i} about the build")).reason for i in range(5)]
        assert got == ["stored", "stored", "stored", "daily_cap", "daily_cap"]
        clock.now += timedelta(days=1)
        assert m2.capture(user("a new day brings a new fact")).stored


def test_daily_cap_zero_means_no_cap(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.daily_cap": 0}) as m2:
        assert all(m2.capture(user(f"distinct fact number {i} about the build")).stored for i in range(5))


def test_imported_events_do_not_count_toward_cap(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.daily_cap": 1}) as m2:
        m2.import_events([{"key": "import:x:1", "role": "user", "text": "imported history line"}])
        assert m2.capture(user("the first captured fact of today")).stored


# ---- misc ----------------------------------------------------------------------------------------------------
def test_string_event_and_bad_events(m):
    assert m.capture("The CI runners use Node 22 now.").stored
    assert m.capture(42).reason == "invalid"
    assert m.capture({"role": "robot", "text": "beep boop beep boop"}).reason == "invalid"
    assert m.capture({"role": "user", "text": "   "}).reason == "invalid"


def test_capture_disabled(project, tmp_path, clock):
    with memdir.open(project, home=tmp_path / "g", clock=clock, config={"capture.enabled": False}) as m2:
        assert m2.capture(user("a perfectly good fact to keep")).reason == "disabled"


def test_gate_decisions_logged_at_debug(m, caplog):
    with caplog.at_level(logging.DEBUG, logger="memdir"):
        m.capture(user("好的"))
    assert any("skipped (trivial)" in r.getMessage() for r in caplog.records)


def test_config_keys_registered():
    from memdir.config import REGISTRY

    for k in ("capture.min_chars", "capture.daily_cap", "capture.skip_tools", "hook.budget_ms"):
        __import__("memdir.hosts.hooks")
        assert k in REGISTRY


def test_import_of_a_session_hooks_captured_stores_no_reply_twice(m):
    """A Stop hook stores a turn's whole reply as one event; the host's transcript holds the same reply as several
    messages. Importing the transcript afterwards stores none of them again (each is inside the captured reply); a
    message the hook never saw is stored, and so is a message of another session."""
    first = "I checked the deploy script: it reads STAGING_URL from the environment, not from deploy.toml."
    second = "So setting STAGING_URL in the CI secrets is enough; no change to the script is needed."
    hook = m.capture({"role": "assistant", "text": first + "\n\n" + second, "session": "s1"})
    assert hook.stored and hook.key.startswith("a:")

    def ev(n, text, session="s1"):
        return {"key": f"import:claude-code:{session}:m{n}", "role": "assistant", "text": text, "session": session,
                "ts": f"2026-11-30T10:00:0{n}Z"}

    later = "The CI run after that change passed: 212 tests, 0 failures."
    counts = m.import_events([ev(1, first), ev(2, "  " + second.replace(" ", "   ", 2) + "\n"), ev(3, later),
                              ev(4, first, session="s2")])
    assert counts == {"read": 4, "stored": 2, "duplicate": 2, "skipped": 0}
    texts = [e["text"] for e in m.session_events("s1")]
    assert texts.count(first + "\n\n" + second) == 1 and first not in texts and later in texts
    assert [e["text"] for e in m.session_events("s2")] == [first]


def test_import_of_a_session_hooks_captured_stores_no_tool_call_twice(m):
    """A tool call a hook captured (key t:<session>:<call id>) and the same call in the transcript (key
    import:<source>:<session>:<call id>) are one call, however differently the two summaries word it."""
    hook = m.capture({"role": "tool", "tool": "Bash", "input": {"command": "juju attach-resource sungather image=x"},
                      "output": {"stdout": "", "stderr": "", "interrupted": False}, "call_id": "toolu_01ABC",
                      "session": "s1"})
    assert hook.stored and hook.key == "t:s1:toolu_01ABC"
    counts = m.import_events([
        {"key": "import:claude-code:s1:toolu_01ABC", "role": "tool", "session": "s1", "ts": "2026-11-30T10:00:00Z",
         "text": "Bash: juju attach-resource sungather image=x → (no output)"},
        {"key": "import:claude-code:s1:toolu_02DEF", "role": "tool", "session": "s1", "ts": "2026-11-30T10:00:01Z",
         "text": "Bash: juju status → Model Controller Cloud"},
        {"key": "import:claude-code:s2:toolu_01ABC", "role": "tool", "session": "s2", "ts": "2026-11-30T10:00:02Z",
         "text": "Bash: juju attach-resource sungather image=x → (no output)"}])
    assert counts == {"read": 3, "stored": 2, "duplicate": 1, "skipped": 0}
    assert [e["key"] for e in m.session_events("s1")].count("t:s1:toolu_01ABC") == 1
    assert "import:claude-code:s1:toolu_01ABC" not in [e["key"] for e in m.session_events("s1")]


def _fork_copy(session, when):
    """A forked session's file as an importer reads it: the parent's turns under the child's id and new line ids,
    with the parent's texts and times (Claude Code ``--fork-session``, a Codex fork)."""
    def ev(n, role, text, **kw):
        return {"key": f"import:claude-code:{session}:n{n}", "role": role, "text": text, "session": session,
                "ts": (when + timedelta(seconds=n)).isoformat(), **kw}
    return [ev(0, "user", "why does the staging deploy fail on the container step"),
            ev(1, "assistant", "Let me check the deploy logs for the staging container."),
            ev(2, "tool", "Bash: kubectl logs deploy/staging → Error: image tag v1.2.3 not found"),
            ev(3, "assistant", "The staging deploy fails because the image tag v1.2.3 is missing from the registry.")]


def _hooks_capture_the_parent(m, when):
    m.capture({"role": "user", "text": "why does the staging deploy fail on the container step", "session": "A",
               "ts": when.isoformat()})
    m.capture({"role": "tool", "tool": "Bash", "input": {"command": "kubectl logs deploy/staging"},
               "output": {"stdout": "", "stderr": "Error: image tag v1.2.3 not found", "interrupted": False},
               "call_id": "toolu_01ABC", "session": "A", "ts": (when + timedelta(seconds=2)).isoformat()})
    m.capture({"role": "assistant", "session": "A", "ts": (when + timedelta(seconds=5)).isoformat(),
               "text": "Let me check the deploy logs for the staging container.\n\nThe staging deploy fails because "
                       "the image tag v1.2.3 is missing from the registry."})


def test_a_forked_session_repeating_turns_hooks_captured_stores_none_of_them_again(m):
    """A fork (a new session id, the parent's turns repeated with new ids, the same texts and times) of a session the
    hooks captured: its copies of the parent's prompt, reply messages and tool call are the turns already stored; only
    the fork's own turn is new, also when the importer hands the copied turns over in several calls."""
    when = datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc)
    _hooks_capture_the_parent(m, when)
    copy = _fork_copy("B", when)
    copy[2]["key"] = "import:claude-code:B:toolu_01ABC"
    copy[2]["text"] = "Bash: kubectl logs deploy/staging → error: Error: image tag v1.2.3 not found"  # worded otherwise
    own = {"key": "import:claude-code:B:n9", "role": "user", "text": "now push the missing image tag to the registry",
           "session": "B", "ts": (when + timedelta(days=1)).isoformat()}
    first = m.import_events(copy[:1])
    rest = m.import_events(copy[1:] + [own])  # an importer's next batch
    assert (first["stored"], rest["stored"], first["duplicate"] + rest["duplicate"]) == (0, 1, 4)
    assert [e["text"] for e in m.session_events("B")] == [own["text"]]
    assert m.status()["project"]["events"] == 4


def test_the_same_prompt_asked_later_in_another_session_is_not_taken_for_a_copy(m):
    """A prompt asked again on purpose in another session, hours later, is no fork: that session's reply messages are
    its own, stored even when a reply the hooks captured earlier holds the same words (the prompt itself is stored
    once: memdir keeps one event per text)."""
    when = datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc)
    _hooks_capture_the_parent(m, when)
    later = _fork_copy("C", when + timedelta(hours=3))
    counts = m.import_events([later[0], later[1]])
    assert counts == {"read": 2, "stored": 1, "duplicate": 1, "skipped": 0}
    assert [e["text"] for e in m.session_events("C")] == [later[1]["text"]]
