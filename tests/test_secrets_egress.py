"""A secret stored before redaction knew its shape (an older memdir's store, a key pattern added since), typed into a
note file by hand, or typed into a prompt never leaves the machine in plain text through a network door: the texts an
embedding provider is asked to embed (backfill, the query of a hybrid recall, the prompt a hook turns into a block)."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from unittest import mock

import memdir
from memdir.embed.fake import FakeEmbedder
from memdir.engine import hybrid as vectors

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
OPENAI = "sk-proj-" + "Zq4tW9" * 7
GITHUB = "ghp_" + "aB3dE5fG7h" * 3 + "Jk9Lm1"
AWS = "AKIAQ2WX7ZP4LM9RT3VB"
SECRETS = (OPENAI, GITHUB, AWS, OPENAI[:20], "S3cretPw9", "hunter2abc")


class _Recording(FakeEmbedder):
    """The fake embedder, recording every text it is asked to embed (passages and queries)."""

    def __init__(self):
        super().__init__(dim=64)
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return super().embed(texts)


def _open(tmp_path):
    (tmp_path / "p" / ".git").mkdir(parents=True, exist_ok=True)
    cfg = {"embed.provider": "fake", "recall.channel": "hybrid", "recall.half_life_days": 0}
    return memdir.open(tmp_path / "p", home=tmp_path / "h", config=cfg, clock=lambda: T0)


def _plant_old_events(m) -> None:
    """Events stored with their texts as given, as an older memdir (one that did not know these shapes) stored them."""
    import memdir.capture.events as cevents

    rows = [{"key": "u:s1:a", "role": "user", "text": f"rotate the deploy key {OPENAI}; db postgres://u:S3cretPw9@h/db",
             "session": "s1", "ts": T0},
            {"key": "t:s1:b", "role": "tool", "text": f"Bash: env → AWS_ACCESS_KEY_ID={AWS} password=hunter2abc",
             "session": "s1", "ts": T0},
            {"key": "a:s1:c", "role": "assistant", "text": f"The deploy key is rotated; the old github token {GITHUB}",
             "session": "s1", "ts": T0}]
    with mock.patch.object(cevents, "redact_text", lambda t: t), mock.patch.object(cevents, "redact_obj", lambda o: o):
        assert m.import_events(rows)["stored"] == len(rows)


def _clean(texts: list[str], where: str) -> None:
    assert texts, where
    for t in texts:
        for s in SECRETS:
            assert s not in t, (where, s, t)


def test_backfill_sends_no_stored_secret_to_the_embedding_provider(tmp_path):
    rec = _Recording()
    with _open(tmp_path) as m:
        vectors.set_provider(m, rec)
        _plant_old_events(m)
        note = m.remember("the deploy key lives in the vault", category="facts")
        path = m.roots["project"].path / (note.id + ".md")
        path.write_text(path.read_text(encoding="utf-8") + f"\nold deploy key {OPENAI}\n", encoding="utf-8")
    with _open(tmp_path) as m:  # a fresh process: the note file as a person edited it
        vectors.set_provider(m, rec)
        assert m.backfill()["embedded"] >= 4
    _clean(rec.texts, "backfill")
    assert any("[redacted:" in t for t in rec.texts)


def test_a_query_holding_a_secret_is_embedded_redacted(tmp_path):
    rec = _Recording()
    with _open(tmp_path) as m:
        vectors.set_provider(m, rec)
        m.import_events([{"key": "e1", "role": "user", "text": "we deploy with blue green releases", "ts": T0}])
        m.backfill()
        rec.texts.clear()
        m.recall(f"which deploy key, {OPENAI} or {GITHUB}?")
        m.context(f"deploy with AWS_ACCESS_KEY_ID={AWS}\nand postgres://u:S3cretPw9@h/db please")
    _clean(rec.texts, "query")


# ---- copies that leave the index: the export file, the team store, the team server's queue -------------------------
def _plant_with_meta(m) -> None:
    import memdir.capture.events as cevents

    rows = [{"key": "u:s2:a", "role": "user", "text": f"the deploy key is {OPENAI}", "session": "s2", "ts": T0,
             "meta": {"cwd": f"/srv?token={GITHUB}", "note": AWS}}]
    with mock.patch.object(cevents, "redact_text", lambda t: t), mock.patch.object(cevents, "redact_obj", lambda o: o):
        assert m.import_events(rows)["stored"] == 1


def _no_secret(text: str, where: str) -> None:
    for s in SECRETS:
        assert s not in text, (where, s)


def test_an_export_file_holds_no_stored_secret_in_an_events_metadata(tmp_path):
    with _open(tmp_path) as m:
        _plant_with_meta(m)
        m.export(tmp_path / "dump.jsonl")
    dump = (tmp_path / "dump.jsonl").read_text(encoding="utf-8")
    assert '"cwd": "/srv?token=' in dump and "[redacted:" in dump
    _no_secret(dump, "export file")


@contextmanager
def _recording_server(answer: bytes = b"{}"):
    """An HTTP server on 127.0.0.1 answering every POST with ``answer``; yields ``(base URL /v1, bodies received)``."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    bodies: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):  # noqa: N802
            bodies.append(self.rfile.read(int(self.headers.get("content-length") or 0)).decode("utf-8"))
            self.send_response(200)
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/v1", bodies
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_team_servers_queue_sends_no_stored_secret(tmp_path):
    import json

    from memdir.engine import remote

    with _recording_server() as (url, bodies):
        # a row an older memdir queued as it stored it
        remote.enqueue(tmp_path, [{"ref": "u:s2:a", "content_sha256": "x", "role": "user", "session": "s2",
                                   "text": f"the deploy key is {OPENAI}", "ts": "2026-12-01T00:00:00Z", "ts_epoch": 0,
                                   "meta": json.dumps({"cwd": f"/srv?token={GITHUB}"})}])
        res = remote.push(tmp_path, url, "p", "tok", budget_s=5)
    assert res["sent"] == 1 and bodies
    sent = "".join(bodies)
    assert "[redacted:" in sent
    _no_secret(sent, "push")


def test_a_query_asked_of_the_team_server_is_redacted(tmp_path):
    """A prompt holding a key, turned into a recall (the prompt hook's block, memory_recall), asks the team server
    with the key redacted: the server is another machine."""
    from memdir.engine import remote

    with _recording_server(b'{"hits": []}') as (url, bodies):
        ask = remote.Recall(url, "p", "tok", f"why does deploy fail with {OPENAI} and {AWS}?", 5, budget_s=10)
        assert ask.result() == [], ask.error
    assert len(bodies) == 1 and "[redacted:" in bodies[0]
    _no_secret(bodies[0], "team recall")


def test_export_to_a_team_store_copies_no_stored_secret(pg_url, tmp_path):
    import psycopg

    from memdir.portability import transfer

    with _open(tmp_path) as m:
        _plant_old_events(m)
        _plant_with_meta(m)
        assert transfer.to_store(m, pg_url, project="p")["stored"] == 4
    with psycopg.connect(pg_url) as c:
        rows = c.execute("SELECT text, coalesce(meta::text, '') FROM docs WHERE project = 'p'").fetchall()
    assert len(rows) == 4
    _no_secret(repr(rows), "team store")


# ---- what the CLI says back: an error line quoting what was typed ----------------------------------------------------
def test_a_cli_error_line_quoting_a_typed_key_shows_it_redacted(project, tmp_path, capsys, monkeypatch):
    import json

    from conftest import run_cli

    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    for args in (["recall", "x", "--k", OPENAI], ["recall", "x", "--scope", GITHUB], ["get", OPENAI],
                 ["forget", AWS], ["recent", "--category", OPENAI], ["--dir", str(tmp_path / OPENAI), "status"],
                 ["--json", "get", OPENAI]):
        code, out, err = run_cli(capsys, *args)
        assert code in (1, 2) and err.strip(), (args, code, err)
        assert "[redacted:" in err, (args, err)
        _no_secret(out + err, " ".join(args))
        if args[0] == "--json":
            assert json.loads(err)["exit_code"] == code


# ---- a provider's URL holding a password: what its errors, the log and the breaker's file say ------------------------
def test_a_providers_url_password_is_masked_in_its_errors_and_files(tmp_path):
    import socket

    import pytest

    from memdir.embed import EmbedError
    from memdir.embed.openai_compat import OpenAICompatProvider
    from memdir.llm.base import LLMError
    from memdir.llm.http import OpenAIChatProvider

    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    port = dead.getsockname()[1]
    dead.close()  # nothing listens there
    url = f"http://u:S3cretPw9@127.0.0.1:{port}/v1"
    emb = OpenAICompatProvider(url + "/embeddings", "e", retries=0, home=tmp_path / "h")
    for _ in range(2):  # the failure, then the breaker's answer
        with pytest.raises(EmbedError) as exc:
            emb.embed(["we deploy on fridays"])
        _no_secret(str(exc.value), "embed error")
        assert "127.0.0.1" in str(exc.value)
    for f in (tmp_path / "h").rglob("*"):
        if f.is_file():
            _no_secret(f.read_text(encoding="utf-8", errors="replace"), str(f))
    with pytest.raises(EmbedError) as exc:
        OpenAICompatProvider("ftp://u:S3cretPw9@h/v1", "e")
    _no_secret(str(exc.value), "embed url error")
    with pytest.raises(LLMError) as exc:
        OpenAIChatProvider(url, "m", timeout_s=2).complete("system", "prompt")
    _no_secret(str(exc.value), "distill error")
    with pytest.raises(LLMError) as exc:
        OpenAIChatProvider("ftp://u:S3cretPw9@h/v1", "m")
    _no_secret(str(exc.value), "distill url error")


def test_sessions_and_their_events_show_no_stored_secret_in_metadata(tmp_path):
    from memdir.ui import missing_deps

    with _open(tmp_path) as m:
        _plant_with_meta(m)
        sessions = m.sessions()
        assert sessions[0]["cwd"].startswith("/srv?token=[redacted:")
        events = m.session_events("s2")
        assert events[0]["meta"]["cwd"].startswith("/srv?token=[redacted:")
        _no_secret(repr(sessions) + repr(events[0]["meta"]), "sessions")
        if not missing_deps():  # the viewer's Timeline lists each session's directory
            from starlette.testclient import TestClient

            from memdir.ui import build

            page = TestClient(build(get=lambda: m, host="127.0.0.1", token=None), base_url="http://127.0.0.1:8766").get(
                "/timeline").text
            assert "/srv?token=" in page
            _no_secret(page, "timeline page")


def test_the_distillation_workers_log_lines_are_redacted(tmp_path):
    """The detached worker's stderr is ``distill.log``: its lines (which name the session, an error's text) are
    redacted whole, as the debug log's are."""
    import subprocess
    import sys

    (tmp_path / "p" / ".git").mkdir(parents=True)
    r = subprocess.run([sys.executable, "-m", "memdir.distill", "--dir", str(tmp_path / "p"), "--home", str(tmp_path / "h"),
                        "--session", OPENAI], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "distill: session [redacted:" in r.stderr, r.stderr
    _no_secret(r.stdout + r.stderr, "distill.log")


def test_config_warnings_and_memdir_config_show_no_key_written_into_a_setting(tmp_path):
    """A key written where a setting's value goes (a pasted key instead of the variable's name, a key in a bad value)
    is shown redacted by the warning about it and by ``memdir config``, on the terminal and in ``--json``."""
    import os
    import subprocess
    import sys

    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / ".memory").mkdir()
    (tmp_path / "g").mkdir(exist_ok=True)  # distill/embed URLs, commands and key names: the user's own config
    (tmp_path / "g" / "config.toml").write_text(
        f'[inject]\nmax_chars = "{OPENAI}"\n[embed]\nprovider = "openai"\nurl = "http://127.0.0.1:9/v1/embeddings"\n'
        f'api_key_env = "{GITHUB}"\n[{AWS}]\nx = 1\n', encoding="utf-8")
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g"), "MEMDIR_RECALL_CHANNEL": OPENAI}
    for args in (["config"], ["--json", "config"], ["config", "embed"], ["status"], ["--json", "status"]):
        r = subprocess.run([sys.executable, "-m", "memdir.cli", *args], cwd=project, env=env, capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, (args, r.stderr)
        assert "bad value '[redacted:" in r.stderr, (args, r.stderr)
        _no_secret(r.stdout + r.stderr, " ".join(args))
        if "status" not in args:
            assert "[redacted:" in r.stdout, (args, r.stdout)


def test_an_unexpected_errors_line_cuts_after_redacting(project, tmp_path, capsys, monkeypatch):
    """The one line of an internal error quotes 200 characters of its text: a key crossing that cut was left as its
    first part, which no pattern knows."""
    from conftest import run_cli

    import memdir.core

    def boom(self, *a, **k):
        raise RuntimeError("x" * 185 + " " + OPENAI)

    monkeypatch.chdir(project)
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    monkeypatch.setattr(memdir.core.Memdir, "recall", boom)
    code, out, err = run_cli(capsys, "recall", "deploy")
    assert code == 1 and "internal error" in err, err
    assert OPENAI[:9] not in err, err


def test_a_proposal_file_holding_a_key_is_listed_redacted(tmp_path):
    """A proposal file an older memdir's distillation wrote, or one edited by hand, is listed (memdir proposals, the
    viewer, the MCP server) with its key redacted."""
    with _open(tmp_path) as m:
        p = m.propose("always run make lint before pushing", category="rules")
        path = tmp_path / "p" / ".memory" / ".proposals" / f"{p['id']}.md"
        text = path.read_text(encoding="utf-8").replace("summary: always", f"summary: {GITHUB} always")
        path.write_text(text + f"\ntoken {OPENAI}\n", encoding="utf-8")
        listed = m.proposals()
        assert len(listed) == 1 and listed[0]["path"] and "[redacted:" in listed[0]["summary"]
        _no_secret(repr(listed), "proposals")
