"""Distillation end to end with a real host CLI (issue 11): the Claude Code CLI installed from npm (``make e2e``)
is the distillation model provider (``distill.provider = "claude"``), and its model is the e2e stub, which
answers a distillation prompt (recognised by ``stub_model.DISTILL_MARK``) with ``stub_model.DISTILL_REPLY``.

1. A real transcript from ``../shared/data/transcripts/`` is imported and distilled with ``memdir distill``:
   the notes, proposals and skips are exactly what the stub's reply dictates, and a second run adds nothing.
2. ``claude -p`` runs with ``distill.auto`` off and on, alternating, three of each: with it on the Stop hook
   starts the detached distiller for that session; the Stop hook's wall time (memdir's debug log, whole
   process) is compared between the two.

With ``MEMDIR_E2E_REPORT`` set, one JSON line with the notes and the hook times is appended there
(``make e2e`` writes ``bench/results/e2e_hosts.json``).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pytest

import e2e_hosts as hosts
import e2e_stub_model as stub_model

pytestmark = pytest.mark.e2e

TRANSCRIPT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "transcripts" / "claude-code" / "session-9eda1058.jsonl"
SESSION = "9eda1058-9706-484a-b992-d03f9cfa2546"
RUNS = 3
REPLY = {"version": 1, "memories": [
    {"category": "decisions", "summary": "Tool listings are saved to a file for review",
     "body": "When asked to show the available tools, the agent writes the list into a file so it can be reviewed later.",
     "tags": ["tools"], "load_when": ["tool list"]},
    {"category": "rules", "summary": "Always store tool output in a file when asked",
     "body": "Always store a requested tool listing in a file, not only in the chat.", "tags": ["tools"]},
    {"category": "facts", "summary": "Deploys run with make ship from the repo root",
     "body": "Deploys run with make ship from the repo root."},          # the seeded fact: a duplicate, skipped
    {"category": "gossip", "summary": "x", "body": "y"},                # rejected: unknown category
]}


def _skip_unless() -> None:
    if hosts.E2E_ENV.get("MEMDIR_E2E", "").strip().lower() not in ("1", "true", "yes", "on"):
        pytest.skip("end-to-end test with a real host CLI as the distillation model: run `make e2e`")
    if hosts.host_bin("claude-code") is None:
        pytest.fail("MEMDIR_E2E=1 but claude is not on PATH or in MEMDIR_E2E_BIN (run tests/e2e/install_hosts.sh)")
    if not TRANSCRIPT.exists():
        pytest.skip(f"needs {TRANSCRIPT} (the team's shared data)")


def _config(s: hosts.Scratch, *, auto: bool) -> None:
    # the user's own config.toml (the global root's): distill.command is a program memdir runs, which a project's
    # config.toml (a cloned repository's file) may not set
    d = s.memdir_home
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.toml").write_text(
        f'[distill]\nprovider = "claude"\ncommand = "{hosts.host_bin("claude-code")}"\nauto = {str(auto).lower()}\n'
        'min_turns = 1\ntimeout_s = 120\n', encoding="utf-8")


def _stop_ms(s: hosts.Scratch, before: int) -> list[float]:
    return [ms for ev, ms in s.hook_times()[before:] if ev.lower() == "stop"]


def test_distill_through_the_claude_cli(tmp_path, monkeypatch):
    _skip_unless()
    monkeypatch.setattr(stub_model, "DISTILL_REPLY", json.dumps(REPLY))
    s = hosts.Scratch(tmp_path, "claude-code", project=False)
    try:
        _config(s, auto=False)
        s.memdir(["import", "claude-code", str(TRANSCRIPT), "--here"])
        if s.log.exists():
            s.log.unlink()
        out = json.loads(s.memdir(["distill", "--session", SESSION, "--json"]).stdout)
        distill_requests = [json.loads(l) for l in s.log.read_text().splitlines()] if s.log.exists() else []
        assert out["provider"] == "claude" and out["calls"] >= 1 and not out["errors"], out
        assert [n["summary"] for n in out["notes"]] == [REPLY["memories"][0]["summary"]]
        assert [p["summary"] for p in out["proposals"]] == [REPLY["memories"][1]["summary"]]
        assert len(out["skipped"]) == 1 and out["skipped"][0]["overlaps"].startswith("facts/deploys-run-with-make-ship")
        assert any(r["reason"] == "unknown category 'gossip'" for r in out["rejected"])
        assert any(stub_model.DISTILL_MARK in json.dumps(r["body"]) for r in distill_requests)
        assert not any(r["body"].get("tools") for r in distill_requests if isinstance(r.get("body"), dict)
                       and stub_model.DISTILL_MARK in json.dumps(r["body"]))             # --tools "": no tools offered
        again = json.loads(s.memdir(["distill", "--session", SESSION, "--json"]).stdout)
        assert again["calls"] == 0 and not again["notes"]
        note = s.proj / ".memory" / (out["notes"][0]["id"] + ".md")
        front = note.read_text(encoding="utf-8")
        assert "source: distill" in front and SESSION in front and "claude-cli:haiku" in front

        # ---- the Stop hook with distill.auto off and on, alternating (each on-run's distiller finishes first) ----
        s.install()
        logf = s.memdir_home / ".memdir" / "distill.log"
        off_ms: list[float] = []
        on_ms: list[float] = []
        rcs = []
        for i in range(RUNS):
            for auto, sink in ((False, off_ms), (True, on_ms)):
                _config(s, auto=auto)
                n = len(s.hook_times())
                r = s.run(f"{hosts.PROMPT} (run {i}, distill.auto {auto})")
                rcs.append(r.rc)
                sink += _stop_ms(s, n)
            deadline = time.monotonic() + 180  # a bound on waiting for the detached distiller, not a timing assertion
            while time.monotonic() < deadline and (logf.read_text().count("distill: session") if logf.exists() else 0) <= i:
                time.sleep(0.5)
        log_text = logf.read_text() if logf.exists() else ""
        assert rcs == [0] * (2 * RUNS) and len(off_ms) == len(on_ms) == RUNS, (rcs, off_ms, on_ms)
        assert log_text.count("distill: session") == RUNS and "failed" not in log_text, log_text[-800:]
        proposals = json.loads(s.memdir(["proposals", "--json"]).stdout)
        result = {"host": "claude-code (distillation provider)", "version": hosts.host_version("claude-code"),
                  "transcript": TRANSCRIPT.name, "calls": out["calls"],
                  "notes": [(n["id"], n["summary"]) for n in out["notes"]],
                  "proposals": [(p["id"], p["summary"]) for p in proposals],
                  "skipped": [(k["summary"], k["reason"]) for k in out["skipped"]],
                  "rejected": [r["reason"] for r in out["rejected"]],
                  "stop_hook_ms_auto_off": off_ms, "stop_hook_ms_auto_on": on_ms,
                  "stop_hook_added_p50_ms": statistics.median(on_ms) - statistics.median(off_ms),
                  "stop_hook_p50_ms_auto_off": statistics.median(off_ms), "stop_hook_p50_ms_auto_on": statistics.median(on_ms),
                  "detached_log": [l.split(" INFO ", 1)[-1] for l in log_text.splitlines() if "distill: session" in l]}
    finally:
        s.close()
    report = hosts.E2E_ENV.get("MEMDIR_E2E_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as f:
            f.write(json.dumps(result) + "\n")
