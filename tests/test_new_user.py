"""What a new user ran into following the README on a fresh machine (issue-free trial run): each test is one
thing that was confusing or silently did nothing."""

import json

import pytest
from click.testing import CliRunner

import memdir
from memdir.cli.main import cli
from memdir.llm import LLMError, get_provider
from memdir.llm.http import AnthropicProvider, OpenAIChatProvider


def run(project, *args):
    return CliRunner().invoke(cli, ["--dir", str(project), *args], catch_exceptions=False)


def run_failing(project, *args):
    """``run`` for a command that ends in a memdir error (the CLI's entry point maps it to exit 1)."""
    return CliRunner().invoke(cli, ["--dir", str(project), *args])


def test_forget_preview_says_how_many_it_did_not_list(project, tmp_path):
    with memdir.open(project) as m:
        m.import_events([{"key": f"u:s1:{i}", "role": "user", "text": f"zebra crossing number {i} is closed today",
                          "session": "s1", "ts": f"2026-11-02T09:{i:02d}:05Z"} for i in range(25)])
    r = run(project, "forget", "--query", "zebra")
    assert r.exit_code == 0, r.output
    assert "25 memories match" in r.output
    listed = [line for line in r.output.splitlines() if line.startswith("  2026-")]
    assert len(listed) == 20 and "… and 5 more" in r.output  # before: 20 lines and no word about the other 5
    assert "--token" in r.output.splitlines()[-1]


CLAUDE_LINES = [
    {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}},
    {"parentUuid": None, "cwd": "/somewhere/else", "sessionId": "s-1", "type": "user", "timestamp": "2026-02-10T21:11:00Z",
     "message": {"role": "user", "content": "why does the nightly build fail on arm64?"}, "uuid": "u1"},
]
CODEX_LINES = [
    {"timestamp": "2026-05-11T08:27:17Z", "type": "session_meta", "payload": {"id": "c-1", "cwd": "/elsewhere"}},
    {"timestamp": "2026-05-11T08:27:18Z", "type": "response_item",
     "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "add a retry to the flaky upload step please"}]}},
]


@pytest.mark.parametrize("host,lines", [("claude-code", CLAUDE_LINES), ("codex", CODEX_LINES)])
def test_host_transcript_imported_as_plain_jsonl_says_which_command_reads_it(project, tmp_path, host, lines):
    f = tmp_path / "copied.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    r = run_failing(project, "import", str(f))
    assert r.exit_code == 1, r.output  # nothing imported: a script must not read it as success
    assert "0 events stored" in r.output
    assert f"hint: {f} is a {host} transcript: memdir import {host} {f}" in r.output
    out = json.loads(run_failing(project, "--json", "import", "jsonl", str(f)).stdout)
    assert out["stored"] == 0 and out["hint"].startswith(f"{f} is a {host} transcript")
    # the command it names does read the file
    r = run(project, "--json", "import", host, str(f), "--here")
    assert r.exit_code == 0 and json.loads(r.output)["stored"] >= 1, r.output


def test_memdir_jsonl_gets_no_transcript_hint(project, tmp_path):
    f = tmp_path / "mine.jsonl"
    f.write_text(json.dumps({"key": "u:x:1", "role": "user", "text": "we deploy with pnpm, never npm"}) + "\n"
                 + json.dumps({"foo": 1}) + "\n", encoding="utf-8")
    out = json.loads(run(project, "--json", "import", str(f)).output)
    assert out["stored"] == 1 and "hint" not in out
    g = tmp_path / "junk.jsonl"
    g.write_text(json.dumps({"foo": 1}) + "\n", encoding="utf-8")
    r = run_failing(project, "--json", "import", str(g))
    out = json.loads(r.stdout)
    assert out["stored"] == 0 and "hint" not in out and r.exit_code == 1


def test_migrate_scan_that_finds_nothing_says_so_also_in_a_dry_run(project, tmp_path):
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    for extra in ([], ["--dry-run"]):
        r = run(project, "migrate", "--scan", str(empty), *extra)
        assert r.exit_code == 0, r.output
        assert r.output.splitlines()[0] == f"no memory store found under {empty}"  # before: only "dry run: …"


DISTILL = {"distill.url": "", "distill.model": "", "distill.api_key_env": "", "distill.timeout_s": 5.0}


@pytest.mark.parametrize("provider,env", [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_hosted_distill_api_without_a_key_is_refused_up_front(monkeypatch, provider, env):
    monkeypatch.delenv(env, raising=False)
    conf = {**DISTILL, "distill.provider": provider, "distill.model": "m-1"}
    with pytest.raises(LLMError, match=rf"needs an API key: set \${env}"):
        get_provider(conf)  # before: built, then every session's request failed (401 / no network) one by one
    monkeypatch.setenv(env, "k-test")
    assert get_provider(conf).api_key == "k-test"
    monkeypatch.setenv("MY_VAR", "k-other")
    monkeypatch.delenv(env)
    assert get_provider({**conf, "distill.api_key_env": "MY_VAR"}).api_key == "k-other"


def test_self_hosted_distill_url_needs_no_key(monkeypatch):
    for env in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(env, raising=False)
    local = {**DISTILL, "distill.url": "http://127.0.0.1:11434/v1", "distill.model": "qwen2.5:7b"}
    assert OpenAIChatProvider.from_config(local).api_key is None
    assert AnthropicProvider.from_config(local).api_key is None
    with pytest.raises(LLMError, match="needs distill.model"):  # the model is still asked for first
        OpenAIChatProvider.from_config({**DISTILL, "distill.url": ""})


def test_remember_note_file_on_stdin_reads_its_frontmatter(project):
    note_md = ("---\nsummary: 前端用 pnpm\nkind: decision\ntags: [pnpm]\nload_when: [依赖]\npinned: true\nfoo: 1\n---\n"
               "前端一律 pnpm install，不用 npm，因为 lockfile 不兼容。\n")
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "remember", "-"], input=note_md)
    assert r.exit_code == 0, r.output
    note = json.loads(r.stdout)
    # before: facts/note-<hash> with summary '---' and the frontmatter stored as body text
    assert note["id"].startswith("decisions/") and note["summary"] == "前端用 pnpm"
    assert note["tags"] == ["pnpm"] and note["load_when"] == ["依赖"] and note["pinned"] is True
    assert "---" not in note["text"] and "summary:" not in note["text"]
    assert "foo" in r.stderr and "not kept" in r.stderr
    # flags still win over the frontmatter
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "remember", "-", "-c", "facts", "--title", "T"],
                           input=note_md.replace("lockfile", "锁文件"))
    note = json.loads(r.stdout)
    assert note["id"].startswith("facts/") and note["summary"] == "T"
    # text without frontmatter is unchanged behaviour; broken frontmatter is one usage error
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "remember", "-"],
                           input="--- not frontmatter, just a dash line about npm\nand a second line\n")
    assert r.exit_code == 0 and json.loads(r.stdout)["text"].startswith("---")
    r = CliRunner().invoke(cli, ["--dir", str(project), "remember", "-"], input="---\ntags: [unclosed\n---\nbody\n")
    assert r.exit_code != 0


def test_remember_on_stdin_reads_frontmatter_types_as_a_note_file_and_says_what_it_replaced(project):
    note_md = '---\npinned: "yes please"\ntags: 42\nload_when: {a: 1}\n---\nBody with odd types in frontmatter.\n'
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "remember", "-"], input=note_md)
    assert r.exit_code == 0, r.output
    note = json.loads(r.stdout)
    assert note["tags"] == ["42"] and note["pinned"] is False and note["load_when"] == []
    assert "pinned 'yes please' is not true/false (taken as false)" in r.stderr
    assert "load_when is not a list (ignored)" in r.stderr
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "remember", "-"],
                           input="---\ntags: [ci, 42, true, off]\n---\nTags of several YAML types.\n")
    assert json.loads(r.stdout)["tags"] == ["ci", "42", "true", "false"]  # before: 'True', 'False'
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "remember", "-"],
                           input="---\npinned: yes\n---\nA pinned note written by hand.\n")
    assert json.loads(r.stdout)["pinned"] is True and "warning" not in r.stderr  # as the note file reader takes it


def test_distill_exits_1_when_a_model_call_failed(project):
    with memdir.open(project) as m:
        m.import_events([{"key": f"{r[0]}:s1:{i}", "role": r, "text": f"turn {i}: we chose pnpm over npm because lockfiles differ",
                          "session": "s1", "ts": f"2026-11-02T09:{i:02d}:05Z"}
                         for i, r in enumerate(["user", "assistant"] * 4)])
    env = {"MEMDIR_DISTILL_PROVIDER": "openai", "MEMDIR_DISTILL_URL": "http://127.0.0.1:9/v1",  # nothing listens there
           "MEMDIR_DISTILL_MODEL": "m-1", "MEMDIR_DISTILL_TIMEOUT_S": "5"}
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "distill", "--dry-run"], env=env)
    out = json.loads(r.stdout)
    assert out["errors"] and out["errors"][0]["session"] == "s1"
    assert r.exit_code == 1  # before: 0, so a script could not tell that nothing was distilled


def test_forget_query_that_matches_nothing_exits_1_and_says_so(project):
    import os
    import subprocess
    import sys

    with memdir.open(project) as m:
        m.remember("we deploy with blue-green switches", category="decisions")
    env = {**os.environ, "MEMDIR_HOME": str(project / "g")}
    r = subprocess.run([sys.executable, "-m", "memdir", "forget", "--query", "kangaroo"], cwd=project,
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1  # before: exit 0 with "0 memories match", a script could not tell
    assert "no memory matches --query 'kangaroo'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = subprocess.run([sys.executable, "-m", "memdir", "--json", "forget", "--query", "kangaroo"], cwd=project,
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1 and json.loads(r.stdout)["count"] == 0
    r = subprocess.run([sys.executable, "-m", "memdir", "forget", "--query", "kangaroo", "--force"], cwd=project,
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1  # before: "forgot 0 memories", exit 0
    assert "no memory matches --query 'kangaroo'" in r.stderr and "forgot" not in r.stdout
    r = subprocess.run([sys.executable, "-m", "memdir", "--json", "forget", "--query", "kangaroo", "--force"],
                       cwd=project, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1 and json.loads(r.stdout)["deleted"] is False
    with memdir.open(project) as m:
        assert m.recall("blue-green")  # nothing was deleted


def test_doctor_without_repair_reports_orphan_vectors_and_writes_nothing(project):
    with memdir.open(project) as m:
        m.remember("we deploy with blue-green switches", category="decisions")
        root = m.stores.live("project")[0]
        with root.locked(), root.tx() as tx:
            tx.execute("INSERT INTO vectors (ref, model, status) VALUES ('gone:1', 'x', 'ok')")
        checks = m.doctor(repair=False)  # the viewer's GET /health page
        assert any("orphan" in c["detail"] for c in checks)
        assert root.db.execute("SELECT count(*) FROM vectors WHERE ref = 'gone:1'").fetchone()[0] == 1
        m.doctor()  # the CLI repairs
        assert root.db.execute("SELECT count(*) FROM vectors WHERE ref = 'gone:1'").fetchone()[0] == 0


def test_doctor_finds_wrong_postings_that_equal_counts_hide(project):
    """A contentless index deletes with the values it is given; a row re-indexed with other words keeps the row
    counts equal. doctor compares every term with the documents on a store this small and names the repair."""
    from memdir.store.sqlite import index

    with memdir.open(project) as m:
        m.remember("we deploy with blue-green switches", category="decisions")
        root = m.stores.live("project")[0]
        db = root.db
        r = db.execute("SELECT * FROM docs WHERE kind = 'note'").fetchone()
        checks = {c["check"]: c for c in m.doctor(repair=False)}
        assert checks["project fts terms"]["ok"] == "ok"
        with root.locked(), root.tx() as tx:
            tx.execute("INSERT INTO fts(fts, rowid, tags, title, body, context) VALUES ('delete', ?, ?, ?, ?, ?)",
                       (r["id"], *index.note_values(r)))
            tx.execute("INSERT INTO fts(rowid, tags, title, body, context) VALUES (?, '', '', 'zzqx wrong words', '')", (r["id"],))
        checks = {c["check"]: c for c in m.doctor(repair=False)}
        assert checks["project fts"]["ok"] == "ok"  # the counts agree
        assert checks["project fts terms"]["ok"] == "warn" and checks["project fts terms"]["remedy"] == "run `memdir reindex`"
        m.reindex()
        assert {c["check"]: c for c in m.doctor(repair=False)}["project fts terms"]["ok"] == "ok"


def test_stdin_that_never_ends_or_is_not_text_is_refused_in_one_line(project, tmp_path, monkeypatch):
    """`yes | memdir remember -` or `memdir recall < /dev/zero` read until memory ran out; two stray bytes that look
    like a UTF-16 byte-order mark before UTF-8 text stored 戠摡甠…; `memdir edit ID /dev/zero` never returned."""
    from memdir.cli import output
    from memdir.errors import UsageError

    def refused(r) -> str:
        assert isinstance(r.exception, UsageError), r.output
        return str(r.exception)

    monkeypatch.setattr(output, "STDIN_MAX_BYTES", 1000)  # the bound, small: the same path as 10 MB
    for args in (["remember", "-"], ["recall"], ["context"]):
        r = CliRunner().invoke(cli, ["--dir", str(project), *args], input=b"note text\n" * 200)
        assert "over 0.001 MB (or never ends)" in refused(r), args
    r = CliRunner().invoke(cli, ["--dir", str(project), "remember", "-"], input=b"\xff\xfe bad utf8 bytes\n")
    assert "not UTF-8" in refused(r)
    r = CliRunner().invoke(cli, ["--dir", str(project), "--json", "remember", "-"],
                           input="a note written by a Windows tool\n".encode("utf-16"))
    assert r.exit_code == 0 and json.loads(r.stdout)["text"].startswith("a note written by a Windows tool")
    nid = json.loads(r.stdout)["id"]
    for path in ("/dev/zero", str(tmp_path)):
        r = CliRunner().invoke(cli, ["--dir", str(project), "edit", nid, path])
        assert "is not a regular file" in refused(r)


def test_the_notice_counts_secrets_in_every_field_typed_and_edit_names_an_unknown_id_first(project):
    r = CliRunner().invoke(cli, ["--dir", str(project), "remember", "note with secret title",
                                 "--title", "password=Tr0ub4dor3xyz",
                                 "--highlight", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                                 "-t", "sk-proj-abcdefghijklmnopqrstuvwxyz012345"])
    assert r.exit_code == 0 and "3 secrets replaced by a marker (github_token, openai_key, password)" in r.output
    r = CliRunner().invoke(cli, ["--dir", str(project), "remember", "db password=Xy9zz8WW7q and more"])
    assert "1 secret replaced" in r.output  # the summary taken from the text does not count it twice
    r = CliRunner().invoke(cli, ["--dir", str(project), "edit", "nonexistent/x"], input="")
    assert "no note has the id 'nonexistent/x'" in str(r.exception)  # not "edit needs the new text"
