"""A wrong ``store`` setting on the CLI: one line on stderr, exit 1, no traceback, and no password in the message
(libpq takes the password in the URL's userinfo or as a ``password=`` / ``sslpassword=`` query parameter)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("psycopg")

SECRET = "s3cr3tpw9"


@pytest.mark.parametrize("url", [
    f"postgresql://u:{SECRET}@127.0.0.1:1/db",
    f"postgresql://u@127.0.0.1:1/db?password={SECRET}",
    f"postgresql://u@127.0.0.1:1/db?sslmode=prefer&PassWord={SECRET}",
    f"postgresql://u@127.0.0.1:1/db?sslpassword={SECRET}&connect_timeout=2",
    f"postgresql://u@127.0.0.1:1/db?password=%73{SECRET}",
])
def test_an_unreachable_store_is_one_line_without_its_password(project, tmp_path, url):
    (project / ".memory").mkdir()  # a project root exists: its index is the store's
    env = {"MEMDIR_HOME": str(tmp_path / "g"), "MEMDIR_STORE": url, "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "recall", "hello"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 1
    err = r.stderr.strip()
    assert err.startswith("memdir: error: could not connect to the store postgresql://u")
    assert len(err.splitlines()) == 1 and "Traceback" not in r.stderr
    assert SECRET not in r.stderr + r.stdout


def test_safe_url_masks_every_password_form():
    from memdir.urlmask import safe_url as _safe_url

    assert _safe_url("postgresql://u:pw@h/db") == "postgresql://u:***@h/db"
    assert _safe_url("postgresql://u@h/db?password=pw&sslmode=require") == "postgresql://u@h/db?password=***&sslmode=require"
    assert _safe_url("postgresql://u@h/db?sslpassword=pw") == "postgresql://u@h/db?sslpassword=***"
    assert _safe_url("postgresql://u@h/db?application_name=x") == "postgresql://u@h/db?application_name=x"


def test_config_never_prints_a_store_password(tmp_path):
    import json as _json

    from click.testing import CliRunner

    from memdir.cli.main import cli

    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    env = {"MEMDIR_STORE": "postgresql://alice:hunter2secret@db.example:5432/memdir?sslpassword=s3cr3tpass&sslmode=require"}
    for args in (["config"], ["--json", "config"]):
        r = CliRunner().invoke(cli, ["--home", str(tmp_path / "h"), "--dir", str(proj), *args], env=env)
        assert r.exit_code == 0, r.output
        assert "hunter2secret" not in r.output and "s3cr3tpass" not in r.output
        assert "postgresql://alice:***@db.example:5432/memdir" in r.output and "sslmode=require" in r.output
    assert _json.loads(r.output)["store"]["value"].startswith("postgresql://alice:***@")


def test_a_bad_url_setting_never_prints_its_password():
    from memdir.config import Config

    cfg = Config(env={"MEMDIR_REMOTE_URL": "ftp://ann:s3cret@db.example/team"})
    assert cfg.get("remote.url") == "" and cfg.warnings
    assert "s3cret" not in " ".join(cfg.warnings) and "ann:***@db.example" in " ".join(cfg.warnings)


def test_a_mistyped_store_url_refuses_to_open_instead_of_writing_locally(project, tmp_path, monkeypatch):
    """Falling back to the local index would put a team's writes where nobody else reads them: one line, rc 2,
    nothing written, the password masked."""
    import memdir

    monkeypatch.setenv("MEMDIR_STORE", "mysql://ann:s3cret@db.example/team")
    with pytest.raises(memdir.UsageError, match=r"postgresql:// URL, got 'mysql://ann:\*\*\*@db\.example/team'"):
        memdir.open(project, home=tmp_path / "g")
    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "--home", str(tmp_path / "g"),
                        "remember", "the release train leaves on tuesdays"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "s3cret" not in r.stderr
    assert not (project / ".memory").exists()


def _cli(*args: str, tmp_path) -> subprocess.CompletedProcess:
    env = {"MEMDIR_HOME": str(tmp_path / "g"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "memdir", *args], capture_output=True, text=True, env=env, timeout=120,
                          cwd=str(tmp_path))


def test_first_run_mistakes_with_a_team_store_are_one_line(pg_url, tmp_path):
    """The first-run mistakes with ``memdir serve --store`` / ``memdir store``: an unresolvable host, a non-PostgreSQL
    URL, serving as the schema owner, a client login on a database nobody set up, granting a login that does not exist.
    Each is one line on stderr with a non-zero exit, never a traceback or an "internal error"."""
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("CREATE ROLE first_run LOGIN")
    plain = pg_url.replace("postgresql://memdir@", "postgresql://first_run@", 1)
    cases = [
        (["serve", "--store", "postgresql://bad", "--port", "0"], 1, "could not connect to the store postgresql://bad"),
        (["serve", "--store", "mysql://x", "--port", "0"], 2, "--store needs a postgresql:// URL"),
        (["serve", "--store", pg_url, "--port", "0"], 1, "sees every project"),
        (["serve", "--store", plain, "--port", "0"], 1, "may not create the memdir schema"),
        (["store", "token", "ann", "--project", "web", "--store", plain], 1, "may not create the memdir schema"),
        (["store", "grant", "no_such_login", "--store", pg_url], 1, 'role "no_such_login" does not exist'),
        (["export", "--store", "postgresql://bad"], 1, "could not connect to the store"),
    ]
    for args, code, words in cases:
        r = _cli(*args, tmp_path=tmp_path)
        err = r.stderr.strip()
        assert r.returncode == code, (args, r.stdout, r.stderr)
        assert len(err.splitlines()) == 1 and words in err, (args, err)
        assert "Traceback" not in err and "internal error" not in err, (args, err)


def test_an_index_from_a_newer_memdir_is_one_line(project, tmp_path):
    """A SQLite index written by a newer memdir (a downgrade): one line naming the file and what to do, exit 1 —
    it said "internal error: RuntimeError" before."""
    import sqlite3

    import memdir

    with memdir.open(project, home=tmp_path / "g") as m:
        m.remember("a note so the index exists")
        path = m.roots["project"].db_path
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 999")
    db.commit()
    db.close()
    env = {"MEMDIR_HOME": str(tmp_path / "g"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "memdir", "--dir", str(project), "recall", "note"], capture_output=True,
                       text=True, env=env, timeout=120)
    err = r.stderr.strip()
    assert r.returncode == 1 and len(err.splitlines()) == 1, r.stderr
    assert err.startswith("memdir: error: the index") and "newer memdir" in err and "internal error" not in err


def test_a_weight_too_large_to_score_is_refused():
    """A weight of 1e308 made scores overflow to Infinity, which `recall --json` cannot print as JSON."""
    from memdir.config import Config

    cfg = Config(env={"MEMDIR_RECALL_CJK_UNIGRAM_WEIGHT": "1e308", "MEMDIR_RECALL_BRIDGE_WEIGHT": "2"})
    assert cfg.get("recall.cjk_unigram_weight") == 0.3 and cfg.get("recall.bridge_weight") == 2
    assert any("recall.cjk_unigram_weight" in w for w in cfg.warnings)
