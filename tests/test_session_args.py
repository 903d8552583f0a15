"""A session id or a time given empty (``memdir distill --session ""``, ``m.distill(session="")``) is a one-line usage
error naming it, never read as "every session" (an empty value silently widened what a command touched)."""

from __future__ import annotations

import json
import subprocess

import pytest

import memdir
from memdir.cli.main import main


@pytest.fixture()
def m(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    with memdir.open(proj, home=tmp_path / "home") as mem:
        mem.import_events([{"key": f"k{i}", "role": "user", "text": f"we deploy with pnpm since the lockfile broke {i}",
                            "session": "s1", "ts": f"2026-10-01T10:0{i}:00Z"} for i in range(5)])
        yield mem


class Never:
    name, model = "stub", "stub-1"

    def complete(self, system, prompt):  # pragma: no cover - the point is it is never asked
        raise AssertionError("the model was asked")


@pytest.mark.parametrize("kwargs", [{"session": ""}, {"session": "   "}, {"session": 5}, {"since": ""},
                                    {"since": "  "}])
def test_distill_with_an_empty_session_or_time_is_a_usage_error_and_asks_no_model(m, kwargs):
    with pytest.raises(memdir.UsageError) as info:
        m.distill(provider=Never(), **kwargs)
    msg = str(info.value)
    assert "\n" not in msg and next(iter(kwargs)) in msg


@pytest.mark.parametrize("call", [lambda m: m.forget_source("distill", session=""),
                                  lambda m: m.forget_source("distill", session=" "),
                                  lambda m: m.capture_skips(session="")])
def test_other_calls_taking_a_session_refuse_an_empty_one(m, call):
    with pytest.raises(memdir.UsageError, match="session"):
        call(m)


@pytest.mark.parametrize("args", [["distill", "--session", ""], ["distill", "--session", "  "],
                                  ["distill", "--since", ""], ["forget", "--source", "distill", "--session", ""],
                                  ["log", "skips", "--session", ""]])
@pytest.mark.parametrize("as_json", [False, True])
def test_the_cli_refuses_an_empty_session_in_one_line_with_exit_2(tmp_path, monkeypatch, capsys, args, as_json):
    proj = tmp_path / "p"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    monkeypatch.chdir(proj)
    with pytest.raises(SystemExit) as exc:
        main(["--home", str(tmp_path / "g"), *args, *(["--json"] if as_json else [])])
    cap = capsys.readouterr()
    assert exc.value.code == 2 and not cap.out
    assert len(cap.err.strip().splitlines()) == 1, cap.err
    line = json.loads(cap.err)["error"] if as_json else cap.err
    assert "session" in line or "since" in line
