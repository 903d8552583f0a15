"""Review fixes (hreview): behaviour of CLI paths that were repeated or unguarded."""

from __future__ import annotations

from click.testing import CliRunner

import memdir
from memdir.cli.main import cli


def run(home, proj, *args, **kw):
    return CliRunner().invoke(cli, ["--home", str(home), "--dir", str(proj), *args], **kw)


def test_forget_and_prune_previews_show_samples_and_the_confirm_command(tmp_path, project):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.import_events([{"key": "u:s:1", "session": "s", "text": "we switched\n  to pnpm today"}])
    r = run(home, project, "forget", "--query", "pnpm")
    assert r.exit_code == 0, r.output
    head, sample, confirm = r.output.strip().splitlines()
    assert head.startswith("1 memory matches --query 'pnpm' (0 notes, 1 event)") and "nothing deleted yet" in head
    assert sample.strip().endswith("u:s:1: we switched to pnpm today")  # whitespace folded, one line per sample
    assert confirm.startswith("to delete it: memdir forget --query 'pnpm' --token ")  # one match: "it"
    r = run(home, project, "prune", "--days", "30")
    assert r.exit_code == 0, r.output
    assert r.output.strip().splitlines() == [r.output.strip()]  # nothing cold: no samples, no confirm line
    assert "would be deleted" in r.output and "to delete" not in r.output


def test_drop_file_records_count_lines_through_the_shared_jsonl_reader(tmp_path):
    from memdir.portability.dropimport import records

    f = tmp_path / "notes.jsonl"
    f.write_bytes(b'{"text": "deploys go through staging first", "ts": "2026-01-02T00:00:00Z"}\n'
                  b"\n"                      # blank: not a line
                  b"{not json\n"             # bad
                  b"[1, 2]\n"                # not an object: bad
                  b'{"title": "no body"}\n'  # no text: bad
                  b'{"body": "older one", "ts": "2026-01-01T00:00:00Z"}\n')
    evs, counts = records(f, max_items=10)
    assert counts == {"lines": 5, "bad_lines": 3, "skipped_over_max": 0}
    assert [e["text"] for e in evs] == ["older one", "deploys go through staging first"]  # oldest first
    assert all(e["key"].startswith("import:notes:") for e in evs)


def test_claude_mem_import_of_a_file_that_is_not_sqlite_is_a_one_line_usage_error(tmp_path, project):
    bad = tmp_path / "claude-mem.db"
    bad.write_text("not a database, just text\n" * 50)
    r = run(tmp_path / "g", project, "import", "claude-mem", str(bad))
    assert isinstance(r.exception, memdir.UsageError)  # `memdir` prints it as one line, exit 2
    assert str(r.exception) == f"{bad} is not an SQLite database: pass claude-mem's SQLite database (~/.claude-mem/claude-mem.db)"


def test_claude_mem_import_of_an_empty_file_or_another_database_is_a_usage_error(tmp_path, project):
    """An empty file opens as an empty SQLite database: the import said "0 stored" and exit 0."""
    import sqlite3

    empty = tmp_path / "claude-mem.db"
    empty.write_bytes(b"")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE notes (x)").connection.commit()
    for f in (empty, other):
        r = run(tmp_path / "g", project, "import", "claude-mem", str(f))
        assert isinstance(r.exception, memdir.UsageError) and "not claude-mem's database" in str(r.exception), r.output


def test_sqlite_sources_whose_path_holds_uri_characters_are_read(tmp_path, project):
    """``file:<path>?mode=ro`` without escaping read ``a#b`` as ``a`` (a fragment) and ``a?b`` as a query."""
    from test_migrate import claude_mem_db

    odd = tmp_path / "odd #1?x=%20"
    odd.mkdir()
    db = claude_mem_db(odd / "claude-mem.db")
    r = run(tmp_path / "g", project, "--json", "import", "claude-mem", str(db), "--here")
    assert r.exit_code == 0, r.output
    assert '"stored": 3' in r.output


def test_a_drop_file_still_being_written_is_left_in_place_and_finished_next_run(tmp_path, project):
    """Renaming a file a writer still appends to would move its later lines into ``.done-*``, never imported."""
    import json

    home = tmp_path / "g"
    d = home / "import"
    d.mkdir(parents=True)
    f = d / "export.jsonl"
    f.write_text(json.dumps({"text": "first record about the grafana dashboard"}) + "\n", encoding="utf-8")
    with memdir.open(project, home=home) as m:
        real = m.import_events

        def import_while_the_writer_appends(events, **kw):
            with open(f, "a", encoding="utf-8") as w:
                w.write(json.dumps({"text": "second record about the loki retention"}) + "\n")
            return real(events, **kw)

        m.import_events = import_while_the_writer_appends
        rec = m.import_pending()["files"][0]
        assert rec["stored"] == 1 and "done_as" not in rec and rec["left_in_place"]
        assert f.exists()
        m.import_events = real
        rec = m.import_pending()["files"][0]
        assert (rec["stored"], rec["duplicate"]) == (1, 1) and rec["done_as"].startswith("export.jsonl.done-")
        assert m.recall("loki retention") and not f.exists()
    r = run(home, project, "import", "--pending")
    # the folder is named: a user who dropped a file elsewhere sees where memdir looked
    assert r.exit_code == 0 and r.output.strip() == f"nothing waiting in {home / 'import'}"


def test_cli_names_a_drop_file_left_in_place(tmp_path, project, monkeypatch):
    from memdir.core import Memdir

    rec = {"file": "export.jsonl", "lines": 1, "bad_lines": 0, "skipped_over_max": 0, "read": 1, "stored": 1,
           "duplicate": 0, "skipped": 0, "skipped_by": {}, "left_in_place": "it changed while it was read"}
    monkeypatch.setattr(Memdir, "import_pending", lambda self: {"files": [rec], "busy": False})
    r = run(tmp_path / "g", project, "import", "--pending")
    assert r.exit_code == 0, r.output
    assert r.output.strip().endswith("→ left in place: it changed while it was read")


def test_migrate_dry_run_of_an_export_counts_what_the_import_reads(tmp_path, project):
    import json

    from memdir.portability.migrate import _count_export

    exp = tmp_path / "export.jsonl"
    exp.write_text("\n".join([json.dumps({"type": "note", "text": "the staging db is db-2", "category": "facts"}),
                              json.dumps({"key": "u:s:1", "session": "s", "text": "we moved staging to db-2"}),
                              "[1, 2]", "not json", ""]) + "\n", encoding="utf-8")
    dry = _count_export(exp)
    with memdir.open(project, home=tmp_path / "g") as m:
        real = m.import_jsonl(exp)
    assert dry == {"notes": 1, "events": 1, "bad_lines": 2}
    assert (real["notes"], real["read"], real["bad_lines"]) == (dry["notes"], dry["events"], dry["bad_lines"])


def test_recall_explain_leaves_the_ranking_it_explains_as_it_was(tmp_path, project):
    """``--explain`` is a look, not a use: run twice, the same scores (a plain recall counts as a rehearsal)."""
    import json

    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("the ledger_q queue is drained by the vacuum daemon at night", category="facts")
    scores = []
    for _ in range(3):
        r = run(home, project, "--json", "recall", "ledger_q vacuum", "--explain")
        assert r.exit_code == 0, r.output
        scores.append([h["score"] for h in json.loads(r.output)["hits"]])
    assert scores[0] == scores[1] == scores[2]
    r1 = json.loads(run(home, project, "--json", "recall", "ledger_q vacuum").output)[0]["score"]
    r2 = json.loads(run(home, project, "--json", "recall", "ledger_q vacuum").output)[0]["score"]
    assert r2 > r1  # without it, recall still counts


def test_recall_prints_the_part_of_a_long_event_that_matched(tmp_path, project):
    home = tmp_path / "g"
    log = ("Bash: pytest tests/ledger -x -q → exit 1\n" + "collecting module x: plain progress output\n" * 120
           + "E   sqlite3.OperationalError: database ledger_q is locked\n" + "teardown line\n" * 20)
    with memdir.open(project, home=home) as m:
        m.import_events([{"key": "t:1", "role": "tool", "session": "s", "text": log, "ts": "2026-11-20T09:00:00Z"}])
    r = run(home, project, "recall", "ledger_q locked OperationalError")
    assert r.exit_code == 0, r.output
    shown = r.output.splitlines()[1]
    assert shown.startswith("   Bash: pytest tests/ledger -x -q → exit 1 … ") and "ledger_q is locked" in shown
    assert len(shown) <= 3 + 300


def test_forget_preview_marks_the_pinned_notes_it_would_delete(tmp_path, project):
    home = tmp_path / "g"
    with memdir.open(project, home=home) as m:
        m.remember("pnpm for installs, always", category="facts", pinned=True)
        m.remember("pnpm lockfile is committed", category="facts")
        res = m.forget_matching(query="pnpm")
    assert res["pinned"] == 1 and sorted(s["pinned"] for s in res["samples"]) == [False, True]
    out = run(home, project, "forget", "--query", "pnpm").output
    assert "(2 notes, 0 events; 1 pinned, deleted too)" in out and "(pinned): pnpm for installs" in out


def test_remember_says_when_it_replaced_a_secret_by_a_marker(tmp_path, project):
    """The note file holds `[redacted:password]` where the user typed the password: the user is told, once."""
    home = tmp_path / "g"
    r = run(home, project, "remember", "Deploy password is hunter2 and the key is AKIA" + "Q3EGRT5KWXN2PZ7L")
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[0].startswith("remembered ") and lines[1].startswith("2 secrets replaced by a marker (")
    assert "aws_access_key" in lines[1] and "password" in lines[1]
    r = run(home, project, "remember", "a plain note about [redacted:password] markers in docs")
    assert r.exit_code == 0 and len(r.output.strip().splitlines()) == 1  # a marker typed by the user is no secret
    r = run(home, project, "--json", "remember", "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    assert r.exit_code == 0 and r.output.lstrip().startswith("{")  # --json: the note's object alone


def test_import_of_several_files_imports_each(tmp_path, project):
    """`memdir import claude-code a.jsonl b.jsonl` (a shell glob): each file is imported. It was refused with a hint
    to give their directory instead, which imported every session file under it (a clone of a repository with test
    fixtures among them). A file that holds no session stops the import before anything is written; a JSONL file of
    memdir's own takes one PATH."""
    import shutil
    from pathlib import Path

    from memdir.errors import NotFound, UsageError

    fixtures = Path(__file__).resolve().parent / "fixtures" / "importers"
    files = []
    for name in ("claude_2_1_197.jsonl", "claude_c22.jsonl"):
        files.append(str(shutil.copy(fixtures / name, tmp_path / name)))
    r = run(tmp_path / "g", project, "import", "claude-code", *files, "--here")
    assert r.exit_code == 0 and "2 files" in r.output, r.output
    both = r.output
    for f in files:  # the same as importing each alone: nothing left to store
        r = run(tmp_path / "g", project, "--json", "import", "claude-code", f, "--here")
        assert r.exit_code == 0 and '"stored": 0' in r.output, (both, r.output)
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run(tmp_path / "g2", project, "import", "claude-code", files[0], str(empty), "--here")
    assert isinstance(r.exception, NotFound) and str(empty) in str(r.exception)
    r = run(tmp_path / "g", project, "import", "jsonl", files[0], files[1])
    assert isinstance(r.exception, UsageError) and "one import per file" in str(r.exception)
    r = run(tmp_path / "g", project, "import", files[0], files[1])  # the second file was ignored, exit 0
    assert isinstance(r.exception, UsageError) and "one import per file" in str(r.exception)
    r = run(tmp_path / "g", project, "import", "claude-cod", files[0])  # a mistyped source: say so
    assert isinstance(r.exception, UsageError) and "did you mean `memdir import claude-code`" in str(r.exception), r.exception
    # a file named again inside a directory also named is read once
    r = run(tmp_path / "g3", project, "--json", "import", "claude-code", files[0], str(tmp_path), "--here")
    import json

    assert r.exit_code == 0 and json.loads(r.output)["files"] == 2, r.output


def test_the_pending_summary_counts_the_lines_it_could_not_import(tmp_path, project):
    home = tmp_path / "g"
    drop = home / "import"
    drop.mkdir(parents=True)
    (drop / "a.jsonl").write_text('{"text": "the staging db is orca", "id": "m1"}\ngarbage\n{"nothing": 1}\n',
                                  encoding="utf-8")
    r = run(home, project, "import", "--pending")
    assert r.exit_code == 0 and "1 stored" in r.output and "2 bad lines" in r.output, r.output


def test_the_import_summary_adds_up_after_a_forget(tmp_path, project):
    import re
    import shutil
    from pathlib import Path

    src = Path(__file__).resolve().parent / "fixtures" / "importers" / "claude_export_2026-03-14.txt"
    chat = tmp_path / "chat.txt"
    shutil.copy(src, chat)
    home = tmp_path / "g"
    assert run(home, project, "import", "claude-export", str(chat), "--here").exit_code == 0
    assert run(home, project, "forget", "--prefix", "import:claude-export", "--force").exit_code == 0
    r = run(home, project, "import", "claude-export", str(chat), "--here")
    m = re.search(r"(\d+) events read .*?, (\d+) kept .*?: (\d+) stored, (\d+) duplicates, (\d+) forgotten earlier or "
                  r"refused; (\d+) skipped", r.output)
    assert m, r.output
    read, kept, stored, dup, refused, skipped = map(int, m.groups())
    assert refused > 0 and kept == stored + dup + refused and read == kept + skipped, r.output


def test_a_token_and_force_together_are_refused_and_nothing_is_deleted(tmp_path, project):
    home = tmp_path / "g"
    run(home, project, "remember", "alpha keep this")
    run(home, project, "remember", "beta keep this too")
    r = run(home, project, "forget", "--query", "keep this", "--token", "not-the-token", "--force")
    assert r.exit_code != 0 and "not both" in str(r.exception), r.output
    r = run(home, project, "prune", "--days", "0", "--token", "wrong", "--force")
    assert r.exit_code != 0 and "not both" in str(r.exception), r.output
    assert "alpha keep this" in run(home, project, "recall", "alpha").output


def test_recall_on_an_empty_store_is_an_empty_list_and_exit_0(tmp_path, project):
    import json

    home = tmp_path / "g"
    r = run(home, project, "--json", "recall", "anything")
    assert r.exit_code == 0 and json.loads(r.output) == [], r.output
    assert run(home, project, "recall", "anything").exit_code == 0
    run(home, project, "remember", "the staging db is orca")
    assert run(home, project, "recall", "zebra").exit_code == 1  # memories, none matching: exit 1


def test_legacy_is_refused_for_a_host_other_than_opencode(tmp_path, project, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    r = run(tmp_path / "g", project, "install", "claude-code", "--legacy", "--dry-run")
    assert r.exit_code != 0 and "--legacy is for opencode" in str(r.exception), r.output


def test_a_confirm_token_run_twice_says_nothing_is_left_to_forget(tmp_path, project):
    import json

    home = tmp_path / "g"
    run(home, project, "remember", "password rotation note")
    token = json.loads(run(home, project, "--json", "forget", "--query", "password").output)["token"]
    assert run(home, project, "forget", "--query", "password", "--token", token).exit_code == 0
    r = run(home, project, "forget", "--query", "password", "--token", token)
    assert r.exit_code == 1 and "forgotten already" in str(r.exception) + r.output, r.output


def test_recent_with_a_filter_that_matches_nothing_names_the_filter(tmp_path, project):
    home = tmp_path / "g"
    run(home, project, "remember", "x y z note", "-c", "facts")
    r = run(home, project, "recent", "--kind", "decision")
    assert "no memories of kind decision" in r.output and "yet" not in r.output, r.output


def test_export_says_which_note_files_it_could_not_read(tmp_path, project):
    home = tmp_path / "g"
    run(home, project, "remember", "a readable fact", "-c", "facts")
    (project / ".memory" / "facts" / "latin1.md").write_bytes("---\nsummary: caf\xe9\n---\ncaf\xe9 body\n".encode("latin-1"))
    r = run(home, project, "export", str(tmp_path / "out.jsonl"))
    assert r.exit_code == 0 and "1 note file could not be read" in r.output, r.output


def test_forgetting_a_memory_twice_says_it_was_forgotten_by_id_or_by_handle(tmp_path, project):
    import json

    home = tmp_path / "g"
    run(home, project, "remember", "forget me please about deploys")
    hit = json.loads(run(home, project, "--json", "recall", "forget me").output)[0]
    assert run(home, project, "forget", hit["handle"]).exit_code == 0
    for name in (hit["handle"], hit["id"]):
        r = run(home, project, "forget", name)
        assert r.exit_code == 1 and "forgotten already" in str(r.exception) + r.output, r.output
    r = run(home, project, "forget", "zzzzzz")
    assert r.exit_code == 1 and "no memory with id" in str(r.exception) + r.output


def test_the_import_lock_is_its_owners_alone(tmp_path, project):
    """The drop folder's lock file was made with the umask's mode (0644): every file memdir makes under the global
    root is the owner's alone."""
    import os
    import stat

    import memdir

    old = os.umask(0o022)
    try:
        home = tmp_path / "g"
        with memdir.open(project, home=home) as m:
            (home / "import").mkdir(parents=True, exist_ok=True)
            (home / "import" / "a.jsonl").write_text('{"role": "user", "text": "deploy with pnpm"}\n', encoding="utf-8")
            m.import_pending()
        lock = home / "import" / ".import.lock"
        assert lock.exists() and stat.S_IMODE(lock.stat().st_mode) == 0o600
    finally:
        os.umask(old)
