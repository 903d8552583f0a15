"""The store's password never reaches a message: libpq's own errors echo the part of a URL it could not parse (a
space in the password, an ``@`` in it read as part of the host), and the key=value form was shown whole when refused
(a probe of the team store found each; the ordinary wrong-password error was already masked)."""

from __future__ import annotations

import pytest

import memdir
from conftest import run_cli
from memdir.urlmask import passwords_of, safe_url, scrub
from memdir.errors import MemdirError

SECRETS = ("SECRET SPACE", "pa@ss", "KVSECRET", "KV SECRET", "ss@127")


@pytest.mark.parametrize("url, secret", [
    ("postgresql://memdir_srv:SECRET SPACE@127.0.0.1:1/memdir", "SECRET SPACE"),
    ("postgresql://memdir_srv:pa@ss@127.0.0.1:1/memdir", "ss@127"),
    ("host=127.0.0.1 port=1 password=KVSECRET dbname=memdir", "KVSECRET"),
    ("host=127.0.0.1 port=1 password='KV SECRET' dbname=memdir", "KV SECRET"),
    ("postgresql://u:p%40ssw0rd@127.0.0.1:1/db?sslpassword=zz9y", "zz9y"),
    ("postgresql://memdir:Xk9/vQ2pLm@127.0.0.1:1/memdir", "vQ2pLm"),  # an unencoded / or ? in the password
    ("postgresql://memdir:Xk9?vQ2pLm@127.0.0.1:1/memdir", "vQ2pLm"),
])
def test_a_password_is_masked_in_the_url_and_in_what_is_said_about_it(url, secret):
    assert secret not in safe_url(url) and "***" in safe_url(url)
    assert passwords_of(url)
    assert secret not in scrub(f"could not connect: {url} failed near '{secret}'", url)


def test_libpq_s_own_words_about_a_url_it_could_not_read_are_masked():
    pytest.importorskip("psycopg")
    from memdir.store.postgres.store import PgStore

    for url in ("postgresql://memdir_srv:SECRET SPACE@127.0.0.1:1/memdir",
                "postgresql://memdir_srv:pa@ss@127.0.0.1:1/memdir"):
        with pytest.raises(MemdirError) as got:
            PgStore.connect(url, project="-").close()
        assert not [s for s in SECRETS if s in str(got.value)], str(got.value)


def test_a_refused_store_setting_and_store_option_are_shown_masked(project, tmp_path, capsys, monkeypatch):
    (project / ".memory").mkdir(exist_ok=True)
    (project / ".memory" / "config.toml").write_text("store = 'host=x password=KVSECRET'\n", encoding="utf-8")
    with pytest.raises(Exception) as got:
        memdir.open(project, home=tmp_path / "g")
    assert "KVSECRET" not in str(got.value) and "password=***" in str(got.value)
    (project / ".memory" / "config.toml").unlink()
    pytest.importorskip("starlette")
    code, out, err = run_cli(capsys, "--dir", str(project), "serve", "--store", "host=127.0.0.1 password=KVSECRET dbname=memdir")
    assert code == 2 and "KVSECRET" not in out + err and "password=***" in err


def test_doctor_reports_a_store_it_cannot_reach_as_a_failed_check(project, tmp_path, capsys, monkeypatch):
    pytest.importorskip("psycopg")
    monkeypatch.setenv("MEMDIR_HOME", str(tmp_path / "g"))
    (project / ".memory").mkdir(exist_ok=True)
    (project / ".memory" / "config.toml").write_text(
        'store = "postgresql://memdir_srv:WRONGPASS123@127.0.0.1:1/memdir"\n', encoding="utf-8")
    code, out, err = run_cli(capsys, "--dir", str(project), "doctor")
    assert code == 1 and out.startswith("[fail] store: could not connect") and "memdir config" in out, (out, err)
    assert "WRONGPASS123" not in out + err and "error:" not in err


def test_a_short_password_is_masked_where_the_url_holds_it_without_mangling_the_rest():
    assert safe_url("postgresql://u:p@h/db") == "postgresql://u:***@h/db"


def test_a_team_server_url_with_a_password_is_masked_by_doctor_and_in_a_refusal(project, tmp_path, capsys, monkeypatch):
    from memdir.config import Config
    from memdir.engine.teamview import TeamUnavailable, check_server

    url = "http://bob:R3motePassw0rd@127.0.0.1:9/v1"
    got = check_server(url, "p", "tok", timeout_s=0.5)
    assert got["ok"] == "fail" and "R3motePassw0rd" not in got["detail"] and "bob:***@" in got["detail"]
    assert "R3motePassw0rd" not in str(TeamUnavailable(url, {"kind": "unreachable", "reason": f"{url} down", "fix": "x"}))
    cfg = Config(env={"MEMDIR_REMOTE_URL": "http://bob:R3mote/Passw0rd@127.0.0.1:9/v1"})
    assert cfg.warnings and not any("R3mote" in w or "Passw0rd" in w for w in cfg.warnings)
