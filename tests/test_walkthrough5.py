"""What a new user's walkthrough found (stop 42): MEMDIR_HOME (or --home) naming a file, where every command warned
about a config.toml under it, status said "not created yet" and doctor found all well; a note-length message in two units."""

from __future__ import annotations

from conftest import add_root_rule, run_cli


def test_doctor_and_status_say_the_global_root_is_a_file(project, tmp_path, capsys, monkeypatch):
    f = tmp_path / "f"
    f.write_text("", encoding="utf-8")
    monkeypatch.setenv("MEMDIR_HOME", str(f))
    code, out, err = run_cli(capsys, "--dir", str(project), "doctor")
    assert code == 1 and f"[fail] global root: {f} is a file" in out and "MEMDIR_HOME" in out
    assert "ignoring" not in err
    code, out, err = run_cli(capsys, "--dir", str(project), "status")
    assert code == 0 and f"global: {f} (a file, not a directory, stands there" in out and "ignoring" not in err


def test_a_note_too_long_is_measured_in_one_unit(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    text = "很长的中文内容，关于缓存和部署的说明。" * 20000  # 380,000 characters, 1,140,000 bytes
    code, out, err = run_cli(capsys, "--dir", str(project), "remember", "-", stdin=text, monkeypatch=monkeypatch)
    assert code == 2 and "1,140,000 bytes in UTF-8" in err and "at most 900,000 bytes" in err


def test_text_starting_with_a_dash_gets_the_way_to_give_it(project, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    for text in ("--- leading dashes", "-rf is dangerous here"):
        code, out, err = run_cli(capsys, "--dir", str(project), "remember", text)
        assert code == 2 and f"memdir remember -- {text!r}" in err and err.count("\n") == 1
    code, out, err = run_cli(capsys, "--dir", str(project), "remember", "--", "-rf is dangerous here")
    assert code == 0


def test_a_global_root_under_a_file_is_said_too(project, tmp_path, capsys, monkeypatch):
    f = tmp_path / "afile"
    f.write_text("", encoding="utf-8")
    monkeypatch.setenv("MEMDIR_HOME", str(f / "sub"))
    code, out, err = run_cli(capsys, "--dir", str(project), "doctor")
    assert code == 1 and f"[fail] global root: {f} is a file" in out
    code, out, err = run_cli(capsys, "--dir", str(project), "status")
    assert f"global: {f / 'sub'} (a file, not a directory, stands there" in out


def test_an_export_says_root_md_s_goals_and_rules_travel_as_the_file(project, tmp_path, capsys, monkeypatch):
    import memdir

    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    add_root_rule(project, "Never force-push to main")
    code, out, err = run_cli(capsys, "--dir", str(project), "export", str(tmp_path / "d.jsonl"))
    assert code == 0 and "ROOT.md's 1 goal or hard rule is not in it" in out


def test_forget_by_query_points_at_root_md_for_its_own_lines(project, tmp_path, capsys, monkeypatch):
    import memdir

    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through helm charts", category="decisions")
    add_root_rule(project, "Never force-push to main")
    code, out, err = run_cli(capsys, "--dir", str(project), "forget", "--query", "force-push")
    assert code == 1 and "edit ROOT.md by hand" in err


def test_distill_of_a_session_that_was_never_captured_says_so(project, tmp_path, capsys, monkeypatch):
    import memdir

    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    with memdir.open(project, home=tmp_path / "g") as m:
        m.capture({"role": "user", "text": "why does the helm deploy hang on node two", "session": "s1"})
    code, out, err = run_cli(capsys, "--dir", str(project), "distill", "--session", "nonexistent")
    assert code == 1 and "no captured session 'nonexistent'" in err
