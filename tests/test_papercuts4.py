"""A new user's findings (hnewuser3 4-18, checked again on 2026-12-01 main): each test failed before its fix."""

from __future__ import annotations

import json
import sys

import pytest

import memdir
from conftest import run_cli


run = run_cli  # `memdir ARGS` in this process: (exit code, stdout, stderr)


@pytest.fixture
def proj(project, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    monkeypatch.chdir(tmp_path)
    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("deploys go through the release train on tuesdays", category="decisions")
    return project


@pytest.fixture
def memdir_logger():
    """`--debug` turns the `memdir` logger's debug output on for the process: put it back for later tests."""
    import logging

    log = logging.getLogger("memdir")
    saved = (list(log.handlers), log.level, log.propagate)
    yield
    log.handlers[:] = saved[0]
    log.setLevel(saved[1])
    log.propagate = saved[2]


def test_group_options_work_after_the_command(proj, tmp_path, capsys, memdir_logger):
    code, out, err = run(capsys, "recall", "release", "train", "--dir", str(proj))
    assert code == 0 and "decisions/" in out, err
    code, out, err = run(capsys, "recall", "release", "--dir", str(proj), "--home", str(tmp_path / "g2"), "--debug")
    assert code == 0 and "memdir: DEBUG" in err
    code, out, err = run(capsys, "status", "--json", "--dir", str(proj))
    assert code == 0 and json.loads(out)["project"]["notes"] == 1
    code, out, err = run(capsys, "recall", "x", "--dir", str(tmp_path / "nope"))
    assert code == 2 and err.count("\n") == 1 and "does not exist" in err


def test_json_errors_are_one_json_line(proj, capsys):
    code, out, err = run(capsys, "--dir", str(proj), "get", "nothing-here", "--json")
    assert code == 1 and out == ""
    assert json.loads(err) == {"error": json.loads(err)["error"], "exit_code": 1} and "nothing-here" in err
    code, out, err = run(capsys, "--json", "recall", "--nope")
    assert code == 2 and json.loads(err)["exit_code"] == 2


def test_a_missing_choice_argument_is_one_line(capsys):
    code, out, err = run(capsys, "install")
    assert code == 2 and err.count("\n") == 1 and "claude-code, codex, opencode" in err


def test_a_bad_choice_in_config_lists_the_choices(proj, capsys):
    (proj / ".memory" / "config.toml").write_text('[recall]\nchannel = "vectorz"\n[distill]\nprovider = "clade"\n')
    with memdir.open(proj) as m:
        warnings = " ".join(m.config.warnings)
    assert "not one of lexical, vector, hybrid" in warnings and "not one of openai, anthropic" in warnings
    assert "out of range" not in warnings


@pytest.mark.parametrize("value, why", [("[]", "needs at least one category"), ('["rules", "../x"]', "invalid category '../x'")])
def test_categories_are_validated(proj, value, why):
    (proj / ".memory" / "config.toml").write_text(f"categories = {value}\n")
    with memdir.open(proj) as m:
        assert any(why in w for w in m.config.warnings)
        assert m.config.get("categories") == ["rules", "preferences", "decisions", "pitfalls", "facts"]


def test_edit_without_text_says_what_to_give(proj, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    code, out, err = run(capsys, "--dir", str(proj), "edit", "decisions/deploys-go-through-the-release-train-on-tuesdays",
                         stdin="", monkeypatch=monkeypatch)
    assert code == 2 and err.count("\n") == 1
    assert "memdir edit decisions/deploys-go-through-the-release-train-on-tuesdays FILE" in err and "forget" not in err


def test_forget_by_handle_names_what_it_deleted(proj, tmp_path, capsys):
    with memdir.open(proj) as m:
        handle = m.recall("release train")[0].handle
    code, out, err = run(capsys, "--dir", str(proj), "forget", handle)
    assert code == 0 and out.strip() == f"forgot decisions/deploys-go-through-the-release-train-on-tuesdays ({handle})"


def test_distill_settings_that_cannot_work_are_usage_errors():
    from memdir.config import Config
    from memdir.errors import UsageError
    from memdir.llm import LLMConfigError, LLMError, get_provider

    cfg = Config(env={"MEMDIR_DISTILL_PROVIDER": "openai", "MEMDIR_DISTILL_URL": "http://127.0.0.1:9/v1"})
    with pytest.raises(LLMConfigError, match="needs distill.model") as got:
        get_provider(cfg)
    assert isinstance(got.value, UsageError) and isinstance(got.value, LLMError) and got.value.exit_code == 2


def test_a_codex_config_that_does_not_parse_says_where(tmp_path):
    from memdir.errors import UsageError
    from memdir.hosts.install_codex import toml_load as _toml_load

    with pytest.raises(UsageError, match=r"line 2, column 5"):
        _toml_load(tmp_path / "config.toml", "a = 1\nb = = 2\n")
    with pytest.raises(UsageError, match=r"end of document"):
        _toml_load(tmp_path / "config.toml", "model = [\n")


def test_import_hints(proj, tmp_path, capsys, monkeypatch):
    cc = tmp_path / "cc.jsonl"
    cc.write_text(json.dumps({"type": "user", "sessionId": "s1", "cwd": str(proj), "uuid": "u1",
                              "timestamp": "2026-10-01T10:00:00Z",
                              "message": {"role": "user", "content": "how do we roll back a deploy"}}) + "\n")
    code, out, err = run(capsys, "--dir", str(proj), "import", "codex", str(cc))
    # the hint once, on the error line (it was on stdout too)
    assert code == 1 and f"{cc} is a claude-code transcript: memdir import claude-code {cc}" in err
    assert "nothing imported: no codex events found" in err and "claude-code transcript" not in out
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    code, out, err = run(capsys, "--dir", str(proj), "import", "claude-code")
    assert code == 1 and str(tmp_path / "home" / ".claude" / "projects") in err


def test_bad_jsonl_lines_warn_a_few_times_then_count(proj, tmp_path, caplog):
    f = tmp_path / "bad.jsonl"
    f.write_text("not json\n" * 10)
    with memdir.open(proj) as m:
        assert m.import_jsonl(f)["bad_lines"] == 10
    assert sum("bad.jsonl" in r.getMessage() for r in caplog.records) == 4


def test_an_import_that_finds_nothing_exits_1_and_says_why(proj, tmp_path, capsys, caplog):
    """A file in the wrong format imported nothing: exit 1 with one line (a script must not read it as success); a
    directory given as the file says so; a damaged host file lists its first bad lines, then counts the rest."""
    md = tmp_path / "note.md"
    md.write_text("# a note\nsome markdown\n", encoding="utf-8")
    code, out, err = run(capsys, "--dir", str(proj), "import", str(md))
    assert code == 1 and "nothing imported from" in err and "2 lines are not memdir records" in err and "2 bad lines" in out
    for source in ("claude-code", "specstory", "aider"):
        code, out, err = run(capsys, "--dir", str(proj), "import", source, str(md), "--here")
        assert code == 1 and f"nothing imported: no {source} events found in {md}" in err, (source, err)
    code, out, err = run(capsys, "--dir", str(proj), "import", str(tmp_path))
    assert code == 2 and "is a directory" in err
    bad = tmp_path / "s.jsonl"
    bad.write_text("{broken\n" * 20, encoding="utf-8")
    caplog.clear()
    code, out, err = run(capsys, "--dir", str(proj), "import", "claude-code", str(bad), "--here")
    assert code == 1
    lines = [r.getMessage() for r in caplog.records if "s.jsonl" in r.getMessage()]
    assert len(lines) == 4 and "more bad claude-code lines skipped" in lines[-1]


def test_a_broken_index_md_marker_is_reported_with_its_repair_not_reindex(proj):
    idx = proj / ".memory" / "decisions" / "index.md"
    idx.write_text("# decisions\n<!-- auto:begin index -->\n- hand line\n", encoding="utf-8")
    with memdir.open(proj) as m:
        rep = m.inspect()
    details = [p["detail"] for p in rep.problems]
    assert any("'<!-- auto:end index -->'" in d for d in details), details
    assert not any("run `memdir reindex`" in d for d in details)


def test_frontmatter_kind_that_names_no_category_is_refused(proj, capsys, monkeypatch):
    code, out, err = run(capsys, "--dir", str(proj), "remember", "-", stdin="---\nkind: nonsense\n---\nsome body text\n",
                         monkeypatch=monkeypatch)
    assert code == 2 and "kind 'nonsense' names no category" in err
    assert not list((proj / ".memory" / "facts").glob("some-body*.md"))


def test_inspect_reports_frontmatter_fields_it_ignored(proj):
    (proj / ".memory" / "facts").mkdir(exist_ok=True)
    (proj / ".memory" / "facts" / "odd.md").write_text(
        "---\nsummary: [a list]\ncreated: not-a-date\npinned: maybe\n---\nodd body\n", encoding="utf-8")
    with memdir.open(proj) as m:
        [p] = [p for p in m.inspect().problems if p["kind"] == "fields"]
    assert "summary is not text" in p["detail"] and "'not-a-date' is not a time" in p["detail"] and "pinned 'maybe'" in p["detail"]


def test_uninstall_gives_back_the_users_claude_json_exactly(tmp_path, monkeypatch):
    """Uninstall takes out memdir's server; a user's own empty "mcpServers" survives it (e2e's config_preserved
    failed when uninstall dropped every empty key: memdir cannot tell which one install added)."""
    from memdir.hosts.install import install_host

    home = tmp_path / "h"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for before in ({"numStartups": 3, "mcpServers": {}}, {"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}):
        (home / ".claude.json").write_text(json.dumps(before) + "\n")
        install_host("claude-code", argv=["memdir"])
        assert "memdir" in json.loads((home / ".claude.json").read_text())["mcpServers"]
        install_host("claude-code", uninstall=True, argv=["memdir"])
        assert json.loads((home / ".claude.json").read_text()) == before


def test_project_uninstall_removes_the_mcp_json_install_made(tmp_path, monkeypatch):
    from memdir.hosts.install import install_host

    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    (tmp_path / "h").mkdir()
    proj = tmp_path / "p"
    proj.mkdir()
    install_host("claude-code", project=proj, argv=["memdir"])
    assert (proj / ".mcp.json").exists()
    install_host("claude-code", project=proj, uninstall=True, argv=["memdir"])
    assert not (proj / ".mcp.json").exists()


def test_an_index_found_damaged_after_it_opened_says_how_to_recover(proj, capsys, monkeypatch):
    """The open reads the schema only: a page damaged elsewhere surfaced as 'internal error: DatabaseError' from every
    command, doctor included (overwriting 16 KB in the middle of the file, as hnewuser3 did)."""
    import sqlite3

    from memdir.core import Memdir

    def damaged(self, *a, **k):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(Memdir, "status", damaged)
    code, out, err = run(capsys, "--dir", str(proj), "status")
    assert code == 1 and err.count("\n") == 1 and "internal error" not in err
    assert "the index is damaged (database disk image is malformed)" in err and "move .memory/.memdir/index.sqlite3 aside" in err and "delete" not in err
    monkeypatch.setattr(Memdir, "status", lambda self: (_ for _ in ()).throw(sqlite3.OperationalError("no such table: x")))
    code, out, err = run(capsys, "--dir", str(proj), "status")
    assert code == 1 and "internal error: OperationalError" in err


def test_a_mistyped_or_other_tools_command_name_gets_a_suggestion(proj, capsys):
    for typed, want in (("recal", "recall"), ("remeber", "remember"), ("list", "recent"), ("search", "recall"),
                        ("lst", "recent"), ("uninstall", "install HOST --uninstall")):
        code, out, err = run(capsys, "--dir", str(proj), typed, "x")
        assert code == 2 and f"did you mean `memdir {want}`?" in err and err.count("\n") == 1, (typed, err)
    code, out, err = run(capsys, "--dir", str(proj), "zzqq")
    assert code == 2 and "`memdir --help` lists the commands" in err


def test_memdir_debug_writes_the_log_not_the_terminal(proj, tmp_path):
    import os
    import subprocess
    import sys

    home = tmp_path / "dbg-home"
    env = {**os.environ, "MEMDIR_DEBUG": "1", "MEMDIR_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "memdir.cli", "--dir", str(proj), "remember", "the deploy window is friday"],
                   env=env, capture_output=True, timeout=120, check=True)
    r = subprocess.run([sys.executable, "-m", "memdir.cli", "--dir", str(proj), "recall", "deploy window"],
                       env=env, capture_output=True, timeout=120)
    assert r.returncode == 0 and b"recall '" not in r.stderr and b"DEBUG" not in r.stderr
    assert "recall '" in (home / ".memdir" / "debug.log").read_text(encoding="utf-8")


def test_pin_of_an_unknown_handle_says_not_found_as_get_and_forget_do(proj, capsys):
    code, out, err = run(capsys, "--dir", str(proj), "remember", "the deploy window is friday")
    assert code == 0
    for cmd in ("pin", "get", "forget"):
        code, out, err = run(capsys, "--dir", str(proj), cmd, "zzzzzz")
        assert code == 1 and "zzzzzz" in err and "category/slug" not in err, (cmd, err)


def test_recent_shows_the_handle_get_and_forget_take(proj, capsys):
    run(capsys, "--dir", str(proj), "remember", "the deploy window is friday")
    code, out, err = run(capsys, "--dir", str(proj), "recent")
    handle = out.split("[", 1)[1].split()[0]
    assert code == 0 and len(handle) == 6
    code, out, err = run(capsys, "--dir", str(proj), "get", handle)
    assert code == 0 and "deploy window is friday" in out


def test_a_directory_whose_own_session_was_all_noise_still_exits_0(proj, tmp_path, capsys):
    """Something of this project was read (and gated as noise): not "nothing imported" because another session in
    the directory belongs elsewhere — the same file alone exits 0 too."""
    d = tmp_path / "sessions"
    d.mkdir()

    def line(session, cwd, text, uuid):
        return json.dumps({"type": "user", "sessionId": session, "cwd": cwd, "uuid": uuid,
                           "timestamp": "2026-10-01T10:00:00Z", "message": {"role": "user", "content": text}}) + "\n"

    (d / "mine.jsonl").write_text(line("s-mine", str(proj), "ok", "u1"), encoding="utf-8")
    (d / "theirs.jsonl").write_text(line("s-theirs", str(tmp_path / "other"), "how do we roll back a deploy", "u2"),
                                    encoding="utf-8")
    (tmp_path / "other" / ".git").mkdir(parents=True)
    code, out, err = run(capsys, "--dir", str(proj), "import", "claude-code", str(d))
    assert code == 0, err
    code, out, err = run(capsys, "--dir", str(proj), "import", "claude-code", str(d / "theirs.jsonl"))
    assert code == 1 and "recorded in other projects" in err


def test_a_query_on_stdin_with_stray_bytes_still_searches(proj, capsys, monkeypatch):
    """Only stored text is refused for bad bytes; a pasted log with a NUL or a Latin-1 byte is a usable query, and
    UTF-16 from a Windows tool is read as such."""
    import io

    run(capsys, "--dir", str(proj), "remember", "the staging server is at 10.0.0.5")
    for data in (b"staging \x00 server \xff log", "staging server".encode("utf-16")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        code, out, err = run(capsys, "--dir", str(proj), "recall", "-")
        assert code == 0 and "10.0.0.5" in out, (data, err)


def test_a_misspelled_config_key_gets_a_suggestion(proj, tmp_path):
    (proj / ".memory").mkdir(exist_ok=True)
    (proj / ".memory" / "config.toml").write_text("[recall]\nbridge_weigth = 0.4\n", encoding="utf-8")
    with memdir.open(proj, home=tmp_path / "g") as m:
        assert any("did you mean 'recall.bridge_weight'?" in w for w in m.config.warnings)


def test_get_shows_whether_a_note_is_pinned_and_its_tags(proj, capsys):
    code, out, err = run(capsys, "--dir", str(proj), "remember", "never deploy on fridays", "-t", "ops", "--pinned")
    assert code == 0
    code, out, err = run(capsys, "--dir", str(proj), "get", "facts/never-deploy-on-fridays")
    assert code == 0 and out.splitlines()[0] == "facts/never-deploy-on-fridays (project fact; pinned; tags: ops)"


def test_recall_takes_n_and_limit_as_recent_does(proj, capsys):
    for i in range(3):
        run(capsys, "--dir", str(proj), "remember", f"staging note number {i} about the database")
    for flag in ("-k", "-n", "--limit"):
        code, out, err = run(capsys, "--dir", str(proj), "recall", "staging database", flag, "1")
        assert code == 0 and out.count("score=") == 1, (flag, err)


def test_remember_of_broken_utf16_is_one_line_not_a_traceback(proj, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfea\x00\x00\xd8")))  # a lone surrogate
    code, out, err = run(capsys, "--dir", str(proj), "remember", "-")
    assert code == 2 and "not valid UTF-16" in err and err.count("\n") == 1


def test_a_project_directory_is_searched_without_memdirs_own_files(proj, tmp_path, capsys):
    """``memdir import claude-code <dir>`` on a project: its ``.memory/.memdir/tombstones.jsonl`` (memdir's own JSONL)
    is no transcript; a directory holding none says that it holds none, not "pass the path"."""
    with memdir.open(proj) as m:
        m.remember("the staging port is 5433")
    (proj / ".memory" / ".memdir" / "tombstones.jsonl").write_text('{"ref": "x", "sha": "y"}\n')
    code, out, err = run(capsys, "--dir", str(proj), "import", "claude-code", str(proj), "--here")
    assert code == 1 and "1 file" not in out and "holds no claude-code session files" in err
    assert "pass the path explicitly" not in err


def test_a_fifo_or_a_device_where_a_note_or_an_import_file_goes_is_refused_not_read_forever(proj, tmp_path, capsys):
    """A FIFO named ``x.md`` among the notes blocked every command (recall, inspect, doctor); `memdir import /dev/zero`
    said "no such file"."""
    import os

    with memdir.open(proj) as m:
        m.remember("kiwis ripen faster beside apples", category="facts")
    os.mkfifo(proj / ".memory" / "facts" / "fifo.md")
    with memdir.open(proj) as m:
        assert m.recall("kiwis")
        rep = m.inspect()
    assert any("fifo.md" in p["path"] and "not a regular file" in p["detail"] for p in rep.problems)
    code, out, err = run(capsys, "--dir", str(proj), "import", "/dev/zero")
    assert code == 2 and "is not a regular file" in err


def test_a_binary_file_given_to_a_text_transcript_importer_stores_nothing(proj, tmp_path, capsys):
    """Random bytes imported as a Claude Code /export stored U+FFFD noise as user turns (lines that happened to start
    with ``>``), exit 0."""
    import random

    rnd = random.Random(7)
    blob = bytes(rnd.randrange(256) for _ in range(100_000))
    for source in ("claude-export", "specstory", "aider"):
        f = tmp_path / f"{source}.txt"
        f.write_bytes(blob)
        code, out, err = run(capsys, "--dir", str(proj), "import", source, str(f), "--here")
        assert code == 1 and "nothing imported" in err and "0 stored" in out, (source, out, err)


def test_a_mistyped_import_source_gets_the_source_it_resembles(proj, capsys):
    code, out, err = run(capsys, "--dir", str(proj), "import", "clade-code")
    assert code == 2 and "did you mean `memdir import claude-code`?" in err
    code, out, err = run(capsys, "--dir", str(proj), "import", "claude")  # a prefix of three: all three named
    assert code == 2 and "`memdir import claude-code` or `memdir import claude-export` or `memdir import claude-mem`" in err
    code, out, err = run(capsys, "--dir", str(proj), "import", "backup.jsonl")
    assert code == 2 and "no such file 'backup.jsonl'" in err  # a file's name is not taken for a source


def test_a_fifo_named_config_toml_root_md_index_md_or_a_queued_capture_blocks_nothing(proj, tmp_path):
    """Every file memdir opens under a root is opened only when it is a regular file: a FIFO as `config.toml`,
    `ROOT.md`, a category's `index.md` or a spool file hung recall, remember, recent and every hook."""
    import os

    from memdir.engine import spool

    with memdir.open(proj) as m:
        m.remember("kiwis ripen faster beside apples", category="facts")
        spool.spool_dir(m.roots["project"]).mkdir(parents=True, exist_ok=True)
        queued = spool.spool_dir(m.roots["project"]) / "00000000000000000001-1-1.json"
    mem = proj / ".memory"
    (mem / "ROOT.md").unlink(missing_ok=True)
    (mem / "facts" / "index.md").unlink(missing_ok=True)
    for path in (mem / "config.toml", mem / "ROOT.md", mem / "facts" / "index.md", queued):
        os.mkfifo(path)
    with memdir.open(proj) as m:
        assert m.recall("kiwis")
        m.remember("figs ripen in late summer", category="facts")
        m.capture({"role": "user", "text": "when do the figs ripen in this orchard?", "session": "s"})
        assert m.recall("figs")
    assert queued.with_name("bad-" + queued.name).exists()  # set aside, never deleted


def test_a_fifo_as_the_ledger_the_gitignore_or_the_tombstone_log_blocks_nothing(proj):
    """The event ledger (`events.json`), the root's `.gitignore` and the tombstone log (`tombstones.jsonl`) are opened
    by name too: a FIFO there hung recall, remember, forget, inspect and doctor."""
    import os

    with memdir.open(proj) as m:
        nid = m.remember("kiwis ripen faster beside apples", category="facts").id
    mem = proj / ".memory"
    for rel in (".memdir/events.json", ".gitignore", ".memdir/tombstones.jsonl", "facts/index.md", "ROOT.md"):
        (mem / rel).unlink(missing_ok=True)
        os.mkfifo(mem / rel)
    with memdir.open(proj) as m:
        assert m.recall("kiwis")
        m.remember("figs ripen in late summer", category="facts")
        assert any("index.md" in p["path"] for p in m.inspect().problems)
        assert m.forget(nid) and not m.recall("kiwis")  # the log's copy of the tombstone is skipped, never waited on


@pytest.mark.parametrize("key,section,name", [("recall.k", "recall", "k"), ("inject.max_entries", "inject", "max_entries"),
                                              ("hook.budget_ms", "hook", "budget_ms"), ("embed.timeout_s", "embed", "timeout_s")])
def test_a_huge_count_or_time_in_config_is_refused_not_a_later_crash(proj, key, section, name):
    (proj / ".memory" / "config.toml").write_text(f"[{section}]\n{name} = 9223372036854775808\n")
    with memdir.open(proj) as m:
        assert "out of range" in " ".join(m.config.warnings)
        assert m.config.get(key) < 1e9
        m.remember("note about numbats")
        assert m.recall("numbats") and "numbats" in m.context("numbats")


@pytest.mark.parametrize("key", ["inject.max_chars", "inject.max_entries"])
def test_zero_in_config_means_no_block_as_it_does_in_the_call(proj, key, monkeypatch):
    with memdir.open(proj) as m:
        m.remember("deploy with pnpm")
    with memdir.open(proj, config={key: 0}) as m:
        assert m.context("deploy") == "" and not m.config.warnings
    monkeypatch.setenv("MEMDIR_" + key.upper().replace(".", "_"), "0")
    with memdir.open(proj) as m:
        assert m.context("deploy") == ""


def test_a_config_saved_with_a_byte_order_mark_is_read(proj):
    (proj / ".memory" / "config.toml").write_bytes(b"\xef\xbb\xbf[recall]\nk = 3\n")
    with memdir.open(proj) as m:
        assert m.config.get("recall.k") == 3 and not m.config.warnings


def test_a_vector_channel_without_a_provider_is_said_once_and_doctor_warns(proj, caplog):
    import logging

    from memdir.engine import hybrid

    hybrid._SAID.clear()
    with caplog.at_level(logging.WARNING, logger="memdir"), memdir.open(proj, config={"recall.channel": "vector"}) as m:
        m.remember("note about numbats")
        assert m.recall("numbats") and m.recall("numbats")
        said = [r for r in caplog.records if "recall.channel is vector" in r.getMessage()]
        assert len(said) == 1
        check = next(c for c in m.doctor() if c["check"] == "provider")
        assert check["ok"] == "warn" and "needs a provider" in check["detail"]
